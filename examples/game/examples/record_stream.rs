//! Writes the recorded streams of the arena: what the first client of `stream::RECORDED`'s run
//! received and sent, the streams the TypeScript and C# clients are held to. Kind 6's
//! (`vectors/streams/arena.txt`, the `Arena` schema) by default; kind 13's
//! (`vectors/streams/arena_coded.txt`, `CodedArena`) with `coded`.
//! `cargo run -p ackwire-example-game --example record_stream [coded] [PATH]`.

use ackwire_example_game::stream::{run, Run, RECORDED};
use ackwire_example_game::{Arena, CodedArena};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let coded = args.first().is_some_and(|a| a == "coded");
    if coded {
        args.remove(0);
    }
    let (made, file): (Result<Run, String>, _) = if coded {
        (run::<CodedArena>(RECORDED), "arena_coded.txt")
    } else {
        (run::<Arena>(RECORDED), "arena.txt")
    };
    let path = args.pop().map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("vectors/streams")
                .join(file)
        },
        PathBuf::from,
    );
    let record = match made {
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
