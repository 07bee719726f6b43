//! The `datagram` session pair (`docs/spec/datagram.md`): `datagram_server` is a [`Subscription`]
//! fed by a scripted world; `datagram_client` is a [`ReplicaTable`].
//!
//! Parameters (an object; every key optional, the same object opens both halves):
//! - `precision` (metres per step, default 0.01);
//! - `max_datagram` (bytes, default 1200): the size limit a tick is split under;
//! - `max_held` (default 256): datagrams the client holds for ticks not yet whole;
//! - `max_held_bytes` (default 8 MiB): what those datagrams may cost, each counted by
//!   [`ReplicaLimits::held_cost`](ackwire_codec::datagram::ReplicaLimits::held_cost).
//!
//! World operations (the server half's `advance` ops), one JSON object each:
//! - `{"spawn": {"id", "x", "y", "z", "components"}}`: an entity enters (`components` an
//!   optional object from type, as a decimal string, to hex bytes);
//! - `{"move": {"id", "x", "y", "z"}}`: it moves (metres);
//! - `{"set": {"id", "type", "hex"}}`: a component is added or changed;
//! - `{"remove": {"id", "type"}}`: a component is removed;
//! - `{"despawn": {"id"}}`: it leaves;
//! - `{"full_frame": {}}`: this tick sends a full frame instead of datagrams;
//! - `{"input_ack": {"seq"}}`: the shard has processed client inputs up to `seq` (this tick's
//!   datagrams and later ones carry it).
//!
//! Stream frames (`spawn`, `despawn`, `full_frame`) go reliable; datagrams and the client's
//! `datagram_ack`s unreliable. Reports are the machines' summaries
//! ([`DatagramSummary`](ackwire_codec::datagram::DatagramSummary),
//! [`AckSummary`](ackwire_codec::datagram::AckSummary)), or `{"error": kind}` for a frame that
//! does not decode.
//!
//! The client's state hash is FNV-1a 32 over
//! [`ReplicaTable::canonical_bytes`](ackwire_codec::datagram::ReplicaTable::canonical_bytes):
//! `u64 stream_tick, u64 input_ack, u32 entity count`, then per entity in ascending id `u64 id,
//! u64 spawn_tick, i64 x, i64 y, i64 z` (quantized steps), `u32 component count`, then per
//! component in ascending type `u8 type, u32 length, bytes`; every integer little endian.

use super::stream::{record, Recording};
use super::{drain, no_world, Sent, Session};
use crate::netsim::{Burst, LinkConfig, NetworkConfig};
use crate::streams::StreamVector;
use ackwire_codec::datagram::{
    ReplicaLimits, ReplicaTable, Subscription, SubscriptionConfig, WorldOp,
};
use ackwire_codec::session::{self, DatagramTick, Now, SessionError, SessionHalf};
use serde_json::{json, Value};

/// The session halves this module opens.
pub const NAMES: &[&str] = &["datagram_server", "datagram_client"];

fn params(v: &Value) -> Result<(SubscriptionConfig, ReplicaLimits), String> {
    let mut config = SubscriptionConfig::default();
    let mut limits = ReplicaLimits::default();
    if let Some(p) = v.get("precision") {
        config.precision = p.as_f64().ok_or("`precision` must be a number")? as f32;
    }
    if let Some(m) = v.get("max_datagram") {
        config.max_datagram = m.as_u64().ok_or("`max_datagram` must be an integer")? as usize;
    }
    if let Some(m) = v.get("max_held") {
        limits.max_held = m.as_u64().ok_or("`max_held` must be an integer")? as usize;
    }
    if let Some(m) = v.get("max_held_bytes") {
        limits.max_held_bytes = m.as_u64().ok_or("`max_held_bytes` must be an integer")? as usize;
    }
    Ok((config, limits))
}

/// Opens `name` when it is one of [`NAMES`].
pub fn open(name: &str, params_v: &Value) -> Option<Result<Box<dyn Session>, String>> {
    let p = match params(params_v) {
        Ok(p) => p,
        Err(e) => return NAMES.contains(&name).then(|| Err(e)),
    };
    match name {
        "datagram_server" => Some(Ok(Box::new(Server {
            half: session::DatagramServer::new(Subscription::new(p.0)),
            input_ack: 0,
        }))),
        "datagram_client" => Some(Ok(Box::new(Client(session::DatagramClient::new(
            ReplicaTable::with_limits(p.1),
        ))))),
        _ => None,
    }
}

struct Server {
    half: session::DatagramServer,
    input_ack: u64,
}

struct Client(session::DatagramClient);

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("missing `{key}` in {v}"))
}

fn uint(v: &Value, key: &str) -> Result<u64, String> {
    field(v, key)?
        .as_u64()
        .ok_or_else(|| format!("`{key}` must be an unsigned integer"))
}

fn position(v: &Value) -> Result<[f64; 3], String> {
    let axis = |k: &str| {
        field(v, k)?
            .as_f64()
            .ok_or_else(|| format!("`{k}` must be a number"))
    };
    Ok([axis("x")?, axis("y")?, axis("z")?])
}

fn hex(v: &Value) -> Result<Vec<u8>, String> {
    crate::frame_json::parse_hex(v.as_str().ok_or("component bytes must be a hex string")?)
}

fn component_type(v: &Value) -> Result<u8, String> {
    u8::try_from(uint(v, "type")?).map_err(|_| "`type` must fit a u8".to_string())
}

/// Reads one world operation.
fn op(v: &Value) -> Result<Option<WorldOp>, String> {
    let (name, body) = v
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or_else(|| format!("a world op is an object with one member: {v}"))?;
    Ok(Some(match name.as_str() {
        "spawn" => {
            let mut components = Vec::new();
            if let Some(c) = body.get("components").and_then(Value::as_object) {
                for (t, bytes) in c {
                    let t: u8 = t.parse().map_err(|_| format!("component type `{t}`"))?;
                    components.push((t, hex(bytes)?));
                }
            }
            WorldOp::Spawn {
                id: uint(body, "id")?,
                position: position(body)?,
                components,
            }
        }
        "move" => WorldOp::Move {
            id: uint(body, "id")?,
            position: position(body)?,
        },
        "set" => WorldOp::SetComponent {
            id: uint(body, "id")?,
            r#type: component_type(body)?,
            data: hex(field(body, "hex")?)?,
        },
        "remove" => WorldOp::RemoveComponent {
            id: uint(body, "id")?,
            r#type: component_type(body)?,
        },
        "despawn" => WorldOp::Despawn {
            id: uint(body, "id")?,
        },
        "full_frame" => WorldOp::FullFrame,
        "input_ack" => return Ok(None),
        other => return Err(format!("unknown world op `{other}`")),
    }))
}

/// A frame's report, or what the half said of a frame it did not take or could not decode.
fn report<R: serde::Serialize>(frame: &str, r: Result<R, SessionError>) -> Result<Value, String> {
    match r {
        Ok(summary) => serde_json::to_value(summary).map_err(|e| e.to_string()),
        Err(SessionError::Decode(e)) => Ok(json!({ "error": e.kind.to_string() })),
        Err(SessionError::UnexpectedFrame(_)) => Ok(json!({ "ignored": frame })),
        Err(e) => Err(e.to_string()),
    }
}

impl Session for Server {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        let mut world = Vec::new();
        for v in ops {
            match op(v)? {
                Some(o) => world.push(o),
                None => self.input_ack = uint(&v["input_ack"], "seq")?,
            }
        }
        let input = DatagramTick {
            input_ack: self.input_ack,
            ops: &world,
        };
        self.half
            .handle_tick(Now::new(tick, now_ms), input)
            .map_err(|e| e.to_string())
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        report(
            frame,
            self.half.handle_frame(Now::new(0, now_ms), frame, bytes),
        )
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.half)
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

impl Session for Client {
    fn advance(&mut self, _tick: u64, _now_ms: u64, ops: &[Value]) -> Result<(), String> {
        no_world(ops)
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        report(
            frame,
            self.0.handle_frame(Now::new(0, now_ms), frame, bytes),
        )
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.0)
    }

    fn state_hash(&mut self) -> Option<u32> {
        // CHECK-8: the replica table's canonical bytes.
        Some(self.0.machine().state_hash())
    }
}

/// A deterministic world: `n` entities wandering, a component now and then, `ticks` ticks;
/// `respawn_every` respawns entity 1 under the same id; `full_at` sends a full frame.
fn world(
    seed: u64,
    ticks: u64,
    n: u64,
    respawn_every: Option<u64>,
    full_at: Option<u64>,
) -> Vec<Vec<Value>> {
    let mut rng = crate::netsim::SplitMix64::new(seed);
    let mut script = Vec::new();
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        if tick == 1 {
            for id in 1..=n {
                ops.push(
                    json!({"spawn": {"id": id, "x": id as f64, "y": 0.0, "z": 0.0,
                    "components": {"1": format!("{:02x}", id)}}}),
                );
            }
        } else {
            for id in 1..=n {
                if rng.chance(0.6) {
                    let x = (rng.next_f64() - 0.5) * 40.0;
                    let y = (rng.next_f64() - 0.5) * 40.0;
                    ops.push(json!({"move": {"id": id, "x": x, "y": y, "z": 0.25}}));
                }
            }
            if rng.chance(0.2) {
                let id = 1 + rng.below_or_at(n - 1);
                ops.push(json!({"set": {"id": id, "type": 2, "hex": format!("{:02x}", tick)}}));
            }
            if rng.chance(0.1) {
                ops.push(json!({"remove": {"id": 1 + rng.below_or_at(n - 1), "type": 2}}));
            }
            if respawn_every.is_some_and(|e| tick.is_multiple_of(e)) {
                ops.push(json!({"despawn": {"id": 1}}));
                ops.push(json!({"spawn": {"id": 1, "x": -(tick as f64), "y": 1.0, "z": 2.0}}));
            }
            if full_at == Some(tick) {
                ops.push(json!({"full_frame": {}}));
            }
            if tick.is_multiple_of(3) {
                ops.push(json!({"input_ack": {"seq": tick * 2}}));
            }
        }
        script.push(ops);
    }
    script
}

/// This pair's stream vectors, recorded anew.
pub fn stream_vectors() -> Result<Vec<StreamVector>, String> {
    let base = |name: &str, description: &str| Recording {
        name: format!("datagram/{name}"),
        description: description.into(),
        seed: "GEN-3, DG-2, DG-11, DG-14, DG-21, CHECK-8".into(),
        session: "datagram".into(),
        params: json!({"precision": 0.01, "max_datagram": 64}),
        tick_ms: 20,
        network: NetworkConfig {
            down: LinkConfig::lossy(0.0, 0.0, 30, 0),
            up: LinkConfig::lossy(0.0, 0.0, 30, 0),
            seed: 1,
        },
        script: world(1, 40, 4, None, None),
        drain_ms: 200,
    };
    let mut recs = vec![base(
        "no_loss",
        "a perfect network: every tick whole in order, each change sent until an ack covers it",
    )];
    let mut r = base(
        "loss_20",
        "20% loss each way with jitter: ticks held until whole, changes resent until covered",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.2, 0.0, 30, 25),
        up: LinkConfig::lossy(0.2, 0.0, 30, 25),
        seed: 2,
    };
    r.script = world(2, 40, 4, None, None);
    recs.push(r);
    let mut r = base(
        "duplicated_reordered",
        "duplicates and reordering: an update from a datagram older than the last applied is skipped",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.05, 0.3, 20, 60),
        up: LinkConfig::lossy(0.05, 0.3, 20, 60),
        seed: 3,
    };
    r.script = world(3, 40, 4, None, None);
    recs.push(r);
    let mut r = base(
        "respawn_same_id",
        "entity 1 despawned and spawned again under the same id every 5 ticks while datagrams reorder: late updates for the old occupant change nothing",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.1, 0.1, 20, 60),
        up: LinkConfig::lossy(0.1, 0.0, 20, 30),
        seed: 4,
    };
    r.script = world(4, 40, 3, Some(5), None);
    recs.push(r);
    let mut r = base(
        "full_frame",
        "a full frame mid-stream under reordering: datagrams built before it change nothing",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.1, 0.1, 20, 60),
        up: LinkConfig::lossy(0.1, 0.0, 20, 20),
        seed: 5,
    };
    r.script = world(5, 40, 3, None, Some(20));
    recs.push(r);
    let mut r = base(
        "long_stall",
        "a loss burst of many ticks each way, then recovery: the client converges on the server's world",
    );
    r.network = NetworkConfig {
        down: LinkConfig {
            burst: Some(Burst {
                enter: 0.05,
                leave: 0.08,
                loss: 1.0,
            }),
            ..LinkConfig::lossy(0.02, 0.0, 30, 10)
        },
        up: LinkConfig {
            burst: Some(Burst {
                enter: 0.05,
                leave: 0.08,
                loss: 1.0,
            }),
            ..LinkConfig::lossy(0.02, 0.0, 30, 10)
        },
        seed: 6,
    };
    r.script = world(6, 60, 3, Some(17), None);
    r.script.extend((0..10).map(|_| Vec::new()));
    recs.push(r);
    let mut r = base(
        "held_bytes",
        "the client may hold datagrams worth 4,000 bytes as ReplicaLimits::held_cost counts them (about three ticks of this world): under reordering the oldest ticks held are given up, never acked, sent again, and the client converges",
    );
    r.params = json!({"precision": 0.01, "max_datagram": 64, "max_held_bytes": 4000});
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.05, 0.1, 20, 80),
        up: LinkConfig::lossy(0.05, 0.0, 20, 20),
        seed: 7,
    };
    r.script = world(7, 40, 6, None, None);
    r.script.extend((0..10).map(|_| Vec::new()));
    recs.push(r);
    recs.iter().map(record).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stream::verify;
    use ackwire_codec::datagram::StreamFrame;
    use ackwire_codec::protocol::Datagram;
    use ackwire_codec::rt::Frame;

    #[test]
    fn the_vectors_replay_on_both_halves() {
        for v in stream_vectors().unwrap() {
            verify(&v).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        }
    }

    /// The last client hash of `v`, and that of a client given every frame the server sends
    /// in order, nothing lost and nothing held: the server's world.
    fn last_and_converged(v: &StreamVector) -> (u32, u32) {
        let last = v
            .steps
            .iter()
            .rev()
            .find_map(|s| s.expect.client_hash)
            .unwrap();
        let mut server = open("datagram_server", &v.params).unwrap().unwrap();
        let mut client = ReplicaTable::new();
        for step in &v.steps {
            if let crate::streams::Action::Advance { tick, ops } = &step.action {
                if step.side == crate::streams::Side::Server {
                    server.advance(*tick, step.at_ms, ops).unwrap();
                    for s in server.take() {
                        if s.frame == Datagram::NAME {
                            client.receive(Datagram::decode(&s.bytes).unwrap());
                        } else {
                            client.apply_stream(
                                &StreamFrame::decode(&s.frame, &s.bytes).unwrap().unwrap(),
                            );
                        }
                    }
                }
            }
        }
        (last, client.state_hash())
    }

    #[test]
    fn the_held_bytes_vector_gives_datagrams_up_for_bytes_alone_and_converges() {
        let v = stream_vectors()
            .unwrap()
            .into_iter()
            .find(|v| v.name == "datagram/held_bytes")
            .unwrap();
        let given_up: u64 = v
            .steps
            .iter()
            .filter_map(|s| s.expect.report.as_ref()?.get("given_up")?.as_u64())
            .sum();
        // Never 256 datagrams held: every one given up was for the byte bound.
        assert!(given_up >= 100, "{given_up} datagrams given up");
        let (last, converged) = last_and_converged(&v);
        assert_eq!(last, converged, "what was given up came again");
    }

    #[test]
    fn a_recording_ends_converged() {
        let v = stream_vectors().unwrap().remove(0);
        let (last, converged) = last_and_converged(&v);
        assert_eq!(last, converged);
    }

    #[test]
    fn hostile_frames_are_reported_not_fatal() {
        let mut c = open("datagram_client", &json!({})).unwrap().unwrap();
        assert!(c
            .deliver(0, "datagram", &[2, 0xff])
            .unwrap()
            .get("error")
            .is_some());
        assert!(c.deliver(0, "spawn", &[]).unwrap().get("error").is_some());
        let mut s = open("datagram_server", &json!({})).unwrap().unwrap();
        assert!(s
            .deliver(0, "datagram_ack", &[4])
            .unwrap()
            .get("error")
            .is_some());
    }
}
