//! Name resolution over a whole spec, and the sizes the layout implies.
//!
//! The validator uses this to check references; the generators use it to find what a
//! `Type::Named` stands for and how small an element can be (the bound every decoder checks a
//! count against before allocating: DESIGN.md section 3, "a count that the remaining bytes
//! cannot hold ... [is a] decode error").

use crate::model::{
    BitKind, Bits, Const, ConstValue, Count, Field, File, Item, Record, Spec, Type, Union,
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
    /// rounded up to whole bytes, as it is padded there. Unknown names count as 0; `depth`
    /// guards against a record that contains itself (the validator reports that).
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
            Type::Quant { wire, .. } => self.min_bits_at(wire, packed, depth + 1),
            Type::Named { name, .. } => match self.get(name) {
                Some(Decl::Bits(b)) => u64::from(b.width),
                Some(Decl::Record(r)) => {
                    let inner: u64 = r
                        .fields
                        .iter()
                        .filter(|f| f.cond.is_none() && f.selector.is_none())
                        .map(|f| self.min_bits_at(&f.ty, r.packed, depth + 1))
                        .sum();
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
            Type::Quant { wire, .. } => self.max_bits_at(wire, packed, depth + 1),
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
