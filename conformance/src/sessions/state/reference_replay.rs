//! The proof that the interpreted binding is the compiled one: the reference protocol's acked
//! stream vectors (`vectors/streams/acked`, `vectors/streams/acked_packed`,
//! `vectors/streams/acked_coded`), recorded by the generated `Reference`, `PackedReference` and
//! `CodedReference` bindings, replayed byte for byte, both halves, through the binding
//! interpreted from `spec/protocol/acked.wire`.
//!
//! Those vectors' world ops are the reference pair's (`super::super::acked`): the reference
//! [`Presenter`] turns them into each tick's S_N, and its scripted player makes each tick's
//! input. That policy is the game's, not the binding's, so it is kept here as it is and only
//! the binding changes: each S_N is handed to the interpreted server half record by record (its
//! lives kept), each input to the interpreted client half as its JSON form.

use super::binding::{Binding, Interp, InterpCoded, InterpPacked, Interpreted, Profile, Record};
use super::{index, record_from_json, sessions};
use crate::sessions::acked::{op_from_json, params, player_input, turn, Params};
use crate::sessions::stream::replay;
use crate::sessions::{Sent, Session};
use crate::streams::{read_streams, Side, StreamVector};
use ackwire_codec::acked::{Entry, ServerState};
use ackwire_server::acked::harness::apply_ops;
use ackwire_server::acked::{Presenter, World};
use ackwire_server::testee::{StateClient, StateServer};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

/// The reference pair's server half over the interpreted binding: the reference world and
/// presenter, the interpreted encoder.
struct ReferenceServer<S: Interpreted> {
    world: World,
    lives: BTreeMap<u16, u32>,
    presenter: Presenter,
    half: StateServer<S>,
}

impl<S: Interpreted> Session for ReferenceServer<S> {
    fn advance(&mut self, tick: u64, _now_ms: u64, ops: &[Json]) -> Result<(), String> {
        let parsed = ops
            .iter()
            .filter(|o| o.get("orient").is_none())
            .map(op_from_json)
            .collect::<Result<Vec<_>, _>>()?;
        let events = apply_ops(&mut self.world, &mut self.lives, &parsed);
        turn(&mut self.world, ops)?;
        let tick32 = u32::try_from(tick).map_err(|_| format!("tick {tick} past u32"))?;
        let b = self.half.schema().binding().clone();
        let state: ServerState<Record> = self
            .presenter
            .present(tick32, &self.world)
            .iter()
            .map(|(eid, e)| {
                let j = serde_json::to_value(e.record).map_err(|e| e.to_string())?;
                let record = record_from_json(&b, &j)?;
                Ok((
                    *eid,
                    Entry {
                        life: e.life,
                        record,
                    },
                ))
            })
            .collect::<Result<_, String>>()?;
        let events = events
            .iter()
            .map(|e| serde_json::to_value(e).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        self.half.send(tick, state, events)
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Json, String> {
        self.half.deliver(now_ms, frame, bytes)
    }

    fn take(&mut self) -> Vec<Sent> {
        self.half.take()
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

/// The reference pair's client half over the interpreted binding: the reference player, the
/// interpreted decoder and ack writer.
struct ReferenceClient<S: Interpreted> {
    half: StateClient<S>,
    lead: u32,
    corrupt_at: Option<u64>,
    /// Where the record keeps `hp`, which a corruption flips.
    hp: usize,
}

impl<S: Interpreted> Session for ReferenceClient<S> {
    fn advance(&mut self, tick: u64, now_ms: u64, _ops: &[Json]) -> Result<(), String> {
        if self.corrupt_at == Some(tick) {
            let hp = self.hp;
            self.half.decoder_mut().tamper(|_, r| r.values[hp] ^= 0x55);
        }
        let tick32 = u32::try_from(tick).map_err(|_| format!("tick {tick} past u32"))?;
        let input =
            serde_json::to_value(player_input(tick32, self.lead)).map_err(|e| e.to_string())?;
        self.half
            .advance(tick, now_ms, &[json!({ "input": input })])
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Json, String> {
        self.half.deliver(now_ms, frame, bytes)
    }

    fn take(&mut self) -> Vec<Sent> {
        self.half.take()
    }

    fn state_hash(&mut self) -> Option<u32> {
        self.half.state_hash()
    }
}

fn server<S: Interpreted>(schema: S, p: Params) -> Box<dyn Session> {
    Box::new(ReferenceServer::<S> {
        world: World::new(),
        lives: BTreeMap::new(),
        presenter: Presenter::new(p.view),
        half: StateServer::with_window(schema, p.window),
    })
}

fn client<S: Interpreted>(schema: S, p: Params, hp: usize) -> Box<dyn Session> {
    Box::new(ReferenceClient::<S> {
        half: StateClient::with_schema(schema, p.keep),
        lead: p.lead,
        corrupt_at: p.corrupt_at,
        hp,
    })
}

/// Replays both halves of a committed reference vector on the interpreted binding `b` of its
/// frame `profile`.
fn replay_both(b: &Rc<Binding>, profile: Profile, v: &StreamVector) -> Result<(), String> {
    let hp = (0..b.plan.groups.len())
        .find_map(|g| {
            let f = b.plan.groups[g]
                .fields
                .iter()
                .position(|f| f.name == "hp")?;
            Some(index(b, g, f))
        })
        .ok_or("the reference state has no `hp`")?;
    for side in [Side::Server, Side::Client] {
        let p = params(&v.params)?;
        let b = b.clone();
        let mut half = match (side, profile) {
            (Side::Server, Profile::Byte) => server(Interp(b), p),
            (Side::Server, Profile::Packed) => server(InterpPacked(b), p),
            (Side::Server, Profile::Coded) => server(InterpCoded(b), p),
            (Side::Client, Profile::Byte) => client(Interp(b), p, hp),
            (Side::Client, Profile::Packed) => client(InterpPacked(b), p, hp),
            (Side::Client, Profile::Coded) => client(InterpCoded(b), p, hp),
        };
        replay(v, side, half.as_mut()).map_err(|e| format!("{side:?}: {e}"))?;
    }
    Ok(())
}

/// Every committed acked, acked_packed and acked_coded stream vector of the reference protocol,
/// both halves, replays on the binding interpreted from its layout: the same frames and acks
/// byte for byte, the same reports, the same client state hashes.
#[test]
fn the_interpreted_reference_binding_replays_the_committed_reference_streams() {
    let spec = ackwire_spec::reference_spec().unwrap_or_else(|e| panic!("{e}"));
    let (all, skipped) = sessions(&spec);
    assert!(skipped.is_empty(), "{skipped:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/streams");
    let vectors = read_streams(&root).unwrap_or_else(|e| panic!("{e}"));
    let mut replayed = BTreeMap::new();
    let mut failures = Vec::new();
    for v in &vectors {
        let Some((_, b, profile)) = all.iter().find(|(frame, ..)| *frame == v.session) else {
            continue;
        };
        *replayed.entry(v.session.clone()).or_insert(0) += 1;
        if let Err(e) = replay_both(b, *profile, v) {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every committed vector of both profiles was replayed.
    assert_eq!(
        replayed,
        BTreeMap::from([
            ("acked".to_string(), 15),
            ("acked_packed".to_string(), 4),
            ("acked_coded".to_string(), 8),
        ])
    );
}

/// The replay can fail: a frame of a committed vector with one byte changed is not what the
/// interpreted binding sends.
#[test]
fn a_changed_byte_of_a_committed_frame_fails_the_replay() {
    let spec = ackwire_spec::reference_spec().unwrap_or_else(|e| panic!("{e}"));
    let (all, _) = sessions(&spec);
    let (_, b, _) = all
        .iter()
        .find(|(frame, _, profile)| frame == "acked" && *profile == Profile::Byte)
        .expect("the acked session");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/streams");
    let mut v = read_streams(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .find(|v| v.name == "acked/no_loss")
        .expect("acked/no_loss");
    let sent = v
        .steps
        .iter_mut()
        .filter(|s| s.side == Side::Server)
        .flat_map(|s| &mut s.expect.sent)
        .nth(5)
        .expect("a sixth frame");
    let last = sent.hex.len() - 1;
    let flipped = if &sent.hex[last..] == "0" { "1" } else { "0" };
    sent.hex.replace_range(last.., flipped);
    let e = replay_both(b, Profile::Byte, &v).unwrap_err();
    assert!(e.contains("expected to send"), "{e}");
}
