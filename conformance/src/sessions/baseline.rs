//! The `baseline` session pair (`docs/spec/baseline.md`): `baseline_server` is a [`SnapshotWriter`]
//! over a scripted [`Scene`], writing one snapshot a tick; `baseline_client` is a
//! [`SnapshotClient`] that acknowledges each snapshot it applies.
//!
//! Parameters (an object; every key optional, the same object opens both halves):
//! - `budget` (bytes, default 1200): a snapshot's size at most;
//! - `client` (default 1): the connection's client id; entities it owns go first under the
//!   budget;
//! - `first_sequence` (default 0): the first snapshot's sequence (to cross the u16 wrap);
//! - `max_entities` (default 65536): entities the client holds at most.
//!
//! World operations (the server half's `advance` ops), one JSON object each:
//! - `{"spawn": {"slot", "generation", "owner"}}`: a new occupant of the slot (`owner`
//!   optional), replacing any;
//! - `{"despawn": {"slot"}}`: the slot's occupant is destroyed;
//! - `{"transform": {"slot", "x", "y", "z", "yaw"}}`, `{"velocity": {"slot", "vx", "vy",
//!   "vz"}}`, `{"health": {"slot", "hp"}}`, `{"team": {"slot", "team"}}`: a component is set
//!   (metres, degrees, metres per second).
//!
//! A world replaced under the live session (NB-13) needs the client told at the same sequence, out
//! of band; it is tested in the codec, not scripted here.
//!
//! Snapshots and acknowledgements travel unreliable. Reports: the client's is its
//! [`SnapshotSummary`](ackwire_codec::baseline::SnapshotSummary); the server's says how many
//! snapshots it holds unconfirmed and how many entities it was told about; a frame that does
//! not decode is `{"error": kind}`.
//!
//! The client's state hash is FNV-1a 32 over
//! [`SnapshotClient::canonical_bytes`](ackwire_codec::baseline::SnapshotClient::canonical_bytes):
//! per entity in ascending slot, `u32 slot` (little endian), `u8 generation`, `u8 mask` (bit i:
//! component i held, in schema order Transform, Velocity, Health, Team), then each held
//! component's bits as the snapshot body encodes them, each padded to a byte.

use super::stream::{record, Recording};
use super::{drain, no_world, Sent, Session};
use crate::netsim::{Burst, LinkConfig, NetworkConfig};
use crate::streams::StreamVector;
use ackwire_codec::baseline::{ComponentValue, EntityId, Scene, SnapshotClient, SnapshotWriter};
use ackwire_codec::protocol::{Team, Transform, Velocity, Vitality};
use ackwire_codec::session::{self, Now, SessionError, SessionHalf};
use serde_json::{json, Value};

/// The session halves this module opens.
pub const NAMES: &[&str] = &["baseline_server", "baseline_client"];

struct Params {
    budget: usize,
    client: u32,
    first: u16,
    max_entities: usize,
}

fn params(v: &Value) -> Result<Params, String> {
    let get = |k: &str, d: u64| -> Result<u64, String> {
        v.get(k).map_or(Ok(d), |x| {
            x.as_u64()
                .ok_or(format!("`{k}` must be an unsigned integer"))
        })
    };
    Ok(Params {
        budget: get("budget", 1200)? as usize,
        client: u32::try_from(get("client", 1)?).map_err(|_| "`client` must fit a u32")?,
        first: u16::try_from(get("first_sequence", 0)?)
            .map_err(|_| "`first_sequence` must fit a u16")?,
        max_entities: get("max_entities", 1 << 16)? as usize,
    })
}

/// Opens `name` when it is one of [`NAMES`].
pub fn open(name: &str, params_v: &Value) -> Option<Result<Box<dyn Session>, String>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let p = match params(params_v) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(if name == "baseline_server" {
        Box::new(Server {
            scene: Scene::new(),
            half: session::BaselineServer::new(SnapshotWriter::new(
                Some(p.client),
                p.budget,
                p.first,
            )),
        })
    } else {
        Box::new(Client(session::BaselineClient::new(SnapshotClient::new(
            p.max_entities,
        ))))
    }))
}

struct Server {
    scene: Scene,
    half: session::BaselineServer,
}

struct Client(session::BaselineClient);

/// A frame's report, or what the half said of a frame it did not take or could not decode.
fn report(frame: &str, r: Result<Value, SessionError>) -> Result<Value, String> {
    match r {
        Ok(v) => Ok(v),
        Err(SessionError::Decode(e)) => Ok(json!({ "error": e.kind.to_string() })),
        Err(SessionError::UnexpectedFrame(_)) => Ok(json!({ "ignored": frame })),
        Err(e) => Err(e.to_string()),
    }
}

fn num(v: &Value, k: &str) -> Result<f64, String> {
    v.get(k)
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("missing number `{k}` in {v}"))
}

fn small(v: &Value, k: &str) -> Result<u8, String> {
    v.get(k)
        .and_then(Value::as_u64)
        .and_then(|x| u8::try_from(x).ok())
        .ok_or_else(|| format!("`{k}` must be an integer 0..=255 in {v}"))
}

fn slot(v: &Value) -> Result<u32, String> {
    v.get("slot")
        .and_then(Value::as_u64)
        .and_then(|x| u32::try_from(x).ok())
        .ok_or_else(|| format!("`slot` must be a u32 in {v}"))
}

fn apply(scene: &mut Scene, v: &Value) -> Result<(), String> {
    let (name, b) = v
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or_else(|| format!("a world op is an object with one member: {v}"))?;
    let value = match name.as_str() {
        "spawn" => {
            let owner = b
                .get("owner")
                .and_then(Value::as_u64)
                .and_then(|o| u32::try_from(o).ok());
            let id = EntityId {
                slot: slot(b)?,
                generation: small(b, "generation")?,
            };
            return scene.spawn(id, owner).map_err(|e| e.to_string());
        }
        "despawn" => {
            scene.despawn(slot(b)?);
            return Ok(());
        }
        "transform" => ComponentValue::Transform(Transform {
            x: num(b, "x")?,
            y: num(b, "y")?,
            z: num(b, "z")?,
            yaw: num(b, "yaw")?,
        }),
        "velocity" => ComponentValue::Velocity(Velocity {
            vx: num(b, "vx")?,
            vy: num(b, "vy")?,
            vz: num(b, "vz")?,
        }),
        "health" => ComponentValue::Health(Vitality {
            hp: small(b, "hp")?,
        }),
        "team" => ComponentValue::Team(Team {
            team: small(b, "team")?,
        }),
        other => return Err(format!("unknown world op `{other}`")),
    };
    scene.set(slot(b)?, value).map_err(|e| e.to_string())
}

impl Session for Server {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        for v in ops {
            apply(&mut self.scene, v)?;
        }
        self.half
            .handle_tick(Now::new(tick, now_ms), &self.scene)
            .map_err(|e| e.to_string())
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let r = self.half.handle_frame(Now::new(0, now_ms), frame, bytes);
        report(
            frame,
            r.map(|a| json!({"pending": a.pending, "told": a.told})),
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
        match self.0.handle_frame(Now::new(0, now_ms), frame, bytes) {
            Ok(summary) => serde_json::to_value(summary).map_err(|e| e.to_string()),
            Err(e) => report(frame, Err(e)),
        }
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.0)
    }

    fn state_hash(&mut self) -> Option<u32> {
        // CHECK-9: the snapshot client's canonical bytes.
        Some(self.0.machine().state_hash())
    }
}

/// A deterministic world of `n` slots over `ticks` ticks; slot 0 is owned by client 1; with
/// `reuse_every`, slot 1's occupant is destroyed and the slot reused by a new generation.
fn world(seed: u64, ticks: u64, n: u32, reuse_every: Option<u64>) -> Vec<Vec<Value>> {
    let mut rng = crate::netsim::SplitMix64::new(seed);
    let mut generation = vec![1u8; n as usize];
    let mut script = Vec::new();
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        if tick == 1 {
            for slot in 0..n {
                let owner = (slot == 0).then_some(1);
                ops.push(json!({"spawn": {"slot": slot * 3, "generation": 1, "owner": owner}}));
                ops.push(json!({"health": {"slot": slot * 3, "hp": 100}}));
                ops.push(json!({"team": {"slot": slot * 3, "team": slot % 8}}));
            }
        }
        for slot in 0..n {
            if rng.chance(0.5) {
                let x = ((rng.next_f64() - 0.5) * 200.0 * 64.0).round() / 64.0;
                let y = ((rng.next_f64() - 0.5) * 200.0 * 64.0).round() / 64.0;
                ops.push(
                    json!({"transform": {"slot": slot * 3, "x": x, "y": y, "z": 1.5, "yaw": 45.0}}),
                );
            }
            if rng.chance(0.1) {
                ops.push(json!({"health": {"slot": slot * 3, "hp": rng.below_or_at(127)}}));
            }
            if rng.chance(0.05) {
                ops.push(json!({"velocity": {"slot": slot * 3, "vx": 1.0, "vy": -2.0, "vz": 0.5}}));
            }
        }
        if n > 1 && reuse_every.is_some_and(|e| tick.is_multiple_of(e)) {
            generation[1] = generation[1].wrapping_add(1);
            ops.push(json!({"despawn": {"slot": 3}}));
            ops.push(json!({"spawn": {"slot": 3, "generation": generation[1]}}));
            ops.push(json!({"health": {"slot": 3, "hp": 100}}));
        }
        script.push(ops);
    }
    script
}

/// This pair's stream vectors, recorded anew.
pub fn stream_vectors() -> Result<Vec<StreamVector>, String> {
    let base = |name: &str, description: &str| Recording {
        name: format!("baseline/{name}"),
        description: description.into(),
        seed: "GEN-3, NB-7, NB-8, NB-16, CHECK-9".into(),
        session: "baseline".into(),
        params: json!({"budget": 1200, "client": 1}),
        tick_ms: 20,
        network: NetworkConfig {
            down: LinkConfig::lossy(0.0, 0.0, 30, 0),
            up: LinkConfig::lossy(0.0, 0.0, 30, 0),
            seed: 1,
        },
        script: world(1, 40, 4, None),
        drain_ms: 200,
    };
    let mut recs = vec![base(
        "no_loss",
        "a perfect network: the whole world first, then only components whose bits changed",
    )];
    let mut r = base(
        "loss_25_duplicated_reordered",
        "25% loss, duplicates and reordering each way: what is unconfirmed is said again, a stale snapshot is dropped",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.25, 0.2, 30, 50),
        up: LinkConfig::lossy(0.25, 0.2, 30, 50),
        seed: 2,
    };
    r.script = world(2, 40, 4, None);
    recs.push(r);
    let mut r = base(
        "slot_reuse",
        "a slot reused by a new generation every 4 ticks under loss: by entity, never by slot; destruction reliable until confirmed",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.2, 0.1, 20, 40),
        up: LinkConfig::lossy(0.2, 0.1, 20, 40),
        seed: 3,
    };
    r.script = world(3, 40, 3, Some(4));
    recs.push(r);
    let mut r = base(
        "budget",
        "a 24-byte budget: owned entities go first, then the longest unconfirmed, then by slot",
    );
    r.params = json!({"budget": 24, "client": 1});
    r.network.down = LinkConfig::lossy(0.1, 0.0, 30, 10);
    r.network.seed = 4;
    r.script = world(4, 40, 5, Some(9));
    recs.push(r);
    let mut r = base(
        "sequence_wrap",
        "sequences from 65520 across the u16 wrap under loss and reordering",
    );
    r.params = json!({"budget": 1200, "client": 1, "first_sequence": 65520});
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.15, 0.1, 30, 40),
        up: LinkConfig::lossy(0.15, 0.1, 30, 40),
        seed: 5,
    };
    r.script = world(5, 40, 3, Some(7));
    recs.push(r);
    let mut r = base(
        "long_stall",
        "a stall longer than ACK_WINDOW snapshots both ways: held snapshots expire, what they said is said again, the client converges",
    );
    let stall = |seed_loss: f64| LinkConfig {
        burst: Some(Burst {
            enter: 0.02,
            leave: 0.01,
            loss: 1.0,
        }),
        ..LinkConfig::lossy(seed_loss, 0.0, 30, 10)
    };
    r.network = NetworkConfig {
        down: stall(0.02),
        up: stall(0.02),
        seed: 8,
    };
    r.script = world(6, 160, 2, Some(30));
    r.script.extend((0..10).map(|_| Vec::new()));
    recs.push(r);
    recs.iter().map(record).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stream::verify;

    #[test]
    fn the_vectors_replay_on_both_halves() {
        for v in stream_vectors().unwrap() {
            verify(&v).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        }
    }

    #[test]
    fn the_long_stall_outlasts_the_window() {
        let v = stream_vectors()
            .unwrap()
            .into_iter()
            .find(|v| v.name == "baseline/long_stall")
            .unwrap();
        // Some stretch of more than ACK_WINDOW ticks delivers no snapshot to the client.
        let mut at: Vec<u64> = v
            .steps
            .iter()
            .filter(|s| s.side == crate::streams::Side::Client)
            .filter(|s| matches!(s.action, crate::streams::Action::Deliver { .. }))
            .map(|s| s.at_ms)
            .collect();
        at.dedup();
        let longest = at.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        assert!(longest > 64 * v.tick_ms, "longest gap {longest} ms");
    }

    #[test]
    fn hostile_frames_are_reported_not_fatal() {
        let mut c = open("baseline_client", &json!({})).unwrap().unwrap();
        assert!(c
            .deliver(0, "snapshot", &[8, 0])
            .unwrap()
            .get("error")
            .is_some());
        let mut s = open("baseline_server", &json!({})).unwrap().unwrap();
        assert!(s
            .deliver(0, "snapshot_ack", &[11])
            .unwrap()
            .get("error")
            .is_some());
        assert!(s
            .advance(1, 0, &[json!({"health": {"slot": 9, "hp": 3}})])
            .is_err());
    }
}
