//! `bucket(w1, ..., wk)` and `zbucket(w1, ..., wk)`: variable-width integers of packed
//! bodies.
//!
//! WIRE-19: the buckets are offset, so that every code is a distinct value and
//! none is redundant: bucket `i` holds `[base_i, base_i + 2^w_i)`, `base_0 = 0`,
//! `base_{i+1} = base_i + 2^w_i`; the largest value is `base_k - 1`. On the wire, least
//! significant bit first like every packed field: the bucket index in unary (bucket `i < k-1`
//! as `i` one bits then one zero bit, the last bucket as `k-1` one bits and no zero), then
//! `value - base_i` as an unsigned `w_i`-bit field (nothing when `w_i = 0`). A `zbucket`
//! zigzag-maps its signed value first, as `zigzag` does.
//!
//! Decoding can fail only with `truncated`: every code is a value. The unary prefix reads at
//! most `k - 1` bits, so a hostile input costs at most the code's own length. Encoding a value
//! past the largest is `over_width`. The widths are the layout's, which the validator holds to
//! the rules ([`valid_widths`]: 1 to 8 of them, increasing, each 0 to 64, at most 2^64
//! values); a list that breaks them cannot make a read or write panic, loop or wrap: an empty
//! list or one of more than 8, a width over 64 in the bucket used, or a code past 2^64 is
//! refused as `over_width` (a list that merely does not increase is read as it says).

use crate::{unzigzag, zigzag, BitReader, BitWriter, DecodeError, EncodeError, ErrorKind};

/// The most buckets a code has.
pub const MAX_BUCKETS: usize = 8;

/// Whether `widths` is a valid bucket list: 1 to 8 widths, each 0 to 64, strictly
/// increasing, with at most 2^64 values in all.
#[inline]
pub fn valid_widths(widths: &[u8]) -> bool {
    !widths.is_empty()
        && widths.len() <= MAX_BUCKETS
        && widths.iter().all(|&w| w <= 64)
        && widths.windows(2).all(|p| p[0] < p[1])
        && widths.iter().map(|&w| 1u128 << w).sum::<u128>() <= 1u128 << 64
}

/// `base_i` of bucket `i`: the sum of `2^w_j` over the buckets before it (below 2^64 for a
/// valid list).
#[inline]
fn base(widths: &[u8], i: usize) -> u128 {
    widths[..i.min(widths.len())]
        .iter()
        .map(|&w| 1u128 << w.min(64))
        .sum()
}

/// The largest value of `bucket(widths)`: `base_k - 1`.
#[inline]
pub fn bucket_max(widths: &[u8]) -> u64 {
    let top = base(widths, widths.len());
    u64::try_from(top.saturating_sub(1)).unwrap_or(u64::MAX)
}

/// The bucket that holds `v`, with its base, or `None` past the largest value.
#[inline]
fn bucket_of(widths: &[u8], v: u64) -> Option<(usize, u128)> {
    let mut b = 0u128;
    for (i, &w) in widths.iter().enumerate() {
        let next = b + (1u128 << w.min(64));
        if u128::from(v) < next {
            return Some((i, b));
        }
        b = next;
    }
    None
}

/// The length in bits of bucket `i`'s unary prefix among `k`.
#[inline]
fn prefix_bits(i: usize, k: usize) -> usize {
    if i + 1 >= k {
        i
    } else {
        i + 1
    }
}

/// The number of bits the code of `v` takes in `bucket(widths)`; a value past the largest
/// (which the encoder refuses) counts as the longest code.
#[inline]
pub fn bucket_len(widths: &[u8], v: u64) -> usize {
    let k = widths.len();
    match bucket_of(widths, v) {
        Some((i, _)) => prefix_bits(i, k) + usize::from(widths[i]),
        None => (0..k)
            .map(|i| prefix_bits(i, k) + usize::from(widths[i]))
            .max()
            .unwrap_or(0),
    }
}

/// The number of bits the code of `v` takes in `zbucket(widths)`.
#[inline]
pub fn zbucket_len(widths: &[u8], v: i64) -> usize {
    bucket_len(widths, zigzag(v))
}

/// The number of bits an ascending list of `bucket(widths)` values takes, each after the
/// first carried as its difference from the one before.
#[inline]
pub fn ascending_buckets_len(widths: &[u8], items: impl IntoIterator<Item = u64>) -> usize {
    let mut prev = None;
    items
        .into_iter()
        .map(|v| bucket_len(widths, crate::ascending_step(&mut prev, v)))
        .sum()
}

impl BitReader<'_> {
    /// A `bucket(widths)` field: the unary bucket index (at most `k - 1` bits, looked at in
    /// one read), then the value less the bucket's base.
    #[inline(always)]
    pub fn bucket(&mut self, widths: &[u8]) -> Result<u64, DecodeError> {
        match self.bucket_in_word(widths) {
            Some(v) => Ok(v),
            None => self.bucket_by_fields(widths),
        }
    }

    /// [`Self::bucket`] a field at a time: what the one-word read leaves (the input's last
    /// eight bytes, codes past 56 bits, lists the validator refuses).
    #[cold]
    #[inline(never)]
    fn bucket_by_fields(&mut self, widths: &[u8]) -> Result<u64, DecodeError> {
        let at = self.bit_pos();
        let k = widths.len();
        if k == 0 || k > MAX_BUCKETS {
            return Err(DecodeError::at_bit(ErrorKind::OverWidth, at));
        }
        // The prefix at once: its ones up to the first zero, at most k - 1 of them.
        let longest = k - 1;
        let ones = (self.peek(longest as u8).trailing_ones() as usize).min(longest);
        let avail = self.remaining().min(longest);
        let (i, prefix) = if ones < avail {
            // A zero bit ends the prefix of bucket `ones`.
            (ones, ones + 1)
        } else if avail == longest {
            // k - 1 ones: the last bucket, with no zero bit.
            (longest, longest)
        } else {
            // The input ends inside the prefix: truncated where it ends, as every read is.
            return Err(self.truncated());
        };
        self.skip(prefix);
        let w = widths[i];
        let offset = if w == 0 { 0 } else { self.uint(w)? };
        // Below base_k <= 2^64 for a valid list; past u64 only for one the validator refuses.
        u64::try_from(base(widths, i) + u128::from(offset))
            .map_err(|_| DecodeError::at_bit(ErrorKind::OverWidth, at))
    }

    /// The common case of [`Self::bucket`], read from one 8-byte word and read past: when
    /// eight bytes remain from the current byte (56 bits at least past the current bit), the
    /// whole code lies within them and its value fits a u64 on the way (as it does for every
    /// list the validator accepts), the value; `None` otherwise, reading nothing, and `bucket`
    /// reads the code a field at a time, which gives the same answer. Kind 12's decode spent
    /// about a third of its instructions in `bucket`, most of them on the field reads' checks
    /// and on the bucket's base summed in u128.
    #[inline(always)]
    fn bucket_in_word(&mut self, widths: &[u8]) -> Option<u64> {
        let k = widths.len();
        if k == 0 || k > MAX_BUCKETS {
            return None;
        }
        let word = self.word(56)?;
        // The prefix: bucket `ones` ended by a zero bit, or the last bucket's k - 1 ones.
        let longest = k - 1;
        let ones = (word.trailing_ones() as usize).min(longest);
        let prefix = if ones < longest { ones + 1 } else { longest };
        let w = usize::from(*widths.get(ones)?);
        if prefix + w > 56 {
            return None;
        }
        // `w` is below 56 here, so the mask does not overflow.
        let offset = (word >> prefix) & ((1u64 << w) - 1);
        let mut base = 0u64;
        for &before in &widths[..ones] {
            base = base.checked_add(1u64.checked_shl(u32::from(before))?)?;
        }
        let v = base.checked_add(offset)?;
        // Within the eight bytes `word` read: below what remains.
        self.pos += prefix + w;
        Some(v)
    }

    /// A `zbucket(widths)` field: a bucket code, unzigzagged.
    #[inline(always)]
    pub fn zbucket(&mut self, widths: &[u8]) -> Result<i64, DecodeError> {
        self.bucket(widths).map(unzigzag)
    }
}

impl BitWriter {
    /// Writes `v` as a `bucket(widths)` code; a value past the largest is `over_width`.
    #[inline]
    pub fn bucket(&mut self, widths: &[u8], v: u64) -> Result<(), EncodeError> {
        let k = widths.len();
        if k == 0 || k > MAX_BUCKETS {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        let (i, b) = bucket_of(widths, v).ok_or(EncodeError::new(ErrorKind::OverWidth))?;
        let w = widths[i];
        if w > 64 {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        // `i` one bits, then a zero bit unless it is the last bucket: one write of at most 8.
        let prefix = prefix_bits(i, k);
        if prefix > 0 {
            self.uint(prefix as u8, (1u64 << i) - 1)?;
        }
        if w > 0 {
            // v >= b, and v - b < 2^w.
            self.uint(w, (u128::from(v) - b) as u64)?;
        }
        Ok(())
    }

    /// Writes `v` as a `zbucket(widths)` code: zigzag-mapped, then a bucket code.
    #[inline]
    pub fn zbucket(&mut self, widths: &[u8], v: i64) -> Result<(), EncodeError> {
        self.bucket(widths, zigzag(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(widths: &[u8], v: u64) -> Result<(Vec<u8>, usize), EncodeError> {
        let mut w = BitWriter::new();
        // A marker bit first, so that codes start off a byte boundary.
        w.bool(true);
        w.bucket(widths, v)?;
        let mut out = Vec::new();
        w.finish(&mut out);
        Ok((out, 1 + bucket_len(widths, v)))
    }

    fn decode(widths: &[u8], bytes: &[u8]) -> Result<(u64, usize), DecodeError> {
        let mut r = BitReader::new(bytes, 0);
        assert!(r.bool()?);
        let v = r.bucket(widths)?;
        Ok((v, r.bit_pos()))
    }

    #[test]
    fn bucket_0_4_8_costs_1_6_and_10_bits() {
        // WIRE-19.
        let w = [0, 4, 8];
        assert_eq!(bucket_max(&w), 272);
        for (v, bits) in [(0, 1), (1, 6), (16, 6), (17, 10), (272, 10)] {
            assert_eq!(bucket_len(&w, v), bits, "{v}");
            let (bytes, end) = encode(&w, v).unwrap();
            assert_eq!(decode(&w, &bytes), Ok((v, end)), "{v}");
        }
        // 17 is bucket 2: prefix 1, 1 (no zero: the last bucket), then 17 - 17 = 0 in 8 bits.
        let (bytes, _) = encode(&w, 17).unwrap();
        assert_eq!(bytes, [0b0000_0111, 0b0000_0000]);
        // 1 is bucket 1: prefix 1, 0, then 0 in 4 bits.
        let (bytes, _) = encode(&w, 1).unwrap();
        assert_eq!(bytes, [0b0000_0011]);
        // 16 is bucket 1's last value: 15 in 4 bits.
        let (bytes, _) = encode(&w, 16).unwrap();
        assert_eq!(bytes, [0b0111_1011]);
    }

    #[test]
    fn every_boundary_round_trips_and_one_past_the_last_is_refused() {
        // WIRE-19: one past the last bucket is over_width.
        for widths in [
            &[0u8, 4, 8][..],
            &[1, 6],
            &[3],
            &[0],
            &[2, 5, 9, 20],
            &[0, 1, 2, 3, 4, 5, 6, 7],
            &[62, 63],
            &[64],
        ] {
            let k = widths.len();
            for i in 0..k {
                let b = base(widths, i) as u64;
                let mut values = vec![b];
                if b > 0 {
                    values.push(b - 1);
                }
                let last = (base(widths, i + 1) - 1) as u64;
                values.push(last);
                for v in values {
                    let (bytes, end) =
                        encode(widths, v).unwrap_or_else(|e| panic!("{widths:?} {v}: {e}"));
                    assert_eq!(decode(widths, &bytes), Ok((v, end)), "{widths:?} {v}");
                }
            }
            let max = bucket_max(widths);
            if let Some(past) = max.checked_add(1) {
                assert_eq!(
                    encode(widths, past).unwrap_err().kind,
                    ErrorKind::OverWidth,
                    "{widths:?}"
                );
            }
        }
    }

    #[test]
    fn the_last_bucket_has_no_zero_bit_and_the_prefix_reads_at_most_k_minus_1_bits() {
        // WIRE-19.
        let w = [0, 1, 2, 3];
        // Value 1 + 2 + 4 = 7 is the last bucket's first: three one bits, then 0 in 3 bits.
        let mut b = BitWriter::new();
        b.bucket(&w, 7).unwrap();
        let mut out = Vec::new();
        b.finish(&mut out);
        assert_eq!(out, [0b0000_0111]);
        // All ones: the prefix stops after three, the value is the next three bits.
        let mut r = BitReader::new(&[0xff], 0);
        assert_eq!(r.bucket(&w), Ok(7 + 7));
        assert_eq!(r.bit_pos(), 6);
        // Truncated inside the prefix and inside the value: at the input's end.
        let e = BitReader::new(&[], 0).bucket(&w).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::Truncated, Some(0)));
        let mut r = BitReader::new(&[0xff], 0);
        r.uint(4).unwrap();
        let e = r.bucket(&w).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::Truncated, Some(8)));
    }

    #[test]
    fn zbucket_zigzags_first() {
        // WIRE-19, WIRE-5.
        let w = [2, 5, 9];
        for v in [0i64, -1, 1, -2, 2, -273, 273, -274] {
            let mut b = BitWriter::new();
            b.zbucket(&w, v).unwrap();
            let mut out = Vec::new();
            b.finish(&mut out);
            assert_eq!(BitReader::new(&out, 0).zbucket(&w), Ok(v), "{v}");
            assert_eq!(zbucket_len(&w, v), bucket_len(&w, zigzag(v)));
        }
        // 547 is the largest code: 274 zigzags to 548.
        assert_eq!(bucket_max(&w), 547);
        let mut b = BitWriter::new();
        assert_eq!(b.zbucket(&w, 274).unwrap_err().kind, ErrorKind::OverWidth);
        assert_eq!(bucket_len(&w, 0), 3);
        assert_eq!(bucket_len(&w, 4), 7);
        assert_eq!(bucket_len(&w, 36), 11);
    }

    #[test]
    fn invalid_width_lists_are_refused_not_trusted() {
        for w in [&[][..], &[0, 1, 2, 3, 4, 5, 6, 7, 8]] {
            assert!(!valid_widths(w), "{w:?}");
            assert_eq!(
                BitReader::new(&[0; 16], 0).bucket(w).unwrap_err().kind,
                ErrorKind::OverWidth
            );
            assert_eq!(
                BitWriter::new().bucket(w, 0).unwrap_err().kind,
                ErrorKind::OverWidth
            );
        }
        // A width over 64, in the bucket used.
        assert!(!valid_widths(&[0, 65]));
        assert_eq!(
            BitReader::new(&[0xff; 16], 0)
                .bucket(&[0, 65])
                .unwrap_err()
                .kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            BitWriter::new().bucket(&[0, 65], 1).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        // More than 2^64 values: the largest code of the last bucket is past u64.
        assert!(!valid_widths(&[63, 64]));
        assert_eq!(
            BitReader::new(&[0xff; 16], 0)
                .bucket(&[63, 64])
                .unwrap_err()
                .kind,
            ErrorKind::OverWidth
        );
        assert!(!valid_widths(&[4, 4]));
        assert!(valid_widths(&[0, 4, 8]));
    }

    #[test]
    fn ascending_lists_of_buckets_count_their_differences() {
        let w = [0, 4, 8];
        // 5, then +1, then +17: 6 + 6 + 10 bits (a difference is at least 1, so the bucket
        // of 0 is never used after the first).
        assert_eq!(ascending_buckets_len(&w, [5, 6, 23]), 6 + 6 + 10);
        assert_eq!(ascending_buckets_len(&w, [0, 1]), 1 + 6);
    }

    proptest::proptest! {
        #[test]
        fn any_value_round_trips_and_any_bits_decode_without_panic(
            v in proptest::num::u64::ANY,
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..10),
        ) {
            for widths in [&[0u8, 4, 8][..], &[3, 10, 30, 63], &[64], &[1, 6]] {
                let max = bucket_max(widths);
                let v = if max == u64::MAX { v } else { v % (max + 1) };
                let (enc, end) = encode(widths, v).unwrap();
                proptest::prop_assert_eq!(decode(widths, &enc), Ok((v, end)));
                let mut r = BitReader::new(&bytes, 0);
                if let Ok(x) = r.bucket(widths) {
                    proptest::prop_assert!(x <= bucket_max(widths));
                    proptest::prop_assert_eq!(r.bit_pos(), bucket_len(widths, x));
                }
            }
        }

        /// The one-word read and the field-by-field read agree: the same bits read at every
        /// bit offset, once with eight bytes to spare (the word) and once ending where the
        /// bytes end (the fields), give the same value and length, or the same error where
        /// the shorter input is not merely cut short; for valid lists and for lists the
        /// validator refuses.
        #[test]
        fn the_word_read_is_the_field_read(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..12),
            skip in 0usize..8,
            which in 0usize..8,
        ) {
            let lists: [&[u8]; 8] = [
                &[0, 4, 8], &[3, 10, 30, 63], &[64], &[1, 6], &[0], &[2, 2, 70], &[], &[55, 56, 57],
            ];
            let widths = lists[which];
            let mut padded = bytes.clone();
            padded.extend([0u8; 8]);
            let read = |b: &[u8]| {
                let mut r = BitReader::new(b, 0);
                r.skip(skip);
                let v = r.bucket(widths);
                (v, r.bit_pos())
            };
            let (short, short_end) = read(&bytes);
            let (long, long_end) = read(&padded);
            match short {
                Ok(v) => {
                    proptest::prop_assert_eq!(long, Ok(v));
                    proptest::prop_assert_eq!(long_end, short_end);
                }
                Err(e) if e.kind == ErrorKind::Truncated => {}
                Err(e) => proptest::prop_assert_eq!(long, Err(e)),
            }
        }
    }
}
