//! The acked session halves of a spec's own `state`, over its generated binding (any
//! [`AckedSchema`] whose record, events and inputs have serde forms), as the testee protocol
//! drives them (`conformance/PROTOCOL.md`, "Session operations"): what the crate
//! `ackwire gen --lang rust --testee` writes serves beside its frames ([`StateSessions`], an
//! [`ackwire_rt::testee::Sessions`]), and what `examples/game/tests/stream_vectors.rs` replays
//! the game's stream vectors through ([`StateServer`], [`StateClient`]).
//!
//! The ports are `typescript/src/state_testee.ts`, `cpp/include/ackwire_state_testee.hpp` and
//! `csharp/src/StateTestee.cs`; `ackwire_conformance`'s `sessions::state` records the vectors
//! with these same halves over its run-time binding (a [`ServedSchema`] of its own). All answer
//! alike. One session pair per frame
//! a state is sent in, named after the frame: `<frame>_server` is an [`AckedEncoder`] over the
//! input schedule ([`ScheduledInputs`]) fed by a world every client sees whole, `<frame>_client`
//! the [`AckedDecoder`] with its [`AckWriter`] (parameter `keep_inputs`, default 16). World ops:
//! `{"spawn": {"eid", "record"}}` (a new life when the id was used before), `{"set": {"eid",
//! "record"}}`, `{"despawn": {"eid"}}`, `{"event": EVENT}`, a record and an event in their serde
//! forms; a client's ops are the player's `{"input": INPUT}`. Reports are the reference pair's.
//! Bad requests are answered as errors with why, never a panic.

use crate::acked::ScheduledInputs;
use crate::input_schedule::InputWindow;
use ackwire_codec::acked::{
    AckVerdict, AckWriter, AckedDecoder, AckedEncoder, AckedSchema, Delivery, Entry, InputSink,
    ServerState,
};
use ackwire_codec::session::Transmit;
use ackwire_rt::testee::{bad_request, parse_hex, to_hex, Sessions};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Inputs the client repeats until `last_seq` covers them, unless `keep_inputs` says otherwise.
pub const DEFAULT_KEEP_INPUTS: usize = 16;

/// The input window of the server half's schedule: 4 ticks late, 64 early (the ports' too).
const WINDOW: (u64, u64) = (4, 64);

/// A schema whose halves the testee serves: how its record, events and inputs are read from the
/// protocol's JSON. A generated binding reads their serde forms (any schema whose types have
/// them is one, below); a binding interpreted at run time (`ackwire_conformance`'s) reads them
/// through its layout, so both are served by the same halves.
pub trait ServedSchema: AckedSchema<Event: Serialize> + 'static {
    /// A record from its JSON form in a world op.
    fn record_from_json(&self, v: &Value) -> Result<Self::Record, String>;
    /// An event from its JSON form in a world op.
    fn event_from_json(&self, v: &Value) -> Result<Self::Event, String>;
    /// A player's input from its JSON form in a client op.
    fn input_from_json(&self, v: &Value) -> Result<Self::Input, String>;
}

impl<S> ServedSchema for S
where
    S: AckedSchema<
            Record: DeserializeOwned,
            Event: Serialize + DeserializeOwned,
            Input: DeserializeOwned,
        > + 'static,
{
    fn record_from_json(&self, v: &Value) -> Result<S::Record, String> {
        serde_form("record", v)
    }
    fn event_from_json(&self, v: &Value) -> Result<S::Event, String> {
        serde_form("event", v)
    }
    fn input_from_json(&self, v: &Value) -> Result<S::Input, String> {
        serde_form("input", v)
    }
}

fn serde_form<T: DeserializeOwned>(what: &str, v: &Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("not a valid {what}, {v}: {e}"))
}

/// One half of a session, driven by the protocol's ops. Time and ticks are arguments.
pub trait Half {
    /// Tick `tick` passes with `ops` (the world's for a server, the player's for a client).
    fn advance(&mut self, tick: u64, ops: &[Value]) -> Result<(), String>;
    /// The frame `frame` arrives; the half's report of it.
    fn deliver(&mut self, frame: &str, bytes: &[u8]) -> Result<Value, String>;
    /// What the half sends now, in order; a second call returns nothing new.
    fn take(&mut self) -> Vec<Transmit>;
    /// The check of the state the half shows (a client's), when it has one.
    fn state_hash(&mut self) -> Option<u32>;
}

/// Member `what` of an op, which it must have.
fn member<'v>(what: &str, v: Option<&'v Value>) -> Result<&'v Value, String> {
    v.ok_or_else(|| format!("the op has no `{what}`"))
}

fn eid(kind: &str, body: &Value) -> Result<u16, String> {
    body.get("eid")
        .and_then(Value::as_u64)
        .and_then(|e| u16::try_from(e).ok())
        .ok_or_else(|| format!("`{kind}` needs a u16 `eid`: {body}"))
}

/// The server half over `S`: the world as the ops say, every entity's life, and the encoder.
pub struct StateServer<S: AckedSchema> {
    world: BTreeMap<u16, Entry<S::Record>>,
    lives: BTreeMap<u16, u32>,
    enc: AckedEncoder<S, ScheduledInputs<S::Input>>,
    out: Vec<Transmit>,
    tick: u64,
}

impl<S: AckedSchema + Default> Default for StateServer<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: AckedSchema + Default> StateServer<S> {
    /// An empty world and a fresh encoder of the schema's default value.
    pub fn new() -> Self {
        Self::with_schema(S::default())
    }
}

impl<S: AckedSchema> StateServer<S> {
    /// An empty world and a fresh encoder of `schema`.
    pub fn with_schema(schema: S) -> Self {
        Self::with_window(schema, InputWindow::new(WINDOW.0, WINDOW.1))
    }

    /// An empty world and a fresh encoder of `schema`, whose input schedule takes `window`.
    pub fn with_window(schema: S, window: InputWindow) -> Self {
        StateServer {
            world: BTreeMap::new(),
            lives: BTreeMap::new(),
            enc: AckedEncoder::with_schema(schema, ScheduledInputs::new(window)),
            out: Vec::new(),
            tick: 0,
        }
    }

    /// The schema the encoder runs.
    pub fn schema(&self) -> &S {
        self.enc.schema()
    }

    /// Sends tick `tick`'s frame of `state` and `events` (what a world of the caller's own
    /// chose to show), after the inputs due are consumed; [`Half::advance`] sends the ops'
    /// world through it.
    pub fn send(
        &mut self,
        tick: u64,
        state: ServerState<S::Record>,
        events: Vec<S::Event>,
    ) -> Result<(), String> {
        let tick32 = u32::try_from(tick).map_err(|_| format!("tick {tick} is past u32"))?;
        self.tick = tick;
        // SRV-12: inputs execute on the tick they name; this world only consumes them.
        while self.enc.inputs_mut().execute_due(tick).is_some() {}
        let sent = self
            .enc
            .encode(tick32, state, events)
            .map_err(|e| format!("encoding tick {tick}: {e}"))?;
        self.out.push(Transmit {
            frame: self.enc.schema().frame_name(),
            bytes: sent.bytes,
            reliable: sent.reliable,
        });
        Ok(())
    }
}

impl<S: ServedSchema> Half for StateServer<S> {
    fn advance(&mut self, tick: u64, ops: &[Value]) -> Result<(), String> {
        let mut events = Vec::new();
        let schema = self.enc.schema();
        for op in ops {
            if let Some(b) = op.get("spawn") {
                let eid = eid("spawn", b)?;
                let record = schema.record_from_json(member("record", b.get("record"))?)?;
                let life = self.lives.entry(eid).or_insert(0);
                *life = life.saturating_add(1);
                let life = *life;
                self.world.insert(eid, Entry { life, record });
            } else if let Some(b) = op.get("set") {
                let eid = eid("set", b)?;
                let record = schema.record_from_json(member("record", b.get("record"))?)?;
                self.world
                    .get_mut(&eid)
                    .ok_or_else(|| format!("`set` of entity {eid}, which the world does not hold"))?
                    .record = record;
            } else if let Some(b) = op.get("despawn") {
                self.world.remove(&eid("despawn", b)?);
            } else if let Some(e) = op.get("event") {
                events.push(schema.event_from_json(e)?);
            } else {
                return Err(format!("unknown world op: {op}"));
            }
        }
        let state: ServerState<S::Record> =
            self.world.iter().map(|(e, r)| (*e, r.clone())).collect();
        self.send(tick, state, events)
    }

    fn deliver(&mut self, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let takes = self.enc.schema().ack_name();
        if frame != takes {
            return Err(format!("the server takes `{takes}` frames, not `{frame}`"));
        }
        Ok(match self.enc.receive(self.tick, bytes) {
            Ok(verdict) => ack_json(verdict, &self.enc),
            Err(e) => json!({"error": e.kind.as_str()}),
        })
    }

    fn take(&mut self) -> Vec<Transmit> {
        std::mem::take(&mut self.out)
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

/// The client half over `S`: the decoder, and the writer of its acks.
pub struct StateClient<S: AckedSchema> {
    dec: AckedDecoder<S>,
    writer: AckWriter<S::Input>,
    out: Vec<Transmit>,
}

impl<S: AckedSchema + Default> StateClient<S> {
    /// A fresh decoder of the schema's default value; the writer repeats `keep` inputs until
    /// `last_seq` covers them.
    pub fn new(keep: usize) -> Self {
        Self::with_schema(S::default(), keep)
    }
}

impl<S: AckedSchema> StateClient<S> {
    /// A fresh decoder of `schema`; the writer repeats `keep` inputs until `last_seq` covers
    /// them.
    pub fn with_schema(schema: S, keep: usize) -> Self {
        StateClient {
            dec: AckedDecoder::with_schema(schema),
            writer: AckWriter::new(keep),
            out: Vec::new(),
        }
    }

    /// The decoder, for a test that corrupts the state it holds.
    pub fn decoder_mut(&mut self) -> &mut AckedDecoder<S> {
        &mut self.dec
    }
}

impl<S: ServedSchema> Half for StateClient<S> {
    fn advance(&mut self, _tick: u64, ops: &[Value]) -> Result<(), String> {
        self.writer.confirm(self.dec.last_seq());
        for op in ops {
            let input = op
                .get("input")
                .ok_or_else(|| format!("a client op is `{{\"input\": ...}}`: {op}"))?;
            self.writer.push(self.dec.schema().input_from_json(input)?);
        }
        let ack = self
            .writer
            .content(self.dec.ack_tick(), self.dec.keyframe_wanted());
        let mut bytes = Vec::new();
        let schema = self.dec.schema();
        schema
            .encode_ack(&ack, &mut bytes)
            .map_err(|e| e.to_string())?;
        self.out.push(Transmit {
            frame: schema.ack_name(),
            bytes,
            reliable: false,
        });
        Ok(())
    }

    fn deliver(&mut self, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let takes = self.dec.schema().frame_name();
        if frame != takes {
            return Err(format!("the client takes `{takes}` frames, not `{frame}`"));
        }
        delivery_json(self.dec.deliver(bytes))
    }

    fn take(&mut self) -> Vec<Transmit> {
        std::mem::take(&mut self.out)
    }

    fn state_hash(&mut self) -> Option<u32> {
        // CHECK-7: the check of the state shown.
        Some(self.dec.state_hash())
    }
}

/// Opens a half with the `open` request's params.
type Opener = fn(&Value) -> Box<dyn Half>;

/// A client half's delivery as the testee protocol reports it (conformance/PROTOCOL.md): the
/// state shown with its report (its events in their serde form), or why the frame was dropped,
/// or the decode error's kind. Every Rust client half the suite drives reports through it.
pub fn delivery_json<E: Serialize>(delivery: Delivery<'_, E>) -> Result<Value, String> {
    Ok(match delivery {
        Delivery::Shown(r) => {
            let list = |v: Vec<String>| v.join(" ");
            let mut events = Vec::with_capacity(r.events.len());
            for (serial, e) in &r.events {
                let event = serde_json::to_value(e).map_err(|e| e.to_string())?;
                events.push(json!({"serial": serial, "event": event}));
            }
            let tier = |(e, full): &(u16, bool)| {
                format!("{e}:{}", if *full { "full" } else { "quantized" })
            };
            json!({"shown": {
                "tick": r.tick,
                "base_tick": r.base_tick,
                "keyframe": r.keyframe,
                "changed": list(r.changed.iter().map(u16::to_string).collect()),
                "measured": list(r.measured.iter().map(|(e, t)| format!("{e}@{t}")).collect()),
                "gone": list(r.gone.iter().map(u16::to_string).collect()),
                "tiers": list(r.tiers.iter().map(tier).collect()),
                "events": events,
                "check": r.check,
            }})
        }
        Delivery::Stale { tick } => json!({"dropped": "stale", "tick": tick}),
        Delivery::UnknownBase { tick, base_tick } => {
            json!({"dropped": "unknown_base", "tick": tick, "base_tick": base_tick})
        }
        Delivery::Undecodable(e) => json!({"error": e.kind.as_str()}),
        Delivery::Inapplicable { tick, why } => {
            json!({"dropped": "inapplicable", "tick": tick, "why": why})
        }
    })
}

/// A server half's report of an `ack` it took, as the testee protocol reports it
/// (conformance/PROTOCOL.md): the encoder's `verdict` on it, then the base, the newest input
/// sequence and the counters of `enc` after it. Every Rust server half the suite drives reports
/// through it.
pub fn ack_json<S: AckedSchema, Q: InputSink>(
    verdict: AckVerdict,
    enc: &AckedEncoder<S, Q>,
) -> Value {
    json!({
        "ack": verdict.as_str(),
        "base": enc.acked(),
        "last_seq": enc.last_seq(),
        "keyframes": enc.counters().keyframes,
        "events_expired": enc.counters().events_expired,
    })
}

fn open_server<S: ServedSchema + Default>(_: &Value) -> Box<dyn Half> {
    Box::new(StateServer::<S>::new())
}

fn open_client<S: ServedSchema + Default>(params: &Value) -> Box<dyn Half> {
    let keep = params
        .get("keep_inputs")
        .and_then(Value::as_u64)
        .and_then(|k| usize::try_from(k).ok())
        .unwrap_or(DEFAULT_KEEP_INPUTS);
    Box::new(StateClient::<S>::new(keep))
}

/// The session halves of a spec's states, for [`ackwire_rt::testee::serve_with`]: each frame's
/// `_server` and `_client`, added by schema, and the halves open, by handle.
#[derive(Default)]
pub struct StateSessions {
    openers: Vec<(String, Opener)>,
    open: BTreeMap<u64, Box<dyn Half>>,
    next: u64,
}

impl StateSessions {
    /// No session yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves the pair of the frame `S` is sent in: `<frame>_server` and `<frame>_client`,
    /// each half over the schema's default value (a generated binding's only one).
    pub fn add<S: ServedSchema + Default>(&mut self) -> &mut Self {
        let frame = S::default().frame_name();
        self.openers
            .push((format!("{frame}_server"), open_server::<S>));
        self.openers
            .push((format!("{frame}_client"), open_client::<S>));
        self
    }
}

impl Sessions for StateSessions {
    fn names(&self) -> Vec<String> {
        self.openers.iter().map(|(n, _)| n.clone()).collect()
    }

    fn answer(&mut self, op: &str, request: &Value) -> Value {
        if op == "open" {
            let name = request.get("session").and_then(Value::as_str).unwrap_or("");
            let Some((_, opener)) = self.openers.iter().find(|(n, _)| n == name) else {
                return json!({"unimplemented": format!("session `{name}` is not implemented")});
            };
            let half = opener(request.get("params").unwrap_or(&Value::Null));
            self.next += 1;
            self.open.insert(self.next, half);
            return json!({"ok": {"handle": self.next}});
        }
        let Some(handle) = request.get("handle").and_then(Value::as_u64) else {
            return bad_request("a session op needs a `handle`".into());
        };
        if op == "close" {
            return match self.open.remove(&handle) {
                Some(_) => json!({"ok": {}}),
                None => bad_request(format!("no session {handle}")),
            };
        }
        let Some(half) = self.open.get_mut(&handle) else {
            return bad_request(format!("no session {handle}"));
        };
        let text = |key: &str| request.get(key).and_then(Value::as_str).unwrap_or("");
        let answered = match op {
            "advance" => {
                let tick = request.get("tick").and_then(Value::as_u64).unwrap_or(0);
                let ops = request
                    .get("ops")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                half.advance(tick, ops).map(|()| json!({}))
            }
            "deliver" => parse_hex(text("hex"))
                .and_then(|bytes| half.deliver(text("frame"), &bytes))
                .map(|report| json!({ "report": report })),
            "take" => Ok(json!({"frames": half
                .take()
                .into_iter()
                .map(|t| json!({"frame": t.frame, "hex": to_hex(&t.bytes), "reliable": t.reliable}))
                .collect::<Vec<_>>()})),
            "state_hash" => match half.state_hash() {
                Some(hash) => Ok(json!({ "hash": hash })),
                None => return json!({"unimplemented": "this session half has no state hash"}),
            },
            other => return json!({"unimplemented": format!("unknown op `{other}`")}),
        };
        match answered {
            Ok(ok) => json!({ "ok": ok }),
            Err(why) => bad_request(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_codec::acked::Reference;

    fn sessions() -> StateSessions {
        let mut s = StateSessions::new();
        s.add::<Reference>();
        s
    }

    fn ask(s: &mut StateSessions, op: &str, request: Value) -> Value {
        s.answer(op, &request)
    }

    /// A frame the server half sends reaches the client half, which shows it, hashes what it
    /// shows and acks it; the server takes the ack.
    #[test]
    fn a_frame_goes_from_the_server_half_to_the_client_half_and_back() {
        let mut s = sessions();
        let names = s.names();
        assert_eq!(
            names,
            [
                format!("{}_server", Reference.frame_name()),
                format!("{}_client", Reference.frame_name())
            ]
        );
        let server = ask(&mut s, "open", json!({"session": names[0]}));
        let client = ask(
            &mut s,
            "open",
            json!({"session": names[1], "params": {"keep_inputs": 4}}),
        );
        let (server, client) = (&server["ok"]["handle"], &client["ok"]["handle"]);
        assert_eq!((server, client), (&json!(1), &json!(2)));
        let before = ask(&mut s, "state_hash", json!({"handle": client}));
        assert!(before["ok"]["hash"].is_u64(), "{before}");
        let r = ask(
            &mut s,
            "advance",
            json!({"handle": server, "tick": 1, "ops": []}),
        );
        assert_eq!(r, json!({"ok": {}}));
        let sent = ask(&mut s, "take", json!({"handle": server}));
        let frames = sent["ok"]["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), 1, "{sent}");
        assert_eq!(frames[0]["frame"], Reference.frame_name());
        let again = ask(&mut s, "take", json!({"handle": server}));
        assert_eq!(again, json!({"ok": {"frames": []}}));
        let shown = ask(
            &mut s,
            "deliver",
            json!({"handle": client, "frame": frames[0]["frame"], "hex": frames[0]["hex"]}),
        );
        let report = &shown["ok"]["report"]["shown"];
        assert_eq!(report["tick"], 1, "{shown}");
        assert_eq!(report["keyframe"], true, "{shown}");
        assert_eq!(report["changed"], "", "{shown}");
        let r = ask(
            &mut s,
            "advance",
            json!({"handle": client, "tick": 1, "ops": []}),
        );
        assert_eq!(r, json!({"ok": {}}));
        let ack = ask(&mut s, "take", json!({"handle": client}));
        let ack = &ack["ok"]["frames"][0];
        assert_eq!(ack["frame"], Reference.ack_name());
        let taken = ask(
            &mut s,
            "deliver",
            json!({"handle": server, "frame": ack["frame"], "hex": ack["hex"]}),
        );
        assert_eq!(taken["ok"]["report"]["base"], 1, "{taken}");
        let none = ask(&mut s, "state_hash", json!({"handle": server}));
        assert!(none["unimplemented"].is_string(), "{none}");
        assert_eq!(
            ask(&mut s, "close", json!({"handle": server})),
            json!({"ok": {}})
        );
    }

    /// What the halves cannot act on is answered with why, never a panic.
    #[test]
    fn bad_requests_are_answered_with_why() {
        let mut s = sessions();
        let unknown = ask(&mut s, "open", json!({"session": "acked_middle"}));
        assert!(unknown["unimplemented"].is_string(), "{unknown}");
        let client = format!("{}_client", Reference.frame_name());
        ask(
            &mut s,
            "open",
            json!({"session": format!("{}_server", Reference.frame_name())}),
        );
        ask(&mut s, "open", json!({"session": client}));
        let kind = |v: &Value| v["error"]["kind"].clone();
        for (op, request, why) in [
            ("advance", json!({"tick": 1}), "handle"),
            ("take", json!({"handle": 9}), "no session 9"),
            (
                "advance",
                json!({"handle": 1, "tick": 1, "ops": [{"spawn": {"eid": 1, "record": 5}}]}),
                "record",
            ),
            (
                "advance",
                json!({"handle": 1, "tick": 1, "ops": [{"spawn": {"eid": 70000}}]}),
                "eid",
            ),
            (
                "advance",
                json!({"handle": 1, "tick": 1, "ops": [{"set": {"eid": 3, "record": {}}}]}),
                "record",
            ),
            (
                "advance",
                json!({"handle": 1, "tick": 1, "ops": [{"grow": {}}]}),
                "unknown world op",
            ),
            (
                "advance",
                json!({"handle": 1, "tick": 1u64 << 40, "ops": []}),
                "past u32",
            ),
            (
                "deliver",
                json!({"handle": 1, "frame": "nonsense", "hex": ""}),
                "takes",
            ),
            (
                "deliver",
                json!({"handle": 2, "frame": Reference.frame_name(), "hex": "0"}),
                "odd",
            ),
            (
                "advance",
                json!({"handle": 2, "tick": 1, "ops": [{"jump": true}]}),
                "input",
            ),
        ] {
            let r = ask(&mut s, op, request);
            assert_eq!(kind(&r), "bad_request", "{r}");
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(why), "{op}: {message}");
        }
        let undecodable = ask(
            &mut s,
            "deliver",
            json!({"handle": 2, "frame": Reference.frame_name(), "hex": "ff"}),
        );
        assert!(
            undecodable["ok"]["report"]["error"].is_string(),
            "{undecodable}"
        );
    }
}
