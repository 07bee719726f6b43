//! Validation of a parsed spec: everything a generator relies on that the grammar cannot say.
//!
//! It reports, each at the place it was written: a name declared twice or unknown; a count or
//! condition that refers to a later field; two names for one bit; a group with no mask bit; a
//! reserved bit used; a constant that does not fit its width; two frames with one kind; widths
//! that cannot be laid out where they stand (a `u7` outside a packed record, a varint inside
//! one, a `quat(B)` or `bucket(...)` outside one); the ranges of the bit fields (`quat` bits 2
//! to 16; bucket widths 1 to 8 of them, each 0 to 64, increasing, at most 2^64 values); and the shapes a canonical decoder could not check (an array whose elements take no
//! bytes, a count field shared by two arrays, a record that contains itself); a SENT_RING
//! not below HELD_RING, and a CHECK_EVERY, SENT_RING or HELD_RING of 0 (ACK-1). Every
//! problem is reported; none stops the others.

use crate::diag::Diagnostic;
use crate::index::{Decl, Index};
use crate::model::{
    bucket_bases, Array, BitKind, Bits, Cond, Count, Field, File, IntType, Item, Record,
    RecordKind, Span, Spec, Type, Union,
};
use std::collections::HashMap;

/// Checks `spec` and returns every problem found (empty when it is valid).
pub fn validate(spec: &Spec) -> Vec<Diagnostic> {
    let index = Index::new(spec);
    let mut v = Validator {
        index: &index,
        out: Vec::new(),
        file: "",
    };
    v.declarations(spec);
    for file in &spec.files {
        v.file = &file.name;
        v.file_items(file);
    }
    v.frame_kinds(spec);
    v.recursion(spec);
    v.rings();
    v.counts_of_frames();
    v.out
}

struct Validator<'a> {
    index: &'a Index<'a>,
    out: Vec<Diagnostic>,
    file: &'a str,
}

fn is_byte_width(bits: u8) -> bool {
    matches!(bits, 8 | 16 | 32 | 64)
}

impl<'a> Validator<'a> {
    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.out
            .push(Diagnostic::new(self.file, span, message, label));
    }

    fn declarations(&mut self, spec: &'a Spec) {
        let mut seen: HashMap<&str, (&str, Span)> = HashMap::new();
        for file in &spec.files {
            for item in &file.items {
                if let Some((first_file, first_span)) = seen.get(item.name()) {
                    let note = format!(
                        "`{}` is first declared in {} at byte {}",
                        item.name(),
                        first_file,
                        first_span.start
                    );
                    self.out.push(
                        Diagnostic::new(
                            &file.name,
                            item.name_span(),
                            format!("`{}` is declared twice", item.name()),
                            "a second declaration of this name",
                        )
                        .with_note(note),
                    );
                } else {
                    seen.insert(item.name(), (&file.name, item.name_span()));
                }
            }
        }
    }

    fn file_items(&mut self, file: &'a File) {
        for item in &file.items {
            match item {
                Item::Const(c) => {
                    let Some(value) = self.const_value(c) else {
                        continue;
                    };
                    self.check_fits(c.ty, value, c.value_span, &c.name);
                }
                Item::Bits(b) => self.bits(b),
                Item::Record(r) => self.record(r),
                Item::Union(u) => self.union(u),
                // Checked by `crate::state::check`; its derived items are checked here.
                Item::State(_) | Item::Schema(_) => {}
            }
        }
    }

    fn const_value(&mut self, c: &crate::model::Const) -> Option<i128> {
        if let crate::model::ConstValue::MaxOffset { record, field } = &c.value {
            let Some(r) = self.index.record(record) else {
                self.error(
                    c.value_span,
                    format!("unknown record `{record}` in max_offset"),
                    "expected a record or frame declared in the spec",
                );
                return None;
            };
            if !r.fields.iter().any(|f| &f.name == field) {
                self.error(
                    c.value_span,
                    format!("`{record}` has no field `{field}`"),
                    "expected a field of that record",
                );
                return None;
            }
            if self.index.max_offset(record, field).is_none() {
                self.error(
                    c.value_span,
                    format!("the offset of `{record}.{field}` has no upper bound"),
                    "an array or byte string comes before this field",
                );
                return None;
            }
        }
        self.index.const_value(c)
    }

    fn check_fits(&mut self, ty: IntType, value: i128, span: Span, what: &str) {
        if value < ty.min() || value > ty.max() {
            self.error(
                span,
                format!(
                    "constant `{what}` = {value} does not fit its width",
                    what = what
                ),
                format!(
                    "a {}{} holds {} to {}",
                    if ty.signed { "i" } else { "u" },
                    ty.bits,
                    ty.min(),
                    ty.max()
                ),
            );
        }
    }

    fn bits(&mut self, b: &'a Bits) {
        if b.width == 0 || b.width > 64 {
            self.error(
                b.name_span,
                format!("bit set `{}` has width {}", b.name, b.width),
                "expected a width from 1 to 64",
            );
            return;
        }
        let mut by_index: HashMap<u8, &str> = HashMap::new();
        let mut by_name: HashMap<&str, Span> = HashMap::new();
        let mut reserved: Vec<(u8, u8)> = Vec::new();
        for bit in &b.bits {
            if let BitKind::Reserved { lo, hi } = bit.kind {
                if lo > hi || hi >= b.width {
                    self.error(
                        bit.span,
                        format!("reserved range {lo}..={hi} is not within `{}`", b.name),
                        format!("expected bits from 0 to {}", b.width - 1),
                    );
                }
                reserved.push((lo, hi));
            }
        }
        for bit in &b.bits {
            let BitKind::Named {
                name,
                index,
                requires,
            } = &bit.kind
            else {
                continue;
            };
            if *index >= b.width {
                self.error(
                    bit.span,
                    format!("bit `{name}` = {index} is outside `{}`", b.name),
                    format!("a u{} has bits 0 to {}", b.width, b.width - 1),
                );
            }
            if let Some(other) = by_index.get(index) {
                self.error(
                    bit.span,
                    format!(
                        "two names for bit {index} of `{}`: `{other}` and `{name}`",
                        b.name
                    ),
                    "each bit has one name",
                );
            } else {
                by_index.insert(*index, name);
            }
            if by_name.insert(name, bit.span).is_some() {
                self.error(
                    bit.span,
                    format!("bit `{name}` is declared twice in `{}`", b.name),
                    "a second bit of this name",
                );
            }
            if reserved.iter().any(|(lo, hi)| (lo..=hi).contains(&index)) {
                self.error(
                    bit.span,
                    format!(
                        "reserved bit used: bit {index} of `{}` is declared reserved",
                        b.name
                    ),
                    "remove it from the reserved range first",
                );
            }
            if let Some(req) = requires {
                if req == name {
                    self.error(
                        bit.span,
                        format!("bit `{name}` requires itself"),
                        "expected another bit",
                    );
                } else if Index::bit_index(b, req).is_none() {
                    self.error(
                        bit.span,
                        format!("unknown bit `{req}` in `{}`", b.name),
                        "`requires` names another bit of the same set",
                    );
                }
            }
        }
    }

    fn union(&mut self, u: &'a Union) {
        if u.tag.signed || u.tag.bits == 0 || u.tag.bits > 64 {
            self.error(
                u.name_span,
                format!("union `{}` needs an unsigned tag", u.name),
                "expected u8, u16, u32 or u64",
            );
        }
        let mut tags: HashMap<u64, &str> = HashMap::new();
        let mut names: HashMap<&str, ()> = HashMap::new();
        for v in &u.variants {
            match self.index.get(&v.record) {
                Some(Decl::Record(r)) if r.kind == RecordKind::Record => {}
                Some(Decl::Record(_)) => self.error(
                    v.span,
                    format!("variant `{}` is a frame", v.record),
                    "a union carries records, not frames",
                ),
                _ => self.error(
                    v.span,
                    format!("unknown record `{}`", v.record),
                    "expected a record declared in the spec",
                ),
            }
            if i128::from(v.tag) > u.tag.max() {
                self.error(
                    v.span,
                    format!("tag {} of `{}` does not fit its width", v.tag, v.record),
                    format!("a u{} holds 0 to {}", u.tag.bits, u.tag.max()),
                );
            }
            if let Some(other) = tags.insert(v.tag, &v.record) {
                self.error(
                    v.span,
                    format!(
                        "two variants of `{}` with tag {}: `{other}` and `{}`",
                        u.name, v.tag, v.record
                    ),
                    "each tag names one variant",
                );
            }
            if names.insert(&v.record, ()).is_some() {
                self.error(
                    v.span,
                    format!("variant `{}` appears twice", v.record),
                    "a second variant of this name",
                );
            }
        }
    }

    fn record(&mut self, r: &'a Record) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut count_users: HashMap<&str, Span> = HashMap::new();
        for (i, f) in r.fields.iter().enumerate() {
            if seen.insert(&f.name, i).is_some() {
                self.error(
                    f.name_span,
                    format!("field `{}` is declared twice in `{}`", f.name, r.name),
                    "a second field of this name",
                );
            }
            self.field_type(r, &f.ty, r.packed, 0);
            if let Some(value) = f.constant {
                match f.ty {
                    Type::Int(t) => self.check_fits(t, value, f.name_span, &f.name),
                    Type::Varint { bits } => {
                        self.check_fits(IntType::unsigned(bits), value, f.name_span, &f.name)
                    }
                    _ => self.error(
                        f.name_span,
                        format!("constant field `{}` is not an integer", f.name),
                        "only integer fields can be constants",
                    ),
                }
                if f.cond.is_some() || f.selector.is_some() {
                    self.error(
                        f.name_span,
                        format!("constant field `{}` is conditional", f.name),
                        "a constant is always present",
                    );
                }
            }
            if let Some(sel) = &f.selector {
                self.selector(r, i, f, sel);
            }
            if let Some(cond) = &f.cond {
                self.cond(r, i, cond);
            }
            if let Type::Array(a) = &f.ty {
                self.array(r, i, f, a, &mut count_users);
            }
        }
        if r.kind == RecordKind::Frame && r.packed {
            self.error(
                r.name_span,
                format!("frame `{}` is packed", r.name),
                "a frame is byte-aligned: give it a field whose type is a packed record",
            );
        }
        if r.kind == RecordKind::Frame {
            match r.fields.first() {
                Some(first) if first.constant.is_some() => {}
                Some(first) => self.error(
                    first.name_span,
                    format!("frame `{}` does not start with a constant", r.name),
                    "expected its kind or version, such as `kind: u8 = 6`",
                ),
                None => self.error(
                    r.name_span,
                    format!("frame `{}` has no fields", r.name),
                    "a frame starts with its kind",
                ),
            }
        }
    }

    /// The earlier field `name` of `r` (before field `at`), reporting an unknown or later one,
    /// or one that is itself conditional (its value would not always be known).
    fn earlier(
        &mut self,
        r: &'a Record,
        at: usize,
        name: &str,
        span: Span,
        what: &str,
    ) -> Option<&'a Field> {
        match r.fields.iter().position(|f| f.name == name) {
            Some(j) if j < at && (r.fields[j].cond.is_some() || r.fields[j].selector.is_some()) => {
                self.error(
                    span,
                    format!("{what} refers to `{name}`, which is itself conditional"),
                    "refer to a field that is always present",
                );
                None
            }
            Some(j) if j < at => Some(&r.fields[j]),
            Some(_) => {
                self.error(
                    span,
                    format!(
                        "{what} refers to `{name}`, which comes later in `{}`",
                        r.name
                    ),
                    "a decoder reads fields in order: it must come earlier",
                );
                None
            }
            None => {
                self.error(
                    span,
                    format!("unknown field `{name}` in `{}`", r.name),
                    format!("expected an earlier field of `{}`", r.name),
                );
                None
            }
        }
    }

    fn bits_of(&self, f: &Field) -> Option<&'a Bits> {
        match &f.ty {
            Type::Named { name, .. } => self.index.bits(name),
            _ => None,
        }
    }

    fn bit_exists(&mut self, bits: &Bits, bit: &str, span: Span, group: Option<&str>) {
        if Index::bit_index(bits, bit).is_some() {
            return;
        }
        match group {
            Some(g) => self.error(
                span,
                format!(
                    "group `{g}` has no mask bit: `{}` has no bit `{bit}`",
                    bits.name
                ),
                format!("expected a bit of `{}`", bits.name),
            ),
            None => self.error(
                span,
                format!("unknown bit `{bit}` of `{}`", bits.name),
                format!("expected a bit of `{}`", bits.name),
            ),
        }
    }

    fn selector(&mut self, r: &'a Record, at: usize, f: &Field, sel: &crate::model::Selector) {
        let Some(mask) = self.earlier(r, at, &sel.mask, sel.span, "a select") else {
            return;
        };
        let Some(bits) = self.bits_of(mask) else {
            self.error(
                sel.span,
                format!("`{}` is not a bit set", sel.mask),
                "select needs a mask field whose type is a bit set",
            );
            return;
        };
        self.bit_exists(bits, &sel.bit, sel.span, Some(&f.name));
    }

    fn cond(&mut self, r: &'a Record, at: usize, cond: &Cond) {
        match cond {
            Cond::All(all) => {
                for c in all {
                    self.cond(r, at, c);
                }
            }
            Cond::Bit {
                field, bit, span, ..
            } => {
                let Some(f) = self.earlier(r, at, field, *span, "a condition") else {
                    return;
                };
                match self.bits_of(f) {
                    Some(bits) => self.bit_exists(bits, bit, *span, None),
                    None => self.error(
                        *span,
                        format!("`{field}` is not a bit set"),
                        "`field.BIT` needs a field whose type is a bit set",
                    ),
                }
            }
            Cond::Set { field, span, .. } | Cond::Greater { field, span, .. } => {
                let Some(f) = self.earlier(r, at, field, *span, "a condition") else {
                    return;
                };
                let ok = match &f.ty {
                    Type::Int(_) | Type::Varint { .. } => true,
                    Type::Bool => matches!(cond, Cond::Set { .. }),
                    _ => false,
                };
                if !ok {
                    self.error(
                        *span,
                        format!("`{field}` cannot be tested here"),
                        "expected an integer field (or a bool, without `>`)",
                    );
                }
            }
        }
    }

    fn array(
        &mut self,
        r: &'a Record,
        at: usize,
        f: &Field,
        a: &Array,
        users: &mut HashMap<&'a str, Span>,
    ) {
        if let Count::Field { name, span } = &a.count {
            if let Some(count) = self.earlier(r, at, name, *span, "a count") {
                if !matches!(
                    count.ty,
                    Type::Int(IntType { signed: false, .. }) | Type::Varint { .. }
                ) {
                    self.error(
                        *span,
                        format!("count `{name}` is not an unsigned integer"),
                        "a count is an unsigned integer or varint field",
                    );
                }
                if count.constant.is_some() || count.cond.is_some() || count.selector.is_some() {
                    self.error(
                        *span,
                        format!("count `{name}` is a constant or conditional"),
                        "a count field is always present and derived from the array's length",
                    );
                }
                if let Some(first) = users.insert(&count.name, *span) {
                    self.out.push(
                        Diagnostic::new(
                            self.file,
                            *span,
                            format!("count `{name}` is used by two arrays"),
                            "each count field counts one array",
                        )
                        .with_note(format!("first used at byte {}", first.start)),
                    );
                }
            }
            if f.cond.is_some() || f.selector.is_some() {
                self.error(
                    f.name_span,
                    format!("array `{}` counted by a field is conditional", f.name),
                    "use a prefix count (`[T; varint]`) for a conditional array",
                );
            }
        }
        if self.index.min_bits(&a.elem, r.packed) == 0 {
            self.error(
                f.name_span,
                format!("the elements of `{}` can take no bits", f.name),
                "a decoder could not bound the count by the remaining bytes",
            );
        }
        if let Some(asc) = &a.ascending {
            // LANGUAGE.md: an ascending list carries each element after the first as its
            // difference from the previous one, in the element's (key's) own type: an
            // unsigned integer, a varint in a byte-aligned record, a `uN` or `bucket(...)` in
            // a packed one (where each of those is valid is checked with the type itself).
            let unsigned = |t: &Type| {
                matches!(
                    t,
                    Type::Int(IntType { signed: false, .. })
                        | Type::Varint { .. }
                        | Type::Bucket { signed: false, .. }
                )
            };
            match (&asc.key, &a.elem) {
                (None, elem) if unsigned(elem) => {}
                (None, _) => self.error(
                    f.name_span,
                    format!("`{}` cannot ascend", f.name),
                    "`ascending` needs unsigned integers, or `ascending(key)` for records",
                ),
                (Some(key), Type::Named { name, .. }) => match self.index.record(name) {
                    // A packed element of a byte-aligned list is a padded body of its own; a
                    // key is carried as a difference only within one bit stream (a list in a
                    // packed record) or between byte-aligned records.
                    Some(elem) if elem.packed && !r.packed => self.error(
                        asc.span,
                        format!(
                            "`ascending({key})` over packed record `{name}` in byte-aligned record `{}`",
                            r.name
                        ),
                        "put the list in a packed record, or make the element byte-aligned",
                    ),
                    Some(elem) => match elem.fields.iter().find(|k| &k.name == key) {
                        Some(k)
                            if unsigned(&k.ty)
                                && k.cond.is_none()
                                && k.selector.is_none()
                                && k.constant.is_none() => {}
                        Some(_) => self.error(
                            asc.span,
                            format!("key `{key}` of `{name}` cannot ascend"),
                            "expected an unconditional unsigned integer field",
                        ),
                        None => self.error(
                            asc.span,
                            format!("unknown field `{key}` in `{name}`"),
                            "expected a field of the element record",
                        ),
                    },
                    None => self.error(
                        asc.span,
                        format!("`ascending({key})` needs an array of records"),
                        "the elements are not a record",
                    ),
                },
                (Some(key), _) => self.error(
                    asc.span,
                    format!("`ascending({key})` needs an array of records"),
                    "the elements are not a record",
                ),
            }
        }
    }

    fn field_type(&mut self, r: &'a Record, ty: &Type, packed: bool, depth: u32) {
        if depth > 32 {
            return;
        }
        match ty {
            Type::Int(t) => {
                let valid = if t.signed {
                    (2..=64).contains(&t.bits)
                } else {
                    (1..=64).contains(&t.bits)
                };
                if !valid {
                    self.error(
                        Span::default(),
                        format!("integer width {} in `{}`", t.bits, r.name),
                        "expected 1 to 64 bits",
                    );
                } else if !packed && !is_byte_width(t.bits) {
                    self.error(
                        self.field_span(r, ty),
                        format!(
                            "`{}{}` in byte-aligned record `{}`",
                            if t.signed { "i" } else { "u" },
                            t.bits,
                            r.name
                        ),
                        "widths other than 8, 16, 32 and 64 bits are only valid in a packed record",
                    );
                } else if packed && t.endian.is_some() {
                    self.error(
                        self.field_span(r, ty),
                        format!("byte order in packed record `{}`", r.name),
                        "a packed record is a bit stream: remove `le`/`be`",
                    );
                }
            }
            Type::Ranged {
                int,
                min,
                max,
                span,
            } => self.ranged(r, *int, *min, *max, *span, packed),
            Type::Float { endian, .. } => {
                if packed && endian.is_some() {
                    self.error(
                        self.field_span(r, ty),
                        format!("byte order in packed record `{}`", r.name),
                        "a packed record is a bit stream: remove `le`/`be`",
                    );
                }
            }
            Type::Bool => {}
            Type::Quat { bits, span } => {
                if !packed {
                    self.error(
                        *span,
                        "a quaternion is a bit field: put it in a packed record",
                        format!("`quat({bits})` in byte-aligned record `{}`", r.name),
                    );
                }
                if !(2..=16).contains(bits) {
                    self.error(
                        *span,
                        format!("invalid width `{bits}` for `quat`"),
                        "expected 2 to 16 bits per component",
                    );
                }
            }
            Type::Bucket {
                signed,
                widths,
                span,
            } => self.bucket(r, *signed, widths, *span, packed),
            Type::Varint { bits } | Type::Zigzag { bits } => {
                if *bits == 0 || *bits > 64 {
                    self.error(
                        self.field_span(r, ty),
                        format!("varint width {bits}"),
                        "expected 1 to 64 bits",
                    );
                }
                if packed {
                    self.error(
                        self.field_span(r, ty),
                        format!("varint in packed record `{}`", r.name),
                        "a packed record holds fixed-width fields; use `uN`",
                    );
                }
            }
            Type::Bytes | Type::OptBytes => {
                if packed {
                    self.error(
                        self.field_span(r, ty),
                        format!("byte string in packed record `{}`", r.name),
                        "a packed record holds fixed-width fields",
                    );
                }
            }
            Type::Quant { wire, num, den } => {
                if *num == 0 || *den == 0 {
                    self.error(
                        self.field_span(r, ty),
                        "a quantization scale of zero",
                        "expected NUM/DEN with both above 0",
                    );
                }
                match wire.as_ref() {
                    Type::Int(_)
                    | Type::Varint { .. }
                    | Type::Zigzag { .. }
                    | Type::Bucket { .. } => self.field_type(r, wire, packed, depth + 1),
                    _ => self.error(
                        self.field_span(r, ty),
                        "quant of a non-integer",
                        "expected an integer, varint, zigzag or bucket wire type",
                    ),
                }
            }
            Type::Named { name, span } => match self.index.get(name) {
                None => self.error(
                    *span,
                    format!("unknown type `{name}`"),
                    "expected a bit set, record or union declared in the spec",
                ),
                Some(Decl::Const(_)) => self.error(
                    *span,
                    format!("`{name}` is a constant, not a type"),
                    "expected a bit set, record or union",
                ),
                Some(Decl::Record(inner)) => {
                    if inner.kind == RecordKind::Frame {
                        self.error(
                            *span,
                            format!("frame `{name}` used as a field"),
                            "frames stand alone; declare a record to share fields",
                        );
                    }
                    if packed && !inner.packed {
                        self.error(
                            *span,
                            format!(
                                "record `{name}` inside packed record `{}` is not packed",
                                r.name
                            ),
                            "declare it `packed record`",
                        );
                    }
                }
                Some(Decl::Bits(b)) => {
                    if !packed && !is_byte_width(b.width) {
                        self.error(
                            *span,
                            format!(
                                "bit set `{name}` of {} bits in byte-aligned record `{}`",
                                b.width, r.name
                            ),
                            "only packed records hold widths other than 8, 16, 32, 64",
                        );
                    }
                }
                Some(Decl::Union(u)) => {
                    if packed {
                        self.error(
                            *span,
                            format!("union `{name}` in packed record `{}`", r.name),
                            "unions are byte-aligned",
                        );
                    } else if !packed && !is_byte_width(u.tag.bits) {
                        self.error(
                            *span,
                            format!(
                                "union `{name}` with a {}-bit tag in byte-aligned record `{}`",
                                u.tag.bits, r.name
                            ),
                            "only packed records hold widths other than 8, 16, 32, 64",
                        );
                    }
                }
            },
            Type::Array(a) => {
                if depth > 0 && matches!(a.count, Count::Field { .. }) {
                    self.error(
                        self.field_span(r, ty),
                        "a nested array counted by a field",
                        "nested arrays carry their own count: `[T; varint]`",
                    );
                }
                if let Count::Prefix(t) = &a.count {
                    match t.as_ref() {
                        Type::Int(IntType { signed: false, .. }) | Type::Varint { .. } => {
                            self.field_type(r, t, packed, depth + 1)
                        }
                        _ => self.error(
                            self.field_span(r, ty),
                            "an array count that is not an unsigned integer",
                            "expected `u8`, `u16`, `varint`, ...",
                        ),
                    }
                }
                self.field_type(r, &a.elem, packed, depth + 1);
            }
        }
    }

    /// `uN in MIN..=MAX` / `iN in MIN..=MAX` (WIRE-29): the base type valid where it
    /// stands, `MIN <= MAX`, and both bounds values of the base type.
    fn ranged(&mut self, r: &Record, int: IntType, min: i64, max: i64, span: Span, packed: bool) {
        let base = crate::fmt::type_text(&Type::Int(int));
        let valid = if int.signed {
            (2..=64).contains(&int.bits)
        } else {
            (1..=64).contains(&int.bits)
        };
        if !valid {
            self.error(
                span,
                format!(
                    "integer width {} of a ranged integer in `{}`",
                    int.bits, r.name
                ),
                "expected 1 to 64 bits",
            );
            return;
        }
        if !packed && !is_byte_width(int.bits) {
            self.error(
                span,
                format!("`{base}` in byte-aligned record `{}`", r.name),
                "a ranged integer of a byte-aligned record is carried as its type: 8, 16, 32 or 64 bits",
            );
        } else if packed && int.endian.is_some() {
            self.error(
                span,
                format!("byte order in packed record `{}`", r.name),
                "a packed record is a bit stream: remove `le`/`be`",
            );
        }
        if min > max {
            self.error(
                span,
                format!("the range `{min}..={max}` is empty"),
                "the least value comes first: expected MIN <= MAX",
            );
        }
        for (what, v) in [("least", min), ("greatest", max)] {
            let v = i128::from(v);
            if v < int.min() || v > int.max() {
                self.error(
                    span,
                    format!("the range's {what} value {v} does not fit `{base}`"),
                    format!("a `{base}` holds {} to {}", int.min(), int.max()),
                );
            }
        }
    }

    /// `bucket(w1, ..., wk)` / `zbucket(...)`: LANGUAGE.md, "1 to 8 widths, each 0 to 64,
    /// strictly increasing, with `sum of 2^wi <= 2^64`. Valid only in packed records".
    fn bucket(&mut self, r: &Record, signed: bool, widths: &[u8], span: Span, packed: bool) {
        let word = if signed { "zbucket" } else { "bucket" };
        if !packed {
            self.error(
                span,
                "a bucket code is a bit field: put it in a packed record",
                format!("`{word}(...)` in byte-aligned record `{}`", r.name),
            );
        }
        if widths.is_empty() || widths.len() > 8 {
            self.error(
                span,
                format!("`{word}` has {} widths", widths.len()),
                "expected 1 to 8 bucket widths",
            );
            return;
        }
        if let Some(&w) = widths.iter().find(|&&w| w > 64) {
            self.error(
                span,
                format!("bucket width {w} is above 64"),
                "expected widths from 0 to 64 bits",
            );
            return;
        }
        if let Some(pair) = widths.windows(2).find(|p| p[1] <= p[0]) {
            self.error(
                span,
                format!(
                    "bucket widths do not increase: {} after {}",
                    pair[1], pair[0]
                ),
                "each width is larger than the one before",
            );
            return;
        }
        if bucket_bases(widths).is_none() {
            self.error(
                span,
                format!("the buckets of `{word}` hold more than 2^64 values"),
                "the sum of 2^w over the widths must be at most 2^64",
            );
        }
    }

    /// The span of the field whose type (or part of it) is `ty`, for types that carry none.
    fn field_span(&self, r: &Record, ty: &Type) -> Span {
        fn contains(outer: &Type, ty: &Type) -> bool {
            std::ptr::eq(outer, ty)
                || match outer {
                    Type::Quant { wire, .. } => contains(wire, ty),
                    Type::Array(a) => {
                        contains(&a.elem, ty)
                            || matches!(&a.count, Count::Prefix(t) if contains(t, ty))
                    }
                    _ => false,
                }
        }
        r.fields
            .iter()
            .find(|f| contains(&f.ty, ty))
            .map_or(r.name_span, |f| f.name_span)
    }

    fn frame_kinds(&mut self, spec: &'a Spec) {
        let mut kinds: HashMap<(&str, i128), (&str, &str, Span)> = HashMap::new();
        for file in &spec.files {
            for item in &file.items {
                let Item::Record(r) = item else { continue };
                if r.kind != RecordKind::Frame {
                    continue;
                }
                let Some(first) = r.fields.first() else {
                    continue;
                };
                let Some(value) = first.constant else {
                    continue;
                };
                if let Some((other, other_file, _)) = kinds.get(&(first.name.as_str(), value)) {
                    self.out.push(
                        Diagnostic::new(
                            &file.name,
                            first.name_span,
                            format!("two frames with one kind: `{}` and `{other}` both have {} = {value}", r.name, first.name),
                            "each frame needs its own kind",
                        )
                        .with_note(format!("`{other}` is declared in {other_file}")),
                    );
                } else {
                    kinds.insert((&first.name, value), (&r.name, &file.name, first.name_span));
                }
            }
        }
    }

    /// SENT_RING must be below HELD_RING, wherever the two are declared.
    ///
    /// ACK-1: the server keeps fewer frames than the client, so that the base of a frame it
    /// sends is always one the client still holds. With a ring as long as the client's, the
    /// server may encode onto a base the client has just let go of, and that frame is dropped
    /// as onto an unknown base without a word. A layout that declares only one of them (or
    /// neither: no acked snapshots) is not judged here.
    fn rings(&mut self) {
        let ring = |name: &str| match self.index.get(name) {
            Some(Decl::Const(c)) => Some((c, self.index.file_of(name)?)),
            _ => None,
        };
        let (Some((sent, sent_file)), Some((held, held_file))) =
            (ring("SENT_RING"), ring("HELD_RING"))
        else {
            return;
        };
        // A value that cannot be worked out is reported where it is written.
        let (Some(s), Some(h)) = (self.index.const_value(sent), self.index.const_value(held))
        else {
            return;
        };
        if s < h {
            return;
        }
        self.out.push(
            Diagnostic::new(
                &sent_file.name,
                sent.value_span,
                format!("SENT_RING = {s} is not below HELD_RING = {h}"),
                format!(
                    "expected at most {}: the server keeps fewer frames than the client",
                    h - 1
                ),
            )
            .with_note(format!("HELD_RING is declared in {}", held_file.name))
            .with_note(
                "ACK-1 (docs/spec/acked.md): the server keeps fewer frames than the client, so \
                 that every base it may name is a frame the client still holds",
            ),
        );
    }

    /// CHECK_EVERY, SENT_RING and HELD_RING, wherever declared, count frames and must be at
    /// least 1.
    ///
    /// ACK-1, ACK-24: every CHECK_EVERY-th frame carries a check; with 0 no frame is
    /// ever checked and a drifted client is never told, which is not what any layout means to
    /// say. A ring of 0 frames holds no base at all, so every frame would be a keyframe (the
    /// server's) or dropped as onto an unknown base (the client's).
    fn counts_of_frames(&mut self) {
        const RULES: [(&str, &str); 3] = [
            (
                "CHECK_EVERY",
                "ACK-24 (docs/spec/acked.md): every CHECK_EVERY-th frame carries a check",
            ),
            (
                "SENT_RING",
                "ACK-20 (docs/spec/acked.md): with no acknowledged base the frame is a keyframe",
            ),
            (
                "HELD_RING",
                "ACK-29 (docs/spec/acked.md): the client keeps the states of its last HELD_RING \
                 applied frames",
            ),
        ];
        for (name, rule) in RULES {
            let (Some(Decl::Const(c)), Some(file)) =
                (self.index.get(name), self.index.file_of(name))
            else {
                continue;
            };
            if self.index.const_value(c) != Some(0) {
                continue;
            }
            self.out.push(
                Diagnostic::new(
                    &file.name,
                    c.value_span,
                    format!("{name} = 0 counts no frame"),
                    "expected at least 1".to_string(),
                )
                .with_note(rule),
            );
        }
    }

    /// A record that contains itself (directly or through other records or unions) has no
    /// finite encoding a decoder could bound.
    fn recursion(&mut self, spec: &'a Spec) {
        for file in &spec.files {
            for item in &file.items {
                let Item::Record(r) = item else { continue };
                let mut stack = vec![r.name.as_str()];
                if self.reaches(r, &r.name, &mut stack) {
                    self.out.push(Diagnostic::new(
                        &file.name,
                        r.name_span,
                        format!("record `{}` contains itself", r.name),
                        format!("through {}", stack.join(" -> ")),
                    ));
                }
            }
        }
    }

    fn reaches(&self, r: &'a Record, target: &str, stack: &mut Vec<&'a str>) -> bool {
        if stack.len() > 64 {
            return false;
        }
        for f in &r.fields {
            for name in named_types(&f.ty) {
                let records: Vec<&'a Record> = match self.index.get(name) {
                    Some(Decl::Record(inner)) => vec![inner],
                    Some(Decl::Union(u)) => u
                        .variants
                        .iter()
                        .filter_map(|v| self.index.record(&v.record))
                        .collect(),
                    _ => vec![],
                };
                for inner in records {
                    if inner.name == target {
                        stack.push(&inner.name);
                        return true;
                    }
                    if stack.contains(&inner.name.as_str()) {
                        continue;
                    }
                    stack.push(&inner.name);
                    if self.reaches(inner, target, stack) {
                        return true;
                    }
                    stack.pop();
                }
            }
        }
        false
    }
}

fn named_types(ty: &Type) -> Vec<&str> {
    match ty {
        Type::Named { name, .. } => vec![name],
        Type::Array(a) => named_types(&a.elem),
        Type::Quant { wire, .. } => named_types(wire),
        _ => vec![],
    }
}
