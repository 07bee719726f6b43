//! The `delta` session pair (`docs/spec/delta.md`): `delta_server` is a world of slot keys and one
//! subscriber's [`DeltaBaseline`]; `delta_client` is a [`DeltaMirror`]. Plans travel as
//! `delta_plan` frames, acknowledgements as `delta_ack` frames, both unreliable.
//!
//! **Parameters** (`open`'s `params`, the same object for both halves; every member optional):
//!
//! | member | meaning | default |
//! | --- | --- | --- |
//! | `history` | `DeltaBaseline::new(history)` | 32 |
//! | `policy` | `"ack_recovery"` or `"naive"` | `"ack_recovery"` |
//! | `stalled_after_ms`, `keepalive_every_ms` | `with_flow` (both, or neither) | no flow control |
//! | `client_stalls` | `[[from_ms, to_ms], ...]`: the client stops reading (delivered plans are discarded unread and not acknowledged) from `from_ms` until `to_ms`, then drops its mirror and reads again (DELTA-25: a client may skip the stream unread if it drops its mirror) | none |
//!
//! **World operations** (`advance`'s `ops`, server half only), applied in order, keys being
//! SlotKeys `(index << 16) | generation` as JSON numbers:
//!
//! - `{"enter": key}`: the occupant `key` becomes visible; an occupant of another generation in
//!   the same slot leaves (a slot holds one occupant: a respawn is an `enter` of the next
//!   generation);
//! - `{"leave": key}`: the occupant `key` stops being visible (nothing when it is not);
//! - `{"reset": true}`: a subscriber takes the slot (`DeltaBaseline::reset`);
//! - `{"request_full_baseline": true}`: `DeltaBaseline::request_full_baseline`.
//!
//! After the ops, when `should_send(now_ms)` says so, the server sends one `delta_plan`
//! numbered from 1 upwards (one number per plan sent). On each `delta_ack` the server calls
//! `observe_ack_at(newest, mask, digest, now_ms)`. On each `delta_plan` the client applies it
//! (`DeltaMirror::apply`: a packet older than the newest applied is acknowledged, not
//! applied) and answers one `delta_ack` with its window and the `SetDigest` of its keys.
//!
//! **Client state hash**: FNV-1a 32 over the mirror's keys in ascending order, each as a `u64`
//! little endian (the empty mirror hashes to 0x811c9dc5).

use super::stream::{record, Recording};
use super::{drain, Sent, Session};
use crate::netsim::{Burst, Link, LinkConfig, NetworkConfig, SplitMix64};
use crate::streams::StreamVector;
use ackwire_codec::delta::{
    Agreement, DeltaBaseline, DeltaMirror, RecoveryPolicy, ReusePolicy, SetDigest, SlotAllocator,
    SlotKey,
};
use ackwire_codec::protocol::{DeltaAck, DeltaPlan as PlanFrame};
use ackwire_codec::rt::Frame;
use ackwire_codec::session::{self, Now, SessionError, SessionHalf};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The session halves this module opens.
pub const NAMES: &[&str] = &["delta_server", "delta_client"];

/// The parameters both halves read.
#[derive(Debug, Clone, Default)]
struct Params {
    history: usize,
    policy: RecoveryPolicy,
    flow: Option<(u64, u64)>,
    stalls: Vec<(u64, u64)>,
}

fn params(v: &Value) -> Result<Params, String> {
    let u = |name: &str| -> Result<Option<u64>, String> {
        match v.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => x
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("`{name}` must be a non-negative integer")),
        }
    };
    let history = u("history")?.unwrap_or(32);
    let policy = match v.get("policy").and_then(Value::as_str) {
        None | Some("ack_recovery") => RecoveryPolicy::AckRecovery,
        Some("naive") => RecoveryPolicy::Naive,
        Some(other) => return Err(format!("unknown policy `{other}`")),
    };
    let flow = match (u("stalled_after_ms")?, u("keepalive_every_ms")?) {
        (Some(a), Some(k)) => Some((a, k)),
        (None, None) => None,
        _ => return Err("`stalled_after_ms` and `keepalive_every_ms` go together".into()),
    };
    let mut stalls = Vec::new();
    if let Some(list) = v.get("client_stalls") {
        for s in list.as_array().ok_or("`client_stalls` must be a list")? {
            match s.as_array().map(|p| (p.first(), p.get(1))) {
                Some((Some(a), Some(b))) => stalls.push((
                    a.as_u64().ok_or("a stall is [from_ms, to_ms]")?,
                    b.as_u64().ok_or("a stall is [from_ms, to_ms]")?,
                )),
                _ => return Err("a stall is [from_ms, to_ms]".into()),
            }
        }
    }
    Ok(Params {
        history: usize::try_from(history).unwrap_or(usize::MAX).min(1 << 16),
        policy,
        flow,
        stalls,
    })
}

/// Opens `name` when it is one of [`NAMES`].
pub fn open(name: &str, params_json: &Value) -> Option<Result<Box<dyn Session>, String>> {
    let p = match params(params_json) {
        Ok(p) => p,
        Err(e) if NAMES.contains(&name) => return Some(Err(e)),
        Err(_) => return None,
    };
    match name {
        "delta_server" => Some(Ok(Box::new(DeltaServer::new(&p)))),
        "delta_client" => Some(Ok(Box::new(DeltaClient::new(&p)))),
        _ => None,
    }
}

/// The server half: the world and the codec's half (the subscriber's baseline).
struct DeltaServer {
    world: BTreeMap<u32, u16>,
    half: session::DeltaServer,
}

impl DeltaServer {
    fn new(p: &Params) -> Self {
        let mut baseline = DeltaBaseline::new(p.history).with_policy(p.policy);
        if let Some((a, k)) = p.flow {
            baseline = baseline.with_flow(a, k);
        }
        DeltaServer {
            world: BTreeMap::new(),
            half: session::DeltaServer::new(baseline),
        }
    }

    fn visible(&self) -> BTreeSet<u64> {
        self.world
            .iter()
            .map(|(i, g)| SlotKey::new(*i, *g).encode())
            .collect()
    }
}

fn key_of(v: &Value) -> Result<SlotKey, String> {
    let k = v
        .as_u64()
        .filter(|k| *k < 1 << 48)
        .ok_or_else(|| format!("a key is an integer below 2^48, not {v}"))?;
    Ok(SlotKey::decode(k))
}

impl Session for DeltaServer {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        for op in ops {
            if let Some(k) = op.get("enter") {
                let k = key_of(k)?;
                self.world.insert(k.index, k.generation);
            } else if let Some(k) = op.get("leave") {
                let k = key_of(k)?;
                if self.world.get(&k.index) == Some(&k.generation) {
                    self.world.remove(&k.index);
                }
            } else if op.get("reset") == Some(&Value::Bool(true)) {
                self.half.machine_mut().reset();
            } else if op.get("request_full_baseline") == Some(&Value::Bool(true)) {
                self.half.machine_mut().request_full_baseline();
            } else {
                return Err(format!("unknown delta world op {op}"));
            }
        }
        let visible = self.visible();
        self.half
            .handle_tick(Now::new(tick, now_ms), &visible)
            .map_err(|e| e.to_string())
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        match self.half.handle_frame(Now::new(0, now_ms), frame, bytes) {
            Ok(r) => Ok(json!({
                "acked_seq": r.acked_seq,
                "unacked": r.unacked,
                "full_rebuilds": r.full_rebuilds,
                "stalled": r.stalled,
            })),
            Err(SessionError::UnexpectedFrame(_)) => Ok(json!({
                "dropped": format!("the server takes delta_ack, not {frame}")
            })),
            Err(SessionError::Decode(e)) => Ok(json!({"dropped": e.kind.to_string()})),
            Err(e) => Err(e.to_string()),
        }
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.half)
    }

    fn state_hash(&mut self) -> Option<u32> {
        None
    }
}

/// The client half: the codec's (a mirror that acknowledges every plan it reads), and when
/// the client stops reading.
struct DeltaClient {
    half: session::DeltaClient,
    stalls: Vec<(u64, u64)>,
    /// Set while the client is not reading; it drops its mirror when it reads again.
    unread: bool,
}

impl DeltaClient {
    fn new(p: &Params) -> Self {
        DeltaClient {
            half: session::DeltaClient::new(DeltaMirror::new()),
            stalls: p.stalls.clone(),
            unread: false,
        }
    }
}

/// FNV-1a 32 over the keys ascending, each as a `u64` little endian (CHECK-10).
pub fn mirror_hash(keys: impl Iterator<Item = u64>) -> u32 {
    let bytes: Vec<u8> = keys.flat_map(u64::to_le_bytes).collect();
    ackwire_codec::rt::fnv1a32(&bytes)
}

impl Session for DeltaClient {
    fn advance(&mut self, _tick: u64, _now_ms: u64, ops: &[Value]) -> Result<(), String> {
        if ops.is_empty() {
            Ok(())
        } else {
            Err("the delta client takes no world ops".into())
        }
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        if frame != "delta_plan" {
            return Ok(json!({"dropped": format!("the client takes delta_plan, not {frame}")}));
        }
        if self.stalls.iter().any(|(a, b)| (*a..*b).contains(&now_ms)) {
            self.unread = true;
            return Ok(json!({"unread": true}));
        }
        // A plan that does not decode leaves the mirror, and whether it is to be dropped, as
        // they are: check before the half reads it.
        if let Err(e) = PlanFrame::decode(bytes) {
            return Ok(json!({"dropped": e.kind.to_string()}));
        }
        let dropped_mirror = std::mem::take(&mut self.unread);
        if dropped_mirror {
            self.half.machine_mut().clear();
        }
        let a = match self.half.handle_frame(Now::new(0, now_ms), frame, bytes) {
            Ok(a) => a,
            // Past the mirror's limit: refused whole and not acknowledged, as if lost.
            Err(SessionError::Limit(e)) => {
                let held = self.half.machine().len();
                return Ok(json!({"refused": e.to_string(), "held": held}));
            }
            Err(e) => return Err(e.to_string()),
        };
        Ok(json!({
            "applied": a.applied,
            "full_baseline": a.cleared,
            "entered": a.entered,
            "left": a.left,
            "held": self.half.machine().len(),
            "dropped_mirror": dropped_mirror,
        }))
    }

    fn take(&mut self) -> Vec<Sent> {
        drain(&mut self.half)
    }

    fn state_hash(&mut self) -> Option<u32> {
        // CHECK-10: the keys held, ascending, each a u64 little endian.
        let keys = self.half.machine().keys().map(SlotKey::encode);
        Some(mirror_hash(keys))
    }
}

/// A world that churns: `slots` slots, each occupied or not, occupants entering, leaving and
/// respawning (the next generation in the same slot) at random. Returns the ops of one tick.
///
/// Which slot an event touches is random, so occupants enter through
/// [`SlotAllocator::allocate_at`]; the allocator keeps the generations (the first occupant of a
/// slot is generation 0, each reuse the next).
struct Churn {
    rng: SplitMix64,
    world: SlotAllocator,
    slots: u32,
}

impl Churn {
    fn new(seed: u64, slots: u32) -> Self {
        let slots = slots.max(1);
        Churn {
            rng: SplitMix64::new(seed),
            world: SlotAllocator::new(slots, ReusePolicy::LowestFree),
            slots,
        }
    }

    /// The occupants now, as encoded keys.
    fn visible(&self) -> BTreeSet<u64> {
        self.world.live().map(SlotKey::encode).collect()
    }

    /// `changes` random events: a free slot fills, an occupant leaves, or one respawns.
    fn tick(&mut self, changes: u32) -> Vec<(Option<u64>, Option<u64>)> {
        let mut out = Vec::new();
        for _ in 0..changes {
            let slot = (self.rng.next_u64() % u64::from(self.slots)) as u32;
            let roll = self.rng.next_u64() % 8;
            let old = self.world.occupant(slot);
            // Respawn (roll 0) and leave both free the occupant; a free slot fills.
            if let Some(old) = old {
                self.world.free(old);
            }
            let new = match old {
                Some(_) if roll != 0 => None,
                _ => self.world.allocate_at(slot),
            };
            out.push((new.map(SlotKey::encode), old.map(SlotKey::encode)));
        }
        out
    }

    fn ops(&mut self, changes: u32) -> Vec<Value> {
        let mut ops = Vec::new();
        for (enter, leave) in self.tick(changes) {
            if let Some(l) = leave {
                ops.push(json!({"leave": l}));
            }
            if let Some(e) = enter {
                ops.push(json!({"enter": e}));
            }
        }
        ops
    }
}

fn churn_script(
    seed: u64,
    slots: u32,
    ticks: usize,
    initial: u32,
    per_tick: u32,
) -> Vec<Vec<Value>> {
    let mut world = Churn::new(seed, slots);
    (0..ticks)
        .map(|t| world.ops(if t == 0 { initial } else { per_tick }))
        .collect()
}

/// This pair's stream vectors, recorded anew.
pub fn stream_vectors() -> Result<Vec<StreamVector>, String> {
    let base = |name: &str, description: &str| Recording {
        name: format!("delta/{name}"),
        description: description.into(),
        seed: "GEN-3, DELTA-9, DELTA-10, DELTA-14, CHECK-10".into(),
        session: "delta".into(),
        params: json!({"history": 32}),
        tick_ms: 50,
        network: NetworkConfig {
            down: LinkConfig::lossy(0.0, 0.0, 30, 0),
            up: LinkConfig::lossy(0.0, 0.0, 30, 0),
            seed: 1,
        },
        script: churn_script(1, 48, 80, 24, 2),
        drain_ms: 300,
    };
    let mut recs = Vec::new();
    recs.push(base(
        "clean",
        "a full baseline, then deltas against the acknowledged state over a perfect network",
    ));
    let mut r = base(
        "loss_10",
        "10% loss each way with jitter: lost packets' keys re-derived from the acknowledged baseline",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.10, 0.0, 40, 30),
        up: LinkConfig::lossy(0.10, 0.0, 40, 30),
        seed: 10,
    };
    r.script = churn_script(10, 48, 120, 24, 2);
    recs.push(r);
    let mut r = base(
        "loss_25_duplicate_reorder",
        "25% loss, 10% duplication and 60 ms of jitter: stale packets acknowledged, not applied",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.25, 0.10, 30, 60),
        up: LinkConfig::lossy(0.25, 0.10, 30, 60),
        seed: 25,
    };
    r.script = churn_script(25, 48, 120, 24, 3);
    recs.push(r);
    let mut r = base(
        "respawn",
        "occupants respawn in their own slot (the next generation) under loss and reordering",
    );
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.15, 0.05, 30, 40),
        up: LinkConfig::lossy(0.15, 0.0, 30, 40),
        seed: 7,
    };
    // Eight slots, each reused in turn: freed, then handed out again by the lowest-free policy
    // as its next generation.
    let mut slots = SlotAllocator::new(8, ReusePolicy::LowestFree);
    let mut script: Vec<Vec<Value>> = vec![(0..8)
        .filter_map(|_| slots.allocate())
        .map(|k| json!({"enter": k.encode()}))
        .collect()];
    for t in 1..100u32 {
        let old = slots
            .occupant(t % 8)
            .ok_or("the respawn script lost a slot")?;
        slots.free(old);
        let new = slots
            .allocate()
            .ok_or("the respawn script ran out of slots")?;
        script.push(vec![
            json!({"enter": new.encode()}),
            json!({"leave": old.encode()}),
        ]);
    }
    r.script = script;
    recs.push(r);
    let mut r = base(
        "warm_join",
        "the slot streams for a while, then a new subscriber takes it (reset): a full baseline",
    );
    r.network.down = LinkConfig::lossy(0.05, 0.0, 30, 10);
    r.script = churn_script(3, 48, 80, 24, 2);
    r.script[40].push(json!({"reset": true}));
    r.script[60].push(json!({"request_full_baseline": true}));
    recs.push(r);
    let mut r = base(
        "long_stall",
        "the client stops reading for 3 s and drops its mirror: keepalives, the resume epoch",
    );
    r.params = json!({"history": 16, "stalled_after_ms": 600, "keepalive_every_ms": 500,
                      "client_stalls": [[1500, 4500]]});
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.05, 0.0, 30, 20),
        up: LinkConfig::lossy(0.05, 0.0, 30, 20),
        seed: 5,
    };
    r.script = churn_script(5, 48, 140, 24, 2);
    recs.push(r);
    let mut r = base(
        "burst_loss",
        "loss in bursts (a Gilbert-Elliott chain): the baseline ages out of history and is rebuilt",
    );
    r.params = json!({"history": 8});
    r.network = NetworkConfig {
        down: LinkConfig {
            burst: Some(Burst {
                enter: 0.05,
                leave: 0.2,
                loss: 0.9,
            }),
            ..LinkConfig::lossy(0.02, 0.0, 30, 10)
        },
        up: LinkConfig::lossy(0.02, 0.0, 30, 10),
        seed: 9,
    };
    r.script = churn_script(9, 48, 120, 24, 2);
    recs.push(r);
    let mut r = base(
        "naive_loss",
        "the last-sent policy under 10% loss: what a lost packet carried is never sent again",
    );
    r.params = json!({"history": 32, "policy": "naive"});
    r.network = NetworkConfig {
        down: LinkConfig::lossy(0.10, 0.0, 30, 0),
        up: LinkConfig::lossy(0.0, 0.0, 30, 0),
        seed: 11,
    };
    r.script = churn_script(11, 48, 80, 24, 2);
    recs.push(r);
    recs.iter().map(record).collect()
}

/// One row of the policy table: a world streamed to one subscriber through the simulated
/// network under one policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyRow {
    /// Acknowledgements whose digest is not the digest of the state the server sent with the
    /// packet they acknowledge as newest: the mirror is not in the state its newest packet
    /// describes.
    pub mismatches: u64,
    /// Mean, over every tick after the first second, of keys the mirror holds that the world
    /// does not (corpses).
    pub phantoms: f64,
    /// Mean of keys the world holds that the mirror does not (omissions); never zero with
    /// churn, because keys that just entered are still in flight.
    pub missing: f64,
    /// Plan bytes sent per second.
    pub bytes_per_second: f64,
    /// The server's full rebuilds.
    pub full_rebuilds: u64,
}

/// What [`measure_policy`] simulates.
#[derive(Debug, Clone, Copy)]
pub struct PolicyRun {
    /// The policy.
    pub policy: RecoveryPolicy,
    /// Loss rate each way.
    pub loss: f64,
    /// Simulated seconds.
    pub seconds: u64,
    /// Slots in the world (about half occupied).
    pub slots: u32,
    /// Entering, leaving and respawning events per tick.
    pub churn: u32,
    /// The network's seed and the world's.
    pub seed: u64,
}

/// Streams a churning world to one subscriber through the network simulator (20 ticks a
/// second, 40 ms latency and 20 ms jitter each way, at `loss`), as `delta_plan` and
/// `delta_ack` frames, and measures the mirror against the world.
pub fn measure_policy(run: &PolicyRun) -> PolicyRow {
    const TICK_MS: u64 = 50;
    let link = LinkConfig::lossy(run.loss, 0.0, 40, 20);
    let mut seeds = SplitMix64::new(run.seed);
    let mut down = Link::new(link, seeds.next_u64());
    let mut up = Link::new(link, seeds.next_u64());
    let mut world = Churn::new(run.seed, run.slots);
    let mut baseline = DeltaBaseline::new(64).with_policy(run.policy);
    let mut mirror = DeltaMirror::<()>::new();
    let mut sent_digests: BTreeMap<u64, u64> = BTreeMap::new();
    let mut row = PolicyRow {
        mismatches: 0,
        phantoms: 0.0,
        missing: 0.0,
        bytes_per_second: 0.0,
        full_rebuilds: 0,
    };
    let (mut seq, mut bytes, mut samples) = (0u64, 0u64, 0u64);
    let end = run.seconds * 1000;
    let warm = run.slots / 2;
    for now in 0..=end {
        while let Some(packet) = down.poll(now) {
            if let Ok(plan) = PlanFrame::decode(&packet) {
                // A plan refused past the mirror's limit is not acknowledged, as if lost.
                if mirror.apply(&plan).is_ok() {
                    if let Some(ack) = mirror.ack().and_then(|a| a.to_bytes().ok()) {
                        up.send(now, ack);
                    }
                }
            }
        }
        while let Some(packet) = up.poll(now) {
            if let Ok(ack) = DeltaAck::decode(&packet) {
                if sent_digests
                    .get(&ack.newest)
                    .is_some_and(|d| Agreement::compare(*d, ack.digest).is_disagreement())
                {
                    row.mismatches += 1;
                }
                baseline.observe_ack(ack.newest, ack.mask, ack.digest);
            }
        }
        if now % TICK_MS != 0 {
            continue;
        }
        world.tick(if now == 0 { warm } else { run.churn });
        let visible = world.visible();
        if now >= 1000 {
            let held: BTreeSet<u64> = mirror.keys().map(SlotKey::encode).collect();
            row.phantoms += held.difference(&visible).count() as f64;
            row.missing += visible.difference(&held).count() as f64;
            samples += 1;
        }
        seq += 1;
        let frame = baseline.plan(&visible, seq).to_frame(seq);
        sent_digests.insert(seq, SetDigest::from_keys(visible.iter().copied()).digest());
        while sent_digests.len() > 256 {
            sent_digests.pop_first();
        }
        if let Ok(b) = frame.to_bytes() {
            bytes += b.len() as u64;
            down.send(now, b);
        }
    }
    let samples = samples.max(1) as f64;
    row.phantoms /= samples;
    row.missing /= samples;
    row.bytes_per_second = bytes as f64 / run.seconds.max(1) as f64;
    row.full_rebuilds = baseline.full_rebuilds();
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stream::verify;

    #[test]
    fn every_delta_vector_records_and_replays_on_both_halves() {
        for v in stream_vectors().unwrap() {
            verify(&v).unwrap_or_else(|e| panic!("{}: {e}", v.name));
            let size = serde_json::to_string_pretty(&v).unwrap().len();
            assert!(size < 300_000, "{} is {size} bytes", v.name);
        }
    }

    #[test]
    fn the_client_hash_is_fnv1a_over_the_keys_ascending_little_endian() {
        assert_eq!(mirror_hash(std::iter::empty()), 0x811c_9dc5);
        let mut bytes = 1u64.to_le_bytes().to_vec();
        bytes.extend(70_000u64.to_le_bytes());
        assert_eq!(
            mirror_hash([1, 70_000].into_iter()),
            ackwire_codec::rt::fnv1a32(&bytes)
        );
    }

    #[test]
    fn bad_params_and_ops_are_errors_not_panics() {
        assert!(open("delta_server", &json!({"policy": "sometimes"}))
            .unwrap()
            .is_err());
        assert!(open("delta_server", &json!({"stalled_after_ms": 5}))
            .unwrap()
            .is_err());
        assert!(open("acked_server", &json!({})).is_none());
        let mut s = open("delta_server", &json!({})).unwrap().unwrap();
        assert!(s.advance(1, 50, &[json!({"enter": -1})]).is_err());
        assert!(s.advance(1, 50, &[json!({"fly": 1})]).is_err());
        let r = s.deliver(60, "delta_ack", &[10, 0x80]).unwrap();
        assert!(r.get("dropped").is_some());
    }
}
