//! Reports of a conformance run: a table for the terminal, JUnit XML for CI, and a JSON
//! summary for tools.

use crate::runner::{Outcome, RunReport, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Debug, Default, Clone, Copy, Serialize)]
struct Counts {
    pass: usize,
    fail: usize,
    unimplemented: usize,
    crash: usize,
    timeout: usize,
    known: usize,
}

impl Counts {
    fn add(&mut self, verdict: Verdict, listed: bool) {
        if listed && verdict.is_failure() {
            self.known += 1;
            return;
        }
        match verdict {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::Unimplemented => self.unimplemented += 1,
            Verdict::Crash => self.crash += 1,
            Verdict::Timeout => self.timeout += 1,
        }
    }
}

/// The terminal summary: a row per frame, the totals, every unexpected result with its
/// detail, and a closing `N passed, N failed` line.
pub fn table(report: &RunReport) -> String {
    let mut by_frame: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut total = Counts::default();
    for o in &report.outcomes {
        by_frame
            .entry(&o.frame)
            .or_default()
            .add(o.verdict, o.listed);
        total.add(o.verdict, o.listed);
    }
    let mut out = String::new();
    let _ = writeln!(out, "testee: {}", report.testee);
    // As wide as the longest group name (`streams/baseline`), so the columns line up.
    let width = by_frame.keys().map(|f| f.len()).max().unwrap_or(0).max(5);
    let _ = writeln!(
        out,
        "{:<width$} {:>6} {:>6} {:>8} {:>6} {:>8} {:>6}",
        "frame", "pass", "fail", "unimpl", "crash", "timeout", "known"
    );
    let row = |out: &mut String, name: &str, c: &Counts| {
        let _ = writeln!(
            out,
            "{:<width$} {:>6} {:>6} {:>8} {:>6} {:>8} {:>6}",
            name, c.pass, c.fail, c.unimplemented, c.crash, c.timeout, c.known
        );
    };
    for (frame, c) in &by_frame {
        row(&mut out, frame, c);
    }
    row(&mut out, "total", &total);
    let unexpected: Vec<_> = report.unexpected().collect();
    if !unexpected.is_empty() {
        let _ = writeln!(out, "\nunexpected results:");
        for o in &unexpected {
            if o.listed {
                let _ = writeln!(
                    out,
                    "  PASS {} is in the failure list but passes: remove it from the list",
                    o.name
                );
            } else {
                let _ = writeln!(out, "  {} {}", o.verdict.as_str(), o.name);
                for line in o.detail.lines() {
                    let _ = writeln!(out, "     {line}");
                }
            }
        }
    }
    let passed = report
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Pass)
        .count();
    let _ = writeln!(out, "\n{} passed, {} failed", passed, unexpected.len());
    out
}

/// Progress of a run as plain lines, for a standard error that is not a terminal (a CI log),
/// where a progress bar is hidden and a long run would otherwise print nothing until its end:
/// each unexpected result as it comes, and a line when a group of cases (a frame, a stream
/// session) is done. Cases of a group arrive together, as [`crate::runner::frame_cases`] and
/// [`crate::runner::stream_cases`] list them.
#[derive(Debug)]
pub struct ProgressLines {
    total: usize,
    done: usize,
    group: Option<(String, Counts)>,
}

impl ProgressLines {
    /// Progress over a run of `total` cases.
    pub fn new(total: usize) -> Self {
        ProgressLines {
            total,
            done: 0,
            group: None,
        }
    }

    /// The lines to print after `outcome`: the summary of the group it closes, if it starts
    /// another, and the outcome itself when it is unexpected.
    pub fn push(&mut self, outcome: &Outcome) -> Vec<String> {
        let mut lines = Vec::new();
        if self
            .group
            .as_ref()
            .is_some_and(|(g, _)| *g != outcome.frame)
        {
            lines.extend(self.finish());
        }
        let (_, counts) = self
            .group
            .get_or_insert_with(|| (outcome.frame.clone(), Counts::default()));
        counts.add(outcome.verdict, outcome.listed);
        self.done += 1;
        if outcome.is_unexpected() {
            lines.push(format!("{} {}", outcome.verdict.as_str(), outcome.name));
        }
        lines
    }

    /// The summary of the group under way, if any: call it once more after the last case.
    pub fn finish(&mut self) -> Option<String> {
        let (group, c) = self.group.take()?;
        let mut parts = vec![format!("{} pass", c.pass)];
        for (n, what) in [
            (c.fail, "fail"),
            (c.unimplemented, "unimplemented"),
            (c.crash, "crash"),
            (c.timeout, "timeout"),
            (c.known, "known"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        Some(format!(
            "[{}/{}] {group}: {}",
            self.done,
            self.total,
            parts.join(", ")
        ))
    }
}

/// Text escaped for XML content and attribute values: the JUnit report's and the bench's
/// SVG chart's. Control characters XML 1.0 forbids or discourages become U+FFFD, so no
/// frame, case or protocol name can make a document unparseable.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: a test suite per frame, a test case per case; FAIL is a `<failure>`, CRASH and
/// TIMEOUT are `<error>`s, UNIMPLEMENTED and known failures are `<skipped>`.
pub fn junit(report: &RunReport) -> String {
    let mut suites: BTreeMap<&str, Vec<&crate::runner::Outcome>> = BTreeMap::new();
    for o in &report.outcomes {
        suites.entry(&o.frame).or_default().push(o);
    }
    let count = |os: &[&crate::runner::Outcome], f: &dyn Fn(&crate::runner::Outcome) -> bool| {
        os.iter().filter(|o| f(o)).count()
    };
    let all: Vec<_> = report.outcomes.iter().collect();
    let failures = |o: &crate::runner::Outcome| {
        o.is_unexpected() && matches!(o.verdict, Verdict::Fail | Verdict::Pass)
    };
    let errors = |o: &crate::runner::Outcome| {
        !o.listed && matches!(o.verdict, Verdict::Crash | Verdict::Timeout)
    };
    let skipped = |o: &crate::runner::Outcome| {
        o.verdict == Verdict::Unimplemented || (o.listed && o.verdict.is_failure())
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"ackwire conform\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
        all.len(),
        count(&all, &failures),
        count(&all, &errors),
        count(&all, &skipped)
    );
    for (frame, os) in &suites {
        let time: f64 = os.iter().map(|o| o.seconds).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"frames.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6}\">",
            escape(frame),
            os.len(),
            count(os, &failures),
            count(os, &errors),
            count(os, &skipped),
            time
        );
        for o in os {
            let head = format!(
                "    <testcase name=\"{}\" classname=\"frames.{}\" time=\"{:.6}\"",
                escape(&o.name),
                escape(frame),
                o.seconds
            );
            let body = if o.listed && o.verdict == Verdict::Pass {
                Some(
                    "<failure message=\"in the failure list but passes\">remove it from the failure list</failure>"
                        .to_string(),
                )
            } else if skipped(o) {
                let why = if o.listed {
                    "known failure"
                } else {
                    "unimplemented"
                };
                Some(format!(
                    "<skipped message=\"{why}\">{}</skipped>",
                    escape(&o.detail)
                ))
            } else {
                match o.verdict {
                    Verdict::Fail => Some(format!(
                        "<failure message=\"FAIL\">{}</failure>",
                        escape(&o.detail)
                    )),
                    Verdict::Crash | Verdict::Timeout => Some(format!(
                        "<error message=\"{}\">{}</error>",
                        o.verdict.as_str(),
                        escape(&o.detail)
                    )),
                    _ => None,
                }
            };
            match body {
                Some(b) => {
                    let _ = writeln!(out, "{head}>{b}</testcase>");
                }
                None => {
                    let _ = writeln!(out, "{head}/>");
                }
            }
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    out.push_str("</testsuites>\n");
    out
}

/// The JSON summary: totals by verdict and every case's outcome.
pub fn json(report: &RunReport) -> serde_json::Value {
    let mut total = Counts::default();
    for o in &report.outcomes {
        total.add(o.verdict, o.listed);
    }
    serde_json::json!({
        "testee": report.testee,
        "total": report.outcomes.len(),
        "counts": total,
        "unexpected": report.unexpected().count(),
        "cases": report.outcomes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> RunReport {
        let o = |name: &str, verdict, listed, detail: &str| Outcome {
            name: name.into(),
            frame: "acked".into(),
            verdict,
            detail: detail.into(),
            listed,
            seconds: 0.001,
        };
        RunReport {
            testee: "t 1".into(),
            outcomes: vec![
                o("frames/acked/a#decode", Verdict::Pass, false, ""),
                o(
                    "frames/acked/b#decode",
                    Verdict::Fail,
                    false,
                    "expected <x> & \"y\"",
                ),
                o("frames/acked/c#decode", Verdict::Crash, false, "exit\u{1}"),
                o("frames/acked/d#decode", Verdict::Unimplemented, false, "no"),
                o("frames/acked/e#decode", Verdict::Fail, true, "known"),
                o("frames/acked/f#decode", Verdict::Pass, true, ""),
            ],
        }
    }

    #[test]
    fn the_table_counts_and_closes_with_passed_and_failed() {
        let t = table(&report());
        assert!(t.contains("FAIL frames/acked/b#decode"), "{t}");
        assert!(
            t.contains("frames/acked/f#decode is in the failure list but passes"),
            "{t}"
        );
        assert!(t.trim_end().ends_with("2 passed, 3 failed"), "{t}");
    }

    #[test]
    fn junit_escapes_and_classifies() {
        let x = junit(&report());
        assert!(
            x.contains("tests=\"6\" failures=\"2\" errors=\"1\" skipped=\"2\""),
            "{x}"
        );
        assert!(x.contains("expected &lt;x&gt; &amp; &quot;y&quot;"), "{x}");
        assert!(!x.contains('\u{1}'));
    }

    #[test]
    fn progress_lines_close_each_group_and_show_unexpected_results() {
        let mut outcomes = report().outcomes;
        let mut other = outcomes[0].clone();
        other.name = "frames/ack/a#decode".into();
        other.frame = "ack".into();
        outcomes.push(other);
        let mut progress = ProgressLines::new(outcomes.len());
        let mut lines: Vec<String> = outcomes.iter().flat_map(|o| progress.push(o)).collect();
        lines.extend(progress.finish());
        assert_eq!(
            lines,
            [
                "FAIL frames/acked/b#decode",
                "CRASH frames/acked/c#decode",
                "PASS frames/acked/f#decode",
                "[6/7] acked: 2 pass, 1 fail, 1 unimplemented, 1 crash, 1 known",
                "[7/7] ack: 1 pass",
            ]
        );
        assert_eq!(progress.finish(), None);
    }

    #[test]
    fn json_summary_counts_unexpected_results() {
        let j = json(&report());
        assert_eq!(j["total"], 6);
        assert_eq!(j["unexpected"], 3);
        assert_eq!(j["counts"]["known"], 1);
    }
}
