//! The deliver bench's two measurements (the acked client's whole delivery of the cube scene's
//! frames, bitcode decoding the full world of the same ticks) one frame at a time, with memory
//! written between frames, so that each frame starts with its tables out of the caches, as in
//! `ackwire bench`, where the other protocols' work runs between two deliveries.
//!
//! `cargo run --release -p ackwire-bench --example deliver_cold -- [PASSES] [MB] [STRIDE]
//! [packed]` (defaults 20, 16 and 8; `packed` delivers the frames as kind 12, the bench's
//! `acked-packed`, where kind 6 is the default): before each frame, one u64 every STRIDE u64s of an MB-megabyte
//! buffer is written. STRIDE 8 writes every cache line (16 MB leaves the 1 MB L2 and most of
//! what a shared L3 keeps cold); STRIDE 512 writes one line per 4 KiB page, which evicts the
//! translation caches and hardly any data. MB 0 is the warm case. The median and the fastest
//! pass of each are told, in nanoseconds per entity of the world per frame, with their ratio.
//!
//! The acked delivery loses more to cold caches than bitcode's decode, which reads and writes
//! its lines in order where the delivery's are spread over the world's table. Under
//! `valgrind --tool=callgrind --cache-sim=yes --LL=1048576,16,64` with
//! `--toggle-collect='deliver_cold::cold_*'` and 4 MB, it counts the lines each side misses.
//!
//! What it does not show: which of two designs `ackwire bench` will find faster. A design has
//! read faster here and slower in alternated runs of `ackwire bench --scene cube --loss 5`
//! (docs/perf/acked-decoder.md); A/B a change there before keeping it.

use std::hint::black_box;
use std::time::Instant;

use ackwire_bench::run::{deliver_scene, FullSnapshot};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{AckedDecoder, AckedSchema, Delivery, PackedReference, Reference};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: usize| args.next().and_then(|a| a.parse().ok()).unwrap_or(default);
    let (passes, mb, stride) = (arg(20).max(1), arg(16), arg(8).max(1));
    let packed = std::env::args().nth(4).is_some_and(|a| a == "packed");
    if packed {
        run::<PackedReference>("acked-packed", passes, mb, stride);
    } else {
        run::<Reference>("acked", passes, mb, stride);
    }
}

/// The measurement, of the acked frames of `protocol` delivered with schema `S`.
fn run<S: AckedSchema + Default>(protocol: &'static str, passes: usize, mb: usize, stride: usize) {
    let kind = SceneKind::Cube;
    let (_, [acked, bitcode]) =
        deliver_scene([protocol, "bitcode"]).unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
    let mut junk = vec![0u64; mb * 1024 * 1024 / 8];
    let mut evict = |k: u64| {
        for (i, w) in junk.iter_mut().enumerate().step_by(stride) {
            *w = w.wrapping_add(k ^ i as u64);
        }
        black_box(&junk);
    };
    let (mut acked_runs, mut bitcode_runs) = (Vec::new(), Vec::new());
    for pass in 0..passes {
        let mut decoder = AckedDecoder::<S>::new();
        let (mut a, mut b) = (0.0, 0.0);
        for (i, (fa, fb)) in acked.iter().zip(&bitcode).enumerate() {
            let k = (pass as u64) << 32 | i as u64;
            evict(k);
            let t = Instant::now();
            let shown = cold_deliver(&mut decoder, fa);
            a += t.elapsed().as_secs_f64();
            assert!(shown, "every acked frame shows");
            evict(!k);
            let t = Instant::now();
            cold_bitcode(fb);
            b += t.elapsed().as_secs_f64();
        }
        acked_runs.push(a);
        bitcode_runs.push(b);
    }
    acked_runs.sort_by(f64::total_cmp);
    bitcode_runs.sort_by(f64::total_cmp);
    let frames = acked.len().min(bitcode.len());
    let per = |secs: f64| secs * 1e9 / (f64::from(kind.entities()) * frames as f64);
    let (a, b) = (
        per(acked_runs[acked_runs.len() / 2]),
        per(bitcode_runs[bitcode_runs.len() / 2]),
    );
    let (a_min, b_min) = (per(acked_runs[0]), per(bitcode_runs[0]));
    println!(
        "cube deliver ({protocol}), {} frames, {mb} MB written between frames (a u64 every {stride}), \
         {passes} passes: median acked {a:.2} ns, bitcode decode {b:.2} ns per entity per \
         frame, ratio {:.2}; fastest {a_min:.2} and {b_min:.2}, ratio {:.2}",
        frames,
        a / b,
        a_min / b_min
    );
}

/// One acked frame delivered (apart, so that a profiler can tell it).
#[inline(never)]
fn cold_deliver<S: AckedSchema>(decoder: &mut AckedDecoder<S>, frame: &[u8]) -> bool {
    matches!(decoder.deliver(black_box(frame)), Delivery::Shown(_))
}

/// One bitcode snapshot decoded (apart, as [`cold_deliver`]).
#[inline(never)]
fn cold_bitcode(bytes: &[u8]) {
    let world: FullSnapshot =
        bitcode::decode(black_box(bytes)).unwrap_or_else(|e| panic!("bitcode decodes: {e}"));
    black_box(world);
}
