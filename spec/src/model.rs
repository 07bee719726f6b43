//! The model a layout file parses into.
//!
//! This is the one representation every other part of the crate works on: the validator checks
//! it, the formatter prints it back as canonical text, and the generators compile it into
//! codecs. It derives serde and schemars so that `ackwire spec --json` can hand it to a
//! generator written in another ecosystem, and `ackwire spec --schema` can describe it.
//!
//! Source positions ([`Span`]) are kept for diagnostics but are not part of the model's
//! identity: they are skipped by serde and compare equal whatever their value, so a file and
//! its formatted form have equal models.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A byte range in the source text, for diagnostics.
///
/// Not serialized, and every span equals every other: two models that differ only in where
/// their items were written are the same model.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// A set of layout files compiled together, such as the reference protocol in `spec/protocol`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spec {
    /// The files, in the order they were given.
    pub files: Vec<File>,
}

/// One layout file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct File {
    /// The file's name as given on the command line or to the builder (not its contents).
    pub name: String,
    /// The `//!` lines at the top of the file, without the marker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doc: Vec<String>,
    /// Byte order of every fixed-width number without an explicit `le`/`be` suffix.
    #[serde(default)]
    pub endian: Endian,
    /// The declarations, in source order.
    pub items: Vec<Item>,
    /// Plain `//` comments after the last item, kept so that the formatter loses nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// Byte order of a fixed-width number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Endian {
    /// Least significant byte first (the default, and what every ackwire protocol uses).
    #[default]
    Little,
    /// Most significant byte first.
    Big,
}

/// A top-level declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Item {
    /// `const NAME: type = value;`
    Const(Const),
    /// `bits Name: uN { ... }`
    Bits(Bits),
    /// `record Name { ... }`, `packed record Name { ... }`, `frame Name { ... }`
    Record(Record),
    /// `union Name: uN { ... }`
    Union(Union),
    /// `state Name { ... }`: an entity's replicated state, the frames it travels in and the
    /// profiles it is sent by. A spec compiled by [`crate::compile`] also holds the items a
    /// state derives ([`Record::derived_from`], [`Bits::derived_from`]).
    State(State),
    /// `schema Name for machine { role: Frame, ... }`: which frames of the spec play the seed's
    /// roles for the datagram v2, NetBaseline or delta machines ([`MachineSchema`]).
    Schema(MachineSchema),
}

impl Item {
    /// The declared name.
    pub fn name(&self) -> &str {
        match self {
            Item::Const(c) => &c.name,
            Item::Bits(b) => &b.name,
            Item::Record(r) => &r.name,
            Item::Union(u) => &u.name,
            Item::State(s) => &s.name,
            Item::Schema(s) => &s.name,
        }
    }

    /// Where the name was written.
    pub fn name_span(&self) -> Span {
        match self {
            Item::Const(c) => c.name_span,
            Item::Bits(b) => b.name_span,
            Item::Record(r) => r.name_span,
            Item::Union(u) => u.name_span,
            Item::State(s) => s.name_span,
            Item::Schema(s) => s.name_span,
        }
    }

    /// The state an item was derived from, when a state derived it (see [`Item::State`]).
    pub fn derived_from(&self) -> Option<&str> {
        match self {
            Item::Record(r) => r.derived_from.as_deref(),
            Item::Bits(b) => b.derived_from.as_deref(),
            _ => None,
        }
    }
}

/// Leading text attached to a declaration, field, bit or variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Docs {
    /// `///` lines, without the marker and its first space. Carried into generated code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doc: Vec<String>,
    /// Plain `//` lines written before the element, without the marker. Kept by the formatter,
    /// never emitted into generated code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
}

/// A named protocol constant, emitted into every generated language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Const {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `SCREAMING_CASE` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// Declared type: a fixed-width integer.
    pub ty: IntType,
    /// The value.
    pub value: ConstValue,
    /// Where the value was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub value_span: Span,
}

/// The value of a named constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConstValue {
    /// An integer literal.
    Int(
        #[serde(with = "literal")]
        #[schemars(with = "i64")]
        i128,
    ),
    /// `max_offset(Frame.field)`: the most bytes that can precede `field` in `Frame`, derived
    /// from the layout (for instance the datagram's MAX_HEADER_LEN).
    MaxOffset {
        /// The record or frame.
        record: String,
        /// The field whose offset is meant.
        field: String,
    },
}

/// A bit set: named bits of an unsigned integer (flags, change masks).
///
/// Bits that are not named are reserved: a decoder rejects them when set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Bits {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `PascalCase` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// Width in bits of the underlying integer (8, 16, 32, 64 in byte-aligned records; any
    /// width from 1 to 64 in packed records).
    pub width: u8,
    /// The named bits and the reserved ranges, in source order.
    pub bits: Vec<Bit>,
    /// Plain `//` comments after the last bit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
    /// The state that derived this bit set (a change mask, an acked frame's flags), `None`
    /// for one written in a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
}

/// One entry of a bit set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Bit {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `NAME = index` or `reserved lo..=hi`.
    pub kind: BitKind,
    /// Where the entry was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// What an entry of a bit set declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BitKind {
    /// A named bit.
    Named {
        /// `SCREAMING_CASE` name.
        name: String,
        /// Bit index, 0 being the least significant.
        index: u8,
        /// `requires OTHER`: this bit may only be set when `OTHER` is set too (POSE_FULL and
        /// POSE_AGE require the pose group's bit).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        requires: Option<String>,
    },
    /// `reserved lo..=hi` (or `reserved n`): bits documented as reserved. Naming one of them is
    /// a validation error.
    Reserved {
        /// First reserved bit.
        lo: u8,
        /// Last reserved bit (inclusive).
        hi: u8,
    },
}

/// Whether a record is a plain record, a frame, and how its fields are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// `record`: a building block of frames.
    Record,
    /// `frame`: a whole message with an encoder and decoder of its own. Its first field is a
    /// constant (its kind or version) that no other frame of the spec shares.
    Frame,
}

/// A record or frame: fields in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Record {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// Record or frame.
    pub kind: RecordKind,
    /// `packed`: the fields form a bit stream, least significant bit first, padded with zero
    /// bits to a byte at the end of the outermost packed record.
    #[serde(default)]
    pub packed: bool,
    /// `PascalCase` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The fields in wire order.
    pub fields: Vec<Field>,
    /// Plain `//` comments after the last field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
    /// The state that derived this record or frame (its record, a change, a group's record,
    /// an acked frame), `None` for one written in a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
}

/// One field of a record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Field {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `snake_case` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The wire type.
    pub ty: Type,
    /// `= value`: a constant, written by the encoder and checked by the decoder. Such a field
    /// is not part of the generated type.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_literal")]
    #[schemars(with = "Option<i64>")]
    pub constant: Option<i128>,
    /// `select MASK { BIT => field }`: the mask bit of an earlier field that selects this field
    /// (a change mask's group). The field is present exactly when the bit is set and `cond`,
    /// if any, holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// `if cond`: the field is present exactly when the condition holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cond: Option<Cond>,
}

/// The mask bit that selects a group field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Selector {
    /// The earlier field holding the mask (a bit set).
    pub mask: String,
    /// The bit's name in that bit set.
    pub bit: String,
    /// Where the bit was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// A presence condition on earlier fields of the same record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cond {
    /// `field.BIT` (or `!field.BIT`): a bit of a bit-set field.
    Bit {
        /// The bit-set field.
        field: String,
        /// The bit's name.
        bit: String,
        /// `!`: present when the bit is clear.
        negated: bool,
        /// Where the operand was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `field` (or `!field`): a bool or integer field, true when non-zero.
    Set {
        /// The field.
        field: String,
        /// `!`: present when the field is zero.
        negated: bool,
        /// Where the operand was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `field > N`: an integer field (often a count) greater than a literal.
    Greater {
        /// The field.
        field: String,
        /// The literal.
        value: u64,
        /// Where the operand was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `a && b && ...`: every operand holds.
    All(Vec<Cond>),
}

/// A wire type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Type {
    /// `uN` / `iN`, optionally suffixed `le` or `be` (byte-aligned widths only).
    Int(IntType),
    /// `f32` / `f64`, optionally suffixed `le` or `be`.
    Float {
        /// 32 or 64.
        bits: u8,
        /// Explicit byte order, overriding the file's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        endian: Option<Endian>,
    },
    /// `bool`: one bit in a packed record, one byte (0 or 1) elsewhere.
    Bool,
    /// `varint` or `varint(N)`: unsigned LEB128 of a value of at most `bits` bits (64 when not
    /// given), at most ceil(bits / 7) bytes.
    Varint {
        /// Largest width of the value in bits.
        bits: u8,
    },
    /// `zigzag` or `zigzag(N)`: a signed value zigzag-mapped, then written as a varint.
    Zigzag {
        /// Largest width of the signed value in bits.
        bits: u8,
    },
    /// `bytes`: a varint length, then that many bytes.
    Bytes,
    /// `bytes?`: a varint (length + 1), then that many bytes; 0 means absent (a removed
    /// component, in the datagram).
    OptBytes,
    /// `quant(wire, NUM/DEN)`: an integer on the wire, a scaled float in the model.
    /// value = wire * (NUM / DEN); wire = round(value / (NUM / DEN)), halves away from zero,
    /// a non-finite value as 0.
    Quant {
        /// The integer carried on the wire.
        wire: Box<Type>,
        /// Numerator of the scale.
        num: u64,
        /// Denominator of the scale.
        den: u64,
    },
    /// `quat(B)`: a unit quaternion as smallest three, a bit field of packed records only.
    /// On the wire (least significant bit first): the index of the dropped component as a
    /// u2 (0 = x, 1 = y, 2 = z, 3 = w), then the other three in x, y, z, w order, each a
    /// two's complement `iB`: `2 + 3B` bits. The model value is the integers
    /// (`SmallestThree`), so that every language agrees bit for bit.
    Quat {
        /// The bits of each of the three components sent, 2 to 16.
        bits: u8,
        /// Where the type was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `bucket(w1, ..., wk)` / `zbucket(w1, ..., wk)`: a variable-width integer of packed
    /// records. The bucket index in unary (bucket `i < k-1` as `i` one bits and a zero bit,
    /// the last as `k-1` one bits), then the value less the bucket's base in `w_i` bits.
    /// Bucket `i` holds `[base_i, base_i + 2^w_i)`, `base_0 = 0`,
    /// `base_{i+1} = base_i + 2^w_i`. `zbucket` zigzag-maps a signed value first.
    Bucket {
        /// `zbucket`: the value is signed and zigzag-mapped.
        signed: bool,
        /// The widths of the buckets, 1 to 8 of them, each 0 to 64, strictly increasing.
        widths: Vec<u8>,
        /// Where the type was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `uN in MIN..=MAX`, `iN in MIN..=MAX`: an integer of the type `int` that lies in the
    /// range, refused outside it on decode and on encode (`OverWidth`, at the field's first byte
    /// or bit). Byte-aligned, it is `int`'s own bytes; in a packed record, the value less `min`
    /// as an unsigned field of [`range_bits`]`(min, max)` bits.
    Ranged {
        /// The integer type the value is held in (and carried as, byte-aligned).
        int: IntType,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
        /// Where the type was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// A bit set, record or union declared by name.
    Named {
        /// The declared name.
        name: String,
        /// Where the name was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `[T; count]`, `[T; count] ascending`, `[T; count] ascending(key)`.
    Array(Box<Array>),
}

/// A fixed-width integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IntType {
    /// `iN` rather than `uN`.
    pub signed: bool,
    /// Width in bits: 8, 16, 32, 64 in byte-aligned records, 1 to 64 in packed records.
    pub bits: u8,
    /// Explicit byte order, overriding the file's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endian: Option<Endian>,
}

impl IntType {
    /// An unsigned integer of `bits` bits in the file's byte order.
    pub const fn unsigned(bits: u8) -> Self {
        IntType {
            signed: false,
            bits,
            endian: None,
        }
    }

    /// The smallest value of this type.
    pub fn min(&self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The largest value of this type.
    pub fn max(&self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// The bits a packed record spends on a ranged integer `min..=max`: ceil(log2(max - min + 1)),
/// 0 when the range holds one value.
pub fn range_bits(min: i64, max: i64) -> u8 {
    let span = (i128::from(max) - i128::from(min)).max(0) as u128;
    (128 - span.leading_zeros()) as u8
}

/// A counted array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Array {
    /// The element type.
    pub elem: Type,
    /// Where the element count comes from.
    pub count: Count,
    /// `ascending` / `ascending(key)`: the elements (or each element's `key` field) strictly
    /// ascend and are delta-coded: the first is absolute, each later one is carried as its
    /// difference from the previous one, which is at least 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ascending: Option<Ascending>,
}

/// Where an array's element count is carried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// `[T; field]`: an earlier integer field of the same record. The field is derived from
    /// the array's length and is not part of the generated type.
    Field {
        /// The count field.
        name: String,
        /// Where the name was written.
        #[serde(skip)]
        #[schemars(skip)]
        span: Span,
    },
    /// `[T; u8]`, `[T; varint]`: the count is written just before the elements, in this type.
    Prefix(Box<Type>),
}

/// The delta coding of an ascending array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ascending {
    /// For an array of records, the field that ascends; `None` for an array of integers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Where the key was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// A tagged union: a tag integer, then the variant's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Union {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `PascalCase` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The tag's type (unsigned).
    pub tag: IntType,
    /// The variants, each naming a record declared in the spec.
    pub variants: Vec<Variant>,
    /// Plain `//` comments after the last variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// One variant of a union: `Record = tag`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Variant {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// The record carried by this variant (also the variant's name).
    pub record: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
    /// The tag value.
    pub tag: u64,
}

/// A name written in a declaration, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NameRef {
    /// The name.
    pub name: String,
    /// Where it was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

impl NameRef {
    /// `name` written at `span`.
    pub fn new(name: impl Into<String>, span: Span) -> Self {
        NameRef {
            name: name.into(),
            span,
        }
    }
}

/// A bit of an earlier bit-set field: `flags.POSE_FULL`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FieldBit {
    /// The bit-set field (the state's flags field).
    pub field: String,
    /// The bit's name in its bit set.
    pub bit: String,
    /// Where `field.BIT` was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// An entity's replicated state (`state Name { ... }`): its record as named groups of fields,
/// each field with its form against the base; the events and inputs of the game; the frames it
/// travels in (a byte-aligned kind 6 family frame, a bit-packed one, the kind 7 ack) and the
/// profiles they are sent by. `spec/LANGUAGE.md`, "Replicated state", says what each part
/// means; `crate::state` derives the frames' items from it and lowers it into the plan every
/// binding generator prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct State {
    /// Documentation and comments (the schema's: the generated acked schema type).
    #[serde(flatten)]
    pub docs: Docs,
    /// `PascalCase` name: the acked schema of the byte-aligned frame (the bit-packed one's is
    /// `Packed` then this).
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The members, in source order.
    pub members: Vec<StateMember>,
    /// Plain `//` comments after the last member.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

impl State {
    /// The groups, in declaration order: change-mask bits 0, 1, ... in this order.
    pub fn groups(&self) -> impl Iterator<Item = &Group> {
        self.members.iter().filter_map(|m| match m {
            StateMember::Group(g) => Some(g),
            _ => None,
        })
    }

    /// The frames (profiles), in declaration order.
    pub fn frames(&self) -> impl Iterator<Item = &Profile> {
        self.members.iter().filter_map(|m| match m {
            StateMember::Frame(f) => Some(f.as_ref()),
            _ => None,
        })
    }

    /// The `record` member.
    pub fn record(&self) -> Option<&StateRecord> {
        self.members.iter().find_map(|m| match m {
            StateMember::Record(r) => Some(r),
            _ => None,
        })
    }

    /// The flags field: the record's bit set of tiers and presences.
    pub fn flags(&self) -> Option<&StateFlagsField> {
        self.members.iter().find_map(|m| match m {
            StateMember::Flags(f) => Some(f),
            _ => None,
        })
    }

    /// The `events: Union` member.
    pub fn events(&self) -> Option<&NameRef> {
        self.members.iter().find_map(|m| match m {
            StateMember::Events { union, .. } => Some(union),
            _ => None,
        })
    }

    /// The `inputs: Record` member.
    pub fn inputs(&self) -> Option<&NameRef> {
        self.members.iter().find_map(|m| match m {
            StateMember::Inputs { record, .. } => Some(record),
            _ => None,
        })
    }

    /// The `coded frame` members, in declaration order (a valid state has at most one).
    pub fn coded(&self) -> impl Iterator<Item = &CodedProfile> {
        self.members.iter().filter_map(|m| match m {
            StateMember::Coded(c) => Some(c.as_ref()),
            _ => None,
        })
    }

    /// The `ack` member.
    pub fn ack(&self) -> Option<&AckDecl> {
        self.members.iter().find_map(|m| match m {
            StateMember::Ack(a) => Some(a),
            _ => None,
        })
    }
}

/// One member of a state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "member", rename_all = "snake_case")]
pub enum StateMember {
    /// `record Name` or `record Name(field, ...)`: the record a state holds per entity.
    Record(StateRecord),
    /// `name: Bits`: the record's bit-set field, holding the groups' tier and presence bits.
    Flags(StateFlagsField),
    /// `events: Union`: the union of the game's events, carried by every acked frame.
    Events {
        /// Documentation and comments.
        #[serde(flatten)]
        docs: Docs,
        /// The union.
        union: NameRef,
    },
    /// `inputs: Record`: the record of the game's inputs, carried by the ack frame.
    Inputs {
        /// Documentation and comments.
        #[serde(flatten)]
        docs: Docs,
        /// The record.
        record: NameRef,
    },
    /// `frame Name = kind { ... }` or `packed frame Name = kind { ... }`: a profile.
    Frame(Box<Profile>),
    /// `coded frame Name = kind { ... }`: the state's packed frame with its changes
    /// range-coded against predictions (the coded profile, `docs/spec/coded.md`).
    Coded(Box<CodedProfile>),
    /// `ack Name = kind`: the client's ack and input frame.
    Ack(AckDecl),
    /// `group name { ... }`: fields that travel together under one change-mask bit.
    Group(Group),
}

/// `record Name` or `record Name(field, ...)`: the state's record type, and the order of its
/// canonical bytes (what the check hashes) when that is not the order the fields are declared
/// in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateRecord {
    /// Documentation and comments (the record type's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The record's name.
    pub name: NameRef,
    /// The record's fields in canonical order: each group field, the flags field and each
    /// optional group once. Empty: the flags field first, then every group's fields (an
    /// optional group as one field) in declaration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<NameRef>,
}

/// `name: Bits`: the record's bit-set field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateFlagsField {
    /// Documentation and comments (the field's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The field's name.
    pub name: NameRef,
    /// The bit set, declared in the spec.
    pub bits: NameRef,
}

/// `frame Name = kind { ... }` (byte-aligned: kind 6's layout, ACK-2) or
/// `packed frame Name = kind { ... }` (the same header, the changes a bit stream): one way the
/// state is sent, with the names of the items derived for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    /// Documentation and comments (the frame's).
    #[serde(flatten)]
    pub docs: Docs,
    /// `packed frame`: the changes travel as a bit stream.
    #[serde(default)]
    pub packed: bool,
    /// The frame's name.
    pub name: NameRef,
    /// The frame's kind byte.
    pub kind: u8,
    /// Where the kind was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub kind_span: Span,
    /// `change Name`: the change record.
    pub change: Option<ProfileName>,
    /// `mask Name` or `mask Name: uN`: the change mask's bit set, and its width (a byte-aligned
    /// frame's must be given; a packed one's defaults to the bits it names).
    pub mask: Option<ProfileMask>,
    /// `body Name`: the packed record holding a packed frame's changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<ProfileName>,
    /// `eid: Type`: how a packed frame codes each change's id, as its gap from the previous
    /// change's (a bucket code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eid: Option<ProfileType>,
    /// `prefix Name`: what a packed frame's group records are named, before their
    /// byte-aligned names (`Packed`: `PackedPoseStep`; the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<ProfileName>,
    /// Plain `//` comments after the last member.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// `coded frame Name = kind { tables "file.tables", }`: the state's packed frame, each value
/// of its changes range-coded under a model of its own field, against predictions from the
/// frame's base and older snapshot (`docs/spec/coded.md`, CODE-1..CODE-17). Its header,
/// removals, check and events are the packed frame's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CodedProfile {
    /// Documentation and comments (the frame's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The frame's name.
    pub name: NameRef,
    /// The frame's kind byte.
    pub kind: u8,
    /// Where the kind was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub kind_span: Span,
    /// `tables "file.tables"`: the models' starting probabilities (CODE-16), a path relative
    /// to the layout file; none: every slot starts at 2048.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<TablesPath>,
    /// Plain `//` comments after the last member.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// `tables "file.tables"` in a coded frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TablesPath {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// The path as written, relative to the layout file.
    pub path: String,
    /// Where the path was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
    /// The starting probabilities read from the file, every model's slots in model order:
    /// filled when the spec is compiled ([`crate::compile`]), never serialized.
    #[serde(skip)]
    #[schemars(skip)]
    pub probs: Vec<u16>,
}

/// How a coded frame predicts a field (`coded velocity`, `coded base`): CODE-13, CODE-14.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodedForm {
    /// `coded velocity` on a step field: coded as its difference from the step the entity's
    /// motion between the older snapshot and the base predicts.
    Velocity,
    /// `coded base` on a `quat(B)` field: coded as its difference from the base's.
    Base,
}

/// `coded velocity` or `coded base` after a field's type, and where.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CodedUse {
    /// Which prediction.
    pub form: CodedForm,
    /// Where `coded ...` was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// A documented name inside a frame's block (`change Change`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileName {
    /// Documentation and comments (the derived item's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The name.
    pub name: NameRef,
}

/// `mask Name` or `mask Name: uN`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileMask {
    /// Documentation and comments (the bit set's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The bit set's name.
    pub name: NameRef,
    /// Its width in bits, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u8>,
}

/// `eid: Type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileType {
    /// Documentation and comments (the derived field's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The type.
    pub ty: Type,
    /// Where the type was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub span: Span,
}

/// `ack Name = kind`: the client's frame acknowledging the newest acked frame applied and
/// carrying its recent inputs (kind 7, ACK-10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AckDecl {
    /// Documentation and comments (the frame's).
    #[serde(flatten)]
    pub docs: Docs,
    /// The frame's name.
    pub name: NameRef,
    /// The frame's kind byte.
    pub kind: u8,
    /// Where the kind was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub kind_span: Span,
}

/// `group name { ... }`, `group name: Record { ... }`, `group name if flags.BIT { ... }`:
/// fields that travel together, selected by one change-mask bit (the groups' bits are 0, 1,
/// ... in declaration order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Group {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `snake_case` name: the change's field (for a group of one form) and the mask bit's
    /// name in `SCREAMING_CASE`.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// `: Record`: the name of the group's record on the wire (default: the name in
    /// `PascalCase`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<NameRef>,
    /// `if flags.BIT`: the group is optional; the flags bit says the entity has it. Once an
    /// entity has it, it keeps it for its life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence: Option<FieldBit>,
    /// The fields, in order: what the record holds.
    pub fields: Vec<GroupField>,
    /// `full` and `step` forms: how the group travels when it has two ways; empty when its
    /// fields travel as declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<Form>,
    /// Plain `//` comments after the last member.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// One field of a group: its type in the record and, for a group of one form, on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupField {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// `snake_case` name.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The type. In the record a `quant(T, s)` is held as the integer `T` (its unit `s`), so
    /// that records compare and hash exactly; on the wire it is the quantized value. A tick's
    /// is `u32`.
    pub ty: Type,
    /// `tick(age: T)`: the field is the tick its group was measured at, and a change carries
    /// its age (the frame's tick minus it) when that is not 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<Age>,
    /// `packed T`: how a packed frame codes the field (a group of one form), when not as its
    /// type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed: Option<Type>,
    /// `coded base`: how a coded frame predicts the field (a `quat(B)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coded: Option<CodedUse>,
}

/// `tick(name: T packed P)`: the age of a measured tick on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Age {
    /// The change's field holding the age.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// Its type in a byte-aligned frame (an unsigned integer).
    pub ty: Type,
    /// How a packed frame codes it, when not as its type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed: Option<Type>,
}

/// Which of a group's two forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormKind {
    /// `full`: every field absolute (the mask's `GROUP_FULL` bit set).
    Full,
    /// `step`: some fields as steps from the base's value (the bit clear).
    Step,
}

/// `full name: Record if flags.BIT { ... }` or `step name: Record reach N { ... }`: one of a
/// group's two ways on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Form {
    /// Documentation and comments (the form's record and field).
    #[serde(flatten)]
    pub docs: Docs,
    /// Full or step.
    pub kind: FormKind,
    /// The change's field holding this form.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The form's record on the wire.
    pub record: NameRef,
    /// `if flags.BIT` (full only): the record keeps which form its group came in, in this
    /// flags bit, and the encoder sends the form the bit says. Without it the encoder sends
    /// the step form whenever every field can travel so, and the full form otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<FieldBit>,
    /// `reach N` (step only): a step counts from the base's values when every stepped field of
    /// the base lies within `-N..=N`, and from 0 otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<u64>,
    /// The form's fields on the wire.
    pub fields: Vec<FormField>,
    /// Plain `//` comments after the last field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

/// One field of a form: a group field on the wire, or a step from the base's value of one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FormField {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// The wire field's name: a group field's name (it carries that field), or any name with
    /// `step`.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The wire type: an integer, a `quant(...)` of the field's unit or a coarser one, or a
    /// float of the field's value.
    pub ty: Type,
    /// `step field`: the wire carries the field less the base's (see [`Form::reach`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<NameRef>,
    /// `packed T`: how a packed frame codes the wire integer, when not as its type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed: Option<Type>,
    /// `coded velocity` (a step field) or `coded base` (a `quat(B)`): how a coded frame
    /// predicts the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coded: Option<CodedUse>,
}

/// Integer literals span i64 and u64 (a `u64` constant may exceed `i64::MAX`); JSON carries them
/// as plain numbers, which serde_json reads as one or the other but not as `i128`.
mod literal {
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Signed(i64),
        Unsigned(u64),
    }

    pub fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(v) = i64::try_from(*v) {
            s.serialize_i64(v)
        } else if let Ok(v) = u64::try_from(*v) {
            s.serialize_u64(v)
        } else {
            Err(serde::ser::Error::custom(format!(
                "{v} is outside i64 and u64"
            )))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        Ok(match Either::deserialize(d)? {
            Either::Signed(v) => i128::from(v),
            Either::Unsigned(v) => i128::from(v),
        })
    }
}

/// [`literal`] for an optional value.
mod opt_literal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<i128>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => super::literal::serialize(v, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i128>, D::Error> {
        #[derive(Deserialize)]
        struct Wrap(#[serde(with = "super::literal")] i128);
        Ok(Option::<Wrap>::deserialize(d)?.map(|w| w.0))
    }
}

/// The bases of the buckets of `bucket(widths)`: `base_0 = 0`, `base_{i+1} = base_i + 2^w_i`,
/// ending with `base_k`, one past the largest value. `None` when a width is above 64 or
/// `base_k` is above `2^64` (the sum of `2^w_i` must fit the 64-bit values a codec carries).
///
/// LANGUAGE.md: "bucket `i` holds the values `[base_i, base_i + 2^wi)` ... the largest value
/// is `base_k - 1`": buckets are offset, so that every code is a distinct value and none is
/// redundant.
pub fn bucket_bases(widths: &[u8]) -> Option<Vec<u128>> {
    let mut bases = Vec::with_capacity(widths.len() + 1);
    let mut base = 0u128;
    bases.push(base);
    for &w in widths {
        if w > 64 {
            return None;
        }
        base = base.checked_add(1u128 << w)?;
        if base > 1u128 << 64 {
            return None;
        }
        bases.push(base);
    }
    Some(bases)
}

/// The length in bits of the unary prefix of bucket `i` of `k`: `i` one bits and a zero bit,
/// except the last bucket, whose `k - 1` one bits end the prefix by themselves.
pub fn bucket_prefix_bits(i: usize, k: usize) -> u64 {
    if i + 1 >= k {
        i as u64
    } else {
        i as u64 + 1
    }
}

/// The shortest and longest code of `bucket(widths)` in bits, prefix and value together.
pub fn bucket_code_bits(widths: &[u8]) -> (u64, u64) {
    let k = widths.len();
    let sizes = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| bucket_prefix_bits(i, k) + u64::from(w));
    let min = sizes.clone().min().unwrap_or(0);
    let max = sizes.max().unwrap_or(0);
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_bit_fields_have_a_json_form() {
        let quat = Type::Quat {
            bits: 9,
            span: Span::new(3, 10),
        };
        let json = serde_json::to_string(&quat).unwrap();
        assert_eq!(json, r#"{"type":"quat","bits":9}"#);
        assert_eq!(serde_json::from_str::<Type>(&json).unwrap(), quat);
        let bucket = Type::Bucket {
            signed: true,
            widths: vec![2, 5, 9],
            span: Span::default(),
        };
        let json = serde_json::to_string(&bucket).unwrap();
        assert_eq!(json, r#"{"type":"bucket","signed":true,"widths":[2,5,9]}"#);
        assert_eq!(serde_json::from_str::<Type>(&json).unwrap(), bucket);
    }

    #[test]
    fn bucket_bases_stop_at_two_to_the_64() {
        assert_eq!(bucket_bases(&[0, 4, 8]), Some(vec![0, 1, 17, 273]));
        assert_eq!(bucket_bases(&[64]), Some(vec![0, 1 << 64]));
        assert_eq!(bucket_bases(&[63, 63]), Some(vec![0, 1 << 63, 1 << 64]));
        assert_eq!(bucket_bases(&[0, 64]), None);
        assert_eq!(bucket_bases(&[65]), None);
        assert_eq!(bucket_code_bits(&[0, 4, 8]), (1, 10));
        assert_eq!(bucket_code_bits(&[8]), (8, 8));
        assert_eq!(bucket_code_bits(&[0, 1, 2, 3]), (1, 6));
    }
}

/// `schema Name for machine { role: Item, ... }`: the frames (and constants) of a spec that play
/// the seed's roles for one family of session machines, so that a generator can bind them. The
/// roles each machine takes are [`Machine::roles`]; `spec/LANGUAGE.md`, "Machine schemas", says
/// what shape each role's item must have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MachineSchema {
    /// Documentation and comments (the generated schema type's).
    #[serde(flatten)]
    pub docs: Docs,
    /// `PascalCase` name: the generated schema type.
    pub name: String,
    /// Where the name was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Span,
    /// The machines bound.
    pub machine: Machine,
    /// Where the machine was written.
    #[serde(skip)]
    #[schemars(skip)]
    pub machine_span: Span,
    /// The roles, in source order.
    pub roles: Vec<RoleDecl>,
    /// Plain `//` comments after the last role.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trailing_comments: Vec<String>,
}

impl MachineSchema {
    /// The item given for `role`, when given (the first, when given twice).
    pub fn role(&self, role: &str) -> Option<&NameRef> {
        self.roles
            .iter()
            .find(|r| r.role.name == role)
            .map(|r| &r.target)
    }
}

/// The session machines a [`MachineSchema`] binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Machine {
    /// Datagram v2 (seed 003): `DatagramBuilder`, `Subscription`, `ReplicaTable`.
    Datagram,
    /// NetBaseline (seed 002): `NetBaseline`, `SnapshotWriter`, `SnapshotClient`.
    Baseline,
    /// Delta streaming (seed 001): `DeltaMirror`.
    Delta,
}

impl Machine {
    /// Every machine, in the order the language lists them.
    pub const ALL: [Machine; 3] = [Machine::Datagram, Machine::Baseline, Machine::Delta];

    /// The word that names it after `for`.
    pub fn word(self) -> &'static str {
        match self {
            Machine::Datagram => "datagram",
            Machine::Baseline => "baseline",
            Machine::Delta => "delta",
        }
    }

    /// The roles it takes, each required, in the order the language lists them.
    pub fn roles(self) -> &'static [&'static str] {
        match self {
            Machine::Datagram => &["datagram", "spawn", "despawn", "full", "ack"],
            Machine::Baseline => &["snapshot", "ack", "ack_window", "max_lost"],
            Machine::Delta => &["plan", "ack"],
        }
    }
}

/// `role: Item` in a [`MachineSchema`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoleDecl {
    /// Documentation and comments.
    #[serde(flatten)]
    pub docs: Docs,
    /// The role's name ([`Machine::roles`]).
    pub role: NameRef,
    /// The frame or constant that plays it.
    pub target: NameRef,
}
