//! The checked-in frame vectors (`vectors/frames/*.json`): every case holds against the Rust
//! codec, every frame has positive and negative cases, every reachable error kind is pinned,
//! and the files are exactly what the cases kept in code generate.
//!
//! To regenerate the files after changing the cases (a wire change: say so in the commit):
//! `ackwire vectors --write`, or `ACKWIRE_BLESS=1 cargo test -p ackwire-conformance --test
//! frame_vectors`. Without that variable the tests never write to the folder.

use ackwire_codec::ErrorKind;
use ackwire_conformance::vectors::{self, Expectation, FrameFile};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The checked-in folder.
fn frames_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/frames")
}

/// Whether this run regenerates the checked-in files.
fn blessing() -> bool {
    std::env::var("ACKWIRE_BLESS").is_ok_and(|v| v == "1")
}

/// With `ACKWIRE_BLESS=1`, writes the checked-in files once, before any test reads them.
fn bless_once() {
    static BLESS: Once = Once::new();
    BLESS.call_once(|| {
        if blessing() {
            let written = vectors::write_frames(&frames_dir()).expect("write the frame vectors");
            eprintln!(
                "ACKWIRE_BLESS=1: wrote {} files to {}",
                written.len(),
                frames_dir().display()
            );
        }
    });
}

fn checked_in() -> Vec<FrameFile> {
    bless_once();
    vectors::read_frames(&frames_dir()).unwrap_or_else(|e| panic!("reading the frame vectors: {e}"))
}

#[test]
fn every_checked_in_case_holds_against_the_rust_codec() {
    let files = checked_in();
    let total: usize = files.iter().map(|f| f.cases.len()).sum();
    assert!(total > 0, "no frame vectors in {}", frames_dir().display());
    // The function `ackwire vectors` runs.
    let failures = vectors::verify_frame_files(&files);
    assert!(
        failures.is_empty(),
        "{} of {total} frame vectors fail:\n{}",
        failures.len(),
        vectors::failure_lines(&failures)
    );
}

#[test]
fn every_frame_has_positive_and_negative_cases() {
    let files = checked_in();
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for file in &files {
        let entry = counts.entry(file.frame.as_str()).or_default();
        for case in &file.cases {
            match case
                .expectation()
                .unwrap_or_else(|e| panic!("{}: {e}", case.name))
            {
                Expectation::Value(_) => entry.0 += 1,
                Expectation::Error(_) => entry.1 += 1,
            }
        }
    }
    // The generated frames and the coded one (kind 13, read against a basis).
    let names = ackwire_conformance::frame_json::frame_names();
    for frame in &names {
        let (positive, negative) = counts.get(frame).copied().unwrap_or_default();
        assert!(
            positive > 0,
            "frame {frame}: no positive vector in {frame}.json"
        );
        assert!(
            negative > 0,
            "frame {frame}: no negative vector in {frame}.json"
        );
    }
    let unknown: Vec<&&str> = counts.keys().filter(|f| !names.contains(f)).collect();
    assert!(
        unknown.is_empty(),
        "vector files of frames the spec lacks: {unknown:?}"
    );
}

/// Kind 13's vectors pin every fault its body can meet (CODE-2, CODE-4, CODE-5, CODE-7, CODE-10,
/// CODE-13, CODE-14), and its deltas are read against a basis: a case whose basis is dropped
/// decodes to another value or not at all, so the basis is part of what a case says.
#[test]
fn the_coded_frame_pins_its_faults_and_needs_its_basis() {
    let files = checked_in();
    let coded = files
        .iter()
        .find(|f| f.frame == "acked_coded")
        .expect("vectors/frames/acked_coded.json");
    let kinds: BTreeSet<&str> = coded
        .cases
        .iter()
        .filter_map(|c| c.error.as_ref().map(|e| e.kind.as_str()))
        .collect();
    for kind in [
        "truncated",
        "count_too_large",
        "trailing_bytes",
        "non_canonical",
        "over_width",
        "not_ascending",
        "invalid_condition",
        "bad_constant",
    ] {
        assert!(
            kinds.contains(kind),
            "no acked_coded case refused as {kind}"
        );
    }
    let mut differ = 0;
    for case in coded.cases.iter().filter(|c| c.basis.is_some()) {
        let mut bare = case.clone();
        bare.basis = None;
        if vectors::verify_frame_case("acked_coded", &bare).is_err() {
            differ += 1;
        }
    }
    assert!(differ > 0, "no acked_coded case depends on its basis");
}

#[test]
fn every_error_kind_is_pinned_by_a_negative_case() {
    // The hand-kept cases and the derived ones together (vectors/derived).
    let mut files = checked_in();
    files.extend(
        vectors::read_frames(&frames_dir().join("../derived"))
            .unwrap_or_else(|e| panic!("reading the derived vectors: {e}")),
    );
    let pinned: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| &f.cases)
        .filter_map(|c| c.error.as_ref().map(|e| e.kind.as_str()))
        .collect();
    for kind in pinned.iter() {
        assert!(
            ErrorKind::from_name(kind).is_some(),
            "`{kind}` is not a kind of the shared taxonomy"
        );
    }
    // Every kind of the taxonomy can happen in some frame of the reference protocol (a `bool`
    // byte of 2 cannot: no frame has a byte-wide bool, but over_width is reached otherwise).
    let reachable = [
        "truncated",
        "bad_constant",
        "reserved_bit",
        "non_canonical_varint",
        "over_width",
        "count_too_large",
        "trailing_bytes",
        "invalid_condition",
        "unknown_tag",
        "non_finite",
        "not_ascending",
    ];
    let missing: Vec<&str> = reachable
        .into_iter()
        .filter(|k| !pinned.contains(k))
        .collect();
    assert!(missing.is_empty(), "no negative vector for {missing:?}");
}

#[test]
fn a_broken_file_is_reported_at_its_line_and_column() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("broken_vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("ack.json");
    std::fs::write(
        &path,
        "{\n  \"frame\": \"ack\",\n  \"seed\": 7,\n  \"cases\": []\n}\n",
    )
    .expect("write");
    let error = vectors::read_frames(&dir)
        .expect_err("a number is no seed")
        .to_string();
    assert!(error.contains("ack.json:3:"), "{error}");
    std::fs::write(
        &path,
        r#"{"frame": "ack", "seed": "", "cases": [{"name": "ack/x", "description": "", "seed": "", "hex": "07"}]}"#,
    )
    .expect("write");
    let error = vectors::read_frames(&dir)
        .expect_err("a case expects nothing")
        .to_string();
    assert!(
        error.contains("ack/x") && error.contains("neither"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_checked_in_files_are_what_the_code_generates() {
    bless_once();
    if blessing() {
        return;
    }
    let fresh = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("frame_vectors-{}", std::process::id()));
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).expect("clear the scratch folder");
    }
    let written =
        vectors::write_frames(&fresh).expect("write the frame vectors to a scratch folder");
    let regenerate = "run `ackwire vectors --write` (or `ACKWIRE_BLESS=1 cargo test -p ackwire-conformance \
                      --test frame_vectors`) and review the diff; the files are generated, never edited";
    let mut problems = Vec::new();
    for path in &written {
        let name = path.file_name().expect("a file name");
        let want = std::fs::read(path).expect("read the fresh file");
        match std::fs::read(frames_dir().join(name)) {
            Ok(have) if have == want => {}
            Ok(_) => problems.push(format!(
                "{} differs from what the cases generate",
                name.to_string_lossy()
            )),
            Err(e) => problems.push(format!("{} cannot be read: {e}", name.to_string_lossy())),
        }
    }
    let expected: BTreeSet<_> = written
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_owned()))
        .collect();
    for entry in std::fs::read_dir(frames_dir()).expect("list the frame vectors") {
        let name = entry.expect("a folder entry").file_name();
        if Path::new(&name).extension().is_some_and(|e| e == "json") && !expected.contains(&name) {
            problems.push(format!(
                "{} is no frame's file any more",
                name.to_string_lossy()
            ));
        }
    }
    std::fs::remove_dir_all(&fresh).ok();
    assert!(
        problems.is_empty(),
        "the checked-in frame vectors in {} are stale:\n{}\n{regenerate}",
        frames_dir().display(),
        problems.join("\n")
    );
}

#[test]
fn writing_twice_gives_the_same_bytes() {
    let a = vectors::frame_files();
    let b = vectors::frame_files();
    assert_eq!(a, b);
    for file in &a {
        let text = vectors::render_frame_file(file).expect("render");
        assert!(text.ends_with("}\n"), "{}: a final newline", file.frame);
        assert!(
            text.contains("\n  \"cases\": ["),
            "{}: two-space indentation",
            file.frame
        );
    }
}
