//! `quat(B)`: a unit quaternion as smallest three, the model value every language agrees on
//! bit for bit.
//!
//! WIRE-20: on the wire, in the packed bit stream, `largest` as a u2 (0 = x,
//! 1 = y, 2 = z, 3 = w: the component dropped), then the other three components in x, y, z, w
//! order skipping the dropped one, each a two's complement `iB`: `2 + 3B` bits. With
//! `R = 2^(B-1) - 1`, a component is `q * (1/sqrt 2) / R`: the three sent lie within
//! `[-1/sqrt 2, 1/sqrt 2]`, the range the largest component's being dropped allows.
//!
//! The model value is the integers ([`SmallestThree`]), not floats, so that a decoder in any
//! language accepts and refuses the same bytes. The canonical rules are checked in integers
//! ([`SmallestThree::check`]) in this order, each failure at the field's first bit:
//!
//! 1. `largest` is any of 0..=3 (2 bits, always valid on decode; a model value above 3 is
//!    `over_width` on encode).
//! 2. Every `rest[i]` lies in `[-R, R]`; the raw value `-2^(B-1)` is `over_width`.
//! 3. With `S = rest[0]^2 + rest[1]^2 + rest[2]^2` and `D = 2 R^2 - S` (the dropped component
//!    squared, in the same units), each sent component whose index `j` among x, y, z, w is
//!    below `largest` has `rest[i]^2 < D`, one above `largest` has `rest[i]^2 <= D`: the dropped
//!    component is the one of largest magnitude, the lowest index on a tie, and it is made
//!    non-negative, so it is never sent. A failure is `non_canonical`.
//!
//! [`SmallestThree::from_xyzw`] and [`SmallestThree::to_xyzw`] convert from and to floats
//! exactly as LANGUAGE.md says, in f64, so that every language's helpers agree.

use crate::{BitReader, BitWriter, DecodeError, EncodeError, ErrorKind};
use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

/// The least bits of a component `quat(B)` allows.
pub const MIN_BITS: u8 = 2;
/// The most bits of a component `quat(B)` allows (the components are `i16`s).
pub const MAX_BITS: u8 = 16;

/// A unit quaternion as smallest three: the index of the dropped component (the largest in
/// magnitude, made non-negative) and the other three as integers of `B` bits each.
///
/// Its JSON form is `{"largest": 2, "rest": [12, -4, 255]}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmallestThree {
    /// The component dropped: 0 = x, 1 = y, 2 = z, 3 = w.
    pub largest: u8,
    /// The other three in x, y, z, w order, each `component * sqrt 2 * R` rounded.
    pub rest: [i16; 3],
}

impl Default for SmallestThree {
    /// The identity rotation, (0, 0, 0, 1).
    #[inline]
    fn default() -> Self {
        SmallestThree::IDENTITY
    }
}

/// `R = 2^(B-1) - 1`, the largest magnitude of a component sent, for `bits` within 2..=16
/// (clamped there, so that no width makes the arithmetic overflow).
#[inline]
pub fn max_component(bits: u8) -> i64 {
    let b = bits.clamp(MIN_BITS, MAX_BITS);
    (1i64 << (b - 1)) - 1
}

impl SmallestThree {
    /// The identity rotation (0, 0, 0, 1): `w` dropped, the others zero.
    pub const IDENTITY: SmallestThree = SmallestThree {
        largest: 3,
        rest: [0, 0, 0],
    };

    /// The component index (0 = x ... 3 = w) of `rest[i]`.
    #[inline]
    fn index_of(largest: u8, i: usize) -> usize {
        if i < usize::from(largest) {
            i
        } else {
            i + 1
        }
    }

    /// Checks the canonical rules of a `quat(bits)` value, in their order, in integers:
    /// `largest` within 0..=3 and every component within `[-R, R]` (else
    /// [`ErrorKind::OverWidth`]), then the dropped component the largest
    /// ([`ErrorKind::NonCanonical`]): WIRE-20.
    #[inline(always)]
    pub fn check(&self, bits: u8) -> Result<(), ErrorKind> {
        // Rule 1: two bits. Only a model value built by hand can break it.
        if self.largest > 3 {
            return Err(ErrorKind::OverWidth);
        }
        let r = max_component(bits);
        // Rule 2: "the raw value -2^(B-1) is over_width", and nothing past R is sent.
        if self.rest.iter().any(|&c| i64::from(c).abs() > r) {
            return Err(ErrorKind::OverWidth);
        }
        // Rule 3, in i64: R <= 32767, so 2 R^2 and S stay below 2^33. `rest[i]` is component
        // `index_of(largest, i)`, which comes before the dropped one exactly when `i <
        // largest`; such a component must be strictly smaller (the lowest index wins a tie),
        // `sq < d` being `sq + 1 <= d`. Written without branches: the decoders check every
        // orientation they read (a kind 6 cube frame holds about ninety).
        let [a, b, c] = self.rest.map(|v| i64::from(v) * i64::from(v));
        let d = 2 * r * r - (a + b + c);
        let l = self.largest;
        let tie = |i: u8| i64::from(i < l);
        if (a + tie(0) > d) | (b + tie(1) > d) | (c + tie(2) > d) {
            return Err(ErrorKind::NonCanonical);
        }
        Ok(())
    }

    /// The smallest three of the quaternion `q` (x, y, z, w) at `bits` bits a component
    /// (2 to 16; clamped there), exactly as LANGUAGE.md gives it: normalised (a zero or
    /// non-finite norm gives the identity); `largest` the index of the largest magnitude, the
    /// lowest on a tie; all four negated if that one is negative; each other component times
    /// `sqrt 2 * R` (one double) rounded half away from zero and clamped to `[-R, R]`; then,
    /// while rule 3 fails, the failing component of largest magnitude (the lowest index on a
    /// tie) moved one step toward zero. The result always passes [`SmallestThree::check`].
    #[inline]
    pub fn from_xyzw(q: [f32; 4], bits: u8) -> SmallestThree {
        let r = max_component(bits);
        let mut c = q.map(f64::from);
        let norm = c.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            c = [0.0, 0.0, 0.0, 1.0];
        } else {
            c = c.map(|v| v / norm);
        }
        let mut largest = 0usize;
        for j in 1..4 {
            if c[j].abs() > c[largest].abs() {
                largest = j;
            }
        }
        if c[largest] < 0.0 {
            c = c.map(|v| -v);
        }
        let factor = SQRT_2 * r as f64;
        let mut rest = [0i64; 3];
        for (i, slot) in rest.iter_mut().enumerate() {
            let v = crate::round(c[Self::index_of(largest as u8, i)] * factor);
            // A finite value within [-R, R] after the clamp: the cast is exact.
            *slot = (v.clamp(-(r as f64), r as f64)) as i64;
        }
        // Rule 3 may fail by a rounding step where two magnitudes nearly tie; each step
        // toward zero makes it hold for more of them, and all zeros always pass.
        loop {
            let s: i64 = rest.iter().map(|c| c * c).sum();
            let d = 2 * r * r - s;
            let failing = (0..3)
                .filter(|&i| {
                    let sq = rest[i] * rest[i];
                    if Self::index_of(largest as u8, i) < largest {
                        sq >= d
                    } else {
                        sq > d
                    }
                })
                .fold(None::<usize>, |best, i| match best {
                    Some(b) if rest[b].abs() >= rest[i].abs() => Some(b),
                    _ => Some(i),
                });
            match failing {
                Some(i) => rest[i] -= rest[i].signum(),
                None => break,
            }
        }
        SmallestThree {
            largest: largest as u8,
            // Each within [-R, R], R <= 32767.
            rest: rest.map(|v| v as i16),
        }
    }

    /// The quaternion (x, y, z, w) this value stands for at `bits` bits a component: each sent
    /// component `rest[i] * (FRAC_1_SQRT_2 / R)` in f64, the dropped one
    /// `sqrt(max(0, 1 - sum of their squares))`, each then rounded to f32.
    #[inline]
    pub fn to_xyzw(&self, bits: u8) -> [f32; 4] {
        let r = max_component(bits) as f64;
        let unit = FRAC_1_SQRT_2 / r;
        let largest = usize::from(self.largest.min(3));
        let sent = self.rest.map(|v| f64::from(v) * unit);
        let dropped = (1.0 - sent.iter().map(|v| v * v).sum::<f64>())
            .max(0.0)
            .sqrt();
        let mut out = [0f32; 4];
        out[largest] = dropped as f32;
        for (i, v) in sent.iter().enumerate() {
            out[Self::index_of(largest as u8, i)] = *v as f32;
        }
        out
    }

    /// A canonical value from unstructured bytes, for the `arbitrary` impls of generated
    /// types: what [`SmallestThree::from_xyzw`] makes of four arbitrary floats.
    #[cfg(feature = "arbitrary")]
    pub fn arbitrary(u: &mut arbitrary::Unstructured<'_>, bits: u8) -> arbitrary::Result<Self> {
        let q: [f32; 4] = u.arbitrary()?;
        Ok(SmallestThree::from_xyzw(q, bits))
    }
}

impl SmallestThree {
    /// The field's `2 + 3 bits` bits as `quat(bits)` lays them out, least significant first:
    /// `largest`, then the three components (two's complement): what a decoder's slot keeps
    /// of an orientation, and, padded to a byte, what a byte-aligned record holds of a packed
    /// record of one quaternion.
    #[inline(always)]
    pub fn to_word(&self, bits: u8) -> u64 {
        let b = u32::from(bits.clamp(MIN_BITS, MAX_BITS));
        let mask = (1u64 << b) - 1;
        let c = |i: usize| ((self.rest[i] as i64 as u64) & mask) << (2 + i as u32 * b);
        u64::from(self.largest & 3) | c(0) | c(1) | c(2)
    }

    /// [`Self::to_word`] undone (bits above the field's are ignored; nothing is checked).
    #[inline(always)]
    pub fn from_word(word: u64, bits: u8) -> SmallestThree {
        let b = u32::from(bits.clamp(MIN_BITS, MAX_BITS));
        let component = |i: u32| {
            let field = word >> (2 + i * b);
            (((field << (64 - b)) as i64) >> (64 - b)) as i16
        };
        SmallestThree {
            largest: (word & 3) as u8,
            rest: [component(0), component(1), component(2)],
        }
    }

    /// Whether `word` is a `quat(bits)` field the decoder accepts, every bit above its
    /// `2 + 3 bits` zero: [`Self::check`] of [`Self::from_word`], without branches (a cube
    /// frame's changes nearly all carry one).
    #[inline(always)]
    pub fn word_ok(word: u64, bits: u8) -> bool {
        let b = u32::from(bits.clamp(MIN_BITS, MAX_BITS));
        let r = max_component(bits);
        // Each component sign-extended and squared; the raw -2^(B-1) squares past R^2, which
        // rule 3's sum then refuses: `a + tie <= d` is `2a + b + c + tie <= 2 R^2`.
        let sq = |i: u32| {
            let c = ((word >> (2 + i * b)) << (64 - b)) as i64 >> (64 - b);
            c * c
        };
        let (a, bb, c) = (sq(0), sq(1), sq(2));
        let d = 2 * r * r - (a + bb + c);
        let largest = word & 3;
        let tie = |i: u64| i64::from(i < largest);
        (word >> (2 + 3 * b) == 0) & (a + tie(0) <= d) & (bb + tie(1) <= d) & (c + tie(2) <= d)
    }
}

impl BitReader<'_> {
    /// A `quat(bits)` field: `largest` as a u2, then three `i{bits}`, checked by the canonical
    /// rules in their order, a failure at the field's first bit.
    #[inline]
    pub fn quat(&mut self, bits: u8) -> Result<SmallestThree, DecodeError> {
        let at = self.bit_pos();
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(DecodeError::at_bit(ErrorKind::OverWidth, at));
        }
        // The whole field in one read: at most 2 + 48 bits.
        let raw = self.uint(2 + 3 * bits)?;
        let largest = (raw & 0b11) as u8;
        let b = u32::from(bits);
        let mut rest = [0i16; 3];
        for (i, slot) in rest.iter_mut().enumerate() {
            let field = raw >> (2 + i as u32 * b);
            // At most 16 bits, sign-extended: the cast is exact.
            *slot = (((field << (64 - b)) as i64) >> (64 - b)) as i16;
        }
        let v = SmallestThree { largest, rest };
        v.check(bits)
            .map_err(|kind| DecodeError::at_bit(kind, at))?;
        Ok(v)
    }
}

impl BitWriter {
    /// Writes a `quat(bits)` field, refusing a value that breaks the canonical rules
    /// (`over_width`, `non_canonical`): an encoder writes only what the decoder accepts.
    #[inline]
    pub fn quat(&mut self, bits: u8, v: &SmallestThree) -> Result<(), EncodeError> {
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        v.check(bits).map_err(EncodeError::new)?;
        // The whole field in one write, as the reader reads it.
        let b = u32::from(bits);
        let mask = (1u64 << b) - 1;
        let raw = v
            .rest
            .iter()
            .enumerate()
            .fold(u64::from(v.largest), |raw, (i, &c)| {
                raw | ((c as i64 as u64) & mask) << (2 + i as u32 * b)
            });
        self.uint(2 + 3 * bits, raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `word_ok` is `check` of `from_word` with the bits above the field zero, and a word
    /// goes back and forth: every pair of the first two components at every `largest` with the
    /// third at the edges (9 bits, the reference's), then random words at every width.
    #[test]
    fn words_keep_the_rules() {
        let rules = |v: u64, bits: u8| {
            v >> (2 + 3 * u32::from(bits)) == 0
                && SmallestThree::from_word(v, bits).check(bits).is_ok()
        };
        for largest in 0..4u64 {
            for raw2 in [0x100u64, 0x101, 0x14b, 0x1ff, 0, 1, 0x64, 0xb4, 0xb5, 0xff] {
                for raw01 in 0..1u64 << 18 {
                    let v = largest | raw01 << 2 | raw2 << 20;
                    assert_eq!(SmallestThree::word_ok(v, 9), rules(v, 9), "{v:#x}");
                }
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for bits in MIN_BITS..=MAX_BITS {
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let width = 2 + 3 * u32::from(bits);
                for v in [x, x & ((1 << width) - 1)] {
                    assert_eq!(
                        SmallestThree::word_ok(v, bits),
                        rules(v, bits),
                        "{bits}: {v:#x}"
                    );
                    if rules(v, bits) {
                        assert_eq!(SmallestThree::from_word(v, bits).to_word(bits), v);
                    }
                }
            }
        }
    }

    fn decode(bytes: &[u8], bits: u8) -> Result<SmallestThree, DecodeError> {
        BitReader::new(bytes, 0).quat(bits)
    }

    fn encode(v: &SmallestThree, bits: u8) -> Result<Vec<u8>, EncodeError> {
        let mut w = BitWriter::new();
        w.quat(bits, v)?;
        let mut out = Vec::new();
        w.finish(&mut out);
        Ok(out)
    }

    fn s3(largest: u8, rest: [i16; 3]) -> SmallestThree {
        SmallestThree { largest, rest }
    }

    #[test]
    fn the_wire_is_largest_then_three_components_least_significant_bit_first() {
        // WIRE-20.
        let v = s3(2, [12, -4, 200]);
        let bytes = encode(&v, 9).unwrap();
        // 2 + 27 bits: four bytes, the last three bits padding.
        assert_eq!(bytes.len(), 4);
        let raw = u32::from_le_bytes(bytes[..4].try_into().unwrap());
        assert_eq!(raw & 0b11, 2);
        assert_eq!(raw >> 2 & 0x1ff, 12);
        assert_eq!(raw >> 11 & 0x1ff, (-4i32 as u32) & 0x1ff);
        assert_eq!(raw >> 20 & 0x1ff, 200);
        assert_eq!(decode(&bytes, 9), Ok(v));
    }

    #[test]
    fn a_component_at_minus_two_to_the_b_minus_1_is_over_width() {
        // WIRE-20.
        // B = 9: R = 255, the raw -256 is refused, -255 is not.
        let over = s3(3, [-256, 0, 0]);
        assert_eq!(over.check(9), Err(ErrorKind::OverWidth));
        assert_eq!(s3(3, [-254, 0, 0]).check(9), Ok(()));
        // -255 is in range, but ties w's magnitude below it: x should have been dropped.
        assert_eq!(s3(3, [-255, 0, 0]).check(9), Err(ErrorKind::NonCanonical));
        let mut w = BitWriter::new();
        w.uint(2, 3).unwrap();
        w.int(9, -256).unwrap();
        w.int(9, 0).unwrap();
        w.int(9, 0).unwrap();
        let mut bytes = vec![0xaa];
        w.finish(&mut bytes);
        let e = BitReader::new(&bytes[1..], 1).quat(9).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::OverWidth, Some(8)));
        assert_eq!(
            encode(&over, 9).unwrap_err().kind,
            ErrorKind::OverWidth,
            "an encoder refuses it too"
        );
        assert_eq!(s3(4, [0, 0, 0]).check(9), Err(ErrorKind::OverWidth));
    }

    #[test]
    fn the_tie_rule_below_largest_is_strict_and_above_it_is_not() {
        // WIRE-20: the lowest index wins a tie.
        // B = 9, R = 255: 2 R^2 = 130050. x = w = 1/sqrt 2 is x and w at R each.
        // Dropping x (the lowest index on the tie), w above it may equal it.
        assert_eq!(s3(0, [0, 0, 255]).check(9), Ok(()));
        // Dropping w, x below it may not equal it: x should have been dropped.
        assert_eq!(s3(3, [255, 0, 0]).check(9), Err(ErrorKind::NonCanonical));
        // D exactly equal to a square above largest passes; one less fails.
        // rest = [a, b, c] with largest 1 (y): D = 130050 - S.
        // Take x = 0, z = 180, w = 180: S = 64800, D = 65250; 180^2 = 32400 <= D.
        assert_eq!(s3(1, [0, 180, 180]).check(9), Ok(()));
        // x below largest: x^2 must be < D. x = 255, S = 65025 + 0 + 0, D = 65025 = x^2.
        assert_eq!(s3(1, [255, 0, 0]).check(9), Err(ErrorKind::NonCanonical));
        // z above largest with z^2 == D exactly: S = z^2, D = 2R^2 - z^2 = z^2 at z = R.
        assert_eq!(s3(1, [0, 255, 0]).check(9), Ok(()));
        // One past: a component above the dropped one's magnitude.
        assert_eq!(s3(1, [0, 255, 1]).check(9), Err(ErrorKind::NonCanonical));
        // A sum past 2 R^2 leaves no room for the dropped component at all.
        assert_eq!(
            s3(3, [255, 255, 255]).check(9),
            Err(ErrorKind::NonCanonical)
        );
        let e = decode(&encode_unchecked(1, [255, 0, 0], 9), 9).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::NonCanonical, Some(0)));
    }

    /// The bits of a value written without the encoder's checks.
    fn encode_unchecked(largest: u64, rest: [i64; 3], bits: u8) -> Vec<u8> {
        let mut w = BitWriter::new();
        w.uint(2, largest).unwrap();
        for c in rest {
            w.int(bits, c).unwrap();
        }
        let mut out = Vec::new();
        w.finish(&mut out);
        out
    }

    #[test]
    fn truncation_is_reported_where_the_input_ends() {
        let bytes = encode(&s3(3, [1, 2, 3]), 9).unwrap();
        let e = decode(&bytes[..3], 9).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::Truncated, Some(24)));
    }

    /// `check` written branch-free gives the answers of its rules taken one at a time: every
    /// value of the narrow widths, and a million drawn at 9 and 16 bits.
    #[test]
    fn check_is_its_rules_one_at_a_time() {
        // WIRE-20.
        let reference = |q: &SmallestThree, bits: u8| {
            let r = max_component(bits);
            if q.largest > 3 || q.rest.iter().any(|&c| i64::from(c).abs() > r) {
                return Err(ErrorKind::OverWidth);
            }
            let s: i64 = q.rest.iter().map(|&c| i64::from(c).pow(2)).sum();
            let d = 2 * r * r - s;
            for (i, &c) in q.rest.iter().enumerate() {
                let sq = i64::from(c).pow(2);
                let before = SmallestThree::index_of(q.largest, i) < usize::from(q.largest);
                if (before && sq >= d) || (!before && sq > d) {
                    return Err(ErrorKind::NonCanonical);
                }
            }
            Ok(())
        };
        let mut checked = 0u64;
        for bits in 2..=5u8 {
            let r = max_component(bits) as i16 + 1;
            for largest in 0..=4u8 {
                for a in -r..=r {
                    for b in -r..=r {
                        for c in -r..=r {
                            let q = SmallestThree {
                                largest,
                                rest: [a, b, c],
                            };
                            assert_eq!(q.check(bits), reference(&q, bits), "{q:?} at {bits}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for bits in [9u8, 16] {
                let m = (1u64 << bits) as i64;
                let v = |k: u32| ((((x >> k) as i64) % m) - m / 2) as i16;
                let q = SmallestThree {
                    largest: (x % 4) as u8,
                    rest: [v(3), v(21), v(40)],
                };
                assert_eq!(q.check(bits), reference(&q, bits), "{q:?} at {bits}");
            }
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn the_widest_components_cannot_overflow_the_check() {
        let r = 32767i16;
        assert_eq!(s3(3, [r, 0, 0]).check(16), Err(ErrorKind::NonCanonical));
        assert_eq!(s3(0, [0, 0, r]).check(16), Ok(()));
        assert_eq!(s3(3, [r, r, r]).check(16), Err(ErrorKind::NonCanonical));
        assert_eq!(s3(3, [i16::MIN, 0, 0]).check(16), Err(ErrorKind::OverWidth));
        // Two bits a component: R = 1.
        assert_eq!(s3(3, [1, 0, 0]).check(2), Err(ErrorKind::NonCanonical));
        assert_eq!(s3(0, [0, 0, 1]).check(2), Ok(()));
        assert_eq!(s3(0, [-2, 0, 0]).check(2), Err(ErrorKind::OverWidth));
    }

    #[test]
    fn from_xyzw_of_degenerate_input_is_the_identity() {
        for q in [
            [0.0; 4],
            [f32::NAN, 0.0, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0, 0.0],
        ] {
            assert_eq!(SmallestThree::from_xyzw(q, 9), SmallestThree::IDENTITY);
        }
        assert_eq!(SmallestThree::default(), SmallestThree::IDENTITY);
        assert_eq!(SmallestThree::IDENTITY.to_xyzw(9), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn from_xyzw_drops_the_largest_made_non_negative_and_breaks_ties_low() {
        let v = SmallestThree::from_xyzw([0.0, -1.0, 0.0, 0.0], 9);
        assert_eq!(v, s3(1, [0, 0, 0]));
        // x = w: x is dropped (lowest index), w sent at R.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let v = SmallestThree::from_xyzw([-h, 0.0, 0.0, -h], 9);
        assert_eq!(v, s3(0, [0, 0, 255]));
        assert_eq!(v.check(9), Ok(()));
        // Unnormalised input is normalised first.
        assert_eq!(
            SmallestThree::from_xyzw([0.0, 0.0, 0.0, 5.0], 9),
            SmallestThree::IDENTITY
        );
    }

    #[test]
    fn from_xyzw_repairs_a_rounding_that_breaks_rule_3() {
        // w largest by one ulp over x: x rounds to R, and x (below w) must be strictly
        // smaller than w's magnitude, so it is moved a step toward zero.
        let a = std::f32::consts::FRAC_1_SQRT_2;
        let b = f32::from_bits(a.to_bits() - 1);
        let v = SmallestThree::from_xyzw([b, 0.0, 0.0, a], 9);
        assert_eq!(v.check(9), Ok(()));
        assert_eq!(v.largest, 3);
        assert_eq!(v.rest, [254, 0, 0]);
    }

    /// Values worked out by hand from LANGUAGE.md's steps, for every runtime to pin its own
    /// `from_xyzw` to.
    #[test]
    fn from_xyzw_agrees_with_values_worked_by_hand() {
        // (1/2, 1/2, 1/2, 1/2) at 9 bits: x dropped (the lowest on a tie), each other
        // 0.5 * sqrt 2 * 255 = 180.3 -> 180; D = 130050 - 3 * 32400 = 32850 >= 32400.
        assert_eq!(
            SmallestThree::from_xyzw([0.5; 4], 9),
            s3(0, [180, 180, 180])
        );
        // (0, 0, 0.6, 0.8): w dropped, z = 0.6 * 360.62 = 216.4 -> 216.
        assert_eq!(
            SmallestThree::from_xyzw([0.0, 0.0, 0.6, 0.8], 9),
            s3(3, [0, 0, 216])
        );
        // y the largest and negative: all four negated first.
        assert_eq!(
            SmallestThree::from_xyzw([0.0, -0.8, 0.6, 0.0], 9),
            s3(1, [0, -216, 0])
        );
        // (1/2, 1/2, 1/2, 1/2) at 16 bits: 0.5 * sqrt 2 * 32767 = 23169.7 -> 23170 each, but
        // then S = 3 * 23170^2 leaves D = 2 * 32767^2 - S = 536805878 < 23170^2: rule 3 fails
        // for all three, and the lowest (y) steps toward zero once, after which D = 536852217
        // holds them all.
        assert_eq!(
            SmallestThree::from_xyzw([0.5; 4], 16),
            s3(0, [23169, 23170, 23170])
        );
        assert_eq!(
            s3(0, [23170, 23170, 23170]).check(16),
            Err(ErrorKind::NonCanonical)
        );
    }

    proptest::proptest! {
        #[test]
        fn from_xyzw_gives_canonical_values_within_one_step_of_the_input(
            q in proptest::array::uniform4(-1.0f32..1.0),
            bits in 2u8..=16,
        ) {
            let norm = q.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>().sqrt();
            proptest::prop_assume!(norm > 1e-3);
            let v = SmallestThree::from_xyzw(q, bits);
            proptest::prop_assert_eq!(v.check(bits), Ok(()));
            // Round trips through the wire.
            let bytes = encode(&v, bits).unwrap();
            proptest::prop_assert_eq!(decode(&bytes, bits), Ok(v));
            // Back to floats: within 1/R of the input, up to its sign (q and -q are one
            // rotation).
            let r = max_component(bits) as f64;
            let back = v.to_xyzw(bits);
            let unit = q.map(|c| f64::from(c) / norm);
            let sign = if unit[usize::from(v.largest)] < 0.0 { -1.0 } else { 1.0 };
            let err = (0..4)
                .map(|j| (f64::from(back[j]) - sign * unit[j]).abs())
                .fold(0.0, f64::max);
            // Components a step of 1/(sqrt 2 R) apart, the dropped one from their squares,
            // and the repair steps of rule 3 near a tie: within 1/R.
            proptest::prop_assert!(err <= 1.0 / r + 1e-6, "{q:?} at {bits}: {v:?} -> {back:?}, {err}");
        }

        #[test]
        fn decoding_any_bits_never_panics_and_accepts_only_canonical_values(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..8),
            bits in 2u8..=16,
        ) {
            if let Ok(v) = decode(&bytes, bits) {
                proptest::prop_assert_eq!(v.check(bits), Ok(()));
                let again = encode(&v, bits).unwrap();
                let n = again.len();
                proptest::prop_assert_eq!(decode(&again, bits), Ok(v));
                // The same bits, padding aside.
                let used = 2 + 3 * usize::from(bits);
                let mask = |b: &[u8]| {
                    let mut x = 0u64;
                    for (i, byte) in b.iter().take(n).enumerate() {
                        x |= u64::from(*byte) << (8 * i);
                    }
                    x & ((1u64 << used) - 1)
                };
                proptest::prop_assert_eq!(mask(&bytes), mask(&again));
            }
        }
    }
}
