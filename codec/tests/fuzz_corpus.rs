//! Replays the committed fuzz corpus (`fuzz/corpus/decode_<frame>/*`) through the same check the
//! `decode_<frame>` fuzz targets run (`ackwire_codec::fuzzing::decode_reencode`), so every seed
//! and every past finding is a regression test of `cargo test`, without cargo-fuzz.
//!
//! The corpora of the other targets (the lossy streams, the structured round trips, kind 13's
//! decode against a basis) are replayed through the bodies those targets run, too.
//!
//! The tests refuse to pass vacuously: every frame must have its fuzz target and a non-empty
//! corpus directory, every target and directory must name a frame or be one of the other
//! targets listed here, and each of those must have a non-empty corpus.

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

/// Frames that decode only against a basis (kind 13: CODE-13, CODE-14), so not among
/// `FRAME_NAMES`' `Frame`s: each has its `decode_<frame>` target all the same, whose input
/// carries the basis before the frame.
const BASIS_FRAMES: [&str; 1] = ["acked_coded"];

#[test]
fn frames_targets_and_corpus_directories_match_one_to_one() {
    let frames: BTreeSet<String> = FRAME_NAMES.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        frames.len(),
        FRAME_NAMES.len(),
        "FRAME_NAMES repeats a name"
    );

    // A frame decoded against a basis has its own target and is in no frame list.
    let with_basis: BTreeSet<String> = BASIS_FRAMES.iter().map(|n| n.to_string()).collect();
    assert!(
        frames.is_disjoint(&with_basis),
        "BASIS_FRAMES vs FRAME_NAMES"
    );
    let frames: BTreeSet<String> = frames.union(&with_basis).cloned().collect();

    let targets = names(&fuzz_dir().join("fuzz_targets"), ".rs");
    assert_eq!(
        decode_targets(targets.clone()),
        frames,
        "fuzz_targets/decode_<frame>.rs vs FRAME_NAMES and BASIS_FRAMES"
    );

    let corpora = names(&fuzz_dir().join("corpus"), "");
    assert_eq!(
        decode_targets(corpora.clone()),
        frames,
        "fuzz/corpus/decode_<frame>/ vs FRAME_NAMES and BASIS_FRAMES"
    );
    for dir in &corpora {
        assert!(
            targets.contains(dir),
            "fuzz/corpus/{dir}/ belongs to no fuzz target"
        );
    }
}

/// The fuzz targets other than `decode_<frame>`. `cargo test` replays each one's corpus through
/// the body the target runs: the codec's here, `acked_stream` in `server/tests/fuzz_corpus.rs`
/// (its harness is the server's).
const OTHER_TARGETS: [&str; 6] = [
    "acked_stream",
    "baseline_stream",
    "datagram_stream",
    "delta_stream",
    "roundtrip_acked_coded",
    "roundtrip_arbitrary",
];

#[test]
fn every_other_target_is_listed_and_has_a_corpus() {
    let targets = names(&fuzz_dir().join("fuzz_targets"), ".rs");
    let others: BTreeSet<String> = targets
        .into_iter()
        .filter(|t| !t.starts_with("decode_"))
        .collect();
    let listed: BTreeSet<String> = OTHER_TARGETS.iter().map(|t| t.to_string()).collect();
    assert_eq!(others, listed, "fuzz_targets/ vs OTHER_TARGETS");
    for target in OTHER_TARGETS {
        let dir = fuzz_dir().join("corpus").join(target);
        assert!(
            dir.is_dir() && fs::read_dir(&dir).unwrap().next().is_some(),
            "{} is missing or empty",
            dir.display()
        );
    }
}

/// Runs `check` on every file of `fuzz/corpus/<dir>/`, sorted; fails listing every file that
/// panics. Returns how many files it replayed.
fn replay(dir: &str, check: impl Fn(&[u8])) -> usize {
    let dir = fuzz_dir().join("corpus").join(dir);
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    let mut failures = Vec::new();
    for file in &files {
        let data = fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
            failures.push(format!("{} ({data:02x?})", file.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus files fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}

#[test]
fn committed_corpus_decodes_and_reencodes_identically() {
    // WIRE-21.
    for frame in FRAME_NAMES {
        replay(&format!("decode_{frame}"), |data| {
            assert!(
                decode_reencode_named(frame, data),
                "{frame}: not a frame name"
            )
        });
    }
}

/// The two acked frames' targets run more than the re-encoding: the schemas' own reads
/// (`decode_staged`, with their fast reads) held to `decode_frame`, and for kind 12 the trip
/// through kind 6.
#[test]
fn acked_corpora_keep_the_schemas_checks() {
    replay("decode_acked", ackwire_codec::fuzzing::decode_acked);
    replay(
        "decode_acked_packed",
        ackwire_codec::fuzzing::decode_acked_packed,
    );
}

/// Kind 13: each input is a basis then a frame; whatever decodes against it keeps CODE-4's
/// bound, names its basis and re-encodes to the same bytes. The corpus must hold frames that
/// decode, not only refusals.
#[test]
fn acked_coded_corpus_decodes_canonically() {
    use ackwire_codec::fuzzing::{check_acked_coded, split_acked_coded_input};
    let decoded = std::cell::Cell::new(0);
    let files = replay("decode_acked_coded", |data| {
        if let Some((basis, frame)) = split_acked_coded_input(data) {
            decoded.set(decoded.get() + usize::from(check_acked_coded(frame, &basis)));
        }
    });
    assert!(
        decoded.get() >= 3,
        "{} of {files} files decode",
        decoded.get()
    );
}

#[cfg(feature = "arbitrary")]
#[test]
fn roundtrip_acked_coded_corpus_round_trips() {
    replay(
        "roundtrip_acked_coded",
        ackwire_codec::fuzzing::roundtrip_acked_coded,
    );
}

#[test]
fn baseline_stream_corpus_keeps_the_harness_invariants() {
    replay("baseline_stream", |data| {
        if let Err(e) = ackwire_codec::baseline::harness::run(data) {
            panic!("{e}");
        }
    });
}

#[test]
fn datagram_stream_corpus_keeps_the_harness_invariants() {
    replay("datagram_stream", |data| {
        if let Err(e) = ackwire_codec::datagram::harness::run(data) {
            panic!("{e}");
        }
    });
}

#[test]
fn delta_stream_corpus_keeps_the_harness_invariants() {
    replay("delta_stream", |data| {
        ackwire_codec::delta::harness::run(data);
    });
}

#[cfg(feature = "arbitrary")]
#[test]
fn roundtrip_arbitrary_corpus_round_trips() {
    replay(
        "roundtrip_arbitrary",
        ackwire_codec::fuzzing::roundtrip_arbitrary,
    );
}
