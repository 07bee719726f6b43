//! Writes the recorded stream of the arena (`vectors/streams/arena.txt`): what the first
//! client of `stream::RECORDED`'s run received and sent, the stream the TypeScript client is
//! held to. `cargo run -p ackwire-example-game --example record_stream [PATH]`.

use ackwire_example_game::stream::{run, RECORDED};
use ackwire_example_game::Arena;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors/streams/arena.txt"),
        PathBuf::from,
    );
    let record = match run::<Arena>(RECORDED) {
        Ok(r) => r.record,
        Err(e) => {
            eprintln!("record_stream: the run broke: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&path, &record) {
        eprintln!("record_stream: {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {} ({} lines)",
        path.display(),
        record.lines().count()
    );
    ExitCode::SUCCESS
}
