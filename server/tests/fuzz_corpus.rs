//! Replays the committed corpus of the `acked_stream` fuzz target (`fuzz/corpus/acked_stream/`)
//! through the body that target runs (`ackwire_server::acked::harness::fuzz_one`), so every seed
//! and every past finding is a regression test of `cargo test`, without cargo-fuzz. The codec's
//! `tests/fuzz_corpus.rs` checks that the directory exists and is not empty.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[test]
fn acked_stream_corpus_keeps_the_harness_invariants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/acked_stream");
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let data = fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let run = catch_unwind(AssertUnwindSafe(|| {
                ackwire_server::acked::harness::fuzz_one(&data)
            }));
            run.is_err()
                .then(|| format!("{} ({data:02x?})", file.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} corpus files fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
