//! The runner against testees that misbehave on purpose: each fault must end in the verdict
//! PROTOCOL.md gives it, the testee must be restarted after a crash or a timeout, and the run
//! must go on; a client whose reports stray (an event shown twice, a measurement told against
//! the base) fails exactly the stream vectors where that shows; a testee started through `sh -c`
//! leaves no child running. Testees are this crate's own `ackwire testee` with a hidden
//! `--fault`.

use ackwire_conformance::runner::{self, Case, Check, RunOptions, RunReport, Verdict};
use ackwire_conformance::streams::{Action, Side, StreamVector};
use ackwire_conformance::testee_client::RunError;
use ackwire_conformance::{frame_json, report, vectors};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

fn cases() -> Vec<Case> {
    let files: Vec<_> = vectors::frame_files()
        .into_iter()
        .filter(|f| f.frame == "delta_ack" || f.frame == "acked")
        .collect();
    let cases = runner::frame_cases(&files).unwrap();
    assert!(cases.len() > 20, "too few cases to mean anything");
    cases
}

fn testee(fault: Option<String>) -> Vec<String> {
    let mut cmd = vec![
        env!("CARGO_BIN_EXE_ackwire").to_string(),
        "testee".to_string(),
    ];
    if let Some(f) = fault {
        cmd.push(format!("--fault={f}"));
    }
    cmd
}

fn run(cases: &[Case], fault: Option<String>, timeout_ms: u64, listed: &[&str]) -> RunReport {
    let options = RunOptions {
        command: testee(fault),
        timeout: Duration::from_millis(timeout_ms),
        failure_list: listed.iter().map(|s| s.to_string()).collect(),
    };
    runner::run(cases, &options, |_| {}).unwrap()
}

fn verdicts(report: &RunReport) -> BTreeSet<Verdict> {
    report.outcomes.iter().map(|o| o.verdict).collect()
}

fn hex_of(case: &Case) -> &str {
    match &case.check {
        Check::DecodeValue { hex, .. } | Check::DecodeError { hex, .. } => hex,
        Check::Encode { hex, .. } => hex,
        Check::Stream { .. } => "",
    }
}

#[test]
fn an_honest_testee_passes_everything() {
    // TESTEE-8.
    let cases = cases();
    let r = run(&cases, None, 5000, &[]);
    assert_eq!(
        verdicts(&r),
        BTreeSet::from([Verdict::Pass]),
        "{}",
        report::table(&r)
    );
    assert_eq!(r.outcomes.len(), cases.len());
    assert!(r.testee.starts_with("ackwire-rust"));
}

#[test]
fn a_wrong_value_fails_decodes_with_expected_and_actual() {
    // TESTEE-8.
    let cases = cases();
    let r = run(&cases, Some("wrong-value".into()), 5000, &[]);
    for (case, o) in cases.iter().zip(&r.outcomes) {
        match case.check {
            Check::DecodeValue { .. } => {
                assert_eq!(o.verdict, Verdict::Fail, "{}", o.name);
                assert!(
                    o.detail.contains("expected value") && o.detail.contains("got value"),
                    "{}",
                    o.detail
                );
            }
            _ => assert_eq!(o.verdict, Verdict::Pass, "{}: {}", o.name, o.detail),
        }
    }
    assert!(report::table(&r).contains("FAIL frames/"));
}

/// The bytes of the first delta_ack decode case: what a faulty testee crashes or hangs on.
fn victim(cases: &[Case]) -> String {
    let victim = cases
        .iter()
        .find(|c| matches!(c.check, Check::DecodeValue { .. }) && c.frame == "delta_ack")
        .unwrap();
    hex_of(victim).to_string()
}

/// Every case that sends `hex` ended as `verdict`, every other passed.
fn only_the_victim(cases: &[Case], r: &RunReport, hex: &str, verdict: Verdict) {
    for (case, o) in cases.iter().zip(&r.outcomes) {
        let asks_victim = !matches!(case.check, Check::Encode { .. }) && hex_of(case) == hex;
        let expected = if asks_victim { verdict } else { Verdict::Pass };
        assert_eq!(o.verdict, expected, "{}: {}", o.name, o.detail);
    }
}

#[test]
fn a_crash_fails_one_case_and_the_testee_is_restarted() {
    // TESTEE-5.
    let cases = cases();
    let hex = victim(&cases);
    let r = run(&cases, Some(format!("crash-on-hex={hex}")), 5000, &[]);
    only_the_victim(&cases, &r, &hex, Verdict::Crash);
    let crash = r
        .outcomes
        .iter()
        .find(|o| o.verdict == Verdict::Crash)
        .unwrap();
    assert!(crash.detail.contains("exited"), "{}", crash.detail);
}

#[test]
fn a_testee_that_never_answers_times_out_and_the_run_goes_on() {
    // TESTEE-5.
    let cases = cases();
    let victim = cases
        .iter()
        .find(|c| matches!(c.check, Check::DecodeError { .. }) && hex_of(c).len() > 4)
        .unwrap();
    let hex = hex_of(victim).to_string();
    let r = run(&cases, Some(format!("hang-on-hex={hex}")), 400, &[]);
    let timed_out: Vec<_> = r
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Timeout)
        .collect();
    assert!(!timed_out.is_empty());
    assert!(timed_out
        .iter()
        .all(|o| o.detail.contains("no reply within 400 ms")));
    let after = r
        .outcomes
        .iter()
        .skip_while(|o| o.verdict != Verdict::Timeout)
        .skip(1);
    assert!(after.clone().count() > 0 && after.filter(|o| o.verdict == Verdict::Pass).count() > 0);
    assert_eq!(
        verdicts(&r),
        BTreeSet::from([Verdict::Pass, Verdict::Timeout])
    );
}

/// Runs `cases` against `command`, counting the outcomes the runner reported.
fn run_counting(
    cases: &[Case],
    command: &[&str],
    timeout_ms: u64,
) -> (Result<RunReport, RunError>, usize) {
    let options = RunOptions {
        command: command.iter().map(|s| s.to_string()).collect(),
        timeout: Duration::from_millis(timeout_ms),
        failure_list: BTreeSet::new(),
    };
    let mut reported = 0;
    let result = runner::run(cases, &options, |_| reported += 1);
    (result, reported)
}

#[test]
fn a_testee_that_never_answers_hello_stops_the_run_before_any_case() {
    // TESTEE-3.
    let cases = cases();
    // One that reads nothing; one that closed its output and reads its input (it exits when
    // the runner closes that); one that closed its output and never exits (it is killed); one
    // that exits (before or after the hello is written: either way the hello failed).
    for (command, why) in [
        (
            ["sh", "-c", "exec sleep 600"],
            "no reply to hello within 300 ms",
        ),
        (["sh", "-c", "exec cat >/dev/null"], "the testee exited"),
        (
            ["sh", "-c", "exec sleep 600 >/dev/null"],
            "closed its standard output without exiting",
        ),
        (["sh", "-c", "echo gone >&2; exit 3"], "hello failed"),
    ] {
        let (result, reported) = run_counting(&cases, &command, 300);
        match result {
            Err(e @ RunError::Hello { .. }) => {
                let text = e.to_string();
                assert!(text.contains("did not answer hello"), "{text}");
                assert!(text.contains(why), "{command:?}: {text}");
            }
            Err(e) => panic!("{command:?}: {e}"),
            Ok(r) => panic!("{command:?} ran:\n{}", report::table(&r)),
        }
        // Not one case was judged: the run ended on the first hello, not case by case.
        assert_eq!(reported, 0, "{command:?}");
    }
}

#[test]
fn a_restarted_testee_that_stops_answering_hello_stops_the_run() {
    // TESTEE-5.
    // The first start answers and crashes on the victim; every later start is silent. The
    // victim crashes, the next case meets a failed hello (a CRASH, as any case after a
    // restart could), and the one after that stops the run instead of waiting out the rest.
    let cases = cases();
    let at = cases
        .iter()
        .position(|c| matches!(c.check, Check::DecodeValue { .. }) && c.frame == "delta_ack")
        .unwrap();
    assert!(at + 3 < cases.len(), "cases must follow the victim");
    let dir = std::env::temp_dir().join(format!("ackwire-rehello-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let started = dir.join("started");
    let _ = std::fs::remove_file(&started);
    let script = format!(
        "if [ -e '{flag}' ]; then exec sleep 600; fi; touch '{flag}'; exec '{exe}' testee --fault=crash-on-hex={hex}",
        flag = started.display(),
        exe = env!("CARGO_BIN_EXE_ackwire"),
        hex = hex_of(&cases[at]),
    );
    let (result, reported) = run_counting(&cases, &["sh", "-c", &script], 400);
    std::fs::remove_dir_all(&dir).ok();
    match result {
        Err(RunError::Hello { why, .. }) => assert!(why.contains("no reply to hello"), "{why}"),
        Err(e) => panic!("{e}"),
        Ok(r) => panic!("the run went on:\n{}", report::table(&r)),
    }
    assert_eq!(
        reported,
        at + 2,
        "the victim and the case after it, then the stop"
    );
}

#[test]
fn cases_outside_the_capabilities_are_unimplemented_not_failed() {
    // TESTEE-4.
    let cases = cases();
    let r = run(&cases, Some("only-frames=acked".into()), 5000, &[]);
    for o in &r.outcomes {
        let expected = if o.frame == "acked" {
            Verdict::Pass
        } else {
            Verdict::Unimplemented
        };
        assert_eq!(o.verdict, expected, "{}", o.name);
    }
    assert_eq!(r.unexpected().count(), 0);
}

#[test]
fn the_failure_list_expects_failures_and_reports_passes() {
    // TESTEE-7.
    let cases = cases();
    let fails = r_names(
        &run(&cases, Some("wrong-value".into()), 5000, &[]),
        Verdict::Fail,
    );
    let passing = cases
        .iter()
        .find(|c| matches!(c.check, Check::Encode { .. }))
        .unwrap()
        .name
        .clone();
    let mut listed: Vec<&str> = fails.iter().map(String::as_str).collect();
    listed.push(&passing);
    let r = run(&cases, Some("wrong-value".into()), 5000, &listed);
    let unexpected: Vec<_> = r.unexpected().map(|o| o.name.clone()).collect();
    assert_eq!(unexpected, std::slice::from_ref(&passing));
    assert!(report::table(&r).contains("in the failure list but passes"));
}

fn r_names(r: &RunReport, v: Verdict) -> Vec<String> {
    r.outcomes
        .iter()
        .filter(|o| o.verdict == v)
        .map(|o| o.name.clone())
        .collect()
}

#[test]
fn the_junit_report_is_valid_xml_with_one_testcase_per_case() {
    let cases = cases();
    let r = run(&cases, Some("wrong-value".into()), 5000, &[]);
    let xml = report::junit(&r);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let testcases: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(testcases.len(), cases.len());
    let failures = root
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(failures.to_string(), root.attribute("failures").unwrap());
    assert_eq!(failures, r_names(&r, Verdict::Fail).len());
    for suite in root.children().filter(|n| n.has_tag_name("testsuite")) {
        let n = suite
            .children()
            .filter(|c| c.has_tag_name("testcase"))
            .count();
        assert_eq!(n.to_string(), suite.attribute("tests").unwrap());
    }
}

#[test]
fn the_command_line_runs_the_suite_and_writes_reports() {
    // TESTEE-7.
    let dir = std::env::temp_dir().join(format!("ackwire-conform-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vectors_dir = dir.join("vectors");
    vectors::write_frames(&vectors_dir.join("frames")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ackwire"))
        .args(["conform", "--filter", "delta_ack", "--dir"])
        .arg(&vectors_dir)
        .arg("--junit")
        .arg(dir.join("junit.xml"))
        .arg("--json")
        .arg(dir.join("summary.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.trim_end().ends_with(" 0 failed"), "{stdout}");
    // Standard error is a pipe here, not a terminal: the progress shows as lines all the same.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with('[') && l.contains("] delta_ack: ")),
        "{stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["unexpected"], 0);
    assert!(summary["total"].as_u64().unwrap() > 0);
    roxmltree::Document::parse(&std::fs::read_to_string(dir.join("junit.xml")).unwrap()).unwrap();
    // A broken testee makes the command fail.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ackwire"))
        .args(["conform", "--filter", "delta_ack", "--dir"])
        .arg(&vectors_dir)
        .arg("--testee")
        .arg(format!(
            "{} testee --fault=wrong-value",
            env!("CARGO_BIN_EXE_ackwire")
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

/// The committed stream vectors, as `ackwire conform` reads them.
fn stream_vectors() -> Vec<StreamVector> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let v = ackwire_conformance::streams::read_streams(&root.join("vectors/streams")).unwrap();
    assert!(v.len() > 20, "too few stream vectors to mean anything");
    v
}

/// The client deliveries of an acked vector (kind 6, 12 or 13) that the honest client showed:
/// the frame's name and bytes, and the report the vector holds for it.
fn shown(v: &StreamVector) -> Vec<(&str, Vec<u8>, &Value)> {
    if !v.session.starts_with("acked") {
        return Vec::new();
    }
    v.steps
        .iter()
        .filter(|s| s.side == Side::Client)
        .filter_map(|s| match (&s.action, &s.expect.report) {
            (Action::Deliver { frame, hex }, Some(r)) if r.get("shown").is_some() => Some((
                frame.as_str(),
                frame_json::parse_hex(hex).unwrap(),
                &r["shown"],
            )),
            _ => None,
        })
        .collect()
}

/// A report's list of ids (`"1 4 9"`) or of ids at ticks (`"1@3 4@5"`).
fn listed(v: &Value) -> BTreeMap<u16, Option<u32>> {
    v.as_str()
        .unwrap()
        .split_whitespace()
        .map(|item| match item.split_once('@') {
            Some((e, t)) => (e.parse().unwrap(), Some(t.parse().unwrap())),
            None => (item.parse().unwrap(), None),
        })
        .collect()
}

/// Whether a client that shows every event a frame carries tells another report than the
/// vector's: some frame the client showed carries an event at or below the newest serial of
/// the frames shown before it. Read from the frames' bytes, not from the reports.
fn events_twice_shows(v: &StreamVector) -> bool {
    let mut newest: Option<u64> = None;
    let mut again = false;
    for (frame, bytes, _) in shown(v) {
        // A coded frame's changes need its basis; its events do not.
        let value = if frame == ackwire_conformance::coded::FRAME {
            ackwire_conformance::coded::decode_json_without_changes(&bytes)
        } else {
            frame_json::decode_json(frame, &bytes)
        }
        .unwrap();
        let n = value["events"].as_array().unwrap().len() as u64;
        if n == 0 {
            continue;
        }
        let first = value["first_serial"].as_u64().unwrap();
        again |= newest.is_some_and(|m| first <= m);
        newest = newest.max(Some(first + n - 1));
    }
    again
}

/// Whether a client that tells the poses measured against each frame's base (nothing, for a
/// keyframe) rather than the last frame shown tells another report than the vector's. Read
/// from the vector's own reports: which entities each shown frame holds and when each was last
/// measured (`changed`, `gone`, `measured`), kept by tick so that a frame's base can be found.
fn against_base_tells_otherwise(v: &StreamVector) -> bool {
    let mut held: BTreeMap<u16, Option<u32>> = BTreeMap::new();
    let mut by_tick: BTreeMap<u64, BTreeMap<u16, Option<u32>>> = BTreeMap::new();
    let mut otherwise = false;
    for (_, _, r) in shown(v) {
        for eid in listed(&r["gone"]).keys() {
            held.remove(eid);
        }
        for eid in listed(&r["changed"]).keys() {
            held.entry(*eid).or_insert(None);
        }
        let told = listed(&r["measured"]);
        held.extend(told.iter().map(|(e, t)| (*e, *t)));
        let none = BTreeMap::new();
        let base = match r["keyframe"].as_bool().unwrap() {
            true => &none,
            false => &by_tick[&r["base_tick"].as_u64().unwrap()],
        };
        let against_base: BTreeMap<u16, Option<u32>> = held
            .iter()
            .filter(|(e, t)| t.is_some() && base.get(*e) != Some(*t))
            .map(|(e, t)| (*e, *t))
            .collect();
        otherwise |= against_base != told;
        by_tick.insert(r["tick"].as_u64().unwrap(), held.clone());
    }
    otherwise
}

#[test]
fn a_client_that_misreports_fails_exactly_the_stream_vectors_where_it_shows() {
    // TESTEE-10, TESTEE-11.
    // Both faults send the honest frames and hash the honest state: only their reports stray,
    // and only the acked clients' (the other halves are the honest ones, never wrapped).
    let vectors: Vec<StreamVector> = stream_vectors()
        .into_iter()
        .filter(|v| v.session.starts_with("acked"))
        .collect();
    let cases = runner::stream_cases(&vectors);
    for (fault, member, shows) in [
        (
            "events-twice",
            "shown.events",
            events_twice_shows as fn(&StreamVector) -> bool,
        ),
        (
            "measured-against-base",
            "shown.measured",
            against_base_tells_otherwise,
        ),
    ] {
        let expected: BTreeSet<String> = vectors
            .iter()
            .filter(|v| shows(v))
            .map(|v| format!("streams/{}#client", v.name))
            .collect();
        let r = run(&cases, Some(fault.into()), 10_000, &[]);
        let failed: BTreeSet<String> = r_names(&r, Verdict::Fail).into_iter().collect();
        assert_eq!(failed, expected, "{fault}:\n{}", report::table(&r));
        assert!(!failed.is_empty(), "{fault}: no vector shows it");
        assert_eq!(
            verdicts(&r),
            BTreeSet::from([Verdict::Pass, Verdict::Fail]),
            "{fault}"
        );
        for o in r.outcomes.iter().filter(|o| o.verdict == Verdict::Fail) {
            assert!(
                o.detail.contains(&format!("differs in `{member}`")),
                "{fault} {}: {}",
                o.name,
                o.detail
            );
        }
    }
    // A vector whose events are never carried again once shown does not catch the first
    // fault: the comparison fails only where the fault shows.
    assert!(vectors
        .iter()
        .any(|v| !shown(v).is_empty() && !events_twice_shows(v)));
}

/// Whether process `pid` is gone: no such process, or a zombie (dead, waiting for a parent
/// that may never reap it in a container).
#[cfg(target_os = "linux")]
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
    }
}

/// Kills what a failed test left running, so that it does not outlive the test.
#[cfg(target_os = "linux")]
struct Reap(std::path::PathBuf);

#[cfg(target_os = "linux")]
impl Reap {
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Reap {
    fn drop(&mut self) {
        for pid in self.pids().into_iter().filter(|p| !gone(*p)) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_testee_started_through_sh_leaves_no_child_running_after_a_timeout_or_a_crash() {
    // Each start of the testee is `sh -c` starting a child (`sleep`), writing the child's pid
    // to a file, and becoming the testee. Killing the testee alone leaves the child running:
    // nothing kills a process whose parent died. The runner kills the testee's whole group.
    let cases = cases();
    let hex = victim(&cases);
    let dir = std::env::temp_dir().join(format!("ackwire-group-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, (fault, verdict, child_output)) in [
        ("hang-on-hex", Verdict::Timeout, ">/dev/null"),
        ("crash-on-hex", Verdict::Crash, ">/dev/null"),
        // The child keeps the testee's standard output open: its exit closes nothing, and is
        // still a crash, not a timeout.
        ("crash-on-hex", Verdict::Crash, ""),
    ]
    .into_iter()
    .enumerate()
    {
        let reap = Reap(dir.join(format!("children-{n}")));
        let script = format!(
            "sleep 600 {child_output} 2>/dev/null & echo $! >>'{pids}'; exec '{exe}' testee --fault={fault}={hex}",
            pids = reap.0.display(),
            exe = env!("CARGO_BIN_EXE_ackwire"),
        );
        let (result, _) = run_counting(&cases, &["sh", "-c", &script], 500);
        let r = result.unwrap_or_else(|e| panic!("{fault}: {e}"));
        only_the_victim(&cases, &r, &hex, verdict);
        // One start before the victim and one after it, at least; every child is gone (the
        // last one with the run's end).
        let children = reap.pids();
        assert!(children.len() >= 2, "{fault}: {children:?}");
        for pid in children {
            // SIGKILL lands a moment after it is sent: wait for it, a bounded while.
            let dead = (0..500).any(|_| {
                gone(pid) || {
                    std::thread::sleep(Duration::from_millis(10));
                    false
                }
            });
            assert!(dead, "{fault} ({child_output:?}): child {pid} still runs");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
