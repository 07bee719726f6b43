//! The conformance runner: drives a testee process through `conformance/PROTOCOL.md`, one case
//! at a time, and judges each reply against its vector.
//!
//! DESIGN.md section 5: "A testee that crashes or stalls past a timeout is recorded as failing
//! that case and restarted for the next; a case outside its capabilities is UNIMPLEMENTED, not
//! FAILED. An error is judged by its kind from one error taxonomy shared by every language,
//! never by its text."
//!
//! The runner is the one place in ackwire with a clock and threads: it has to notice a testee
//! that never answers. A reader thread per testee turns its standard output into a channel that
//! is waited on with a timeout.

use crate::frames;
use crate::sessions::stream::{self, RemoteSession};
use crate::streams::{Side, StreamVector};
use crate::vectors::{Expectation, FrameFile};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
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
    },
    /// Decode `hex`; expect an error of this kind.
    DecodeError {
        /// The bytes.
        hex: String,
        /// The error kind.
        kind: String,
    },
    /// Encode `value`; expect these bytes.
    Encode {
        /// The JSON form.
        value: Value,
        /// The bytes.
        hex: String,
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
            match case.expectation()? {
                Expectation::Value(v) => {
                    cases.push(Case {
                        name: format!("{base}#decode"),
                        frame: file.frame.clone(),
                        session: None,
                        check: Check::DecodeValue {
                            hex: hex.clone(),
                            value: v.to_value(),
                        },
                    });
                    cases.push(Case {
                        name: format!("{base}#encode"),
                        frame: file.frame.clone(),
                        session: None,
                        check: Check::Encode {
                            value: v.to_value(),
                            hex,
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

/// Why the runner could not run at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The testee could not be started.
    #[error("cannot start the testee `{command}`: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The testee command is empty.
    #[error("the testee command is empty")]
    NoCommand,
    /// The testee did not answer `hello` when first started, or twice in a row after a
    /// restart: no case can be judged, so the run stops rather than wait out every case.
    #[error("the testee `{command}` did not answer hello, so the run stops: {why}")]
    Hello {
        /// The command.
        command: String,
        /// What came instead of the reply (no reply in time, an exit, another reply).
        why: String,
    },
}

/// What `hello` said.
#[derive(Debug, Clone, Default)]
pub struct Capabilities {
    /// The testee's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Frames it decodes and encodes.
    pub frames: BTreeSet<String>,
    /// Session machines it implements.
    pub sessions: BTreeSet<String>,
}

/// Why a request got no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The testee exited, or answered something that is not a reply to the request.
    Crash(String),
    /// No reply within the timeout.
    Timeout,
}

/// How many times, 10 ms apart, a testee whose output closed is asked whether it has exited
/// before it is killed: a testee that exits takes well under this half second.
const CLOSED_OUTPUT_GRACE_POLLS: u32 = 50;

/// A testee process: started on demand, greeted with `hello`, restarted after a fault.
pub struct Testee {
    command: Vec<String>,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<Option<String>>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
    capabilities: Option<Capabilities>,
}

impl Testee {
    /// A testee run as `command` (program and arguments); nothing starts until it is used.
    pub fn new(command: Vec<String>) -> Self {
        Testee {
            command,
            child: None,
            stdin: None,
            lines: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            next_id: 0,
            capabilities: None,
        }
    }

    fn start(&mut self) -> Result<(), RunError> {
        let (program, args) = self.command.split_first().ok_or(RunError::NoCommand)?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| RunError::Spawn {
                command: self.command.join(" "),
                source,
            })?;
        let (tx, rx) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    match line {
                        Ok(l) => {
                            if tx.send(Some(l)).is_err() {
                                return;
                            }
                        }
                        Err(_) => break,
                    }
                }
                let _ = tx.send(None);
            });
        }
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&self.stderr_tail);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == 20 {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                }
            });
        }
        self.stdin = child.stdin.take();
        self.child = Some(child);
        self.lines = Some(rx);
        Ok(())
    }

    /// Stops the process; the next request starts it again.
    pub fn stop(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.lines = None;
        self.capabilities = None;
    }

    fn last_words(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n"));
        match tail {
            Ok(t) if !t.is_empty() => format!("; its standard error ended with:\n{t}"),
            _ => String::new(),
        }
    }

    /// How the testee ended once its standard output closed: its exit status, or that it was
    /// killed. A process can close its output and go on running (`cat >/dev/null` does, until
    /// its input closes): waiting for it unconditionally hung the runner for good. So its input
    /// is closed first (a testee exits then), and one still running shortly after is killed.
    fn end_after_closed_output(&mut self) -> String {
        self.stdin = None;
        let Some(child) = self.child.as_mut() else {
            return "is not running".into();
        };
        for _ in 0..CLOSED_OUTPUT_GRACE_POLLS {
            match child.try_wait() {
                Ok(Some(status)) => return format!("exited ({status})"),
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        "closed its standard output without exiting, and was killed".into()
    }

    /// Sends one request (an `id` is added) and waits up to `timeout` for its reply.
    pub fn request(&mut self, mut body: Value, timeout: Duration) -> Result<Value, Fault> {
        let id = self.next_id;
        self.next_id += 1;
        body["id"] = json!(id);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Fault::Crash("the testee is not running".into()));
        };
        if writeln!(stdin, "{body}")
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return Err(Fault::Crash(format!(
                "the testee closed its input{}",
                self.last_words()
            )));
        }
        let Some(lines) = self.lines.as_ref() else {
            return Err(Fault::Crash("the testee is not running".into()));
        };
        match lines.recv_timeout(timeout) {
            Ok(Some(line)) => {
                let reply: Value = serde_json::from_str(&line).map_err(|e| {
                    Fault::Crash(format!("the reply is not JSON ({e}): {}", truncate(&line)))
                })?;
                if reply.get("id") != Some(&json!(id)) {
                    return Err(Fault::Crash(format!(
                        "the reply answers id {} instead of {id}: {}",
                        reply.get("id").unwrap_or(&Value::Null),
                        truncate(&line)
                    )));
                }
                Ok(reply)
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                // Give the stderr reader a moment to collect the last words.
                std::thread::sleep(Duration::from_millis(20));
                let ended = self.end_after_closed_output();
                Err(Fault::Crash(format!(
                    "the testee {ended}{}",
                    self.last_words()
                )))
            }
            Err(RecvTimeoutError::Timeout) => Err(Fault::Timeout),
        }
    }

    /// The capabilities, starting the testee and greeting it when needed: `Err(why)` when it
    /// does not answer `hello`.
    pub fn ensure(&mut self, timeout: Duration) -> Result<Result<Capabilities, String>, RunError> {
        if let Some(c) = &self.capabilities {
            return Ok(Ok(c.clone()));
        }
        self.stop();
        self.start()?;
        let reply = match self.request(json!({"op": "hello", "protocol": 1}), timeout) {
            Ok(r) => r,
            Err(Fault::Timeout) => {
                self.stop();
                return Ok(Err(format!(
                    "no reply to hello within {} ms",
                    timeout.as_millis()
                )));
            }
            Err(Fault::Crash(why)) => {
                self.stop();
                return Ok(Err(format!("hello failed: {why}")));
            }
        };
        let Some(ok) = reply.get("ok") else {
            self.stop();
            return Ok(Err(format!("hello was not answered ok: {reply}")));
        };
        let list = |key: &str| -> BTreeSet<String> {
            ok.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let caps = Capabilities {
            name: ok
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            version: ok
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            frames: list("frames"),
            sessions: list("sessions"),
        };
        self.capabilities = Some(caps.clone());
        Ok(Ok(caps))
    }
}

impl Drop for Testee {
    fn drop(&mut self) {
        self.stop();
    }
}

fn truncate(s: &str) -> String {
    if s.len() > 200 {
        let mut end = 200;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s.to_string()
    }
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
/// [`RunError::Hello`], before any case: every case would otherwise wait out the timeout on
/// its own hello (a silent testee held a 304-case run for 25 minutes, printing nothing). Once
/// it has answered, a crash or a timeout fails that one case and the testee is restarted for
/// the next; a restarted testee whose hello fails fails that case too, and a second hello
/// failure in a row ends the run the same way.
pub fn run(
    cases: &[Case],
    options: &RunOptions,
    mut progress: impl FnMut(&Outcome),
) -> Result<RunReport, RunError> {
    let mut testee = Testee::new(options.command.clone());
    let mut outcomes = Vec::with_capacity(cases.len());
    let mut name = options.command.join(" ");
    let mut greeted = false;
    let mut hello_failed = false;
    for case in cases {
        let started = Instant::now();
        let (verdict, detail) = match testee.ensure(options.timeout)? {
            Err(why) if !greeted || hello_failed => {
                return Err(RunError::Hello {
                    command: options.command.join(" "),
                    why,
                });
            }
            Err(why) => {
                hello_failed = true;
                (Verdict::Crash, why)
            }
            Ok(caps) => {
                greeted = true;
                hello_failed = false;
                name = format!("{} {}", caps.name, caps.version);
                match &case.session {
                    Some(s) if !caps.sessions.contains(s) => (
                        Verdict::Unimplemented,
                        format!("session `{s}` is not in the testee's sessions"),
                    ),
                    None if !caps.frames.contains(&case.frame) => (
                        Verdict::Unimplemented,
                        format!("`{}` is not in the testee's frames", case.frame),
                    ),
                    _ => judge(&mut testee, case, options.timeout),
                }
            }
        };
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
    if testee.capabilities.is_some() {
        let _ = testee.request(json!({"op": "bye"}), Duration::from_millis(200));
    }
    Ok(RunReport {
        testee: name,
        outcomes,
    })
}

fn judge_stream(
    testee: &mut Testee,
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

fn judge(testee: &mut Testee, case: &Case, timeout: Duration) -> (Verdict, String) {
    /// What a frame case's reply must hold.
    enum Want<'a> {
        Value(&'a Value),
        Error(&'a str),
        Bytes(&'a str),
    }
    let (request, want) = match &case.check {
        Check::DecodeValue { hex, value } => (
            json!({"op": "decode", "frame": case.frame, "hex": hex}),
            Want::Value(value),
        ),
        Check::DecodeError { hex, kind } => (
            json!({"op": "decode", "frame": case.frame, "hex": hex}),
            Want::Error(kind),
        ),
        Check::Encode { value, hex } => (
            json!({"op": "encode", "frame": case.frame, "value": value}),
            Want::Bytes(hex),
        ),
        Check::Stream { vector, side } => {
            let session = case.session.as_deref().unwrap_or_default();
            return judge_stream(testee, session, vector, *side, timeout);
        }
    };
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
            Some(actual) => match frames::same_value(&case.frame, value, actual) {
                Ok(true) => (Verdict::Pass, String::new()),
                Ok(false) => (
                    Verdict::Fail,
                    format!("expected value {value}\n     got value {actual}"),
                ),
                Err(e) => (
                    Verdict::Fail,
                    format!(
                        "expected value {value}\n     got {actual}, which is not a {}: {e}",
                        case.frame
                    ),
                ),
            },
            None => (
                Verdict::Fail,
                format!("expected value {value}\n     got {}", got()),
            ),
        },
        Want::Error(kind) => match error_kind {
            Some(k) if k == kind => (Verdict::Pass, String::new()),
            _ => (
                Verdict::Fail,
                format!("expected error {kind}\n     got {}", got()),
            ),
        },
        Want::Bytes(hex) => match ok.and_then(|o| o.get("hex")).and_then(Value::as_str) {
            Some(actual) if normalize_hex(actual) == hex => (Verdict::Pass, String::new()),
            _ => (
                Verdict::Fail,
                format!("expected bytes {hex}\n     got {}", got()),
            ),
        },
    }
}

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
