//! The lowering: a validated spec turned once into what every backend prints.
//!
//! The model says what a layout file wrote; the lowering says what a codec does with it. For
//! each record, in each context it is used in, it resolves once what every generator and
//! `ackwire explain` would otherwise work out for itself:
//!
//! - the *role* of each field ([`Role`]): a constant written by the encoder and checked by
//!   the decoder, a count derived from the length of the array it counts, the key of a
//!   record read within an ascending list (carried as its difference from the previous
//!   element's), or a value of the generated type;
//! - the wire form of its type ([`Wire`]), with the file's byte order applied, quantization
//!   ranges computed, a named type resolved to the bit set, record or union it names, and a
//!   packed record met from a byte-aligned position marked as such;
//! - its presence ([`Presence`]): the selector's mask bit and the condition's operands,
//!   flattened into the tests that must all hold, each operand resolved to a constant, a
//!   count or a value field;
//! - sizes: the fixed size of each step and record when it has one, and the least size of
//!   an array's element, the bound every decoder checks a count against before it allocates
//!   (WIRE-24: a count that the remaining bytes cannot hold is a decode error);
//! - the checks of each step, in the canonical order ([`Step::checks`]).
//!
//! # The canonical order
//!
//! Which error a bad input gets, and at which offset, is decided by the order in which a
//! decoder makes its checks; every language must make them in the same order so that the
//! same bytes fail with the same kind at the same offset with the same field path. That order
//! is this module's, not a promise kept in each backend:
//!
//! 1. Fields are read in wire order ([`RecordPlan::steps`]). A field whose presence does not
//!    hold is skipped without reading anything.
//! 2. Within a field, [`Step::checks`] lists the checks in the order they are made: the
//!    bytes are read (truncation, then a varint's canonical form and width), then what the
//!    value must satisfy (a constant's value, a bit set's reserved bits and then the bits its
//!    named bits require, a quaternion's components within `[-R, R]` and then its dropped
//!    component the largest, an ascending key's step), then for an array its count against the
//!    bytes left, then each element in order, with its index in the path; in an ascending
//!    list each element's step is checked as soon as it is read (for a record, right after
//!    its key, before its other fields).
//! 3. After the last field: a packed record met from a byte-aligned position has its padding
//!    bits checked (`ReservedBit`, at the first one set), and a frame refuses bytes left over
//!    (`TrailingBytes`). These belong to the record and the frame, so no step lists them.
//! 4. An encoder checks presence first (a value is given exactly when its condition holds),
//!    then what it writes, in the same field order.
//!
//! The printers (`gen::rust`, `gen::ts`, `gen::cpp`) walk [`RecordPlan::steps`] and print
//! each step's reads, writes and checks in their language; the runtimes of the languages
//! implement each check the same way, which the golden vectors and differential fuzzing
//! prove.

use crate::index::{count_fields, Decl, Index};
use crate::model::{
    bucket_bases, bucket_code_bits, bucket_prefix_bits, range_bits, BitKind, Bits, Cond, Count,
    Endian, Field, IntType, Item, Record, RecordKind, Spec, Type, Union,
};
use std::collections::BTreeSet;

/// A spec lowered: every record in every context it is used in, every bit set and union.
#[derive(Debug)]
pub struct Lowering<'s> {
    /// Name resolution and sizes over the spec.
    pub index: Index<'s>,
    /// The contexts declarations are used in (keyed records, bit sets by context).
    uses: Uses,
    plans: Vec<RecordPlan<'s>>,
    spec: &'s Spec,
}

impl<'s> Lowering<'s> {
    /// Lowers `spec`, which must have passed validation.
    pub fn new(spec: &'s Spec) -> Self {
        let index = Index::new(spec);
        let uses = uses(spec, &index);
        let mut lowering = Lowering {
            index,
            uses,
            plans: Vec::new(),
            spec,
        };
        let mut plans = Vec::new();
        for file in &spec.files {
            for item in &file.items {
                let Item::Record(r) = item else { continue };
                plans.push(lowering.lower(r, None));
                let keys: Vec<&'s str> = lowering
                    .uses
                    .keyed
                    .iter()
                    .filter(|(name, _)| name == &r.name)
                    .filter_map(|(_, key)| {
                        r.fields
                            .iter()
                            .find(|f| &f.name == key)
                            .map(|f| f.name.as_str())
                    })
                    .collect();
                for key in keys {
                    plans.push(lowering.lower(r, Some(key)));
                }
            }
        }
        lowering.plans = plans;
        lowering
    }

    /// The spec lowered.
    pub fn spec(&self) -> &'s Spec {
        self.spec
    }

    /// The plan of record `name` read on its own (`key` `None`) or within a list ascending by
    /// its field `key`.
    pub fn plan(&self, name: &str, key: Option<&str>) -> Option<&RecordPlan<'s>> {
        self.plans
            .iter()
            .find(|p| p.record.name == name && p.key == key)
    }

    /// Every plan in declaration order: each record on its own, then within each ascending
    /// list it is an element of, by key name.
    pub fn plans(&self) -> impl Iterator<Item = &RecordPlan<'s>> {
        self.plans.iter()
    }

    /// The keys by which record `name` is an element of an ascending list, by key name.
    pub fn keys_of(&self, name: &str) -> Vec<&'s str> {
        self.plans
            .iter()
            .filter(|p| p.record.name == name)
            .filter_map(|p| p.key)
            .collect()
    }

    /// Whether bit set `name` is read or written in a packed record (`packed`) or a
    /// byte-aligned one anywhere in the spec: only those forms of its reader and writer are
    /// printed, so that no generated function goes unused.
    pub fn bits_used(&self, name: &str, packed: bool) -> bool {
        self.uses.bits_used.contains(&(name.to_string(), packed))
    }

    /// The plan of a bit set.
    pub fn bits_plan(&self, b: &'s Bits) -> BitsPlan<'s> {
        BitsPlan::new(b)
    }

    /// The plan of a union.
    pub fn union_plan(&self, u: &'s Union) -> UnionPlan<'s> {
        UnionPlan {
            union: u,
            tag: Wire::Int {
                signed: u.tag.signed,
                bits: u.tag.bits,
                big_endian: u.tag.endian.unwrap_or(self.file_endian(&u.name)) == Endian::Big,
            },
            variants: u
                .variants
                .iter()
                .filter_map(|v| Some((v.tag, self.index.record(&v.record)?)))
                .collect(),
        }
    }

    /// The frames of the spec, in declaration order, each with the value of its leading
    /// constant (its kind or version byte).
    pub fn frames(&self) -> Vec<(&'s Record, i128)> {
        self.spec
            .files
            .iter()
            .flat_map(|f| &f.items)
            .filter_map(|item| match item {
                Item::Record(r) if r.kind == RecordKind::Frame => {
                    Some((r, r.fields.first().and_then(|f| f.constant).unwrap_or(0)))
                }
                _ => None,
            })
            .collect()
    }

    /// The fixed size of `ty` in bytes (bits when `packed`), when every value of it has the
    /// same size: no varint, no optional field, no union, no list.
    pub fn fixed(&self, ty: &Type, packed: bool) -> Option<u64> {
        let min = self.index.min_bits(ty, packed);
        let max = self.index.max_bits(ty, packed)?;
        let fixed_kind = !matches!(ty, Type::Varint { .. } | Type::Zigzag { .. })
            && !matches!(ty, Type::Quant { wire, .. }
                if matches!(wire.as_ref(), Type::Varint { .. } | Type::Zigzag { .. }));
        let record_fixed = match ty {
            Type::Named { name, .. } => match self.index.get(name) {
                Some(Decl::Record(r)) => r.fields.iter().all(|f| {
                    f.cond.is_none()
                        && f.selector.is_none()
                        && self.fixed(&f.ty, r.packed).is_some()
                }),
                Some(Decl::Union(_)) => false,
                _ => true,
            },
            _ => true,
        };
        (min == max && fixed_kind && record_fixed).then_some(if packed { max } else { max / 8 })
    }

    fn file_endian(&self, name: &str) -> Endian {
        self.index
            .file_of(name)
            .map_or(Endian::Little, |f| f.endian)
    }

    fn lower(&self, r: &'s Record, key: Option<&'s str>) -> RecordPlan<'s> {
        let endian = self.file_endian(&r.name);
        let counts = count_fields(r);
        let steps = r
            .fields
            .iter()
            .map(|f| {
                let role = if let Some(c) = f.constant {
                    Role::Constant(c)
                } else if counts.contains(&f.name.as_str()) {
                    Role::Count {
                        array: counted_array(r, &f.name),
                    }
                } else if Some(f.name.as_str()) == key {
                    Role::Key
                } else {
                    Role::Value
                };
                let presence = Presence::of(f, r, &self.index);
                let wire = self.wire(&f.ty, r.packed, endian, &r.name);
                Step {
                    field: f,
                    role,
                    fixed: self.fixed(&f.ty, r.packed),
                    min: self.index.min_bits(&f.ty, r.packed),
                    wire,
                    presence,
                }
            })
            .collect::<Vec<_>>();
        let ty = Type::Named {
            name: r.name.clone(),
            span: r.name_span,
        };
        RecordPlan {
            record: r,
            packed: r.packed,
            key,
            all_present: steps.iter().all(|s| s.presence.is_none()),
            steps,
            fixed: self.fixed(&ty, r.packed),
            min_bits: self.index.min_bits(&ty, r.packed),
        }
    }

    /// The wire form of `ty`, met in a packed record (`packed`) or a byte-aligned one, in a
    /// file of byte order `endian`.
    fn wire(&self, ty: &'s Type, packed: bool, endian: Endian, owner: &str) -> Wire<'s> {
        let big = |e: Option<Endian>| e.unwrap_or(endian) == Endian::Big;
        match ty {
            Type::Int(t) => Wire::Int {
                signed: t.signed,
                bits: t.bits,
                big_endian: big(t.endian),
            },
            Type::Float { bits, endian: e } => Wire::Float {
                bits: *bits,
                big_endian: big(*e),
            },
            Type::Bool => Wire::Bool { packed },
            Type::Varint { bits } => Wire::Varint { bits: *bits },
            Type::Zigzag { bits } => Wire::Zigzag { bits: *bits },
            Type::Bytes => Wire::Bytes,
            Type::OptBytes => Wire::OptBytes,
            Type::Quat { bits, .. } => Wire::Quat { bits: *bits },
            Type::Bucket { signed, widths, .. } => Wire::Bucket(BucketPlan::new(*signed, widths)),
            Type::Ranged { int, min, max, .. } => Wire::Ranged {
                int: Box::new(Wire::Int {
                    signed: int.signed,
                    bits: int.bits,
                    big_endian: big(int.endian),
                }),
                min: *min,
                max: *max,
                packed: packed.then(|| range_bits(*min, *max)),
            },
            Type::Quant { wire, num, den } => {
                let (signed, bits) = match wire.as_ref() {
                    Type::Int(t) => (t.signed, t.bits),
                    Type::Varint { bits } => (false, *bits),
                    Type::Zigzag { bits } => (true, *bits),
                    Type::Bucket { signed, widths, .. } => {
                        (*signed, BucketPlan::new(*signed, widths).model_bits)
                    }
                    _ => (false, 64),
                };
                let range = IntType {
                    signed,
                    bits,
                    endian: None,
                };
                let (min, max) = match wire.as_ref() {
                    // A bucket code's range is its own, not its model integer's.
                    Type::Bucket { signed, widths, .. } => {
                        let plan = BucketPlan::new(*signed, widths);
                        (plan.min_value, plan.max_value)
                    }
                    _ => (range.min(), range.max()),
                };
                Wire::Quant {
                    wire: Box::new(self.wire(wire, packed, endian, owner)),
                    num: *num,
                    den: *den,
                    signed,
                    bits,
                    min,
                    max,
                }
            }
            Type::Named { name, .. } => match self.index.get(name) {
                Some(Decl::Bits(b)) => Wire::Bits(b),
                Some(Decl::Record(rec)) => Wire::Record {
                    record: rec,
                    padded: rec.packed && !packed,
                },
                Some(Decl::Union(u)) => Wire::Union(u),
                // The validator refuses a name that is not a type; a lowering of an invalid
                // spec still has a shape, as an empty list of nothing would.
                Some(Decl::Const(_)) | None => Wire::Unknown(name_of(owner, name)),
            },
            Type::Array(a) => {
                let elem = self.wire(&a.elem, packed, endian, owner);
                let count = match &a.count {
                    Count::Field { name, .. } => CountFrom::Field(name.as_str()),
                    Count::Prefix(t) => CountFrom::Prefix(self.wire(t, packed, endian, owner)),
                };
                let ascending = a.ascending.as_ref().map(|asc| match asc.key.as_deref() {
                    Some(k) => Ascending::Key(k),
                    None => Ascending::Values,
                });
                let min_bits = self.index.min_bits(&a.elem, packed);
                Wire::Array(Box::new(ArrayPlan {
                    elem,
                    elem_ty: &a.elem,
                    count,
                    ascending,
                    elem_min: if packed {
                        min_bits
                    } else {
                        min_bits.div_ceil(8)
                    },
                    elem_fixed: self.fixed(&a.elem, packed),
                }))
            }
        }
    }
}

fn name_of(owner: &str, name: &str) -> String {
    format!("{owner}.{name}")
}

/// What every backend needs to know about how declarations are used before printing any.
#[derive(Debug, Default)]
struct Uses {
    /// Records that are elements of a list ascending by a key: (record, key). They get the
    /// delta-coded forms of their readers and writers.
    keyed: BTreeSet<(String, String)>,
    /// Bit sets and the contexts they are used in: (name, packed). Only those forms of their
    /// readers and writers are printed, so the generated code has no unused functions.
    bits_used: BTreeSet<(String, bool)>,
}

/// How the declarations of `spec` are used.
fn uses(spec: &Spec, index: &Index<'_>) -> Uses {
    fn visit(ty: &Type, packed: bool, index: &Index<'_>, uses: &mut Uses) {
        match ty {
            Type::Named { name, .. } if index.bits(name).is_some() => {
                uses.bits_used.insert((name.clone(), packed));
            }
            Type::Quant { wire, .. } => visit(wire, packed, index, uses),
            Type::Array(a) => {
                if let (Some(key), Type::Named { name, .. }) =
                    (a.ascending.as_ref().and_then(|a| a.key.clone()), &a.elem)
                {
                    uses.keyed.insert((name.clone(), key));
                }
                if let Count::Prefix(t) = &a.count {
                    visit(t, packed, index, uses);
                }
                visit(&a.elem, packed, index, uses);
            }
            _ => {}
        }
    }
    let mut uses = Uses::default();
    for item in spec.files.iter().flat_map(|f| &f.items) {
        if let Item::Record(r) = item {
            for f in &r.fields {
                visit(&f.ty, r.packed, index, &mut uses);
            }
        }
    }
    uses
}

/// The name of the array of `r` that the count field `count` counts (empty when none does).
fn counted_array<'r>(r: &'r Record, count: &str) -> &'r str {
    r.fields
        .iter()
        .find(|f| {
            matches!(&f.ty, Type::Array(a)
                if matches!(&a.count, Count::Field { name, .. } if name == count))
        })
        .map_or("", |f| f.name.as_str())
}

/// One record lowered, in one context.
#[derive(Debug)]
pub struct RecordPlan<'s> {
    /// The record of the model.
    pub record: &'s Record,
    /// The fields form a bit stream.
    pub packed: bool,
    /// `Some(key)` when this is the record read within a list ascending by its field `key`:
    /// that field is then carried as its difference from the previous element's.
    pub key: Option<&'s str>,
    /// One step per field, in wire order: the order of reads, writes and checks.
    pub steps: Vec<Step<'s>>,
    /// No field has a presence condition: the record's value can be made at once.
    pub all_present: bool,
    /// The record's size in bytes (bits when packed), when it is fixed.
    pub fixed: Option<u64>,
    /// The least number of bits the record occupies.
    pub min_bits: u64,
}

impl<'s> RecordPlan<'s> {
    /// The steps that are fields of the generated type, in wire order.
    pub fn values(&self) -> impl Iterator<Item = &Step<'s>> {
        self.steps
            .iter()
            .filter(|s| matches!(s.role, Role::Value | Role::Key))
    }

    /// The step of field `name`.
    pub fn step(&self, name: &str) -> Option<&Step<'s>> {
        self.steps.iter().find(|s| s.field.name == name)
    }
}

/// One field of a record lowered: what is read or written there, when, and what is checked.
#[derive(Debug)]
pub struct Step<'s> {
    /// The field of the model.
    pub field: &'s Field,
    /// What the field is to the generated type.
    pub role: Role<'s>,
    /// Its type on the wire.
    pub wire: Wire<'s>,
    /// When the field is present; `None` when always.
    pub presence: Option<Presence<'s>>,
    /// Its size in bytes (bits in a packed record), when fixed.
    pub fixed: Option<u64>,
    /// The least number of bits it occupies.
    pub min: u64,
}

impl Step<'_> {
    /// The checks a decoder makes reading this step, in the canonical order.
    pub fn checks(&self) -> Vec<Check> {
        let mut checks = Vec::new();
        push_read_checks(&self.wire, &mut checks);
        match self.role {
            Role::Constant(c) => checks.push(Check::Constant(c)),
            Role::Key => checks.push(Check::Ascending),
            Role::Count { .. } | Role::Value => {}
        }
        checks
    }
}

impl Wire<'_> {
    /// The checks a decoder makes reading a value of this form, in the canonical order: a
    /// list's element's, or a field's before what its role adds ([`Step::checks`]).
    pub fn read_checks(&self) -> Vec<Check> {
        let mut checks = Vec::new();
        push_read_checks(self, &mut checks);
        checks
    }
}

fn push_read_checks(wire: &Wire<'_>, checks: &mut Vec<Check>) {
    match wire {
        Wire::Int { .. } => checks.push(Check::Available),
        Wire::Float { .. } => {
            checks.push(Check::Available);
            checks.push(Check::Finite);
        }
        Wire::Bool { packed } => {
            checks.push(Check::Available);
            if !packed {
                checks.push(Check::Bool);
            }
        }
        Wire::Varint { bits } | Wire::Zigzag { bits } => {
            checks.push(Check::Available);
            checks.push(Check::Varint { bits: *bits });
        }
        Wire::Bytes | Wire::OptBytes => {
            checks.push(Check::Available);
            checks.push(Check::Varint { bits: 64 });
            checks.push(Check::Length);
        }
        Wire::Quant { wire, .. } => push_read_checks(wire, checks),
        Wire::Ranged { min, max, .. } => {
            checks.push(Check::Available);
            checks.push(Check::Range {
                min: *min,
                max: *max,
            });
        }
        Wire::Quat { bits } => {
            checks.push(Check::Available);
            checks.push(Check::QuatRange { bits: *bits });
            checks.push(Check::QuatCanonical { bits: *bits });
        }
        // Every code is a value: only the bits can be missing.
        Wire::Bucket(_) => checks.push(Check::Available),
        Wire::Bits(b) => {
            checks.push(Check::Available);
            let plan = BitsPlan::new(b);
            if plan.reserved != 0 {
                checks.push(Check::Reserved {
                    mask: plan.reserved,
                });
            }
            if plan.named.iter().any(|n| n.requires.is_some()) {
                checks.push(Check::Requires);
            }
        }
        Wire::Record { .. } => checks.push(Check::Record),
        Wire::Union(_) => {
            checks.push(Check::Available);
            checks.push(Check::Tag);
            checks.push(Check::Record);
        }
        Wire::Array(a) => {
            if let CountFrom::Prefix(t) = &a.count {
                push_read_checks(t, checks);
            }
            checks.push(Check::Count {
                elem_min: a.elem_min,
            });
            checks.push(Check::Elements);
            if a.ascending.is_some() {
                checks.push(Check::Ascending);
            }
        }
        Wire::Unknown(_) => {}
    }
}

/// One check a decoder makes, and the error kind it fails with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The bytes (bits) of the value are there: `Truncated`, at the value's start.
    Available,
    /// A byte-aligned bool is 0 or 1: `OverWidth` otherwise.
    Bool,
    /// A float is finite: `NonFinite` otherwise.
    Finite,
    /// A varint is in its shortest form (`NonCanonicalVarint`) and fits `bits` bits
    /// (`OverWidth`).
    Varint {
        /// The value's largest width.
        bits: u8,
    },
    /// A byte string's length fits in what is left: `CountTooLarge`, where the bytes would
    /// begin.
    Length,
    /// LANGUAGE.md, a quaternion's rule 2: "every `rest[i]` lies in `[-R, R]`" with
    /// `R = 2^(B-1) - 1`; the raw value `-2^(B-1)` is `OverWidth`, at the field's bit.
    QuatRange {
        /// The bits of each component sent.
        bits: u8,
    },
    /// LANGUAGE.md, a quaternion's rule 3: with `S` the sum of the squares of the three sent
    /// and `D = 2 R^2 - S`, a sent component whose index is below `largest` has
    /// `rest[i]^2 < D`, one above it `rest[i]^2 <= D` (the dropped component is the one of
    /// largest magnitude, the lowest index on a tie): `NonCanonical` otherwise, at the
    /// field's bit. Checked in integers, so that every language agrees.
    QuatCanonical {
        /// The bits of each component sent.
        bits: u8,
    },
    /// WIRE-29: a ranged integer lies within `min..=max`: `OverWidth` otherwise, at the
    /// field's first byte (bit, in a packed record).
    Range {
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// The value equals the constant: `BadConstant`, at the field's start.
    Constant(i128),
    /// No reserved bit is set: `ReservedBit`.
    Reserved {
        /// The reserved bits.
        mask: u64,
    },
    /// Every named bit that requires another has it set: `InvalidCondition`.
    Requires,
    /// A union's tag names a variant: `UnknownTag`.
    Tag,
    /// A record's own steps, in its order.
    Record,
    /// A count times the element's least size fits in the bytes (bits) left: `CountTooLarge`,
    /// before anything is allocated.
    Count {
        /// The least size of one element, in bytes (bits when packed).
        elem_min: u64,
    },
    /// Each element in order, with its index in the path.
    Elements,
    /// Each key after the first is at least one more than the one before (`NotAscending` on a
    /// difference of 0), and the sum stays within the key's width (`OverWidth`). In a list it
    /// is checked within each element as it is read, not after them all.
    Ascending,
}

/// What a field is to the generated type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role<'s> {
    /// `= value`: written as the literal; a decoder that reads another value fails with
    /// `BadConstant` at the field's start. Not a field of the generated type.
    Constant(i128),
    /// The count of the later array `array`: written as that array's length, read into a
    /// local the array's read takes. Not a field of the generated type.
    Count {
        /// The array it counts.
        array: &'s str,
    },
    /// The key of a record read within an ascending list: carried as its difference from
    /// the previous element's key (absolute for the first), at least 1 after the first.
    Key,
    /// A field of the generated type.
    Value,
}

/// A type as it is read and written.
#[derive(Debug)]
pub enum Wire<'s> {
    /// A fixed-width integer.
    Int {
        /// `iN`.
        signed: bool,
        /// Width in bits.
        bits: u8,
        /// Most significant byte first (the file's order applied).
        big_endian: bool,
    },
    /// An IEEE 754 float.
    Float {
        /// 32 or 64.
        bits: u8,
        /// Most significant byte first (the file's order applied).
        big_endian: bool,
    },
    /// A bool: one bit packed, one byte (0 or 1) otherwise.
    Bool {
        /// Met in a packed record: one bit.
        packed: bool,
    },
    /// An unsigned LEB128 of at most `bits` bits.
    Varint {
        /// The value's largest width.
        bits: u8,
    },
    /// A zigzag-mapped signed value, as a varint.
    Zigzag {
        /// The value's largest width.
        bits: u8,
    },
    /// A varint length and the bytes.
    Bytes,
    /// A varint (length + 1) and the bytes, 0 for absent.
    OptBytes,
    /// An integer on the wire, a scaled float in the generated type.
    Quant {
        /// The integer carried.
        wire: Box<Wire<'s>>,
        /// Numerator of the scale.
        num: u64,
        /// Denominator of the scale.
        den: u64,
        /// The wire integer is signed (an `iN` or a zigzag).
        signed: bool,
        /// The wire integer's width.
        bits: u8,
        /// The least wire integer: a value that rounds below it is refused on encode.
        min: i128,
        /// The greatest wire integer: a value that rounds above it is refused on encode.
        max: i128,
    },
    /// WIRE-29: an integer within `min..=max`, refused outside it (`OverWidth`, at its first
    /// byte or bit) on decode and on encode. Byte-aligned, it is carried as `int`; in a packed
    /// record, as the value less `min` in `packed` bits, unsigned.
    Ranged {
        /// The integer the value is held in: a [`Wire::Int`], which a byte-aligned record
        /// carries it as.
        int: Box<Wire<'s>>,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
        /// In a packed record, the width of the value less `min`: `ceil(log2(max - min + 1))`.
        packed: Option<u8>,
    },
    /// A unit quaternion as smallest three: the index of the dropped component as a u2,
    /// then the other three in x, y, z, w order, each a two's complement `iB`.
    Quat {
        /// The bits of each component sent (B).
        bits: u8,
    },
    /// A bucket code: the bucket index in unary, then the value less the bucket's base.
    Bucket(BucketPlan<'s>),
    /// A bit set.
    Bits(&'s Bits),
    /// A record.
    Record {
        /// The record.
        record: &'s Record,
        /// A packed record met from a byte-aligned position: its bits are padded with zeros
        /// to a whole byte.
        padded: bool,
    },
    /// A union: its tag, then the variant's record.
    Union(&'s Union),
    /// A counted array.
    Array(Box<ArrayPlan<'s>>),
    /// A name the validator would have refused (`Owner.name`): never met in a valid spec.
    Unknown(String),
}

impl Wire<'_> {
    /// A varint, a zigzag, or a quantized value carried as one: its size depends on its
    /// value.
    pub fn is_variable_int(&self) -> bool {
        match self {
            Wire::Varint { .. } | Wire::Zigzag { .. } => true,
            Wire::Bucket(b) => b.code_bits().0 != b.code_bits().1,
            Wire::Quant { wire, .. } => wire.is_variable_int(),
            _ => false,
        }
    }
}

/// A bucket code lowered (`bucket(w1, ..., wk)`, `zbucket(...)`): its buckets' bases and
/// the ranges of its codes and of the model's values.
///
/// LANGUAGE.md: bucket `i` holds `[base_i, base_i + 2^w_i)`, `base_0 = 0`,
/// `base_{i+1} = base_i + 2^w_i`; bucket `i < k-1` is written as `i` one bits and a zero bit,
/// the last as `k-1` one bits and no zero, then `value - base_i` in `w_i` bits. `zbucket`
/// zigzag-maps a signed value first (`(v << 1) ^ (v >> 63)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketPlan<'s> {
    /// `zbucket`: the model value is signed and zigzag-mapped onto the code.
    pub signed: bool,
    /// The widths, in bucket order.
    pub widths: &'s [u8],
    /// `base_i` of each bucket, in bucket order.
    pub bases: Vec<u64>,
    /// The largest code, `base_k - 1` (of the zigzag-mapped value for a `zbucket`).
    pub max_code: u64,
    /// The least model value: 0, or for a `zbucket` the zigzag decode of the largest odd
    /// code.
    pub min_value: i128,
    /// The greatest model value: `max_code`, or for a `zbucket` the zigzag decode of the
    /// largest even code.
    pub max_value: i128,
    /// The width of the model's integer: the smallest of 8, 16, 32, 64 that holds every
    /// value (`u8`..`u64`, or `i8`..`i64` for a `zbucket`).
    pub model_bits: u8,
}

impl<'s> BucketPlan<'s> {
    /// The plan of `bucket(widths)` (`zbucket` when `signed`). A spec that passed validation
    /// has at most `2^64` values; past that (an invalid spec), the range saturates.
    pub fn new(signed: bool, widths: &'s [u8]) -> Self {
        let bases = bucket_bases(widths).unwrap_or_else(|| vec![0, 1 << 64]);
        let top = bases.last().copied().unwrap_or(1).clamp(1, 1 << 64);
        let max_code = (top - 1) as u64;
        let bases = bases[..bases.len().saturating_sub(1).max(1)]
            .iter()
            .map(|&b| u64::try_from(b).unwrap_or(u64::MAX))
            .collect();
        let (min_value, max_value) = if signed {
            // unzigzag(u) = (u >> 1) ^ -(u & 1): an even code u is u / 2, an odd one
            // -(u + 1) / 2.
            let m = i128::from(max_code);
            (-((m + 1) / 2), m / 2)
        } else {
            (0, i128::from(max_code))
        };
        let model_bits = [8u8, 16, 32, 64]
            .into_iter()
            .find(|&b| {
                let t = IntType {
                    signed,
                    bits: b,
                    endian: None,
                };
                t.min() <= min_value && max_value <= t.max()
            })
            .unwrap_or(64);
        BucketPlan {
            signed,
            widths,
            bases,
            max_code,
            min_value,
            max_value,
            model_bits,
        }
    }

    /// The shortest and longest code in bits.
    pub fn code_bits(&self) -> (u64, u64) {
        bucket_code_bits(self.widths)
    }

    /// The length in bits of bucket `i`'s unary prefix.
    pub fn prefix_bits(&self, i: usize) -> u64 {
        bucket_prefix_bits(i, self.widths.len())
    }
}

/// A bucket code as the layout language spells it: `bucket(0, 4, 8)`, `zbucket(2, 5, 9)`.
pub fn bucket_text(b: &BucketPlan<'_>) -> String {
    format!(
        "{}bucket({})",
        if b.signed { "z" } else { "" },
        b.widths
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A counted array lowered.
#[derive(Debug)]
pub struct ArrayPlan<'s> {
    /// The element.
    pub elem: Wire<'s>,
    /// The element's type in the model (for the printers' type names).
    pub elem_ty: &'s Type,
    /// Where the count comes from.
    pub count: CountFrom<'s>,
    /// How the elements ascend, if they do.
    pub ascending: Option<Ascending<'s>>,
    /// The least size of one element in bytes (bits when packed): a count past what is left
    /// divided by this is refused before anything is allocated.
    pub elem_min: u64,
    /// The element's size when fixed.
    pub elem_fixed: Option<u64>,
}

/// Where an array's count comes from.
#[derive(Debug)]
pub enum CountFrom<'s> {
    /// An earlier field of the record (whose role is [`Role::Count`]).
    Field(&'s str),
    /// Written just before the elements.
    Prefix(Wire<'s>),
}

/// How an array's elements ascend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ascending<'s> {
    /// Integers, each after the first carried as its difference from the previous one.
    Values,
    /// Records whose field `.0` ascends: each element is read with the plan of the record
    /// keyed by that field.
    Key(&'s str),
}

/// When a field is present: every test holds.
#[derive(Debug)]
pub struct Presence<'s> {
    /// The selector's mask bit first, then the condition's operands in the order written.
    pub tests: Vec<Test<'s>>,
}

impl<'s> Presence<'s> {
    fn of(f: &'s Field, r: &'s Record, index: &Index<'s>) -> Option<Self> {
        let mut tests = Vec::new();
        if let Some(sel) = &f.selector {
            tests.push(Test::Bit {
                operand: Operand::of(r, &sel.mask),
                bits: index.field_bits(r, &sel.mask),
                bit: &sel.bit,
                negated: false,
            });
        }
        if let Some(c) = &f.cond {
            flatten(c, r, index, &mut tests);
        }
        (!tests.is_empty()).then_some(Presence { tests })
    }
}

fn flatten<'s>(c: &'s Cond, r: &'s Record, index: &Index<'s>, out: &mut Vec<Test<'s>>) {
    match c {
        Cond::All(all) => all.iter().for_each(|c| flatten(c, r, index, out)),
        Cond::Bit {
            field,
            bit,
            negated,
            ..
        } => out.push(Test::Bit {
            operand: Operand::of(r, field),
            bits: index.field_bits(r, field),
            bit,
            negated: *negated,
        }),
        Cond::Set { field, negated, .. } => {
            let operand = Operand::of(r, field);
            let is_bool = matches!(operand.field().map(|f| &f.ty), Some(Type::Bool));
            out.push(if is_bool {
                Test::Bool {
                    operand,
                    negated: *negated,
                }
            } else {
                Test::NonZero {
                    operand,
                    negated: *negated,
                }
            });
        }
        Cond::Greater { field, value, .. } => out.push(Test::Greater {
            operand: Operand::of(r, field),
            value: *value,
        }),
    }
}

/// One test of a presence condition.
#[derive(Debug)]
pub enum Test<'s> {
    /// Bit `bit` of the bit set `bits` held by `operand` is set (clear when `negated`).
    Bit {
        /// The bit-set field.
        operand: Operand<'s>,
        /// Its bit set (`None` only in an invalid spec).
        bits: Option<&'s Bits>,
        /// The bit's name.
        bit: &'s str,
        /// Present when the bit is clear.
        negated: bool,
    },
    /// A bool field is true (false when `negated`).
    Bool {
        /// The field.
        operand: Operand<'s>,
        /// Present when false.
        negated: bool,
    },
    /// An integer field is non-zero (zero when `negated`).
    NonZero {
        /// The field.
        operand: Operand<'s>,
        /// Present when zero.
        negated: bool,
    },
    /// An integer field is greater than `value`.
    Greater {
        /// The field.
        operand: Operand<'s>,
        /// The literal.
        value: u64,
    },
}

impl<'s> Test<'s> {
    /// The field the test reads.
    pub fn operand(&self) -> &Operand<'s> {
        match self {
            Test::Bit { operand, .. }
            | Test::Bool { operand, .. }
            | Test::NonZero { operand, .. }
            | Test::Greater { operand, .. } => operand,
        }
    }
}

/// The earlier field a presence test reads, resolved to what it is.
#[derive(Debug, Clone, Copy)]
pub enum Operand<'s> {
    /// A constant field: its literal, the same in a decoder and an encoder.
    Constant {
        /// The field.
        field: &'s Field,
        /// Its value.
        value: i128,
    },
    /// A count: the local it was read into when decoding, the length of `array` when
    /// encoding.
    Count {
        /// The field.
        field: &'s Field,
        /// The array it counts.
        array: &'s str,
    },
    /// A field of the generated type: the local it was read into, or the value's field.
    Value {
        /// The field.
        field: &'s Field,
    },
    /// A name the validator would have refused.
    Unknown(&'s str),
}

impl<'s> Operand<'s> {
    fn of(r: &'s Record, name: &'s str) -> Self {
        let Some(field) = r.fields.iter().find(|f| f.name == name) else {
            return Operand::Unknown(name);
        };
        if let Some(value) = field.constant {
            return Operand::Constant { field, value };
        }
        if count_fields(r).contains(&name) {
            return Operand::Count {
                field,
                array: counted_array(r, name),
            };
        }
        Operand::Value { field }
    }

    /// The field, when it exists.
    pub fn field(&self) -> Option<&'s Field> {
        match self {
            Operand::Constant { field, .. }
            | Operand::Count { field, .. }
            | Operand::Value { field } => Some(field),
            Operand::Unknown(_) => None,
        }
    }

    /// The field's name.
    pub fn name(&self) -> &'s str {
        match self {
            Operand::Unknown(n) => n,
            other => other.field().map_or("", |f| f.name.as_str()),
        }
    }
}

/// A bit set lowered.
#[derive(Debug)]
pub struct BitsPlan<'s> {
    /// The bit set of the model.
    pub bits: &'s Bits,
    /// The named bits, in declaration order.
    pub named: Vec<NamedBit<'s>>,
    /// The bits that are not named, within the width: a decoder refuses them set.
    pub reserved: u64,
    /// Every named bit.
    pub known: u64,
}

/// One named bit.
#[derive(Debug, Clone, Copy)]
pub struct NamedBit<'s> {
    /// Its name.
    pub name: &'s str,
    /// Its index, 0 the least significant.
    pub index: u8,
    /// The bit it requires, with that bit's index.
    pub requires: Option<(&'s str, u8)>,
}

impl<'s> BitsPlan<'s> {
    fn new(b: &'s Bits) -> Self {
        let named: Vec<NamedBit<'s>> = b
            .bits
            .iter()
            .filter_map(|bit| match &bit.kind {
                BitKind::Named {
                    name,
                    index,
                    requires,
                } => Some(NamedBit {
                    name,
                    index: *index,
                    requires: requires
                        .as_deref()
                        .and_then(|q| Some((q, Index::bit_index(b, q)?))),
                }),
                BitKind::Reserved { .. } => None,
            })
            .collect();
        let known = named
            .iter()
            .filter(|n| n.index < 64)
            .fold(0u64, |m, n| m | 1 << n.index);
        let all = if b.width >= 64 {
            u64::MAX
        } else {
            (1u64 << b.width) - 1
        };
        BitsPlan {
            bits: b,
            named,
            reserved: all & !known,
            known,
        }
    }
}

/// A union lowered.
#[derive(Debug)]
pub struct UnionPlan<'s> {
    /// The union of the model.
    pub union: &'s Union,
    /// Its tag's wire form.
    pub tag: Wire<'s>,
    /// Each variant's tag and record, in declaration order.
    pub variants: Vec<(u64, &'s Record)>,
}

impl<'s> Lowering<'s> {
    /// Whether bit set `b` is read and written most significant byte first outside a packed
    /// record: the byte order of the file that declares it (as for a union's tag), not of the
    /// record holding the field.
    pub fn bits_big_endian(&self, b: &Bits) -> bool {
        self.file_endian(&b.name) == Endian::Big
    }

    /// The integer a bit set is carried as where it is read byte-aligned: unsigned, of the
    /// set's width, in the byte order of the file that declares the set (as a union's tag is
    /// in [`UnionPlan::tag`]).
    pub fn bits_int(&self, b: &Bits) -> Wire<'s> {
        Wire::Int {
            signed: false,
            bits: b.width,
            big_endian: self.bits_big_endian(b),
        }
    }
}

impl Wire<'_> {
    /// The size of a fixed-width integer in bytes (bits when `packed`), as
    /// [`Lowering::fixed`] gives it for its type; `None` for every other form. An array's
    /// count written before its elements ([`CountFrom::Prefix`]) is such an integer or a
    /// varint.
    pub fn int_size(&self, packed: bool) -> Option<u64> {
        match self {
            Wire::Int { bits, .. } if packed => Some(u64::from(*bits)),
            Wire::Int { bits, .. } => Some(u64::from(*bits) / 8),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    fn lowering_of(text: &str) -> Spec {
        crate::compile(&[Source {
            name: "t.wire".into(),
            text: text.into(),
        }])
        .unwrap_or_else(|e| panic!("{e}"))
    }

    const TEXT: &str = r#"
bits Mask: u8 {
    POSE = 0,
    FULL = 1 requires POSE,
}

record Pose {
    x: i16,
}

record Entry {
    id: varint(32),
    mask: Mask,
    select mask {
        POSE => pose: Pose,
    }
    tail: u8 if mask.FULL,
}

frame Acked {
    kind: u8 = 6,
    count: u16,
    entries: [Entry; count] ascending(id),
    flags: bool,
    extra: u32be if flags && count > 2,
}
"#;

    #[test]
    fn roles_and_presence_are_resolved() {
        let spec = lowering_of(TEXT);
        let low = Lowering::new(&spec);
        let acked = low.plan("Acked", None).expect("plan");
        let roles: Vec<_> = acked.steps.iter().map(|s| s.role).collect();
        assert_eq!(
            roles,
            [
                Role::Constant(6),
                Role::Count { array: "entries" },
                Role::Value,
                Role::Value,
                Role::Value
            ]
        );
        let extra = acked.step("extra").expect("extra");
        assert!(matches!(
            extra.wire,
            Wire::Int {
                big_endian: true,
                bits: 32,
                ..
            }
        ));
        let tests = &extra.presence.as_ref().expect("presence").tests;
        assert!(matches!(tests[0], Test::Bool { negated: false, .. }));
        assert!(matches!(
            tests[1],
            Test::Greater {
                operand: Operand::Count {
                    array: "entries",
                    ..
                },
                value: 2
            }
        ));
        assert!(!acked.all_present);
        assert_eq!(low.frames().len(), 1);
        assert_eq!(low.frames()[0].1, 6);
    }

    #[test]
    fn a_keyed_record_has_a_plan_of_its_own() {
        let spec = lowering_of(TEXT);
        let low = Lowering::new(&spec);
        assert_eq!(low.keys_of("Entry"), ["id"]);
        let keyed = low.plan("Entry", Some("id")).expect("keyed plan");
        assert_eq!(keyed.steps[0].role, Role::Key);
        assert_eq!(keyed.steps[0].checks().last(), Some(&Check::Ascending));
        let plain = low.plan("Entry", None).expect("plain plan");
        assert_eq!(plain.steps[0].role, Role::Value);
        let tests = &plain
            .step("pose")
            .and_then(|s| s.presence.as_ref())
            .expect("select")
            .tests;
        assert!(matches!(
            tests[0],
            Test::Bit {
                bit: "POSE",
                negated: false,
                ..
            }
        ));
    }

    /// WIRE-29: a ranged integer is its type's bytes byte-aligned, the value less the least in
    /// ceil(log2(max - min + 1)) bits packed, and checked against its range after it is read.
    #[test]
    fn ranged_integers_cost_the_bits_their_range_needs() {
        assert_eq!(range_bits(0, 100), 7);
        assert_eq!(range_bits(0, 127), 7);
        assert_eq!(range_bits(0, 128), 8);
        assert_eq!(range_bits(-8, 7), 4);
        assert_eq!(range_bits(3, 3), 0);
        assert_eq!(range_bits(i64::MIN, i64::MAX), 64);
        let spec = lowering_of(
            "frame F {\n    kind: u8 = 1,\n    hp: u8 in 0..=100,\n    body: B,\n}\n\npacked record B {\n    hp: u8 in 0..=100,\n    dx: i8 in -8..=7,\n}\n",
        );
        let low = Lowering::new(&spec);
        let f = low.plan("F", None).expect("F");
        let hp = f.step("hp").expect("hp");
        assert_eq!(
            hp.checks(),
            [Check::Available, Check::Range { min: 0, max: 100 }]
        );
        assert_eq!(hp.fixed, Some(1));
        assert!(matches!(hp.wire, Wire::Ranged { packed: None, .. }));
        let b = low.plan("B", None).expect("B");
        assert_eq!(b.step("hp").expect("hp").fixed, Some(7));
        assert!(matches!(
            b.step("dx").expect("dx").wire,
            Wire::Ranged {
                packed: Some(4),
                min: -8,
                max: 7,
                ..
            }
        ));
        assert_eq!(b.fixed, Some(11));
    }

    #[test]
    fn checks_come_in_the_canonical_order() {
        let spec = lowering_of(TEXT);
        let low = Lowering::new(&spec);
        let acked = low.plan("Acked", None).expect("plan");
        assert_eq!(
            acked.steps[0].checks(),
            [Check::Available, Check::Constant(6)]
        );
        let entries = acked.step("entries").expect("entries");
        // varint(32) id (at least a byte) + an 8-bit mask: two bytes at the least.
        assert_eq!(
            entries.checks(),
            [
                Check::Count { elem_min: 2 },
                Check::Elements,
                Check::Ascending
            ]
        );
        let entry = low.plan("Entry", None).expect("entry");
        assert_eq!(
            entry.step("mask").expect("mask").checks(),
            [
                Check::Available,
                Check::Reserved { mask: 0xfc },
                Check::Requires
            ]
        );
    }

    #[test]
    fn bit_sets_know_their_reserved_bits_and_requirements() {
        let spec = lowering_of(TEXT);
        let low = Lowering::new(&spec);
        let b = low.index.bits("Mask").expect("Mask");
        let plan = low.bits_plan(b);
        assert_eq!(plan.known, 0b11);
        assert_eq!(plan.reserved, 0xfc);
        assert_eq!(plan.named[1].requires, Some(("POSE", 0)));
    }

    const PACKED: &str = r#"
packed record Change {
    eid: bucket(0, 4, 8),
    turned: bool,
    orient: quat(9) if turned,
    dx: zbucket(2, 5, 9),
    x: quant(zbucket(3, 7), 1/512),
}

packed record Body {
    count: u8,
    changes: [Change; count] ascending(eid),
    ids: [bucket(1, 6); u4] ascending,
}

frame F {
    kind: u8 = 1,
    body: Body,
}
"#;

    #[test]
    fn bucket_codes_have_their_bases_ranges_and_model_types() {
        let b = BucketPlan::new(false, &[0, 4, 8]);
        assert_eq!(b.bases, [0, 1, 17]);
        assert_eq!(b.max_code, 272);
        assert_eq!((b.min_value, b.max_value, b.model_bits), (0, 272, 16));
        // 0 costs 1 bit, 1..=16 cost 6, 17..=272 cost 10 (the last bucket has no zero bit).
        assert_eq!(b.code_bits(), (1, 10));
        assert_eq!(
            [b.prefix_bits(0), b.prefix_bits(1), b.prefix_bits(2)],
            [1, 2, 2]
        );
        // zbucket(2, 5, 9): codes 0..=547 unzigzag to -274..=273.
        let z = BucketPlan::new(true, &[2, 5, 9]);
        assert_eq!(z.max_code, 4 + 32 + 512 - 1);
        assert_eq!((z.min_value, z.max_value, z.model_bits), (-274, 273, 16));
        let z = BucketPlan::new(true, &[0, 8]);
        // Codes 0..=256: -128..=128, which an i8 cannot hold.
        assert_eq!((z.min_value, z.max_value, z.model_bits), (-128, 128, 16));
        let z = BucketPlan::new(true, &[0, 6]);
        assert_eq!((z.min_value, z.max_value, z.model_bits), (-32, 32, 8));
        // The whole 64-bit range is one bucket of 64 bits.
        let full = BucketPlan::new(false, &[64]);
        assert_eq!((full.max_code, full.model_bits), (u64::MAX, 64));
        let signed = BucketPlan::new(true, &[64]);
        assert_eq!(
            (signed.min_value, signed.max_value),
            (i64::MIN.into(), i64::MAX.into())
        );
        assert_eq!(signed.model_bits, 64);
        let two = BucketPlan::new(false, &[62, 63]);
        assert_eq!(two.bases, [0, 1 << 62]);
        assert_eq!(two.max_code, (1 << 62) + (1 << 63) - 1);
    }

    #[test]
    fn quaternions_bucket_codes_and_packed_ascending_lists_lower() {
        let spec = lowering_of(PACKED);
        let low = Lowering::new(&spec);
        let change = low.plan("Change", None).expect("plan");
        let orient = change.step("orient").expect("orient");
        assert!(matches!(orient.wire, Wire::Quat { bits: 9 }));
        assert_eq!(
            orient.checks(),
            [
                Check::Available,
                Check::QuatRange { bits: 9 },
                Check::QuatCanonical { bits: 9 }
            ]
        );
        assert_eq!(orient.fixed, Some(29));
        let eid = change.step("eid").expect("eid");
        assert!(matches!(&eid.wire, Wire::Bucket(b) if !b.signed && b.widths == [0, 4, 8]));
        assert_eq!((eid.fixed, eid.min), (None, 1));
        assert!(eid.wire.is_variable_int());
        assert_eq!(eid.checks(), [Check::Available]);
        let Wire::Quant {
            min,
            max,
            bits,
            signed,
            ..
        } = &change.step("x").expect("x").wire
        else {
            panic!("a quant")
        };
        // zbucket(3, 7): codes 0..=135, values -68..=67.
        assert_eq!((*min, *max, *bits, *signed), (-68, 67, 8, true));
        // eid 1 + turned 1 + dx's least 3 + x's least 4; the quaternion may be absent.
        assert_eq!(change.min_bits, 1 + 1 + 3 + 4);
        let keyed = low.plan("Change", Some("eid")).expect("keyed plan");
        assert_eq!(keyed.steps[0].role, Role::Key);
        assert_eq!(
            keyed.steps[0].checks(),
            [Check::Available, Check::Ascending]
        );
        let body = low.plan("Body", None).expect("body");
        let changes = body.step("changes").expect("changes");
        assert_eq!(
            changes.checks(),
            [
                Check::Count { elem_min: 9 },
                Check::Elements,
                Check::Ascending
            ]
        );
        let Wire::Array(ids) = &body.step("ids").expect("ids").wire else {
            panic!("an array")
        };
        assert_eq!(ids.ascending, Some(Ascending::Values));
        assert_eq!(ids.elem_min, 2);
    }

    #[test]
    fn the_reference_protocol_lowers_every_record() {
        let sources = crate::reference_sources();
        let spec = crate::compile(&sources).unwrap_or_else(|e| panic!("{e}"));
        let low = Lowering::new(&spec);
        let records = spec
            .files
            .iter()
            .flat_map(|f| &f.items)
            .filter(|i| matches!(i, Item::Record(_)))
            .count();
        assert!(
            low.plans().count() > records,
            "keyed plans beside the plain ones"
        );
        for plan in low.plans() {
            assert_eq!(plan.steps.len(), plan.record.fields.len());
            for step in &plan.steps {
                assert!(
                    !matches!(step.wire, Wire::Unknown(_)),
                    "{}",
                    step.field.name
                );
            }
        }
    }
}
