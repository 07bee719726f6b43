//! The hostile half of the `acked_stream` fuzz target: the client's [`AckedDecoder`]
//! (`docs/spec/acked.md`) fed frames no honest server sends, all chosen by the input. The honest
//! half (a world, a server and a lossy network) is [`crate::acked::harness`], run by
//! `ackwire_server::acked::harness::fuzz_one` over the server's input schedule, which calls this on
//! the same bytes.
//!
//! What the input chooses, beyond an honest stream: ticks at and near u32::MAX and 0, bases the
//! decoder never held, bases of up to 65,535 entities, removal lists of up to every id of the
//! base (ascending, descending, repeated, not held), changes out of order, entities coming
//! whole without every group, ages reaching before tick 0, wrong checks, event serials that
//! wrap.
//!
//! Checked after every frame: the decoder never panics; it holds at most HELD_RING states; a frame
//! it shows produced exactly the state of [`apply_one_by_one`] (the frame's removals then its
//! changes applied one at a time onto the base, ACK-5 and ACK-32 with none of
//! [`apply_frame`](crate::acked::apply_frame)'s merge walk); a frame it refuses is refused by that
//! reference with the same reason, and leaves the state shown as it was; a stale frame is not newer
//! than the last shown.

use crate::acked::{
    state_check, AckedDecoder, AckedFrame, AckedSchema, Delivery, FrameOf, Inapplicable, Reference,
    State,
};
use crate::protocol::{ChangeMask, EntityState, Event, Shot, StateFlags};
use crate::BitSet;
use ackwire_sim::ByteSource;
use std::collections::BTreeMap;

/// The state `frame` produces onto `base`, by ACK-5 and ACK-32 taken one at a time: every removed
/// id leaves (one not held is the frame's fault), then every change applies in frame order (out of
/// ascending order is a fault) onto what remains, a removed id's change coming whole. The reference
/// [`apply_frame`](crate::acked::apply_frame) must agree with, fault for fault.
pub fn apply_one_by_one<S: AckedSchema>(
    schema: &S,
    base: Option<&State<S::Record>>,
    frame: &FrameOf<S>,
) -> Result<BTreeMap<u16, S::Record>, Inapplicable> {
    let mut state: BTreeMap<u16, S::Record> = match (frame.keyframe, base) {
        (true, _) => BTreeMap::new(),
        (false, Some(b)) => b.iter().map(|(e, r)| (*e, r.clone())).collect(),
        (false, None) => return Err(Inapplicable("a delta frame needs its base")),
    };
    for eid in &frame.removed {
        if state.remove(eid).is_none() {
            return Err(Inapplicable("a removed id the base does not hold"));
        }
    }
    let mut last: Option<u16> = None;
    for change in &frame.changes {
        let eid = schema.change_eid(change);
        if last.is_some_and(|l| l >= eid) {
            return Err(Inapplicable("changes not in ascending id order"));
        }
        last = Some(eid);
        let record = schema.apply(state.get(&eid), change, frame.tick)?;
        state.insert(eid, record);
    }
    Ok(state)
}

/// A record the input chooses, its pose measured `age` ticks before `tick`: a full pose
/// anywhere on the 1/512 m grid, or a quantized one a PoseStep reaches from the origin.
fn record(src: &mut ByteSource<'_>, tick: u32) -> EntityState {
    let full = !src.byte().is_multiple_of(4);
    let axis = |src: &mut ByteSource<'_>| {
        let v = i32::from(src.u16() as i16);
        if full {
            v * 64
        } else {
            v / 2
        }
    };
    let mut flags = StateFlags::empty();
    flags.set(StateFlags::POSE_FULL, full);
    EntityState {
        x: axis(src),
        y: axis(src),
        z: axis(src),
        yaw: if full {
            src.u16()
        } else {
            u16::from(src.byte()) << 8
        },
        flags,
        measured: tick.saturating_sub(u32::from(src.byte() % 8)),
        hp: src.byte(),
        armor: src.byte(),
        vehicle: u16::from(src.byte() % 3),
        seat: src.byte() % 4,
        orient: None,
    }
}

/// A record that follows from `eid` and `salt` alone: a full pose on the grid, measured at
/// `tick`.
fn derived(eid: u16, salt: u8, tick: u32) -> EntityState {
    let v = i32::from(eid) * 97 + i32::from(salt);
    EntityState {
        x: v,
        y: -v,
        z: i32::from(salt),
        yaw: eid.wrapping_mul(31),
        flags: StateFlags::empty().with(StateFlags::POSE_FULL),
        measured: tick,
        hp: salt,
        armor: eid as u8,
        vehicle: 0,
        seat: 0,
        orient: None,
    }
}

/// A tick the input chooses: the next one, far ahead, at or near u32::MAX, or near 0.
fn tick(src: &mut ByteSource<'_>, last: u32) -> u32 {
    // The extremes one time in four: u32::MAX shown once leaves every later frame stale.
    match src.byte() % 16 {
        0 => u32::MAX,
        1 => u32::MAX - u32::from(src.byte() % 4),
        2 => u32::from(src.byte() % 4),
        3 => src.u32(),
        4 => last.saturating_add(1 + u32::from(src.u16())),
        _ => last.saturating_add(1 + u32::from(src.byte() % 3)),
    }
}

/// How many entities a keyframe brings: mostly a few, sometimes thousands, and every id (the
/// most a u16 count holds) only behind a two-byte key: such a frame costs tens of milliseconds
/// even in release, and fuzzers make runs of 0xff often.
fn population(src: &mut ByteSource<'_>) -> usize {
    match src.byte() {
        255 if src.byte() == 0xa5 => usize::from(u16::MAX),
        b if b >= 240 => 1024 << (b % 4),
        b => usize::from(b % 48),
    }
}

/// The removals of a frame onto `base`, as the input chooses: none, every id (the frame that
/// took 1.48 s when each removal shifted the state), every k-th, in descending order, one
/// repeated, ids the base does not hold.
fn removals(src: &mut ByteSource<'_>, base: &[u16]) -> Vec<u16> {
    let mut ids: Vec<u16> = match src.byte() % 8 {
        0 => Vec::new(),
        1 | 2 => base.to_vec(),
        3 => {
            let k = 1 + usize::from(src.byte() % 4);
            base.iter().copied().step_by(k).collect()
        }
        4 => base.iter().rev().copied().collect(),
        5 => (0..src.byte() % 8).map(|_| src.u16()).collect(),
        _ => (0..src.byte() % 4)
            .filter_map(|_| {
                base.get(usize::from(src.u16()) % base.len().max(1))
                    .copied()
            })
            .collect(),
    };
    if src.byte().is_multiple_of(8) {
        if let Some(id) = ids.first().copied() {
            ids.push(id);
        }
    }
    // The wire's count is a u16.
    ids.truncate(usize::from(u16::MAX));
    ids
}

fn b0(src: &mut ByteSource<'_>) -> bool {
    src.byte().is_multiple_of(2)
}

/// What a run of [`acked_hostile`] saw, for tests that want to know the input exercised
/// something.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostileReport {
    /// Frames shown.
    pub shown: u64,
    /// Frames refused as inapplicable, by reason.
    pub inapplicable: BTreeMap<&'static str, u64>,
    /// Frames dropped as stale.
    pub stale: u64,
    /// Frames dropped onto a base not held.
    pub unknown_base: u64,
    /// The longest removal list of a frame shown.
    pub most_removed: usize,
    /// The largest state shown.
    pub most_entities: usize,
}

/// The hostile acked stream: see the module documentation. Panics when an invariant breaks.
pub fn acked_hostile(data: &[u8]) -> HostileReport {
    let mut seen = HostileReport::default();
    let mut src = ByteSource::new(data);
    let mut dec = AckedDecoder::<Reference>::new();
    // The states the decoder showed, by tick: ticks shown only ascend, so each is shown once,
    // and a base the decoder holds is among the last HELD_RING of them.
    let mut shown: BTreeMap<u32, State<EntityState>> = BTreeMap::new();
    let mut last_tick = 0u32;
    let mut steps = 0u32;
    while !src.done() && steps < 48 {
        steps += 1;
        let t = tick(&mut src, last_tick);
        let keyframe = shown.is_empty() || src.byte().is_multiple_of(4);
        let (base_tick, base) = if keyframe {
            (0, None)
        } else {
            match src.byte() % 8 {
                // A tick the decoder may never have shown; if it did, that state is the base.
                0 | 1 => {
                    let bt = if b0(&mut src) { u32::MAX } else { src.u32() };
                    (bt, shown.get(&bt).cloned())
                }
                b => {
                    let i = usize::from(b) % shown.len();
                    let (bt, s) = shown.iter().rev().nth(i).expect("i < len");
                    (*bt, Some(s.clone()))
                }
            }
        };
        let held: Vec<u16> = base.iter().flat_map(|b| b.keys().copied()).collect();
        let removed = if keyframe && !src.byte().is_multiple_of(4) {
            Vec::new()
        } else {
            removals(&mut src, &held)
        };
        // The changes: a keyframe's population, or some ids (held or not, in order or not).
        let ids: Vec<u16> = if keyframe {
            let n = population(&mut src);
            let step = (usize::from(u16::MAX) / n.max(1)).clamp(1, 8);
            (0..n).map(|i| (i * step) as u16).collect()
        } else {
            let mut ids: Vec<u16> = (0..src.byte() % 12)
                .map(|_| match src.byte() % 3 {
                    0 => src.u16(),
                    _ => held
                        .get(usize::from(src.u16()) % held.len().max(1))
                        .copied()
                        .unwrap_or(0),
                })
                .collect();
            if !src.byte().is_multiple_of(4) {
                ids.sort_unstable();
                ids.dedup();
            }
            ids
        };
        // One fault at most in a frame's changes, so that a frame of thousands still applies
        // most of the time: none, a change against a record the base does not hold (without
        // every group, for an entity that comes whole), or an age reaching before tick 0.
        let fault = src.byte() % 8;
        let faulty = usize::from(src.u16()) % ids.len().max(1);
        let salt = src.byte();
        let mut changes = Vec::with_capacity(ids.len());
        for (i, eid) in ids.into_iter().enumerate() {
            // The input draws the first records; the rest of a large keyframe follow from the
            // id, so that a base of thousands does not use the input up.
            let next = if i < 16 {
                record(&mut src, t)
            } else {
                derived(eid, salt, t)
            };
            // Against the base's record, unless the frame removes the id: then it comes whole.
            let against = if i == faulty && fault == 0 {
                Some(record(&mut src, t))
            } else if removed.contains(&eid) {
                None
            } else {
                base.as_ref().and_then(|b| b.get(&eid).copied())
            };
            let Ok(Some(mut change)) = Reference.diff(eid, against.as_ref(), &next, t) else {
                continue;
            };
            if i == faulty && fault == 1 && change.mask.contains(ChangeMask::POSE) {
                change.mask.set(ChangeMask::POSE_AGE, true);
                change.age = Some(src.byte().max(1));
            }
            changes.push(change);
        }
        let events: Vec<Event> = (0..src.byte() % 3)
            .map(|i| {
                Event::Shot(Shot {
                    shooter: 1,
                    weapon: i,
                    yaw: 0.0,
                })
            })
            .collect();
        let first_serial = match src.byte() % 4 {
            0 => u32::MAX - u32::from(src.byte() % 2),
            _ => steps,
        };
        let mut frame: FrameOf<Reference> = AckedFrame {
            tick: t,
            base_tick,
            last_seq: src.u32(),
            input_buffer: src.byte(),
            keyframe,
            check: None,
            removed,
            changes,
            first_serial,
            events,
        };
        let expected = apply_one_by_one(&Reference, base.as_ref(), &frame);
        frame.check = match (src.byte() % 4, &expected) {
            (0, _) => Some(src.u32()),
            (1, Ok(s)) => Some(state_check(&Reference, s.iter().map(|(e, r)| (*e, r)))),
            _ => None,
        };
        let mut bytes = Vec::new();
        if Reference.encode_frame(&frame, &mut bytes).is_err() {
            continue;
        }
        let before = dec.shown().map(|(t, s)| (t, s.to_state()));
        match dec.deliver(&bytes) {
            Delivery::Shown(told) => {
                assert!(
                    before.as_ref().is_none_or(|(b, _)| t > *b),
                    "frame {t} shown after frame {:?}",
                    before.map(|(b, _)| b)
                );
                let want = expected.unwrap_or_else(|e| {
                    panic!(
                        "frame {t} shown, the one-by-one reference refuses it: {}",
                        e.0
                    )
                });
                let told_tick = told.tick;
                let (_, got) = dec.shown().expect("a frame was just shown");
                assert!(
                    got.iter().eq(want.into_iter()),
                    "frame {t} (base {base_tick}) applied unlike the one-by-one reference"
                );
                assert_eq!(told_tick, t);
                seen.shown += 1;
                seen.most_removed = seen.most_removed.max(frame.removed.len());
                seen.most_entities = seen.most_entities.max(got.len());
                shown.insert(t, got.to_state());
                while shown.len() > Reference.held_ring() + 1 {
                    shown.pop_first();
                }
                last_tick = t;
            }
            Delivery::Inapplicable { why, .. } => {
                assert_eq!(
                    expected.err().map(|e| e.0),
                    Some(why),
                    "frame {t} refused for another reason than the one-by-one reference's"
                );
                let after = dec.shown().map(|(t, s)| (t, s.to_state()));
                assert_eq!(after, before, "a refused frame changed the state shown");
                *seen.inapplicable.entry(why).or_default() += 1;
            }
            Delivery::Stale { .. } => {
                assert!(
                    before.is_some_and(|(b, _)| t <= b),
                    "frame {t} called stale"
                );
                seen.stale += 1;
            }
            Delivery::UnknownBase { .. } => {
                assert!(!keyframe, "a keyframe needs no base");
                seen.unknown_base += 1;
            }
            Delivery::Undecodable(e) => panic!("an encoded frame does not decode: {e}"),
        }
        assert!(
            dec.held() <= Reference.held_ring(),
            "{} states held",
            dec.held()
        );
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 bytes (the low byte of each draw): the seeded inputs the tests run.
    fn input(seed: u64, len: usize) -> Vec<u8> {
        let mut rng = ackwire_sim::SplitMix64::new(seed);
        (0..len).map(|_| rng.next_u64() as u8).collect()
    }

    #[test]
    fn seeded_hostile_streams_keep_the_invariants_and_reach_every_fault() {
        let mut total = HostileReport::default();
        for seed in 0..400 {
            let r = acked_hostile(&input(seed, 1500));
            total.shown += r.shown;
            total.stale += r.stale;
            total.unknown_base += r.unknown_base;
            for (why, n) in r.inapplicable {
                *total.inapplicable.entry(why).or_default() += n;
            }
            total.most_removed = total.most_removed.max(r.most_removed);
            total.most_entities = total.most_entities.max(r.most_entities);
        }
        // Every fault a frame can have onto a held base, and the drops, were met.
        for why in [
            "a removed id the base does not hold",
            "changes not in ascending id order",
            "an entity comes whole without every group",
            "a pose measured before tick 0",
        ] {
            assert!(
                total.inapplicable.get(why).is_some_and(|n| *n > 0),
                "{why}: {total:?}"
            );
        }
        assert!(
            total.shown > 100 && total.stale > 0 && total.unknown_base > 0,
            "{total:?}"
        );
        // Bases of thousands of entities, and frames removing thousands of ids, were shown.
        assert!(total.most_entities >= 4096, "{total:?}");
        assert!(total.most_removed >= 1024, "{total:?}");
    }
}
