//! Trains the reference's coded frame (kind 13, `docs/spec/coded.md` CODE-17): every value its
//! frames code over the bench's three scenes at 5% loss each way, seed 2 (the bench measures
//! seed 1, so the tables are never trained on the run that judges them), counted slot by slot,
//! and written as the tables file `spec/protocol/acked.wire` names.
//!
//! `cargo run --release -p ackwire-bench --example train_coded [SECONDS] [OUT]`
//!
//! SECONDS of each scene (default 20); OUT defaults to `spec/protocol/acked_coded.tables`. The
//! file is checked in: a table that changes is a wire change, and the commit says so.

use std::process::ExitCode;

use ackwire_bench::coded::{tables_text, train};
use ackwire_bench::scenes::SceneKind;

const SEED: u64 = 2;
const LOSS_PCT: f64 = 5.0;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let seconds = match args.next().map(|s| s.parse::<u32>()) {
        None => 20,
        Some(Ok(s)) if s > 0 => s,
        Some(_) => {
            eprintln!("train_coded: SECONDS must be a whole number above 0");
            return ExitCode::from(2);
        }
    };
    let out = args
        .next()
        .unwrap_or_else(|| "spec/protocol/acked_coded.tables".into());
    let counts = match train(&SceneKind::ALL, seconds, LOSS_PCT, SEED) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("train_coded: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bits: u64 = counts.counts().iter().map(|[a, b]| a + b).sum();
    let header = format!(
        "The starting probabilities of AckedCoded's models (kind 13, docs/spec/coded.md CODE-16):\n\
         every value its frames coded over {seconds} s of each of the bench's scenes (cube, arena,\n\
         floats) at {LOSS_PCT}% loss each way, seed {SEED}: {bits} bits. Written by\n\
         `cargo run --release -p ackwire-bench --example train_coded {seconds}`, never by hand;\n\
         a change here is a wire change."
    );
    if let Err(e) = std::fs::write(&out, tables_text(&counts, &header)) {
        eprintln!("train_coded: cannot write {out}: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "{out}: {bits} bits counted over {} slots",
        counts.counts().len()
    );
    ExitCode::SUCCESS
}
