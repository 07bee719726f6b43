//! The C++ binding of a replicated state: from its [`StatePlan`], the header `ackwire gen --lang
//! cpp` writes beside `protocol.hpp` (`reference.hpp` for `state Reference`), holding what the
//! session machines of `ackwire_acked.hpp` run over:
//!
//! - `{GROUP}_REACH` for a step form with a reach;
//! - the staged change (`StagedChange`): a change as the wire's integers, one plain field per
//!   group field and age, whichever profile read it; the machines' change on both sides;
//! - in `detail`, the readers of each profile's changes and frame into staged changes, and the
//!   staged change as each profile's generated change (`wire_change`, `packed_change`);
//! - the acked schema of each profile (`Reference`, `PackedReference`): diff, apply, the check's
//!   bytes, what the report says of a record, the frame and ack adapters;
//! - the state's groups as typed datagram v2 components (`ReferenceComponent`, [`components`]).
//!
//! The readers are printed over the lowering, as `protocol.hpp`'s are, each field read by the
//! same runtime call with the same path: a frame fails with the error kind, offset and path the
//! generated codec gives, and is read straight into the decoder's staged frame, whose changes
//! are a few words each (the allocation limit of docs/limits.md holds for kind 12 too). Writing
//! goes through the generated codec, so a frame's bytes and its writer's refusals are
//! `protocol.hpp`'s. What every state shares (the header's keyframe rule, a packed code past its
//! byte-aligned range, the checked arithmetic of a step) is `ackwire_state.hpp`'s.

mod components;

use super::{
    bail, check, field_path, ident, indent, int_type, literal, local, scale, uint_type, Gen,
    RuntimeSource,
};
use crate::gen::{c_like_presence, snake_case, Code};
use crate::lower::{ArrayPlan, CountFrom, Lowering, RecordPlan, Role, Step, Wire};
use crate::model::{IntType, Spec};
use crate::state::{
    Carry, FormPlan, FormRole, Holds, ProfilePlan, StagedField, StagedHolds, StatePlan, Value,
    WirePlan, SESSION_CONSTANTS,
};

/// The session constants' C++ types in a schema, and acked.wire's values for those a spec does
/// not declare.
const CONSTANTS: [(&str, &str, i128); 5] = [
    ("SENT_RING", "size_t", 32),
    ("HELD_RING", "size_t", 64),
    ("EVENT_TTL", "uint64_t", 60),
    ("CHECK_EVERY", "uint32_t", 30),
    ("RELIABLE_ABOVE", "size_t", 1200),
];

/// The name of the binding header of `plan` (`reference.hpp`): the state's name in snake_case,
/// unless that is a header the generator writes already.
pub(super) fn file_name(plan: &StatePlan) -> String {
    let base = snake_case(&plan.name);
    if base == "protocol" || base.starts_with("ackwire_") {
        format!("{base}_state.hpp")
    } else {
        format!("{base}.hpp")
    }
}

/// The binding header of `plan`, a state of `spec`, including the runtime as `runtime` says.
pub(super) fn binding(spec: &Spec, plan: &StatePlan, runtime: RuntimeSource) -> String {
    let low = Lowering::new(spec);
    let mut s = State {
        g: Gen {
            low: &low,
            code: Code::default(),
        },
        p: plan,
    };
    s.print(runtime);
    s.g.code.finish()
}

struct State<'g, 'a> {
    g: Gen<'a>,
    p: &'g StatePlan,
}

/// The range of an integer on the wire.
fn int_range(w: &Wire<'_>) -> Option<(i128, i128)> {
    let of = |signed: bool, bits: u8| {
        let t = IntType {
            signed,
            bits,
            endian: None,
        };
        (t.min(), t.max())
    };
    match w {
        Wire::Int { signed, bits, .. } => Some(of(*signed, *bits)),
        Wire::Varint { bits } => Some(of(false, *bits)),
        Wire::Zigzag { bits } => Some(of(true, *bits)),
        Wire::Quant { min, max, .. } => Some((*min, *max)),
        Wire::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        Wire::Bucket(b) => Some((b.min_value, b.max_value)),
        _ => None,
    }
}

/// Whether `inner` lies within `outer`.
fn within(inner: (i128, i128), outer: (i128, i128)) -> bool {
    outer.0 <= inner.0 && inner.1 <= outer.1
}

/// The integer a quantized wire field carries (its own wire otherwise).
fn int_wire<'w, 's>(w: &'w Wire<'s>) -> &'w Wire<'s> {
    match w {
        Wire::Quant { wire, .. } => wire,
        other => other,
    }
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A C++ double literal of the whole number `v`.
fn double(v: u64) -> String {
    format!("{v}.0")
}

/// `head` then `parts` joined by `op`, on one line when it fits in `width` columns, else one
/// part a line, continued eight spaces deeper; `tail` ends the last.
fn joined(head: &str, parts: &[String], op: &str, tail: &str, width: usize) -> Vec<String> {
    let one = format!("{head}{}{tail}", parts.join(&format!(" {op} ")));
    if one.len() <= width || parts.len() < 2 {
        return vec![one];
    }
    let mut lines = vec![format!("{head}{}", parts[0])];
    for (i, p) in parts.iter().enumerate().skip(1) {
        let end = if i + 1 == parts.len() { tail } else { "" };
        lines.push(format!("        {op} {p}{end}"));
    }
    lines
}

/// What a wire field becomes in a staged change, read from the wire into the local `v`: the
/// statements after the read.
fn staged_from(wire: &Wire<'_>, v: &str, st: &str) -> String {
    match int_wire(wire) {
        Wire::Float { bits: 32, .. } => format!("static_cast<{st}>(state::f32_bits({v}))"),
        Wire::Float { .. } => format!("static_cast<{st}>(state::f64_bits({v}))"),
        Wire::Bool { .. } => format!("static_cast<{st}>({v} ? 1 : 0)"),
        Wire::Bits(_) => format!("static_cast<{st}>({v}.bits)"),
        Wire::Quat { bits } => format!("static_cast<{st}>(state::quat_bits({v}, {bits}))"),
        _ => format!("static_cast<{st}>({v})"),
    }
}

impl<'g> State<'g, '_> {
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
    fn lines(&mut self, lines: Vec<String>) {
        self.g.lines(lines);
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
    /// `text` as `///` lines that fit the current depth.
    fn doc_text(&mut self, text: &str) {
        let width = 96usize.saturating_sub(self.g.code.column());
        for l in wrap(text, width) {
            self.line(format!("/// {l}"));
        }
    }

    /// `parts` joined by `op`, as `head ... tail`, opening a block.
    fn open_joined(&mut self, head: &str, parts: &[String], op: &str, tail: &str) {
        let width = 100usize.saturating_sub(self.g.code.column());
        let mut lines = joined(head, parts, op, tail, width);
        let last = lines.pop().expect("a line");
        self.lines(lines);
        self.open(last);
    }

    /// `parts` joined by `op`, as `head ... tail` at the current depth.
    fn joined(&mut self, head: &str, parts: &[String], op: &str, tail: &str) {
        let width = 100usize.saturating_sub(self.g.code.column());
        let lines = joined(head, parts, op, tail, width);
        self.lines(lines);
    }

    fn byte(&self) -> &ProfilePlan {
        self.p
            .byte_profile()
            .expect("a state with a binding has a byte-aligned frame")
    }

    fn staged(&self) -> &str {
        &self.p.staged.name
    }

    fn record(&self) -> &str {
        &self.p.record.name
    }

    /// The acked frame type both profiles' machines run over (the alias `Frame`).
    fn frame_type(&self) -> String {
        "Frame".to_string()
    }

    /// The plan of record `name` read on its own.
    fn rplan(&self, name: &str) -> &RecordPlan<'_> {
        self.g
            .low
            .plan(name, None)
            .unwrap_or_else(|| panic!("the derived record {name} has a plan"))
    }

    /// The wire of field `field` of record `record`.
    fn wire_of(&self, record: &str, field: &str) -> &Wire<'_> {
        &self
            .rplan(record)
            .step(field)
            .unwrap_or_else(|| panic!("{record} has a field {field}"))
            .wire
    }

    /// A wire's C++ type, its declared types named in `protocol::`.
    fn cpp_type(wire: &Wire<'_>) -> String {
        match wire {
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) => {
                format!("protocol::{}", Gen::cpp_type(wire))
            }
            _ => Gen::cpp_type(wire),
        }
    }

    fn staged_field(&self, holds: StagedHolds) -> &'g StagedField {
        self.p
            .staged
            .fields
            .iter()
            .find(|f| f.holds == holds)
            .unwrap_or_else(|| panic!("a staged field holds {holds:?}"))
    }

    fn staged_type(f: &StagedField) -> &'static str {
        if f.signed {
            int_type(f.bits)
        } else {
            uint_type(f.bits)
        }
    }

    /// The record field holding group `gi` whole (a nested group).
    fn nested_field(&self, gi: usize) -> &str {
        &self
            .p
            .record
            .fields
            .iter()
            .find(|f| f.holds == Holds::Group(gi))
            .expect("a nested group is a field of the record")
            .name
    }

    /// The record field holding field `fi` of group `gi` (a group that is not nested).
    fn record_field(&self, gi: usize, fi: usize) -> &str {
        &self
            .p
            .record
            .fields
            .iter()
            .find(|f| {
                f.holds
                    == Holds::Field {
                        group: gi,
                        field: fi,
                    }
            })
            .expect("a group's field is a field of the record")
            .name
    }

    /// The expression of field `fi` of group `gi` in the record that `of` reaches (`next.`,
    /// `base->`, `r.`).
    fn rec(&self, of: &str, gi: usize, fi: usize) -> String {
        let g = &self.p.groups[gi];
        if g.nested {
            let arrow = if g.presence.is_some() { "->" } else { "." };
            format!(
                "{of}{}{arrow}{}",
                ident(self.nested_field(gi)),
                ident(&g.fields[fi].name)
            )
        } else {
            format!("{of}{}", ident(self.record_field(gi, fi)))
        }
    }

    /// The wire (in the record) of field `fi` of group `gi`.
    fn field_wire(&self, gi: usize, fi: usize) -> &Wire<'_> {
        let g = &self.p.groups[gi];
        if g.nested {
            self.wire_of(&g.record, &g.fields[fi].name)
        } else {
            let record = self.p.record.name.clone();
            let name = self.record_field(gi, fi).to_string();
            self.wire_of(&record, &name)
        }
    }

    /// The record's flags field, as `of` reaches it.
    fn flags(&self, of: &str) -> String {
        let f = self
            .p
            .flags
            .as_ref()
            .expect("a tier or presence bit has a flags field");
        format!("{of}{}", ident(&f.name))
    }

    /// Whether the flags of `of` hold `bit`.
    fn flag(&self, of: &str, bit: &str) -> String {
        let f = self
            .p
            .flags
            .as_ref()
            .expect("a tier or presence bit has a flags field");
        format!("{}.contains(protocol::{}::{bit})", self.flags(of), f.bits)
    }

    /// The byte-aligned mask's bit `name`, in `protocol::`.
    fn mask_bit(&self, name: &str) -> String {
        format!("protocol::{}::{name}", self.byte().mask)
    }

    // ---- the file ----

    fn print(&mut self, runtime: RuntimeSource) {
        self.header(runtime);
        self.reach_constants();
        self.staged_struct();
        self.blank();
        self.line(
            "/// A frame of either profile as the machines hold it: ACK-2's header, its changes",
        );
        self.line("/// staged.");
        self.line(format!(
            "using Frame = acked::AckedFrame<{}, protocol::{}>;",
            self.staged(),
            self.p.events
        ));
        self.blank();
        self.line("namespace detail {");
        self.blank();
        self.line("// The generated codec's readers and types, which the readers below call as");
        self.line("// protocol.hpp's own do.");
        self.line("using namespace ::ackwire::protocol;");
        self.line("using namespace ::ackwire::protocol::detail;");
        self.byte_readers();
        if self.p.packed_profile().is_some() {
            self.packed_readers();
        }
        self.wire_change();
        if self.p.packed_profile().is_some() {
            self.packed_change();
        }
        self.blank();
        self.line("}  // namespace detail");
        self.schema();
        if self.p.packed_profile().is_some() {
            self.packed_schema();
            self.coded_schema();
        }
        self.components();
        self.blank();
        self.line(format!(
            "}}  // namespace ackwire::{}",
            snake_case(&self.p.name)
        ));
    }

    fn header(&mut self, runtime: RuntimeSource) {
        let p = self.p;
        let from = crate::gen::base_name(&p.file);
        self.line(format!(
            "// @generated by ackwire-spec from {from} (state {}). Do not edit: change the layout",
            p.name
        ));
        self.line("// file.");
        self.line("//");
        let byte = self.byte().clone();
        let mut profiles = format!(
            "`{}::{}` (frames `{}`, kind {})",
            snake_case(&p.name),
            byte.schema,
            byte.frame_name,
            byte.kind
        );
        if let Some(packed) = p.packed_profile() {
            profiles.push_str(&format!(
                " and `{}::{}` (frames `{}`, kind {})",
                snake_case(&p.name),
                packed.schema,
                packed.frame_name,
                packed.kind
            ));
        }
        if let (Some(c), Some(_)) = (&p.coded, p.packed_profile()) {
            profiles = profiles.replacen(" and `", ", `", 1);
            profiles.push_str(&format!(
                " and `{}::Coded{}` (frames `{}`, kind {})",
                snake_case(&p.name),
                p.name,
                c.frame_name,
                c.kind
            ));
        }
        let text = format!(
            "The binding of `state {}` for the session machines of ackwire_acked.hpp: the acked \
             schemas {profiles}, over the records and frames of protocol.hpp. A frame is read \
             straight into staged changes (`{}`: the wire's integers), with the error kind, \
             offset and field path the generated reader gives; a change is written through the \
             generated writer. The policy of who sees what, at which tier and how often is the \
             game's presenter, not this file's (spec/LANGUAGE.md, \"Replicated state\").",
            p.name,
            self.staged()
        );
        for l in wrap(&text, 96) {
            self.line(format!("// {l}"));
        }
        self.blank();
        self.line("#pragma once");
        self.blank();
        for h in ["ackwire_acked.hpp", "ackwire_state.hpp"] {
            self.line(match runtime {
                RuntimeSource::Copy => format!("#include \"{h}\""),
                RuntimeSource::Package => format!("#include <{h}>"),
            });
        }
        self.line("#include \"protocol.hpp\"");
        self.blank();
        for h in [
            "cstddef", "cstdint", "optional", "utility", "variant", "vector",
        ] {
            self.line(format!("#include <{h}>"));
        }
        self.blank();
        self.line(format!("namespace ackwire::{} {{", snake_case(&p.name)));
        self.line("");
    }

    fn reach_constants(&mut self) {
        for g in &self.p.groups {
            if let Some(reach) = g.reach {
                self.blank();
                self.line(format!(
                    "/// The reach of group `{}`'s step form: its steps count from the base's values when",
                    g.name
                ));
                self.line(format!(
                    "/// every stepped field of the base lies within -{0}_REACH..={0}_REACH, from 0 otherwise",
                    g.bit_name
                ));
                self.line("/// (ACK-21, CHECK-5).");
                self.line(format!(
                    "inline constexpr int64_t {}_REACH = {};",
                    g.bit_name,
                    literal(i128::from(reach))
                ));
            }
        }
    }

    /// What a staged field holds, for its doc.
    fn staged_doc(&self, f: &StagedField) -> String {
        match f.holds {
            StagedHolds::Age(gi) => {
                let g = &self.p.groups[gi];
                let t = g.tick.as_ref().expect("an age is a tick's");
                format!(
                    "The age of group `{}`'s `{}` (under {}), the frame's tick less it.",
                    g.name,
                    g.fields[t.field].name,
                    g.age_bit_name.as_deref().unwrap_or("its age bit")
                )
            }
            StagedHolds::Field { group, field } => {
                let g = &self.p.groups[group];
                let carried: Vec<String> = g
                    .forms
                    .iter()
                    .filter_map(|form| {
                        let w = form.wire.iter().find(|w| w.field == field)?;
                        let how = match w.carry {
                            Carry::Float { bits, .. } => format!(" (its f{bits}'s bits)"),
                            Carry::Step => " (a step)".to_string(),
                            Carry::Scaled { by } if by > 1 => {
                                format!(" (in units {by} times the field's)")
                            }
                            Carry::Itself => match g.fields[field].value {
                                Value::Quat { .. } => " (its bits)".to_string(),
                                Value::Float { .. } => " (its bits)".to_string(),
                                _ => String::new(),
                            },
                            Carry::Scaled { .. } => String::new(),
                        };
                        Some(format!("`{}.{}`{how}", form.field, w.name))
                    })
                    .collect();
                format!(
                    "Group `{}`'s `{}`, as {} carries it.",
                    g.name,
                    g.fields[field].name,
                    carried.join(" or ")
                )
            }
        }
    }

    fn staged_struct(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        self.blank();
        self.line(format!(
            "/// A change of `{}` as the wire's integers, whichever profile read it: what the",
            p.name
        ));
        self.line(
            "/// machines keep of a change between a frame and its state (the encoder's diff, the",
        );
        self.line(
            "/// decoder's read), a few words where the generated change holds a std::optional of",
        );
        self.line("/// each form. A group the mask does not select holds zeros.");
        self.open(format!("struct {} {{", self.staged()));
        self.line("/// The entity.");
        self.line("uint16_t eid = 0;");
        self.line(format!(
            "/// Which groups follow, and how they travel ({}'s bits, whichever profile read it).",
            byte.mask
        ));
        self.line(format!("protocol::{} mask;", byte.mask));
        for f in &p.staged.fields {
            let d = self.staged_doc(f);
            for l in wrap(&d, 92) {
                self.line(format!("/// {l}"));
            }
            self.line(format!("{} {} = 0;", Self::staged_type(f), ident(&f.name)));
        }
        self.blank();
        let name = self.staged().to_string();
        let mut parts = vec!["a.eid == b.eid".to_string(), "a.mask == b.mask".to_string()];
        parts.extend(p.staged.fields.iter().map(|f| {
            let n = ident(&f.name);
            format!("a.{n} == b.{n}")
        }));
        self.open(format!(
            "friend bool operator==(const {name}& a, const {name}& b) {{"
        ));
        self.joined("return ", &parts, "&&", ";");
        self.close("}");
        self.open(format!(
            "friend bool operator!=(const {name}& a, const {name}& b) {{"
        ));
        self.line("return !(a == b);");
        self.close("}");
        self.close("};");
    }

    // ---- reading ----

    /// `body`, inside `if (…) { … }` when the step is present only under a condition.
    fn guarded(step: &Step<'_>, mask: &str, body: Vec<String>) -> Vec<String> {
        let Some(cond) = Self::presence(step, mask) else {
            return body;
        };
        let mut lines = vec![format!("if ({cond}) {{")];
        lines.extend(indent(body));
        lines.push("}".into());
        lines
    }

    /// The presence of `step` as a C++ condition over the mask `mask` (an lvalue of the
    /// record's own mask type), or None when always.
    fn presence(step: &Step<'_>, mask: &str) -> Option<String> {
        Some(c_like_presence(
            step.presence.as_ref()?,
            &|operand| {
                if operand.name() == "mask" {
                    mask.to_string()
                } else {
                    format!("out.{}", ident(operand.name()))
                }
            },
            &|value| literal(i128::from(value)),
        ))
    }

    /// The group and form whose record field `name` of a change is, if one is.
    fn form_named(&self, name: &str) -> Option<(usize, &FormPlan)> {
        self.p
            .groups
            .iter()
            .enumerate()
            .find_map(|(gi, g)| g.forms.iter().find(|f| f.field == name).map(|f| (gi, f)))
    }

    /// The group whose age field of a change is `name`, if one is.
    fn age_named(&self, name: &str) -> Option<usize> {
        self.p
            .groups
            .iter()
            .position(|g| g.tick.as_ref().is_some_and(|t| t.age == name))
    }

    /// The reader of form `form` (of group `gi`) into a staged change: `read_FORM` (a packed
    /// record shared by both profiles, or a byte-aligned one), or `read_packed_FORM` (the
    /// packed profile's record, which notes a code past its byte-aligned range).
    fn form_reader(&mut self, gi: usize, form: &FormPlan, packed_profile: bool) {
        let p = self.p;
        let staged = self.staged().to_string();
        let (record, packed, name) = if packed_profile {
            (
                form.packed_record.clone(),
                true,
                format!("read_packed_{}", form.field),
            )
        } else {
            (
                form.record.clone(),
                form.packed,
                format!("read_{}", form.field),
            )
        };
        let reader = if packed {
            "rt::BitReader& b"
        } else {
            "rt::Reader& r"
        };
        let mut body = Vec::new();
        let mut notes = false;
        for step in &self.rplan(&record).steps {
            let field = step.field.name.as_str();
            let w: &WirePlan = form
                .wire
                .iter()
                .find(|w| w.name == field)
                .unwrap_or_else(|| panic!("{record}'s {field} is a wire field of its form"));
            let sf = self.staged_field(StagedHolds::Field {
                group: gi,
                field: w.field,
            });
            let st = Self::staged_type(sf);
            let target = format!("out.{}", ident(&sf.name));
            let wire = int_wire(&step.wire);
            let path = field_path(field);
            // A packed code past the byte-aligned field's range: noted, as kind 6 cannot hold it.
            let note = match (int_range(wire), w.range.filter(|_| packed_profile)) {
                (Some(code), Some(r)) if !within(code, r) => {
                    let mut tests = Vec::new();
                    if code.0 < r.0 {
                        tests.push(format!("v < {}", literal(r.0)));
                    }
                    if code.1 > r.1 {
                        tests.push(format!("v > {}", literal(r.1)));
                    }
                    Some(format!(
                        "if ({}) fault.note(i, \"{}\", \"{field}\");",
                        tests.join(" || "),
                        form.field
                    ))
                }
                _ => None,
            };
            let integer = matches!(
                wire,
                Wire::Int { .. }
                    | Wire::Varint { .. }
                    | Wire::Zigzag { .. }
                    | Wire::Bucket(_)
                    | Wire::Ranged { .. }
            );
            if note.is_none() && integer && Gen::cpp_type(wire) == st {
                body.extend(self.g.decode(wire, packed, &target, &path, 0));
                continue;
            }
            let ty = Self::cpp_type(wire);
            let mut lines = vec!["{".to_string(), format!("    {ty} v{};", Gen::init(wire))];
            lines.extend(indent(self.g.decode(wire, packed, "v", &path, 0)));
            if let Some(n) = note {
                notes = true;
                lines.push(format!("    {n}"));
            }
            lines.push(format!("    {target} = {};", staged_from(wire, "v", st)));
            lines.push("}".into());
            body.extend(lines);
        }
        let g = &p.groups[gi];
        self.blank();
        self.line(format!(
            "/// Reads `{record}` (group `{}`'s {}) into the staged change.",
            g.name,
            match form.role {
                FormRole::Only => "record".to_string(),
                FormRole::Full => format!("full form, `{}`", form.field),
                FormRole::Step => format!("step form, `{}`", form.field),
            }
        ));
        if packed_profile {
            let unused = if notes { "" } else { "[[maybe_unused]] " };
            self.line(
                "/// A code past its byte-aligned field's range is noted in `fault`, as change `i`'s.",
            );
            self.g.open_fn(&format!(
                "inline bool {name}({reader}, {staged}& out, {unused}state::RangeFault& fault, {unused}size_t i)"
            ));
        } else {
            self.g
                .open_fn(&format!("inline bool {name}({reader}, {staged}& out)"));
        }
        self.lines(body);
        self.line("return true;");
        self.close("}");
    }

    fn byte_readers(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let staged = self.staged().to_string();
        for (gi, g) in p.groups.iter().enumerate() {
            for form in &g.forms {
                self.form_reader(gi, form, false);
            }
        }
        // The change.
        self.blank();
        self.line(format!(
            "/// Reads a `{}` (a change of frame `{}`) into `out`, a zeroed staged change.",
            byte.change, byte.frame
        ));
        self.g.open_fn(&format!(
            "inline bool read_change(rt::Reader& r, {staged}& out)"
        ));
        let steps = self.rplan(&byte.change).steps.len();
        for i in 0..steps {
            let lines = self.change_step(&byte.change, i, false);
            self.lines(lines);
        }
        self.line("return true;");
        self.close("}");
        self.frame_reader(false);
    }

    /// The lines reading step `i` of the change record `change` into the staged `out`:
    /// byte-aligned (mask `out.mask`), or packed (mask read into `m`, the key into `key`).
    fn change_step(&self, change: &str, i: usize, packed: bool) -> Vec<String> {
        let rp = if packed {
            let key = self.g.low.keys_of(change);
            self.g
                .low
                .plan(change, key.first().copied())
                .expect("the packed change has a keyed plan")
        } else {
            self.rplan(change)
        };
        let step = &rp.steps[i];
        let name = step.field.name.as_str();
        let rd = if packed { "b" } else { "r" };
        let mask = if packed { "m" } else { "out.mask" };
        let path = field_path(name);
        let body: Vec<String> = match step.role {
            Role::Key => {
                let range = int_range(&step.wire).unwrap_or((0, i128::from(u64::MAX)));
                let mut lines = vec![
                    "{".to_string(),
                    format!("    {} key = 0;", Self::cpp_type(&step.wire)),
                ];
                lines.extend(indent(self.g.read_step(step, true, "key")));
                let _ = range;
                lines.push(format!(
                    "    if (key > {}) fault.note(i, nullptr, \"{name}\");",
                    literal(65535)
                ));
                lines.push(format!(
                    "    out.{} = static_cast<uint16_t>(key);",
                    ident(name)
                ));
                lines.push("}".into());
                return lines;
            }
            Role::Value | Role::Constant(_) | Role::Count { .. } => {
                if name == "eid" {
                    self.g.decode(&step.wire, packed, "out.eid", &path, 0)
                } else if name == "mask" {
                    if packed {
                        let mut lines = vec![format!("{} m;", Self::cpp_type(&step.wire))];
                        lines.extend(self.g.decode(&step.wire, true, "m", &path, 0));
                        lines.extend(self.mask_from_packed());
                        lines
                    } else {
                        self.g.decode(&step.wire, false, "out.mask", &path, 0)
                    }
                } else if let Some(gi) = self.age_named(name) {
                    let g = &self.p.groups[gi];
                    let t = g.tick.as_ref().expect("an age is a tick's");
                    let sf = self.staged_field(StagedHolds::Age(gi));
                    let st = Self::staged_type(sf);
                    let target = format!("out.{}", ident(&sf.name));
                    let wire = &step.wire;
                    let code = int_range(wire).unwrap_or((0, 0));
                    let max = t.wire.max();
                    if packed && code.1 > max {
                        let mut lines = vec![
                            "{".to_string(),
                            format!("    {} v = 0;", Self::cpp_type(wire)),
                        ];
                        lines.extend(indent(self.g.decode(wire, true, "v", &path, 0)));
                        lines.push(format!(
                            "    if (v > {}) fault.note(i, nullptr, \"{name}\");",
                            literal(max)
                        ));
                        lines.push(format!("    {target} = static_cast<{st}>(v);"));
                        lines.push("}".into());
                        lines
                    } else if Gen::cpp_type(wire) == st {
                        self.g.decode(wire, packed, &target, &path, 0)
                    } else {
                        let mut lines = vec![
                            "{".to_string(),
                            format!("    {} v = 0;", Self::cpp_type(wire)),
                        ];
                        lines.extend(indent(self.g.decode(wire, packed, "v", &path, 0)));
                        lines.push(format!("    {target} = static_cast<{st}>(v);"));
                        lines.push("}".into());
                        lines
                    }
                } else if let Some((_, form)) = self.form_named(name) {
                    let shared = form.packed && packed;
                    let padded = matches!(step.wire, Wire::Record { padded: true, .. });
                    let call = if packed && !shared {
                        format!("read_packed_{}(b, out, fault, i)", form.field)
                    } else if padded {
                        format!("read_{}(b, out)", form.field)
                    } else {
                        format!("read_{}({rd}, out)", form.field)
                    };
                    let call = if padded {
                        format!("r.packed([&](rt::BitReader& b) {{ return {call}; }})")
                    } else {
                        call
                    };
                    check(&[call], &bail(rd, &path))
                } else {
                    panic!("a change's field `{name}` is no group's")
                }
            }
        };
        Self::guarded(step, mask, body)
    }

    /// The statements setting the staged mask `out.mask` from the packed mask `m`: the same
    /// named bits, at the byte-aligned mask's places.
    fn mask_from_packed(&self) -> Vec<String> {
        let byte = self.byte();
        let packed = self.p.packed_profile().expect("a packed profile");
        self.mask_bits()
            .into_iter()
            .map(|b| {
                format!(
                    "out.mask.set({}::{b}, m.contains({}::{b}));",
                    byte.mask, packed.mask
                )
            })
            .collect()
    }

    /// Every bit a change mask names: each group's, then each full and age bit.
    fn mask_bits(&self) -> Vec<String> {
        let mut bits: Vec<String> = self.p.groups.iter().map(|g| g.bit_name.clone()).collect();
        for g in &self.p.groups {
            bits.extend(g.full_bit_name.clone());
        }
        for g in &self.p.groups {
            bits.extend(g.age_bit_name.clone());
        }
        bits
    }

    /// The reader of a whole frame (byte-aligned or packed) into a staged frame: its header
    /// into `out` (the generated frame, whose lists stay empty), its lists into `frame`.
    fn frame_reader(&mut self, packed: bool) {
        let p = self.p;
        let profile = if packed {
            p.packed_profile().expect("a packed profile").clone()
        } else {
            self.byte().clone()
        };
        let ft = self.frame_type();
        self.blank();
        self.doc_text(&format!(
            "Reads a `{}` frame: its header into `out` (whose lists stay empty), its removed ids, \
             staged changes and events into `frame`, reusing their buffers.",
            profile.frame_name
        ));
        let name = if packed {
            "read_packed_frame"
        } else {
            "read_frame"
        };
        let extra = if packed {
            ", state::RangeFault& fault, size_t& body_at"
        } else {
            ""
        };
        self.g.open_fn(&format!(
            "inline bool {name}(rt::Reader& r, protocol::{}& out, {ft}& frame{extra})",
            profile.frame
        ));
        let n = self.rplan(&profile.frame).steps.len();
        for i in 0..n {
            let lines = {
                let rp = self.rplan(&profile.frame);
                let step = &rp.steps[i];
                let fname = step.field.name.as_str();
                match &step.wire {
                    Wire::Array(a) if matches!(&a.elem, Wire::Record { record, .. } if record.name == profile.change) => {
                        self.changes_lines(a, false)
                    }
                    Wire::Array(a) => self.g.decode_array(
                        a,
                        false,
                        &format!("frame.{}", ident(fname)),
                        &field_path(fname),
                        0,
                    ),
                    Wire::Record { record, .. } if Some(&record.name) == profile.body.as_ref() => {
                        let mut lines = vec!["body_at = r.pos();".to_string()];
                        lines.extend(check(
                            &["r.packed([&](rt::BitReader& b) { return read_packed_changes(b, frame.changes, fault); })".to_string()],
                            &bail("r", &field_path(fname)),
                        ));
                        lines
                    }
                    _ => self
                        .g
                        .read_step(step, false, &format!("out.{}", ident(fname))),
                }
            };
            self.lines(lines);
        }
        self.line("return true;");
        self.close("}");
    }

    /// The lines reading a list of changes (its count checked against what is left before
    /// anything is kept) into `frame.changes` (`changes`, in a packed body), each read by
    /// `read_change` (`read_packed_change`, after the one before).
    fn changes_lines(&self, a: &ArrayPlan<'_>, packed: bool) -> Vec<String> {
        let (rd, pos, target) = if packed {
            ("b", "bit_pos", "changes")
        } else {
            ("r", "pos", "frame.changes")
        };
        let count = match &a.count {
            CountFrom::Field(name) => local(name),
            CountFrom::Prefix(_) => panic!("a frame's changes are counted by a field"),
        };
        let path = field_path("changes");
        let mut lines = vec!["{".to_string(), "    size_t n0 = 0;".to_string()];
        lines.extend(indent(check(
            &[format!(
                "{rd}.count({count}, {}, {rd}.{pos}(), n0)",
                a.elem_min
            )],
            &bail(rd, &path),
        )));
        lines.push(format!("    {target}.clear();"));
        lines.push(format!("    {target}.reserve(n0);"));
        if packed {
            lines.push("    std::optional<uint64_t> prev0;".into());
        }
        lines.push("    for (size_t i0 = 0; i0 < n0; ++i0) {".into());
        lines.push(format!(
            "        {}& item0 = {target}.emplace_back();",
            self.staged()
        ));
        let call = if packed {
            "read_packed_change(b, item0, prev0, fault, i0)"
        } else {
            "read_change(r, item0)"
        };
        let inner = super::with_index(&path, "i0");
        lines.extend(indent(indent(check(
            &[call.to_string()],
            &bail(rd, &inner),
        ))));
        lines.push("    }".into());
        lines.push("}".into());
        lines
    }

    fn packed_readers(&mut self) {
        let p = self.p;
        let packed = p.packed_profile().expect("a packed profile").clone();
        let staged = self.staged().to_string();
        for (gi, g) in p.groups.iter().enumerate() {
            for form in &g.forms {
                if !form.packed {
                    self.form_reader(gi, form, true);
                }
            }
        }
        self.blank();
        self.doc_text(&format!(
            "Reads a `{}` (a change of frame `{}`, its id after `prev`) into `out`, a zeroed \
             staged change; a code past its byte-aligned field's range is noted in `fault`.",
            packed.change, packed.frame
        ));
        self.g.open_fn(&format!(
            "inline bool read_packed_change(rt::BitReader& b, {staged}& out, std::optional<uint64_t>& prev, state::RangeFault& fault, size_t i)"
        ));
        let key = self.g.low.keys_of(&packed.change);
        let n = self
            .g
            .low
            .plan(&packed.change, key.first().copied())
            .expect("the packed change has a keyed plan")
            .steps
            .len();
        for i in 0..n {
            let lines = self.change_step(&packed.change, i, true);
            self.lines(lines);
        }
        self.line("return true;");
        self.close("}");
        // The body.
        let body = packed.body.clone().expect("a packed profile has a body");
        self.blank();
        self.line(format!(
            "/// Reads `{body}`, the changes of a `{}` frame, into `changes`.",
            packed.frame_name
        ));
        self.g.open_fn(&format!(
            "inline bool read_packed_changes(rt::BitReader& b, std::vector<{staged}>& changes, state::RangeFault& fault)"
        ));
        let n = self.rplan(&body).steps.len();
        for i in 0..n {
            let lines = {
                let rp = self.rplan(&body);
                let step = &rp.steps[i];
                match &step.wire {
                    Wire::Array(a) => self.changes_lines(a, true),
                    _ => self
                        .g
                        .read_step(step, true, &format!("out.{}", ident(&step.field.name))),
                }
            };
            self.lines(lines);
        }
        self.line("return true;");
        self.close("}");
        self.frame_reader(true);
    }

    // ---- the staged change as the generated change ----

    /// The statement giving field `name` of a form record `var` (of wire `wire`) its value
    /// from the staged expression `src`.
    fn to_wire_field(var: &str, name: &str, wire: &Wire<'_>, src: &str) -> String {
        let dst = format!("{var}.{}", ident(name));
        let value = match wire {
            Wire::Quant { num, den, .. } => {
                format!("static_cast<double>({src}) * {}", scale(*num, *den))
            }
            Wire::Float { bits: 32, .. } => format!("state::f32_of(static_cast<uint32_t>({src}))"),
            Wire::Float { .. } => format!("state::f64_of(static_cast<uint64_t>({src}))"),
            Wire::Bool { .. } => format!("{src} != 0"),
            Wire::Bits(b) => format!(
                "protocol::{}::from_bits(static_cast<{}>({src}))",
                b.name,
                uint_type(b.width)
            ),
            Wire::Quat { bits } => format!("state::quat_of({src}, {bits})"),
            other => format!("static_cast<{}>({src})", Gen::cpp_type(other)),
        };
        format!("{dst} = {value};")
    }

    /// The lines setting the change `c`'s field `name` (a step of `change`'s plan `rp`) from
    /// the staged `s`, under its presence over the mask `mask`.
    fn to_wire_step(&self, step: &Step<'_>, packed: bool, mask: &str) -> Vec<String> {
        let name = step.field.name.as_str();
        let body: Vec<String> = if name == "eid" {
            vec!["c.eid = s.eid;".to_string()]
        } else if name == "mask" {
            if packed {
                vec![format!("c.mask = {mask};")]
            } else {
                vec!["c.mask = s.mask;".to_string()]
            }
        } else if let Some(gi) = self.age_named(name) {
            let sf = self.staged_field(StagedHolds::Age(gi));
            vec![format!(
                "c.{} = static_cast<{}>(s.{});",
                ident(name),
                Gen::cpp_type(&step.wire),
                ident(&sf.name)
            )]
        } else if let Some((gi, form)) = self.form_named(name) {
            let record = if packed && !form.packed {
                &form.packed_record
            } else {
                &form.record
            };
            let rp = self.rplan(record);
            let mut lines = vec![format!("protocol::{record} f;")];
            for fs in &rp.steps {
                let w = form
                    .wire
                    .iter()
                    .find(|w| w.name == fs.field.name)
                    .expect("a form record's field is a wire field");
                let sf = self.staged_field(StagedHolds::Field {
                    group: gi,
                    field: w.field,
                });
                lines.push(Self::to_wire_field(
                    "f",
                    &fs.field.name,
                    &fs.wire,
                    &format!("s.{}", ident(&sf.name)),
                ));
            }
            lines.push(format!("c.{} = f;", ident(name)));
            lines
        } else {
            panic!("a change's field `{name}` is no group's")
        };
        Self::guarded(step, mask, body)
    }

    fn wire_change(&mut self) {
        let byte = self.byte().clone();
        let staged = self.staged().to_string();
        self.blank();
        self.line(format!(
            "/// The staged change `s` as frame `{}`'s `{}`, for the generated writer.",
            byte.frame, byte.change
        ));
        self.g.open_fn(&format!(
            "inline protocol::{} wire_change(const {staged}& s)",
            byte.change
        ));
        self.line(format!("protocol::{} c;", byte.change));
        let n = self.rplan(&byte.change).steps.len();
        for i in 0..n {
            let lines = {
                let rp = self.rplan(&byte.change);
                self.to_wire_step(&rp.steps[i], false, "s.mask")
            };
            self.lines(lines);
        }
        self.line("return c;");
        self.close("}");
    }

    fn packed_change(&mut self) {
        let packed = self.p.packed_profile().expect("a packed profile").clone();
        let staged = self.staged().to_string();
        self.blank();
        self.doc_text(&format!(
            "The staged change `s` as frame `{}`'s `{}` (its id absolute: the generated writer \
             writes the gap from the one before).",
            packed.frame, packed.change
        ));
        self.g.open_fn(&format!(
            "inline protocol::{} packed_change(const {staged}& s)",
            packed.change
        ));
        self.line(format!("protocol::{} c;", packed.change));
        self.line(format!("protocol::{} m;", packed.mask));
        let byte = self.byte().clone();
        for b in self.mask_bits() {
            self.line(format!(
                "m.set({}::{b}, s.mask.contains({}::{b}));",
                packed.mask, byte.mask
            ));
        }
        let key = self.g.low.keys_of(&packed.change);
        let n = self
            .g
            .low
            .plan(&packed.change, key.first().copied())
            .expect("the packed change has a keyed plan")
            .steps
            .len();
        for i in 0..n {
            let lines = {
                let rp = self
                    .g
                    .low
                    .plan(&packed.change, key.first().copied())
                    .expect("the packed change has a keyed plan");
                self.to_wire_step(&rp.steps[i], true, "m")
            };
            self.lines(lines);
        }
        self.line("return c;");
        self.close("}");
    }

    // ---- the schema ----

    fn schema(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        self.blank();
        self.doc(&p.docs);
        if !p.docs.is_empty() {
            self.line("///");
        }
        self.line(format!(
            "/// The acked schema of frames `{}` (kind {}, `protocol::{}`): what the machines of",
            byte.frame_name, byte.kind, byte.frame
        ));
        self.line(
            "/// ackwire_acked.hpp run over (`acked::AckedDecoder`, `acked::AckedEncoder`, the",
        );
        self.line("/// halves of ackwire_acked_half.hpp).");
        self.open(format!("struct {} {{", byte.schema));
        self.line("/// One entity's record: what the client holds and the check hashes.");
        self.line(format!("using Record = protocol::{};", self.record()));
        self.line("/// One entity's change, as the wire's integers.");
        self.line(format!("using Change = {};", self.staged()));
        self.line("/// An event of a frame.");
        self.line(format!("using Event = protocol::{};", p.events));
        if let Some(inputs) = &p.inputs {
            self.line("/// An input of the client's ack frame.");
            self.line(format!("using Input = protocol::{inputs};"));
        }
        self.blank();
        for (name, ty, default) in CONSTANTS {
            debug_assert!(SESSION_CONSTANTS.contains(&name));
            let declared = p.constants.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
            match declared {
                Some(_) => self.line(format!("/// `{name}`, as the spec declares it.")),
                None => self.line(format!(
                    "/// `{name}`: acked.wire's value (the spec declares none)."
                )),
            }
            self.line(format!(
                "static constexpr {ty} {name} = {};",
                literal(declared.unwrap_or(default))
            ));
        }
        self.line("/// The name of the schema's frames in a session.");
        self.line(format!(
            "static constexpr const char* FRAME_NAME = \"{}\";",
            byte.frame_name
        ));
        if let Some(ack) = &p.ack {
            self.line("/// The name of the client's ack frames in a session.");
            self.line(format!(
                "static constexpr const char* ACK_NAME = \"{}\";",
                snake_case(&ack.frame)
            ));
        }
        self.diff();
        self.blank();
        self.line("/// The entity a change is about.");
        self.line("static uint16_t change_eid(const Change& change) { return change.eid; }");
        self.apply();
        self.record_fns();
        self.frame_fns(false);
        self.ack_fns();
        self.close("};");
    }

    fn packed_schema(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        let packed = p.packed_profile().expect("a packed profile").clone();
        self.blank();
        self.doc_text(&format!(
            "The acked schema of frames `{}` (kind {}, `protocol::{}`): {}'s records, changes, \
             diff, apply and check, inherited, with each frame written and read as its \
             bit-packed profile. Every byte-aligned frame whose changes ascend by id (the only \
             ones the machines apply) has exactly one packed form, and back: a code no \
             byte-aligned field holds is `over_width` at the packed body's first byte (ACK-15).",
            packed.frame_name, packed.kind, packed.frame, byte.schema
        ));
        self.open(format!("struct {} : {} {{", packed.schema, byte.schema));
        self.line("/// The name of the schema's frames in a session.");
        self.line(format!(
            "static constexpr const char* FRAME_NAME = \"{}\";",
            packed.frame_name
        ));
        self.frame_fns(true);
        self.close("};");
    }

    /// The acked schema of the state's coded frame (kind 13, docs/spec/coded.md), when it
    /// declares one: the packed schema's records, changes and staging, each frame's changes
    /// range-coded against its basis by the generated `protocol::` coded frame.
    fn coded_schema(&mut self) {
        let p = self.p;
        let (Some(coded), Some(packed)) = (p.coded.clone(), p.packed_profile().cloned()) else {
            return;
        };
        let ft = self.frame_type();
        let schema = format!("Coded{}", p.name);
        let (cf, pf) = (&coded.frame, &packed.frame);
        self.blank();
        self.doc_text(&format!(
            "The acked schema of frames `{}` (kind {}, `protocol::{cf}`, docs/spec/coded.md): \
             {}'s records, changes, diff, apply and check, inherited, each frame's changes \
             range-coded against the records of its base and older snapshot (CODE-13, CODE-14), \
             the coded::CodedBasis the acked machines hand encode_frame_on and \
             decode_frame_on_into. encode_frame and decode_frame_into write and read against no \
             basis (coded::NoBasis): a keyframe's bytes are the same either way. A coded frame \
             decodes to the packed frame's changes, staged as {} stages them, with its range \
             rule (ACK-15).",
            coded.frame_name, coded.kind, packed.schema, packed.schema
        ));
        self.open(format!("struct {schema} : {} {{", packed.schema));
        self.line("/// The name of the schema's frames in a session.");
        self.line(format!(
            "static constexpr const char* FRAME_NAME = \"{}\";",
            coded.frame_name
        ));
        self.line("/// The machines call the coded hooks below (ackwire_acked.hpp).");
        self.line("static constexpr bool CODED = true;");
        self.blank();
        self.line("/// Writes a frame's bytes against no basis.");
        self.g.open_fn(&format!(
            "static rt::EncodeStatus encode_frame(const {ft}& frame, std::vector<uint8_t>& out)"
        ));
        self.line("return encode_frame_on(frame, 0, coded::NoBasis<Record>{}, out);");
        self.close("}");
        self.blank();
        self.line("/// Reads a frame from its bytes against no basis into `out`.");
        self.g.open_fn(&format!(
            "static std::optional<rt::DecodeError> decode_frame_into(const uint8_t* data, size_t len, {ft}& out)"
        ));
        self.line("return decode_frame_on_into(data, len, coded::NoBasis<Record>{}, out);");
        self.close("}");
        self.blank();
        self.line(
            "/// What a frame's basis is looked up by, read from its prefix (CODE-2, CODE-3).",
        );
        self.g.open_fn(
            "static std::optional<rt::DecodeError> read_basis(const uint8_t* data, size_t len, coded::CodedBasisTicks& out)",
        );
        self.line(format!(
            "auto ticks = protocol::{cf}::read_basis(data, len);"
        ));
        self.open("if (!ticks) {");
        self.line("return ticks.error();");
        self.close("}");
        self.line("out = ticks.value();");
        self.line("return std::nullopt;");
        self.close("}");
        self.blank();
        self.line(
            "/// Writes a frame's bytes, naming the older snapshot `older` ticks before its base, its",
        );
        self.line("/// changes coded against `basis` (CODE-2, CODE-13, CODE-14).");
        self.g.open_fn(&format!(
            "static rt::EncodeStatus encode_frame_on(const {ft}& frame, uint8_t older, const coded::CodedBasis<Record>& basis, std::vector<uint8_t>& out)"
        ));
        self.line(format!(
            "protocol::{pf} f = {}::wire_frame(frame);",
            packed.schema
        ));
        self.line(format!("protocol::{cf} c;"));
        for field in [
            "tick",
            "base_tick",
            "last_seq",
            "input_buffer",
            "flags",
            "check",
        ] {
            self.line(format!("c.{field} = f.{field};"));
        }
        self.line("c.removed = std::move(f.removed);");
        self.line("c.older = older;");
        self.line("c.body = std::move(f.body);");
        self.line("c.first_serial = f.first_serial;");
        self.line("c.events = std::move(f.events);");
        self.line("return c.encode(out, basis);");
        self.close("}");
        self.blank();
        self.line(
            "/// Reads a frame from its bytes into `out`, its changes predicted from `basis`. The",
        );
        self.line(
            "/// coded changes are the packed frame's: they are staged, and a code no byte-aligned",
        );
        self.line(format!(
            "/// field holds refused, by {}'s reader over the packed frame of the same",
            packed.schema
        ));
        self.line("/// values, so that both profiles stage and refuse alike.");
        self.g.open_fn(&format!(
            "static std::optional<rt::DecodeError> decode_frame_on_into(const uint8_t* data, size_t len, const coded::CodedBasis<Record>& basis, {ft}& out)"
        ));
        self.line(format!(
            "auto c = protocol::{cf}::decode(data, len, basis);"
        ));
        self.open("if (!c) {");
        self.line("return c.error();");
        self.close("}");
        self.line(format!("protocol::{pf} f;"));
        for field in [
            "tick",
            "base_tick",
            "last_seq",
            "input_buffer",
            "flags",
            "check",
        ] {
            self.line(format!("f.{field} = c.value().{field};"));
        }
        self.line("f.removed = std::move(c.value().removed);");
        self.line("f.body = std::move(c.value().body);");
        self.line("f.first_serial = c.value().first_serial;");
        self.line("f.events = std::move(c.value().events);");
        self.line("std::vector<uint8_t> bytes;");
        self.open("if (auto e = protocol::encode(f, bytes)) {");
        self.line(
            "// A decoded frame holds only what kind 12 can write; were it not to, the frame is",
        );
        self.line("// refused at its body rather than staged as anything.");
        self.line(
            "const size_t body_at = size_t{18} + (f.check ? 4u : 0u) + 2 * f.removed.size();",
        );
        self.line("return rt::DecodeError(e->kind, body_at);");
        self.close("}");
        self.line(format!(
            "return {}::decode_frame_into(bytes.data(), bytes.size(), out);",
            packed.schema
        ));
        self.close("}");
        self.close("};");
    }

    // ---- diff ----

    /// The condition that group `gi` is in the change of `next` against `base`.
    fn differs(&self, gi: usize) -> Vec<String> {
        let g = &self.p.groups[gi];
        if g.nested {
            let f = ident(self.nested_field(gi));
            if g.presence.is_some() {
                return vec![
                    format!("next.{f}.has_value()"),
                    format!("(base == nullptr || base->{f} != next.{f})"),
                ];
            }
            return vec![
                "base == nullptr".to_string(),
                format!("base->{f} != next.{f}"),
            ];
        }
        let mut parts = vec!["base == nullptr".to_string()];
        for fi in 0..g.fields.len() {
            parts.push(format!(
                "{} != {}",
                self.rec("base->", gi, fi),
                self.rec("next.", gi, fi)
            ));
        }
        if let Some(t) = &g.tier {
            parts.push(format!(
                "{} != {}_full",
                self.flag("base->", &t.name),
                g.name
            ));
        }
        parts
    }

    /// The locals of group `gi`'s step origin: each stepped field's, from `base` when it holds
    /// the entity (and every stepped field lies within the reach), else 0.
    fn origin(&self, gi: usize) -> Vec<String> {
        let g = &self.p.groups[gi];
        let stepped = g.stepped();
        let mut cond = vec!["base != nullptr".to_string()];
        if g.reach.is_some() {
            for &fi in &stepped {
                cond.push(format!(
                    "state::within({}, -{1}_REACH, {1}_REACH)",
                    self.rec("base->", gi, fi),
                    g.bit_name
                ));
            }
        }
        let mut lines = joined("const bool from_base = ", &cond, "&&", ";", 88);
        for &fi in &stepped {
            let ty = Self::cpp_type(self.field_wire(gi, fi));
            lines.push(format!(
                "const {ty} o_{} = from_base ? {} : {ty}{{0}};",
                g.fields[fi].name,
                self.rec("base->", gi, fi)
            ));
        }
        lines
    }

    /// A wire field's value in the change from the record `next`: the test that it fits (None
    /// when it always does) and the statement setting its staged field. Uses the local
    /// `w_NAME` (declared by the caller when the test needs it).
    fn diff_field(&self, gi: usize, w: &WirePlan) -> (Option<String>, String, bool) {
        let g = &self.p.groups[gi];
        let src = self.rec("next.", gi, w.field);
        let sf = self.staged_field(StagedHolds::Field {
            group: gi,
            field: w.field,
        });
        let st = Self::staged_type(sf);
        let dst = format!("c.{}", ident(&sf.name));
        let field_range = int_range(self.field_wire(gi, w.field));
        let local = format!("w_{}", w.name);
        match w.carry {
            Carry::Scaled { by } => {
                let range = w.range.unwrap_or((i128::MIN, i128::MAX));
                if by == 1 {
                    let test = match field_range {
                        Some(fr) if within(fr, range) => None,
                        _ => Some(format!(
                            "state::within({src}, {}, {})",
                            literal(range.0),
                            literal(range.1)
                        )),
                    };
                    let same = self.field_wire(gi, w.field);
                    let set = if Gen::cpp_type(same) == st {
                        format!("{dst} = {src};")
                    } else {
                        format!("{dst} = static_cast<{st}>({src});")
                    };
                    (test, set, false)
                } else {
                    (
                        Some(format!(
                            "state::coarser({src}, {by}, {}, {}, {local})",
                            literal(range.0),
                            literal(range.1)
                        )),
                        format!("{dst} = static_cast<{st}>({local});"),
                        true,
                    )
                }
            }
            Carry::Float {
                bits,
                num,
                den,
                limit,
            } => {
                let lim = i128::from(limit) - 1;
                let test = match field_range {
                    Some(fr) if within(fr, (-lim, lim)) => None,
                    _ => Some(format!(
                        "state::within({src}, {}, {})",
                        literal(-lim),
                        literal(lim)
                    )),
                };
                let value = format!(
                    "state::f{bits}_units({src}, {})",
                    scale(num, den)
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                );
                (test, format!("{dst} = static_cast<{st}>({value});"), false)
            }
            Carry::Step => {
                let range = w.range.unwrap_or((i128::MIN, i128::MAX));
                (
                    Some(format!(
                        "state::step_of({src}, o_{}, {}, {}, {local})",
                        g.fields[w.field].name,
                        literal(range.0),
                        literal(range.1)
                    )),
                    format!("{dst} = static_cast<{st}>({local});"),
                    true,
                )
            }
            Carry::Itself => {
                let value = match &g.fields[w.field].value {
                    Value::Float { bits: 32 } => format!("state::f32_bits({src})"),
                    Value::Float { .. } => format!("state::f64_bits({src})"),
                    Value::Bool => format!("{src} ? 1 : 0"),
                    Value::Bits { .. } => format!("{src}.bits"),
                    Value::Quat { bits } => format!("state::quat_bits({src}, {bits})"),
                    _ => src.clone(),
                };
                (None, format!("{dst} = static_cast<{st}>({value});"), false)
            }
        }
    }

    /// The statements carrying form `form` of group `gi` into the change, each refusing
    /// (`over_width` at the form's field) what does not fit.
    fn diff_form(&self, gi: usize, form: &FormPlan) -> Vec<String> {
        let mut lines = Vec::new();
        for w in &form.wire {
            let (test, set, local) = self.diff_field(gi, w);
            if local {
                lines.push(format!("int64_t w_{} = 0;", w.name));
            }
            if let Some(t) = test {
                lines.push(format!("if (!{t}) {{"));
                lines.push(format!(
                    "    return state::over(\"{}\", \"{}\");",
                    w.name, form.field
                ));
                lines.push("}".into());
            }
            lines.push(set);
        }
        lines
    }

    fn diff(&mut self) {
        let p = self.p;
        let byte = self.byte().clone();
        self.blank();
        self.line("/// The change that turns `base` (null: the entity comes whole) into `next` in a frame");
        self.line(
            "/// of tick `tick`, or none when no group differs (spec/LANGUAGE.md, \"Diff and",
        );
        self.line(
            "/// apply\"): a group goes whole, in the form its tier says (or the step form when",
        );
        self.line(
            "/// every field can step), with its tick's age. A value the wire cannot carry is",
        );
        self.line(
            "/// `over_width` at its field; a record whose flags and optional groups disagree,",
        );
        self.line("/// or that drops an optional group its base had, `invalid_condition`.");
        // Only a group's tick reads the frame's: a state without one leaves it unnamed.
        let tick = if p.measured.is_some() {
            "tick"
        } else {
            "/*tick*/"
        };
        self.g.open_fn(&format!("static rt::EncodeStatus diff(uint16_t eid, const Record* base, const Record& next, uint32_t {tick}, std::optional<Change>& out)"));
        self.line("out.reset();");
        for (gi, g) in p.groups.iter().enumerate() {
            if let Some(bit) = &g.presence {
                let f = ident(self.nested_field(gi)).to_string();
                self.line(format!(
                    "// `{f}` is present exactly with {}, and stays for the entity's life.",
                    bit.name
                ));
                let flag = self.flag("next.", &bit.name);
                self.open(format!("if ({flag} != next.{f}.has_value()) {{"));
                self.line(format!("return state::invalid(\"{f}\");"));
                self.close("}");
                self.open(format!(
                    "if (base != nullptr && base->{f}.has_value() && !next.{f}.has_value()) {{"
                ));
                self.line(format!("return state::invalid(\"{f}\");"));
                self.close("}");
            }
        }
        for g in &p.groups {
            if let Some(t) = &g.tier {
                let flag = self.flag("next.", &t.name);
                self.line(format!(
                    "// {}: group `{}` goes in its full form.",
                    t.name, g.name
                ));
                self.line(format!("const bool {}_full = {flag};", g.name));
            }
        }
        let names: Vec<String> = p
            .groups
            .iter()
            .map(|g| format!("{}_differs", g.name))
            .collect();
        for (gi, n) in names.iter().enumerate() {
            let parts = self.differs(gi);
            let op = if p.groups[gi].nested && p.groups[gi].presence.is_some() {
                "&&"
            } else {
                "||"
            };
            self.joined(&format!("const bool {n} = "), &parts, op, ";");
        }
        let none: Vec<String> = names.iter().map(|n| format!("!{n}")).collect();
        self.open_joined("if (", &none, "&&", ") {");
        self.line("return std::nullopt;");
        self.close("}");
        self.line("Change c;");
        self.line("c.eid = eid;");
        for (gi, g) in p.groups.iter().enumerate() {
            self.open(format!("if ({}) {{", names[gi]));
            self.line(format!("c.mask.set({});", self.mask_bit(&g.bit_name)));
            if let Some(t) = &g.tick {
                let measured = self.rec("next.", gi, t.field);
                let age = self.staged_field(StagedHolds::Age(gi));
                let (st, sname) = (Self::staged_type(age), ident(&age.name));
                let max = t.wire.max();
                self.line(format!(
                    "// ACK-33: `{}` travels as its age, the frame's tick less it.",
                    g.fields[t.field].name
                ));
                if max >= i128::from(u32::MAX) {
                    self.open(format!("if (tick < {measured}) {{"));
                } else {
                    self.open(format!(
                        "if (tick < {measured} || tick - {measured} > {}) {{",
                        literal(max)
                    ));
                }
                self.line(format!("return state::over(\"{}\");", t.age));
                self.close("}");
                self.open(format!("if (tick != {measured}) {{"));
                self.line(format!(
                    "c.mask.set({});",
                    self.mask_bit(g.age_bit_name.as_deref().expect("a tick has an age bit"))
                ));
                self.line(format!("c.{sname} = static_cast<{st}>(tick - {measured});"));
                self.close("}");
            }
            let full = g.form(FormRole::Full).cloned();
            let step = g.form(FormRole::Step).cloned();
            match (full, step) {
                (Some(full), Some(step)) => {
                    let full_bit = self.mask_bit(
                        g.full_bit_name
                            .as_deref()
                            .expect("two forms have a full bit"),
                    );
                    if g.tier.is_some() {
                        self.open(format!("if ({}_full) {{", g.name));
                        self.line(format!("c.mask.set({full_bit});"));
                        let lines = self.diff_form(gi, &full);
                        self.lines(lines);
                        self.g.code.reopen("} else {");
                        let origin = self.origin(gi);
                        self.lines(origin);
                        let lines = self.diff_form(gi, &step);
                        self.lines(lines);
                        self.close("}");
                    } else {
                        self.line("// No tier: the step form when every field can travel so.");
                        let origin = self.origin(gi);
                        self.lines(origin);
                        let mut tests = Vec::new();
                        let mut sets = Vec::new();
                        for w in &step.wire {
                            let (test, set, local) = self.diff_field(gi, w);
                            if local {
                                self.line(format!("int64_t w_{} = 0;", w.name));
                            }
                            tests.extend(test);
                            sets.push(set);
                        }
                        if tests.is_empty() {
                            self.lines(sets);
                        } else {
                            self.open_joined("if (", &tests, "&&", ") {");
                            self.lines(sets);
                            self.g.code.reopen("} else {");
                            self.line(format!("c.mask.set({full_bit});"));
                            let lines = self.diff_form(gi, &full);
                            self.lines(lines);
                            self.close("}");
                        }
                    }
                }
                _ => {
                    let form = g.forms[0].clone();
                    let lines = self.diff_form(gi, &form);
                    self.lines(lines);
                }
            }
            self.close("}");
        }
        let _ = byte;
        self.line("out = c;");
        self.line("return std::nullopt;");
        self.close("}");
    }

    // ---- apply ----

    /// The statements setting field `w.field` of group `gi` in the record being built (`dst`,
    /// an lvalue) from the change `c`, each returning a fault text for what cannot apply.
    fn apply_field(&self, gi: usize, w: &WirePlan, dst: &str) -> Vec<String> {
        let p = self.p;
        let g = &p.groups[gi];
        let sf = self.staged_field(StagedHolds::Field {
            group: gi,
            field: w.field,
        });
        let src = format!("c.{}", ident(&sf.name));
        let field_wire = self.field_wire(gi, w.field);
        let ty = Self::cpp_type(field_wire);
        let field_range = int_range(field_wire);
        let fault = p.range_fault(g);
        let refuse = |test: String| {
            vec![
                format!("if (!{test}) {{"),
                format!("    return \"{fault}\";"),
                "}".to_string(),
            ]
        };
        match w.carry {
            Carry::Scaled { by } => {
                let range = w.range.unwrap_or((i128::MIN, i128::MAX));
                if by == 1 {
                    let mut lines = Vec::new();
                    if !field_range.is_some_and(|fr| within(range, fr)) {
                        let fr = field_range.unwrap_or((i128::MIN, i128::MAX));
                        lines.extend(refuse(format!(
                            "state::within({src}, {}, {})",
                            literal(fr.0),
                            literal(fr.1)
                        )));
                    }
                    if ty == Self::staged_type(sf) {
                        lines.push(format!("{dst} = {src};"));
                    } else {
                        lines.push(format!("{dst} = static_cast<{ty}>({src});"));
                    }
                    lines
                } else {
                    refuse(format!("state::times({src}, {by}, {dst})"))
                }
            }
            Carry::Float {
                bits,
                num,
                den,
                limit,
            } => {
                let lim = i128::from(limit) - 1;
                let grid = p.grid_fault(g);
                let units = format!("u_{}", w.name);
                let mut lines = vec![
                    format!("int64_t {units} = 0;"),
                    format!(
                        "if (!state::whole_units_f{bits}({src}, {}, {}, {units})) {{",
                        scale(den, num)
                            .trim_start_matches('(')
                            .trim_end_matches(')'),
                        double(limit)
                    ),
                    format!("    return \"{grid}\";"),
                    "}".to_string(),
                ];
                if !field_range.is_some_and(|fr| within((-lim, lim), fr)) {
                    let fr = field_range.unwrap_or((i128::MIN, i128::MAX));
                    lines.push(format!(
                        "if (!state::within({units}, {}, {})) {{",
                        literal(fr.0),
                        literal(fr.1)
                    ));
                    lines.push(format!("    return \"{grid}\";"));
                    lines.push("}".into());
                }
                lines.push(format!("{dst} = static_cast<{ty}>({units});"));
                lines
            }
            Carry::Step => refuse(format!(
                "state::add_step(o_{}, {src}, {dst})",
                g.fields[w.field].name
            )),
            Carry::Itself => {
                let value = match &g.fields[w.field].value {
                    Value::Float { bits: 32 } => {
                        format!("state::f32_of(static_cast<uint32_t>({src}))")
                    }
                    Value::Float { .. } => format!("state::f64_of(static_cast<uint64_t>({src}))"),
                    Value::Bool => format!("{src} != 0"),
                    Value::Bits { width, .. } => {
                        format!("{ty}::from_bits(static_cast<{}>({src}))", uint_type(*width))
                    }
                    Value::Quat { bits } => format!("state::quat_of({src}, {bits})"),
                    _ => format!("static_cast<{ty}>({src})"),
                };
                vec![format!("{dst} = {value};")]
            }
        }
    }

    /// The statements applying form `form` of group `gi` onto the record `r`.
    fn apply_form(&self, gi: usize, form: &FormPlan) -> Vec<String> {
        let g = &self.p.groups[gi];
        let mut lines = Vec::new();
        if g.nested {
            let var = format!("g_{}", g.name);
            lines.push(format!("protocol::{} {var};", g.record));
            for w in &form.wire {
                let dst = format!("{var}.{}", ident(&g.fields[w.field].name));
                lines.extend(self.apply_field(gi, w, &dst));
            }
            lines.push(format!("r.{} = {var};", ident(self.nested_field(gi))));
            if let Some(bit) = &g.presence {
                lines.push(format!(
                    "{}.set(protocol::{}::{}, true);",
                    self.flags("r."),
                    self.flags_bits(),
                    bit.name
                ));
            }
        } else {
            for w in &form.wire {
                let dst = self.rec("r.", gi, w.field);
                lines.extend(self.apply_field(gi, w, &dst));
            }
        }
        lines
    }

    fn flags_bits(&self) -> String {
        self.p
            .flags
            .as_ref()
            .map(|f| f.bits.clone())
            .expect("a tier or presence bit has a flags field")
    }

    fn apply(&mut self) {
        let p = self.p;
        self.blank();
        self.line(
            "/// `base` (null: the entity comes whole, and must carry every group that is not",
        );
        self.line("/// optional) with `change` applied, in a frame of tick `tick`, into `out`: each group");
        self.line(
            "/// the mask selects, then its tick (the frame's tick less the age, ACK-33) and its tier.",
        );
        self.line("/// Nullptr, or why the change cannot apply (the frame is then refused whole).");
        let tick = if p.measured.is_some() {
            "tick"
        } else {
            "/*tick*/"
        };
        self.g.open_fn(&format!("static const char* apply(const Record* base, const Change& change, uint32_t {tick}, Record& out)"));
        self.line("const Change& c = change;");
        self.line("Record r = base != nullptr ? *base : Record{};");
        let required = p.groups.iter().any(|g| g.presence.is_none());
        if required {
            let whole: Vec<String> = p
                .groups
                .iter()
                .filter(|g| g.presence.is_none())
                .map(|g| format!("c.mask.contains({})", self.mask_bit(&g.bit_name)))
                .collect();
            self.joined("const bool whole = ", &whole, "&&", ";");
            self.open("if (base == nullptr && !whole) {");
            self.line(format!("return \"{}\";", p.whole_fault()));
            self.close("}");
        }
        for (gi, g) in p.groups.iter().enumerate() {
            self.open(format!(
                "if (c.mask.contains({})) {{",
                self.mask_bit(&g.bit_name)
            ));
            let full = g.form(FormRole::Full).cloned();
            let step = g.form(FormRole::Step).cloned();
            match (full, step) {
                (Some(full), Some(step)) => {
                    let full_bit = self.mask_bit(
                        g.full_bit_name
                            .as_deref()
                            .expect("two forms have a full bit"),
                    );
                    self.open(format!("if (c.mask.contains({full_bit})) {{"));
                    let lines = self.apply_form(gi, &full);
                    self.lines(lines);
                    if let Some(t) = &g.tier {
                        self.line(format!(
                            "{}.set(protocol::{}::{}, true);",
                            self.flags("r."),
                            self.flags_bits(),
                            t.name
                        ));
                    }
                    self.g.code.reopen("} else {");
                    let origin = self.origin(gi);
                    self.lines(origin);
                    let lines = self.apply_form(gi, &step);
                    self.lines(lines);
                    if let Some(t) = &g.tier {
                        self.line(format!(
                            "{}.set(protocol::{}::{}, false);",
                            self.flags("r."),
                            self.flags_bits(),
                            t.name
                        ));
                    }
                    self.close("}");
                }
                _ => {
                    let form = g.forms[0].clone();
                    let lines = self.apply_form(gi, &form);
                    self.lines(lines);
                }
            }
            if let Some(t) = &g.tick {
                let age = self.staged_field(StagedHolds::Age(gi));
                let age_bit =
                    self.mask_bit(g.age_bit_name.as_deref().expect("a tick has an age bit"));
                self.line("uint64_t age = 0;");
                self.open(format!("if (c.mask.contains({age_bit})) {{"));
                self.line(format!("age = c.{};", ident(&age.name)));
                self.close("}");
                self.open("if (tick < age) {");
                self.line(format!("return \"{}\";", p.tick_fault(g)));
                self.close("}");
                self.line(format!(
                    "{} = static_cast<uint32_t>(tick - age);",
                    self.rec("r.", gi, t.field)
                ));
            }
            self.close("}");
        }
        self.line("out = r;");
        self.line("return nullptr;");
        self.close("}");
    }

    // ---- the record ----

    /// The fast form of the record writer: the statements putting each field of `record`
    /// (reached as `of`) into the byte array `b` at `n`, the tests under which the generated
    /// writer refuses the record instead, and the most bytes; None when a field has no fixed
    /// size (the generated writer writes every record then).
    fn record_puts(
        &self,
        record: &str,
        of: &str,
        puts: &mut Vec<String>,
        acc: &mut RecordPuts,
    ) -> Option<()> {
        let RecordPuts {
            lets,
            tests,
            at,
            most,
        } = acc;
        for step in &self.rplan(record).steps {
            if !matches!(step.role, Role::Value) {
                return None;
            }
            let field = format!("{of}{}", ident(&step.field.name));
            let conditional = step.presence.is_some();
            // An optional field is a nested group present under its flags bit.
            let (value, access) = if conditional {
                let bit = self
                    .p
                    .record
                    .fields
                    .iter()
                    .find(|f| f.name == step.field.name)
                    .and_then(|f| f.present.clone())?;
                let has = format!("has_{}", step.field.name);
                tests.push(format!("{has} != {field}.has_value()"));
                lets.push(format!("const bool {has} = {};", self.flag(of, &bit.name)));
                (format!("(*{field})"), format!("{field}->"))
            } else {
                (field.clone(), format!("{field}."))
            };
            if conditional {
                if let Some(o) = *at {
                    puts.push(format!("size_t n = {o};"));
                    *at = None;
                }
            }
            let mut lines = Vec::new();
            let mut put = |bytes: u64, expr: String, be: bool, lines: &mut Vec<String>| {
                let f = if be { "put_be" } else { "put_le" };
                let pos = match at {
                    Some(o) => format!("b + {o}"),
                    None => "b + n".to_string(),
                };
                lines.push(format!("state::{f}({pos}, {expr}, {bytes});"));
                match at {
                    Some(o) => *o += bytes,
                    None => lines.push(format!("n += {bytes};")),
                }
                *most += bytes;
            };
            match &step.wire {
                Wire::Int {
                    signed,
                    bits,
                    big_endian,
                } => put(
                    u64::from(*bits / 8),
                    if *signed {
                        format!("static_cast<uint64_t>({value})")
                    } else {
                        value.clone()
                    },
                    *big_endian,
                    &mut lines,
                ),
                // WIRE-29: a value outside the range goes to the generated writer, which
                // refuses it where it is.
                Wire::Ranged { int, min, max, .. } => {
                    let Wire::Int {
                        signed,
                        bits,
                        big_endian,
                    } = int.as_ref()
                    else {
                        return None;
                    };
                    let (lo, hi) = int_range(int)?;
                    if i128::from(*min) > lo {
                        tests.push(format!("{value} < {}", literal(i128::from(*min))));
                    }
                    if i128::from(*max) < hi {
                        tests.push(format!("{value} > {}", literal(i128::from(*max))));
                    }
                    put(
                        u64::from(*bits / 8),
                        if *signed {
                            format!("static_cast<uint64_t>({value})")
                        } else {
                            value.clone()
                        },
                        *big_endian,
                        &mut lines,
                    )
                }
                Wire::Float { bits, big_endian } => {
                    tests.push(format!("!std::isfinite({value})"));
                    put(
                        u64::from(*bits / 8),
                        format!("state::f{bits}_bits({value})"),
                        *big_endian,
                        &mut lines,
                    );
                }
                Wire::Bool { packed: false } => {
                    put(1, format!("{value} ? 1u : 0u"), false, &mut lines)
                }
                Wire::Bits(b) => {
                    tests.push(format!("{value}.check()"));
                    let be = self.g.low.bits_big_endian(b);
                    put(
                        u64::from(b.width / 8),
                        format!("{value}.bits"),
                        be,
                        &mut lines,
                    );
                }
                Wire::Record {
                    record: r,
                    padded: true,
                } => {
                    let rp = self.rplan(&r.name);
                    let [inner] = rp.steps.as_slice() else {
                        return None;
                    };
                    let Wire::Quat { bits } = inner.wire else {
                        return None;
                    };
                    let q = format!("{access}{}", ident(&inner.field.name));
                    tests.push(if conditional {
                        format!("({field} && rt::smallest_three_fault({q}, {bits}))")
                    } else {
                        format!("rt::smallest_three_fault({q}, {bits})")
                    });
                    let bytes = (2 + 3 * u64::from(bits)).div_ceil(8);
                    put(
                        bytes,
                        format!("state::quat_bits({q}, {bits})"),
                        false,
                        &mut lines,
                    );
                }
                Wire::Record {
                    record: r,
                    padded: false,
                } if !r.packed => {
                    let mut inner = Vec::new();
                    let outer_tests = tests.len();
                    let mut nested = RecordPuts {
                        lets: std::mem::take(lets),
                        tests: std::mem::take(tests),
                        at: *at,
                        most: *most,
                    };
                    let inner_fits = self.record_puts(&r.name, &access, &mut inner, &mut nested);
                    (*lets, *tests, *at, *most) =
                        (nested.lets, nested.tests, nested.at, nested.most);
                    inner_fits?;
                    // An optional group's tests read its fields only when it is there.
                    if conditional {
                        for t in &mut tests[outer_tests..] {
                            *t = format!("({field} && {t})");
                        }
                    }
                    lines.extend(inner);
                }
                _ => return None,
            }
            if conditional {
                puts.push(format!("if ({field}) {{"));
                puts.extend(indent(lines));
                puts.push("}".into());
            } else {
                puts.extend(lines);
            }
        }
        Some(())
    }

    fn record_fns(&mut self) {
        let p = self.p;
        let record = self.record().to_string();
        let mut puts = Vec::new();
        let mut acc = RecordPuts {
            lets: Vec::new(),
            tests: Vec::new(),
            at: Some(0),
            most: 0,
        };
        let fast = self
            .record_puts(&record, "record.", &mut puts, &mut acc)
            .is_some();
        let RecordPuts {
            lets,
            tests,
            at,
            most,
        } = acc;
        self.blank();
        self.line(format!(
            "/// CHECK-3: the canonical bytes (what the check hashes after the eid): `{record}` as"
        ));
        if fast {
            self.line(
                "/// the generated writer writes it, put at once (the check writes every record of the",
            );
            self.line(
                "/// state every CHECK_EVERY frames). A record no frame could have applied (a reserved",
            );
            self.line(
                "/// flag, a presence bit without its group, a quaternion the rules refuse, an integer past",
            );
            self.line(
                "/// its range) goes to the generated writer, which writes it up to the field at fault.",
            );
        } else {
            self.line(
                "/// the generated writer writes it. A record no frame could have applied (a reserved",
            );
            self.line(
                "/// flag, a presence bit without its group) is written up to the field at fault.",
            );
        }
        self.open("static void write_record(const Record& record, std::vector<uint8_t>& out) {");
        if fast {
            if !tests.is_empty() {
                self.lines(lets);
                self.open_joined("if (", &tests, "||", ") {");
                self.line("rt::Writer w(out);");
                self.line("(void)protocol::detail::write(w, record);");
                self.line("return;");
                self.close("}");
            }
            self.line(format!("uint8_t b[{most}];"));
            self.lines(puts);
            let end = match at {
                Some(o) => o.to_string(),
                None => "n".to_string(),
            };
            self.line(format!("out.insert(out.end(), b, b + {end});"));
        } else {
            self.line("rt::Writer w(out);");
            self.line("(void)protocol::detail::write(w, record);");
        }
        self.close("}");
        self.blank();
        match p.measured {
            Some(gi) => {
                let g = &p.groups[gi];
                let t = g.tick.as_ref().expect("the measured group has a tick");
                self.line(format!(
                    "/// The tick the record's `{}` was measured at (group `{}`).",
                    g.fields[t.field].name, g.name
                ));
                let field = self.rec("record.", gi, t.field);
                self.open("static std::optional<uint32_t> measured(const Record& record) {");
                self.line(format!("return {field};"));
                self.close("}");
            }
            None => {
                self.line("/// The state measures no group at a tick.");
                self.open("static std::optional<uint32_t> measured(const Record& /*record*/) {");
                self.line("return std::nullopt;");
                self.close("}");
            }
        }
        self.blank();
        match p.tiered {
            Some(gi) => {
                let g = &p.groups[gi];
                let t = g.tier.as_ref().expect("the tiered group has a tier");
                self.line(format!(
                    "/// Whether group `{}` came in its full form ({}): the tier the client sees.",
                    g.name, t.name
                ));
                let flag = self.flag("record.", &t.name);
                self.open("static std::optional<bool> pose_full(const Record& record) {");
                self.line(format!("return {flag};"));
                self.close("}");
            }
            None => {
                self.line("/// The state keeps no tier.");
                self.open("static std::optional<bool> pose_full(const Record& /*record*/) {");
                self.line("return std::nullopt;");
                self.close("}");
            }
        }
    }

    // ---- the frames ----

    fn frame_fns(&mut self, packed: bool) {
        let p = self.p;
        let profile = if packed {
            p.packed_profile().expect("a packed profile").clone()
        } else {
            self.byte().clone()
        };
        let ft = self.frame_type();
        let flags = &p.acked_flags;
        let frame = &profile.frame;
        self.blank();
        self.line(format!(
            "/// The frame as the generated codec's `protocol::{frame}`, what encode_frame writes."
        ));
        self.g.open_fn(&format!(
            "static protocol::{frame} wire_frame(const {ft}& frame)"
        ));
        self.line(format!("protocol::{frame} f;"));
        self.line("f.tick = frame.tick;");
        self.line("f.base_tick = frame.base_tick;");
        self.line("f.last_seq = frame.last_seq;");
        self.line("f.input_buffer = frame.input_buffer;");
        self.line(format!(
            "f.flags.set(protocol::{flags}::KEYFRAME, frame.keyframe);"
        ));
        self.line(format!(
            "f.flags.set(protocol::{flags}::CHECK, frame.check.has_value());"
        ));
        self.line("f.check = frame.check;");
        self.line("f.removed = frame.removed;");
        let (list, conv) = if packed {
            ("f.body.changes", "detail::packed_change")
        } else {
            ("f.changes", "detail::wire_change")
        };
        self.line(format!("{list}.reserve(frame.changes.size());"));
        self.open(format!(
            "for (const {}& c : frame.changes) {{",
            self.staged()
        ));
        self.line(format!("{list}.push_back({conv}(c));"));
        self.close("}");
        self.open("if (!frame.events.empty()) {");
        self.line("f.first_serial = frame.first_serial;");
        self.close("}");
        self.line("f.events = frame.events;");
        self.line("return f;");
        self.close("}");
        self.blank();
        if packed {
            self.line(
                "/// Writes a frame's bytes: `not_ascending` for changes out of id order (ACK-8),",
            );
            self.line(
                "/// `over_width` for more than 255 events (the generated writer's refusals).",
            );
        } else {
            self.line(
                "/// Writes a frame's bytes: `over_width` for more than 255 events (the generated",
            );
            self.line("/// writer's refusal).");
        }
        self.g.open_fn(&format!(
            "static rt::EncodeStatus encode_frame(const {ft}& frame, std::vector<uint8_t>& out)"
        ));
        self.line("return protocol::encode(wire_frame(frame), out);");
        self.close("}");
        self.blank();
        self.line(
            "/// Reads a frame from its bytes (canonically: trailing bytes are an error) into `out`,",
        );
        self.line(
            "/// reusing its lists' buffers, so that a warm decoder allocates nothing; then its",
        );
        self.line("/// header, under ACK-4's KEYFRAME rule.");
        if packed {
            self.line(
                "/// A code no byte-aligned field holds is `over_width` at the packed body's first",
            );
            self.line("/// byte, once the frame reads whole.");
        }
        self.g.open_fn(&format!(
            "static std::optional<rt::DecodeError> decode_frame_into(const uint8_t* data, size_t len, {ft}& out)"
        ));
        self.line(format!("protocol::{frame} header;"));
        self.line("rt::Reader r(data, len);");
        if packed {
            self.line("state::RangeFault fault;");
            self.line("size_t body_at = 0;");
            self.open(
                "if (!detail::read_packed_frame(r, header, out, fault, body_at) || !r.finish()) {",
            );
        } else {
            self.open("if (!detail::read_frame(r, header, out) || !r.finish()) {");
        }
        self.line("return r.take_error();");
        self.close("}");
        self.line(format!(
            "const bool keyframe = header.flags.contains(protocol::{flags}::KEYFRAME);"
        ));
        if packed {
            self.open("if (auto e = state::keep_header(header, keyframe, out)) {");
            self.line("return e;");
            self.close("}");
            self.open("if (fault) {");
            self.line("return fault.error(body_at);");
            self.close("}");
            self.line("return std::nullopt;");
        } else {
            self.line("return state::keep_header(header, keyframe, out);");
        }
        self.close("}");
    }

    fn ack_fns(&mut self) {
        let p = self.p;
        let (Some(ack), Some(_)) = (&p.ack, &p.inputs) else {
            return;
        };
        let frame = ack.frame.clone();
        let flags = ack.flags.clone();
        let decode = format!("decode_{}", snake_case(&frame));
        self.blank();
        self.line(format!(
            "/// Writes the client's `{}` frame of `ack`.",
            snake_case(&frame)
        ));
        self.g.open_fn("static rt::EncodeStatus encode_ack(const acked::AckContent<Input>& ack, std::vector<uint8_t>& out)");
        self.line(format!("protocol::{frame} a;"));
        self.line("a.ack_tick = ack.ack_tick;");
        self.line(format!(
            "a.flags.set(protocol::{flags}::KEYFRAME_REQUEST, ack.keyframe_request);"
        ));
        self.open("if (!ack.inputs.empty()) {");
        self.line("a.first_seq = ack.first_seq;");
        self.close("}");
        self.line("a.inputs = ack.inputs;");
        self.line("return protocol::encode(a, out);");
        self.close("}");
        self.blank();
        self.line(format!(
            "/// Reads the client's `{}` frame into `out`.",
            snake_case(&frame)
        ));
        self.g.open_fn("static std::optional<rt::DecodeError> decode_ack(const uint8_t* data, size_t len, acked::AckContent<Input>& out)");
        self.line(format!("auto a = protocol::{decode}(data, len);"));
        self.open("if (!a) {");
        self.line("return a.error();");
        self.close("}");
        self.line("out.ack_tick = a.value().ack_tick;");
        self.line(format!(
            "out.keyframe_request = a.value().flags.contains(protocol::{flags}::KEYFRAME_REQUEST);"
        ));
        self.line("out.first_seq = a.value().first_seq.value_or(0);");
        self.line("out.inputs = std::move(a.value().inputs);");
        self.line("return std::nullopt;");
        self.close("}");
        self.blank();
        self.line("/// The server tick an input is aimed at.");
        self.line("static uint32_t input_tick(const Input& input) { return input.tick; }");
    }
}

/// What the fast record writer gathers beside its statements: the flags it tests first (`lets`),
/// the tests under which the generated writer refuses the record instead, the fixed offset of
/// the next field while there is one, and the most bytes.
struct RecordPuts {
    lets: Vec<String>,
    tests: Vec<String>,
    at: Option<u64>,
    most: u64,
}
