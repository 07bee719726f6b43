//! The client of the testee protocol (`conformance/PROTOCOL.md`): a testee as a child process
//! ([`TesteeProcess`]), started on demand, greeted with `hello`, asked one request at a time
//! with a timeout and restarted after a [`Fault`]; and a session half inside it
//! ([`RemoteSession`]), which the stream replay drives like a local one. The runner, the
//! stream cases and the differential fuzzer all speak to testees through this module.
//!
//! This is the one place in ackwire with threads: a reader thread per testee turns its standard
//! output into a channel that is waited on with a timeout, so that a testee that never answers
//! is noticed.
//!
//! A testee is started in a process group of its own, and the whole group is killed when the
//! testee is stopped (after a crash or a timeout, and when the run ends): a testee started
//! through a wrapper (`sh -c`, a build script that runs it) leaves no child running, where
//! killing the one process it started left the wrapper's children behind, still holding the
//! testee's output open. The price: a testee is not in the terminal's foreground group, so a
//! Ctrl-C reaches the runner only; a testee then goes when its input closes, as PROTOCOL.md
//! asks of every testee.

use crate::frame_json;
use crate::sessions::{Sent, Session};
use serde_json::{json, Value};
use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// restart: no case can be judged, so the run stops rather than wait out every case
    /// ([`TesteeProcess::ensure`]).
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

/// How long a testee that keeps writing to its standard error may take to answer its first
/// `hello` (a generated testee builds itself on its first run and says so every few seconds),
/// however often it writes.
pub const START_LIMIT: Duration = Duration::from_secs(600);

/// A testee process: started on demand, greeted with `hello`, restarted after a fault.
pub struct TesteeProcess {
    command: Vec<String>,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<Option<String>>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Lines written to standard error since the process started: while it answers no `hello`,
    /// a testee that writes them is still starting.
    stderr_lines: Arc<AtomicU64>,
    next_id: u64,
    capabilities: Option<Capabilities>,
    /// Some start of it has answered `hello`.
    greeted: bool,
    /// The last start's `hello` failed.
    hello_failed: bool,
}

impl TesteeProcess {
    /// A testee run as `command` (program and arguments); nothing starts until it is used.
    pub fn new(command: Vec<String>) -> Self {
        TesteeProcess {
            command,
            child: None,
            stdin: None,
            lines: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            stderr_lines: Arc::new(AtomicU64::new(0)),
            next_id: 0,
            capabilities: None,
            greeted: false,
            hello_failed: false,
        }
    }

    fn start(&mut self) -> Result<(), RunError> {
        let (program, args) = self.command.split_first().ok_or(RunError::NoCommand)?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|source| RunError::Spawn {
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
            let count = Arc::clone(&self.stderr_lines);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    count.fetch_add(1, Ordering::Relaxed);
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

    /// What the testee answered to `hello`, if it is running and has been greeted.
    pub fn capabilities(&self) -> Option<&Capabilities> {
        self.capabilities.as_ref()
    }

    /// Stops the process and every process of its group; the next request starts it again.
    pub fn stop(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            kill_group(&mut child);
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
                Ok(Some(status)) => {
                    // What it started goes with it.
                    kill_group(child);
                    return format!("exited ({status})");
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
        kill_group(child);
        let _ = child.wait();
        "closed its standard output without exiting, and was killed".into()
    }

    /// Why a testee that gave no reply in time is a crash rather than a timeout: it has exited,
    /// and a process it started holds its standard output open, so no end of output came.
    fn exited_in_silence(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        let status = child.try_wait().ok()??;
        kill_group(child);
        Some(format!(
            "the testee exited ({status}) without replying; a process it started kept its standard output open{}",
            self.last_words()
        ))
    }

    /// Sends one request (an `id` is added) and waits up to `timeout` for its reply.
    pub fn request(&mut self, body: Value, timeout: Duration) -> Result<Value, Fault> {
        self.request_patiently(body, timeout, None)
    }

    /// [`TesteeProcess::request`], waiting longer while the testee shows it is alive: with a
    /// `limit`, each `timeout` in which it wrote a line to standard error is followed by
    /// another, up to `limit` in all.
    fn request_patiently(
        &mut self,
        mut body: Value,
        timeout: Duration,
        limit: Option<Duration>,
    ) -> Result<Value, Fault> {
        let id = self.next_id;
        self.next_id += 1;
        body["id"] = json!(id);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Fault::Crash("the testee is not running".into()));
        };
        // TESTEE-1, TESTEE-2: one request a line, with an increasing id.
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
        let started = Instant::now();
        let mut written = self.stderr_lines.load(Ordering::Relaxed);
        let mut received = lines.recv_timeout(timeout);
        while let (Err(RecvTimeoutError::Timeout), Some(limit)) = (&received, limit) {
            let now = self.stderr_lines.load(Ordering::Relaxed);
            if now == written || started.elapsed() >= limit {
                break;
            }
            written = now;
            received = lines.recv_timeout(timeout);
        }
        match received {
            Ok(Some(line)) => {
                // TESTEE-5: a reply that is not one line of JSON, or answers another id, is a crash.
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
            Err(RecvTimeoutError::Timeout) => match self.exited_in_silence() {
                Some(why) => Err(Fault::Crash(why)),
                None => Err(Fault::Timeout),
            },
        }
    }

    /// TESTEE-3: `hello` first; a testee that never answers it is not run.
    /// The capabilities, starting the testee and greeting it when needed.
    ///
    /// A testee that does not answer `hello` when it is first started is not run at all:
    /// [`RunError::Hello`], so that a caller stops at once rather than wait out the timeout on
    /// every case or input (a silent testee held a 304-case run for 25 minutes, printing
    /// nothing). Once it has answered, a restart whose `hello` fails is `Ok(Err(why))`, a
    /// fault of the case at hand, and a second failure in a row is [`RunError::Hello`] again
    /// (PROTOCOL.md, "Transport").
    pub fn ensure(&mut self, timeout: Duration) -> Result<Result<Capabilities, String>, RunError> {
        if let Some(c) = &self.capabilities {
            return Ok(Ok(c.clone()));
        }
        self.stop();
        self.start()?;
        match self.hello(timeout) {
            Ok(caps) => {
                (self.greeted, self.hello_failed) = (true, false);
                Ok(Ok(caps))
            }
            Err(why) => {
                self.stop();
                if !self.greeted || self.hello_failed {
                    return Err(RunError::Hello {
                        command: self.command.join(" "),
                        why,
                    });
                }
                self.hello_failed = true;
                Ok(Err(why))
            }
        }
    }

    /// Says `hello` to the testee just started: its capabilities, or why not.
    fn hello(&mut self, timeout: Duration) -> Result<Capabilities, String> {
        let hello = json!({"op": "hello", "protocol": 1});
        let reply = match self.request_patiently(hello, timeout, Some(START_LIMIT)) {
            Ok(r) => r,
            Err(Fault::Timeout) => {
                return Err(format!(
                    "no reply to hello within {} ms",
                    timeout.as_millis()
                ))
            }
            Err(Fault::Crash(why)) => return Err(format!("hello failed: {why}")),
        };
        let Some(ok) = reply.get("ok") else {
            return Err(format!("hello was not answered ok: {reply}"));
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
        Ok(caps)
    }
}

/// Kills `child` and every process of its group (it leads one: [`TesteeProcess`] starts it
/// so). After `child` has been reaped its id can name the group still: the kernel keeps an id
/// that is some live process's group from being given to a new process.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        use rustix::process::{kill_process_group, Pid, Signal};
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    let _ = child.kill();
}

impl Drop for TesteeProcess {
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

/// A session half inside a testee, driven through the testee protocol.
pub struct RemoteSession<'a> {
    testee: &'a mut TesteeProcess,
    handle: Value,
    timeout: std::time::Duration,
    /// Set when the testee crashed or timed out, so the runner can tell a fault from a wrong
    /// answer.
    pub fault: Option<Fault>,
}

impl<'a> RemoteSession<'a> {
    /// Opens `name` with `params` in `testee`.
    pub fn open(
        testee: &'a mut TesteeProcess,
        name: &str,
        params: &Value,
        timeout: std::time::Duration,
    ) -> Result<Self, (Option<Fault>, String)> {
        let reply = testee
            .request(
                serde_json::json!({"op": "open", "session": name, "params": params}),
                timeout,
            )
            .map_err(|f| (Some(f.clone()), format!("{f:?}")))?;
        match reply.get("ok").and_then(|o| o.get("handle")) {
            Some(h) => Ok(RemoteSession {
                testee,
                handle: h.clone(),
                timeout,
                fault: None,
            }),
            None => Err((
                None,
                format!("open {name} was not answered with a handle: {reply}"),
            )),
        }
    }

    fn call(&mut self, mut body: Value) -> Result<Value, String> {
        body["handle"] = self.handle.clone();
        match self.testee.request(body, self.timeout) {
            Ok(reply) => match reply.get("ok") {
                Some(ok) => Ok(ok.clone()),
                None => Err(format!("not ok: {reply}")),
            },
            Err(f) => {
                let text = format!("{f:?}");
                self.fault = Some(f);
                Err(text)
            }
        }
    }

    /// Closes the session in the testee.
    pub fn close(mut self) {
        let _ = self.call(serde_json::json!({"op": "close"}));
    }
}

impl Session for RemoteSession<'_> {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        self.call(serde_json::json!({"op": "advance", "tick": tick, "now_ms": now_ms, "ops": ops}))
            .map(|_| ())
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let hex = frame_json::hex_spaced(bytes).replace(' ', "");
        self.call(
            serde_json::json!({"op": "deliver", "now_ms": now_ms, "frame": frame, "hex": hex}),
        )
        .map(|ok| ok.get("report").cloned().unwrap_or(Value::Null))
    }

    fn take(&mut self) -> Vec<Sent> {
        let Ok(ok) = self.call(serde_json::json!({"op": "take"})) else {
            return Vec::new();
        };
        ok.get("frames")
            .and_then(Value::as_array)
            .map(|frames| {
                frames
                    .iter()
                    .map(|f| Sent {
                        frame: f
                            .get("frame")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                            .to_string(),
                        bytes: f
                            .get("hex")
                            .and_then(Value::as_str)
                            .and_then(|h| frame_json::parse_hex(h).ok())
                            .unwrap_or_default(),
                        reliable: f.get("reliable").and_then(Value::as_bool).unwrap_or(false),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn state_hash(&mut self) -> Option<u32> {
        let ok = self.call(serde_json::json!({"op": "state_hash"})).ok()?;
        ok.get("hash")
            .and_then(Value::as_u64)
            .and_then(|h| u32::try_from(h).ok())
    }
}

/// Splits a testee's command line (`--testee "node testee.js"`) on white space, keeping single-
/// or double-quoted parts together.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    parts.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unbalanced quote in --testee {text:?}"));
    }
    if started {
        parts.push(current);
    }
    if parts.is_empty() {
        return Err("--testee is empty".to_string());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_splits_on_white_space_but_not_inside_quotes() {
        assert_eq!(
            split_command("node  'my testee.js' \"a b\" ''").unwrap(),
            ["node", "my testee.js", "a b", ""]
        );
        assert!(split_command("node 'open").is_err());
        assert!(split_command("   ").is_err());
    }

    /// A testee that builds itself before it answers (as a generated one does on its first
    /// run) and says so on standard error gets more time than the timeout for its hello; one
    /// that says nothing does not.
    #[test]
    fn a_testee_that_writes_while_it_starts_gets_more_time_for_hello() {
        let reply = r#"{"id":0,"ok":{"name":"slow","version":"1","frames":["f"],"sessions":[]}}"#;
        let busy = format!(
            "for i in 1 2 3 4 5 6; do echo building >&2; sleep 0.1; done; read l; echo '{reply}'; cat >/dev/null"
        );
        let mut testee = TesteeProcess::new(vec!["sh".into(), "-c".into(), busy]);
        let caps = testee
            .ensure(Duration::from_millis(250))
            .expect("the testee starts")
            .expect("the testee answers hello after 0.6 s of saying it builds");
        assert_eq!(caps.name, "slow");

        let quiet = "sleep 0.6; read l; cat >/dev/null".to_string();
        let mut testee = TesteeProcess::new(vec!["sh".into(), "-c".into(), quiet]);
        match testee.ensure(Duration::from_millis(250)) {
            Err(RunError::Hello { why, .. }) => {
                assert!(why.contains("no reply to hello within 250 ms"), "{why}")
            }
            other => panic!("a silent start got more time: {other:?}"),
        }
    }
}
