//! The Wireshark backend: one Lua dissector, `ackwire.lua`, for `tshark -X lua_script:` or
//! Wireshark's plugin folder.
//!
//! It shows a frame as `ackwire explain` does: one tree item per field read, in wire order,
//! labelled with the field's name and the value as explain prints it (bit names, quantized values
//! with their wire integer, an ascending key with its delta, a byte string's length and bytes, a
//! packed body's padding), each with its explain path (`changes[0].mask`) and text as the hidden
//! fields `ackwire.path` and `ackwire.value`; values are also typed fields per record
//! (`ackwire.acked.tick`, `ackwire.change.mask`, a bit set's bits as booleans
//! `ackwire.change_mask.pose`) for display filters. A frame the canonical decoding rule refuses
//! (WIRE-21: a decoder accepts exactly the bytes its encoder can produce) is shown as malformed:
//! expert info `ackwire.<kind>` of the shared taxonomy (conformance/PROTOCOL.md), with the offset
//! and field path the codecs report.
//!
//! The frame is chosen by its leading constant, its kind or version byte (WIRE-9: no two frames of
//! a protocol open with the same constant; two layout files may reuse one, and then the first frame
//! that decodes wins), or forced by the preference `ackwire.frame`. The dissector is registered on
//! the UDP port of the preference `ackwire.udp_port` and as a UDP heuristic that claims a datagram
//! only when it decodes canonically as one of the frames.
//!
//! Issue 19's bit fields: a `quat(B)` is one row ("largest z, rest [12, -4, 200]"), the
//! quaternion it stands for appended to the item's text and its dropped component and each
//! component sent (with its value) as items under it; a bucket code's item says which bucket
//! it was in and how many bits it took; a non-canonical quaternion is expert info
//! `ackwire.non_canonical` like every other kind, at the field's first bit.
//!
//! Like the other backends it is a printer over the [lowering](crate::lower): every record
//! plan becomes one Lua function that walks its steps in the canonical order, making each
//! step's checks (roles, wire forms, presence tests, counts against the bytes left) through
//! the reader of `wireshark_runtime.lua`, written into the dissector as it is.

use super::{snake_case, source_names, Code};
use crate::lower::{
    ArrayPlan, Ascending, BucketPlan, CountFrom, Lowering, Operand, RecordPlan, Role, Step, Test,
    Wire,
};
use crate::model::{Docs, Item, Record, Spec, Union};

/// The name of the generated dissector.
pub const DISSECTOR: &str = "ackwire.lua";

/// The reader and the helpers every generated dissector shares, written in as they are.
const RUNTIME: &str = include_str!("wireshark_runtime.lua");

/// The error kinds of the shared taxonomy (conformance/PROTOCOL.md), each with when it
/// happens: one expert info each.
const KINDS: &[(&str, &str)] = &[
    ("truncated", "the input ends inside a field"),
    (
        "bad_constant",
        "a constant field (kind, version) holds another value",
    ),
    (
        "reserved_bit",
        "a reserved bit of a bit set, or a padding bit of a packed body, is set",
    ),
    (
        "non_canonical_varint",
        "a varint is longer than its value needs",
    ),
    ("over_width", "a value does not fit its field's width"),
    (
        "count_too_large",
        "a count is larger than the remaining bytes can hold",
    ),
    ("trailing_bytes", "bytes remain after the frame"),
    (
        "invalid_condition",
        "a bit is set without the bit it requires",
    ),
    ("unknown_tag", "a union's tag names no variant"),
    ("non_finite", "a float is NaN or infinite"),
    ("not_ascending", "an ascending list has a difference of 0"),
    (
        "non_canonical",
        "a value has another encoding its encoder writes instead (a smallest-three \
         quaternion whose dropped component is not the largest)",
    ),
];

/// Lua's reserved words and the names the generated functions use for themselves: a field
/// of one of these names gets a local with a `_` after it.
const TAKEN: &[&str] = &[
    "and",
    "break",
    "do",
    "else",
    "elseif",
    "end",
    "false",
    "for",
    "function",
    "goto",
    "if",
    "in",
    "local",
    "nil",
    "not",
    "or",
    "repeat",
    "return",
    "then",
    "true",
    "until",
    "while",
    "rd",
    "tree",
    "path",
    "asc",
    "p",
    "at",
    "f",
    "bits",
    "dissect",
    "sub",
    "item",
    "text",
    "tag",
    "label",
    "list",
    "n",
    "i",
    "e",
    "has",
    "join",
    "index",
    "int_text",
    "wide",
    "nonzero",
    "greater",
    "scaled",
    "quant_text",
    "float_text",
    "type",
    "tostring",
    "math",
    "string",
];

/// The generated files, as (path relative to the output folder, contents): `ackwire.lua`.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    let low = Lowering::new(spec);
    let mut g = Gen {
        low: &low,
        out: Code::default(),
    };
    g.header(spec);
    g.fields(spec);
    g.out.blank();
    for line in RUNTIME.lines() {
        g.out.line(line);
    }
    g.out.blank();
    g.bit_sets(spec);
    g.out.blank();
    g.out.line("-- ---------------------------------------------------------------------------------------");
    g.out.line(
        "-- One function per record (and per record read within an ascending list) and per union,",
    );
    g.out.line(
        "-- reading its fields in wire order: the order of the checks is the lowering's, the same",
    );
    g.out.line(
        "-- as the codecs', so the same bytes fail with the same kind, offset and field path.",
    );
    g.out.line("-- ---------------------------------------------------------------------------------------");
    g.out.blank();
    g.out.line("local dissect = {}");
    for plan in low.plans() {
        g.out.blank();
        g.record(plan);
    }
    for item in spec.files.iter().flat_map(|f| &f.items) {
        if let Item::Union(u) = item {
            g.out.blank();
            g.union(u);
        }
    }
    g.out.blank();
    g.frames();
    g.out.blank();
    g.dissector();
    vec![(DISSECTOR.to_string(), g.out.finish())]
}

struct Gen<'a> {
    low: &'a Lowering<'a>,
    out: Code,
}

/// A Lua string literal.
fn lua_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A table constructor's key: `name`, or `["name"]` when the name is a Lua reserved word.
fn entry(name: &str) -> String {
    if TAKEN[..22].contains(&name) {
        format!("[{}]", lua_str(name))
    } else {
        name.to_string()
    }
}

/// A ProtoField's constructor call: the integer ones take a base, value names and a mask,
/// floats and doubles value names only, booleans a display and a mask, bytes a display.
fn proto_field(ctor: &str, base: &str, abbrev: &str, name: &str, names: &str, doc: &str) -> String {
    let (abbrev, name, doc) = (lua_str(abbrev), lua_str(name), lua_str(doc));
    match ctor {
        "float" | "double" => format!("ProtoField.{ctor}({abbrev}, {name}, nil, {doc})"),
        "bytes" => format!("ProtoField.bytes({abbrev}, {name}, {base}, {doc})"),
        _ => format!("ProtoField.{ctor}({abbrev}, {name}, {base}, {names}, nil, {doc})"),
    }
}

/// `t.name`, or `t["name"]` when the name is a Lua reserved word.
fn key(table: &str, name: &str) -> String {
    if TAKEN[..22].contains(&name) {
        format!("{table}[{}]", lua_str(name))
    } else {
        format!("{table}.{name}")
    }
}

/// The local a field's value is read into.
fn local(name: &str) -> String {
    if TAKEN.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// A comment line carrying a doc line, with no space after the marker when the line is empty.
fn comment(marker: &str, line: &str) -> String {
    if line.is_empty() {
        marker.to_string()
    } else {
        format!("{marker} {line}")
    }
}

/// The first line of a declaration's doc comment, for a field's description.
fn blurb(docs: &Docs) -> String {
    docs.doc.first().cloned().unwrap_or_default()
}

/// The ProtoField constructor of a value carried as `wire`, its display base, and whether
/// Wireshark takes its value as a UInt64 or Int64 (`Some(signed)`).
fn field_kind(wire: &Wire<'_>) -> (String, &'static str, Option<bool>) {
    let int = |signed: bool, bits: u8| {
        let width = match bits {
            0..=8 => 8,
            9..=16 => 16,
            17..=24 => 24,
            25..=32 => 32,
            _ => 64,
        };
        let name = format!("{}int{width}", if signed { "" } else { "u" });
        (name, "base.DEC", (width == 64).then_some(signed))
    };
    match wire {
        // A quaternion's item holds its text; its parts are items under it.
        Wire::Quat { .. } => ("string".into(), "base.ASCII", None),
        Wire::Bucket(b) => int(b.signed, b.model_bits),
        Wire::Int { signed, bits, .. } => int(*signed, *bits),
        Wire::Ranged { int: i, .. } => field_kind(i),
        Wire::Varint { bits } => int(false, *bits),
        Wire::Zigzag { bits } => int(true, *bits),
        Wire::Float { bits: 32, .. } => ("float".into(), "nil", None),
        Wire::Float { .. } | Wire::Quant { .. } => ("double".into(), "nil", None),
        Wire::Bool { .. } => ("bool".into(), "base.NONE", None),
        Wire::Bytes | Wire::OptBytes => ("bytes".into(), "base.NONE", None),
        Wire::Bits(b) => {
            let (name, _, wide) = int(false, b.width);
            (name, "base.HEX", wide)
        }
        Wire::Union(u) => {
            let (name, base, wide) = int(u.tag.signed, u.tag.bits);
            (name, base, wide)
        }
        Wire::Array(a) => field_kind(&a.elem),
        Wire::Record { .. } | Wire::Unknown(_) => ("none".into(), "base.NONE", None),
    }
}

/// A bucket code's widths as a Lua list: `{ 0, 4, 8 }`.
fn widths_table(b: &BucketPlan<'_>) -> String {
    let parts: Vec<String> = b.widths.iter().map(u8::to_string).collect();
    format!("{{ {} }}", parts.join(", "))
}

/// Whether an array, at any depth, has its count written before its elements.
fn has_prefix(wire: &Wire<'_>) -> bool {
    match wire {
        Wire::Array(a) => matches!(a.count, CountFrom::Prefix(_)) || has_prefix(&a.elem),
        _ => false,
    }
}

/// Where a value is read and shown.
#[derive(Clone)]
struct At {
    /// The item it goes under.
    tree: String,
    /// Its label: the field's name or `"[" .. i .. "]"`.
    label: String,
    /// The path variable.
    path: String,
    /// The variable holding where it starts.
    at: String,
    /// The ProtoField its value is shown as.
    field: String,
    /// The ProtoField of a prefix count.
    count_field: String,
    /// Loop depth, for the names of nested loops' variables.
    depth: usize,
}

impl Gen<'_> {
    fn header(&mut self, spec: &Spec) {
        let files = source_names(spec);
        let o = &mut self.out;
        o.line(format!(
            "-- ackwire.lua: a Wireshark dissector generated by `ackwire gen --lang wireshark` from {}.",
            files.join(", ")
        ));
        o.line("-- Do not edit: change the layout files and generate it again.");
        o.line("--");
        o.line("-- Use: tshark -X lua_script:ackwire.lua -o ackwire.udp_port:PORT -r capture.pcap");
        o.line(
            "-- (or copy it into Wireshark's personal Lua plugins folder). Each frame is shown as",
        );
        o.line("-- `ackwire explain` prints it, one item per field; a frame the canonical decoding rule");
        o.line("-- refuses is malformed, with expert info `ackwire.<kind>` naming the fault. Written for");
        o.line("-- Wireshark 4.0 and later (Lua 5.2 to 5.4).");
        o.blank();
        o.line("local ackwire = Proto(\"ackwire\", \"ackwire game replication\")");
        o.blank();
        o.line("-- ---- preferences ----");
        o.blank();
        o.line("ackwire.prefs.udp_port = Pref.uint(\"UDP port\", 0, \"The UDP port the frames travel on (0: none, by the heuristic only)\")");
        o.line("ackwire.prefs.heuristic = Pref.bool(\"Heuristic\", true, \"Claim other UDP datagrams that decode as a frame\")");
        let frames = self.low.frames();
        o.line("ackwire.prefs.frame = Pref.enum(\"Frame\", 0, \"Decode every datagram as this frame (auto: by its kind or version byte)\", {");
        o.indent_line("{ 0, \"auto\", 0 },");
        for (i, (r, _)) in frames.iter().enumerate() {
            o.indent_line(format!(
                "{{ {}, {}, {} }},",
                i + 1,
                lua_str(&snake_case(&r.name)),
                i + 1
            ));
        }
        o.line("}, false)");
    }

    /// The ProtoFields: the generic ones, the expert infos, then per bit set and record.
    fn fields(&mut self, spec: &Spec) {
        let o = &mut self.out;
        o.blank();
        o.line("-- ---- fields ----");
        o.blank();
        o.line("local F_FRAME = ProtoField.string(\"ackwire.frame\", \"frame\", base.ASCII, \"The frame's name in the layout\")");
        o.line("local F_PATH = ProtoField.string(\"ackwire.path\", \"path\", base.ASCII, \"A field's path, as `ackwire explain` prints it\")");
        o.line("local F_VALUE = ProtoField.string(\"ackwire.value\", \"value\", base.ASCII, \"A field's value, as `ackwire explain` prints it\")");
        o.line("local F_PADDING = ProtoField.uint8(\"ackwire.padding\", \"padding\", base.DEC, nil, nil, \"Zero bits after a packed body\")");
        o.line("local F_QUAT_LARGEST = ProtoField.uint8(\"ackwire.quat.largest\", \"largest\", base.DEC, { [0] = \"x\", [1] = \"y\", [2] = \"z\", [3] = \"w\" }, nil, \"The component a smallest-three quaternion drops, the largest\")");
        o.line("local F_QUAT_REST = ProtoField.int16(\"ackwire.quat.rest\", \"component\", base.DEC, nil, nil, \"A component a smallest-three quaternion sends, in steps of (1/sqrt 2) / (2^(B-1) - 1)\")");
        o.blank();
        o.line(
            "--- One expert info per kind of the shared error taxonomy (conformance/PROTOCOL.md).",
        );
        o.open("local E = {");
        for (kind, when) in KINDS {
            o.line(format!(
                "{kind} = ProtoExpert.new(\"ackwire.{kind}\", {}, expert.group.MALFORMED, expert.severity.ERROR),",
                lua_str(&format!("{kind}: {when}"))
            ));
        }
        o.close("}");
        o.blank();
        o.line("--- The typed fields of each bit set and record, for display filters: ackwire.acked.tick.");
        o.line("local f = {}");
        for item in spec.files.iter().flat_map(|f| &f.items) {
            match item {
                Item::Bits(b) => {
                    let plan = self.low.bits_plan(b);
                    let table = snake_case(&b.name);
                    let o = &mut self.out;
                    o.open(format!("{} = {{", key("f", &table)));
                    for bit in &plan.named {
                        let docs = b
                            .bits
                            .iter()
                            .find(|x| matches!(&x.kind, crate::model::BitKind::Named { name, .. } if name == bit.name))
                            .map(|x| blurb(&x.docs))
                            .unwrap_or_default();
                        let lower = bit.name.to_lowercase();
                        o.line(format!(
                            "{} = {},",
                            entry(&lower),
                            proto_field(
                                "bool",
                                "base.NONE",
                                &format!("ackwire.{table}.{lower}"),
                                bit.name,
                                "nil",
                                &docs
                            )
                        ));
                    }
                    o.close("}");
                }
                Item::Record(r) => {
                    let Some(plan) = self.low.plan(&r.name, None) else {
                        continue;
                    };
                    let table = snake_case(&r.name);
                    let mut lines = Vec::new();
                    for step in &plan.steps {
                        let name = &step.field.name;
                        let (ctor, base, _) = field_kind(&step.wire);
                        if ctor != "none" {
                            lines.push(format!(
                                "{} = {},",
                                entry(name),
                                proto_field(
                                    &ctor,
                                    base,
                                    &format!("ackwire.{table}.{name}"),
                                    name,
                                    "nil",
                                    &blurb(&step.field.docs)
                                )
                            ));
                        }
                        if has_prefix(&step.wire) {
                            lines.push(format!(
                                "{name}_count = ProtoField.uint64(\"ackwire.{table}.{name}.count\", \"{name} count\", base.DEC, nil, nil, \"How many elements follow\"),"
                            ));
                        }
                    }
                    let o = &mut self.out;
                    if lines.is_empty() {
                        o.line(format!("{} = {{}}", key("f", &table)));
                    } else {
                        o.open(format!("{} = {{", key("f", &table)));
                        for l in lines {
                            o.line(l);
                        }
                        o.close("}");
                    }
                }
                Item::Union(u) => {
                    let plan = self.low.union_plan(u);
                    let table = snake_case(&u.name);
                    let (ctor, base, wide) = field_kind(&Wire::Union(u));
                    let names = if wide.is_none() {
                        let pairs: Vec<String> = plan
                            .variants
                            .iter()
                            .map(|(t, r)| format!("[{t}] = {}", lua_str(&r.name)))
                            .collect();
                        format!("{{ {} }}", pairs.join(", "))
                    } else {
                        "nil".to_string()
                    };
                    self.out.open(format!("{} = {{", key("f", &table)));
                    self.out.line(format!(
                        "tag = {},",
                        proto_field(
                            &ctor,
                            base,
                            &format!("ackwire.{table}.tag"),
                            &u.name,
                            &names,
                            &blurb(&u.docs)
                        )
                    ));
                    self.out.close("}");
                }
                Item::Const(_) | Item::State(_) | Item::Schema(_) => {}
            }
        }
        let o = &mut self.out;
        o.blank();
        o.line("local all = { F_FRAME, F_PATH, F_VALUE, F_PADDING, F_QUAT_LARGEST, F_QUAT_REST }");
        o.open("for _, group in pairs(f) do");
        o.open("for _, field in pairs(group) do");
        o.line("all[#all + 1] = field");
        o.close("end");
        o.close("end");
        o.line("ackwire.fields = all");
        // Every kind of KINDS, in its order: a kind left out would be an expert info that
        // Wireshark refuses to show.
        let experts: Vec<String> = KINDS.iter().map(|(k, _)| format!("E.{k}")).collect();
        o.line(format!("ackwire.experts = {{ {} }}", experts.join(", ")));
    }

    /// Each bit set's layout: width, named bits (with the bit each requires), their fields.
    fn bit_sets(&mut self, spec: &Spec) {
        self.out.line("--- Each bit set: its width, its named bits in declaration order (each with its index,");
        self.out
            .line("--- the bit it requires and its field), and each bit's index by name.");
        self.out.line("local bits = {}");
        for item in spec.files.iter().flat_map(|f| &f.items) {
            let Item::Bits(b) = item else { continue };
            let plan = self.low.bits_plan(b);
            let table = snake_case(&b.name);
            let o = &mut self.out;
            o.blank();
            for d in &b.docs.doc {
                o.line(comment("---", d));
            }
            o.open(format!("{} = {{", key("bits", &b.name)));
            o.line(format!("width = {},", b.width));
            o.open("bits = {");
            for bit in &plan.named {
                let requires = bit
                    .requires
                    .map(|(_, i)| format!(", requires = {i}"))
                    .unwrap_or_default();
                o.line(format!(
                    "{{ name = \"{}\", index = {}{requires}, field = {} }},",
                    bit.name,
                    bit.index,
                    key(&key("f", &table), &bit.name.to_lowercase())
                ));
            }
            o.close("},");
            let named: Vec<String> = plan
                .named
                .iter()
                .map(|b| format!("[{}] = true", b.index))
                .collect();
            o.line(format!("named = {{ {} }},", named.join(", ")));
            for bit in &plan.named {
                o.line(format!("{} = {},", bit.name, bit.index));
            }
            o.close("}");
        }
    }

    fn record(&mut self, plan: &RecordPlan<'_>) {
        let r = plan.record;
        let name = match plan.key {
            Some(k) => format!("{}_by_{k}", snake_case(&r.name)),
            None => snake_case(&r.name),
        };
        for d in &r.docs.doc {
            self.out.line(comment("---", d));
        }
        if let Some(k) = plan.key {
            self.out.line(format!(
                "--- Read within a list ascending by `{k}`: `asc` holds the previous element's key."
            ));
        }
        let args = if plan.key.is_some() {
            "rd, tree, path, asc"
        } else {
            "rd, tree, path"
        };
        self.out
            .open(format!("{} = function({args})", key("dissect", &name)));
        if !plan.steps.is_empty() {
            self.out.line("local p, at");
        }
        let table = snake_case(&r.name);
        for step in &plan.steps {
            self.step(plan, step, &table);
        }
        self.out.close("end");
    }

    fn step(&mut self, plan: &RecordPlan<'_>, step: &Step<'_>, table: &str) {
        let fname = &step.field.name;
        let var = local(fname);
        let scalar = matches!(
            step.wire,
            Wire::Int { .. }
                | Wire::Varint { .. }
                | Wire::Zigzag { .. }
                | Wire::Bucket(_)
                | Wire::Bool { .. }
                | Wire::Bits(_)
        );
        for d in &step.field.docs.doc {
            self.out.line(comment("--", d));
        }
        let mut opened = false;
        if let Some(presence) = &step.presence {
            if scalar {
                self.out.line(format!("local {var}"));
            }
            let cond = presence
                .tests
                .iter()
                .map(|t| self.test(t))
                .collect::<Vec<_>>()
                .join(" and ");
            self.out.open(format!("if {cond} then"));
            opened = true;
        }
        self.out
            .line(format!("p, at = join(path, {}), rd:here()", lua_str(fname)));
        let assign = if !scalar {
            None
        } else if opened {
            Some(format!("{var} ="))
        } else {
            Some(format!("local {var} ="))
        };
        let here = At {
            tree: "tree".into(),
            label: lua_str(fname),
            path: "p".into(),
            at: "at".into(),
            field: key(&key("f", table), fname),
            count_field: format!("{}.{fname}_count", key("f", table)),
            depth: 0,
        };
        match step.role {
            Role::Constant(c) => {
                let a = assign.unwrap_or_else(|| format!("local {var} ="));
                let read = self.read(&step.wire, plan.packed, "p");
                self.out.line(format!("{a} {read}"));
                self.out.open(format!("if int_text({var}) ~= \"{c}\" then"));
                self.out.line("rd:fail(\"bad_constant\", at, p)");
                self.out.close("end");
                self.row_scalar(&step.wire, &here, &var, &format!("int_text({var})"));
            }
            Role::Key => {
                let (delta, limit) = self.delta(&step.wire, plan.packed, "p", "at");
                self.out.line(format!(
                    "local {var}, {var}_text = rd:ascend(asc, {delta}, {limit})"
                ));
                self.row_scalar(&step.wire, &here, &var, &format!("{var}_text"));
            }
            Role::Count { .. } | Role::Value => {
                self.value(&step.wire, plan.packed, &here, assign.as_deref(), &var);
            }
        }
        if opened {
            self.out.close("end");
        }
    }

    /// A presence test in Lua.
    fn test(&self, t: &Test<'_>) -> String {
        let operand = match t.operand() {
            Operand::Constant { value, .. } => value.to_string(),
            other => local(other.name()),
        };
        let not = |n: bool| if n { "not " } else { "" };
        match t {
            Test::Bit {
                bits, bit, negated, ..
            } => format!(
                "{}has({operand}, {})",
                not(*negated),
                key(&key("bits", bits.map_or("", |b| b.name.as_str())), bit)
            ),
            Test::Bool { negated, .. } => format!("{}{operand}", not(*negated)),
            Test::NonZero { negated, .. } => format!("{}nonzero({operand})", not(*negated)),
            // Lua 5.2's numbers are doubles: a literal past 2^53 is written as a UInt64.
            Test::Greater { value, .. } if *value > 1 << 53 => {
                format!("greater({operand}, UInt64.fromhex(\"{value:016x}\"))")
            }
            Test::Greater { value, .. } => format!("greater({operand}, {value})"),
        }
    }

    /// The read of an integer-valued scalar (integer, bool, varint, zigzag, bit set's raw bits).
    fn read(&self, wire: &Wire<'_>, packed: bool, path: &str) -> String {
        match wire {
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => {
                if packed {
                    if *signed {
                        format!("rd:signed_bits({bits}, {path})")
                    } else {
                        format!("rd:bits({bits}, {path})")
                    }
                } else {
                    format!(
                        "rd:{}({}, {big_endian}, {path})",
                        if *signed { "int" } else { "uint" },
                        bits / 8
                    )
                }
            }
            Wire::Bool { .. } if packed => format!("rd:bits(1, {path}) == 1"),
            Wire::Bool { .. } => format!("rd:bool({path})"),
            Wire::Varint { bits } => format!("rd:varint({bits}, {path})"),
            Wire::Zigzag { bits } => format!("rd:zigzag({bits}, {path})"),
            Wire::Float { bits, .. } if packed => format!("rd:packed_float({bits}, {path})"),
            Wire::Float { bits, big_endian } => {
                format!("rd:float({}, {big_endian}, {path})", bits / 8)
            }
            Wire::Bits(b) => {
                if packed {
                    format!("rd:bits({}, {path})", b.width)
                } else {
                    format!(
                        "rd:uint({}, {}, {path})",
                        b.width / 8,
                        self.low.bits_big_endian(b)
                    )
                }
            }
            Wire::Quant { wire, .. } => self.read(wire, packed, path),
            // WIRE-29: refused outside its range, at its first byte (bit).
            Wire::Ranged {
                min,
                max,
                packed: Some(width),
                ..
            } => format!("rd:ranged_bits({width}, {min}, {max}, {path})"),
            Wire::Ranged { int, min, max, .. } => format!(
                "rd:ranged(function() return {} end, {min}, {max}, {path})",
                self.read(int, packed, path)
            ),
            Wire::Bucket(b) => format!(
                "rd:{}bucket({}, {path})",
                if b.signed { "z" } else { "" },
                widths_table(b)
            ),
            _ => format!("error(\"not a scalar: \" .. {path})"),
        }
    }

    /// How an element (or key) of an ascending list is read: its difference from the previous
    /// one, unsigned, in the element's own type; and the rest of `rd:ascend`'s arguments: the
    /// width the sum must stay within, or for a bucket code its largest value (as `ackwire
    /// explain` reads it), then where it starts and its path.
    fn delta(&self, wire: &Wire<'_>, packed: bool, path: &str, at: &str) -> (String, String) {
        let tail = |limit: String| format!("{limit}, {at}, {path}");
        match wire {
            Wire::Varint { bits } if !packed => {
                (format!("rd:varint({bits}, {path})"), tail(bits.to_string()))
            }
            Wire::Int {
                bits, big_endian, ..
            } => (
                if packed {
                    format!("rd:bits({bits}, {path})")
                } else {
                    format!("rd:uint({}, {big_endian}, {path})", bits / 8)
                },
                tail(bits.to_string()),
            ),
            Wire::Bucket(b) => {
                // Past 2^32 the reader's values are UInt64s, and so is the limit they are
                // compared with.
                let max = if b.max_code >= 1 << 32 {
                    format!("UInt64.fromhex(\"{:016x}\")", b.max_code)
                } else {
                    b.max_code.to_string()
                };
                (
                    format!("rd:bucket({}, {path})", widths_table(b)),
                    format!("64, {at}, {path}, {max}"),
                )
            }
            _ => (format!("rd:varint(64, {path})"), tail("64".into())),
        }
    }

    /// The row of a scalar already read into `var`, with its text.
    fn row_scalar(&mut self, wire: &Wire<'_>, at: &At, var: &str, text: &str) {
        let (_, _, wide) = field_kind(wire);
        let value = match wide {
            Some(signed) => format!("wide({var}, {signed})"),
            None => var.to_string(),
        };
        let row = format!(
            "rd:row({}, {}, {}, {}, {}, {value}, {text})",
            at.tree, at.field, at.label, at.path, at.at
        );
        if matches!(wire, Wire::Bucket(_)) && !text.contains("rd:code_text()") {
            // An ascending element's row text is its value and delta, as explain prints it;
            // the item's text also says which bucket the code was in and its bits.
            self.out.line(format!("rd:note_code({row})"));
        } else {
            self.out.line(row);
        }
    }

    /// A value of wire form `wire`, read and shown at `at`; `assign` (`local x =`) keeps a
    /// scalar for later fields' counts and conditions.
    fn value(&mut self, wire: &Wire<'_>, packed: bool, at: &At, assign: Option<&str>, var: &str) {
        match wire {
            Wire::Quat { bits } => {
                self.out.line(format!(
                    "local {var}, {var}_rest = rd:quat({bits}, {})",
                    at.path
                ));
                self.out.line(format!(
                    "rd:quat_row({}, {}, {}, {}, {}, {bits}, {var}, {var}_rest)",
                    at.tree, at.field, at.label, at.path, at.at
                ));
            }
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Varint { .. }
            | Wire::Zigzag { .. }
            | Wire::Bucket(_) => {
                let a = assign.map_or_else(|| format!("local {var} ="), str::to_string);
                let read = self.read(wire, packed, &at.path);
                self.out.line(format!("{a} {read}"));
                if matches!(wire, Wire::Bucket(_)) {
                    // As explain prints it: the value, then the bucket and the code's bits.
                    self.row_scalar(wire, at, var, &format!("int_text({var}) .. rd:code_text()"));
                } else {
                    self.row_scalar(wire, at, var, &format!("int_text({var})"));
                }
            }
            Wire::Bool { .. } => {
                let a = assign.map_or_else(|| format!("local {var} ="), str::to_string);
                let read = self.read(wire, packed, &at.path);
                self.out.line(format!("{a} {read}"));
                self.row_scalar(wire, at, var, &format!("tostring({var})"));
            }
            Wire::Float { bits, .. } => {
                let read = self.read(wire, packed, &at.path);
                self.out.line(format!("local {var} = {read}"));
                self.row_scalar(
                    wire,
                    at,
                    var,
                    &format!("float_text({var}, {})", *bits == 32),
                );
            }
            Wire::Quant {
                wire: inner,
                num,
                den,
                ..
            } => {
                let read = self.read(inner, packed, &at.path);
                self.out.line(format!("local {var} = {read}"));
                let row = format!(
                    "rd:row({}, {}, {}, {}, {}, scaled({var}, {num}, {den}), quant_text({var}, {num}, {den}))",
                    at.tree, at.field, at.label, at.path, at.at
                );
                if matches!(inner.as_ref(), Wire::Bucket(_)) {
                    self.out.line(format!("rd:note_code({row})"));
                } else {
                    self.out.line(row);
                }
            }
            Wire::Bytes | Wire::OptBytes => {
                self.out.line(format!(
                    "rd:bytes({}, {}, {}, {}, {})",
                    at.tree,
                    at.field,
                    at.label,
                    at.path,
                    matches!(wire, Wire::OptBytes)
                ));
            }
            Wire::Bits(b) => {
                let a = assign.map_or_else(|| format!("local {var} ="), str::to_string);
                let read = self.read(wire, packed, &at.path);
                let set = key("bits", &b.name);
                self.out.line(format!(
                    "{a} rd:bit_set({set}, {read}, {}, {})",
                    at.at, at.path
                ));
                let (_, _, wide) = field_kind(wire);
                let value = match wide {
                    Some(signed) => format!("wide({var}, {signed})"),
                    None => var.to_string(),
                };
                self.out.line(format!(
                    "rd:bit_set_row({}, {}, {}, {}, {}, {set}, {value})",
                    at.tree, at.field, at.label, at.path, at.at
                ));
            }
            Wire::Record { record, padded } => {
                self.out.line(format!(
                    "local {var} = rd:subtree({}, {}, {})",
                    at.tree, at.label, at.at
                ));
                self.call_record(record, *padded, var, &at.path);
                self.out.line(format!("rd:close({var}, {})", at.at));
            }
            Wire::Union(u) => {
                self.out.line(format!(
                    "{}(rd, {}, {}, {})",
                    key("dissect", &snake_case(&u.name)),
                    at.tree,
                    at.label,
                    at.path
                ));
            }
            Wire::Array(a) if at.depth == 0 => {
                // A block of its own, so that a record's lists do not pile up locals.
                self.out.open("do");
                self.array(a, packed, at);
                self.out.close("end");
            }
            Wire::Array(a) => self.array(a, packed, at),
            Wire::Unknown(name) => {
                self.out.line(format!(
                    "error({})",
                    lua_str(&format!("`{name}` is not a type"))
                ));
            }
        }
    }

    /// A record's function called under `tree` at `path`: as a packed body of its own when a
    /// packed record starts at a byte.
    fn call_record(&mut self, record: &Record, padded: bool, tree: &str, path: &str) {
        let f = key("dissect", &snake_case(&record.name));
        if padded {
            self.out.line(format!(
                "rd:packed_body({tree}, {path}, function() {f}(rd, {tree}, {path}) end)"
            ));
        } else {
            self.out.line(format!("{f}(rd, {tree}, {path})"));
        }
    }

    fn array(&mut self, a: &ArrayPlan<'_>, packed: bool, at: &At) {
        let d = at.depth + 1;
        let (list, n, i, e, ate) = (
            format!("list{}", suffix(d)),
            format!("n{}", suffix(d)),
            format!("i{}", suffix(d)),
            format!("e{}", suffix(d)),
            format!("at{}", suffix(d)),
        );
        self.out.line(format!(
            "local {list} = rd:subtree({}, {}, {})",
            at.tree, at.label, at.at
        ));
        match &a.count {
            CountFrom::Field(name) => {
                self.out.line(format!(
                    "local {n} = rd:count({}, {}, {})",
                    local(name),
                    a.elem_min,
                    at.path
                ));
            }
            CountFrom::Prefix(t) => {
                let read = self.read(t, packed, &at.path);
                self.out.line(format!("local {n} = {read}"));
                self.out.line(format!(
                    "rd:row({list}, {}, nil, {}, {}, wide({n}, false), \"count \" .. int_text({n}))",
                    at.count_field, at.path, at.at
                ));
                self.out
                    .line(format!("{n} = rd:count({n}, {}, {})", a.elem_min, at.path));
            }
        }
        if a.ascending.is_some() {
            self.out.line(format!("local asc{} = {{}}", suffix(d)));
        }
        self.out.open(format!("for {i} = 0, {n} - 1 do"));
        self.out.line(format!(
            "local {e}, {ate} = index({}, {i}), rd:here()",
            at.path
        ));
        let inner = At {
            tree: list.clone(),
            label: format!("\"[\" .. {i} .. \"]\""),
            path: e.clone(),
            at: ate.clone(),
            field: at.field.clone(),
            count_field: at.count_field.clone(),
            depth: d,
        };
        let elem_var = format!("v{}", suffix(d));
        match (a.ascending, &a.elem) {
            (None, elem) => self.value(elem, packed, &inner, None, &elem_var),
            (Some(Ascending::Values), elem) => {
                let (delta, limit) = self.delta(elem, packed, &e, &ate);
                self.out.line(format!(
                    "local {elem_var}, text = rd:ascend(asc{}, {delta}, {limit})",
                    suffix(d)
                ));
                self.row_scalar(elem, &inner, &elem_var, "text");
            }
            (Some(Ascending::Key(k)), Wire::Record { record, .. }) => {
                let sub = format!("sub{}", suffix(d));
                self.out.line(format!(
                    "local {sub} = rd:subtree({list}, \"[\" .. {i} .. \"]\", {ate})"
                ));
                let f = key("dissect", &format!("{}_by_{k}", snake_case(&record.name)));
                if record.packed && !packed {
                    self.out.line(format!(
                        "rd:packed_body({sub}, {e}, function() {f}(rd, {sub}, {e}, asc{}) end)",
                        suffix(d)
                    ));
                } else {
                    self.out
                        .line(format!("{f}(rd, {sub}, {e}, asc{})", suffix(d)));
                }
                self.out.line(format!("rd:close({sub}, {ate})"));
            }
            (Some(Ascending::Key(k)), _) => {
                self.out.line(format!(
                    "error({})",
                    lua_str(&format!(
                        "`ascending({k})` over elements that are not records"
                    ))
                ));
            }
        }
        self.out.close("end");
        self.out.line(format!("rd:close({list}, {})", at.at));
    }

    fn union(&mut self, u: &Union) {
        let plan = self.low.union_plan(u);
        let name = snake_case(&u.name);
        for d in &u.docs.doc {
            self.out.line(comment("---", d));
        }
        self.out
            .line("--- Its tag, shown at the union's own path, then the variant's fields.");
        self.out.open(format!(
            "{} = function(rd, tree, label, path)",
            key("dissect", &name)
        ));
        let (bits, big) = match plan.tag {
            Wire::Int {
                bits, big_endian, ..
            } => (bits, big_endian),
            _ => (8, false),
        };
        let (_, _, wide) = field_kind(&plan.tag);
        let o = &mut self.out;
        o.line("local at = rd:here()");
        o.line("local tag");
        o.open("if rd.packed then");
        o.line(format!("tag = rd:bits({bits}, path)"));
        o.close("else");
        o.indent_line(format!("tag = rd:uint({}, {big}, path)", bits / 8));
        o.line("end");
        let value = match wide {
            Some(_) => "wide(tag, false)",
            None => "tag",
        };
        o.line("local t = int_text(tag)");
        for (i, (tag, record)) in plan.variants.iter().enumerate() {
            let open = if i == 0 { "if" } else { "elseif" };
            let variant = snake_case(&record.name);
            o.open(format!("{open} t == \"{tag}\" then"));
            o.line(format!(
                "local item = rd:row(tree, f.{name}.tag, label, path, at, {value}, \"{} (tag {tag})\")",
                record.name
            ));
            o.line(format!(
                "local p, start = join(path, \"{variant}\"), rd:here()"
            ));
            o.line(format!(
                "local sub = rd:subtree(item, \"{variant}\", start)"
            ));
            let f = key("dissect", &variant);
            if record.packed {
                o.open("if rd.packed then");
                o.line(format!("{f}(rd, sub, p)"));
                o.close("else");
                o.indent_line(format!(
                    "rd:packed_body(sub, p, function() {f}(rd, sub, p) end)"
                ));
                o.line("end");
            } else {
                o.line(format!("{f}(rd, sub, p)"));
            }
            o.line("rd:close(sub, start)");
            o.indent -= 1;
        }
        if plan.variants.is_empty() {
            o.line("rd:fail(\"unknown_tag\", at, path)");
        } else {
            o.open("else");
            o.line("rd:fail(\"unknown_tag\", at, path)");
            o.close("end");
        }
        o.close("end");
    }

    fn frames(&mut self) {
        let frames = self.low.frames();
        let o = &mut self.out;
        o.line(
            "--- The frames in declaration order, each with its leading constant (kind or version)",
        );
        o.line("--- and how that is read.");
        o.open("local FRAMES = {");
        for (r, constant) in &frames {
            let snake = snake_case(&r.name);
            let first = self.low.plan(&r.name, None).and_then(|p| p.steps.first());
            let read = match first {
                Some(step) => self.read(&step.wire, r.packed, &lua_str(&step.field.name)),
                None => "0".into(),
            };
            let f = key("dissect", &snake);
            let body = if r.packed {
                format!("rd:packed_body(tree, \"\", function() {f}(rd, tree, \"\") end)")
            } else {
                format!("{f}(rd, tree, \"\")")
            };
            let o = &mut self.out;
            o.open("{");
            o.line(format!("name = {},", lua_str(&r.name)));
            o.line(format!("constant = \"{constant}\","));
            o.line(format!("peek = function(rd) return {read} end,"));
            o.line(format!("dissect = function(rd, tree) {body} end,"));
            o.close("},");
        }
        self.out.close("}");
    }

    fn dissector(&mut self) {
        const TAIL: &str = r#"-- ---------------------------------------------------------------------------------------
-- The dissector: which frame, its items, its fault as expert info.
-- ---------------------------------------------------------------------------------------

--- Decodes `tvb` as `frame`, adding its items under `tree` (nil: only decode). Returns the
--- decode error, or nil when the frame is canonical to its last byte: bytes after the frame are
--- a decode error (WIRE-17). Any other Lua error is this dissector's
--- own fault and is raised again, for Wireshark to show.
local function decode(frame, tvb, tree)
    local rd = new_reader(tvb, tree)
    local ok, err = pcall(function()
        frame.dissect(rd, tree)
        if rd.pos < rd.len then
            rd:fail("trailing_bytes", rd.pos, "")
        end
    end)
    if ok then
        return nil
    end
    if type(err) ~= "table" then
        error(err, 0)
    end
    return err
end

--- The frames whose leading constant the bytes start with, in declaration order.
local function candidates(tvb)
    local found = {}
    for _, frame in ipairs(FRAMES) do
        local ok, v = pcall(frame.peek, new_reader(tvb, nil))
        if ok and int_text(v) == frame.constant then
            found[#found + 1] = frame
        end
    end
    return found
end

--- The frame of `tvb`: the one the preference names, else the one its leading constant
--- names; where two layout files share a constant, the first that decodes.
local function choose(tvb)
    local forced = ackwire.prefs.frame
    if forced ~= 0 then
        return FRAMES[forced]
    end
    local found = candidates(tvb)
    for _, frame in ipairs(found) do
        if #found == 1 or decode(frame, tvb, nil) == nil then
            return frame
        end
    end
    return found[1]
end

local function show(frame, tvb, pinfo, tree)
    pinfo.cols.protocol = "ackwire"
    local root = tree:add(ackwire, tvb())
    if frame == nil then
        local e = { kind = tvb:len() == 0 and "truncated" or "bad_constant", offset = 0 }
        local text = error_text(e) .. ": no frame starts so"
        root:add_proto_expert_info(E[e.kind], text)
        pinfo.cols.info = "ackwire: " .. text
        return
    end
    root:append_text(": " .. frame.name)
    root:add(F_FRAME, tvb(0, 0), frame.name)
    pinfo.cols.info = frame.name
    local err = decode(frame, tvb, root)
    if err ~= nil then
        local text = error_text(err)
        root:add_proto_expert_info(E[err.kind], text)
        pinfo.cols.info:append(" [" .. text .. "]")
    end
end

function ackwire.dissector(tvb, pinfo, tree)
    show(choose(tvb), tvb, pinfo, tree)
    return tvb:len()
end

--- The heuristic: a UDP datagram is a frame when its leading constant names one and it
--- decodes canonically as that frame.
local function heuristic(tvb, pinfo, tree)
    if not ackwire.prefs.heuristic then
        return false
    end
    for _, frame in ipairs(candidates(tvb)) do
        if decode(frame, tvb, nil) == nil then
            show(frame, tvb, pinfo, tree)
            return true
        end
    end
    return false
end
ackwire:register_heuristic("udp", heuristic)

local registered = 0

--- Follows the UDP port preference.
local function follow_port()
    local udp = DissectorTable.get("udp.port")
    if registered ~= 0 then
        udp:remove(registered, ackwire)
    end
    registered = ackwire.prefs.udp_port
    if registered ~= 0 then
        udp:add(registered, ackwire)
    end
end
ackwire.prefs_changed = follow_port
follow_port()"#;
        for line in TAIL.lines() {
            self.out.line(line);
        }
    }
}

/// The suffix of a nested loop's variables: none at the first level.
fn suffix(depth: usize) -> String {
    if depth <= 1 {
        String::new()
    } else {
        depth.to_string()
    }
}
