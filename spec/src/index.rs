//! Name resolution over a whole spec, and the sizes the layout implies.
//!
//! The validator uses this to check references; the generators use it to find what a `Type::Named`
//! stands for and how small an element can be (the bound every decoder checks a count against
//! before allocating: WIRE-13, a count the remaining bytes cannot hold is a decode error).

use crate::model::{
    bucket_code_bits, range_bits, BitKind, Bits, Cond, Const, ConstValue, Count, Field, File, Item,
    Record, Spec, Type, Union,
};
use std::collections::HashMap;

/// A declaration found by name, with the file it is in.
#[derive(Debug, Clone, Copy)]
pub enum Decl<'a> {
    /// A named constant.
    Const(&'a Const),
    /// A bit set.
    Bits(&'a Bits),
    /// A record or frame.
    Record(&'a Record),
    /// A union.
    Union(&'a Union),
}

/// Every declaration of a spec by name. When a name is declared twice, the first wins (the
/// validator reports the second).
#[derive(Debug)]
pub struct Index<'a> {
    decls: HashMap<&'a str, (Decl<'a>, &'a File)>,
}

impl<'a> Index<'a> {
    /// Indexes `spec`.
    pub fn new(spec: &'a Spec) -> Self {
        let mut decls = HashMap::new();
        for file in &spec.files {
            for item in &file.items {
                let decl = match item {
                    Item::Const(c) => Decl::Const(c),
                    Item::Bits(b) => Decl::Bits(b),
                    Item::Record(r) => Decl::Record(r),
                    Item::Union(u) => Decl::Union(u),
                    // A state names no type: what it derives is in the spec as items.
                    Item::State(_) | Item::Schema(_) => continue,
                };
                decls.entry(item.name()).or_insert((decl, file));
            }
        }
        Index { decls }
    }

    /// The declaration named `name`.
    pub fn get(&self, name: &str) -> Option<Decl<'a>> {
        self.decls.get(name).map(|(d, _)| *d)
    }

    /// The file declaring `name`.
    pub fn file_of(&self, name: &str) -> Option<&'a File> {
        self.decls.get(name).map(|(_, f)| *f)
    }

    /// The bit set named `name`.
    pub fn bits(&self, name: &str) -> Option<&'a Bits> {
        match self.get(name) {
            Some(Decl::Bits(b)) => Some(b),
            _ => None,
        }
    }

    /// The bit set that field `field` of `record` holds, when it is a bit set: what a
    /// condition such as `flags.CHECK` tests.
    pub fn field_bits(&self, record: &Record, field: &str) -> Option<&'a Bits> {
        record
            .fields
            .iter()
            .find(|f| f.name == field)
            .and_then(|f| match &f.ty {
                Type::Named { name, .. } => self.bits(name),
                _ => None,
            })
    }

    /// The record or frame named `name`.
    pub fn record(&self, name: &str) -> Option<&'a Record> {
        match self.get(name) {
            Some(Decl::Record(r)) => Some(r),
            _ => None,
        }
    }

    /// The union named `name`.
    pub fn union(&self, name: &str) -> Option<&'a Union> {
        match self.get(name) {
            Some(Decl::Union(u)) => Some(u),
            _ => None,
        }
    }

    /// The smallest number of bits a value of `ty` occupies on the wire, in a packed record
    /// (`packed`) or a byte-aligned one. A packed record met from a byte-aligned position is
    /// rounded up to whole bytes, as it is padded there. A record's conditional fields count
    /// as the least their conditions allow: of `gap: u7 if !wide` and `wide_gap: u24 if wide`,
    /// 7 bits. Unknown names count as 0; `depth` guards against a record that contains itself
    /// (the validator reports that).
    pub fn min_bits(&self, ty: &Type, packed: bool) -> u64 {
        self.min_bits_at(ty, packed, 0)
    }

    fn min_bits_at(&self, ty: &Type, packed: bool, depth: u32) -> u64 {
        if depth > 64 {
            return 0;
        }
        match ty {
            Type::Int(t) => u64::from(t.bits),
            Type::Float { bits, .. } => u64::from(*bits),
            Type::Bool => {
                if packed {
                    1
                } else {
                    8
                }
            }
            Type::Varint { .. } | Type::Zigzag { .. } | Type::Bytes | Type::OptBytes => 8,
            // The index of the dropped component (2 bits), then three components.
            Type::Quat { bits, .. } => 2 + 3 * u64::from(*bits),
            // LANGUAGE.md: the least size of a bucket code is "the smallest bucket's code,
            // `min over i of (unary length of i + w_i)`".
            Type::Bucket { widths, .. } => bucket_code_bits(widths).0,
            Type::Quant { wire, .. } => self.min_bits_at(wire, packed, depth + 1),
            // WIRE-29: the value less the least in a packed record, the type's bytes
            // otherwise.
            Type::Ranged { int, min, max, .. } => {
                if packed {
                    u64::from(range_bits(*min, *max))
                } else {
                    u64::from(int.bits)
                }
            }
            Type::Named { name, .. } => match self.get(name) {
                Some(Decl::Bits(b)) => u64::from(b.width),
                Some(Decl::Record(r)) => {
                    let inner = self.record_min_bits(r, depth);
                    if r.packed && !packed {
                        inner.div_ceil(8) * 8
                    } else {
                        inner
                    }
                }
                Some(Decl::Union(u)) => {
                    let tag = u64::from(u.tag.bits);
                    let least = u
                        .variants
                        .iter()
                        .map(|v| {
                            self.min_bits_at(
                                &Type::Named {
                                    name: v.record.clone(),
                                    span: v.span,
                                },
                                packed,
                                depth + 1,
                            )
                        })
                        .min()
                        .unwrap_or(0);
                    tag + least
                }
                Some(Decl::Const(_)) | None => 0,
            },
            Type::Array(a) => match &a.count {
                Count::Field { .. } => 0,
                Count::Prefix(t) => self.min_bits_at(t, packed, depth + 1),
            },
        }
    }

    /// The least bits the fields of `r` take together, in `r`'s own layout (before padding).
    ///
    /// An unconditional field always counts. A field under conditions (`if`, `select`) counts only
    /// in the assignments of those conditions that make it present, and the record takes the least
    /// over every assignment: so `gap: u7 if !wide` beside `wide_gap: u24 if wide` adds 7 bits, not
    /// 0. Without this, a decoder's count check lets a count through that the bytes cannot hold,
    /// and the list is allocated for it (WIRE-26: no input makes a decoder allocate more than a
    /// small multiple of its length).
    ///
    /// The conditions' operands are taken as independent, which is the weakest assumption: a
    /// dependence between them (`count > 3` implies `count > 0`, a bit that requires another)
    /// can only rule assignments out, so the least over every assignment stays a lower bound.
    fn record_min_bits(&self, r: &Record, depth: u32) -> u64 {
        let mut always = 0u64;
        let mut atoms: Vec<Atom<'_>> = Vec::new();
        // Each conditional field: the literals that must all hold, and its least size.
        let mut guarded: Vec<(Vec<(usize, bool)>, u64)> = Vec::new();
        for f in &r.fields {
            let bits = self.min_bits_at(&f.ty, r.packed, depth + 1);
            let mut literals = Vec::new();
            if let Some(sel) = &f.selector {
                literals.push((Atom::Bit(&sel.mask, &sel.bit), true));
            }
            if let Some(cond) = &f.cond {
                cond_literals(cond, &mut literals);
            }
            if literals.is_empty() {
                always += bits;
                continue;
            }
            let literals = literals
                .into_iter()
                .map(|(atom, holds)| {
                    let i = atoms.iter().position(|a| *a == atom).unwrap_or_else(|| {
                        atoms.push(atom);
                        atoms.len() - 1
                    });
                    (i, holds)
                })
                .collect();
            guarded.push((literals, bits));
        }
        if guarded.is_empty() {
            return always;
        }
        // Every assignment of the operands, when there are few enough to try them all (the
        // reference protocol has at most 4 in a record); past that, a conditional field counts
        // as 0 bits, which is still a lower bound.
        if atoms.len() > MAX_ATOMS {
            return always;
        }
        let least = (0u32..1 << atoms.len())
            .map(|assignment| {
                guarded
                    .iter()
                    .filter(|(literals, _)| {
                        literals
                            .iter()
                            .all(|&(i, holds)| (assignment >> i & 1 == 1) == holds)
                    })
                    .map(|(_, bits)| bits)
                    .sum::<u64>()
            })
            .min()
            .unwrap_or(0);
        always + least
    }

    /// The largest number of bits a value of `ty` can occupy, or `None` when it is unbounded
    /// (arrays, byte strings).
    pub fn max_bits(&self, ty: &Type, packed: bool) -> Option<u64> {
        self.max_bits_at(ty, packed, 0)
    }

    fn max_bits_at(&self, ty: &Type, packed: bool, depth: u32) -> Option<u64> {
        if depth > 64 {
            return None;
        }
        match ty {
            Type::Int(t) => Some(u64::from(t.bits)),
            Type::Float { bits, .. } => Some(u64::from(*bits)),
            Type::Bool => Some(if packed { 1 } else { 8 }),
            Type::Varint { bits } => Some(u64::from(bits.div_ceil(7)) * 8),
            // zigzag(N) maps an N-bit signed value onto an N-bit unsigned one.
            Type::Zigzag { bits } => Some(u64::from(bits.div_ceil(7)) * 8),
            Type::Bytes | Type::OptBytes | Type::Array(_) => None,
            Type::Quat { bits, .. } => Some(2 + 3 * u64::from(*bits)),
            Type::Bucket { widths, .. } => Some(bucket_code_bits(widths).1),
            Type::Quant { wire, .. } => self.max_bits_at(wire, packed, depth + 1),
            Type::Ranged { int, min, max, .. } => Some(if packed {
                u64::from(range_bits(*min, *max))
            } else {
                u64::from(int.bits)
            }),
            Type::Named { name, .. } => match self.get(name) {
                Some(Decl::Bits(b)) => Some(u64::from(b.width)),
                Some(Decl::Record(r)) => {
                    let mut total = 0u64;
                    for f in &r.fields {
                        total =
                            total.checked_add(self.max_bits_at(&f.ty, r.packed, depth + 1)?)?;
                    }
                    Some(if r.packed && !packed {
                        total.div_ceil(8) * 8
                    } else {
                        total
                    })
                }
                Some(Decl::Union(u)) => {
                    let mut most = 0u64;
                    for v in &u.variants {
                        let t = Type::Named {
                            name: v.record.clone(),
                            span: v.span,
                        };
                        most = most.max(self.max_bits_at(&t, packed, depth + 1)?);
                    }
                    Some(u64::from(u.tag.bits) + most)
                }
                Some(Decl::Const(_)) | None => None,
            },
        }
    }

    /// The most bytes that can precede field `field` of `record`: every varint at its longest
    /// and every optional field present. `None` when the record or field is unknown or an
    /// unbounded field comes before it.
    pub fn max_offset(&self, record: &str, field: &str) -> Option<u64> {
        let r = self.record(record)?;
        let at = r.fields.iter().position(|f| f.name == field)?;
        let mut bits = 0u64;
        for f in &r.fields[..at] {
            bits = bits.checked_add(self.max_bits(&f.ty, r.packed)?)?;
        }
        Some(bits.div_ceil(8))
    }

    /// The value of a named constant, deriving `max_offset` from the layout.
    pub fn const_value(&self, c: &Const) -> Option<i128> {
        match &c.value {
            ConstValue::Int(v) => Some(*v),
            ConstValue::MaxOffset { record, field } => {
                self.max_offset(record, field).map(i128::from)
            }
        }
    }

    /// The index of bit `name` in bit set `bits`.
    pub fn bit_index(bits: &Bits, name: &str) -> Option<u8> {
        bits.bits.iter().find_map(|b| match &b.kind {
            BitKind::Named { name: n, index, .. } if n == name => Some(*index),
            _ => None,
        })
    }
}

/// The most distinct condition operands of one record whose assignments
/// [`Index::min_bits`] tries one by one (2^12 of them).
const MAX_ATOMS: usize = 12;

/// One operand of a presence condition, without its negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom<'a> {
    /// Bit `.1` of the bit-set field `.0` is set (`field.BIT`, or a `select` on it).
    Bit(&'a str, &'a str),
    /// The field is non-zero (`field`, and `field > 0`, which is the same test).
    NonZero(&'a str),
    /// The field is greater than a literal other than 0.
    Greater(&'a str, u64),
}

/// Appends the operands of `cond`, each with whether it must hold for the field to be present.
fn cond_literals<'a>(cond: &'a Cond, out: &mut Vec<(Atom<'a>, bool)>) {
    match cond {
        Cond::Bit {
            field,
            bit,
            negated,
            ..
        } => out.push((Atom::Bit(field, bit), !negated)),
        Cond::Set { field, negated, .. } => out.push((Atom::NonZero(field), !negated)),
        Cond::Greater {
            field, value: 0, ..
        } => out.push((Atom::NonZero(field), true)),
        Cond::Greater { field, value, .. } => out.push((Atom::Greater(field, *value), true)),
        Cond::All(all) => all.iter().for_each(|c| cond_literals(c, out)),
    }
}

/// The fields of `record` that are the count of a later array (`[T; field]`). They are derived
/// from the array's length and are not part of the generated type.
pub fn count_fields(record: &Record) -> Vec<&str> {
    record
        .fields
        .iter()
        .filter_map(|f| match &f.ty {
            Type::Array(a) => match &a.count {
                Count::Field { name, .. } => Some(name.as_str()),
                Count::Prefix(_) => None,
            },
            _ => None,
        })
        .collect()
}

/// Whether a field is carried by the generated type (not a constant, not a count).
pub fn is_value_field(record: &Record, field: &Field) -> bool {
    field.constant.is_none() && !count_fields(record).contains(&field.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    fn spec(text: &str) -> Spec {
        crate::compile(&[Source {
            name: "t.wire".into(),
            text: text.into(),
        }])
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn min_bits_of(spec: &Spec, record: &str) -> u64 {
        let index = Index::new(spec);
        let packed = index.record(record).is_some_and(|r| r.packed);
        index.min_bits(
            &Type::Named {
                name: record.into(),
                span: Default::default(),
            },
            packed,
        )
    }

    #[test]
    fn complementary_conditions_count_the_smaller_alternative() {
        let s = spec(
            "
            packed record E {
                wide: bool,
                gap: u7 if !wide,
                wide_gap: u24 if wide,
                generation: u8,
            }
        ",
        );
        // 1 + min(7, 24) + 8, where counting the pair as absent gave 9.
        assert_eq!(min_bits_of(&s, "E"), 16);
    }

    #[test]
    fn a_count_and_its_negation_are_one_operand() {
        let s = spec("record R {\n    n: u8,\n    a: u32 if n > 0,\n    b: u16 if !n,\n}\n");
        assert_eq!(min_bits_of(&s, "R"), 8 + 16);
    }

    #[test]
    fn a_condition_without_its_complement_counts_nothing() {
        let s = spec(
            "
            bits F: u8 {
                A = 0,
                B = 1,
            }

            record R {
                f: F,
                a: u32 if f.A,
                b: u16 if f.B,
                c: u16 if f.A && !f.B,
            }
        ",
        );
        // Both bits clear: only the flags.
        assert_eq!(min_bits_of(&s, "R"), 8);
    }

    #[test]
    fn conjunctions_that_cover_every_case_count_their_least() {
        let s = spec(
            "
            bits F: u8 {
                A = 0,
                B = 1,
            }

            record R {
                f: F,
                a: u32 if !f.A,
                b: u16 if f.A && f.B,
                c: u64 if f.A && !f.B,
            }
        ",
        );
        // A clear: 32; A and B: 16; A without B: 64.
        assert_eq!(min_bits_of(&s, "R"), 8 + 16);
    }

    #[test]
    fn a_select_is_an_operand_too() {
        let s = spec(
            "
            bits M: u8 {
                POSE = 0,
                FULL = 1,
            }

            record R {
                m: M,
                select m {
                    POSE => full: u32 if m.FULL,
                    POSE => step: u16 if !m.FULL,
                }
                after: u8 if !m.POSE,
            }
        ",
        );
        // POSE clear: `after` only; POSE set: the smaller of the two poses.
        assert_eq!(min_bits_of(&s, "R"), 8 + 8);
    }

    #[test]
    fn the_reference_snapshot_entry_counts_its_gap() {
        let s = crate::reference_spec().unwrap_or_else(|e| panic!("{e}"));
        // wide, the 7-bit gap, generation, the 4-bit mask.
        assert_eq!(min_bits_of(&s, "Entry"), 1 + 7 + 8 + 4);
    }
}
