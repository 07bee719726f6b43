//! `ackwire fuzz-diff` over streams: against the Rust testee itself no half disagrees; a testee
//! whose client hash strays after 20 deliveries (`--fault=wrong-hash-after=20`) is caught, its
//! disagreement shrunk into a stream vector that `ackwire conform` fails it on (and the honest
//! testee passes); a testee that lists no session halves is skipped for streams, and said to be;
//! a client whose reports alone stray is a disagreement too; a silent testee stops the run with
//! one line, started once (or three times, when it answered at first), not once per input.

use ackwire_conformance::diff::streams::{self, SESSIONS};
use ackwire_conformance::sessions::stream;
use ackwire_conformance::streams::Side;
use ackwire_conformance::testee_client::TesteeProcess;
use std::process::Command;
use std::time::Duration;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_ackwire")
}

fn testee(fault: Option<&str>) -> TesteeProcess {
    let mut cmd = vec![exe().to_string(), "testee".to_string()];
    cmd.extend(fault.map(|f| format!("--fault={f}")));
    TesteeProcess::new(cmd)
}

#[test]
fn a_straying_client_is_found_and_shrunk_into_a_vector_conform_fails_it_on() {
    // TESTEE-13.
    let out = std::env::temp_dir().join(format!("ackwire-fuzz-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut testees = vec![
        ("rust".to_string(), testee(None)),
        ("bad".to_string(), testee(Some("wrong-hash-after=20"))),
        ("codec".to_string(), testee(Some("no-sessions"))),
    ];
    let timeout = Duration::from_secs(10);
    let report = streams::run(8, 1, &mut testees, timeout, Some(&out), |_| {}).unwrap();
    assert!(report.unrecorded.is_empty(), "{:?}", report.unrecorded);
    assert_eq!(report.streams, [2, 2, 2, 1, 1]);
    let [rust, bad, codec] = &report.testees[..] else {
        panic!("{:?}", report.testees)
    };
    assert_eq!((rust.passed, rust.failed), (16, 0), "{rust:?}");
    assert!(bad.failed > 0 && bad.passed + bad.failed == 16, "{bad:?}");
    assert!(codec
        .skipped
        .as_deref()
        .unwrap()
        .contains("no session halves"));
    let summary = report.summary();
    assert!(summary.contains("codec: skipped for streams"), "{summary}");
    assert!(summary.contains(&format!(
        "bad: 16 halves replayed, {} disagreed",
        bad.failed
    )));

    // Only the faulty testee's client halves disagree, and the first of each session half is
    // shrunk (a later one of the same half is reported as it was generated): fewer steps and
    // no more ticks than the stream as generated, cut right after the step that strays.
    assert!(!report.disagreements.is_empty());
    let mut halves = std::collections::BTreeSet::new();
    for d in &report.disagreements {
        assert_eq!((d.label.as_str(), d.side), ("bad", Side::Client));
        assert!(d.why.contains("expected client state hash"), "{}", d.why);
        if !halves.insert(d.original.session.clone()) {
            assert!(d.shrunk.is_none(), "{}", d.original.name);
            continue;
        }
        let s = d
            .shrunk
            .as_ref()
            .expect("the first of each session half is shrunk");
        assert!(
            s.vector.steps.len() < d.original_steps,
            "{} steps",
            s.vector.steps.len()
        );
        assert!(s.recording.script.len() <= d.original.script.len());
        assert!(s.replays <= streams::SHRINK_BUDGET);
        assert!(s.why.contains("expected client state hash"), "{}", s.why);
        let last = s.vector.steps.last().unwrap();
        assert_eq!(last.side, Side::Client);
        assert!(last.expect.client_hash.is_some());
        // The Rust halves replay the shrunk vector (it is a true log of theirs) ...
        stream::verify(&s.vector).unwrap();
        // ... and it was written where `ackwire conform --dir` reads it.
        let path = d.written.as_ref().unwrap();
        assert!(path.starts_with(out.join("streams")), "{}", path.display());
        assert!(SESSIONS.iter().any(|x| path.to_string_lossy().contains(x)));
    }

    let conform = |fault: Option<&str>| {
        let mut cmd = format!("{} testee", exe());
        if let Some(f) = fault {
            cmd.push_str(&format!(" --fault={f}"));
        }
        Command::new(exe())
            .args(["conform", "--dir"])
            .arg(&out)
            .args(["--testee", &cmd])
            .output()
            .unwrap()
    };
    let honest = conform(None);
    let text = String::from_utf8_lossy(&honest.stdout);
    assert!(honest.status.success(), "{text}");
    let faulty = conform(Some("wrong-hash-after=20"));
    let text = String::from_utf8_lossy(&faulty.stdout);
    assert_eq!(faulty.status.code(), Some(1), "{text}");
    let fails = text.matches("FAIL streams/").count();
    let written = report
        .disagreements
        .iter()
        .filter(|d| d.written.is_some())
        .count();
    assert_eq!(fails, written, "{text}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_command_runs_frames_and_streams_against_the_rust_testee_without_a_disagreement() {
    // TESTEE-13.
    let out = std::env::temp_dir().join(format!("ackwire-fuzz-diff-ok-{}", std::process::id()));
    // The corpus and vectors folders are named from the repository's root.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let output = Command::new(exe())
        .current_dir(root)
        .args(["fuzz-diff", "--count", "200", "--streams", "8", "--out"])
        .arg(&out)
        .args(["--testee", &format!("rust={} testee", exe())])
        .args([
            "--testee",
            &format!("codec={} testee --fault=no-sessions", exe()),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("through rust, rust, codec: 0 disagreements"),
        "{text}"
    );
    assert!(
        text.contains("streams: 8 seeded lossy streams (acked 2, datagram 2, baseline 2, delta 1, acked_packed 1;"),
        "{text}"
    );
    assert!(
        text.contains("  rust: 16 halves replayed, 0 disagreed"),
        "{text}"
    );
    assert!(
        text.contains("  codec: skipped for streams: it lists no session halves in hello"),
        "{text}"
    );
    assert!(
        text.ends_with("streams: 16 halves passed, 0 failed\n"),
        "{text}"
    );
    assert!(!out.join("streams").exists(), "nothing to write");
}

#[test]
fn a_client_whose_reports_stray_disagrees_though_its_frames_and_hash_agree() {
    // TESTEE-13, TESTEE-11.
    // Streams 0 and 4 of a run are acked and acked_packed: a client that shows again the
    // events a frame carries again strays from Rust's in its reports alone.
    let mut testees = vec![("told".to_string(), testee(Some("events-twice")))];
    let report = streams::run(5, 1, &mut testees, Duration::from_secs(10), None, |_| {}).unwrap();
    assert_eq!(report.streams, [1, 1, 1, 1, 1]);
    let told = &report.testees[0];
    assert!(
        told.failed > 0 && told.passed + told.failed == 10,
        "{told:?}"
    );
    for d in &report.disagreements {
        assert_eq!(d.side, Side::Client, "{}", d.why);
        assert!(
            d.original.session.starts_with("acked"),
            "{}",
            d.original.name
        );
        assert!(d.why.contains("differs in `shown.events`"), "{}", d.why);
        let s = d.shrunk.as_ref().expect("the first of each half is shrunk");
        assert!(s.why.contains("differs in `shown.events`"), "{}", s.why);
        assert!(s.vector.steps.len() < d.original_steps);
        // The shrunk vector is a true log of the Rust halves, reports included.
        stream::verify(&s.vector).unwrap();
    }
}

/// `ackwire fuzz-diff` against one testee run as `sh -c SCRIPT`, no corpus, few inputs.
fn fuzz_diff_through_sh(script: &str, out: &std::path::Path) -> std::process::Output {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    Command::new(exe())
        .current_dir(root)
        .args(["fuzz-diff", "--count", "100", "--streams", "4"])
        .args(["--timeout-ms", "300", "--corpus"])
        .arg(out.join("no-corpus"))
        .arg("--out")
        .arg(out)
        .args(["--testee", &format!("silent=sh -c \"{script}\"")])
        .output()
        .unwrap()
}

#[test]
fn a_silent_testee_stops_the_run_with_one_line_rather_than_waiting_out_every_input() {
    let out = std::env::temp_dir().join(format!("ackwire-fuzz-silent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let starts = out.join("starts");
    let flag = out.join("answered");
    // The first input (there is no corpus): the first case of the first frame vector file.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let files = ackwire_conformance::vectors::read_frames(&root.join("vectors/frames")).unwrap();
    let first = files[0].cases[0].hex.replace(' ', "");
    for (script, started) in [
        // Silent from its first start.
        (
            format!("echo start >>'{}'; exec sleep 600", starts.display()),
            1,
        ),
        // Answers, crashes on the first input, then is silent: the first failed hello fails
        // one input, the second in a row stops the run.
        (
            format!(
                "echo start >>'{s}'; if [ -e '{f}' ]; then exec sleep 600; fi; touch '{f}'; exec '{exe}' testee --fault=crash-on-hex={first}",
                s = starts.display(),
                f = flag.display(),
                exe = exe(),
            ),
            3,
        ),
    ] {
        let _ = std::fs::remove_file(&starts);
        let output = fuzz_diff_through_sh(&script, &out);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{script}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{script}: {stderr}");
        assert!(
            lines[0].contains("did not answer hello, so the run stops")
                && lines[0].contains("no reply to hello within 300 ms"),
            "{}",
            lines[0]
        );
        // Started once, or three times (first, after the crash, once more): not once per input.
        let n = std::fs::read_to_string(&starts).unwrap().lines().count();
        assert_eq!(n, started, "{script}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
