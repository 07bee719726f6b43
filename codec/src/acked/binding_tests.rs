//! The bindings generated from `state Reference` (acked.wire), held to the rules the
//! hand-written ones were: a slot's apply is the records' apply, a slot hashes as its record's
//! canonical bytes, kind 6 and kind 12 carry the same frames both ways, and a staged read gives
//! exactly the frame (or the error) the generated frame reader gives.

use super::{AckedFrame, AckedSchema, DecoderSlot, FrameOf, PackedReference, Reference};
use crate::protocol::{
    Acked, AckedCoded, AckedFlags, AckedPacked, Blast, Change, ChangeMask, EntityState, Event,
    Health, Orientation, PackedChange, PackedChanges, PackedMask, PackedPoseStep, PoseFull,
    PoseStep, Shot, StateFlags, Vehicle,
};
use crate::rt::{Fnv1a32, Frame, SmallestThree};
use crate::{BitSet, ErrorKind};
use proptest::prelude::*;

type Slot = <Reference as AckedSchema>::Slot;

/// Kind 6's yaw steps (PoseStep: `quant(u8, 360/256)`).
const YAW_STEP: f64 = 360.0 / 256.0;

/// The kind 6 mask bits a change may hold, in the order the draws pick them.
const MASK_BITS: [crate::rt::Bit<ChangeMask>; 6] = [
    ChangeMask::POSE,
    ChangeMask::HEALTH,
    ChangeMask::VEHICLE,
    ChangeMask::ORIENT,
    ChangeMask::POSE_FULL,
    ChangeMask::POSE_AGE,
];

/// A change of `eid` from raw draws: a mask of the six named bits (POSE forced when a
/// POSE bit needs it) and each group's values across their whole ranges.
fn change(eid: u16, bits: u8, raw: [u64; 4], full: [u32; 3], q: [f32; 4]) -> Change {
    let mut mask = ChangeMask::empty();
    for (i, wide) in MASK_BITS.iter().enumerate() {
        mask.set(*wide, bits >> i & 1 == 1);
    }
    if mask.contains(ChangeMask::POSE_FULL) || mask.contains(ChangeMask::POSE_AGE) {
        mask.set(ChangeMask::POSE, true);
    }
    let pose = mask.contains(ChangeMask::POSE);
    let is_full = mask.contains(ChangeMask::POSE_FULL);
    let finite = |b: u32| {
        let f = f32::from_bits(b);
        if f.is_finite() {
            f
        } else {
            (b % 100_000) as f32 / 512.0
        }
    };
    Change {
        eid,
        mask,
        age: mask.contains(ChangeMask::POSE_AGE).then_some(raw[0] as u8),
        pose_full: (pose && is_full).then(|| PoseFull {
            x: finite(full[0]),
            y: finite(full[1]),
            z: finite(full[2]),
            yaw: f64::from(raw[1] as u16) * (360.0 / 65536.0),
        }),
        pose_step: (pose && !is_full).then(|| PoseStep {
            // Small steps most often, as the buckets expect, and any i16 sometimes.
            dx: if raw[2] & 1 == 0 {
                (raw[2] >> 8) as i16
            } else {
                (raw[2] >> 8) as i8 as i16
            },
            dy: (raw[2] >> 24) as i16,
            dz: if raw[3] & 1 == 0 {
                0
            } else {
                (raw[3] >> 8) as i16
            },
            yaw: f64::from(if raw[3] & 2 == 0 {
                0
            } else {
                (raw[3] >> 40) as u8
            }) * YAW_STEP,
        }),
        health: mask.contains(ChangeMask::HEALTH).then_some(Health {
            hp: raw[0] as u8,
            armor: (raw[0] >> 8) as u8,
        }),
        vehicle: mask.contains(ChangeMask::VEHICLE).then_some(Vehicle {
            vehicle: (raw[1] >> 16) as u16,
            seat: (raw[1] >> 32) as u8,
        }),
        orient: mask.contains(ChangeMask::ORIENT).then(|| Orientation {
            q: SmallestThree::from_xyzw(q, 9),
        }),
    }
}

type Draw = (u16, u8, [u64; 4], [u32; 3], [f32; 4]);

fn frame(
    header: (u32, u32, u32, u8, bool, Option<u32>),
    removed: Vec<u16>,
    draws: Vec<Draw>,
    serial: u32,
    shots: Vec<(u16, u8)>,
) -> FrameOf<Reference> {
    let (tick, base, last_seq, input_buffer, keyframe, check) = header;
    // Ascending ids from the gaps (each at least 1 after the first), within a u16.
    let mut id: u32 = 0;
    let mut changes = Vec::new();
    for (i, (gap, bits, raw, full, q)) in draws.into_iter().enumerate() {
        id += if i == 0 {
            u32::from(gap)
        } else {
            u32::from(gap).max(1)
        };
        let Ok(eid) = u16::try_from(id) else { break };
        changes.push(change(eid, bits, raw, full, q));
    }
    AckedFrame {
        tick,
        base_tick: if keyframe { 0 } else { base },
        last_seq,
        input_buffer,
        keyframe,
        check,
        removed,
        changes,
        first_serial: if shots.is_empty() { 0 } else { serial },
        events: shots
            .into_iter()
            .map(|(shooter, weapon)| {
                if weapon % 2 == 0 {
                    Event::Shot(Shot {
                        shooter,
                        weapon,
                        yaw: 90.0,
                    })
                } else {
                    Event::Blast(Blast {
                        x: 1.5,
                        y: -2.0,
                        z: 0.25,
                        radius: f64::from(weapon) / 8.0,
                    })
                }
            })
            .collect(),
    }
}

fn gap() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..40, 1 => any::<u16>()]
}

fn frames() -> impl Strategy<Value = FrameOf<Reference>> {
    (
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u8>(),
            any::<bool>(),
            any::<Option<u32>>(),
        ),
        prop::collection::vec(any::<u16>(), 0..4),
        prop::collection::vec(
            (
                gap(),
                any::<u8>(),
                any::<[u64; 4]>(),
                any::<[u32; 3]>(),
                any::<[f32; 4]>(),
            ),
            0..24,
        ),
        any::<u32>(),
        prop::collection::vec((any::<u16>(), any::<u8>()), 0..3),
    )
        .prop_map(|(h, r, d, s, e)| frame(h, r, d, s, e))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Kind 6 to kind 12 and back is the identity on every kind 6 frame whose changes
    /// ascend, and kind 12's bytes decode to the same frame: the two kinds carry the same
    /// information.
    #[test]
    fn kind_6_and_kind_12_carry_the_same_frames(f in frames()) {
        let mut six = Vec::new();
        Reference.encode_frame(&f, &mut six).unwrap();
        // The frame as kind 6 decodes it (the canonical values of its floats).
        let f = Reference.decode_frame(&six).unwrap();
        let mut twelve = Vec::new();
        PackedReference.encode_frame(&f, &mut twelve).unwrap();
        let back = PackedReference.decode_frame(&twelve).unwrap();
        prop_assert_eq!(&back, &f);
        let mut six_again = Vec::new();
        Reference.encode_frame(&back, &mut six_again).unwrap();
        prop_assert_eq!(six_again, six);
        // The generated kind 12 codec agrees with the schema's conversion.
        prop_assert_eq!(PackedReference::pack_frame(&f).unwrap().to_bytes().unwrap(), twelve.clone());
        prop_assert_eq!(PackedReference::unpack_frame(AckedPacked::decode(&twelve).unwrap()).unwrap(), f);
    }

    /// Kind 6's writer, reading the frame's lists in place, writes exactly the bytes of the
    /// generated `Acked` record holding the same frame.
    #[test]
    fn kind_6_is_the_generated_frame_written(f in frames()) {
        let mut six = Vec::new();
        Reference.encode_frame(&f, &mut six).unwrap();
        let mut flags = AckedFlags::empty();
        flags.set(AckedFlags::KEYFRAME, f.keyframe);
        flags.set(AckedFlags::CHECK, f.check.is_some());
        let record = Acked {
            tick: f.tick,
            base_tick: f.base_tick,
            last_seq: f.last_seq,
            input_buffer: f.input_buffer,
            flags,
            check: f.check,
            removed: f.removed.clone(),
            changes: f.changes.clone(),
            first_serial: (!f.events.is_empty()).then_some(f.first_serial),
            events: f.events.clone(),
        };
        prop_assert_eq!(six, record.to_bytes().unwrap());
    }

    /// Kind 12 to kind 6 and back is the identity on every kind 12 frame the schema
    /// accepts: arbitrary bytes that decode as kind 12 re-encode, through kind 6, to
    /// themselves.
    #[test]
    fn every_kind_12_frame_has_its_kind_6_frame(f in frames(), flip in any::<(usize, u8)>()) {
        let mut twelve = Vec::new();
        PackedReference.encode_frame(&f, &mut twelve).unwrap();
        // A byte changed: most such inputs are refused; those accepted must round-trip.
        let i = flip.0 % twelve.len();
        twelve[i] ^= flip.1;
        if let Ok(g) = PackedReference.decode_frame(&twelve) {
            let mut six = Vec::new();
            Reference.encode_frame(&g, &mut six).unwrap();
            let h = Reference.decode_frame(&six).unwrap();
            prop_assert_eq!(&h, &g);
            let mut again = Vec::new();
            PackedReference.encode_frame(&h, &mut again).unwrap();
            prop_assert_eq!(again, twelve);
        }
    }

    /// `decode_staged`, into a frame left over from another decode (its lists
    /// holding other values), gives exactly `decode_frame`'s frame or error, on kind 12
    /// frames with a byte changed or cut short: the reused buffers change nothing of what
    /// is read or refused.
    #[test]
    fn decoding_into_a_used_frame_is_decoding(
        f in frames(),
        g in frames(),
        flip in any::<(usize, u8)>(),
        cut in any::<bool>(),
    ) {
        let (mut twelve, mut other) = (Vec::new(), Vec::new());
        PackedReference.encode_frame(&f, &mut twelve).unwrap();
        PackedReference.encode_frame(&g, &mut other).unwrap();
        let mut out =
            crate::acked::staged(&PackedReference, &PackedReference.decode_frame(&other).unwrap());
        let i = flip.0 % twelve.len();
        if cut {
            twelve.truncate(i);
        } else {
            twelve[i] ^= flip.1;
        }
        let want = PackedReference.decode_frame(&twelve);
        let want = want.map(|f| crate::acked::staged(&PackedReference, &f));
        let got = PackedReference.decode_staged(&twelve, &mut out).map(|()| out.clone());
        prop_assert_eq!(got, want);
    }

    /// Kind 6's staged read (each change at once from fixed offsets, the generated change
    /// reader behind it) gives `decode_frame`'s frame or error, on frames with a byte changed
    /// or cut short, into a frame left over from another decode.
    #[test]
    fn kind_6_decoding_into_a_used_frame_is_decoding(
        f in frames(),
        g in frames(),
        flip in any::<(usize, u8)>(),
        cut in any::<bool>(),
    ) {
        let (mut six, mut other) = (Vec::new(), Vec::new());
        Reference.encode_frame(&f, &mut six).unwrap();
        Reference.encode_frame(&g, &mut other).unwrap();
        let mut out = crate::acked::staged(&Reference, &Reference.decode_frame(&other).unwrap());
        let i = flip.0 % six.len();
        if cut {
            six.truncate(i);
        } else {
            six[i] ^= flip.1;
        }
        let want = Reference.decode_frame(&six).map(|f| crate::acked::staged(&Reference, &f));
        let got = Reference.decode_staged(&six, &mut out).map(|()| out.clone());
        prop_assert_eq!(got, want);
    }
}

/// A frame with more events than the one-byte count holds is refused by both kinds as
/// `over_width` at `event_count`, before a byte is written.
#[test]
fn more_events_than_the_count_holds_are_refused() {
    let f = frame(
        (5, 4, 1, 0, false, Some(3)),
        vec![2],
        vec![],
        7,
        vec![(1, 2); 256],
    );
    let mut out = Vec::new();
    for e in [
        Reference.encode_frame(&f, &mut out).unwrap_err(),
        PackedReference.encode_frame(&f, &mut out).unwrap_err(),
    ] {
        assert_eq!(e.kind, ErrorKind::OverWidth, "{e}");
        assert_eq!(e.to_string(), super::wire::over("event_count").to_string());
    }
    assert!(out.is_empty(), "{out:?}");
}

/// A kind 6 frame whose changes do not ascend has no kind 12 form: the writer refuses it.
#[test]
fn changes_out_of_order_are_refused() {
    let c = |eid| change(eid, 0b10, [7; 4], [0; 3], [0.0, 0.0, 0.0, 1.0]);
    let f = frame((5, 4, 1, 0, false, None), vec![], vec![], 0, vec![]);
    for ids in [[4u16, 4], [9, 2]] {
        let f = AckedFrame {
            changes: ids.iter().map(|&e| c(e)).collect(),
            ..f.clone()
        };
        let e = PackedReference
            .encode_frame(&f, &mut Vec::new())
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotAscending, "{ids:?}: {e}");
    }
}

/// The codes past kind 6's ranges decode as kind 12 but are refused by the schema, as
/// `over_width` at the packed body's first byte with the field's path.
#[test]
fn codes_past_kind_6_are_over_width() {
    let body = |c: PackedChange| AckedPacked {
        tick: 9,
        base_tick: 8,
        last_seq: 0,
        input_buffer: 0,
        flags: AckedFlags::empty(),
        check: None,
        removed: vec![1],
        body: PackedChanges { changes: vec![c] },
        first_serial: None,
        events: vec![],
    };
    let plain = |eid: u32| PackedChange {
        eid,
        mask: PackedMask::empty(),
        age: None,
        pose_full: None,
        pose_step: None,
        health: None,
        vehicle: None,
        orient: None,
    };
    let step = |dx: i32, yaw: u16| PackedChange {
        mask: PackedMask::empty().with(PackedMask::POSE),
        pose_step: Some(Box::new(PackedPoseStep {
            dx,
            dy: 0,
            dz: 0,
            yaw,
        })),
        ..plain(1)
    };
    let aged = PackedChange {
        mask: PackedMask::empty()
            .with(PackedMask::POSE)
            .with(PackedMask::POSE_AGE),
        age: Some(256),
        pose_step: Some(Box::new(PackedPoseStep {
            dx: 0,
            dy: 0,
            dz: 0,
            yaw: 0,
        })),
        ..plain(1)
    };
    for (c, path) in [
        (plain(65536), "body.changes[0].eid"),
        (step(32768, 0), "body.changes[0].pose_step.dx"),
        (step(-32769, 0), "body.changes[0].pose_step.dx"),
        (step(0, 256), "body.changes[0].pose_step.yaw"),
        (aged, "body.changes[0].age"),
    ] {
        let bytes = body(c).to_bytes().unwrap();
        let e = PackedReference.decode_frame(&bytes).unwrap_err();
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::OverWidth, 19),
            "{path}: {e}"
        );
        assert_eq!(e.path.to_string(), path);
    }
}

/// Kind 12 carries the cube scene's typical change in fewer bits: a step of tens of 1/512 m
/// on x and y, none on z, yaw 0, an orientation.
#[test]
fn a_typical_cube_change_costs_fewer_bytes() {
    let c = Change {
        eid: 5,
        mask: ChangeMask::empty()
            .with(ChangeMask::POSE)
            .with(ChangeMask::ORIENT),
        age: None,
        pose_full: None,
        pose_step: Some(PoseStep {
            dx: 40,
            dy: -60,
            dz: 0,
            yaw: 0.0,
        }),
        health: None,
        vehicle: None,
        orient: Some(Orientation {
            q: SmallestThree::from_xyzw([0.1, 0.2, 0.3, 0.9], 9),
        }),
    };
    let f = frame((5, 4, 1, 0, false, None), vec![], vec![], 0, vec![]);
    let f = AckedFrame {
        changes: vec![c],
        ..f
    };
    let (mut six, mut twelve) = (Vec::new(), Vec::new());
    Reference.encode_frame(&f, &mut six).unwrap();
    PackedReference.encode_frame(&f, &mut twelve).unwrap();
    // Kind 6: 19 header + 4 eid and mask + 7 step + 4 orientation + 1 event count.
    assert_eq!(six.len(), 35);
    // Kind 12: 17 header + (16 count + 5 eid + 6 mask + 9 + 9 + 1 + 1 steps and yaw + 29
    // orientation = 76 bits: 10 bytes) + 1 event count.
    assert_eq!(twelve.len(), 28);
    let _ = Acked::decode(&six).unwrap();
}

// ---- the slot ----

fn record(
    pose: (i32, i32, i32, u16),
    flags: u8,
    measured: u32,
    rest: (u8, u8, u16, u8),
    orient: Option<(u8, [i16; 3])>,
) -> EntityState {
    EntityState {
        x: pose.0,
        y: pose.1,
        z: pose.2,
        yaw: pose.3,
        flags: StateFlags::from_bits(flags),
        measured,
        hp: rest.0,
        armor: rest.1,
        vehicle: rest.2,
        seat: rest.3,
        orient: orient.map(|(largest, rest)| Orientation {
            q: SmallestThree { largest, rest },
        }),
    }
}

/// Records as an apply gives them: flags within POSE_FULL and ORIENTED, ORIENTED exactly
/// with an orientation, its components within 9 bits; poses near the box's edge and far.
fn applied_record() -> impl Strategy<Value = EntityState> {
    let coord = prop_oneof![
        -20_000i32..20_000,
        Just(POSE_EDGE),
        Just(-POSE_EDGE),
        Just(POSE_EDGE + 1),
        any::<i32>()
    ];
    (
        (coord.clone(), coord.clone(), coord, any::<u16>()),
        any::<bool>(),
        any::<u32>(),
        (any::<u8>(), any::<u8>(), any::<u16>(), any::<u8>()),
        proptest::option::of(quaternion()),
    )
        .prop_map(|(pose, full, measured, rest, orient)| {
            let flags = u8::from(full) | if orient.is_some() { 2 } else { 0 };
            record(pose, flags, measured, rest, orient)
        })
}

/// Quaternions the decoder accepts (`SmallestThree::check` at 9 bits), as `(largest, rest)`.
fn quaternion() -> impl Strategy<Value = (u8, [i16; 3])> {
    (0u8..4, [-181i16..=181, -181i16..=181, -181i16..=181])
        .prop_filter("a quaternion the decoder accepts", |&(largest, rest)| {
            SmallestThree { largest, rest }.check(9).is_ok()
        })
}

const POSE_EDGE: i32 = super::POSE_REACH;

/// Changes of every mask `Change::read` accepts and values at the edges, staged: full poses
/// on and off the grid and non-finite, steps that overflow, ages past the tick, any
/// orientation within 9 bits.
fn staged_change() -> impl Strategy<Value = crate::acked::StagedChange> {
    let full_coord = prop_oneof![
        (-40_000i32..40_000).prop_map(|s| s as f32 / 512.0),
        any::<f32>(),
        Just(f32::INFINITY),
    ];
    (
        any::<u16>(),
        0u16..64,
        (any::<u16>(), any::<u8>()),
        (
            [full_coord.clone(), full_coord.clone(), full_coord],
            any::<[i16; 3]>(),
        ),
        (0u8..4, [-255i16..=255, -255i16..=255, -255i16..=255]),
        any::<u8>(),
        (any::<u8>(), any::<u8>(), any::<u16>(), any::<u8>()),
    )
        .prop_map(
            |(eid, groups, (yaw, yaw8), (full, step), (largest, rest), age, h)| {
                let mut mask = ChangeMask::empty();
                for (i, bit) in MASK_BITS.iter().enumerate().take(4) {
                    mask.set(*bit, groups & (1 << i) != 0);
                }
                if mask.contains(ChangeMask::POSE) {
                    mask.set(ChangeMask::POSE_FULL, groups & 16 != 0);
                    mask.set(ChangeMask::POSE_AGE, groups & 32 != 0);
                }
                let is_full = mask.contains(ChangeMask::POSE_FULL);
                let pose = mask.contains(ChangeMask::POSE);
                let change = Change {
                    eid,
                    mask,
                    age: mask.contains(ChangeMask::POSE_AGE).then_some(age),
                    pose_full: (pose && is_full).then_some(PoseFull {
                        x: full[0],
                        y: full[1],
                        z: full[2],
                        yaw: f64::from(yaw) * (360.0 / 65536.0),
                    }),
                    pose_step: (pose && !is_full).then_some(PoseStep {
                        dx: step[0],
                        dy: step[1],
                        dz: step[2],
                        yaw: f64::from(yaw8) * YAW_STEP,
                    }),
                    health: mask.contains(ChangeMask::HEALTH).then_some(Health {
                        hp: h.0,
                        armor: h.1,
                    }),
                    vehicle: mask.contains(ChangeMask::VEHICLE).then_some(Vehicle {
                        vehicle: h.2,
                        seat: h.3,
                    }),
                    orient: mask.contains(ChangeMask::ORIENT).then_some(Orientation {
                        q: SmallestThree { largest, rest },
                    }),
                };
                Reference.stage(&change)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The slot's rule is `Reference::apply_staged`'s: the same record or the same fault,
    /// onto an entity held and onto none.
    #[test]
    fn apply_is_apply_staged(
        base in proptest::option::of(applied_record()),
        c in staged_change(),
        tick in prop_oneof![0u32..300, any::<u32>()],
    ) {
        let want = Reference.apply_staged(base.as_ref(), &c, tick).map(|r| <Slot as DecoderSlot<Reference>>::of(Some(&r)));
        let mut s = <Slot as DecoderSlot<Reference>>::of(base.as_ref());
        prop_assert_eq!(s.apply(&Reference, &c, tick).map(|()| s), want);
    }

    /// A slot gives back the record it was made of, and hashes as the check hashes the
    /// record: its id, then `write_record`'s bytes.
    #[test]
    fn a_slot_is_its_record(r in applied_record(), eid in any::<u16>()) {
        let s = <Slot as DecoderSlot<Reference>>::of(Some(&r));
        prop_assert_eq!(DecoderSlot::<Reference>::record(&s), Some(r));
        let mut bytes = eid.to_le_bytes().to_vec();
        Reference.write_record(&r, &mut bytes);
        prop_assert_eq!(
            s.hash(&Reference, Fnv1a32::new(), eid).finish(),
            Fnv1a32::new().update(&bytes).finish()
        );
        prop_assert_eq!(s.measured(&Reference), Some(r.measured));
        prop_assert_eq!(s.pose_full(&Reference), Some(r.flags.contains(StateFlags::POSE_FULL)));
    }
}

#[test]
fn an_empty_slot_holds_nothing() {
    let e = <Slot as DecoderSlot<Reference>>::EMPTY;
    assert!(!DecoderSlot::<Reference>::holds(&e));
    assert_eq!(DecoderSlot::<Reference>::record(&e), None);
    let h = Fnv1a32::new().update(&7u16.to_le_bytes()).finish();
    assert_eq!(e.hash(&Reference, Fnv1a32::new(), 7).finish(), h);
    assert_eq!(
        (e.measured(&Reference), e.pose_full(&Reference)),
        (None, None)
    );
    assert_eq!(<Slot as DecoderSlot<Reference>>::of(None), e);
    assert_eq!(std::mem::size_of::<Slot>(), 32);
    assert_eq!(std::mem::align_of::<Slot>(), 32);
}

#[test]
fn a_corrupt_record_still_differs() {
    // What `tamper` may make: flags with reserved bits, ORIENTED without an orientation.
    let r = record((1, 2, 3, 4), 0, 9, (100, 5, 0, 0), None);
    let mut bad = r;
    bad.flags = StateFlags::from_bits(0xfe);
    let s = <Slot as DecoderSlot<Reference>>::of(Some(&bad));
    assert_ne!(s, <Slot as DecoderSlot<Reference>>::of(Some(&r)));
    assert_eq!(DecoderSlot::<Reference>::record(&s), Some(bad));
}

/// The staged change is the wire's integers in 28 bytes, where a generated change takes 88:
/// what a decoder writes and reads back per change of a frame. A packed change boxes its two
/// pose forms (`boxed_fields` in the Rust printer), so that a list of them, at 9 bits a change
/// at least, stays within DECODE_ALLOC_PER_BYTE: 48 bytes, 42.7 per byte.
#[test]
fn a_staged_change_is_28_bytes_where_a_change_is_88() {
    assert_eq!(std::mem::size_of::<crate::acked::StagedChange>(), 28);
    assert_eq!(std::mem::size_of::<Change>(), 88);
    assert_eq!(std::mem::size_of::<PackedChange>(), 48);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `write_record`'s bytes at once are the generated `EntityState::write`'s, for every record
    /// an apply gives.
    #[test]
    fn write_record_is_the_generated_writer(r in applied_record()) {
        let mut fast = Vec::new();
        Reference.write_record(&r, &mut fast);
        let mut generated = Vec::new();
        r.write(&mut generated).unwrap();
        prop_assert_eq!(fast, generated);
    }
}

// ---- kind 13: the coded frame generated beside kind 12 ----

/// A basis of records by id: the base's and the older snapshot's (CODE-13, CODE-14).
#[derive(Debug, Clone, Default)]
struct Basis {
    base: std::collections::BTreeMap<u16, EntityState>,
    older: std::collections::BTreeMap<u16, EntityState>,
}

impl crate::rt::coded::CodedBasis<EntityState> for Basis {
    fn base(&self, eid: u16) -> Option<EntityState> {
        self.base.get(&eid).copied()
    }

    fn older(&self, eid: u16) -> Option<EntityState> {
        self.older.get(&eid).copied()
    }
}

/// Kind 12's frame `p` as kind 13, its changes predicted `older` ticks back (none in a
/// keyframe).
fn coded(p: AckedPacked, older: u8) -> AckedCoded {
    let older = if p.flags.contains(AckedFlags::KEYFRAME) {
        0
    } else {
        older
    };
    AckedCoded {
        tick: p.tick,
        base_tick: p.base_tick,
        last_seq: p.last_seq,
        input_buffer: p.input_buffer,
        flags: p.flags,
        check: p.check,
        removed: p.removed,
        older,
        body: p.body,
        first_serial: p.first_serial,
        events: p.events,
    }
}

/// A basis holding, for some of `f`'s entities, records in the base and the older snapshot.
fn basis_for(f: &AckedCoded, draws: &[(bool, bool, EntityState, EntityState)]) -> Basis {
    let mut b = Basis::default();
    for (c, (in_base, in_older, base, older)) in f.body.changes.iter().zip(draws.iter().cycle()) {
        let Ok(eid) = u16::try_from(c.eid) else {
            continue;
        };
        if *in_base {
            b.base.insert(eid, *base);
        }
        if *in_older {
            b.older.insert(eid, *older);
        }
    }
    b
}

fn basis_draws() -> impl Strategy<Value = Vec<(bool, bool, EntityState, EntityState)>> {
    prop::collection::vec(
        (
            any::<bool>(),
            any::<bool>(),
            applied_record(),
            applied_record(),
        ),
        1..6,
    )
}

/// Writes `f` as kind 13 against `basis` and reads it back against the same.
fn round_trip(
    f: &AckedCoded,
    basis: &(impl crate::rt::coded::CodedBasis<EntityState> + ?Sized),
) -> (Vec<u8>, AckedCoded) {
    let mut bytes = Vec::new();
    f.write(&mut bytes, basis).unwrap();
    let mut r = crate::rt::Reader::new(&bytes);
    let back = AckedCoded::read(&mut r, basis).unwrap();
    r.finish().unwrap();
    (bytes, back)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every kind 12 frame's changes, re-coded as kind 13 against any basis (or none),
    /// decode back to the same packed changes, and the prefix names the basis it was coded on.
    #[test]
    fn every_kind_12_frame_is_a_kind_13_frame(
        f in frames(),
        older in any::<u8>(),
        draws in basis_draws(),
    ) {
        let p = PackedReference::pack_frame(&f).unwrap();
        let c = coded(p, older);
        let basis = basis_for(&c, &draws);
        let (bytes, back) = round_trip(&c, &basis);
        prop_assert_eq!(&back, &c);
        prop_assert_eq!(bytes[0], 13);
        prop_assert_eq!(AckedCoded::read_basis(&bytes).unwrap(), c.basis_ticks());
        let (_, back) = round_trip(&c, &crate::rt::coded::NoBasis);
        prop_assert_eq!(&back, &c);
        // Training counts walk the same values.
        let mut counts = crate::rt::coded::SlotCounts::new(AckedCoded::SLOTS);
        c.count(&mut counts, &basis).unwrap();
        let coded_bits: u64 = counts.counts().iter().map(|[a, b]| a + b).sum();
        prop_assert!(c.body.changes.is_empty() || coded_bits > 0);
    }

    /// Hostile bytes, whatever the basis: random, a valid frame cut short or with a byte
    /// changed, are read or refused, never a panic; what is read writes back to itself.
    #[test]
    fn hostile_kind_13_bytes_are_read_or_refused(
        f in frames(),
        older in any::<u8>(),
        draws in basis_draws(),
        flip in any::<(usize, u8)>(),
        cut in any::<usize>(),
        noise in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let c = coded(PackedReference::pack_frame(&f).unwrap(), older);
        let basis = basis_for(&c, &draws);
        let mut bytes = Vec::new();
        c.write(&mut bytes, &basis).unwrap();
        let mut flipped = bytes.clone();
        let i = flip.0 % flipped.len();
        flipped[i] ^= flip.1;
        let cut = &bytes[..cut % bytes.len()];
        let mut noisy = vec![13];
        noisy.extend(&noise);
        for input in [&flipped[..], cut, &noise[..], &noisy[..]] {
            let _ = AckedCoded::read_basis(input);
            let mut r = crate::rt::Reader::new(input);
            if let Ok(g) = AckedCoded::read(&mut r, &basis) {
                if r.finish().is_ok() {
                    let mut again = Vec::new();
                    g.write(&mut again, &basis).unwrap();
                    prop_assert_eq!(&again[..], input);
                }
            }
        }
        prop_assert!(AckedCoded::read(&mut crate::rt::Reader::new(cut), &basis).is_err());
    }
}

/// Entities moving at a constant velocity: their steps are what the older snapshot and the
/// base predict, and orientations are the base's, so a frame coded against that basis costs
/// far fewer bytes than the same frame coded against none (CODE-13, CODE-14 at work).
#[test]
fn predictions_make_moving_entities_cheap() {
    let (tick, base_tick, older) = (100u32, 96u32, 4u8);
    let q = SmallestThree::from_xyzw([0.1, 0.2, 0.3, 0.9], 9);
    let mut basis = Basis::default();
    let mut changes = Vec::new();
    for eid in 1..=60u16 {
        let v = [i32::from(eid) * 3, -i32::from(eid), 7];
        let at = |t: u32| {
            let t = t as i32;
            record(
                (v[0] * t, v[1] * t, v[2] * t, 0),
                2,
                t as u32,
                (100, 0, 0, 0),
                Some((q.largest, q.rest)),
            )
        };
        basis.base.insert(eid, at(base_tick));
        basis.older.insert(eid, at(base_tick - u32::from(older)));
        let gap = (tick - base_tick) as i32;
        changes.push(PackedChange {
            eid: u32::from(eid),
            mask: PackedMask::empty()
                .with(PackedMask::POSE)
                .with(PackedMask::ORIENT),
            age: None,
            pose_full: None,
            pose_step: Some(Box::new(PackedPoseStep {
                dx: v[0] * gap,
                dy: v[1] * gap,
                dz: v[2] * gap,
                yaw: 0,
            })),
            health: None,
            vehicle: None,
            orient: Some(Orientation { q }),
        });
    }
    let c = AckedCoded {
        tick,
        base_tick,
        last_seq: 0,
        input_buffer: 0,
        flags: AckedFlags::empty(),
        check: None,
        removed: vec![],
        older,
        body: PackedChanges { changes },
        first_serial: None,
        events: vec![],
    };
    let (predicted, back) = round_trip(&c, &basis);
    assert_eq!(back, c);
    let (unpredicted, back) = round_trip(&c, &crate::rt::coded::NoBasis);
    assert_eq!(back, c);
    // Without its older snapshot only the orientations are predicted.
    let base_only = Basis {
        base: basis.base.clone(),
        older: Default::default(),
    };
    let (oriented, back) = round_trip(&c, &base_only);
    assert_eq!(back, c);
    assert!(
        predicted.len() < oriented.len() && oriented.len() < unpredicted.len(),
        "{} {} {}",
        predicted.len(),
        oriented.len(),
        unpredicted.len()
    );
    // Exact predictions leave little but the ids and masks: the body is at its floor of 10
    // bits a change (CODE-4), under half the unpredicted frame.
    let floor = 17 + 1 + 2 + 2 + (60 * 10usize).div_ceil(8) + 1;
    assert!(predicted.len() <= floor + 2, "{} {floor}", predicted.len());
    assert!(
        predicted.len() * 2 < unpredicted.len(),
        "{} {}",
        predicted.len(),
        unpredicted.len()
    );
    // Read against another basis, the same bytes give other values (or an error): the
    // stream holds the differences, not the values.
    let mut r = crate::rt::Reader::new(&predicted);
    assert_ne!(
        AckedCoded::read(&mut r, &crate::rt::coded::NoBasis).ok(),
        Some(c)
    );
}

/// CODE-2: a keyframe names no older snapshot, on either side.
#[test]
fn a_keyframe_with_an_older_snapshot_is_refused() {
    let f = frame((5, 0, 1, 0, true, None), vec![], vec![], 0, vec![]);
    let mut c = coded(PackedReference::pack_frame(&f).unwrap(), 0);
    let mut bytes = Vec::new();
    c.write(&mut bytes, &crate::rt::coded::NoBasis).unwrap();
    // tick, base_tick, last_seq, input_buffer, flags, removed_count: `older` at 17.
    bytes[17] = 3;
    let e = AckedCoded::read(
        &mut crate::rt::Reader::new(&bytes),
        &crate::rt::coded::NoBasis,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::InvalidCondition, 17));
    assert_eq!(e.path.to_string(), "older");
    c.older = 3;
    assert!(c
        .write(&mut Vec::new(), &crate::rt::coded::NoBasis)
        .is_err());
}

/// Values a kind 12 change cannot hold are refused with their field's path: a step past its
/// i16 on encode, a decoded step past it on decode.
#[test]
fn kind_13_values_past_kind_12_are_refused_with_their_path() {
    let step = |dx: i32| PackedChange {
        eid: 3,
        mask: PackedMask::empty().with(PackedMask::POSE),
        age: None,
        pose_full: None,
        pose_step: Some(Box::new(PackedPoseStep {
            dx,
            dy: 0,
            dz: 0,
            yaw: 0,
        })),
        health: None,
        vehicle: None,
        orient: None,
    };
    let f = frame((5, 4, 1, 0, false, None), vec![], vec![], 0, vec![]);
    let mut c = coded(PackedReference::pack_frame(&f).unwrap(), 1);
    c.body.changes = vec![step(1), step(40_000)];
    c.body.changes[1].eid = 4;
    let e = c
        .write(&mut Vec::new(), &crate::rt::coded::NoBasis)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OverWidth);
    assert_eq!(e.path.to_string(), "body.changes[1].pose_step.dx");
    // A prediction at one edge and a value at the other: the difference is wider than the
    // range, and read against no prediction it lands past it, which the decoder refuses.
    let mut basis = Basis::default();
    basis
        .base
        .insert(4, record((-32_000, 0, 0, 0), 0, 0, (0, 0, 0, 0), None));
    basis
        .older
        .insert(4, record((0, 0, 0, 0), 0, 0, (0, 0, 0, 0), None));
    c.body.changes[1] = step(32_767);
    c.body.changes[1].eid = 4;
    let mut bytes = Vec::new();
    c.write(&mut bytes, &basis).unwrap();
    // Read with no prediction, the same difference lands past the step's range.
    let e = AckedCoded::read(&mut crate::rt::Reader::new(&bytes), &Basis::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OverWidth);
    assert_eq!(e.path.to_string(), "body.changes[1].pose_step.dx");
}
