//! The testee protocol (`conformance/PROTOCOL.md`) served for any generated codec, so that a
//! spec's Rust codec is checked by `ackwire conform` through the same door as every other
//! implementation. `ackwire gen --lang rust --testee` writes a small crate whose `main` names its
//! codec's frames ([`Frames`]) and calls [`serve`]; the logic is here, once, for every spec.
//!
//! One JSON request a line in, one reply a line out, flushed after each: `hello` lists the
//! spec's frames and the session halves of its [`Sessions`] (none with [`serve`]; a spec with a
//! `state` serves its acked halves through [`serve_with`], `ackwire_server::testee`), `decode`
//! answers the frame's JSON form or the error's
//! kind, byte offset (and bit) and field path, `encode` the bytes or the refusal's kind and
//! path, `bye` answers and stops. The codec is also held to its own promises on every request,
//! as WIRE-21 states them: bytes it decodes encode back to exactly those bytes, and
//! `encoded_len` is what `encode` writes. A broken promise panics, which the runner records as a
//! crash of that case.

use crate::{DecodeError, EncodeError, Frame, FrameVisitor};
use serde_json::{json, Value};
use std::io::{BufRead, Write};

/// The protocol version spoken.
pub const PROTOCOL_VERSION: u64 = 1;

/// A generated codec's frames, chosen by name: what the generated `FRAME_NAMES` and
/// `visit_frame` give.
pub trait Frames {
    /// Every frame's name, in declaration order.
    const NAMES: &'static [&'static str];
    /// Calls `visitor` with the frame type named `name`; `None` when no frame has that name.
    fn visit<V: FrameVisitor>(name: &str, visitor: V) -> Option<V::Output>;
}

/// The session operations of the protocol (`conformance/PROTOCOL.md`, "Session operations"),
/// which a testee hands to its [`Sessions`].
pub const SESSION_OPS: [&str; 6] = ["open", "advance", "deliver", "take", "state_hash", "close"];

/// The session halves a testee implements beside its frames, opened by name.
pub trait Sessions {
    /// The halves `hello` lists.
    fn names(&self) -> Vec<String>;
    /// The reply's members (`ok`, `error` or `unimplemented`) to the session op `op` (one of
    /// [`SESSION_OPS`]) of `request`.
    fn answer(&mut self, op: &str, request: &Value) -> Value;
}

/// A testee with no session half: every session op is unimplemented.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSessions;

impl Sessions for NoSessions {
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
    fn answer(&mut self, op: &str, _: &Value) -> Value {
        json!({"unimplemented": format!("`{op}` is not implemented")})
    }
}

/// Serves requests from `input` until it closes or a `bye`, with the codec `S`, writing each
/// reply to `output` as one line; `name` is what `hello` calls this testee. Returns the
/// process's exit code: 0, or 1 when the input cannot be read or the output written.
pub fn serve<S: Frames>(name: &str, input: impl BufRead, output: impl Write) -> u8 {
    serve_with::<S>(name, &mut NoSessions, input, output)
}

/// [`serve`], with the session halves of `sessions` beside the frames.
pub fn serve_with<S: Frames>(
    name: &str,
    sessions: &mut dyn Sessions,
    input: impl BufRead,
    mut output: impl Write,
) -> u8 {
    for line in input.lines() {
        let Ok(line) = line else { return 1 };
        if line.trim().is_empty() {
            continue;
        }
        let (reply, bye) = answer_with::<S>(name, sessions, &line);
        if writeln!(output, "{reply}")
            .and_then(|()| output.flush())
            .is_err()
        {
            return 1;
        }
        if bye {
            return 0;
        }
    }
    0
}

/// The reply line to one request line, and whether the testee stops after it.
pub fn answer<S: Frames>(name: &str, line: &str) -> (Value, bool) {
    answer_with::<S>(name, &mut NoSessions, line)
}

/// [`answer`], with the session halves of `sessions` beside the frames.
pub fn answer_with<S: Frames>(
    name: &str,
    sessions: &mut dyn Sessions,
    line: &str,
) -> (Value, bool) {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return (with_id(Value::Null, bad_request(e.to_string())), false),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let text = |key: &str| request.get(key).and_then(Value::as_str).unwrap_or("");
    let (op, frame) = (text("op"), text("frame"));
    let body = match op {
        "hello" => json!({"ok": {
            "name": name,
            "version": env!("CARGO_PKG_VERSION"),
            "protocol": PROTOCOL_VERSION,
            "frames": S::NAMES,
            "sessions": sessions.names(),
        }}),
        "bye" => return (with_id(id, json!({"ok": {}})), true),
        "decode" | "encode" if !S::NAMES.contains(&frame) => {
            json!({"unimplemented": format!("frame `{frame}` is not implemented")})
        }
        "decode" => match parse_hex(text("hex")) {
            Ok(bytes) => S::visit(frame, Decode(&bytes)).unwrap_or(Value::Null),
            Err(why) => bad_request(why),
        },
        "encode" => {
            let value = request.get("value").cloned().unwrap_or(Value::Null);
            S::visit(frame, Encode(value)).unwrap_or(Value::Null)
        }
        op if SESSION_OPS.contains(&op) => sessions.answer(op, &request),
        other => json!({"unimplemented": format!("`{other}` is not implemented")}),
    };
    (with_id(id, body), false)
}

fn with_id(id: Value, body: Value) -> Value {
    let mut reply = json!({ "id": id });
    if let (Some(r), Value::Object(b)) = (reply.as_object_mut(), body) {
        r.extend(b);
    }
    reply
}

/// The reply's members for a request the testee cannot act on, with why.
pub fn bad_request(message: String) -> Value {
    json!({"error": {"kind": "bad_request", "message": message}})
}

/// Bytes from hex, upper or lower case, spaces allowed, as the protocol writes them; why not.
pub fn parse_hex(hex: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err("`hex` has an odd number of digits".into());
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| "`hex` is not a hex string".to_string())
        })
        .collect()
}

/// Bytes as lower-case hex without spaces, as the protocol writes them.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn decode_error(e: &DecodeError) -> Value {
    let mut error = json!({"kind": e.kind.as_str(), "offset": e.offset, "path": e.path_string()});
    if let Some(bit) = e.bit {
        error["bit"] = json!(bit);
    }
    json!({ "error": error })
}

fn encode_error(e: &EncodeError) -> Value {
    json!({"error": {"kind": e.kind.as_str(), "path": e.path.to_string()}})
}

/// A frame's JSON form. Through text rather than `serde_json::to_value`, so that an `f32` keeps
/// its shortest form (`0.1`, not the widened `0.10000000149011612`).
fn json_form<F: Frame>(frame: &F) -> Result<Value, String> {
    serde_json::to_string(frame)
        .and_then(|text| serde_json::from_str(&text))
        .map_err(|e| e.to_string())
}

/// The codec's promises on a value it accepted: `encoded_len` is what `encode` writes, and a
/// value decoded from `decoded` encodes back to exactly those bytes. Panics when one is broken.
fn hold_to_promises<F: Frame>(frame: &F, decoded: Option<&[u8]>) -> Result<Vec<u8>, EncodeError> {
    let bytes = match frame.to_bytes() {
        Ok(bytes) => bytes,
        Err(e) if decoded.is_some() => {
            panic!(
                "{}: the codec refuses to encode what it decoded: {e}",
                F::NAME
            )
        }
        Err(e) => return Err(e),
    };
    assert_eq!(
        frame.encoded_len(),
        bytes.len(),
        "{}: encoded_len differs from what encode wrote",
        F::NAME
    );
    if let Some(original) = decoded {
        assert_eq!(
            to_hex(&bytes),
            to_hex(original),
            "{}: the codec decodes these bytes but encodes the value otherwise",
            F::NAME
        );
    }
    Ok(bytes)
}

struct Decode<'a>(&'a [u8]);

impl FrameVisitor for Decode<'_> {
    type Output = Value;
    fn visit<F: Frame>(self) -> Value {
        match F::decode(self.0) {
            Ok(frame) => {
                // A decoded value always encodes: the Err arm panics inside.
                let _ = hold_to_promises(&frame, Some(self.0));
                match json_form(&frame) {
                    Ok(value) => json!({"ok": { "value": value }}),
                    Err(why) => panic!("{}: a decoded value has no JSON form: {why}", F::NAME),
                }
            }
            Err(e) => decode_error(&e),
        }
    }
}

struct Encode(Value);

impl FrameVisitor for Encode {
    type Output = Value;
    fn visit<F: Frame>(self) -> Value {
        match serde_json::from_value::<F>(self.0) {
            Ok(frame) => match hold_to_promises(&frame, None) {
                Ok(bytes) => json!({"ok": {"hex": to_hex(&bytes)}}),
                Err(e) => encode_error(&e),
            },
            Err(e) => bad_request(format!("not a valid {} value: {e}", F::NAME)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, Reader, WriteExt as _};

    /// A frame of one byte, kind 9, then a u16 counter: enough to answer every request.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Counter {
        count: u16,
    }

    impl Frame for Counter {
        const NAME: &'static str = "counter";
        fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
            let mut r = Reader::new(bytes);
            if r.u8()? != 9 {
                return Err(DecodeError::new(ErrorKind::BadConstant, 0));
            }
            let count = r.u16()?;
            r.finish()?;
            Ok(Counter { count })
        }
        fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
            out.uint(1, false, 9)?;
            out.uint(2, false, self.count.into())
        }
        fn encoded_len(&self) -> usize {
            3
        }
    }

    struct Spec;

    impl Frames for Spec {
        const NAMES: &'static [&'static str] = &["counter"];
        fn visit<V: FrameVisitor>(name: &str, visitor: V) -> Option<V::Output> {
            (name == "counter").then(|| visitor.visit::<Counter>())
        }
    }

    fn ask(request: Value) -> (Value, bool) {
        answer::<Spec>("test", &request.to_string())
    }

    #[test]
    fn hello_lists_the_frames_and_no_session() {
        let (reply, bye) = ask(json!({"id": 0, "op": "hello", "protocol": 1}));
        assert!(!bye);
        assert_eq!(reply["id"], 0);
        assert_eq!(reply["ok"]["frames"], json!(["counter"]));
        assert_eq!(reply["ok"]["sessions"], json!([]));
        assert_eq!(reply["ok"]["name"], "test");
    }

    #[test]
    fn decode_and_encode_go_through_the_json_form() {
        let (reply, _) =
            ask(json!({"id": 1, "op": "decode", "frame": "counter", "hex": "09 2A00"}));
        assert_eq!(reply, json!({"id": 1, "ok": {"value": {"count": 42}}}));
        let (reply, _) =
            ask(json!({"id": 2, "op": "encode", "frame": "counter", "value": {"count": 42}}));
        assert_eq!(reply, json!({"id": 2, "ok": {"hex": "092a00"}}));
    }

    #[test]
    fn faults_are_replies_by_kind_offset_and_path() {
        let (reply, _) = ask(json!({"id": 3, "op": "decode", "frame": "counter", "hex": "0900"}));
        assert_eq!(reply["error"]["kind"], "truncated");
        assert_eq!(reply["error"]["offset"], 2);
        let (reply, _) = ask(json!({"id": 4, "op": "decode", "frame": "counter", "hex": "0x"}));
        assert_eq!(reply["error"]["kind"], "bad_request");
        let (reply, _) = ask(json!({"id": 5, "op": "encode", "frame": "counter", "value": {}}));
        assert_eq!(reply["error"]["kind"], "bad_request");
        let (reply, _) = ask(json!({"id": 6, "op": "decode", "frame": "other", "hex": ""}));
        assert!(reply["unimplemented"].is_string(), "{reply}");
        let (reply, _) = ask(json!({"id": 7, "op": "open", "session": "x"}));
        assert!(reply["unimplemented"].is_string(), "{reply}");
        let (reply, _) = answer::<Spec>("test", "{not json");
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(reply["error"]["kind"], "bad_request");
    }

    /// Session halves that answer every op with its name and count the ops.
    struct Echo(u64);

    impl Sessions for Echo {
        fn names(&self) -> Vec<String> {
            vec!["echo_server".into()]
        }
        fn answer(&mut self, op: &str, _: &Value) -> Value {
            self.0 += 1;
            json!({"ok": {"op": op, "count": self.0}})
        }
    }

    #[test]
    fn session_ops_go_to_the_sessions_and_hello_lists_them() {
        let mut echo = Echo(0);
        let (reply, _) = answer_with::<Spec>("test", &mut echo, r#"{"id":0,"op":"hello"}"#);
        assert_eq!(reply["ok"]["sessions"], json!(["echo_server"]));
        for (i, op) in SESSION_OPS.iter().enumerate() {
            let line = json!({"id": i, "op": op, "handle": 1}).to_string();
            let (reply, bye) = answer_with::<Spec>("test", &mut echo, &line);
            assert!(!bye);
            assert_eq!(reply, json!({"id": i, "ok": {"op": op, "count": i + 1}}));
        }
        let (reply, _) = answer_with::<Spec>("test", &mut echo, r#"{"id":9,"op":"rewind"}"#);
        assert!(reply["unimplemented"].is_string(), "{reply}");
        assert_eq!(echo.0, SESSION_OPS.len() as u64);
    }

    #[test]
    fn serve_answers_each_line_and_stops_at_bye() {
        let input = b"{\"id\":0,\"op\":\"hello\"}\n\n{\"id\":1,\"op\":\"bye\"}\n{\"id\":2,\"op\":\"hello\"}\n";
        let mut output = Vec::new();
        assert_eq!(serve::<Spec>("test", &input[..], &mut output), 0);
        let lines: Vec<&str> = std::str::from_utf8(&output).unwrap().lines().collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], r#"{"id":1,"ok":{}}"#);
    }
}
