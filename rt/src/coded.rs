//! The coded values of kind 13's body (`docs/spec/coded.md`): what a generated coded frame
//! writes its changes' values into and reads them back from, over the [`range`](crate::range)
//! coder, and the training counts of its tables.
//!
//! - A value `v` of at most `W` bits is coded under a model of [`model_slots`]`(W)` slots
//!   starting at slot `at` of the frame's tables: its bit length through a bit tree, then the
//!   bits below its highest one (CODE-6, CODE-7, CODE-8). Every bit goes through
//!   [`RangeEncoder::bit`], so the slots adapt within the frame (CODE-9); the caller copies the
//!   tables for each frame.
//! - The body is `u16 coded_len` and the stream, zero-padded to [`floor_len`] of the changes
//!   (CODE-4, CODE-5). [`CodedDecoder::new`] refuses a `coded_len` under the floor before it
//!   decodes anything (`count_too_large`: the taxonomy has no `over_limit`, and this is a
//!   count larger than the bytes hold), [`CodedDecoder::value`] a bit length over the width
//!   (`over_width`), and [`CodedDecoder::finish`] anything but the stream the encoder writes.
//! - A model's slots past the tables it is given are refused (`over_width`), never indexed.
//!
//! Within a model, the bits below the first `t` are coded most significant first, each under
//! the next slot of its length's block: the first of them under the block's first position
//! slot.

use crate::error::{DecodeError, EncodeError, ErrorKind};
use crate::range::{Prob, RangeDecoder, RangeEncoder};
use crate::Reader;

pub use crate::{unzigzag, zigzag};

/// The least bits a change takes in the stream (CODE-4): a body's `coded_len` is at least
/// `ceil(changed_count × 10 / 8)`, which bounds the changes a decoder allocates for by its
/// input.
pub const CODED_FLOOR_BITS: usize = 12;

/// The least `coded_len` of a body of `changed_count` changes: `ceil(changed_count × 10 / 8)`
/// (CODE-4).
#[inline]
pub const fn floor_len(changed_count: usize) -> usize {
    changed_count.saturating_mul(CODED_FLOOR_BITS).div_ceil(8)
}

/// The bit length of `v`: 0 for 0, else the position of its highest one bit plus one.
#[inline]
const fn bit_len(v: u64) -> u32 {
    u64::BITS - v.leading_zeros()
}

/// Where the block of bit length `l` (2 and up) starts, past the length tree: the sizes of
/// the blocks of 2 to `l - 1`, each `2^t - 1` tree slots and `l - 1 - t` position slots,
/// `t = min(l - 1, 3)` (1, 3, then `7 + (l - 4)` from 4 on).
#[inline]
const fn block_offset(l: usize) -> usize {
    match l {
        0..=2 => 0,
        3 => 1,
        4 => 4,
        // 4 for lengths 2 and 3, then the sum of `j + 3` for j from 4 to l - 1.
        _ => 4 + (l - 1) * l / 2 - 6 + 3 * (l - 4),
    }
}

/// The slots of a model of `w` bits (CODE-8): the length tree's `2^k - 1` (`k` the bit length
/// of `w`), then for each bit length `L` from 2 to `w` its tree's `2^t - 1` and its
/// `L - 1 - t` position slots, `t = min(L - 1, 3)`. 0 for `w = 0`, 2388 for 64.
pub const fn model_slots(w: u8) -> usize {
    let k = bit_len(w as u64);
    let tree = (1usize << k) - 1;
    if w < 2 {
        tree
    } else {
        tree + block_offset(w as usize + 1)
    }
}

/// The slots of a model of `w` bits starting at `at`, checked against the `len` slots of the
/// tables before any is touched.
#[inline]
fn model_fits(at: usize, w: u8, len: usize) -> bool {
    w <= 64 && at.checked_add(model_slots(w)).is_some_and(|end| end <= len)
}

/// Walks the bits of a value of a model of `w` bits (at most 64) whose slots start at `at`
/// and fit the tables: `bit(slot, wanted)` codes one bit under `slot` and returns the bit
/// coded (the encoder `wanted`, the decoder the one it reads), and the value is built from the
/// bits returned. `v` is what the encoder codes (0 for the decoder). A bit length over `w`,
/// which only a decoder meets, is `None`.
#[inline]
fn walk<E>(
    at: usize,
    w: u8,
    v: u64,
    mut bit: impl FnMut(usize, bool) -> Result<bool, E>,
) -> Result<Option<u64>, E> {
    let k = bit_len(u64::from(w));
    let want_len = bit_len(v);
    // The length, most significant bit first, down the tree from node 1.
    let mut m = 1usize;
    for i in (0..k).rev() {
        let b = bit(at + m - 1, want_len >> i & 1 == 1)?;
        m = 2 * m + usize::from(b);
    }
    let l = m - (1 << k);
    if l > usize::from(w) {
        return Ok(None);
    }
    if l <= 1 {
        return Ok(Some(l as u64));
    }
    let block = at + (1 << k) - 1 + block_offset(l);
    // The first `t` bits below the highest one, through the block's tree.
    let t = (l - 1).min(3);
    let mut m = 1usize;
    for i in 0..t {
        let pos = l - 2 - i;
        let b = bit(block + m - 1, v >> pos & 1 == 1)?;
        m = 2 * m + usize::from(b);
    }
    let mut out = 1u64 << (l - 1) | ((m - (1 << t)) as u64) << (l - 1 - t);
    // The rest, each under a slot of its own.
    let positions = block + (1 << t) - 1;
    for j in 0..l - 1 - t {
        let pos = l - 2 - t - j;
        if bit(positions + j, v >> pos & 1 == 1)? {
            out |= 1 << pos;
        }
    }
    Ok(Some(out))
}

/// What a generated coded frame writes its values into: the encoder, or the counts that train
/// its tables (CODE-17).
pub trait CodedSink {
    /// `v` (< 2^w) under the model whose slots start at `at` (CODE-7).
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError>;

    /// `v` as its zigzag code (`w` bits).
    #[inline]
    fn signed(&mut self, at: usize, w: u8, v: i64) -> Result<(), EncodeError> {
        self.value(at, w, zigzag(v))
    }
}

/// A sink lent out: what a generated writer hands to the writers of its parts.
impl<S: CodedSink + ?Sized> CodedSink for &mut S {
    #[inline]
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError> {
        (**self).value(at, w, v)
    }

    #[inline]
    fn signed(&mut self, at: usize, w: u8, v: i64) -> Result<(), EncodeError> {
        (**self).signed(at, w, v)
    }
}

/// Checks a value and its model before anything is coded: a width over 64, a value over its
/// width, or slots past the tables are over width.
#[inline]
fn check_value(at: usize, w: u8, v: u64, len: usize) -> Result<(), EncodeError> {
    let fits = w <= 64 && (w == 64 || v >> w == 0);
    if fits && model_fits(at, w, len) {
        Ok(())
    } else {
        Err(EncodeError::new(ErrorKind::OverWidth))
    }
}

/// Codes a frame's values under its tables (a copy for this frame: they adapt) and ends the
/// body (CODE-4, CODE-5).
#[derive(Debug)]
pub struct CodedEncoder<'p> {
    probs: &'p mut [Prob],
    enc: RangeEncoder,
}

impl<'p> CodedEncoder<'p> {
    /// An encoder over `probs`: the frame's tables, copied by the caller.
    pub fn new(probs: &'p mut [Prob]) -> Self {
        CodedEncoder {
            probs,
            enc: RangeEncoder::new(),
        }
    }

    /// Appends `u16 coded_len` then the stream, zero-padded to [`floor_len`]`(changed_count)`
    /// (CODE-4, CODE-5). A body longer than a `u16` counts is refused as `count_too_large`,
    /// and `out` is left as it was.
    pub fn finish(self, changed_count: usize, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        out.extend_from_slice(&[0, 0]);
        self.enc.finish(out);
        let stream = out.len() - start - 2;
        let coded_len = stream.max(floor_len(changed_count));
        let Ok(len16) = u16::try_from(coded_len) else {
            out.truncate(start);
            return Err(EncodeError::new(ErrorKind::CountTooLarge));
        };
        out.resize(start + 2 + coded_len, 0);
        out[start..start + 2].copy_from_slice(&len16.to_le_bytes());
        Ok(())
    }
}

impl CodedSink for CodedEncoder<'_> {
    #[inline]
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError> {
        check_value(at, w, v, self.probs.len())?;
        let (enc, probs) = (&mut self.enc, &mut *self.probs);
        walk(at, w, v, |slot, b| {
            enc.bit(&mut probs[slot], b);
            Ok::<_, EncodeError>(b)
        })?
        .map(drop)
        .ok_or_else(|| EncodeError::new(ErrorKind::OverWidth))
    }
}

/// Reads a frame's values back under its tables (a copy for this frame: they adapt), refusing
/// a body that is not the one the encoder writes (CODE-4, CODE-5, CODE-7).
#[derive(Debug)]
pub struct CodedDecoder<'a, 'p> {
    dec: RangeDecoder<'a>,
    probs: &'p mut [Prob],
    /// `coded_len` is the floor: the stream may be zero-padded.
    at_floor: bool,
}

impl<'a, 'p> CodedDecoder<'a, 'p> {
    /// Reads `u16 coded_len` at `r`, refuses it under [`floor_len`]`(changed_count)` as
    /// `count_too_large` at `coded_len` before anything else is read (CODE-4; the spec's
    /// `over_limit`), and takes the stream's bytes from `r` (`truncated` if fewer remain).
    pub fn new(
        r: &mut Reader<'a>,
        changed_count: usize,
        probs: &'p mut [Prob],
    ) -> Result<Self, DecodeError> {
        let at = r.pos();
        let coded_len = usize::from(r.u16()?);
        let floor = floor_len(changed_count);
        if coded_len < floor {
            return Err(DecodeError::new(ErrorKind::CountTooLarge, at));
        }
        let base = r.pos();
        let bytes = r.take(coded_len)?;
        Ok(CodedDecoder {
            dec: RangeDecoder::new(bytes, base)?,
            probs,
            at_floor: coded_len == floor,
        })
    }

    /// A value of at most `w` bits under the model whose slots start at `at`: a bit length over
    /// `w` is `over_width` (as are a width over 64 and slots past the tables). Inlined, so that
    /// a generated reader's constant model and width unroll its walk.
    #[inline]
    pub fn value(&mut self, at: usize, w: u8) -> Result<u64, DecodeError> {
        if model_fits(at, w, self.probs.len()) {
            let (dec, probs) = (&mut self.dec, &mut *self.probs);
            if let Some(v) = walk(at, w, 0, |slot, _| dec.bit(&mut probs[slot]))? {
                return Ok(v);
            }
        }
        Err(DecodeError::new(ErrorKind::OverWidth, self.dec.offset()))
    }

    /// The frame offset of the byte the stream has read up to: where a value's fault (out of
    /// its field's range, an id not ascending) is reported, as near the value as a range
    /// coder can place it.
    pub fn offset(&self) -> usize {
        self.dec.offset()
    }

    /// A signed value: [`CodedDecoder::value`] unzigzagged.
    #[inline]
    pub fn signed(&mut self, at: usize, w: u8) -> Result<i64, DecodeError> {
        Ok(unzigzag(self.value(at, w)?))
    }

    /// Ends the body once every value is read (CODE-5): above the floor, the stream must be
    /// exactly what the encoder writes ([`RangeDecoder::finish`]); at the floor, the code must
    /// be the interval's bottom and every byte not reached 0 (`trailing_bytes` at the first
    /// that is not).
    pub fn finish(self) -> Result<(), DecodeError> {
        if self.at_floor {
            self.dec.finish_padded()?;
        } else {
            self.dec.finish()?;
        }
        Ok(())
    }
}

/// The 0s and 1s coded under each slot, walking the bits [`CodedEncoder`] would code with none
/// of its adaptation: what `ackwire train` sums over recorded frames (CODE-17).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlotCounts {
    counts: Vec<[u64; 2]>,
}

impl SlotCounts {
    /// No bits yet, over `slots` slots.
    pub fn new(slots: usize) -> Self {
        SlotCounts {
            counts: vec![[0; 2]; slots],
        }
    }

    /// `other`'s counts added to these, slot by slot (growing to the longer of the two).
    pub fn add(&mut self, other: &SlotCounts) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), [0; 2]);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            mine[0] = mine[0].saturating_add(theirs[0]);
            mine[1] = mine[1].saturating_add(theirs[1]);
        }
    }

    /// Each slot's count of 0s and of 1s, in slot order.
    pub fn counts(&self) -> &[[u64; 2]] {
        &self.counts
    }

    /// Trained starting probabilities: p = (c0+1)*4096/(c0+c1+2), rounded down, clamped to
    /// 32..=4064 so that a slot never seen one way can still code it at a bounded cost.
    pub fn probs(&self) -> Vec<Prob> {
        self.counts
            .iter()
            .map(|&[c0, c1]| {
                let p = (u128::from(c0) + 1) * 4096 / (u128::from(c0) + u128::from(c1) + 2);
                let p = p.clamp(32, 4064) as u16;
                Prob::new(p).unwrap_or(Prob::HALF)
            })
            .collect()
    }
}

impl CodedSink for SlotCounts {
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError> {
        check_value(at, w, v, self.counts.len())?;
        let counts = &mut self.counts;
        walk(at, w, v, |slot, b| {
            let c = &mut counts[slot][usize::from(b)];
            *c = c.saturating_add(1);
            Ok::<_, EncodeError>(b)
        })?
        .map(drop)
        .ok_or_else(|| EncodeError::new(ErrorKind::OverWidth))
    }
}

/// What each value costs in the stream: the information of its bits under the models as
/// [`CodedEncoder`] adapts them, `-log2` of each bit's probability, summed. The stream a frame
/// writes is this total rounded up plus at most the coder's flush (a few bytes); the bench
/// splits a coded frame's bits by field with it, reading [`CodedCost::total`] around each value.
#[derive(Debug, Clone)]
pub struct CodedCost {
    probs: Vec<Prob>,
    total: f64,
}

impl CodedCost {
    /// A meter over a copy of the frame's tables.
    pub fn new(probs: &[Prob]) -> Self {
        CodedCost {
            probs: probs.to_vec(),
            total: 0.0,
        }
    }

    /// The bits coded so far.
    pub fn total(&self) -> f64 {
        self.total
    }
}

impl CodedSink for CodedCost {
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError> {
        check_value(at, w, v, self.probs.len())?;
        let (probs, total) = (&mut self.probs, &mut self.total);
        walk(at, w, v, |slot, b| {
            let p = &mut probs[slot];
            let zero = f64::from(p.get()) / 4096.0;
            *total -= if b { 1.0 - zero } else { zero }.log2();
            p.adapt(b);
            Ok::<_, EncodeError>(b)
        })?
        .map(drop)
        .ok_or_else(|| EncodeError::new(ErrorKind::OverWidth))
    }
}

/// `v × num / den` rounded to the nearest integer, halves away from zero (CODE-13), saturating
/// at i64's ends; a `den` of 0 is taken as 1.
pub fn extrapolate(v: i64, num: u32, den: u32) -> i64 {
    // The common case in u64, with no 128-bit division: |v| < 2^31 keeps |v × num| under
    // 2^63, and twice it plus `den` under 2^64. The same rounding as below.
    if v.unsigned_abs() < 1 << 31 {
        let den = u64::from(den.max(1));
        let q = (v.unsigned_abs() * u64::from(num) * 2 + den) / (2 * den);
        // q ≤ |v × num| < 2^63: it fits, with either sign.
        let q = q as i64;
        return if v < 0 { -q } else { q };
    }
    let den = i128::from(den.max(1));
    // |v × num| < 2^95: exact in i128, and so is twice it.
    let p = i128::from(v) * i128::from(num);
    let q = (p.abs() * 2 + den) / (2 * den);
    let q = if p < 0 { -q } else { q };
    q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// What a coded frame's changes are predicted from (CODE-13, CODE-14): the entity's record in
/// the frame's base and in its older snapshot. Implemented by the session machines.
pub trait CodedBasis<R> {
    /// The entity's record in the frame's base, if the base holds it.
    fn base(&self, eid: u16) -> Option<R>;
    /// The entity's record in the older snapshot, if there is one and it holds the entity.
    fn older(&self, eid: u16) -> Option<R>;

    /// [`Self::base`] and, when `older` (the frame names an older snapshot), [`Self::older`]:
    /// what a generated frame asks for each change. A basis that finds both in one search
    /// gives them so.
    #[inline]
    fn records(&self, eid: u16, older: bool) -> (Option<R>, Option<R>) {
        (self.base(eid), if older { self.older(eid) } else { None })
    }
}

/// A basis with nothing in it (a keyframe; tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoBasis;

impl<R> CodedBasis<R> for NoBasis {
    fn base(&self, _eid: u16) -> Option<R> {
        None
    }

    fn older(&self, _eid: u16) -> Option<R> {
        None
    }
}

/// What a coded frame's basis is looked up by, read from its prefix before its body (CODE-2,
/// CODE-3): its tick and its base's, whether it is a keyframe, and its `older` distance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CodedBasisTicks {
    /// The frame's tick.
    pub tick: u32,
    /// The tick of the frame's base.
    pub base_tick: u32,
    /// The frame is a keyframe: it has no base.
    pub keyframe: bool,
    /// Ticks from the base back to the older snapshot; 0 for none.
    pub older: u8,
}

#[cfg(test)]
mod tests;
