//! Bit sets: what every generated bit set does, written once.
//!
//! A generated bit set is a struct over the narrowest unsigned integer that holds its width,
//! a typed constant per named bit ([`Bit`]), and an impl of [`BitSet`] that gives its tables:
//! the bits it declares, their names, the bits they require, its width and byte order. Every
//! method (`contains`, `set`, `with`, `check`, `read`, `write`, the bit-stream forms) is a
//! provided method of [`BitSet`], and the `Debug`, serde and `arbitrary` impls the generator
//! prints call the functions of this module. Bring the trait into scope to call them:
//! `use ackwire_rt::BitSet;` (`ackwire_codec::BitSet` for the reference protocol).
//!
//! A bit is typed by the set it belongs to, so that testing a set for another set's bit does
//! not compile:
//!
//! ```compile_fail
//! use ackwire_rt::{Bit, BitSet};
//!
//! #[derive(Clone, Copy, Default)]
//! struct A(u8);
//! #[derive(Clone, Copy, Default)]
//! struct B(u8);
//! impl A {
//!     const X: Bit<Self> = Bit::new(0);
//! }
//! impl BitSet for A {
//!     type Store = u8;
//!     const WIDTH: u8 = 8;
//!     const NAMES: &'static [(&'static str, u8)] = &[("X", 0)];
//!     const DECLARED: u64 = 0x1;
//!     const REQUIRES: &'static [(u8, u8)] = &[];
//!     const BIG_ENDIAN: bool = false;
//!     fn from_bits(bits: u8) -> Self { A(bits) }
//!     fn bits(&self) -> u8 { self.0 }
//! }
//! impl BitSet for B {
//!     type Store = u8;
//!     const WIDTH: u8 = 8;
//!     const NAMES: &'static [(&'static str, u8)] = &[];
//!     const DECLARED: u64 = 0;
//!     const REQUIRES: &'static [(u8, u8)] = &[];
//!     const BIG_ENDIAN: bool = false;
//!     fn from_bits(bits: u8) -> Self { B(bits) }
//!     fn bits(&self) -> u8 { self.0 }
//! }
//! let _ = B::empty().contains(A::X);
//! ```

use crate::{BitReader, BitWriter, DecodeError, EncodeError, ErrorKind, Reader, WriteExt};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// The integer a bit set is stored in: `u8`, `u16`, `u32` or `u64`.
pub trait BitStore:
    Copy + Default + Eq + Hash + fmt::Debug + Into<u64> + sealed::Sealed + 'static
{
    /// Its width in bits.
    const BITS: u32;

    /// The low bits of `v`; the bits above the store's width are dropped.
    fn truncate(v: u64) -> Self;

    /// Reads the store's own integer, byte-aligned: the runtime's typed reads.
    fn read(r: &mut Reader<'_>, big_endian: bool) -> Result<Self, DecodeError>;
}

macro_rules! bit_stores {
    ($($t:ident, $be:ident;)*) => {$(
        impl sealed::Sealed for $t {}

        impl BitStore for $t {
            const BITS: u32 = $t::BITS;

            #[inline]
            fn truncate(v: u64) -> Self {
                v as $t
            }

            #[inline]
            fn read(r: &mut Reader<'_>, big_endian: bool) -> Result<Self, DecodeError> {
                if big_endian {
                    r.$be()
                } else {
                    r.$t()
                }
            }
        }
    )*};
}

bit_stores! {
    u8, u8;
    u16, u16_be;
    u32, u32_be;
    u64, u64_be;
}

/// Bit `index` of the bit set `S`: the type of a set's named-bit constants
/// (`ChangeMask::POSE`), so that only a set's own bits can be tested or set on it.
pub struct Bit<S> {
    index: u8,
    set: PhantomData<fn() -> S>,
}

impl<S> Bit<S> {
    /// Bit `index` (0 the least significant) of `S`; generated code declares a set's named
    /// bits with it.
    #[inline]
    pub const fn new(index: u8) -> Self {
        Bit {
            index,
            set: PhantomData,
        }
    }

    /// Its index, 0 the least significant.
    #[inline]
    pub const fn index(self) -> u8 {
        self.index
    }
}

impl<S> Clone for Bit<S> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Bit<S> {}

impl<S> PartialEq for Bit<S> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl<S> Eq for Bit<S> {}

impl<S> Hash for Bit<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl<S> fmt::Debug for Bit<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bit({})", self.index)
    }
}

/// A bit set of a layout: its tables, given by the generated impl, and every operation on it.
///
/// A decoder refuses a reserved bit set ([`ErrorKind::ReservedBit`]) and a named bit set
/// without the bit it requires ([`ErrorKind::InvalidCondition`]), at the set's first byte (or
/// bit); an encoder refuses to write either.
pub trait BitSet: Copy + 'static {
    /// The integer the set is stored in.
    type Store: BitStore;
    /// Width on the wire, in bits.
    const WIDTH: u8;
    /// Every named bit, with its index, in declaration order.
    const NAMES: &'static [(&'static str, u8)];
    /// The named bits, as a mask: every other bit is reserved.
    const DECLARED: u64;
    /// Each bit that requires another, with that bit: (bit, required), in declaration order.
    const REQUIRES: &'static [(u8, u8)];
    /// Read and written most significant byte first where the set is byte-aligned.
    const BIG_ENDIAN: bool;

    /// A set from its raw bits (see [`BitSet::check`]).
    fn from_bits(bits: Self::Store) -> Self;

    /// The raw bits.
    fn bits(&self) -> Self::Store;

    /// No bit set.
    #[inline]
    fn empty() -> Self {
        Self::from_bits(Self::Store::default())
    }

    /// Whether bit `bit` is set.
    #[inline]
    fn contains(&self, bit: Bit<Self>) -> bool {
        let raw: u64 = self.bits().into();
        u32::from(bit.index) < Self::Store::BITS && raw >> bit.index & 1 == 1
    }

    /// Sets or clears bit `bit`.
    #[inline]
    fn set(&mut self, bit: Bit<Self>, on: bool) {
        if u32::from(bit.index) < Self::Store::BITS {
            let raw: u64 = self.bits().into();
            let mask = 1u64 << bit.index;
            let raw = if on { raw | mask } else { raw & !mask };
            *self = Self::from_bits(Self::Store::truncate(raw));
        }
    }

    /// This set with bit `bit` set too.
    #[must_use]
    #[inline]
    fn with(mut self, bit: Bit<Self>) -> Self {
        self.set(bit, true);
        self
    }

    /// Whether an encoder may write these bits: no reserved bit set, and every bit that
    /// requires another with that one set (WIRE-12).
    #[inline]
    fn check(&self) -> Result<(), ErrorKind> {
        let raw: u64 = self.bits().into();
        if raw & !Self::DECLARED != 0 {
            return Err(ErrorKind::ReservedBit);
        }
        for &(bit, required) in Self::REQUIRES {
            if raw >> bit & 1 == 1 && raw >> required & 1 == 0 {
                return Err(ErrorKind::InvalidCondition);
            }
        }
        Ok(())
    }

    /// Reads the set, byte-aligned, refusing what [`BitSet::check`] refuses.
    #[inline]
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let at = r.pos();
        let bits = if u32::from(Self::WIDTH) == Self::Store::BITS {
            Self::Store::read(r, Self::BIG_ENDIAN)?
        } else {
            let n = usize::from(Self::WIDTH / 8);
            Self::Store::truncate(r.uint(n, Self::BIG_ENDIAN)?)
        };
        let v = Self::from_bits(bits);
        v.check().map_err(|kind| DecodeError::new(kind, at))?;
        Ok(v)
    }

    /// Writes the set, byte-aligned.
    #[inline]
    fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.check().map_err(EncodeError::new)?;
        let n = usize::from(Self::WIDTH / 8);
        out.uint(n, Self::BIG_ENDIAN, self.bits().into())
    }

    /// Reads the set from a bit stream, refusing what [`BitSet::check`] refuses.
    #[inline]
    fn read_bits(b: &mut BitReader<'_>) -> Result<Self, DecodeError> {
        let at = b.bit_pos();
        let v = Self::from_bits(Self::Store::truncate(b.uint(Self::WIDTH)?));
        v.check().map_err(|kind| DecodeError::at_bit(kind, at))?;
        Ok(v)
    }

    /// Writes the set into a bit stream.
    #[inline]
    fn write_bits(&self, w: &mut BitWriter) -> Result<(), EncodeError> {
        self.check().map_err(EncodeError::new)?;
        w.uint(Self::WIDTH, self.bits().into())
    }
}

/// `Debug` of a bit set: the names of its bits (`{"POSE", "HEALTH"}`), then its raw bits
/// when a reserved one is set (`{"POSE"} (raw 0x9)`).
pub fn debug<S: BitSet>(set: &S, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let raw: u64 = set.bits().into();
    let names = S::NAMES
        .iter()
        .filter(|(_, i)| u32::from(*i) < S::Store::BITS && raw >> i & 1 == 1)
        .map(|(n, _)| n);
    f.debug_set().entries(names).finish()?;
    if set.check() == Err(ErrorKind::ReservedBit) {
        write!(f, " (raw {raw:#x})")?;
    }
    Ok(())
}

/// The JSON form of a bit set: the list of its bits' names (`["KEYFRAME", "CHECK"]`).
pub fn serialize<S: BitSet, Z: serde::Serializer>(set: &S, s: Z) -> Result<Z::Ok, Z::Error> {
    crate::json::serialize_bits(S::NAMES, set.bits().into(), s)
}

/// A bit set from the list of its bits' names; an unknown name is an error.
pub fn deserialize<'de, S: BitSet, D: serde::Deserializer<'de>>(d: D) -> Result<S, D::Error> {
    crate::json::deserialize_bits(S::NAMES, d).map(|bits| S::from_bits(S::Store::truncate(bits)))
}

/// An arbitrary set of named bits only, each with the bit it requires (in declaration order).
#[cfg(feature = "arbitrary")]
pub fn arbitrary<'a, S: BitSet>(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<S>
where
    S::Store: arbitrary::Arbitrary<'a>,
{
    let raw: u64 = u.arbitrary::<S::Store>()?.into();
    let mut v = S::from_bits(S::Store::truncate(raw & S::DECLARED));
    for &(bit, required) in S::REQUIRES {
        if v.contains(Bit::new(bit)) {
            v.set(Bit::new(required), true);
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set as the generator prints one: 16 bits, two of them requiring the first.
    #[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
    struct Mask(u16);

    impl Mask {
        const POSE: Bit<Self> = Bit::new(0);
        const HEALTH: Bit<Self> = Bit::new(1);
        const FULL: Bit<Self> = Bit::new(14);
    }

    impl BitSet for Mask {
        type Store = u16;
        const WIDTH: u8 = 16;
        const NAMES: &'static [(&'static str, u8)] = &[("POSE", 0), ("HEALTH", 1), ("FULL", 14)];
        const DECLARED: u64 = 0x4003;
        const REQUIRES: &'static [(u8, u8)] = &[(14, 0)];
        const BIG_ENDIAN: bool = true;

        fn from_bits(bits: u16) -> Self {
            Mask(bits)
        }

        fn bits(&self) -> u16 {
            self.0
        }
    }

    impl fmt::Debug for Mask {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            debug(self, f)
        }
    }

    #[test]
    fn bits_are_set_tested_and_checked() {
        // WIRE-12: reserved bits and required bits.
        let mut m = Mask::empty().with(Mask::FULL);
        assert!(m.contains(Mask::FULL) && !m.contains(Mask::POSE));
        assert_eq!(m.check(), Err(ErrorKind::InvalidCondition));
        m.set(Mask::POSE, true);
        assert_eq!(m.check(), Ok(()));
        m.set(Mask::FULL, false);
        assert_eq!(m.bits(), 1);
        assert_eq!(Mask::from_bits(0x8001).check(), Err(ErrorKind::ReservedBit));
        assert_eq!(
            format!("{:?}", Mask::from_bits(0x8003)),
            "{\"POSE\", \"HEALTH\"} (raw 0x8003)"
        );
        assert_eq!(
            format!("{:?}", Mask::empty().with(Mask::HEALTH)),
            "{\"HEALTH\"}"
        );
    }

    #[test]
    fn reads_and_writes_refuse_what_check_refuses() {
        // WIRE-12.
        let mut out = Vec::new();
        Mask::empty()
            .with(Mask::POSE)
            .with(Mask::FULL)
            .write(&mut out)
            .unwrap();
        assert_eq!(out, [0x40, 0x01]);
        let mut r = Reader::new(&out);
        assert_eq!(Mask::read(&mut r).unwrap().bits(), 0x4001);
        let bad = [0x00, 0x00, 0x80, 0x00];
        let mut r = Reader::new(&bad);
        Mask::read(&mut r).unwrap();
        let e = Mask::read(&mut r).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::ReservedBit, 2));
        assert_eq!(
            Mask::from_bits(0x4000).write(&mut out).unwrap_err().kind,
            ErrorKind::InvalidCondition
        );
    }
}
