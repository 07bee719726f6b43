//! The bit-packed acked schema (`spec/protocol/acked_packed.wire`, kind 12): the reference
//! protocol's records, changes and events ([`Reference`]'s: the same diff, apply and check),
//! with each frame written and read as kind 12 instead of kind 6.
//!
//! Kind 12 carries exactly kind 6's information: its header is kind 6's, its events are kind
//! 6's, and each [`PackedChange`] is a kind 6 [`Change`] in variable widths (the id as a gap
//! from the previous change's, the mask in its six named bits, the steps and the yaw in
//! buckets). So [`PackedReference`] converts between the two at the frame's edge and every
//! session machine (the [`AckedEncoder`](super::AckedEncoder), the
//! [`AckedDecoder`](super::AckedDecoder), the harness) runs over it unchanged. The conversion
//! is lossless both ways: every kind 6 frame whose changes ascend by id (the only ones the
//! machines apply: seed 000's "changes in ascending id", enforced by `apply_frame`) has exactly
//! one kind 12 frame, and back.
//!
//! Seed 000's rules hold unchanged, since the machines and the schema's diff and apply are
//! kind 6's: "Frame N carries what turns the acknowledged frame's S_B into S_N (the entities
//! gone, those whose life changed under their id removed and whole again, the groups that
//! differ, a position as small steps from the base's)", and "Whether an entity's pose is full
//! or quantized travels with each change (POSE_FULL) ... and a pose measured in a frame that was
//! lost travels with its age (POSE_AGE)": kind 12 carries the same bits for both.
//!
//! A kind 6 frame whose changes do not ascend has no kind 12 form: encoding it is
//! `not_ascending`. A few kind 12 codes have no kind 6 value (a bucket list that holds every
//! u16 holds more: an id past 65535, a step past an i16, a yaw or an age past a u8): decoding
//! them is `over_width`, reported at the packed body's first byte with the field's path.

use super::reference::{read_removed, read_tail, Header};
use super::{AckedFrame, AckedSchema, FrameOf, Inapplicable, Reference, StagedChange, StagedFrame};
use crate::protocol::{
    AckedFlags, AckedPacked, Change, ChangeMask, EntityState, Event, Health, PackedChange,
    PackedChanges, PackedHealth, PackedMask, PackedPoseFull, PackedPoseStep, PackedVehicle,
    PoseStep, Vehicle,
};
use crate::rt::{Bit, BitReader, Reader};
use crate::{BitSet, DecodeError, EncodeError, ErrorKind};
use std::cell::RefCell;

/// Kind 6's yaw steps (PoseStep: `quant(u8, 360/256)`).
const YAW_STEP: f64 = 360.0 / 256.0;

/// The kind 6 mask bits and the kind 12 bits they become, in the same meaning.
const MASK_BITS: [(Bit<ChangeMask>, Bit<PackedMask>); 6] = [
    (ChangeMask::POSE, PackedMask::POSE),
    (ChangeMask::HEALTH, PackedMask::HEALTH),
    (ChangeMask::VEHICLE, PackedMask::VEHICLE),
    (ChangeMask::ORIENT, PackedMask::ORIENT),
    (ChangeMask::POSE_FULL, PackedMask::POSE_FULL),
    (ChangeMask::POSE_AGE, PackedMask::POSE_AGE),
];

/// The bit-packed reference schema: [`Reference`] with frames of kind 12.
#[derive(Debug, Clone, Copy, Default)]
pub struct PackedReference;

/// Kind 6's mask as kind 12's; a reserved bit of kind 6's (which no decoded change holds, and
/// kind 6's writer refuses) is `reserved_bit`.
fn pack_mask(mask: ChangeMask) -> Result<PackedMask, EncodeError> {
    let mut packed = PackedMask::empty();
    let mut named = 0u16;
    for (wide, narrow) in MASK_BITS {
        named |= 1 << wide.index();
        packed.set(narrow, mask.contains(wide));
    }
    if mask.bits() & !named != 0 {
        return Err(EncodeError::new(ErrorKind::ReservedBit).field("mask"));
    }
    Ok(packed)
}

fn unpack_mask(mask: PackedMask) -> ChangeMask {
    let mut wide = ChangeMask::empty();
    for (w, narrow) in MASK_BITS {
        wide.set(w, mask.contains(narrow));
    }
    wide
}

/// Kind 6's change as kind 12's. The yaw of a PoseStep travels as its step count: the degrees
/// kind 6's model holds are `steps * 360/256`, so the count is recovered exactly for any value
/// kind 6 decodes; any other value is quantized as kind 6's writer would.
fn pack_change(c: &Change) -> Result<PackedChange, EncodeError> {
    Ok(PackedChange {
        eid: c.eid.into(),
        mask: pack_mask(c.mask)?,
        age: c.age.map(Into::into),
        pose_full: c.pose_full.as_ref().map(|p| PackedPoseFull {
            x: p.x,
            y: p.y,
            z: p.z,
            yaw: p.yaw,
        }),
        pose_step: c
            .pose_step
            .as_ref()
            .map(|p| {
                Ok::<_, EncodeError>(PackedPoseStep {
                    dx: p.dx.into(),
                    dy: p.dy.into(),
                    dz: p.dz.into(),
                    yaw: yaw_steps(p.yaw)?.into(),
                })
            })
            .transpose()?,
        health: c.health.as_ref().map(|h| PackedHealth {
            hp: h.hp,
            armor: h.armor,
        }),
        vehicle: c.vehicle.as_ref().map(|v| PackedVehicle {
            vehicle: v.vehicle,
            seat: v.seat,
        }),
        orient: c.orient,
    })
}

/// A PoseStep's yaw (degrees) as kind 6's writer quantizes it: `round(yaw / (360/256))`,
/// halves away from zero, a non-finite value as 0, past a u8 `over_width`.
fn yaw_steps(yaw: f64) -> Result<u8, EncodeError> {
    let steps = if yaw.is_finite() {
        (yaw / YAW_STEP).round()
    } else {
        0.0
    };
    if !(0.0..=255.0).contains(&steps) {
        return Err(EncodeError::new(ErrorKind::OverWidth).field("pose_step.yaw"));
    }
    Ok(steps as u8)
}

/// Kind 12's change as kind 6's; a code with no kind 6 value is `over_width` at `at` (the
/// packed body's first byte), with the field's path.
fn unpack_change(c: &PackedChange, at: usize) -> Result<Change, DecodeError> {
    let over = |field: &'static str| DecodeError::new(ErrorKind::OverWidth, at).field(field);
    let narrow = |v: i64, field: &'static str| i16::try_from(v).map_err(|_| over(field));
    Ok(Change {
        eid: u16::try_from(c.eid).map_err(|_| over("eid"))?,
        mask: unpack_mask(c.mask),
        age: c
            .age
            .map(|a| u8::try_from(a).map_err(|_| over("age")))
            .transpose()?,
        pose_full: c.pose_full.as_ref().map(|p| crate::protocol::PoseFull {
            x: p.x,
            y: p.y,
            z: p.z,
            yaw: p.yaw,
        }),
        pose_step: c
            .pose_step
            .as_ref()
            .map(|p| {
                let yaw = u8::try_from(p.yaw).map_err(|_| over("pose_step.yaw"))?;
                Ok::<_, DecodeError>(PoseStep {
                    dx: narrow(p.dx.into(), "pose_step.dx")?,
                    dy: narrow(p.dy.into(), "pose_step.dy")?,
                    dz: narrow(p.dz.into(), "pose_step.dz")?,
                    yaw: f64::from(yaw) * YAW_STEP,
                })
            })
            .transpose()?,
        health: c.health.as_ref().map(|h| Health {
            hp: h.hp,
            armor: h.armor,
        }),
        vehicle: c.vehicle.as_ref().map(|v| Vehicle {
            vehicle: v.vehicle,
            seat: v.seat,
        }),
        orient: c.orient,
    })
}

/// Kind 12's change staged as kind 6's ([`unpack_change`], then [`Reference::stage`]), without
/// the kind 6 `Change` between them: its groups are those the mask selects, its yaws back in
/// their steps (a PoseStep's is its step count already). For every change the generated
/// reader gives (a group present exactly when the mask selects it), the same staged change or
/// the same error, checked in the same order (a proptest holds `decode_staged` to
/// `decode_frame`). Building the `Change` and staging it was slower than the conversion to a
/// `Change` alone.
///
/// It writes into `s` (which comes in as `StagedChange::NONE`), where the decoder keeps the
/// change, rather than returning it: kind 6's reader was slowed so before (the value copied
/// there was read back wider than it was written, which stalls the processor's store
/// forwarding).
fn stage_packed(c: &PackedChange, at: usize, s: &mut StagedChange) -> Result<(), DecodeError> {
    use super::reference::{HEALTH, ORIENT, POSE, POSE_AGE, POSE_FULL, VEHICLE};
    let over = |field: &'static str| DecodeError::new(ErrorKind::OverWidth, at).field(field);
    let narrow =
        |v: i32, field: &'static str| i16::try_from(v).map(i32::from).map_err(|_| over(field));
    s.eid = u16::try_from(c.eid).map_err(|_| over("eid"))?;
    s.mask = unpack_mask(c.mask).bits();
    let mask = s.mask;
    let has = |bits: u16| mask & bits == bits;
    let age = c
        .age
        .map(|a| u8::try_from(a).map_err(|_| over("age")))
        .transpose()?;
    if has(POSE_AGE) {
        s.age = age.unwrap_or(0);
    }
    match (&c.pose_full, &c.pose_step) {
        (Some(p), _) if has(POSE | POSE_FULL) => {
            s.pose = [p.x, p.y, p.z].map(|v| v.to_bits() as i32);
            s.yaw = super::reference::round_u16(p.yaw / super::reference::YAW_FULL);
        }
        (_, Some(p)) if has(POSE) && !has(POSE_FULL) => {
            let yaw = u8::try_from(p.yaw).map_err(|_| over("pose_step.yaw"))?;
            s.pose = [
                narrow(p.dx, "pose_step.dx")?,
                narrow(p.dy, "pose_step.dy")?,
                narrow(p.dz, "pose_step.dz")?,
            ];
            s.yaw = u16::from(yaw);
        }
        // The generated reader gives a group exactly when the mask selects it.
        _ => {}
    }
    if let (true, Some(h)) = (has(HEALTH), &c.health) {
        (s.hp, s.armor) = (h.hp, h.armor);
    }
    if let (true, Some(v)) = (has(VEHICLE), &c.vehicle) {
        (s.vehicle, s.seat) = (v.vehicle, v.seat);
    }
    if let (true, Some(o)) = (has(ORIENT), &c.orient) {
        s.orient = super::slot::pack(&o.q);
    }
    Ok(())
}

/// A kind 6 frame as kind 12's.
pub fn pack_frame(frame: &FrameOf<Reference>) -> Result<AckedPacked, EncodeError> {
    let mut flags = AckedFlags::empty();
    flags.set(AckedFlags::KEYFRAME, frame.keyframe);
    flags.set(AckedFlags::CHECK, frame.check.is_some());
    if frame.events.len() > usize::from(u8::MAX) {
        return Err(EncodeError::new(ErrorKind::OverWidth).field("event_count"));
    }
    let mut changes = Vec::with_capacity(frame.changes.len());
    for (i, c) in frame.changes.iter().enumerate() {
        changes.push(pack_change(c).map_err(|e| e.index(i).field("changes").field("body"))?);
    }
    Ok(AckedPacked {
        tick: frame.tick,
        base_tick: frame.base_tick,
        last_seq: frame.last_seq,
        input_buffer: frame.input_buffer,
        flags,
        check: frame.check,
        removed: frame.removed.clone(),
        body: PackedChanges { changes },
        first_serial: (!frame.events.is_empty()).then_some(frame.first_serial),
        events: frame.events.clone(),
    })
}

/// A kind 12 frame as kind 6's: DESIGN.md section 3, "flags bit 0 KEYFRAME: the frame applies
/// onto nothing (base_tick is then 0)", checked as kind 6's decoder checks it.
pub fn unpack_frame(f: AckedPacked) -> Result<FrameOf<Reference>, DecodeError> {
    let mut out = AckedFrame::empty();
    unpack_into(
        &f,
        &mut out,
        &super::reference::no_change(0),
        |c, at, into| {
            *into = unpack_change(c, at)?;
            Ok(())
        },
    )?;
    Ok(out)
}

/// [`unpack_frame`] into `out`, reusing its lists' buffers, each change through `unpack` (kind
/// 6's `Change`, or its staged form): the same frame or the same error (on an error `out`
/// holds anything). The header through kind 6's [`Header::into_frame`], which checks DESIGN.md
/// section 3's "flags bit 0 KEYFRAME: the frame applies onto nothing (base_tick is then 0)" as
/// kind 6's decoder checks it, before the changes.
fn unpack_into<C: Clone>(
    f: &AckedPacked,
    out: &mut AckedFrame<C, Event>,
    fresh: &C,
    unpack: impl Fn(&PackedChange, usize, &mut C) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    Header {
        tick: f.tick,
        base_tick: f.base_tick,
        last_seq: f.last_seq,
        input_buffer: f.input_buffer,
        flags: f.flags,
        check: f.check,
        first_serial: f.first_serial,
    }
    .into_frame(out)?;
    // The packed body's first byte: kind 12's header is kind 6's without changed_count.
    let at = 17 + if f.check.is_some() { 4 } else { 0 } + 2 * f.removed.len();
    out.changes.clear();
    out.changes.reserve(f.body.changes.len());
    for (i, c) in f.body.changes.iter().enumerate() {
        out.changes.push(fresh.clone());
        if let Some(into) = out.changes.last_mut() {
            unpack(c, at, into).map_err(|e| e.index(i).field("changes").field("body"))?;
        }
    }
    out.removed.clear();
    out.removed.extend_from_slice(&f.removed);
    out.events.clear();
    out.events.extend_from_slice(&f.events);
    Ok(())
}

thread_local! {
    /// The kind 12 frame [`PackedReference::decode_staged`] reads into on this thread, for
    /// a frame [`decode_fast`] does not take whole, before converting it into the caller's
    /// kind 6 frame: the generated codec stays the
    /// only reader of kind 12's bits (its refusals, offsets and field paths are what the
    /// vectors pin), and its lists' buffers are kept from frame to frame, so that a warm
    /// AckedDecoder allocates nothing for kind 12 as for kind 6.
    ///
    /// Its limit is the largest frame decoded on the thread: the generated reader checks
    /// every count against the bytes left before it reserves anything, so the lists hold
    /// at most one element per 2 bytes (removed ids), 9 bits (changes) and 6 bytes
    /// (events) of that frame, and never more than the counts' u16, u16 and u8.
    static SCRATCH: RefCell<AckedPacked> = RefCell::new(empty_packed());
}

/// A kind 12 frame with nothing in it, its lists unallocated.
fn empty_packed() -> AckedPacked {
    AckedPacked {
        tick: 0,
        base_tick: 0,
        last_seq: 0,
        input_buffer: 0,
        flags: AckedFlags::empty(),
        check: None,
        removed: Vec::new(),
        body: PackedChanges {
            changes: Vec::new(),
        },
        first_serial: None,
        events: Vec::new(),
    }
}

/// Reads kind 12 `bytes` into `scratch` with the generated codec, then converts it into `out`,
/// each change staged.
fn decode_with(
    bytes: &[u8],
    scratch: &mut AckedPacked,
    out: &mut StagedFrame<PackedReference>,
) -> Result<(), DecodeError> {
    if decode_fast(bytes, out).is_some() {
        return Ok(());
    }
    AckedPacked::decode_into(bytes, scratch)?;
    unpack_into(scratch, out, &StagedChange::NONE, stage_packed)
}

/// The common case of [`decode_with`]: a frame whose every part decodes and whose every change
/// lies within kind 6's ranges, read with each change staged as its bits are read, with no
/// generated `PackedChange` (its optional groups, its per-field error paths) between the bits
/// and the staged change. `None` for anything else, and [`decode_with`] decodes the frame
/// again through the generated reader and [`stage_packed`], which say what and where: this
/// reader accepts only what they accept, giving the same frame (a proptest holds
/// `decode_staged` to `decode_frame` on frames with a byte changed or cut short, and every
/// valid frame to this path). The header, the removals, the body's padding and the events are
/// read by the generated code's own calls, in its order.
///
/// Why a reader of its own: through the generated change and its conversion, kind 12's decode
/// cost about twice kind 6's, and the bench holds the two within 1.5 of each other.
fn decode_fast(bytes: &[u8], out: &mut StagedFrame<PackedReference>) -> Option<()> {
    let mut r = Reader::new(bytes);
    if r.u8().ok()? != 12 {
        return None;
    }
    let tick = r.u32().ok()?;
    let base_tick = r.u32().ok()?;
    let last_seq = r.u32().ok()?;
    let input_buffer = r.u8().ok()?;
    let flags = AckedFlags::read(&mut r).ok()?;
    let removed_count = r.u16().ok()?;
    let check = if flags.contains(AckedFlags::CHECK) {
        Some(r.u32().ok()?)
    } else {
        None
    };
    read_removed(&mut r, removed_count, &mut out.removed).ok()?;
    // The error only ends the packed read; `decode_with` finds the real one.
    let bail = || DecodeError::new(ErrorKind::Truncated, 0);
    r.packed(|b| read_changes_fast(b, &mut out.changes).ok_or_else(bail))
        .ok()?;
    let header = (tick, base_tick, last_seq, input_buffer, flags, check);
    read_tail(&mut r, header, out).ok()
}

/// `PackedChanges` read into staged changes (see [`decode_fast`]): the count, checked against
/// the bits left as the generated reader checks it (at least 9 bits a change) before anything
/// is reserved, then each change.
fn read_changes_fast(b: &mut BitReader<'_>, out: &mut Vec<StagedChange>) -> Option<()> {
    let count = b.uint(16).ok()?;
    let n = b.count(count, 9, b.bit_pos()).ok()?;
    out.clear();
    out.reserve(n);
    let mut prev = None;
    for _ in 0..n {
        out.push(StagedChange::NONE);
        read_change_fast(b, &mut prev, out.last_mut()?)?;
    }
    Some(())
}

/// Kind 6's mask bits of kind 12's six (`unpack_mask`): the four groups in the same bits,
/// POSE_FULL and POSE_AGE from bits 4 and 5 to 14 and 15.
#[inline(always)]
fn wide_mask(m: u8) -> u16 {
    u16::from(m & 0xf) | u16::from(m & 0x30) << 10
}

/// A `PackedPoseStep` axis (`zbucket(0, 7, 8, 9, 16)`) within kind 6's i16.
#[inline(always)]
fn step(b: &mut BitReader<'_>) -> Option<i32> {
    let v = b.zbucket(&[0, 7, 8, 9, 16]).ok()?;
    i16::try_from(v).ok().map(i32::from)
}

/// One `PackedChange` staged (into `c`, which comes in as `StagedChange::NONE`), after the
/// change of id `prev`: `None` where the generated reader or [`stage_packed`] would refuse it
/// (an id gap of 0 after the first, a mask bit without the POSE it requires, the input ending,
/// a value past kind 6's ranges, an orientation `quat(9)` refuses), and where it would not
/// (every other code is a value, read as the generated reader reads it).
#[inline(always)]
fn read_change_fast(
    b: &mut BitReader<'_>,
    prev: &mut Option<u16>,
    c: &mut StagedChange,
) -> Option<()> {
    use super::reference::{HEALTH, ORIENT, POSE, POSE_AGE, POSE_FULL, VEHICLE};
    let gap = b.bucket(&[2, 3, 4, 5, 16]).ok()?;
    let eid = match *prev {
        None => gap,
        Some(_) if gap == 0 => return None,
        Some(p) => u64::from(p).checked_add(gap)?,
    };
    // Past a u16 the schema refuses the id (the generated reader's 65,595 is larger).
    let eid = u16::try_from(eid).ok()?;
    *prev = Some(eid);
    let m = b.uint(6).ok()? as u8;
    // PackedMask: POSE_FULL and POSE_AGE require POSE.
    if m & 0x30 != 0 && m & 1 == 0 {
        return None;
    }
    let mask = wide_mask(m);
    (c.eid, c.mask) = (eid, mask);
    let has = |bits: u16| mask & bits == bits;
    if has(POSE_AGE) {
        c.age = u8::try_from(b.bucket(&[2, 3, 4, 8]).ok()?).ok()?;
    }
    if has(POSE | POSE_FULL) {
        let p = PackedPoseFull::read_bits(b).ok()?;
        c.pose = [p.x, p.y, p.z].map(|v| v.to_bits() as i32);
        c.yaw = super::reference::round_u16(p.yaw / super::reference::YAW_FULL);
    } else if has(POSE) {
        c.pose = [step(b)?, step(b)?, step(b)?];
        c.yaw = u16::from(u8::try_from(b.bucket(&[0, 8]).ok()?).ok()?);
    }
    if has(HEALTH) {
        let v = b.uint(16).ok()?;
        (c.hp, c.armor) = (v as u8, (v >> 8) as u8);
    }
    if has(VEHICLE) {
        let v = b.uint(24).ok()?;
        (c.vehicle, c.seat) = (v as u16, (v >> 16) as u8);
    }
    if has(ORIENT) {
        // `quat(9)`: its 29 bits as one read, least significant first (`largest`, then the
        // three components), which are the staged orientation's bits (`slot::pack`).
        let v = b.uint(29).ok()? as u32;
        if !super::reference::orientation_ok(v) {
            return None;
        }
        c.orient = v;
    }
    Some(())
}

impl AckedSchema for PackedReference {
    type Record = EntityState;
    type Change = Change;
    type Event = Event;

    const FRAME_NAME: &'static str = "acked_packed";

    #[inline]
    fn diff(
        eid: u16,
        base: Option<&EntityState>,
        next: &EntityState,
        tick: u32,
    ) -> Result<Option<Change>, EncodeError> {
        Reference::diff(eid, base, next, tick)
    }

    #[inline]
    fn change_eid(change: &Change) -> u16 {
        change.eid
    }

    #[inline]
    fn apply(
        base: Option<&EntityState>,
        change: &Change,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        Reference::apply(base, change, tick)
    }

    #[inline]
    fn write_record(record: &EntityState, out: &mut Vec<u8>) {
        Reference::write_record(record, out)
    }

    #[inline]
    fn measured(record: &EntityState) -> Option<u32> {
        Reference::measured(record)
    }

    #[inline]
    fn pose_full(record: &EntityState) -> Option<bool> {
        Reference::pose_full(record)
    }

    fn encode_frame(frame: &FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        pack_frame(frame)?.write(out)
    }

    fn decode_frame(bytes: &[u8]) -> Result<FrameOf<Self>, DecodeError> {
        let mut r = Reader::new(bytes);
        let f = AckedPacked::read(&mut r)?;
        r.finish()?;
        unpack_frame(f)
    }

    type Staged = StagedChange;
    type Slot = super::RecordSlot;

    #[inline]
    fn stage(change: &Change) -> StagedChange {
        Reference::stage(change)
    }

    #[inline]
    fn staged_eid(staged: &StagedChange) -> u16 {
        staged.eid()
    }

    #[inline]
    fn apply_staged(
        base: Option<&EntityState>,
        staged: &StagedChange,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        Reference::apply_staged(base, staged, tick)
    }

    /// The generated `AckedPacked::decode_into` into the thread's kind 12 scratch frame, then
    /// converted into `out`'s lists, each change staged as kind 6's: [`Self::decode_frame`]'s
    /// frame (staged) or error, and once warm no allocation (issue 19: kind 12's decode within
    /// 1.5 times kind 6's).
    fn decode_staged(bytes: &[u8], out: &mut StagedFrame<Self>) -> Result<(), DecodeError> {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => decode_with(bytes, &mut scratch, out),
            // Only a decode nested inside another on the same thread finds it taken (none
            // does today): it reads into a scratch of its own rather than fail or panic.
            Err(_) => decode_with(bytes, &mut empty_packed(), out),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Acked, Blast, Orientation, PoseFull, Shot};
    use crate::rt::{Frame, SmallestThree};
    use proptest::prelude::*;

    /// A change of `eid` from raw draws: a mask of the six named bits (POSE forced when a
    /// POSE bit needs it) and each group's values across their whole ranges.
    fn change(eid: u16, bits: u8, raw: [u64; 4], full: [u32; 3], q: [f32; 4]) -> Change {
        let mut mask = ChangeMask::empty();
        for (i, (wide, _)) in MASK_BITS.iter().enumerate() {
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
            Reference::encode_frame(&f, &mut six).unwrap();
            // The frame as kind 6 decodes it (the canonical values of its floats).
            let f = Reference::decode_frame(&six).unwrap();
            let mut twelve = Vec::new();
            PackedReference::encode_frame(&f, &mut twelve).unwrap();
            let back = PackedReference::decode_frame(&twelve).unwrap();
            prop_assert_eq!(&back, &f);
            let mut six_again = Vec::new();
            Reference::encode_frame(&back, &mut six_again).unwrap();
            prop_assert_eq!(six_again, six);
            // The generated kind 12 codec agrees with the schema's conversion.
            prop_assert_eq!(pack_frame(&f).unwrap().to_bytes().unwrap(), twelve.clone());
            prop_assert_eq!(unpack_frame(AckedPacked::decode(&twelve).unwrap()).unwrap(), f);
        }

        /// Kind 12 to kind 6 and back is the identity on every kind 12 frame the schema
        /// accepts: arbitrary bytes that decode as kind 12 re-encode, through kind 6, to
        /// themselves.
        #[test]
        fn every_kind_12_frame_has_its_kind_6_frame(f in frames(), flip in any::<(usize, u8)>()) {
            let mut twelve = Vec::new();
            PackedReference::encode_frame(&f, &mut twelve).unwrap();
            // A byte changed: most such inputs are refused; those accepted must round-trip.
            let i = flip.0 % twelve.len();
            twelve[i] ^= flip.1;
            if let Ok(g) = PackedReference::decode_frame(&twelve) {
                let mut six = Vec::new();
                Reference::encode_frame(&g, &mut six).unwrap();
                let h = Reference::decode_frame(&six).unwrap();
                prop_assert_eq!(&h, &g);
                let mut again = Vec::new();
                PackedReference::encode_frame(&h, &mut again).unwrap();
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
            PackedReference::encode_frame(&f, &mut twelve).unwrap();
            PackedReference::encode_frame(&g, &mut other).unwrap();
            let mut out =
                crate::acked::staged::<PackedReference>(&PackedReference::decode_frame(&other).unwrap());
            let i = flip.0 % twelve.len();
            if cut {
                twelve.truncate(i);
            } else {
                twelve[i] ^= flip.1;
            }
            let want = PackedReference::decode_frame(&twelve);
            let want = want.map(|f| crate::acked::staged::<PackedReference>(&f));
            let got = PackedReference::decode_staged(&twelve, &mut out).map(|()| out.clone());
            prop_assert_eq!(got, want);
        }

        /// Every kind 12 frame of a kind 6 frame (every change within kind 6's ranges) is read
        /// by `decode_fast`, to `decode_frame`'s frame: the generated reader is only the
        /// fallback. (That `decode_fast` refuses what the generated reader refuses is
        /// `decoding_into_a_used_frame_is_decoding`'s, through `decode_staged`.)
        #[test]
        fn valid_frames_take_the_fast_read(f in frames()) {
            let mut twelve = Vec::new();
            PackedReference::encode_frame(&f, &mut twelve).unwrap();
            let want = crate::acked::staged::<PackedReference>(
                &PackedReference::decode_frame(&twelve).unwrap(),
            );
            let mut out = AckedFrame::empty();
            prop_assert!(decode_fast(&twelve, &mut out).is_some());
            prop_assert_eq!(out, want);
        }
    }

    /// `wide_mask` is `unpack_mask` for every six bits.
    #[test]
    fn wide_mask_is_unpack_mask() {
        for m in 0..64u8 {
            assert_eq!(
                wide_mask(m),
                unpack_mask(PackedMask::from_bits(m)).bits(),
                "{m:#b}"
            );
        }
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
            let e = PackedReference::encode_frame(&f, &mut Vec::new()).unwrap_err();
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
            pose_step: Some(PackedPoseStep {
                dx,
                dy: 0,
                dz: 0,
                yaw,
            }),
            ..plain(1)
        };
        let aged = PackedChange {
            mask: PackedMask::empty()
                .with(PackedMask::POSE)
                .with(PackedMask::POSE_AGE),
            age: Some(256),
            pose_step: Some(PackedPoseStep {
                dx: 0,
                dy: 0,
                dz: 0,
                yaw: 0,
            }),
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
            let e = PackedReference::decode_frame(&bytes).unwrap_err();
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
        Reference::encode_frame(&f, &mut six).unwrap();
        PackedReference::encode_frame(&f, &mut twelve).unwrap();
        // Kind 6: 19 header + 4 eid and mask + 7 step + 4 orientation + 1 event count.
        assert_eq!(six.len(), 35);
        // Kind 12: 17 header + (16 count + 5 eid + 6 mask + 9 + 9 + 1 + 1 steps and yaw + 29
        // orientation = 76 bits: 10 bytes) + 1 event count.
        assert_eq!(twelve.len(), 28);
        let _ = Acked::decode(&six).unwrap();
    }
}
