//! Replays the committed fuzz corpus (`fuzz/corpus/decode_<frame>/*`) through the same check the
//! `decode_<frame>` fuzz targets run (`ackwire_codec::fuzzing::decode_reencode`), so every seed
//! and every past finding is a regression test of `cargo test`, without cargo-fuzz.
//!
//! The test refuses to pass vacuously: every frame must have its fuzz target and a non-empty
//! corpus directory, and every target and directory must name a frame.

use std::collections::BTreeSet;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use ackwire_codec::fuzzing::decode_reencode_named;
use ackwire_codec::protocol::FRAME_NAMES;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Names of the entries of `dir` that end in `strip`, without it.
fn names(dir: &Path, strip: &str) -> BTreeSet<String> {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    entries
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter_map(|name| name.strip_suffix(strip).map(str::to_owned))
        .collect()
}

fn decode_targets(all: BTreeSet<String>) -> BTreeSet<String> {
    all.into_iter()
        .filter_map(|t| t.strip_prefix("decode_").map(str::to_owned))
        .collect()
}

#[test]
fn frames_targets_and_corpus_directories_match_one_to_one() {
    let frames: BTreeSet<String> = FRAME_NAMES.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        frames.len(),
        FRAME_NAMES.len(),
        "FRAME_NAMES repeats a name"
    );

    let targets = names(&fuzz_dir().join("fuzz_targets"), ".rs");
    assert_eq!(
        decode_targets(targets.clone()),
        frames,
        "fuzz_targets/decode_<frame>.rs vs FRAME_NAMES"
    );

    let corpora = names(&fuzz_dir().join("corpus"), "");
    assert_eq!(
        decode_targets(corpora.clone()),
        frames,
        "fuzz/corpus/decode_<frame>/ vs FRAME_NAMES"
    );
    for dir in &corpora {
        assert!(
            targets.contains(dir),
            "fuzz/corpus/{dir}/ belongs to no fuzz target"
        );
    }
}

#[test]
fn committed_corpus_decodes_and_reencodes_identically() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for frame in FRAME_NAMES {
        let dir = fuzz_dir().join("corpus").join(format!("decode_{frame}"));
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
        files.sort();
        assert!(!files.is_empty(), "{} is empty", dir.display());
        for file in files {
            let data = fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            match catch_unwind(AssertUnwindSafe(|| decode_reencode_named(frame, &data))) {
                Ok(known) => assert!(known, "{frame}: not a frame name"),
                Err(_) => failures.push(format!("{} ({data:02x?})", file.display())),
            }
            replayed += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} corpus files fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
