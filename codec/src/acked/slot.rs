//! The reference schemas' record as the [`AckedDecoder`](super::AckedDecoder)'s tables hold
//! it ([`AckedSchema::Slot`](super::AckedSchema::Slot)): [`RecordSlot`], the fields of an
//! [`EntityState`] that the check hashes, in four aligned u64 words.
//!
//! Why not the generated [`EntityState`] (36 bytes, an `Option` of it the same): a delivery
//! copies, compares and hashes records, and a struct of odd-sized fields is copied and compared
//! field by field, where 32 plain bytes are one or two vector moves; 36-byte slots straddle two cache lines one time in two,
//! 32 aligned ones never; and the check (seed 000: "the ordered deltas' FNV-1a of every record of
//! the state the frame produces") hashes the slot's words (two of them reordered to the
//! record's canonical bytes, off the hash's chain), where each record was written out first.
//!
//! [`RecordSlot::apply`] is seed 000's rule for one change on these bytes. It is the decoder's
//! only rule; [`Reference::apply_staged`](super::Reference::apply_staged), on the generated
//! types, stays the fuzzing oracle's, and a test holds the two to the same record or the same
//! fault for every group and edge.

use super::reference::{grid, in_reach, StagedChange};
use super::reference::{HEALTH, ORIENT, POSE, POSE_FULL, VEHICLE};
use super::{DecoderSlot, Inapplicable};
use crate::protocol::{EntityState, Orientation, StateFlags};
use crate::rt::{Fnv1a32, SmallestThree};
use crate::BitSet;

/// Where each field lies, as bytes of the four u64 words: x, y, z and `measured` 4 bytes each,
/// then yaw, flags and hp, then armor, vehicle and seat (`EntityState::write`'s bytes 20 to 23
/// as they lie), then the orientation's 29 bits as `Orientation::write` pads them to 4 bytes;
/// the last byte is how many bytes the record's check form has (0 for no entity). No field
/// straddles two words: `measured`, which every applied pose writes and the report reads
/// twice, lay across two in the check's own byte order, and each access took a pair apart and
/// back.
const X: usize = 0;
const Y: usize = 4;
const Z: usize = 8;
const MEASURED: usize = 12;
const YAW: usize = 16;
const FLAGS: usize = 18;
const HP: usize = 19;
const ARMOR: usize = 20;
const VEHICLE_ID: usize = 21;
const SEAT: usize = 23;
const ORIENTATION: usize = 24;
const LEN: usize = 31;

/// Whether a field of `bytes` bytes at byte `at` lies within one u64 word, as
/// [`RecordSlot::get`] and [`RecordSlot::set`] take every field to (they read and write one
/// word); checked for each field below, so that a field moved across a word fails the build
/// rather than reading or writing part of itself.
const fn in_one_word(at: usize, bytes: usize) -> bool {
    at % 8 + bytes <= 8 && at + bytes <= 32
}
const _: () = assert!(
    in_one_word(X, 4)
        && in_one_word(Y, 4)
        && in_one_word(Z, 4)
        && in_one_word(MEASURED, 4)
        && in_one_word(YAW, 2)
        && in_one_word(FLAGS, 1)
        && in_one_word(HP, 1)
        && in_one_word(ARMOR, 1)
        && in_one_word(VEHICLE_ID, 2)
        && in_one_word(SEAT, 1)
        && in_one_word(ORIENTATION, 4)
        && in_one_word(LEN, 1)
);

/// A record without an orientation is `EntityState::write`'s 24 bytes; with one, 28.
const PLAIN: u8 = 24;
const ORIENTED: u8 = 28;

/// StateFlags' bits in the flags' byte.
const TIER: u8 = 1 << StateFlags::POSE_FULL.index();
const ORIENTED_BIT: u8 = 1 << StateFlags::ORIENTED.index();

/// One entity's record (or none) as the check hashes it: the fields of the record's canonical
/// bytes (`EntityState::write`, the orientation's 29 bits in 4 bytes), each within one word,
/// zeros, and in the last byte how many bytes the record's canonical form has, 0 for none. Two
/// slots are equal exactly when their records are.
///
/// A slot holds any record an apply gives. Of a record no apply gives, it keeps what the check
/// must see differ: the flags' byte as it is, and an orientation's components to their low 9
/// bits (the wire's width), so that [`AckedDecoder::tamper`](super::AckedDecoder::tamper)'s
/// corruption is still a corruption.
#[derive(Clone, Copy, Eq)]
#[repr(C, align(32))]
pub struct RecordSlot([u64; 4]);

impl PartialEq for RecordSlot {
    /// Word by word, by value. The derived comparison compared the slots' memory (a 32-byte
    /// `bcmp`, two 16-byte loads), which kept a slot just applied on the stack, written a word at
    /// a time and read back 16 bytes at a time: the processor cannot forward such a load from
    /// the stores before it and stalled on every entity the walk applied (a profile put a fifth
    /// of the walk there).
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = other.0;
        (a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3) == 0
    }
}

impl std::fmt::Debug for RecordSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RecordSlot").field(&self.record()).finish()
    }
}

impl RecordSlot {
    /// An entity coming whole, before its groups: every field zero, no orientation.
    const WHOLE: RecordSlot = {
        let mut w = [0; 4];
        w[LEN / 8] = (PLAIN as u64) << (8 * (LEN % 8));
        RecordSlot(w)
    };

    /// The field of `bytes` bytes at byte `at`, little endian. The slot is kept in u64 words
    /// (a field read or written a byte at a time made the compiler keep a record in 32 byte
    /// registers, and copying one cost 55 instructions; in eight u32 words, the walk held a
    /// slot in eight registers and spilled most of them); `at` and `bytes` are constants, so
    /// each access is a shift and a mask of one word.
    #[inline(always)]
    fn get(&self, at: usize, bytes: u32) -> u32 {
        let (w, shift) = (at / 8, (at % 8) as u32 * 8);
        ((self.0[w] >> shift) & ((1u64 << (8 * bytes)) - 1)) as u32
    }

    /// Sets the field [`Self::get`] reads.
    #[inline(always)]
    fn set(&mut self, at: usize, bytes: u32, value: u32) {
        let (w, shift) = (at / 8, (at % 8) as u32 * 8);
        let mask = ((1u64 << (8 * bytes)) - 1) << shift;
        self.0[w] = (self.0[w] & !mask) | ((u64::from(value) << shift) & mask);
    }

    /// How many of the slot's bytes are the record's (0 for none).
    #[inline(always)]
    fn len(&self) -> u32 {
        self.get(LEN, 1)
    }

    #[inline(always)]
    fn pose(&self) -> (i32, i32, i32) {
        (
            self.get(X, 4) as i32,
            self.get(Y, 4) as i32,
            self.get(Z, 4) as i32,
        )
    }

    #[inline(always)]
    fn set_pose(&mut self, x: i32, y: i32, z: i32) {
        self.set(X, 4, x as u32);
        self.set(Y, 4, y as u32);
        self.set(Z, 4, z as u32);
    }
}

impl DecoderSlot<EntityState, StagedChange> for RecordSlot {
    const EMPTY: RecordSlot = RecordSlot([0; 4]);

    /// Whether the slot holds an entity.
    #[inline(always)]
    fn holds(&self) -> bool {
        self.len() != 0
    }

    /// The tick the pose was measured at, for an entity.
    #[inline(always)]
    fn measured(&self) -> Option<u32> {
        self.holds().then(|| self.get(MEASURED, 4))
    }

    /// Whether the pose came full, for an entity.
    #[inline(always)]
    fn pose_full(&self) -> Option<bool> {
        self.holds().then(|| self.get(FLAGS, 1) as u8 & TIER != 0)
    }

    /// The check of FNV-1a `h` carried over the entity's id and record (nothing for none).
    #[inline(always)]
    fn hash(&self, h: Fnv1a32, eid: u16) -> Fnv1a32 {
        // `write_record`'s bytes as little-endian words: x, y and z as they lie, then yaw,
        // flags and `measured`'s first byte, the rest of `measured` and hp, then armor,
        // vehicle and seat as they lie, then the orientation. The shuffle is off the hash's
        // chain of one multiply a byte, which sets its speed.
        let [xy, z_measured, yaw_to_seat, orient_len] = self.0;
        let (x, y) = (xy as u32, (xy >> 32) as u32);
        let (z, measured) = (z_measured as u32, (z_measured >> 32) as u32);
        let (yaw_flags_hp, armor_vehicle_seat) = (yaw_to_seat as u32, (yaw_to_seat >> 32) as u32);
        let orient = orient_len as u32;
        let words = [
            x,
            y,
            z,
            (yaw_flags_hp & 0x00ff_ffff) | measured << 24,
            measured >> 8 | (yaw_flags_hp & 0xff00_0000),
            armor_vehicle_seat,
            orient,
        ];
        let n = (self.len() / 4) as usize;
        let h = h.update(&eid.to_le_bytes());
        words[..n.min(7)]
            .iter()
            .fold(h, |h, w| h.update(&w.to_le_bytes()))
    }

    /// The slot of `record` (of none).
    fn of(record: Option<&EntityState>) -> RecordSlot {
        let Some(r) = record else {
            return RecordSlot::EMPTY;
        };
        let mut s = RecordSlot::WHOLE;
        s.set_pose(r.x, r.y, r.z);
        s.set(YAW, 2, r.yaw.into());
        s.set(FLAGS, 1, r.flags.bits().into());
        s.set(MEASURED, 4, r.measured);
        s.set(HP, 1, r.hp.into());
        s.set(ARMOR, 1, r.armor.into());
        s.set(VEHICLE_ID, 2, r.vehicle.into());
        s.set(SEAT, 1, r.seat.into());
        if let Some(o) = &r.orient {
            s.set(ORIENTATION, 4, pack(&o.q));
            s.set(LEN, 1, ORIENTED.into());
        }
        s
    }

    /// The record the slot holds.
    fn record(&self) -> Option<EntityState> {
        self.holds().then(|| EntityState {
            x: self.pose().0,
            y: self.pose().1,
            z: self.pose().2,
            yaw: self.get(YAW, 2) as u16,
            flags: StateFlags::from_bits(self.get(FLAGS, 1) as u8),
            measured: self.get(MEASURED, 4),
            hp: self.get(HP, 1) as u8,
            armor: self.get(ARMOR, 1) as u8,
            vehicle: self.get(VEHICLE_ID, 2) as u16,
            seat: self.get(SEAT, 1) as u8,
            orient: (self.len() == u32::from(ORIENTED)).then(|| Orientation {
                q: unpack(self.get(ORIENTATION, 4)),
            }),
        })
    }

    /// Seed 000's rules for one change onto `base` (an empty slot when the entity comes
    /// whole), in a frame of tick `tick`: what `Reference::apply_staged` gives, as a slot, or
    /// the same fault. An entity coming whole brings every group (the orientation aside); a
    /// full pose lies on the 1/512 m grid; a PoseStep counts from the base's pose (the origin
    /// when it has none in the box); "a pose measured in a frame that was lost travels with its
    /// age (POSE_AGE ...), so the client records it at the tick it was true": `measured` is the
    /// frame's tick minus the age; an orientation, once had, stays.
    #[inline(always)]
    fn apply(&mut self, c: &StagedChange, tick: u32) -> Result<(), Inapplicable> {
        let held = self.holds();
        if !held {
            if !c.has(POSE | HEALTH | VEHICLE) {
                return Err(Inapplicable("an entity comes whole without every group"));
            }
            *self = RecordSlot::WHOLE;
        }
        let s = self;
        if c.has(POSE) {
            let full = c.has(POSE_FULL);
            if full {
                let g = |v: i32| grid(f32::from_bits(v as u32));
                let (x, y, z) = (g(c.pose[0])?, g(c.pose[1])?, g(c.pose[2])?);
                s.set_pose(x, y, z);
                s.set(YAW, 2, c.yaw.into());
            } else {
                let (bx, by, bz) = s.pose();
                // The base's pose when it holds the entity and its pose lies in the box.
                let from = held && in_reach(bx, by, bz);
                let add = |o: i32, d: i32| {
                    (if from { o } else { 0 })
                        .checked_add(d)
                        .ok_or(Inapplicable("a pose step past the grid"))
                };
                let (x, y, z) = (
                    add(bx, c.pose[0])?,
                    add(by, c.pose[1])?,
                    add(bz, c.pose[2])?,
                );
                s.set_pose(x, y, z);
                s.set(YAW, 2, u32::from(c.yaw << 8));
            }
            // The tier is the pose's; ORIENTED is the orientation's and stays.
            let flags = (s.get(FLAGS, 1) as u8 & !TIER) | if full { TIER } else { 0 };
            s.set(FLAGS, 1, flags.into());
            let measured = tick
                .checked_sub(u32::from(c.age))
                .ok_or(Inapplicable("a pose measured before tick 0"))?;
            s.set(MEASURED, 4, measured);
        }
        if c.has(HEALTH) {
            s.set(HP, 1, c.hp.into());
            s.set(ARMOR, 1, c.armor.into());
        }
        if c.has(VEHICLE) {
            s.set(VEHICLE_ID, 2, c.vehicle.into());
            s.set(SEAT, 1, c.seat.into());
        }
        if c.has(ORIENT) {
            s.set(ORIENTATION, 4, c.orient);
            let flags = s.get(FLAGS, 1) as u8 | ORIENTED_BIT;
            s.set(FLAGS, 1, flags.into());
            s.set(LEN, 1, ORIENTED.into());
        }
        Ok(())
    }
}

/// `Orientation`'s 29 bits, least significant first: `largest` (2 bits), then the three
/// components (9 bits each, two's complement).
#[inline(always)]
pub(super) fn pack(q: &SmallestThree) -> u32 {
    let c = |i: usize| u32::from(q.rest[i] as u16) & 0x1ff;
    u32::from(q.largest & 3) | c(0) << 2 | c(1) << 11 | c(2) << 20
}

/// [`pack`] undone.
#[inline(always)]
pub(super) fn unpack(v: u32) -> SmallestThree {
    let component = |shift: u32| (((v >> shift) & 0x1ff) as i16) << 7 >> 7;
    SmallestThree {
        largest: (v & 3) as u8,
        rest: [component(2), component(11), component(20)],
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference::POSE_AGE;
    use super::*;
    use crate::acked::{AckedSchema, Reference};
    use proptest::prelude::*;

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

    const POSE_EDGE: i32 = super::super::reference::POSE_REACH;

    /// Staged changes of every mask `Change::read` accepts and values at the edges: full poses
    /// on and off the grid and non-finite, steps that overflow, ages past the tick.
    fn staged_change() -> impl Strategy<Value = StagedChange> {
        let full_coord = prop_oneof![
            (-40_000i32..40_000).prop_map(|s| (s as f32 / 512.0).to_bits() as i32),
            any::<f32>().prop_map(|f| f.to_bits() as i32),
            Just(f32::INFINITY.to_bits() as i32),
        ];
        let step = prop_oneof![any::<i16>().prop_map(i32::from), Just(i32::from(i16::MAX))];
        (
            any::<u16>(),
            0u16..64,
            (any::<u16>(), any::<u8>()),
            prop_oneof![
                [full_coord.clone(), full_coord.clone(), full_coord],
                [step.clone(), step.clone(), step]
            ],
            (0u8..4, [-255i16..=255, -255i16..=255, -255i16..=255]),
            any::<u8>(),
            (any::<u8>(), any::<u8>(), any::<u16>(), any::<u8>()),
        )
            .prop_map(
                |(eid, groups, (yaw, yaw8), pose, (largest, rest), age, h)| {
                    let pick = |i: u16, bit: u16| if groups & (1 << i) != 0 { bit } else { 0 };
                    let mut mask =
                        pick(0, POSE) | pick(1, HEALTH) | pick(2, VEHICLE) | pick(3, ORIENT);
                    if mask & POSE != 0 {
                        mask |= pick(4, POSE_FULL) | pick(5, POSE_AGE);
                    }
                    let full = mask & POSE_FULL != 0;
                    StagedChange {
                        eid,
                        mask,
                        yaw: if full { yaw } else { u16::from(yaw8) },
                        vehicle: h.2,
                        pose,
                        orient: pack(&SmallestThree { largest, rest }),
                        age: if mask & POSE_AGE != 0 { age } else { 0 },
                        hp: h.0,
                        armor: h.1,
                        seat: h.3,
                    }
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
            let want = Reference::apply_staged(base.as_ref(), &c, tick).map(|r| RecordSlot::of(Some(&r)));
            let mut s = RecordSlot::of(base.as_ref());
            prop_assert_eq!(s.apply(&c, tick).map(|()| s), want);
        }

        /// A slot gives back the record it was made of, and hashes as the check hashes the
        /// record: its id, then `write_record`'s bytes.
        #[test]
        fn a_slot_is_its_record(r in applied_record(), eid in any::<u16>()) {
            let s = RecordSlot::of(Some(&r));
            prop_assert_eq!(s.record(), Some(r));
            let mut bytes = eid.to_le_bytes().to_vec();
            Reference::write_record(&r, &mut bytes);
            prop_assert_eq!(
                s.hash(Fnv1a32::new(), eid).finish(),
                Fnv1a32::new().update(&bytes).finish()
            );
            prop_assert_eq!(s.measured(), Some(r.measured));
            prop_assert_eq!(s.pose_full(), Some(r.flags.contains(StateFlags::POSE_FULL)));
        }
    }

    #[test]
    fn an_empty_slot_holds_nothing() {
        let e = RecordSlot::EMPTY;
        assert!(!e.holds());
        assert_eq!(e.record(), None);
        let h = Fnv1a32::new().update(&7u16.to_le_bytes()).finish();
        assert_eq!(e.hash(Fnv1a32::new(), 7).finish(), h);
        assert_eq!((e.measured(), e.pose_full()), (None, None));
        assert_eq!(RecordSlot::of(None), e);
        assert_eq!(std::mem::size_of::<RecordSlot>(), 32);
        assert_eq!(std::mem::align_of::<RecordSlot>(), 32);
    }

    #[test]
    fn a_corrupt_record_still_differs() {
        // What `tamper` may make: flags with reserved bits, ORIENTED without an orientation.
        let r = record((1, 2, 3, 4), 0, 9, (100, 5, 0, 0), None);
        let mut bad = r;
        bad.flags = StateFlags::from_bits(0xfe);
        let s = RecordSlot::of(Some(&bad));
        assert_ne!(s, RecordSlot::of(Some(&r)));
        assert_eq!(s.record(), Some(bad));
    }
}
