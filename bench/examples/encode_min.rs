//! The server's side of `ackwire bench`'s encode target on the cube scene, for a loaded
//! machine: each tick's S_N presented from the world ([`Presenter::present`]) and encoded onto
//! a base six ticks old (a 100 ms round trip at 60 Hz, no loss) by a fresh [`AckedEncoder`],
//! against bitcode encoding the full world of the same ticks. Passes of each alternate; each
//! tick's fastest time over the passes is summed, and told in nanoseconds per entity per tick
//! with the ratio of the two: a tick's fastest time is one no other process interrupted, so the
//! ratio holds when the cores are shared.
//! `ackwire bench`'s encode column (inside the lossy session) stays the figure of record.
//!
//! `cargo run --release -p ackwire-bench --example encode_min -- [PASSES]` (default 40).

use std::hint::black_box;
use std::time::Instant;

use ackwire_bench::run::FullSnapshot;
use ackwire_bench::scenes::{Scene, SceneKind};
use ackwire_codec::acked::Reference;
use ackwire_codec::protocol::Input;
use ackwire_server::acked::{
    AckedEncoder, Presenter, ViewConfig, World, WorldEntity, POSE_REFRESH,
};
use ackwire_server::input_schedule::InputWindow;
use ackwire_server::relevance::TierBoundary;

/// The deliver bench's scene: seed 1, a second of join and two refresh cycles.
const SEED: u64 = 1;
const LEAD_SECONDS: u32 = 1;
const CYCLES: u32 = 2;
/// Ticks between a frame and its acknowledgement reaching the server.
const ROUND_TRIP: u32 = 6;

fn main() {
    let passes: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let kind = SceneKind::Cube;
    let ticks = kind.hz() * LEAD_SECONDS + CYCLES * POSE_REFRESH;
    let mut scene = Scene::new(kind, SEED);
    // Each tick's bodies that changed (all of them on the first), as `ackwire bench` mirrors
    // them into the one world it keeps (`AckedBench::mirror`).
    let (mut changes, mut snapshots) = (Vec::new(), Vec::new());
    for t in 1..=ticks {
        scene.step();
        let changed: Vec<(u16, WorldEntity)> = scene
            .bodies()
            .iter()
            .enumerate()
            .filter(|(i, _)| t == 1 || scene.changed().contains(i))
            .map(|(_, b)| {
                let e = WorldEntity {
                    life: 1,
                    x: b.pos[0],
                    y: b.pos[1],
                    z: b.pos[2],
                    yaw: b.yaw,
                    hp: b.hp,
                    armor: 0,
                    vehicle: 0,
                    seat: 0,
                    orient: None,
                };
                (b.id, e)
            })
            .collect();
        changes.push(changed);
        snapshots.push(FullSnapshot::of(kind, t, scene.bodies()));
    }
    // `ackwire bench`'s view of the acked client.
    let view = ViewConfig {
        own: kind.own().into_iter().collect(),
        tier: match kind.own() {
            Some(_) => TierBoundary::new(12.0, 14.0),
            None => TierBoundary::new(-1.0, -1.0),
        },
        far_every: 1,
    };
    // One pass: the fastest time of each tick so far kept in `best`.
    let encode_all = |best: &mut [f64]| -> usize {
        let mut world = World::new();
        let mut presenter = Presenter::new(view.clone());
        let mut encoder = AckedEncoder::<Reference, Input>::new(InputWindow::new(4, 64));
        let mut bytes = 0;
        for ((t, changed), best) in (1u32..).zip(&changes).zip(best) {
            world.extend(changed.iter().cloned());
            if t > ROUND_TRIP {
                encoder.on_ack(u64::from(t), t - ROUND_TRIP, false, 0, std::iter::empty());
            }
            let started = Instant::now();
            let state = presenter.present(t, &world);
            let out = encoder
                .encode(t, state, std::iter::empty())
                .unwrap_or_else(|e| panic!("tick {t} encodes: {e}"));
            *best = best.min(started.elapsed().as_secs_f64());
            bytes += out.bytes.len();
        }
        bytes
    };
    // The fastest of each tick over the passes: a pass is long enough that some tick of every
    // pass is interrupted on a loaded machine, a tick is not.
    let mut best_acked = vec![f64::MAX; changes.len()];
    let mut best_bitcode = vec![f64::MAX; changes.len()];
    let sent = encode_all(&mut best_acked);
    for _ in 0..passes {
        assert_eq!(
            encode_all(&mut best_acked),
            sent,
            "every pass sends the same"
        );
        for (s, best) in snapshots.iter().zip(&mut best_bitcode) {
            let started = Instant::now();
            black_box(bitcode::encode(black_box(s)));
            *best = best.min(started.elapsed().as_secs_f64());
        }
    }
    let (best_acked, best_bitcode): (f64, f64) =
        (best_acked.iter().sum(), best_bitcode.iter().sum());
    let per = |secs: f64| secs * 1e9 / (f64::from(kind.entities()) * f64::from(ticks));
    let (a, b) = (per(best_acked), per(best_bitcode));
    println!(
        "cube encode, fastest of {passes} passes ({sent} acked bytes): acked {a:.2} ns, bitcode \
         {b:.2} ns per entity per tick; ratio {:.2}",
        a / b
    );
}
