//! One run of the many-client server bench (`ackwire_bench::server::run_clients`) on one
//! thread, for counting the server's instructions under callgrind rather than timing it on a
//! shared machine: the server's phase is `Client::server_phase`, so
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*server_phase*' \
//!     target/release/examples/server_callgrind cube 16 2
//! ```
//!
//! counts only what the server does for its clients; divide the total by clients × ticks (both
//! printed) for the instructions per client per tick.
//!
//! `cargo build --release -p ackwire-bench --example server_callgrind`, then
//! `server_callgrind [cube|arena] [clients] [measured seconds]`.

use ackwire_bench::scenes::SceneKind;
use ackwire_bench::server;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = match args.first().map(String::as_str) {
        None | Some("cube") => SceneKind::Cube,
        Some("arena") => SceneKind::Arena,
        Some(other) => {
            eprintln!("unknown scene {other}: cube or arena");
            std::process::exit(2)
        }
    };
    let number = |i: usize, default: u32| {
        args.get(i).map_or(default, |a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("argument {}: not a number: {a}", i + 1);
                std::process::exit(2)
            })
        })
    };
    let (clients, seconds) = (number(1, 16), number(2, 2));
    let run = server::run_clients(kind, clients, seconds, 1, 1).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let r = &run.row;
    // The join second is served too, and counted by callgrind.
    let ticks = r.ticks + kind.hz();
    println!(
        "{} {} clients, {} ticks served ({} measured): {:.3} ms/tick one core, {:.1} KB/client",
        r.scene,
        clients,
        ticks,
        r.ticks,
        r.server_ms,
        r.memory_per_client / 1e3
    );
    println!(
        "client-ticks served: {}",
        u64::from(ticks) * u64::from(clients)
    );
}
