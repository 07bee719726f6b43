//! The reference protocol's schema (`spec/protocol/acked.wire`): records are
//! [`EntityState`], changes are [`Change`] with POSE_FULL and POSE_AGE, events are [`Event`].
//!
//! The orientation (ChangeMask::ORIENT, StateFlags::ORIENTED, issue 19) is a group of its own:
//! a smallest-three quaternion is absolute, so a change carries it whole whenever it differs
//! from the base's, never as a step; and a record keeps it for the entity's life once it has
//! one (an apply without the group leaves the base's).

use super::{AckedFrame, AckedSchema, FrameOf, Inapplicable, StagedFrame};
use crate::protocol::{
    Acked, AckedFlags, Change, ChangeMask, EntityState, Event, Health, Orientation, PoseFull,
    PoseStep, StateFlags, Vehicle,
};
use crate::rt::Reader;
use crate::{BitSet, DecodeError, EncodeError, ErrorKind};

/// The box a quantized pose lies in: at most this many 1/512 m steps from the origin on every
/// axis (about 32 m). Any two points of the box are at most 32766 steps apart, so a PoseStep
/// (i16 steps) reaches a quantized pose from any base pose in the box, and from the origin.
/// The server comes full with a far pose outside it (see `EntityState` in `acked.wire`).
pub const POSE_REACH: i32 = 16383;

/// Steps of 1/512 m an f32 holds exactly, all of them: 2^24.
const F32_EXACT: f64 = 16_777_216.0;
/// PoseFull's yaw steps (`quant(u16, 360/65536)`), in degrees.
pub(super) const YAW_FULL: f64 = 360.0 / 65536.0;
const YAW_STEP: f64 = 360.0 / 256.0;

/// A kind 6 change as the [`AckedDecoder`](super::AckedDecoder) stages it between reading a
/// frame and applying it ([`AckedSchema::Staged`]): the wire's integers in 28 bytes, where the
/// generated [`Change`] takes 88 (each group an `Option`, the quantized yaws as f64). The
/// decoder writes one per change of a frame and reads it back once, applying it
/// ([`Reference::apply_staged`]) with integer arithmetic where [`Reference::apply`] divides
/// the yaw's degrees back into steps.
///
/// A group the mask does not select holds zeros, so that two staged changes are equal exactly
/// when the changes they stage are. [`Reference::stage`] gives it of a [`Change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagedChange {
    /// `eid`.
    pub(super) eid: u16,
    /// `mask`'s bits: which of the fields below mean anything.
    pub(super) mask: u16,
    /// PoseFull's yaw in its 65536 steps a turn, or PoseStep's in its 256.
    pub(super) yaw: u16,
    /// Vehicle's `vehicle`.
    pub(super) vehicle: u16,
    /// PoseFull's x, y and z as the f32's bits, or PoseStep's dx, dy and dz widened.
    pub(super) pose: [i32; 3],
    /// The orientation as the wire has it: `Orientation`'s 29 bits (its `largest`, then its
    /// three 9-bit components), kept so rather than unpacked, as the decoder's slots keep it.
    pub(super) orient: u32,
    /// `age` (0 without POSE_AGE).
    pub(super) age: u8,
    /// Health's `hp`.
    pub(super) hp: u8,
    /// Health's `armor`.
    pub(super) armor: u8,
    /// Vehicle's `seat`.
    pub(super) seat: u8,
}

impl StagedChange {
    /// Nothing selected, every field zero.
    pub(super) const NONE: StagedChange = StagedChange {
        eid: 0,
        mask: 0,
        yaw: 0,
        vehicle: 0,
        pose: [0; 3],
        orient: 0,
        age: 0,
        hp: 0,
        armor: 0,
        seat: 0,
    };

    /// The entity.
    #[inline]
    pub fn eid(&self) -> u16 {
        self.eid
    }

    /// Whether the mask holds all of `bits`.
    #[inline]
    pub(super) fn has(&self, bits: u16) -> bool {
        self.mask & bits == bits
    }
}

/// A mask bit as the mask's u16.
const fn bit(b: crate::rt::Bit<ChangeMask>) -> u16 {
    1 << b.index()
}

pub(super) const POSE: u16 = bit(ChangeMask::POSE);
pub(super) const HEALTH: u16 = bit(ChangeMask::HEALTH);
pub(super) const VEHICLE: u16 = bit(ChangeMask::VEHICLE);
pub(super) const ORIENT: u16 = bit(ChangeMask::ORIENT);
pub(super) const POSE_FULL: u16 = bit(ChangeMask::POSE_FULL);
pub(super) const POSE_AGE: u16 = bit(ChangeMask::POSE_AGE);

/// The byte length of a change with `mask`'s groups, 0 when the mask is not one
/// `Change::read` accepts: acked.wire's ChangeMask names POSE, HEALTH, VEHICLE, ORIENT,
/// POSE_FULL and POSE_AGE, and the last two require POSE.
const fn change_len_rule(mask: u16) -> u8 {
    if mask & !NAMED != 0 || (mask & (POSE_FULL | POSE_AGE) != 0 && mask & POSE == 0) {
        return 0;
    }
    const fn has(mask: u16, b: u16) -> u8 {
        (mask & b != 0) as u8
    }
    // eid and mask; age; PoseFull 14 or PoseStep 7; Health 2; Vehicle 3; Orientation 4.
    let pose = has(mask, POSE) * if mask & POSE_FULL != 0 { 14 } else { 7 };
    4 + has(mask, POSE_AGE)
        + pose
        + 2 * has(mask, HEALTH)
        + 3 * has(mask, VEHICLE)
        + 4 * has(mask, ORIENT)
}

/// Every bit ChangeMask names.
const NAMED: u16 = POSE | HEALTH | VEHICLE | ORIENT | POSE_FULL | POSE_AGE;

// The named bits are 0 to 3, 14 and 15: six bits, which `CHANGE_LENS` is indexed by.
const _: () = assert!(POSE | HEALTH | VEHICLE | ORIENT == 0xf);
const _: () = assert!(POSE_FULL | POSE_AGE == 0xc000);

/// The index in [`CHANGE_LENS`] of a mask of named bits only.
const fn lens_index(mask: u16) -> usize {
    (mask & 0xf) as usize | (mask >> 10 & 0x30) as usize
}

/// [`change_len_rule`] of every mask of named bits only, by [`lens_index`]: a frame's cube
/// changes took 29 instructions each to work their length out from the mask.
const CHANGE_LENS: [u8; 64] = {
    let mut t = [0; 64];
    let mut i = 0;
    while i < 64 {
        let mask = (i & 0xf) as u16 | ((i & 0x30) as u16) << 10;
        t[lens_index(mask)] = change_len_rule(mask);
        i += 1;
    }
    t
};

/// The byte length of a change with `mask`'s groups, when the mask is one `Change::read`
/// accepts ([`change_len_rule`]).
#[inline(always)]
fn change_len(mask: u16) -> Option<usize> {
    if mask & !NAMED != 0 {
        return None;
    }
    match CHANGE_LENS[lens_index(mask)] {
        0 => None,
        n => Some(usize::from(n)),
    }
}

/// The most bytes a change takes: its id and mask, the age, a full pose, health, vehicle and
/// orientation.
const CHANGE_MAX: usize = 4 + 1 + 14 + 2 + 3 + 4;

/// The u16 at `b[i..]`, little endian (0 past the end, which the callers never reach: they
/// read within a length checked first, at offsets the compiler can bound within the array,
/// so that it leaves the check out).
#[inline(always)]
fn le16(b: &[u8; CHANGE_MAX], i: usize) -> u16 {
    b.get(i..i + 2)
        .map_or(0, |v| u16::from_le_bytes([v[0], v[1]]))
}

/// The u32 at `b[i..]`, little endian (0 past the end, as [`le16`]).
#[inline(always)]
fn le32(b: &[u8; CHANGE_MAX], i: usize) -> u32 {
    b.get(i..i + 4)
        .map_or(0, |v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
}

/// A change read at once from the front of `b` and staged into `c`, and its length, when it is
/// whole and valid; `None` for anything else (a mask `Change::read` refuses, a non-finite float, an
/// orientation the quaternion's rules refuse, too few bytes), and the generated `Change::read`
/// then reads it and tells the error where it is. What this accepts `Change::read` accepts as
/// the change this stages (a test holds the two to that, on every prefix and one-byte change of
/// real frames).
///
/// It writes the fields into `c` (which comes in as `StagedChange::NONE`), where the decoder
/// keeps the change, rather than returning a
/// value to be copied there: the copy read the fields back wider than they were written, and
/// the processor's store forwarding stalls on each such read (a profile put two fifths of the
/// decode there).
#[inline(always)]
fn read_staged(b: &[u8], c: &mut StagedChange) -> Option<usize> {
    debug_assert_eq!(*c, StagedChange::NONE, "a change is read into a fresh one");
    let head: [u8; 4] = b.get(..4)?.try_into().ok()?;
    let mask = u16::from_le_bytes([head[2], head[3]]);
    let len = change_len(mask)?;
    if len > b.len() {
        return None;
    }
    // The change's bytes in an array of the largest change's size, read in place where the
    // frame has that many left (every change but a frame's last few), else copied (the bytes
    // past `len` are never read): the offsets below are then bounded by constants, and the
    // compiler leaves out the bounds checks it made on every field of a slice.
    let last;
    let b: &[u8; CHANGE_MAX] = match b.get(..CHANGE_MAX) {
        Some(whole) => whole.try_into().ok()?,
        None => {
            let n = b.len().min(CHANGE_MAX);
            let mut copy = [0; CHANGE_MAX];
            copy[..n].copy_from_slice(b.get(..n)?);
            last = copy;
            &last
        }
    };
    // `c` comes in as `StagedChange::NONE` (every group zero): only what the mask selects is
    // written.
    (c.eid, c.mask) = (u16::from_le_bytes([head[0], head[1]]), mask);
    let mut at = 4;
    if c.has(POSE_AGE) {
        c.age = b[at];
        at += 1;
    }
    if c.has(POSE) {
        if c.has(POSE_FULL) {
            let (x, y, z) = (le32(b, at), le32(b, at + 4), le32(b, at + 8));
            // The generated reader refuses a non-finite f32 (all exponent bits set).
            if [x, y, z].iter().any(|v| v & 0x7f80_0000 == 0x7f80_0000) {
                return None;
            }
            c.pose = [x as i32, y as i32, z as i32];
            c.yaw = le16(b, at + 12);
            at += 14;
        } else {
            c.pose = [
                i32::from(le16(b, at) as i16),
                i32::from(le16(b, at + 2) as i16),
                i32::from(le16(b, at + 4) as i16),
            ];
            c.yaw = u16::from(b[at + 6]);
            at += 7;
        }
    }
    if c.has(HEALTH) {
        (c.hp, c.armor) = (b[at], b[at + 1]);
        at += 2;
    }
    if c.has(VEHICLE) {
        (c.vehicle, c.seat) = (le16(b, at), b[at + 2]);
        at += 3;
    }
    if c.has(ORIENT) {
        // `Orientation`: 29 bits least significant first (largest: u2, then three i9), three
        // zero padding bits; anything else (and any value the quaternion's rules refuse) is
        // left to `Change::read`, which says where and why.
        let v = le32(b, at);
        if !orientation_ok(v) {
            return None;
        }
        c.orient = v;
        at += 4;
    }
    debug_assert_eq!(at, len);
    Some(len)
}

/// Whether `v` is a 4-byte `Orientation` the generated reader accepts: its three padding bits
/// zero and its smallest three (`largest`, then three 9-bit components) within the rules of
/// `SmallestThree::check(9)`: each component within [-255, 255] (the raw -256 is over width)
/// and the dropped component the largest, the lowest index winning a tie. In i32 and without a
/// branch (a cube frame's changes nearly all carry one); a test holds it to `check`.
///
/// Each component's own bound needs no test of its own: `a + tie(0) <= d` is
/// `2a + b + c + tie(0) <= 2 * 255^2`, so `a <= 255^2` with `b` and `c` squares; the raw -256
/// (256^2) fails it.
#[inline(always)]
pub(super) fn orientation_ok(v: u32) -> bool {
    const R2: i32 = 255 * 255;
    // The component at bit `at`, sign-extended from 9 bits (its top bit moved to bit 31 and
    // shifted back), squared: at most 256^2, which only the raw -256 reaches.
    let sq = |at: u32| {
        let c = ((v << (23 - at)) as i32) >> 23;
        c * c
    };
    let (a, b, c) = (sq(2), sq(11), sq(20));
    let d = 2 * R2 - (a + b + c);
    let largest = v & 3;
    let tie = |i: u32| i32::from(i < largest);
    (v >> 29 == 0) & (a + tie(0) <= d) & (b + tie(1) <= d) & (c + tie(2) <= d)
}

/// A change of `eid` with no group: what `diff` fills in, and what kind 12's conversion
/// overwrites.
pub(super) fn no_change(eid: u16) -> Change {
    Change {
        eid,
        mask: ChangeMask::empty(),
        age: None,
        pose_full: None,
        pose_step: None,
        health: None,
        vehicle: None,
        orient: None,
    }
}

/// The reference protocol's acked schema.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

#[inline(always)]
fn in_box(r: &EntityState) -> bool {
    in_reach(r.x, r.y, r.z)
}

/// Whether a pose lies in the box ([`POSE_REACH`]).
#[inline(always)]
pub(super) fn in_reach(x: i32, y: i32, z: i32) -> bool {
    let reach = POSE_REACH.unsigned_abs();
    x.unsigned_abs() <= reach && y.unsigned_abs() <= reach && z.unsigned_abs() <= reach
}

/// The point a PoseStep counts from: the base's pose when the base holds the entity (same life)
/// and its pose lies in the box, the origin otherwise. Both sides decide it from the base alone.
#[inline(always)]
fn step_origin(base: Option<&EntityState>) -> (i32, i32, i32) {
    match base {
        Some(b) if in_box(b) => (b.x, b.y, b.z),
        _ => (0, 0, 0),
    }
}

/// What the pose group says of a record: its position, heading, tier (POSE_FULL alone, not the
/// ORIENTED bit, which is the orientation group's) and measurement tick.
fn pose_of(r: &EntityState) -> (i32, i32, i32, u16, bool, u32) {
    (
        r.x,
        r.y,
        r.z,
        r.yaw,
        r.flags.contains(StateFlags::POSE_FULL),
        r.measured,
    )
}

pub(super) fn grid(v: f32) -> Result<i32, Inapplicable> {
    let s = f64::from(v) * 512.0;
    // Within +-2^24 (checked first) a step is a whole number exactly when it survives the
    // trip through an i32: the same test as `fract() != 0.0`, without the libm call that
    // `fract` is on the baseline x86-64 target (every change with a full pose pays it).
    if !s.is_finite() || s.abs() >= F32_EXACT || f64::from(s as i32) != s {
        return Err(Inapplicable("a full pose off the 1/512 m grid"));
    }
    Ok(s as i32)
}

/// `v.round() as u16`, with the whole numbers every yaw read from the wire gives (a u8 or u16
/// of steps times a power-of-two fraction of a turn, divided back exactly) taken without
/// `round`'s libm call on the baseline x86-64 target; anything else goes through `round`, so
/// the result is the same for every f64 (a test holds the two to it).
#[inline]
pub(super) fn round_u16(v: f64) -> u16 {
    let whole = v as i32;
    if f64::from(whole) == v {
        // Saturating, as `as u16` of the rounded f64 is.
        whole.clamp(0, i32::from(u16::MAX)) as u16
    } else {
        v.round() as u16
    }
}

/// The removed ids of an acked frame (kind 6's or kind 12's, the same field), `count` of them,
/// into `out`, checked against the bytes left (2 an id) before anything is kept.
#[inline(always)]
pub(super) fn read_removed(
    r: &mut Reader<'_>,
    count: u16,
    out: &mut Vec<u16>,
) -> Result<(), DecodeError> {
    let n = r
        .count(u64::from(count), 2, r.pos())
        .map_err(|e| e.field("removed"))?;
    out.clear();
    for i in 0..n {
        out.push(r.u16().map_err(|e| e.index(i).field("removed"))?);
    }
    Ok(())
}

/// The header fields read before an acked frame's lists: tick, base_tick, last_seq,
/// input_buffer, flags and check.
pub(super) type HeaderFields = (u32, u32, u32, u8, AckedFlags, Option<u32>);

/// What follows an acked frame's changes (kind 6's or kind 12's, the same fields): the events
/// (checked against the bytes left, 6 an event), then the frame's end; then the header kept
/// with [`Header::into_frame`].
#[inline(always)]
pub(super) fn read_tail<C>(
    r: &mut Reader<'_>,
    header: HeaderFields,
    out: &mut AckedFrame<C, Event>,
) -> Result<(), DecodeError> {
    let event_count = r.u8().map_err(|e| e.field("event_count"))?;
    let first_serial = if event_count > 0 {
        Some(r.u32().map_err(|e| e.field("first_serial"))?)
    } else {
        None
    };
    let n = r
        .count(u64::from(event_count), 6, r.pos())
        .map_err(|e| e.field("events"))?;
    out.events.clear();
    for i in 0..n {
        out.events
            .push(Event::read(r).map_err(|e| e.index(i).field("events"))?);
    }
    r.finish()?;
    let (tick, base_tick, last_seq, input_buffer, flags, check) = header;
    Header {
        tick,
        base_tick,
        last_seq,
        input_buffer,
        flags,
        check,
        first_serial,
    }
    .into_frame(out)
}

/// A decoded frame's header: the fields of kind 6's (and kind 12's: its header is kind 6's field
/// for field) that its [`AckedFrame`] keeps, beside the lists. Kind 6's `decode_staged`
/// and kind 12's `unpack_into` both keep theirs through [`Header::into_frame`].
pub(super) struct Header {
    /// `tick`.
    pub(super) tick: u32,
    /// `base_tick`.
    pub(super) base_tick: u32,
    /// `last_seq`.
    pub(super) last_seq: u32,
    /// `input_buffer`.
    pub(super) input_buffer: u8,
    /// `flags` (KEYFRAME, CHECK).
    pub(super) flags: AckedFlags,
    /// `check`, present with CHECK.
    pub(super) check: Option<u32>,
    /// `first_serial`, present with any event.
    pub(super) first_serial: Option<u32>,
}

impl Header {
    /// The header into `out`, its lists left to the caller.
    ///
    /// DESIGN.md section 3: "flags bit 0 KEYFRAME: the frame applies onto nothing (base_tick
    /// is then 0)": a keyframe naming a base is `invalid_condition` at byte 5 (both kinds'
    /// base_tick starts there), `base_tick`, refused before `out` is touched.
    pub(super) fn into_frame<C>(self, out: &mut AckedFrame<C, Event>) -> Result<(), DecodeError> {
        let keyframe = self.flags.contains(AckedFlags::KEYFRAME);
        if keyframe && self.base_tick != 0 {
            return Err(DecodeError::new(ErrorKind::InvalidCondition, 5).field("base_tick"));
        }
        out.tick = self.tick;
        out.base_tick = self.base_tick;
        out.last_seq = self.last_seq;
        out.input_buffer = self.input_buffer;
        out.keyframe = keyframe;
        out.check = self.check;
        out.first_serial = self.first_serial.unwrap_or(0);
        Ok(())
    }
}

fn over(field: &'static str) -> EncodeError {
    EncodeError::new(ErrorKind::OverWidth).field(field)
}

impl AckedSchema for Reference {
    type Record = EntityState;
    type Change = Change;
    type Event = Event;

    /// Seed 000: "Whether an entity's pose is full or quantized travels with each change
    /// (POSE_FULL), since the base can be any recent frame, and a pose measured in a frame that
    /// was lost travels with its age (POSE_AGE: the ticks between its measurement and the
    /// frame), so the client records it at the tick it was true."
    fn diff(
        eid: u16,
        base: Option<&EntityState>,
        next: &EntityState,
        tick: u32,
    ) -> Result<Option<Change>, EncodeError> {
        let pose = base.is_none_or(|b| pose_of(b) != pose_of(next));
        let health = base.is_none_or(|b| (b.hp, b.armor) != (next.hp, next.armor));
        let vehicle = base.is_none_or(|b| (b.vehicle, b.seat) != (next.vehicle, next.seat));
        let oriented = next.flags.contains(StateFlags::ORIENTED);
        if oriented != next.orient.is_some() {
            // A record whose ORIENTED bit and orientation disagree: the writer of EntityState
            // refuses it too (its condition is `flags.ORIENTED`).
            return Err(EncodeError::new(ErrorKind::InvalidCondition).field("orient"));
        }
        // Once an entity has an orientation it keeps it for its life: a change can send a new
        // one but cannot take one away (no group says "none"), so a record that drops the
        // base's orientation is refused rather than sent as a change the client would apply
        // keeping the old one (its check would then differ from the server's).
        if base.is_some_and(|b| b.orient.is_some()) && next.orient.is_none() {
            return Err(EncodeError::new(ErrorKind::InvalidCondition).field("orient"));
        }
        // Smallest three is absolute: the group goes whole whenever it differs from the base's
        // (and with every whole entity that has one).
        let orient = next.orient.is_some() && base.is_none_or(|b| b.orient != next.orient);
        if !pose && !health && !vehicle && !orient {
            return Ok(None);
        }
        let mut change = no_change(eid);
        if pose {
            change.mask.set(ChangeMask::POSE, true);
            let age = tick.checked_sub(next.measured).ok_or_else(|| over("age"))?;
            if age > 0 {
                change.mask.set(ChangeMask::POSE_AGE, true);
                change.age = Some(u8::try_from(age).map_err(|_| over("age"))?);
            }
            if next.flags.contains(StateFlags::POSE_FULL) {
                change.mask.set(ChangeMask::POSE_FULL, true);
                for v in [next.x, next.y, next.z] {
                    if f64::from(v).abs() >= F32_EXACT {
                        return Err(over("pose_full"));
                    }
                }
                change.pose_full = Some(PoseFull {
                    x: next.x as f32 / 512.0,
                    y: next.y as f32 / 512.0,
                    z: next.z as f32 / 512.0,
                    yaw: f64::from(next.yaw) * YAW_FULL,
                });
            } else {
                let (ox, oy, oz) = step_origin(base);
                let d = |to: i32, from: i32| {
                    i16::try_from(i64::from(to) - i64::from(from)).map_err(|_| over("pose_step"))
                };
                if next.yaw & 0xff != 0 {
                    return Err(over("pose_step.yaw"));
                }
                change.pose_step = Some(PoseStep {
                    dx: d(next.x, ox)?,
                    dy: d(next.y, oy)?,
                    dz: d(next.z, oz)?,
                    yaw: f64::from(next.yaw >> 8) * YAW_STEP,
                });
            }
        }
        if health {
            change.mask.set(ChangeMask::HEALTH, true);
            change.health = Some(Health {
                hp: next.hp,
                armor: next.armor,
            });
        }
        if vehicle {
            change.mask.set(ChangeMask::VEHICLE, true);
            change.vehicle = Some(Vehicle {
                vehicle: next.vehicle,
                seat: next.seat,
            });
        }
        if orient {
            change.mask.set(ChangeMask::ORIENT, true);
            change.orient = next.orient;
        }
        Ok(Some(change))
    }

    #[inline]
    fn change_eid(change: &Change) -> u16 {
        change.eid
    }

    /// Seed 000: "a pose measured in a frame that was lost travels with its age ... so the
    /// client records it at the tick it was true": the record's `measured` is the frame's tick
    /// minus the age. The change's groups are those its mask selects, as every change a frame
    /// carries holds them; applied through its staged form, so that the decoder's
    /// [`Self::apply_staged`] and this are one rule.
    #[inline]
    fn apply(
        base: Option<&EntityState>,
        change: &Change,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        Self::apply_staged(base, &Self::stage(change), tick)
    }

    type Staged = StagedChange;
    type Slot = super::RecordSlot;

    /// The change's groups as its mask selects them, the yaws back in their steps as the
    /// generated writer quantizes them (`round`, saturating).
    fn stage(change: &Change) -> StagedChange {
        let mut s = StagedChange {
            eid: change.eid,
            mask: change.mask.bits(),
            ..StagedChange::NONE
        };
        if s.has(POSE_AGE) {
            s.age = change.age.unwrap_or(0);
        }
        match (&change.pose_full, &change.pose_step) {
            (Some(p), _) if s.has(POSE | POSE_FULL) => {
                s.pose = [p.x, p.y, p.z].map(|v| v.to_bits() as i32);
                s.yaw = round_u16(p.yaw / YAW_FULL);
            }
            (_, Some(p)) if s.has(POSE) && !s.has(POSE_FULL) => {
                s.pose = [p.dx, p.dy, p.dz].map(i32::from);
                s.yaw = round_u16(p.yaw / YAW_STEP);
            }
            _ => {}
        }
        if let (true, Some(h)) = (s.has(HEALTH), &change.health) {
            (s.hp, s.armor) = (h.hp, h.armor);
        }
        if let (true, Some(v)) = (s.has(VEHICLE), &change.vehicle) {
            (s.vehicle, s.seat) = (v.vehicle, v.seat);
        }
        if let (true, Some(o)) = (s.has(ORIENT), &change.orient) {
            s.orient = super::slot::pack(&o.q);
        }
        s
    }

    #[inline]
    fn staged_eid(staged: &StagedChange) -> u16 {
        staged.eid
    }

    /// Seed 000's rules for one change, in integers: an entity coming whole brings every group
    /// (the orientation aside: an entity may have none); a full pose lies on the 1/512 m grid;
    /// a PoseStep counts from the base's pose (the origin when it has none in the box); "a
    /// pose measured in a frame that was lost travels with its age (POSE_AGE ...), so the
    /// client records it at the tick it was true": `measured` is the frame's tick minus the
    /// age; an orientation, once had, stays.
    #[inline(always)]
    fn apply_staged(
        base: Option<&EntityState>,
        c: &StagedChange,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        let mut r = match base {
            Some(b) => *b,
            None => {
                if !c.has(POSE | HEALTH | VEHICLE) {
                    return Err(Inapplicable("an entity comes whole without every group"));
                }
                EntityState {
                    x: 0,
                    y: 0,
                    z: 0,
                    yaw: 0,
                    flags: StateFlags::empty(),
                    measured: 0,
                    hp: 0,
                    armor: 0,
                    vehicle: 0,
                    seat: 0,
                    orient: None,
                }
            }
        };
        if c.has(POSE) {
            if c.has(POSE_FULL) {
                let g = |v: i32| grid(f32::from_bits(v as u32));
                r.x = g(c.pose[0])?;
                r.y = g(c.pose[1])?;
                r.z = g(c.pose[2])?;
                r.yaw = c.yaw;
            } else {
                let (ox, oy, oz) = step_origin(base);
                let add = |o: i32, d: i32| {
                    o.checked_add(d)
                        .ok_or(Inapplicable("a pose step past the grid"))
                };
                r.x = add(ox, c.pose[0])?;
                r.y = add(oy, c.pose[1])?;
                r.z = add(oz, c.pose[2])?;
                r.yaw = c.yaw << 8;
            }
            // The tier is the pose's; ORIENTED is the orientation's and stays.
            r.flags.set(StateFlags::POSE_FULL, c.has(POSE_FULL));
            r.measured = tick
                .checked_sub(u32::from(c.age))
                .ok_or(Inapplicable("a pose measured before tick 0"))?;
        }
        if c.has(HEALTH) {
            (r.hp, r.armor) = (c.hp, c.armor);
        }
        if c.has(VEHICLE) {
            (r.vehicle, r.seat) = (c.vehicle, c.seat);
        }
        if c.has(ORIENT) {
            r.orient = Some(Orientation {
                q: super::slot::unpack(c.orient),
            });
            r.flags.set(StateFlags::ORIENTED, true);
        }
        Ok(r)
    }

    /// The generated `EntityState::write`'s 24 bytes (28 with an orientation: its 29 bits
    /// padded to 4 bytes, written by the generated `Orientation::write`), written at once (the
    /// check writes every record of the world every CHECK_EVERY frames); a test holds the two
    /// to the same bytes.
    #[inline]
    fn write_record(record: &EntityState, out: &mut Vec<u8>) {
        let flags = record.flags.bits();
        if flags & !3 != 0 || (flags & 2 != 0) != record.orient.is_some() {
            // Reserved bits no record applied from a frame has: the generated writer refuses
            // them where they are, as it always did.
            let _ = record.write(out);
            return;
        }
        let mut b = [0u8; 24];
        b[0..4].copy_from_slice(&record.x.to_le_bytes());
        b[4..8].copy_from_slice(&record.y.to_le_bytes());
        b[8..12].copy_from_slice(&record.z.to_le_bytes());
        b[12..14].copy_from_slice(&record.yaw.to_le_bytes());
        b[14] = flags;
        b[15..19].copy_from_slice(&record.measured.to_le_bytes());
        b[19] = record.hp;
        b[20] = record.armor;
        b[21..23].copy_from_slice(&record.vehicle.to_le_bytes());
        b[23] = record.seat;
        out.extend_from_slice(&b);
        if let Some(o) = &record.orient {
            // `Orientation`'s 29 bits, least significant first, and three zero padding bits.
            // A record applied from a frame holds a quaternion its decoder accepted; one that
            // breaks the rules goes to the generated writer, which refuses it, as any invalid
            // record is.
            if o.q.check(9).is_ok() {
                let c = |i: usize| u32::from(o.q.rest[i] as u16) & 0x1ff;
                let v = u32::from(o.q.largest) | c(0) << 2 | c(1) << 11 | c(2) << 20;
                out.extend_from_slice(&v.to_le_bytes());
            } else {
                let _ = crate::rt::write_packed(out, |w| o.write_bits(w));
            }
        }
    }

    #[inline]
    fn measured(record: &EntityState) -> Option<u32> {
        Some(record.measured)
    }

    #[inline]
    fn pose_full(record: &EntityState) -> Option<bool> {
        Some(record.flags.contains(StateFlags::POSE_FULL))
    }

    fn encode_frame(frame: &FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut flags = AckedFlags::empty();
        flags.set(AckedFlags::KEYFRAME, frame.keyframe);
        flags.set(AckedFlags::CHECK, frame.check.is_some());
        if frame.events.len() > usize::from(u8::MAX) {
            return Err(over("event_count"));
        }
        Acked {
            tick: frame.tick,
            base_tick: frame.base_tick,
            last_seq: frame.last_seq,
            input_buffer: frame.input_buffer,
            flags,
            check: frame.check,
            removed: frame.removed.clone(),
            changes: frame.changes.clone(),
            first_serial: (!frame.events.is_empty()).then_some(frame.first_serial),
            events: frame.events.clone(),
        }
        .write(out)
    }

    /// The generated `Acked::read` step for step (the same checks, offsets and field paths, a
    /// test holds the two to the same answers), reading the lists into `out`'s buffers and
    /// each change straight into its staged form (`read_staged`; the generated
    /// `Change::read` for anything that one leaves, so that an error is told where it is).
    fn decode_staged(bytes: &[u8], out: &mut StagedFrame<Self>) -> Result<(), DecodeError> {
        let mut r = Reader::new(bytes);
        let at = r.pos();
        if r.u8().map_err(|e| e.field("kind"))? != 6 {
            return Err(DecodeError::new(ErrorKind::BadConstant, at).field("kind"));
        }
        let tick = r.u32().map_err(|e| e.field("tick"))?;
        let base_tick = r.u32().map_err(|e| e.field("base_tick"))?;
        let last_seq = r.u32().map_err(|e| e.field("last_seq"))?;
        let input_buffer = r.u8().map_err(|e| e.field("input_buffer"))?;
        let flags = AckedFlags::read(&mut r).map_err(|e| e.field("flags"))?;
        let removed_count = r.u16().map_err(|e| e.field("removed_count"))?;
        let changed_count = r.u16().map_err(|e| e.field("changed_count"))?;
        let check = if flags.contains(AckedFlags::CHECK) {
            Some(r.u32().map_err(|e| e.field("check"))?)
        } else {
            None
        };
        read_removed(&mut r, removed_count, &mut out.removed)?;
        let n = r
            .count(u64::from(changed_count), 4, r.pos())
            .map_err(|e| e.field("changes"))?;
        // Every change fresh at once (`n` is within the bytes left, 4 a change), then read in
        // place.
        out.changes.clear();
        out.changes.resize(n, StagedChange::NONE);
        // What the fast reader has not read yet: `r` is moved past what it read only when the
        // generated reader takes over, and at the end.
        let mut rest = r.rest();
        for (i, c) in out.changes.iter_mut().enumerate() {
            if let Some(len) = read_staged(rest, c) {
                rest = rest.get(len..).unwrap_or_default();
                continue;
            }
            r.take(r.remaining() - rest.len())?;
            *c = Self::stage(&Change::read(&mut r).map_err(|e| e.index(i).field("changes"))?);
            rest = r.rest();
        }
        r.take(r.remaining() - rest.len())?;
        let header = (tick, base_tick, last_seq, input_buffer, flags, check);
        read_tail(&mut r, header, out)
    }

    fn decode_frame(bytes: &[u8]) -> Result<FrameOf<Self>, DecodeError> {
        let mut r = Reader::new(bytes);
        let f = Acked::read(&mut r)?;
        r.finish()?;
        // DESIGN.md section 3: "flags bit 0 KEYFRAME: the frame applies onto nothing
        // (base_tick is then 0)".
        let keyframe = f.flags.contains(AckedFlags::KEYFRAME);
        if keyframe && f.base_tick != 0 {
            return Err(DecodeError::new(ErrorKind::InvalidCondition, 5).field("base_tick"));
        }
        Ok(AckedFrame {
            tick: f.tick,
            base_tick: f.base_tick,
            last_seq: f.last_seq,
            input_buffer: f.input_buffer,
            keyframe,
            check: f.check,
            removed: f.removed,
            changes: f.changes,
            first_serial: f.first_serial.unwrap_or(0),
            events: f.events,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives the rule's length for every u16 mask, and nothing for the masks the
    /// rule refuses.
    #[test]
    fn the_length_table_is_the_rule() {
        for mask in 0..=u16::MAX {
            let rule = change_len_rule(mask);
            assert_eq!(
                change_len(mask),
                (rule != 0).then_some(usize::from(rule)),
                "{mask:#x}"
            );
        }
    }

    /// `orientation_ok` is the padding and `SmallestThree::check(9)`: every pair of the first
    /// two components at every `largest`, with the third at the edges and around them, then
    /// random words with padding bits too.
    #[test]
    fn orientation_ok_is_the_quaternions_rules() {
        let rules = |v: u32| v >> 29 == 0 && super::super::slot::unpack(v).check(9).is_ok();
        for largest in 0..4u32 {
            for raw2 in [0x100u32, 0x101, 0x14b, 0x1ff, 0, 1, 0x64, 0xb4, 0xb5, 0xff] {
                for raw01 in 0..1u32 << 18 {
                    let v = largest | raw01 << 2 | raw2 << 20;
                    assert_eq!(orientation_ok(v), rules(v), "{v:#x}");
                }
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x as u32;
            assert_eq!(orientation_ok(v), rules(v), "{v:#x}");
            let v = v & 0x1fff_ffff;
            assert_eq!(orientation_ok(v), rules(v), "{v:#x}");
        }
    }

    /// The sizes the staged form's documentation (and the decoder's) give: what a decoder
    /// writes and reads back per change, against the generated change it stands in for.
    #[test]
    fn a_staged_change_is_28_bytes_where_a_change_is_88() {
        assert_eq!(std::mem::size_of::<StagedChange>(), 28);
        assert_eq!(std::mem::size_of::<Change>(), 88);
    }

    /// The shortcuts around libm's `round` and `fract` give what those give, on the values a
    /// frame's yaw and pose can take and on the awkward ones (halves, the largest double below
    /// a half, negatives, values past a u16 and an i32, infinities, NaN).
    #[test]
    fn the_rounding_shortcuts_agree_with_libm() {
        let mut values: Vec<f64> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            65535.0,
            65535.4,
            65535.5,
            65536.0,
            70000.0,
            -1.0,
            -70000.5,
            f64::from(i32::MAX),
            f64::from(i32::MAX) + 0.5,
            f64::from(i32::MIN),
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        // Every yaw a frame carries, turned into degrees and back as `apply` does.
        values.extend((0..=255u32).map(|b| f64::from(b) * YAW_STEP / YAW_STEP));
        values.extend((0..=65535u32).map(|b| f64::from(b) * YAW_FULL / YAW_FULL));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x));
            values.push((x % 200_000) as f64 / 7.0 - 10_000.0);
        }
        for v in values {
            assert_eq!(round_u16(v), v.round() as u16, "{v:e}");
        }
        let mut floats: Vec<f32> = vec![0.0, -0.0, 1.0 / 512.0, 1.0 / 1024.0, 32767.998, 32768.0];
        floats.extend([
            f32::NAN,
            f32::INFINITY,
            f32::MIN,
            f32::MAX,
            -1.0 / 512.0,
            0.1,
        ]);
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            floats.push(f32::from_bits(x as u32));
            floats.push((x % 40_000_000) as f32 / 512.0 - 40_000.0);
        }
        for v in floats {
            let s = f64::from(v) * 512.0;
            let want = if !s.is_finite() || s.fract() != 0.0 || s.abs() >= F32_EXACT {
                None
            } else {
                Some(s as i32)
            };
            assert_eq!(grid(v).ok(), want, "{v:e}");
        }
    }
}
