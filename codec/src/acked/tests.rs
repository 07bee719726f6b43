use super::moves;
use super::*;
use crate::protocol::{
    Change, ChangeMask, EntityState, Event, Input, Orientation, Shot, StateFlags,
};
use crate::rt::SmallestThree;
use crate::BitSet;
use crate::ErrorKind;

fn rec(x: i32, full: bool, measured: u32, hp: u8) -> EntityState {
    let mut flags = StateFlags::empty();
    flags.set(StateFlags::POSE_FULL, full);
    EntityState {
        x,
        y: -x,
        z: 3,
        yaw: if full { 12345 } else { 0x4500 },
        flags,
        measured,
        hp,
        armor: 0,
        vehicle: 0,
        seat: 0,
        orient: None,
    }
}

fn state(entries: &[(u16, u32, EntityState)]) -> ServerState<EntityState> {
    entries
        .iter()
        .map(|(e, life, r)| {
            (
                *e,
                Entry {
                    life: *life,
                    record: *r,
                },
            )
        })
        .collect()
}

fn frame(
    tick: u32,
    base: Option<(u32, &ServerState<EntityState>)>,
    next: &ServerState<EntityState>,
    events: Vec<Event>,
    first_serial: u32,
) -> Vec<u8> {
    let (removed, changes) = delta(&Reference, base.map(|b| b.1), next, tick).unwrap();
    let f = AckedFrame {
        tick,
        base_tick: base.map_or(0, |b| b.0),
        last_seq: 0,
        input_buffer: 0,
        keyframe: base.is_none(),
        check: Some(server_check(&Reference, next)),
        removed,
        changes,
        first_serial,
        events,
    };
    let mut out = Vec::new();
    Reference.encode_frame(&f, &mut out).unwrap();
    out
}

fn shot(w: u8) -> Event {
    Event::Shot(Shot {
        shooter: 1,
        weapon: w,
        yaw: 0.0,
    })
}

#[test]
fn a_delta_applies_onto_its_base_to_the_next_state() {
    // ACK-19, ACK-21.
    let b = state(&[
        (1, 1, rec(100, true, 1, 100)),
        (2, 1, rec(-16000, false, 1, 50)),
        (3, 1, rec(9_000_000, true, 1, 9)),
    ]);
    // 2 moves (quantized, from an in-box base), 3 has a new life, 4 comes, 1 is gone.
    let n = state(&[
        (2, 1, rec(16000, false, 4, 50)),
        (3, 2, rec(5, false, 3, 9)),
        (4, 1, rec(-7, true, 5, 1)),
    ]);
    let (removed, changes) = delta(&Reference, Some(&b), &n, 5).unwrap();
    assert_eq!(removed, vec![1, 3]);
    assert_eq!(changes.len(), 3);
    assert_eq!(changes[0].age, Some(1), "measured at 4, frame 5");
    let held = client_view(&b);
    let bytes = frame(5, Some((4, &b)), &n, vec![], 0);
    let f = Reference.decode_frame(&bytes).unwrap();
    assert_eq!(
        apply_frame(&Reference, Some(&held), &f).unwrap(),
        client_view(&n)
    );
    // As a keyframe too.
    let f = Reference
        .decode_frame(&frame(5, None, &n, vec![], 0))
        .unwrap();
    assert_eq!(apply_frame(&Reference, None, &f).unwrap(), client_view(&n));
}

#[test]
fn an_unchanged_entity_sends_nothing_and_a_far_pose_out_of_reach_is_refused() {
    // ACK-21, CHECK-5.
    let b = state(&[(1, 1, rec(10, false, 1, 1))]);
    assert!(delta(&Reference, Some(&b), &b, 2).unwrap().1.is_empty());
    let n = state(&[(1, 1, rec(40_000, false, 2, 1))]);
    assert!(delta(&Reference, Some(&b), &n, 2).is_err());
    let old = state(&[(1, 1, rec(10, true, 1, 1))]);
    assert!(delta(&Reference, None, &old, 300).is_err(), "age over a u8");
}

#[test]
fn the_decoder_drops_stale_and_unknown_base_frames_and_shows_events_once() {
    // ACK-30, ACK-31, ACK-35.
    let s1 = state(&[(1, 1, rec(1, true, 1, 1))]);
    let s2 = state(&[(1, 1, rec(2, true, 2, 1))]);
    let s3 = state(&[(1, 1, rec(3, true, 3, 2))]);
    let mut d = AckedDecoder::<Reference>::new();
    let f1 = frame(1, None, &s1, vec![shot(1)], 1);
    assert!(matches!(d.deliver(&f1), Delivery::Shown(_)));
    assert_eq!(d.ack_tick(), 1);
    assert!(matches!(d.deliver(&f1), Delivery::Stale { tick: 1 }));
    // Frame 3 onto 2, which never came.
    let f3 = frame(3, Some((2, &s2)), &s3, vec![shot(1), shot(2)], 1);
    assert!(matches!(d.deliver(&f3), Delivery::UnknownBase { .. }));
    // Frame 3 onto 1: shows only the event above the newest serial shown.
    let f3 = frame(3, Some((1, &s1)), &s3, vec![shot(1), shot(2)], 1);
    let Delivery::Shown(r) = d.deliver(&f3) else {
        panic!()
    };
    assert_eq!(r.events, vec![(2, shot(2))]);
    assert_eq!(r.measured, vec![(1, 3)]);
    assert_eq!(r.check, Some(true));
    let f2 = frame(2, Some((1, &s1)), &s2, vec![], 0);
    assert!(matches!(d.deliver(&f2), Delivery::Stale { .. }));
    let c = d.counters();
    assert_eq!((c.applied, c.stale, c.unknown_base), (2, 2, 1));
    assert!(matches!(d.deliver(&[6, 1]), Delivery::Undecodable(_)));
}

#[test]
fn a_failed_check_asks_for_a_keyframe_and_holds_nothing_until_one() {
    // ACK-36, ACK-13, ACK-26.
    let s1 = state(&[(1, 1, rec(1, true, 1, 1))]);
    let s2 = state(&[(1, 1, rec(2, true, 2, 1))]);
    let mut d = AckedDecoder::<Reference>::new();
    d.deliver(&frame(1, None, &s1, vec![], 0));
    d.tamper(|_, r| r.hp ^= 0x40);
    let Delivery::Shown(r) = d.deliver(&frame(2, Some((1, &s1)), &s2, vec![], 0)) else {
        panic!()
    };
    assert_eq!(r.check, Some(false));
    assert!(d.keyframe_wanted());
    assert_eq!(d.ack_tick(), 0);
    assert_eq!(d.held(), 0);
    let w = AckWriter::<Input>::new(4);
    let ack = w.content(2, true);
    assert!(ack.keyframe_request);
    assert_eq!(ack.ack_tick, 0, "a keyframe request acknowledges nothing");
    let s3 = state(&[(1, 1, rec(3, true, 3, 1))]);
    assert!(matches!(
        d.deliver(&frame(3, Some((2, &s2)), &s3, vec![], 0)),
        Delivery::UnknownBase { .. }
    ));
    let s4 = state(&[(1, 1, rec(4, true, 4, 1))]);
    let Delivery::Shown(r) = d.deliver(&frame(4, None, &s4, vec![], 0)) else {
        panic!()
    };
    assert_eq!(r.check, Some(true));
    assert!(!d.keyframe_wanted());
    assert_eq!(d.ack_tick(), 4);
}

#[test]
fn the_held_ring_is_bounded() {
    // ACK-29.
    let mut d = AckedDecoder::<Reference>::new();
    let mut prev: Option<ServerState<EntityState>> = None;
    for t in 1..200u32 {
        let s = state(&[(1, 1, rec(t as i32, true, t, 1))]);
        let bytes = frame(t, prev.as_ref().map(|p| (t - 1, p)), &s, vec![], 0);
        assert!(matches!(d.deliver(&bytes), Delivery::Shown(_)));
        prev = Some(s);
    }
    assert_eq!(d.held(), Reference.held_ring());
}

#[test]
fn the_ordered_deltas_go_each_onto_the_one_before() {
    // ACK-37.
    let mut e = OrderedEncoder::<Reference>::new();
    let mut d = OrderedDecoder::<Reference>::new();
    for t in 1..=61u32 {
        let s = state(&[(1, 1, rec(t as i32 % 7, true, t, 1))]);
        let f = e.encode(t, s.clone(), vec![shot(t as u8)]).unwrap();
        assert_eq!(f.keyframe, t == 1);
        assert_eq!(f.check.is_some(), t % 30 == 0);
        assert_eq!(f.first_serial, t);
        assert_eq!(d.apply(&f).unwrap(), &client_view(&s));
    }
}

#[test]
fn the_ack_writer_repeats_inputs_until_the_server_took_them() {
    // ACK-12.
    let mut w = AckWriter::<Input>::new(3);
    let input = |t| Input {
        tick: t,
        buttons: crate::protocol::Buttons::empty(),
        move_x: 0.0,
        move_y: 0.0,
        yaw: 0.0,
    };
    for t in 1..=5 {
        w.push(input(t));
    }
    let f = w.content(9, false);
    assert_eq!((f.ack_tick, f.first_seq, f.inputs.len()), (9, 3, 3));
    w.confirm(4);
    let f = w.content(9, false);
    assert_eq!((f.first_seq, f.inputs.len()), (5, 1));
    w.confirm(5);
    let f = w.content(9, false);
    assert_eq!((f.first_seq, f.inputs.len()), (0, 0));
    // The kind 7 frame of the reference schema: no first_seq without inputs.
    let mut bytes = Vec::new();
    Reference.encode_ack(&f, &mut bytes).unwrap();
    let back = <crate::protocol::Ack as crate::rt::Frame>::decode(&bytes).unwrap();
    assert_eq!((back.ack_tick, back.first_seq), (9, None));
    assert_eq!(Reference.decode_ack(&bytes).unwrap(), f);
}

#[test]
fn a_server_state_is_a_map_kept_in_ascending_id() {
    let e = |life: u32| Entry {
        life,
        record: rec(0, false, 0, 1),
    };
    let mut s: ServerState<EntityState> = [(5, e(1)), (2, e(1)), (5, e(2))].into_iter().collect();
    // The later of two entries under one id wins, as in a map.
    assert_eq!(s.keys().copied().collect::<Vec<_>>(), [2, 5]);
    assert_eq!(s.get(&5).map(|e| e.life), Some(2));
    assert_eq!(s.insert(3, e(7)), None);
    assert_eq!(s.insert(9, e(1)), None);
    assert_eq!(s.insert(3, e(8)).map(|e| e.life), Some(7));
    assert_eq!(s.keys().copied().collect::<Vec<_>>(), [2, 3, 5, 9]);
    assert_eq!(s.remove(&2).map(|e| e.life), Some(1));
    assert_eq!(s.remove(&2), None);
    assert_eq!(s.get(&4), None);
    assert_eq!((s.len(), s.is_empty()), (3, false));
    assert!(ServerState::<EntityState>::new().is_empty());
}

/// The generated record compares every field without early exits (spec/src/gen/rust.rs); it
/// must still tell records apart by any one field, as the derive did.
#[test]
fn records_differing_in_any_one_field_are_unequal() {
    let a = rec(70, true, 9, 100);
    let edits: [fn(&mut EntityState); 10] = [
        |r| r.x += 1,
        |r| r.y += 1,
        |r| r.z += 1,
        |r| r.yaw ^= 1,
        |r| r.flags = StateFlags::empty(),
        |r| r.measured += 1,
        |r| r.hp -= 1,
        |r| r.armor += 1,
        |r| r.vehicle += 1,
        |r| r.seat += 1,
    ];
    let same = a;
    assert_eq!(a, same);
    for (i, edit) in edits.iter().enumerate() {
        let mut b = a;
        edit(&mut b);
        assert_ne!(a, b, "edit {i} went unnoticed");
    }
}

/// A base of `n` entities under the even ids 0, 2, 4, ..., each at its own pose.
fn even_base(n: u16, tick: u32) -> ServerState<EntityState> {
    (0..n)
        .map(|i| {
            let record = rec(i32::from(i), true, tick, 1);
            (i * 2, Entry { life: 1, record })
        })
        .collect()
}

/// Issue 13: a frame removing every entity of its base was one shift of the state per removal
/// (removed × base entries moved: 1.48 s of client CPU for 65,535 of 65,535). It must cost one
/// walk of the base: at most an entry moved per entry of the base and per change.
#[test]
fn removing_the_whole_base_moves_each_entry_at_most_once() {
    let n = 8192;
    let base = even_base(n, 1);
    let mut d = AckedDecoder::<Reference>::new();
    assert!(matches!(
        d.deliver(&frame(1, None, &base, vec![], 0)),
        Delivery::Shown(_)
    ));
    let empty = ServerState::new();
    let bytes = frame(2, Some((1, &base)), &empty, vec![], 0);
    moves::take();
    let Delivery::Shown(r) = d.deliver(&bytes) else {
        panic!("the frame removing everything did not apply")
    };
    let moved = moves::take();
    assert_eq!(r.gone.len(), usize::from(n));
    assert_eq!(d.shown().map(|(_, s)| s.len()), Some(0));
    assert!(
        moved <= u64::from(n),
        "{moved} entries moved to remove {n} from a base of {n}"
    );
}

/// Issue 13: removals and new entities interleaved through the base, each a shift of what
/// follows it one at a time, again cost removed × base; one merge walk moves each entry once.
#[test]
fn interleaved_removals_and_new_entities_move_each_entry_at_most_once() {
    let n = 8192u16;
    let base = even_base(n, 1);
    // Every id that is a multiple of 4 goes, every id 1 more than one comes whole, the others
    // stay: as many removals and new entities as half the base, spread through all of it.
    let next: ServerState<EntityState> = base
        .iter()
        .filter(|(eid, _)| *eid % 4 != 0)
        .map(|(eid, e)| (*eid, e.clone()))
        .chain((0..n / 2).map(|i| {
            let record = rec(-i32::from(i), true, 2, 7);
            (i * 4 + 1, Entry { life: 1, record })
        }))
        .collect();
    let mut d = AckedDecoder::<Reference>::new();
    d.deliver(&frame(1, None, &base, vec![], 0));
    let bytes = frame(2, Some((1, &base)), &next, vec![], 0);
    let f = Reference.decode_frame(&bytes).unwrap();
    assert_eq!((f.removed.len(), f.changes.len()), (4096, 4096));
    moves::take();
    let Delivery::Shown(r) = d.deliver(&bytes) else {
        panic!("the interleaved frame did not apply")
    };
    let moved = moves::take();
    assert_eq!(r.check, Some(true));
    assert_eq!(
        d.shown().map(|(_, s)| s.to_state()),
        Some(client_view(&next))
    );
    let bound = base.len() + f.changes.len();
    assert!(
        moved <= bound as u64,
        "{moved} entries moved for a base of {} and {} changes",
        base.len(),
        f.changes.len()
    );
}

/// Issue 13's frame itself: 65,535 removals (the most a u16 count holds) onto a base of 65,535
/// entities. One at a time that was about 2.1 × 10^9 entries moved; the walk moves none, since
/// nothing stays.
#[test]
fn the_largest_removal_list_onto_the_largest_base_moves_nothing() {
    let base: ServerState<EntityState> = (0..u16::MAX)
        .map(|eid| {
            let record = rec(i32::from(eid), true, 1, 1);
            (eid, Entry { life: 1, record })
        })
        .collect();
    let mut d = AckedDecoder::<Reference>::new();
    d.deliver(&frame(1, None, &base, vec![], 0));
    let bytes = frame(2, Some((1, &base)), &ServerState::new(), vec![], 0);
    assert_eq!(
        Reference.decode_frame(&bytes).unwrap().removed.len(),
        usize::from(u16::MAX)
    );
    moves::take();
    assert!(matches!(d.deliver(&bytes), Delivery::Shown(_)));
    assert_eq!(moves::take(), 0);
    assert_eq!(d.shown().map(|(_, s)| s.len()), Some(0));
}

/// The merge walk keeps the faults of applying removals, then changes, one at a time
/// (`fuzzing::apply_one_by_one`): the cases where the order of checks decides the answer.
#[test]
fn the_merge_walk_keeps_the_faults_of_one_at_a_time() {
    // ACK-32.
    let base: State<EntityState> = [1u16, 3, 5, 7]
        .into_iter()
        .map(|e| (e, rec(i32::from(e), true, 1, 1)))
        .collect();
    let whole = |eid| {
        Reference
            .diff(eid, None, &rec(9, true, 2, 2), 2)
            .unwrap()
            .unwrap()
    };
    let partial = |eid| {
        let from = rec(9, true, 2, 2);
        let mut to = from;
        to.hp = 50;
        Reference.diff(eid, Some(&from), &to, 2).unwrap().unwrap()
    };
    let f = |keyframe: bool, removed: Vec<u16>, changes: Vec<Change>| AckedFrame {
        tick: 2,
        base_tick: 1,
        last_seq: 0,
        input_buffer: 0,
        keyframe,
        check: None,
        removed,
        changes,
        first_serial: 0,
        events: vec![],
    };
    // A frame, and the ids of the state it produces or the fault it is refused for.
    type Case = (FrameOf<Reference>, Result<Vec<u16>, &'static str>);
    let cases: Vec<Case> = vec![
        // Distinct held ids in any order leave.
        (f(false, vec![7, 1, 5], vec![]), Ok(vec![3])),
        // One id twice: the second is a removal of an id no longer held.
        (
            f(false, vec![3, 3], vec![]),
            Err("a removed id the base does not hold"),
        ),
        // A removal fault after a change fault is the one told.
        (
            f(false, vec![9], vec![partial(2)]),
            Err("a removed id the base does not hold"),
        ),
        // Of two change faults, the first in frame order.
        (
            f(false, vec![], vec![partial(2), whole(1), whole(0)]),
            Err("an entity comes whole without every group"),
        ),
        (
            f(false, vec![], vec![whole(4), whole(2), partial(6)]),
            Err("changes not in ascending id order"),
        ),
        // A removed id with a change comes whole, so the change needs every group.
        (f(false, vec![3], vec![whole(3)]), Ok(vec![1, 3, 5, 7])),
        (
            f(false, vec![3], vec![partial(3)]),
            Err("an entity comes whole without every group"),
        ),
        // A keyframe holds nothing to remove.
        (
            f(true, vec![1], vec![whole(1)]),
            Err("a removed id the base does not hold"),
        ),
        (f(true, vec![], vec![whole(8)]), Ok(vec![8])),
    ];
    for (i, (frame, want)) in cases.into_iter().enumerate() {
        let got = apply_frame(&Reference, Some(&base), &frame);
        let reference = crate::fuzzing::apply_one_by_one(&Reference, Some(&base), &frame);
        assert_eq!(
            got.as_ref()
                .map(|s| s.keys().copied().collect::<Vec<_>>())
                .map_err(|e| e.0),
            want,
            "case {i}"
        );
        assert_eq!(
            got.map(|s| s.iter().map(|(e, r)| (*e, *r)).collect::<Vec<_>>()),
            reference.map(|s| s.into_iter().collect::<Vec<_>>()),
            "case {i} against the one-at-a-time reference"
        );
    }
}

/// A world of `n` entities under the ids 0..n, of which the first `moving` have moved to tick
/// `tick` and the rest rest where they were at tick 1.
fn moved_world(n: u16, moving: u16, tick: u32) -> ServerState<EntityState> {
    (0..n)
        .map(|eid| {
            let t = if eid < moving { tick } else { 1 };
            let record = rec(i32::from(eid) * 8 + t as i32, true, t, 1);
            (eid, Entry { life: 1, record })
        })
        .collect()
}

/// A frame of `tick` onto `base` (a keyframe for `None`) with no check: the check, every
/// CHECK_EVERY frames, is the one part of a delivery that walks the world.
fn unchecked(
    tick: u32,
    base: Option<(u32, &ServerState<EntityState>)>,
    next: &ServerState<EntityState>,
) -> Vec<u8> {
    let (removed, changes) = delta(&Reference, base.map(|b| b.1), next, tick).unwrap();
    let f = AckedFrame {
        tick,
        base_tick: base.map_or(0, |b| b.0),
        last_seq: 0,
        input_buffer: 0,
        keyframe: base.is_none(),
        check: None,
        removed,
        changes,
        first_serial: 0,
        events: vec![],
    };
    let mut out = Vec::new();
    Reference.encode_frame(&f, &mut out).unwrap();
    out
}

/// Issue 16: no whole state is built per frame, and a frame costs its changes and the entities
/// they touch, never the world. The same 16 movers in a world of 64 and of 8,192 entities,
/// each frame onto a base 6 frames old (a round trip at 60 Hz): the entities touched (read at
/// the base, applied, compared with the last frame shown) and the records written are the same
/// counts in both worlds, and within the frame's changes plus the entities edited since its
/// base.
#[test]
fn a_frame_costs_its_changes_and_the_entities_they_touch_never_the_world() {
    let moving = 16u16;
    let mut counts = Vec::new();
    for n in [64u16, 8192] {
        let mut d = AckedDecoder::<Reference>::new();
        let mut states = vec![moved_world(n, moving, 1)];
        assert!(matches!(
            d.deliver(&unchecked(1, None, &states[0])),
            Delivery::Shown(_)
        ));
        let mut per_frame = Vec::new();
        for t in 2..=40u32 {
            let next = moved_world(n, moving, t);
            let b = t.saturating_sub(6).max(1);
            let bytes = unchecked(t, Some((b, &states[b as usize - 1])), &next);
            let f = Reference.decode_frame(&bytes).unwrap();
            moves::take();
            moves::take_touched();
            let Delivery::Shown(r) = d.deliver(&bytes) else {
                panic!("frame {t} did not apply")
            };
            assert_eq!(r.changed.len(), usize::from(moving), "frame {t}");
            let (moved, touched) = (moves::take(), moves::take_touched());
            assert!(
                touched <= f.changes.len() as u64 + u64::from(moving),
                "frame {t}: {touched} entities touched for {} changes",
                f.changes.len()
            );
            assert!(moved <= u64::from(moving), "frame {t}: {moved} written");
            per_frame.push((moved, touched));
            states.push(next);
        }
        assert_eq!(
            d.shown().map(|(_, s)| s.to_state()),
            Some(client_view(states.last().unwrap()))
        );
        counts.push(per_frame);
    }
    assert_eq!(counts[0], counts[1], "the world's size changed the work");
}

/// Every held frame stays a base once later frames, onto older bases, have been applied: the
/// undo edits chain through every frame shown, whatever base each named.
#[test]
fn every_held_frame_is_a_base_whatever_bases_the_frames_between_named() {
    // ACK-29, ACK-19.
    let n = 40u16;
    let world = |t: u32| -> ServerState<EntityState> {
        (0..n)
            .filter(|eid| !(u32::from(*eid) + t).is_multiple_of(7))
            .map(|eid| {
                let m = if u32::from(eid) % 3 == t % 3 { t } else { 1 };
                let life = 1 + (t + u32::from(eid)) / 11;
                let record = rec(i32::from(eid) * 16 + m as i32, true, m, eid as u8);
                (eid, Entry { life, record })
            })
            .collect()
    };
    let mut d = AckedDecoder::<Reference>::new();
    let mut states = vec![ServerState::new(), world(1)];
    d.deliver(&frame(1, None, &states[1], vec![], 0));
    for t in 2..=150u32 {
        let next = world(t);
        // Bases jump about among the held frames: back 1 to 9 frames, by a pattern.
        let back = 1 + (t * 5 % 9);
        let b = t.saturating_sub(back).max(1);
        let bytes = frame(t, Some((b, &states[b as usize])), &next, vec![], 0);
        let Delivery::Shown(r) = d.deliver(&bytes) else {
            panic!("frame {t} onto {b} did not apply")
        };
        assert_eq!(r.check, Some(true), "frame {t} onto {b}");
        // Against the last frame shown, not the base.
        let prev = client_view(&states[t as usize - 1]);
        let now = client_view(&next);
        let changed: Vec<u16> = now
            .iter()
            .filter(|(e, r)| prev.get(e) != Some(*r))
            .map(|(e, _)| *e)
            .collect();
        let gone: Vec<u16> = prev
            .keys()
            .filter(|e| !now.contains_key(e))
            .copied()
            .collect();
        assert_eq!((&r.changed, &r.gone), (&changed, &gone), "frame {t}");
        states.push(next);
    }
    assert_eq!(d.held(), Reference.held_ring());
}

/// The decoder reads frames with [`AckedSchema::decode_staged`], reusing the lists of the frame
/// before: it must give exactly the generated decoder's frame (its changes staged) or error,
/// whatever the buffers held before, on every prefix and every one-byte change of real frames.
#[test]
fn decoding_into_reused_buffers_agrees_with_the_generated_decoder() {
    let s1 = state(&[(1, 1, rec(1, true, 1, 1)), (4, 1, rec(-9, false, 1, 3))]);
    let s2 = state(&[(1, 1, rec(2, true, 2, 1)), (5, 1, rec(7, true, 2, 2))]);
    let frames = [
        frame(1, None, &s1, vec![shot(1)], 1),
        frame(2, Some((1, &s1)), &s2, vec![shot(1), shot(2)], 1),
        frame(3, Some((2, &s2)), &s1, vec![], 0),
    ];
    let mut out = super::staged(&Reference, &Reference.decode_frame(&frames[1]).unwrap());
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for f in &frames {
        for len in 0..=f.len() {
            inputs.push(f[..len].to_vec());
        }
        for i in 0..f.len() {
            for v in [0u8, 1, 2, 3, 0x40, 0x80, 0xff] {
                let mut m = f.clone();
                m[i] = v;
                inputs.push(m);
            }
        }
        // Two bytes that make the float they end non-finite, wherever a float may be.
        for i in 0..f.len() - 1 {
            for pair in [[0x80u8, 0x7f], [0xff, 0xff]] {
                let mut m = f.clone();
                m[i..i + 2].copy_from_slice(&pair);
                inputs.push(m);
            }
        }
        let mut longer = f.clone();
        longer.push(0);
        inputs.push(longer);
    }
    let mut accepted = 0;
    for bytes in &inputs {
        let want = Reference
            .decode_frame(bytes)
            .map(|f| super::staged(&Reference, &f));
        let got = Reference
            .decode_staged(bytes, &mut out)
            .map(|()| out.clone());
        assert_eq!(got, want, "{bytes:02x?}");
        accepted += usize::from(want.is_ok());
    }
    let non_finite = inputs
        .iter()
        .filter(|b| {
            matches!(Reference.decode_frame(b), Err(e) if e.kind == crate::ErrorKind::NonFinite)
        })
        .count();
    assert!(non_finite > 10, "{non_finite} non-finite floats");
    // Both answers are exercised: frames that decode and frames refused.
    assert!(
        accepted > 50 && accepted + 200 < inputs.len(),
        "{accepted} of {}",
        inputs.len()
    );
}

/// The check writes every record through [`Reference::write_record`], written by hand for
/// speed: the generated `EntityState::write`'s bytes exactly, for every field and flag.
#[test]
fn the_record_bytes_are_the_generated_writers() {
    // CHECK-2, CHECK-3.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..2000u32 {
        let v = next();
        let r = EntityState {
            x: v as i32,
            y: (v >> 32) as i32,
            z: next() as i32,
            yaw: next() as u16,
            flags: if i % 2 == 0 {
                StateFlags::empty()
            } else {
                StateFlags::empty().with(StateFlags::POSE_FULL)
            },
            measured: next() as u32,
            hp: next() as u8,
            armor: next() as u8,
            vehicle: next() as u16,
            seat: next() as u8,
            orient: None,
        };
        // Every third record has an orientation (issue 19), from arbitrary components.
        let mut r = r;
        if i % 3 == 0 {
            let c = |v: u64| (v % 2001) as f32 / 1000.0 - 1.0;
            let q = [c(next()), c(next()), c(next()), c(next())];
            r.orient = Some(Orientation {
                q: SmallestThree::from_xyzw(q, 9),
            });
            r.flags.set(StateFlags::ORIENTED, true);
        }
        let (mut want, mut got) = (vec![7u8], vec![7u8]);
        r.write(&mut want).unwrap();
        Reference.write_record(&r, &mut got);
        assert_eq!(got, want, "{r:?}");
    }
}

/// The ORIENT group (issue 19): a whole entity brings its orientation, a turn alone sends the
/// group alone (whole: smallest three is absolute), a pose change leaves it, and a record that
/// drops it is refused, since no change can take an orientation away.
#[test]
fn the_orientation_travels_whole_and_stays_for_the_life() {
    // ACK-7, ACK-22.
    let q = |c: [f32; 4]| {
        Some(Orientation {
            q: SmallestThree::from_xyzw(c, 9),
        })
    };
    let mut a = rec(100, false, 5, 50);
    a.orient = q([0.0, 0.0, 0.6, 0.8]);
    a.flags.set(StateFlags::ORIENTED, true);
    let whole = Reference.diff(4, None, &a, 5).unwrap().unwrap();
    assert!(whole.mask.contains(ChangeMask::ORIENT));
    assert_eq!(whole.orient, a.orient);
    let applied = Reference.apply(None, &whole, 5).unwrap();
    assert_eq!(applied, a);
    // A turn alone: only the orientation group.
    let mut b = a;
    b.orient = q([0.6, 0.0, 0.0, 0.8]);
    let turn = Reference.diff(4, Some(&a), &b, 6).unwrap().unwrap();
    assert_eq!(turn.mask, ChangeMask::empty().with(ChangeMask::ORIENT));
    assert_eq!(Reference.apply(Some(&a), &turn, 6).unwrap(), b);
    // A move alone leaves the orientation (and the ORIENTED bit) as the base's.
    let mut c = b;
    c.x += 9;
    c.measured = 7;
    let step = Reference.diff(4, Some(&b), &c, 7).unwrap().unwrap();
    assert!(!step.mask.contains(ChangeMask::ORIENT));
    let moved = Reference.apply(Some(&b), &step, 7).unwrap();
    assert_eq!(moved, c);
    assert!(moved.flags.contains(StateFlags::ORIENTED));
    // The same orientation again sends nothing.
    assert_eq!(Reference.diff(4, Some(&c), &c, 8).unwrap(), None);
    // Dropping it is refused; so is an ORIENTED bit without an orientation.
    let mut dropped = c;
    dropped.orient = None;
    dropped.flags.set(StateFlags::ORIENTED, false);
    let e = Reference.diff(4, Some(&c), &dropped, 8).unwrap_err();
    assert_eq!(
        (e.kind, e.path.to_string()),
        (ErrorKind::InvalidCondition, String::from("orient"))
    );
    let mut liar = c;
    liar.orient = None;
    assert!(Reference.diff(4, None, &liar, 8).is_err());
    // A record without an orientation has exactly the 24 bytes it had before issue 19.
    let mut bytes = Vec::new();
    Reference.write_record(&rec(100, false, 5, 50), &mut bytes);
    assert_eq!(bytes.len(), 24);
    bytes.clear();
    Reference.write_record(&c, &mut bytes);
    assert_eq!(bytes.len(), 28);
}

/// CHECK-4: positions are whole steps of 1/512 m and a full pose's f32 metres hold every step
/// up to 32768 m exactly, so a position arrives bit for bit the same whether it came full or
/// as steps from a base (ACK-33: either way measured at the frame's tick less the age).
#[test]
fn a_position_arrives_as_the_same_whole_steps_full_or_stepped() {
    let edge = (1 << 24) - 1;
    for x in [0, 1, -1, 300, 16_383, -16_383, edge, -edge] {
        let c = Reference
            .diff(1, None, &rec(x, true, 7, 1), 7)
            .unwrap()
            .unwrap();
        let got = Reference.apply(None, &c, 7).unwrap();
        assert_eq!((got.x, got.y, got.z, got.measured), (x, -x, 3, 7), "x {x}");
    }
    let base = rec(250, false, 5, 1);
    let step = Reference
        .diff(1, Some(&base), &rec(300, false, 6, 1), 7)
        .unwrap()
        .unwrap();
    let stepped = Reference.apply(Some(&base), &step, 7).unwrap();
    let full = Reference
        .diff(1, None, &rec(300, true, 6, 1), 7)
        .unwrap()
        .unwrap();
    let full = Reference.apply(None, &full, 7).unwrap();
    assert_eq!(
        (stepped.x, stepped.y, stepped.z, stepped.measured),
        (full.x, full.y, full.z, full.measured)
    );
    assert_eq!(
        stepped.measured, 6,
        "the pose is from the tick it was measured at"
    );
}
