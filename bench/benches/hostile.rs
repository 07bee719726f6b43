//! What a hostile or slow client costs the server, per client: the probes of issue 38 as
//! criterion benches, so that a fix is measured the way the problem was.
//!
//! `cargo bench -p ackwire-bench --bench hostile` runs:
//!
//! - `delta_baseline/*`: one subscriber's [`DeltaBaseline`] over a visible set of 65,536 keys,
//!   one iteration being one round (a plan, then the acknowledgement that arrives in that
//!   round). `late_1` acknowledges the plan before the one just made (an honest client one
//!   round trip behind), `late_30` the plan 30 rounds back (a slow or lying client: the
//!   history holds 32 states), `never_acks` nothing; `static` means nothing changes between
//!   rounds, `churn_64` that 32 keys leave and 32 enter each round; `told` plans are told
//!   those changes ([`DeltaBaseline::plan_changes`]) rather than given the visible set. Every
//!   acknowledgement carries the right digest, so no plan is a rebuild. The time is per round.
//! - `input_flood/*`: the acked encoder taking a kind 7 frame of 255 inputs, every input
//!   aimed at a tick of its own, from a client that already sent 510 such inputs: `wide`
//!   judges them by a window of `u64::MAX` ticks both ways, so 256 ticks are buffered
//!   (MAX_BUFFERED_INPUTS) and every further input overflows; `narrow` by a window of 4 late
//!   and 64 early, so 65 are buffered and every further input is too far ahead. Each input
//!   costs the encoder a look at how many are buffered. `Elements(255)`: 1e9 over `thrpt` is
//!   nanoseconds per input.

use std::hint::black_box;

use ackwire_codec::delta::harness::LateSubscriber;
use ackwire_codec::protocol::{Buttons, Input};
use ackwire_codec::BitSet;
use ackwire_server::acked::ReferenceEncoder;
use ackwire_server::input_schedule::InputWindow;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// Keys visible to the subscriber: the probe's figure.
const KEYS: u64 = 65_536;
/// Sent states the baseline retains.
const HISTORY: usize = 32;

fn delta_baseline(c: &mut Criterion) {
    let mut group = c.benchmark_group("delta_baseline");
    group.sample_size(20);
    for (name, churn, late, told) in [
        ("late_1/static", 0, Some(1), false),
        ("late_30/static", 0, Some(30), false),
        ("never_acks/static", 0, None, false),
        ("late_1/churn_64", 64, Some(1), false),
        ("late_30/churn_64", 64, Some(30), false),
        ("never_acks/churn_64", 64, None, false),
        ("late_1/churn_64/told", 64, Some(1), true),
        ("late_30/churn_64/told", 64, Some(30), true),
    ] {
        let mut round = LateSubscriber::new(KEYS, churn, HISTORY, late, told);
        let full_rebuilds = round.baseline.full_rebuilds();
        group.bench_function(name, |b| b.iter(|| black_box(round.round())));
        assert_eq!(
            round.baseline.full_rebuilds(),
            full_rebuilds,
            "{name}: a rebuild, so the bench did not time what it says"
        );
    }
    group.finish();
}

fn input(tick: u32) -> Input {
    Input {
        tick,
        buttons: Buttons::empty(),
        move_x: 0.0,
        move_y: 0.0,
        yaw: 0.0,
    }
}

fn input_flood(c: &mut Criterion) {
    let mut group = c.benchmark_group("input_flood");
    group.throughput(Throughput::Elements(255));
    for (name, window) in [
        ("wide", InputWindow::new(u64::MAX, u64::MAX)),
        ("narrow", InputWindow::new(4, 64)),
    ] {
        // A client whose schedule is full: every further input is judged and overflows.
        let full = || {
            let mut encoder = ReferenceEncoder::new(window);
            let first = (0..255u32).map(|i| (1000 + i, input(i)));
            encoder.on_ack(1000, 0, false, 1, first);
            let second = (0..255u32).map(|i| (1255 + i, input(i)));
            encoder.on_ack(1000, 0, false, 256, second);
            encoder
        };
        group.bench_function(name, |b| {
            b.iter_batched_ref(
                full,
                |encoder| {
                    let flood = (0..255u32).map(|i| (2000 + i, input(i)));
                    encoder.on_ack(1000, 0, false, 511, flood);
                    black_box(encoder.counters().inputs_overflow)
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, delta_baseline, input_flood);
criterion_main!(benches);
