//! The runtime the generated codecs call: a checked reader, a writer, LEB128 varints and
//! zigzag, bit streams for packed bodies, FNV-1a, and the serde helpers of the JSON form.
//!
//! The reader only hands out checked sub-slices and never indexes past its input (the rustls
//! `Reader` pattern); every fault becomes a [`DecodeError`] at the byte (or bit) where it was
//! found. Canonical rules of DESIGN.md section 3 enforced here: "a varint that is longer than
//! needed, a value over its field's width ... a count that the remaining bytes cannot hold, or
//! trailing bytes after a frame are decode errors".

use crate::error::{DecodeError, EncodeError, ErrorKind};
use bitvec::prelude::*;

pub use bitvec;

/// A cursor over a frame's bytes that only hands out checked reads.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes read so far: the offset of the next byte.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The unread bytes, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Consumes `n` bytes and returns them.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::new(ErrorKind::Truncated, self.buf.len()));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Consumes `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// An unsigned integer of `bytes` bytes (1 to 8) in the given byte order.
    pub fn uint(&mut self, bytes: usize, big_endian: bool) -> Result<u64, DecodeError> {
        let raw = self.take(bytes)?;
        let mut v = 0u64;
        if big_endian {
            for b in raw {
                v = (v << 8) | u64::from(*b);
            }
        } else {
            for b in raw.iter().rev() {
                v = (v << 8) | u64::from(*b);
            }
        }
        Ok(v)
    }

    /// A `bool` byte: 0 or 1, anything else is over its width.
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        let at = self.pos;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::new(ErrorKind::OverWidth, at)),
        }
    }

    /// An IEEE 754 single; NaN and infinities are refused, as no canonical encoder writes them.
    pub fn f32(&mut self, big_endian: bool) -> Result<f32, DecodeError> {
        let at = self.pos;
        let v = f32::from_bits(self.uint(4, big_endian)? as u32);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(DecodeError::new(ErrorKind::NonFinite, at))
        }
    }

    /// An IEEE 754 double; NaN and infinities are refused.
    pub fn f64(&mut self, big_endian: bool) -> Result<f64, DecodeError> {
        let at = self.pos;
        let v = f64::from_bits(self.uint(8, big_endian)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(DecodeError::new(ErrorKind::NonFinite, at))
        }
    }

    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    ///
    /// DESIGN.md section 3: "varint = unsigned LEB128, at most 10 bytes"; a varint longer than
    /// needed (a last byte of 0 after the first) is non-canonical, a value over `bits` bits is
    /// over its width.
    pub fn varint(&mut self, bits: u8) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut value = 0u64;
        for i in 0..10u32 {
            let byte = self.u8()?;
            let low = u64::from(byte & 0x7f);
            if i == 9 && byte > 1 {
                // The tenth byte holds bit 63 only; like every varint fault, it is reported at
                // the varint's first byte.
                return Err(DecodeError::new(ErrorKind::OverWidth, start));
            }
            value |= low << (7 * i);
            if byte & 0x80 == 0 {
                if i > 0 && byte == 0 {
                    return Err(DecodeError::new(ErrorKind::NonCanonicalVarint, start));
                }
                if bits < 64 && value >> bits != 0 {
                    return Err(DecodeError::new(ErrorKind::OverWidth, start));
                }
                return Ok(value);
            }
        }
        // Not reached: the tenth byte either ends the varint or is refused above.
        Err(DecodeError::new(ErrorKind::OverWidth, start))
    }

    /// A zigzag varint of a signed value of at most `bits` bits.
    pub fn zigzag(&mut self, bits: u8) -> Result<i64, DecodeError> {
        Ok(unzigzag(self.varint(bits)?))
    }

    /// Checks that `count` elements of at least `min_bytes` bytes each can fit in what remains,
    /// before anything is allocated for them, and returns the count as a `usize`.
    pub fn count(&self, count: u64, min_bytes: u64, at: usize) -> Result<usize, DecodeError> {
        let need = count.checked_mul(min_bytes.max(1));
        match need {
            Some(n) if n <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(DecodeError::new(ErrorKind::CountTooLarge, at)),
        }
    }

    /// Ends a frame: every byte must have been read.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(DecodeError::new(ErrorKind::TrailingBytes, self.pos))
        }
    }

    /// Reads a bit-packed body from here: `read` decodes it from a [`BitReader`], whose zero
    /// padding to the next byte is then checked, and the reader moves past it.
    pub fn packed<T>(
        &mut self,
        read: impl FnOnce(&mut BitReader<'a>) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        let mut bits = BitReader::new(self.rest(), self.pos);
        let value = read(&mut bits)?;
        let used = bits.finish()?;
        self.pos += used;
        Ok(value)
    }
}

/// A frame of a spec: a whole message with an encoder and a decoder of its own.
pub trait Frame:
    Sized + Clone + std::fmt::Debug + PartialEq + serde::Serialize + serde::de::DeserializeOwned
{
    /// The frame's name (`acked`, `datagram`, ...): its spec name in snake_case.
    const NAME: &'static str;

    /// Decodes a whole frame; bytes after it are an error.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError>;

    /// Appends the frame's bytes to `out`. On error `out` may hold part of the frame.
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;

    /// The number of bytes [`Frame::encode`] writes for a valid value.
    fn encoded_len(&self) -> usize;

    /// The frame's bytes.
    fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode(&mut out)?;
        Ok(out)
    }
}

/// Something done with a frame type chosen by name at run time (see the generated
/// `visit_frame`): decode to JSON, encode from JSON, explain.
pub trait FrameVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the frame type named.
    fn visit<F: Frame>(self) -> Self::Output;
}

/// [`FrameVisitor`] for work that also needs `arbitrary` values of the frame (property tests,
/// structured fuzzing).
#[cfg(feature = "arbitrary")]
pub trait ArbitraryFrameVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the frame type named.
    fn visit<F: Frame + for<'a> arbitrary::Arbitrary<'a>>(self) -> Self::Output;
}

/// A finite single from unstructured bytes (non-finite ones become 0, which the wire refuses).
#[cfg(feature = "arbitrary")]
pub fn arbitrary_f32(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<f32> {
    let v: f32 = u.arbitrary()?;
    Ok(if v.is_finite() { v } else { 0.0 })
}

/// A finite double from unstructured bytes.
#[cfg(feature = "arbitrary")]
pub fn arbitrary_f64(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<f64> {
    let v: f64 = u.arbitrary()?;
    Ok(if v.is_finite() { v } else { 0.0 })
}

/// `len` strictly ascending values of at most `bits` bits (fewer when the width cannot hold
/// `len`).
#[cfg(feature = "arbitrary")]
pub fn arbitrary_ascending(
    u: &mut arbitrary::Unstructured<'_>,
    len: usize,
    bits: u8,
) -> arbitrary::Result<Vec<u64>> {
    let max = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut out = Vec::with_capacity(len);
    // Steps small enough that `len` of them always fit under `max`.
    let step = (max / (len as u64 + 1)).clamp(1, 1 << 20);
    let mut next = u.int_in_range(0..=step - 1)?;
    for _ in 0..len {
        out.push(next);
        match next.checked_add(u.int_in_range(1..=step)?) {
            Some(n) if n <= max => next = n,
            _ => break,
        }
    }
    Ok(out)
}

/// Reads `count` elements with `elem`, after checking that `count` elements of at least
/// `min_bytes` bytes fit in what remains. An element's error gets its index.
pub fn read_list<'a, T>(
    r: &mut Reader<'a>,
    count: u64,
    min_bytes: u64,
    mut elem: impl FnMut(&mut Reader<'a>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let n = r.count(count, min_bytes, r.pos())?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        items.push(elem(r).map_err(|e| e.index(i))?);
    }
    Ok(items)
}

/// [`read_list`] in a bit-packed body, with the minimum element size in bits.
pub fn read_bit_list<'a, T>(
    b: &mut BitReader<'a>,
    count: u64,
    min_bits: u64,
    mut elem: impl FnMut(&mut BitReader<'a>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let n = b.count(count, min_bits, b.bit_pos())?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        items.push(elem(b).map_err(|e| e.index(i))?);
    }
    Ok(items)
}

/// Reads an ascending element: the raw value read by `read` is the difference from `prev`
/// (absolute for the first), at least 1 after the first.
pub fn read_ascending<'a>(
    r: &mut Reader<'a>,
    prev: &mut Option<u64>,
    bits: u8,
    read: impl FnOnce(&mut Reader<'a>) -> Result<u64, DecodeError>,
) -> Result<u64, DecodeError> {
    let at = r.pos();
    let v = ascending_value(*prev, read(r)?, bits, at)?;
    *prev = Some(v);
    Ok(v)
}

/// The difference an ascending element is written as (the value itself when it does not
/// ascend: encoding then fails, so only the length is asked), moving `prev` on.
pub fn ascending_step(prev: &mut Option<u64>, v: u64) -> u64 {
    let d = ascending_delta(*prev, v).unwrap_or(v);
    *prev = Some(v);
    d
}

/// `bytes`: a varint length, then that many bytes.
pub fn read_bytes(r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError> {
    let n = r.varint(64)?;
    // Like a list's count, a length too large is reported where the elements would begin.
    let n = r.count(n, 1, r.pos())?;
    Ok(r.take(n)?.to_vec())
}

/// `bytes?`: a varint (length + 1), then that many bytes; 0 means absent.
pub fn read_opt_bytes(r: &mut Reader<'_>) -> Result<Option<Vec<u8>>, DecodeError> {
    match r.varint(64)? {
        0 => Ok(None),
        n => {
            let n = r.count(n - 1, 1, r.pos())?;
            Ok(Some(r.take(n)?.to_vec()))
        }
    }
}

/// Writes `bytes`: a varint length, then the bytes.
pub fn write_bytes(out: &mut Vec<u8>, v: &[u8]) -> Result<(), EncodeError> {
    out.varint(64, v.len() as u64)?;
    out.extend_from_slice(v);
    Ok(())
}

/// Writes `bytes?`: a varint (length + 1), then the bytes; 0 when absent.
pub fn write_opt_bytes(out: &mut Vec<u8>, v: Option<&[u8]>) -> Result<(), EncodeError> {
    match v {
        None => out.varint(64, 0),
        Some(v) => {
            out.varint(64, v.len() as u64 + 1)?;
            out.extend_from_slice(v);
            Ok(())
        }
    }
}

/// The encoded length of `bytes`.
pub fn bytes_len(v: &[u8]) -> usize {
    varint_len(v.len() as u64) + v.len()
}

/// The encoded length of `bytes?`.
pub fn opt_bytes_len(v: Option<&[u8]>) -> usize {
    v.map_or(1, |v| varint_len(v.len() as u64 + 1) + v.len())
}

/// Writes a bit-packed body with `write`, padded with zero bits to a byte.
pub fn write_packed(
    out: &mut Vec<u8>,
    write: impl FnOnce(&mut BitWriter) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let mut w = BitWriter::new();
    write(&mut w)?;
    w.finish(out);
    Ok(())
}

/// Writes the elements of an ascending list as differences, with `write` for each.
pub fn write_ascending<W>(
    w: &mut W,
    prev: &mut Option<u64>,
    v: u64,
    bits: u8,
    write: impl FnOnce(&mut W, u64) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    // The element itself must fit, not only its difference: the decoder checks the sum.
    if bits < 64 && v >> bits != 0 {
        return Err(EncodeError::new(ErrorKind::OverWidth));
    }
    let d = ascending_delta(*prev, v)?;
    *prev = Some(v);
    write(w, d)
}

/// The encoded length of an ascending list of varints.
pub fn ascending_varints_len(items: impl IntoIterator<Item = u64>) -> usize {
    let mut prev = None;
    items
        .into_iter()
        .map(|v| {
            let d = match prev {
                Some(p) if v > p => v - p,
                _ => v,
            };
            prev = Some(v);
            varint_len(d)
        })
        .sum()
}

/// Maps a signed value onto an unsigned one: (n << 1) ^ (n >> 63).
pub const fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// The inverse of [`zigzag`].
pub const fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// How many bytes the LEB128 form of `v` takes.
pub const fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    if bits == 0 {
        1
    } else {
        bits.div_ceil(7)
    }
}

/// A bit stream over the bytes of a packed body: fields are read least significant bit first,
/// starting at the least significant bit of each byte.
///
/// A field is read from the (at most nine) bytes it spans at once, not bit by bit, the mirror
/// of [`BitWriter`].
#[derive(Debug)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Byte offset of the body within the frame, for error positions.
    base: usize,
}

impl<'a> BitReader<'a> {
    /// A reader over `bytes`, which start at byte `base` of the frame.
    pub fn new(bytes: &'a [u8], base: usize) -> Self {
        BitReader {
            bytes,
            pos: 0,
            base,
        }
    }

    fn frame_bit(&self) -> usize {
        self.base * 8 + self.pos
    }

    /// Bits not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() * 8 - self.pos
    }

    /// An unsigned field of `width` bits (1 to 64); a width over 64 is refused as over width.
    pub fn uint(&mut self, width: u8) -> Result<u64, DecodeError> {
        if width > 64 {
            return Err(DecodeError::at_bit(ErrorKind::OverWidth, self.frame_bit()));
        }
        let w = usize::from(width);
        // As in the byte reader, truncation is reported where the input ends.
        let truncated =
            || DecodeError::at_bit(ErrorKind::Truncated, (self.base + self.bytes.len()) * 8);
        if w > self.remaining() {
            return Err(truncated());
        }
        let span = self
            .bytes
            .get(self.pos / 8..(self.pos + w).div_ceil(8))
            .ok_or_else(truncated)?;
        // At most 9 bytes: a field of 64 bits that starts within a byte.
        let mut buf = [0u8; 16];
        for (to, from) in buf.iter_mut().zip(span) {
            *to = *from;
        }
        let v = (u128::from_le_bytes(buf) >> (self.pos % 8)) as u64;
        self.pos += w;
        Ok(v & 1u64
            .checked_shl(u32::from(width))
            .map_or(u64::MAX, |bit| bit - 1))
    }

    /// A two's complement field of `width` bits (2 to 64), sign-extended.
    pub fn int(&mut self, width: u8) -> Result<i64, DecodeError> {
        let raw = self.uint(width)?;
        let shift = 64 - u32::from(width);
        Ok(((raw << shift) as i64) >> shift)
    }

    /// One bit.
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        Ok(self.uint(1)? == 1)
    }

    /// A finite IEEE 754 single of 32 bits.
    pub fn f32(&mut self) -> Result<f32, DecodeError> {
        let at = self.frame_bit();
        let v = f32::from_bits(self.uint(32)? as u32);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(DecodeError::at_bit(ErrorKind::NonFinite, at))
        }
    }

    /// A finite IEEE 754 double of 64 bits.
    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        let at = self.frame_bit();
        let v = f64::from_bits(self.uint(64)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(DecodeError::at_bit(ErrorKind::NonFinite, at))
        }
    }

    /// The bit offset of the next bit, from the start of the frame.
    pub fn bit_pos(&self) -> usize {
        self.frame_bit()
    }

    /// Checks that `count` elements of at least `min_bits` bits each can fit in what remains.
    pub fn count(&self, count: u64, min_bits: u64, at: usize) -> Result<usize, DecodeError> {
        match count.checked_mul(min_bits.max(1)) {
            Some(n) if n <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(DecodeError::at_bit(ErrorKind::CountTooLarge, at)),
        }
    }

    /// Ends the body: the bits up to the next byte boundary are padding and must be zero.
    /// Returns the whole bytes the body took.
    pub fn finish(self) -> Result<usize, DecodeError> {
        let used = self.pos % 8;
        if used > 0 {
            let padding = self.bytes.get(self.pos / 8).map_or(0, |b| b >> used);
            if padding != 0 {
                return Err(DecodeError::at_bit(
                    ErrorKind::ReservedBit,
                    self.frame_bit() + padding.trailing_zeros() as usize,
                ));
            }
        }
        Ok(self.pos.div_ceil(8))
    }
}

/// Writes a bit-packed body: fields least significant bit first, padded with zero bits to a
/// byte by [`BitWriter::finish`].
///
/// Bits gather in an accumulator and leave it a whole byte at a time, rather than going one by
/// one into a bit vector: a NetBaseline server writes every component of every entity this way
/// each tick. A test holds it and [`BitReader`] to `bitvec`'s `store_le` and `load_le`.
#[derive(Debug, Default)]
pub struct BitWriter {
    /// The whole bytes written so far.
    bytes: Vec<u8>,
    /// The bits after them, fewer than 8, in the low bits; the bits above are zero.
    pending: u8,
    /// How many bits `pending` holds.
    pending_bits: u32,
}

impl BitWriter {
    /// An empty body.
    pub fn new() -> Self {
        BitWriter::default()
    }

    /// An unsigned field of `width` bits (1 to 64); a value that needs more bits is over its
    /// width, and so is every value for a width over 64.
    pub fn uint(&mut self, width: u8, v: u64) -> Result<(), EncodeError> {
        if width > 64 || (width < 64 && v >> width != 0) {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        self.put(u32::from(width), v);
        Ok(())
    }

    /// Appends the low `width` bits of `v`, whose higher bits are zero.
    fn put(&mut self, width: u32, v: u64) {
        // At most 7 pending bits and 64 new ones: 71 bits fit a u128.
        let acc = u128::from(self.pending) | (u128::from(v) << self.pending_bits);
        let total = self.pending_bits + width;
        let whole = (total / 8) as usize;
        self.bytes.extend_from_slice(&acc.to_le_bytes()[..whole]);
        self.pending = (acc >> (whole * 8)) as u8;
        self.pending_bits = total % 8;
    }

    /// A two's complement field of `width` bits.
    pub fn int(&mut self, width: u8, v: i64) -> Result<(), EncodeError> {
        check_int(v, width)?;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        self.uint(width, (v as u64) & mask)
    }

    /// One bit.
    pub fn bool(&mut self, v: bool) {
        self.put(1, u64::from(v));
    }

    /// A finite single.
    pub fn f32(&mut self, v: f32) -> Result<(), EncodeError> {
        finite(f64::from(v))?;
        self.uint(32, u64::from(v.to_bits()))
    }

    /// A finite double.
    pub fn f64(&mut self, v: f64) -> Result<(), EncodeError> {
        finite(v)?;
        self.uint(64, v.to_bits())
    }

    /// Appends the body, padded to a byte, to `out`.
    pub fn finish(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.bytes);
        if self.pending_bits > 0 {
            out.push(self.pending);
        }
    }
}

/// Byte-aligned writes onto a `Vec<u8>`.
pub trait WriteExt {
    /// An unsigned integer of `bytes` bytes in the given byte order; a value that needs more
    /// bytes is over its width.
    fn uint(&mut self, bytes: usize, big_endian: bool, v: u64) -> Result<(), EncodeError>;
    /// A signed integer of `bytes` bytes.
    fn int(&mut self, bytes: usize, big_endian: bool, v: i64) -> Result<(), EncodeError>;
    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    fn varint(&mut self, bits: u8, v: u64) -> Result<(), EncodeError>;
    /// A zigzag varint of a signed value of at most `bits` bits.
    fn zigzag(&mut self, bits: u8, v: i64) -> Result<(), EncodeError>;
    /// A finite single.
    fn f32(&mut self, big_endian: bool, v: f32) -> Result<(), EncodeError>;
    /// A finite double.
    fn f64(&mut self, big_endian: bool, v: f64) -> Result<(), EncodeError>;
}

impl WriteExt for Vec<u8> {
    fn uint(&mut self, bytes: usize, big_endian: bool, v: u64) -> Result<(), EncodeError> {
        if bytes < 8 && v >> (bytes * 8) != 0 {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        let le = v.to_le_bytes();
        if big_endian {
            self.extend(le[..bytes].iter().rev());
        } else {
            self.extend_from_slice(&le[..bytes]);
        }
        Ok(())
    }

    fn int(&mut self, bytes: usize, big_endian: bool, v: i64) -> Result<(), EncodeError> {
        let width = (bytes * 8) as u8;
        check_int(v, width)?;
        let mask = if bytes == 8 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        self.uint(bytes, big_endian, (v as u64) & mask)
    }

    fn varint(&mut self, bits: u8, mut v: u64) -> Result<(), EncodeError> {
        if bits < 64 && v >> bits != 0 {
            return Err(EncodeError::new(ErrorKind::OverWidth));
        }
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.push(byte);
                return Ok(());
            }
            self.push(byte | 0x80);
        }
    }

    fn zigzag(&mut self, bits: u8, v: i64) -> Result<(), EncodeError> {
        check_int(v, bits)?;
        self.varint(64, zigzag(v))
    }

    fn f32(&mut self, big_endian: bool, v: f32) -> Result<(), EncodeError> {
        finite(f64::from(v))?;
        self.uint(4, big_endian, u64::from(v.to_bits()))
    }

    fn f64(&mut self, big_endian: bool, v: f64) -> Result<(), EncodeError> {
        finite(v)?;
        self.uint(8, big_endian, v.to_bits())
    }
}

/// Refuses a signed value outside `width` bits of two's complement.
pub fn check_int(v: i64, width: u8) -> Result<(), EncodeError> {
    if width >= 64 {
        return Ok(());
    }
    let min = -(1i64 << (width - 1));
    let max = (1i64 << (width - 1)) - 1;
    if v < min || v > max {
        Err(EncodeError::new(ErrorKind::OverWidth))
    } else {
        Ok(())
    }
}

/// Refuses NaN and infinities, which no canonical decoder accepts.
pub fn finite(v: f64) -> Result<(), EncodeError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(EncodeError::new(ErrorKind::NonFinite))
    }
}

/// Refuses a value whose presence contradicts its condition.
pub fn presence(present: bool, cond: bool) -> Result<(), EncodeError> {
    if present == cond {
        Ok(())
    } else {
        Err(EncodeError::new(ErrorKind::InvalidCondition))
    }
}

/// The wire integer of a quantized value: round(value / scale), halves away from zero, a
/// non-finite value as 0 (DESIGN.md section 3: "a non-finite coordinate quantizes to 0").
pub fn quantize(value: f64, scale: f64) -> f64 {
    if value.is_finite() {
        (value / scale).round()
    } else {
        0.0
    }
}

/// A quantized value as a signed wire integer within `[min, max]`.
pub fn quantize_int(value: f64, scale: f64, min: i64, max: i64) -> Result<i64, EncodeError> {
    // Compared as i128: `i64::MAX as f64` rounds up to 2^63, which would let 2^63 through to
    // saturate. `q` is a whole finite number, so the cast is exact below 2^127.
    let q = quantize(value, scale) as i128;
    if q < i128::from(min) || q > i128::from(max) {
        Err(EncodeError::new(ErrorKind::OverWidth))
    } else {
        Ok(q as i64)
    }
}

/// A quantized value as an unsigned wire integer at most `max`.
pub fn quantize_uint(value: f64, scale: f64, max: u64) -> Result<u64, EncodeError> {
    let q = quantize(value, scale);
    // `max as f64` rounds u64::MAX up to 2^64, which `q` must stay below.
    if q < 0.0 || q > max as f64 || q >= 18_446_744_073_709_551_616.0 {
        Err(EncodeError::new(ErrorKind::OverWidth))
    } else {
        Ok(q as u64)
    }
}

/// The delta of an ascending list's element from the previous one (the first is absolute).
pub fn ascending_delta(prev: Option<u64>, v: u64) -> Result<u64, EncodeError> {
    match prev {
        None => Ok(v),
        Some(p) if v > p => Ok(v - p),
        Some(_) => Err(EncodeError::new(ErrorKind::NotAscending)),
    }
}

/// An ascending list's element from its delta: at least 1 after the first, and the sum must
/// stay within `bits` bits.
pub fn ascending_value(
    prev: Option<u64>,
    delta: u64,
    bits: u8,
    at: usize,
) -> Result<u64, DecodeError> {
    let v = match prev {
        None => delta,
        Some(_) if delta == 0 => return Err(DecodeError::new(ErrorKind::NotAscending, at)),
        Some(p) => p
            .checked_add(delta)
            .ok_or(DecodeError::new(ErrorKind::OverWidth, at))?,
    };
    if bits < 64 && v >> bits != 0 {
        return Err(DecodeError::new(ErrorKind::OverWidth, at));
    }
    Ok(v)
}

/// 32-bit FNV-1a (offset basis 2166136261, prime 16777619), the state check of DESIGN.md
/// section 3.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    Fnv1a32::new().update(bytes).finish()
}

/// Incremental 32-bit FNV-1a.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a32(u32);

impl Default for Fnv1a32 {
    fn default() -> Self {
        Fnv1a32::new()
    }
}

impl Fnv1a32 {
    /// The offset basis.
    pub const fn new() -> Self {
        Fnv1a32(2_166_136_261)
    }

    /// Folds `bytes` in.
    #[must_use]
    pub fn update(mut self, bytes: &[u8]) -> Self {
        for b in bytes {
            self.0 ^= u32::from(*b);
            self.0 = self.0.wrapping_mul(16_777_619);
        }
        self
    }

    /// The hash so far.
    pub const fn finish(self) -> u32 {
        self.0
    }
}

/// Serde helpers for the JSON form of frames.
pub mod json {
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::{SerializeSeq, Serializer};
    use std::fmt;

    /// Integers beyond this travel as decimal strings, so that a JavaScript reader keeps every
    /// bit (the protobuf JSON mapping's rule for 64-bit integers).
    const SAFE: u64 = (1 << 53) - 1;

    /// A 64-bit unsigned integer: a JSON number when it is at most 2^53 - 1, a string otherwise;
    /// both are accepted when reading.
    pub mod big_u64 {
        use super::*;

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
            if *v <= SAFE {
                s.serialize_u64(*v)
            } else {
                s.serialize_str(&v.to_string())
            }
        }

        /// Reads a number or a decimal string.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            d.deserialize_any(U64Visitor)
        }
    }

    /// A 64-bit signed integer, as [`big_u64`].
    pub mod big_i64 {
        use super::*;

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &i64, s: S) -> Result<S::Ok, S::Error> {
            if v.unsigned_abs() <= SAFE {
                s.serialize_i64(*v)
            } else {
                s.serialize_str(&v.to_string())
            }
        }

        /// Reads a number or a decimal string.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
            d.deserialize_any(I64Visitor)
        }
    }

    /// An optional [`big_u64`].
    pub mod opt_big_u64 {
        use super::*;

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => big_u64::serialize(v, s),
                None => s.serialize_none(),
            }
        }

        /// Reads null, a number or a decimal string.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            d.deserialize_any(OptVisitor(U64Visitor))
        }
    }

    /// An optional [`big_i64`].
    pub mod opt_big_i64 {
        use super::*;

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => big_i64::serialize(v, s),
                None => s.serialize_none(),
            }
        }

        /// Reads null, a number or a decimal string.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
            d.deserialize_any(OptVisitor(I64Visitor))
        }
    }

    /// A list of [`big_u64`].
    pub mod vec_big_u64 {
        use super::*;

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(v.len()))?;
            for x in v {
                if *x <= SAFE {
                    seq.serialize_element(x)?;
                } else {
                    seq.serialize_element(&x.to_string())?;
                }
            }
            seq.end()
        }

        /// Reads a list of numbers or decimal strings.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Vec<u64>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a list of unsigned integers")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(x) = seq.next_element::<Big>()? {
                        out.push(x.0);
                    }
                    Ok(out)
                }
            }
            d.deserialize_seq(V)
        }

        struct Big(u64);
        impl<'de> serde::Deserialize<'de> for Big {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(U64Visitor).map(Big)
            }
        }
    }

    struct U64Visitor;
    impl Visitor<'_> for U64Visitor {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an unsigned integer or a decimal string")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative")))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.parse()
                .map_err(|_| E::custom(format!("`{v}` is not an unsigned integer")))
        }
    }

    struct I64Visitor;
    impl Visitor<'_> for I64Visitor {
        type Value = i64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an integer or a decimal string")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
            i64::try_from(v).map_err(|_| E::custom(format!("{v} is too large")))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
            Ok(v)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
            v.parse()
                .map_err(|_| E::custom(format!("`{v}` is not an integer")))
        }
    }

    struct OptVisitor<V>(V);
    impl<'de, V: Visitor<'de>> Visitor<'de> for OptVisitor<V> {
        type Value = Option<V::Value>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            self.0.expecting(f)?;
            f.write_str(" or null")
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.0.visit_u64(v).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.0.visit_i64(v).map(Some)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            self.0.visit_str(v).map(Some)
        }
    }

    /// Bytes as a lower-case hex string.
    pub mod hex {
        use super::*;

        /// Writes `v` as hex.
        pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&to_hex(v))
        }

        /// Reads hex (white space between byte pairs allowed).
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            let text = <String as serde::Deserialize>::deserialize(d)?;
            from_hex(&text).map_err(de::Error::custom)
        }
    }

    /// Optional bytes as a hex string or null.
    pub mod opt_hex {
        use super::*;

        /// Writes `v` as hex, or null.
        pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => s.serialize_str(&to_hex(v)),
                None => s.serialize_none(),
            }
        }

        /// Reads hex or null.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
            let text = <Option<String> as serde::Deserialize>::deserialize(d)?;
            text.map(|t| from_hex(&t).map_err(de::Error::custom))
                .transpose()
        }
    }

    /// Lower-case hex of `bytes`.
    pub fn to_hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Bytes from hex; white space between byte pairs is ignored.
    pub fn from_hex(text: &str) -> Result<Vec<u8>, String> {
        let digits: Vec<(usize, char)> = text
            .char_indices()
            .filter(|(_, c)| !c.is_whitespace())
            .collect();
        if !digits.len().is_multiple_of(2) {
            return Err(format!("odd number of hex digits ({})", digits.len()));
        }
        digits
            .chunks(2)
            .map(|pair| {
                let hi = pair[0].1.to_digit(16);
                let lo = pair[1].1.to_digit(16);
                match (hi, lo) {
                    (Some(h), Some(l)) => Ok((h * 16 + l) as u8),
                    _ => {
                        let (at, c) = if hi.is_none() { pair[0] } else { pair[1] };
                        Err(format!("`{c}` at character {at} is not a hex digit"))
                    }
                }
            })
            .collect()
    }

    /// A bit set as the list of its bits' names (`["KEYFRAME", "CHECK"]`).
    pub fn serialize_bits<S: Serializer>(
        names: &[(&'static str, u8)],
        bits: u64,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let set: Vec<&str> = names
            .iter()
            .filter(|(_, i)| bits >> i & 1 == 1)
            .map(|(n, _)| *n)
            .collect();
        let mut seq = s.serialize_seq(Some(set.len()))?;
        for n in set {
            seq.serialize_element(n)?;
        }
        seq.end()
    }

    /// Reads a bit set from the list of its bits' names; an unknown name is an error.
    pub fn deserialize_bits<'de, D: Deserializer<'de>>(
        names: &'static [(&'static str, u8)],
        d: D,
    ) -> Result<u64, D::Error> {
        struct V(&'static [(&'static str, u8)]);
        impl<'de> Visitor<'de> for V {
            type Value = u64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of bit names")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
                let mut bits = 0u64;
                while let Some(name) = seq.next_element::<String>()? {
                    let Some((_, i)) = self.0.iter().find(|(n, _)| *n == name) else {
                        let known: Vec<&str> = self.0.iter().map(|(n, _)| *n).collect();
                        return Err(de::Error::custom(format!(
                            "unknown bit `{name}`, expected one of {}",
                            known.join(", ")
                        )));
                    };
                    bits |= 1 << i;
                }
                Ok(bits)
            }
        }
        d.deserialize_seq(V(names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_values() {
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
        assert_eq!(
            Fnv1a32::new().update(b"foo").update(b"bar").finish(),
            0xbf9c_f968
        );
    }

    #[test]
    fn zigzag_maps_small_magnitudes_to_small_numbers() {
        for (n, z) in [
            (0, 0),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (i64::MAX, u64::MAX - 1),
            (i64::MIN, u64::MAX),
        ] {
            assert_eq!(zigzag(n), z);
            assert_eq!(unzigzag(z), n);
        }
    }

    #[test]
    fn varints_round_trip_at_every_length() {
        for v in [
            0u64,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            out.varint(64, v).unwrap();
            assert_eq!(out.len(), varint_len(v));
            let mut r = Reader::new(&out);
            assert_eq!(r.varint(64).unwrap(), v);
            r.finish().unwrap();
        }
    }

    #[test]
    fn varints_longer_than_needed_are_refused() {
        let mut r = Reader::new(&[0x80, 0x00]);
        assert_eq!(
            r.varint(64).unwrap_err().kind,
            ErrorKind::NonCanonicalVarint
        );
        let mut r = Reader::new(&[0x81, 0x80, 0x00]);
        assert_eq!(
            r.varint(64).unwrap_err().kind,
            ErrorKind::NonCanonicalVarint
        );
    }

    #[test]
    fn varints_over_their_width_are_refused() {
        // 2^21 needs a fourth byte and 22 bits.
        let mut out = Vec::new();
        out.varint(64, 1 << 21).unwrap();
        assert_eq!(
            Reader::new(&out).varint(21).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            out.varint(21, 1 << 21).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        // A tenth byte above 1 would set bits past 63.
        let eleven = [0xff; 9].iter().copied().chain([0x02]).collect::<Vec<_>>();
        assert_eq!(
            Reader::new(&eleven).varint(64).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        let endless = [0xff; 12];
        assert_eq!(
            Reader::new(&endless).varint(64).unwrap_err().kind,
            ErrorKind::OverWidth
        );
    }

    #[test]
    fn truncation_is_reported_at_the_end_of_input() {
        let mut r = Reader::new(&[1, 2, 3]);
        let e = r.uint(4, false).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, 3));
        let mut r = Reader::new(&[0x80]);
        assert_eq!(r.varint(64).unwrap_err().kind, ErrorKind::Truncated);
    }

    #[test]
    fn counts_are_checked_before_allocation() {
        let r = Reader::new(&[0; 10]);
        assert_eq!(r.count(5, 2, 0).unwrap(), 5);
        assert_eq!(r.count(6, 2, 0).unwrap_err().kind, ErrorKind::CountTooLarge);
        assert_eq!(
            r.count(u64::MAX, 2, 0).unwrap_err().kind,
            ErrorKind::CountTooLarge
        );
    }

    #[test]
    fn integers_honour_byte_order_and_width() {
        let mut out = Vec::new();
        out.uint(2, false, 0x1234).unwrap();
        out.uint(2, true, 0x1234).unwrap();
        out.int(1, false, -2).unwrap();
        assert_eq!(out, [0x34, 0x12, 0x12, 0x34, 0xfe]);
        assert_eq!(
            out.clone().uint(1, false, 256).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            out.clone().int(1, false, 128).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        let mut r = Reader::new(&out);
        assert_eq!(r.uint(2, false).unwrap(), 0x1234);
        assert_eq!(r.uint(2, true).unwrap(), 0x1234);
        assert_eq!(r.uint(1, false).unwrap() as u8 as i8, -2);
    }

    #[test]
    fn bit_streams_are_least_significant_bit_first() {
        let mut w = BitWriter::new();
        w.bool(true);
        w.uint(7, 0x15).unwrap();
        w.int(5, -3).unwrap();
        let mut out = Vec::new();
        w.finish(&mut out);
        // bit 0: 1; bits 1..8: 0x15; bits 8..13: -3 as 5 bits = 0b11101, then 3 zero bits.
        assert_eq!(out, [0x01 | (0x15 << 1), 0b0001_1101]);
        let mut r = BitReader::new(&out, 0);
        assert!(r.bool().unwrap());
        assert_eq!(r.uint(7).unwrap(), 0x15);
        assert_eq!(r.int(5).unwrap(), -3);
        assert_eq!(r.finish().unwrap(), 2);
    }

    proptest::proptest! {
        /// The accumulating BitWriter writes what bitvec's `store_le` into an Lsb0 bit vector
        /// writes (the writer it replaced), and BitReader reads every field back.
        #[test]
        fn bit_writer_matches_bitvec_and_reads_back(
            fields in proptest::collection::vec((1u8..=64, proptest::num::u64::ANY), 0..40)
        ) {
            let fields: Vec<(u8, u64)> = fields
                .into_iter()
                .map(|(w, v)| (w, if w == 64 { v } else { v & ((1 << w) - 1) }))
                .collect();
            let mut w = BitWriter::new();
            let mut reference: BitVec<u8, Lsb0> = BitVec::new();
            for &(width, v) in &fields {
                w.uint(width, v).unwrap();
                let start = reference.len();
                reference.resize(start + usize::from(width), false);
                reference[start..].store_le(v);
            }
            let mut out = vec![0xaa];
            w.finish(&mut out);
            proptest::prop_assert_eq!(&out[1..], reference.as_raw_slice());
            let mut r = BitReader::new(&out[1..], 1);
            for &(width, v) in &fields {
                proptest::prop_assert_eq!(r.uint(width).unwrap(), v);
            }
            proptest::prop_assert_eq!(r.finish().unwrap(), out.len() - 1);
        }
    }

    proptest::proptest! {
        /// BitReader reads what bitvec's `load_le` over an Lsb0 view of the bytes reads (the
        /// reader it replaced), at any position and width, and is truncated exactly where that
        /// view ends.
        #[test]
        fn bit_reader_matches_bitvec(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..24),
            widths in proptest::collection::vec(1u8..=64, 0..12),
        ) {
            let view = bytes.view_bits::<Lsb0>();
            let mut r = BitReader::new(&bytes, 5);
            let mut pos = 0;
            for width in widths {
                let w = usize::from(width);
                match view.get(pos..pos + w) {
                    Some(field) => {
                        proptest::prop_assert_eq!(r.uint(width).unwrap(), field.load_le::<u64>());
                        pos += w;
                    }
                    None => {
                        let e = r.uint(width).unwrap_err();
                        proptest::prop_assert_eq!(
                            (e.kind, e.bit),
                            (ErrorKind::Truncated, Some((5 + bytes.len()) * 8))
                        );
                        break;
                    }
                }
                proptest::prop_assert_eq!(r.bit_pos(), 5 * 8 + pos);
            }
        }
    }

    #[test]
    fn bit_streams_refuse_a_value_over_its_width_and_widths_over_64() {
        let mut w = BitWriter::new();
        assert_eq!(w.uint(3, 8).unwrap_err().kind, ErrorKind::OverWidth);
        assert_eq!(w.uint(65, 0).unwrap_err().kind, ErrorKind::OverWidth);
        let bytes = [0xff; 20];
        let e = BitReader::new(&bytes, 2).uint(65).unwrap_err();
        assert_eq!((e.kind, e.bit), (ErrorKind::OverWidth, Some(16)));
        w.uint(3, 7).unwrap();
        let mut out = Vec::new();
        w.finish(&mut out);
        assert_eq!(out, [7]);
    }

    #[test]
    fn padding_bits_must_be_zero() {
        let bytes = [0b1000_0001u8];
        let mut r = BitReader::new(&bytes, 3);
        assert_eq!(r.uint(1).unwrap(), 1);
        let e = r.finish().unwrap_err();
        assert_eq!(
            (e.kind, e.bit, e.offset),
            (ErrorKind::ReservedBit, Some(31), 3)
        );
    }

    #[test]
    fn quantization_rounds_halves_away_from_zero() {
        assert_eq!(quantize(2.5, 1.0), 3.0);
        assert_eq!(quantize(-2.5, 1.0), -3.0);
        assert_eq!(quantize(f64::NAN, 0.5), 0.0);
        assert_eq!(quantize_int(1.0, 1.0 / 512.0, -32768, 32767).unwrap(), 512);
        assert_eq!(
            quantize_int(64.0, 1.0 / 512.0, -32768, 32767)
                .unwrap_err()
                .kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            quantize_uint(-0.6, 1.0, 255).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        assert_eq!(quantize_uint(-0.4, 1.0, 255).unwrap(), 0);
        assert_eq!(
            quantize_int(9.3e18, 1.0, i64::MIN, i64::MAX)
                .unwrap_err()
                .kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            quantize_int(i64::MIN as f64, 1.0, i64::MIN, i64::MAX).unwrap(),
            i64::MIN
        );
    }

    #[test]
    fn ascending_lists_need_a_difference_of_at_least_one() {
        assert_eq!(ascending_delta(None, 5).unwrap(), 5);
        assert_eq!(ascending_delta(Some(5), 7).unwrap(), 2);
        assert_eq!(
            ascending_delta(Some(5), 5).unwrap_err().kind,
            ErrorKind::NotAscending
        );
        assert_eq!(
            ascending_value(Some(5), 0, 64, 9).unwrap_err().kind,
            ErrorKind::NotAscending
        );
        assert_eq!(
            ascending_value(Some(u64::MAX), 1, 64, 9).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        assert_eq!(
            ascending_value(Some(255), 1, 8, 9).unwrap_err().kind,
            ErrorKind::OverWidth
        );
        let mut out = Vec::new();
        let mut prev = Some((1u64 << 48) - 1);
        let e = write_ascending(&mut out, &mut prev, (1 << 48) + 5, 48, |o, d| {
            o.varint(48, d)
        });
        assert_eq!(
            e.unwrap_err().kind,
            ErrorKind::OverWidth,
            "the element, not only its step, fits"
        );
    }

    #[test]
    fn non_finite_floats_are_refused_both_ways() {
        let mut out = Vec::new();
        assert_eq!(
            out.f32(false, f32::NAN).unwrap_err().kind,
            ErrorKind::NonFinite
        );
        let inf = f32::INFINITY.to_bits().to_le_bytes();
        assert_eq!(
            Reader::new(&inf).f32(false).unwrap_err().kind,
            ErrorKind::NonFinite
        );
    }
}
