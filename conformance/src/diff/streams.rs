//! Differential stream fuzzing: seeded lossy streams of every session pair, recorded with the
//! Rust halves, then replayed one half at a time through every other testee; a half that does
//! not do what the Rust half did (the same report of every delivery, the same frames, bytes and
//! channels after every step, and for a client the same state hash after every delivery) is a
//! disagreement, shrunk into a stream vector that `ackwire conform` runs.
//!
//! TESTEE-13: the session halves of every language are held to the Rust ones by the stream vectors
//! and by these streams: the same seeded lossy stream through every implementation gives the same
//! reports, frames and state hashes, and a disagreement is shrunk into a stream vector.
//!
//! A stream is a [`Recording`]: a random world in the session's own vocabulary (the world ops
//! its module in [`crate::sessions`] documents), random parameters within the session's, and a
//! random network ([`random_network`]: loss, bursts, duplication, latency and jitter that
//! reorders, each way). [`stream::record`] runs it through the simulator with the Rust halves,
//! and [`stream::replay`] holds the testee's half to the log, exactly as a stream vector's case
//! does.
//!
//! Shrinking ([`shrink`]) re-records smaller recordings (fewer ticks, fewer entities, fewer
//! ops, a kinder network, a shorter drain) and keeps each one the testee still disagrees on,
//! within a budget of replays; the vector is then cut after the step where the testee first
//! strays. A testee that lists no session halves in `hello` is skipped, and said to be.

use crate::netsim::{Burst, LinkConfig, NetworkConfig, SplitMix64};
use crate::sessions::stream::{self, Recording};
use crate::streams::{Side, StreamVector};
use crate::testee_client::{RemoteSession, RunError, TesteeProcess};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The session pairs streams are drawn from, in turn: the four protocols' and `acked_packed` (the
/// acked machines over kind 12 frames, ACK-16, the same world as `acked`'s). A testee that does not
/// list a pair's halves in hello has them counted as not listed, never replayed.
pub const SESSIONS: [&str; 5] = ["acked", "datagram", "baseline", "delta", "acked_packed"];

/// The replays one disagreement's shrinking may spend, at most: shrinking is bounded, a
/// stream that shrinks slowly is written as far as it got.
pub const SHRINK_BUDGET: usize = 150;

fn seed_doc(session: &str) -> &'static str {
    match session {
        "acked" => "000",
        "acked_packed" => "000 / issue 19",
        "datagram" => "003",
        "baseline" => "002",
        _ => "004 §7",
    }
}

/// One direction's random link: loss (sometimes in bursts), duplication, latency and jitter.
fn random_link(rng: &mut SplitMix64) -> LinkConfig {
    let pick = |rng: &mut SplitMix64, of: &[f64]| of[rng.below_or_at(of.len() as u64 - 1) as usize];
    LinkConfig {
        loss: pick(rng, &[0.0, 0.02, 0.05, 0.1, 0.25, 0.5]),
        burst: rng.chance(0.2).then(|| Burst {
            enter: pick(rng, &[0.02, 0.05, 0.1]),
            leave: pick(rng, &[0.05, 0.2, 0.5]),
            loss: pick(rng, &[0.5, 1.0]),
        }),
        duplicate: pick(rng, &[0.0, 0.0, 0.05, 0.2, 0.4]),
        latency_ms: 5 + rng.below_or_at(60),
        jitter_ms: pick(rng, &[0.0, 5.0, 20.0, 60.0, 120.0]) as u64,
        bandwidth: None,
    }
}

/// A random network, each way a link of its own: loss (in bursts a fifth of the time),
/// duplication, latency and a jitter that reorders.
pub fn random_network(rng: &mut SplitMix64) -> NetworkConfig {
    NetworkConfig {
        down: random_link(rng),
        up: random_link(rng),
        seed: rng.next_u64() % 1_000_000,
    }
}

/// A coordinate in `[-half, half]` metres, on a 1/16 m grid so vector files print short numbers.
fn coord(rng: &mut SplitMix64, half: f64) -> f64 {
    ((rng.next_f64() * 2.0 - 1.0) * half * 16.0).round() / 16.0
}

/// The acked stream's world (the `acked` module's ops): entities 1..=n spawn, walk, change their
/// rest, die and come back under the same id; shots and hits now and then.
fn acked_world(rng: &mut SplitMix64, ticks: u64, n: u64) -> Vec<Vec<Value>> {
    let mut alive = BTreeSet::new();
    let mut script = Vec::new();
    let spawn = |rng: &mut SplitMix64, eid: u64| {
        json!({"spawn": {"eid": eid, "x": coord(rng, 24.0), "y": coord(rng, 24.0), "z": 0.0,
            "yaw": rng.below_or_at(359), "hp": 100}})
    };
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        for eid in 1..=n {
            if !alive.contains(&eid) {
                if tick == 1 || rng.chance(0.2) {
                    ops.push(spawn(rng, eid));
                    alive.insert(eid);
                }
                continue;
            }
            let roll = rng.next_f64();
            if roll < 0.5 {
                ops.push(json!({"move": {"eid": eid, "x": coord(rng, 24.0),
                    "y": coord(rng, 24.0), "z": coord(rng, 2.0).abs(),
                    "yaw": rng.below_or_at(359)}}));
            } else if roll < 0.58 {
                ops.push(json!({"set": {"eid": eid, "hp": rng.below_or_at(100),
                    "armor": rng.below_or_at(50), "vehicle": rng.below_or_at(3),
                    "seat": rng.below_or_at(2)}}));
            } else if roll < 0.61 && eid != 1 {
                ops.push(json!({"despawn": {"eid": eid}}));
                alive.remove(&eid);
            }
        }
        if rng.chance(0.15) {
            let shooter = 1 + rng.below_or_at(n - 1);
            ops.push(json!({"event": {"shot": {"shooter": shooter,
                "weapon": rng.below_or_at(5), "yaw": 90.0}}}));
        }
        if rng.chance(0.08) {
            ops.push(
                json!({"event": {"hit": {"attacker": 1 + rng.below_or_at(n - 1),
                "victim": 1 + rng.below_or_at(n - 1), "damage": 1 + rng.below_or_at(30)}}}),
            );
        }
        script.push(ops);
    }
    script
}

/// Datagram v2's world (the `datagram` module's ops): entities 1..=n enter with a component, move,
/// gain, change and lose components, leave and re-enter; a full frame now and then; the shard's
/// input ack climbs.
fn datagram_world(rng: &mut SplitMix64, ticks: u64, n: u64) -> Vec<Vec<Value>> {
    let mut alive = BTreeSet::new();
    let mut script = Vec::new();
    let mut seq = 0u64;
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        for id in 1..=n {
            if !alive.contains(&id) {
                if tick == 1 || rng.chance(0.2) {
                    ops.push(json!({"spawn": {"id": id, "x": coord(rng, 20.0),
                        "y": coord(rng, 20.0), "z": 0.25,
                        "components": {"1": format!("{:02x}", rng.below_or_at(255))}}}));
                    alive.insert(id);
                }
                continue;
            }
            let roll = rng.next_f64();
            if roll < 0.5 {
                ops.push(json!({"move": {"id": id, "x": coord(rng, 20.0),
                    "y": coord(rng, 20.0), "z": 0.25}}));
            } else if roll < 0.6 {
                let len = 1 + rng.below_or_at(3) as usize;
                let hex: String = (0..len)
                    .map(|_| format!("{:02x}", rng.below_or_at(255)))
                    .collect();
                ops.push(json!({"set": {"id": id, "type": 2 + rng.below_or_at(2), "hex": hex}}));
            } else if roll < 0.65 {
                ops.push(json!({"remove": {"id": id, "type": 2 + rng.below_or_at(2)}}));
            } else if roll < 0.68 {
                ops.push(json!({"despawn": {"id": id}}));
                alive.remove(&id);
            }
        }
        if tick > 1 && rng.chance(0.04) {
            ops.push(json!({"full_frame": {}}));
        }
        if rng.chance(0.3) {
            seq += 1 + rng.below_or_at(3);
            ops.push(json!({"input_ack": {"seq": seq}}));
        }
        script.push(ops);
    }
    script
}

/// NetBaseline's world (the `baseline` module's ops): slots 0, 3, 6, ... (slot 0 owned by client 1)
/// filled, their components set, destroyed and reused by the next generation.
fn baseline_world(rng: &mut SplitMix64, ticks: u64, n: u64) -> Vec<Vec<Value>> {
    let mut generation = vec![0u64; n as usize];
    let mut alive = BTreeSet::new();
    let mut script = Vec::new();
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        for i in 0..n {
            let slot = i * 3;
            if !alive.contains(&i) {
                if tick == 1 || rng.chance(0.25) {
                    generation[i as usize] = (generation[i as usize] + 1) % 256;
                    let owner = (i == 0).then_some(1);
                    ops.push(json!({"spawn": {"slot": slot,
                        "generation": generation[i as usize], "owner": owner}}));
                    ops.push(json!({"health": {"slot": slot, "hp": 100}}));
                    ops.push(json!({"team": {"slot": slot, "team": i % 8}}));
                    alive.insert(i);
                }
                continue;
            }
            if rng.chance(0.5) {
                let yaw = [0.0, 45.0, 90.0, 180.0, 270.0][rng.below_or_at(4) as usize];
                ops.push(json!({"transform": {"slot": slot, "x": coord(rng, 100.0),
                    "y": coord(rng, 100.0), "z": 1.5, "yaw": yaw}}));
            }
            if rng.chance(0.1) {
                ops.push(json!({"health": {"slot": slot, "hp": rng.below_or_at(127)}}));
            }
            if rng.chance(0.05) {
                let v = [-2.0, -0.5, 0.0, 1.0, 2.5];
                let mut axis = || v[rng.below_or_at(4) as usize];
                ops.push(
                    json!({"velocity": {"slot": slot, "vx": axis(), "vy": axis(),
                    "vz": axis()}}),
                );
            }
            if rng.chance(0.04) {
                ops.push(json!({"despawn": {"slot": slot}}));
                alive.remove(&i);
            }
        }
        script.push(ops);
    }
    script
}

/// Delta streaming's world (the `delta` module's ops): slots 0..n entered, left and respawned under
/// the next generation as SlotKeys; a full baseline requested now and then.
fn delta_world(rng: &mut SplitMix64, ticks: u64, n: u64) -> Vec<Vec<Value>> {
    let key = |slot: u64, generation: u64| (slot << 16) | generation;
    let mut generation = vec![0u64; n as usize];
    let mut alive = BTreeSet::new();
    let mut script = Vec::new();
    for tick in 1..=ticks {
        let mut ops = Vec::new();
        for slot in 0..n {
            let g = generation[slot as usize];
            if !alive.contains(&slot) {
                if (tick == 1 && rng.chance(0.7)) || rng.chance(0.1) {
                    ops.push(json!({"enter": key(slot, g)}));
                    alive.insert(slot);
                }
            } else if rng.chance(0.08) {
                ops.push(json!({"leave": key(slot, g)}));
                alive.remove(&slot);
                generation[slot as usize] = (g + 1) % 65536;
            } else if rng.chance(0.04) {
                // A respawn: the next generation takes the slot, the old occupant leaves.
                let next = (g + 1) % 65536;
                ops.push(json!({"leave": key(slot, g)}));
                ops.push(json!({"enter": key(slot, next)}));
                generation[slot as usize] = next;
            }
        }
        if rng.chance(0.02) {
            ops.push(json!({"request_full_baseline": true}));
        }
        script.push(ops);
    }
    script
}

/// The entity an op is about (what shrinking removes whole), in the session's vocabulary:
/// an acked `eid`, a datagram `id`, a baseline `slot`, a delta key's slot index.
pub fn entity_of(session: &str, op: &Value) -> Option<u64> {
    let (name, body) = op.as_object()?.iter().next()?;
    match session {
        "acked" | "acked_packed" => body.get("eid").and_then(Value::as_u64),
        "datagram" => body.get("id").and_then(Value::as_u64),
        "baseline" => body.get("slot").and_then(Value::as_u64),
        "delta" if name == "enter" || name == "leave" => body.as_u64().map(|k| k >> 16),
        _ => None,
    }
}

/// Stream `index` of a run seeded `seed`: the session pairs in turn, each with a random world,
/// parameters and network.
pub fn random_recording(index: usize, seed: u64) -> Recording {
    let session = SESSIONS[index % SESSIONS.len()];
    let mut rng = SplitMix64::new(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let ticks = 10 + rng.below_or_at(50);
    let n = 1 + rng.below_or_at(6);
    // A delta world is a set of slot keys: a wider one costs little.
    let slots = n + rng.below_or_at(20);
    let (params, script, tick_ms) = match session {
        "acked" | "acked_packed" => (
            json!({"own": [1], "keep_inputs": 2 + rng.below_or_at(14),
                "far_every": 1 + rng.below_or_at(7)}),
            acked_world(&mut rng, ticks, n),
            20,
        ),
        "datagram" => (
            // A client that may hold datagrams worth a tick or two, as held_cost counts them,
            // half the time: the byte bound gives ticks up in every language alike.
            json!({"precision": 0.01, "max_datagram": ([40, 64, 200, 1200][rng.below_or_at(3) as usize]),
                "max_held_bytes": ([3000, 6000, 8 << 20, 8 << 20][rng.below_or_at(3) as usize])}),
            datagram_world(&mut rng, ticks, n),
            20,
        ),
        "baseline" => (
            json!({"budget": ([80, 200, 1200][rng.below_or_at(2) as usize]), "client": 1}),
            baseline_world(&mut rng, ticks, n),
            20,
        ),
        _ => (
            json!({"history": 4 + rng.below_or_at(28),
                "policy": if rng.chance(0.3) { "naive" } else { "ack_recovery" }}),
            delta_world(&mut rng, ticks, slots),
            50,
        ),
    };
    Recording {
        name: format!("{session}/fuzz_{seed}_{index}"),
        description: format!("seeded lossy stream {index} of fuzz-diff seed {seed}"),
        seed: seed_doc(session).into(),
        session: session.into(),
        params,
        tick_ms,
        network: random_network(&mut rng),
        script,
        drain_ms: 300,
    }
}

/// Replays `side` of `vector` through `testee`: `Ok` when it does what the Rust half did, else
/// why not (a fault of the testee, a crash or a timeout, is a disagreement too).
pub fn replay_in(
    testee: &mut TesteeProcess,
    vector: &StreamVector,
    side: Side,
    timeout: Duration,
) -> Result<(), String> {
    let half = format!("{}_{}", vector.session, side_name(side));
    // A testee stopped after a fault starts afresh (a replay after it would otherwise find it
    // not running, and count that as the half straying).
    match testee.ensure(timeout) {
        Ok(Ok(_)) => {}
        Ok(Err(why)) => return Err(format!("the testee did not answer hello: {why}")),
        Err(e) => return Err(e.to_string()),
    }
    let mut remote = RemoteSession::open(testee, &half, &vector.params, timeout)
        .map_err(|(_, why)| format!("open {half}: {why}"))?;
    let result = stream::replay(vector, side, &mut remote);
    let fault = remote.fault.clone();
    if fault.is_none() {
        remote.close();
    } else {
        // A crashed or silent testee starts afresh for the next replay.
        testee.stop();
    }
    match (fault, result) {
        (Some(f), _) => Err(format!("the testee failed: {f:?}")),
        (None, r) => r,
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Server => "server",
        Side::Client => "client",
    }
}

/// The step a replay failed at, read from [`stream::replay`]'s message (`step N (at ...`).
fn failed_step(why: &str) -> Option<usize> {
    let rest = why.strip_prefix("step ")?;
    rest.split(' ').next()?.parse().ok()
}

/// The number of distinct entities a script touches.
fn entities(session: &str, script: &[Vec<Value>]) -> BTreeSet<u64> {
    script
        .iter()
        .flatten()
        .filter_map(|op| entity_of(session, op))
        .collect()
}

/// A recording shrunk as far as a budget of replays allowed, and its vector.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The smallest recording the testee still disagreed on.
    pub recording: Recording,
    /// Its vector, cut after the step where the testee first strays.
    pub vector: StreamVector,
    /// Why the testee's half failed the vector.
    pub why: String,
    /// Replays spent.
    pub replays: usize,
}

/// Shrinks `rec`, on which `testee`'s `side` half disagrees with Rust's: fewer ticks, fewer
/// entities, fewer ops, a kinder network, a shorter drain, each kept while the testee still
/// disagrees, within `budget` replays; then the vector is cut after the failing step. `None`
/// when the recording no longer records or the testee no longer disagrees on it (a flaky
/// testee).
pub fn shrink(
    rec: &Recording,
    testee: &mut TesteeProcess,
    side: Side,
    timeout: Duration,
    budget: usize,
) -> Option<Shrunk> {
    let mut s = Shrinker {
        testee,
        side,
        timeout,
        budget,
        replays: 0,
    };
    let (vector, why) = s.attempt(rec)?;
    let mut found = Shrunk {
        recording: rec.clone(),
        vector,
        why,
        replays: 0,
    };
    let keep = |s: &mut Shrinker<'_>, candidate: Recording, found: &mut Shrunk| match s
        .attempt(&candidate)
    {
        Some((vector, why)) => {
            (found.recording, found.vector, found.why) = (candidate, vector, why);
            true
        }
        None => false,
    };
    // Each pass can open the way for another (a kinder network needs fewer ticks to fail):
    // passes repeat while one of them shrank something, a few times at most.
    for _round in 0..3 {
        let before = (
            found.recording.script.clone(),
            found.recording.network,
            found.recording.drain_ms,
            found.vector.steps.len(),
        );
        // Fewer ticks: cut the script's end, halving the cut when it no longer fails.
        let mut cut = found.recording.script.len() / 2;
        while cut > 0 && s.replays < budget {
            let mut c = found.recording.clone();
            c.script.truncate(found.recording.script.len() - cut);
            if c.script.is_empty() || !keep(&mut s, c, &mut found) {
                cut /= 2;
            }
        }
        // Fewer entities: every op about one of them gone at once.
        for e in entities(&found.recording.session, &found.recording.script) {
            let mut c = found.recording.clone();
            for ops in &mut c.script {
                ops.retain(|op| entity_of(&found.recording.session, op) != Some(e));
            }
            keep(&mut s, c, &mut found);
        }
        // A kinder network: a perfect link each way, else one fault at a time taken away.
        let kinder: [fn(&mut NetworkConfig); 9] = [
            |n| {
                n.down = LinkConfig::perfect();
                n.up = LinkConfig::perfect();
            },
            |n| n.down = LinkConfig::perfect(),
            |n| n.up = LinkConfig::perfect(),
            |n| n.down.burst = None,
            |n| n.up.burst = None,
            |n| n.down.loss = 0.0,
            |n| n.up.loss = 0.0,
            |n| (n.down.duplicate, n.up.duplicate) = (0.0, 0.0),
            |n| (n.down.jitter_ms, n.up.jitter_ms) = (0, 0),
        ];
        for change in kinder {
            let mut c = found.recording.clone();
            change(&mut c.network);
            if c.network != found.recording.network {
                keep(&mut s, c, &mut found);
            }
        }
        // Fewer ops: each tick's emptied, from the last.
        for t in (0..found.recording.script.len()).rev() {
            if found.recording.script[t].is_empty() {
                continue;
            }
            let mut c = found.recording.clone();
            c.script[t].clear();
            keep(&mut s, c, &mut found);
        }
        // A shorter drain.
        for drain in [0, found.recording.drain_ms / 2] {
            if drain < found.recording.drain_ms {
                let mut c = found.recording.clone();
                c.drain_ms = drain;
                if keep(&mut s, c, &mut found) {
                    break;
                }
            }
        }
        let after = (
            found.recording.script.clone(),
            found.recording.network,
            found.recording.drain_ms,
            found.vector.steps.len(),
        );
        if after == before || s.replays >= budget {
            break;
        }
    }
    // Fewer steps: nothing after the step where the testee strays matters to the verdict.
    if let Some(i) = failed_step(&found.why) {
        if i + 1 < found.vector.steps.len() {
            let mut cut = found.vector.clone();
            cut.steps.truncate(i + 1);
            if let Some(why) = s.fails(&cut) {
                (found.vector, found.why) = (cut, why);
            }
        }
    }
    found.replays = s.replays;
    Some(found)
}

/// What shrinking replays through, and what it has spent.
struct Shrinker<'a> {
    testee: &'a mut TesteeProcess,
    side: Side,
    timeout: Duration,
    budget: usize,
    replays: usize,
}

impl Shrinker<'_> {
    /// Why the testee's half fails `vector`, when it does and the budget allows a replay.
    fn fails(&mut self, vector: &StreamVector) -> Option<String> {
        if self.replays >= self.budget {
            return None;
        }
        self.replays += 1;
        replay_in(self.testee, vector, self.side, self.timeout).err()
    }

    /// `candidate` recorded with the Rust halves, and why the testee fails it, when it does.
    fn attempt(&mut self, candidate: &Recording) -> Option<(StreamVector, String)> {
        let vector = stream::record(candidate).ok()?;
        let why = self.fails(&vector)?;
        Some((vector, why))
    }
}

/// A stream on which a testee's half disagrees with Rust's.
#[derive(Debug, Clone)]
pub struct StreamDisagreement {
    /// The testee's label.
    pub label: String,
    /// The half that strayed.
    pub side: Side,
    /// The stream as generated.
    pub original: Recording,
    /// Steps of the stream as generated.
    pub original_steps: usize,
    /// Why the half failed the stream as generated.
    pub why: String,
    /// The stream shrunk (the first disagreement of each testee's session half only: the
    /// others are counted, not shrunk).
    pub shrunk: Option<Shrunk>,
    /// Where the shrunk vector was written.
    pub written: Option<PathBuf>,
}

impl StreamDisagreement {
    /// The shrunk stream as a stream vector (named `<session>/differential_<label>_<side>_<id>`),
    /// ready for `ackwire conform --dir`.
    pub fn as_vector(&self) -> Option<StreamVector> {
        let s = self.shrunk.as_ref()?;
        let mut v = s.vector.clone();
        let text = serde_json::to_string(&v.steps).unwrap_or_default();
        let id = ackwire_codec::rt::fnv1a32(text.as_bytes());
        v.name = format!(
            "{}/differential_{}_{}_{id:08x}",
            v.session,
            self.label,
            side_name(self.side)
        );
        let first = s.why.lines().next().unwrap_or("");
        v.description = format!(
            "found by differential stream fuzzing ({} {} half; shrunk from {} steps to {}): {first}",
            self.label,
            side_name(self.side),
            self.original_steps,
            v.steps.len()
        );
        Some(v)
    }
}

/// How one testee did on the streams.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TesteeStreams {
    /// Its label.
    pub label: String,
    /// Halves replayed and passed.
    pub passed: usize,
    /// Halves replayed that disagreed with Rust's.
    pub failed: usize,
    /// Halves it does not list in `hello`.
    pub unimplemented: usize,
    /// Why it was skipped altogether (it lists no session halves in `hello`).
    pub skipped: Option<String>,
}

/// The result of a differential stream run.
#[derive(Debug, Default)]
pub struct StreamReport {
    /// Streams recorded, by session, in [`SESSIONS`] order.
    pub streams: [usize; SESSIONS.len()],
    /// Steps recorded over all streams.
    pub steps: usize,
    /// Streams the Rust halves could not record (a generator's bug; named, never silent).
    pub unrecorded: Vec<String>,
    /// Each testee's counts.
    pub testees: Vec<TesteeStreams>,
    /// The disagreements.
    pub disagreements: Vec<StreamDisagreement>,
}

impl StreamReport {
    /// The lines `ackwire fuzz-diff` prints for the streams: what ran, each testee's counts (or
    /// why it was skipped), then `streams: N halves passed, M failed`.
    pub fn summary(&self) -> String {
        let total: usize = self.streams.iter().sum();
        let by: Vec<String> = SESSIONS
            .iter()
            .zip(self.streams)
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        let mut out = format!(
            "streams: {total} seeded lossy streams ({}; {} steps) recorded with the Rust halves\n",
            by.join(", "),
            self.steps
        );
        for name in &self.unrecorded {
            out.push_str(&format!("  {name}: the Rust halves could not record it\n"));
        }
        let (mut passed, mut failed) = (0, 0);
        for t in &self.testees {
            match &t.skipped {
                Some(why) => out.push_str(&format!("  {}: skipped for streams: {why}\n", t.label)),
                None => out.push_str(&format!(
                    "  {}: {} halves replayed, {} disagreed{}\n",
                    t.label,
                    t.passed + t.failed,
                    t.failed,
                    if t.unimplemented > 0 {
                        format!(", {} not listed (unimplemented)", t.unimplemented)
                    } else {
                        String::new()
                    }
                )),
            }
            passed += t.passed;
            failed += t.failed;
        }
        out.push_str(&format!(
            "streams: {passed} halves passed, {} failed",
            failed + self.unrecorded.len()
        ));
        out
    }
}

/// Records `count` streams of seed `seed` ([`random_recording`]) and replays both halves of
/// each through every testee; each testee's first disagreement per session half is shrunk
/// (within [`SHRINK_BUDGET`] replays) and, when `out` is given, written there as
/// `streams/<session>/<what>.json` (with an empty `frames/` beside, so `ackwire conform --dir
/// OUT` runs it). `progress` is called after each stream.
///
/// A testee that does not answer `hello` when first started, or twice in a row, stops the run
/// with [`RunError::Hello`] ([`TesteeProcess::ensure`]); one failed `hello` after a restart
/// fails both halves of the stream at hand.
pub fn run(
    count: usize,
    seed: u64,
    testees: &mut [(String, TesteeProcess)],
    timeout: Duration,
    out: Option<&Path>,
    mut progress: impl FnMut(usize),
) -> Result<StreamReport, RunError> {
    let mut report = StreamReport {
        testees: testees
            .iter()
            .map(|(label, _)| TesteeStreams {
                label: label.clone(),
                ..TesteeStreams::default()
            })
            .collect(),
        ..StreamReport::default()
    };
    let mut shrunk_once: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    for i in 0..count {
        let rec = random_recording(i, seed);
        let Ok(vector) = stream::record(&rec) else {
            report.unrecorded.push(rec.name.clone());
            progress(i + 1);
            continue;
        };
        if let Some(k) = SESSIONS.iter().position(|s| *s == rec.session) {
            report.streams[k] += 1;
        }
        report.steps += vector.steps.len();
        for ((label, testee), counts) in testees.iter_mut().zip(&mut report.testees) {
            if counts.skipped.is_some() {
                continue;
            }
            let caps = match testee.ensure(timeout)? {
                Ok(c) => c,
                Err(why) => {
                    for side in [Side::Server, Side::Client] {
                        counts.failed += 1;
                        report.disagreements.push(StreamDisagreement {
                            label: label.clone(),
                            side,
                            original: rec.clone(),
                            original_steps: vector.steps.len(),
                            why: format!("the testee did not answer hello: {why}"),
                            shrunk: None,
                            written: None,
                        });
                    }
                    continue;
                }
            };
            if caps.sessions.is_empty() {
                counts.skipped = Some("it lists no session halves in hello".into());
                continue;
            }
            for side in [Side::Server, Side::Client] {
                let half = format!("{}_{}", rec.session, side_name(side));
                if !caps.sessions.contains(&half) {
                    counts.unimplemented += 1;
                    continue;
                }
                let Err(why) = replay_in(testee, &vector, side, timeout) else {
                    counts.passed += 1;
                    continue;
                };
                counts.failed += 1;
                let key = (label.clone(), rec.session.clone(), side_name(side));
                let shrunk = if shrunk_once.insert(key) {
                    shrink(&rec, testee, side, timeout, SHRINK_BUDGET)
                } else {
                    None
                };
                let mut d = StreamDisagreement {
                    label: label.clone(),
                    side,
                    original: rec.clone(),
                    original_steps: vector.steps.len(),
                    why,
                    shrunk,
                    written: None,
                };
                if let (Some(dir), Some(v)) = (out, d.as_vector()) {
                    d.written = write_vector(dir, &v).ok();
                }
                report.disagreements.push(d);
            }
        }
        progress(i + 1);
    }
    Ok(report)
}

/// Writes `vector` under `dir/streams/`, creating `dir/frames/` (empty) when missing so the
/// folder is a vectors folder `ackwire conform --dir` reads.
pub fn write_vector(dir: &Path, vector: &StreamVector) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir.join("frames"))?;
    let path = crate::streams::path_of(&dir.join("streams"), vector);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(vector).map_err(std::io::Error::other)? + "\n";
    std::fs::write(&path, text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_testee_silent_from_its_first_start_stops_the_streams_at_the_first() {
        let silent = TesteeProcess::new(vec!["sh".into(), "-c".into(), "exec sleep 600".into()]);
        let mut testees = vec![("silent".to_string(), silent)];
        let mut streams_run = 0;
        let e = run(4, 1, &mut testees, Duration::from_millis(200), None, |n| {
            streams_run = n
        })
        .unwrap_err();
        assert!(matches!(e, RunError::Hello { .. }), "{e}");
        assert_eq!(streams_run, 0, "no stream was counted as run");
    }

    #[test]
    fn every_generated_stream_records_with_the_rust_halves_and_replays_on_them() {
        for i in 0..24 {
            let rec = random_recording(i, 5);
            let v = stream::record(&rec).unwrap_or_else(|e| panic!("{}: {e}", rec.name));
            assert!(!v.steps.is_empty(), "{}", rec.name);
            stream::verify(&v).unwrap_or_else(|e| panic!("{}: {e}", rec.name));
        }
    }

    #[test]
    fn streams_are_seeded_cover_every_session_and_vary() {
        let a: Vec<_> = (0..8).map(|i| random_recording(i, 3)).collect();
        let b: Vec<_> = (0..8).map(|i| random_recording(i, 3)).collect();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                (&x.script, &x.network, &x.params),
                (&y.script, &y.network, &y.params)
            );
        }
        let sessions: BTreeSet<&str> = a.iter().map(|r| r.session.as_str()).collect();
        assert_eq!(sessions.len(), SESSIONS.len());
        let other = random_recording(0, 4);
        assert_ne!(a[0].script, other.script);
        // Lossy networks come up: some stream loses, duplicates or reorders.
        let faulty = (0..40)
            .map(|i| random_recording(i, 3).network)
            .filter(|n| n.down.loss > 0.0 || n.down.duplicate > 0.0 || n.down.jitter_ms > 0)
            .count();
        assert!(faulty > 20, "{faulty}");
    }

    #[test]
    fn ops_name_their_entity_in_each_vocabulary() {
        assert_eq!(entity_of("acked", &json!({"move": {"eid": 3}})), Some(3));
        assert_eq!(
            entity_of("acked_packed", &json!({"move": {"eid": 7}})),
            Some(7)
        );
        assert_eq!(entity_of("datagram", &json!({"set": {"id": 4}})), Some(4));
        assert_eq!(
            entity_of("baseline", &json!({"health": {"slot": 6}})),
            Some(6)
        );
        assert_eq!(
            entity_of("delta", &json!({"enter": (5u64 << 16) | 2})),
            Some(5)
        );
        assert_eq!(
            entity_of("delta", &json!({"request_full_baseline": true})),
            None
        );
        assert_eq!(
            entity_of("datagram", &json!({"input_ack": {"seq": 3}})),
            None
        );
    }

    #[test]
    fn the_failing_step_is_read_from_the_replay_message() {
        assert_eq!(failed_step("step 17 (at 340 ms): expected"), Some(17));
        assert_eq!(failed_step("open acked_client: no"), None);
    }

    #[test]
    fn the_summary_counts_each_testee_and_says_why_one_was_skipped() {
        let report = StreamReport {
            streams: [2, 1, 1, 0, 1],
            steps: 900,
            testees: vec![
                TesteeStreams {
                    label: "ts".into(),
                    passed: 7,
                    failed: 1,
                    unimplemented: 2,
                    ..TesteeStreams::default()
                },
                TesteeStreams {
                    label: "cpp".into(),
                    skipped: Some("it lists no session halves in hello".into()),
                    ..TesteeStreams::default()
                },
            ],
            ..StreamReport::default()
        };
        assert_eq!(
            report.summary(),
            "streams: 5 seeded lossy streams (acked 2, datagram 1, baseline 1, delta 0, acked_packed 1; 900 steps) recorded with the Rust halves\n  ts: 8 halves replayed, 1 disagreed, 2 not listed (unimplemented)\n  cpp: skipped for streams: it lists no session halves in hello\nstreams: 7 halves passed, 1 failed"
        );
    }
}
