//! The coded frame's fuzz harnesses (kind 13, `docs/spec/coded.md`): the bodies of the
//! `decode_acked_coded` and `roundtrip_acked_coded` targets, which `cargo test` replays the
//! committed corpora through.
//!
//! A kind 13 frame decodes only against a basis (CODE-13, CODE-14: the base's and the older
//! snapshot's records predict its values), so a decode input carries one before the frame's
//! bytes ([`acked_coded_input`]). The checks: a frame that decodes re-encodes against the same
//! basis to exactly its bytes (CODE-5's canonical stream, WIRE-21), its prefix names the basis
//! it was read on (CODE-2), and it holds no more changes than its stream's length allows
//! (CODE-4), which is what bounds the decoder's allocation by its input.

use std::collections::BTreeMap;

use crate::protocol::{AckedCoded, AckedFlags, EntityState, PackedChange};
use crate::rt::coded::CodedBasis;
use crate::rt::Reader;
use crate::BitSet;

/// The most basis records a decode input carries: enough for a frame's first few changes to
/// meet an entity of the base, the older snapshot or both.
pub const MAX_BASIS_RECORDS: usize = 8;

/// CODE-4's bound for a generated Rust decoder: the bytes of decoded changes it may hold per
/// byte of input.
pub const CODED_ALLOC_PER_BYTE: usize = 48;

/// The records a coded frame is predicted from, by id: the base's and the older snapshot's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FuzzBasis {
    /// The records of the frame's base.
    pub base: BTreeMap<u16, EntityState>,
    /// The records of the frame's older snapshot.
    pub older: BTreeMap<u16, EntityState>,
}

impl CodedBasis<EntityState> for FuzzBasis {
    fn base(&self, eid: u16) -> Option<EntityState> {
        self.base.get(&eid).copied()
    }

    fn older(&self, eid: u16) -> Option<EntityState> {
        self.older.get(&eid).copied()
    }
}

/// Where a basis record of a decode input goes: bit 0 the base, bit 1 the older snapshot,
/// neither both.
pub const IN_BASE: u8 = 1;
/// See [`IN_BASE`].
pub const IN_OLDER: u8 = 2;

/// A decode input: `u8 n` (taken modulo `MAX_BASIS_RECORDS + 1`), `n` records of `u8 where`
/// ([`IN_BASE`], [`IN_OLDER`]), `u16 eid` and the record in its wire form (`EntityState`'s,
/// which reads only records a state holds: ORIENTED exactly with an orientation, its
/// components within their bits), then the frame's bytes. The inverse of the split the
/// `decode_acked_coded` target makes.
pub fn acked_coded_input(records: &[(u8, u16, EntityState)], frame: &[u8]) -> Vec<u8> {
    assert!(
        records.len() <= MAX_BASIS_RECORDS,
        "{} records",
        records.len()
    );
    let mut out = vec![records.len() as u8];
    for (place, eid, record) in records {
        out.push(*place);
        out.extend(eid.to_le_bytes());
        record
            .write(&mut out)
            .unwrap_or_else(|e| panic!("a basis record that does not encode: {e}\n{record:?}"));
    }
    out.extend(frame);
    out
}

/// Splits a decode input into its basis and its frame's bytes; `None` when a record does not
/// read (the input is then no test of the frame decoder).
pub fn split_acked_coded_input(data: &[u8]) -> Option<(FuzzBasis, &[u8])> {
    let mut r = Reader::new(data);
    let n = usize::from(r.u8().ok()?) % (MAX_BASIS_RECORDS + 1);
    let mut basis = FuzzBasis::default();
    for _ in 0..n {
        let place = r.u8().ok()?;
        let eid = r.u16().ok()?;
        let record = EntityState::read(&mut r).ok()?;
        let (base, older) = match place & (IN_BASE | IN_OLDER) {
            0 => (true, true),
            p => (p & IN_BASE != 0, p & IN_OLDER != 0),
        };
        if base {
            basis.base.insert(eid, record);
        }
        if older {
            basis.older.insert(eid, record);
        }
    }
    Some((basis, &data[r.pos()..]))
}

/// The `decode_acked_coded` check: the input split by [`split_acked_coded_input`], the frame
/// checked by [`check_acked_coded`]. Panics on a violation.
pub fn decode_acked_coded(data: &[u8]) {
    if let Some((basis, frame)) = split_acked_coded_input(data) {
        check_acked_coded(frame, &basis);
    }
}

/// Decodes `frame` against `basis` and, when it decodes, checks what kind 13 promises:
/// - the changes are at most CODE-4's 8 in 10 bytes of stream, so the decoded changes hold
///   at most [`CODED_ALLOC_PER_BYTE`] bytes per input byte;
/// - `read_basis` names the ticks and `older` of the frame read (CODE-2, CODE-3);
/// - the bytes read re-encode against the same basis to exactly those bytes (CODE-5, WIRE-21).
///
/// Returns whether the frame decoded (trailing bytes after it allowed); panics on a violation.
pub fn check_acked_coded(frame: &[u8], basis: &FuzzBasis) -> bool {
    let mut r = Reader::new(frame);
    let Ok(value) = AckedCoded::read(&mut r, basis) else {
        return false;
    };
    let read = &frame[..r.pos()];

    // CODE-4: `older` sits after the fixed prefix (17 bytes), the check and the removed ids;
    // `changed_count` and `coded_len` follow it.
    let at = 17 + if value.check.is_some() { 4 } else { 0 } + 2 * value.removed.len();
    let field = |i: usize| usize::from(u16::from_le_bytes([read[i], read[i + 1]]));
    let (changed_count, coded_len) = (field(at + 1), field(at + 3));
    let changes = &value.body.changes;
    assert_eq!(
        changes.len(),
        changed_count,
        "acked_coded: changed_count {changed_count} read as {} changes",
        changes.len()
    );
    assert!(
        changes.len() * 10 <= coded_len * 8,
        "acked_coded: {} changes in a stream of {coded_len} bytes (CODE-4)",
        changes.len()
    );
    let held = changes.capacity() * std::mem::size_of::<PackedChange>();
    assert!(
        held <= CODED_ALLOC_PER_BYTE * frame.len(),
        "acked_coded: {held} bytes of changes for {} input bytes",
        frame.len()
    );

    assert_eq!(
        AckedCoded::read_basis(frame).ok(),
        Some(value.basis_ticks()),
        "acked_coded: read_basis names another basis than the frame read"
    );
    if value.flags.contains(AckedFlags::KEYFRAME) {
        assert_eq!(
            value.older, 0,
            "acked_coded: a keyframe with an older (CODE-2)"
        );
    }

    let mut again = Vec::new();
    if let Err(e) = value.write(&mut again, basis) {
        panic!("acked_coded: a frame that decoded does not encode: {e}\n{value:?}\n{basis:?}");
    }
    assert_eq!(
        again, read,
        "acked_coded: a frame that decoded re-encodes differently\n{value:?}\n{basis:?}"
    );
    true
}

/// The `roundtrip_acked_coded` check: the input builds a kind 12 frame (the generated
/// `Arbitrary`, encodable values only) taken as kind 13 with an `older` (0 in a keyframe) and
/// a basis holding records for some of its changes' entities, the older ones near the base's
/// so that predictions land in range as often as not. Kind 13 carries exactly what kind 12
/// carries (ACK-15), so the frame must write (up to CODE-4's 52,428 changes), read back to
/// itself, name its basis in its prefix, be counted for training (the same walk) and pass
/// [`check_acked_coded`]. Panics otherwise.
#[cfg(feature = "arbitrary")]
pub fn roundtrip_acked_coded(data: &[u8]) {
    use crate::protocol::AckedPacked;
    use crate::rt::coded::SlotCounts;
    use crate::rt::ErrorKind;
    use arbitrary::{Arbitrary, Unstructured};

    let mut u = Unstructured::new(data);
    let Ok(p) = AckedPacked::arbitrary(&mut u) else {
        return;
    };
    let Ok(older) = u8::arbitrary(&mut u) else {
        return;
    };
    let older = if p.flags.contains(AckedFlags::KEYFRAME) {
        0
    } else {
        older
    };
    let value = AckedCoded {
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
    };
    let Ok(basis) = arbitrary_basis(&mut u, &value) else {
        return;
    };

    let mut bytes = Vec::new();
    if let Err(e) = value.write(&mut bytes, &basis) {
        // CODE-4: the one frame kind 12 carries and kind 13 does not.
        if value.body.changes.len() > 43_690 && e.kind == ErrorKind::CountTooLarge {
            return;
        }
        // A step past i16: kind 12's zbucket(0, 7, 8, 9, 16) has codes to -33216..=33215, but
        // ACK-15 refuses those as having no kind 6 value (the schema's decoder does), so no
        // session ever holds one; kind 13 refuses to write it (CODE-13, the step's range).
        if e.kind == ErrorKind::OverWidth && has_step_past_i16(&value) {
            return;
        }
        panic!("acked_coded: a kind 12 frame does not write as kind 13: {e}\n{value:?}\n{basis:?}");
    }
    let mut r = Reader::new(&bytes);
    match AckedCoded::read(&mut r, &basis) {
        Ok(back) => assert_eq!(
            back, value,
            "acked_coded: value -> bytes -> value\n{bytes:02x?}\n{basis:?}"
        ),
        Err(e) => panic!(
            "acked_coded: written bytes do not read: {e}\n{value:?}\n{bytes:02x?}\n{basis:?}"
        ),
    }
    if let Err(e) = r.finish() {
        panic!("acked_coded: read leaves bytes of what write wrote: {e}\n{bytes:02x?}");
    }
    assert_eq!(
        AckedCoded::read_basis(&bytes).ok(),
        Some(value.basis_ticks()),
        "acked_coded: read_basis"
    );
    let mut counts = SlotCounts::new(AckedCoded::SLOTS);
    if let Err(e) = value.count(&mut counts, &basis) {
        panic!("acked_coded: a frame that writes is not counted: {e}\n{value:?}");
    }
    assert!(
        check_acked_coded(&bytes, &basis),
        "acked_coded: written bytes do not decode"
    );
}

/// Whether a change of `frame` steps an axis past i16 (see [`roundtrip_acked_coded`]).
#[cfg(feature = "arbitrary")]
fn has_step_past_i16(frame: &AckedCoded) -> bool {
    frame.body.changes.iter().any(|c| {
        c.pose_step.as_ref().is_some_and(|s| {
            [s.dx, s.dy, s.dz]
                .iter()
                .any(|v| i16::try_from(*v).is_err())
        })
    })
}

/// For each of `frame`'s changes (of an id a state holds), whether its entity is in the base
/// and in the older snapshot, and their records; an older record is often the base's moved by
/// a few steps, so that CODE-13's extrapolation stays near the values.
#[cfg(feature = "arbitrary")]
fn arbitrary_basis(
    u: &mut arbitrary::Unstructured<'_>,
    frame: &AckedCoded,
) -> arbitrary::Result<FuzzBasis> {
    use arbitrary::Arbitrary;
    let mut basis = FuzzBasis::default();
    for change in &frame.body.changes {
        let Ok(eid) = u16::try_from(change.eid) else {
            continue;
        };
        let place = u8::arbitrary(u)?;
        if place & IN_BASE == 0 && place & IN_OLDER == 0 {
            continue;
        }
        let base = EntityState::arbitrary(u)?;
        let older = if bool::arbitrary(u)? {
            let mut older = base;
            older.x = base.x.wrapping_sub(i32::from(i8::arbitrary(u)?));
            older.y = base.y.wrapping_sub(i32::from(i8::arbitrary(u)?));
            older.z = base.z.wrapping_sub(i32::from(i8::arbitrary(u)?));
            older
        } else {
            EntityState::arbitrary(u)?
        };
        if place & IN_BASE != 0 {
            basis.base.insert(eid, base);
        }
        if place & IN_OLDER != 0 {
            basis.older.insert(eid, older);
        }
    }
    Ok(basis)
}

/// Decode inputs whose frames decode, of what kind 13 predicts: entities moving at a steady
/// velocity between the older snapshot and the base (CODE-13), orientations the base's or
/// not (CODE-14), entities new to the base, a keyframe, removals, a check and events. The
/// `decode_acked_coded` corpus was seeded with them; tests hold each to
/// [`check_acked_coded`].
pub fn acked_coded_samples() -> Vec<Vec<u8>> {
    use crate::protocol::{
        Event, Orientation, PackedChanges, PackedHealth, PackedMask, PackedPoseFull,
        PackedPoseStep, Shot, StateFlags,
    };
    use crate::rt::SmallestThree;

    let q = SmallestThree::from_xyzw([0.1, 0.2, 0.3, 0.9], 9);
    let turned = SmallestThree::from_xyzw([0.7, 0.1, 0.1, 0.7], 9);
    let record = |eid: u16, t: u32, oriented: bool| {
        let v = [i32::from(eid) * 3, -i32::from(eid), 7];
        let t = t as i32;
        let mut flags = StateFlags::empty();
        flags.set(StateFlags::ORIENTED, oriented);
        EntityState {
            x: v[0] * t,
            y: v[1] * t,
            z: v[2] * t,
            yaw: 0,
            flags,
            measured: t as u32,
            hp: 100,
            armor: 0,
            vehicle: 0,
            seat: 0,
            orient: oriented.then_some(Orientation { q }),
        }
    };
    let (tick, base_tick, older) = (100u32, 96u32, 4u8);
    let mut samples = Vec::new();
    for n in [1u16, 3, 8] {
        let mut records = Vec::new();
        let mut changes = Vec::new();
        for eid in 1..=n {
            let oriented = eid % 2 == 1;
            // Entity 3 is new to the base; entity 2 is in the base alone.
            if eid != 3 {
                records.push((IN_BASE, eid, record(eid, base_tick, oriented)));
                if eid != 2 {
                    let then = base_tick - u32::from(older);
                    records.push((IN_OLDER, eid, record(eid, then, oriented)));
                }
            }
            let gap = (tick - base_tick) as i32;
            let v = [i32::from(eid) * 3, -i32::from(eid), 7];
            let mut mask = PackedMask::empty().with(PackedMask::POSE);
            let full = eid == 3;
            if full {
                mask = mask.with(PackedMask::POSE_FULL);
            }
            if oriented || full {
                mask = mask.with(PackedMask::ORIENT);
            }
            if eid % 4 == 0 {
                mask = mask.with(PackedMask::HEALTH);
            }
            changes.push(PackedChange {
                eid: u32::from(eid),
                mask,
                age: None,
                pose_full: full.then(|| {
                    Box::new(PackedPoseFull {
                        x: 1.5,
                        y: -2.25,
                        z: 0.0,
                        yaw: 0.5,
                    })
                }),
                pose_step: (!full).then(|| {
                    Box::new(PackedPoseStep {
                        dx: v[0] * gap + i32::from(eid % 3),
                        dy: v[1] * gap,
                        dz: v[2] * gap,
                        yaw: 0,
                    })
                }),
                health: (eid % 4 == 0).then_some(PackedHealth { hp: 90, armor: 5 }),
                vehicle: None,
                orient: (oriented || full).then_some(Orientation {
                    q: if eid % 3 == 0 { turned } else { q },
                }),
            });
        }
        records.truncate(MAX_BASIS_RECORDS);
        let keyframe = n == 1;
        let frame = AckedCoded {
            tick,
            base_tick: if keyframe { 0 } else { base_tick },
            last_seq: 7,
            input_buffer: 2,
            flags: if keyframe {
                AckedFlags::empty().with(AckedFlags::KEYFRAME)
            } else if n == 8 {
                AckedFlags::empty().with(AckedFlags::CHECK)
            } else {
                AckedFlags::empty()
            },
            check: (n == 8).then_some(0xdead_beef),
            removed: if n == 3 { vec![40, 41] } else { vec![] },
            older: if keyframe { 0 } else { older },
            body: PackedChanges { changes },
            first_serial: (n == 8).then_some(5),
            events: if n == 8 {
                vec![Event::Shot(Shot {
                    shooter: 3,
                    weapon: 1,
                    yaw: 0.0,
                })]
            } else {
                vec![]
            },
        };
        let basis = split_acked_coded_input(&acked_coded_input(&records, &[]))
            .expect("the records read back")
            .0;
        let mut bytes = Vec::new();
        frame
            .write(&mut bytes, &basis)
            .unwrap_or_else(|e| panic!("a sample frame does not write: {e}\n{frame:?}"));
        samples.push(acked_coded_input(&records, &bytes));
    }
    samples
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_decode_and_pass_the_check() {
        let samples = acked_coded_samples();
        assert_eq!(samples.len(), 3);
        for data in &samples {
            let (basis, frame) = split_acked_coded_input(data).expect("a sample splits");
            assert!(!basis.base.is_empty());
            assert!(check_acked_coded(frame, &basis), "{data:02x?}");
            // The same bytes with a trailing byte: the frame still decodes, and the check
            // holds it to the bytes it read.
            let mut longer = frame.to_vec();
            longer.push(0xff);
            assert!(check_acked_coded(&longer, &basis));
        }
    }

    #[test]
    fn predictions_matter_a_frame_read_against_no_basis_differs() {
        // The non-keyframe samples code steps against the basis: read against none, they
        // decode to other values or are refused, never to the same frame.
        for data in &acked_coded_samples()[1..] {
            let (basis, frame) = split_acked_coded_input(data).unwrap();
            let with = AckedCoded::read(&mut Reader::new(frame), &basis).unwrap();
            let without = AckedCoded::read(&mut Reader::new(frame), &FuzzBasis::default());
            assert_ne!(without.ok(), Some(with));
        }
    }

    #[test]
    fn cut_and_flipped_frames_are_refused_or_canonical() {
        let mut decoded = 0;
        for data in &acked_coded_samples() {
            let (basis, frame) = split_acked_coded_input(data).unwrap();
            for cut in 0..frame.len() {
                assert!(!check_acked_coded(&frame[..cut], &basis), "cut at {cut}");
            }
            for i in 0..frame.len() {
                for bit in 0..8 {
                    let mut flipped = frame.to_vec();
                    flipped[i] ^= 1 << bit;
                    decoded += usize::from(check_acked_coded(&flipped, &basis));
                }
            }
        }
        // Header fields (ticks, last_seq, check) take any value: some flips still decode.
        assert!(decoded > 0);
    }

    /// A finding of `roundtrip_acked_coded` (input: its corpus file
    /// `4916d6bdb7f78e6803698cab32d1586ea457dfc8`, a step `dz` of -33212): the packed record
    /// has codes for a step axis over zbucket(0, 7, 8, 9, 16)'s -33216..=33215, which ACK-15
    /// refuses as having no kind 6 value; kind 13 writes a step in i16's range only (CODE-13),
    /// refusing the rest cleanly at the field.
    #[test]
    fn a_step_past_i16_is_refused_by_kind_13_as_acks_15_refuses_it() {
        use crate::protocol::{AckedPacked, PackedChanges, PackedMask, PackedPoseStep};
        use crate::rt::{ErrorKind, Frame};
        for (dz, coded) in [
            (-32768, true),
            (32767, true),
            (-33212, false),
            (33215, false),
        ] {
            let body = PackedChanges {
                changes: vec![PackedChange {
                    eid: 1,
                    mask: PackedMask::empty().with(PackedMask::POSE),
                    age: None,
                    pose_full: None,
                    pose_step: Some(Box::new(PackedPoseStep {
                        dx: 0,
                        dy: 0,
                        dz,
                        yaw: 0,
                    })),
                    health: None,
                    vehicle: None,
                    orient: None,
                }],
            };
            let flags = AckedFlags::empty().with(AckedFlags::KEYFRAME);
            let packed = AckedPacked {
                tick: 1,
                base_tick: 0,
                last_seq: 0,
                input_buffer: 0,
                flags,
                check: None,
                removed: vec![],
                body: body.clone(),
                first_serial: None,
                events: vec![],
            };
            let bytes = packed.to_bytes().unwrap();
            assert_eq!(
                AckedPacked::decode(&bytes).unwrap(),
                packed,
                "kind 12, dz {dz}"
            );
            let frame = AckedCoded {
                tick: 1,
                base_tick: 0,
                last_seq: 0,
                input_buffer: 0,
                flags,
                check: None,
                removed: vec![],
                older: 0,
                body,
                first_serial: None,
                events: vec![],
            };
            let mut out = Vec::new();
            let written = frame.write(&mut out, &FuzzBasis::default());
            if coded {
                written.unwrap();
                assert!(check_acked_coded(&out, &FuzzBasis::default()), "dz {dz}");
            } else {
                let e = written.unwrap_err();
                assert_eq!(e.kind, ErrorKind::OverWidth, "dz {dz}");
                assert_eq!(
                    e.to_string(),
                    "cannot encode: over_width in body.changes[0].pose_step.dz"
                );
            }
        }
    }

    /// A finding of `decode_acked_coded` (crash-d50118a8…, minimized to the base record of
    /// entity 1): against a base holding the entity's orientation, a `same` of 0 followed by
    /// the base's own largest index decoded, to the value the encoder writes as `same = 1`
    /// and its differences, so two streams read as one frame (CODE-5, CODE-14: the encoder
    /// never writes this one). The generated `read_quat` refuses it as non_canonical. The
    /// stream is coded here under the frame's own tables, so that it says the same whatever
    /// they were trained to.
    #[test]
    fn same_0_with_the_bases_largest_index_is_refused() {
        use crate::protocol::{Orientation, PackedMask, StateFlags};
        use crate::rt::coded::{model_slots, CodedEncoder, CodedSink};
        use crate::rt::{BitSet, ErrorKind, SmallestThree};
        fn model(name: &str) -> (usize, u8) {
            let mut start = 0;
            for &(n, w) in AckedCoded::MODELS {
                if n == name {
                    return (start, w);
                }
                start += model_slots(w);
            }
            panic!("no model {name}")
        }
        let mut probs = AckedCoded::TABLES;
        let mut stream = CodedEncoder::new(&mut probs);
        let orient = PackedMask::empty().with(PackedMask::ORIENT);
        for (name, v) in [
            ("eid", 1),
            ("mask", u64::from(orient.bits())),
            ("orient.q.same", 0),
            ("orient.q.largest", 2),
            ("orient.q.c0", 37),
            ("orient.q.c1", 74),
            ("orient.q.c2", 111),
        ] {
            let (at, w) = model(name);
            stream.value(at, w, v).unwrap();
        }
        // kind, tick 100 onto 99, last_seq, input_buffer, flags, no removals, no older
        // snapshot, one change, its stream, no events.
        let mut frame = vec![13];
        frame.extend(100u32.to_le_bytes());
        frame.extend(99u32.to_le_bytes());
        frame.extend([0; 4]);
        frame.extend([0, 0, 0, 0, 0]);
        frame.extend(1u16.to_le_bytes());
        stream.finish(1, &mut frame).unwrap();
        frame.push(0);
        let mut flags = StateFlags::empty();
        flags.set(StateFlags::ORIENTED, true);
        let mut basis = FuzzBasis::default();
        let record = EntityState {
            x: 288,
            y: -96,
            z: 672,
            yaw: 0,
            flags,
            measured: 96,
            hp: 100,
            armor: 0,
            vehicle: 0,
            seat: 253,
            orient: Some(Orientation {
                q: SmallestThree {
                    largest: 2,
                    rest: [37, 74, 111],
                },
            }),
        };
        basis.base.insert(1, record);
        match AckedCoded::read(&mut Reader::new(&frame), &basis) {
            Err(e) => assert_eq!(
                (e.kind, e.to_string().contains("orient")),
                (ErrorKind::NonCanonical, true),
                "{e}"
            ),
            Ok(v) => {
                let mut again = Vec::new();
                v.write(&mut again, &basis).unwrap();
                panic!("decoded, and writes as {again:02x?}\n{v:?}");
            }
        }
    }

    #[test]
    fn inputs_split_back_into_their_basis_and_frame() {
        let record = EntityState::read(&mut Reader::new(&[0; 24])).unwrap();
        let data = acked_coded_input(
            &[(IN_BASE, 5, record), (IN_OLDER, 6, record), (0, 7, record)],
            &[13, 1, 2],
        );
        let (basis, frame) = split_acked_coded_input(&data).unwrap();
        assert_eq!(frame, &[13, 1, 2]);
        assert_eq!(basis.base.keys().copied().collect::<Vec<_>>(), [5, 7]);
        assert_eq!(basis.older.keys().copied().collect::<Vec<_>>(), [6, 7]);
        // A record that does not read leaves no frame to test.
        assert_eq!(split_acked_coded_input(&[1, 1, 5, 0, 0]), None);
        // No records: the rest is the frame.
        assert_eq!(
            split_acked_coded_input(&[9, 13]),
            Some((FuzzBasis::default(), &[13][..]))
        );
    }
}
