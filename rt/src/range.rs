//! The adaptive binary range coder the coded profile of issue 39 codes its fields with
//! (`docs/perf/coding.md` says why this one): LZMA's coder, in integer arithmetic that every
//! language reproduces byte for byte.
//!
//! - A [`Prob`] is the chance that the next bit is 0, in 4096ths, 1 to 4095. Coding a bit
//!   with [`RangeEncoder::bit`] moves it a sixteenth of the way towards the bit seen; the
//!   decoder moves its copy the same way, so both stay equal as long as they start equal
//!   (a frame starts from trained tables and adapts within itself only).
//! - The state is a 32-bit range and a 33-bit low; a byte leaves whenever the range falls
//!   under 2^24, a carry travelling back through a cached byte and its run of `0xff`.
//! - The stream ends with the interval's bottom, flushed whole, and drops what a decoder can
//!   supply: the first byte (always 0) and up to
//!   [`MAX_IMPLICIT_ZEROS`] zero bytes at its end, which the decoder reads back as zeros.
//!
//! Untrusted input: the decoder allocates nothing and reads at most [`MAX_IMPLICIT_ZEROS`]
//! bytes past the end before it refuses the stream as truncated; each bit costs at most two
//! byte reads, and the caller's layout bounds the bits, so no input makes it spin. A stream
//! is canonical (what the encoder writes, and only that): [`RangeDecoder::finish`] refuses
//! bytes the decode did not reach and a last zero byte the encoder would have dropped, and
//! a code outside its range (which no encoder writes) is refused where its first four bytes
//! are read: no bit after can leave it (see [`RangeDecoder`]'s `get`).

use crate::error::{DecodeError, EncodeError, ErrorKind};

/// Bits of a probability's scale: 4096ths.
pub const PROB_BITS: u32 = 12;
/// Each coded bit moves its probability `1 / 2^ADAPT_SHIFT` of the way.
pub const ADAPT_SHIFT: u32 = 4;
/// The most zero bytes the encoder drops from a stream's end, and so the most a decoder reads
/// past the end.
pub const MAX_IMPLICIT_ZEROS: usize = 4;
/// The range is renormalised, a byte at a time, whenever it falls under this.
const TOP: u32 = 1 << 24;
const PROB_ONE: u32 = 1 << PROB_BITS;

/// The chance that the next bit is 0, in 4096ths: 1 to 4095, so that neither bit is ever
/// impossible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Prob(u16);

impl Prob {
    /// Even odds.
    pub const HALF: Prob = Prob(1 << (PROB_BITS - 1));
    /// The least chance of a 0.
    pub const MIN: Prob = Prob(1);
    /// The greatest chance of a 0.
    pub const MAX: Prob = Prob((1 << PROB_BITS) - 1);

    /// `p` 4096ths, or none outside 1 to 4095.
    pub const fn new(p: u16) -> Option<Prob> {
        if p >= 1 && (p as u32) < PROB_ONE {
            Some(Prob(p))
        } else {
            None
        }
    }

    /// Its 4096ths.
    pub const fn get(self) -> u16 {
        self.0
    }

    /// Moved a sixteenth of the way towards `bit`. It never leaves 1 to 4095: a step is
    /// rounded down, so it stops short of either end.
    ///
    /// Without a branch: the bits a coder meets are as good as random, and a mispredicted
    /// branch per bit costs more than computing both steps.
    #[inline(always)]
    pub(crate) fn adapt(&mut self, bit: bool) {
        let p = u32::from(self.0);
        // All ones when the bit is 1.
        let one = 0u32.wrapping_sub(u32::from(bit));
        let up = (PROB_ONE - p) >> ADAPT_SHIFT;
        let down = p >> ADAPT_SHIFT;
        self.0 = (p + (up & !one) - (down & one)) as u16;
    }

    /// Where the range splits: the 0s below, the 1s from here.
    #[inline(always)]
    fn bound(self, range: u32) -> u32 {
        (range >> PROB_BITS) * u32::from(self.0)
    }
}

/// Slots of a [`BitTree`]: a binary tree over a field's first [`TREE_BITS`] bits (slot `1 <<
/// i | prefix` for bit `i`, the bits before it as the prefix; slot 0 unused) and one slot for
/// each bit after, up to 64.
pub const TREE_SLOTS: usize = (1 << TREE_BITS) + 64;
/// The first bits of a field whose probabilities depend on the bits before them.
pub const TREE_BITS: u8 = 8;

/// The probabilities of one field's bits, coded least significant first: a binary tree over
/// the first [`TREE_BITS`] (each bit's probability chosen by the bits before it) and one per
/// bit position after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitTree {
    probs: [Prob; TREE_SLOTS],
}

impl BitTree {
    /// Every slot at `p`.
    pub fn new(p: Prob) -> BitTree {
        BitTree {
            probs: [p; TREE_SLOTS],
        }
    }

    /// Slots from a trained table, [`TREE_SLOTS`] of them in slot order; none if the table
    /// has another length.
    pub fn from_slots(slots: &[Prob]) -> Option<BitTree> {
        Some(BitTree {
            probs: slots.try_into().ok()?,
        })
    }

    /// The slots, in slot order.
    pub fn slots(&self) -> &[Prob; TREE_SLOTS] {
        &self.probs
    }

    /// The slot of bit `i` of a field whose lower bits are `prefix` (a static model codes
    /// each bit under `slots()[slot(i, prefix)]` itself).
    #[inline]
    pub fn slot(i: u8, prefix: u64) -> usize {
        if i < TREE_BITS {
            (1usize << i) | (prefix as usize & ((1usize << i) - 1))
        } else {
            (1 << TREE_BITS) + usize::from(i)
        }
    }
}

/// Codes bits into a stream; [`RangeEncoder::finish`] ends it.
#[derive(Debug, Clone)]
pub struct RangeEncoder {
    /// The bottom of the interval; bit 32 is a carry not yet added to the cached byte.
    low: u64,
    range: u32,
    /// The byte waiting for a possible carry, and how many bytes wait with it (it and the
    /// `0xff`s after it, which a carry turns to `0x00`).
    cache: u8,
    cache_size: u64,
    out: Vec<u8>,
    /// Carries into written bytes, and the longest wait, for the edge-case vectors.
    #[cfg(test)]
    seen: (u32, u64),
    /// Bits coded, so that the coded values' tests can count what the encoder coded.
    #[cfg(test)]
    pub(crate) coded_bits: u64,
}

impl Default for RangeEncoder {
    fn default() -> Self {
        RangeEncoder::new()
    }
}

impl RangeEncoder {
    /// An empty stream.
    pub fn new() -> RangeEncoder {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            cache_size: 1,
            out: Vec::new(),
            #[cfg(test)]
            seen: (0, 0),
            #[cfg(test)]
            coded_bits: 0,
        }
    }

    /// The top byte of `low` leaves, unless it may still take a carry.
    fn shift_low(&mut self) {
        if self.low < 0xFF00_0000 || self.low > 0xFFFF_FFFF {
            let carry = (self.low >> 32) as u8;
            #[cfg(test)]
            {
                self.seen.0 += u32::from(carry);
                self.seen.1 = self.seen.1.max(self.cache_size);
            }
            let mut byte = self.cache;
            while self.cache_size > 0 {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.cache_size -= 1;
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.cache_size += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    #[inline(always)]
    fn put(&mut self, prob: Prob, bit: bool) {
        #[cfg(test)]
        {
            self.coded_bits += 1;
        }
        let bound = prob.bound(self.range);
        // Both sides chosen without a branch (see `Prob::adapt`).
        let one = 0u32.wrapping_sub(u32::from(bit));
        self.low += u64::from(bound & one);
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    /// `bit` under `prob`, which then moves towards it.
    #[inline(always)]
    pub fn bit(&mut self, prob: &mut Prob, bit: bool) {
        self.put(*prob, bit);
        prob.adapt(bit);
    }

    /// `bit` under `prob`, which stays as it is (a static model).
    #[inline]
    pub fn bit_static(&mut self, prob: Prob, bit: bool) {
        self.put(prob, bit);
    }

    /// The low `width` bits of `value` (0 to 64 of them), least significant first, under
    /// `tree`'s slots, which adapt. A value wider than `width` is refused as over width.
    pub fn bits(&mut self, tree: &mut BitTree, width: u8, value: u64) -> Result<(), EncodeError> {
        if width > 64 || (width < 64 && value >> width != 0) {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        for i in 0..width {
            self.bit(
                &mut tree.probs[BitTree::slot(i, value)],
                value >> i & 1 == 1,
            );
        }
        Ok(())
    }

    /// Ends the stream and appends it to `out`: the interval's bottom flushed, the first byte
    /// (always 0) and up to [`MAX_IMPLICIT_ZEROS`] trailing zero bytes dropped.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        for _ in 0..5 {
            self.shift_low();
        }
        // The interval starts within [0, 2^32) and only narrows, so nothing carries into the
        // first byte: it is the initial cache, 0.
        debug_assert_eq!(self.out.first(), Some(&0));
        let body = self.out.get(1..).unwrap_or_default();
        let zeros = body
            .iter()
            .rev()
            .take(MAX_IMPLICIT_ZEROS)
            .take_while(|&&b| b == 0)
            .count();
        out.extend_from_slice(&body[..body.len() - zeros]);
    }
}

/// Reads bits back from a stream, refusing one that is not what an encoder writes.
#[derive(Debug, Clone)]
pub struct RangeDecoder<'a> {
    code: u32,
    range: u32,
    bytes: &'a [u8],
    /// Bytes taken, those past the end (read as zeros) included.
    at: usize,
    /// Offset of the stream within the frame, for error positions.
    base: usize,
}

impl<'a> RangeDecoder<'a> {
    /// A decoder over `bytes`, which start at byte `base` of the frame; it reads its first
    /// four bytes (zeros past the end).
    pub fn new(bytes: &'a [u8], base: usize) -> Result<RangeDecoder<'a>, DecodeError> {
        let mut d = RangeDecoder {
            code: 0,
            range: u32::MAX,
            bytes,
            at: 0,
            base,
        };
        for _ in 0..4 {
            d.code = (d.code << 8) | u32::from(d.next()?);
        }
        d.check()?;
        Ok(d)
    }

    /// The next byte; past the end, a zero the encoder dropped, at most
    /// [`MAX_IMPLICIT_ZEROS`] of them.
    #[inline(always)]
    fn next(&mut self) -> Result<u8, DecodeError> {
        let b = match self.bytes.get(self.at) {
            Some(&b) => b,
            None if self.at - self.bytes.len() < MAX_IMPLICIT_ZEROS => 0,
            None => {
                return Err(DecodeError::new(
                    ErrorKind::Truncated,
                    self.base + self.bytes.len(),
                ))
            }
        };
        self.at += 1;
        Ok(b)
    }

    /// The code lies inside the range, as every encoder leaves it.
    #[inline]
    fn check(&self) -> Result<(), DecodeError> {
        if self.code < self.range {
            Ok(())
        } else {
            Err(DecodeError::new(
                ErrorKind::NonCanonical,
                self.base + self.at.min(self.bytes.len()),
            ))
        }
    }

    /// A bit under `prob`. The code stays inside the range once [`RangeDecoder::new`] found
    /// it there: a 0 keeps `code < bound`, the new range; a 1 takes `bound` off both; a byte
    /// shifted in keeps `code × 256 + byte < range × 256`. So no later bit can find it
    /// outside, and none checks.
    #[inline(always)]
    fn get(&mut self, prob: Prob) -> Result<bool, DecodeError> {
        let bound = prob.bound(self.range);
        let bit = self.code >= bound;
        // Both sides chosen without a branch (see `Prob::adapt`).
        let one = 0u32.wrapping_sub(u32::from(bit));
        self.code -= bound & one;
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        while self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.next()?);
        }
        debug_assert!(self.check().is_ok(), "the code left its range");
        Ok(bit)
    }

    /// A bit under `prob`, which then moves towards it.
    #[inline(always)]
    pub fn bit(&mut self, prob: &mut Prob) -> Result<bool, DecodeError> {
        let bit = self.get(*prob)?;
        prob.adapt(bit);
        Ok(bit)
    }

    /// A bit under `prob`, which stays as it is.
    #[inline]
    pub fn bit_static(&mut self, prob: Prob) -> Result<bool, DecodeError> {
        self.get(prob)
    }

    /// `width` bits (0 to 64), least significant first, under `tree`'s slots, which adapt.
    pub fn bits(&mut self, tree: &mut BitTree, width: u8) -> Result<u64, DecodeError> {
        if width > 64 {
            return Err(DecodeError::new(
                ErrorKind::OverWidth,
                self.base + self.at.min(self.bytes.len()),
            ));
        }
        let mut v = 0u64;
        for i in 0..width {
            if self.bit(&mut tree.probs[BitTree::slot(i, v)])? {
                v |= 1 << i;
            }
        }
        Ok(v)
    }

    /// The byte of the frame the decoder has reached, for the position of a fault found in
    /// what it decoded.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.at.min(self.bytes.len())
    }

    /// Zeros read past the end so far.
    #[cfg(test)]
    pub(crate) fn implicit_zeros(&self) -> usize {
        self.at.saturating_sub(self.bytes.len())
    }

    /// Ends a stream that was zero-padded to a floor (the coded profile's CODE-5), once every
    /// bit is read: every byte not reached must be 0 (else trailing bytes, at the first that
    /// is not), and the code must be the interval's bottom (else not canonical). With
    /// [`RangeDecoder::finish`]'s rules for a stream above its floor, a padded stream that
    /// passes is the one the encoder writes and pads. Returns the stream's length.
    pub(crate) fn finish_padded(self) -> Result<usize, DecodeError> {
        let len = self.bytes.len();
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        if let Some(i) = rest.iter().position(|&b| b != 0) {
            return Err(DecodeError::new(
                ErrorKind::TrailingBytes,
                self.base + self.at + i,
            ));
        }
        if self.code != 0 {
            return Err(DecodeError::new(
                ErrorKind::NonCanonical,
                self.base + self.at.min(len).saturating_sub(1),
            ));
        }
        Ok(len)
    }

    /// Ends the stream once every bit the layout holds is read: every byte must have been
    /// reached (else trailing bytes), the code must be the interval's bottom, which is what
    /// the encoder flushes, and a last zero byte is only the encoder's when it dropped as many
    /// zeros as it may (else not canonical). A stream that passes is the one stream the
    /// encoder writes for the bits read. Returns the stream's length.
    pub fn finish(self) -> Result<usize, DecodeError> {
        let len = self.bytes.len();
        if self.at < len {
            return Err(DecodeError::new(
                ErrorKind::TrailingBytes,
                self.base + self.at,
            ));
        }
        if self.code != 0 {
            return Err(DecodeError::new(
                ErrorKind::NonCanonical,
                self.base + len.saturating_sub(1),
            ));
        }
        if self.bytes.last() == Some(&0) && self.at - len < MAX_IMPLICIT_ZEROS {
            return Err(DecodeError::new(
                ErrorKind::NonCanonical,
                self.base + len - 1,
            ));
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests;
