//! Issue 19's decode target, timed for a loaded machine: the acked client's whole delivery of
//! the cube scene's frames as kind 6 (`acked`) and as kind 12 (`acked-packed`), and each
//! schema's `decode_staged` alone over the same frames. Passes of each alternate, and the
//! fastest pass of each is told in nanoseconds per entity of the world per frame, with kind
//! 12's ratio to kind 6's. The fastest of many passes is the one no other process
//! interrupted, so the ratio holds when the cores are shared; `ackwire bench` stays the
//! figure of record (its decode column is the same delivery inside a lossy session).
//!
//! `cargo run --release -p ackwire-bench --example deliver_packed_min -- [PASSES]` (default
//! 200).

use std::hint::black_box;
use std::time::Instant;

use ackwire_bench::run::deliver_scene;
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{
    AckedDecoder, AckedFrame, AckedSchema, Delivery, PackedReference, Reference,
};

/// A fresh decoder takes every frame; returns how many it showed.
fn deliver_all<S: AckedSchema + Default>(frames: &[Vec<u8>]) -> usize {
    let mut decoder = AckedDecoder::<S>::new();
    frames
        .iter()
        .filter(|f| matches!(decoder.deliver(f), Delivery::Shown(_)))
        .count()
}

/// Every frame decoded into one reused frame, as the decoder does; returns the changes read.
fn decode_all<S: AckedSchema + Default>(frames: &[Vec<u8>]) -> usize {
    let schema = S::default();
    let mut out = AckedFrame::empty();
    let mut changes = 0;
    for f in frames {
        schema
            .decode_staged(f, &mut out)
            .unwrap_or_else(|e| panic!("a frame decodes: {e}"));
        changes += out.changes.len();
    }
    changes
}

fn main() {
    let passes: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let kind = SceneKind::Cube;
    let (_, [six, twelve]) = deliver_scene(["acked", "acked-packed"])
        .unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
    assert_eq!(
        deliver_all::<Reference>(&six),
        six.len(),
        "every kind 6 frame shows"
    );
    assert_eq!(
        deliver_all::<PackedReference>(&twelve),
        twelve.len(),
        "every kind 12 frame shows"
    );
    let mut best = [f64::MAX; 4];
    let mut time = |i: usize, f: &dyn Fn() -> usize| {
        let t = Instant::now();
        black_box(f());
        best[i] = best[i].min(t.elapsed().as_secs_f64());
    };
    for _ in 0..passes {
        time(0, &|| deliver_all::<Reference>(black_box(&six)));
        time(1, &|| deliver_all::<PackedReference>(black_box(&twelve)));
        time(2, &|| decode_all::<Reference>(black_box(&six)));
        time(3, &|| decode_all::<PackedReference>(black_box(&twelve)));
    }
    let per = |secs: f64, frames: usize| secs * 1e9 / (f64::from(kind.entities()) * frames as f64);
    let [d6, d12, r6, r12] = [
        per(best[0], six.len()),
        per(best[1], twelve.len()),
        per(best[2], six.len()),
        per(best[3], twelve.len()),
    ];
    println!(
        "cube, fastest of {passes} passes, ns per entity per frame ({} kind 6 frames, {} kind 12):",
        six.len(),
        twelve.len()
    );
    println!(
        "  deliver: kind 6 {d6:.2}, kind 12 {d12:.2}, ratio {:.2}",
        d12 / d6
    );
    println!(
        "  decode_staged alone: kind 6 {r6:.2}, kind 12 {r12:.2}, ratio {:.2}",
        r12 / r6
    );
}
