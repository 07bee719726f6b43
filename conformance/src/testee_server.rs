//! The Rust codec as a testee: `ackwire testee` speaks `conformance/PROTOCOL.md` over standard
//! input and output, so the bundled implementation is checked through the same door as any
//! other.
//!
//! [`Fault`]s make it misbehave on purpose (a wrong value, a crash, a hang, fewer
//! capabilities): the runner's own tests use them to prove that it catches each.

use crate::frame_json::{self, FrameError};
use crate::sessions::Session;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};

mod misreport;

/// The protocol version this testee speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// A deliberate misbehaviour, for testing runners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Every decoded value is altered (its first integer field is off by one).
    WrongValue,
    /// The process exits when asked about these bytes.
    CrashOnHex(String),
    /// The testee never answers a request about these bytes.
    HangOnHex(String),
    /// `hello` claims only these frames.
    OnlyFrames(Vec<String>),
    /// A client half's state hash is off by one once the half has been delivered this many
    /// frames: a session machine that strays partway through a stream (what `ackwire fuzz-diff`
    /// must find and shrink).
    WrongHashAfter(u64),
    /// `hello` lists no session halves (a testee with codecs only).
    NoSessions,
    /// An acked client half (kind 6 or 12) tells every event a frame carries as shown, those it
    /// showed before again: ACK-35's each event once, above the newest serial shown, broken in its
    /// reports only.
    EventsTwice,
    /// An acked client half (kind 6 or 12) tells the poses measured against the frame's base, not
    /// the last frame it showed: ACK-34 (a pose repeated after it was shown is not a new
    /// measurement) broken in its reports only.
    MeasuredAgainstBase,
}

impl std::str::FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (name, arg) = s.split_once('=').unwrap_or((s, ""));
        let hex = || {
            arg.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_lowercase()
        };
        match name {
            "wrong-value" => Ok(Fault::WrongValue),
            "crash-on-hex" => Ok(Fault::CrashOnHex(hex())),
            "hang-on-hex" => Ok(Fault::HangOnHex(hex())),
            "only-frames" => Ok(Fault::OnlyFrames(
                arg.split(',').filter(|f| !f.is_empty()).map(str::to_string).collect(),
            )),
            "wrong-hash-after" => arg
                .parse()
                .map(Fault::WrongHashAfter)
                .map_err(|_| format!("wrong-hash-after needs a number of deliveries, not `{arg}`")),
            "no-sessions" => Ok(Fault::NoSessions),
            "events-twice" => Ok(Fault::EventsTwice),
            "measured-against-base" => Ok(Fault::MeasuredAgainstBase),
            _ => Err(format!(
                "unknown fault `{name}`: expected wrong-value, crash-on-hex=HEX, hang-on-hex=HEX, only-frames=A,B, wrong-hash-after=N, no-sessions, events-twice or measured-against-base"
            )),
        }
    }
}

/// What the testee does with one request line: the reply to write, or that it must stop.
enum Step {
    Reply(Value),
    Exit(i32),
    Hang,
}

/// The open session halves, by handle.
#[derive(Default)]
struct Sessions {
    open: BTreeMap<u64, Box<dyn Session>>,
    next: u64,
}

/// Serves requests from `input` until it closes (or `bye`), writing replies to `output`.
/// Returns the process exit code.
pub fn serve(input: impl BufRead, mut output: impl Write, fault: Option<&Fault>) -> i32 {
    let mut sessions = Sessions::default();
    for line in input.lines() {
        let Ok(line) = line else { return 1 };
        if line.trim().is_empty() {
            continue;
        }
        match answer(&line, fault, &mut sessions) {
            Step::Reply(reply) => {
                let bye = reply.get("bye").is_some();
                let mut reply = reply;
                if let Some(o) = reply.as_object_mut() {
                    o.remove("bye");
                }
                // TESTEE-1: one reply a line, in order, flushed after each.
                if writeln!(output, "{reply}")
                    .and_then(|_| output.flush())
                    .is_err()
                {
                    return 1;
                }
                if bye {
                    return 0;
                }
            }
            Step::Exit(code) => return code,
            Step::Hang => loop {
                std::thread::park();
            },
        }
    }
    0
}

fn answer(line: &str, fault: Option<&Fault>, sessions: &mut Sessions) -> Step {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Step::Reply(
                json!({"id": null, "error": {"kind": "bad_request", "message": e.to_string()}}),
            );
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let op = request.get("op").and_then(Value::as_str).unwrap_or("");
    let frame = request.get("frame").and_then(Value::as_str).unwrap_or("");
    let hex = request.get("hex").and_then(Value::as_str).unwrap_or("");
    let norm: String = hex
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    match fault {
        Some(Fault::CrashOnHex(h)) if !norm.is_empty() && &norm == h => return Step::Exit(3),
        Some(Fault::HangOnHex(h)) if !norm.is_empty() && &norm == h => return Step::Hang,
        _ => {}
    }
    let frames: Vec<String> = match fault {
        Some(Fault::OnlyFrames(only)) => only.clone(),
        _ => frame_json::frame_names()
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let body = match op {
        // TESTEE-3: the capabilities: the frames and the session halves implemented.
        "hello" => json!({"ok": {
            "name": "ackwire-rust",
            "version": env!("CARGO_PKG_VERSION"),
            "protocol": PROTOCOL_VERSION,
            "frames": frames,
            "sessions": if fault == Some(&Fault::NoSessions) {
                Vec::new()
            } else {
                crate::sessions::names()
            },
        }}),
        "decode" | "encode" if !frames.iter().any(|f| f == frame) => {
            json!({"unimplemented": format!("frame `{frame}` is not implemented")})
        }
        "decode" => match frame_json::parse_hex(hex) {
            Err(e) => json!({"error": {"kind": "bad_request", "message": e}}),
            Ok(bytes) => match frame_json::decode_json_on(frame, &bytes, request.get("basis")) {
                Ok(mut value) => {
                    if fault == Some(&Fault::WrongValue) && !nudge(&mut value) {
                        // Nothing numeric to alter: a member no frame has is just as wrong.
                        value["nudged"] = json!(true);
                    }
                    json!({"ok": {"value": value}})
                }
                Err(e) => error_reply(e),
            },
        },
        "encode" => {
            let value = request.get("value").cloned().unwrap_or(Value::Null);
            match frame_json::encode_json_on(frame, &value, request.get("basis")) {
                Ok(bytes) => {
                    json!({"ok": {"hex": frame_json::hex_spaced(&bytes).replace(' ', "")}})
                }
                Err(e) => error_reply(e),
            }
        }
        "bye" => json!({"ok": {}, "bye": true}),
        // TESTEE-9: the session operations, on halves opened by name.
        "open" | "deliver" | "take" | "advance" | "state_hash" | "close" => {
            session_op(op, &request, sessions, fault)
        }
        other => json!({"unimplemented": format!("unknown op `{other}`")}),
    };
    let mut reply = json!({"id": id});
    if let (Some(r), Some(b)) = (reply.as_object_mut(), body.as_object()) {
        for (k, v) in b {
            r.insert(k.clone(), v.clone());
        }
    }
    Step::Reply(reply)
}

/// A session op: the reply's members (`ok`, `error` or `unimplemented`).
fn session_op(op: &str, request: &Value, sessions: &mut Sessions, fault: Option<&Fault>) -> Value {
    let bad = |message: String| json!({"error": {"kind": "bad_request", "message": message}});
    if op == "open" {
        let name = request.get("session").and_then(Value::as_str).unwrap_or("");
        if !crate::sessions::names().contains(&name) || fault == Some(&Fault::NoSessions) {
            return json!({"unimplemented": format!("session `{name}` is not implemented")});
        }
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        return match crate::sessions::open(name, &params) {
            Ok(session) => {
                let session = match fault {
                    Some(Fault::WrongHashAfter(after)) => Box::new(Skewed {
                        inner: session,
                        deliveries: 0,
                        after: *after,
                    }),
                    Some(Fault::EventsTwice) => misreport::wrap(name, true, session),
                    Some(Fault::MeasuredAgainstBase) => misreport::wrap(name, false, session),
                    _ => session,
                };
                sessions.next += 1;
                sessions.open.insert(sessions.next, session);
                json!({"ok": {"handle": sessions.next}})
            }
            Err(e) => bad(e),
        };
    }
    let Some(handle) = request.get("handle").and_then(Value::as_u64) else {
        return bad("a session op needs a `handle`".into());
    };
    if op == "close" {
        return match sessions.open.remove(&handle) {
            Some(_) => json!({"ok": {}}),
            None => bad(format!("no session {handle}")),
        };
    }
    let Some(session) = sessions.open.get_mut(&handle) else {
        return bad(format!("no session {handle}"));
    };
    let now_ms = request.get("now_ms").and_then(Value::as_u64).unwrap_or(0);
    match op {
        "advance" => {
            let tick = request.get("tick").and_then(Value::as_u64).unwrap_or(0);
            let ops = request
                .get("ops")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            match session.advance(tick, now_ms, &ops) {
                Ok(()) => json!({"ok": {}}),
                Err(e) => bad(e),
            }
        }
        "deliver" => {
            let frame = request.get("frame").and_then(Value::as_str).unwrap_or("");
            let hex = request.get("hex").and_then(Value::as_str).unwrap_or("");
            match frame_json::parse_hex(hex) {
                Err(e) => bad(e),
                Ok(bytes) => match session.deliver(now_ms, frame, &bytes) {
                    Ok(report) => json!({"ok": {"report": report}}),
                    Err(e) => bad(e),
                },
            }
        }
        "take" => {
            let sent: Vec<Value> = session
                .take()
                .into_iter()
                .map(|s| {
                    json!({
                        "frame": s.frame,
                        "hex": frame_json::hex_spaced(&s.bytes).replace(' ', ""),
                        "reliable": s.reliable,
                    })
                })
                .collect();
            json!({"ok": {"frames": sent}})
        }
        "state_hash" => match session.state_hash() {
            Some(hash) => json!({"ok": {"hash": hash}}),
            None => json!({"unimplemented": "this session half has no state hash"}),
        },
        other => json!({"unimplemented": format!("unknown op `{other}`")}),
    }
}

/// A session half whose state hash strays ([`Fault::WrongHashAfter`]).
struct Skewed {
    inner: Box<dyn Session>,
    deliveries: u64,
    after: u64,
}

impl Session for Skewed {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        self.inner.advance(tick, now_ms, ops)
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        self.deliveries += 1;
        self.inner.deliver(now_ms, frame, bytes)
    }

    fn take(&mut self) -> Vec<crate::sessions::Sent> {
        self.inner.take()
    }

    fn state_hash(&mut self) -> Option<u32> {
        let h = self.inner.state_hash()?;
        Some(if self.deliveries >= self.after {
            h ^ 1
        } else {
            h
        })
    }
}

fn error_reply(e: FrameError) -> Value {
    match e {
        FrameError::Decode(e) => json!({"error": {
            "kind": e.kind.as_str(),
            "offset": e.offset,
            "path": e.path_string(),
        }}),
        FrameError::Encode(e) => json!({"error": {
            "kind": e.kind.as_str(),
            "path": e.path.to_string(),
        }}),
        FrameError::UnknownFrame { name, .. } => {
            json!({"unimplemented": format!("unknown frame `{name}`")})
        }
        FrameError::Json { message, .. } | FrameError::InvalidSpec { reason: message } => {
            json!({"error": {"kind": "bad_request", "message": message}})
        }
    }
}

/// Changes the first integer found in `value` (a number, or a 64-bit one written as a decimal
/// string), depth first, by one.
fn nudge(value: &mut Value) -> bool {
    match value {
        Value::String(s) => match s.parse::<u64>() {
            Ok(v) => {
                *s = (v ^ 1).to_string();
                true
            }
            Err(_) => false,
        },
        Value::Number(n) => match n.as_u64() {
            Some(v) => {
                *n = serde_json::Number::from(v ^ 1);
                true
            }
            None => false,
        },
        Value::Object(o) => o.values_mut().any(nudge),
        Value::Array(a) => a.iter_mut().any(nudge),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_codec::protocol::FRAME_NAMES;

    fn talk(requests: &[Value], fault: Option<&Fault>) -> Vec<Value> {
        let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out, fault);
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn hello_lists_every_frame() {
        let r = talk(&[json!({"id": 0, "op": "hello", "protocol": 1})], None);
        assert_eq!(r[0]["id"], 0);
        assert_eq!(
            r[0]["ok"]["frames"].as_array().unwrap().len(),
            FRAME_NAMES.len() + 1
        );
        assert_eq!(r[0]["ok"]["frames"][FRAME_NAMES.len()], "acked_coded");
    }

    #[test]
    fn decode_and_encode_answer_values_bytes_and_errors() {
        let hex = "0a05ff000000000000002a00000000000000";
        let r = talk(
            &[
                json!({"id": 1, "op": "decode", "frame": "delta_ack", "hex": hex}),
                json!({"id": 2, "op": "decode", "frame": "delta_ack", "hex": "0a05"}),
                json!({"id": 3, "op": "encode", "frame": "delta_ack", "value": {"newest": 5, "mask": 255, "digest": 42}}),
                json!({"id": 4, "op": "open", "session": "acked_client"}),
                json!({"id": 5, "op": "bye"}),
                json!({"id": 6, "op": "hello"}),
            ],
            None,
        );
        assert_eq!(r[0]["ok"]["value"]["digest"], 42);
        assert_eq!(r[1]["error"]["kind"], "truncated");
        assert_eq!(r[1]["error"]["path"], "mask");
        assert_eq!(r[2]["ok"]["hex"], hex);
        assert!(r[3]["unimplemented"].is_string() || r[3]["ok"]["handle"].is_u64());
        assert_eq!(r.len(), 5, "nothing is answered after bye");
    }

    /// TESTEE-9: every session half opens by its name, each open a new handle, and closes by
    /// it; a name no session has is not implemented.
    #[test]
    fn every_half_opens_by_its_name() {
        let names = [
            "acked_server",
            "acked_client",
            "acked_packed_server",
            "acked_packed_client",
            "datagram_server",
            "datagram_client",
            "baseline_server",
            "baseline_client",
            "delta_server",
            "delta_client",
        ];
        let mut requests = Vec::new();
        for (i, name) in names.iter().enumerate() {
            requests.push(json!({"id": 2 * i, "op": "open", "session": name, "params": {}}));
            requests.push(json!({"id": 2 * i + 1, "op": "close", "handle": i + 1}));
        }
        requests.push(json!({"id": 99, "op": "open", "session": "acked_middle"}));
        let r = talk(&requests, None);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(r[2 * i]["ok"]["handle"], i + 1, "{name}: {}", r[2 * i]);
            assert!(r[2 * i + 1]["ok"].is_object(), "{name}: {}", r[2 * i + 1]);
        }
        assert!(r[names.len() * 2]["unimplemented"].is_string());
    }

    #[test]
    fn faults_misbehave_as_named() {
        let hex = "0a05ff000000000000002a00000000000000";
        let req = json!({"id": 1, "op": "decode", "frame": "delta_ack", "hex": hex});
        let wrong = talk(std::slice::from_ref(&req), Some(&Fault::WrongValue));
        let honest = talk(std::slice::from_ref(&req), None);
        assert_ne!(wrong[0]["ok"]["value"], honest[0]["ok"]["value"]);
        let crash: Fault = format!("crash-on-hex={hex}").parse().unwrap();
        assert!(talk(std::slice::from_ref(&req), Some(&crash)).is_empty());
        let only: Fault = "only-frames=acked".parse().unwrap();
        let r = talk(&[json!({"id": 0, "op": "hello"}), req], Some(&only));
        assert_eq!(r[0]["ok"]["frames"], json!(["acked"]));
        assert!(r[1]["unimplemented"].is_string());
        assert!("nonsense".parse::<Fault>().is_err());
    }

    #[test]
    fn session_faults_stray_after_n_deliveries_or_list_no_sessions() {
        let none = talk(&[json!({"id": 0, "op": "hello"})], Some(&Fault::NoSessions));
        assert_eq!(none[0]["ok"]["sessions"], json!([]));
        let fault: Fault = "wrong-hash-after=1".parse().unwrap();
        let frame = json!({"id": 3, "op": "deliver", "handle": 1, "frame": "acked", "hex": "00"});
        let requests = [
            json!({"id": 1, "op": "open", "session": "acked_client"}),
            json!({"id": 2, "op": "state_hash", "handle": 1}),
            frame,
            json!({"id": 4, "op": "state_hash", "handle": 1}),
        ];
        let honest = talk(&requests, None);
        let skewed = talk(&requests, Some(&fault));
        assert_eq!(honest[1]["ok"]["hash"], skewed[1]["ok"]["hash"]);
        assert_ne!(honest[3]["ok"]["hash"], skewed[3]["ok"]["hash"]);
        assert!("wrong-hash-after=x".parse::<Fault>().is_err());
        assert_eq!("events-twice".parse(), Ok(Fault::EventsTwice));
        assert_eq!(
            "measured-against-base".parse(),
            Ok(Fault::MeasuredAgainstBase)
        );
    }
}
