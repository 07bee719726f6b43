//! The C# binding of a `state` (spec/LANGUAGE.md, "Replicated state"): for every state a spec
//! declares, a file beside `Protocol.cs` (`Reference.cs` for `state Reference`) that binds the
//! runtime's acked machines (`Runtime/Sessions/Acked.cs` and `AckedHalf.cs`, generic over an
//! `IAckedSchema`) to the state, printed from its [`StatePlan`] and re-deriving nothing.
//!
//! The file, in the order it is printed (the TypeScript and C++ bindings follow the same
//! layout):
//!
//! 1. a header line, the state's docs and the usings;
//! 2. the staged change (`StagedChange`): what the machines hold of a change whichever frame it
//!    came in, the wire's integers in plain fields (a struct, so that a frame of changes is one
//!    array);
//! 3. the schema both frames share (`ReferenceSchema`): each step form's reach, the session
//!    constants, then the record: whether each group says the same of two records
//!    (`SamePose`), equality, the canonical bytes the check hashes (folded into FNV-1a as the
//!    generated writer would write them), where each step form counts from; then the change
//!    that turns a base into a record (`Diff`), a change applied onto a base (`Apply`), and the
//!    ack adapters;
//! 4. per profile (the byte-aligned frame, then the packed one) the schema of its frames
//!    (`Reference`, `PackedReference`): a staged change as the generated change and the frame
//!    the writer writes (`ToChange`, `ToFrame`), for the byte-aligned frame a reader at once of
//!    the common frame into the reused changes (`ReadAtOnce`), and a reader of the whole frame
//!    that takes the codec's reads in the codec's order into the staged changes (`Read`): it
//!    accepts what `Protocol.cs`'s reader accepts and refuses the rest with the same kind,
//!    offset and path, allocating only the changes' array and the events.
//!
//! 5. for a state with a byte-aligned frame, its groups as typed datagram v2 components
//!    (`ReferenceComponent`, DG-6), as the Rust machines' `ReferenceComponent`: the component's
//!    type is the group's index, its data the group's full (or only) form as that frame writes
//!    it; a removal and a type the state does not declare read as null.
//!
//! What every state shares (the acked frame's header (ACK-2), the arithmetic of a step, a coarser integer or a
//! float's whole units, each with the error its rule gives) is the runtime's
//! (`Runtime/Sessions/State.cs`, `StateRules`); what is game policy (which entities a client
//! sees, tiers, refresh) is the game's presenter, never generated.

use super::cs::{
    cs_type, int_range, int_type, literal, local, member, pascal, scale, summary, xml, Reads,
};
use super::{base_name, Code};
use crate::lower::{Ascending, CountFrom, Lowering, RecordPlan, Role, Step, Wire};
use crate::model::{Endian, Item, Spec};
use crate::state::{
    plans, Carry, FormPlan, FormRole, GroupPlan, Holds, ProfilePlan, StagedHolds, StatePlan, Value,
    WirePlan,
};
use std::collections::BTreeSet;

/// The binding of every state of `spec`, as (file name, contents): `Reference.cs` for `state
/// Reference`, beside `Protocol.cs`, whose types it uses.
pub fn generate(spec: &Spec, low: &Lowering<'_>) -> Vec<(String, String)> {
    plans(spec)
        .iter()
        .map(|plan| (file_name(plan), binding(spec, low, plan)))
        .collect()
}

/// The binding's file: the state's name, unless that is the codec's own (`Protocol`), then
/// with `State` after it.
pub fn file_name(plan: &StatePlan) -> String {
    if plan.name == "Protocol" {
        format!("{}State.cs", plan.name)
    } else {
        format!("{}.cs", plan.name)
    }
}

/// The width the printed lines keep within.
const WIDTH: usize = 110;

fn binding(spec: &Spec, low: &Lowering<'_>, plan: &StatePlan) -> String {
    let little = spec
        .files
        .iter()
        .find(|f| f.name == plan.file)
        .is_none_or(|f| f.endian == Endian::Little);
    let declared: BTreeSet<String> = spec
        .files
        .iter()
        .flat_map(|f| &f.items)
        .filter_map(|i| match i {
            Item::Const(c) => Some(c.name.clone()),
            _ => None,
        })
        .collect();
    let mut p = Printer {
        plan,
        low,
        reads: Reads::new(low),
        out: Code::default(),
        little,
        declared,
    };
    p.file();
    p.out.finish()
}

/// A sentence as doc lines of at most `room` characters.
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last().map_or(0, String::len);
        if last > 0 && last + 1 + word.len() > room {
            lines.push(String::new());
        }
        if let Some(l) = lines.last_mut() {
            if !l.is_empty() {
                l.push(' ');
            }
            l.push_str(word);
        }
    }
    lines
}

/// A string literal.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The C# integer type of `bits` bits, and its literal suffix's type.
fn lit(v: i128, signed: bool, bits: u8) -> String {
    literal(v, int_type(signed, bits))
}

/// A literal a `long` parameter takes.
fn long(v: i128) -> String {
    literal(v, "long")
}

/// The range of an integer wire: a fixed-width integer's, a quantized one's integer's, a bucket
/// code's values.
fn wire_range(wire: &Wire<'_>) -> Option<(i128, i128)> {
    match wire {
        Wire::Int { signed, bits, .. } => {
            let b = u32::from(*bits);
            Some(if *signed {
                (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
            } else {
                (0, (1i128 << b) - 1)
            })
        }
        Wire::Quant { wire, .. } => wire_range(wire),
        Wire::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        Wire::Bucket(b) => Some((b.min_value, b.max_value)),
        Wire::Bool { .. } => Some((0, 1)),
        _ => None,
    }
}

/// The C# type an integer wire's value is read as (a quantized one's integer).
fn wire_int_type(wire: &Wire<'_>) -> String {
    match wire {
        Wire::Quant { wire, .. } => wire_int_type(wire),
        other => cs_type(other),
    }
}

/// Whether `(from, to)` ranges nest: every value of `inner` lies in `outer`.
fn within(inner: (i128, i128), outer: (i128, i128)) -> bool {
    outer.0 <= inner.0 && inner.1 <= outer.1
}

/// `(T)expr`, or `expr` when it is of type `T` already or converts to it implicitly (a wider
/// integer holding every value).
fn cast(to: &str, from: &str, expr: &str) -> String {
    if to == from || widens(from, to) {
        expr.to_string()
    } else {
        format!("({to}){}", paren(expr))
    }
}

/// Whether C# converts an integer of type `from` to `to` implicitly.
fn widens(from: &str, to: &str) -> bool {
    let wider: &[&str] = match from {
        "byte" => &["short", "ushort", "int", "uint", "long", "ulong"],
        "sbyte" => &["short", "int", "long"],
        "short" => &["int", "long"],
        "ushort" => &["int", "uint", "long", "ulong"],
        "int" => &["long"],
        "uint" => &["long", "ulong"],
        _ => &[],
    };
    wider.contains(&to)
}

/// `expr` in parentheses unless it is a name, a member or a call.
fn paren(expr: &str) -> String {
    if expr.starts_with('(') && closes_at_end(expr) {
        return expr.to_string();
    }
    let simple = expr
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        || (expr.ends_with(')') && !expr.starts_with('(') && balanced_call(expr));
    if simple {
        expr.to_string()
    } else {
        format!("({expr})")
    }
}

/// Whether the parenthesis opening `expr` closes at its end.
fn closes_at_end(expr: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in expr.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i == expr.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `expr` is one call `f(...)` whose last parenthesis closes its first.
fn balanced_call(expr: &str) -> bool {
    let Some(open) = expr.find('(') else {
        return false;
    };
    if !expr[..open]
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in expr.char_indices().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i == expr.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// How the record holds a group field, and how a staged integer holds its wire value.
#[derive(Debug, Clone)]
struct Held {
    /// The C# type.
    ty: String,
    /// An integer's range (a bool's 0..=1), `None` for a float, bit set or quaternion.
    range: Option<(i128, i128)>,
    /// A nested group's quantized field, held as the codec holds it (a double, its wire integer
    /// times `num/den`): the unit and the wire integer's range.
    quant: Option<(u64, u64, i128, i128)>,
}

struct Printer<'a, 's> {
    plan: &'a StatePlan,
    low: &'a Lowering<'s>,
    reads: Reads<'a, 's>,
    out: Code,
    /// The state's file is little endian.
    little: bool,
    /// The constants the spec declares.
    declared: BTreeSet<String>,
}

impl<'a, 's> Printer<'a, 's> {
    // ---- names ----

    fn rec(&self) -> &'a str {
        &self.plan.record.name
    }

    fn staged(&self) -> &'a str {
        &self.plan.staged.name
    }

    fn base(&self) -> String {
        format!("{}Schema", self.plan.name)
    }

    fn inputs(&self) -> String {
        self.plan.inputs.clone().unwrap_or_else(|| "object".into())
    }

    fn frame_ty(&self) -> String {
        format!("AckedFrame<{}, {}>", self.staged(), self.plan.events)
    }

    /// The profile whose mask the staged change keeps: the byte-aligned one, or the packed one
    /// without it.
    fn stage_profile(&self) -> &'a ProfilePlan {
        self.plan
            .byte_profile()
            .or(self.plan.profiles.first())
            .expect("a state travels in a frame")
    }

    fn mask_enum(&self) -> &'a str {
        &self.stage_profile().mask
    }

    fn flags_member(&self) -> String {
        self.plan
            .flags
            .as_ref()
            .map(|f| member(&f.name, self.rec()))
            .unwrap_or_default()
    }

    fn flags_enum(&self) -> String {
        self.plan
            .flags
            .as_ref()
            .map(|f| f.bits.clone())
            .unwrap_or_default()
    }

    /// The staged change's member named `name`.
    fn staged_member(&self, name: &str) -> String {
        let m = member(name, self.staged());
        if m == "Eid" || m == "Mask" {
            format!("{m}_")
        } else {
            m
        }
    }

    /// The staged field of group `g`'s field `f` (`age` for its tick): its member and type.
    fn staged_of(&self, holds: StagedHolds) -> (String, String, (i128, i128)) {
        let f = self
            .plan
            .staged
            .fields
            .iter()
            .find(|f| f.holds == holds)
            .expect("every group field is staged");
        (
            self.staged_member(&f.name),
            int_type(f.signed, f.bits).to_string(),
            int_range(f.signed, f.bits),
        )
    }

    /// The record field holding nested group `g`.
    fn nested_field(&self, g: usize) -> Option<&'a str> {
        self.plan
            .record
            .fields
            .iter()
            .find(|f| f.holds == Holds::Group(g))
            .map(|f| f.name.as_str())
    }

    /// Group `g`'s field `f` in record `x`.
    fn value(&self, x: &str, g: usize, f: usize) -> String {
        let group = &self.plan.groups[g];
        let name = &group.fields[f].name;
        match self.nested_field(g) {
            Some(field) => format!(
                "{x}.{}.{}",
                member(field, self.rec()),
                member(name, &group.record)
            ),
            None => format!("{x}.{}", member(name, self.rec())),
        }
    }

    fn plan_of(&self, record: &str, key: Option<&str>) -> &'a RecordPlan<'s> {
        self.low
            .plan(record, key)
            .unwrap_or_else(|| panic!("record {record} is lowered"))
    }

    /// How the record holds group `g`'s field `f`.
    fn held(&self, g: usize, f: usize) -> Held {
        let group = &self.plan.groups[g];
        let name = &group.fields[f].name;
        let (record, field) = match self.nested_field(g) {
            Some(_) => (group.record.as_str(), name.as_str()),
            None => (self.rec(), name.as_str()),
        };
        let wire = &self
            .plan_of(record, None)
            .step(field)
            .expect("a record field is lowered")
            .wire;
        let quant = match wire {
            Wire::Quant {
                num, den, min, max, ..
            } => Some((*num, *den, *min, *max)),
            _ => None,
        };
        Held {
            ty: cs_type(wire),
            range: match group.fields[f].value {
                Value::Int { .. } | Value::Tick if quant.is_none() => group.fields[f].value.range(),
                _ => None,
            },
            quant,
        }
    }

    fn reach_name(g: &GroupPlan) -> String {
        format!("{}Reach", pascal(&g.name))
    }

    fn same_name(&self, g: usize) -> String {
        let group = &self.plan.groups[g];
        if group.nested {
            format!("Same{}", group.record)
        } else {
            format!("Same{}", pascal(&group.name))
        }
    }

    fn origin_name(g: &GroupPlan) -> String {
        format!("{}Origin", pascal(&g.name))
    }

    /// `{mask enum}.{bit}`.
    fn bit(mask: &str, name: &str) -> String {
        format!("{mask}.{name}")
    }

    /// `(m & Mask.BIT) != 0`.
    fn has(m: &str, mask: &str, name: &str) -> String {
        format!("({m} & {mask}.{name}) != 0")
    }

    // ---- printing helpers ----

    fn doc(&mut self, text: &str) {
        let room = WIDTH - 8 - self.out.column();
        let one = format!("/// <summary>{text}</summary>");
        if one.len() + self.out.column() <= WIDTH {
            self.out.line(one);
            return;
        }
        let lines = wrap(text, room);
        self.out.line(summary(&lines));
    }

    /// `head` then `terms` joined by `op`, broken before an operator where a line would pass the
    /// width, then `tail`.
    fn chain(&mut self, head: &str, terms: &[String], op: &str, tail: &str) {
        let col = self.out.column();
        let mut lines: Vec<String> = vec![head.to_string()];
        for (i, t) in terms.iter().enumerate() {
            let piece = if i == 0 {
                t.clone()
            } else {
                format!(" {op} {t}")
            };
            let last = lines.last_mut().expect("a line");
            if i > 0 && col + last.len() + piece.len() + tail.len() > WIDTH {
                lines.push(format!("    {op} {t}"));
            } else {
                last.push_str(&piece);
            }
        }
        if let Some(last) = lines.last_mut() {
            last.push_str(tail);
        }
        for l in lines {
            self.out.line(l);
        }
    }

    fn statement_object(&mut self, head: &str, members: &[String], tail: &str) {
        let one = format!("{head} {{ {} }}{tail}", members.join(", "));
        if self.out.column() + one.len() <= WIDTH {
            self.out.line(one);
            return;
        }
        self.out.line(head);
        self.out.open("{");
        for m in members {
            self.out.line(format!("{m},"));
        }
        self.out.close(format!("}}{tail}"));
    }

    // ---- the file ----

    fn file(&mut self) {
        let plan = self.plan;
        self.out.line(format!(
            "// @generated by ackwire-spec from {}: the acked binding of state `{}`. Do not edit:",
            base_name(&plan.file),
            plan.name
        ));
        self.out.line("// change the layout file.");
        self.out.line("//");
        for line in &plan.docs {
            self.out.line(if line.is_empty() {
                "//".to_string()
            } else {
                format!("// {line}")
            });
        }
        self.out.line("//");
        for line in [
            "// What the runtime's acked machines (Runtime/Sessions/Acked.cs, AckedHalf.cs) need to know of",
            "// the state: its changes as they hold them, its records' equality and canonical bytes (what the",
            "// check hashes), the change between two records and a change applied onto a record, and for",
            "// each frame it travels in the frame and ack adapters (spec/LANGUAGE.md, \"Replicated state\").",
        ] {
            self.out.line(line);
        }
        if plan.byte_profile().is_some() {
            self.out
                .line("// Last, its groups as typed datagram v2 components (DG-6).");
        }
        self.out.blank();
        self.out.line("using System;");
        self.out.line("using Ackwire.Runtime;");
        self.out.line("using Ackwire.Runtime.Sessions;");
        self.out.blank();
        self.out.block("namespace Ackwire.Protocol");
        self.staged_struct();
        self.schema_base();
        for profile in &plan.profiles {
            self.profile_schema(profile);
        }
        self.coded_schema();
        if let Some(frame) = plan.byte_profile() {
            self.components(&frame.frame);
        }
        self.out.close("}");
    }

    // ---- the staged change ----

    fn staged_struct(&mut self) {
        let plan = self.plan;
        let sp = self.stage_profile();
        let rec = self.rec().to_string();
        self.doc(&format!(
            "A change of <see cref=\"{rec}\"/> as the session machines hold it, whichever frame it came in: the wire's integers in plain fields (a float as its bits, a step or a coarser integer as it travels, a quaternion as its record's bits), a group the mask does not select holding zeros. A struct, so that a frame's changes are one array."
        ));
        self.out.block(format!("public struct {}", self.staged()));
        self.out.line("/// <summary>The entity.</summary>");
        self.out.line("public ushort Eid;");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Which groups the change carries, and how (the bits of <see cref=\"{}\"/>).</summary>",
            sp.mask
        ));
        self.out.line(format!("public {} Mask;", sp.mask));
        for f in &plan.staged.fields {
            self.out.blank();
            let text = match f.holds {
                StagedHolds::Age(g) => format!(
                    "The {} group's age: ticks between its measurement and the frame's tick (0 without {}).",
                    plan.groups[g].name,
                    plan.groups[g].age_bit_name.clone().unwrap_or_default()
                ),
                StagedHolds::Field { group, field } => {
                    let g = &plan.groups[group];
                    let mut parts = Vec::new();
                    for form in &g.forms {
                        for w in form.wire.iter().filter(|w| w.field == field) {
                            let how = match w.carry {
                                Carry::Float { bits, .. } => format!("as the f{bits}'s bits"),
                                Carry::Step => "as a step from the base's".into(),
                                Carry::Scaled { by: 1 } | Carry::Itself => match g.fields[field].value {
                                    Value::Quat { .. } => "as its record's bits".into(),
                                    Value::Float { .. } => "as its bits".into(),
                                    Value::Bool => "as 0 or 1".into(),
                                    _ => "as it is".into(),
                                },
                                Carry::Scaled { by } => format!("in units of {by}"),
                            };
                            parts.push(format!("{}'s {} {how}", form.record, w.name));
                        }
                    }
                    format!(
                        "The {} group's <c>{}</c>: {}.",
                        g.name,
                        g.fields[field].name,
                        parts.join(", or ")
                    )
                }
            };
            self.doc(&text);
            self.out.line(format!(
                "public {} {};",
                int_type(f.signed, f.bits),
                self.staged_member(&f.name)
            ));
        }
        self.out.close("}");
    }

    // ---- the shared schema ----

    fn schema_base(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        let staged = self.staged().to_string();
        let events = plan.events.clone();
        let inputs = self.inputs();
        self.out.blank();
        let profiles: Vec<String> = plan.profiles.iter().map(|p| p.schema.clone()).collect();
        self.doc(&format!(
            "What the frames of state {} share ({}): the records and their canonical bytes, the change between two records and a change applied onto one, the acks. Each frame's schema adds how its frames are written and read.",
            plan.name,
            profiles.join(", ")
        ));
        self.out.block(format!(
            "public abstract class {} : IAckedSchema<{rec}, {staged}, {events}, {inputs}>",
            self.base()
        ));
        let mut first = true;
        for g in &plan.groups {
            if let Some(reach) = g.reach {
                if !first {
                    self.out.blank();
                }
                first = false;
                let step = g.form(FormRole::Step).map_or("", |f| f.record.as_str());
                self.doc(&format!(
                    "A <see cref=\"{step}\"/> counts from the base's values when each of its stepped fields lies within this many units of 0, and from 0 otherwise (and for an entity coming whole): ACK-21, CHECK-5."
                ));
                self.out.line(format!(
                    "public const long {} = {reach};",
                    Self::reach_name(g)
                ));
            }
        }
        self.constants();
        self.out.blank();
        self.out
            .line("/// <summary>The name of the schema's frames in a session.</summary>");
        self.out.line("public abstract string FrameName { get; }");
        self.out.blank();
        let ack = plan
            .ack
            .as_ref()
            .map_or("ack".to_string(), |a| super::snake_case(&a.frame));
        self.out.line(format!(
            "/// <summary>The name of its acks in a session: <c>{ack}</c>.</summary>"
        ));
        self.out.line(format!(
            "public string AckName {{ get {{ return {}; }} }}",
            quote(&ack)
        ));
        self.out.blank();
        self.out.line(format!("// ---- the record, {rec} ----"));
        for g in 0..plan.groups.len() {
            self.same_group(g);
        }
        self.same_record();
        self.hash_record();
        for g in &plan.groups {
            if g.reach.is_some() {
                self.origin(g);
            }
        }
        self.out.blank();
        self.out.line("// ---- changes ----");
        self.diff();
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out
            .block(format!("public int ChangeEid({staged} change)"));
        self.out.line("return change.Eid;");
        self.out.close("}");
        self.apply();
        self.measured();
        self.out.blank();
        self.out.line("// ---- acks ----");
        self.acks();
        self.out.blank();
        self.out.line("// ---- frames, each schema's own ----");
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out.line(format!(
            "public abstract byte[] EncodeFrame({} frame);",
            self.frame_ty()
        ));
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out.line(format!(
            "public abstract void DecodeFrameInto(byte[] bytes, {} into);",
            self.frame_ty()
        ));
        self.out.close("}");
    }

    fn constants(&mut self) {
        let items: [(&str, &str, &str, &str); 5] = [
            ("SENT_RING", "SentRing", "int", "DefaultSentRing"),
            ("HELD_RING", "HeldRing", "int", "DefaultHeldRing"),
            ("EVENT_TTL", "EventTtl", "ulong", "DefaultEventTtl"),
            ("CHECK_EVERY", "CheckEvery", "ulong", "DefaultCheckEvery"),
            (
                "RELIABLE_ABOVE",
                "ReliableAbove",
                "int",
                "DefaultReliableAbove",
            ),
        ];
        for (name, prop, ty, default) in items {
            self.out.blank();
            self.out.line("/// <inheritdoc/>");
            let value = if self.declared.contains(name) {
                format!("({ty})Constants.{name}")
            } else {
                format!("StateRules.{default}")
            };
            self.out.line(format!(
                "public {ty} {prop} {{ get {{ return {value}; }} }}"
            ));
        }
    }

    /// Whether `a` and `b` (expressions of group field type) are the same value.
    fn same_value(a: &str, b: &str, v: &Value) -> String {
        match v {
            Value::Float { bits: 32 } => {
                format!("Bits.FromSingle({a}) == Bits.FromSingle({b})")
            }
            Value::Float { .. } => {
                format!(
                    "BitConverter.DoubleToInt64Bits({a}) == BitConverter.DoubleToInt64Bits({b})"
                )
            }
            Value::Quat { .. } => format!("{a}.Equals({b})"),
            _ => format!("{a} == {b}"),
        }
    }

    fn same_group(&mut self, g: usize) {
        let plan = self.plan;
        let group = &plan.groups[g];
        let name = self.same_name(g);
        self.out.blank();
        if group.nested {
            let ty = group.record.clone();
            self.doc(&format!(
                "Whether two {ty}s are the same, field for field (or both absent)."
            ));
            self.out
                .block(format!("static bool {name}({ty} a, {ty} b)"));
            self.out.block("if (a == null || b == null)");
            self.out.line("return a == null && b == null;");
            self.out.close("}");
            let terms: Vec<String> = group
                .fields
                .iter()
                .map(|f| {
                    let m = member(&f.name, &ty);
                    Self::same_value(&format!("a.{m}"), &format!("b.{m}"), &f.value)
                })
                .collect();
            self.chain("return ", &terms, "&&", ";");
            self.out.close("}");
            return;
        }
        let rec = self.rec().to_string();
        let mut terms: Vec<String> = (0..group.fields.len())
            .map(|f| {
                Self::same_value(
                    &self.value("a", g, f),
                    &self.value("b", g, f),
                    &group.fields[f].value,
                )
            })
            .collect();
        let what = if let Some(t) = &group.tier {
            let (fm, fe) = (self.flags_member(), self.flags_enum());
            terms.push(format!(
                "(a.{fm} & {fe}.{0}) == (b.{fm} & {fe}.{0})",
                t.name
            ));
            format!("its fields and its tier ({} alone)", t.name)
        } else {
            "its fields".to_string()
        };
        self.doc(&format!(
            "Whether the {} group says the same of two records: {what}.",
            group.name
        ));
        self.out
            .block(format!("static bool {name}({rec} a, {rec} b)"));
        self.chain("return ", &terms, "&&", ";");
        self.out.close("}");
    }

    fn same_record(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        let mut terms = Vec::new();
        for f in &plan.record.fields {
            let m = member(&f.name, &rec);
            match f.holds {
                Holds::Field { group, field } => terms.push(Self::same_value(
                    &format!("a.{m}"),
                    &format!("b.{m}"),
                    &plan.groups[group].fields[field].value,
                )),
                Holds::Flags => terms.push(format!("a.{m} == b.{m}")),
                Holds::Group(g) => terms.push(format!("{}(a.{m}, b.{m})", self.same_name(g))),
            }
        }
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out
            .block(format!("public bool SameRecord({rec} a, {rec} b)"));
        self.chain("return ", &terms, "&&", ";");
        self.out.close("}");
    }

    // ---- the check's bytes ----

    /// Lines folding the `n` low bytes of the integer `v` (of C# type `ty`) into `h`, least
    /// significant first, as a little-endian writer writes them (most significant first when
    /// `big`).
    fn fold(lines: &mut Vec<String>, v: &str, ty: &str, n: u32, big: bool) {
        if n == 1 {
            let e = match ty {
                "byte" => v.to_string(),
                "bool" => format!("({v} ? 1u : 0u)"),
                _ => format!("((uint){} & 0xff)", paren(v)),
            };
            lines.push(format!("h = (h ^ {e}) * P;"));
            return;
        }
        let wide = n > 4;
        let local = if wide { "y" } else { "x" };
        let conv = if wide { "ulong" } else { "uint" };
        lines.push(format!("{local} = ({conv}){};", paren(v)));
        for i in 0..n {
            let k = if big { n - 1 - i } else { i };
            let shifted = if k == 0 {
                local.to_string()
            } else {
                format!("({local} >> {})", 8 * k)
            };
            let byte = if k == n - 1 && (n == 4 || n == 8) {
                shifted
            } else {
                format!("({shifted} & 0xff)")
            };
            let byte = if wide {
                format!("(uint){}", paren(&byte))
            } else {
                byte
            };
            lines.push(format!("h = (h ^ {byte}) * P;"));
        }
    }

    /// The lines that refuse (end the bytes, as the writer stops) a bit set value `v` of `bits`
    /// with a reserved bit or a bit without the bit it requires.
    fn bits_guard(&self, lines: &mut Vec<String>, v: &str, bits_name: &str) {
        let Some(b) = self.low.index.bits(bits_name) else {
            return;
        };
        let bp = self.low.bits_plan(b);
        if bp.reserved != 0 {
            lines.push(format!("if (((ulong){v} & {}UL) != 0)", bp.reserved));
            lines.push("{".into());
            lines.push("    return h;".into());
            lines.push("}".into());
        }
        for n in &bp.named {
            if let Some((_, req)) = n.requires {
                lines.push(format!(
                    "if (((ulong){v} & {}UL) != 0 && ((ulong){v} & {}UL) == 0)",
                    1u64 << n.index,
                    1u64 << req
                ));
                lines.push("{".into());
                lines.push("    return h;".into());
                lines.push("}".into());
            }
        }
    }

    /// The lines folding one value of `wire` (the record's or a nested record's field) held in
    /// `v` into the hash, ending the bytes where the writer would refuse it.
    fn hash_value(&self, lines: &mut Vec<String>, v: &str, wire: &Wire<'_>) {
        match wire {
            Wire::Int {
                bits, big_endian, ..
            } => Self::fold(lines, v, &cs_type(wire), u32::from(*bits) / 8, *big_endian),
            // WIRE-29: past its range the writer refuses it.
            Wire::Ranged { int, min, max, .. } => {
                lines.push(format!(
                    "if ({v} < {} || {v} > {})",
                    long(i128::from(*min)),
                    long(i128::from(*max))
                ));
                lines.push("{".into());
                lines.push("    return h;".into());
                lines.push("}".into());
                self.hash_value(lines, v, int);
            }
            Wire::Bool { .. } => Self::fold(lines, v, "bool", 1, false),
            Wire::Float {
                bits: 32,
                big_endian,
            } => {
                lines.push(format!("x = Bits.FromSingle({v});"));
                lines.push("if (!StateRules.Finite32(unchecked((int)x)))".into());
                lines.push("{".into());
                lines.push("    return h;".into());
                lines.push("}".into());
                Self::fold(lines, "x", "uint", 4, *big_endian);
            }
            Wire::Float { big_endian, .. } => {
                lines.push(format!("y = (ulong)BitConverter.DoubleToInt64Bits({v});"));
                lines.push("if (!StateRules.Finite64(unchecked((long)y)))".into());
                lines.push("{".into());
                lines.push("    return h;".into());
                lines.push("}".into());
                Self::fold(lines, "y", "ulong", 8, *big_endian);
            }
            Wire::Bits(b) => {
                self.bits_guard(lines, v, &b.name);
                let big = self.low.bits_big_endian(b);
                Self::fold(lines, v, &b.name, u32::from(b.width) / 8, big);
            }
            Wire::Quant {
                wire: int,
                num,
                den,
                min,
                max,
                ..
            } => {
                // The wire integer the writer rounds the double to; past its range the writer
                // refuses it.
                lines.push(format!(
                    "if (!StateRules.QuantizedFits({v}, {}, {}, {}))",
                    scale(*num, *den),
                    long(*min),
                    long(*max)
                ));
                lines.push("{".into());
                lines.push("    return h;".into());
                lines.push("}".into());
                let q = format!(
                    "StateRules.Quantized({v}, {}, {}, {}, null, null)",
                    scale(*num, *den),
                    long(*min),
                    long(*max)
                );
                if let Wire::Int {
                    bits, big_endian, ..
                } = int.as_ref()
                {
                    Self::fold(lines, &q, "long", u32::from(*bits) / 8, *big_endian);
                }
            }
            _ => {}
        }
    }

    fn hash_record(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        let rplan = self.plan_of(&rec, None);
        let mut lines: Vec<String> = Vec::new();
        let (mut narrow, mut wide) = (false, false);
        for f in &plan.record.fields {
            let m = member(&f.name, &rec);
            let step = rplan.step(&f.name).expect("a record field is lowered");
            match f.holds {
                Holds::Group(g) => {
                    let group = &plan.groups[g];
                    let gname = group.record.clone();
                    let local_name = format!("{}_", super::cs::local(&f.name));
                    lines.push(format!("{gname} {local_name} = r.{m};"));
                    match &f.present {
                        Some(bit) => {
                            let (fm, fe) = (self.flags_member(), self.flags_enum());
                            lines.push(format!(
                                "if (({local_name} != null) != ((r.{fm} & {fe}.{}) != 0))",
                                bit.name
                            ));
                        }
                        None => lines.push(format!("if ({local_name} == null)")),
                    }
                    lines.push("{".into());
                    lines.push("    return h;".into());
                    lines.push("}".into());
                    let mut body = Vec::new();
                    let gplan = self.plan_of(&gname, None);
                    if gplan.packed {
                        // A packed record, padded: its bits as one integer, then its bytes.
                        let mut at = 0u32;
                        let mut parts = Vec::new();
                        for s in &gplan.steps {
                            let gm = format!("{local_name}.{}", member(&s.field.name, &gname));
                            match &s.wire {
                                Wire::Quat { bits } => {
                                    body.push(format!(
                                        "if (SmallestThree.Check({gm}, {bits}) != null)"
                                    ));
                                    body.push("{".into());
                                    body.push("    return h;".into());
                                    body.push("}".into());
                                    parts.push(format!(
                                        "StateRules.QuatBits({gm}, {bits}){}",
                                        if at == 0 {
                                            String::new()
                                        } else {
                                            format!(" << {at}")
                                        }
                                    ));
                                    at += 2 + 3 * u32::from(*bits);
                                }
                                Wire::Bool { .. } => {
                                    parts.push(format!("({gm} ? 1UL : 0UL) << {at}"));
                                    at += 1;
                                }
                                Wire::Int { signed, bits, .. } => {
                                    let mask = if *bits >= 64 {
                                        u64::MAX
                                    } else {
                                        (1u64 << bits) - 1
                                    };
                                    let v = if *signed {
                                        format!("((ulong)(long){gm} & {mask}UL)")
                                    } else {
                                        format!("(ulong){gm}")
                                    };
                                    parts.push(if at == 0 { v } else { format!("{v} << {at}") });
                                    at += u32::from(*bits);
                                }
                                _ => {}
                            }
                        }
                        wide = true;
                        let bytes = at.div_ceil(8);
                        body.push(format!("y = {};", parts.join(" | ")));
                        Self::fold(&mut body, "y", "ulong", bytes, false);
                        // `fold` reassigned y from itself: drop that line.
                        body.retain(|l| l != "y = (ulong)y;");
                    } else {
                        for s in &gplan.steps {
                            let gm = format!("{local_name}.{}", member(&s.field.name, &gname));
                            self.hash_value(&mut body, &gm, &s.wire);
                        }
                    }
                    if f.present.is_some() {
                        lines.push(format!("if ({local_name} != null)"));
                        lines.push("{".into());
                        lines.extend(body.into_iter().map(|l| format!("    {l}")));
                        lines.push("}".into());
                    } else {
                        lines.extend(body);
                    }
                }
                _ => self.hash_value(&mut lines, &format!("r.{m}"), &step.wire),
            }
        }
        for l in &lines {
            narrow |= l.starts_with("x = ") || l.contains(" x = ");
            wide |= l.starts_with("y = ") || l.contains(" y = ");
        }
        self.out.blank();
        let bytes = plan.record_bytes();
        self.doc(&format!(
            "CHECK-2, CHECK-3: the {rec} writer's {bytes} bytes (and each optional group's, when the record has it), folded into FNV-1a 32 as they would be written, without a buffer: the check hashes every record every CHECK_EVERY frames. A record no frame makes (a reserved flag bit, an optional group its flags bit contradicts) hashes the bytes the writer leaves written before it refuses it."
        ));
        self.out
            .block(format!("public uint HashRecord({rec} r, uint hash)"));
        self.out.line("const uint P = Fnv.Prime;");
        self.out.line("uint h = hash;");
        if narrow {
            self.out.line("uint x;");
        }
        if wide {
            self.out.line("ulong y;");
        }
        self.out.block("unchecked");
        for l in lines {
            self.out.line(l);
        }
        self.out.close("}");
        self.out.line("return h;");
        self.out.close("}");
    }

    /// Where group `g`'s step form counts from.
    fn origin(&mut self, g: &GroupPlan) {
        let rec = self.rec().to_string();
        let gi = self
            .plan
            .groups
            .iter()
            .position(|x| x.name == g.name)
            .unwrap_or(0);
        let step = g.form(FormRole::Step).map_or("", |f| f.record.as_str());
        self.out.blank();
        self.doc(&format!(
            "The record a <see cref=\"{step}\"/> counts from: <paramref name=\"b\"/> when it holds the entity and each of its stepped fields lies within {} of 0, none (every field 0) otherwise. Both sides decide it from the base alone.",
            Self::reach_name(g)
        ));
        self.out
            .block(format!("static {rec} {}({rec} b)", Self::origin_name(g)));
        let mut terms = vec!["b != null".to_string()];
        for fi in g.stepped() {
            let v = self.value("b", gi, fi);
            let held = self.held(gi, fi);
            let signed = held.range.is_some_and(|r| r.0 < 0);
            if signed {
                terms.push(format!("Math.Abs((long){v}) <= {}", Self::reach_name(g)));
            } else {
                terms.push(format!("(ulong){v} <= (ulong){}", Self::reach_name(g)));
            }
        }
        self.chain("return ", &terms, "&&", " ? b : null;");
        self.out.close("}");
    }

    // ---- diff ----

    /// The staged value of wire field `w` of a form of group `g`, from record `next` (a step
    /// counted from the origin `o`), refusing what its wire cannot carry; with `fits`, the test
    /// that it can instead (`None`: always).
    fn to_wire(&self, g: usize, form: &FormPlan, w: &WirePlan, fits: bool) -> Option<String> {
        let group = &self.plan.groups[g];
        let f = &group.fields[w.field];
        let v = self.value("next", g, w.field);
        let held = self.held(g, w.field);
        let (sm, sty, _) = self.staged_of(StagedHolds::Field {
            group: g,
            field: w.field,
        });
        let _ = sm;
        let path = format!("{}, {}", quote(&form.field), quote(&w.name));
        if let Some((num, den, qlo, qhi)) = held.quant {
            // A nested group's quantized field, a double: its wire integer, rounded as the
            // codec's writer rounds it.
            let (lo, hi) = w.range.unwrap_or((qlo, qhi));
            return Some(if fits {
                format!(
                    "StateRules.QuantizedFits({v}, {}, {}, {})",
                    scale(num, den),
                    long(lo),
                    long(hi)
                )
            } else {
                format!(
                    "({sty})StateRules.Quantized({v}, {}, {}, {}, {path})",
                    scale(num, den),
                    long(lo),
                    long(hi)
                )
            });
        }
        let unsigned64 = held.ty == "ulong";
        let frange = held.range.unwrap_or((0, 0));
        let (lo, hi) = w.range.unwrap_or(frange);
        match w.carry {
            Carry::Itself => {
                if fits {
                    return None;
                }
                Some(match &f.value {
                    Value::Float { bits: 32 } => {
                        format!("unchecked((int)Bits.FromSingle({v}))")
                    }
                    Value::Float { .. } => format!("BitConverter.DoubleToInt64Bits({v})"),
                    Value::Bool => format!("({sty})({v} ? 1 : 0)"),
                    Value::Quat { bits } => {
                        format!("({sty})StateRules.QuatBits({v}, {bits})")
                    }
                    _ => cast(&sty, &held.ty, &v),
                })
            }
            Carry::Scaled { by } => {
                let need = by != 1 || !within(frange, (lo, hi));
                if !need {
                    return if fits {
                        None
                    } else {
                        Some(cast(&sty, &held.ty, &v))
                    };
                }
                if unsigned64 {
                    let hi = lit(hi, false, 64);
                    return Some(if fits {
                        format!("StateRules.CoarserFits({v}, {by}UL, {hi})")
                    } else {
                        format!("({sty})StateRules.Coarser({v}, {by}UL, {hi}, {path})")
                    });
                }
                Some(if fits {
                    format!(
                        "StateRules.CoarserFits({v}, {by}, {}, {})",
                        long(lo),
                        long(hi)
                    )
                } else {
                    format!(
                        "({sty})StateRules.Coarser({v}, {by}, {}, {}, {path})",
                        long(lo),
                        long(hi)
                    )
                })
            }
            Carry::Float {
                bits,
                num,
                den,
                limit,
                ..
            } => {
                let v = if unsigned64 {
                    format!("unchecked((long){v})")
                } else {
                    v
                };
                Some(if fits {
                    format!("StateRules.FloatFits({v}, {limit})")
                } else if bits == 32 {
                    format!(
                        "StateRules.F32Of({v}, {}, {limit}, {path})",
                        scale(num, den)
                    )
                } else {
                    format!(
                        "StateRules.F64Of({v}, {}, {limit}, {path})",
                        scale(num, den)
                    )
                })
            }
            Carry::Step => {
                let from = format!("o == null ? 0 : {}", self.value("o", g, w.field));
                let from = if unsigned64 {
                    format!("o == null ? 0UL : {}", self.value("o", g, w.field))
                } else {
                    from
                };
                Some(if fits {
                    format!(
                        "StateRules.StepFits({v}, {from}, {}, {})",
                        long(lo),
                        long(hi)
                    )
                } else {
                    format!(
                        "({sty})StateRules.StepOf({v}, {from}, {}, {}, {path})",
                        long(lo),
                        long(hi)
                    )
                })
            }
        }
    }

    /// The assignments staging form `form`'s fields of group `g` from `next` (its origin `o`
    /// declared).
    fn stage_form_fields(&mut self, g: usize, form: &FormPlan) {
        for w in &form.wire {
            let (sm, _, _) = self.staged_of(StagedHolds::Field {
                group: g,
                field: w.field,
            });
            if let Some(e) = self.to_wire(g, form, w, false) {
                self.out.line(format!("change.{sm} = {e};"));
            }
        }
    }

    /// The lines staging form `form` of group `g` from `next` into `change`.
    fn stage_form(&mut self, g: usize, form: &FormPlan) {
        let group = &self.plan.groups[g];
        if form.role == FormRole::Step {
            let origin = if group.reach.is_some() {
                format!("{}(b)", Self::origin_name(group))
            } else {
                "b".to_string()
            };
            if form.wire.iter().any(|w| w.carry == Carry::Step) {
                self.out.line(format!("{} o = {origin};", self.rec()));
            }
        }
        for w in &form.wire {
            let (sm, _, _) = self.staged_of(StagedHolds::Field {
                group: g,
                field: w.field,
            });
            if let Some(e) = self.to_wire(g, form, w, false) {
                self.out.line(format!("change.{sm} = {e};"));
            }
        }
    }

    fn diff(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        let staged = self.staged().to_string();
        let mask = self.mask_enum().to_string();
        let sp = self.stage_profile().clone();
        self.out.blank();
        self.doc(
            "ACK-19, ACK-21: frame N carries what turns the acknowledged frame's S_B into S_N (the entities gone, those whose life changed under their id removed and whole again, the groups that differ, a position as small steps from the base's). A group is in the change exactly when one of its fields differs from the base's; an entity the base does not hold comes whole (LANGUAGE.md, \"Diff and apply\").",
        );
        self.out.block(format!(
            "public bool Diff(int eid, {rec} b, {rec} next, uint tick, out {staged} change)"
        ));
        self.out.line(format!("change = default({staged});"));
        let mut sends = Vec::new();
        for (gi, g) in plan.groups.iter().enumerate() {
            let send = local(&g.name);
            let send = format!("{send}Differs");
            match (self.nested_field(gi), &g.presence) {
                (Some(field), Some(bit)) => {
                    let m = member(field, &rec);
                    let (fm, fe) = (self.flags_member(), self.flags_enum());
                    self.out.line(format!(
                        "// ACK-22: once an entity has its {} it keeps it for its life: no change takes it away.",
                        g.name
                    ));
                    let terms = [
                        format!(
                            "(next.{m} != null) != ((next.{fm} & {fe}.{}) != 0)",
                            bit.name
                        ),
                        format!("(b != null && b.{m} != null && next.{m} == null)"),
                    ];
                    self.chain("if (", &terms, "||", ")");
                    self.out.open("{");
                    self.out
                        .line(format!("throw StateRules.Invalid({});", quote(field)));
                    self.out.close("}");
                    self.out.line(format!(
                        "bool {send} = next.{m} != null && (b == null || !{}(b.{m}, next.{m}));",
                        self.same_name(gi)
                    ));
                }
                (Some(field), None) => {
                    let m = member(field, &rec);
                    self.out.block(format!("if (next.{m} == null)"));
                    self.out
                        .line(format!("throw StateRules.Invalid({});", quote(field)));
                    self.out.close("}");
                    self.out.line(format!(
                        "bool {send} = b == null || !{}(b.{m}, next.{m});",
                        self.same_name(gi)
                    ));
                }
                _ => {
                    self.out.line(format!(
                        "bool {send} = b == null || !{}(b, next);",
                        self.same_name(gi)
                    ));
                }
            }
            sends.push(send);
        }
        let none: Vec<String> = sends.iter().map(|s| format!("!{s}")).collect();
        self.chain("if (", &none, "&&", ")");
        self.out.open("{");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line(format!("{mask} mask = 0;"));
        for (gi, g) in plan.groups.iter().enumerate() {
            self.out.block(format!("if ({})", sends[gi]));
            self.out
                .line(format!("mask |= {};", Self::bit(&mask, &g.bit_name)));
            if let (Some(t), Some(age_bit)) = (&g.tick, &g.age_bit_name) {
                let (am, aty, _) = self.staged_of(StagedHolds::Age(gi));
                let measured = self.value("next", gi, t.field);
                self.out.line(format!(
                    "ulong age = StateRules.AgeOf(tick, {measured}, {}, {});",
                    lit(t.wire.max(), false, 64),
                    quote(&t.age)
                ));
                self.out.block("if (age != 0)");
                self.out
                    .line(format!("mask |= {};", Self::bit(&mask, age_bit)));
                self.out.line(format!("change.{am} = ({aty})age;"));
                self.out.close("}");
            }
            match (g.form(FormRole::Full), g.form(FormRole::Step), &g.tier) {
                (Some(full), Some(step), Some(tier)) => {
                    let (fm, fe) = (self.flags_member(), self.flags_enum());
                    let full_bit = g.full_bit_name.clone().unwrap_or_default();
                    self.out
                        .block(format!("if ((next.{fm} & {fe}.{}) != 0)", tier.name));
                    self.out
                        .line(format!("mask |= {};", Self::bit(&mask, &full_bit)));
                    let full = full.clone();
                    self.stage_form(gi, &full);
                    self.out.close("}");
                    self.out.block("else");
                    let step = step.clone();
                    self.stage_form(gi, &step);
                    self.out.close("}");
                }
                (Some(full), Some(step), None) => {
                    // Without a tier: the step form when every field can travel so.
                    let full_bit = g.full_bit_name.clone().unwrap_or_default();
                    let origin = if g.reach.is_some() {
                        format!("{}(b)", Self::origin_name(g))
                    } else {
                        "b".to_string()
                    };
                    let step = step.clone();
                    let full = full.clone();
                    let fits: Vec<String> = step
                        .wire
                        .iter()
                        .filter_map(|w| self.to_wire(gi, &step, w, true))
                        .collect();
                    if step.wire.iter().any(|w| w.carry == Carry::Step) {
                        self.out.line(format!("{rec} o = {origin};"));
                    }
                    if fits.is_empty() {
                        // Every field of the step form travels so: it always goes.
                        let step = step.clone();
                        self.stage_form_fields(gi, &step);
                        self.out.close("}");
                        continue;
                    }
                    self.chain("if (", &fits, "&&", ")");
                    self.out.open("{");
                    for w in &step.wire {
                        let (sm, _, _) = self.staged_of(StagedHolds::Field {
                            group: gi,
                            field: w.field,
                        });
                        if let Some(e) = self.to_wire(gi, &step, w, false) {
                            self.out.line(format!("change.{sm} = {e};"));
                        }
                    }
                    self.out.close("}");
                    self.out.block("else");
                    self.out
                        .line(format!("mask |= {};", Self::bit(&mask, &full_bit)));
                    self.stage_form(gi, &full);
                    self.out.close("}");
                }
                _ => {
                    if let Some(form) = g.forms.first() {
                        let form = form.clone();
                        self.stage_form(gi, &form);
                    }
                }
            }
            self.out.close("}");
        }
        let _ = sp;
        self.out.line("change.Eid = (ushort)eid;");
        self.out.line("change.Mask = mask;");
        self.out.line("return true;");
        self.out.close("}");
    }

    // ---- apply ----

    /// The record's value of wire field `w` of a form of group `g`, from the staged change `c`
    /// (a step onto the origin `o`), refusing (Inapplicable) what its field cannot hold.
    fn value_of_wire(&self, g: usize, w: &WirePlan) -> String {
        let group = &self.plan.groups[g];
        let f = &group.fields[w.field];
        let held = self.held(g, w.field);
        let (sm, sty, srange) = self.staged_of(StagedHolds::Field {
            group: g,
            field: w.field,
        });
        let s = format!("c.{sm}");
        if let Some((num, den, _, _)) = held.quant {
            // As the codec's reader makes it.
            return format!("{s} * {}", scale(num, den));
        }
        let frange = held.range.unwrap_or((0, 0));
        let wrange = w.range.unwrap_or(srange);
        let unsigned64 = held.ty == "ulong";
        match w.carry {
            Carry::Itself => match &f.value {
                Value::Float { bits: 32 } => format!("Bits.ToSingle(unchecked((uint){s}))"),
                Value::Float { .. } => format!("BitConverter.Int64BitsToDouble({s})"),
                Value::Bool => format!("{s} != 0"),
                Value::Quat { bits } => format!("StateRules.QuatOf({s}, {bits})"),
                _ => cast(&held.ty, &sty, &s),
            },
            Carry::Scaled { by } => {
                let product = (wrange.0 * i128::from(by), wrange.1 * i128::from(by));
                if within(product, frange) {
                    if by == 1 {
                        cast(&held.ty, &sty, &s)
                    } else {
                        cast(&held.ty, "long", &format!("{s} * {by}"))
                    }
                } else {
                    let why = quote(&self.plan.range_fault(group));
                    if unsigned64 {
                        format!(
                            "StateRules.Sum(0UL, checked((long){s} * {by}), {}, {why})",
                            lit(frange.1, false, 64)
                        )
                    } else {
                        cast(
                            &held.ty,
                            "long",
                            &format!(
                                "StateRules.InRange((long){s} * {by}, {}, {}, {why})",
                                long(frange.0),
                                long(frange.1)
                            ),
                        )
                    }
                }
            }
            Carry::Float {
                bits,
                num,
                den,
                limit,
                ..
            } => {
                let why = quote(&self.plan.grid_fault(group));
                let whole = if bits == 32 {
                    format!(
                        "StateRules.WholeF32({s}, {}, {limit}, {why})",
                        scale(den, num)
                    )
                } else {
                    format!(
                        "StateRules.WholeF64({s}, {}, {limit}, {why})",
                        scale(den, num)
                    )
                };
                // Below the limit, which the field's type caps; an unsigned field refuses the
                // negative values too.
                if frange.0 >= 0 {
                    cast(
                        &held.ty,
                        "long",
                        &format!(
                            "StateRules.InRange({whole}, 0, {}, {why})",
                            long(frange.1.min(i128::from(i64::MAX)))
                        ),
                    )
                } else {
                    cast(&held.ty, "long", &whole)
                }
            }
            Carry::Step => {
                let from = self.value("o", g, w.field);
                let (olo, ohi) = match group.reach {
                    Some(r) => {
                        let r = i128::from(r);
                        (if frange.0 < 0 { -r } else { 0 }, r)
                    }
                    None => frange,
                };
                let sum = (olo + wrange.0, ohi + wrange.1);
                let why = quote(&self.plan.range_fault(group));
                if unsigned64 {
                    return format!(
                        "StateRules.Sum(o == null ? 0UL : {from}, {s}, {}, {why})",
                        lit(frange.1, false, 64)
                    );
                }
                let zero = if held.ty == "long" { "0L" } else { "0" };
                if within(sum, frange) {
                    cast(
                        &held.ty,
                        if held.ty == "long" { "long" } else { "int" },
                        &format!("(o == null ? {zero} : {from}) + {s}"),
                    )
                } else {
                    cast(
                        &held.ty,
                        "long",
                        &format!(
                            "StateRules.Sum(o == null ? 0 : {from}, {s}, {}, {}, {why})",
                            long(frange.0),
                            long(frange.1)
                        ),
                    )
                }
            }
        }
    }

    fn apply_form(&mut self, g: usize, form: &FormPlan) {
        let group = &self.plan.groups[g];
        if form.role == FormRole::Step && form.wire.iter().any(|w| w.carry == Carry::Step) {
            let origin = if group.reach.is_some() {
                format!("{}(b)", Self::origin_name(group))
            } else {
                "b".to_string()
            };
            self.out.line(format!("{} o = {origin};", self.rec()));
        }
        match self.nested_field(g) {
            Some(field) => {
                let m = member(field, self.rec());
                let members: Vec<String> = form
                    .wire
                    .iter()
                    .map(|w| {
                        format!(
                            "{} = {}",
                            member(&group.fields[w.field].name, &group.record),
                            self.value_of_wire(g, w)
                        )
                    })
                    .collect();
                self.statement_object(&format!("r.{m} = new {}", group.record), &members, ";");
            }
            None => {
                for w in &form.wire {
                    let v = self.value("r", g, w.field);
                    let e = self.value_of_wire(g, w);
                    self.out.line(format!("{v} = {e};"));
                }
            }
        }
    }

    fn apply(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        let staged = self.staged().to_string();
        let mask = self.mask_enum().to_string();
        self.out.blank();
        self.doc(
            "ACK-33: a pose measured in a frame that was lost travels with its age, so the client records it at the tick it was true. The base's record (or, for an entity coming whole, the zero record, which the change must carry every group that is not optional onto) with each group the mask selects set as its form carries it, then its tick and tier; a change that cannot apply throws Inapplicable, and the frame is not applied at all. Records are never edited in place: the base's nested groups are shared.",
        );
        self.out.block(format!(
            "public {rec} Apply({rec} b, {staged} c, uint tick)"
        ));
        self.out.line(format!("{mask} mask = c.Mask;"));
        self.out.line(format!("{rec} r;"));
        self.out.block("if (b != null)");
        let copy: Vec<String> = plan
            .record
            .fields
            .iter()
            .map(|f| {
                let m = member(&f.name, &rec);
                format!("{m} = b.{m}")
            })
            .collect();
        self.statement_object(&format!("r = new {rec}"), &copy, ";");
        self.out.close("}");
        self.out.block("else");
        let whole: Vec<String> = plan
            .groups
            .iter()
            .filter(|g| g.presence.is_none())
            .map(|g| Self::bit(&mask, &g.bit_name))
            .collect();
        if !whole.is_empty() {
            self.chain(&format!("const {mask} whole = "), &whole, "|", ";");
            self.out.block("if ((mask & whole) != whole)");
            self.out.line(format!(
                "throw new Inapplicable({});",
                quote(plan.whole_fault())
            ));
            self.out.close("}");
        }
        self.out.line(format!("r = new {rec}();"));
        self.out.close("}");
        for (gi, g) in plan.groups.iter().enumerate() {
            self.out
                .block(format!("if ({})", Self::has("mask", &mask, &g.bit_name)));
            match (g.form(FormRole::Full), g.form(FormRole::Step)) {
                (Some(full), Some(step)) => {
                    let full_bit = g.full_bit_name.clone().unwrap_or_default();
                    self.out
                        .block(format!("if ({})", Self::has("mask", &mask, &full_bit)));
                    let full = full.clone();
                    self.apply_form(gi, &full);
                    if let Some(t) = &g.tier {
                        self.out.line(format!(
                            "r.{} |= {}.{};",
                            self.flags_member(),
                            self.flags_enum(),
                            t.name
                        ));
                    }
                    self.out.close("}");
                    self.out.block("else");
                    let step = step.clone();
                    self.apply_form(gi, &step);
                    if let Some(t) = &g.tier {
                        self.out.line(format!(
                            "r.{} &= ~{}.{};",
                            self.flags_member(),
                            self.flags_enum(),
                            t.name
                        ));
                    }
                    self.out.close("}");
                }
                _ => {
                    if let Some(form) = g.forms.first() {
                        let form = form.clone();
                        self.apply_form(gi, &form);
                    }
                }
            }
            if let (Some(t), Some(age_bit)) = (&g.tick, &g.age_bit_name) {
                let (am, _, _) = self.staged_of(StagedHolds::Age(gi));
                let v = self.value("r", gi, t.field);
                self.out.line(format!(
                    "{v} = StateRules.MeasuredAt(tick, {} ? c.{am} : 0u, {});",
                    Self::has("mask", &mask, age_bit),
                    quote(&plan.tick_fault(g))
                ));
            }
            if let Some(bit) = &g.presence {
                self.out.line(format!(
                    "r.{} |= {}.{};",
                    self.flags_member(),
                    self.flags_enum(),
                    bit.name
                ));
            }
            self.out.close("}");
        }
        self.out.line("return r;");
        self.out.close("}");
    }

    fn measured(&mut self) {
        let plan = self.plan;
        let rec = self.rec().to_string();
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out.block(format!("public uint? Measured({rec} r)"));
        match plan
            .measured
            .and_then(|g| Some((g, plan.groups[g].tick.as_ref()?)))
        {
            Some((g, t)) => {
                let v = self.value("r", g, t.field);
                self.out.line(format!("return {v};"));
            }
            None => self.out.line("return null;"),
        }
        self.out.close("}");
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out.block(format!("public bool? PoseFull({rec} r)"));
        match plan.tiered.and_then(|g| plan.groups[g].tier.as_ref()) {
            Some(t) => self.out.line(format!(
                "return (r.{} & {}.{}) != 0;",
                self.flags_member(),
                self.flags_enum(),
                t.name
            )),
            None => self.out.line("return null;"),
        }
        self.out.close("}");
    }

    fn acks(&mut self) {
        let plan = self.plan;
        let inputs = self.inputs();
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out
            .block(format!("public byte[] EncodeAck(AckContent<{inputs}> ack)"));
        match &plan.ack {
            Some(a) => {
                let members = [
                    "AckTick = ack.AckTick".to_string(),
                    format!(
                        "Flags = ack.KeyframeRequest ? {}.KEYFRAME_REQUEST : 0",
                        a.flags
                    ),
                    "FirstSeq = ack.Inputs.Length > 0 ? ack.FirstSeq : (uint?)null".to_string(),
                    "Inputs = ack.Inputs".to_string(),
                ];
                self.statement_object(
                    &format!("{} frame = new {}", a.frame, a.frame),
                    &members,
                    ";",
                );
                self.out.line("return frame.Encode();");
            }
            None => self.out.line(format!(
                "throw new NotSupportedException(\"state {} declares no ack frame\");",
                plan.name
            )),
        }
        self.out.close("}");
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out.block(format!(
            "public AckContent<{inputs}> DecodeAck(byte[] bytes)"
        ));
        match &plan.ack {
            Some(a) => {
                self.out
                    .line(format!("{} frame = {}.Decode(bytes);", a.frame, a.frame));
                let members = [
                    "AckTick = frame.AckTick".to_string(),
                    format!(
                        "KeyframeRequest = (frame.Flags & {}.KEYFRAME_REQUEST) != 0",
                        a.flags
                    ),
                    "FirstSeq = frame.FirstSeq ?? 0".to_string(),
                    "Inputs = frame.Inputs".to_string(),
                ];
                self.statement_object(&format!("return new AckContent<{inputs}>"), &members, ";");
            }
            None => self.out.line(format!(
                "throw new NotSupportedException(\"state {} declares no ack frame\");",
                plan.name
            )),
        }
        self.out.close("}");
        self.out.blank();
        self.out.line("/// <inheritdoc/>");
        self.out
            .block(format!("public uint InputTick({inputs} input)"));
        match &plan.inputs {
            Some(i) => self
                .out
                .line(format!("return input.{};", member("tick", i))),
            None => self.out.line("return 0;"),
        }
        self.out.close("}");
    }

    // ---- each frame's schema ----

    fn profile_schema(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        self.out.blank();
        let other = if p.packed {
            "changes as a bit stream, each costing the bits its values need"
        } else {
            "byte-aligned changes"
        };
        self.doc(&format!(
            "State {}'s frames of kind {} (<c>{}</c>, {other}): <see cref=\"{}\"/> with how its frames are written and read.",
            plan.name,
            p.kind,
            p.frame_name,
            self.base()
        ));
        self.out.block(format!(
            "public sealed class {} : {}",
            p.schema,
            self.base()
        ));
        self.out
            .line("/// <summary>The one instance (a schema holds no state).</summary>");
        self.out.line(format!(
            "public static readonly {0} Schema = new {0}();",
            p.schema
        ));
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Its frames' name in a session: <c>{}</c>.</summary>",
            p.frame_name
        ));
        self.out.line(format!(
            "public override string FrameName {{ get {{ return {}; }} }}",
            quote(&p.frame_name)
        ));
        if p.packed {
            self.mask_conversions(p);
        }
        self.print_to_change(p);
        self.print_to_frame(p);
        self.out.blank();
        self.out.line(format!(
            "/// <summary>The frame's bytes, as <see cref=\"{}\"/>'s writer writes them; throws an EncodeError.</summary>",
            p.frame
        ));
        self.out.block(format!(
            "public override byte[] EncodeFrame({} frame)",
            self.frame_ty()
        ));
        self.out.line("return ToFrame(frame).Encode();");
        self.out.close("}");
        let at_once = !p.packed && self.at_once_possible(p);
        self.out.blank();
        if at_once {
            self.doc(&format!(
                "Reads a frame into <paramref name=\"into\"/>, reusing its changes' array when the count is the same (the AckedDecoder reads every frame into one AckedFrame): the common frame at once, anything else through the whole reader, which says what and where. It accepts what <see cref=\"{}\"/>'s reader accepts, as the same frame; throws a DecodeError.",
                p.frame
            ));
        } else {
            self.doc(&format!(
                "Reads a frame into <paramref name=\"into\"/>, reusing its changes' array when the count is the same (the AckedDecoder reads every frame into one AckedFrame). It accepts what <see cref=\"{}\"/>'s reader accepts, as the same frame; throws a DecodeError.",
                p.frame
            ));
        }
        self.out.block(format!(
            "public override void DecodeFrameInto(byte[] bytes, {} into)",
            self.frame_ty()
        ));
        if at_once {
            self.out.block("if (!ReadAtOnce(bytes, into))");
            self.out.line("Read(bytes, into);");
            self.out.close("}");
        } else {
            self.out.line("Read(bytes, into);");
        }
        self.out.close("}");
        if at_once {
            self.read_at_once(p);
        }
        self.read_whole(p);
        self.out.close("}");
    }

    /// The coded frame's schema (kind 13, `docs/spec/coded.md`), when the state declares one:
    /// the packed frame's changes and staging, each value range-coded against the records of
    /// the frame's base and older snapshot, as the Rust `Coded{State}`.
    fn coded_schema(&mut self) {
        let plan = self.plan;
        let (Some(coded), Some(packed)) = (&plan.coded, plan.profiles.iter().find(|p| p.packed))
        else {
            return;
        };
        let rec = self.rec().to_string();
        let staged = self.staged().to_string();
        let events = plan.events.clone();
        let inputs = self.inputs();
        let frame_ty = self.frame_ty();
        let name = format!("Coded{}", plan.name);
        self.out.blank();
        self.doc(&format!(
            "State {}'s frames of kind {} (<c>{}</c>, docs/spec/coded.md): <see cref=\"{}\"/>'s changes and staging, each value range-coded against the records of the frame's base and older snapshot (CODE-13, CODE-14), the <see cref=\"ICodedBasis{{R}}\"/> the acked machines hand EncodeFrameOn and DecodeFrameOnInto. EncodeFrame and DecodeFrameInto write and read against no basis: a keyframe's bytes are the same either way.",
            plan.name, coded.kind, coded.frame_name, packed.schema
        ));
        self.out.block(format!(
            "public sealed class {name} : {}, ICodedSchema<{rec}, {staged}, {events}, {inputs}>",
            self.base()
        ));
        self.out
            .line("/// <summary>The one instance (a schema holds no state).</summary>");
        self.out.line(format!(
            "public static readonly {name} Schema = new {name}();"
        ));
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Its frames' name in a session: <c>{}</c>.</summary>",
            coded.frame_name
        ));
        self.out.line(format!(
            "public override string FrameName {{ get {{ return {}; }} }}",
            quote(&coded.frame_name)
        ));
        self.out.blank();
        self.doc(&format!(
            "<paramref name=\"f\"/> as the generated <see cref=\"{}\"/>: <see cref=\"{}\"/>'s frame (each change through its ToChange), its older snapshot <paramref name=\"older\"/> ticks before the base.",
            coded.frame, packed.schema
        ));
        self.out.block(format!(
            "public static {} ToFrame({frame_ty} f, byte older)",
            coded.frame
        ));
        self.out.line(format!(
            "{} p = {}.ToFrame(f);",
            packed.frame, packed.schema
        ));
        let members: Vec<String> = [
            "Tick",
            "BaseTick",
            "LastSeq",
            "InputBuffer",
            "Flags",
            "Check",
            "Removed",
        ]
        .iter()
        .map(|m| format!("{m} = p.{m}"))
        .chain(["Older = older".to_string(), "Body = p.Body".to_string()])
        .chain(
            ["FirstSerial", "Events"]
                .iter()
                .map(|m| format!("{m} = p.{m}")),
        )
        .collect();
        self.statement_object(&format!("return new {}", coded.frame), &members, ";");
        self.out.close("}");
        self.out.blank();
        self.out.line(
            "/// <summary>The frame's bytes against no basis (<see cref=\"NoBasis{R}\"/>); throws an EncodeError.</summary>",
        );
        self.out.block(format!(
            "public override byte[] EncodeFrame({frame_ty} frame)"
        ));
        self.out.line(format!(
            "return EncodeFrameOn(frame, 0, NoBasis<{rec}>.Instance);"
        ));
        self.out.close("}");
        self.out.blank();
        self.out.line(
            "/// <summary>Reads a frame against no basis (<see cref=\"NoBasis{R}\"/>); throws a DecodeError.</summary>",
        );
        self.out.block(format!(
            "public override void DecodeFrameInto(byte[] bytes, {frame_ty} into)"
        ));
        self.out.line(format!(
            "DecodeFrameOnInto(bytes, NoBasis<{rec}>.Instance, into);"
        ));
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>What the frame's basis is looked up by, as <see cref=\"{}.ReadBasis\"/> reads it.</summary>",
            coded.frame
        ));
        self.out
            .block("public CodedBasisTicks ReadBasis(byte[] bytes)");
        self.out
            .line(format!("return {}.ReadBasis(bytes);", coded.frame));
        self.out.close("}");
        self.out.blank();
        self.doc("The frame's bytes, its changes predicted from <paramref name=\"basis\"/>, its older snapshot <paramref name=\"older\"/> ticks before the base; throws an EncodeError.");
        self.out.block(format!(
            "public byte[] EncodeFrameOn({frame_ty} frame, byte older, ICodedBasis<{rec}> basis)"
        ));
        self.out.line("return ToFrame(frame, older).Encode(basis);");
        self.out.close("}");
        self.out.blank();
        self.doc(&format!(
            "Reads a frame against <paramref name=\"basis\"/> into <paramref name=\"into\"/>; throws a DecodeError. Its changes are kind 12's, so they are staged as <see cref=\"{}\"/> stages them: the frame less its coding goes through kind 12's reader, which refuses a value past the byte-aligned field at the packed body's first byte and a keyframe naming a base as Rust's unpacking does.",
            packed.schema
        ));
        self.out.block(format!(
            "public void DecodeFrameOnInto(byte[] bytes, ICodedBasis<{rec}> basis, {frame_ty} into)"
        ));
        self.out.line(format!(
            "{} f = {}.Decode(bytes, basis);",
            coded.frame, coded.frame
        ));
        let members: Vec<String> = [
            "Tick",
            "BaseTick",
            "LastSeq",
            "InputBuffer",
            "Flags",
            "Check",
            "Removed",
            "Body",
            "FirstSerial",
            "Events",
        ]
        .iter()
        .map(|m| format!("{m} = f.{m}"))
        .collect();
        self.statement_object(
            &format!("{} p = new {}", packed.frame, packed.frame),
            &members,
            ";",
        );
        self.out.line(format!(
            "{}.Schema.DecodeFrameInto(p.Encode(), into);",
            packed.schema
        ));
        self.out.close("}");
        self.out.close("}");
    }

    /// The (staged bit, packed bit) pairs of every named bit.
    fn mask_pairs(&self, p: &ProfilePlan) -> Vec<(u8, u8)> {
        let sp = self.stage_profile();
        let mut pairs = Vec::new();
        for (gi, g) in self.plan.groups.iter().enumerate() {
            pairs.push((g.bit, g.bit));
            if let (Some(a), Some(b)) = (sp.full_bits[gi], p.full_bits[gi]) {
                pairs.push((a, b));
            }
            if let (Some(a), Some(b)) = (sp.age_bits[gi], p.age_bits[gi]) {
                pairs.push((a, b));
            }
        }
        pairs
    }

    /// `(int)m`'s bits moved by each pair's shift, grouped by shift.
    fn mask_moves(pairs: &[(u8, u8)], value: &str) -> String {
        let mut by_shift: Vec<(i32, u64)> = Vec::new();
        for &(from, to) in pairs {
            let shift = i32::from(to) - i32::from(from);
            match by_shift.iter_mut().find(|(s, _)| *s == shift) {
                Some((_, bits)) => *bits |= 1 << from,
                None => by_shift.push((shift, 1 << from)),
            }
        }
        let terms: Vec<String> = by_shift
            .iter()
            .map(|&(shift, bits)| match shift {
                0 => format!("({value} & 0x{bits:x}UL)"),
                s if s > 0 => format!("(({value} & 0x{bits:x}UL) << {s})"),
                s => format!("(({value} & 0x{bits:x}UL) >> {})", -s),
            })
            .collect();
        terms.join(" | ")
    }

    fn mask_conversions(&mut self, p: &ProfilePlan) {
        let sp_mask = self.mask_enum().to_string();
        let pairs = self.mask_pairs(p);
        let named: u64 = pairs.iter().fold(0, |m, (a, _)| m | 1 << a);
        self.out.blank();
        self.doc(&format!(
            "The staged mask (<see cref=\"{sp_mask}\"/>'s bits) as <see cref=\"{}\"/>'s, each named bit where the packed mask has it; a bit the staged mask does not name is <c>reserved_bit</c> at <c>mask</c>.",
            p.mask
        ));
        self.out
            .block(format!("public static {} PackMask({sp_mask} mask)", p.mask));
        self.out.line("ulong m = (ulong)mask;");
        self.out.block(format!("if ((m & ~0x{named:x}UL) != 0)"));
        self.out
            .line("throw new EncodeError(ErrorKind.ReservedBit).Within(\"mask\");");
        self.out.close("}");
        self.out.line(format!(
            "return ({})({});",
            p.mask,
            Self::mask_moves(&pairs, "m")
        ));
        self.out.close("}");
        let back: Vec<(u8, u8)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
        self.out.blank();
        self.doc(&format!(
            "<see cref=\"{}\"/>'s bits as the staged mask's.",
            p.mask
        ));
        self.out.block(format!(
            "public static {sp_mask} UnpackMask({} mask)",
            p.mask
        ));
        self.out.line("ulong m = (ulong)mask;");
        self.out.line(format!(
            "return ({sp_mask})({});",
            Self::mask_moves(&back, "m")
        ));
        self.out.close("}");
    }

    /// The value of the codec's member for wire `wire` (of the frame's change) from staged
    /// integer `s` (of C# type `sty`, range `srange`).
    fn staged_to_codec(
        &self,
        wire: &Wire<'_>,
        s: &str,
        sty: &str,
        srange: (i128, i128),
        path: (&str, &str),
    ) -> String {
        match wire {
            Wire::Float { bits: 32, .. } => format!("Bits.ToSingle(unchecked((uint){s}))"),
            Wire::Float { .. } => format!("BitConverter.Int64BitsToDouble({s})"),
            Wire::Bool { .. } => format!("{s} != 0"),
            Wire::Quat { bits } => format!("StateRules.QuatOf({s}, {bits})"),
            Wire::Bits(b) => format!("({}){s}", b.name),
            Wire::Quant {
                wire: inner,
                num,
                den,
                ..
            } => {
                format!(
                    "{} * {}",
                    self.staged_to_codec(inner, s, sty, srange, path),
                    scale(*num, *den)
                )
            }
            other => {
                let ty = cs_type(other);
                let range = wire_range(other).unwrap_or(srange);
                if within(srange, range) {
                    cast(&ty, sty, s)
                } else {
                    format!(
                        "({ty})StateRules.Narrow({s}, {}, {}, {}, {})",
                        long(range.0),
                        long(range.1),
                        quote(path.0),
                        quote(path.1)
                    )
                }
            }
        }
    }

    /// The staged change as the profile's generated change.
    fn print_to_change(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        let staged = self.staged().to_string();
        let mask = self.mask_enum().to_string();
        let cplan = self.plan_of(&p.change, if p.packed { Some("eid") } else { None });
        self.out.blank();
        self.doc(&format!(
            "Staged change <paramref name=\"s\"/> as <see cref=\"{}\"/>, the change <see cref=\"{}\"/>'s writer writes.",
            p.change, p.frame
        ));
        self.out
            .block(format!("public static {} ToChange({staged} s)", p.change));
        let mask_value = if p.packed {
            "PackMask(s.Mask)".to_string()
        } else {
            "s.Mask".to_string()
        };
        self.out.line(format!(
            "{} c = new {} {{ Eid = s.Eid, Mask = {mask_value} }};",
            p.change, p.change
        ));
        for (gi, g) in plan.groups.iter().enumerate() {
            if let (Some(t), Some(age_bit)) = (&g.tick, &g.age_bit_name) {
                let (am, _, _) = self.staged_of(StagedHolds::Age(gi));
                self.out
                    .block(format!("if ({})", Self::has("s.Mask", &mask, age_bit)));
                self.out
                    .line(format!("c.{} = s.{am};", member(&t.age, &p.change)));
                self.out.close("}");
            }
        }
        for (gi, g) in plan.groups.iter().enumerate() {
            for form in &g.forms {
                let rec = if p.packed {
                    &form.packed_record
                } else {
                    &form.record
                };
                let cond = match (&g.full_bit_name, form.role) {
                    (Some(full), FormRole::Full) => format!(
                        "{} && {}",
                        Self::has("s.Mask", &mask, &g.bit_name),
                        Self::has("s.Mask", &mask, full)
                    ),
                    (Some(full), FormRole::Step) => format!(
                        "{} && (s.Mask & {mask}.{full}) == 0",
                        Self::has("s.Mask", &mask, &g.bit_name)
                    ),
                    _ => Self::has("s.Mask", &mask, &g.bit_name),
                };
                let fplan = self.plan_of(rec, None);
                let members: Vec<String> = form
                    .wire
                    .iter()
                    .map(|w| {
                        let (sm, sty, srange) = self.staged_of(StagedHolds::Field {
                            group: gi,
                            field: w.field,
                        });
                        let wire = &fplan.step(&w.name).expect("a form field").wire;
                        format!(
                            "{} = {}",
                            member(&w.name, rec),
                            self.staged_to_codec(
                                wire,
                                &format!("s.{sm}"),
                                &sty,
                                srange,
                                (&form.field, &w.name)
                            )
                        )
                    })
                    .collect();
                let cm = member(&form.field, &p.change);
                self.out.block(format!("if ({cond})"));
                self.statement_object(&format!("c.{cm} = new {rec}"), &members, ";");
                self.out.close("}");
            }
        }
        let _ = cplan;
        self.out.line("return c;");
        self.out.close("}");
    }

    fn print_to_frame(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        let flags = plan.acked_flags.clone();
        self.out.blank();
        self.doc(&format!(
            "<paramref name=\"f\"/> as the generated <see cref=\"{}\"/> (each change through ToChange), which its Encode writes.",
            p.frame
        ));
        self.out.block(format!(
            "public static {} ToFrame({} f)",
            p.frame,
            self.frame_ty()
        ));
        self.out.line(format!(
            "{}[] changes = new {}[f.Changes.Length];",
            p.change, p.change
        ));
        self.out.block("for (int i = 0; i < changes.Length; i++)");
        if p.packed {
            // The conversion's faults are the change's, as the writer's would be.
            self.out.block("try");
            self.out.line("changes[i] = ToChange(f.Changes[i]);");
            self.out.close("}");
            self.out.block("catch (EncodeError e)");
            self.out
                .line("throw e.Within(i).Within(\"changes\").Within(\"body\");");
            self.out.close("}");
        } else {
            self.out.block("try");
            self.out.line("changes[i] = ToChange(f.Changes[i]);");
            self.out.close("}");
            self.out.block("catch (EncodeError e)");
            self.out.line("throw e.Within(i).Within(\"changes\");");
            self.out.close("}");
        }
        self.out.close("}");
        let changes = if p.packed {
            format!(
                "Body = new {} {{ Changes = changes }}",
                p.body.clone().unwrap_or_default()
            )
        } else {
            "Changes = changes".to_string()
        };
        let members = [
            "Tick = f.Tick".to_string(),
            "BaseTick = f.BaseTick".to_string(),
            "LastSeq = f.LastSeq".to_string(),
            "InputBuffer = f.InputBuffer".to_string(),
            format!(
                "Flags = (f.Keyframe ? {flags}.KEYFRAME : 0) | (f.Check.HasValue ? {flags}.CHECK : 0)"
            ),
            "Check = f.Check".to_string(),
            "Removed = f.Removed".to_string(),
            changes,
            "FirstSerial = f.Events.Length > 0 ? f.FirstSerial : (uint?)null".to_string(),
            "Events = f.Events".to_string(),
        ];
        self.statement_object(&format!("return new {}", p.frame), &members, ";");
        self.out.close("}");
    }

    // ---- reading at once ----

    /// Whether the byte-aligned frame's changes can be read at once: every form of a fixed
    /// size, of fields the reader at once knows, in a little-endian file.
    fn at_once_possible(&self, p: &ProfilePlan) -> bool {
        if !self.little || !matches!(p.mask_width, 8 | 16 | 32 | 64) {
            return false;
        }
        let ages_ok = self.plan.groups.iter().all(|g| {
            g.tick
                .as_ref()
                .is_none_or(|t| matches!(t.wire.bits, 8 | 16 | 32 | 64))
        });
        ages_ok
            && self.plan.groups.iter().all(|g| {
                g.forms.iter().all(|f| {
                    f.bytes.is_some()
                        && self.plan_of(&f.record, None).steps.iter().all(|s| {
                            if f.packed {
                                // Read as one little-endian word of the record's size.
                                matches!(s.wire, Wire::Quat { .. })
                                    && matches!(f.bytes, Some(1 | 2 | 4 | 8))
                            } else {
                                match &s.wire {
                                    Wire::Int { big_endian, .. }
                                    | Wire::Float { big_endian, .. } => !big_endian,
                                    Wire::Quant { wire, .. } | Wire::Ranged { int: wire, .. } => {
                                        matches!(
                                            wire.as_ref(),
                                            Wire::Int {
                                                big_endian: false,
                                                ..
                                            }
                                        )
                                    }
                                    Wire::Bool { .. } => true,
                                    Wire::Bits(b) => {
                                        matches!(b.width, 8 | 16 | 32 | 64)
                                            && !self.low.bits_big_endian(b)
                                    }
                                    _ => false,
                                }
                            }
                        })
                })
            })
    }

    /// An expression reading a little-endian unsigned integer of `bytes` bytes at `b[at]`.
    fn le(bytes: u32, at: &str) -> String {
        match bytes {
            1 => format!("b[{at}]"),
            2 => format!("StateRules.U16(b, {at})"),
            4 => format!("StateRules.U32(b, {at})"),
            _ => format!("StateRules.U64(b, {at})"),
        }
    }

    /// The C# type [`Self::le`] reads.
    fn le_type(bytes: u32) -> &'static str {
        match bytes {
            1 => "byte",
            2 => "ushort",
            4 => "uint",
            _ => "ulong",
        }
    }

    /// `p + k`, or `p`.
    fn at(k: u32) -> String {
        if k == 0 {
            "p".into()
        } else {
            format!("p + {k}")
        }
    }

    fn read_at_once(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        let staged = self.staged().to_string();
        let mask = p.mask.clone();
        let flags = plan.acked_flags.clone();
        let events = plan.events.clone();
        let mbytes = u32::from(p.mask_width) / 8;
        let named = p.named();
        let frame_plan = self.plan_of(&p.frame, None);
        let event_min = frame_plan
            .step("events")
            .and_then(|s| match &s.wire {
                Wire::Array(a) => Some(a.elem_min),
                _ => None,
            })
            .unwrap_or(1);
        self.out.blank();
        self.doc(&format!(
            "Reads the common frame at once into <paramref name=\"into\"/>, every index checked against the length before it is read: returns false, having read nothing that counts, for anything <see cref=\"{}\"/>'s reader would refuse or this one does not take (a float past finite, a bit set's reserved bits, a quaternion its rules refuse), which Read then reads and refuses with what and where. Throws Read's error for a keyframe naming a base.",
            p.frame
        ));
        self.out.block(format!(
            "static bool ReadAtOnce(byte[] b, {} into)",
            self.frame_ty()
        ));
        self.out.line("int n = b.Length;");
        self.out.line(
            "// ACK-2's header: kind, tick, base_tick, last_seq, input_buffer, flags, the counts.",
        );
        self.out.block(format!("if (n < 20 || b[0] != {})", p.kind));
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("int flags = b[14];");
        self.out.block(format!(
            "if ((flags & ~(int)({flags}.KEYFRAME | {flags}.CHECK)) != 0)"
        ));
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("int removedCount = StateRules.U16(b, 15);");
        self.out.line("int changedCount = StateRules.U16(b, 17);");
        self.out.line("int p = 19;");
        self.out.line("uint? check = null;");
        self.out
            .block(format!("if ((flags & (int){flags}.CHECK) != 0)"));
        self.out.block("if (n - p < 4)");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("check = StateRules.U32(b, p);");
        self.out.line("p += 4;");
        self.out.close("}");
        let head = 2 + mbytes;
        self.out.block(format!(
            "if (removedCount * 2 > n - p || changedCount * {head} > n - p - removedCount * 2)"
        ));
        self.out.line("return false;");
        self.out.close("}");
        self.out
            .line("ushort[] removed = removedCount == 0 ? NoRemoved : new ushort[removedCount];");
        self.out
            .block("for (int i = 0; i < removedCount; i++, p += 2)");
        self.out.line("removed[i] = StateRules.U16(b, p);");
        self.out.close("}");
        self.out.line(format!(
            "{staged}[] changes = into.Changes.Length == changedCount ? into.Changes : new {staged}[changedCount];"
        ));
        self.out.line("into.Changes = changes;");
        self.out.block("for (int i = 0; i < changedCount; i++)");
        self.out.block(format!("if (n - p < {head})"));
        self.out.line("return false;");
        self.out.close("}");
        let mask_read = Self::le(mbytes, "p + 2");
        self.out.line(format!(
            "ulong mask = {};",
            cast("ulong", Self::le_type(mbytes), &mask_read)
        ));
        // The mask's rules: only named bits; a form or age bit only with its group's.
        let mut requires = Vec::new();
        for (gi, g) in plan.groups.iter().enumerate() {
            let flags_of: u64 = p.full_bits[gi]
                .iter()
                .chain(&p.age_bits[gi])
                .fold(0, |m, b| m | 1 << b);
            if flags_of != 0 {
                requires.push(format!(
                    "((mask & 0x{flags_of:x}) != 0 && (mask & 0x{:x}) == 0)",
                    1u64 << g.bit
                ));
            }
        }
        let mut refuse = vec![format!("(mask & ~0x{named:x}UL) != 0")];
        refuse.extend(requires);
        self.chain("if (", &refuse, "||", ")");
        self.out.open("{");
        self.out.line("return false;");
        self.out.close("}");
        // The change's length from its mask.
        let mut len_terms = vec![head.to_string()];
        for (gi, g) in plan.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&g.tick, p.age_bits[gi]) {
                len_terms.push(format!(
                    "((mask & 0x{:x}) != 0 ? {} : 0)",
                    1u64 << bit,
                    u32::from(t.wire.bits) / 8
                ));
            }
        }
        for (gi, g) in plan.groups.iter().enumerate() {
            let gbit = 1u64 << g.bit;
            match (
                g.form(FormRole::Full),
                g.form(FormRole::Step),
                p.full_bits[gi],
            ) {
                (Some(full), Some(step), Some(fb)) => len_terms.push(format!(
                    "((mask & 0x{gbit:x}) != 0 ? ((mask & 0x{:x}) != 0 ? {} : {}) : 0)",
                    1u64 << fb,
                    full.bytes.unwrap_or(0),
                    step.bytes.unwrap_or(0)
                )),
                _ => {
                    if let Some(f) = g.forms.first() {
                        len_terms.push(format!(
                            "((mask & 0x{gbit:x}) != 0 ? {} : 0)",
                            f.bytes.unwrap_or(0)
                        ));
                    }
                }
            }
        }
        self.chain("int len = ", &len_terms, "+", ";");
        self.out.block("if (n - p < len)");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line(format!("{staged} c = default({staged});"));
        self.out.line("c.Eid = StateRules.U16(b, p);");
        self.out.line(format!("c.Mask = ({mask})mask;"));
        self.out.line(format!("p += {head};"));
        for (gi, g) in plan.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&g.tick, p.age_bits[gi]) {
                let (am, aty, _) = self.staged_of(StagedHolds::Age(gi));
                let n = u32::from(t.wire.bits) / 8;
                self.out
                    .block(format!("if ((mask & 0x{:x}) != 0)", 1u64 << bit));
                self.out.line(format!(
                    "c.{am} = {};",
                    cast(&aty, Self::le_type(n), &Self::le(n, "p"))
                ));
                self.out.line(format!("p += {n};"));
                self.out.close("}");
            }
        }
        for (gi, g) in plan.groups.iter().enumerate() {
            let gbit = 1u64 << g.bit;
            match (
                g.form(FormRole::Full),
                g.form(FormRole::Step),
                p.full_bits[gi],
            ) {
                (Some(full), Some(step), Some(fb)) => {
                    self.out.block(format!(
                        "if ((mask & 0x{gbit:x}) != 0 && (mask & 0x{:x}) != 0)",
                        1u64 << fb
                    ));
                    let full = full.clone();
                    self.read_form_at_once(gi, &full);
                    self.out.close("}");
                    self.out
                        .block(format!("else if ((mask & 0x{gbit:x}) != 0)"));
                    let step = step.clone();
                    self.read_form_at_once(gi, &step);
                    self.out.close("}");
                }
                _ => {
                    if let Some(f) = g.forms.first() {
                        let f = f.clone();
                        self.out.block(format!("if ((mask & 0x{gbit:x}) != 0)"));
                        self.read_form_at_once(gi, &f);
                        self.out.close("}");
                    }
                }
            }
        }
        self.out.line("changes[i] = c;");
        self.out.close("}");
        // The events, by the codec's reader, and nothing after them.
        self.out.block("if (n - p < 1)");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("int eventCount = b[p];");
        self.out.line("p += 1;");
        self.out.line(format!("{events}[] events = NoEvents;"));
        self.out.line("uint? firstSerial = null;");
        self.out.block("if (eventCount > 0)");
        self.out.block(format!(
            "if (n - p < 4 || (eventCount - 1) * {event_min} > n - p - 4)"
        ));
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("firstSerial = StateRules.U32(b, p);");
        self.out.line(format!("events = new {events}[eventCount];"));
        self.out.line("Reader r = new Reader(b, p + 4);");
        self.out.block("try");
        self.out.block("for (int i = 0; i < eventCount; i++)");
        self.out.line(format!("events[i] = {events}.Read(ref r);"));
        self.out.close("}");
        self.out.close("}");
        self.out.block("catch (DecodeError)");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line("p = r.Offset;");
        self.out.close("}");
        self.out.block("if (p != n)");
        self.out.line("return false;");
        self.out.close("}");
        self.out.line(format!(
            "StateRules.KeepHeader(into, StateRules.U32(b, 1), StateRules.U32(b, 5), StateRules.U32(b, 9), b[13], (flags & (int){flags}.KEYFRAME) != 0, check, removed, firstSerial, events);"
        ));
        self.out.line("return true;");
        self.out.close("}");
        self.out.blank();
        self.out
            .line("static readonly ushort[] NoRemoved = new ushort[0];");
        self.out.line(format!(
            "static readonly {events}[] NoEvents = new {events}[0];"
        ));
    }

    /// The lines reading form `form` of group `g` at `b[p]` into the staged `c`, returning false
    /// for a value the codec's reader refuses.
    fn read_form_at_once(&mut self, g: usize, form: &FormPlan) {
        let fplan = self.plan_of(&form.record, None);
        let mut checks = Vec::new();
        if form.packed {
            // A record of quaternions, padded: its bits as one integer, the padding zero.
            let bytes = form.bytes.unwrap_or(0);
            self.out.line(format!(
                "ulong bits = {};",
                cast(
                    "ulong",
                    Self::le_type(bytes.next_power_of_two()),
                    &Self::le(bytes.next_power_of_two(), "p")
                )
            ));
            let mut at = 0u32;
            let mut lines = Vec::new();
            for (w, s) in form.wire.iter().zip(&fplan.steps) {
                let Wire::Quat { bits } = s.wire else {
                    continue;
                };
                let width = 2 + 3 * u32::from(bits);
                let (sm, sty, _) = self.staged_of(StagedHolds::Field {
                    group: g,
                    field: w.field,
                });
                let v = if at == 0 {
                    "bits".to_string()
                } else {
                    format!("(bits >> {at})")
                };
                let v = format!("{v} & 0x{:x}UL", (1u64 << width) - 1);
                lines.push(format!("c.{sm} = ({sty})({v});"));
                checks.push(format!("!StateRules.QuatValid(c.{sm}, {bits})"));
                at += width;
            }
            if bytes.next_power_of_two() != bytes || at < bytes * 8 {
                let top = bytes * 8;
                if top < 64 {
                    checks.insert(0, format!("bits >> {at} != 0"));
                } else {
                    checks.insert(0, format!("(bits >> {at}) != 0"));
                }
            }
            for l in lines {
                self.out.line(l);
            }
        } else {
            let mut at = 0u32;
            for (w, s) in form.wire.iter().zip(&fplan.steps) {
                let (sm, sty, _) = self.staged_of(StagedHolds::Field {
                    group: g,
                    field: w.field,
                });
                let here = Self::at(at);
                match &s.wire {
                    Wire::Int { signed, bits, .. } | Wire::Quant { signed, bits, .. } => {
                        let n = u32::from(*bits) / 8;
                        let raw = Self::le(n, &here);
                        let ty = int_type(*signed, *bits);
                        let v = if *signed {
                            format!("unchecked(({ty}){})", raw)
                        } else {
                            raw
                        };
                        let from = if *signed { ty } else { Self::le_type(n) };
                        self.out.line(format!("c.{sm} = {};", cast(&sty, from, &v)));
                        at += n;
                    }
                    // WIRE-29: a value outside the range is left to the whole reader, which
                    // says where it is.
                    Wire::Ranged { int, min, max, .. } => {
                        let Wire::Int { signed, bits, .. } = int.as_ref() else {
                            continue;
                        };
                        let n = u32::from(*bits) / 8;
                        let raw = Self::le(n, &here);
                        let ty = int_type(*signed, *bits);
                        let v = if *signed {
                            format!("unchecked(({ty}){})", raw)
                        } else {
                            raw
                        };
                        let from = if *signed { ty } else { Self::le_type(n) };
                        self.out.line(format!("c.{sm} = {};", cast(&sty, from, &v)));
                        let (lo, hi) = int_range(*signed, *bits);
                        if i128::from(*min) > lo {
                            checks.push(format!("c.{sm} < {min}"));
                        }
                        if i128::from(*max) < hi {
                            checks.push(format!("c.{sm} > {max}"));
                        }
                        at += n;
                    }
                    Wire::Float { bits: 32, .. } => {
                        self.out
                            .line(format!("c.{sm} = unchecked((int){});", Self::le(4, &here)));
                        checks.push(format!("!StateRules.Finite32(c.{sm})"));
                        at += 4;
                    }
                    Wire::Float { .. } => {
                        self.out
                            .line(format!("c.{sm} = unchecked((long){});", Self::le(8, &here)));
                        checks.push(format!("!StateRules.Finite64(c.{sm})"));
                        at += 8;
                    }
                    Wire::Bool { .. } => {
                        self.out.line(format!("c.{sm} = b[{here}];"));
                        checks.push(format!("c.{sm} > 1"));
                        at += 1;
                    }
                    Wire::Bits(bs) => {
                        let n = u32::from(bs.width) / 8;
                        self.out.line(format!(
                            "c.{sm} = {};",
                            cast(&sty, Self::le_type(n), &Self::le(n, &here))
                        ));
                        let bp = self.low.bits_plan(bs);
                        if bp.reserved != 0 {
                            checks.push(format!("((ulong)c.{sm} & 0x{:x}UL) != 0", bp.reserved));
                        }
                        for nb in &bp.named {
                            if let Some((_, req)) = nb.requires {
                                checks.push(format!(
                                    "((ulong)c.{sm} & 0x{:x}UL) != 0 && ((ulong)c.{sm} & 0x{:x}UL) == 0",
                                    1u64 << nb.index,
                                    1u64 << req
                                ));
                            }
                        }
                        at += n;
                    }
                    _ => {}
                }
            }
        }
        if !checks.is_empty() {
            self.chain("if (", &checks, "||", ")");
            self.out.open("{");
            self.out.line("return false;");
            self.out.close("}");
        }
        self.out.line(format!("p += {};", form.bytes.unwrap_or(0)));
    }

    // ---- the whole reader ----

    /// The reader of the whole frame: the codec's reads in the codec's order, with the same
    /// `try`/`catch` naming each field, the changes read into staged changes instead of the
    /// codec's objects.
    fn read_whole(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        let staged = self.staged().to_string();
        let flags = plan.acked_flags.clone();
        let frame_plan = self.plan_of(&p.frame, None);
        self.out.blank();
        if p.packed {
            self.doc(&format!(
                "Reads a whole frame into <paramref name=\"into\"/> as <see cref=\"{}\"/>'s reader reads it, in its order, with the same refusals at the same offsets and paths, each change staged as it is read. A code past what the byte-aligned field holds (LANGUAGE.md: \"a packed decoder refuses a code past it\") is <c>over_width</c> at the packed body's first byte, told once the rest of the frame has read (the codec's refusals first, then a keyframe naming a base, then the first such code).",
                p.frame
            ));
        } else {
            self.doc(&format!(
                "Reads a whole frame into <paramref name=\"into\"/> as <see cref=\"{}\"/>'s reader reads it, in its order, with the same refusals at the same offsets and paths, each change staged as it is read; then a keyframe naming a base is refused.",
                p.frame
            ));
        }
        self.out.block(format!(
            "static void Read(byte[] bytes, {} into)",
            self.frame_ty()
        ));
        self.reads.start_method();
        self.out.line("Reader r = new Reader(bytes);");
        if p.packed {
            self.out.line("DecodeError past = null;");
        }
        // The locals of every header field, read inside the `try`, used after it.
        let mut locals = Vec::new();
        for s in &frame_plan.steps {
            if matches!(s.role, Role::Constant(_)) {
                continue;
            }
            let l = local(&s.field.name);
            let ty = if s.field.name == "changes" || s.field.name == "body" {
                format!("{staged}[]")
            } else if s.presence.is_some() {
                match &s.wire {
                    Wire::Array(_) => cs_type(&s.wire),
                    _ => format!("{}?", cs_type(&s.wire)),
                }
            } else {
                cs_type(&s.wire)
            };
            let l = if s.field.name == "body" {
                "changes".to_string()
            } else {
                l
            };
            locals.push((ty, l));
        }
        for (ty, l) in &locals {
            self.out.line(format!("{ty} {l};"));
        }
        self.out.line(format!(
            "string field = {};",
            quote(&frame_plan.steps[0].field.name)
        ));
        self.out.block("try");
        for (i, s) in frame_plan.steps.iter().enumerate() {
            if i > 0 {
                self.out.line(format!("field = {};", quote(&s.field.name)));
            }
            let l = local(&s.field.name);
            match (&s.role, s.field.name.as_str()) {
                (Role::Constant(c), _) => {
                    let read = self.reads.scalar(&s.wire, false, "r");
                    self.out
                        .line(format!("r.ExpectUint(r.Offset, {read}, {}UL);", c));
                }
                (_, "changes") => self.read_change_list(s, p, false, "r", "changes"),
                (_, "body") => self.read_body(s, p),
                _ => {
                    let count_local = match &s.wire {
                        Wire::Array(a) => match a.count {
                            CountFrom::Field(c) => Some(local(c)),
                            CountFrom::Prefix(_) => None,
                        },
                        _ => None,
                    };
                    match self.reads.presence(frame_plan, s) {
                        Some(cond) => {
                            self.out.line(format!("{l} = null;"));
                            self.out.block(format!("if ({cond})"));
                            for line in self.reads.read_into(
                                &s.wire,
                                false,
                                "r",
                                &l,
                                count_local.as_deref(),
                            ) {
                                self.out.line(line);
                            }
                            self.out.close("}");
                        }
                        None => {
                            for line in self.reads.read_into(
                                &s.wire,
                                false,
                                "r",
                                &l,
                                count_local.as_deref(),
                            ) {
                                self.out.line(line);
                            }
                        }
                    }
                }
            }
        }
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(field);");
        self.out.close("}");
        self.out.line("r.Finish();");
        let get = |n: &str| local(n);
        self.out.line(format!(
            "StateRules.KeepHeader(into, {}, {}, {}, {}, ({} & {flags}.KEYFRAME) != 0, {}, {}, {}, {});",
            get("tick"),
            get("base_tick"),
            get("last_seq"),
            get("input_buffer"),
            get("flags"),
            get("check"),
            get("removed"),
            get("first_serial"),
            get("events")
        ));
        self.out.line("into.Changes = changes;");
        if p.packed {
            self.out.block("if (past != null)");
            self.out.line("throw past;");
            self.out.close("}");
        }
        self.out.close("}");
        self.read_change(p);
    }

    /// The list of changes of step `s` (counted by an earlier local), read into a staged array
    /// reused from `into` when its length is the count.
    fn read_change_list(
        &mut self,
        s: &Step<'_>,
        p: &ProfilePlan,
        packed: bool,
        src: &str,
        target: &str,
    ) {
        let staged = self.staged().to_string();
        let Wire::Array(a) = &s.wire else {
            return;
        };
        let d = self.reads.next_list();
        let count = match &a.count {
            CountFrom::Field(c) => local(c),
            CountFrom::Prefix(t) => self.reads.scalar(t, packed, src),
        };
        self.out
            .line(format!("int n{d} = {src}.Count({count}, {});", a.elem_min));
        self.out.line(format!(
            "{target} = into.Changes.Length == n{d} ? into.Changes : new {staged}[n{d}];"
        ));
        let key = match (a.ascending, &a.elem) {
            (Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                self.out.line(format!(
                    "Ascending prev{d} = {};",
                    self.reads.ascending(record, key)
                ));
                true
            }
            _ => false,
        };
        self.out
            .block(format!("for (int i{d} = 0; i{d} < n{d}; i{d}++)"));
        self.out.block("try");
        if p.packed {
            self.out.line(format!(
                "ReadChange(ref {src}, ref prev{d}, ref {target}[i{d}], i{d}, body, ref past);"
            ));
        } else if key {
            self.out.line(format!(
                "ReadChange(ref {src}, ref prev{d}, ref {target}[i{d}]);"
            ));
        } else {
            self.out
                .line(format!("ReadChange(ref {src}, ref {target}[i{d}]);"));
        }
        self.out.close("}");
        self.out.block(format!("catch (DecodeError e{d})"));
        self.out.line(format!("throw e{d}.Within(i{d});"));
        self.out.close("}");
        self.out.close("}");
    }

    /// The packed body: its bits, its count and changes, its padding.
    fn read_body(&mut self, s: &Step<'_>, p: &ProfilePlan) {
        let Wire::Record { record, .. } = &s.wire else {
            return;
        };
        let bplan = self.plan_of(&record.name, None);
        self.out.line("long body = r.Offset;");
        self.out.line("BitReader b = r.BeginPacked();");
        self.out.line(format!(
            "string inBody = {};",
            quote(&bplan.steps[0].field.name)
        ));
        self.out.block("try");
        for (i, bs) in bplan.steps.iter().enumerate() {
            if i > 0 {
                self.out
                    .line(format!("inBody = {};", quote(&bs.field.name)));
            }
            match &bs.wire {
                Wire::Array(_) => self.read_change_list(bs, p, true, "b", "changes"),
                other => {
                    let ty = cs_type(other);
                    let l = local(&bs.field.name);
                    self.out.line(format!(
                        "{ty} {l} = {};",
                        self.reads.scalar(other, true, "b")
                    ));
                }
            }
        }
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(inBody);");
        self.out.close("}");
        self.out.line("r.EndPacked(ref b);");
    }

    /// `ReadChange`: one change of the profile as the codec's reader reads it, staged.
    fn read_change(&mut self, p: &ProfilePlan) {
        let plan = self.plan;
        let staged = self.staged().to_string();
        let packed = p.packed;
        let src = if packed { "b" } else { "r" };
        let reader = if packed { "BitReader" } else { "Reader" };
        let cplan = self.plan_of(&p.change, if packed { Some("eid") } else { None });
        let keyed = cplan.steps.iter().any(|s| s.role == Role::Key);
        self.out.blank();
        if packed {
            self.doc(&format!(
                "Reads change <paramref name=\"i\"/> of a body that starts at byte <paramref name=\"body\"/> into <paramref name=\"c\"/>, as <see cref=\"{}\"/>'s reader reads it; the first code past its byte-aligned field is kept in <paramref name=\"past\"/>.",
                p.change
            ));
            self.out.block(format!(
                "static void ReadChange(ref BitReader b, ref Ascending prev, ref {staged} c, int i, long body, ref DecodeError past)"
            ));
        } else if keyed {
            self.doc(&format!(
                "Reads a change into <paramref name=\"c\"/>, as <see cref=\"{}\"/>'s reader reads it.",
                p.change
            ));
            self.out.block(format!(
                "static void ReadChange(ref {reader} {src}, ref Ascending prev, ref {staged} c)"
            ));
        } else {
            self.doc(&format!(
                "Reads a change into <paramref name=\"c\"/>, as <see cref=\"{}\"/>'s reader reads it.",
                p.change
            ));
            self.out.block(format!(
                "static void ReadChange(ref {reader} {src}, ref {staged} c)"
            ));
        }
        self.reads.start_method();
        self.out.line(format!("c = default({staged});"));
        self.out.line(format!(
            "string field = {};",
            quote(&cplan.steps[0].field.name)
        ));
        self.out.block("try");
        let at = if packed { "BitOffset" } else { "Offset" };
        for (i, s) in cplan.steps.iter().enumerate() {
            if i > 0 {
                self.out.line(format!("field = {};", quote(&s.field.name)));
            }
            let l = local(&s.field.name);
            let name = s.field.name.as_str();
            if name == "eid" {
                let ty = cs_type(&s.wire);
                if s.role == Role::Key {
                    let raw = self.reads.delta(&s.wire, packed, src);
                    self.out.line(format!(
                        "{ty} {l} = {};",
                        cast(
                            &ty,
                            "ulong",
                            &format!("prev.Next(ref {src}, {src}.{at}, {raw})")
                        )
                    ));
                } else {
                    self.out.line(format!(
                        "{ty} {l} = {};",
                        self.reads.scalar(&s.wire, packed, src)
                    ));
                }
                self.staged_int("Eid", "ushort", (0, 65535), &s.wire, &l, &["eid"], p);
                continue;
            }
            if name == "mask" {
                let ty = cs_type(&s.wire);
                self.out.line(format!(
                    "{ty} {l} = {};",
                    self.reads.scalar(&s.wire, packed, src)
                ));
                if packed {
                    self.out.line(format!("c.Mask = UnpackMask({l});"));
                } else {
                    self.out.line(format!("c.Mask = {l};"));
                }
                continue;
            }
            // An age.
            if let Some(gi) = plan
                .groups
                .iter()
                .position(|g| g.tick.as_ref().is_some_and(|t| t.age == name))
            {
                let t = plan.groups[gi].tick.as_ref().expect("a tick");
                let cond = self
                    .reads
                    .presence(cplan, s)
                    .unwrap_or_else(|| "true".into());
                let (am, aty, _) = self.staged_of(StagedHolds::Age(gi));
                let ty = cs_type(&s.wire);
                self.out.block(format!("if ({cond})"));
                self.out.line(format!(
                    "{ty} {l} = {};",
                    self.reads.scalar(&s.wire, packed, src)
                ));
                let range = (t.wire.min(), t.wire.max());
                self.staged_int(&am, &aty, range, &s.wire, &l, &[name], p);
                self.out.close("}");
                continue;
            }
            // A group's form.
            let Some((gi, form)) = plan.groups.iter().enumerate().find_map(|(gi, g)| {
                g.forms
                    .iter()
                    .find(|f| f.field == name)
                    .map(|f| (gi, f.clone()))
            }) else {
                continue;
            };
            let cond = self
                .reads
                .presence(cplan, s)
                .unwrap_or_else(|| "true".into());
            self.out.block(format!("if ({cond})"));
            self.read_form(gi, &form, &s.wire, p);
            self.out.close("}");
        }
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(field);");
        self.out.close("}");
        self.out.close("}");
    }

    /// Stores integer local `l` (read by `wire`) in staged member `m` (of type `ty`, holding
    /// `range`, the byte-aligned field's); a packed code past it is kept as `past`, at `path`
    /// within the change.
    #[allow(clippy::too_many_arguments)]
    fn staged_int(
        &mut self,
        m: &str,
        ty: &str,
        range: (i128, i128),
        wire: &Wire<'_>,
        l: &str,
        path: &[&str],
        p: &ProfilePlan,
    ) {
        let code = wire_range(wire).unwrap_or(range);
        let from = wire_int_type(wire);
        if p.packed && !within(code, range) {
            let mut tests = Vec::new();
            if code.0 < range.0 {
                tests.push(format!("{l} < {}", range.0));
            }
            if code.1 > range.1 {
                tests.push(format!("{l} > {}", range.1));
            }
            self.chain("if (", &tests, "||", ")");
            self.out.open("{");
            self.out.block("if (past == null)");
            let mut e = "StateRules.Past(body)".to_string();
            for seg in path.iter().rev() {
                e.push_str(&format!(".Within({})", quote(seg)));
            }
            e.push_str(".Within(i).Within(\"changes\").Within(\"body\")");
            self.out.line(format!("past = {e};"));
            self.out.close("}");
            self.out.close("}");
            self.out.block("else");
            self.out.line(format!("c.{m} = {};", cast(ty, &from, l)));
            self.out.close("}");
        } else {
            self.out.line(format!("c.{m} = {};", cast(ty, &from, l)));
        }
    }

    /// One form's record read into the staged change (its `try`/`catch` naming its fields, as
    /// the codec's record reader's).
    fn read_form(&mut self, g: usize, form: &FormPlan, wire: &Wire<'_>, p: &ProfilePlan) {
        let packed = p.packed;
        let rec = if packed {
            &form.packed_record
        } else {
            &form.record
        };
        let fplan = self.plan_of(rec, None);
        let padded = matches!(wire, Wire::Record { padded: true, .. });
        let (src, bits_packed) = if padded {
            self.out.line("BitReader pb = r.BeginPacked();");
            ("pb", true)
        } else if packed {
            ("b", true)
        } else {
            ("r", false)
        };
        let inner = format!("{}Field", local(&form.field).trim_end_matches('_'));
        let single = fplan.steps.len() == 1;
        if !single {
            self.out.line(format!(
                "string {inner} = {};",
                quote(&fplan.steps[0].field.name)
            ));
        }
        self.out.block("try");
        for (i, s) in fplan.steps.iter().enumerate() {
            if i > 0 && !single {
                self.out
                    .line(format!("{inner} = {};", quote(&s.field.name)));
            }
            let Some(w) = form.wire.iter().find(|w| w.name == s.field.name) else {
                continue;
            };
            let (sm, sty, srange) = self.staged_of(StagedHolds::Field {
                group: g,
                field: w.field,
            });
            let l = format!("{}_", local(&s.field.name).trim_end_matches('_'));
            match &s.wire {
                Wire::Float { bits: 32, .. } => {
                    let read = self.reads.scalar(&s.wire, bits_packed, src);
                    self.out
                        .line(format!("c.{sm} = unchecked((int)Bits.FromSingle({read}));"));
                }
                Wire::Float { .. } => {
                    let read = self.reads.scalar(&s.wire, bits_packed, src);
                    self.out
                        .line(format!("c.{sm} = BitConverter.DoubleToInt64Bits({read});"));
                }
                Wire::Bool { .. } => {
                    let read = self.reads.scalar(&s.wire, bits_packed, src);
                    self.out.line(format!("c.{sm} = ({sty})({read} ? 1 : 0);"));
                }
                Wire::Quat { bits } => {
                    let read = self.reads.scalar(&s.wire, bits_packed, src);
                    self.out.line(format!(
                        "c.{sm} = ({sty})StateRules.QuatBits({read}, {bits});"
                    ));
                }
                Wire::Bits(_) => {
                    let read = self.reads.scalar(&s.wire, bits_packed, src);
                    self.out.line(format!("c.{sm} = ({sty}){read};"));
                }
                Wire::Quant { wire: int, .. } => {
                    let ty = wire_int_type(int);
                    let read = self.reads.scalar(int, bits_packed, src);
                    self.out.line(format!("{ty} {l} = {read};"));
                    let range = w.range.unwrap_or(srange);
                    self.staged_int(&sm, &sty, range, int, &l, &[&form.field, &w.name], p);
                }
                other => {
                    let ty = wire_int_type(other);
                    let read = self.reads.scalar(other, bits_packed, src);
                    self.out.line(format!("{ty} {l} = {read};"));
                    let range = w.range.unwrap_or(srange);
                    self.staged_int(&sm, &sty, range, other, &l, &[&form.field, &w.name], p);
                }
            }
        }
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        if single {
            self.out.line(format!(
                "throw e.Within({});",
                quote(&fplan.steps[0].field.name)
            ));
        } else {
            self.out.line(format!("throw e.Within({inner});"));
        }
        self.out.close("}");
        if padded {
            self.out.line("r.EndPacked(ref pb);");
        }
    }

    // ---- the groups as datagram v2 components ----

    /// `{State}Component`: each group of the state as a datagram v2 component (DG-6), laid out as
    /// the Rust machines' `{State}Component` (spec/src/gen/rust/machines.rs) in C#'s shape of a
    /// union (the codec's `Event`): a kind enum, a class holding the one group its kind names,
    /// made only by `Of`. `frame` is the byte-aligned frame, whose writer the data follows.
    fn components(&mut self, frame: &str) {
        let plan = self.plan;
        let name = format!("{}Component", plan.name);
        let kind = format!("{name}Kind");
        // The full form of a group of two, its only form otherwise: what a whole entity sends.
        let groups: Vec<(String, &FormPlan, &GroupPlan)> = plan
            .groups
            .iter()
            .filter_map(|g| {
                let form = g.whole_form()?;
                Some((component_member(&g.name, &name), form, g))
            })
            .collect();
        let group_doc = |g: &GroupPlan| {
            let text = g.docs.join(" ");
            if text.trim().is_empty() {
                format!("Type {}.", g.bit)
            } else {
                xml(text.trim())
            }
        };
        self.out.blank();
        self.out.line(format!(
            "// ---- state {}: its groups as datagram v2 components",
            plan.name
        ));
        self.out.blank();
        self.doc(&format!(
            "The groups of state <c>{}</c> as components, each its component type: the group's index (its change-mask bit).",
            plan.name
        ));
        self.out.block(format!("public enum {kind} : byte"));
        for (i, (m, _, g)) in groups.iter().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            let text = group_doc(g);
            self.doc(&text);
            self.out.line(format!("{m} = {},", g.bit));
        }
        self.out.close("}");

        self.out.blank();
        self.doc(&format!(
            "One group of an entity of state <c>{}</c> as a component (DG-6): its type is the group's index (its change-mask bit), its data the group's full form as <see cref=\"{frame}\"/> writes it.",
            plan.name
        ));
        self.out.block(format!("public sealed class {name}"));
        self.out.line("/// <summary>Which group this is.</summary>");
        self.out
            .line(format!("public {kind} Kind {{ get; private set; }}"));
        self.out.blank();
        self.out
            .line("// Made only by Of, so that a value always holds the group its Kind names.");
        self.out.line(format!("{name}()"));
        self.out.open("{");
        self.out.close("}");
        for (m, form, _) in &groups {
            self.out.blank();
            self.doc(&format!(
                "The <see cref=\"{}\"/> when <see cref=\"Kind\"/> is <c>{m}</c>, else null.",
                form.record
            ));
            self.out.line(format!(
                "public {} {m} {{ get; private set; }}",
                form.record
            ));
        }
        for (m, form, g) in &groups {
            self.out.blank();
            self.doc(&format!(
                "The group <c>{}</c> as a component: <paramref name=\"value\"/>.",
                g.name
            ));
            self.out
                .block(format!("public static {name} Of({} value)", form.record));
            self.out.block("if (value == null)");
            self.out.line("throw new ArgumentNullException(\"value\");");
            self.out.close("}");
            self.out.line(format!(
                "return new {name} {{ Kind = {kind}.{m}, {m} = value }};"
            ));
            self.out.close("}");
        }

        self.out.blank();
        self.out
            .line("/// <summary>The component's type: its group's index.</summary>");
        self.out
            .line("public byte ComponentType { get { return (byte)Kind; } }");

        // Room for the largest full form of a fixed size; a larger one grows the writer.
        let room = groups
            .iter()
            .filter_map(|(_, form, _)| form.bytes)
            .max()
            .unwrap_or(16);
        self.out.blank();
        self.out
            .line("/// <summary>The component change that carries this value.</summary>");
        self.out.block("public ComponentChange ToComponent()");
        self.out.line(format!("Writer w = new Writer({room});"));
        self.out.block("switch (Kind)");
        for (m, form, _) in &groups {
            self.out.line(format!("case {kind}.{m}:"));
            self.out.indent += 1;
            if form.packed {
                self.out.line(format!("{m}.WritePadded(w);"));
            } else {
                self.out.line(format!("{m}.Write(w);"));
            }
            self.out.line("break;");
            self.out.indent -= 1;
        }
        self.out.close("}");
        self.out
            .line("return new ComponentChange { Type = ComponentType, Data = w.ToArray() };");
        self.out.close("}");

        self.out.blank();
        self.doc("The value <paramref name=\"component\"/> carries, or null for a removal and for a type the state does not declare (DG-6: a reader MAY skip a type it does not know). Bytes that do not decode to exactly one value are a <see cref=\"DecodeError\"/> at their offset in the component, under the group's name.");
        self.out.block(format!(
            "public static {name} FromComponent(ComponentChange component)"
        ));
        self.out.block("if (component == null)");
        self.out
            .line("throw new ArgumentNullException(\"component\");");
        self.out.close("}");
        self.out.block("if (component.Data == null)");
        self.out.line("return null;");
        self.out.close("}");
        self.out.line("Reader r = new Reader(component.Data);");
        self.out.block("switch (component.Type)");
        for (_, form, g) in &groups {
            let read = if form.packed { "ReadPadded" } else { "Read" };
            self.out.line(format!("case {}:", g.bit));
            self.out.indent += 1;
            self.out.block("try");
            self.out
                .line(format!("{0} value = {0}.{read}(ref r);", form.record));
            self.out.line("r.Finish();");
            self.out.line("return Of(value);");
            self.out.close("}");
            self.out.block("catch (DecodeError e)");
            self.out
                .line(format!("throw e.Within({});", quote(&g.name)));
            self.out.close("}");
            self.out.indent -= 1;
        }
        self.out.line("default:");
        self.out.indent += 1;
        self.out.line("return null;");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");
        self.out.close("}");
    }
}

/// A group's member in `{State}Component`: its name in PascalCase, with `_` after it when that is
/// the class's, one of its members' or a runtime type's.
fn component_member(group: &str, class: &str) -> String {
    let m = member(group, class);
    if [
        "ComponentType",
        "ToComponent",
        "FromComponent",
        "ComponentChange",
    ]
    .contains(&m.as_str())
    {
        format!("{m}_")
    } else {
        m
    }
}
