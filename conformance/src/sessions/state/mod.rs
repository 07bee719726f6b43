//! The acked session of a spec's own `state`, at run time: its stream vectors recorded and
//! replayed with the codec's acked machines over the state's interpreted binding
//! ([`binding`]), what `ackwire vectors --spec` writes under `streams/` and checks with `--dir`,
//! and what `ackwire conform --spec` replays.
//!
//! One session pair per frame the state is sent in, named after the frame (`arena_update`,
//! `arena_packed`, and `arena_coded` for a state that declares a coded frame): `<frame>_server`
//! is an acked encoder fed by a world that every client sees whole, `<frame>_client` the acked
//! decoder with its ack writer, both the halves the compiled
//! bindings' testees serve ([`StateServer`], [`StateClient`]). Parameters: `keep_inputs`
//! (default 16, inputs the client repeats until `last_seq` covers them).
//!
//! World operations (the server's `advance` ops), one JSON object each, a record given in the
//! generated record's JSON form (`{"flags": [BIT, ...], FIELD: INTEGER, ..., GROUP: {FIELD:
//! INTEGER, ...}}`: a quantized field's integer, a float's value, a tick, as the record holds
//! them; a bit set as its named bits, a quaternion as `{"largest": N, "rest": [A, B, C]}`):
//! `{"spawn": {"eid", "record"}}` (a new life when the id was used before), `{"set": {"eid",
//! "record"}}`, `{"despawn": {"eid"}}`, `{"event": EVENT}` (the events union's JSON form). The
//! client's `advance` ops are the player's input for the tick, `{"input": INPUT}` (the inputs
//! record's JSON form), or none.
//!
//! Reports are the reference pair's (`conformance/PROTOCOL.md`, "Reports").

pub mod binding;
#[cfg(test)]
mod reference_replay;

use super::stream::{record_pair, Recording};
use super::{Sent, Session};
use crate::netsim::{LinkConfig, NetworkConfig, SplitMix64};
use crate::streams::StreamVector;
use crate::vectors::derive::gen::{make, Fill, Scenario, Shape};
use crate::vectors::{Failure, Verification};
use ackwire_codec::rt::SmallestThree;
use ackwire_server::testee::{ServedSchema, StateClient, StateServer};
use ackwire_spec::model::Spec;
use ackwire_spec::state::{Carry, Holds, Value};
use binding::{Binding, Interp, InterpCoded, InterpPacked, Profile, Record};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

/// A session of a state: its frame's snake_case name, the state's binding, which of its frames
/// it is.
pub type StateSession = (String, Rc<Binding>, Profile);

/// Ops for each tick, from tick 1.
type Script = Vec<Vec<Json>>;

/// The sessions of `spec`'s states: for each frame a state is sent in, its snake_case name,
/// the binding and which of its frames it is (its coded frame after the packed one). A state
/// the run-time binding cannot hold is
/// left out, with why.
pub fn sessions(spec: &Spec) -> (Vec<StateSession>, Vec<String>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for plan in ackwire_spec::state::plans(spec) {
        let mut profiles: Vec<(String, Profile)> = plan
            .profiles
            .iter()
            .map(|p| {
                let profile = if p.packed {
                    Profile::Packed
                } else {
                    Profile::Byte
                };
                (p.frame_name.clone(), profile)
            })
            .collect();
        if let Some(c) = &plan.coded {
            profiles.push((c.frame_name.clone(), Profile::Coded));
        }
        match Binding::new(spec, plan) {
            Ok(b) => {
                for (name, profile) in profiles {
                    out.push((name, b.clone(), profile));
                }
            }
            Err(why) => skipped.push(why),
        }
    }
    (out, skipped)
}

/// Opens half `name` (`<frame>_server` or `<frame>_client`) of a session of `spec`.
pub fn open(spec: &Spec, name: &str, params: &Json) -> Option<Result<Box<dyn Session>, String>> {
    let (all, _) = sessions(spec);
    let keep = params
        .get("keep_inputs")
        .and_then(Json::as_u64)
        .map_or(16, |k| k as usize);
    for (frame, b, profile) in all {
        let server = name == format!("{frame}_server");
        if !server && name != format!("{frame}_client") {
            continue;
        }
        return Some(Ok(half(&b, profile, server, keep)));
    }
    None
}

// The halves are `ackwire_server::testee`'s, which the compiled bindings' testees serve too: the
// interpreted binding reads a world op's record through its layout, and takes events and inputs
// as the JSON they are.
macro_rules! served {
    ($ty:ident) => {
        impl ServedSchema for $ty {
            fn record_from_json(&self, v: &Json) -> Result<Record, String> {
                record_from_json(&self.0, v)
            }
            fn event_from_json(&self, v: &Json) -> Result<Json, String> {
                Ok(v.clone())
            }
            fn input_from_json(&self, v: &Json) -> Result<Json, String> {
                Ok(v.clone())
            }
        }
    };
}
served!(Interp);
served!(InterpPacked);
served!(InterpCoded);

/// Half `server` or client of a session over `b`'s frame `profile`; the client repeats `keep`
/// inputs.
fn half(b: &Rc<Binding>, profile: Profile, server: bool, keep: usize) -> Box<dyn Session> {
    let b = b.clone();
    match (server, profile) {
        (true, Profile::Byte) => Box::new(StateServer::with_schema(Interp(b))),
        (true, Profile::Packed) => Box::new(StateServer::with_schema(InterpPacked(b))),
        (true, Profile::Coded) => Box::new(StateServer::with_schema(InterpCoded(b))),
        (false, Profile::Byte) => Box::new(StateClient::with_schema(Interp(b), keep)),
        (false, Profile::Packed) => Box::new(StateClient::with_schema(InterpPacked(b), keep)),
        (false, Profile::Coded) => Box::new(StateClient::with_schema(InterpCoded(b), keep)),
    }
}

/// A record from its JSON form in the world ops (see the module doc).
fn record_from_json(b: &Binding, j: &Json) -> Result<Record, String> {
    let flags = b.plan.flags.as_ref().map_or("flags", |f| &f.name[..]);
    let mut r = Record {
        flags: b.flags_from_json(j.get(flags).unwrap_or(&Json::Null))?,
        values: [0; binding::MAX_FIELDS],
    };
    for (gi, g) in b.plan.groups.iter().enumerate() {
        let nested = b
            .plan
            .record
            .fields
            .iter()
            .any(|f| f.holds == Holds::Group(gi));
        let body = if nested { j.get(&g.name) } else { Some(j) };
        let Some(body) = body else { continue };
        for (fi, f) in g.fields.iter().enumerate() {
            let v = body.get(&f.name).unwrap_or(&Json::Null);
            let n = match &f.value {
                // A float or a bool left out is 0.0 or false.
                Value::Float { .. } | Value::Bool if v.is_null() => 0,
                value => b
                    .value_from_json(value, v)
                    .map_err(|why| format!("record field `{}`: {why}: {j}", f.name))?,
            };
            r.values[index(b, gi, fi)] = n;
        }
    }
    Ok(r)
}

/// The JSON form of a record in the world ops.
fn record_json(b: &Binding, r: &Record) -> Json {
    let mut out = Map::new();
    if b.plan.flags.is_some() {
        out.insert(
            b.plan
                .flags
                .as_ref()
                .map_or("flags", |f| &f.name[..])
                .to_string(),
            b.flags_json(r.flags),
        );
    }
    for (gi, g) in b.plan.groups.iter().enumerate() {
        let nested = b
            .plan
            .record
            .fields
            .iter()
            .any(|f| f.holds == Holds::Group(gi));
        if nested
            && g.presence
                .as_ref()
                .is_some_and(|p| r.flags >> p.index & 1 == 0)
        {
            continue;
        }
        let mut fields = Map::new();
        for (fi, f) in g.fields.iter().enumerate() {
            let v = r.values[index(b, gi, fi)];
            fields.insert(f.name.clone(), b.value_json(&f.value, v));
        }
        if nested {
            out.insert(g.name.clone(), Json::Object(fields));
        } else {
            out.extend(fields);
        }
    }
    Json::Object(out)
}

fn index(b: &Binding, group: usize, field: usize) -> usize {
    b.plan.groups[..group]
        .iter()
        .map(|g| g.fields.len())
        .sum::<usize>()
        + field
}

/// Entities of a recorded world.
const ENTITIES: u16 = 6;
/// Ticks of a recorded world.
const TICKS: usize = 60;

/// A seeded world over `b`'s state, `ticks` ticks of `ENTITIES` ids: entities spawned (each
/// with one of the optional groups, or none), moved, changed, despawned and spawned again,
/// events; and the player's input each tick (aimed two ticks ahead).
fn world(b: &Binding, seed: u64) -> Result<(Script, Script), String> {
    let mut rng = SplitMix64::new(seed);
    let plan = &b.plan;
    let optional: Vec<usize> = (0..plan.groups.len())
        .filter(|g| plan.groups[*g].presence.is_some())
        .collect();
    let mut alive: BTreeMap<u16, Record> = BTreeMap::new();
    let mut script = Vec::new();
    let mut inputs = Vec::new();
    for t in 1..=TICKS as u32 {
        let mut ops = Vec::new();
        for eid in 1..=ENTITIES {
            let held = alive.get(&eid).copied();
            match held {
                None if t == 1 || rng.chance(0.08) => {
                    let mut r = Record {
                        flags: 0,
                        values: [0; binding::MAX_FIELDS],
                    };
                    let pick = rng.below_or_at(optional.len() as u64) as usize;
                    if let Some(&g) = optional.get(pick) {
                        if let Some(p) = &plan.groups[g].presence {
                            r.flags |= 1 << p.index;
                        }
                    }
                    for gi in 0..plan.groups.len() {
                        if plan.groups[gi]
                            .presence
                            .as_ref()
                            .is_none_or(|p| r.flags >> p.index & 1 != 0)
                        {
                            fill_group(b, &mut r, gi, t, &mut rng, true);
                        }
                    }
                    alive.insert(eid, r);
                    ops.push(json!({"spawn": {"eid": eid, "record": record_json(b, &r)}}));
                }
                None => {}
                Some(_) if t > 1 && rng.chance(0.03) => {
                    alive.remove(&eid);
                    ops.push(json!({"despawn": {"eid": eid}}));
                }
                Some(mut r) => {
                    let before = r;
                    for gi in 0..plan.groups.len() {
                        let has = plan.groups[gi]
                            .presence
                            .as_ref()
                            .is_none_or(|p| r.flags >> p.index & 1 != 0);
                        if has && rng.chance(0.4) {
                            fill_group(b, &mut r, gi, t, &mut rng, false);
                        }
                    }
                    if r != before {
                        alive.insert(eid, r);
                        ops.push(json!({"set": {"eid": eid, "record": record_json(b, &r)}}));
                    }
                }
            }
        }
        if rng.chance(0.3) {
            if let Some(e) = drawn(
                b,
                &b.profile(false)
                    .map_or_else(String::new, |p| p.frame_name.clone()),
                "events",
                &mut rng,
            ) {
                ops.push(json!({ "event": e }));
            }
        }
        script.push(ops);
        let input = drawn(b, &b.ack_name(), "inputs", &mut rng).map(|mut i| {
            i["tick"] = json!(t + 2);
            i
        });
        inputs.push(
            input
                .map(|i| vec![json!({ "input": i })])
                .unwrap_or_default(),
        );
    }
    Ok((script, inputs))
}

/// An element of list `list` of a frame `frame` drawn from the seed, in its JSON form: an
/// event or an input, as the run-time codec makes one.
fn drawn(b: &Binding, frame: &str, list: &str, rng: &mut SplitMix64) -> Option<Json> {
    let plan = crate::interp::plan(b.lowering(), frame).ok()?;
    for _ in 0..16 {
        let v = make(
            b.lowering(),
            plan,
            &Scenario::new(Fill::Random, Shape::Random),
            SplitMix64::new(rng.next_u64()),
        )
        .ok()?;
        let j = crate::interp::value::to_json(b.lowering(), plan, &v).ok()?;
        let j = serde_json::to_value(&j).ok()?;
        if let Some(first) = j.get(list).and_then(Json::as_array).and_then(|l| l.first()) {
            return Some(first.clone());
        }
    }
    None
}

/// New values for group `group` of `r` at tick `t`: a stepped field walks a little (now and
/// then far, past the step's reach), another field takes a value in its range; a tick is the
/// tick or a few before.
fn fill_group(
    b: &Binding,
    r: &mut Record,
    group: usize,
    t: u32,
    rng: &mut SplitMix64,
    whole: bool,
) {
    let g = &b.plan.groups[group];
    let stepped = g.stepped();
    for (fi, f) in g.fields.iter().enumerate() {
        let at = index(b, group, fi);
        // The constraints every form puts on the field: a full float's exact range, a coarser
        // quantization's multiple, a ranged wire integer's range (WIRE-29).
        let mut limit = u64::MAX;
        let mut by = 1u64;
        let mut wire = (i128::MIN, i128::MAX);
        for form in &g.forms {
            for w in form.wire.iter().filter(|w| w.field == fi) {
                match w.carry {
                    Carry::Float { limit: l, .. } => limit = limit.min(l - 1),
                    Carry::Scaled { by: s } => {
                        by = by.max(s);
                        if let Some((lo, hi)) = w.range {
                            let s = i128::from(s);
                            wire = (
                                wire.0.max(lo.saturating_mul(s)),
                                wire.1.min(hi.saturating_mul(s)),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        let v = match &f.value {
            Value::Tick => {
                let age = if rng.chance(0.2) {
                    rng.below_or_at(3)
                } else {
                    0
                };
                i64::from(t) - age.min(u64::from(t)) as i64
            }
            Value::Bool => i64::from(rng.chance(0.5)),
            // Any set of the named bits, each beside the bit it requires.
            Value::Bits { name, .. } => {
                let named = b.bit_set(name);
                let mut raw = named
                    .iter()
                    .filter(|_| rng.chance(0.5))
                    .fold(0u64, |raw, bit| raw | 1 << bit.index);
                while let Some(bit) = named.iter().find(|bit| {
                    raw >> bit.index & 1 != 0 && bit.requires.is_some_and(|r| raw >> r & 1 == 0)
                }) {
                    raw &= !(1 << bit.index);
                }
                raw as i64
            }
            // A unit quaternion drawn at random, as its smallest three.
            Value::Quat { bits } => {
                let mut c = || (rng.below_or_at(2000) as f32 - 1000.0) / 1000.0;
                let q = SmallestThree::from_xyzw([c(), c(), c(), c()], *bits);
                q.to_word(*bits) as i64
            }
            Value::Float { bits } => {
                let x = (rng.below_or_at(16000) as f64 - 8000.0) / 8.0;
                if *bits == 32 {
                    i64::from((x as f32).to_bits())
                } else {
                    x.to_bits() as i64
                }
            }
            _ => {
                let (lo, hi) = f.value.range().unwrap_or((0, 0));
                let lo = lo
                    .max(-(i128::from(limit.min(i64::MAX as u64))))
                    .max(wire.0);
                let hi = hi.min(i128::from(limit.min(i64::MAX as u64))).min(wire.1);
                let reach = i128::from(g.reach.unwrap_or(1 << 12).min(1 << 20));
                let v = if stepped.contains(&fi) && !whole && !rng.chance(0.05) {
                    i128::from(r.values[at]) + i128::from(rng.below_or_at(400)) - 200
                } else if stepped.contains(&fi) {
                    i128::from(rng.below_or_at((reach * 4) as u64)) - reach * 2
                } else {
                    lo + i128::from(rng.below_or_at((hi - lo).min(i128::from(u32::MAX)) as u64))
                };
                let v = v.clamp(lo, hi);
                let by = i128::from(by);
                (v / by * by) as i64
            }
        };
        r.values[at] = v;
    }
}

/// The recordings of the session of frame `frame` (its binding `b`): a perfect network, loss
/// with duplication and reordering, and lost acks.
fn recordings(frame: &str, b: &Binding) -> Result<Vec<(Recording, Script)>, String> {
    let mut out = Vec::new();
    let cases: [(&str, &str, u64, NetworkConfig); 3] = [
        (
            "no_loss",
            "a perfect network: one keyframe, then every frame onto the newest acknowledged",
            1,
            NetworkConfig {
                down: LinkConfig::lossy(0.0, 0.0, 30, 0),
                up: LinkConfig::lossy(0.0, 0.0, 30, 0),
                seed: 1,
            },
        ),
        (
            "loss_dup_reorder",
            "20% loss, 10% duplicated and jitter that reorders, each way: every frame applies onto an acknowledged base, copies and older frames are dropped",
            2,
            NetworkConfig {
                down: LinkConfig::lossy(0.2, 0.1, 30, 50),
                up: LinkConfig::lossy(0.2, 0.1, 30, 50),
                seed: 2,
            },
        ),
        (
            "lost_acks",
            "60% of the client's acks lost: frames go onto older acknowledged bases, inputs are repeated",
            3,
            NetworkConfig {
                down: LinkConfig::lossy(0.0, 0.0, 30, 0),
                up: LinkConfig::lossy(0.6, 0.0, 30, 10),
                seed: 3,
            },
        ),
    ];
    for (name, description, seed, network) in cases {
        let (script, inputs) = world(b, seed)?;
        out.push((
            Recording {
                name: format!("{frame}/{name}"),
                description: description.into(),
                seed: "GEN-3, ACK-17, ACK-19, ACK-21, ACK-22, ACK-29, ACK-33, CHECK-7".into(),
                session: frame.to_string(),
                params: json!({"keep_inputs": 4}),
                tick_ms: 20,
                network,
                script,
                drain_ms: 200,
            },
            inputs,
        ));
    }
    Ok(out)
}

/// The stream vectors of every state of `spec` the run-time binding holds, recorded anew, and
/// a note for each state it does not.
pub fn stream_vectors(spec: &Spec) -> Result<(Vec<StreamVector>, Vec<String>), String> {
    let (all, skipped) = sessions(spec);
    let mut out = Vec::new();
    for (frame, b, profile) in all {
        for (rec, inputs) in recordings(&frame, &b)? {
            let mut server = half(&b, profile, true, 4);
            let mut client = half(&b, profile, false, 4);
            let names = [frame.clone(), b.ack_name()];
            out.push(
                record_pair(&rec, &inputs, server.as_mut(), client.as_mut(), &names)
                    .map_err(|e| format!("{}: {e}", rec.name))?,
            );
        }
    }
    Ok((out, skipped))
}

/// Replays both halves of `vector` on the run-time sessions of `spec`.
pub fn verify(spec: &Spec, vector: &StreamVector) -> Result<(), String> {
    for (side, half) in [
        (crate::streams::Side::Server, "server"),
        (crate::streams::Side::Client, "client"),
    ] {
        let name = format!("{}_{half}", vector.session);
        let mut session = open(spec, &name, &vector.params)
            .ok_or_else(|| format!("no state of the spec is sent in `{}`", vector.session))??;
        super::stream::replay(vector, side, session.as_mut())
            .map_err(|e| format!("{half}: {e}"))?;
    }
    Ok(())
}

/// Writes the stream vectors of `spec`'s states into `dir` (`dir/<frame>/<case>.json`),
/// removing any other there. Returns how many, and a note for each state left out.
pub fn write_streams(spec: &Spec, dir: &Path) -> Result<(usize, Vec<String>), String> {
    let (vectors, skipped) = stream_vectors(spec)?;
    let written = crate::streams::write_streams(dir, &vectors).map_err(|e| e.to_string())?;
    Ok((written.len(), skipped))
}

/// Checks the stream vectors in `dir` against `spec`: every file byte for byte what
/// [`stream_vectors`] records (none missing, none extra), and both halves of every vector
/// replayed on the run-time sessions ([`verify`]).
pub fn verify_streams(spec: &Spec, dir: &Path) -> Result<Verification, String> {
    let (vectors, _) = stream_vectors(spec)?;
    let mut failures = Vec::new();
    let on_disk = crate::streams::read_streams(dir).map_err(|e| e.to_string())?;
    for v in &vectors {
        let path = crate::streams::path_of(dir, v);
        let want = serde_json::to_string_pretty(v).map_err(|e| e.to_string())? + "\n";
        match std::fs::read_to_string(&path) {
            Ok(text) if text == want => {}
            Ok(_) => failures.push(Failure {
                name: path.display().to_string(),
                why: format!(
                    "not what the spec records: regenerate it with `ackwire vectors --spec ... --out {}`",
                    dir.parent().unwrap_or(dir).display()
                ),
            }),
            Err(e) => failures.push(Failure {
                name: path.display().to_string(),
                why: format!("cannot read it: {e}"),
            }),
        }
    }
    for v in &on_disk {
        if !vectors.iter().any(|w| w.name == v.name) {
            failures.push(Failure {
                name: v.name.clone(),
                why: "no session of the spec records a stream of this name".into(),
            });
            continue;
        }
        if let Err(why) = verify(spec, v) {
            failures.push(Failure {
                name: v.name.clone(),
                why,
            });
        }
    }
    Ok(Verification {
        total: on_disk.len().max(vectors.len()),
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::Side;
    use ackwire_codec::acked::{AckVerdict, AckedDecoder, AckedEncoder, ServerState};
    use ackwire_server::acked::ScheduledInputs;
    use ackwire_server::input_schedule::InputWindow;
    use binding::Interpreted;

    fn game() -> Spec {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/game/wire");
        ackwire_spec::load(&[dir])
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    }

    /// GEN-3: the game's streams record the same from the same seeds, replay on both halves, and
    /// say something: frames shown with passing checks, frames dropped, events shown.
    #[test]
    fn the_game_s_streams_record_the_same_twice_and_replay() {
        let spec = game();
        let (first, skipped) = stream_vectors(&spec).unwrap_or_else(|e| panic!("{e}"));
        assert!(skipped.is_empty(), "{skipped:?}");
        let (again, _) = stream_vectors(&spec).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first, again);
        // Three recordings of each frame: arena_update, arena_packed and arena_coded.
        assert_eq!(first.len(), 9);
        assert_eq!(
            first.iter().filter(|v| v.session == "arena_coded").count(),
            3
        );
        for v in &first {
            verify(&spec, v).unwrap_or_else(|e| panic!("{}: {e}", v.name));
            let reports: Vec<&Json> = v
                .steps
                .iter()
                .filter(|s| s.side == Side::Client)
                .filter_map(|s| s.expect.report.as_ref())
                .collect();
            let checks = reports
                .iter()
                .filter(|r| r.pointer("/shown/check") == Some(&json!(true)))
                .count();
            let events: usize = reports
                .iter()
                .filter_map(|r| r.pointer("/shown/events").and_then(Json::as_array))
                .map(Vec::len)
                .sum();
            assert!(
                checks >= 1 && events >= 5,
                "{}: {checks} checks, {events} events",
                v.name
            );
            assert!(reports
                .iter()
                .all(|r| r.pointer("/shown/check") != Some(&json!(false))));
        }
        let dropped = first
            .iter()
            .filter(|v| v.name.ends_with("loss_dup_reorder"))
            .flat_map(|v| &v.steps)
            .filter_map(|s| s.expect.report.as_ref())
            .filter(|r| r.get("dropped").is_some())
            .count();
        assert!(
            dropped > 5,
            "{dropped} frames dropped under loss and reordering"
        );
    }

    /// The game's coded session is its packed one in other bytes (ACK-15, ACK-16): the same
    /// scenes send as many frames, and the client shows the same states (the same checks pass
    /// at the same steps). Not fewer bytes (about 9% more): the seeded world's values are drawn
    /// at random, not the motion the game's tables were trained on.
    #[test]
    fn the_game_s_coded_session_is_the_packed_one_in_other_bytes() {
        let (vectors, _) = stream_vectors(&game()).unwrap_or_else(|e| panic!("{e}"));
        let sent = |name: &str| -> (usize, usize, Vec<Option<Json>>) {
            let v = vectors
                .iter()
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("no {name}"));
            let frames: Vec<&str> = v
                .steps
                .iter()
                .filter(|s| s.side == Side::Server)
                .flat_map(|s| &s.expect.sent)
                .map(|f| f.hex.as_str())
                .collect();
            let checks = v
                .steps
                .iter()
                .filter(|s| s.side == Side::Client)
                .map(|s| {
                    s.expect
                        .report
                        .as_ref()
                        .and_then(|r| r.pointer("/shown/check").cloned())
                })
                .collect();
            (
                frames.len(),
                frames.iter().map(|h| h.len() / 2).sum(),
                checks,
            )
        };
        for scene in ["no_loss", "loss_dup_reorder", "lost_acks"] {
            let (n_packed, packed, packed_checks) = sent(&format!("arena_packed/{scene}"));
            let (n_coded, coded, coded_checks) = sent(&format!("arena_coded/{scene}"));
            eprintln!("{scene}: {n_coded} frames, {coded} bytes coded, {packed} packed");
            assert_eq!(n_coded, n_packed, "{scene}");
            assert_eq!(coded_checks, packed_checks, "{scene}");
            assert!(coded_checks.contains(&Some(json!(true))), "{scene}");
        }
    }

    /// A replay that strays is caught: a client hash changed in a recorded vector fails it.
    #[test]
    fn a_changed_hash_fails_the_replay() {
        let spec = game();
        let (mut all, _) = stream_vectors(&spec).unwrap_or_else(|e| panic!("{e}"));
        let v = &mut all[0];
        let step = v
            .steps
            .iter_mut()
            .find(|s| s.expect.client_hash.is_some())
            .expect("a client step");
        step.expect.client_hash = step.expect.client_hash.map(|h| h ^ 1);
        let e = verify(&spec, v).unwrap_err();
        assert!(e.contains("client state hash"), "{e}");
    }

    /// The binding of the one state of layout `path`.
    fn bound(path: &str) -> Rc<Binding> {
        let (all, skipped) = sessions(&layout(path));
        assert!(skipped.is_empty(), "{path}: {skipped:?}");
        all.into_iter().next().expect("a state").1
    }

    /// ACK-1, ACK-20 and ACK-29 on the constants the layout declares: players.wire's server
    /// keeps SENT_RING = 20 frames, so an ack of the frame 25 back names a tick it no longer
    /// keeps, and its client holds HELD_RING = 40 states; arena.wire declares none and runs on
    /// acked.wire's 32 and 64, where the same ack moves the base.
    #[test]
    fn a_layout_s_session_constants_size_the_rings() {
        for (path, sent, held) in [
            ("spec/tests/state/players.wire", 20, 40),
            ("spec/tests/state/arena.wire", 32, 64),
        ] {
            let b = bound(path);
            for packed in [false, true] {
                let (kept, shown) = if packed {
                    rings(InterpPacked(b.clone()))
                } else {
                    rings(Interp(b.clone()))
                };
                assert_eq!((kept, shown), (sent, held), "{path} packed: {packed}");
            }
            let mut enc: AckedEncoder<_, ScheduledInputs<Json>> =
                AckedEncoder::with_schema(Interp(b), InputWindow::new(4, 64));
            for tick in 1..=30 {
                enc.encode(tick, ServerState::new(), Vec::new())
                    .unwrap_or_else(|e| panic!("{path}: {e}"));
            }
            // Frame 5 is 25 back: kept by a ring of 32, gone from a ring of 20.
            let verdict = enc.on_ack(30, 5, false, 1, Vec::new());
            let want = if sent < 25 {
                AckVerdict::Unknown
            } else {
                AckVerdict::Taken
            };
            assert_eq!(verdict, want, "{path}");
        }
    }

    /// How many frames an encoder of `schema` keeps, and how many states its client holds,
    /// after 100 frames (keyframes, none acknowledged) are sent and delivered.
    fn rings<S: Interpreted>(schema: S) -> (usize, usize) {
        let mut enc: AckedEncoder<S, ScheduledInputs<Json>> =
            AckedEncoder::with_schema(schema.clone(), InputWindow::new(4, 64));
        let mut dec = AckedDecoder::with_schema(schema);
        for tick in 1..=100 {
            let sent = enc
                .encode(tick, ServerState::new(), Vec::new())
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(
                dec.deliver(&sent.bytes),
                ackwire_codec::acked::Delivery::Shown(_)
            ));
        }
        (enc.kept(), dec.held())
    }

    fn layout(path: &str) -> Spec {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
        ackwire_spec::load(&[dir])
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .0
    }

    /// Every state of the repository's layouts records its streams, quaternions and bit sets in
    /// groups included, and replays them, whatever session constants it declares (players.wire
    /// keeps 20 frames on the server and 40 on the client).
    #[test]
    fn every_state_of_the_repository_s_layouts_records_and_replays() {
        let layouts = [
            "spec/protocol",
            "spec/tests/state/arena.wire",
            "spec/tests/state/players.wire",
            "examples/game/tests/shapes/shapes.wire",
        ];
        for path in layouts {
            let spec = layout(path);
            let (vectors, skipped) =
                stream_vectors(&spec).unwrap_or_else(|e| panic!("{path}: {e}"));
            // Every frame of every state (the reference's coded one too), three recordings each.
            assert!(skipped.is_empty(), "{path}: {skipped:?}");
            let frames = if path == "spec/protocol" { 3 } else { 2 };
            assert_eq!(vectors.len(), 3 * frames, "{path}");
            for v in &vectors {
                verify(&spec, v).unwrap_or_else(|e| panic!("{path} {}: {e}", v.name));
                let checks = v
                    .steps
                    .iter()
                    .filter_map(|s| s.expect.report.as_ref())
                    .filter(|r| r.pointer("/shown/check") == Some(&json!(true)))
                    .count();
                let odd: Vec<&Json> = v
                    .steps
                    .iter()
                    .filter_map(|s| s.expect.report.as_ref())
                    .filter(|r| r.get("shown").is_none() && r.get("ack").is_none())
                    .take(3)
                    .collect();
                assert!(checks >= 1, "{path} {}: no check passed: {odd:?}", v.name);
            }
        }
    }
}

/// The halves over a compiled state binding ([`ackwire_server::testee`]), as replays drive them
/// (examples/game/tests/stream_vectors.rs replays the game's vectors through its generated code).
mod compiled {
    use super::{Sent, Session};
    use ackwire_server::testee::Half;
    use serde_json::Value as Json;

    /// Every half of the testee (`StateServer`, `StateClient`) is a session; a half reads
    /// ticks, not the time, so the milliseconds go unused.
    impl<H: Half> Session for H {
        fn advance(&mut self, tick: u64, _now_ms: u64, ops: &[Json]) -> Result<(), String> {
            Half::advance(self, tick, ops)
        }
        fn deliver(&mut self, _now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Json, String> {
            Half::deliver(self, frame, bytes)
        }
        fn take(&mut self) -> Vec<Sent> {
            Half::take(self).into_iter().map(Sent::from).collect()
        }
        fn state_hash(&mut self) -> Option<u32> {
            Half::state_hash(self)
        }
    }
}
