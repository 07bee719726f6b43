//! The C++ backend: a header-only C++17 codec, for native clients.
//!
//! It prints two headers:
//! - `ackwire_runtime.hpp`, the same for every spec: the shared error taxonomy, `Result`, the
//!   checked `Reader`, the `Writer`, bit streams for packed bodies, varints and zigzag, and a
//!   minimal JSON value with a parser and a printer (the mirror of `ackwire_codec::rt`);
//! - `protocol.hpp`, namespace `ackwire::protocol`, per declaration:
//!   - a constant: `inline constexpr uint32_t NAME = value;` (`max_offset` derived from the
//!     layout);
//!   - a bit set: a struct over its integer, with a `static constexpr` index per named bit,
//!     `contains`/`set`/`with`, and `check` (reserved bits, `requires`);
//!   - a record: a struct of its value fields (constants and counts are derived, not stored;
//!     conditional fields are `std::optional`, lists `std::vector`, bytes
//!     `std::vector<uint8_t>`, quantized numbers `double`);
//!   - a union: a `std::variant` of its variants' records, with `tag`;
//!   - for every type: `encoded_len` (`bit_len` for a packed record), `to_json`, `from_json`,
//!     and in `detail` the `read`/`write` functions the frames are made of;
//!   - a frame: also `decode_<frame>(data, len)`, `encode(frame, out)`, `to_bytes(frame)`;
//!   - `FRAME_NAMES`, `visit_frame`, `decode_frame_json` and `encode_frame_json`: the frames by
//!     name.
//!
//! The decoders mirror the Rust backend ([`super::rust`]) check for check: the same checks in the
//! same order, reporting the same error kind at the same offset with the same field path, so
//! that conformance can hold every language to one verdict. Every step returns `bool`: a failed
//! one records its error in the reader or writer, and each caller adds its field on the way out
//! (`if (!r.read_uint(4, false, out.tick)) return r.in("tick");`). Nothing throws on bad input.
//!
//! Limitation: a union is a `std::variant` alias, so two unions with the same variant records
//! would be one C++ type.

use super::{snake_case, Code};
use crate::index::{count_fields, Decl, Index};
use crate::model::{
    Array, BitKind, Bits, Cond, Const, Count, Docs, Endian, Field, File, IntType, Item, Record,
    RecordKind, Spec, Type, Union,
};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// The file name of the runtime header.
pub const RUNTIME_HEADER: &str = "ackwire_runtime.hpp";

/// The file name of the codec header.
pub const PROTOCOL_HEADER: &str = "protocol.hpp";

/// The generated files, as (path relative to the output folder, contents): the runtime header
/// and the codec of `spec`, which must be valid.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    vec![
        (RUNTIME_HEADER.to_string(), RUNTIME.to_string()),
        (PROTOCOL_HEADER.to_string(), protocol(spec)),
    ]
}

/// The codec header of `spec`.
fn protocol(spec: &Spec) -> String {
    let index = Index::new(spec);
    let uses = super::uses(spec, &index);
    let mut g = Gen {
        index: &index,
        code: Code::default(),
        keyed: uses.keyed,
        bits_used: uses.bits_used,
        endian: Endian::Little,
    };
    g.header(spec);
    for file in &spec.files {
        g.file_section(file);
    }
    g.types(spec);
    g.prototypes(spec);
    for file in &spec.files {
        g.endian = file.endian;
        for item in &file.items {
            match item {
                Item::Const(_) => {}
                Item::Bits(b) => g.bits_fns(b),
                Item::Record(r) => g.record_fns(r),
                Item::Union(u) => g.union_fns(u),
            }
        }
    }
    g.frames(spec);
    g.code.blank();
    g.code.line("}  // namespace ackwire::protocol");
    g.code.finish()
}

fn file_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map_or(name.to_string(), |n| n.to_string_lossy().into_owned())
}

const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
];

/// Names the generated functions use for their own parameters and locals.
const RESERVED_LOCALS: &[&str] = &[
    "r", "b", "w", "out", "v", "j", "m", "e", "at", "prev", "value", "delta", "q", "bits", "n",
    "name", "std", "rt", "json", "detail",
];

/// A field's name as a C++ member.
fn ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// A count field's name as a C++ local of the read function.
fn local(name: &str) -> String {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
    };
    if RESERVED_LOCALS.contains(&name)
        || KEYWORDS.contains(&name)
        || ["n", "i", "c", "x", "j", "item"].into_iter().any(numbered)
    {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

fn uint_type(bits: u8) -> &'static str {
    match bits {
        0..=8 => "uint8_t",
        9..=16 => "uint16_t",
        17..=32 => "uint32_t",
        _ => "uint64_t",
    }
}

fn int_type(bits: u8) -> &'static str {
    match bits {
        0..=8 => "int8_t",
        9..=16 => "int16_t",
        17..=32 => "int32_t",
        _ => "int64_t",
    }
}

/// An integer literal of any value a layout holds.
fn literal(v: i128) -> String {
    if v == i128::from(i64::MIN) {
        "(-9223372036854775807LL - 1)".to_string()
    } else if v > i128::from(i64::MAX) {
        format!("{v}ULL")
    } else if v > i128::from(i32::MAX) || v < i128::from(i32::MIN) {
        format!("{v}LL")
    } else {
        v.to_string()
    }
}

/// The scale of a quantized number as a C++ expression: `NUM.0 / DEN.0`, computed once as a
/// double, exactly as the Rust backend computes it.
fn scale(num: u64, den: u64) -> String {
    if den == 1 {
        format!("{num}.0")
    } else {
        format!("({num}.0 / {den}.0)")
    }
}

/// Lines one level deeper.
fn indent(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| if l.is_empty() { l } else { format!("    {l}") })
        .collect()
}

/// Lines longer than this (before their indentation) are wrapped.
const LIMIT: usize = 88;

/// One step of a field path, innermost first, as the generated code adds it to an error.
#[derive(Debug, Clone)]
enum Seg {
    /// A field of the record being read or written.
    Field(String),
    /// An element of a list, by the name of the loop's index.
    Index(String),
}

/// The path of field `name`.
fn field_path(name: &str) -> Vec<Seg> {
    vec![Seg::Field(name.to_string())]
}

/// `path` inside element `index` of the list it names.
fn with_index(path: &[Seg], index: &str) -> Vec<Seg> {
    let mut out = vec![Seg::Index(index.to_string())];
    out.extend(path.iter().cloned());
    out
}

/// The statement a failed step returns with: the error (kept by `on`, the reader or writer)
/// gets the path's segments, innermost first; `return r.index(i0).in("changes");`.
fn bail(on: &str, path: &[Seg]) -> String {
    let mut out = format!("return {on}");
    for (i, seg) in path.iter().enumerate() {
        match seg {
            Seg::Index(v) => out.push_str(&format!(".index({v})")),
            Seg::Field(name) if i + 1 == path.len() => {
                out.push_str(&format!(".in(\"{name}\");"));
                return out;
            }
            // Within one function a path only ever ends with its field.
            Seg::Field(_) => unreachable!("a field inside a path: {path:?}"),
        }
    }
    "return false;".to_string()
}

/// The arguments of the call `expr` (`name(a, b(c, d))` -> `name(`, [`a`, `b(c, d)`]), when it
/// is one call.
fn split_call(expr: &str) -> Option<(String, Vec<String>)> {
    let open = expr.find('(')?;
    if !expr.ends_with(')') {
        return None;
    }
    let inner = &expr[open + 1..expr.len() - 1];
    let mut args = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' | '{' if !quoted => depth += 1,
            ')' | ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                args.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    args.push(inner[start..].trim().to_string());
    Some((expr[..=open].to_string(), args))
}

/// `head`, the `args` separated by commas, then `tail`: one line when it fits, else filled
/// over lines continued eight spaces deeper.
fn fill(head: &str, args: &[String], tail: &str) -> Vec<String> {
    let one = format!("{head}{}{tail}", args.join(", "));
    if one.len() <= LIMIT || args.is_empty() {
        return vec![one];
    }
    let mut lines = Vec::new();
    let mut cur = head.to_string();
    let mut fresh = true;
    for (i, a) in args.iter().enumerate() {
        let piece = if i + 1 < args.len() {
            format!("{a},")
        } else {
            format!("{a}{tail}")
        };
        let joined = if fresh {
            format!("{cur}{piece}")
        } else {
            format!("{cur} {piece}")
        };
        if joined.len() > LIMIT && !fresh {
            lines.push(cur);
            cur = format!("        {piece}");
        } else {
            cur = joined;
        }
        fresh = false;
    }
    lines.push(cur);
    lines
}

/// `if (!step1 || !step2 ...) return ...;`: the steps in order, bailing out with `bail` at the
/// first that fails. One line when it fits; else the condition is wrapped and the return
/// braced.
fn check(steps: &[String], bail: &str) -> Vec<String> {
    let cond: Vec<String> = steps.iter().map(|s| format!("!{s}")).collect();
    let one = format!("if ({}) {bail}", cond.join(" || "));
    if one.len() <= LIMIT {
        return vec![one];
    }
    let mut lines = if let [step] = steps {
        match split_call(step) {
            Some((head, args)) => fill(&format!("if (!{head}"), &args, ")) {"),
            None => vec![format!("if (!{step}) {{")],
        }
    } else {
        let mut lines = vec![format!("if ({}", cond[0])];
        for (i, c) in cond.iter().enumerate().skip(1) {
            let end = if i + 1 == cond.len() { ") {" } else { "" };
            lines.push(format!("        || {c}{end}"));
        }
        lines
    };
    lines.push(format!("    {bail}"));
    lines.push("}".into());
    lines
}

/// The length of the LEB128 form of `v`.
fn leb_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// The collections of named types a type mentions.
fn named_in(ty: &Type, out: &mut Vec<String>) {
    match ty {
        Type::Named { name, .. } => out.push(name.clone()),
        Type::Quant { wire, .. } => named_in(wire, out),
        Type::Array(a) => {
            named_in(&a.elem, out);
            if let Count::Prefix(t) = &a.count {
                named_in(t, out);
            }
        }
        _ => {}
    }
}

/// Where a value sits, which decides its JSON form the way the Rust codec's serde attributes do.
#[derive(Debug, Clone, Copy)]
enum Ctx {
    /// A field of a record (optional when conditional).
    Field { optional: bool },
    /// An element of a list; `big` when the list is a required field's, whose unsigned 64-bit
    /// elements are written as decimal strings beyond 2^53 - 1.
    Elem { big: bool },
}

/// Whether a value of `ty` in `ctx` is written as a decimal string beyond 2^53 - 1.
fn is_big(ty: &Type, ctx: Ctx) -> bool {
    let bits = match ty {
        Type::Int(t) => t.bits,
        Type::Varint { bits } | Type::Zigzag { bits } => *bits,
        _ => return false,
    };
    match ctx {
        Ctx::Field { .. } => bits > 53,
        Ctx::Elem { big } => {
            big && bits > 53
                && matches!(
                    ty,
                    Type::Int(IntType { signed: false, .. }) | Type::Varint { .. }
                )
        }
    }
}

struct Gen<'a> {
    index: &'a Index<'a>,
    code: Code,
    /// Records with a field that ascends within a list: (record, key).
    keyed: BTreeSet<(String, String)>,
    /// Bit sets and the contexts they are used in: (name, packed).
    bits_used: BTreeSet<(String, bool)>,
    endian: Endian,
}

impl Gen<'_> {
    fn be(&self, endian: Option<Endian>) -> bool {
        endian.unwrap_or(self.endian) == Endian::Big
    }

    fn lines(&mut self, lines: Vec<String>) {
        for l in lines {
            self.code.line(l);
        }
    }

    fn docs(&mut self, docs: &Docs, fallback: &str) {
        if docs.doc.is_empty() {
            self.code.line(format!("/// {fallback}"));
        }
        for line in &docs.doc {
            if line.is_empty() {
                self.code.line("///");
            } else {
                self.code.line(format!("/// {line}"));
            }
        }
    }

    fn key_of(&self, record: &str) -> Option<String> {
        self.keyed
            .iter()
            .find(|(r, _)| r == record)
            .map(|(_, k)| k.clone())
    }

    // ---- the header and the declarations ----

    fn header(&mut self, spec: &Spec) {
        let sources: Vec<String> = spec.files.iter().map(|f| file_name(&f.name)).collect();
        self.code.line(format!(
            "// @generated by ackwire-spec from {}. Do not edit: change the layout files.",
            sources.join(", ")
        ));
        self.code.line("//");
        self.code.line(
            "// The frames' types and their codec, C++17, header-only, over ackwire_runtime.hpp. Decoders",
        );
        self.code.line(
            "// accept exactly the bytes the encoders produce (DESIGN.md section 3); a failed decode names",
        );
        self.code.line(
            "// the error's kind, byte offset and field path, as every ackwire codec does. Nothing throws on",
        );
        self.code.line("// bad input.");
        self.code.line("//");
        self.code.line(
            "// Per frame X: decode_x(data, len) -> rt::Result<X>, encode(x, out) -> rt::EncodeStatus,",
        );
        self.code.line(
            "// to_bytes(x), encoded_len(x); per type: to_json(v) and from_json(j, out, error). By name:",
        );
        self.code
            .line("// FRAME_NAMES, decode_frame_json, encode_frame_json.");
        self.code.blank();
        self.code.line("#pragma once");
        self.code.blank();
        self.code.line(format!("#include \"{RUNTIME_HEADER}\""));
        self.code.blank();
        for h in [
            "array",
            "cstddef",
            "cstdint",
            "optional",
            "string_view",
            "variant",
            "vector",
        ] {
            self.code.line(format!("#include <{h}>"));
        }
        self.code.blank();
        self.code.line("namespace ackwire::protocol {");
        self.code.line("");
    }

    fn file_section(&mut self, file: &File) {
        self.code.blank();
        self.code
            .line(format!("// ---- {} ----", file_name(&file.name)));
        for line in &file.doc {
            if line.is_empty() {
                self.code.line("//");
            } else {
                self.code.line(format!("// {line}"));
            }
        }
        for item in &file.items {
            if let Item::Const(c) = item {
                self.code.blank();
                self.constant(c);
            }
        }
    }

    fn constant(&mut self, c: &Const) {
        self.docs(&c.docs, &format!("The protocol constant `{}`.", c.name));
        let ty = if c.ty.signed {
            int_type(c.ty.bits)
        } else {
            uint_type(c.ty.bits)
        };
        let value = self.index.const_value(c).unwrap_or_default();
        self.code.line(format!(
            "inline constexpr {ty} {} = {};",
            c.name,
            literal(value)
        ));
    }

    /// Every bit set, record and union, each after the types its fields hold (C++ needs them
    /// complete), otherwise in source order.
    fn types(&mut self, spec: &Spec) {
        let mut done = HashSet::new();
        let mut order = Vec::new();
        for file in &spec.files {
            for item in &file.items {
                if !matches!(item, Item::Const(_)) {
                    self.visit(item.name(), &mut done, &mut order);
                }
            }
        }
        self.code.blank();
        self.code.line("// ---- types ----");
        for name in order {
            self.code.blank();
            match self.index.get(&name) {
                Some(Decl::Bits(b)) => self.bits_type(b),
                Some(Decl::Record(r)) => self.record_type(r),
                Some(Decl::Union(u)) => self.union_type(u),
                _ => {}
            }
        }
    }

    fn visit(&self, name: &str, done: &mut HashSet<String>, order: &mut Vec<String>) {
        if !done.insert(name.to_string()) {
            return;
        }
        let mut deps = Vec::new();
        match self.index.get(name) {
            Some(Decl::Record(r)) => {
                for f in &r.fields {
                    named_in(&f.ty, &mut deps);
                }
            }
            Some(Decl::Union(u)) => deps.extend(u.variants.iter().map(|v| v.record.clone())),
            Some(Decl::Bits(_)) => {}
            _ => return,
        }
        for d in deps {
            self.visit(&d, done, order);
        }
        order.push(name.to_string());
    }

    fn bits_type(&mut self, b: &Bits) {
        let store = uint_type(b.width);
        self.docs(&b.docs, &format!("The bit set `{}`.", b.name));
        self.code.open(format!("struct {} {{", b.name));
        let mut declared = 0u64;
        let mut names = Vec::new();
        let mut requires = Vec::new();
        for bit in &b.bits {
            if let BitKind::Named {
                name,
                index,
                requires: req,
            } = &bit.kind
            {
                self.docs(&bit.docs, &format!("Bit {index}."));
                self.code
                    .line(format!("static constexpr unsigned {name} = {index};"));
                declared |= 1 << index;
                names.push(format!("rt::BitName{{\"{name}\", {index}}}"));
                if let Some(req) = req {
                    requires.push((name.clone(), req.clone()));
                }
            }
        }
        self.code.line("/// Width on the wire, in bits.");
        self.code
            .line(format!("static constexpr unsigned WIDTH = {};", b.width));
        self.code
            .line("/// The named bits; every other bit is reserved.");
        self.code.line(format!(
            "static constexpr uint64_t DECLARED = {declared:#x};"
        ));
        self.code.line("/// Every named bit, with its index.");
        if names.is_empty() {
            self.code
                .line("static constexpr std::array<rt::BitName, 0> NAMES = {};");
        } else {
            self.code.open(format!(
                "static constexpr std::array<rt::BitName, {}> NAMES = {{{{",
                names.len()
            ));
            for n in &names {
                self.code.line(format!("{n},"));
            }
            self.code.close("}};");
        }
        self.code.blank();
        self.code.line("/// The raw bits (see check()).");
        self.code.line(format!("{store} bits = 0;"));
        self.code.blank();
        self.code.line("/// A set from its raw bits (see check()).");
        self.code.line(format!(
            "static constexpr {} from_bits({store} raw) {{ return {}{{raw}}; }}",
            b.name, b.name
        ));
        self.code.blank();
        self.code.line("/// Whether bit `bit` is set.");
        self.code
            .open("constexpr bool contains(unsigned bit) const {");
        self.code.line(format!(
            "return bit < 8 * sizeof({store}) && ((static_cast<uint64_t>(bits) >> bit) & 1u) != 0;"
        ));
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// Sets or clears bit `bit` (a bit past the width is ignored).");
        self.code.open("void set(unsigned bit, bool on = true) {");
        self.code
            .open(format!("if (bit >= 8 * sizeof({store})) {{"));
        self.code.line("return;");
        self.code.close("}");
        self.code.line("const uint64_t one = uint64_t{1} << bit;");
        self.code.line(format!(
            "bits = static_cast<{store}>(on ? (bits | one) : (bits & ~one));"
        ));
        self.code.close("}");
        self.code.blank();
        self.code.line("/// This set with bit `bit` set too.");
        self.code
            .open(format!("{} with(unsigned bit) const {{", b.name));
        self.code.line(format!("{} v = *this;", b.name));
        self.code.line("v.set(bit);");
        self.code.line("return v;");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Whether an encoder may write these bits: none when no reserved bit is set and every",
        );
        self.code
            .line("/// bit that requires another has that one set; else why not.");
        self.code
            .open("std::optional<rt::ErrorKind> check() const {");
        self.code
            .open("if ((static_cast<uint64_t>(bits) & ~DECLARED) != 0) {");
        self.code.line("return rt::ErrorKind::reserved_bit;");
        self.code.close("}");
        for (bit, req) in &requires {
            self.code
                .open(format!("if (contains({bit}) && !contains({req})) {{"));
            self.code.line("return rt::ErrorKind::invalid_condition;");
            self.code.close("}");
        }
        self.code.line("return std::nullopt;");
        self.code.close("}");
        self.code.blank();
        let n = &b.name;
        self.code.line(format!(
            "friend bool operator==({n} a, {n} b) {{ return a.bits == b.bits; }}"
        ));
        self.code.line(format!(
            "friend bool operator!=({n} a, {n} b) {{ return a.bits != b.bits; }}"
        ));
        self.code.close("};");
    }

    fn cpp_type(&self, ty: &Type) -> String {
        match ty {
            Type::Int(t) => {
                if t.signed {
                    int_type(t.bits).into()
                } else {
                    uint_type(t.bits).into()
                }
            }
            Type::Float { bits, .. } => if *bits == 32 { "float" } else { "double" }.into(),
            Type::Bool => "bool".into(),
            Type::Varint { bits } => uint_type(*bits).into(),
            Type::Zigzag { bits } => int_type(*bits).into(),
            Type::Bytes => "std::vector<uint8_t>".into(),
            Type::OptBytes => "std::optional<std::vector<uint8_t>>".into(),
            Type::Quant { .. } => "double".into(),
            Type::Named { name, .. } => name.clone(),
            Type::Array(a) => format!("std::vector<{}>", self.cpp_type(&a.elem)),
        }
    }

    /// The default member initializer of a value of `ty`, if it needs one.
    fn init(ty: &Type) -> &'static str {
        match ty {
            Type::Int(_) | Type::Varint { .. } | Type::Zigzag { .. } => " = 0",
            Type::Float { bits: 32, .. } => " = 0.0f",
            Type::Float { .. } | Type::Quant { .. } => " = 0.0",
            Type::Bool => " = false",
            _ => "",
        }
    }

    fn value_fields(r: &Record) -> Vec<&Field> {
        let counts = count_fields(r);
        r.fields
            .iter()
            .filter(|f| f.constant.is_none() && !counts.contains(&f.name.as_str()))
            .collect()
    }

    fn optional(f: &Field) -> bool {
        f.cond.is_some() || f.selector.is_some()
    }

    fn record_type(&mut self, r: &Record) {
        let kind = if r.kind == RecordKind::Frame {
            "frame"
        } else {
            "record"
        };
        self.docs(&r.docs, &format!("The {kind} `{}`.", r.name));
        self.code.open(format!("struct {} {{", r.name));
        let fields = Self::value_fields(r);
        for f in &fields {
            self.docs(&f.docs, &format!("The `{}` field.", f.name));
            let ty = self.cpp_type(&f.ty);
            if Self::optional(f) {
                self.code
                    .line(format!("std::optional<{ty}> {};", ident(&f.name)));
            } else {
                self.code
                    .line(format!("{ty} {}{};", ident(&f.name), Self::init(&f.ty)));
            }
        }
        if !fields.is_empty() {
            self.code.blank();
        }
        let n = &r.name;
        if fields.is_empty() {
            self.code.line(format!(
                "friend bool operator==(const {n}&, const {n}&) {{ return true; }}"
            ));
        } else {
            self.code.open(format!(
                "friend bool operator==(const {n}& a, const {n}& b) {{"
            ));
            let terms: Vec<String> = fields
                .iter()
                .map(|f| format!("a.{id} == b.{id}", id = ident(&f.name)))
                .collect();
            for (i, t) in terms.iter().enumerate() {
                let last = i + 1 == terms.len();
                let end = if last { ";" } else { "" };
                if i == 0 {
                    self.code.line(format!("return {t}{end}"));
                } else {
                    self.code.line(format!("    && {t}{end}"));
                }
            }
            self.code.close("}");
        }
        self.code.line(format!(
            "friend bool operator!=(const {n}& a, const {n}& b) {{ return !(a == b); }}"
        ));
        self.code.close("};");
    }

    fn union_type(&mut self, u: &Union) {
        self.docs(&u.docs, &format!("The union `{}`.", u.name));
        self.code.line("///");
        self.code.line(format!(
            "/// A tag of {} bits, then its variant:",
            u.tag.bits
        ));
        for v in &u.variants {
            let doc = v.docs.doc.join(" ");
            if doc.is_empty() {
                self.code.line(format!(
                    "/// - {} (tag {}, `{}` in JSON)",
                    v.record,
                    v.tag,
                    snake_case(&v.record)
                ));
            } else {
                self.code.line(format!(
                    "/// - {} (tag {}, `{}` in JSON): {doc}",
                    v.record,
                    v.tag,
                    snake_case(&v.record)
                ));
            }
        }
        let variants: Vec<&str> = u.variants.iter().map(|v| v.record.as_str()).collect();
        self.code.line(format!(
            "using {} = std::variant<{}>;",
            u.name,
            variants.join(", ")
        ));
    }

    // ---- function signatures ----

    fn prototypes(&mut self, spec: &Spec) {
        self.code.blank();
        self.code.line("// ---- functions ----");
        self.code.blank();
        self.code.line(
            "// The steps frames are read and written in: each reads or writes one value at the reader's",
        );
        self.code.line(
            "// or writer's position and returns true, or records the error and returns false.",
        );
        self.code.line("namespace detail {");
        self.code.line("");
        let mut public = Vec::new();
        for file in &spec.files {
            for item in &file.items {
                let (private, open) = self.signatures(item);
                for s in private {
                    self.code.line(format!("{s};"));
                }
                public.extend(open);
            }
        }
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        for s in public {
            self.code.line(format!("{s};"));
        }
    }

    /// The signatures of an item's functions: those in `detail`, and the public ones.
    fn signatures(&self, item: &Item) -> (Vec<String>, Vec<String>) {
        let mut private = Vec::new();
        let mut public = Vec::new();
        match item {
            Item::Const(_) => {}
            Item::Bits(b) => {
                let n = &b.name;
                if self.bits_used.contains(&(n.clone(), false)) {
                    private.push(sig_read(n, false, false, false));
                    private.push(sig_write(n, false, false, false));
                }
                if self.bits_used.contains(&(n.clone(), true)) {
                    private.push(sig_read(n, true, false, false));
                    private.push(sig_write(n, true, false, false));
                }
                public.push(sig_to_json(n, false));
                public.push(sig_from_json(n, false));
            }
            Item::Record(r) => {
                let n = &r.name;
                let empty = r.fields.is_empty();
                let no_values = Self::value_fields(r).is_empty();
                private.push(sig_read(n, r.packed, empty, no_values));
                private.push(sig_write(n, r.packed, empty, no_values));
                if r.packed {
                    public.push(sig_len(n, "bit_len", false));
                } else {
                    if self.key_of(n).is_some() {
                        private.push(sig_read_after(n));
                        private.push(sig_write_after(n));
                        public.push(sig_len_after(n, false));
                    }
                    public.push(sig_len(n, "encoded_len", false));
                }
                public.push(sig_to_json(n, no_values));
                public.push(sig_from_json(n, no_values));
            }
            Item::Union(u) => {
                let n = &u.name;
                private.push(sig_read(n, false, false, false));
                private.push(sig_write(n, false, false, false));
                public.push(format!(
                    "inline {} tag(const {n}& v)",
                    uint_type(u.tag.bits)
                ));
                public.push(sig_len(n, "encoded_len", false));
                public.push(sig_to_json(n, false));
                public.push(sig_from_json(n, false));
            }
        }
        (private, public)
    }

    /// Opens the definition of a function: its signature, wrapped when long.
    fn open_fn(&mut self, sig: &str) {
        let lines = match (sig.find('('), sig.ends_with(')')) {
            (Some(open), true) => {
                let args: Vec<String> = sig[open + 1..sig.len() - 1]
                    .split(", ")
                    .map(str::to_string)
                    .collect();
                fill(&sig[..=open], &args, ") {")
            }
            _ => vec![format!("{sig} {{")],
        };
        let last = lines.len() - 1;
        for (i, l) in lines.into_iter().enumerate() {
            if i == last {
                self.code.open(l);
            } else {
                self.code.line(l);
            }
        }
    }

    // ---- bit sets ----

    fn bits_fns(&mut self, b: &Bits) {
        let n = &b.name;
        self.code.blank();
        self.code.line(format!("// ---- {n} ----"));
        self.code.blank();
        self.code.line("namespace detail {");
        if self.bits_used.contains(&(n.clone(), false)) {
            let bytes = b.width / 8;
            let be = self.be(None);
            self.code.blank();
            self.code
                .line("/// Reads the set, refusing what check() refuses.");
            self.open_fn(&sig_read(n, false, false, false));
            self.code.line("const size_t at = r.pos();");
            self.code.line(format!(
                "if (!r.read_uint({bytes}, {be}, out.bits)) return false;"
            ));
            self.code
                .line("if (auto kind = out.check()) return r.fail(*kind, at);");
            self.code.line("return true;");
            self.code.close("}");
            self.code.blank();
            self.code
                .line("/// Writes the set, refusing what check() refuses.");
            self.open_fn(&sig_write(n, false, false, false));
            self.code
                .line("if (auto kind = v.check()) return w.fail(*kind);");
            self.code
                .line(format!("return w.write_uint({bytes}, {be}, v.bits);"));
            self.code.close("}");
        }
        if self.bits_used.contains(&(n.clone(), true)) {
            self.code.blank();
            self.code
                .line("/// Reads the set from a bit stream, refusing what check() refuses.");
            self.open_fn(&sig_read(n, true, false, false));
            self.code.line("const size_t at = b.bit_pos();");
            self.code.line(format!(
                "if (!b.read_uint({}, out.bits)) return false;",
                b.width
            ));
            self.code
                .line("if (auto kind = out.check()) return b.fail(*kind, at);");
            self.code.line("return true;");
            self.code.close("}");
            self.code.blank();
            self.code
                .line("/// Writes the set into a bit stream, refusing what check() refuses.");
            self.open_fn(&sig_write(n, true, false, false));
            self.code
                .line("if (auto kind = v.check()) return w.fail(*kind);");
            self.code
                .line(format!("return w.write_uint({}, v.bits);", b.width));
            self.code.close("}");
        }
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        self.code
            .line("/// The set as the list of its bits' names (`[\"KEYFRAME\", \"CHECK\"]`).");
        self.open_fn(&sig_to_json(n, false));
        self.code
            .line(format!("return json::bit_names({n}::NAMES, v.bits);"));
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// The set from the list of its bits' names; an unknown name is an error.");
        self.open_fn(&sig_from_json(n, false));
        self.code.line(format!(
            "return json::get_bits(j, {n}::NAMES, out.bits, error);"
        ));
        self.code.close("}");
    }

    // ---- conditions ----

    /// A condition as C++, with `name` giving the expression of each field it mentions.
    fn cond_expr(&self, cond: &Cond, r: &Record, name: &dyn Fn(&str) -> String) -> String {
        super::cond_expr(cond, r, name, &|v| literal(i128::from(v)))
    }

    fn field_ref(&self, r: &Record, name: &str, encode: bool) -> String {
        let field = r.fields.iter().find(|f| f.name == name);
        if let Some(c) = field.and_then(|f| f.constant) {
            return literal(c);
        }
        if count_fields(r).contains(&name) {
            if encode {
                return format!("v.{}.size()", ident(&Self::counted_array(r, name)));
            }
            return local(name);
        }
        if encode {
            format!("v.{}", ident(name))
        } else {
            format!("out.{}", ident(name))
        }
    }

    /// The array a count field counts.
    fn counted_array(r: &Record, count: &str) -> String {
        super::counted_array(r, count).to_string()
    }

    /// When a field is present: its selector's bit and its condition, or None when always.
    fn presence(&self, f: &Field, r: &Record, encode: bool) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(sel) = &f.selector {
            let bits = r
                .fields
                .iter()
                .find(|x| x.name == sel.mask)
                .and_then(|x| match &x.ty {
                    Type::Named { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            parts.push(format!(
                "{}.contains({bits}::{})",
                self.field_ref(r, &sel.mask, encode),
                sel.bit
            ));
        }
        if let Some(c) = &f.cond {
            parts.push(self.cond_expr(c, r, &|name| self.field_ref(r, name, encode)));
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join(" && "))
        }
    }

    // ---- decoding ----

    /// Lines reading a value of `ty` into the lvalue `target`, from `r` (or `b` in a packed
    /// record); a failure returns with `path` added to the error.
    fn decode(
        &self,
        ty: &Type,
        packed: bool,
        target: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let rd = if packed { "b" } else { "r" };
        let bail = bail(rd, path);
        let step = |s: String| check(&[s], &bail);
        match ty {
            Type::Int(t) => {
                let f = if t.signed { "read_int" } else { "read_uint" };
                if packed {
                    step(format!("b.{f}({}, {target})", t.bits))
                } else {
                    step(format!(
                        "r.{f}({}, {}, {target})",
                        t.bits / 8,
                        self.be(t.endian)
                    ))
                }
            }
            Type::Float { bits, endian } => {
                if packed {
                    step(format!("b.read_f{bits}({target})"))
                } else {
                    step(format!("r.read_f{bits}({}, {target})", self.be(*endian)))
                }
            }
            Type::Bool => step(format!("{rd}.read_bool({target})")),
            Type::Varint { bits } => step(format!("r.read_varint({bits}, {target})")),
            Type::Zigzag { bits } => step(format!("r.read_zigzag({bits}, {target})")),
            Type::Bytes => step(format!("r.read_bytes({target})")),
            Type::OptBytes => step(format!("r.read_opt_bytes({target})")),
            Type::Quant { wire, num, den } => {
                let mut lines = vec!["{".to_string()];
                lines.push(format!("    {} q = 0;", self.cpp_type(wire)));
                lines.extend(indent(self.decode(wire, packed, "q", path, depth)));
                lines.push(format!(
                    "    {target} = static_cast<double>(q) * {};",
                    scale(*num, *den)
                ));
                lines.push("}".into());
                lines
            }
            Type::Named { name, .. } => match self.index.get(name) {
                Some(Decl::Bits(_)) if packed => step(format!("read_bits(b, {target})")),
                Some(Decl::Record(rec)) if packed => {
                    debug_assert!(rec.packed, "the validator keeps packed records packed");
                    step(format!("read_bits(b, {target})"))
                }
                Some(Decl::Record(rec)) if rec.packed => step(format!(
                    "r.packed([&](rt::BitReader& b) {{ return read_bits(b, {target}); }})"
                )),
                _ => step(format!("read(r, {target})")),
            },
            Type::Array(a) => self.decode_array(a, packed, target, None, path, depth),
        }
    }

    /// Lines reading a list into `target`; `count` is the local holding its count field, when
    /// the array has one. The count is checked against what remains before anything is
    /// allocated.
    fn decode_array(
        &self,
        a: &Array,
        packed: bool,
        target: &str,
        count: Option<&str>,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let min_bits = self.index.min_bits(&a.elem, packed);
        let (rd, pos, min) = if packed {
            ("b", "bit_pos", min_bits)
        } else {
            ("r", "pos", min_bits.div_ceil(8))
        };
        let mut lines = vec!["{".to_string()];
        let count = match (&a.count, count) {
            (Count::Prefix(t), _) => {
                let c = format!("c{depth}");
                lines.push(format!("    {} {c} = 0;", self.cpp_type(t)));
                lines.extend(indent(self.decode(t, packed, &c, path, depth)));
                c
            }
            (Count::Field { .. }, Some(c)) => c.to_string(),
            (Count::Field { name, .. }, None) => local(name),
        };
        let (n, i, item, prev) = (
            format!("n{depth}"),
            format!("i{depth}"),
            format!("item{depth}"),
            format!("prev{depth}"),
        );
        lines.push(format!("    size_t {n} = 0;"));
        lines.extend(indent(check(
            &[format!("{rd}.count({count}, {min}, {rd}.{pos}(), {n})")],
            &bail(rd, path),
        )));
        lines.push(format!("    {target}.clear();"));
        lines.push(format!("    {target}.reserve({n});"));
        if a.ascending.is_some() {
            lines.push(format!("    std::optional<uint64_t> {prev};"));
        }
        lines.push(format!("    for (size_t {i} = 0; {i} < {n}; ++{i}) {{"));
        lines.push(format!("        {} {item}{{}};", self.cpp_type(&a.elem)));
        let inner = with_index(path, &i);
        let body = match &a.ascending {
            Some(asc) if asc.key.is_some() => check(
                &[format!("read_after(r, {item}, {prev})")],
                &bail("r", &inner),
            ),
            Some(_) => {
                let (bits, raw) = Self::raw_of(&a.elem);
                let mut body = vec![
                    "{".to_string(),
                    "    const size_t at = r.pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                body.extend(indent(check(
                    &[
                        self.read_raw(&raw, "delta"),
                        format!("r.ascending({prev}, delta, {bits}, at, {item})"),
                    ],
                    &bail("r", &inner),
                )));
                body.push("}".into());
                body
            }
            None => self.decode(&a.elem, packed, &item, &inner, depth + 1),
        };
        lines.extend(indent(indent(body)));
        let scalar = matches!(
            a.elem,
            Type::Int(_)
                | Type::Float { .. }
                | Type::Bool
                | Type::Varint { .. }
                | Type::Zigzag { .. }
                | Type::Quant { .. }
        );
        if scalar {
            lines.push(format!("        {target}.push_back({item});"));
        } else {
            lines.push(format!("        {target}.push_back(std::move({item}));"));
        }
        lines.push("    }".into());
        lines.push("}".into());
        lines
    }

    /// The step reading the raw wire integer of an ascending value (a varint or an unsigned
    /// integer) into the `uint64_t` lvalue `target`.
    fn read_raw(&self, raw: &Type, target: &str) -> String {
        match raw {
            Type::Int(t) => format!(
                "r.read_uint({}, {}, {target})",
                t.bits / 8,
                self.be(t.endian)
            ),
            Type::Varint { bits } => format!("r.read_varint({bits}, {target})"),
            _ => format!("r.read_varint(64, {target})"),
        }
    }

    /// The step writing the raw wire integer of an ascending value.
    fn write_raw(&self, raw: &Type, src: &str) -> String {
        match raw {
            Type::Int(t) => format!("w.write_uint({}, {}, {src})", t.bits / 8, self.be(t.endian)),
            Type::Varint { bits } => format!("w.write_varint({bits}, {src})"),
            _ => format!("w.write_varint(64, {src})"),
        }
    }

    /// The width and raw wire type of a value that ascends: a varint or an unsigned integer.
    fn raw_of(ty: &Type) -> (u8, Type) {
        match ty {
            Type::Varint { bits } => (*bits, Type::Varint { bits: *bits }),
            Type::Int(t) => (
                t.bits,
                Type::Int(IntType {
                    signed: false,
                    bits: t.bits,
                    endian: t.endian,
                }),
            ),
            _ => (64, Type::Varint { bits: 64 }),
        }
    }

    fn read_fn(&mut self, r: &Record, key: Option<&str>, packed: bool) {
        let counts = count_fields(r);
        let empty = r.fields.is_empty();
        let no_values = Self::value_fields(r).is_empty();
        let rd = if packed { "b" } else { "r" };
        if packed {
            self.code.line("/// Reads the record from a bit stream.");
            self.open_fn(&sig_read(&r.name, true, empty, no_values));
        } else if key.is_some() {
            self.code.line(
                "/// Reads the record within an ascending list: its key is the difference from",
            );
            self.code
                .line("/// `prev`, the previous element's key (absolute for the first).");
            self.open_fn(&sig_read_after(&r.name));
        } else {
            self.code.line("/// Reads the record.");
            self.open_fn(&sig_read(&r.name, false, empty, no_values));
        }
        for f in &r.fields {
            let path = field_path(&f.name);
            if let Some(c) = f.constant {
                let (at, fail) = if packed {
                    ("b.bit_pos()", "b.fail")
                } else {
                    ("r.pos()", "r.fail")
                };
                let mut lines = vec![
                    "{".to_string(),
                    format!("    const size_t at = {at};"),
                    format!("    {} value{};", self.cpp_type(&f.ty), Self::init(&f.ty)),
                ];
                lines.extend(indent(self.decode(&f.ty, packed, "value", &path, 0)));
                lines.push(format!("    if (value != {}) {{", literal(c)));
                lines.push(format!("        {fail}(rt::ErrorKind::bad_constant, at);"));
                lines.push(format!("        {}", bail(rd, &path)));
                lines.push("    }".into());
                lines.push("}".into());
                self.lines(lines);
                continue;
            }
            if counts.contains(&f.name.as_str()) {
                self.code.line(format!(
                    "{} {}{};",
                    self.cpp_type(&f.ty),
                    local(&f.name),
                    Self::init(&f.ty)
                ));
                let lines = self.decode(&f.ty, packed, &local(&f.name), &path, 0);
                self.lines(lines);
                continue;
            }
            let target = format!("out.{}", ident(&f.name));
            if Some(f.name.as_str()) == key {
                let (bits, raw) = Self::raw_of(&f.ty);
                let mut lines = vec![
                    "{".to_string(),
                    "    const size_t at = r.pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                lines.extend(indent(check(
                    &[
                        self.read_raw(&raw, "delta"),
                        format!("r.ascending(prev, delta, {bits}, at, {target})"),
                    ],
                    &bail("r", &path),
                )));
                lines.push("}".into());
                self.lines(lines);
                continue;
            }
            let decode = |g: &Self, target: &str| match &f.ty {
                Type::Array(a) => match &a.count {
                    Count::Field { name, .. } => {
                        g.decode_array(a, packed, target, Some(&local(name)), &path, 0)
                    }
                    Count::Prefix(_) => g.decode(&f.ty, packed, target, &path, 0),
                },
                ty => g.decode(ty, packed, target, &path, 0),
            };
            match self.presence(f, r, false) {
                Some(cond) => {
                    let mut lines = vec![format!("if ({cond}) {{")];
                    if decode(self, "@").len() == 1 && !matches!(f.ty, Type::Array(_)) {
                        lines.extend(indent(decode(self, &format!("{target}.emplace()"))));
                    } else {
                        lines.push(format!("    auto& value = {target}.emplace();"));
                        lines.extend(indent(decode(self, "value")));
                    }
                    lines.push("} else {".into());
                    lines.push(format!("    {target}.reset();"));
                    lines.push("}".into());
                    self.lines(lines);
                }
                None => {
                    let lines = decode(self, &target);
                    self.lines(lines);
                }
            }
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    // ---- encoding ----

    /// Lines writing the value `src` of type `ty` with `w` (a `Writer`, or a `BitWriter` in a
    /// packed record); a failure returns with `path` added to the error.
    fn encode(
        &self,
        ty: &Type,
        packed: bool,
        src: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let bail = bail("w", path);
        let step = |s: String| check(&[s], &bail);
        match ty {
            Type::Int(t) => {
                let f = if t.signed { "write_int" } else { "write_uint" };
                if packed {
                    step(format!("w.{f}({}, {src})", t.bits))
                } else {
                    step(format!(
                        "w.{f}({}, {}, {src})",
                        t.bits / 8,
                        self.be(t.endian)
                    ))
                }
            }
            Type::Float { bits, endian } => {
                if packed {
                    step(format!("w.write_f{bits}({src})"))
                } else {
                    step(format!("w.write_f{bits}({}, {src})", self.be(*endian)))
                }
            }
            Type::Bool => vec![format!("w.write_bool({src});")],
            Type::Varint { bits } => step(format!("w.write_varint({bits}, {src})")),
            Type::Zigzag { bits } => step(format!("w.write_zigzag({bits}, {src})")),
            Type::Bytes => step(format!("w.write_bytes({src})")),
            Type::OptBytes => step(format!("w.write_opt_bytes({src})")),
            Type::Quant { wire, num, den } => {
                let s = scale(*num, *den);
                let (signed, bits) = match wire.as_ref() {
                    Type::Int(t) => (t.signed, t.bits),
                    Type::Varint { bits } => (false, *bits),
                    Type::Zigzag { bits } => (true, *bits),
                    _ => (false, 64),
                };
                let t = IntType {
                    signed,
                    bits,
                    endian: None,
                };
                let mut lines = vec!["{".to_string()];
                let quantize = if signed {
                    lines.push("    int64_t q = 0;".into());
                    format!(
                        "w.quantize_int({src}, {s}, {}, {}, q)",
                        literal(t.min()),
                        literal(t.max())
                    )
                } else {
                    lines.push("    uint64_t q = 0;".into());
                    format!("w.quantize_uint({src}, {s}, {}, q)", literal(t.max()))
                };
                let write = match wire.as_ref() {
                    Type::Int(t) => {
                        let f = if t.signed { "write_int" } else { "write_uint" };
                        if packed {
                            format!("w.{f}({}, q)", t.bits)
                        } else {
                            format!("w.{f}({}, {}, q)", t.bits / 8, self.be(t.endian))
                        }
                    }
                    Type::Zigzag { bits } => format!("w.write_zigzag({bits}, q)"),
                    _ => format!("w.write_varint({bits}, q)"),
                };
                lines.extend(indent(check(&[quantize, write], &bail)));
                lines.push("}".into());
                lines
            }
            Type::Named { name, .. } => match self.index.get(name) {
                Some(Decl::Record(rec)) if rec.packed && !packed => {
                    let mut lines = vec!["{".to_string(), "    rt::BitWriter bits(w);".into()];
                    lines.extend(indent(check(&[format!("write_bits(bits, {src})")], &bail)));
                    lines.push("    bits.finish();".into());
                    lines.push("}".into());
                    lines
                }
                _ if packed => step(format!("write_bits(w, {src})")),
                _ => step(format!("write(w, {src})")),
            },
            Type::Array(a) => self.encode_array(a, packed, src, path, depth),
        }
    }

    fn encode_array(
        &self,
        a: &Array,
        packed: bool,
        src: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        if let Count::Prefix(t) = &a.count {
            lines.extend(self.encode(t, packed, &format!("{src}.size()"), path, depth));
        }
        let (i, item, prev) = (
            format!("i{depth}"),
            format!("item{depth}"),
            format!("prev{depth}"),
        );
        let inner = with_index(path, &i);
        let body: Vec<String> = match &a.ascending {
            Some(asc) if asc.key.is_some() => check(
                &[format!("write_after(w, {item}, {prev})")],
                &bail("w", &inner),
            ),
            Some(_) => {
                let (bits, raw) = Self::raw_of(&a.elem);
                let mut body = vec!["uint64_t delta = 0;".to_string()];
                body.extend(check(
                    &[
                        format!("w.ascending({prev}, {item}, {bits}, delta)"),
                        self.write_raw(&raw, "delta"),
                    ],
                    &bail("w", &inner),
                ));
                body
            }
            None => self.encode(&a.elem, packed, &item, &inner, depth + 1),
        };
        let mut looped = Vec::new();
        if a.ascending.is_some() {
            looped.push(format!("std::optional<uint64_t> {prev};"));
        }
        looped.push(format!(
            "for (size_t {i} = 0; {i} < {src}.size(); ++{i}) {{"
        ));
        looped.push(format!("    const auto& {item} = {src}[{i}];"));
        looped.extend(indent(body));
        looped.push("}".into());
        if a.ascending.is_some() {
            lines.push("{".into());
            lines.extend(indent(looped));
            lines.push("}".into());
        } else {
            lines.extend(looped);
        }
        lines
    }

    fn write_fn(&mut self, r: &Record, key: Option<&str>, packed: bool) {
        let counts = count_fields(r);
        let empty = r.fields.is_empty();
        let no_values = Self::value_fields(r).is_empty();
        if packed {
            self.code.line("/// Writes the record into a bit stream.");
            self.open_fn(&sig_write(&r.name, true, empty, no_values));
        } else if key.is_some() {
            self.code.line(
                "/// Writes the record within an ascending list: its key as the difference from",
            );
            self.code
                .line("/// `prev`, the previous element's key (absolute for the first).");
            self.open_fn(&sig_write_after(&r.name));
        } else {
            self.code.line("/// Writes the record.");
            self.open_fn(&sig_write(&r.name, false, empty, no_values));
        }
        for f in &r.fields {
            let path = field_path(&f.name);
            if let Some(c) = f.constant {
                let lines = self.encode(&f.ty, packed, &literal(c), &path, 0);
                self.lines(lines);
                continue;
            }
            if counts.contains(&f.name.as_str()) {
                let array = ident(&Self::counted_array(r, &f.name));
                let lines = self.encode(&f.ty, packed, &format!("v.{array}.size()"), &path, 0);
                self.lines(lines);
                continue;
            }
            let src = format!("v.{}", ident(&f.name));
            if Some(f.name.as_str()) == key {
                let (bits, raw) = Self::raw_of(&f.ty);
                let mut lines = vec!["{".to_string(), "    uint64_t delta = 0;".into()];
                lines.extend(indent(check(
                    &[
                        format!("w.ascending(prev, {src}, {bits}, delta)"),
                        self.write_raw(&raw, "delta"),
                    ],
                    &bail("w", &path),
                )));
                lines.push("}".into());
                self.lines(lines);
                continue;
            }
            match self.presence(f, r, true) {
                Some(cond) => {
                    let lines = check(
                        &[format!("w.presence({src}.has_value(), {cond})")],
                        &bail("w", &path),
                    );
                    self.lines(lines);
                    let mut lines = vec![format!("if ({src}) {{")];
                    if self.encode(&f.ty, packed, "@", &path, 0).len() == 1
                        && !matches!(f.ty, Type::Array(_))
                    {
                        lines.extend(indent(self.encode(
                            &f.ty,
                            packed,
                            &format!("*{src}"),
                            &path,
                            0,
                        )));
                    } else {
                        lines.push(format!("    const auto& value = *{src};"));
                        lines.extend(indent(self.encode(&f.ty, packed, "value", &path, 0)));
                    }
                    lines.push("}".into());
                    self.lines(lines);
                }
                None => {
                    let lines = self.encode(&f.ty, packed, &src, &path, 0);
                    self.lines(lines);
                }
            }
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    // ---- lengths ----

    /// The fixed size of `ty` in bytes (bits when packed), if it has one.
    fn fixed(&self, ty: &Type, packed: bool) -> Option<u64> {
        let min = self.index.min_bits(ty, packed);
        let max = self.index.max_bits(ty, packed)?;
        let fixed_kind = !matches!(ty, Type::Varint { .. } | Type::Zigzag { .. })
            && !matches!(ty, Type::Quant { wire, .. } if matches!(wire.as_ref(), Type::Varint { .. } | Type::Zigzag { .. }));
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

    /// Lines adding the encoded size of `src` (bytes, or bits when packed) to `n`.
    fn len(&self, ty: &Type, packed: bool, src: &str, depth: usize) -> Vec<String> {
        if let Some(k) = self.fixed(ty, packed) {
            return vec![format!("n += {k};")];
        }
        let add = |e: String| vec![format!("n += {e};")];
        match ty {
            Type::Varint { .. } => add(format!("rt::varint_len({src})")),
            Type::Zigzag { .. } => add(format!("rt::varint_len(rt::zigzag({src}))")),
            Type::Bytes => add(format!("rt::bytes_len({src})")),
            Type::OptBytes => add(format!("rt::opt_bytes_len({src})")),
            Type::Quant { wire, num, den } => {
                let q = format!("rt::quantize({src}, {})", scale(*num, *den));
                match wire.as_ref() {
                    Type::Zigzag { .. } => {
                        add(format!("rt::varint_len(rt::zigzag(rt::saturate_i64({q})))"))
                    }
                    _ => add(format!("rt::varint_len(rt::saturate_u64({q}))")),
                }
            }
            Type::Named { name, .. } => match self.index.get(name) {
                Some(Decl::Record(rec)) if rec.packed && !packed => {
                    add(format!("(bit_len({src}) + 7) / 8"))
                }
                _ if packed => add(format!("bit_len({src})")),
                _ => add(format!("encoded_len({src})")),
            },
            Type::Array(a) => {
                let mut lines = Vec::new();
                if let Count::Prefix(t) = &a.count {
                    lines.push(match self.fixed(t, packed) {
                        Some(k) => format!("n += {k};"),
                        None => format!("n += rt::varint_len({src}.size());"),
                    });
                }
                let x = format!("x{depth}");
                match (&a.ascending, self.fixed(&a.elem, packed)) {
                    (Some(asc), _) if asc.key.is_some() => {
                        let prev = format!("prev{depth}");
                        lines.push("{".into());
                        lines.push(format!("    std::optional<uint64_t> {prev};"));
                        lines.push(format!("    for (const auto& {x} : {src}) {{"));
                        lines.push(format!("        n += encoded_len_after({x}, {prev});"));
                        lines.push("    }".into());
                        lines.push("}".into());
                    }
                    (Some(_), _) if matches!(a.elem, Type::Varint { .. }) => {
                        lines.push(format!("n += rt::ascending_varints_len({src});"));
                    }
                    (_, Some(k)) => lines.push(format!("n += {src}.size() * {k};")),
                    (_, None) => {
                        lines.push(format!("for (const auto& {x} : {src}) {{"));
                        lines.extend(indent(self.len(&a.elem, packed, &x, depth + 1)));
                        lines.push("}".into());
                    }
                }
                lines
            }
            // Fixed-size kinds are handled above.
            _ => Vec::new(),
        }
    }

    fn len_fn(&mut self, r: &Record, key: Option<&str>, packed: bool) {
        let counts = count_fields(r);
        let mut fixed = 0u64;
        let mut lines: Vec<String> = Vec::new();
        for f in &r.fields {
            if let Some(c) = f.constant {
                fixed += match &f.ty {
                    Type::Varint { .. } => leb_len(c as u64),
                    Type::Zigzag { .. } => leb_len((((c as i64) << 1) ^ ((c as i64) >> 63)) as u64),
                    ty => self.fixed(ty, packed).unwrap_or(0),
                };
                continue;
            }
            if counts.contains(&f.name.as_str()) {
                match self.fixed(&f.ty, packed) {
                    Some(k) => fixed += k,
                    None => lines.push(format!(
                        "n += rt::varint_len(v.{}.size());",
                        ident(&Self::counted_array(r, &f.name))
                    )),
                }
                continue;
            }
            let src = format!("v.{}", ident(&f.name));
            if Some(f.name.as_str()) == key {
                match self.fixed(&f.ty, packed) {
                    Some(k) => {
                        fixed += k;
                        lines.push(format!("rt::ascending_step(prev, {src});"));
                    }
                    None => lines.push(format!(
                        "n += rt::varint_len(rt::ascending_step(prev, {src}));"
                    )),
                }
                continue;
            }
            if Self::optional(f) {
                let single = self.len(&f.ty, packed, "@", 0);
                if single.len() == 1 && !matches!(f.ty, Type::Array(_)) {
                    let line = self.len(&f.ty, packed, &format!("*{src}"), 0).remove(0);
                    lines.push(format!("if ({src}) {{"));
                    lines.push(format!("    {line}"));
                    lines.push("}".into());
                } else {
                    lines.push(format!("if ({src}) {{"));
                    lines.push(format!("    const auto& value = *{src};"));
                    lines.extend(indent(self.len(&f.ty, packed, "value", 0)));
                    lines.push("}".into());
                }
            } else {
                match self.fixed(&f.ty, packed) {
                    Some(k) => fixed += k,
                    None => lines.extend(self.len(&f.ty, packed, &src, 0)),
                }
            }
        }
        let unused = lines.is_empty();
        if packed {
            self.code
                .line("/// The number of bits write_bits() writes.");
            self.open_fn(&sig_len(&r.name, "bit_len", unused));
        } else if key.is_some() {
            self.code
                .line("/// The number of bytes write_after() writes, moving `prev` on.");
            self.open_fn(&sig_len_after(&r.name, unused));
        } else {
            self.code.line("/// The number of bytes the record takes.");
            self.open_fn(&sig_len(&r.name, "encoded_len", unused));
        }
        if lines.is_empty() {
            self.code.line(format!("return {fixed};"));
        } else {
            self.code.line(format!("size_t n = {fixed};"));
            self.lines(lines);
            self.code.line("return n;");
        }
        self.code.close("}");
    }

    // ---- JSON ----

    /// The conversion to JSON of a value of `ty` where `ctx` says, as a function object of the
    /// runtime (`json::uint_number`, `json::named`, `json::list_of(...)`).
    fn json_conv(&self, ty: &Type, ctx: Ctx) -> String {
        let big = is_big(ty, ctx);
        match ty {
            Type::Int(IntType { signed: false, .. }) | Type::Varint { .. } => if big {
                "json::big_uint"
            } else {
                "json::uint_number"
            }
            .into(),
            Type::Int(_) | Type::Zigzag { .. } => if big {
                "json::big_int"
            } else {
                "json::int_number"
            }
            .into(),
            Type::Float { bits: 32, .. } => "json::f32_number".into(),
            Type::Float { .. } | Type::Quant { .. } => "json::f64_number".into(),
            Type::Bool => "json::boolean".into(),
            Type::Bytes => match ctx {
                Ctx::Field { .. } => "json::hex".into(),
                Ctx::Elem { .. } => "json::byte_list".into(),
            },
            Type::OptBytes => match ctx {
                Ctx::Field { optional: false } => "json::opt_hex".into(),
                _ => "json::opt_byte_list".into(),
            },
            Type::Named { .. } => "json::named".into(),
            Type::Array(a) => format!(
                "json::list_of({})",
                self.json_conv(&a.elem, Ctx::Elem { big: false })
            ),
        }
    }

    /// The conversion from JSON of a value of `ty` where `ctx` says (`json::get_uint`, ...).
    fn json_get(&self, ty: &Type, ctx: Ctx) -> String {
        let big = is_big(ty, ctx);
        match ty {
            Type::Int(IntType { signed: false, .. }) | Type::Varint { .. } => if big {
                "json::get_big_uint"
            } else {
                "json::get_uint"
            }
            .into(),
            Type::Int(_) | Type::Zigzag { .. } => if big {
                "json::get_big_int"
            } else {
                "json::get_int"
            }
            .into(),
            Type::Float { bits: 32, .. } => "json::get_f32".into(),
            Type::Float { .. } | Type::Quant { .. } => "json::get_f64".into(),
            Type::Bool => "json::get_bool".into(),
            Type::Bytes => match ctx {
                Ctx::Field { .. } => "json::get_hex".into(),
                Ctx::Elem { .. } => "json::get_byte_list".into(),
            },
            Type::OptBytes => match ctx {
                Ctx::Field { optional: false } => "json::get_opt_hex".into(),
                _ => "json::get_opt_byte_list".into(),
            },
            Type::Named { .. } => "json::get_named".into(),
            Type::Array(a) => format!(
                "json::get_list_of({})",
                self.json_get(&a.elem, Ctx::Elem { big: false })
            ),
        }
    }

    /// An expression of the JSON form of the field value `src`.
    fn json_out(&self, ty: &Type, src: &str, ctx: Ctx) -> String {
        match ty {
            Type::Named { .. } => format!("to_json({src})"),
            Type::Array(a) => {
                let inner = Ctx::Elem {
                    big: matches!(ctx, Ctx::Field { optional: false }),
                };
                format!("json::list({src}, {})", self.json_conv(&a.elem, inner))
            }
            _ => format!("{}({src})", self.json_conv(ty, ctx)),
        }
    }

    /// The step reading the JSON value `src` into the field lvalue `dst`.
    fn json_in(&self, ty: &Type, src: &str, dst: &str, ctx: Ctx) -> String {
        match ty {
            Type::Named { .. } => format!("from_json({src}, {dst}, error)"),
            Type::Array(a) => {
                let inner = Ctx::Elem {
                    big: matches!(ctx, Ctx::Field { optional: false }),
                };
                format!(
                    "json::get_list({src}, {dst}, error, {})",
                    self.json_get(&a.elem, inner)
                )
            }
            _ => format!("{}({src}, {dst}, error)", self.json_get(ty, ctx)),
        }
    }

    fn record_json(&mut self, r: &Record) {
        let fields = Self::value_fields(r);
        let n = &r.name;
        self.code.blank();
        self.code
            .line("/// The record's JSON form: its value fields in order, absent ones left out.");
        self.open_fn(&sig_to_json(n, fields.is_empty()));
        if fields.is_empty() {
            self.code.line("return json::Value::object();");
        } else {
            self.code.line("json::Value o = json::Value::object();");
            for f in &fields {
                let name = &f.name;
                let src = format!("v.{}", ident(name));
                if Self::optional(f) {
                    let value =
                        self.json_out(&f.ty, &format!("*{src}"), Ctx::Field { optional: true });
                    self.code.open(format!("if ({src}) {{"));
                    self.code.line(format!("o.set(\"{name}\", {value});"));
                    self.code.close("}");
                } else {
                    let value = self.json_out(&f.ty, &src, Ctx::Field { optional: false });
                    self.code.line(format!("o.set(\"{name}\", {value});"));
                }
            }
            self.code.line("return o;");
        }
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// The record from its JSON form; unknown, duplicate and missing members are errors.",
        );
        self.open_fn(&sig_from_json(n, fields.is_empty()));
        let names: Vec<String> = fields.iter().map(|f| format!("\"{}\"", f.name)).collect();
        let mut lines = fill("if (!json::check_object(j, {", &names, "}, error)) {");
        if lines.len() == 1 {
            lines = vec![format!(
                "if (!json::check_object(j, {{{}}}, error)) return false;",
                names.join(", ")
            )];
        } else {
            lines.push("    return false;".into());
            lines.push("}".into());
        }
        self.lines(lines);
        if !fields.is_empty() {
            self.code.line("const json::Value* m = nullptr;");
        }
        for f in &fields {
            let name = &f.name;
            let dst = format!("out.{}", ident(name));
            let bail = format!("return error.in(\"{name}\");");
            if Self::optional(f) {
                let ctx = Ctx::Field { optional: true };
                self.code
                    .open(format!("if (json::optional_member(j, \"{name}\", m)) {{"));
                let lines = check(
                    &[self.json_in(&f.ty, "*m", &format!("{dst}.emplace()"), ctx)],
                    &bail,
                );
                self.lines(lines);
                self.code.close("} else {");
                self.code.indent_line(format!("{dst}.reset();"));
                self.code.line("}");
            } else if matches!(f.ty, Type::OptBytes) {
                // Absent or null: no bytes.
                let ctx = Ctx::Field { optional: false };
                self.code
                    .open(format!("if (json::optional_member(j, \"{name}\", m)) {{"));
                let lines = check(&[self.json_in(&f.ty, "*m", &dst, ctx)], &bail);
                self.lines(lines);
                self.code.close("} else {");
                self.code.indent_line(format!("{dst}.reset();"));
                self.code.line("}");
            } else {
                let ctx = Ctx::Field { optional: false };
                self.code.line(format!(
                    "if (!json::required_member(j, \"{name}\", m, error)) return false;"
                ));
                let lines = check(&[self.json_in(&f.ty, "*m", &dst, ctx)], &bail);
                self.lines(lines);
            }
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    // ---- records ----

    fn record_fns(&mut self, r: &Record) {
        self.code.blank();
        self.code.line(format!("// ---- {} ----", r.name));
        let key = self.key_of(&r.name);
        self.code.blank();
        self.code.line("namespace detail {");
        self.code.line("");
        if r.packed {
            self.read_fn(r, None, true);
            self.code.blank();
            self.write_fn(r, None, true);
        } else if let Some(key) = &key {
            self.read_fn(r, Some(key), false);
            self.code.blank();
            self.code.line("/// Reads the record, its key absolute.");
            self.open_fn(&sig_read(&r.name, false, false, false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line("return read_after(r, out, prev);");
            self.code.close("}");
            self.code.blank();
            self.write_fn(r, Some(key), false);
            self.code.blank();
            self.code.line("/// Writes the record, its key absolute.");
            self.open_fn(&sig_write(&r.name, false, false, false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line("return write_after(w, v, prev);");
            self.code.close("}");
        } else {
            self.read_fn(r, None, false);
            self.code.blank();
            self.write_fn(r, None, false);
        }
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        if r.packed {
            self.len_fn(r, None, true);
        } else if let Some(key) = &key {
            self.len_fn(r, Some(key), false);
            self.code.blank();
            self.code
                .line("/// The number of bytes the record takes, its key absolute.");
            self.open_fn(&sig_len(&r.name, "encoded_len", false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line("return encoded_len_after(v, prev);");
            self.code.close("}");
        } else {
            self.len_fn(r, None, false);
        }
        self.record_json(r);
    }

    // ---- unions ----

    fn union_fns(&mut self, u: &Union) {
        let n = &u.name;
        let bytes = u.tag.bits / 8;
        let be = self.be(u.tag.endian);
        let tag_ty = uint_type(u.tag.bits);
        self.code.blank();
        self.code.line(format!("// ---- {n} ----"));
        self.code.blank();
        self.code.line("/// The tag of the variant `v` holds.");
        self.open_fn(&format!("inline {tag_ty} tag(const {n}& v)"));
        for v in &u.variants {
            self.code
                .open(format!("if (std::holds_alternative<{}>(v)) {{", v.record));
            self.code
                .line(format!("return {};", literal(i128::from(v.tag))));
            self.code.close("}");
        }
        self.code.line("return 0;");
        self.code.close("}");
        self.code.blank();
        self.code.line("namespace detail {");
        self.code.line("");
        self.code.line("/// Reads a tag, then its variant.");
        self.open_fn(&sig_read(n, false, false, false));
        self.code.line("const size_t at = r.pos();");
        self.code.line(format!("{tag_ty} tag = 0;"));
        self.code.line(format!(
            "if (!r.read_uint({bytes}, {be}, tag)) return false;"
        ));
        self.code.open("switch (tag) {");
        for v in &u.variants {
            self.code
                .line(format!("case {}:", literal(i128::from(v.tag))));
            self.code.indent_line(format!(
                "return read(r, out.emplace<{}>()) || r.in(\"{}\");",
                v.record,
                snake_case(&v.record)
            ));
        }
        self.code.line("default:");
        self.code
            .indent_line("return r.fail(rt::ErrorKind::unknown_tag, at);");
        self.code.close("}");
        self.code.close("}");
        self.code.blank();
        self.code.line("/// Writes the tag, then the variant.");
        self.open_fn(&sig_write(n, false, false, false));
        self.code.line(format!(
            "if (!w.write_uint({bytes}, {be}, protocol::tag(v))) return false;"
        ));
        for v in &u.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                v.record
            ));
            self.code.line(format!(
                "return write(w, *x) || w.in(\"{}\");",
                snake_case(&v.record)
            ));
            self.code.close("}");
        }
        self.code.line("return w.fail(rt::ErrorKind::unknown_tag);");
        self.code.close("}");
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        self.code
            .line("/// The number of bytes the tag and the variant take.");
        self.open_fn(&sig_len(n, "encoded_len", false));
        self.code.line(format!("size_t n = {bytes};"));
        for v in &u.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                v.record
            ));
            self.code.line("n += encoded_len(*x);");
            self.code.close("}");
        }
        self.code.line("return n;");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// The union's JSON form: an object with one member, the variant's name in snake_case.",
        );
        self.open_fn(&sig_to_json(n, false));
        self.code.line("json::Value o = json::Value::object();");
        for v in &u.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                v.record
            ));
            self.code.line(format!(
                "o.set(\"{}\", to_json(*x));",
                snake_case(&v.record)
            ));
            self.code.close("}");
        }
        self.code.line("return o;");
        self.code.close("}");
        self.code.blank();
        self.code.line("/// The union from its JSON form.");
        self.open_fn(&sig_from_json(n, false));
        self.code.line("std::string_view name;");
        self.code.line("const json::Value* m = nullptr;");
        self.code
            .line("if (!json::union_member(j, name, m, error)) return false;");
        let mut known = Vec::new();
        for v in &u.variants {
            let s = snake_case(&v.record);
            self.code.open(format!("if (name == \"{s}\") {{"));
            self.code.line(format!(
                "return from_json(*m, out.emplace<{}>(), error) || error.in(\"{s}\");",
                v.record
            ));
            self.code.close("}");
            known.push(format!("\"{s}\""));
        }
        let lines = fill("return json::unknown_variant(name, {", &known, "}, error);");
        self.lines(lines);
        self.code.close("}");
    }

    // ---- frames ----

    fn frames(&mut self, spec: &Spec) {
        let frames: Vec<&Record> = spec
            .files
            .iter()
            .flat_map(|f| f.items.iter())
            .filter_map(|i| match i {
                // The validator refuses packed frames: a frame is byte-aligned.
                Item::Record(r) if r.kind == RecordKind::Frame && !r.packed => Some(r),
                _ => None,
            })
            .collect();
        self.code.blank();
        self.code.line("// ---- frames ----");
        for r in &frames {
            let n = &r.name;
            let s = snake_case(n);
            self.code.blank();
            self.code.line(format!(
                "/// Decodes a whole `{s}` frame from the `len` bytes at `data`; bytes after it are an"
            ));
            self.code.line("/// error.");
            self.open_fn(&format!(
                "inline rt::Result<{n}> decode_{s}(const uint8_t* data, size_t len)"
            ));
            self.code.line("rt::Reader r(data, len);");
            self.code.line(format!("{n} frame;"));
            self.code
                .line("if (!detail::read(r, frame) || !r.finish()) return r.take_error();");
            self.code.line("return frame;");
            self.code.close("}");
            self.code.blank();
            self.code.line(format!(
                "/// Appends the bytes of a `{s}` frame to `out`; on error `out` may hold part of the"
            ));
            self.code.line("/// frame.");
            self.open_fn(&format!(
                "inline rt::EncodeStatus encode(const {n}& frame, std::vector<uint8_t>& out)"
            ));
            self.code.line("rt::Writer w(out);");
            self.code
                .line("if (!detail::write(w, frame)) return w.take_error();");
            self.code.line("return std::nullopt;");
            self.code.close("}");
            self.code.blank();
            self.code.line(format!(
                "/// The bytes of a `{s}` frame, or why it cannot be encoded."
            ));
            self.open_fn(&format!(
                "inline rt::Result<std::vector<uint8_t>, rt::EncodeError> to_bytes(const {n}& frame)"
            ));
            self.code.line("std::vector<uint8_t> out;");
            self.code.line("out.reserve(encoded_len(frame));");
            self.code
                .line("if (auto e = encode(frame, out)) return std::move(*e);");
            self.code.line("return out;");
            self.code.close("}");
        }
        self.code.blank();
        self.code.line(
            "/// The name of every frame of the spec (its snake_case name), as decode_frame_json and",
        );
        self.code.line("/// encode_frame_json take it.");
        self.code.open(format!(
            "inline constexpr std::array<std::string_view, {}> FRAME_NAMES = {{{{",
            frames.len()
        ));
        for r in &frames {
            self.code.line(format!("\"{}\",", snake_case(&r.name)));
        }
        self.code.close("}};");
        self.code.blank();
        self.code.line(
            "/// Calls `visitor(rt::FrameType<X>{})` with the frame type named `name`, so that code can work",
        );
        self.code.line(
            "/// on any frame chosen at run time (`using X = typename decltype(t)::type;`). Returns false,",
        );
        self.code
            .line("/// without calling it, when no frame has that name.");
        self.code.line("template <typename V>");
        self.open_fn("inline bool visit_frame(std::string_view name, V&& visitor)");
        for r in &frames {
            let s = snake_case(&r.name);
            self.code.open(format!("if (name == \"{s}\") {{"));
            self.code
                .line(format!("visitor(rt::FrameType<{}>{{}});", r.name));
            self.code.line("return true;");
            self.code.close("}");
        }
        self.code.line("return false;");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Decodes the `len` bytes at `data` as the frame named `name` into its JSON form.",
        );
        self.open_fn(
            "inline rt::Result<json::Value, rt::FrameError> decode_frame_json(std::string_view name, const uint8_t* data, size_t len)",
        );
        for r in &frames {
            let s = snake_case(&r.name);
            self.code.line(format!(
                "if (name == \"{s}\") return rt::decoded_json(decode_{s}(data, len));"
            ));
        }
        self.code
            .line("return rt::FrameError::unknown_frame(name);");
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// Encodes the JSON form of the frame named `name`.");
        self.open_fn(
            "inline rt::Result<std::vector<uint8_t>, rt::FrameError> encode_frame_json(std::string_view name, const json::Value& value)",
        );
        for r in &frames {
            let s = snake_case(&r.name);
            self.code.line(format!(
                "if (name == \"{s}\") return rt::encode_json<{}>(value);",
                r.name
            ));
        }
        self.code
            .line("return rt::FrameError::unknown_frame(name);");
        self.code.close("}");
    }
}

fn maybe_unused(yes: bool) -> &'static str {
    if yes {
        "[[maybe_unused]] "
    } else {
        ""
    }
}

/// `read(r, out)`, or `read_bits(b, out)` for a packed record or a bit set in one.
fn sig_read(n: &str, packed: bool, no_reads: bool, no_values: bool) -> String {
    let (name, reader) = if packed {
        ("read_bits", "rt::BitReader& b")
    } else {
        ("read", "rt::Reader& r")
    };
    format!(
        "inline bool {name}({}{reader}, {}{n}& out)",
        maybe_unused(no_reads),
        maybe_unused(no_values)
    )
}

/// `write(w, v)`, or `write_bits(w, v)` for a packed record or a bit set in one.
fn sig_write(n: &str, packed: bool, no_writes: bool, no_values: bool) -> String {
    let (name, writer) = if packed {
        ("write_bits", "rt::BitWriter& w")
    } else {
        ("write", "rt::Writer& w")
    };
    format!(
        "inline bool {name}({}{writer}, {}const {n}& v)",
        maybe_unused(no_writes),
        maybe_unused(no_values)
    )
}

fn sig_read_after(n: &str) -> String {
    format!("inline bool read_after(rt::Reader& r, {n}& out, std::optional<uint64_t>& prev)")
}

fn sig_write_after(n: &str) -> String {
    format!("inline bool write_after(rt::Writer& w, const {n}& v, std::optional<uint64_t>& prev)")
}

fn sig_len(n: &str, name: &str, unused: bool) -> String {
    format!("inline size_t {name}({}const {n}& v)", maybe_unused(unused))
}

fn sig_len_after(n: &str, unused: bool) -> String {
    format!(
        "inline size_t encoded_len_after({}const {n}& v, std::optional<uint64_t>& prev)",
        maybe_unused(unused)
    )
}

fn sig_to_json(n: &str, unused: bool) -> String {
    format!(
        "inline json::Value to_json({}const {n}& v)",
        maybe_unused(unused)
    )
}

fn sig_from_json(n: &str, unused: bool) -> String {
    format!(
        "inline bool from_json(const json::Value& j, {}{n}& out, json::Error& error)",
        maybe_unused(unused)
    )
}

/// The runtime header: layout-independent, the same for every spec (`ackwire_runtime.hpp`).
const RUNTIME: &str = r####"// @generated by ackwire-spec (the C++ backend's runtime). Do not edit: change spec/src/gen/cpp.rs.
//
// The runtime every generated ackwire C++ codec calls: the shared error taxonomy, a small
// result type, a checked reader and a writer, LEB128 varints and zigzag, bit streams for packed
// bodies, FNV-1a, and a minimal JSON value with a parser and a printer for the JSON form of
// frames (conformance/PROTOCOL.md). It is the same for every spec.
//
// Header-only C++17, the mirror of the Rust runtime (codec/src/rt.rs). Nothing here throws on
// bad input. Every read is bounds-checked; integers are assembled from bytes with shifts on
// unsigned types (no misaligned reads, no signed overflow); a count is checked against the
// remaining bytes before anything is allocated for it; a float is range-checked before it is
// converted to an integer.
//
// Every decoding and encoding step returns true when it succeeded. When one fails it records
// the error in its Reader or Writer (the first fault found, at the byte or bit where it was
// found) and returns false; each caller then adds its field to the error's path on the way out
// (`if (!r.read_uint(4, false, out.tick)) return r.in("tick");`), so a failed decode names the
// kind, the offset and the path (`changes[3].mask`) as every ackwire codec does.

#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ackwire {
namespace rt {

// ---- errors ----

/// What went wrong, from the taxonomy every ackwire codec shares (codec/src/error.rs).
enum class ErrorKind {
    /// The input ended inside a field.
    truncated,
    /// A constant field (a kind, a version) holds another value.
    bad_constant,
    /// A reserved bit of a bit set, or a padding bit of a packed body, is set.
    reserved_bit,
    /// A varint is longer than its value needs.
    non_canonical_varint,
    /// A value does not fit its field's width.
    over_width,
    /// A count is larger than the remaining bytes can hold.
    count_too_large,
    /// Bytes remain after the frame.
    trailing_bytes,
    /// A field's presence contradicts its condition, or a bit is set without the bit it
    /// requires.
    invalid_condition,
    /// A union's tag names no variant.
    unknown_tag,
    /// A float is NaN or infinite.
    non_finite,
    /// An ascending list does not ascend (a difference of 0).
    not_ascending,
};

/// The kind's name in the shared taxonomy (`truncated`, `bad_constant`, ...): what vectors and
/// the conformance protocol carry.
inline constexpr std::string_view kind_name(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::truncated:
            return "truncated";
        case ErrorKind::bad_constant:
            return "bad_constant";
        case ErrorKind::reserved_bit:
            return "reserved_bit";
        case ErrorKind::non_canonical_varint:
            return "non_canonical_varint";
        case ErrorKind::over_width:
            return "over_width";
        case ErrorKind::count_too_large:
            return "count_too_large";
        case ErrorKind::trailing_bytes:
            return "trailing_bytes";
        case ErrorKind::invalid_condition:
            return "invalid_condition";
        case ErrorKind::unknown_tag:
            return "unknown_tag";
        case ErrorKind::non_finite:
            return "non_finite";
        case ErrorKind::not_ascending:
            return "not_ascending";
    }
    return "unknown";
}

/// A field path such as `changes[3].mask`, built from the leaf outwards as an error travels up
/// through the decoders (nothing is spent on it while decoding succeeds).
class FieldPath {
public:
    /// Adds the field `name` (a string literal: only the pointer is kept) outside the path.
    void push_field(const char* name) { reversed_.push_back(Segment{name, 0}); }

    /// Adds the list element `index` outside the path.
    void push_index(size_t index) { reversed_.push_back(Segment{nullptr, index}); }

    /// Whether the path names nothing (the frame as a whole).
    bool empty() const { return reversed_.empty(); }

    /// The path as text, outermost first (`changes[3].mask`).
    std::string str() const {
        std::string out;
        for (size_t i = reversed_.size(); i-- > 0;) {
            const Segment& s = reversed_[i];
            if (s.name != nullptr) {
                if (!out.empty()) {
                    out += '.';
                }
                out += s.name;
            } else {
                out += '[';
                out += std::to_string(s.index);
                out += ']';
            }
        }
        return out;
    }

private:
    struct Segment {
        const char* name;  // null for a list index
        size_t index;
    };
    std::vector<Segment> reversed_;  // innermost first
};

/// Why a frame could not be decoded, and where.
struct DecodeError {
    /// What went wrong.
    ErrorKind kind;
    /// Byte offset of the fault from the start of the frame.
    size_t offset;
    /// Inside a bit-packed body: the bit offset of the fault from the start of the frame.
    std::optional<size_t> bit;
    /// The field being read.
    FieldPath path;

    /// An error of `error_kind` at byte `byte_offset`, with no path yet.
    DecodeError(ErrorKind error_kind, size_t byte_offset) : kind(error_kind), offset(byte_offset) {}

    /// An error of `error_kind` at bit `bit_offset` of the frame.
    static DecodeError at_bit(ErrorKind error_kind, size_t bit_offset) {
        DecodeError e(error_kind, bit_offset / 8);
        e.bit = bit_offset;
        return e;
    }

    /// The field path as text (`changes[3].mask`).
    std::string path_string() const { return path.str(); }

    /// `kind at byte N (bit B), field PATH`, as the Rust codec prints it.
    std::string message() const {
        std::string out(kind_name(kind));
        out += " at byte " + std::to_string(offset);
        if (bit) {
            out += " (bit " + std::to_string(*bit) + ")";
        }
        if (!path.empty()) {
            out += ", field " + path.str();
        }
        return out;
    }
};

/// Why a value could not be encoded: it is not one the canonical decoder would accept.
struct EncodeError {
    /// What is wrong with the value.
    ErrorKind kind;
    /// The field at fault.
    FieldPath path;

    /// An error of `error_kind`, with no path yet.
    explicit EncodeError(ErrorKind error_kind) : kind(error_kind) {}

    /// `cannot encode: kind in PATH`.
    std::string message() const {
        std::string out = "cannot encode: ";
        out += kind_name(kind);
        if (!path.empty()) {
            out += " in " + path.str();
        }
        return out;
    }
};

/// The outcome of encoding a frame: std::nullopt on success, else the error.
using EncodeStatus = std::optional<EncodeError>;

/// A value of `T`, or the error `E` that prevented it.
template <typename T, typename E = DecodeError>
class [[nodiscard]] Result {
public:
    /// A success.
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}

    /// A failure.
    Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}

    /// Whether this holds a value.
    bool ok() const { return v_.index() == 0; }

    /// Whether this holds a value.
    explicit operator bool() const { return ok(); }

    /// The value (only when ok()).
    const T& value() const& { return std::get<0>(v_); }

    /// The value (only when ok()).
    T& value() & { return std::get<0>(v_); }

    /// The value (only when ok()).
    T&& value() && { return std::get<0>(std::move(v_)); }

    /// The error (only when !ok()).
    const E& error() const { return std::get<1>(v_); }

private:
    std::variant<T, E> v_;
};

// ---- integers ----

/// `v` as two's complement: the signed value with the same 64 bits.
inline constexpr int64_t to_signed(uint64_t v) {
    return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
        ? static_cast<int64_t>(v)
        : -static_cast<int64_t>(~v) - 1;
}

/// The low `width` bits of `raw` (1 to 64) as a two's complement value, sign-extended.
inline constexpr int64_t sign_extend(uint64_t raw, unsigned width) {
    if (width < 64 && ((raw >> (width - 1)) & 1u) != 0) {
        raw |= ~uint64_t{0} << width;
    }
    return to_signed(raw);
}

/// Maps a signed value onto an unsigned one: (n << 1) ^ (n >> 63).
inline constexpr uint64_t zigzag(int64_t n) {
    return (static_cast<uint64_t>(n) << 1) ^ (n < 0 ? ~uint64_t{0} : uint64_t{0});
}

/// The inverse of zigzag().
inline constexpr int64_t unzigzag(uint64_t n) {
    return to_signed((n >> 1) ^ (uint64_t{0} - (n & 1u)));
}

/// How many bytes the LEB128 form of `v` takes.
inline constexpr size_t varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

/// Whether a signed value fits `width` bits of two's complement.
inline constexpr bool fits_int(int64_t v, unsigned width) {
    if (width >= 64) {
        return true;
    }
    const int64_t max = (int64_t{1} << (width - 1)) - 1;
    return v >= -max - 1 && v <= max;
}

// ---- quantization ----

/// The wire integer of a quantized value, as a double: round(value / scale), halves away from
/// zero, a non-finite value as 0 (DESIGN.md section 3: "a non-finite coordinate quantizes to 0").
inline double quantize(double value, double scale) {
    return std::isfinite(value) ? std::round(value / scale) : 0.0;
}

/// `v` converted as Rust's `v as u64` does: NaN and negatives to 0, too large to the maximum.
inline uint64_t saturate_u64(double v) {
    if (!(v >= 1.0)) {
        return 0;
    }
    if (v >= 18446744073709551616.0) {
        return std::numeric_limits<uint64_t>::max();
    }
    return static_cast<uint64_t>(v);
}

/// `v` converted as Rust's `v as i64` does: NaN to 0, out of range to the nearest bound.
inline int64_t saturate_i64(double v) {
    if (std::isnan(v)) {
        return 0;
    }
    if (v >= 9223372036854775808.0) {
        return std::numeric_limits<int64_t>::max();
    }
    if (v < -9223372036854775808.0) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(v);
}

// ---- reading ----

/// What Reader and BitReader share: the error a read stopped at, which the decoders' callers
/// extend with their fields on the way out.
class ReadErrors {
public:
    /// The error the failed read stopped at (meaningful after a read returned false).
    const DecodeError& error() const { return *slot_; }

    /// Adds field `name` outside the error's path. Returns false, so that a decoder bails out
    /// with `return r.in("tick");`.
    bool in(const char* name) {
        slot_->path.push_field(name);
        return false;
    }

    /// Adds list element `i` outside the error's path (`return r.index(i).in("changes");`).
    ReadErrors& index(size_t i) {
        slot_->path.push_index(i);
        return *this;
    }

protected:
    explicit ReadErrors(DecodeError* slot) : slot_(slot) {}

    DecodeError* slot_;
};

class BitReader;

/// A cursor over a frame's bytes that only hands out checked reads. Not copyable: it owns the
/// error its reads stop at.
class Reader : public ReadErrors {
public:
    /// A reader at the start of the `len` bytes at `data` (which may be null when `len` is 0).
    Reader(const uint8_t* data, size_t len)
        : ReadErrors(&error_),
        data_(data != nullptr ? data : empty()),
        len_(data != nullptr ? len : 0) {}

    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    /// Bytes read so far: the offset of the next byte.
    size_t pos() const { return pos_; }

    /// Bytes not read yet.
    size_t remaining() const { return len_ - pos_; }

    /// Records an error of `kind` at byte `at`. Returns false.
    bool fail(ErrorKind kind, size_t at) {
        error_ = DecodeError(kind, at);
        return false;
    }

    /// The error, moved out (meaningful after a read returned false).
    DecodeError take_error() { return std::move(error_); }

    /// Consumes `n` bytes; `out` points at them. The input ending first is reported at its end.
    bool take(size_t n, const uint8_t*& out) {
        if (n > remaining()) {
            return fail(ErrorKind::truncated, len_);
        }
        out = data_ + pos_;
        pos_ += n;
        return true;
    }

    /// An unsigned integer of `bytes` bytes (1 to 8) in the given byte order.
    bool uint(size_t bytes, bool big_endian, uint64_t& out) {
        const uint8_t* p = nullptr;
        if (!take(bytes, p)) {
            return false;
        }
        uint64_t v = 0;
        for (size_t i = 0; i < bytes; ++i) {
            v = (v << 8) | p[big_endian ? i : bytes - 1 - i];
        }
        out = v;
        return true;
    }

    /// An unsigned integer of `bytes` bytes into `out`, whose type is that wide.
    template <typename T>
    bool read_uint(size_t bytes, bool big_endian, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_uint reads unsigned integers");
        uint64_t raw = 0;
        if (!uint(bytes, big_endian, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A two's complement integer of `bytes` bytes into `out`, whose type is that wide.
    template <typename T>
    bool read_int(size_t bytes, bool big_endian, T& out) {
        static_assert(std::is_signed_v<T>, "read_int reads signed integers");
        uint64_t raw = 0;
        if (!uint(bytes, big_endian, raw)) {
            return false;
        }
        out = static_cast<T>(sign_extend(raw, static_cast<unsigned>(bytes * 8)));
        return true;
    }

    /// A `bool` byte: 0 or 1, anything else is over its width.
    bool read_bool(bool& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(1, false, raw)) {
            return false;
        }
        if (raw > 1) {
            return fail(ErrorKind::over_width, at);
        }
        out = raw == 1;
        return true;
    }

    /// An IEEE 754 single; NaN and infinities are refused, as no canonical encoder writes them.
    bool read_f32(bool big_endian, float& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(4, big_endian, raw)) {
            return false;
        }
        const uint32_t bits = static_cast<uint32_t>(raw);
        float v = 0.0f;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// An IEEE 754 double; NaN and infinities are refused.
    bool read_f64(bool big_endian, double& out) {
        const size_t at = pos_;
        uint64_t raw = 0;
        if (!uint(8, big_endian, raw)) {
            return false;
        }
        double v = 0.0;
        std::memcpy(&v, &raw, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    ///
    /// DESIGN.md section 3: "varint = unsigned LEB128, at most 10 bytes"; a varint longer than
    /// needed (a last byte of 0 after the first) is non-canonical, a value over `bits` bits is
    /// over its width.
    bool varint(unsigned bits, uint64_t& out) {
        const size_t start = pos_;
        uint64_t value = 0;
        for (unsigned i = 0; i < 10; ++i) {
            uint64_t byte = 0;
            if (!uint(1, false, byte)) {
                return false;
            }
            if (i == 9 && byte > 1) {
                // The tenth byte holds bit 63 only; like every varint fault, it is reported at
                // the varint's first byte.
                return fail(ErrorKind::over_width, start);
            }
            value |= (byte & 0x7f) << (7 * i);
            if ((byte & 0x80) == 0) {
                if (i > 0 && byte == 0) {
                    return fail(ErrorKind::non_canonical_varint, start);
                }
                if (bits < 64 && (value >> bits) != 0) {
                    return fail(ErrorKind::over_width, start);
                }
                out = value;
                return true;
            }
        }
        // Not reached: the tenth byte either ends the varint or is refused above.
        return fail(ErrorKind::over_width, start);
    }

    /// A varint of at most `bits` bits into `out`, whose type holds that many.
    template <typename T>
    bool read_varint(unsigned bits, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_varint reads unsigned integers");
        uint64_t raw = 0;
        if (!varint(bits, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A zigzag varint of a signed value of at most `bits` bits into `out`.
    template <typename T>
    bool read_zigzag(unsigned bits, T& out) {
        static_assert(std::is_signed_v<T>, "read_zigzag reads signed integers");
        uint64_t raw = 0;
        if (!varint(bits, raw)) {
            return false;
        }
        out = static_cast<T>(unzigzag(raw));
        return true;
    }

    /// Checks that `count` elements of at least `min_bytes` bytes each can fit in what
    /// remains, before anything is allocated for them; `out` is the count as a size_t. Too
    /// many is reported at `at`.
    bool count(uint64_t count, uint64_t min_bytes, size_t at, size_t& out) {
        const uint64_t each = min_bytes > 0 ? min_bytes : 1;
        if (count > std::numeric_limits<uint64_t>::max() / each
            || count * each > static_cast<uint64_t>(remaining())) {
            return fail(ErrorKind::count_too_large, at);
        }
        out = static_cast<size_t>(count);
        return true;
    }

    /// `bytes`: a varint length, then that many bytes. Like a list's count, a length too
    /// large is reported where the bytes would begin.
    bool read_bytes(std::vector<uint8_t>& out) {
        uint64_t len = 0;
        size_t n = 0;
        const uint8_t* p = nullptr;
        if (!varint(64, len) || !count(len, 1, pos_, n) || !take(n, p)) {
            return false;
        }
        out.assign(p, p + n);
        return true;
    }

    /// `bytes?`: a varint (length + 1), then that many bytes; 0 means absent.
    bool read_opt_bytes(std::optional<std::vector<uint8_t>>& out) {
        uint64_t len = 0;
        if (!varint(64, len)) {
            return false;
        }
        if (len == 0) {
            out.reset();
            return true;
        }
        size_t n = 0;
        const uint8_t* p = nullptr;
        if (!count(len - 1, 1, pos_, n) || !take(n, p)) {
            return false;
        }
        out.emplace(p, p + n);
        return true;
    }

    /// An element of an ascending list from its `delta` (the first is absolute): at least 1
    /// after the first, and the sum must stay within `bits` bits; faults are reported at `at`,
    /// where the delta starts. Moves `prev` on.
    template <typename T>
    bool ascending(
        std::optional<uint64_t>& prev, uint64_t delta, unsigned bits, size_t at, T& out) {
        uint64_t v = delta;
        if (prev) {
            if (delta == 0) {
                return fail(ErrorKind::not_ascending, at);
            }
            if (delta > std::numeric_limits<uint64_t>::max() - *prev) {
                return fail(ErrorKind::over_width, at);
            }
            v = *prev + delta;
        }
        if (bits < 64 && (v >> bits) != 0) {
            return fail(ErrorKind::over_width, at);
        }
        prev = v;
        out = static_cast<T>(v);
        return true;
    }

    /// Ends a frame: every byte must have been read.
    bool finish() {
        if (remaining() != 0) {
            return fail(ErrorKind::trailing_bytes, pos_);
        }
        return true;
    }

    /// Reads a bit-packed body from here: `read` decodes it from a BitReader, whose zero
    /// padding to the next byte is then checked, and the reader moves past it.
    template <typename F>
    bool packed(F&& read);

private:
    static const uint8_t* empty() {
        static const uint8_t none[1] = {0};
        return none;
    }

    DecodeError error_{ErrorKind::truncated, 0};
    const uint8_t* data_;
    size_t len_;
    size_t pos_ = 0;
};

/// A bit stream over the bytes of a packed body: fields are read least significant bit first,
/// starting at the least significant bit of each byte. Made by Reader::packed, whose error it
/// records.
class BitReader : public ReadErrors {
public:
    /// A reader over the `len` bytes at `data`, which start at byte `base` of the frame; its
    /// errors go to `errors`.
    BitReader(const uint8_t* data, size_t len, size_t base, DecodeError& errors)
        : ReadErrors(&errors),
        data_(data),
        bits_(std::min(len, std::numeric_limits<size_t>::max() / 8) * 8),
        base_(base) {}

    BitReader(const BitReader&) = delete;
    BitReader& operator=(const BitReader&) = delete;

    /// The bit offset of the next bit, from the start of the frame.
    size_t bit_pos() const { return base_ * 8 + pos_; }

    /// Bits not read yet.
    size_t remaining() const { return bits_ - pos_; }

    /// Records an error of `kind` at bit `bit` of the frame. Returns false.
    bool fail(ErrorKind kind, size_t bit) {
        *slot_ = DecodeError::at_bit(kind, bit);
        return false;
    }

    /// An unsigned field of `width` bits (1 to 64). As in the byte reader, the input ending
    /// inside it is reported where the input ends.
    bool uint(unsigned width, uint64_t& out) {
        if (width > remaining()) {
            return fail(ErrorKind::truncated, base_ * 8 + bits_);
        }
        uint64_t v = 0;
        for (unsigned i = 0; i < width; ++i) {
            const size_t p = pos_ + i;
            v |= ((static_cast<uint64_t>(data_[p / 8]) >> (p % 8)) & 1u) << i;
        }
        pos_ += width;
        out = v;
        return true;
    }

    /// An unsigned field of `width` bits into `out`, whose type holds that many.
    template <typename T>
    bool read_uint(unsigned width, T& out) {
        static_assert(std::is_unsigned_v<T>, "read_uint reads unsigned integers");
        uint64_t raw = 0;
        if (!uint(width, raw)) {
            return false;
        }
        out = static_cast<T>(raw);
        return true;
    }

    /// A two's complement field of `width` bits (2 to 64), sign-extended into `out`.
    template <typename T>
    bool read_int(unsigned width, T& out) {
        static_assert(std::is_signed_v<T>, "read_int reads signed integers");
        uint64_t raw = 0;
        if (!uint(width, raw)) {
            return false;
        }
        out = static_cast<T>(sign_extend(raw, width));
        return true;
    }

    /// One bit.
    bool read_bool(bool& out) {
        uint64_t raw = 0;
        if (!uint(1, raw)) {
            return false;
        }
        out = raw == 1;
        return true;
    }

    /// A finite IEEE 754 single of 32 bits.
    bool read_f32(float& out) {
        const size_t at = bit_pos();
        uint64_t raw = 0;
        if (!uint(32, raw)) {
            return false;
        }
        const uint32_t bits = static_cast<uint32_t>(raw);
        float v = 0.0f;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// A finite IEEE 754 double of 64 bits.
    bool read_f64(double& out) {
        const size_t at = bit_pos();
        uint64_t raw = 0;
        if (!uint(64, raw)) {
            return false;
        }
        double v = 0.0;
        std::memcpy(&v, &raw, sizeof v);
        if (!std::isfinite(v)) {
            return fail(ErrorKind::non_finite, at);
        }
        out = v;
        return true;
    }

    /// Checks that `count` elements of at least `min_bits` bits each can fit in what remains;
    /// too many is reported at bit `at`.
    bool count(uint64_t count, uint64_t min_bits, size_t at, size_t& out) {
        const uint64_t each = min_bits > 0 ? min_bits : 1;
        if (count > std::numeric_limits<uint64_t>::max() / each
            || count * each > static_cast<uint64_t>(remaining())) {
            return fail(ErrorKind::count_too_large, at);
        }
        out = static_cast<size_t>(count);
        return true;
    }

    /// Ends the body: the bits up to the next byte boundary are padding and must be zero.
    /// `used` is the whole bytes the body took.
    bool finish(size_t& used) {
        const size_t end = (pos_ + 7) / 8 * 8;
        for (size_t p = pos_; p < end; ++p) {
            if (((static_cast<unsigned>(data_[p / 8]) >> (p % 8)) & 1u) != 0) {
                return fail(ErrorKind::reserved_bit, base_ * 8 + p);
            }
        }
        used = end / 8;
        return true;
    }

private:
    const uint8_t* data_;
    size_t bits_;
    size_t base_;
    size_t pos_ = 0;
};

template <typename F>
bool Reader::packed(F&& read) {
    BitReader bits(data_ + pos_, remaining(), pos_, error_);
    size_t used = 0;
    if (!read(bits) || !bits.finish(used)) {
        return false;
    }
    pos_ += used;
    return true;
}

// ---- writing ----

/// What Writer and BitWriter share: the error a write stopped at, extended by the encoders'
/// callers with their fields, and the checks that only refuse values.
class WriteErrors {
public:
    /// The error the failed write stopped at (meaningful after a write returned false).
    const EncodeError& error() const { return *slot_; }

    /// Records an error of `kind`. Returns false.
    bool fail(ErrorKind kind) {
        *slot_ = EncodeError(kind);
        return false;
    }

    /// Adds field `name` outside the error's path. Returns false, so that an encoder bails out
    /// with `return w.in("tick");`.
    bool in(const char* name) {
        slot_->path.push_field(name);
        return false;
    }

    /// Adds list element `i` outside the error's path (`return w.index(i).in("changes");`).
    WriteErrors& index(size_t i) {
        slot_->path.push_index(i);
        return *this;
    }

    /// Refuses a value whose presence contradicts its condition.
    bool presence(bool present, bool cond) {
        return present == cond || fail(ErrorKind::invalid_condition);
    }

    /// A quantized value as a signed wire integer within [min, max], compared exactly (not
    /// as doubles, where `max` may round up): the double is range-checked before it is
    /// converted.
    bool quantize_int(double value, double scale, int64_t min, int64_t max, int64_t& out) {
        const double q = quantize(value, scale);
        // A whole number in [-2^63, 2^63) converts exactly.
        if (!(q >= -9223372036854775808.0 && q < 9223372036854775808.0)) {
            return fail(ErrorKind::over_width);
        }
        const int64_t i = static_cast<int64_t>(q);
        if (i < min || i > max) {
            return fail(ErrorKind::over_width);
        }
        out = i;
        return true;
    }

    /// A quantized value as an unsigned wire integer at most `max`.
    bool quantize_uint(double value, double scale, uint64_t max, uint64_t& out) {
        const double q = quantize(value, scale);
        // `max` as a double rounds 2^64 - 1 up to 2^64, which `q` must stay below.
        if (q < 0.0 || q > static_cast<double>(max) || q >= 18446744073709551616.0) {
            return fail(ErrorKind::over_width);
        }
        out = saturate_u64(q);
        return true;
    }

    /// The delta an ascending list's element `v` of at most `bits` bits is written as (the
    /// first is absolute). The element itself must fit, not only its delta, as the decoder
    /// checks the sum; a value not above the previous one does not ascend. Moves `prev` on.
    bool ascending(std::optional<uint64_t>& prev, uint64_t v, unsigned bits, uint64_t& delta) {
        if (bits < 64 && (v >> bits) != 0) {
            return fail(ErrorKind::over_width);
        }
        if (!prev) {
            delta = v;
        } else if (v > *prev) {
            delta = v - *prev;
        } else {
            return fail(ErrorKind::not_ascending);
        }
        prev = v;
        return true;
    }

protected:
    explicit WriteErrors(EncodeError* slot) : slot_(slot) {}

    bool finite(double v) { return std::isfinite(v) || fail(ErrorKind::non_finite); }

    bool check_int(int64_t v, unsigned width) {
        return fits_int(v, width) || fail(ErrorKind::over_width);
    }

    EncodeError* slot_;
};

/// Byte-aligned writes appended to a byte vector. Not copyable: it owns the error its writes
/// stop at.
class Writer : public WriteErrors {
public:
    /// A writer appending to `out`.
    explicit Writer(std::vector<uint8_t>& out) : WriteErrors(&error_), out_(out) {}

    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    /// The error, moved out (meaningful after a write returned false).
    EncodeError take_error() { return std::move(error_); }

    /// An unsigned integer of `bytes` bytes in the given byte order; a value that needs more
    /// bytes is over its width.
    bool write_uint(size_t bytes, bool big_endian, uint64_t v) {
        if (bytes < 8 && (v >> (bytes * 8)) != 0) {
            return fail(ErrorKind::over_width);
        }
        for (size_t i = 0; i < bytes; ++i) {
            out_.push_back(static_cast<uint8_t>(v >> (8 * (big_endian ? bytes - 1 - i : i))));
        }
        return true;
    }

    /// A signed integer of `bytes` bytes, two's complement.
    bool write_int(size_t bytes, bool big_endian, int64_t v) {
        const unsigned width = static_cast<unsigned>(bytes * 8);
        if (!check_int(v, width)) {
            return false;
        }
        const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        return write_uint(bytes, big_endian, static_cast<uint64_t>(v) & mask);
    }

    /// A `bool` byte, 0 or 1.
    void write_bool(bool v) { out_.push_back(v ? 1 : 0); }

    /// An unsigned LEB128 varint of a value of at most `bits` bits.
    bool write_varint(unsigned bits, uint64_t v) {
        if (bits < 64 && (v >> bits) != 0) {
            return fail(ErrorKind::over_width);
        }
        while (v >= 0x80) {
            out_.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<uint8_t>(v));
        return true;
    }

    /// A zigzag varint of a signed value of at most `bits` bits.
    bool write_zigzag(unsigned bits, int64_t v) {
        return check_int(v, bits) && write_varint(64, zigzag(v));
    }

    /// A finite single.
    bool write_f32(bool big_endian, float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(static_cast<double>(v)) && write_uint(4, big_endian, bits);
    }

    /// A finite double.
    bool write_f64(bool big_endian, double v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(v) && write_uint(8, big_endian, bits);
    }

    /// `bytes`: a varint length, then the bytes.
    bool write_bytes(const std::vector<uint8_t>& v) {
        write_varint(64, v.size());
        append(v);
        return true;
    }

    /// `bytes?`: a varint (length + 1), then the bytes; 0 when absent.
    bool write_opt_bytes(const std::optional<std::vector<uint8_t>>& v) {
        if (!v) {
            return write_varint(64, 0);
        }
        write_varint(64, uint64_t{v->size()} + 1);
        append(*v);
        return true;
    }

    /// Appends raw bytes.
    void append(const std::vector<uint8_t>& bytes) {
        out_.insert(out_.end(), bytes.begin(), bytes.end());
    }

private:
    EncodeError error_{ErrorKind::over_width};
    std::vector<uint8_t>& out_;

    friend class BitWriter;
};

/// Writes a bit-packed body: fields least significant bit first, padded with zero bits to a
/// byte by finish(), which appends it to the Writer it was made for (whose error it records).
class BitWriter : public WriteErrors {
public:
    /// A body to be appended to `parent`.
    explicit BitWriter(Writer& parent) : WriteErrors(&parent.error_), parent_(parent) {}

    BitWriter(const BitWriter&) = delete;
    BitWriter& operator=(const BitWriter&) = delete;

    /// An unsigned field of `width` bits; a value that needs more bits is over its width.
    bool write_uint(unsigned width, uint64_t v) {
        if (width < 64 && (v >> width) != 0) {
            return fail(ErrorKind::over_width);
        }
        for (unsigned i = 0; i < width; ++i) {
            write_bool(((v >> i) & 1u) != 0);
        }
        return true;
    }

    /// A two's complement field of `width` bits.
    bool write_int(unsigned width, int64_t v) {
        if (!check_int(v, width)) {
            return false;
        }
        const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        return write_uint(width, static_cast<uint64_t>(v) & mask);
    }

    /// One bit.
    void write_bool(bool v) {
        if (bits_ % 8 == 0) {
            bytes_.push_back(0);
        }
        if (v) {
            bytes_.back() = static_cast<uint8_t>(bytes_.back() | (1u << (bits_ % 8)));
        }
        ++bits_;
    }

    /// A finite single.
    bool write_f32(float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(static_cast<double>(v)) && write_uint(32, bits);
    }

    /// A finite double.
    bool write_f64(double v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        return finite(v) && write_uint(64, bits);
    }

    /// Bits written so far.
    size_t bit_len() const { return bits_; }

    /// Appends the body, padded with zero bits to a byte, to the parent writer.
    void finish() { parent_.append(bytes_); }

private:
    Writer& parent_;
    std::vector<uint8_t> bytes_;
    size_t bits_ = 0;
};

/// The encoded length of `bytes`.
inline size_t bytes_len(const std::vector<uint8_t>& v) { return varint_len(v.size()) + v.size(); }

/// The encoded length of `bytes?`.
inline size_t opt_bytes_len(const std::optional<std::vector<uint8_t>>& v) {
    return v ? varint_len(uint64_t{v->size()} + 1) + v->size() : 1;
}

/// The delta an ascending element is written as (the value itself when it does not ascend:
/// encoding then fails, so only the length is asked), moving `prev` on.
inline uint64_t ascending_step(std::optional<uint64_t>& prev, uint64_t v) {
    const uint64_t d = prev && v > *prev ? v - *prev : v;
    prev = v;
    return d;
}

/// The encoded length of an ascending list of varints.
template <typename T>
size_t ascending_varints_len(const std::vector<T>& items) {
    std::optional<uint64_t> prev;
    size_t n = 0;
    for (const T& item : items) {
        n += varint_len(ascending_step(prev, item));
    }
    return n;
}

// ---- bit sets, hex, FNV-1a ----

/// A named bit of a bit set.
struct BitName {
    /// The bit's name in the spec.
    const char* name;
    /// Its index, 0 being the least significant.
    unsigned index;
};

/// Lower-case hex of the `len` bytes at `bytes`.
inline std::string to_hex(const uint8_t* bytes, size_t len) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(len * 2);
    for (size_t i = 0; i < len; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0x0f];
    }
    return out;
}

/// Lower-case hex of `bytes`.
inline std::string to_hex(const std::vector<uint8_t>& bytes) {
    return to_hex(bytes.data(), bytes.size());
}

/// Bytes from hex (either case); white space anywhere between digits is ignored. On failure
/// `why` says what is wrong and false is returned.
inline bool from_hex(std::string_view text, std::vector<uint8_t>& out, std::string& why) {
    out.clear();
    int high = -1;
    size_t digits = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            continue;
        }
        int d = -1;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        }
        if (d < 0) {
            const unsigned char u = static_cast<unsigned char>(c);
            const std::string shown = u >= 0x20 && u < 0x7f
                ? "`" + std::string(1, c) + "`"
                : "byte " + std::to_string(u);
            why = shown + " at character " + std::to_string(i) + " is not a hex digit";
            return false;
        }
        ++digits;
        if (high < 0) {
            high = d;
        } else {
            out.push_back(static_cast<uint8_t>(high * 16 + d));
            high = -1;
        }
    }
    if (high >= 0) {
        why = "odd number of hex digits (" + std::to_string(digits) + ")";
        return false;
    }
    return true;
}

/// 32-bit FNV-1a (offset basis 2166136261, prime 16777619), the state check of DESIGN.md
/// section 3; pass the previous result as `hash` to continue a hash.
inline uint32_t fnv1a32(const uint8_t* bytes, size_t len, uint32_t hash = 2166136261u) {
    for (size_t i = 0; i < len; ++i) {
        hash = (hash ^ bytes[i]) * 16777619u;
    }
    return hash;
}

}  // namespace rt

// ---- JSON ----

namespace json {

/// The length of the well-formed UTF-8 sequence starting at `s[i]` (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
inline size_t utf8_sequence(std::string_view s, size_t i) {
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = at(i);
    if (lead < 0x80) {
        return 1;
    }
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        len = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        len = 3;
        lo = lead == 0xe0 ? 0xa0 : 0x80;
        hi = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        len = 4;
        lo = lead == 0xf0 ? 0x90 : 0x80;
        hi = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s.size() - i < len || at(i + 1) < lo || at(i + 1) > hi) {
        return 0;
    }
    for (size_t k = 2; k < len; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xbf) {
            return 0;
        }
    }
    return len;
}

/// Why a JSON text or value is not what was expected: a message, and where (`changes[2].mask`).
/// Conversions take one by reference, fill it when they fail and return false.
class Error {
public:
    /// What is wrong.
    const std::string& message() const { return message_; }

    /// Where, outermost first; empty for the value as a whole.
    const std::string& path() const { return path_; }

    /// `path: message`.
    std::string text() const { return path_.empty() ? message_ : path_ + ": " + message_; }

    /// Records that `why` is wrong, with no path yet. Returns false.
    bool fail(std::string why) {
        message_ = std::move(why);
        path_.clear();
        return false;
    }

    /// Adds member `name` outside the path. Returns false (`return error.in("tick");`).
    bool in(std::string_view name) {
        std::string outer(name);
        if (!path_.empty() && path_[0] != '[') {
            outer += '.';
        }
        path_ = outer + path_;
        return false;
    }

    /// Adds list element `i` outside the path. Returns false.
    bool at(size_t i) {
        std::string outer = "[" + std::to_string(i) + "]";
        if (!path_.empty() && path_[0] != '[') {
            outer += '.';
        }
        path_ = outer + path_;
        return false;
    }

private:
    std::string message_;
    std::string path_;
};

/// A JSON value. Numbers keep their text, so 64-bit integers lose nothing; objects keep their
/// members in order.
class Value {
public:
    /// What a value is.
    enum class Kind { null, boolean, number, string, array, object };

    /// null.
    Value() = default;

    /// true or false.
    static Value from_bool(bool b) {
        Value v;
        v.kind_ = Kind::boolean;
        v.bool_ = b;
        return v;
    }

    /// An unsigned integer.
    static Value from_u64(uint64_t n) { return number_text(std::to_string(n)); }

    /// A signed integer.
    static Value from_i64(int64_t n) { return number_text(std::to_string(n)); }

    /// A double, in the shortest form that reads back as the same double (null when not
    /// finite, as serde_json writes it).
    static Value from_f64(double d) {
        if (!std::isfinite(d)) {
            return Value();
        }
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, d);
        return number_text(float_text(std::string(buf, res.ptr)));
    }

    /// A single, in the shortest form that reads back as the same single.
    static Value from_f32(float f) {
        if (!std::isfinite(f)) {
            return Value();
        }
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, f);
        return number_text(float_text(std::string(buf, res.ptr)));
    }

    /// A string.
    static Value from_string(std::string s) {
        Value v;
        v.kind_ = Kind::string;
        v.text_ = std::move(s);
        return v;
    }

    /// A number from its JSON text (which the caller has checked).
    static Value number_text(std::string text) {
        Value v;
        v.kind_ = Kind::number;
        v.text_ = std::move(text);
        return v;
    }

    /// An empty array.
    static Value array() {
        Value v;
        v.kind_ = Kind::array;
        return v;
    }

    /// An empty object.
    static Value object() {
        Value v;
        v.kind_ = Kind::object;
        return v;
    }

    /// What this value is.
    Kind kind() const { return kind_; }

    /// Whether this is null.
    bool is_null() const { return kind_ == Kind::null; }

    /// The boolean (false unless this is true).
    bool as_bool() const { return kind_ == Kind::boolean && bool_; }

    /// A string's contents, or a number's JSON text.
    const std::string& text() const { return text_; }

    /// An array's elements, or an object's member values.
    const std::vector<Value>& items() const { return items_; }

    /// An object's member names, in order.
    const std::vector<std::string>& keys() const { return keys_; }

    /// Appends an element to an array.
    void push(Value v) { items_.push_back(std::move(v)); }

    /// Appends a member to an object (the caller keeps names unique).
    void set(std::string key, Value v) {
        keys_.push_back(std::move(key));
        items_.push_back(std::move(v));
    }

    /// The first member named `key` of an object, or null.
    const Value* find(std::string_view key) const {
        for (size_t i = 0; i < keys_.size(); ++i) {
            if (keys_[i] == key) {
                return &items_[i];
            }
        }
        return nullptr;
    }

    /// The value as compact JSON text.
    std::string dump() const {
        std::string out;
        dump_to(out);
        return out;
    }

    /// Appends the value as compact JSON text to `out`.
    void dump_to(std::string& out) const {
        switch (kind_) {
            case Kind::null:
                out += "null";
                break;
            case Kind::boolean:
                out += bool_ ? "true" : "false";
                break;
            case Kind::number:
                out += text_;
                break;
            case Kind::string:
                quote(text_, out);
                break;
            case Kind::array:
                out += '[';
                for (size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) {
                        out += ',';
                    }
                    items_[i].dump_to(out);
                }
                out += ']';
                break;
            case Kind::object:
                out += '{';
                for (size_t i = 0; i < items_.size(); ++i) {
                    if (i > 0) {
                        out += ',';
                    }
                    quote(keys_[i], out);
                    out += ':';
                    items_[i].dump_to(out);
                }
                out += '}';
                break;
        }
    }

private:
    static std::string float_text(std::string s) {
        if (s.find_first_of(".eEn") == std::string::npos) {
            s += ".0";
        }
        return s;
    }

    // Quotes `s`; what is not UTF-8 becomes U+FFFD, so that the text always is.
    static void quote(const std::string& s, std::string& out) {
        static const char digits[] = "0123456789abcdef";
        out += '"';
        for (size_t i = 0; i < s.size(); ++i) {
            const char c = s[i];
            const unsigned char u = static_cast<unsigned char>(c);
            if (u >= 0x80) {
                const size_t len = utf8_sequence(s, i);
                if (len == 0) {
                    out += "\\ufffd";
                } else {
                    out.append(s, i, len);
                    i += len - 1;
                }
            } else if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else if (c == '\t') {
                out += "\\t";
            } else if (u < 0x20) {
                out += "\\u00";
                out += digits[u >> 4];
                out += digits[u & 0x0f];
            } else {
                out += c;
            }
        }
        out += '"';
    }

    Kind kind_ = Kind::null;
    bool bool_ = false;
    std::string text_;
    std::vector<Value> items_;
    std::vector<std::string> keys_;
};

/// A recursive-descent JSON parser (RFC 8259) with a nesting limit, so that no input can
/// exhaust the stack.
class Parser {
public:
    /// How deeply arrays and objects may nest (serde_json's limit).
    static constexpr unsigned MAX_DEPTH = 128;

    /// A parser of `text`.
    explicit Parser(std::string_view text) : text_(text) {}

    /// The one value `text` holds, with nothing but white space around it.
    rt::Result<Value, Error> document() {
        Value v;
        skip_ws();
        if (!value(v, 0)) {
            return error_;
        }
        skip_ws();
        if (pos_ != text_.size()) {
            fail("trailing characters");
            return error_;
        }
        return v;
    }

private:
    bool fail(const std::string& what) {
        return error_.fail(what + " at character " + std::to_string(pos_));
    }

    void skip_ws() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            ++pos_;
        }
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        return false;
    }

    bool digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }

    bool value(Value& out, unsigned depth) {
        if (pos_ >= text_.size()) {
            return fail("unexpected end of input");
        }
        const char c = text_[pos_];
        if (c == 'n' && literal("null")) {
            out = Value();
            return true;
        }
        if (c == 't' && literal("true")) {
            out = Value::from_bool(true);
            return true;
        }
        if (c == 'f' && literal("false")) {
            out = Value::from_bool(false);
            return true;
        }
        if (c == '"') {
            std::string s;
            if (!string(s)) {
                return false;
            }
            out = Value::from_string(std::move(s));
            return true;
        }
        if (c == '-' || digit()) {
            return number(out);
        }
        if (c == '[' || c == '{') {
            if (depth >= MAX_DEPTH) {
                return fail("recursion limit exceeded");
            }
            return c == '[' ? array(out, depth + 1) : object(out, depth + 1);
        }
        return fail("expected a value");
    }

    bool number(Value& out) {
        const size_t start = pos_;
        if (text_[pos_] == '-') {
            ++pos_;
        }
        if (pos_ < text_.size() && text_[pos_] == '0') {
            ++pos_;
        } else if (digit()) {
            while (digit()) {
                ++pos_;
            }
        } else {
            return fail("expected a digit");
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!digit()) {
                return fail("expected a digit after the decimal point");
            }
            while (digit()) {
                ++pos_;
            }
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
                ++pos_;
            }
            if (!digit()) {
                return fail("expected a digit in the exponent");
            }
            while (digit()) {
                ++pos_;
            }
        }
        out = Value::number_text(std::string(text_.substr(start, pos_ - start)));
        return true;
    }

    bool code_unit(uint32_t& out) {
        if (text_.size() - pos_ < 4) {
            return fail("unexpected end of input in a \\u escape");
        }
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i) {
            const char c = text_[pos_ + i];
            uint32_t d = 0;
            if (c >= '0' && c <= '9') {
                d = static_cast<uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                d = static_cast<uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                d = static_cast<uint32_t>(c - 'A' + 10);
            } else {
                return fail("expected a hex digit in a \\u escape");
            }
            v = v * 16 + d;
        }
        pos_ += 4;
        out = v;
        return true;
    }

    static void utf8(uint32_t cp, std::string& out) {
        const auto byte = [&out](uint32_t b) {
            out += static_cast<char>(static_cast<unsigned char>(b));
        };
        if (cp < 0x80) {
            byte(cp);
        } else if (cp < 0x800) {
            byte(0xc0 | (cp >> 6));
            byte(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            byte(0xe0 | (cp >> 12));
            byte(0x80 | ((cp >> 6) & 0x3f));
            byte(0x80 | (cp & 0x3f));
        } else {
            byte(0xf0 | (cp >> 18));
            byte(0x80 | ((cp >> 12) & 0x3f));
            byte(0x80 | ((cp >> 6) & 0x3f));
            byte(0x80 | (cp & 0x3f));
        }
    }

    bool escape(std::string& out) {
        if (pos_ >= text_.size()) {
            return fail("unterminated escape");
        }
        const char esc = text_[pos_++];
        switch (esc) {
            case '"':
            case '\\':
            case '/':
                out += esc;
                return true;
            case 'b':
                out += '\b';
                return true;
            case 'f':
                out += '\f';
                return true;
            case 'n':
                out += '\n';
                return true;
            case 'r':
                out += '\r';
                return true;
            case 't':
                out += '\t';
                return true;
            case 'u':
                break;
            default:
                return fail("invalid escape");
        }
        uint32_t cp = 0;
        if (!code_unit(cp)) {
            return false;
        }
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            return fail("lone trailing surrogate");
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t low = 0;
            if (!literal("\\u") || !code_unit(low) || low < 0xdc00 || low > 0xdfff) {
                return fail("lone leading surrogate");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        utf8(cp, out);
        return true;
    }

    bool string(std::string& out) {
        ++pos_;  // the opening quote
        while (true) {
            if (pos_ >= text_.size()) {
                return fail("unterminated string");
            }
            const char c = text_[pos_++];
            if (c == '"') {
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return fail("control character in a string");
            }
            if (static_cast<unsigned char>(c) >= 0x80) {
                const size_t len = utf8_sequence(text_, pos_ - 1);
                if (len == 0) {
                    --pos_;
                    return fail("invalid UTF-8");
                }
                out.append(text_.substr(pos_ - 1, len));
                pos_ += len - 1;
            } else if (c != '\\') {
                out += c;
            } else if (!escape(out)) {
                return false;
            }
        }
    }

    bool array(Value& out, unsigned depth) {
        ++pos_;  // [
        out = Value::array();
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return true;
        }
        while (true) {
            Value item;
            skip_ws();
            if (!value(item, depth)) {
                return false;
            }
            out.push(std::move(item));
            skip_ws();
            if (pos_ >= text_.size()) {
                return fail("unterminated array");
            }
            const char c = text_[pos_++];
            if (c == ']') {
                return true;
            }
            if (c != ',') {
                return fail("expected `,` or `]`");
            }
        }
    }

    bool object(Value& out, unsigned depth) {
        ++pos_;  // {
        out = Value::object();
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return true;
        }
        while (true) {
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != '"') {
                return fail("expected a member name");
            }
            std::string key;
            if (!string(key)) {
                return false;
            }
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != ':') {
                return fail("expected `:`");
            }
            ++pos_;
            skip_ws();
            Value item;
            if (!value(item, depth)) {
                return false;
            }
            out.set(std::move(key), std::move(item));
            skip_ws();
            if (pos_ >= text_.size()) {
                return fail("unterminated object");
            }
            const char c = text_[pos_++];
            if (c == '}') {
                return true;
            }
            if (c != ',') {
                return fail("expected `,` or `}`");
            }
        }
    }

    std::string_view text_;
    size_t pos_ = 0;
    Error error_;
};

/// Parses one JSON document.
inline rt::Result<Value, Error> parse(std::string_view text) { return Parser(text).document(); }

// ---- the JSON form of frames (conformance/PROTOCOL.md) ----
//
// The conversions of one value are function objects, so that a list can name the conversion
// of its elements: `json::list(v.removed, json::uint_number)`,
// `json::get_list(*m, out.removed, error, json::get_uint)`.

/// Integers up to this are JSON numbers; larger 64-bit ones are decimal strings.
inline constexpr uint64_t SAFE_INTEGER = (uint64_t{1} << 53) - 1;

namespace convert {

struct UintNumber {
    Value operator()(uint64_t v) const { return Value::from_u64(v); }
};

struct IntNumber {
    Value operator()(int64_t v) const { return Value::from_i64(v); }
};

struct BigUint {
    Value operator()(uint64_t v) const {
        return v <= SAFE_INTEGER ? Value::from_u64(v) : Value::from_string(std::to_string(v));
    }
};

struct BigInt {
    Value operator()(int64_t v) const {
        const uint64_t u = static_cast<uint64_t>(v);
        const uint64_t magnitude = v < 0 ? uint64_t{0} - u : u;
        if (magnitude <= SAFE_INTEGER) {
            return Value::from_i64(v);
        }
        return Value::from_string(std::to_string(v));
    }
};

struct F32Number {
    Value operator()(float v) const { return Value::from_f32(v); }
};

struct F64Number {
    Value operator()(double v) const { return Value::from_f64(v); }
};

struct Boolean {
    Value operator()(bool v) const { return Value::from_bool(v); }
};

struct Hex {
    Value operator()(const std::vector<uint8_t>& v) const {
        return Value::from_string(rt::to_hex(v));
    }
};

struct OptHex {
    Value operator()(const std::optional<std::vector<uint8_t>>& v) const {
        return v ? Hex{}(*v) : Value();
    }
};

struct ByteList {
    Value operator()(const std::vector<uint8_t>& v) const {
        Value out = Value::array();
        for (const uint8_t b : v) {
            out.push(Value::from_u64(b));
        }
        return out;
    }
};

struct OptByteList {
    Value operator()(const std::optional<std::vector<uint8_t>>& v) const {
        return v ? ByteList{}(*v) : Value();
    }
};

struct Named {
    template <typename T>
    Value operator()(const T& v) const {
        return to_json(v);  // the spec type's, found by argument-dependent lookup
    }
};

}  // namespace convert

/// An unsigned integer as a number.
inline constexpr convert::UintNumber uint_number{};
/// A signed integer as a number.
inline constexpr convert::IntNumber int_number{};
/// A 64-bit unsigned integer: a number up to 2^53 - 1, a decimal string beyond.
inline constexpr convert::BigUint big_uint{};
/// A 64-bit signed integer: a number when its magnitude is at most 2^53 - 1, else a string.
inline constexpr convert::BigInt big_int{};
/// A single, in its shortest form.
inline constexpr convert::F32Number f32_number{};
/// A double, in its shortest form.
inline constexpr convert::F64Number f64_number{};
/// true or false.
inline constexpr convert::Boolean boolean{};
/// Bytes as a lower-case hex string.
inline constexpr convert::Hex hex{};
/// Optional bytes as a hex string, or null.
inline constexpr convert::OptHex opt_hex{};
/// Bytes as a list of numbers (how the Rust codec writes bytes inside lists).
inline constexpr convert::ByteList byte_list{};
/// Optional bytes as a list of numbers, or null.
inline constexpr convert::OptByteList opt_byte_list{};
/// A bit set, record or union of the spec, by its `to_json`.
inline constexpr convert::Named named{};

/// A list, each element converted by `convert`.
template <typename T, typename F>
Value list(const std::vector<T>& items, const F& convert) {
    Value out = Value::array();
    for (const auto& item : items) {
        out.push(convert(item));
    }
    return out;
}

/// The conversion of a list whose elements `convert` converts (for lists of lists).
template <typename F>
auto list_of(F convert) {
    return [convert](const auto& items) { return list(items, convert); };
}

/// A bit set as the list of its set bits' names (`["KEYFRAME", "CHECK"]`).
template <size_t N>
Value bit_names(const std::array<rt::BitName, N>& names, uint64_t bits) {
    Value out = Value::array();
    for (const rt::BitName& n : names) {
        if (((bits >> n.index) & 1u) != 0) {
            out.push(Value::from_string(n.name));
        }
    }
    return out;
}

/// Checks that `j` is an object whose members are among `fields`, each at most once.
inline bool check_object(
    const Value& j, std::initializer_list<std::string_view> fields, Error& error) {
    if (j.kind() != Value::Kind::object) {
        return error.fail("invalid type, expected an object");
    }
    const std::vector<std::string>& keys = j.keys();
    for (size_t i = 0; i < keys.size(); ++i) {
        bool known = false;
        for (const std::string_view f : fields) {
            known = known || keys[i] == f;
        }
        if (!known) {
            std::string expected;
            for (const std::string_view f : fields) {
                expected += expected.empty() ? "`" : ", `";
                expected += f;
                expected += '`';
            }
            return error.fail("unknown field `" + keys[i] + "`, expected "
                + (expected.empty() ? std::string("none") : "one of " + expected));
        }
        for (size_t k = 0; k < i; ++k) {
            if (keys[k] == keys[i]) {
                return error.fail("duplicate field `" + keys[i] + "`");
            }
        }
    }
    return true;
}

/// The member `name` of object `j`, which must be there.
inline bool required_member(const Value& j, const char* name, const Value*& out, Error& error) {
    out = j.find(name);
    return out != nullptr || error.fail(std::string("missing field `") + name + "`");
}

/// The member `name` of object `j`: false when it is absent or null.
inline bool optional_member(const Value& j, const char* name, const Value*& out) {
    out = j.find(name);
    return out != nullptr && !out->is_null();
}

/// A union: an object with one member, the variant's name in snake_case.
inline bool union_member(const Value& j, std::string_view& name, const Value*& out, Error& error) {
    if (j.kind() != Value::Kind::object || j.keys().size() != 1) {
        return error.fail("invalid type, expected an object with one member, the variant");
    }
    name = j.keys()[0];
    out = &j.items()[0];
    return true;
}

/// An unknown variant `name`; `known` lists the union's.
inline bool unknown_variant(
    std::string_view name, std::initializer_list<std::string_view> known, Error& error) {
    std::string expected;
    for (const std::string_view k : known) {
        expected += expected.empty() ? "`" : ", `";
        expected += k;
        expected += '`';
    }
    return error.fail("unknown variant `" + std::string(name) + "`, expected one of " + expected);
}

namespace detail {

inline bool integer_text(const std::string& t) {
    return t.find_first_of(".eE") == std::string::npos;
}

/// An integer from its text: an optional `-` (or `+` when `allow_plus`), then digits only.
inline bool parse_integer(
    std::string_view t, bool allow_plus, bool& negative, uint64_t& magnitude) {
    negative = false;
    if (!t.empty() && (t[0] == '-' || (allow_plus && t[0] == '+'))) {
        negative = t[0] == '-';
        t.remove_prefix(1);
    }
    if (t.empty()) {
        return false;
    }
    for (const char c : t) {
        if (c < '0' || c > '9') {
            return false;
        }
    }
    const auto res = std::from_chars(t.data(), t.data() + t.size(), magnitude);
    return res.ec == std::errc() && res.ptr == t.data() + t.size();
}

template <typename T>
bool unsigned_from(bool negative, uint64_t magnitude, T& out, Error& error) {
    if (negative && magnitude != 0) {
        return error.fail("invalid value: a negative integer, expected an unsigned integer");
    }
    if (magnitude > std::numeric_limits<T>::max()) {
        return error.fail("invalid value: " + std::to_string(magnitude) + " is out of range");
    }
    out = static_cast<T>(magnitude);
    return true;
}

template <typename T>
bool signed_from(bool negative, uint64_t magnitude, T& out, Error& error) {
    const uint64_t limit = negative
        ? uint64_t{0} - static_cast<uint64_t>(int64_t{std::numeric_limits<T>::min()})
        : static_cast<uint64_t>(int64_t{std::numeric_limits<T>::max()});
    if (magnitude > limit) {
        return error.fail("invalid value: an integer out of range");
    }
    // -magnitude, computed without overflow even for the most negative value.
    out = static_cast<T>(negative ? -rt::to_signed(magnitude - 1) - 1 : rt::to_signed(magnitude));
    return true;
}

/// A JSON number as a double, as serde_json reads it: an integer that fits 64 bits is
/// converted once, anything else is parsed correctly rounded; an overflow is an error.
inline bool number_as_double(const Value& j, double& out, Error& error) {
    if (j.kind() != Value::Kind::number) {
        return error.fail("invalid type, expected a number");
    }
    const std::string& t = j.text();
    bool negative = false;
    uint64_t magnitude = 0;
    if (integer_text(t) && parse_integer(t, false, negative, magnitude)
        && (!negative || magnitude <= uint64_t{1} << 63)) {
        const double d = static_cast<double>(magnitude);
        out = negative ? -d : d;
        return true;
    }
    const auto res = std::from_chars(t.data(), t.data() + t.size(), out);
    if (res.ec == std::errc() && res.ptr == t.data() + t.size()) {
        return true;
    }
    // Out of range: an underflow reads as its (tiny or zero) value, an overflow is refused.
    const double v = std::strtod(t.c_str(), nullptr);
    if (std::isinf(v)) {
        return error.fail("number out of range");
    }
    out = v;
    return true;
}

}  // namespace detail

namespace convert {

struct GetUint {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        static_assert(std::is_unsigned_v<T>, "get_uint reads unsigned integers");
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() != Value::Kind::number || !detail::integer_text(j.text())
            || !detail::parse_integer(j.text(), false, negative, magnitude)) {
            return error.fail("invalid type, expected an unsigned integer");
        }
        return detail::unsigned_from(negative, magnitude, out, error);
    }
};

struct GetBigUint {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return GetUint{}(j, out, error);
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (!detail::parse_integer(j.text(), true, negative, magnitude) || negative) {
            return error.fail("`" + j.text() + "` is not an unsigned integer");
        }
        return detail::unsigned_from(false, magnitude, out, error);
    }
};

struct GetInt {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        static_assert(std::is_signed_v<T>, "get_int reads signed integers");
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() != Value::Kind::number || !detail::integer_text(j.text())
            || !detail::parse_integer(j.text(), false, negative, magnitude)) {
            return error.fail("invalid type, expected an integer");
        }
        return detail::signed_from(negative, magnitude, out, error);
    }
};

struct GetBigInt {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return GetInt{}(j, out, error);
        }
        bool negative = false;
        uint64_t magnitude = 0;
        if (!detail::parse_integer(j.text(), true, negative, magnitude)) {
            return error.fail("`" + j.text() + "` is not an integer");
        }
        return detail::signed_from(negative, magnitude, out, error);
    }
};

struct GetF32 {
    bool operator()(const Value& j, float& out, Error& error) const {
        bool negative = false;
        uint64_t magnitude = 0;
        if (j.kind() == Value::Kind::number && detail::integer_text(j.text())
            && detail::parse_integer(j.text(), false, negative, magnitude)
            && (!negative || magnitude <= uint64_t{1} << 63)) {
            // An integer converts to the nearest single at once, as serde converts it.
            const float f = static_cast<float>(magnitude);
            out = negative ? -f : f;
            return true;
        }
        double d = 0.0;
        if (!detail::number_as_double(j, d, error)) {
            return false;
        }
        // A double at or beyond the midpoint between the largest single and 2^128 rounds to
        // infinity (which the encoder then refuses); below it the conversion is defined.
        constexpr double overflow = 340282356779733661637539395458142568448.0;
        if (std::fabs(d) >= overflow) {
            const float inf = std::numeric_limits<float>::infinity();
            out = d < 0 ? -inf : inf;
        } else {
            out = static_cast<float>(d);
        }
        return true;
    }
};

struct GetF64 {
    bool operator()(const Value& j, double& out, Error& error) const {
        return detail::number_as_double(j, out, error);
    }
};

struct GetBool {
    bool operator()(const Value& j, bool& out, Error& error) const {
        if (j.kind() != Value::Kind::boolean) {
            return error.fail("invalid type, expected a boolean");
        }
        out = j.as_bool();
        return true;
    }
};

struct GetHex {
    bool operator()(const Value& j, std::vector<uint8_t>& out, Error& error) const {
        if (j.kind() != Value::Kind::string) {
            return error.fail("invalid type, expected a hex string");
        }
        std::string why;
        return rt::from_hex(j.text(), out, why) || error.fail(why);
    }
};

struct GetOptHex {
    bool operator()(const Value& j, std::optional<std::vector<uint8_t>>& out, Error& error) const {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        return GetHex{}(j, out.emplace(), error);
    }
};

struct GetNamed {
    template <typename T>
    bool operator()(const Value& j, T& out, Error& error) const {
        return from_json(j, out, error);  // the spec type's, found by argument-dependent lookup
    }
};

}  // namespace convert

/// A list, each element read by `read(element, item, error)`.
template <typename T, typename F>
bool get_list(const Value& j, std::vector<T>& out, Error& error, const F& read) {
    if (j.kind() != Value::Kind::array) {
        return error.fail("invalid type, expected a list");
    }
    out.clear();
    out.reserve(j.items().size());
    for (size_t i = 0; i < j.items().size(); ++i) {
        T item{};
        if (!read(j.items()[i], item, error)) {
            return error.at(i);
        }
        out.push_back(std::move(item));
    }
    return true;
}

/// The reading of a list whose elements `read` reads (for lists of lists).
template <typename F>
auto get_list_of(F read) {
    return [read](const Value& j, auto& out, Error& error) {
        return get_list(j, out, error, read);
    };
}

namespace convert {

struct GetByteList {
    bool operator()(const Value& j, std::vector<uint8_t>& out, Error& error) const {
        return get_list(j, out, error, GetUint{});
    }
};

struct GetOptByteList {
    bool operator()(const Value& j, std::optional<std::vector<uint8_t>>& out, Error& error) const {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        return GetByteList{}(j, out.emplace(), error);
    }
};

}  // namespace convert

/// An unsigned integer that must be a number.
inline constexpr convert::GetUint get_uint{};
/// A 64-bit unsigned integer: a number or a decimal string.
inline constexpr convert::GetBigUint get_big_uint{};
/// A signed integer that must be a number.
inline constexpr convert::GetInt get_int{};
/// A 64-bit signed integer: a number or a decimal string.
inline constexpr convert::GetBigInt get_big_int{};
/// A single, read as serde reads an f32 (beyond its range, an infinity).
inline constexpr convert::GetF32 get_f32{};
/// A double.
inline constexpr convert::GetF64 get_f64{};
/// true or false.
inline constexpr convert::GetBool get_bool{};
/// Bytes from a hex string.
inline constexpr convert::GetHex get_hex{};
/// Optional bytes from a hex string or null.
inline constexpr convert::GetOptHex get_opt_hex{};
/// Bytes from a list of numbers.
inline constexpr convert::GetByteList get_byte_list{};
/// Optional bytes from a list of numbers or null.
inline constexpr convert::GetOptByteList get_opt_byte_list{};
/// A bit set, record or union of the spec, by its `from_json`.
inline constexpr convert::GetNamed get_named{};

/// A bit set from the list of its bits' names; an unknown name is an error.
template <size_t N, typename T>
bool get_bits(const Value& j, const std::array<rt::BitName, N>& names, T& out, Error& error) {
    if (j.kind() != Value::Kind::array) {
        return error.fail("invalid type, expected a list of bit names");
    }
    uint64_t bits = 0;
    for (size_t i = 0; i < j.items().size(); ++i) {
        const Value& item = j.items()[i];
        bool found = false;
        for (const rt::BitName& n : names) {
            if (item.kind() == Value::Kind::string && item.text() == n.name) {
                bits |= uint64_t{1} << n.index;
                found = true;
            }
        }
        if (!found) {
            std::string known;
            for (const rt::BitName& n : names) {
                known += known.empty() ? "" : ", ";
                known += n.name;
            }
            error.fail("unknown bit " + item.dump() + ", expected one of " + known);
            return error.at(i);
        }
    }
    out = static_cast<T>(bits);
    return true;
}

}  // namespace json

namespace rt {

/// Why a frame chosen by name at run time could not be decoded or encoded.
struct FrameError {
    /// Which of the reasons it is.
    enum class Kind {
        /// No frame of the spec has the name.
        unknown_frame,
        /// The JSON is not a value of the frame (`message` says why).
        bad_json,
        /// The bytes are not a valid frame (`decode_error`).
        decode,
        /// The value is not one the encoder accepts (`encode_error`).
        encode,
    };

    /// Which reason.
    Kind kind = Kind::unknown_frame;
    /// What is wrong, as text.
    std::string message;
    /// For Kind::decode.
    std::optional<DecodeError> decode_error;
    /// For Kind::encode.
    std::optional<EncodeError> encode_error;

    /// No frame is named `name`.
    static FrameError unknown_frame(std::string_view name) {
        FrameError f;
        f.message = "unknown frame `" + std::string(name) + "`";
        return f;
    }

    /// The JSON is not a value of the frame.
    static FrameError bad_json(const json::Error& e) {
        FrameError f;
        f.kind = Kind::bad_json;
        f.message = e.text();
        return f;
    }

    /// The bytes did not decode.
    static FrameError decode(DecodeError e) {
        FrameError f;
        f.kind = Kind::decode;
        f.message = e.message();
        f.decode_error = std::move(e);
        return f;
    }

    /// The value did not encode.
    static FrameError encode(EncodeError e) {
        FrameError f;
        f.kind = Kind::encode;
        f.message = e.message();
        f.encode_error = std::move(e);
        return f;
    }
};

/// The frame type `T`, as visit_frame hands it to its visitor.
template <typename T>
struct FrameType {
    /// The frame type.
    using type = T;
};

/// A decoded frame in its JSON form (the frame's `to_json`, found by argument-dependent
/// lookup).
template <typename T>
Result<json::Value, FrameError> decoded_json(Result<T> decoded) {
    if (!decoded.ok()) {
        return FrameError::decode(decoded.error());
    }
    return to_json(decoded.value());
}

/// The bytes of the frame of type `T` whose JSON form is `value` (the frame's `from_json` and
/// `encode`, found by argument-dependent lookup).
template <typename T>
Result<std::vector<uint8_t>, FrameError> encode_json(const json::Value& value) {
    T frame{};
    json::Error error;
    if (!from_json(value, frame, error)) {
        return FrameError::bad_json(error);
    }
    std::vector<uint8_t> out;
    if (auto e = encode(frame, out)) {
        return FrameError::encode(std::move(*e));
    }
    return out;
}

}  // namespace rt
}  // namespace ackwire
"####;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_cpp_keywords_or_locals_get_an_underscore() {
        assert_eq!(ident("type"), "type");
        assert_eq!(ident("class"), "class_");
        assert_eq!(local("removed_count"), "removed_count");
        assert_eq!(local("n0"), "n0_");
        assert_eq!(local("value"), "value_");
        assert_eq!(local("item"), "item");
    }

    #[test]
    fn literals_keep_their_type() {
        assert_eq!(literal(6), "6");
        assert_eq!(literal(-1), "-1");
        assert_eq!(literal(1 << 40), "1099511627776LL");
        assert_eq!(literal(i128::from(u64::MAX)), "18446744073709551615ULL");
        assert_eq!(
            literal(i128::from(i64::MIN)),
            "(-9223372036854775807LL - 1)"
        );
    }

    #[test]
    fn both_headers_are_generated() {
        let spec = crate::reference_spec().expect("the reference protocol compiles");
        let files = generate(&spec);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, [RUNTIME_HEADER, PROTOCOL_HEADER]);
        assert!(files[1]
            .1
            .contains("inline constexpr uint32_t SENT_RING = 32;"));
        assert!(files[1]
            .1
            .contains("inline constexpr uint32_t MAX_HEADER_LEN = 51;"));
    }
}
