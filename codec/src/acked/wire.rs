//! What the bindings generated from a `state` (spec/LANGUAGE.md, "Replicated state") call:
//! the parts of an acked frame that are ACK-2's and the same for every schema (the header,
//! the removed ids, the events and the frame's end, read into an [`AckedFrame`]), and the
//! arithmetic every group's fields share (a float's whole units, a quantized value's steps).
//! The generated code spells out each schema's own fields; the rules every schema follows live
//! here once.

use super::AckedFrame;
use crate::rt::Reader;
use crate::{DecodeError, EncodeError, ErrorKind};

/// The removed ids of an acked frame (kind 6's or kind 12's, the same field), `count` of them,
/// into `out`, checked against the bytes left (2 an id) before anything is kept.
#[inline(always)]
pub fn read_removed(r: &mut Reader<'_>, count: u16, out: &mut Vec<u16>) -> Result<(), DecodeError> {
    let n = r
        .count(u64::from(count), 2, r.pos())
        .map_err(|e| e.field("removed"))?;
    out.clear();
    for i in 0..n {
        out.push(r.u16().map_err(|e| e.index(i).field("removed"))?);
    }
    Ok(())
}

/// A decoded frame's header: the fields of ACK-2's header that an [`AckedFrame`] keeps, beside
/// its lists (every acked frame's header is ACK-2's, field for field).
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// `tick`.
    pub tick: u32,
    /// `base_tick`.
    pub base_tick: u32,
    /// `last_seq`.
    pub last_seq: u32,
    /// `input_buffer`.
    pub input_buffer: u8,
    /// The flags' KEYFRAME bit.
    pub keyframe: bool,
    /// `check`, present with the flags' CHECK bit.
    pub check: Option<u32>,
    /// `first_serial`, present with any event.
    pub first_serial: Option<u32>,
}

impl Header {
    /// The header into `out`, its lists left to the caller.
    ///
    /// ACK-4: flags bit 0, KEYFRAME, means the frame applies onto nothing (base_tick is then
    /// 0): a keyframe naming a base is `invalid_condition` at byte 5 (every acked
    /// frame's base_tick starts there), `base_tick`, refused before `out` is touched.
    #[inline(always)]
    pub fn into_frame<C, E>(self, out: &mut AckedFrame<C, E>) -> Result<(), DecodeError> {
        if self.keyframe && self.base_tick != 0 {
            return Err(DecodeError::new(ErrorKind::InvalidCondition, 5).field("base_tick"));
        }
        out.tick = self.tick;
        out.base_tick = self.base_tick;
        out.last_seq = self.last_seq;
        out.input_buffer = self.input_buffer;
        out.keyframe = self.keyframe;
        out.check = self.check;
        out.first_serial = self.first_serial.unwrap_or(0);
        Ok(())
    }
}

/// What follows an acked frame's changes (the same fields in every acked frame): the event
/// count, the first serial, the events (checked against the bytes left, `least` bytes an
/// event, each read by `event`), then the frame's end; then `header` (with the first serial)
/// kept through [`Header::into_frame`].
#[inline(always)]
pub fn read_tail<C, E>(
    r: &mut Reader<'_>,
    mut header: Header,
    least: u64,
    event: impl Fn(&mut Reader<'_>) -> Result<E, DecodeError>,
    out: &mut AckedFrame<C, E>,
) -> Result<(), DecodeError> {
    let event_count = r.u8().map_err(|e| e.field("event_count"))?;
    header.first_serial = if event_count > 0 {
        Some(r.u32().map_err(|e| e.field("first_serial"))?)
    } else {
        None
    };
    let n = r
        .count(u64::from(event_count), least, r.pos())
        .map_err(|e| e.field("events"))?;
    out.events.clear();
    for i in 0..n {
        out.events
            .push(event(r).map_err(|e| e.index(i).field("events"))?);
    }
    r.finish()?;
    header.into_frame(out)
}

/// An encode error of kind `over_width` at `field`: a value the wire cannot carry.
#[cold]
pub fn over(field: &'static str) -> EncodeError {
    EncodeError::new(ErrorKind::OverWidth).field(field)
}

/// An encode error of kind `invalid_condition` at `field`: a record whose flags and optional
/// groups disagree, or that drops an optional group its base had.
#[cold]
pub fn invalid(field: &'static str) -> EncodeError {
    EncodeError::new(ErrorKind::InvalidCondition).field(field)
}

/// The whole number of units `per_unit` that the float `v` is (a field carried as its value,
/// `v * per_unit` its integer, `per_unit` a power of two), when it is one below `limit` in
/// magnitude: `None` for a value off the grid, past the limit or not finite.
///
/// Within `limit` (at most 2^53) a product is a whole number exactly when it survives the trip
/// through an `i64`: the same test as `fract() != 0.0`, without the libm call that `fract` is
/// on the baseline x86-64 target (every full pose pays it).
#[inline(always)]
pub fn whole_units(v: f64, per_unit: f64, limit: f64) -> Option<i64> {
    let s = v * per_unit;
    if !s.is_finite() || s.abs() >= limit || (s as i64) as f64 != s {
        return None;
    }
    Some(s as i64)
}

/// `v.round()`, halves away from zero, with the whole numbers a decoded quantized value gives
/// (an integer times a scale, divided back) taken without `round`'s libm call on the baseline
/// x86-64 target; anything else goes through `round`, so the result is the same for every
/// f64 (a test holds the two to it). A quantized value's integer, as the generated writer
/// quantizes it (then cast, saturating, to the wire's type).
#[inline]
pub fn round(v: f64) -> f64 {
    let whole = v as i64;
    if whole as f64 == v {
        v
    } else {
        v.round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcuts around libm's `round` and `fract` give what those give, on the values a
    /// frame's yaw and pose can take and on the awkward ones.
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
            65535.4,
            65535.5,
            70000.0,
            -70000.5,
            9.007_199_254_740_992e15,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        values.extend((0..=255u32).map(|b| f64::from(b) * (360.0 / 256.0) / (360.0 / 256.0)));
        values.extend((0..=65535u32).map(|b| f64::from(b) * (360.0 / 65536.0) / (360.0 / 65536.0)));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x));
            values.push((x % 200_000) as f64 / 7.0 - 10_000.0);
        }
        for v in values {
            let (a, b) = (round(v), v.round());
            assert!(a == b || (a.is_nan() && b.is_nan()), "{v:e}: {a} {b}");
            assert_eq!(round(v) as u16, v.round() as u16, "{v:e}");
        }
        let limit = 16_777_216.0;
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
            let want = if !s.is_finite() || s.fract() != 0.0 || s.abs() >= limit {
                None
            } else {
                Some(s as i64)
            };
            assert_eq!(whole_units(f64::from(v), 512.0, limit), want, "{v:e}");
        }
    }
}
