//! The game's stream vectors (`vectors/streams/`, written by `ackwire vectors --spec wire --out
//! vectors` over the state's binding interpreted at run time) replayed through the binding
//! `build.rs` generated from the same layout: both halves, in both profiles, send the same
//! bytes, tell the same reports and show the same state hashes. The command's bytes are the
//! compiled game's.

use ackwire_codec::acked::{
    AckWriter, AckedDecoder, AckedEncoder, AckedSchema, Delivery, Entry, ServerState,
};
use ackwire_conformance::sessions::stream::replay;
use ackwire_conformance::sessions::{Sent, Session};
use ackwire_conformance::streams::{read_streams, Side, StreamVector};
use ackwire_example_game::{Arena, ArenaEvent, Command, Entity, PackedArena};
use ackwire_server::acked::ScheduledInputs;
use ackwire_server::input_schedule::InputWindow;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The server half over the compiled schema `S`: the world as the vector's ops say.
struct Server<S: AckedSchema> {
    world: BTreeMap<u16, Entry<Entity>>,
    lives: BTreeMap<u16, u32>,
    enc: AckedEncoder<S, ScheduledInputs<Command>>,
    out: Vec<Sent>,
    tick: u64,
}

fn record(op: &Value) -> Entity {
    serde_json::from_value(op["record"].clone()).expect("a record of the game")
}

fn eid(op: &Value) -> u16 {
    op["eid"].as_u64().expect("an eid") as u16
}

impl<S: AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command>> Session for Server<S> {
    fn advance(&mut self, tick: u64, _: u64, ops: &[Value]) -> Result<(), String> {
        self.tick = tick;
        let mut events = Vec::new();
        for op in ops {
            if let Some(b) = op.get("spawn") {
                let life = self.lives.entry(eid(b)).or_insert(0);
                *life += 1;
                self.world.insert(
                    eid(b),
                    Entry {
                        life: *life,
                        record: record(b),
                    },
                );
            } else if let Some(b) = op.get("set") {
                self.world.get_mut(&eid(b)).expect("held").record = record(b);
            } else if let Some(b) = op.get("despawn") {
                self.world.remove(&eid(b));
            } else {
                events
                    .push(serde_json::from_value(op["event"].clone()).map_err(|e| e.to_string())?);
            }
        }
        while self.enc.inputs_mut().execute_due(tick).is_some() {}
        let state: ServerState<Entity> = self.world.iter().map(|(e, r)| (*e, r.clone())).collect();
        let sent = self
            .enc
            .encode(tick as u32, state, events)
            .map_err(|e| e.to_string())?;
        self.out.push(Sent {
            frame: S::FRAME_NAME.into(),
            bytes: sent.bytes,
            reliable: sent.reliable,
        });
        Ok(())
    }

    fn deliver(&mut self, _: u64, _: &str, bytes: &[u8]) -> Result<Value, String> {
        Ok(match self.enc.receive(self.tick, bytes) {
            Ok(verdict) => json!({
                "ack": verdict.as_str(),
                "base": self.enc.acked(),
                "last_seq": self.enc.last_seq(),
                "keyframes": self.enc.counters().keyframes,
                "events_expired": self.enc.counters().events_expired,
            }),
            Err(e) => json!({"error": e.kind.as_str()}),
        })
    }

    fn take(&mut self) -> Vec<Sent> {
        std::mem::take(&mut self.out)
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

/// The client half over the compiled schema `S`.
struct Client<S: AckedSchema> {
    dec: AckedDecoder<S>,
    writer: AckWriter<Command>,
    out: Vec<Sent>,
}

impl<S: AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command>> Session for Client<S> {
    fn advance(&mut self, _: u64, _: u64, ops: &[Value]) -> Result<(), String> {
        self.writer.confirm(self.dec.last_seq());
        for op in ops {
            self.writer
                .push(serde_json::from_value(op["input"].clone()).map_err(|e| e.to_string())?);
        }
        let ack = self
            .writer
            .content(self.dec.ack_tick(), self.dec.keyframe_wanted());
        let mut bytes = Vec::new();
        S::encode_ack(&ack, &mut bytes).map_err(|e| e.to_string())?;
        self.out.push(Sent {
            frame: S::ACK_NAME.into(),
            bytes,
            reliable: false,
        });
        Ok(())
    }

    fn deliver(&mut self, _: u64, _: &str, bytes: &[u8]) -> Result<Value, String> {
        Ok(match self.dec.deliver(bytes) {
            Delivery::Shown(r) => {
                let list = |v: Vec<String>| v.join(" ");
                json!({"shown": {
                    "tick": r.tick,
                    "base_tick": r.base_tick,
                    "keyframe": r.keyframe,
                    "changed": list(r.changed.iter().map(u16::to_string).collect()),
                    "measured": list(r.measured.iter().map(|(e, t)| format!("{e}@{t}")).collect()),
                    "gone": list(r.gone.iter().map(u16::to_string).collect()),
                    "tiers": list(r.tiers.iter().map(|(e, f)| format!("{e}:{}", if *f { "full" } else { "quantized" })).collect()),
                    "events": r.events.iter().map(|(s, e)| json!({"serial": s, "event": e})).collect::<Vec<_>>(),
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

    fn take(&mut self) -> Vec<Sent> {
        std::mem::take(&mut self.out)
    }

    fn state_hash(&mut self) -> Option<u32> {
        Some(self.dec.state_hash())
    }
}

fn replay_with<S: AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command>>(
    v: &StreamVector,
) {
    let keep = v.params["keep_inputs"].as_u64().unwrap_or(16) as usize;
    let mut server = Server::<S> {
        world: BTreeMap::new(),
        lives: BTreeMap::new(),
        enc: AckedEncoder::new(InputWindow::new(4, 64)),
        out: Vec::new(),
        tick: 0,
    };
    replay(v, Side::Server, &mut server).unwrap_or_else(|e| panic!("{} server: {e}", v.name));
    let mut client = Client::<S> {
        dec: AckedDecoder::new(),
        writer: AckWriter::new(keep),
        out: Vec::new(),
    };
    replay(v, Side::Client, &mut client).unwrap_or_else(|e| panic!("{} client: {e}", v.name));
}

#[test]
fn the_command_s_stream_vectors_are_the_compiled_binding_s() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/streams");
    let all = read_streams(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (mut kind6, mut kind12) = (0, 0);
    for v in &all {
        match v.session.as_str() {
            "arena_update" => {
                replay_with::<Arena>(v);
                kind6 += 1;
            }
            "arena_packed" => {
                replay_with::<PackedArena>(v);
                kind12 += 1;
            }
            other => panic!("{}: a session of no game frame, {other}", v.name),
        }
        // Every check a frame carried passed, and frames were shown.
        let shown = v
            .steps
            .iter()
            .filter_map(|s| s.expect.report.as_ref())
            .filter(|r| r.get("shown").is_some())
            .count();
        assert!(shown > 20, "{}: {shown} frames shown", v.name);
        assert!(v.steps.iter().all(|s| s
            .expect
            .report
            .as_ref()
            .is_none_or(|r| r.pointer("/shown/check") != Some(&json!(false)))));
    }
    assert!(
        kind6 >= 3 && kind12 >= 3,
        "{kind6} kind 6, {kind12} kind 12"
    );
}
