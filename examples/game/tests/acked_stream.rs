//! The arena's acked stream through loss, duplication and reordering, in the three profiles of
//! the game's generated binding (`stream::run` holds every promise at every step), and the recorded
//! streams the TypeScript and C# clients are held to (`vectors/streams/arena.txt`, kind 6, and
//! `arena_coded.txt`, kind 13) still what a run makes.

use ackwire_example_game::stream::{run, Setup};
use ackwire_example_game::{Arena, ArenaEvent, CodedArena, Command, Entity, PackedArena};
use std::path::Path;

/// Two clients, 600 ticks (ten seconds), a fifth of the frames lost until tick 480.
fn setup(seed: u64) -> Setup {
    Setup {
        seed,
        clients: 2,
        ticks: 600,
        heal: 480,
        loss: 0.2,
    }
}

#[test]
fn every_client_shows_the_server_s_state_through_loss_duplication_and_reordering() {
    for seed in 1..=3 {
        let r = run::<Arena>(setup(seed)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        // Enough happened for the run to mean something: frames shown and dropped, checks
        // passed, events shown.
        assert!(r.shown > 600, "seed {seed}: {r:?}");
        assert!(r.dropped > 20, "seed {seed}: {r:?}");
        assert!(r.checks > 20, "seed {seed}: {r:?}");
        assert!(r.events > 20, "seed {seed}: {r:?}");
    }
}

#[test]
fn the_packed_profile_carries_the_same_stream_in_fewer_bytes() {
    let bytes = run::<Arena>(setup(4))
        .unwrap_or_else(|e| panic!("{e}"))
        .bytes;
    let packed = run::<PackedArena>(setup(4)).unwrap_or_else(|e| panic!("{e}"));
    assert!(packed.shown > 600, "{packed:?}");
    assert!(
        packed.bytes < bytes,
        "packed {} bytes, kind 6 {bytes}",
        packed.bytes
    );
}

/// The game chose the coded profile by declaring it (`coded frame ArenaCoded = 13`, `coded
/// velocity` on its steps): the same stream, every promise held at every step, in fewer bytes
/// than the packed profile, its steps predicted from older acknowledged states.
#[test]
fn the_coded_profile_carries_the_same_stream_in_fewer_bytes_than_the_packed() {
    for seed in [4, 5] {
        let packed = run::<PackedArena>(setup(seed))
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"))
            .bytes;
        let coded = run::<CodedArena>(setup(seed)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            coded.shown > 600 && coded.checks > 20,
            "seed {seed}: {coded:?}"
        );
        assert!(
            coded.bytes < packed,
            "seed {seed}: coded {} bytes, packed {packed}",
            coded.bytes
        );
    }
}

/// A recorded stream the clients of other languages are held to is still what a run makes.
fn recorded_stream_is_what_a_run_makes<S>(file: &str, args: &str)
where
    S: ackwire_codec::acked::AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command>
        + Default
        + 'static,
{
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("vectors/streams")
        .join(file);
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let got = run::<S>(ackwire_example_game::stream::RECORDED)
        .unwrap_or_else(|e| panic!("{e}"))
        .record;
    assert!(
        got == want,
        "{} is not what the run makes: `cargo run -p ackwire-example-game --example record_stream{args}` writes it",
        path.display()
    );
    assert!(want.lines().filter(|l| l.starts_with("dropped")).count() > 5);
}

#[test]
fn the_recorded_stream_is_what_a_run_makes() {
    recorded_stream_is_what_a_run_makes::<Arena>("arena.txt", "");
}

#[test]
fn the_recorded_coded_stream_is_what_a_run_makes() {
    recorded_stream_is_what_a_run_makes::<CodedArena>("arena_coded.txt", " coded");
}
