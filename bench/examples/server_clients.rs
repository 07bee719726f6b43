//! The many-client server bench of `ackwire bench` alone (`ackwire_bench::server`), on the
//! cubes and the arena, printing each run's row and how long the whole took: the figure the
//! quick bench's time grows by.
//!
//! `cargo run --release -p ackwire-bench --example server_clients -- [--full]`

use ackwire_bench::scenes::SceneKind;
use ackwire_bench::server;
use std::time::Instant;

fn main() {
    let quick = !std::env::args().any(|a| a == "--full");
    let started = Instant::now();
    let rows = server::run(&SceneKind::ALL, quick, 1, || {}).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    for r in &rows {
        println!(
            "{:6} {:5} clients: {:9.3} ms/tick one core, {:9.3} wall, {:7.1} ns/entity/client",
            r.scene,
            r.clients,
            r.server_ms,
            r.wall_ms,
            r.ns_per_entity_client()
        );
    }
    println!(
        "{} runs ({}) in {:.1} s",
        rows.len(),
        if quick { "quick" } else { "full" },
        started.elapsed().as_secs_f64()
    );
}
