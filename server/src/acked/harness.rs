//! The acked stream's harness (`ackwire_codec::acked::harness`) over this crate's input
//! schedule: [`run`] is [`run_with`] with the client's inputs in an [`InputSchedule`]
//! (window 4 late, 64 early) executed every tick, and [`fuzz_one`] is the fuzz target
//! `acked_stream`'s body.
//!
//! The world, the network and every check (GEN-3) are the codec's, beside the encoder and the
//! decoder they drive; what lives here is the one part the codec cannot hold, the input
//! schedule (SRV-12 to SRV-16), so that the fuzz target, the property tests and the bytes
//! measurement run the scheduler a server runs and no second one.
//!
//! [`InputSchedule`]: crate::input_schedule::InputSchedule

use super::ScheduledInputs;
use crate::input_schedule::InputWindow;

pub use ackwire_codec::acked::harness::*;

/// Runs `s` (see [`run_with`]) with the client's inputs scheduled by the server's input
/// schedule, the due input executed every tick. Returns what it measured, or the first broken
/// invariant.
pub fn run(s: &Scenario) -> Result<Outcome, String> {
    run_with(s, ScheduledInputs::new(InputWindow::new(4, 64)), |q, t| {
        let _ = q.execute_due(t);
    })
}

/// [`run`] in kind 12 frames (issue 19: [`PackedReference`], the same machines), the
/// entities turning as they move so that the orientation travels too.
///
/// [`PackedReference`]: ackwire_codec::acked::PackedReference
pub fn run_packed(s: &Scenario) -> Result<Outcome, String> {
    run_schema_with::<ackwire_codec::acked::PackedReference, _>(
        s,
        ScheduledInputs::new(InputWindow::new(4, 64)),
        |q, t| {
            let _ = q.execute_due(t);
        },
        true,
    )
}

/// [`run_packed`] in kind 13 frames (issue 39, `docs/spec/coded.md`: [`CodedReference`], the
/// same machines naming older snapshots and coding against them).
///
/// [`CodedReference`]: ackwire_codec::acked::CodedReference
pub fn run_coded(s: &Scenario) -> Result<Outcome, String> {
    run_schema_with::<ackwire_codec::acked::CodedReference, _>(
        s,
        ScheduledInputs::new(InputWindow::new(4, 64)),
        |q, t| {
            let _ = q.execute_due(t);
        },
        true,
    )
}

/// The fuzz target's body: runs the scenario `data` describes in kind 6 frames, then in kind
/// 12 frames with the entities turning ([`run_packed`]), then in kind 13 ([`run_coded`]), then
/// feeds the same bytes as hostile
/// frames to a client decoder (`ackwire_codec::fuzzing::acked_hostile`: extreme ticks, large
/// removal lists, faulty changes), and panics when an invariant breaks.
pub fn fuzz_one(data: &[u8]) {
    let scenario = from_bytes(data);
    if let Err(broken) = run(&scenario) {
        panic!("acked stream invariant broken: {broken}");
    }
    if let Err(broken) = run_packed(&scenario) {
        panic!("acked stream invariant broken in kind 12 frames: {broken}");
    }
    if let Err(broken) = run_coded(&scenario) {
        panic!("acked stream invariant broken in kind 13 frames: {broken}");
    }
    ackwire_codec::fuzzing::acked_hostile(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scenario both profiles' tests run: 24 entities for 150 ticks, 10% to 40% loss by
    /// seed, 5% duplication, two ticks of jitter.
    fn lossy(seed: u64) -> Scenario {
        let shape = Shape {
            ticks: 150,
            entities: 24,
            loss: 0.1 + (seed % 4) as f64 * 0.1,
            duplicate: 0.05,
            jitter: 2,
            ..Shape::default()
        };
        from_seed(shape, seed)
    }

    /// Kind 12 over the same machines (issue 19): under loss, duplication and reordering, with
    /// every moving entity turning, the client shows exactly the ordered client's states, as in
    /// kind 6; and the same scenario costs fewer bytes down in kind 12.
    #[test]
    fn kind_12_shows_what_kind_6_shows_in_fewer_bytes() {
        let mut shown = 0;
        for seed in 0..24u64 {
            let s = lossy(seed);
            let packed = run_packed(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let wide = run_schema_with::<ackwire_codec::acked::Reference, _>(
                &s,
                ScheduledInputs::new(InputWindow::new(4, 64)),
                |q, t| {
                    let _ = q.execute_due(t);
                },
                true,
            )
            .unwrap_or_else(|e| panic!("seed {seed}, kind 6: {e}"));
            assert!(packed.shown > 0, "seed {seed}: {packed:?}");
            assert!(
                packed.bytes_down < wide.bytes_down,
                "seed {seed}: kind 12 {} bytes, kind 6 {}",
                packed.bytes_down,
                wide.bytes_down
            );
            shown += packed.shown;
        }
        assert!(shown > 1000, "{shown} frames shown");
    }

    /// Kind 13 over the same machines (issue 39): the same scenarios, the client's inputs
    /// scheduled as a server schedules them, every state it shows the ordered client's and
    /// every check passed, frames coded against base and older snapshots; and the same
    /// scenario costs fewer bytes down in kind 13.
    #[test]
    fn kind_13_shows_what_kind_12_shows_in_fewer_bytes() {
        let (mut shown, mut older) = (0, 0);
        for seed in 0..24u64 {
            let s = lossy(seed);
            let coded = run_coded(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let packed = run_packed(&s).unwrap_or_else(|e| panic!("seed {seed}, kind 12: {e}"));
            assert!(coded.shown > 0, "seed {seed}: {coded:?}");
            assert!(
                coded.bytes_down < packed.bytes_down,
                "seed {seed}: kind 13 {} bytes, kind 12 {}",
                coded.bytes_down,
                packed.bytes_down
            );
            shown += coded.shown;
            older += coded.older_named;
        }
        assert!(
            shown > 1000 && older > 1000,
            "{shown} shown, {older} named an older snapshot"
        );
    }
}
