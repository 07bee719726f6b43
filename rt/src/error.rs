//! The errors of generated codecs: one taxonomy of decode faults shared by every ackwire
//! implementation, in every language, and the encoder's refusals. (The session machines'
//! refusals of a peer that pushes past their limits, `LimitError`, are `ackwire-codec`'s.)
//!
//! WIRE-22: a decode error names its kind, the byte offset (and the bit, in a packed body) and
//! the field path (`changes[3].mask`). WIRE-23: the kinds are one taxonomy shared by every
//! language, and conformance judges an error by its [`ErrorKind`] (its [`ErrorKind::as_str`]
//! name), never by its text.

use std::borrow::Cow;
use std::fmt;

/// What went wrong, from the taxonomy every ackwire codec shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a field.
    Truncated,
    /// A constant field (a kind, a version) holds another value.
    BadConstant,
    /// A reserved bit of a bit set, or a padding bit of a packed body, is set.
    ReservedBit,
    /// A varint is longer than its value needs.
    NonCanonicalVarint,
    /// A value does not fit its field's width.
    OverWidth,
    /// A count is larger than the remaining bytes can hold.
    CountTooLarge,
    /// Bytes remain after the frame.
    TrailingBytes,
    /// A field's presence contradicts its condition, or a bit is set without the bit it
    /// requires.
    InvalidCondition,
    /// A union's tag names no variant.
    UnknownTag,
    /// A float is NaN or infinite.
    NonFinite,
    /// An ascending list does not ascend (a difference of 0).
    NotAscending,
    /// A value has another encoding its encoder writes instead (a smallest-three quaternion
    /// whose dropped component is not the largest).
    NonCanonical,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Truncated,
        ErrorKind::BadConstant,
        ErrorKind::ReservedBit,
        ErrorKind::NonCanonicalVarint,
        ErrorKind::OverWidth,
        ErrorKind::CountTooLarge,
        ErrorKind::TrailingBytes,
        ErrorKind::InvalidCondition,
        ErrorKind::UnknownTag,
        ErrorKind::NonFinite,
        ErrorKind::NotAscending,
        ErrorKind::NonCanonical,
    ];

    /// The kind's name in the shared taxonomy (`truncated`, `bad_constant`, ...): what vectors
    /// and the conformance protocol carry.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated",
            ErrorKind::BadConstant => "bad_constant",
            ErrorKind::ReservedBit => "reserved_bit",
            ErrorKind::NonCanonicalVarint => "non_canonical_varint",
            ErrorKind::OverWidth => "over_width",
            ErrorKind::CountTooLarge => "count_too_large",
            ErrorKind::TrailingBytes => "trailing_bytes",
            ErrorKind::InvalidCondition => "invalid_condition",
            ErrorKind::UnknownTag => "unknown_tag",
            ErrorKind::NonFinite => "non_finite",
            ErrorKind::NotAscending => "not_ascending",
            ErrorKind::NonCanonical => "non_canonical",
        }
    }

    /// The kind named `name` in the shared taxonomy.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a field path.
///
/// A field's name is borrowed when it is known at compile time (every generated decoder's
/// names are) and owned otherwise (an interpreter of a layout read at run time, such as
/// `ackwire explain`), so that neither pays for the other: nothing is leaked to make a name
/// `'static`, and the generated decoders allocate nothing for it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Field(Cow<'static, str>),
    Index(usize),
}

/// A field path such as `changes[3].mask`, built from the leaf outwards as an error travels up
/// through the decoders (nothing is spent on it while decoding succeeds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath {
    /// Innermost first.
    reversed: Vec<Segment>,
}

impl FieldPath {
    fn push_field(&mut self, name: Cow<'static, str>) {
        self.reversed.push(Segment::Field(name));
    }

    fn push_index(&mut self, index: usize) {
        self.reversed.push(Segment::Index(index));
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in self.reversed.iter().rev() {
            match seg {
                Segment::Field(name) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

/// Why a frame could not be decoded, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at byte {offset}{bit}{path}", bit = self.bit_text(), path = self.path_text())]
pub struct DecodeError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset of the fault from the start of the frame.
    pub offset: usize,
    /// Inside a bit-packed body: the bit offset of the fault from the start of the frame.
    pub bit: Option<usize>,
    /// The field being read.
    pub path: FieldPath,
}

impl DecodeError {
    /// An error of `kind` at byte `offset`, with no path yet.
    pub fn new(kind: ErrorKind, offset: usize) -> Self {
        DecodeError {
            kind,
            offset,
            bit: None,
            path: FieldPath::default(),
        }
    }

    /// An error of `kind` at bit `bit` of the frame.
    pub fn at_bit(kind: ErrorKind, bit: usize) -> Self {
        DecodeError {
            kind,
            offset: bit / 8,
            bit: Some(bit),
            path: FieldPath::default(),
        }
    }

    /// The same error, inside field `name` of the record being read (a `&'static str`, or a
    /// `String` when the name is only known at run time).
    #[must_use]
    pub fn field(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.path.push_field(name.into());
        self
    }

    /// The same error, inside element `index` of the list being read.
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.path.push_index(index);
        self
    }

    /// The field path as text (`changes[3].mask`).
    pub fn path_string(&self) -> String {
        self.path.to_string()
    }

    fn bit_text(&self) -> String {
        self.bit.map(|b| format!(" (bit {b})")).unwrap_or_default()
    }

    fn path_text(&self) -> String {
        let p = self.path.to_string();
        if p.is_empty() {
            String::new()
        } else {
            format!(", field {p}")
        }
    }
}

/// Why a value could not be encoded: it is not one the canonical decoder would accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot encode: {kind}{path}", path = self.path_text())]
pub struct EncodeError {
    /// What is wrong with the value ([`ErrorKind::OverWidth`], [`ErrorKind::InvalidCondition`],
    /// [`ErrorKind::NotAscending`], [`ErrorKind::NonFinite`], [`ErrorKind::CountTooLarge`],
    /// [`ErrorKind::NonCanonical`]).
    pub kind: ErrorKind,
    /// The field at fault.
    pub path: FieldPath,
}

impl EncodeError {
    /// An error of `kind`, with no path yet.
    pub fn new(kind: ErrorKind) -> Self {
        EncodeError {
            kind,
            path: FieldPath::default(),
        }
    }

    /// The same error, inside field `name` (a `&'static str`, or a `String` when the name is
    /// only known at run time).
    #[must_use]
    pub fn field(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.path.push_field(name.into());
        self
    }

    /// The same error, inside element `index`.
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.path.push_index(index);
        self
    }

    fn path_text(&self) -> String {
        let p = self.path.to_string();
        if p.is_empty() {
            String::new()
        } else {
            format!(" in {p}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_outside_in() {
        // WIRE-22: the field path.
        let e = DecodeError::new(ErrorKind::ReservedBit, 40)
            .field("mask")
            .index(3)
            .field("changes");
        assert_eq!(e.path_string(), "changes[3].mask");
        assert_eq!(
            e.to_string(),
            "reserved_bit at byte 40, field changes[3].mask"
        );
    }

    #[test]
    fn bit_offsets_are_shown() {
        // WIRE-22: the bit, inside a packed body.
        let e = DecodeError::at_bit(ErrorKind::Truncated, 83).field("gap");
        assert_eq!(e.offset, 10);
        assert_eq!(e.to_string(), "truncated at byte 10 (bit 83), field gap");
    }

    #[test]
    fn names_known_only_at_run_time_join_the_path_without_a_static_lifetime() {
        let name = String::from("changes");
        let e = DecodeError::new(ErrorKind::Truncated, 3)
            .field("mask")
            .index(2)
            .field(name);
        assert_eq!(e.path_string(), "changes[2].mask");
        let e = EncodeError::new(ErrorKind::OverWidth).field(format!("f{}", 1));
        assert_eq!(e.to_string(), "cannot encode: over_width in f1");
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        // WIRE-23: the taxonomy's names.
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(k.as_str()), Some(k));
        }
        assert_eq!(ErrorKind::from_name("nope"), None);
    }
}
