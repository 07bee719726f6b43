//! The conformance runner: drives a testee process through `conformance/PROTOCOL.md`, one case
//! at a time, and judges each reply against its vector.
//!
//! The rules of `docs/spec/testee.md` it holds: a testee that crashes or stalls past the timeout
//! fails that case and is restarted for the next (TESTEE-5); a case outside its capabilities is
//! UNIMPLEMENTED, not FAILED (TESTEE-4); an error is judged by its kind alone (TESTEE-6); a
//! failure list's passing cases are reported (TESTEE-7).
//!
//! The runner is the one place in ackwire with a clock: it has to notice a testee that never
//! answers. It speaks to the testee through [`crate::testee_client`].

use crate::judge::Judge;
use crate::sessions::stream;
use crate::streams::{Side, StreamVector};
use crate::testee_client::{Fault, RemoteSession, RunError, TesteeProcess};
use crate::vectors::{Expectation, FrameFile};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// One request to a testee and what its reply must be.
#[derive(Debug, Clone)]
pub struct Case {
    /// `frames/<frame>/<case>#decode` or `#encode`.
    pub name: String,
    /// The frame the case is about (for a stream case, `streams/<session>`): how reports
    /// group cases.
    pub frame: String,
    /// The session half a stream case needs (`acked_client`, ...); `None` for a frame case,
    /// which needs `frame`.
    pub session: Option<String>,
    /// What is asked and expected.
    pub check: Check,
}

/// What a case asks and expects.
#[derive(Debug, Clone)]
pub enum Check {
    /// Decode `hex`; expect this value.
    DecodeValue {
        /// The frame's bytes.
        hex: String,
        /// Its JSON form.
        value: Value,
        /// The basis a coded frame is decoded against, sent as the request's `basis`.
        basis: Option<Value>,
    },
    /// Decode `hex`; expect an error of this kind.
    DecodeError {
        /// The bytes.
        hex: String,
        /// The error kind.
        kind: String,
        /// The basis, as for [`Check::DecodeValue`].
        basis: Option<Value>,
    },
    /// Encode `value`; expect these bytes.
    Encode {
        /// The JSON form.
        value: Value,
        /// The bytes.
        hex: String,
        /// The basis a coded frame is encoded against, sent as the request's `basis`.
        basis: Option<Value>,
    },
    /// Replay one half of a stream vector.
    Stream {
        /// The vector.
        vector: std::sync::Arc<StreamVector>,
        /// The half replayed.
        side: Side,
    },
}

/// The cases of the stream vectors: each half of each vector, replayed on its own.
pub fn stream_cases(vectors: &[StreamVector]) -> Vec<Case> {
    let mut cases = Vec::new();
    for v in vectors {
        let v = std::sync::Arc::new(v.clone());
        for (side, half) in [(Side::Server, "server"), (Side::Client, "client")] {
            cases.push(Case {
                name: format!("streams/{}#{half}", v.name),
                frame: format!("streams/{}", v.session),
                session: Some(format!("{}_{half}", v.session)),
                check: Check::Stream {
                    vector: v.clone(),
                    side,
                },
            });
        }
    }
    cases
}

/// The cases of the frame vectors: a decode case for every vector, and an encode case for
/// every positive one.
pub fn frame_cases(files: &[FrameFile]) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for file in files {
        for case in &file.cases {
            let short = case
                .name
                .strip_prefix(&format!("{}/", file.frame))
                .unwrap_or(&case.name);
            let base = format!("frames/{}/{short}", file.frame);
            let hex = normalize_hex(&case.hex);
            let basis = case.basis.as_ref().map(|b| b.to_value());
            match case.expectation()? {
                Expectation::Value(v) => {
                    cases.push(Case {
                        name: format!("{base}#decode"),
                        frame: file.frame.clone(),
                        session: None,
                        check: Check::DecodeValue {
                            hex: hex.clone(),
                            value: v.to_value(),
                            basis: basis.clone(),
                        },
                    });
                    cases.push(Case {
                        name: format!("{base}#encode"),
                        frame: file.frame.clone(),
                        session: None,
                        check: Check::Encode {
                            value: v.to_value(),
                            hex,
                            basis,
                        },
                    });
                }
                Expectation::Error(e) => cases.push(Case {
                    name: format!("{base}#decode"),
                    frame: file.frame.clone(),
                    session: None,
                    check: Check::DecodeError {
                        hex,
                        kind: e.kind.clone(),
                        basis,
                    },
                }),
            }
        }
    }
    Ok(cases)
}

fn normalize_hex(hex: &str) -> String {
    hex.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase()
}

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// The reply is what the vector says.
    Pass,
    /// Another value, other bytes or another error kind.
    Fail,
    /// Outside the testee's capabilities.
    Unimplemented,
    /// The testee exited or answered something that is not a reply.
    Crash,
    /// No reply in time.
    Timeout,
}

impl Verdict {
    /// The verdict as the reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Unimplemented => "UNIMPLEMENTED",
            Verdict::Crash => "CRASH",
            Verdict::Timeout => "TIMEOUT",
        }
    }

    /// Whether the verdict is a failure of the testee.
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Crash | Verdict::Timeout)
    }
}

/// One case's result.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The case's name.
    pub name: String,
    /// The frame.
    pub frame: String,
    /// How it ended.
    pub verdict: Verdict,
    /// For a failure: what was expected and what came; for a crash, the testee's last words.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The case is in the failure list.
    pub listed: bool,
    /// Time from request to verdict.
    pub seconds: f64,
}

impl Outcome {
    /// A failure not in the failure list, or a listed case that passed: what makes the run
    /// fail.
    pub fn is_unexpected(&self) -> bool {
        if self.listed {
            self.verdict == Verdict::Pass
        } else {
            self.verdict.is_failure()
        }
    }
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The testee's command and arguments.
    pub command: Vec<String>,
    /// How long a reply may take.
    pub timeout: Duration,
    /// Cases known to fail.
    pub failure_list: BTreeSet<String>,
}

/// The result of a whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The testee as it named itself.
    pub testee: String,
    /// Every case, in order.
    pub outcomes: Vec<Outcome>,
}

impl RunReport {
    /// Cases whose result makes the run fail.
    pub fn unexpected(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes.iter().filter(|o| o.is_unexpected())
    }
}

/// Runs `cases` against the testee, calling `progress` after each.
///
/// A testee that does not answer `hello` when it is first started ends the run at once with
/// [`RunError::Hello`], before any case ([`TesteeProcess::ensure`]). Once it has answered, a
/// crash or a timeout fails that one case and the testee is restarted for the next; a
/// restarted testee whose hello fails fails that case too (a CRASH), and a second hello
/// failure in a row ends the run the same way.
pub fn run(
    cases: &[Case],
    options: &RunOptions,
    progress: impl FnMut(&Outcome),
) -> Result<RunReport, RunError> {
    run_judged(cases, options, &Judge::Reference, progress)
}

/// [`run`], decoded values judged by `judge`: the same value once read into the frame's model
/// of the spec `judge` holds (for the reference protocol, [`Judge::Reference`], as [`run`]).
pub fn run_judged(
    cases: &[Case],
    options: &RunOptions,
    judge: &Judge<'_>,
    mut progress: impl FnMut(&Outcome),
) -> Result<RunReport, RunError> {
    let mut testee = TesteeProcess::new(options.command.clone());
    let mut outcomes = Vec::with_capacity(cases.len());
    let mut name = options.command.join(" ");
    for case in cases {
        let started = Instant::now();
        let (verdict, detail) = match testee.ensure(options.timeout)? {
            Err(why) => (Verdict::Crash, why),
            Ok(caps) => {
                name = format!("{} {}", caps.name, caps.version);
                // TESTEE-4: a case outside the hello capabilities is UNIMPLEMENTED, never sent.
                match &case.session {
                    Some(s) if !caps.sessions.contains(s) => (
                        Verdict::Unimplemented,
                        format!("session `{s}` is not in the testee's sessions"),
                    ),
                    None if !caps.frames.contains(&case.frame) => (
                        Verdict::Unimplemented,
                        format!("`{}` is not in the testee's frames", case.frame),
                    ),
                    _ => judge_case(&mut testee, case, options.timeout, judge),
                }
            }
        };
        // TESTEE-5: a crash or a timeout fails the case, and the testee is restarted for the next.
        if matches!(verdict, Verdict::Crash | Verdict::Timeout) {
            testee.stop();
        }
        let outcome = Outcome {
            name: case.name.clone(),
            frame: case.frame.clone(),
            verdict,
            detail,
            listed: options.failure_list.contains(&case.name),
            seconds: started.elapsed().as_secs_f64(),
        };
        progress(&outcome);
        outcomes.push(outcome);
    }
    if testee.capabilities().is_some() {
        let _ = testee.request(json!({"op": "bye"}), Duration::from_millis(200));
    }
    Ok(RunReport {
        testee: name,
        outcomes,
    })
}

fn judge_stream(
    testee: &mut TesteeProcess,
    session: &str,
    vector: &StreamVector,
    side: Side,
    timeout: Duration,
) -> (Verdict, String) {
    let fault_verdict = |f: &Fault| match f {
        Fault::Timeout => (
            Verdict::Timeout,
            format!("no reply within {} ms", timeout.as_millis()),
        ),
        Fault::Crash(why) => (Verdict::Crash, why.clone()),
    };
    let mut half = match RemoteSession::open(testee, session, &vector.params, timeout) {
        Ok(h) => h,
        Err((Some(f), _)) => return fault_verdict(&f),
        Err((None, why)) => return (Verdict::Fail, why),
    };
    let result = stream::replay(vector, side, &mut half);
    if let Some(f) = half.fault.clone() {
        return fault_verdict(&f);
    }
    half.close();
    match result {
        Ok(()) => (Verdict::Pass, String::new()),
        Err(why) => (Verdict::Fail, why),
    }
}

/// What a frame case's reply must hold.
enum Want<'a> {
    Value(&'a Value),
    Error(&'a str),
    Bytes(&'a str),
}

fn judge_case(
    testee: &mut TesteeProcess,
    case: &Case,
    timeout: Duration,
    judge: &Judge<'_>,
) -> (Verdict, String) {
    let (mut request, want, basis) = match &case.check {
        Check::DecodeValue { hex, value, basis } => (
            json!({"op": "decode", "frame": case.frame, "hex": hex}),
            Want::Value(value),
            basis,
        ),
        Check::DecodeError { hex, kind, basis } => (
            json!({"op": "decode", "frame": case.frame, "hex": hex}),
            Want::Error(kind),
            basis,
        ),
        Check::Encode { value, hex, basis } => (
            json!({"op": "encode", "frame": case.frame, "value": value}),
            Want::Bytes(hex),
            basis,
        ),
        Check::Stream { vector, side } => {
            let session = case.session.as_deref().unwrap_or_default();
            return judge_stream(testee, session, vector, *side, timeout);
        }
    };
    // A coded frame's basis goes with the request; a case without one sends no member, so a
    // request stays what it was for every other frame.
    if let Some(b) = basis {
        request["basis"] = b.clone();
    }
    let reply = match testee.request(request, timeout) {
        Ok(r) => r,
        Err(Fault::Timeout) => {
            return (
                Verdict::Timeout,
                format!("no reply within {} ms", timeout.as_millis()),
            )
        }
        Err(Fault::Crash(why)) => return (Verdict::Crash, why),
    };
    judge_reply(judge, &case.frame, &want, &reply)
}

/// The verdict on a frame case's `reply`, for the frame `frame`, values compared by `judge`.
fn judge_reply(
    judge: &Judge<'_>,
    frame: &str,
    want: &Want<'_>,
    reply: &Value,
) -> (Verdict, String) {
    // TESTEE-4: answered `unimplemented` is not a failure.
    if let Some(why) = reply.get("unimplemented") {
        return (
            Verdict::Unimplemented,
            why.as_str().unwrap_or("").to_string(),
        );
    }
    let ok = reply.get("ok");
    let error_kind = reply
        .get("error")
        .and_then(|e| e.get("kind"))
        .and_then(Value::as_str);
    let got = || match (ok, error_kind) {
        (Some(ok), _) => format!("ok {ok}"),
        (None, Some(kind)) => format!("error {kind}"),
        _ => format!("{reply}"),
    };
    match want {
        Want::Value(value) => match ok.and_then(|o| o.get("value")) {
            // TESTEE-8: values compare after reading them into the frame's types.
            Some(actual) => match judge.same_value(frame, value, actual) {
                Ok(true) => (Verdict::Pass, String::new()),
                Ok(false) => (
                    Verdict::Fail,
                    format!("expected value {value}\n     got value {actual}"),
                ),
                Err(e) => (
                    Verdict::Fail,
                    format!(
                        "expected value {value}\n     got {actual}, which is not a {frame}: {e}"
                    ),
                ),
            },
            None => (
                Verdict::Fail,
                format!("expected value {value}\n     got {}", got()),
            ),
        },
        Want::Error(kind) => match error_kind {
            // TESTEE-6: judged by the kind alone, never its text, offset or path.
            Some(k) if k == *kind => (Verdict::Pass, String::new()),
            _ => (
                Verdict::Fail,
                format!("expected error {kind}\n     got {}", got()),
            ),
        },
        Want::Bytes(hex) => match ok.and_then(|o| o.get("hex")).and_then(Value::as_str) {
            Some(actual) if normalize_hex(actual) == *hex => (Verdict::Pass, String::new()),
            _ => (
                Verdict::Fail,
                format!("expected bytes {hex}\n     got {}", got()),
            ),
        },
    }
}

/// TESTEE-7: a failure list names known failures.
/// Reads a failure list: one case name per line; blank lines and comments (a `#` at the start
/// of a line or after white space: case names contain `#` themselves) are ignored.
pub fn read_failure_list(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(|l| {
            let l = l.trim();
            if l.starts_with('#') {
                return "";
            }
            let end = l
                .char_indices()
                .find(|&(i, c)| c == '#' && l[..i].ends_with(char::is_whitespace))
                .map_or(l.len(), |(i, _)| i);
            l[..end].trim()
        })
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_lists_skip_comments_and_blanks() {
        let list = read_failure_list("# known\nframes/a/b#decode  # why\n\n  frames/c#encode\n");
        assert_eq!(list.len(), 2);
        assert!(list.contains("frames/a/b#decode"));
    }

    /// TESTEE-6: an error is judged by its kind alone: another offset, path or message is no
    /// failure, another kind is.
    #[test]
    fn an_error_is_judged_by_its_kind_alone() {
        let want = Want::Error("truncated");
        let reply = |kind: &str, offset: u64, path: &str, message: &str| json!({"id": 1, "error": {"kind": kind, "offset": offset, "path": path, "message": message}});
        for r in [
            reply("truncated", 3, "tick", "the input ends inside tick"),
            reply("truncated", 9, "", "eof"),
        ] {
            assert_eq!(
                judge_reply(&Judge::Reference, "acked", &want, &r).0,
                Verdict::Pass,
                "{r}"
            );
        }
        let (verdict, detail) = judge_reply(
            &Judge::Reference,
            "acked",
            &want,
            &reply("over_width", 3, "tick", ""),
        );
        assert_eq!(verdict, Verdict::Fail);
        assert!(detail.contains("expected error truncated"), "{detail}");
        assert!(detail.contains("got error over_width"), "{detail}");
        let ok = json!({"id": 1, "ok": {"value": {}}});
        assert_eq!(
            judge_reply(&Judge::Reference, "acked", &want, &ok).0,
            Verdict::Fail
        );
    }

    #[test]
    fn a_listed_pass_and_an_unlisted_failure_are_unexpected() {
        let o = |verdict, listed| Outcome {
            name: String::new(),
            frame: String::new(),
            verdict,
            detail: String::new(),
            listed,
            seconds: 0.0,
        };
        assert!(o(Verdict::Pass, true).is_unexpected());
        assert!(!o(Verdict::Fail, true).is_unexpected());
        assert!(o(Verdict::Fail, false).is_unexpected());
        assert!(o(Verdict::Timeout, false).is_unexpected());
        assert!(!o(Verdict::Unimplemented, false).is_unexpected());
    }
}
