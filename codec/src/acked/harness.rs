//! Drives a whole acked stream of the reference schema (world, [`Presenter`],
//! [`AckedEncoder`], a scripted network, the client's [`AckedDecoder`] and kind 7 writer)
//! beside the ordered reference, and checks the invariant at every step: [`run_with`]. The
//! property tests, the fuzz target `acked_stream` and the bytes measurement all run through it.
//!
//! GEN-3: whatever the network loses, duplicates or reorders, every state the client shows is what
//! an ordered, lossless client shows at that tick, and once the network heals the client converges
//! to the server's world.
//!
//! Beside the server half fed whole worlds ([`Presenter::present`], [`AckedEncoder::encode`]) runs
//! its change-driven twin, told only what the script's ops changed ([`WorldChanges`],
//! [`Presenter::present_changes`], [`AckedEncoder::encode_edits`]) and fed the same acks: every
//! frame of the two must be the same bytes, or the run is broken.
//!
//! The client's inputs go to an [`InputSink`] the caller hands in, with the hook that executes them
//! each tick: the stream's invariant holds whatever is done with them, and the one scheduler the
//! fuzz target and the suite run (the input schedule of SRV-12 to SRV-16) is `ackwire-server`'s,
//! which this crate must not depend on nor copy. `ackwire_server::acked::harness::run` is this run
//! over that schedule, and its `fuzz_one` the fuzz target's body.

use super::{
    client_view, AckWriter, AckedDecoder, AckedEncoder, AckedSchema, Delivery, Groups, InputSink,
    OrderedDecoder, OrderedEncoder, Presenter, Reference, State, ViewConfig, World, WorldChanges,
    WorldEntity, MAX_BUFFERED_INPUTS,
};
use crate::protocol::{Blast, Buttons, Change, EntityState, Event, Hit, Input, Shot};
use crate::BitSet;
use ackwire_sim::{FateQueue, SplitMix64};
use std::collections::{BTreeMap, BTreeSet};

/// One operation of the world in a tick.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// An entity appears under `eid` (a new life if the id was used before).
    Spawn {
        /// Its id.
        eid: u16,
        /// East, north, up, metres.
        pos: [f32; 3],
        /// Heading, degrees.
        yaw: f32,
        /// Hit points.
        hp: u8,
    },
    /// An entity moves to a pose.
    Move {
        /// Its id.
        eid: u16,
        /// East, north, up, metres.
        pos: [f32; 3],
        /// Heading, degrees.
        yaw: f32,
    },
    /// An entity's rest changes.
    Set {
        /// Its id.
        eid: u16,
        /// Hit points.
        hp: u8,
        /// Armour.
        armor: u8,
        /// Vehicle, 0 on foot.
        vehicle: u16,
        /// Seat.
        seat: u8,
    },
    /// An entity is gone.
    Despawn {
        /// Its id.
        eid: u16,
    },
    /// An event happens.
    Event(Event),
}

/// Applies `ops` to `world`; returns the events. `lives` counts spawns per id.
pub fn apply_ops(world: &mut World, lives: &mut BTreeMap<u16, u32>, ops: &[Op]) -> Vec<Event> {
    let mut events = Vec::new();
    for op in ops {
        match op {
            Op::Spawn { eid, pos, yaw, hp } => {
                let life = lives.entry(*eid).or_insert(0);
                *life += 1;
                world.insert(
                    *eid,
                    WorldEntity {
                        life: *life,
                        x: pos[0],
                        y: pos[1],
                        z: pos[2],
                        yaw: *yaw,
                        hp: *hp,
                        armor: 0,
                        vehicle: 0,
                        seat: 0,
                        orient: None,
                    },
                );
            }
            Op::Move { eid, pos, yaw } => {
                if let Some(w) = world.get_mut(eid) {
                    (w.x, w.y, w.z, w.yaw) = (pos[0], pos[1], pos[2], *yaw);
                }
            }
            Op::Set {
                eid,
                hp,
                armor,
                vehicle,
                seat,
            } => {
                if let Some(w) = world.get_mut(eid) {
                    (w.hp, w.armor, w.vehicle, w.seat) = (*hp, *armor, *vehicle, *seat);
                }
            }
            Op::Despawn { eid } => {
                world.remove(eid);
            }
            Op::Event(e) => events.push(e.clone()),
        }
    }
    events
}

pub use ackwire_sim::Fate;

/// A world script, a view and a network schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// How the client sees the world.
    pub view: ViewConfig,
    /// The world's operations, one entry per tick from tick 1.
    pub script: Vec<Vec<Op>>,
    /// The fate of each server frame in turn (cycled; empty is perfect).
    pub down: Vec<Fate>,
    /// The fate of each kind 7 frame in turn (cycled; empty is perfect).
    pub up: Vec<Fate>,
    /// From this tick on the network is perfect (and after the script in any case).
    pub heal_at: u32,
    /// Ticks run after the script, on a healed network.
    pub drain: u32,
}

/// What a run measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Ticks run.
    pub ticks: u32,
    /// Bytes of every kind 6 frame sent (each once, duplicates not counted).
    pub bytes_down: u64,
    /// Bytes the ordered reference would have sent.
    pub bytes_ordered: u64,
    /// Frames the client showed.
    pub shown: u64,
    /// Frames the client dropped as stale or onto an unknown base.
    pub dropped: u64,
    /// Of those, coded frames dropped because the client did not hold their older snapshot
    /// (CODE-3).
    pub dropped_older: u64,
    /// Keyframes sent.
    pub keyframes: u64,
    /// Coded frames sent that named an older snapshot (CODE-2).
    pub older_named: u64,
    /// Events the world produced.
    pub events: u64,
    /// Events the client showed.
    pub events_shown: u64,
    /// Events that expired unacknowledged.
    pub events_expired: u64,
    /// The most frame states the client held at once.
    pub max_held: usize,
    /// The most frames the server kept at once.
    pub max_kept: usize,
}

/// The world-side fault the harness tolerates nowhere: its message says which invariant broke.
type Broken = String;

/// Runs `s` with the client's inputs going to `inputs`, which `execute` runs each server tick
/// (before the world's operations and the presenter), and checks, at every step: every state the client shows equals the ordered
/// client's state at that tick, record for record; each event is shown at most once, is the
/// event of its serial, and every event not shown expired unacknowledged; from two ticks
/// after healing, the client shows the frame sent the tick before; both sides' memory stays
/// within its ring. Returns what it measured, or the first broken invariant.
pub fn run_with<Q: InputSink<Input = Input>>(
    s: &Scenario,
    inputs: Q,
    execute: impl FnMut(&mut Q, u64),
) -> Result<Outcome, Broken> {
    run_schema_with::<Reference, Q>(s, inputs, execute, false)
}

/// [`run_with`] with the acked stream in the frames of schema `S` (kind 6's [`Reference`],
/// kind 12's [`PackedReference`](super::PackedReference) or kind 13's `CodedReference`, the
/// same records, changes and events; the ordered reference stays kind 6), and, when `turn` is set, every entity the
/// world's ops moved on a tick also turned: an orientation that follows from its position
/// (issue 19's ORIENT group), so that the same scenarios drive the orientation too.
pub fn run_schema_with<S, Q>(
    s: &Scenario,
    inputs: Q,
    mut execute: impl FnMut(&mut Q, u64),
    turn: bool,
) -> Result<Outcome, Broken>
where
    S: AckedSchema<Record = EntityState, Change = Change, Event = Event, Input = Input> + Default,
    Q: InputSink<Input = Input>,
{
    let schema = S::default();
    let mut world = World::new();
    let mut lives = BTreeMap::new();
    let mut presenter = Presenter::new(s.view.clone());
    let mut oenc = OrderedEncoder::<Reference>::new();
    let mut odec = OrderedDecoder::<Reference>::new();
    let mut ordered: BTreeMap<u32, State<EntityState>> = BTreeMap::new();
    let mut enc = AckedEncoder::<S, Q>::new(inputs).keep_expired_serials();
    let mut dec = AckedDecoder::<S>::new();
    let mut writer = AckWriter::<Input>::new(16);
    let mut down = FateQueue::new();
    let mut up = FateQueue::new();
    let mut generated: Vec<Event> = Vec::new();
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut out = Outcome::default();
    let end = s.script.len() as u32 + s.drain;
    let heal = s.heal_at.min(s.script.len() as u32 + 1);
    let mut last_state = State::new();
    // The change-driven twin: its input sink only reports the count of the first's, so that
    // the header's `input_buffer` is the same.
    let mut twin = Presenter::new(s.view.clone());
    let mut twin_enc = AckedEncoder::<S, Mirror>::new(Mirror::default());
    let mut changes = WorldChanges::new();
    for t in 1..=end {
        let healed = t >= heal;
        // 1. Frames arriving at the client.
        for bytes in down.arrivals(t) {
            match dec.deliver(&bytes) {
                Delivery::Shown(report) => {
                    let report = report.clone();
                    out.shown += 1;
                    let want = ordered.get(&report.tick).ok_or_else(|| {
                        format!("tick {t}: shown tick {} has no ordered state", report.tick)
                    })?;
                    let (_, got) = dec.shown().ok_or("shown nothing")?;
                    if got != want {
                        return Err(format!(
                            "tick {t}: the client shows frame {} (base {}) unlike the ordered client:\n acked {got:?}\n ordered {want:?}",
                            report.tick, report.base_tick
                        ));
                    }
                    if report.check == Some(false) {
                        return Err(format!("tick {t}: frame {} failed its check", report.tick));
                    }
                    for (serial, event) in report.events {
                        if !seen.insert(serial) {
                            return Err(format!("tick {t}: event {serial} shown twice"));
                        }
                        let i = serial.checked_sub(1).map(|i| i as usize);
                        if i.and_then(|i| generated.get(i)) != Some(&event) {
                            return Err(format!("tick {t}: event {serial} is not its event"));
                        }
                    }
                    writer.confirm(dec.last_seq());
                }
                Delivery::Stale { .. } | Delivery::UnknownBase { .. } => out.dropped += 1,
                other => return Err(format!("tick {t}: the client refused a frame: {other:?}")),
            }
        }
        out.max_held = out.max_held.max(dec.held());
        if healed && t >= heal + 2 && t >= 2 {
            let shown = dec.shown().map(|(k, _)| k);
            if shown != Some(t - 1) {
                return Err(format!(
                    "tick {t}: healed since {heal}, the client shows {shown:?}, not {}",
                    t - 1
                ));
            }
        }
        // 2. Kind 7 frames arriving at the server.
        for bytes in up.arrivals(t) {
            enc.receive(u64::from(t), &bytes)
                .map_err(|e| format!("tick {t}: the server refused an ack: {e}"))?;
            twin_enc
                .receive(u64::from(t), &bytes)
                .map_err(|e| format!("tick {t}: the change-driven twin refused an ack: {e}"))?;
        }
        // 3. The client acknowledges and sends an input aimed two ticks ahead.
        writer.push(Input {
            tick: t + 2,
            buttons: Buttons::empty(),
            move_x: 0.0,
            move_y: 0.0,
            yaw: 0.0,
        });
        let ack = writer.content(dec.ack_tick(), dec.keyframe_wanted());
        let mut bytes = Vec::new();
        schema
            .encode_ack(&ack, &mut bytes)
            .map_err(|e| e.to_string())?;
        up.send(t, Fate::nth(&s.up, t as usize, healed), bytes);
        // 4. The server's tick.
        let ops = s.script.get(t as usize - 1).map_or(&[][..], |v| &v[..]);
        let events = apply_ops(&mut world, &mut lives, ops);
        if turn {
            for op in ops {
                if let Op::Spawn { eid, pos, .. } | Op::Move { eid, pos, .. } = op {
                    if let Some(e) = world.get_mut(eid) {
                        e.orient = Some([pos[0], pos[1] * 0.5, 1.0, pos[2] - pos[0]]);
                    }
                }
            }
        }
        generated.extend(events.iter().cloned());
        execute(enc.inputs_mut(), u64::from(t));
        twin_enc.inputs_mut().0 = enc.inputs().pending();
        // What an ECS's change tracking would report of the ops.
        changes.clear();
        for op in ops {
            match op {
                Op::Spawn { eid, .. } => changes.spawned.push(*eid),
                Op::Move { eid, .. } => changes.changed.push((*eid, Groups::POSE | Groups::ORIENT)),
                Op::Set { eid, .. } => changes.changed.push((*eid, Groups::VITALS | Groups::SEAT)),
                Op::Despawn { eid } => changes.despawned.push(*eid),
                Op::Event(_) => {}
            }
        }
        let edits = twin.present_changes(t, &world, &changes);
        let twin_sent = twin_enc
            .encode_edits(t, edits, events.clone())
            .map_err(|e| format!("tick {t}: the change-driven twin's encode: {e}"))?;
        let state = presenter.present(t, &world);
        let oframe = oenc
            .encode(t, state.clone(), events.clone())
            .map_err(|e| format!("tick {t}: ordered encode: {e}"))?;
        let mut obytes = Vec::new();
        Reference
            .encode_frame(&oframe, &mut obytes)
            .map_err(|e| e.to_string())?;
        out.bytes_ordered += obytes.len() as u64;
        let oframe = Reference.decode_frame(&obytes).map_err(|e| e.to_string())?;
        let ostate = odec
            .apply(&oframe)
            .map_err(|e| format!("tick {t}: ordered apply: {}", e.0))?;
        last_state = client_view(&state);
        if *ostate != last_state {
            return Err(format!("tick {t}: the ordered client differs from S_N"));
        }
        ordered.insert(t, last_state.clone());
        while ordered.len() > 512 {
            ordered.pop_first();
        }
        let sent = enc
            .encode(t, state, events)
            .map_err(|e| format!("tick {t}: acked encode: {e}"))?;
        if sent.bytes != twin_sent.bytes {
            return Err(format!(
                "tick {t}: the change-driven server half sent other bytes:\n whole {:?}\n changes {:?}",
                sent.frame, twin_sent.frame
            ));
        }
        out.bytes_down += sent.bytes.len() as u64;
        out.max_kept = out.max_kept.max(enc.kept());
        down.send(t, Fate::nth(&s.down, t as usize, healed), sent.bytes);
    }
    // Converged: the last frame (sent at `end`) arrives at `end + 1`.
    for b in down.arrivals(end + 1) {
        let _ = dec.deliver(&b);
    }
    if end > 0 && !dec.shown().is_some_and(|(_, st)| *st == last_state) {
        return Err("after draining, the client does not show the server's world".into());
    }
    out.dropped_older = dec.counters().unknown_older;
    let c = enc.counters();
    out.ticks = end;
    out.keyframes = c.keyframes;
    out.older_named = c.older_named;
    out.events = generated.len() as u64;
    out.events_shown = seen.len() as u64;
    out.events_expired = c.events_expired;
    let expired: BTreeSet<u32> = enc.expired_serials().iter().copied().collect();
    for serial in 1..=generated.len() as u32 {
        if !seen.contains(&serial) && !expired.contains(&serial) {
            return Err(format!("event {serial} was never shown and did not expire"));
        }
    }
    if out.max_held > schema.held_ring() || out.max_kept > schema.sent_ring() {
        return Err(format!("memory past the rings: {out:?}"));
    }
    Ok(out)
}

/// The change-driven twin's input sink: it holds nothing and reports the count it is set to
/// (the first server half's), so that both halves' headers say the same.
#[derive(Debug, Default)]
struct Mirror(usize);

impl InputSink for Mirror {
    type Input = Input;

    fn submit(&mut self, _seq: u32, _tick: u32, _input: Input, _current: u64) {}

    fn pending(&self) -> usize {
        self.0
    }
}

/// The shape of a generated scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Ticks of script.
    pub ticks: u32,
    /// Entity ids 1..=entities (1 is the client's own).
    pub entities: u16,
    /// Chance a frame (either way) is lost.
    pub loss: f64,
    /// Chance a frame is duplicated.
    pub duplicate: f64,
    /// Largest extra delay in ticks (reordering).
    pub jitter: u32,
    /// Chance per tick of an entity's despawn or respawn.
    pub churn: f64,
    /// Chance per tick of an event.
    pub events: f64,
    /// Where the network heals (ticks from the start).
    pub heal_at: u32,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            ticks: 200,
            entities: 10,
            loss: 0.25,
            duplicate: 0.05,
            jitter: 3,
            churn: 0.02,
            events: 0.3,
            heal_at: u32::MAX,
        }
    }
}

/// A scenario of `shape` drawn from `next` (a source of random u64s).
pub fn generate(shape: Shape, next: &mut dyn FnMut() -> u64) -> Scenario {
    let mut unit = || (next() >> 11) as f64 / (1u64 << 53) as f64;
    let mut script = Vec::new();
    let mut alive: BTreeMap<u16, ([f32; 3], f32)> = BTreeMap::new();
    for t in 0..shape.ticks {
        let mut ops = Vec::new();
        for eid in 1..=shape.entities.max(1) {
            let spawn_now = !alive.contains_key(&eid) && (t == 0 || unit() < shape.churn * 4.0);
            if spawn_now {
                // Spread over ±48 m: near, far, and outside the quantized box.
                let pos = [
                    (unit() * 96.0 - 48.0) as f32,
                    (unit() * 96.0 - 48.0) as f32,
                    (unit() * 4.0) as f32,
                ];
                let yaw = (unit() * 360.0) as f32;
                alive.insert(eid, (pos, yaw));
                ops.push(Op::Spawn {
                    eid,
                    pos,
                    yaw,
                    hp: 100,
                });
                continue;
            }
            let Some((pos, yaw)) = alive.get_mut(&eid) else {
                continue;
            };
            let r = unit();
            if r < shape.churn {
                alive.remove(&eid);
                ops.push(Op::Despawn { eid });
                // Sometimes back at once under the same id: a new life in the same tick.
                if unit() < 0.5 {
                    let p = [
                        (unit() * 40.0 - 20.0) as f32,
                        (unit() * 40.0 - 20.0) as f32,
                        0.0,
                    ];
                    alive.insert(eid, (p, 0.0));
                    ops.push(Op::Spawn {
                        eid,
                        pos: p,
                        yaw: 0.0,
                        hp: 100,
                    });
                }
            } else if r < 0.75 {
                let step = if unit() < 0.02 { 30.0 } else { 0.4 };
                for v in pos.iter_mut().take(2) {
                    *v += ((unit() * 2.0 - 1.0) * step) as f32;
                    *v = v.clamp(-60.0, 60.0);
                }
                *yaw = (*yaw + (unit() * 20.0 - 10.0) as f32).rem_euclid(360.0);
                ops.push(Op::Move {
                    eid,
                    pos: *pos,
                    yaw: *yaw,
                });
            } else if r < 0.8 {
                ops.push(Op::Set {
                    eid,
                    hp: (unit() * 100.0) as u8,
                    armor: (unit() * 50.0) as u8,
                    vehicle: if unit() < 0.5 { 0 } else { 1 },
                    seat: (unit() * 4.0) as u8,
                });
            }
        }
        while unit() < shape.events {
            let who = (unit() * f64::from(shape.entities)) as u16 + 1;
            ops.push(Op::Event(match (unit() * 3.0) as u32 {
                0 => Event::Shot(Shot {
                    shooter: who,
                    weapon: 1,
                    yaw: 90.0,
                }),
                1 => Event::Hit(Hit {
                    attacker: who,
                    victim: 1,
                    damage: 7,
                }),
                _ => Event::Blast(Blast {
                    x: 1.5,
                    y: -2.0,
                    z: 0.0,
                    radius: 2.0,
                }),
            }));
        }
        script.push(ops);
    }
    let mut fates = |n: usize| -> Vec<Fate> {
        (0..n)
            .map(|_| Fate {
                lost: unit() < shape.loss,
                delay: 1 + (unit() * f64::from(shape.jitter + 1)) as u32,
                dup: (unit() < shape.duplicate)
                    .then(|| 1 + (unit() * f64::from(shape.jitter + 2)) as u32),
            })
            .collect()
    };
    let down = fates(shape.ticks as usize + 1);
    let up = fates(shape.ticks as usize + 1);
    Scenario {
        view: ViewConfig {
            own: vec![1],
            ..ViewConfig::default()
        },
        script,
        down,
        up,
        heal_at: shape.heal_at,
        drain: 8,
    }
}

/// A scenario of `shape` drawn from `seed`.
pub fn from_seed(shape: Shape, seed: u64) -> Scenario {
    let mut mix = SplitMix64::new(seed);
    generate(shape, &mut || mix.next_u64())
}

/// A scenario drawn from arbitrary bytes (the fuzz target's input): the first bytes choose
/// the shape, the rest feed the generator (zeros once they run out).
pub fn from_bytes(data: &[u8]) -> Scenario {
    let b = |i: usize| data.get(i).copied().unwrap_or(0);
    let shape = Shape {
        ticks: 1 + u32::from(b(0)) % 160,
        entities: 1 + u16::from(b(1)) % 12,
        loss: f64::from(b(2)) / 255.0 * 0.9,
        duplicate: f64::from(b(3)) / 255.0 * 0.3,
        jitter: u32::from(b(4)) % 40,
        churn: f64::from(b(5)) / 255.0 * 0.1,
        events: f64::from(b(6)) / 255.0 * 0.8,
        heal_at: u32::from(b(7)) * 2,
    };
    let mut at = 8;
    let mut mix = SplitMix64::new(0);
    generate(shape, &mut || {
        let mut v = 0u64;
        for _ in 0..8 {
            v = (v << 8) | u64::from(b(at));
            at += 1;
        }
        // Mixed, so that a short input still gives varied draws.
        mix.mix_in(v);
        mix.next_u64()
    })
}

/// Floods `encoder` with kind 7 inputs (255 per frame for 200 frames, half of them at
/// sequence numbers near `u32::MAX`), then jumps the sequence back, and checks what the
/// encoder must hold whatever its sink does with them: at most MAX_BUFFERED_INPUTS pending,
/// the overflow and the repeats counted, nothing after the backward jump taken as new, and a
/// kind 7 frame that does not decode refused rather than a panic. The codec's tests run it over
/// a sink that keeps everything, the server's over its input schedule.
pub fn input_flood<Q: InputSink<Input = Input>>(
    encoder: &mut AckedEncoder<Reference, Q>,
) -> Result<(), String> {
    let input = |tick: u32| Input {
        tick,
        buttons: Buttons::empty(),
        move_x: 0.0,
        move_y: 0.0,
        yaw: 0.0,
    };
    for round in 0..200u32 {
        let inputs = (0..255u32).map(|i| (round * 7 + i % 60, input(i)));
        encoder.on_ack(u64::from(round), 0, false, round * 255 + 1, inputs);
        let far = (0..255u32).map(|i| (u32::MAX - i, input(i)));
        encoder.on_ack(u64::from(round), 0, false, round * 255 + 1, far);
        let pending = encoder.inputs().pending();
        if pending > MAX_BUFFERED_INPUTS {
            return Err(format!("round {round}: {pending} inputs pending"));
        }
    }
    let c = encoder.counters();
    if c.inputs_overflow == 0 || c.inputs_repeated == 0 {
        return Err(format!("the flood was not counted: {c:?}"));
    }
    encoder.on_ack(1, 0, false, u32::MAX - 2, (0..10).map(|i| (1, input(i))));
    if encoder.last_seq() != u32::MAX {
        return Err(format!("last_seq {} after the jump", encoder.last_seq()));
    }
    let before = encoder.counters().inputs_taken;
    encoder.on_ack(1, 0, false, 5, (0..10).map(|i| (1, input(i))));
    if encoder.counters().inputs_taken != before {
        return Err("an input after the backward jump was taken as new".into());
    }
    if encoder.receive(1, &[7, 0, 0]).is_ok() {
        return Err("a kind 7 frame that does not decode was accepted".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs held until their tick, then all dropped: no scheduler, and enough of a sink for
    /// the stream's invariant, which holds whatever is done with the inputs.
    #[derive(Debug, Default)]
    struct Queue(Vec<(u32, Input)>);

    impl InputSink for Queue {
        type Input = Input;
        fn submit(&mut self, _seq: u32, tick: u32, input: Input, _current: u64) {
            self.0.push((tick, input));
        }
        fn pending(&self) -> usize {
            self.0.len()
        }
    }

    #[test]
    fn lossy_streams_equal_the_ordered_one_whatever_the_input_sink() {
        for seed in 0..10 {
            let s = from_seed(Shape::default(), seed);
            let execute = |q: &mut Queue, t: u64| q.0.retain(|(tick, _)| u64::from(*tick) > t);
            if let Err(e) = run_with(&s, Queue::default(), execute) {
                panic!("seed {seed}: {e}");
            }
        }
    }
}
