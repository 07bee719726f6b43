//! The reference protocol's schema (`spec/protocol/acked.wire`): records are
//! [`EntityState`], changes are [`Change`] with POSE_FULL and POSE_AGE, events are [`Event`].
//!
//! The orientation (ChangeMask::ORIENT, StateFlags::ORIENTED, issue 19) is a group of its own:
//! a smallest-three quaternion is absolute, so a change carries it whole whenever it differs
//! from the base's, never as a step; and a record keeps it for the entity's life once it has
//! one (an apply without the group leaves the base's).

use super::{AckedFrame, AckedSchema, FrameOf, Inapplicable};
use crate::protocol::{
    Acked, AckedFlags, Change, ChangeMask, EntityState, Event, Health, Orientation, PoseFull,
    PoseStep, StateFlags, Vehicle,
};
use crate::rt::{Reader, SmallestThree};
use crate::{BitSet, DecodeError, EncodeError, ErrorKind};

/// The box a quantized pose lies in: at most this many 1/512 m steps from the origin on every
/// axis (about 32 m). Any two points of the box are at most 32766 steps apart, so a PoseStep
/// (i16 steps) reaches a quantized pose from any base pose in the box, and from the origin.
/// The server comes full with a far pose outside it (see `EntityState` in `acked.wire`).
pub const POSE_REACH: i32 = 16383;

/// Steps of 1/512 m an f32 holds exactly, all of them: 2^24.
const F32_EXACT: f64 = 16_777_216.0;
const YAW_FULL: f64 = 360.0 / 65536.0;
const YAW_STEP: f64 = 360.0 / 256.0;

/// A change read at once from the front of `b`, and its length, when it is whole and valid;
/// `None` for anything else (a mask `Change::read` refuses, a non-finite float, too few bytes),
/// and the generated `Change::read` then reads it and tells the error where it is. What this
/// accepts `Change::read` accepts as the same change (a test holds the two to that).
#[inline]
fn fast_change(b: &[u8]) -> Option<(Change, usize)> {
    let le16 = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let le32 = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    if b.len() < 4 {
        return None;
    }
    let bits = le16(2);
    // acked.wire's ChangeMask: bits 0 to 3, 14 and 15 named, 14 and 15 requiring 0.
    if bits & !0xc00f != 0 || (bits & 0xc000 != 0 && bits & 1 == 0) {
        return None;
    }
    let mask = ChangeMask::from_bits(bits);
    let aged = mask.contains(ChangeMask::POSE_AGE);
    let pose = mask.contains(ChangeMask::POSE);
    let full = mask.contains(ChangeMask::POSE_FULL);
    let health = mask.contains(ChangeMask::HEALTH);
    let vehicle = mask.contains(ChangeMask::VEHICLE);
    let orient = mask.contains(ChangeMask::ORIENT);
    let len = 4
        + usize::from(aged)
        + if pose {
            if full {
                14
            } else {
                7
            }
        } else {
            0
        }
        + if health { 2 } else { 0 }
        + if vehicle { 3 } else { 0 }
        + if orient { 4 } else { 0 };
    if b.len() < len {
        return None;
    }
    let mut at = 4;
    let mut change = Change {
        eid: le16(0),
        mask,
        age: None,
        pose_full: None,
        pose_step: None,
        health: None,
        vehicle: None,
        orient: None,
    };
    if aged {
        change.age = Some(b[at]);
        at += 1;
    }
    if pose && full {
        let f = |i: usize| f32::from_bits(le32(i));
        let (x, y, z) = (f(at), f(at + 4), f(at + 8));
        if !(x.is_finite() && y.is_finite() && z.is_finite()) {
            return None;
        }
        change.pose_full = Some(PoseFull {
            x,
            y,
            z,
            yaw: f64::from(le16(at + 12)) * (360.0 / 65536.0),
        });
        at += 14;
    } else if pose {
        let d = |i: usize| le16(i) as i16;
        change.pose_step = Some(PoseStep {
            dx: d(at),
            dy: d(at + 2),
            dz: d(at + 4),
            yaw: f64::from(b[at + 6]) * (360.0 / 256.0),
        });
        at += 7;
    }
    if health {
        change.health = Some(Health {
            hp: b[at],
            armor: b[at + 1],
        });
        at += 2;
    }
    if vehicle {
        change.vehicle = Some(Vehicle {
            vehicle: le16(at),
            seat: b[at + 2],
        });
        at += 3;
    }
    if orient {
        // `Orientation`: 29 bits least significant first (largest: u2, then three i9), three
        // zero padding bits; anything else (and any value the quaternion's rules refuse) is
        // left to `Change::read`, which says where and why.
        let v = le32(at);
        let component = |shift: u32| (((v >> shift) & 0x1ff) as i16) << 7 >> 7;
        let q = SmallestThree {
            largest: (v & 3) as u8,
            rest: [component(2), component(11), component(20)],
        };
        if v >> 29 != 0 || q.check(9).is_err() {
            return None;
        }
        change.orient = Some(Orientation { q });
        at += 4;
    }
    debug_assert_eq!(at, len);
    Some((change, len))
}

/// The reference protocol's acked schema.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

fn in_box(r: &EntityState) -> bool {
    [r.x, r.y, r.z]
        .iter()
        .all(|v| i64::from(*v).abs() <= i64::from(POSE_REACH))
}

/// The point a PoseStep counts from: the base's pose when the base holds the entity (same life)
/// and its pose lies in the box, the origin otherwise. Both sides decide it from the base alone.
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

fn grid(v: f32) -> Result<i32, Inapplicable> {
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
fn round_u16(v: f64) -> u16 {
    let whole = v as i32;
    if f64::from(whole) == v {
        // Saturating, as `as u16` of the rounded f64 is.
        whole.clamp(0, i32::from(u16::MAX)) as u16
    } else {
        v.round() as u16
    }
}

/// A decoded frame's header: the fields of kind 6's (and kind 12's: its header is kind 6's field
/// for field) that its [`AckedFrame`] keeps, beside the lists. Kind 6's `decode_frame_into`
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
    pub(super) fn into_frame(self, out: &mut FrameOf<Reference>) -> Result<(), DecodeError> {
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
        let mut change = Change {
            eid,
            mask: ChangeMask::empty(),
            age: None,
            pose_full: None,
            pose_step: None,
            health: None,
            vehicle: None,
            orient: None,
        };
        if pose {
            change.mask.set(ChangeMask::POSE, true);
            let age = tick.checked_sub(next.measured).ok_or(over("age"))?;
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
    /// minus the age.
    #[inline]
    fn apply(
        base: Option<&EntityState>,
        change: &Change,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        let mut r = match base {
            Some(b) => *b,
            None => {
                let whole = [ChangeMask::POSE, ChangeMask::HEALTH, ChangeMask::VEHICLE];
                if !whole.iter().all(|b| change.mask.contains(*b)) {
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
        if let Some(full) = &change.pose_full {
            r.x = grid(full.x)?;
            r.y = grid(full.y)?;
            r.z = grid(full.z)?;
            r.yaw = round_u16(full.yaw / YAW_FULL);
            // The tier is the pose's; ORIENTED is the orientation's and stays.
            r.flags.set(StateFlags::POSE_FULL, true);
        }
        if let Some(step) = &change.pose_step {
            let (ox, oy, oz) = step_origin(base);
            let add = |o: i32, d: i16| {
                o.checked_add(i32::from(d))
                    .ok_or(Inapplicable("a pose step past the grid"))
            };
            r.x = add(ox, step.dx)?;
            r.y = add(oy, step.dy)?;
            r.z = add(oz, step.dz)?;
            r.yaw = round_u16(step.yaw / YAW_STEP) << 8;
            r.flags.set(StateFlags::POSE_FULL, false);
        }
        if change.mask.contains(ChangeMask::POSE) {
            let age = u32::from(change.age.unwrap_or(0));
            r.measured = tick
                .checked_sub(age)
                .ok_or(Inapplicable("a pose measured before tick 0"))?;
        }
        if let Some(h) = &change.health {
            r.hp = h.hp;
            r.armor = h.armor;
        }
        if let Some(v) = &change.vehicle {
            r.vehicle = v.vehicle;
            r.seat = v.seat;
        }
        if let Some(o) = change.orient {
            r.orient = Some(o);
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
    /// test holds the two to the same answers), reading the lists into `out`'s buffers.
    fn decode_frame_into(bytes: &[u8], out: &mut FrameOf<Self>) -> Result<(), DecodeError> {
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
        let n = r
            .count(u64::from(removed_count), 2, r.pos())
            .map_err(|e| e.field("removed"))?;
        out.removed.clear();
        for i in 0..n {
            let eid = r.u16().map_err(|e| e.index(i).field("removed"))?;
            out.removed.push(eid);
        }
        let n = r
            .count(u64::from(changed_count), 4, r.pos())
            .map_err(|e| e.field("changes"))?;
        out.changes.clear();
        for i in 0..n {
            let change = match fast_change(r.rest()) {
                Some((change, len)) => {
                    r.take(len)?;
                    change
                }
                None => Change::read(&mut r).map_err(|e| e.index(i).field("changes"))?,
            };
            out.changes.push(change);
        }
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
            let event = Event::read(&mut r).map_err(|e| e.index(i).field("events"))?;
            out.events.push(event);
        }
        r.finish()?;
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
