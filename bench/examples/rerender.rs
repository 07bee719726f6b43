//! Renders the committed bench run again without running it: reads `docs/bench/bench.json`
//! and writes the report page, the chart and the README's bench block from it, naming the
//! command the current page names. For when the page's rendering changes (bench/src/page.rs,
//! render.rs) and the figures do not: `bench/tests/bench_readme.rs` holds the committed files
//! to what the JSON renders. A new lane or scene needs a new run instead.
//!
//! `cargo run -p ackwire-bench --example rerender` (from the repository's root)

use std::path::Path;
use std::process::ExitCode;

use ackwire_bench::command::{Args, Command};
use ackwire_bench::{page, Report};

fn run() -> Result<(), String> {
    let out = Path::new("docs/bench");
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let report: Report = serde_json::from_str(&read(&out.join("bench.json"))?)
        .map_err(|e| format!("docs/bench/bench.json: {e}"))?;
    let current = read(&out.join(page::PAGE))?;
    let command = current
        .split_once("Produced by `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(command, _)| command.to_owned())
        .ok_or("docs/bench/README.md does not name the command that produced it")?;
    let bench = Command::prepare(Args {
        out: out.to_path_buf(),
        readme: Some("README.md".into()),
        ..Args::default()
    })?;
    bench.write(&report, &command, |line| println!("{line}"))
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rerender: {e}");
            ExitCode::FAILURE
        }
    }
}
