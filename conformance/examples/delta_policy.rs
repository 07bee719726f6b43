//! The measured table of `docs/spec/delta.md`, reproduced through the network simulator: a
//! churning world streamed to one subscriber as `delta_plan` / `delta_ack` frames under 0, 10 and
//! 25 per cent loss each way, with the last-sent policy (`Naive`) and the last-acked one
//! (`AckRecovery`).
//!
//! ```sh
//! cargo run --release -p ackwire-conformance --example delta_policy
//! ```
//!
//! Columns: `mismatches` counts acknowledgements whose digest is not the digest of the state
//! the server sent with the packet they report as newest; `phantoms` and `missing` are the
//! mean, over every tick after the first second, of keys the mirror holds that the world does
//! not and of keys the world holds that the mirror does not; `B/s` is plan bytes per second.

use ackwire_codec::delta::RecoveryPolicy;
use ackwire_conformance::sessions::delta::{measure_policy, PolicyRun};

fn main() {
    let (seconds, slots, churn, seed) = (60, 600, 6, 2024);
    println!(
        "{seconds} s at 20 ticks/s, {slots} slots (about half occupied), {churn} enter/leave/respawn \
         events a tick, 40 ms latency + 0-20 ms jitter each way, history 64"
    );
    println!();
    println!("| loss | policy | mismatches | phantoms | missing | B/s | full rebuilds |");
    println!("|---|---|---|---|---|---|---|");
    for loss in [0.0, 0.10, 0.25] {
        for (name, policy) in [
            ("last sent", RecoveryPolicy::Naive),
            ("last acked", RecoveryPolicy::AckRecovery),
        ] {
            let row = measure_policy(&PolicyRun {
                policy,
                loss,
                seconds,
                slots,
                churn,
                seed,
            });
            println!(
                "| {:.0}% | {name} | {} | {:.1} | {:.1} | {:.0} | {} |",
                loss * 100.0,
                row.mismatches,
                row.phantoms,
                row.missing,
                row.bytes_per_second,
                row.full_rebuilds
            );
        }
    }
}
