//! The `acked` session pair (`docs/spec/acked.md`): `acked_server` is the server's per-client
//! [`AckedEncoder`] fed by a world and the reference [`Presenter`]; `acked_client` is the client's
//! [`AckedDecoder`](ackwire_codec::acked::AckedDecoder) with its kind 7 writer, both through the
//! codec's [`session`] halves.
//!
//! Parameters (an object; every key optional, the same object opens both halves):
//! - `own` (array of eids, default `[1]`): the client's own entities; the lowest present is
//!   where it stands;
//! - `near_enter`, `near_leave` (metres, default 12 and 14): the near tier's [`TierBoundary`];
//! - `far_every` (ticks, default 6): a far entity's pose is due when `(tick + eid) % far_every
//!   == 0`;
//! - `max_late`, `max_early` (ticks, default 4 and 64): the server's input window;
//! - `input_lead` (ticks, default 2): the client aims each tick's input this far ahead;
//! - `keep_inputs` (default 16): inputs the client repeats until `last_seq` covers them;
//! - `corrupt_at` (tick, default none): at that tick's advance the client flips bits 0x55 of
//!   the `hp` of every record it holds and shows: a memory corruption the next check must
//!   catch, after which the client asks for a keyframe (KEYFRAME_REQUEST).
//!
//! World operations (the server half's `advance` ops), one JSON object each:
//! - `{"spawn": {"eid", "x", "y", "z", "yaw", "hp"}}`: an entity appears (a new life when the
//!   id was used before), on foot, no armour; metres and degrees;
//! - `{"move": {"eid", "x", "y", "z", "yaw"}}`: it moves;
//! - `{"set": {"eid", "hp", "armor", "vehicle", "seat"}}`: its rest changes;
//! - `{"despawn": {"eid"}}`: it is gone;
//! - `{"event": EVENT}`: an event, as the spec's JSON (`{"shot": {"shooter", "weapon",
//!   "yaw"}}`, `{"blast": ...}`, `{"hit": ...}`, `{"carjack": ...}`);
//! - `{"orient": {"eid", "x", "y", "z", "w"}}`: its orientation (issue 19), after the tick's
//!   other ops; used by the `acked_packed` vectors only, so the `acked` ones stay as they were.
//!
//! `acked_packed_server` and `acked_packed_client` are the same halves over the bit-packed
//! schema ([`PackedReference`]): kind 12 frames named `acked_packed`, the same acks.
//! `acked_coded_server` and `acked_coded_client` are the same halves over the range-coded
//! schema ([`CodedReference`], `docs/spec/coded.md`): kind 13 frames named `acked_coded`, each
//! predicted from the base and the older snapshot the server names, the same acks.
//!
//! Each server tick sends one `acked` frame (reliable when over RELIABLE_ABOVE bytes); each
//! client tick sends one `ack` frame acknowledging the newest frame applied, with the inputs
//! not yet covered by `last_seq`. Reports: the server's says what the ack did to its base and
//! its counters; the client's is the frame's report against the last frame shown, or why it
//! was dropped.

use super::stream::{record, Recording};
use super::{drain, Sent, Session};
use crate::netsim::{Burst, LinkConfig, NetworkConfig};
use crate::streams::StreamVector;
use ackwire_codec::acked::{AckedSchema, CodedReference, PackedReference, Reference};
use ackwire_codec::protocol::{Buttons, EntityState, Event, Hit, Input, Shot};
use ackwire_codec::session::{self, AckedTick, Now, SessionError, SessionHalf};
use ackwire_codec::BitSet;
use ackwire_server::acked::harness::{apply_ops, from_seed, Op, Shape};
use ackwire_server::acked::{
    AckedEncoder, ExecuteDue, Groups, Presenter, ScheduledInputs, ViewConfig, World, WorldChanges,
};
use ackwire_server::input_schedule::InputWindow;
use ackwire_server::relevance::TierBoundary;
use ackwire_server::testee::{ack_json, delivery_json};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The session halves this module opens: `acked` (kind 6), `acked_packed` (kind 12, issue
/// 19: the same machines over [`PackedReference`], its frames `acked_packed`) and
/// `acked_coded` (kind 13, issue 39: over [`CodedReference`], its frames `acked_coded`).
pub const NAMES: &[&str] = &[
    "acked_server",
    "acked_client",
    "acked_packed_server",
    "acked_packed_client",
    "acked_coded_server",
    "acked_coded_client",
];

/// The pair's parameters, read once (the interpreted binding's replay of these vectors reads
/// them too).
pub(super) struct Params {
    pub(super) view: ViewConfig,
    pub(super) window: InputWindow,
    pub(super) lead: u32,
    pub(super) keep: usize,
    pub(super) corrupt_at: Option<u64>,
}

pub(super) fn params(v: &Value) -> Result<Params, String> {
    if !(v.is_object() || v.is_null()) {
        return Err("acked params must be an object".into());
    }
    let num = |k: &str, d: f64| v.get(k).and_then(Value::as_f64).unwrap_or(d);
    let int = |k: &str, d: u64| v.get(k).and_then(Value::as_u64).unwrap_or(d);
    let own = match v.get("own") {
        None => vec![1],
        Some(o) => o
            .as_array()
            .ok_or("`own` must be an array of eids")?
            .iter()
            .map(|e| {
                e.as_u64()
                    .and_then(|e| u16::try_from(e).ok())
                    .ok_or("`own` must hold u16 eids")
            })
            .collect::<Result<_, _>>()?,
    };
    let (enter, leave) = (
        num("near_enter", 12.0) as f32,
        num("near_leave", 14.0) as f32,
    );
    if leave.is_nan() || enter.is_nan() || leave < enter {
        return Err("near_leave must not be smaller than near_enter".into());
    }
    Ok(Params {
        view: ViewConfig {
            own,
            tier: TierBoundary::new(enter, leave),
            far_every: u32::try_from(int("far_every", 6)).unwrap_or(6).max(1),
        },
        window: InputWindow::new(int("max_late", 4), int("max_early", 64)),
        lead: u32::try_from(int("input_lead", 2)).unwrap_or(2),
        keep: usize::try_from(int("keep_inputs", 16)).unwrap_or(16),
        corrupt_at: v.get("corrupt_at").and_then(Value::as_u64),
    })
}

/// Opens `name` when it is one of [`NAMES`].
pub fn open(name: &str, params_json: &Value) -> Option<Result<Box<dyn Session>, String>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let p = match params(params_json) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    fn server<S: AckedSchema + Default>(p: Params) -> AckedServer<S> {
        AckedServer {
            world: World::new(),
            lives: BTreeMap::new(),
            half: session::AckedServer::new(Presenter::new(p.view), AckedEncoder::new(p.window)),
            tick: 0,
        }
    }
    fn client<S: AckedSchema + Default>(p: Params) -> AckedClient<S> {
        AckedClient {
            half: session::AckedClient::new(p.keep),
            lead: p.lead,
            corrupt_at: p.corrupt_at,
        }
    }
    Some(Ok(match name {
        "acked_server" => Box::new(server::<Reference>(p)),
        "acked_client" => Box::new(client::<Reference>(p)),
        "acked_packed_server" => Box::new(server::<PackedReference>(p)),
        "acked_packed_client" => Box::new(client::<PackedReference>(p)),
        "acked_coded_server" => Box::new(server::<CodedReference>(p)),
        _ => Box::new(client::<CodedReference>(p)),
    }))
}

pub(super) fn op_from_json(v: &Value) -> Result<Op, String> {
    let obj = v.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
        format!("a world op is an object with one key (spawn, move, set, despawn, event): {v}")
    })?;
    let (kind, body) = obj.iter().next().ok_or("empty op")?;
    let eid = || {
        body.get("eid")
            .and_then(Value::as_u64)
            .and_then(|e| u16::try_from(e).ok())
            .ok_or_else(|| format!("`{kind}` needs a u16 `eid`: {v}"))
    };
    let f = |k: &str| body.get(k).and_then(Value::as_f64).unwrap_or(0.0) as f32;
    let byte = |k: &str| {
        body.get(k)
            .and_then(Value::as_u64)
            .map_or(0, |n| n.min(255) as u8)
    };
    Ok(match kind.as_str() {
        "spawn" => Op::Spawn {
            eid: eid()?,
            pos: [f("x"), f("y"), f("z")],
            yaw: f("yaw"),
            hp: byte("hp"),
        },
        "move" => Op::Move {
            eid: eid()?,
            pos: [f("x"), f("y"), f("z")],
            yaw: f("yaw"),
        },
        "set" => Op::Set {
            eid: eid()?,
            hp: byte("hp"),
            armor: byte("armor"),
            vehicle: body
                .get("vehicle")
                .and_then(Value::as_u64)
                .map_or(0, |n| n.min(65535) as u16),
            seat: byte("seat"),
        },
        "despawn" => Op::Despawn { eid: eid()? },
        "event" => Op::Event(
            serde_json::from_value::<Event>(body.clone()).map_err(|e| format!("{e}: {v}"))?,
        ),
        other => return Err(format!("unknown world op `{other}`")),
    })
}

/// The `orient` ops of a tick (`{"orient": {"eid", "x", "y", "z", "w"}}`: the entity's
/// orientation, a quaternion of any norm), applied after the tick's other ops; an entity
/// keeps its orientation for its life (issue 19). An op for an id the world does not hold is
/// an error.
pub(super) fn turn(world: &mut World, ops: &[Value]) -> Result<(), String> {
    for v in ops {
        let Some(body) = v.get("orient") else {
            continue;
        };
        let eid = body
            .get("eid")
            .and_then(Value::as_u64)
            .and_then(|e| u16::try_from(e).ok())
            .ok_or_else(|| format!("`orient` needs a u16 `eid`: {v}"))?;
        let f = |k: &str| body.get(k).and_then(Value::as_f64).unwrap_or(0.0) as f32;
        let e = world
            .get_mut(&eid)
            .ok_or_else(|| format!("`orient` of entity {eid}, which the world does not hold"))?;
        e.orient = Some([f("x"), f("y"), f("z"), f("w")]);
    }
    Ok(())
}

/// What a tick's ops change, by entity: a spawn (again, under a new life, too), a move (the
/// pose), a set (vitals and seat), an orientation, a despawn. An entity named more than once
/// is looked up as the world holds it after every op, as [`WorldChanges`] allows.
fn changes_of(ops: &[Op], ops_json: &[Value]) -> WorldChanges {
    let mut changes = WorldChanges::new();
    for op in ops {
        match op {
            Op::Spawn { eid, .. } => changes.spawned.push(*eid),
            Op::Move { eid, .. } => changes.changed.push((*eid, Groups::POSE)),
            Op::Set { eid, .. } => changes.changed.push((*eid, Groups::VITALS | Groups::SEAT)),
            Op::Despawn { eid } => changes.despawned.push(*eid),
            Op::Event(_) => {}
        }
    }
    let turned = ops_json
        .iter()
        .filter_map(|v| v.get("orient")?.get("eid")?.as_u64())
        .filter_map(|eid| u16::try_from(eid).ok());
    changes
        .changed
        .extend(turned.map(|eid| (eid, Groups::ORIENT)));
    changes
}

fn op_to_json(op: &Op) -> Value {
    match op {
        Op::Spawn { eid, pos, yaw, hp } => {
            json!({"spawn": {"eid": eid, "x": pos[0], "y": pos[1], "z": pos[2], "yaw": yaw, "hp": hp}})
        }
        Op::Move { eid, pos, yaw } => {
            json!({"move": {"eid": eid, "x": pos[0], "y": pos[1], "z": pos[2], "yaw": yaw}})
        }
        Op::Set {
            eid,
            hp,
            armor,
            vehicle,
            seat,
        } => {
            json!({"set": {"eid": eid, "hp": hp, "armor": armor, "vehicle": vehicle, "seat": seat}})
        }
        Op::Despawn { eid } => json!({"despawn": {"eid": eid}}),
        Op::Event(e) => json!({ "event": e }),
    }
}

/// The server half: the world, and the codec's half (the client's view of it, its acked
/// encoder).
struct AckedServer<S: AckedSchema> {
    world: World,
    lives: BTreeMap<u16, u32>,
    half: session::AckedServer<ScheduledInputs<Input>, S>,
    tick: u64,
}

impl<S: AckedSchema<Record = EntityState, Event = Event, Input = Input> + 'static> Session
    for AckedServer<S>
{
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        let ops_json = ops;
        let ops = ops
            .iter()
            .filter(|o| o.get("orient").is_none())
            .map(op_from_json)
            .collect::<Result<Vec<_>, _>>()?;
        u32::try_from(tick).map_err(|_| SessionError::TickRange.to_string())?;
        self.tick = tick;
        let events = apply_ops(&mut self.world, &mut self.lives, &ops);
        turn(&mut self.world, ops_json)?;
        // SRV-12: inputs execute on the tick they name; the reference world does not act on them,
        // it only consumes them so the buffer reports what is still ahead.
        while self.half.machine_mut().execute_due(tick).is_some() {}
        // The change-driven path, told what the tick's ops changed, as a game's change
        // tracking would: the stream vectors hold its frames to the whole-world diff's bytes.
        let changes = changes_of(&ops, ops_json);
        let input = AckedTick {
            world: &self.world,
            changes: Some(&changes),
            events,
        };
        self.half
            .handle_tick(Now::new(tick, now_ms), input)
            .map_err(|e| format!("encoding tick {tick}: {e}"))
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        Ok(
            match self
                .half
                .handle_frame(Now::new(self.tick, now_ms), frame, bytes)
            {
                Ok(r) => ack_json(r.verdict, self.half.machine()),
                Err(SessionError::Decode(e)) => json!({"error": e.kind.as_str()}),
                Err(SessionError::UnexpectedFrame(_)) => {
                    return Err(format!(
                        "the acked server takes `ack` frames, not `{frame}`"
                    ))
                }
                Err(e) => return Err(e.to_string()),
            },
        )
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.half)
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

/// The client half: the codec's (the AckedDecoder and the kind 7 writer), and the scripted
/// player.
struct AckedClient<S: AckedSchema> {
    half: session::AckedClient<S>,
    lead: u32,
    corrupt_at: Option<u64>,
}

impl<S: AckedSchema<Record = EntityState, Event = Event, Input = Input> + 'static> Session
    for AckedClient<S>
{
    fn advance(&mut self, tick: u64, now_ms: u64, _ops: &[Value]) -> Result<(), String> {
        if self.corrupt_at == Some(tick) {
            self.half.machine_mut().tamper(|_, r| r.hp ^= 0x55);
        }
        let tick32 = u32::try_from(tick).map_err(|_| SessionError::TickRange.to_string())?;
        let input = player_input(tick32, self.lead);
        self.half
            .handle_tick(Now::new(tick, now_ms), input)
            .map_err(|e| e.to_string())
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        // The client does not count ticks; its decoder reads none.
        let delivery = match self.half.handle_frame(Now::new(0, now_ms), frame, bytes) {
            Ok(d) => d,
            Err(SessionError::UnexpectedFrame(_)) => {
                return Err(format!(
                    "the acked client takes `{}` frames, not `{frame}`",
                    self.half.machine().schema().frame_name()
                ))
            }
            Err(e) => return Err(e.to_string()),
        };
        delivery_json(delivery)
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.half)
    }

    fn state_hash(&mut self) -> Option<u32> {
        // CHECK-7: the check of the state shown.
        Some(self.half.machine().state_hash())
    }
}

/// The scripted player's input at tick `tick`: aimed `lead` ticks ahead, firing every tenth
/// tick, walking east, turning a step a tick.
pub(super) fn player_input(tick: u32, lead: u32) -> Input {
    let mut buttons = Buttons::empty();
    buttons.set(Buttons::FIRE, tick.is_multiple_of(10));
    Input {
        tick: tick.saturating_add(lead),
        buttons,
        move_x: 1.0,
        move_y: 0.0,
        yaw: f64::from(tick % 256) * (360.0 / 256.0),
    }
}

/// A generated world of `entities` ids over `ticks`, as JSON ops.
fn world(seed: u64, ticks: u32, entities: u16, churn: f64, events: f64) -> Vec<Vec<Value>> {
    let shape = Shape {
        ticks,
        entities,
        churn,
        events,
        ..Shape::default()
    };
    from_seed(shape, seed)
        .script
        .iter()
        .map(|ops| ops.iter().map(|op| op_to_json(&short(op))).collect())
        .collect()
}

/// The op with positions rounded to 1/16 m and headings to whole degrees, so the vector files
/// print short numbers.
fn short(op: &Op) -> Op {
    let r = |v: f32| (v * 16.0).round() / 16.0;
    match op.clone() {
        Op::Spawn { eid, pos, yaw, hp } => Op::Spawn {
            eid,
            pos: pos.map(r),
            yaw: yaw.round(),
            hp,
        },
        Op::Move { eid, pos, yaw } => Op::Move {
            eid,
            pos: pos.map(r),
            yaw: yaw.round(),
        },
        other => other,
    }
}

fn spawn(eid: u16, x: f32, y: f32) -> Value {
    op_to_json(&Op::Spawn {
        eid,
        pos: [x, y, 0.0],
        yaw: 0.0,
        hp: 100,
    })
}

fn walk(eid: u16, x: f32, y: f32, yaw: f32) -> Value {
    op_to_json(&Op::Move {
        eid,
        pos: [x, y, 0.0],
        yaw,
    })
}

fn shot(shooter: u16, weapon: u8) -> Value {
    op_to_json(&Op::Event(Event::Shot(Shot {
        shooter,
        weapon,
        yaw: 90.0,
    })))
}

/// This pair's stream vectors, recorded anew.
pub fn stream_vectors() -> Result<Vec<StreamVector>, String> {
    let base = |name: &str, description: &str| Recording {
        name: format!("acked/{name}"),
        description: description.into(),
        seed: "GEN-3, ACK-17, ACK-19, ACK-29, ACK-33, CHECK-7".into(),
        session: "acked".into(),
        params: json!({"own": [1], "keep_inputs": 4}),
        tick_ms: 20,
        network: NetworkConfig {
            down: LinkConfig::lossy(0.0, 0.0, 30, 0),
            up: LinkConfig::lossy(0.0, 0.0, 30, 0),
            seed: 1,
        },
        script: world(1, 80, 4, 0.01, 0.15),
        drain_ms: 200,
    };
    let mut recs = vec![base(
        "no_loss",
        "a perfect network: one keyframe, then every frame onto the newest acknowledged",
    )];
    for (pct, seed) in [(5u32, 2u64), (10, 3), (25, 4), (50, 5)] {
        let loss = f64::from(pct) / 100.0;
        let mut r = base(
            &format!("loss_{pct:02}"),
            &format!(
                "{pct}% loss each way with jitter: every frame applies onto an acknowledged base and shows what an ordered client shows"
            ),
        );
        r.network = NetworkConfig {
            down: LinkConfig::lossy(loss, 0.0, 30, 20),
            up: LinkConfig::lossy(loss, 0.0, 30, 20),
            seed,
        };
        r.script = world(seed, 80, 4, 0.01, 0.15);
        recs.push(r);
    }
    let mut r = base(
        "burst_past_sent_ring",
        "a loss burst longer than SENT_RING frames: the base leaves the server's ring and a keyframe recovers",
    );
    r.network = NetworkConfig {
        down: LinkConfig {
            burst: Some(Burst {
                enter: 0.02,
                leave: 0.015,
                loss: 1.0,
            }),
            latency_ms: 30,
            ..LinkConfig::default()
        },
        up: LinkConfig::lossy(0.0, 0.0, 30, 0),
        seed: 11,
    };
    r.script = world(6, 120, 2, 0.0, 0.1);
    recs.push(r);
    let mut r = base(
        "duplicates",
        "30% of frames delivered twice each way: a second copy is stale and dropped",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.0, 0.3, 30, 10),
        up: LinkConfig::lossy(0.0, 0.3, 30, 10),
        seed: 7,
    };
    recs.push(r);
    let mut r = base(
        "reordering",
        "jitter four ticks wide: frames arrive out of order, older ones are stale",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.0, 0.0, 30, 80),
        up: LinkConfig::lossy(0.0, 0.0, 30, 80),
        seed: 8,
    };
    recs.push(r);
    let mut r = base(
        "lost_acks",
        "60% of kind 7 frames lost: frames go onto older acknowledged bases, inputs are repeated",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.0, 0.0, 30, 0),
        up: LinkConfig::lossy(0.6, 0.0, 30, 10),
        seed: 9,
    };
    recs.push(r);
    // Entity 3 despawned and respawned under the same id, twice, while frames are lost.
    let mut r = base(
        "respawn_during_loss",
        "an entity despawned and respawned under the same id during 30% loss: removed and whole again",
    );
    let mut script = world(10, 100, 3, 0.0, 0.05);
    script[39].push(json!({"despawn": {"eid": 3}}));
    script[41].push(spawn(3, 4.0, 4.0));
    script[70].push(json!({"despawn": {"eid": 3}}));
    script[70].push(spawn(3, -5.0, 2.0));
    script[70].push(json!({"set": {"eid": 3, "hp": 42, "armor": 0, "vehicle": 0, "seat": 0}}));
    for ops in script.iter_mut().skip(71) {
        ops.retain(|o| o.pointer("/move/eid") != Some(&json!(3)));
    }
    r.script = script;
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.3, 0.0, 30, 20),
        up: LinkConfig::lossy(0.3, 0.0, 30, 20),
        seed: 10,
    };
    recs.push(r);
    let mut r = base(
        "events_during_loss",
        "events every tick during 40% loss: each shown once, above the newest serial shown",
    );
    let mut script = world(12, 90, 2, 0.0, 0.0);
    for (t, ops) in script.iter_mut().enumerate() {
        ops.push(shot(2, (t % 200) as u8));
        if t % 3 == 0 {
            ops.push(op_to_json(&Op::Event(Event::Hit(Hit {
                attacker: 2,
                victim: 1,
                damage: 5,
            }))));
        }
    }
    r.script = script;
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.4, 0.0, 30, 20),
        up: LinkConfig::lossy(0.4, 0.0, 30, 20),
        seed: 12,
    };
    recs.push(r);
    let mut r = base(
        "events_outlive_ttl",
        "kind 7 frames lost in bursts of about 50: events go for EVENT_TTL frames unacknowledged and expire (counted)",
    );
    let mut script = world(13, 120, 1, 0.0, 0.0);
    for (t, ops) in script.iter_mut().enumerate() {
        if t % 5 == 0 {
            ops.push(shot(2, t as u8));
        }
    }
    r.script = script;
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.1, 0.0, 30, 0),
        up: LinkConfig {
            burst: Some(Burst {
                enter: 1.0,
                leave: 0.02,
                loss: 1.0,
            }),
            latency_ms: 30,
            ..LinkConfig::default()
        },
        seed: 44,
    };
    recs.push(r);
    // Entity 2 walks in from 30 m, loiters on the boundary (12 m enter, 14 m leave), leaves.
    let mut r = base(
        "tier_boundary",
        "a far entity comes near, loiters on the tier boundary and leaves again: hysteresis keeps its tier from flapping",
    );
    let mut script = vec![vec![spawn(1, 0.0, 0.0), spawn(2, 30.0, 0.0)]];
    for t in 1..105u32 {
        let tf = t as f32;
        let x = if t < 30 {
            30.0 - tf * 0.6
        } else if t < 80 {
            13.0 + (tf * 0.7).sin() * 1.2
        } else {
            13.0 + (tf - 80.0) * 0.5
        };
        let x = (x * 16.0).round() / 16.0;
        script.push(vec![
            walk(2, x, 0.5, (tf * 3.0) % 360.0),
            walk(1, 0.0, 0.0, tf),
        ]);
    }
    r.script = script;
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.1, 0.0, 30, 10),
        up: LinkConfig::lossy(0.1, 0.0, 30, 10),
        seed: 14,
    };
    recs.push(r);
    let mut r = base(
        "corrupted_client",
        "the client's held states are corrupted at tick 40 (param corrupt_at): the check at tick 60 catches it, KEYFRAME_REQUEST brings a keyframe",
    );
    r.params = json!({"own": [1], "keep_inputs": 4, "corrupt_at": 40});
    // No rest changes: the corrupted hit points stay wrong until the check.
    r.script = world(15, 90, 3, 0.0, 0.1);
    for ops in &mut r.script {
        ops.retain(|o| o.get("set").is_none());
    }
    recs.push(r);
    // 64 entities on a grid 6 m apart: keyframes of about RELIABLE_ABOVE bytes (the first just
    // under it, those whose far poses carry their age just over), and deltas of the four that
    // walk far below it.
    let mut r = base(
        "crowd",
        "a crowd of 64: keyframes over RELIABLE_ABOVE bytes go on the reliable channel; the first keyframe, just under it, and the small deltas do not",
    );
    let mut script = vec![(0..64u16)
        .map(|i| {
            let at = |k: u16| f32::from(k) * 6.0 - 21.0;
            spawn(i + 1, at(i % 8), at(i / 8))
        })
        .collect::<Vec<_>>()];
    for t in 1..40u32 {
        let tf = t as f32 * 0.25;
        script.push(
            (1..=4u16)
                .map(|eid| walk(eid, tf + f32::from(eid), tf, (t * 9 % 360) as f32))
                .collect(),
        );
    }
    r.script = script;
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.1, 0.0, 30, 20),
        up: LinkConfig::lossy(0.1, 0.0, 30, 20),
        seed: 16,
    };
    recs.push(r);
    recs.extend(packed_recordings());
    recs.extend(coded_recordings());
    recs.iter().map(record).collect()
}

/// `script` with an `orient` op for every entity alive at every other tick: a turn about an
/// axis of its own, a few degrees a tick, in components rounded to 1/1024 (short numbers in the
/// files; the presenter normalises them).
fn with_orientations(mut script: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    let mut alive = std::collections::BTreeSet::new();
    for (t, ops) in script.iter_mut().enumerate() {
        for op in ops.iter() {
            if let Some(e) = op.pointer("/spawn/eid").and_then(Value::as_u64) {
                alive.insert(e);
            }
            if let Some(e) = op.pointer("/despawn/eid").and_then(Value::as_u64) {
                alive.remove(&e);
            }
        }
        // Every other tick, to keep the files short.
        for &eid in alive.iter().filter(|_| t % 2 == 0) {
            let angle = (t as f64 * (3.0 + eid as f64)).to_radians() / 2.0;
            let axis = [1.0, eid as f64 % 3.0, 2.0];
            let norm = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            let r = |v: f64| (v * 1024.0).round() / 1024.0;
            let (s, c) = angle.sin_cos();
            ops.push(json!({"orient": {
                "eid": eid,
                "x": r(axis[0] / norm * s),
                "y": r(axis[1] / norm * s),
                "z": r(axis[2] / norm * s),
                "w": r(c),
            }}));
        }
    }
    script
}

/// The `acked_packed` pair's recordings (kind 12, issue 19): the same machines over the
/// bit-packed schema, with entities that turn (the ORIENT group), under no loss, 5% and 25%
/// loss, and an entity respawned under its id.
fn packed_recordings() -> Vec<Recording> {
    let base = |name: &str, description: &str, seed: u64, loss: f64| Recording {
        name: format!("acked_packed/{name}"),
        description: description.into(),
        seed: "GEN-3, ACK-16, CHECK-7".into(),
        session: "acked_packed".into(),
        params: json!({"own": [1], "keep_inputs": 4}),
        tick_ms: 20,
        network: NetworkConfig {
            down: LinkConfig::lossy(loss, 0.0, 30, if loss > 0.0 { 20 } else { 0 }),
            up: LinkConfig::lossy(loss, 0.0, 30, if loss > 0.0 { 20 } else { 0 }),
            seed,
        },
        script: with_orientations(world(seed, 60, 3, 0.01, 0.15)),
        drain_ms: 200,
    };
    let mut recs = vec![
        base(
            "no_loss",
            "kind 12 on a perfect network: one keyframe, then every frame onto the newest acknowledged, orientations whole whenever they turn",
            21,
            0.0,
        ),
        base(
            "loss_05",
            "kind 12 at 5% loss each way with jitter: every frame applies onto an acknowledged base and shows what an ordered client shows",
            22,
            0.05,
        ),
        base(
            "loss_25",
            "kind 12 at 25% loss each way with jitter",
            23,
            0.25,
        ),
    ];
    let mut r = base(
        "respawn_during_loss",
        "kind 12: an entity despawned and respawned under the same id during 30% loss: removed and whole again, its orientation with it",
        24,
        0.3,
    );
    let mut script = world(24, 70, 3, 0.0, 0.05);
    script[39].push(json!({"despawn": {"eid": 3}}));
    script[41].push(spawn(3, 4.0, 4.0));
    for ops in script.iter_mut().skip(40) {
        ops.retain(|o| o.pointer("/move/eid") != Some(&json!(3)));
    }
    r.script = with_orientations(script);
    recs.push(r);
    recs
}

/// The `acked_coded` pair's recordings (kind 12's scenes over kind 13, issue 39): the same
/// worlds, networks and seeds as [`packed_recordings`], so each coded vector is the packed one's
/// session with its frames range-coded; under loss the server names an older snapshot the
/// client may have missed, and the client drops a frame whose base or older snapshot it does
/// not hold (CODE-3).
fn coded_recordings() -> Vec<Recording> {
    packed_recordings()
        .into_iter()
        .map(|mut r| {
            let what = r.name.trim_start_matches("acked_packed/").to_string();
            r.name = format!("acked_coded/{what}");
            r.session = "acked_coded".into();
            r.seed = "GEN-3, ACK-16, CHECK-7, CODE-2, CODE-3, CODE-13, CODE-14".into();
            r.description = match what.as_str() {
                "no_loss" => "kind 13 on a perfect network: one keyframe, then every frame onto the newest acknowledged, steps predicted from the base and the older snapshot, orientations coded against the base's",
                "loss_05" => "kind 13 at 5% loss each way with jitter: every frame applies onto an acknowledged base and older snapshot the client holds, or is dropped whole (CODE-3)",
                "loss_25" => "kind 13 at 25% loss each way with jitter: frames whose base the client never applied are dropped before their stream is read",
                _ => "kind 13: an entity despawned and respawned under the same id during 30% loss: removed and whole again, predicted from nothing its new life did not hold",
            }
            .into();
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::{Action, Side};

    fn reports(v: &StreamVector, side: Side) -> Vec<Value> {
        v.steps
            .iter()
            .filter(|s| s.side == side && matches!(s.action, Action::Deliver { .. }))
            .filter_map(|s| s.expect.report.clone())
            .collect()
    }

    #[test]
    fn every_scenario_shows_what_it_says() {
        let all = stream_vectors().unwrap();
        let by = |n: &str| all.iter().find(|v| v.name == format!("acked/{n}")).unwrap();
        let keyframes = |v: &StreamVector| {
            reports(v, Side::Client)
                .iter()
                .filter(|r| r.pointer("/shown/keyframe") == Some(&json!(true)))
                .count()
        };
        let dropped = |v: &StreamVector, why: &str| {
            reports(v, Side::Client)
                .iter()
                .filter(|r| r.get("dropped") == Some(&json!(why)))
                .count()
        };
        // Until the first ack has made the round trip (60 ms, three ticks, and a tick to answer).
        assert!(keyframes(by("no_loss")) <= 5);
        assert!(
            keyframes(by("burst_past_sent_ring")) >= 3,
            "a keyframe recovery"
        );
        assert!(dropped(by("duplicates"), "stale") > 0);
        assert!(dropped(by("reordering"), "stale") > 0);
        let failed = reports(by("corrupted_client"), Side::Client)
            .iter()
            .filter(|r| r.pointer("/shown/check") == Some(&json!(false)))
            .count();
        assert_eq!(failed, 1);
        assert!(keyframes(by("corrupted_client")) >= 3);
        let expired = reports(by("events_outlive_ttl"), Side::Server)
            .last()
            .and_then(|r| r.get("events_expired").and_then(Value::as_u64));
        assert!(expired.is_some_and(|e| e > 0), "{expired:?}");
        // ACK-27, GEN-7: a frame over RELIABLE_ABOVE bytes goes on the reliable channel: the vectors
        // record the channel of every frame sent, and the crowd takes both.
        let channels = |v: &StreamVector| {
            let (mut reliable, mut unreliable) = (0, 0);
            for s in v.steps.iter().filter(|s| s.side == Side::Server) {
                for f in &s.expect.sent {
                    let len = crate::frame_json::parse_hex(&f.hex).unwrap().len();
                    assert_eq!(
                        f.reliable,
                        len > ackwire_codec::acked::AckedSchema::reliable_above(
                            &ackwire_codec::acked::Reference
                        ),
                        "{}: a frame of {len} bytes",
                        v.name
                    );
                    *(if f.reliable {
                        &mut reliable
                    } else {
                        &mut unreliable
                    }) += 1;
                }
            }
            (reliable, unreliable)
        };
        let (reliable, unreliable) = channels(by("crowd"));
        assert!(
            reliable >= 2 && unreliable > 20,
            "{reliable} reliable, {unreliable} not"
        );
        let shown_keyframes = keyframes(by("crowd"));
        assert!(shown_keyframes >= 1, "a reliable keyframe is shown");
        for v in &all {
            channels(v);
            // Every event shown once.
            let mut serials: Vec<u64> = reports(v, Side::Client)
                .iter()
                .filter_map(|r| {
                    r.pointer("/shown/events")
                        .and_then(Value::as_array)
                        .cloned()
                })
                .flatten()
                .filter_map(|e| e["serial"].as_u64())
                .collect();
            let n = serials.len();
            serials.dedup();
            assert_eq!(serials.len(), n, "{}", v.name);
            let size = serde_json::to_string_pretty(v).unwrap().len();
            assert!(size < 300_000, "{} is {size} bytes", v.name);
            super::super::stream::verify(v).unwrap();
        }
    }

    /// GEN-7, TESTEE-12: the channel is part of what a server half must do, and of what a
    /// stream vector records: the crowd's first reliable frame recorded as unreliable fails the
    /// replay at that step.
    #[test]
    fn a_frame_on_the_wrong_channel_fails_the_replay() {
        let mut v = stream_vectors()
            .unwrap()
            .into_iter()
            .find(|v| v.name == "acked/crowd")
            .unwrap();
        let frame = v
            .steps
            .iter_mut()
            .flat_map(|s| s.expect.sent.iter_mut())
            .find(|f| f.reliable)
            .unwrap();
        frame.reliable = false;
        let e = super::super::stream::verify(&v).unwrap_err();
        assert!(e.starts_with("server: ") && e.contains("(reliable)"), "{e}");
    }
}
