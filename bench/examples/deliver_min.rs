//! The deliver bench's two measurements (`benches/deliver.rs`: the acked client's whole
//! delivery of the cube scene's frames, bitcode decoding the full world of the same ticks),
//! timed for a loaded machine: passes of each alternate, and the fastest pass of each is told,
//! in nanoseconds per entity of the world per frame, with their ratio. The fastest of many
//! passes is the one no other process interrupted, so the ratio holds when the cores are shared
//! (criterion's means move with the load); the deliver bench stays the figure of record.
//!
//! `cargo run --release -p ackwire-bench --example deliver_min -- [PASSES]` (default 300).

use std::hint::black_box;
use std::time::Instant;

use ackwire_bench::run::{deliver_scene, FullSnapshot};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{AckedDecoder, Delivery, Reference};

fn main() {
    let passes: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let kind = SceneKind::Cube;
    let (_, [acked, bitcode]) =
        deliver_scene(["acked", "bitcode"]).unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
    let deliver_all = |frames: &[Vec<u8>]| {
        let mut decoder = AckedDecoder::<Reference>::new();
        frames
            .iter()
            .filter(|f| matches!(decoder.deliver(f), Delivery::Shown(_)))
            .count()
    };
    assert_eq!(deliver_all(&acked), acked.len(), "every acked frame shows");
    let (mut best_acked, mut best_bitcode) = (f64::MAX, f64::MAX);
    for _ in 0..passes {
        let t = Instant::now();
        black_box(deliver_all(black_box(&acked)));
        best_acked = best_acked.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for bytes in black_box(&bitcode) {
            let world: FullSnapshot =
                bitcode::decode(bytes).unwrap_or_else(|e| panic!("bitcode decodes: {e}"));
            black_box(world);
        }
        best_bitcode = best_bitcode.min(t.elapsed().as_secs_f64());
    }
    let per = |secs: f64, frames: usize| secs * 1e9 / (f64::from(kind.entities()) * frames as f64);
    let (a, b) = (
        per(best_acked, acked.len()),
        per(best_bitcode, bitcode.len()),
    );
    println!(
        "cube deliver, fastest of {passes} passes: acked {a:.2} ns, bitcode decode {b:.2} ns \
         per entity per frame; ratio {:.2}",
        a / b
    );
}
