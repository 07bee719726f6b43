//! The acked client's whole delivery, alone: the cube scene's kind 6 frames replayed through
//! [`AckedDecoder::deliver`] (decoding, applying onto the base, the report against the last
//! frame shown, the check), beside bitcode decoding the full world of the same ticks.
//!
//! `cargo bench -p ackwire-bench --bench deliver` runs the cube scene ([`deliver_scene`]: seed
//! 1, no loss, so that every frame applies) for a second of join and settling and then two
//! cycles of POSE_REFRESH ticks (so that the resting poses' refresh bursts weigh what they
//! weigh in a long run), and keeps the frames the acked and bitcode servers sent. One
//! iteration is a fresh decoder taking all the acked frames, the join's keyframe first, each of
//! which must show; the bitcode function decodes every tick's snapshot. Both report
//! `Throughput::Elements(entities × frames)`, so 1e9 over `thrpt` is nanoseconds per entity of
//! the world per frame: the unit of `ackwire bench`'s decode target.
//!
//! Where `ackwire bench` times the same work inside a lossy session, interleaved with the
//! server's, this isolates it for a profiler:
//! `cargo bench -p ackwire-bench --bench deliver --no-run`, then
//! `perf record -g <the bench binary> --bench --profile-time 20 acked`.

use std::hint::black_box;
use std::time::Duration;

use ackwire_bench::run::{deliver_scene, FullSnapshot};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{AckedDecoder, Delivery, Reference};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// A fresh decoder takes every frame; returns how many it showed.
fn deliver_all(frames: &[Vec<u8>]) -> usize {
    let mut decoder = AckedDecoder::<Reference>::new();
    frames
        .iter()
        .filter(|f| matches!(decoder.deliver(f), Delivery::Shown(_)))
        .count()
}

fn benches(c: &mut Criterion) {
    let kind = SceneKind::Cube;
    let (ticks, [acked, bitcode]) =
        deliver_scene(["acked", "bitcode"]).unwrap_or_else(|e| panic!("the cube scene runs: {e}"));
    assert_eq!(
        deliver_all(&acked),
        acked.len(),
        "every acked frame applies when none is lost"
    );
    eprintln!(
        "cube scene, {} ticks: {} acked frames ({} bytes), {} bitcode snapshots ({} bytes)",
        ticks,
        acked.len(),
        acked.iter().map(Vec::len).sum::<usize>(),
        bitcode.len(),
        bitcode.iter().map(Vec::len).sum::<usize>(),
    );

    let mut group = c.benchmark_group("cube/deliver");
    let entities = u64::from(kind.entities());
    group.throughput(Throughput::Elements(entities * acked.len() as u64));
    group.bench_function("acked", |b| b.iter(|| deliver_all(black_box(&acked))));
    group.throughput(Throughput::Elements(entities * bitcode.len() as u64));
    group.bench_function("bitcode", |b| {
        b.iter(|| {
            for bytes in black_box(&bitcode) {
                let world: FullSnapshot =
                    bitcode::decode(bytes).unwrap_or_else(|e| panic!("bitcode decodes: {e}"));
                black_box(world);
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = deliver;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(deliver);
