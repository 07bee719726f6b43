//! The Rust binding of a replicated state: from its [`StatePlan`], the acked schemas that the
//! session machines of `ackwire-codec` run over (`AckedSchema` for the byte-aligned frame and,
//! with one, the bit-packed frame), the staged change and the decoder's slot.
//!
//! It prints, for `state Reference` with record `EntityState` and change `Change`:
//!
//! - `{GROUP}_REACH` for a step form with a reach;
//! - `StagedChange`: a change as the wire's integers, one plain field per group field and age,
//!   what a decoder keeps between reading a frame and applying it;
//! - `EntityStateSlot`: the record in u64 words, every field within one word at its place in
//!   canonical order, so that a slot copies and compares as a few words and hashes as its own
//!   bytes; its `apply` is ACK-21's and ACK-33's rule for one change (`DecoderSlot`);
//! - `Reference` (and `PackedReference`): diff, apply, the check's bytes, the frame and ack
//!   adapters; a byte-aligned change read at once from fixed offsets (a table of lengths by
//!   mask), a packed one as its codes are read, each with the generated frame reader behind it
//!   to tell an error where it is.
//!
//! The shapes are the ones the reference protocol's hand-written binding was tuned to (slots in
//! u64 words, staged integers, a change read from a fixed-size array); the arithmetic every
//! schema shares is `ackwire_codec::acked::wire`'s.

use super::{int_type, scale, uint_type, Gen};
use crate::model::Type;
use crate::state::{
    Carry, FormPlan, FormRole, GroupPlan, Holds, ProfilePlan, StatePlan, Value, WirePlan,
};

/// The session constants the machines' trait reads, each by a method of its name in lower case
/// (as `usize`, `u64`, `u32`).
const CONST_TYPES: [(&str, &str); 5] = [
    ("SENT_RING", "usize"),
    ("HELD_RING", "usize"),
    ("EVENT_TTL", "u64"),
    ("CHECK_EVERY", "u32"),
    ("RELIABLE_ABOVE", "usize"),
];

impl Gen<'_, '_> {
    /// The binding of every state of the spec, after its items, calling the machines at
    /// `machines` (`crate::acked` inside `ackwire-codec`, `::ackwire_codec::acked` elsewhere).
    pub(super) fn states(&mut self, plans: &[StatePlan], machines: &str) {
        for plan in plans {
            if plan.byte_profile().is_none() {
                continue;
            }
            State {
                g: self,
                p: plan,
                m: machines.to_string(),
            }
            .print();
        }
    }
}

struct State<'g, 'a, 's, 'p> {
    g: &'g mut Gen<'a, 's>,
    p: &'p StatePlan,
    /// The machines' module path.
    m: String,
}

/// An integer type's name.
fn int_name(signed: bool, bits: u8) -> &'static str {
    if signed {
        int_type(bits)
    } else {
        uint_type(bits)
    }
}

/// The integer range of a type on the wire (a `quant`'s integer's, a bucket code's).
fn range_of(ty: &Type) -> Option<(i128, i128)> {
    match ty {
        Type::Int(t) => Some((t.min(), t.max())),
        Type::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        Type::Quant { wire, .. } => range_of(wire),
        Type::Bucket { signed, widths, .. } => {
            let b = crate::lower::BucketPlan::new(*signed, widths);
            Some((b.min_value, b.max_value))
        }
        _ => None,
    }
}

/// The smallest Rust integer holding `range`.
fn int_for(range: (i128, i128)) -> (bool, u8) {
    let signed = range.0 < 0;
    for bits in [8u8, 16, 32, 64] {
        let t = crate::model::IntType {
            signed,
            bits,
            endian: None,
        };
        if t.min() <= range.0 && range.1 <= t.max() {
            return (signed, bits);
        }
    }
    (signed, 64)
}

impl State<'_, '_, '_, '_> {
    fn line(&mut self, s: impl AsRef<str>) {
        self.g.code.line(s);
    }
    fn open(&mut self, s: impl AsRef<str>) {
        self.g.code.open(s);
    }
    fn close(&mut self, s: impl AsRef<str>) {
        self.g.code.close(s);
    }
    fn blank(&mut self) {
        self.g.code.blank();
    }
    fn doc(&mut self, lines: &[String]) {
        for l in lines {
            if l.is_empty() {
                self.line("///");
            } else {
                self.line(format!("/// {l}"));
            }
        }
    }
    fn rt(&self) -> String {
        self.g.rt.clone()
    }

    /// The Rust type of field `field` of the derived record `record`.
    fn field_type(&self, record: &str, field: &str) -> String {
        self.g
            .low
            .plan(record, None)
            .and_then(|p| p.step(field))
            .map_or_else(|| "u8".to_string(), |s| self.g.rust_type(&s.wire))
    }

    fn byte(&self) -> &ProfilePlan {
        self.p
            .byte_profile()
            .expect("a state with a binding has a byte-aligned frame")
    }

    fn staged(&self) -> String {
        self.p.staged.name.clone()
    }

    fn record(&self) -> String {
        self.p.record.name.clone()
    }

    fn mask_type(&self) -> &'static str {
        uint_type(self.p.staged.mask_width)
    }

    /// The staged field holding group field `(gi, fi)` (or its age).
    fn staged_field(&self, gi: usize, fi: usize) -> &crate::state::StagedField {
        use crate::state::StagedHolds;
        let tick = self.p.groups[gi]
            .tick
            .as_ref()
            .is_some_and(|t| t.field == fi);
        self.p
            .staged
            .fields
            .iter()
            .find(|f| match f.holds {
                StagedHolds::Age(g) => tick && g == gi,
                StagedHolds::Field { group, field } => !tick && group == gi && field == fi,
            })
            .expect("every group field is staged")
    }

    /// The mask constant of the staged change for a bit name.
    fn bit(&self, name: &str) -> String {
        format!("{}::{name}", self.staged())
    }

    /// The expression of record field `name` of `of` (a record expression, `next`, `b`).
    fn rec(of: &str, field: &str) -> String {
        format!("{of}.{}", super::ident(field))
    }

    fn flags_test(&self, of: &str, bit: &str) -> String {
        let flags = self.p.flags.as_ref().expect("a tier or presence has flags");
        format!("{of}.{}.contains({}::{bit})", flags.name, flags.bits)
    }

    fn print(&mut self) {
        let p = self.p;
        self.blank();
        self.line(format!(
            "// ---- state {}: the acked schemas' bindings, generated from the state ----",
            p.name
        ));
        self.reach_constants();
        self.staged_struct();
        self.slot_struct();
        self.schema();
        if p.packed_profile().is_some() {
            self.packed_schema();
            self.coded_schema();
        }
    }

    // ---- constants ----

    fn reach_constants(&mut self) {
        let p = self.p;
        for g in &p.groups {
            let Some(reach) = g.reach else { continue };
            let ty = g
                .stepped()
                .first()
                .and_then(|&fi| g.fields[fi].value.range())
                .map_or("i64", |r| {
                    let (s, b) = int_for(r);
                    int_name(s, b)
                });
            self.blank();
            self.doc(&[
                format!(
                    "The reach of the {} group's steps (ACK-21, CHECK-5): a step counts from the",
                    g.name
                ),
                "base's values when every stepped field of the base lies within this many units of"
                    .into(),
                "0, from 0 otherwise.".into(),
            ]);
            self.line(format!("pub const {}_REACH: {ty} = {reach};", g.bit_name));
        }
    }

    // ---- the staged change ----

    fn staged_struct(&mut self) {
        let p = self.p;
        let name = self.staged();
        let change = self.byte().change.clone();
        let mask = self.mask_type();
        self.blank();
        self.doc(&[
            format!(
                "A `{change}` as the `AckedDecoder` stages it between reading a frame and applying it:"
            ),
            "the wire's integers (a float's bits, a quaternion's field bits), one plain field per"
                .into(),
            "group field and age. A group the mask does not select holds zeros, so that two staged"
                .into(),
            "changes are equal exactly when the changes they stage are.".into(),
        ]);
        self.line("#[derive(Debug, Clone, Copy, PartialEq, Eq)]");
        self.open(format!("pub struct {name} {{"));
        self.line("eid: u16,");
        self.line(format!("mask: {mask},"));
        for f in &p.staged.fields {
            self.line(format!("{}: {},", f.name, int_name(f.signed, f.bits)));
        }
        self.close("}");
        self.blank();
        self.open(format!("impl {name} {{"));
        self.line("/// Nothing selected, every field zero.");
        self.open(format!("pub const NONE: {name} = {name} {{"));
        self.line("eid: 0,");
        self.line("mask: 0,");
        for f in &p.staged.fields {
            self.line(format!("{}: 0,", f.name));
        }
        self.close("};");
        // The mask bits, as the byte-aligned mask lays them out.
        let byte = self.byte().clone();
        for (gi, g) in p.groups.iter().enumerate() {
            self.line(format!("/// The {} group.", g.name));
            self.line(format!(
                "pub const {}: {mask} = 1 << {};",
                g.bit_name, g.bit
            ));
            if let (Some(n), Some(b)) = (&g.full_bit_name, byte.full_bits[gi]) {
                self.line(format!("/// The {} group's full form.", g.name));
                self.line(format!("pub const {n}: {mask} = 1 << {b};"));
            }
            if let (Some(n), Some(b)) = (&g.age_bit_name, byte.age_bits[gi]) {
                self.line(format!("/// The {} group's age.", g.name));
                self.line(format!("pub const {n}: {mask} = 1 << {b};"));
            }
        }
        self.line("/// Every bit the mask names.");
        self.line(format!("pub const NAMED: {mask} = {:#x};", byte.named()));
        self.blank();
        self.line("/// The entity.");
        self.line("#[inline]");
        self.open("pub fn eid(&self) -> u16 {");
        self.line("self.eid");
        self.close("}");
        self.blank();
        self.line("/// Whether the mask holds all of `bits`.");
        self.line("#[inline(always)]");
        self.open(format!("pub fn has(&self, bits: {mask}) -> bool {{"));
        self.line("self.mask & bits == bits");
        self.close("}");
        self.close("}");
    }

    // ---- the slot ----

    fn slot_struct(&mut self) {
        let p = self.p;
        let name = p.slot.name.clone();
        let record = self.record();
        let words = p.slot.words;
        let align = (words * 8).next_power_of_two().min(64);
        let rt = self.rt();
        self.blank();
        self.doc(&[
            format!("One entity's `{record}` (or none) as the `AckedDecoder`'s tables hold it: every"),
            "field of the record's canonical bytes at its place in order, each within one u64 word,"
                .into(),
            "and a last byte saying what the slot holds (0: no entity; else bit 7 and a bit per".into(),
            "optional group held). Two slots are equal exactly when their records are; a slot copies"
                .into(),
            "and compares as a few words, and hashes as its own bytes.".into(),
        ]);
        self.line("#[derive(Clone, Copy, Eq)]");
        self.line(format!("#[repr(C, align({align}))]"));
        self.line(format!("pub struct {name}([u64; {words}]);"));
        self.blank();
        self.open(format!("impl PartialEq for {name} {{"));
        self.line("/// Word by word, by value: one chain of xors, no early exit.");
        self.line("#[inline(always)]");
        self.open("fn eq(&self, other: &Self) -> bool {");
        let terms: Vec<String> = (0..words)
            .map(|i| format!("(self.0[{i}] ^ other.0[{i}])"))
            .collect();
        self.line(format!("{} == 0", terms.join(" | ")));
        self.close("}");
        self.close("}");
        self.blank();
        self.open(format!("impl std::fmt::Debug for {name} {{"));
        self.open("fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {");
        self.line(format!(
            "f.debug_tuple(\"{name}\").field(&{}::DecoderSlot::<{}>::record(self)).finish()",
            self.m,
            self.byte().schema
        ));
        self.close("}");
        self.close("}");
        self.blank();
        self.open(format!("impl {name} {{"));
        for (f, s) in p.record.fields.iter().zip(&p.slot.fields) {
            self.line(format!(
                "const AT_{}: usize = {};",
                f.name.to_uppercase(),
                s.at
            ));
        }
        self.line(format!("const AT_HOLDS: usize = {};", p.slot.holds_at));
        self.line("/// A slot holding an entity, before its groups.");
        self.line("const HOLDS: u64 = 0x80;");
        self.line("/// An entity coming whole, before its groups: every field zero.");
        self.open(format!("const WHOLE: {name} = {{"));
        self.line(format!("let mut w = [0; {words}];"));
        self.line("w[Self::AT_HOLDS / 8] = Self::HOLDS << (8 * (Self::AT_HOLDS % 8));");
        self.line(format!("{name}(w)"));
        self.close("};");
        self.blank();
        self.line(
            "/// The field of `bytes` bytes at byte `at`, little endian: `at` and `bytes` are",
        );
        self.line("/// constants, so each access is a shift and a mask of one word.");
        self.line("#[inline(always)]");
        self.open("fn get(&self, at: usize, bytes: u32) -> u64 {");
        self.line("let (w, shift) = (at / 8, (at % 8) as u32 * 8);");
        self.line("(self.0[w] >> shift) & (u64::MAX >> (64 - 8 * bytes))");
        self.close("}");
        self.blank();
        self.line("/// Sets the field [`Self::get`] reads.");
        self.line("#[inline(always)]");
        self.open("fn set(&mut self, at: usize, bytes: u32, value: u64) {");
        self.line("let (w, shift) = (at / 8, (at % 8) as u32 * 8);");
        self.line("let mask = (u64::MAX >> (64 - 8 * bytes)) << shift;");
        self.line("self.0[w] = (self.0[w] & !mask) | ((value << shift) & mask);");
        self.close("}");
        self.blank();
        self.line("/// Whether the slot holds an entity.");
        self.line("#[inline(always)]");
        self.open("fn held(&self) -> bool {");
        self.line("self.get(Self::AT_HOLDS, 1) != 0");
        self.close("}");
        self.blank();
        self.line("/// The slot's bytes, in order.");
        self.line("#[inline(always)]");
        self.open(format!("fn bytes(&self) -> [u8; {}] {{", words * 8));
        self.line(format!("let mut b = [0u8; {}];", words * 8));
        for i in 0..words {
            self.line(format!(
                "b[{}..{}].copy_from_slice(&self.0[{i}].to_le_bytes());",
                i * 8,
                i * 8 + 8
            ));
        }
        self.line("b");
        self.close("}");
        self.close("}");
        self.slot_impl(&rt);
    }

    /// The slot's accessor of record field `i` as its record type.
    fn slot_read(&self, i: usize) -> String {
        let f = &self.p.record.fields[i];
        let at = format!("Self::AT_{}", f.name.to_uppercase());
        let get = format!("self.get({at}, {})", self.p.slot.fields[i].bytes);
        match &f.holds {
            Holds::Flags => {
                let flags = self.p.flags.as_ref().expect("flags");
                format!(
                    "{}::from_bits({get} as {})",
                    flags.bits,
                    uint_type(flags.width)
                )
            }
            Holds::Field { group, field } => {
                self.value_from_u64(&self.p.groups[*group].fields[*field].value, &get)
            }
            Holds::Group(g) => self.nested_from_slot(*g, &get),
        }
    }

    /// A record value from its bits as a slot keeps them (`raw`, a `u64`).
    fn value_from_u64(&self, v: &Value, raw: &str) -> String {
        match v {
            Value::Int { signed, bits, .. } => {
                if *signed {
                    format!("{raw} as {} as {}", uint_type(*bits), int_type(*bits))
                } else {
                    format!("{raw} as {}", uint_type(*bits))
                }
            }
            Value::Tick => format!("{raw} as u32"),
            Value::Float { bits: 32 } => format!("f32::from_bits({raw} as u32)"),
            Value::Float { .. } => format!("f64::from_bits({raw})"),
            Value::Bool => format!("{raw} != 0"),
            Value::Bits { name, width } => {
                format!("{name}::from_bits({raw} as {})", uint_type(*width))
            }
            Value::Quat { bits } => {
                format!("{}::SmallestThree::from_word({raw}, {bits})", self.rt())
            }
        }
    }

    /// A nested group's field `val` as the integer the slot and the check keep: a quantized
    /// field's record holds its value, a float, which is the integer quantized as the generated
    /// writer quantizes it (then cast, saturating, to the integer's type); any other field as
    /// it is.
    fn nested_int(&self, v: &Value, val: &str) -> String {
        match v {
            Value::Int {
                signed,
                bits,
                unit: Some((num, den)),
            } => format!(
                "{}::wire::round({val} / {}) as {}",
                self.m,
                scale(*num, *den),
                int_name(*signed, *bits)
            ),
            _ => val.to_string(),
        }
    }

    /// A record value's bits as a slot keeps them, as a `u64`.
    fn value_to_u64(&self, v: &Value, val: &str) -> String {
        match v {
            Value::Int {
                signed: true, bits, ..
            } => format!("u64::from({val} as {})", uint_type(*bits)),
            Value::Int { bits: 64, .. } => val.to_string(),
            Value::Int { .. } | Value::Tick => format!("u64::from({val})"),
            Value::Float { bits: 32 } => format!("u64::from({val}.to_bits())"),
            Value::Float { .. } => format!("{val}.to_bits()"),
            Value::Bool => format!("u64::from({val})"),
            Value::Bits { .. } => format!("u64::from({val}.bits())"),
            Value::Quat { bits } => format!("{val}.to_word({bits})"),
        }
    }

    /// A nested group's record from its slot bits (`raw`): a quaternion's record, or the
    /// group's fields laid out as its canonical bytes.
    fn nested_from_slot(&self, gi: usize, raw: &str) -> String {
        let g = &self.p.groups[gi];
        let fields: Vec<String> = nested_layout(g)
            .into_iter()
            .map(|(fi, bit, width)| {
                let value = &g.fields[fi].value;
                // Parenthesized whole where it is cast (`as u8` binds tighter than `&`), bare
                // where it is a function's argument.
                let bare = matches!(value, Value::Quat { .. } | Value::Float { bits: 64 });
                let part = if bit == 0 && bare {
                    format!("{raw} & (u64::MAX >> (64 - {width}))")
                } else if bit == 0 {
                    format!("({raw} & (u64::MAX >> (64 - {width})))")
                } else {
                    format!("({raw} >> {bit} & (u64::MAX >> (64 - {width})))")
                };
                format!(
                    "{}: {}",
                    super::ident(&g.fields[fi].name),
                    nested_value(value, &self.value_from_u64(value, &part))
                )
            })
            .collect();
        format!("{} {{ {} }}", g.record, fields.join(", "))
    }

    /// A nested group's record (`val`) as its slot bits.
    fn nested_to_slot(&self, gi: usize, val: &str) -> String {
        let g = &self.p.groups[gi];
        let parts: Vec<String> = nested_layout(g)
            .into_iter()
            .map(|(fi, bit, _)| {
                let value = &g.fields[fi].value;
                let field = format!("{val}.{}", super::ident(&g.fields[fi].name));
                let v = self.value_to_u64(value, &self.nested_int(value, &field));
                if bit == 0 {
                    v
                } else {
                    format!("({v} << {bit})")
                }
            })
            .collect();
        parts.join(" | ")
    }

    fn slot_impl(&mut self, rt: &str) {
        let p = self.p;
        let name = p.slot.name.clone();
        let record = self.record();
        let staged = self.staged();
        let m = self.m.clone();
        self.blank();
        self.open(format!(
            "impl<S: {m}::AckedSchema<Record = {record}, Staged = {staged}>> {m}::DecoderSlot<S> for {name} {{"
        ));
        self.line(format!(
            "const EMPTY: {name} = {name}([0; {}]);",
            p.slot.words
        ));
        self.blank();
        self.line("#[inline(always)]");
        self.open("fn holds(&self) -> bool {");
        self.line("self.held()");
        self.close("}");
        self.blank();
        self.line("#[inline(always)]");
        self.open("fn measured(&self, _schema: &S) -> Option<u32> {");
        match p.measured.and_then(|g| self.record_index_of_tick(g)) {
            Some(i) => {
                let f = p.record.fields[i].name.to_uppercase();
                self.line(format!(
                    "self.held().then(|| self.get(Self::AT_{f}, 4) as u32)"
                ));
            }
            None => self.line("None"),
        }
        self.close("}");
        self.blank();
        self.line("#[inline(always)]");
        self.open("fn pose_full(&self, _schema: &S) -> Option<bool> {");
        match (p.tiered, &p.flags) {
            (Some(g), Some(flags)) => {
                let bit = p.groups[g].tier.as_ref().map_or(0, |b| b.index);
                let i = p
                    .record
                    .fields
                    .iter()
                    .position(|f| f.holds == Holds::Flags)
                    .unwrap_or(0);
                let bytes = p.slot.fields[i].bytes;
                let _ = flags;
                self.line(format!(
                    "self.held().then(|| {} != 0)",
                    bit_at(
                        &format!(
                            "self.get(Self::AT_{}, {bytes})",
                            p.record.fields[i].name.to_uppercase()
                        ),
                        bit
                    )
                ));
            }
            _ => self.line("None"),
        }
        self.close("}");
        self.blank();
        self.line(
            "/// The check carried over the entity's id and record (CHECK-2; nothing for none):",
        );
        self.line("/// the record's canonical bytes are the slot's, less the gaps between words.");
        self.line("#[inline(always)]");
        self.open(format!(
            "fn hash(&self, _schema: &S, h: {rt}::Fnv1a32, eid: u16) -> {rt}::Fnv1a32 {{"
        ));
        self.line("let h = h.update(&eid.to_le_bytes());");
        self.open("if !self.held() {");
        self.line("return h;");
        self.close("}");
        self.line("let b = self.bytes();");
        // Only an optional group's bytes hash under its presence bit.
        if p.record.fields.iter().any(|f| f.present.is_some()) {
            self.line("let held = self.get(Self::AT_HOLDS, 1);");
        }
        // Runs of slot bytes, merged while contiguous and under the same presence.
        let mut runs: Vec<(u32, u32, Option<usize>)> = Vec::new();
        let mut opt = 0usize;
        for (f, s) in p.record.fields.iter().zip(&p.slot.fields) {
            let presence = f.present.as_ref().map(|_| {
                opt += 1;
                opt - 1
            });
            let bytes = f.bytes;
            match runs.last_mut() {
                Some((start, end, pr)) if *end == s.at && *pr == presence && presence.is_none() => {
                    let _ = start;
                    *end += bytes;
                }
                _ => runs.push((s.at, s.at + bytes, presence)),
            }
        }
        let last = runs.len().saturating_sub(1);
        for (i, (start, end, presence)) in runs.into_iter().enumerate() {
            let run = match presence {
                None => format!("h.update(&b[{start}..{end}])"),
                Some(k) => format!(
                    "if {} != 0 {{ h.update(&b[{start}..{end}]) }} else {{ h }}",
                    bit_at("held", k)
                ),
            };
            if i == last {
                self.line(run);
            } else {
                self.line(format!("let h = {run};"));
            }
        }
        self.close("}");
        self.blank();
        // of
        self.open(format!("fn of(record: Option<&{record}>) -> {name} {{"));
        self.open("let Some(r) = record else {");
        self.line(format!("return {name}([0; {}]);", p.slot.words));
        self.close("};");
        self.line(format!("let mut s = {name}::WHOLE;"));
        let mut opt = 0usize;
        for (i, f) in p.record.fields.iter().enumerate() {
            let at = format!("Self::AT_{}", f.name.to_uppercase());
            let bytes = p.slot.fields[i].bytes;
            let field = Self::rec("r", &f.name);
            match &f.holds {
                Holds::Flags => {
                    self.line(format!("s.set({at}, {bytes}, u64::from({field}.bits()));"))
                }
                Holds::Field { group, field: fi } => {
                    let v = self.value_to_u64(&p.groups[*group].fields[*fi].value, &field);
                    self.line(format!("s.set({at}, {bytes}, {v});"));
                }
                Holds::Group(g) => {
                    if f.present.is_some() {
                        self.open(format!("if let Some(o) = &{field} {{"));
                        let v = self.nested_to_slot(*g, "o");
                        self.line(format!("s.set({at}, {bytes}, {v});"));
                        self.line(format!(
                            "s.set(Self::AT_HOLDS, 1, s.get(Self::AT_HOLDS, 1) | 1 << {opt});"
                        ));
                        self.close("}");
                        opt += 1;
                    } else {
                        let v = self.nested_to_slot(*g, &field);
                        self.line(format!("s.set({at}, {bytes}, {v});"));
                    }
                }
            }
        }
        self.line("s");
        self.close("}");
        self.blank();
        // record
        self.open(format!("fn record(&self) -> Option<{record}> {{"));
        self.line("let held = self.get(Self::AT_HOLDS, 1);");
        self.open(format!("(held != 0).then(|| {record} {{"));
        let mut opt = 0usize;
        for (i, f) in p.record.fields.iter().enumerate() {
            let read = self.slot_read(i);
            if f.present.is_some() {
                self.line(format!(
                    "{}: ({} != 0).then(|| {read}),",
                    super::ident(&f.name),
                    bit_at("held", opt)
                ));
                opt += 1;
            } else {
                self.line(format!("{}: {read},", super::ident(&f.name)));
            }
        }
        self.close("})");
        self.close("}");
        self.blank();
        self.apply_slot();
        self.close("}");
    }

    /// The record field index of group `g`'s tick.
    fn record_index_of_tick(&self, g: usize) -> Option<usize> {
        let t = self.p.groups[g].tick.as_ref()?;
        self.p.record.fields.iter().position(|f| {
            f.holds
                == Holds::Field {
                    group: g,
                    field: t.field,
                }
        })
    }

    fn record_index(&self, g: usize, fi: usize) -> usize {
        self.p
            .record
            .fields
            .iter()
            .position(|f| {
                f.holds
                    == Holds::Field {
                        group: g,
                        field: fi,
                    }
            })
            .unwrap_or(0)
    }

    fn required_mask(&self) -> String {
        let req: Vec<String> = self
            .p
            .groups
            .iter()
            .filter(|g| g.presence.is_none())
            .map(|g| self.bit(&g.bit_name))
            .collect();
        if req.is_empty() {
            "0".into()
        } else {
            req.join(" | ")
        }
    }

    /// The slot's apply: the rule for one staged change (ACK-21, ACK-22, ACK-33), in place.
    fn apply_slot(&mut self) {
        let p = self.p;
        let staged = self.staged();
        self.line(
            "/// ACK-21, ACK-22 and ACK-33 for one change onto this slot (an empty one when the",
        );
        self.line(
            "/// entity comes whole), in a frame of tick `tick`: the record `apply_staged` gives,",
        );
        self.line("/// as a slot, or the same fault.");
        self.line("#[inline(always)]");
        self.open(format!(
            "fn apply(&mut self, _schema: &S, c: &{staged}, {}: u32) -> Result<(), {}::Inapplicable> {{",
            self.tick_param(),
            self.m
        ));
        self.line("let held = self.held();");
        self.open("if !held {");
        self.open(format!("if !c.has({}) {{", self.required_mask()));
        self.line(format!(
            "return Err({}::Inapplicable({:?}));",
            self.m,
            p.whole_fault()
        ));
        self.close("}");
        self.line("*self = Self::WHOLE;");
        self.close("}");
        let mut opt = 0usize;
        for (gi, g) in p.groups.iter().enumerate() {
            let is_opt = g.presence.is_some();
            self.open(format!("if c.has({}) {{", self.bit(&g.bit_name)));
            if g.nested {
                let i = p
                    .record
                    .fields
                    .iter()
                    .position(|f| f.holds == Holds::Group(gi))
                    .unwrap_or(0);
                let f = &p.record.fields[i];
                let at = format!("Self::AT_{}", f.name.to_uppercase());
                let bytes = p.slot.fields[i].bytes;
                // The group's fields as staged are its slot bits, field by field.
                let parts: Vec<String> = nested_layout(g)
                    .into_iter()
                    .map(|(fi, bit, width)| {
                        let sf = self.staged_field(gi, fi).name.clone();
                        let v = format!("u64::from(c.{sf}) & (u64::MAX >> (64 - {width}))");
                        if bit == 0 {
                            v
                        } else {
                            format!("(({v}) << {bit})")
                        }
                    })
                    .collect();
                let value = if parts.len() == 1 {
                    parts[0].clone()
                } else {
                    parts
                        .iter()
                        .map(|p| format!("({p})"))
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                self.line(format!("self.set({at}, {bytes}, {value});"));
                if let (Some(b), Some(flags)) = (&g.presence, &p.flags) {
                    let fi = p
                        .record
                        .fields
                        .iter()
                        .position(|f| f.holds == Holds::Flags)
                        .unwrap_or(0);
                    let fat = format!("Self::AT_{}", p.record.fields[fi].name.to_uppercase());
                    let fb = p.slot.fields[fi].bytes;
                    let _ = flags;
                    self.line(format!(
                        "self.set({fat}, {fb}, self.get({fat}, {fb}) | 1 << {});",
                        b.index
                    ));
                    self.line(format!(
                        "self.set(Self::AT_HOLDS, 1, self.get(Self::AT_HOLDS, 1) | 1 << {opt});"
                    ));
                }
                if is_opt {
                    opt += 1;
                }
                self.close("}");
                continue;
            }
            self.apply_group(gi, true);
            self.close("}");
        }
        self.line("Ok(())");
        self.close("}");
    }

    /// A flat group's apply, onto the slot (`slot`) or onto a record `r` (with `base` the
    /// base's record).
    fn apply_group(&mut self, gi: usize, slot: bool) {
        let p = self.p;
        let g = &p.groups[gi];
        let m = self.m.clone();
        // Writes one record field.
        let set = |s: &Self, fi: usize, val: &str| -> String {
            if slot {
                let i = s.record_index(gi, fi);
                let f = &p.record.fields[i];
                let v = s.value_to_u64(&g.fields[fi].value, val);
                format!(
                    "self.set(Self::AT_{}, {}, {v});",
                    f.name.to_uppercase(),
                    p.slot.fields[i].bytes
                )
            } else {
                format!("r.{} = {val};", super::ident(&g.fields[fi].name))
            }
        };
        let get = |s: &Self, fi: usize| -> String {
            if slot {
                let i = s.record_index(gi, fi);
                s.slot_read(i)
            } else {
                format!("r.{}", super::ident(&g.fields[fi].name))
            }
        };
        let full = g.form(FormRole::Full).cloned();
        let step = g.form(FormRole::Step).cloned();
        let only = g.form(FormRole::Only).cloned();
        if let Some(form) = &only {
            for w in &form.wire {
                let v = self.value_of_staged(gi, w, &m);
                let line = set(self, w.field, &v);
                self.line(line);
            }
        }
        if let (Some(full), Some(step)) = (&full, &step) {
            let full_bit = self.bit(g.full_bit_name.as_deref().unwrap_or(""));
            self.line(format!("let full = c.has({full_bit});"));
            self.open("if full {");
            for w in &full.wire {
                let v = self.value_of_staged(gi, w, &m);
                self.line(format!("let v_{} = {v};", g.fields[w.field].name));
            }
            for w in &full.wire {
                let line = set(self, w.field, &format!("v_{}", g.fields[w.field].name));
                self.line(line);
            }
            self.close("} else {");
            self.g.code.open("");
            // The step form: the origin first, from the base as it was.
            let stepped = g.stepped();
            if slot {
                // The base's stepped fields, read once.
                for &fi in &stepped {
                    let v = get(self, fi);
                    self.line(format!("let b_{} = {v};", g.fields[fi].name));
                }
            }
            let in_reach: Vec<String> = stepped
                .iter()
                .map(|&fi| {
                    within(
                        &format!("b_{}", g.fields[fi].name),
                        &g.fields[fi].value,
                        &format!("{}_REACH", g.bit_name),
                    )
                })
                .collect();
            let from = match (g.reach, slot) {
                (Some(_), true) => format!("held && {}", in_reach.join(" && ")),
                (None, true) => "held".to_string(),
                (Some(_), false) => {
                    let cond: Vec<String> = stepped
                        .iter()
                        .map(|&fi| {
                            within(
                                &format!("b.{}", super::ident(&g.fields[fi].name)),
                                &g.fields[fi].value,
                                &format!("{}_REACH", g.bit_name),
                            )
                        })
                        .collect();
                    format!("base.is_some_and(|b| {})", cond.join(" && "))
                }
                (None, false) => "base.is_some()".to_string(),
            };
            self.line(format!("let from = {from};"));
            for w in &step.wire {
                let v = if w.carry == Carry::Step {
                    let f = &g.fields[w.field];
                    let sf = self.staged_field(gi, w.field).name.clone();
                    let rty = record_int(&f.value);
                    let origin = if slot {
                        format!("b_{}", f.name)
                    } else {
                        format!("base.map_or(0, |b| b.{})", super::ident(&f.name))
                    };
                    let sfield = self.staged_field(gi, w.field);
                    let fault = format!("{m}::Inapplicable({:?})", p.range_fault(g));
                    if int_name(sfield.signed, sfield.bits) == rty {
                        format!(
                            "(if from {{ {origin} }} else {{ 0 }}).checked_add(c.{sf}).ok_or({fault})?"
                        )
                    } else {
                        let wide = wide_int(record_bits(&f.value).max(sfield.bits));
                        format!(
                            "{rty}::try_from({wide}::from(if from {{ {origin} }} else {{ 0 }}) + {wide}::from(c.{sf})).map_err(|_| {fault})?"
                        )
                    }
                } else {
                    self.value_of_staged(gi, w, &m)
                };
                self.line(format!("let v_{} = {v};", g.fields[w.field].name));
            }
            for w in &step.wire {
                let line = set(self, w.field, &format!("v_{}", g.fields[w.field].name));
                self.line(line);
            }
            self.g.code.close("}");
            // The tier.
            if let (Some(t), Some(flags)) = (&g.tier, &p.flags) {
                if slot {
                    let fi = p
                        .record
                        .fields
                        .iter()
                        .position(|f| f.holds == Holds::Flags)
                        .unwrap_or(0);
                    let fat = format!("Self::AT_{}", p.record.fields[fi].name.to_uppercase());
                    let fb = p.slot.fields[fi].bytes;
                    self.line(format!(
                        "self.set({fat}, {fb}, (self.get({fat}, {fb}) & !{:#x}) | {});",
                        1u64 << t.index,
                        shifted("u64::from(full)", t.index)
                    ));
                } else {
                    self.line(format!(
                        "r.{}.set({}::{}, full);",
                        flags.name, flags.bits, t.name
                    ));
                }
            }
        }
        if let Some(t) = &g.tick {
            let age = self.staged_field(gi, t.field).name.clone();
            let v = format!(
                "tick.checked_sub(u32::from(c.{age})).ok_or({m}::Inapplicable({:?}))?",
                p.tick_fault(g)
            );
            let line = set(self, t.field, &v);
            self.line(line);
        }
    }

    /// A wire field's value in the record, from the staged change (not a step).
    fn value_of_staged(&self, gi: usize, w: &WirePlan, m: &str) -> String {
        let p = self.p;
        let g = &p.groups[gi];
        let f = &g.fields[w.field];
        let sf = self.staged_field(gi, w.field);
        let c = format!("c.{}", sf.name);
        match w.carry {
            Carry::Float {
                bits,
                num,
                den,
                limit,
            } => {
                let per_unit = format!("{:?}", den as f64 / num as f64);
                let float = if bits == 32 {
                    format!("f64::from(f32::from_bits({c} as u32))")
                } else {
                    format!("f64::from_bits({c} as u64)")
                };
                let rty = record_int(&f.value);
                format!(
                    "{m}::wire::whole_units({float}, {per_unit}, {limit}.0).map(|v| v as {rty}).ok_or({m}::Inapplicable({:?}))?",
                    p.grid_fault(g)
                )
            }
            Carry::Scaled { by } => {
                let rty = record_int(&f.value);
                let (smin, smax) = w.range.unwrap_or((0, 0));
                let (rmin, rmax) = f.value.range().unwrap_or((0, 0));
                let by = i128::from(by);
                let wide = if sf.signed || sf.bits > 32 {
                    wide_int(sf.bits)
                } else {
                    "u64"
                };
                if smin * by >= rmin && smax * by <= rmax {
                    // Every wire value fits the field: a staged value is one the wire holds.
                    if by == 1 {
                        if sf.bits == record_bits(&f.value) && sf.signed == record_signed(&f.value)
                        {
                            c
                        } else {
                            format!("{c} as {rty}")
                        }
                    } else {
                        format!("({wide}::from({c}) * {by}) as {rty}")
                    }
                } else {
                    format!(
                        "{rty}::try_from({wide}::from({c}) * {by}).map_err(|_| {m}::Inapplicable({:?}))?",
                        p.range_fault(g)
                    )
                }
            }
            Carry::Itself => match &f.value {
                Value::Float { bits: 32 } => format!("f32::from_bits({c} as u32)"),
                Value::Float { .. } => format!("f64::from_bits({c} as u64)"),
                Value::Bool => format!("{c} != 0"),
                Value::Bits { name, width } => {
                    format!("{name}::from_bits({c} as {})", uint_type(*width))
                }
                Value::Quat { bits } => {
                    format!(
                        "{}::SmallestThree::from_word(u64::from({c}), {bits})",
                        self.rt()
                    )
                }
                _ => c,
            },
            Carry::Step => c,
        }
    }

    // ---- the byte-aligned schema ----

    fn schema(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let name = byte.schema.clone();
        let m = self.m.clone();
        let record = self.record();
        let staged = self.staged();
        self.blank();
        self.doc(&p.docs);
        self.line("#[derive(Debug, Clone, Copy, Default)]");
        self.line(format!("pub struct {name};"));
        self.blank();
        self.open(format!("impl {m}::AckedSchema for {name} {{"));
        self.schema_types();
        self.blank();
        self.open("fn frame_name(&self) -> &'static str {");
        self.line(format!("{:?}", byte.frame_name));
        self.close("}");
        self.blank();
        self.diff();
        self.blank();
        self.line("#[inline]");
        self.open(format!(
            "fn change_eid(&self, change: &{}) -> u16 {{",
            byte.change
        ));
        self.line("change.eid");
        self.close("}");
        self.blank();
        self.line("/// Through the staged form, so that the decoder's rule and this are one.");
        self.line("#[inline]");
        self.open(format!(
            "fn apply(&self, base: Option<&{record}>, change: &{}, tick: u32) -> Result<{record}, {m}::Inapplicable> {{",
            byte.change
        ));
        self.line("Self::apply_staged(self, base, &Self::stage(self, change), tick)");
        self.close("}");
        self.blank();
        self.write_record();
        self.blank();
        self.measured_fns();
        self.blank();
        self.encode_frame_byte();
        self.blank();
        self.decode_frame_byte();
        self.blank();
        self.ack_fns();
        self.blank();
        self.stage();
        self.blank();
        self.line("#[inline]");
        self.open(format!("fn staged_eid(&self, staged: &{staged}) -> u16 {{"));
        self.line("staged.eid");
        self.close("}");
        self.blank();
        self.apply_staged();
        self.blank();
        self.line(
            "/// The frame read at once where every change is whole and valid (each read from",
        );
        self.line(
            "/// fixed offsets), the generated reader taking over at a change it refuses, to tell",
        );
        self.line("/// the error where it is: the same frame or the same error as `decode_frame`.");
        self.open(format!(
            "fn decode_staged(&self, bytes: &[u8], out: &mut {m}::StagedFrame<Self>) -> Result<(), {rt}::DecodeError> {{",
            rt = self.rt()
        ));
        self.line("self.read_frame(bytes, out)");
        self.close("}");
        self.close("}");
        self.byte_reader();
    }

    /// The associated types, and the methods of the session constants the spec declares.
    fn schema_types(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let ack = p
            .ack
            .as_ref()
            .map_or("Ack".to_string(), |a| a.frame.clone());
        let _ = ack;
        self.line(format!("type Record = {};", p.record.name));
        self.line(format!("type Change = {};", byte.change));
        self.line(format!("type Event = {};", p.events));
        self.line(format!(
            "type Input = {};",
            p.inputs.clone().unwrap_or_else(|| "()".into())
        ));
        self.line(format!("type Staged = {};", p.staged.name));
        self.line(format!("type Slot = {};", p.slot.name));
        for (name, ty) in CONST_TYPES {
            if p.constants.iter().any(|(n, _)| n == name) {
                let declared = match self.g.low.index.get(name) {
                    Some(crate::index::Decl::Const(c)) => int_name(c.ty.signed, c.ty.bits),
                    _ => "",
                };
                self.blank();
                self.open(format!("fn {}(&self) -> {ty} {{", name.to_lowercase()));
                self.line(cast(name, declared, ty));
                self.close("}");
            }
        }
        if let Some(a) = &p.ack {
            self.blank();
            self.open("fn ack_name(&self) -> &'static str {");
            self.line(format!("{:?}", crate::gen::snake_case(&a.frame)));
            self.close("}");
        }
    }

    fn diff(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let record = self.record();
        let change = byte.change.clone();
        let m = self.m.clone();
        let rt = self.rt();
        // The doc names only what this state has: a group of two forms, a measured tick.
        let two_forms = p.groups.iter().find(|g| g.forms.len() > 1);
        let measured = p.groups.iter().find(|g| g.tick.is_some());
        self.line(
            "/// ACK-21: each group whose fields differ from the base's, every group of an entity",
        );
        self.line("/// that comes whole.");
        if let Some(g) = two_forms {
            self.line(format!(
                "/// Whether `{}` travels whole or as a step travels with each change (POSE_FULL), since",
                g.name
            ));
            self.line("/// the base can be any recent frame.");
        }
        if let Some(g) = measured {
            self.line(format!(
                "/// A `{}` measured in a frame that was lost travels with its age (POSE_AGE, ACK-33).",
                g.name
            ));
        }
        let tick = self.tick_param();
        self.open(format!(
            "fn diff(&self, eid: u16, base: Option<&{record}>, next: &{record}, {tick}: u32) -> Result<Option<{change}>, {rt}::EncodeError> {{"
        ));
        let mut names = Vec::new();
        for (gi, g) in p.groups.iter().enumerate() {
            let v = format!("g_{}", g.name);
            if let (Some(pres), Some(flags)) = (&g.presence, &p.flags) {
                let f = Self::rec("next", &g.name);
                self.line(
                    "// ACK-22: an optional group; the flags say whether the record has it, and once",
                );
                self.line("// an entity has it, it keeps it (no change takes it away).");
                self.open(format!(
                    "if next.{}.contains({}::{}) != {f}.is_some() {{",
                    flags.name, flags.bits, pres.name
                ));
                self.line(format!("return Err({m}::wire::invalid({:?}));", g.name));
                self.close("}");
                self.open(format!(
                    "if base.is_some_and(|b| b.{}.is_some()) && {f}.is_none() {{",
                    super::ident(&g.name)
                ));
                self.line(format!("return Err({m}::wire::invalid({:?}));", g.name));
                self.close("}");
                self.line(format!(
                    "let {v} = {f}.is_some() && base.is_none_or(|b| b.{} != {f});",
                    super::ident(&g.name)
                ));
            } else if g.nested {
                self.line(format!(
                    "let {v} = base.is_none_or(|b| b.{n} != next.{n});",
                    n = super::ident(&g.name)
                ));
            } else {
                let mut parts: Vec<(String, String)> = g
                    .fields
                    .iter()
                    .map(|f| {
                        (
                            format!("b.{}", super::ident(&f.name)),
                            format!("next.{}", super::ident(&f.name)),
                        )
                    })
                    .collect();
                if let Some(t) = &g.tier {
                    parts.push((
                        self.flags_test("b", &t.name),
                        self.flags_test("next", &t.name),
                    ));
                }
                let (a, b): (Vec<String>, Vec<String>) = parts.into_iter().unzip();
                let tuple = |v: Vec<String>| {
                    if v.len() == 1 {
                        v[0].clone()
                    } else {
                        format!("({})", v.join(", "))
                    }
                };
                self.line(format!(
                    "let {v} = base.is_none_or(|b| {} != {});",
                    tuple(a),
                    tuple(b)
                ));
            }
            names.push((gi, v));
        }
        let none: Vec<String> = names.iter().map(|(_, v)| format!("!{v}")).collect();
        self.open(format!("if {} {{", none.join(" && ")));
        self.line("return Ok(None);");
        self.close("}");
        // The change, empty.
        let change_fields: Vec<String> = self
            .g
            .low
            .plan(&change, None)
            .map(|pl| pl.values().map(|s| s.field.name.clone()).collect())
            .unwrap_or_default();
        self.open(format!("let mut change = {change} {{"));
        for f in &change_fields {
            match f.as_str() {
                "eid" => self.line("eid,"),
                "mask" => self.line(format!("mask: {}::empty(),", byte.mask)),
                other => self.line(format!("{}: None,", super::ident(other))),
            }
        }
        self.close("};");
        for (gi, v) in &names {
            let gi = *gi;
            let g = &p.groups[gi];
            self.open(format!("if {v} {{"));
            self.line(format!(
                "change.mask.set({}::{}, true);",
                byte.mask, g.bit_name
            ));
            if let (Some(t), Some(age_bit)) = (&g.tick, &g.age_bit_name) {
                let tick_field = &g.fields[t.field].name;
                let aty = uint_type(t.wire.bits);
                self.line(format!(
                    "let age = tick.checked_sub(next.{}).ok_or_else(|| {m}::wire::over({:?}))?;",
                    super::ident(tick_field),
                    t.age
                ));
                self.open("if age > 0 {");
                self.line(format!("change.mask.set({}::{age_bit}, true);", byte.mask));
                self.line(format!(
                    "change.{} = Some({aty}::try_from(age).map_err(|_| {m}::wire::over({:?}))?);",
                    super::ident(&t.age),
                    t.age
                ));
                self.close("}");
            }
            let full = g.form(FormRole::Full).cloned();
            let step = g.form(FormRole::Step).cloned();
            if let Some(only) = g.form(FormRole::Only).cloned() {
                if g.nested {
                    let f = Self::rec("next", &g.name);
                    let value = if g.presence.is_some() {
                        f
                    } else {
                        format!("Some({f})")
                    };
                    self.line(format!("change.{} = {value};", super::ident(&only.field)));
                } else {
                    let v = self.form_value(gi, &only, "next", &change);
                    self.line(format!("change.{} = Some({v});", super::ident(&only.field)));
                }
            } else if let (Some(full), Some(step)) = (full, step) {
                let full_bit = g.full_bit_name.clone().unwrap_or_default();
                let fv = self.form_value(gi, &full, "next", &change);
                let sv = self.form_value(gi, &step, "next", &change);
                let origin = self.origin_lets(gi);
                match &g.tier {
                    Some(t) => {
                        self.open(format!("if {} {{", self.flags_test("next", &t.name)));
                        self.line(format!("change.mask.set({}::{full_bit}, true);", byte.mask));
                        self.line(format!(
                            "change.{} = Some({fv});",
                            super::ident(&full.field)
                        ));
                        self.close("} else {");
                        self.g.code.open("");
                        for l in &origin {
                            self.line(l);
                        }
                        self.line(format!(
                            "change.{} = Some({sv});",
                            super::ident(&step.field)
                        ));
                        self.g.code.close("}");
                    }
                    None => {
                        // The step form when every field can step, the full form otherwise.
                        for l in &origin {
                            self.line(l);
                        }
                        let try_step =
                            format!("(|| -> Result<_, {rt}::EncodeError> {{ Ok({sv}) }})()");
                        self.open(format!("match {try_step} {{"));
                        self.line(format!(
                            "Ok(s) => change.{} = Some(s),",
                            super::ident(&step.field)
                        ));
                        self.open("Err(_) => {");
                        self.line(format!("change.mask.set({}::{full_bit}, true);", byte.mask));
                        self.line(format!(
                            "change.{} = Some({fv});",
                            super::ident(&full.field)
                        ));
                        self.close("}");
                        self.close("}");
                    }
                }
            }
            self.close("}");
        }
        self.line("Ok(Some(change))");
        self.close("}");
    }

    /// The lets of a step form's origin: each stepped field's, from the base when it holds the
    /// entity (and, with a reach, every stepped field lies within it), else 0.
    fn origin_lets(&self, gi: usize) -> Vec<String> {
        let g = &self.p.groups[gi];
        let stepped = g.stepped();
        let cond = match g.reach {
            Some(_) => {
                let c: Vec<String> = stepped
                    .iter()
                    .map(|&fi| {
                        within(
                            &format!("b.{}", super::ident(&g.fields[fi].name)),
                            &g.fields[fi].value,
                            &format!("{}_REACH", g.bit_name),
                        )
                    })
                    .collect();
                format!("base.filter(|b| {})", c.join(" && "))
            }
            None => "base".to_string(),
        };
        let mut out = vec![format!("let from = {cond};")];
        for &fi in &stepped {
            let n = &g.fields[fi].name;
            out.push(format!(
                "let o_{n} = from.map_or(0, |b| b.{});",
                super::ident(n)
            ));
        }
        out
    }

    /// A form's wire record built from the record `of` (the step form's origin in `o_FIELD`),
    /// as an expression that may fail with `?`.
    fn form_value(&self, gi: usize, form: &FormPlan, of: &str, _change: &str) -> String {
        let p = self.p;
        let g = &p.groups[gi];
        let m = &self.m;
        let rt = self.rt();
        let fields: Vec<String> = form
            .wire
            .iter()
            .map(|w| {
                let f = &g.fields[w.field];
                let src = format!("{of}.{}", super::ident(&f.name));
                let path = format!("{}.{}", form.field, w.name);
                let wire_ty = self.field_type(&form.record, &w.name);
                let v = match w.carry {
                    Carry::Float { bits, num, den, limit } => format!(
                        "{{ if {} {{ return Err({m}::wire::over({path:?})); }} (f64::from({src}) * {:?}) as f{bits} }}",
                        reaches(&src, &f.value, limit),
                        num as f64 / den as f64
                    ),
                    Carry::Step => format!(
                        "{wire_ty}::try_from({wide}::from({src}) - {wide}::from(o_{})).map_err(|_| {m}::wire::over({path:?}))?",
                        f.name,
                        wide = wide_int(record_bits(&f.value))
                    ),
                    Carry::Scaled { by } => {
                        let int = if by == 1 {
                            src.clone()
                        } else {
                            format!(
                                "{{ if !{src}.is_multiple_of({by}) {{ return Err({m}::wire::over({path:?})); }} {src} / {by} }}"
                            )
                        };
                        match &w.ty {
                            Type::Quant { wire, num, den } => {
                                let (s, b) = match wire.as_ref() {
                                    Type::Int(t) => (t.signed, t.bits),
                                    _ => (false, 64),
                                };
                                let _ = (s, b);
                                format!("(({int}) as f64) * {}", scale(*num, *den))
                            }
                            _ => {
                                let same = record_int(&f.value) == wire_ty;
                                if same {
                                    int
                                } else {
                                    format!(
                                        "{wire_ty}::try_from({int}).map_err(|_| {m}::wire::over({path:?}))?"
                                    )
                                }
                            }
                        }
                    }
                    Carry::Itself => {
                        let _ = &rt;
                        src
                    }
                };
                format!("{}: {v}", super::ident(&w.name))
            })
            .collect();
        format!("{} {{ {} }}", form.record, fields.join(", "))
    }

    fn write_record(&mut self) {
        let p = self.p;
        let record = self.record();
        let rt = self.rt();
        let total: u32 = p.record.fields.iter().map(|f| f.bytes).sum();
        self.line(
            "/// The record's canonical bytes (CHECK-3: what the check hashes after the u16 eid),",
        );
        self.line(
            "/// written at once; a record no apply gives (reserved flags, a presence bit without",
        );
        self.line(
            "/// its group, a quaternion off its rules) goes to the generated writer, which refuses",
        );
        self.line("/// it where it is.");
        self.line("#[inline]");
        self.open(format!(
            "fn write_record(&self, record: &{record}, out: &mut Vec<u8>) {{"
        ));
        // The sound-record test.
        let mut sound: Vec<String> = Vec::new();
        if let Some(flags) = &p.flags {
            let known: u64 = p
                .groups
                .iter()
                .flat_map(|g| [g.tier.as_ref(), g.presence.as_ref()])
                .flatten()
                .fold(0, |m, b| m | 1 << b.index);
            sound.push(format!("record.{}.bits() & !{known:#x} == 0", flags.name));
            for g in &p.groups {
                if let Some(b) = &g.presence {
                    // Bit 0 unshifted: `>> 0` is clippy's identity_op in the user's crate.
                    let shift = match b.index {
                        0 => String::new(),
                        i => format!(" >> {i}"),
                    };
                    sound.push(format!(
                        "(record.{}.bits(){shift} & 1 != 0) == record.{}.is_some()",
                        flags.name,
                        super::ident(&g.name)
                    ));
                }
            }
        }
        for g in &p.groups {
            for f in &g.fields {
                if let Value::Quat { bits } = f.value {
                    let path = if g.presence.is_some() {
                        format!(
                            "record.{}.as_ref().is_none_or(|o| o.{}.check({bits}).is_ok())",
                            super::ident(&g.name),
                            super::ident(&f.name)
                        )
                    } else {
                        format!(
                            "record.{}.{}.check({bits}).is_ok()",
                            super::ident(&g.name),
                            super::ident(&f.name)
                        )
                    };
                    sound.push(path);
                }
            }
        }
        if !sound.is_empty() {
            self.open(format!("if !({}) {{", sound.join(" && ")));
            self.line("let _ = record.write(out);");
            self.line("return;");
            self.close("}");
        }
        self.line(format!("let mut b = [0u8; {total}];"));
        self.line("let mut n = 0;");
        for f in &p.record.fields {
            let src = format!("record.{}", super::ident(&f.name));
            let (open, bytes_expr) = match &f.holds {
                Holds::Flags => (None, format!("{src}.bits().to_le_bytes()")),
                Holds::Field { group, field } => {
                    (None, le_bytes(&p.groups[*group].fields[*field].value, &src))
                }
                Holds::Group(g) => {
                    let v = self.nested_to_slot(*g, "o");
                    let expr = format!("({v}).to_le_bytes()");
                    if f.present.is_some() {
                        (Some(format!("if let Some(o) = &{src} {{")), expr)
                    } else {
                        (Some(format!("{{ let o = &{src};")), expr)
                    }
                }
            };
            if let Some(o) = &open {
                self.open(o);
            }
            self.line(format!(
                "b[n..n + {0}].copy_from_slice(&{bytes_expr}[..{0}]);",
                f.bytes
            ));
            self.line(format!("n += {};", f.bytes));
            if open.is_some() {
                self.close("}");
            }
        }
        self.line("out.extend_from_slice(&b[..n]);");
        let _ = rt;
        self.close("}");
    }

    /// The name of the frame's tick among a diff's or an apply's parameters: only a group's
    /// tick reads it, so a state without one leaves it unused.
    fn tick_param(&self) -> &'static str {
        if self.p.measured.is_some() {
            "tick"
        } else {
            "_tick"
        }
    }

    fn measured_fns(&mut self) {
        let p = self.p;
        let record = self.record();
        self.line("#[inline]");
        // A state without a tick never reads the record.
        let param = if p.measured.is_some() {
            "record"
        } else {
            "_record"
        };
        self.open(format!(
            "fn measured(&self, {param}: &{record}) -> Option<u32> {{"
        ));
        match p.measured {
            Some(g) => {
                let t = p.groups[g].tick.as_ref().map_or(0, |t| t.field);
                self.line(format!(
                    "Some(record.{})",
                    super::ident(&p.groups[g].fields[t].name)
                ));
            }
            None => self.line("None"),
        }
        self.close("}");
        self.blank();
        self.line("#[inline]");
        match p.tiered.and_then(|g| p.groups[g].tier.as_ref()) {
            Some(t) => {
                self.open(format!(
                    "fn pose_full(&self, record: &{record}) -> Option<bool> {{"
                ));
                self.line(format!("Some({})", self.flags_test("record", &t.name)));
            }
            // No tier: the record is not read (a state whose full form has no flags bit).
            None => {
                self.open(format!(
                    "fn pose_full(&self, _record: &{record}) -> Option<bool> {{"
                ));
                self.line("None");
            }
        }
        self.close("}");
    }

    /// The byte-aligned frame written field by field from the borrowed frame: the bytes and
    /// the outcome of building the generated frame record and writing it, without copying the
    /// frame's lists into that record.
    fn encode_frame_byte(&mut self) {
        let byte = self.byte().clone();
        let m = self.m.clone();
        let rt = self.rt();
        self.line(
            "/// The generated frame's writer step for step (the same bytes, the same errors),",
        );
        self.line("/// reading the frame's lists in place.");
        self.open(format!(
            "fn encode_frame(&self, frame: &{m}::FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.write_frame_head(byte.kind);
        self.line(
            "out.uint(2, false, frame.changes.len() as u64).map_err(|e| e.field(\"changed_count\"))?;",
        );
        self.write_check_removed();
        self.open("for (i, c) in frame.changes.iter().enumerate() {");
        self.line("c.write(out).map_err(|e| e.index(i).field(\"changes\"))?;");
        self.close("}");
        self.write_frame_tail();
        self.close("}");
    }

    /// What every acked frame's writer starts with, up to the removed count (ACK-2's header):
    /// a frame with more events than the count holds is refused before a byte is written.
    fn write_frame_head(&mut self, kind: u8) {
        let p = self.p;
        let m = self.m.clone();
        self.open("if frame.events.len() > usize::from(u8::MAX) {");
        self.line(format!("return Err({m}::wire::over(\"event_count\"));"));
        self.close("}");
        self.line(format!("let mut flags = {}::empty();", p.acked_flags));
        self.line(format!(
            "flags.set({}::KEYFRAME, frame.keyframe);",
            p.acked_flags
        ));
        self.line(format!(
            "flags.set({}::CHECK, frame.check.is_some());",
            p.acked_flags
        ));
        self.line(format!(
            "out.uint(1, false, {kind}).map_err(|e| e.field(\"kind\"))?;"
        ));
        for (f, n) in [
            ("tick", 4),
            ("base_tick", 4),
            ("last_seq", 4),
            ("input_buffer", 1),
        ] {
            self.line(format!(
                "out.uint({n}, false, u64::from(frame.{f})).map_err(|e| e.field(\"{f}\"))?;"
            ));
        }
        self.line("flags.write(out).map_err(|e| e.field(\"flags\"))?;");
        self.line(
            "out.uint(2, false, frame.removed.len() as u64).map_err(|e| e.field(\"removed_count\"))?;",
        );
    }

    /// The check (with the flags' CHECK bit) and the removed ids, after the counts.
    fn write_check_removed(&mut self) {
        self.open("if let Some(v) = frame.check {");
        self.line("out.uint(4, false, u64::from(v)).map_err(|e| e.field(\"check\"))?;");
        self.close("}");
        self.open("for (i, id) in frame.removed.iter().enumerate() {");
        self.line(
            "out.uint(2, false, u64::from(*id)).map_err(|e| e.index(i).field(\"removed\"))?;",
        );
        self.close("}");
    }

    /// What follows the changes in every acked frame: the event count, the first serial (with
    /// any event) and the events.
    fn write_frame_tail(&mut self) {
        self.line(
            "out.uint(1, false, frame.events.len() as u64).map_err(|e| e.field(\"event_count\"))?;",
        );
        self.open("if !frame.events.is_empty() {");
        self.line(
            "out.uint(4, false, u64::from(frame.first_serial)).map_err(|e| e.field(\"first_serial\"))?;",
        );
        self.close("}");
        self.open("for (i, e) in frame.events.iter().enumerate() {");
        self.line("e.write(out).map_err(|e| e.index(i).field(\"events\"))?;");
        self.close("}");
        self.line("Ok(())");
    }

    fn decode_frame_byte(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let m = self.m.clone();
        let rt = self.rt();
        self.open(format!(
            "fn decode_frame(&self, bytes: &[u8]) -> Result<{m}::FrameOf<Self>, {rt}::DecodeError> {{"
        ));
        self.line(format!("let mut r = {rt}::Reader::new(bytes);"));
        self.line(format!("let f = {}::read(&mut r)?;", byte.frame));
        self.line("r.finish()?;");
        self.line(format!("let mut out = {m}::AckedFrame::empty();"));
        self.open(format!("{m}::wire::Header {{"));
        for f in ["tick", "base_tick", "last_seq", "input_buffer"] {
            self.line(format!("{f}: f.{f},"));
        }
        self.line(format!(
            "keyframe: f.flags.contains({}::KEYFRAME),",
            p.acked_flags
        ));
        self.line("check: f.check,");
        self.line("first_serial: f.first_serial,");
        self.close("}");
        self.line(".into_frame(&mut out)?;");
        self.line("out.removed = f.removed;");
        self.line("out.changes = f.changes;");
        self.line("out.events = f.events;");
        self.line("Ok(out)");
        self.close("}");
    }

    fn ack_fns(&mut self) {
        let p = self.p;
        let m = self.m.clone();
        let rt = self.rt();
        let (Some(a), Some(input)) = (&p.ack, &p.inputs) else {
            return;
        };
        let (frame, flags) = (a.frame.clone(), a.flags.clone());
        self.open(format!(
            "fn encode_ack(&self, ack: &{m}::AckContent<{input}>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.line(format!("let mut flags = {flags}::empty();"));
        self.line(format!(
            "flags.set({flags}::KEYFRAME_REQUEST, ack.keyframe_request);"
        ));
        self.open("if ack.inputs.len() > usize::from(u8::MAX) {");
        self.line(format!("return Err({m}::wire::over(\"input_count\"));"));
        self.close("}");
        self.open(format!("{frame} {{"));
        self.line("ack_tick: ack.ack_tick,");
        self.line("flags,");
        self.line("first_seq: (!ack.inputs.is_empty()).then_some(ack.first_seq),");
        self.line("inputs: ack.inputs.clone(),");
        self.close("}");
        self.line(".write(out)");
        self.close("}");
        self.blank();
        self.open(format!(
            "fn decode_ack(&self, bytes: &[u8]) -> Result<{m}::AckContent<{input}>, {rt}::DecodeError> {{"
        ));
        self.line(format!("let mut r = {rt}::Reader::new(bytes);"));
        self.line(format!("let a = {frame}::read(&mut r)?;"));
        self.line("r.finish()?;");
        self.open(format!("Ok({m}::AckContent {{"));
        self.line("ack_tick: a.ack_tick,");
        self.line(format!(
            "keyframe_request: a.flags.contains({flags}::KEYFRAME_REQUEST),"
        ));
        self.line("first_seq: a.first_seq.unwrap_or(0),");
        self.line("inputs: a.inputs,");
        self.close("})");
        self.close("}");
        self.blank();
        self.line("#[inline]");
        self.open(format!("fn input_tick(&self, input: &{input}) -> u32 {{"));
        self.line("input.tick");
        self.close("}");
    }

    /// `stage`: a change's groups as its mask selects them, each wire value as the generated
    /// writer would put it on the wire (a quantized value rounded and cast, saturating, to its
    /// wire type).
    fn stage(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let staged = self.staged();
        let rt = self.rt();
        let m = self.m.clone();
        self.line(
            "/// The change's groups as its mask selects them, each wire value as the generated",
        );
        self.line(
            "/// writer puts it on the wire (a quantized value rounded, then cast to its type).",
        );
        self.open(format!(
            "fn stage(&self, change: &{}) -> {staged} {{",
            byte.change
        ));
        self.line(format!(
            "let mut s = {staged} {{ eid: change.eid, mask: change.mask.bits(), ..{staged}::NONE }};"
        ));
        for (gi, g) in p.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&g.tick, &g.age_bit_name) {
                let sf = self.staged_field(gi, t.field).name.clone();
                self.open(format!("if s.has({}) {{", self.bit(bit)));
                self.line(format!(
                    "s.{sf} = change.{}.unwrap_or(0);",
                    super::ident(&t.age)
                ));
                self.close("}");
            }
            let assign = |st: &Self, form: &FormPlan, var: &str| -> Vec<String> {
                form.wire
                    .iter()
                    .map(|w| {
                        let sfield = st.staged_field(gi, w.field);
                        let sty = int_name(sfield.signed, sfield.bits);
                        let src = format!("{var}.{}", super::ident(&w.name));
                        let v = match (&w.carry, &w.ty) {
                            (Carry::Float { bits: 32, .. }, _) => {
                                format!("{src}.to_bits() as {sty}")
                            }
                            (Carry::Float { .. }, _) => format!("{src}.to_bits() as {sty}"),
                            (_, Type::Quant { wire, num, den }) => {
                                let wty = match wire.as_ref() {
                                    Type::Int(t) => int_name(t.signed, t.bits),
                                    _ => "u64",
                                };
                                cast(
                                    &format!(
                                        "{m}::wire::round({src} / {}) as {wty}",
                                        scale(*num, *den)
                                    ),
                                    wty,
                                    sty,
                                )
                            }
                            (Carry::Itself, _) => match &g.fields[w.field].value {
                                Value::Float { .. } => format!("{src}.to_bits() as {sty}"),
                                Value::Bool => format!("{sty}::from({src})"),
                                Value::Bits { .. } => format!("{src}.bits() as {sty}"),
                                Value::Quat { bits } => format!("{src}.to_word({bits}) as {sty}"),
                                _ => cast(&src, &st.field_type(&form.record, &w.name), sty),
                            },
                            _ => cast(&src, &st.field_type(&form.record, &w.name), sty),
                        };
                        format!("s.{} = {v};", sfield.name)
                    })
                    .collect()
            };
            let _ = &rt;
            match (
                g.form(FormRole::Only),
                g.form(FormRole::Full),
                g.form(FormRole::Step),
            ) {
                (Some(only), _, _) => {
                    let only = only.clone();
                    self.open(format!(
                        "if let (true, Some(v)) = (s.has({}), &change.{}) {{",
                        self.bit(&g.bit_name),
                        super::ident(&only.field)
                    ));
                    for l in assign(self, &only, "v") {
                        self.line(l);
                    }
                    self.close("}");
                }
                (None, Some(full), Some(step)) => {
                    let (full, step) = (full.clone(), step.clone());
                    let fb = self.bit(g.full_bit_name.as_deref().unwrap_or(""));
                    let gb = self.bit(&g.bit_name);
                    self.open(format!(
                        "match (&change.{}, &change.{}) {{",
                        super::ident(&full.field),
                        super::ident(&step.field)
                    ));
                    self.open(format!("(Some(v), _) if s.has({gb} | {fb}) => {{"));
                    for l in assign(self, &full, "v") {
                        self.line(l);
                    }
                    self.close("}");
                    self.open(format!("(_, Some(v)) if s.has({gb}) && !s.has({fb}) => {{"));
                    for l in assign(self, &step, "v") {
                        self.line(l);
                    }
                    self.close("}");
                    self.line("_ => {}");
                    self.close("}");
                }
                _ => {}
            }
        }
        self.line("s");
        self.close("}");
    }

    fn apply_staged(&mut self) {
        let p = self.p;
        let record = self.record();
        let staged = self.staged();
        let m = self.m.clone();
        self.line(
            "/// ACK-21's rules for one change, in integers: an entity coming whole brings every",
        );
        self.line(
            "/// group but the optional ones; each group the mask selects is set as its form",
        );
        self.line(
            "/// carries it, then its tick (the frame's tick less the age, ACK-33) and tier; an",
        );
        self.line("/// optional group, once had, stays (ACK-22).");
        self.line("#[inline(always)]");
        let tick = self.tick_param();
        self.open(format!(
            "fn apply_staged(&self, base: Option<&{record}>, c: &{staged}, {tick}: u32) -> Result<{record}, {m}::Inapplicable> {{"
        ));
        self.open("let mut r = match base {");
        self.line("Some(b) => *b,");
        self.open("None => {");
        self.open(format!("if !c.has({}) {{", self.required_mask()));
        self.line(format!(
            "return Err({m}::Inapplicable({:?}));",
            p.whole_fault()
        ));
        self.close("}");
        self.open(format!("{record} {{"));
        for f in &p.record.fields {
            let zero = match &f.holds {
                Holds::Flags => format!(
                    "{}::empty()",
                    p.flags.as_ref().map_or("", |x| x.bits.as_str())
                ),
                Holds::Field { group, field } => {
                    zero_of(&p.groups[*group].fields[*field].value, &self.rt())
                }
                Holds::Group(g) if f.present.is_some() => {
                    let _ = g;
                    "None".to_string()
                }
                Holds::Group(g) => self.nested_from_slot(*g, "0u64"),
            };
            self.line(format!("{}: {zero},", super::ident(&f.name)));
        }
        self.close("}");
        self.close("}");
        self.close("};");
        for (gi, g) in p.groups.iter().enumerate() {
            self.open(format!("if c.has({}) {{", self.bit(&g.bit_name)));
            if g.nested {
                let fields: Vec<String> = g
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(fi, f)| {
                        let w = g.forms[0].wire.iter().find(|w| w.field == fi).cloned();
                        let v = match w {
                            Some(w) => nested_value(&f.value, &self.value_of_staged(gi, &w, &m)),
                            None => "Default::default()".into(),
                        };
                        format!("{}: {v}", super::ident(&f.name))
                    })
                    .collect();
                let value = format!("{} {{ {} }}", g.record, fields.join(", "));
                let value = if g.presence.is_some() {
                    format!("Some({value})")
                } else {
                    value
                };
                self.line(format!("r.{} = {value};", super::ident(&g.name)));
                if let (Some(b), Some(flags)) = (&g.presence, &p.flags) {
                    self.line(format!(
                        "r.{}.set({}::{}, true);",
                        flags.name, flags.bits, b.name
                    ));
                }
            } else {
                self.apply_group(gi, false);
            }
            self.close("}");
        }
        self.line("Ok(r)");
        self.close("}");
    }

    // ---- reading a byte-aligned frame ----

    fn byte_reader(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let name = byte.schema.clone();
        let staged = self.staged();
        let m = self.m.clone();
        let rt = self.rt();
        let mask = self.mask_type();
        let mask_bytes = byte.mask_width / 8;
        // Every named bit: the groups', then the form and age bits.
        let groups = p.groups.len();
        let flag_bits: Vec<u8> = byte
            .full_bits
            .iter()
            .chain(&byte.age_bits)
            .flatten()
            .copied()
            .collect();
        let k = flag_bits.len();
        let first_flag = flag_bits.iter().min().copied().unwrap_or(byte.mask_width);
        let table_bits = groups + k;
        let head = 2 + usize::from(mask_bytes);
        // Each group's size, by form.
        let sizes: Vec<(usize, Option<u32>, Option<u32>)> = p
            .groups
            .iter()
            .map(|g| {
                let size = |r: FormRole| g.form(r).and_then(|f| f.bytes);
                match g.form(FormRole::Only) {
                    Some(f) => (g.bit as usize, f.bytes, None),
                    None => (g.bit as usize, size(FormRole::Full), size(FormRole::Step)),
                }
            })
            .collect();
        let ages: u32 = p
            .groups
            .iter()
            .filter_map(|g| g.tick.as_ref())
            .map(|t| u32::from(t.wire.bits / 8))
            .sum();
        let max: u32 = head as u32
            + ages
            + sizes
                .iter()
                .map(|(_, a, b)| a.unwrap_or(0).max(b.unwrap_or(0)))
                .sum::<u32>();
        let fixed = sizes.iter().all(|(_, a, b)| {
            a.is_some() && (b.is_some() || p.groups.iter().any(|g| g.forms.len() == 1))
        });
        let _ = fixed;
        self.blank();
        self.open(format!("impl {name} {{"));
        self.line("/// The most bytes a change takes: its id and mask, every age and each group's largest form.");
        self.line(format!("const CHANGE_MAX: usize = {max};"));
        self.blank();
        self.line(
            "/// The byte length of a change with `mask`'s groups, 0 when the mask is not one the",
        );
        self.line("/// generated reader accepts (a bit it does not name, a form or age bit without its group).");
        self.open(format!("const fn change_len_rule(mask: {mask}) -> u16 {{"));
        self.open(format!("if mask & !{staged}::NAMED != 0 {{"));
        self.line("return 0;");
        self.close("}");
        for (gi, g) in p.groups.iter().enumerate() {
            for b in [&g.full_bit_name, &g.age_bit_name].into_iter().flatten() {
                self.open(format!(
                    "if mask & {staged}::{b} != 0 && mask & {staged}::{} == 0 {{",
                    g.bit_name
                ));
                self.line("return 0;");
                self.close("}");
                let _ = gi;
            }
        }
        self.line(format!("let mut len = {head};"));
        for g in &p.groups {
            if let (Some(t), Some(b)) = (&g.tick, &g.age_bit_name) {
                self.open(format!("if mask & {staged}::{b} != 0 {{"));
                self.line(format!("len += {};", t.wire.bits / 8));
                self.close("}");
            }
        }
        for (g, (_, a, b)) in p.groups.iter().zip(&sizes) {
            self.open(format!("if mask & {staged}::{} != 0 {{", g.bit_name));
            match (&g.full_bit_name, b) {
                (Some(fb), Some(step)) => self.line(format!(
                    "len += if mask & {staged}::{fb} != 0 {{ {} }} else {{ {step} }};",
                    a.unwrap_or(0)
                )),
                _ => self.line(format!("len += {};", a.unwrap_or(0))),
            }
            self.close("}");
        }
        self.line("len");
        self.close("}");
        self.blank();
        // The table, by compact index: the group bits, then the form and age bits.
        let shift = usize::from(first_flag) - groups;
        let group_mask = (1u64 << groups) - 1;
        let flags_mask = ((1u64 << k) - 1) << groups;
        let index = if k == 0 {
            format!("(mask & {group_mask:#x}) as usize")
        } else if shift == 0 {
            format!("(mask & {:#x}) as usize", group_mask | flags_mask)
        } else {
            format!(
                "(mask & {group_mask:#x}) as usize | (mask >> {shift} & {flags_mask:#x}) as usize"
            )
        };
        let table = table_bits <= 12;
        if table {
            self.line("/// The index in [`Self::CHANGE_LENS`] of a mask of named bits only.");
            self.line("#[inline(always)]");
            self.open(format!("const fn lens_index(mask: {mask}) -> usize {{"));
            self.line(index.clone());
            self.close("}");
            self.blank();
            self.line("/// [`Self::change_len_rule`] of every mask of named bits only, by [`Self::lens_index`]:");
            self.line("/// a change's length from its mask in one load.");
            let n = 1usize << table_bits;
            self.open(format!("const CHANGE_LENS: [u16; {n}] = {{"));
            self.line(format!("let mut t = [0; {n}];"));
            self.line("let mut i = 0;");
            self.open(format!("while i < {n} {{"));
            let back = if k == 0 {
                format!("(i & {group_mask:#x}) as {mask}")
            } else {
                format!("(i & {group_mask:#x}) as {mask} | ((i & {flags_mask:#x}) as {mask}) << {shift}")
            };
            self.line(format!("let mask = {back};"));
            self.line("t[Self::lens_index(mask)] = Self::change_len_rule(mask);");
            self.line("i += 1;");
            self.close("}");
            self.line("t");
            self.close("};");
            self.blank();
        }
        self.line("/// The byte length of a change with `mask`'s groups, when the generated reader accepts the mask.");
        self.line("#[inline(always)]");
        self.open(format!("fn change_len(mask: {mask}) -> Option<usize> {{"));
        if table {
            self.open(format!("if mask & !{staged}::NAMED != 0 {{"));
            self.line("return None;");
            self.close("}");
            self.line("match Self::CHANGE_LENS[Self::lens_index(mask)] {");
        } else {
            self.line("match Self::change_len_rule(mask) {");
        }
        self.line("0 => None,");
        self.line("n => Some(usize::from(n)),");
        self.line("}");
        self.close("}");
        self.blank();
        self.line(
            "/// A change read at once from the front of `b` into `c` (which comes in as `NONE`),",
        );
        self.line(
            "/// and its length, when it is whole and valid; `None` for anything else, which the",
        );
        self.line("/// generated reader then reads and tells the error of.");
        self.line("#[inline(always)]");
        self.open(format!(
            "fn read_staged(b: &[u8], c: &mut {staged}) -> Option<usize> {{"
        ));
        self.line(format!(
            "let head: [u8; {head}] = b.get(..{head})?.try_into().ok()?;"
        ));
        let mask_read = match mask_bytes {
            1 => "head[2]".to_string(),
            2 => "u16::from_le_bytes([head[2], head[3]])".to_string(),
            4 => "u32::from_le_bytes([head[2], head[3], head[4], head[5]])".to_string(),
            _ => "u64::from_le_bytes([head[2], head[3], head[4], head[5], head[6], head[7], head[8], head[9]])".to_string(),
        };
        self.line(format!("let mask = {mask_read};"));
        self.line("let len = Self::change_len(mask)?;");
        self.open("if len > b.len() {");
        self.line("return None;");
        self.close("}");
        self.line(
            "// The change's bytes in an array of the largest change's size, read in place where",
        );
        self.line(
            "// the frame has that many left, else copied: the offsets below are then bounded by",
        );
        self.line("// constants, and the compiler leaves out the bounds checks.");
        self.line("let last;");
        self.open("let b: &[u8; Self::CHANGE_MAX] = match b.get(..Self::CHANGE_MAX) {");
        self.line("Some(whole) => whole.try_into().ok()?,");
        self.open("None => {");
        self.line("let n = b.len().min(Self::CHANGE_MAX);");
        self.line("let mut copy = [0; Self::CHANGE_MAX];");
        self.line("copy[..n].copy_from_slice(b.get(..n)?);");
        self.line("last = copy;");
        self.line("&last");
        self.close("}");
        self.close("};");
        self.line("(c.eid, c.mask) = (u16::from_le_bytes([head[0], head[1]]), mask);");
        self.line(format!("let mut at = {head};"));
        for (gi, g) in p.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&g.tick, &g.age_bit_name) {
                let sf = self.staged_field(gi, t.field).name.clone();
                self.open(format!("if c.has({staged}::{bit}) {{"));
                self.line(format!("c.{sf} = {};", read_at(t.wire.bits, false, "at")));
                self.line(format!("at += {};", t.wire.bits / 8));
                self.close("}");
            }
        }
        for (gi, g) in p.groups.iter().enumerate() {
            self.open(format!("if c.has({staged}::{}) {{", g.bit_name));
            match (g.form(FormRole::Only), &g.full_bit_name) {
                (Some(only), _) => {
                    let only = only.clone();
                    self.read_form_fast(gi, &only);
                }
                (None, Some(fb)) => {
                    let (full, step) = (
                        g.form(FormRole::Full)
                            .cloned()
                            .unwrap_or_else(|| g.forms[0].clone()),
                        g.form(FormRole::Step)
                            .cloned()
                            .unwrap_or_else(|| g.forms[0].clone()),
                    );
                    self.open(format!("if c.has({staged}::{fb}) {{"));
                    self.read_form_fast(gi, &full);
                    self.close("} else {");
                    self.g.code.open("");
                    self.read_form_fast(gi, &step);
                    self.g.code.close("}");
                }
                _ => {}
            }
            self.close("}");
        }
        self.line("debug_assert_eq!(at, len);");
        self.line("Some(len)");
        self.close("}");
        self.blank();
        self.frame_reader(false);
        self.close("}");
        let _ = (&m, &rt);
    }

    /// One form read from the fixed array `b` at `at` into `c`, `at` moved past it; `None`
    /// for a value the generated reader refuses.
    fn read_form_fast(&mut self, gi: usize, form: &FormPlan) {
        let g = &self.p.groups[gi];
        if form.packed {
            // A packed record of one quaternion: its bits, padded to bytes.
            let bytes = form.bytes.unwrap_or(4);
            let w = &form.wire[0];
            let Value::Quat { bits } = g.fields[w.field].value else {
                return;
            };
            let sf = self.staged_field(gi, w.field);
            let (sname, sty) = (sf.name.clone(), int_name(sf.signed, sf.bits));
            self.line(format!(
                "let v = {};",
                read_at((bytes * 8).next_power_of_two() as u8, false, "at")
            ));
            self.open(format!(
                "if !{}::SmallestThree::word_ok(u64::from(v), {bits}) {{",
                self.rt()
            ));
            self.line("return None;");
            self.close("}");
            let vty = uint_type((bytes * 8).next_power_of_two() as u8);
            self.line(format!("c.{sname} = {};", cast("v", vty, sty)));
            self.line(format!("at += {bytes};"));
            return;
        }
        for w in &form.wire {
            let off = w.offset.unwrap_or(0);
            let pos = if off == 0 {
                "at".to_string()
            } else {
                format!("at + {off}")
            };
            let sf = self.staged_field(gi, w.field);
            let (sname, sty) = (sf.name.clone(), int_name(sf.signed, sf.bits));
            let value = &g.fields[w.field].value;
            match (&w.carry, &w.ty) {
                (Carry::Float { bits, .. }, _) | (Carry::Itself, Type::Float { bits, .. }) => {
                    let (raw, exp) = if *bits == 32 {
                        (read_at(32, false, &pos), "0x7f80_0000".to_string())
                    } else {
                        (
                            read_at(64, false, &pos),
                            "0x7ff0_0000_0000_0000".to_string(),
                        )
                    };
                    self.line(format!("let v = {raw};"));
                    self.line("// The generated reader refuses a non-finite float (every exponent bit set).");
                    self.open(format!("if v & {exp} == {exp} {{"));
                    self.line("return None;");
                    self.close("}");
                    self.line(format!("c.{sname} = {};", cast("v", uint_type(*bits), sty)));
                }
                (_, Type::Bool) => {
                    self.line(format!("let v = b[{pos}];"));
                    self.open("if v > 1 {");
                    self.line("return None;");
                    self.close("}");
                    self.line(format!("c.{sname} = {};", cast("v", "u8", sty)));
                }
                (_, Type::Named { name, .. }) => {
                    let (reserved, requires, width) = match value {
                        Value::Bits { width, .. } => {
                            let bits = self.g.low.index.bits(name);
                            let plan = bits.map(|b| self.g.low.bits_plan(b));
                            (
                                plan.as_ref().map_or(0, |p| p.reserved),
                                plan.map(|p| {
                                    p.named
                                        .iter()
                                        .filter_map(|n| n.requires.map(|(_, r)| (n.index, r)))
                                        .collect::<Vec<_>>()
                                })
                                .unwrap_or_default(),
                                *width,
                            )
                        }
                        _ => (0, Vec::new(), 8),
                    };
                    self.line(format!("let v = {};", read_at(width, false, &pos)));
                    if reserved != 0 {
                        self.open(format!("if u64::from(v) & {reserved:#x} != 0 {{"));
                        self.line("return None;");
                        self.close("}");
                    }
                    for (bit, req) in requires {
                        self.open(format!(
                            "if {} == 1 && {} == 0 {{",
                            bit_at("v", bit),
                            bit_at("v", req)
                        ));
                        self.line("return None;");
                        self.close("}");
                    }
                    self.line(format!("c.{sname} = {};", cast("v", uint_type(width), sty)));
                }
                // WIRE-29: a value outside the range is left to the generated reader, which
                // tells where it is.
                (_, Type::Ranged { int, min, max, .. }) => {
                    self.line(format!("let v = {};", read_at(int.bits, int.signed, &pos)));
                    self.open(format!("if !({min}..={max}).contains(&v) {{"));
                    self.line("return None;");
                    self.close("}");
                    let ty = int_name(int.signed, int.bits);
                    if ty == sty {
                        self.line(format!("c.{sname} = v;"));
                    } else {
                        self.line(format!("c.{sname} = {sty}::from(v);"));
                    }
                }
                (_, ty) => {
                    let (signed, bits) = match ty {
                        Type::Int(t) => (t.signed, t.bits),
                        Type::Quant { wire, .. } => match wire.as_ref() {
                            Type::Int(t) => (t.signed, t.bits),
                            _ => (false, 8),
                        },
                        _ => (false, 8),
                    };
                    let raw = read_at(bits, signed, &pos);
                    if int_name(signed, bits) == sty {
                        self.line(format!("c.{sname} = {raw};"));
                    } else {
                        self.line(format!("c.{sname} = {sty}::from({raw});"));
                    }
                }
            }
        }
        if let Some(bytes) = form.bytes {
            self.line(format!("at += {bytes};"));
        }
    }

    /// The frame reader (`read_frame`): the generated frame reader step for step, its lists
    /// into `out`'s buffers, each change staged as it is read. Byte-aligned: each change read
    /// at once where it can be ([`Self::read_staged`]), the generated change reader where it
    /// cannot, to tell the error where it is. Packed: every change's codes read and staged,
    /// a value past the byte-aligned frame's range told after the frame reads whole.
    fn frame_reader(&mut self, packed: bool) {
        let p = self.p;
        let prof = if packed {
            self.p.packed_profile().cloned().expect("packed")
        } else {
            self.byte().clone()
        };
        let staged = self.staged();
        let m = self.m.clone();
        let rt = self.rt();
        let event_least = self
            .g
            .low
            .index
            .min_bits(
                &Type::Named {
                    name: p.events.clone(),
                    span: Default::default(),
                },
                false,
            )
            .div_ceil(8);
        self.line(
            "/// The generated frame reader step for step (the same checks, offsets and field",
        );
        self.line(
            "/// paths), its lists read into `out`'s buffers and each change staged as it is read.",
        );
        self.open(format!(
            "fn read_frame(&self, bytes: &[u8], out: &mut {m}::StagedFrame<Self>) -> Result<(), {rt}::DecodeError> {{"
        ));
        self.line(format!("let mut r = {rt}::Reader::new(bytes);"));
        self.line("let at = r.pos();");
        self.open(format!(
            "if r.u8().map_err(|e| e.field(\"kind\"))? != {} {{",
            prof.kind
        ));
        self.line(format!(
            "return Err({rt}::DecodeError::new({rt}::ErrorKind::BadConstant, at).field(\"kind\"));"
        ));
        self.close("}");
        self.line("let tick = r.u32().map_err(|e| e.field(\"tick\"))?;");
        self.line("let base_tick = r.u32().map_err(|e| e.field(\"base_tick\"))?;");
        self.line("let last_seq = r.u32().map_err(|e| e.field(\"last_seq\"))?;");
        self.line("let input_buffer = r.u8().map_err(|e| e.field(\"input_buffer\"))?;");
        self.line(format!(
            "let flags = {}::read(&mut r).map_err(|e| e.field(\"flags\"))?;",
            p.acked_flags
        ));
        self.line("let removed_count = r.u16().map_err(|e| e.field(\"removed_count\"))?;");
        if !packed {
            self.line("let changed_count = r.u16().map_err(|e| e.field(\"changed_count\"))?;");
        }
        self.open(format!(
            "let check = if flags.contains({}::CHECK) {{",
            p.acked_flags
        ));
        self.line("Some(r.u32().map_err(|e| e.field(\"check\"))?)");
        self.close("} else {");
        self.g.code.indent_line("None");
        self.line("};");
        self.line(format!(
            "{m}::wire::read_removed(&mut r, removed_count, &mut out.removed)?;"
        ));
        if packed {
            self.line("// The packed body's first byte: where a value past the byte-aligned frame's range is told.");
            self.line("let body_at = r.pos();");
            self.line("let mut range = None;");
            self.line(
                "r.packed(|b| self.read_changes(b, body_at, &mut out.changes, &mut range)).map_err(|e| e.field(\"body\"))?;",
            );
        } else {
            let least = self
                .g
                .low
                .index
                .min_bits(
                    &Type::Named {
                        name: prof.change.clone(),
                        span: Default::default(),
                    },
                    false,
                )
                .div_ceil(8);
            self.line(format!(
                "let n = r.count(u64::from(changed_count), {least}, r.pos()).map_err(|e| e.field(\"changes\"))?;"
            ));
            self.line(
                "// Every change fresh at once (`n` is within the bytes left), then read in place.",
            );
            self.line("out.changes.clear();");
            self.line(format!("out.changes.resize(n, {staged}::NONE);"));
            self.line("// What the fast reader has not read yet: `r` moves past what it read only when the");
            self.line("// generated reader takes over, and at the end.");
            self.line("let mut rest = r.rest();");
            self.open("for (i, c) in out.changes.iter_mut().enumerate() {");
            self.open("if let Some(len) = Self::read_staged(rest, c) {");
            self.line("rest = rest.get(len..).unwrap_or_default();");
            self.line("continue;");
            self.close("}");
            self.line("r.take(r.remaining() - rest.len())?;");
            self.line(format!(
                "*c = <Self as {m}::AckedSchema>::stage(self, &{}::read(&mut r).map_err(|e| e.index(i).field(\"changes\"))?);",
                prof.change
            ));
            self.line("rest = r.rest();");
            self.close("}");
            self.line("r.take(r.remaining() - rest.len())?;");
        }
        self.open(format!("let header = {m}::wire::Header {{"));
        self.line("tick,");
        self.line("base_tick,");
        self.line("last_seq,");
        self.line("input_buffer,");
        self.line(format!(
            "keyframe: flags.contains({}::KEYFRAME),",
            p.acked_flags
        ));
        self.line("check,");
        self.line("first_serial: None,");
        self.close("};");
        if packed {
            self.line(format!(
                "{m}::wire::read_tail(&mut r, header, {event_least}, {}::read, out)?;",
                p.events
            ));
            self.line(
                "// A code past the byte-aligned frame's range, told once the rest reads whole.",
            );
            self.line("range.map_or(Ok(()), Err)");
        } else {
            self.line(format!(
                "{m}::wire::read_tail(&mut r, header, {event_least}, {}::read, out)",
                p.events
            ));
        }
        self.close("}");
    }

    // ---- the bit-packed schema ----

    fn packed_schema(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let packed = p.packed_profile().cloned().expect("packed");
        let name = packed.schema.clone();
        let bname = byte.schema.clone();
        let m = self.m.clone();
        let rt = self.rt();
        self.blank();
        self.doc(&[
            format!(
                "`{bname}` in frames of kind {} (`{}`): the same records, changes and events, each",
                packed.kind, packed.frame
            ),
            "change's codes re-coded as the packed frame declares. Every byte-aligned value has one"
                .into(),
            "code; a code past the byte-aligned field's range is refused (ACK-15: `over_width`, at"
                .into(),
            "the packed body's first byte, with the field's path).".into(),
        ]);
        self.line("#[derive(Debug, Clone, Copy, Default)]");
        self.line(format!("pub struct {name};"));
        self.blank();
        self.delegating_impl(&name, &packed.frame_name);
        self.open(format!(
            "fn encode_frame(&self, frame: &{m}::FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.line("Self::write_frame(frame, out)");
        self.close("}");
        self.blank();
        self.open(format!(
            "fn decode_frame(&self, bytes: &[u8]) -> Result<{m}::FrameOf<Self>, {rt}::DecodeError> {{"
        ));
        self.line(format!("let mut r = {rt}::Reader::new(bytes);"));
        self.line(format!("let f = {}::read(&mut r)?;", packed.frame));
        self.line("r.finish()?;");
        self.line("Self::unpack_frame(f)");
        self.close("}");
        self.blank();
        self.line(
            "/// Each change staged as its codes are read: the same frame or the same error as",
        );
        self.line("/// `decode_frame`, holding one change at a time beside the staged list.");
        self.open(format!(
            "fn decode_staged(&self, bytes: &[u8], out: &mut {m}::StagedFrame<Self>) -> Result<(), {rt}::DecodeError> {{"
        ));
        self.line("self.read_frame(bytes, out)");
        self.close("}");
        self.close("}");
        self.packed_helpers();
    }

    /// The head of a schema of the byte-aligned one's records and changes in other frames
    /// (`impl AckedSchema for {name}` opened, its types and frame name, everything but the
    /// frames delegated to the byte-aligned schema), left open for the frames' methods.
    fn delegating_impl(&mut self, name: &str, frame_name: &str) {
        let p = self.p;
        let byte = self.byte().clone();
        let bname = byte.schema.clone();
        let m = self.m.clone();
        let rt = self.rt();
        let record = self.record();
        let staged = self.staged();
        self.open(format!("impl {m}::AckedSchema for {name} {{"));
        self.schema_types();
        self.blank();
        self.open("fn frame_name(&self) -> &'static str {");
        self.line(format!("{frame_name:?}"));
        self.close("}");
        self.blank();
        let delegate = |s: &mut Self, sig: &str, call: &str| {
            s.line("#[inline]");
            s.open(format!("{sig} {{"));
            let (f, args) = call.split_once('(').expect("a call");
            s.line(format!(
                "<{bname} as {m}::AckedSchema>::{f}(&{bname}, {args}"
            ));
            s.close("}");
            s.blank();
        };
        delegate(
            self,
            &format!(
                "fn diff(&self, eid: u16, base: Option<&{record}>, next: &{record}, tick: u32) -> Result<Option<{}>, {rt}::EncodeError>",
                byte.change
            ),
            "diff(eid, base, next, tick)",
        );
        delegate(
            self,
            &format!("fn change_eid(&self, change: &{}) -> u16", byte.change),
            "change_eid(change)",
        );
        delegate(
            self,
            &format!(
                "fn apply(&self, base: Option<&{record}>, change: &{}, tick: u32) -> Result<{record}, {m}::Inapplicable>",
                byte.change
            ),
            "apply(base, change, tick)",
        );
        delegate(
            self,
            &format!("fn write_record(&self, record: &{record}, out: &mut Vec<u8>)"),
            "write_record(record, out)",
        );
        delegate(
            self,
            &format!("fn measured(&self, record: &{record}) -> Option<u32>"),
            "measured(record)",
        );
        delegate(
            self,
            &format!("fn pose_full(&self, record: &{record}) -> Option<bool>"),
            "pose_full(record)",
        );
        if let Some(input) = &p.inputs {
            delegate(
                self,
                &format!("fn encode_ack(&self, ack: &{m}::AckContent<{input}>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError>"),
                "encode_ack(ack, out)",
            );
            delegate(
                self,
                &format!("fn decode_ack(&self, bytes: &[u8]) -> Result<{m}::AckContent<{input}>, {rt}::DecodeError>"),
                "decode_ack(bytes)",
            );
            delegate(
                self,
                &format!("fn input_tick(&self, input: &{input}) -> u32"),
                "input_tick(input)",
            );
        }
        delegate(
            self,
            &format!("fn stage(&self, change: &{}) -> {staged}", byte.change),
            "stage(change)",
        );
        delegate(
            self,
            &format!("fn staged_eid(&self, staged: &{staged}) -> u16"),
            "staged_eid(staged)",
        );
        delegate(
            self,
            &format!(
                "fn apply_staged(&self, base: Option<&{record}>, staged: &{staged}, tick: u32) -> Result<{record}, {m}::Inapplicable>"
            ),
            "apply_staged(base, staged, tick)",
        );
    }

    // ---- the coded schema ----

    /// `Coded{State}`: the packed schema's records, changes, staging and application in the
    /// coded frame (`docs/spec/coded.md`), which is written and read against a basis, the
    /// records of the frame's base and older snapshot, that the acked machines hand it
    /// (CODE-2, CODE-3). A change goes through the packed change both ways: packed as kind 12
    /// packs it, then coded; decoded, then unpacked as kind 12 unpacks it.
    fn coded_schema(&mut self) {
        let p = self.p;
        let Some(coded) = p.coded.clone() else { return };
        let packed = p
            .packed_profile()
            .cloned()
            .expect("a coded frame has a packed one");
        let name = format!("Coded{}", p.name);
        let pname = packed.schema.clone();
        let m = self.m.clone();
        let rt = self.rt();
        let record = self.record();
        // The packed frame's fields, the coded one's but `older`, in pack_frame's order.
        const FIELDS: [&str; 10] = [
            "tick",
            "base_tick",
            "last_seq",
            "input_buffer",
            "flags",
            "check",
            "removed",
            "body",
            "first_serial",
            "events",
        ];
        self.blank();
        self.doc(&[
            format!(
                "`{pname}` in frames of kind {} (`{}`, docs/spec/coded.md): the same records,",
                coded.kind, coded.frame
            ),
            "changes, staging and application, each change's values range-coded against the records"
                .into(),
            "of the frame's base and older snapshot (CODE-13, CODE-14), a `CodedBasis` the acked"
                .into(),
            "machines hand `encode_frame_on` and `decode_frame_on`. `encode_frame` and `decode_frame`"
                .into(),
            "write and read against no basis (`NoBasis`): a keyframe's bytes are the same either way."
                .into(),
        ]);
        self.line("#[derive(Debug, Clone, Copy, Default)]");
        self.line(format!("pub struct {name};"));
        self.blank();
        self.delegating_impl(&name, &coded.frame_name);
        self.open(format!(
            "fn encode_frame(&self, frame: &{m}::FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.line(format!(
            "<Self as {m}::AckedSchema>::encode_frame_on(self, frame, 0, &{rt}::coded::NoBasis, out)"
        ));
        self.close("}");
        self.blank();
        self.open(format!(
            "fn decode_frame(&self, bytes: &[u8]) -> Result<{m}::FrameOf<Self>, {rt}::DecodeError> {{"
        ));
        self.line(format!(
            "<Self as {m}::AckedSchema>::decode_frame_on(self, bytes, &{rt}::coded::NoBasis)"
        ));
        self.close("}");
        self.blank();
        self.open("fn coded(&self) -> bool {");
        self.line("true");
        self.close("}");
        self.blank();
        self.open(format!(
            "fn read_basis(&self, bytes: &[u8]) -> Result<{rt}::coded::CodedBasisTicks, {rt}::DecodeError> {{"
        ));
        self.line(format!("{}::read_basis(bytes)", coded.frame));
        self.close("}");
        self.blank();
        self.open(format!(
            "fn encode_frame_on(&self, frame: &{m}::FrameOf<Self>, older: u8, basis: &dyn {rt}::coded::CodedBasis<{record}>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.line(format!("let f = {pname}::pack_frame(frame)?;"));
        self.open(format!("{} {{", coded.frame));
        for f in &FIELDS[..7] {
            self.line(format!("{f}: f.{f},"));
        }
        self.line("older,");
        for f in &FIELDS[7..] {
            self.line(format!("{f}: f.{f},"));
        }
        self.close("}");
        self.line(".write(out, basis)");
        self.close("}");
        self.blank();
        self.open(format!(
            "fn decode_frame_on(&self, bytes: &[u8], basis: &dyn {rt}::coded::CodedBasis<{record}>) -> Result<{m}::FrameOf<Self>, {rt}::DecodeError> {{"
        ));
        self.line(format!("let mut r = {rt}::Reader::new(bytes);"));
        self.line(format!("let f = {}::read(&mut r, basis)?;", coded.frame));
        self.line("r.finish()?;");
        self.open(format!("{pname}::unpack_frame({} {{", packed.frame));
        for f in FIELDS {
            self.line(format!("{f}: f.{f},"));
        }
        self.close("})");
        self.close("}");
        self.close("}");
    }

    fn packed_helpers(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let packed = p.packed_profile().cloned().expect("packed");
        let name = packed.schema.clone();
        let m = self.m.clone();
        let rt = self.rt();
        let staged = self.staged();
        let mask = self.mask_type();
        let groups = p.groups.len();
        // The byte mask from the packed one: the group bits in place, the form and age bits
        // moved from right after the groups to the byte mask's.
        let pflags: Vec<(u8, u8)> = packed
            .full_bits
            .iter()
            .zip(&byte.full_bits)
            .chain(packed.age_bits.iter().zip(&byte.age_bits))
            .filter_map(|(a, b)| a.zip(*b))
            .collect();
        self.blank();
        self.open(format!("impl {name} {{"));
        // wide mask
        self.line("/// The byte-aligned mask's bits of a packed mask (named bits only).");
        self.line("#[inline(always)]");
        self.open(format!("fn wide_mask(m: u64) -> {mask} {{"));
        let mut terms = vec![format!("(m & {:#x}) as {mask}", (1u64 << groups) - 1)];
        for (pb, bb) in &pflags {
            terms.push(format!("((m >> {pb} & 1) as {mask}) << {bb}"));
        }
        self.line(terms.join(" | "));
        self.close("}");
        self.blank();
        // pack mask
        self.line(
            "/// The byte-aligned mask as the packed one; a bit the packed mask does not name is",
        );
        self.line("/// `reserved_bit` (no decoded change holds one).");
        self.open(format!(
            "fn pack_mask(mask: {}) -> Result<{}, {rt}::EncodeError> {{",
            byte.mask, packed.mask
        ));
        self.line("let m = mask.bits();");
        self.open(format!("if m & !{staged}::NAMED != 0 {{"));
        self.line(format!(
            "return Err({rt}::EncodeError::new({rt}::ErrorKind::ReservedBit).field(\"mask\"));"
        ));
        self.close("}");
        let mut pterms = vec![format!("u64::from(m) & {:#x}", (1u64 << groups) - 1)];
        for (pb, bb) in &pflags {
            pterms.push(format!("(u64::from(m) >> {bb} & 1) << {pb}"));
        }
        let pstore = uint_type(packed.mask_width);
        self.line(format!(
            "Ok({}::from_bits(({}) as {pstore}))",
            packed.mask,
            pterms.join(" | ")
        ));
        self.close("}");
        self.blank();
        self.pack_change(&byte, &packed);
        self.blank();
        self.unpack_change(&byte, &packed);
        self.blank();
        // pack_frame / unpack_frame
        self.line(format!(
            "/// A byte-aligned frame as kind {}'s.",
            packed.kind
        ));
        self.open(format!(
            "pub fn pack_frame(frame: &{m}::FrameOf<Self>) -> Result<{}, {rt}::EncodeError> {{",
            packed.frame
        ));
        self.line(format!("let mut flags = {}::empty();", p.acked_flags));
        self.line(format!(
            "flags.set({}::KEYFRAME, frame.keyframe);",
            p.acked_flags
        ));
        self.line(format!(
            "flags.set({}::CHECK, frame.check.is_some());",
            p.acked_flags
        ));
        self.open("if frame.events.len() > usize::from(u8::MAX) {");
        self.line(format!("return Err({m}::wire::over(\"event_count\"));"));
        self.close("}");
        self.line("let mut changes = Vec::with_capacity(frame.changes.len());");
        self.open("for (i, c) in frame.changes.iter().enumerate() {");
        self.line("changes.push(Self::pack_change(c).map_err(|e| e.index(i).field(\"changes\").field(\"body\"))?);");
        self.close("}");
        self.open(format!("Ok({} {{", packed.frame));
        for f in ["tick", "base_tick", "last_seq", "input_buffer"] {
            self.line(format!("{f}: frame.{f},"));
        }
        self.line("flags,");
        self.line("check: frame.check,");
        self.line("removed: frame.removed.clone(),");
        self.line(format!(
            "body: {} {{ changes }},",
            packed.body.clone().unwrap_or_default()
        ));
        self.line("first_serial: (!frame.events.is_empty()).then_some(frame.first_serial),");
        self.line("events: frame.events.clone(),");
        self.close("})");
        self.close("}");
        self.blank();
        self.write_frame(&packed);
        self.blank();
        self.line(format!(
            "/// A kind {} frame as the byte-aligned frame it carries: the header first (a keyframe",
            packed.kind
        ));
        self.line(
            "/// naming a base refused as the byte-aligned decoder refuses it, ACK-4), then each change.",
        );
        self.open(format!(
            "pub fn unpack_frame(f: {}) -> Result<{m}::FrameOf<Self>, {rt}::DecodeError> {{",
            packed.frame
        ));
        self.line(format!("let mut out = {m}::AckedFrame::empty();"));
        self.open(format!("{m}::wire::Header {{"));
        for f in ["tick", "base_tick", "last_seq", "input_buffer"] {
            self.line(format!("{f}: f.{f},"));
        }
        self.line(format!(
            "keyframe: f.flags.contains({}::KEYFRAME),",
            p.acked_flags
        ));
        self.line("check: f.check,");
        self.line("first_serial: f.first_serial,");
        self.close("}");
        self.line(".into_frame(&mut out)?;");
        self.line(
            "// The packed body's first byte: the header, the check and the removed ids before it.",
        );
        self.line(format!(
            "let at = {} + if f.check.is_some() {{ 4 }} else {{ 0 }} + 2 * f.removed.len();",
            1 + 4 + 4 + 4 + 1 + 1 + 2
        ));
        self.line("out.changes.reserve(f.body.changes.len());");
        self.open("for (i, c) in f.body.changes.iter().enumerate() {");
        self.line("out.changes.push(Self::unpack_change(c, at).map_err(|e| e.index(i).field(\"changes\").field(\"body\"))?);");
        self.close("}");
        self.line("out.removed = f.removed;");
        self.line("out.events = f.events;");
        self.line("Ok(out)");
        self.close("}");
        self.blank();
        self.packed_reader(&byte, &packed);
        self.blank();
        self.frame_reader(true);
        self.close("}");
    }

    /// The packed record a form's value `v` is re-coded into (`PackedPoseStep { .. }`), and
    /// whether it can fail (a quantized field that does not fit).
    fn packed_form_value(&self, form: &FormPlan) -> (String, bool) {
        let rt = self.rt();
        let fields: Vec<String> = form
            .wire
            .iter()
            .map(|w| {
                let bty = self.field_type(&form.record, &w.name);
                let pty = self.field_type(&form.packed_record, &w.name);
                let src = format!("v.{}", super::ident(&w.name));
                let val = match (&w.ty, &w.packed) {
                    (Type::Quant { .. }, Type::Quant { .. }) if bty == pty => src,
                    (Type::Quant { wire, num, den }, _) => {
                        let (lo, hi) = range_of(wire).unwrap_or((0, 0));
                        let q = if lo < 0 {
                            format!(
                                "{rt}::quantize_int({src}, {}, {lo}, {hi})",
                                super::scale_arg(*num, *den)
                            )
                        } else {
                            format!(
                                "{rt}::quantize_uint({src}, {}, {hi})",
                                super::scale_arg(*num, *den)
                            )
                        };
                        format!(
                            "{q}.map_err(|e| e.field({:?}).field({:?}))? as {pty}",
                            w.name, form.field
                        )
                    }
                    _ if bty == pty => src,
                    _ => format!("{pty}::from({src})"),
                };
                format!("{}: {val}", super::ident(&w.name))
            })
            .collect();
        let needs_result = fields.iter().any(|f| f.contains('?'));
        (
            format!("{} {{ {} }}", form.packed_record, fields.join(", ")),
            needs_result,
        )
    }

    /// The packed change's fields before its forms (`eid`, `mask`, each age), as
    /// `(field, value of c)`.
    fn packed_head(&self, packed: &ProfilePlan) -> Vec<(String, String)> {
        let p = self.p;
        let eid_ty = self.field_type(&packed.change, "eid");
        let mut head = vec![(
            "eid".to_string(),
            if eid_ty == "u16" {
                "c.eid".to_string()
            } else {
                format!("{eid_ty}::from(c.eid)")
            },
        )];
        head.push(("mask".into(), "Self::pack_mask(c.mask)?".into()));
        for g in &p.groups {
            if let Some(t) = &g.tick {
                let a = super::ident(&t.age);
                let pty = self.field_type(&packed.change, &t.age);
                let bty = uint_type(t.wire.bits);
                head.push((
                    a.to_string(),
                    if pty == bty {
                        format!("c.{a}")
                    } else {
                        format!("c.{a}.map({pty}::from)")
                    },
                ));
            }
        }
        head
    }

    /// The packed frame written straight from the byte-aligned one: the bytes (and, on a valid
    /// frame, the outcome) of `pack_frame(frame)?.write(out)`, the generated writer's fields in
    /// its order, without a list of packed changes: each change is re-coded into one held packed
    /// change (`pack_change_into`) and written before the next.
    fn write_frame(&mut self, packed: &ProfilePlan) {
        let m = self.m.clone();
        let rt = self.rt();
        self.line(
            "/// [`Self::pack_frame`]'s frame written: the same bytes, each change re-coded into one",
        );
        self.line("/// packed change held for the frame and written before the next (a frame it cannot write");
        self.line("/// fails at the first change that fails).");
        self.open(format!(
            "fn write_frame(frame: &{m}::FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), {rt}::EncodeError> {{"
        ));
        self.write_frame_head(packed.kind);
        self.write_check_removed();
        self.open(format!("{rt}::write_packed(out, |w| {{"));
        self.line(
            "w.uint(16, frame.changes.len() as u64).map_err(|e| e.field(\"changed_count\"))?;",
        );
        self.line("let mut prev = None;");
        self.line(format!("let mut held: Option<{}> = None;", packed.change));
        self.open("for (i, c) in frame.changes.iter().enumerate() {");
        self.open("let packed = match &mut held {");
        self.open("Some(packed) => {");
        self.line("Self::pack_change_into(c, packed).map_err(|e| e.index(i).field(\"changes\"))?;");
        self.line("packed");
        self.close("}");
        self.line("None => held.insert(Self::pack_change(c).map_err(|e| e.index(i).field(\"changes\"))?),");
        self.close("};");
        self.line(
            "packed.write_bits_after(w, &mut prev).map_err(|e| e.index(i).field(\"changes\"))?;",
        );
        self.close("}");
        self.line("Ok(())");
        self.close("})");
        self.line(".map_err(|e| e.field(\"body\"))?;");
        self.write_frame_tail();
        self.close("}");
    }

    fn pack_change(&mut self, byte: &ProfilePlan, packed: &ProfilePlan) {
        let p = self.p;
        let rt = self.rt();
        self.line("/// A byte-aligned change as the packed one: each value re-coded.");
        self.open(format!(
            "fn pack_change(c: &{}) -> Result<{}, {rt}::EncodeError> {{",
            byte.change, packed.change
        ));
        self.open(format!("Ok({} {{", packed.change));
        for (f, v) in self.packed_head(packed) {
            self.line(format!("{f}: {v},"));
        }
        for g in &p.groups {
            for form in &g.forms {
                let f = super::ident(&form.field);
                if form.packed || form.record == form.packed_record {
                    self.line(format!("{f}: c.{f},"));
                    continue;
                }
                let (body, needs_result) = self.packed_form_value(form);
                // A form the Rust type boxes (see `boxed_fields`), boxed.
                let body = if self.g.is_boxed(&packed.change, &form.field) {
                    format!("Box::new({body})")
                } else {
                    body
                };
                if needs_result {
                    self.line(format!(
                        "{f}: c.{f}.as_ref().map(|v| Ok::<_, {rt}::EncodeError>({body})).transpose()?,"
                    ));
                } else {
                    self.line(format!("{f}: c.{f}.as_ref().map(|v| {body}),"));
                }
            }
        }
        self.close("})");
        self.close("}");
        self.blank();
        // The same conversion into a packed change already held, its boxes reused.
        self.line("/// [`Self::pack_change`] into `out`, writing each boxed form into the box `out` holds");
        self.line(
            "/// for it when it has one: re-coding a frame's changes one after another into one",
        );
        self.line("/// packed change allocates a box only when a form comes back after a change without it.");
        self.open(format!(
            "fn pack_change_into(c: &{}, out: &mut {}) -> Result<(), {rt}::EncodeError> {{",
            byte.change, packed.change
        ));
        for (f, v) in self.packed_head(packed) {
            self.line(format!("out.{f} = {v};"));
        }
        for g in &p.groups {
            for form in &g.forms {
                let f = super::ident(&form.field);
                if form.packed || form.record == form.packed_record {
                    self.line(format!("out.{f} = c.{f};"));
                    continue;
                }
                let (body, needs_result) = self.packed_form_value(form);
                if self.g.is_boxed(&packed.change, &form.field) {
                    self.open(format!("match c.{f}.as_ref() {{"));
                    self.open("Some(v) => {");
                    self.line(format!("let packed = {body};"));
                    self.open(format!("match out.{f}.as_deref_mut() {{"));
                    self.line("Some(held) => *held = packed,");
                    self.line(format!("None => out.{f} = Some(Box::new(packed)),"));
                    self.close("}");
                    self.close("}");
                    self.line(format!("None => out.{f} = None,"));
                    self.close("}");
                } else if needs_result {
                    self.line(format!(
                        "out.{f} = c.{f}.as_ref().map(|v| Ok::<_, {rt}::EncodeError>({body})).transpose()?;"
                    ));
                } else {
                    self.line(format!("out.{f} = c.{f}.as_ref().map(|v| {body});"));
                }
            }
        }
        self.line("Ok(())");
        self.close("}");
    }

    fn unpack_change(&mut self, byte: &ProfilePlan, packed: &ProfilePlan) {
        let p = self.p;
        let rt = self.rt();
        self.line(
            "/// A packed change as the byte-aligned one; a code past the byte-aligned field's",
        );
        self.line("/// range is `over_width` at `at` (ACK-15: the packed body's first byte), with the field's path.");
        self.open(format!(
            "fn unpack_change(c: &{}, at: usize) -> Result<{}, {rt}::DecodeError> {{",
            packed.change, byte.change
        ));
        self.line(format!(
            "let over = |field: &'static str| {rt}::DecodeError::new({rt}::ErrorKind::OverWidth, at).field(field);"
        ));
        self.open(format!("Ok({} {{", byte.change));
        let eid_ty = self.field_type(&packed.change, "eid");
        if eid_ty == "u16" {
            self.line("eid: c.eid,");
        } else {
            self.line("eid: u16::try_from(c.eid).map_err(|_| over(\"eid\"))?,");
        }
        self.line(format!(
            "mask: {}::from_bits(Self::wide_mask(u64::from(c.mask.bits()))),",
            byte.mask
        ));
        for g in &p.groups {
            if let Some(t) = &g.tick {
                let a = super::ident(&t.age);
                let pty = self.field_type(&packed.change, &t.age);
                let bty = uint_type(t.wire.bits);
                if pty == bty {
                    self.line(format!("{a}: c.{a},"));
                } else {
                    self.line(format!(
                        "{a}: c.{a}.map(|v| {bty}::try_from(v).map_err(|_| over({:?}))).transpose()?,",
                        t.age
                    ));
                }
            }
        }
        for g in &p.groups {
            for form in &g.forms {
                let f = super::ident(&form.field);
                if form.packed || form.record == form.packed_record {
                    self.line(format!("{f}: c.{f},"));
                    continue;
                }
                let fields: Vec<String> = form
                    .wire
                    .iter()
                    .map(|w| {
                        let bty = self.field_type(&form.record, &w.name);
                        let pty = self.field_type(&form.packed_record, &w.name);
                        let src = format!("v.{}", super::ident(&w.name));
                        let path = format!("{}.{}", form.field, w.name);
                        let val = match (&w.ty, &w.packed) {
                            (Type::Quant { .. }, Type::Quant { .. }) => src,
                            (Type::Quant { wire, num, den }, _) => {
                                let int = match wire.as_ref() {
                                    Type::Int(t) => int_name(t.signed, t.bits),
                                    _ => "u64",
                                };
                                if int == pty {
                                    format!("f64::from({src}) * {}", scale(*num, *den))
                                } else {
                                    format!(
                                        "f64::from({int}::try_from({src}).map_err(|_| over({path:?}))?) * {}",
                                        scale(*num, *den)
                                    )
                                }
                            }
                            _ if bty == pty => src,
                            _ => format!("{bty}::try_from({src}).map_err(|_| over({path:?}))?"),
                        };
                        format!("{}: {val}", super::ident(&w.name))
                    })
                    .collect();
                let body = format!("{} {{ {} }}", form.record, fields.join(", "));
                if fields.iter().any(|f| f.contains('?')) {
                    self.line(format!(
                        "{f}: c.{f}.as_ref().map(|v| Ok::<_, {rt}::DecodeError>({body})).transpose()?,"
                    ));
                } else {
                    self.line(format!("{f}: c.{f}.as_ref().map(|v| {body}),"));
                }
            }
        }
        self.close("})");
        self.close("}");
    }

    /// The packed changes read and staged: `read_changes` (the generated list reader's count
    /// check, then each change: at once where it can be, through the generated change reader
    /// where it cannot, so that an error is told where it is).
    fn packed_reader(&mut self, byte: &ProfilePlan, packed: &ProfilePlan) {
        let p = self.p;
        let rt = self.rt();
        let staged = self.staged();
        let least = self.g.low.index.min_bits(
            &Type::Named {
                name: packed.change.clone(),
                span: Default::default(),
            },
            true,
        );
        let eid_code = &packed.eid;
        self.line("/// The packed changes into `out`, each staged: the count checked against the bits left");
        self.line("/// before anything is reserved, then each change read at once ([`Self::read_change`]), or,");
        self.line("/// where that refuses it, by the generated change reader, which tells the error where it");
        self.line("/// is. A value past the byte-aligned frame's range goes to `range` (the first), told once");
        self.line("/// the frame reads whole.");
        self.open(format!(
            "fn read_changes(&self, b: &mut {rt}::BitReader<'_>, body_at: usize, out: &mut Vec<{staged}>, range: &mut Option<{rt}::DecodeError>) -> Result<(), {rt}::DecodeError> {{"
        ));
        self.line("let count = b.uint(16).map_err(|e| e.field(\"changed_count\"))?;");
        self.line(format!(
            "let n = b.count(count, {least}, b.bit_pos()).map_err(|e| e.field(\"changes\"))?;"
        ));
        self.line("out.clear();");
        self.line("out.reserve(n);");
        self.line("let mut prev: Option<u64> = None;");
        self.open("for i in 0..n {");
        self.line(format!("out.push({staged}::NONE);"));
        self.line("let Some(c) = out.last_mut() else { break };");
        self.line("let (mark, before) = (b.clone(), prev);");
        self.open("if Self::read_change(b, &mut prev, c).is_some() {");
        self.line("continue;");
        self.close("}");
        self.line("// The generated reader, from the change's first bit, says what and where.");
        self.line("(*b, prev) = (mark, before);");
        self.line(format!(
            "let v = {}::read_bits_after(b, &mut prev).map_err(|e| e.index(i).field(\"changes\"))?;",
            packed.change
        ));
        self.open("match Self::unpack_change(&v, body_at) {");
        self.line(format!(
            "Ok(wide) => *c = <Self as {}::AckedSchema>::stage(self, &wide),",
            self.m
        ));
        self.open("Err(e) => {");
        self.line("range.get_or_insert(e.index(i).field(\"changes\").field(\"body\"));");
        self.close("}");
        self.close("}");
        self.close("}");
        self.line("Ok(())");
        self.close("}");
        self.blank();
        // read_change (fast)
        self.line("/// One packed change staged into `c` (which comes in as `NONE`), after the change of id");
        self.line("/// `prev`: `None` where the generated reader would refuse it or its value is past the");
        self.line(
            "/// byte-aligned frame's range, and where it would not (every other code is a value).",
        );
        self.line("#[inline(always)]");
        self.open(format!(
            "fn read_change(b: &mut {rt}::BitReader<'_>, prev: &mut Option<u64>, c: &mut {staged}) -> Option<()> {{"
        ));
        let gap = code_read(eid_code, "b");
        self.line(format!("let gap = {gap}.ok()?;"));
        self.open("let eid = match *prev {");
        self.line("None => gap,");
        self.line("Some(_) if gap == 0 => return None,");
        self.line("Some(p) => p.checked_add(gap)?,");
        self.close("};");
        // The generated keyed reader checks the sum against the code's largest value.
        if let Some((_, hi)) = range_of(eid_code) {
            self.open(format!("if eid > {hi} {{"));
            self.line("return None;");
            self.close("}");
        }
        self.line("*prev = Some(eid);");
        self.line("let eid = u16::try_from(eid).ok()?;");
        self.line(format!("let m = b.uint({}).ok()?;", packed.mask_width));
        // requires and reserved of the packed mask
        let named = packed.named();
        let all = if packed.mask_width >= 64 {
            u64::MAX
        } else {
            (1u64 << packed.mask_width) - 1
        };
        if all & !named != 0 {
            self.open(format!("if m & {:#x} != 0 {{", all & !named));
            self.line("return None;");
            self.close("}");
        }
        for (gi, g) in p.groups.iter().enumerate() {
            for b in [packed.full_bits[gi], packed.age_bits[gi]]
                .into_iter()
                .flatten()
            {
                self.open(format!(
                    "if {} == 1 && {} == 0 {{",
                    bit_at("m", b),
                    bit_at("m", g.bit)
                ));
                self.line("return None;");
                self.close("}");
            }
        }
        self.line("let mask = Self::wide_mask(m);");
        self.line("(c.eid, c.mask) = (eid, mask);");
        for (gi, g) in p.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&g.tick, &g.age_bit_name) {
                let sf = self.staged_field(gi, t.field);
                let (sname, sty) = (sf.name.clone(), int_name(sf.signed, sf.bits));
                self.open(format!("if c.has({staged}::{bit}) {{"));
                let read = code_read(&t.packed, "b");
                let narrowed = narrow(&read, &t.packed, (0, t.wire.max()), sty);
                self.line(format!("c.{sname} = {narrowed};"));
                self.close("}");
            }
        }
        for (gi, g) in p.groups.iter().enumerate() {
            self.open(format!("if c.has({staged}::{}) {{", g.bit_name));
            match (g.form(FormRole::Only), &g.full_bit_name) {
                (Some(only), _) => {
                    let only = only.clone();
                    self.read_form_packed(gi, &only);
                }
                (None, Some(fb)) => {
                    let full = g
                        .form(FormRole::Full)
                        .cloned()
                        .unwrap_or_else(|| g.forms[0].clone());
                    let step = g
                        .form(FormRole::Step)
                        .cloned()
                        .unwrap_or_else(|| g.forms[0].clone());
                    self.open(format!("if c.has({staged}::{fb}) {{"));
                    self.read_form_packed(gi, &full);
                    self.close("} else {");
                    self.g.code.open("");
                    self.read_form_packed(gi, &step);
                    self.g.code.close("}");
                }
                _ => {}
            }
            self.close("}");
        }
        self.line("Some(())");
        self.close("}");
        let _ = byte;
    }

    /// One form's codes read from the bit stream into the staged change.
    fn read_form_packed(&mut self, gi: usize, form: &FormPlan) {
        let g = &self.p.groups[gi];
        for w in &form.wire {
            let sf = self.staged_field(gi, w.field);
            let (sname, sty) = (sf.name.clone(), int_name(sf.signed, sf.bits));
            let value = &g.fields[w.field].value;
            match (&w.carry, &w.packed, value) {
                (Carry::Float { bits, .. }, _, _)
                | (Carry::Itself, Type::Float { bits, .. }, _) => {
                    // The generated reader refuses a non-finite float.
                    self.line(format!("c.{sname} = b.f{bits}().ok()?.to_bits() as {sty};"));
                }
                (_, Type::Quat { bits, .. }, _) => {
                    let width = 2 + 3 * u32::from(*bits);
                    self.line(format!("let v = b.uint({width}).ok()?;"));
                    self.open(format!(
                        "if !{}::SmallestThree::word_ok(v, {bits}) {{",
                        self.rt()
                    ));
                    self.line("return None;");
                    self.close("}");
                    self.line(format!("c.{sname} = v as {sty};"));
                }
                (_, Type::Bool, _) => {
                    self.line(format!("c.{sname} = {sty}::from(b.bool().ok()?);"));
                }
                (_, Type::Named { name, .. }, Value::Bits { width, .. }) => {
                    let plan = self.g.low.index.bits(name).map(|b| self.g.low.bits_plan(b));
                    self.line(format!("let v = b.uint({width}).ok()?;"));
                    if let Some(plan) = plan {
                        if plan.reserved != 0 {
                            self.open(format!("if v & {:#x} != 0 {{", plan.reserved));
                            self.line("return None;");
                            self.close("}");
                        }
                        for n in &plan.named {
                            if let Some((_, r)) = n.requires {
                                self.open(format!(
                                    "if {} == 1 && {} == 0 {{",
                                    bit_at("v", n.index),
                                    bit_at("v", r)
                                ));
                                self.line("return None;");
                                self.close("}");
                            }
                        }
                    }
                    self.line(format!("c.{sname} = v as {sty};"));
                }
                (_, code, _) => {
                    let read = code_read(code, "b");
                    let byte_range = w.range.unwrap_or((0, 0));
                    let v = narrow(&read, code, byte_range, sty);
                    self.line(format!("c.{sname} = {v};"));
                }
            }
        }
    }
}

/// A nested group's field of `value` from its integer `int`: a quantized field's record holds
/// the integer times its unit, as the generated reader computes it; any other field the
/// integer.
fn nested_value(value: &Value, int: &str) -> String {
    match value {
        Value::Int {
            unit: Some((num, den)),
            ..
        } => format!("({int}) as f64 * {}", scale(*num, *den)),
        _ => int.to_string(),
    }
}

/// Whether the record value `expr` (of `value`) lies within `reach` (a constant of the value's
/// type) of 0.
fn within(expr: &str, value: &Value, reach: &str) -> String {
    if record_signed(value) {
        format!("{expr}.unsigned_abs() <= {reach}.unsigned_abs()")
    } else {
        format!("{expr} <= {reach}")
    }
}

/// Whether the record value `expr` (of `value`) reaches `limit` in magnitude.
fn reaches(expr: &str, value: &Value, limit: u64) -> String {
    if record_signed(value) {
        format!("{expr}.unsigned_abs() >= {limit}")
    } else {
        format!("{expr} >= {limit}")
    }
}

/// The integer wide enough for arithmetic on values of `bits` bits without overflow.
fn wide_int(bits: u8) -> &'static str {
    if bits <= 32 {
        "i64"
    } else {
        "i128"
    }
}

/// `expr >> i & 1`, the shift left out for bit 0.
fn bit_at(expr: &str, i: impl std::fmt::Display) -> String {
    let i = i.to_string();
    if i == "0" {
        format!("{expr} & 1")
    } else {
        format!("{expr} >> {i} & 1")
    }
}

/// `expr << i`, the shift left out for 0.
fn shifted(expr: &str, i: impl std::fmt::Display) -> String {
    let i = i.to_string();
    if i == "0" {
        expr.to_string()
    } else {
        format!("{expr} << {i}")
    }
}

/// `expr as to`, left out when `from` is `to` already.
fn cast(expr: &str, from: &str, to: &str) -> String {
    if from == to {
        expr.to_string()
    } else {
        format!("{expr} as {to}")
    }
}

/// How a packed code is read from bit reader `b`: a `Result` of `u64` (`i64` signed).
fn code_read(code: &Type, b: &str) -> String {
    match code {
        Type::Int(t) if t.signed => format!("{b}.int({})", t.bits),
        Type::Int(t) => format!("{b}.uint({})", t.bits),
        // WIRE-29: the runtime refuses a value past the range (`None`, and the generated
        // reader tells where).
        Type::Ranged { min, max, .. } => format!(
            "{b}.ranged({}, {min}, {max})",
            crate::model::range_bits(*min, *max)
        ),
        Type::Quant { wire, .. } => code_read(wire, b),
        Type::Bucket { signed, widths, .. } => format!(
            "{b}.{}(&[{}])",
            if *signed { "zbucket" } else { "bucket" },
            widths
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => format!("{b}.uint(8)"),
    }
}

/// A read code's value (`read`, a `Result`) narrowed to the byte-aligned range `range` (the
/// value refused past it) and stored as `sty`, as an expression ending the `Option` chain.
fn narrow(read: &str, code: &Type, range: (i128, i128), sty: &str) -> String {
    let (signed, bits) = int_for(range);
    let byte = int_name(signed, bits);
    let wide = match code {
        Type::Int(t) if t.signed => "i64",
        Type::Ranged { .. } => "i64",
        Type::Bucket { signed: true, .. } => "i64",
        Type::Quant { wire, .. } if matches!(wire.as_ref(), Type::Int(t) if t.signed) => "i64",
        Type::Quant { wire, .. } if matches!(wire.as_ref(), Type::Bucket { signed: true, .. }) => {
            "i64"
        }
        _ => "u64",
    };
    // A code of the byte range's own width needs no check; a wider one is refused past it.
    let code_range = range_of(code).unwrap_or(range);
    let checked = code_range.0 < range.0 || code_range.1 > range.1;
    let value = if checked {
        format!("{byte}::try_from({read}.ok()?).ok()?")
    } else {
        cast(&format!("{read}.ok()?"), wide, byte)
    };
    if byte == sty {
        value
    } else {
        format!("{sty}::from({value})")
    }
}

/// A field read from the fixed array `b` at byte `pos`, little endian, of `bits` bits.
fn read_at(bits: u8, signed: bool, pos: &str) -> String {
    let n = usize::from(bits / 8);
    let bytes: Vec<String> = (0..n)
        .map(|i| {
            if i == 0 {
                format!("b[{pos}]")
            } else {
                format!("b[{pos} + {i}]")
            }
        })
        .collect();
    let u = match n {
        1 => bytes[0].clone(),
        _ => format!("{}::from_le_bytes([{}])", uint_type(bits), bytes.join(", ")),
    };
    if signed {
        format!("{u} as {}", int_type(bits))
    } else {
        u
    }
}

/// A record value's canonical bytes (`to_le_bytes()` of the value's integer form).
fn le_bytes(v: &Value, src: &str) -> String {
    match v {
        Value::Int { .. } | Value::Tick => format!("{src}.to_le_bytes()"),
        Value::Float { .. } => format!("{src}.to_le_bytes()"),
        Value::Bool => format!("u8::from({src}).to_le_bytes()"),
        Value::Bits { .. } => format!("{src}.bits().to_le_bytes()"),
        Value::Quat { bits } => format!("{src}.to_word({bits}).to_le_bytes()"),
    }
}

/// A record value's zero.
fn zero_of(v: &Value, rt: &str) -> String {
    match v {
        Value::Int { .. } | Value::Tick => "0".into(),
        Value::Float { .. } => "0.0".into(),
        Value::Bool => "false".into(),
        Value::Bits { name, .. } => format!("{name}::empty()"),
        Value::Quat { bits } => format!("{rt}::SmallestThree::from_word(0, {bits})"),
    }
}

/// The Rust integer type a record field holds.
fn record_int(v: &Value) -> &'static str {
    match v {
        Value::Int { signed, bits, .. } => int_name(*signed, *bits),
        Value::Tick => "u32",
        _ => "u64",
    }
}

fn record_bits(v: &Value) -> u8 {
    match v {
        Value::Int { bits, .. } => *bits,
        _ => 32,
    }
}

fn record_signed(v: &Value) -> bool {
    matches!(v, Value::Int { signed: true, .. })
}

/// A nested group's fields in its slot bits: `(field, first bit, width)`, in order, as its
/// record lays them out (a packed record's bits; a byte-aligned one's bytes).
fn nested_layout(g: &GroupPlan) -> Vec<(usize, u32, u32)> {
    let mut at = 0u32;
    let mut out = Vec::new();
    for (fi, f) in g.fields.iter().enumerate() {
        let width = match f.value {
            Value::Quat { bits } => 2 + 3 * u32::from(bits),
            Value::Int { bits, .. } => u32::from(bits),
            Value::Tick => 32,
            Value::Float { bits } => u32::from(bits),
            Value::Bool => 8,
            Value::Bits { width, .. } => u32::from(width),
        };
        out.push((fi, at, width));
        at += width;
    }
    out
}
