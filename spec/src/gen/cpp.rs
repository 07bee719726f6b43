//! The C++ backend: a header-only C++17 codec, for native clients.
//!
//! It writes two headers:
//! - `ackwire_runtime.hpp`, the same for every spec: the shared error taxonomy, `Result`, the
//!   checked `Reader`, the `Writer`, bit streams for packed bodies, varints and zigzag, and a
//!   minimal JSON value with a parser and a printer (the mirror of `ackwire_codec::rt`). It is
//!   not printed but copied: its source is `spec/runtime/cpp/include/ackwire_runtime.hpp`, a
//!   C++ header library with its own tests (`spec/runtime/cpp/test.sh`);
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
        let scalar = matches!(
            a.elem,
            Type::Int(_)
                | Type::Float { .. }
                | Type::Bool
                | Type::Varint { .. }
                | Type::Zigzag { .. }
                | Type::Quant { .. }
        );
        lines.push(format!("    for (size_t {i} = 0; {i} < {n}; ++{i}) {{"));
        if scalar {
            lines.push(format!("        {} {item}{{}};", self.cpp_type(&a.elem)));
        } else {
            // Read in place: a record built aside and moved in costs a copy of every field.
            lines.push(format!(
                "        {}& {item} = {target}.emplace_back();",
                self.cpp_type(&a.elem)
            ));
        }
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
        if scalar {
            lines.push(format!("        {target}.push_back({item});"));
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
            // Grown once by the frame's length, `out` is filled in place (see rt::Writer).
            self.code.line("rt::Writer w(out, encoded_len(frame));");
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

/// The runtime header: layout-independent, the same for every spec (`ackwire_runtime.hpp`). Its
/// source is a C++ file of its own, compiled and tested by `spec/runtime/cpp/test.sh`.
const RUNTIME: &str = include_str!("../../runtime/cpp/include/ackwire_runtime.hpp");

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
