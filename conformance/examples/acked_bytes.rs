//! Bytes per tick of the acked stream (`docs/spec/acked.md`) for a sample scene at 0, 5 and 25 per
//! cent loss, beside the ordered deltas over a lossless link.
//!
//! `cargo run --release -p ackwire-conformance --example acked_bytes`
//!
//! The scene: 16 entities (one the client's own) over ±48 m, 75% of them moving each tick, a
//! rest change now and then, 0.5% churn (despawns, respawns under the same id), about 0.25
//! events a tick; 3600 ticks (a minute at 60 Hz). The loss applies to both directions, with
//! up to 2 ticks of extra delay (reordering); every run is checked against the ordered client
//! by `ackwire_server::acked::harness::run` as it goes.

use ackwire_server::acked::harness::{from_seed, run, Shape};

fn main() {
    println!("| loss | acked bytes/tick | ordered bytes/tick (lossless) | keyframes | frames shown | frames dropped | events | expired |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for loss in [0.0, 0.05, 0.25] {
        let shape = Shape {
            ticks: 3600,
            entities: 16,
            loss,
            duplicate: 0.0,
            jitter: 2,
            churn: 0.005,
            events: 0.2,
            heal_at: u32::MAX,
        };
        let out = match run(&from_seed(shape, 42)) {
            Ok(out) => out,
            Err(broken) => {
                eprintln!("invariant broken at {loss}: {broken}");
                std::process::exit(1);
            }
        };
        let per = |b: u64| b as f64 / f64::from(out.ticks);
        println!(
            "| {:.0}% | {:.1} | {:.1} | {} | {} | {} | {} | {} |",
            loss * 100.0,
            per(out.bytes_down),
            per(out.bytes_ordered),
            out.keyframes,
            out.shown,
            out.dropped,
            out.events,
            out.events_expired
        );
    }
}
