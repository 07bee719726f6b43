//! Issue 39's speed targets alone, for a loaded machine. First the cube scene at 5% loss run as
//! `ackwire bench --quick` runs it, through kind 6 (`acked`) and kind 13 (`acked-coded`) only,
//! several times: the fastest encode and decode per entity of each lane over the runs and kind
//! 13's ratios to kind 6's (the targets: at most 1.5). Then the delivery alone, as
//! `deliver_packed_min` times it: a fresh client takes every frame of the deliver benches'
//! scene, fastest of many passes. `ackwire bench` stays the figure of record; this gives its
//! two ratios in seconds instead of minutes, and a loop to profile.
//!
//! `cargo run --release -p ackwire-bench --example coded_speed -- [RUNS] [PASSES]` (defaults 5
//! and 100; 0 runs or 0 passes skips that part).

use std::hint::black_box;
use std::time::Instant;

use ackwire_bench::run::{deliver_scene, run_scene, Length};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{AckedDecoder, AckedSchema, CodedReference, Delivery, Reference};

/// A fresh decoder takes every frame; returns how many it showed.
fn deliver_all<S: AckedSchema + Default>(frames: &[Vec<u8>]) -> usize {
    let mut decoder = AckedDecoder::<S>::new();
    frames
        .iter()
        .filter(|f| matches!(decoder.deliver(f), Delivery::Shown(_)))
        .count()
}

fn main() {
    let arg = |i: usize, default: u32| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (runs, passes) = (arg(1, 5), arg(2, 100));
    let kind = SceneKind::Cube;
    if runs > 0 {
        let length = Length::of(kind, true);
        // Fastest encode and decode per entity of kind 6, then kind 13.
        let mut best = [f64::MAX; 4];
        for _ in 0..runs {
            let (_, rows) = run_scene(kind, 5.0, length, 1, &["acked", "acked-coded"])
                .unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
            for (i, row) in rows.iter().enumerate() {
                best[2 * i] = best[2 * i].min(row.encode_ns_per_entity);
                best[2 * i + 1] = best[2 * i + 1].min(row.decode_ns_per_entity);
            }
        }
        let [e6, d6, e13, d13] = best;
        println!("cube, 5% loss, fastest of {runs} quick runs, ns per entity:");
        println!(
            "  encode: kind 6 {e6:.2}, kind 13 {e13:.2}, ratio {:.2}",
            e13 / e6
        );
        println!(
            "  decode: kind 6 {d6:.2}, kind 13 {d13:.2}, ratio {:.2}",
            d13 / d6
        );
    }
    if passes > 0 {
        let (_, [six, thirteen]) = deliver_scene(["acked", "acked-coded"])
            .unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
        for (shown, all, what) in [
            (deliver_all::<Reference>(&six), six.len(), "kind 6"),
            (
                deliver_all::<CodedReference>(&thirteen),
                thirteen.len(),
                "kind 13",
            ),
        ] {
            assert_eq!(shown, all, "every {what} frame shows");
        }
        let mut best = [f64::MAX; 2];
        for _ in 0..passes {
            let t = Instant::now();
            black_box(deliver_all::<Reference>(black_box(&six)));
            best[0] = best[0].min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            black_box(deliver_all::<CodedReference>(black_box(&thirteen)));
            best[1] = best[1].min(t.elapsed().as_secs_f64());
        }
        let per =
            |secs: f64, frames: usize| secs * 1e9 / (f64::from(kind.entities()) * frames as f64);
        let (d6, d13) = (per(best[0], six.len()), per(best[1], thirteen.len()));
        println!(
            "cube, no loss, deliver alone, fastest of {passes} passes, ns per entity per frame: \
             kind 6 {d6:.2}, kind 13 {d13:.2}, ratio {:.2}",
            d13 / d6
        );
    }
}
