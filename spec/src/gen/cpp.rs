//! The C++ backend: a header-only C++17 codec, for native clients.
//!
//! It writes two headers (only the second when the runtime is the installed CMake package,
//! [`RuntimeSource::Package`]):
//! - `ackwire_runtime.hpp`, the same for every spec: the shared error taxonomy, `Result`, the
//!   checked `Reader`, the `Writer`, bit streams for packed bodies, varints and zigzag, and a
//!   minimal JSON value with a parser and a printer (the mirror of `ackwire_codec::rt`). It is
//!   not printed but copied: its source is `cpp/include/ackwire_runtime.hpp`, a
//!   C++ header library with its own tests (`cpp/test.sh`);
//! - `protocol.hpp`, namespace `ackwire::protocol`, per declaration:
//!   - a constant: `inline constexpr uint32_t NAME = value;` (`max_offset` derived from the
//!     layout);
//!   - a bit set: a struct over its integer, with a `static constexpr` index per named bit,
//!     `contains`/`set`/`with`, and `check` (reserved bits, `requires`);
//!   - a record: a struct of its value fields (constants and counts are derived, not stored;
//!     conditional fields are `std::optional`, lists `std::vector`, bytes
//!     `std::vector<uint8_t>`, quantized numbers `double`, a `quat(B)` the runtime's
//!     `ackwire::SmallestThree` (its integers, checked against LANGUAGE.md's canonical rules by
//!     `read_quat` and `write_quat`), a `bucket(...)` or `zbucket(...)` the smallest integer
//!     holding every value of it); a record within a list ascending by its key gets
//!     `read_after`, `write_after` and `encoded_len_after` (`bit_len_after` when packed), which
//!     take the previous element's key;
//!   - a union: a `std::variant` of its variants' records, with `tag`;
//!   - for every type: `encoded_len` (`bit_len` for a packed record), `to_json`, `from_json`,
//!     and in `detail` the `read`/`write` functions the frames are made of;
//!   - a frame: also `decode_<frame>(data, len)`, `encode(frame, out)`, `to_bytes(frame)`;
//!   - `FRAME_NAMES`, `visit_frame`, `decode_frame_json` and `encode_frame_json`: the frames by
//!     name.
//!
//! It is a printer over the lowering ([`crate::lower`], `spec/src/lower.rs`): the role, wire
//! form, presence and size of every field, and the order of the checks, come from there, the
//! one module that decides them for every backend, and not from matching another backend; so
//! the same bytes fail with the same error kind at the same offset with the same field path in
//! every language, and conformance can hold them all to one verdict. Every step returns `bool`:
//! a failed one records its error in the reader or writer, and each caller adds its field on the
//! way out (`if (!r.read_uint(4, false, out.tick)) return r.in("tick");`). Nothing throws on bad
//! input.
//!
//! Limitation: a union is a `std::variant` alias, so two unions with the same variant records
//! would be one C++ type.

mod coded;
mod machines;
mod state;

/// The header of a state's binding (`arena.hpp`), as a testee includes it.
pub(crate) fn state_file_name(plan: &crate::state::StatePlan) -> String {
    state::file_name(plan)
}

use super::{file_banner, snake_case, source_names, storage, Code, RuntimeSource};
use crate::index::Decl;
use crate::lower::{
    ArrayPlan, Ascending, BitsPlan, BucketPlan, CountFrom, Lowering, Operand, RecordPlan, Role,
    Step, UnionPlan, Wire,
};
use crate::model::{BitKind, Const, Docs, File, Item, Record, RecordKind, Spec};
use std::collections::HashSet;

/// The file name of the runtime header.
pub const RUNTIME_HEADER: &str = "ackwire_runtime.hpp";

/// The file name of the codec header.
pub const PROTOCOL_HEADER: &str = "protocol.hpp";

/// The runtime's session headers (`cpp/include`): the sans-IO shape every session
/// half shares and the machines, generic over a schema, and the range coder of coded bodies, as
/// (file name, text). They include the runtime and never a generated header, so they are the
/// same for every layout.
pub const SESSION_HEADERS: &[(&str, &str)] = &[
    (
        "ackwire_session.hpp",
        include_str!("../../runtime/cpp/ackwire_session.hpp"),
    ),
    // cpp-rest: the digests and the datagram, baseline and delta machines.
    (
        "ackwire_digest.hpp",
        include_str!("../../runtime/cpp/ackwire_digest.hpp"),
    ),
    (
        "ackwire_datagram.hpp",
        include_str!("../../runtime/cpp/ackwire_datagram.hpp"),
    ),
    (
        "ackwire_baseline.hpp",
        include_str!("../../runtime/cpp/ackwire_baseline.hpp"),
    ),
    (
        "ackwire_delta.hpp",
        include_str!("../../runtime/cpp/ackwire_delta.hpp"),
    ),
    // The acked pair (cpp-acked, docs/spec/acked.md), its session halves and what a state's
    // binding calls.
    (
        "ackwire_acked.hpp",
        include_str!("../../runtime/cpp/ackwire_acked.hpp"),
    ),
    (
        "ackwire_acked_half.hpp",
        include_str!("../../runtime/cpp/ackwire_acked_half.hpp"),
    ),
    (
        "ackwire_state.hpp",
        include_str!("../../runtime/cpp/ackwire_state.hpp"),
    ),
    // Issue 39: the adaptive binary range coder of the coded profile.
    (
        "ackwire_range.hpp",
        include_str!("../../runtime/cpp/ackwire_range.hpp"),
    ),
    // Issue 39: the coded values of kind 13's body, over the range coder.
    (
        "ackwire_coded.hpp",
        include_str!("../../runtime/cpp/ackwire_coded.hpp"),
    ),
];

/// The generated files, as (path relative to the output folder, contents): the runtime header,
/// the codec of `spec`, which must be valid, and the runtime's session headers.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    generate_with(spec, RuntimeSource::Copy)
}

/// The generated files, with the runtime taken from `runtime`: for
/// [`RuntimeSource::Package`], `protocol.hpp` alone, including `<ackwire_runtime.hpp>` from the
/// include path of the installed CMake package (`cpp/CMakeLists.txt`, target `ackwire::runtime`).
pub fn generate_with(spec: &Spec, runtime: RuntimeSource) -> Vec<(String, String)> {
    let protocol = (PROTOCOL_HEADER.to_string(), protocol(spec, runtime));
    let mut bindings = state_bindings(spec, runtime);
    // And the header of every machine schema.
    bindings.extend(machines::generate(spec, runtime));
    if runtime == RuntimeSource::Package {
        let mut files = vec![protocol];
        files.extend(bindings);
        return files;
    }
    let mut files = vec![(RUNTIME_HEADER.to_string(), RUNTIME.to_string()), protocol];
    files.extend(bindings);
    files.extend(
        SESSION_HEADERS
            .iter()
            .map(|(name, text)| ((*name).to_string(), (*text).to_string())),
    );
    files
}

/// The binding header of every state of `spec` (`reference.hpp` for `state Reference`), as
/// (file name, text): the acked schemas the session machines run over, generated from the
/// state's plan ([`crate::state::StatePlan`]).
pub fn state_bindings(spec: &Spec, runtime: RuntimeSource) -> Vec<(String, String)> {
    crate::state::plans(spec)
        .iter()
        .filter(|p| p.byte_profile().is_some())
        .map(|p| (state::file_name(p), state::binding(spec, p, runtime)))
        .collect()
}

/// The codec header of `spec`.
fn protocol(spec: &Spec, runtime: RuntimeSource) -> String {
    let low = Lowering::new(spec);
    let mut g = Gen {
        low: &low,
        code: Code::default(),
    };
    g.header(spec, runtime);
    for file in &spec.files {
        g.file_section(file);
    }
    g.types(spec);
    g.prototypes(spec);
    for file in &spec.files {
        for item in &file.items {
            match item {
                Item::Const(_) => {}
                Item::Bits(b) => g.bits_fns(&low.bits_plan(b)),
                Item::Record(r) => g.record_fns(r),
                Item::Union(u) => g.union_fns(&low.union_plan(u)),
                Item::State(_) | Item::Schema(_) => {}
            }
        }
    }
    g.frames();
    for l in coded::coded_frames(spec).lines() {
        g.code.line_as_written(l);
    }
    g.code.blank();
    g.code.line("}  // namespace ackwire::protocol");
    g.code.finish()
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
    storage(bits, ["uint8_t", "uint16_t", "uint32_t", "uint64_t"])
}

fn int_type(bits: u8) -> &'static str {
    storage(bits, ["int8_t", "int16_t", "int32_t", "int64_t"])
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

/// The names of the declarations a wire form holds (C++ needs them complete first).
fn named_in(wire: &Wire<'_>, out: &mut Vec<String>) {
    match wire {
        Wire::Bits(b) => out.push(b.name.clone()),
        Wire::Record { record, .. } => out.push(record.name.clone()),
        Wire::Union(u) => out.push(u.name.clone()),
        Wire::Quant { wire, .. } => named_in(wire, out),
        Wire::Array(a) => {
            named_in(&a.elem, out);
            if let CountFrom::Prefix(t) = &a.count {
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

/// Whether a value of `wire` in `ctx` is written as a decimal string beyond 2^53 - 1.
fn is_big(wire: &Wire<'_>, ctx: Ctx) -> bool {
    if let Wire::Ranged { int, .. } = wire {
        return is_big(int, ctx);
    }
    let bits = match wire {
        Wire::Int { bits, .. } | Wire::Varint { bits } | Wire::Zigzag { bits } => *bits,
        // A bucket code's model is an integer of its width, in JSON as any other.
        Wire::Bucket(b) => b.model_bits,
        _ => return false,
    };
    match ctx {
        Ctx::Field { .. } => bits > 53,
        Ctx::Elem { big } => {
            big && bits > 53
                && matches!(
                    wire,
                    Wire::Int { signed: false, .. }
                        | Wire::Varint { .. }
                        | Wire::Bucket(BucketPlan { signed: false, .. })
                )
        }
    }
}

/// A bucket code's widths as the runtime takes them: `{0, 4, 8}`.
fn widths(b: &BucketPlan<'_>) -> String {
    let list: Vec<String> = b.widths.iter().map(u8::to_string).collect();
    format!("{{{}}}", list.join(", "))
}

/// The encoded bits of `src`, a value of bucket code `b` (zigzag-mapped first for a
/// `zbucket`).
fn bucket_len(b: &BucketPlan<'_>, src: &str) -> String {
    if b.signed {
        format!("rt::bucket_len({}, rt::zigzag({src}))", widths(b))
    } else {
        format!("rt::bucket_len({}, {src})", widths(b))
    }
}

/// The largest value of a packed ascending element or key (a `uN` or a `bucket(...)`), and
/// the step reading its raw code, the difference from the previous one, into the `uint64_t`
/// lvalue `target` (LANGUAGE.md: "the difference is carried in the element's own type").
fn read_raw_bits(wire: &Wire<'_>, target: &str) -> (String, String) {
    match wire {
        Wire::Bucket(b) => (
            literal(i128::from(b.max_code)),
            format!("b.bucket({}, {target})", widths(b)),
        ),
        Wire::Int { bits, .. } => (
            literal((1i128 << bits) - 1),
            format!("b.uint({bits}, {target})"),
        ),
        _ => (
            literal(i128::from(u64::MAX)),
            format!("b.uint(64, {target})"),
        ),
    }
}

/// The largest value of a packed ascending element or key, and the step writing its
/// difference `src`.
fn write_raw_bits(wire: &Wire<'_>, src: &str) -> (String, String) {
    match wire {
        Wire::Bucket(b) => (
            literal(i128::from(b.max_code)),
            format!("w.write_bucket({}, {src})", widths(b)),
        ),
        Wire::Int { bits, .. } => (
            literal((1i128 << bits) - 1),
            format!("w.write_uint({bits}, {src})"),
        ),
        _ => (
            literal(i128::from(u64::MAX)),
            format!("w.write_uint(64, {src})"),
        ),
    }
}

/// The width of a value that ascends (a varint or an unsigned integer), and the step reading
/// its raw wire integer into the `uint64_t` lvalue `target`.
fn read_raw(wire: &Wire<'_>, target: &str) -> (u8, String) {
    match wire {
        Wire::Int {
            bits, big_endian, ..
        } => (
            *bits,
            format!("r.read_uint({}, {big_endian}, {target})", bits / 8),
        ),
        Wire::Varint { bits } => (*bits, format!("r.read_varint({bits}, {target})")),
        _ => (64, format!("r.read_varint(64, {target})")),
    }
}

/// The width of a value that ascends, and the step writing its raw wire integer `src`.
fn write_raw(wire: &Wire<'_>, src: &str) -> (u8, String) {
    match wire {
        Wire::Int {
            bits, big_endian, ..
        } => (
            *bits,
            format!("w.write_uint({}, {big_endian}, {src})", bits / 8),
        ),
        Wire::Varint { bits } => (*bits, format!("w.write_varint({bits}, {src})")),
        _ => (64, format!("w.write_varint(64, {src})")),
    }
}

/// The width in bits of a union's tag, and whether it is most significant byte first.
fn tag_of(plan: &UnionPlan<'_>) -> (u8, bool) {
    match plan.tag {
        Wire::Int {
            bits, big_endian, ..
        } => (bits, big_endian),
        _ => (8, false),
    }
}

struct Gen<'a> {
    /// The spec lowered: what every function below prints.
    low: &'a Lowering<'a>,
    code: Code,
}

impl<'a> Gen<'a> {
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

    /// The plan of record `r` read on its own.
    fn plan(&self, r: &Record) -> &'a RecordPlan<'a> {
        self.low
            .plan(&r.name, None)
            .expect("every record has a plan of its own")
    }

    /// The key by which record `r` is an element of an ascending list, if it is one.
    fn key_of(&self, r: &Record) -> Option<&'a str> {
        self.low.keys_of(&r.name).first().copied()
    }

    // ---- the header and the declarations ----

    fn header(&mut self, spec: &Spec, runtime: RuntimeSource) {
        let sources = source_names(spec);
        self.code.line(format!(
            "// @generated by ackwire-spec from {}. Do not edit: change the layout files.",
            sources.join(", ")
        ));
        self.code.line("//");
        self.code.line(
            "// The frames' types and their codec, C++17, header-only, over ackwire_runtime.hpp. Decoders",
        );
        self.code.line(
            "// accept exactly the bytes the encoders produce (WIRE-21); a failed decode names",
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
        // A copy beside the header is found first; an installed one through the include path.
        self.code.line(match runtime {
            RuntimeSource::Copy => format!("#include \"{RUNTIME_HEADER}\""),
            RuntimeSource::Package => format!("#include <{RUNTIME_HEADER}>"),
        });
        // A coded frame (kind 13) codes its changes through the coded profile's runtime.
        let coded = coded::has_coded(spec);
        if coded {
            self.code.line(match runtime {
                RuntimeSource::Copy => "#include \"ackwire_coded.hpp\"".to_string(),
                RuntimeSource::Package => "#include <ackwire_coded.hpp>".to_string(),
            });
        }
        self.code.blank();
        let mut headers = vec![
            "array",
            "cstddef",
            "cstdint",
            "optional",
            "string_view",
            "variant",
            "vector",
        ];
        if coded {
            headers.extend([
                "algorithm",
                "cstring",
                "initializer_list",
                "limits",
                "utility",
            ]);
            headers.sort_unstable();
        }
        for h in headers {
            self.code.line(format!("#include <{h}>"));
        }
        self.code.blank();
        self.code.line("namespace ackwire::protocol {");
        self.code.line("");
    }

    fn file_section(&mut self, file: &File) {
        file_banner(&mut self.code, file, false);
        for item in &file.items {
            if let Item::Const(c) = item {
                self.code.blank();
                self.constant(c);
            }
        }
    }

    // WIRE-27: every named constant, with the value every generator derives alike.
    fn constant(&mut self, c: &Const) {
        self.docs(&c.docs, &format!("The protocol constant `{}`.", c.name));
        let ty = if c.ty.signed {
            int_type(c.ty.bits)
        } else {
            uint_type(c.ty.bits)
        };
        let value = self.low.index.const_value(c).unwrap_or_default();
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
            match self.low.index.get(&name) {
                Some(Decl::Bits(b)) => self.bits_type(&self.low.bits_plan(b)),
                Some(Decl::Record(r)) => self.record_type(r),
                Some(Decl::Union(u)) => self.union_type(&self.low.union_plan(u)),
                _ => {}
            }
        }
    }

    fn visit(&self, name: &str, done: &mut HashSet<String>, order: &mut Vec<String>) {
        if !done.insert(name.to_string()) {
            return;
        }
        let mut deps = Vec::new();
        match self.low.index.get(name) {
            Some(Decl::Record(r)) => {
                for step in &self.plan(r).steps {
                    named_in(&step.wire, &mut deps);
                }
            }
            Some(Decl::Union(u)) => deps.extend(
                self.low
                    .union_plan(u)
                    .variants
                    .iter()
                    .map(|(_, r)| r.name.clone()),
            ),
            Some(Decl::Bits(_)) => {}
            _ => return,
        }
        for d in deps {
            self.visit(&d, done, order);
        }
        order.push(name.to_string());
    }

    fn bits_type(&mut self, plan: &BitsPlan<'_>) {
        let b = plan.bits;
        let store = uint_type(b.width);
        self.docs(&b.docs, &format!("The bit set `{}`.", b.name));
        self.code.open(format!("struct {} {{", b.name));
        let declared = plan.known;
        let mut names = Vec::new();
        let named_docs = b
            .bits
            .iter()
            .filter(|bit| matches!(bit.kind, BitKind::Named { .. }))
            .map(|bit| &bit.docs);
        for (bit, docs) in plan.named.iter().zip(named_docs) {
            let (name, index) = (bit.name, bit.index);
            self.docs(docs, &format!("Bit {index}."));
            self.code
                .line(format!("static constexpr unsigned {name} = {index};"));
            names.push(format!("rt::BitName{{\"{name}\", {index}}}"));
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
        for (bit, (req, _)) in plan
            .named
            .iter()
            .filter_map(|n| Some((n.name, n.requires?)))
        {
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

    fn cpp_type(wire: &Wire<'_>) -> String {
        match wire {
            Wire::Int {
                signed: true, bits, ..
            }
            | Wire::Zigzag { bits } => int_type(*bits).into(),
            Wire::Int { bits, .. } | Wire::Varint { bits } => uint_type(*bits).into(),
            Wire::Float { bits, .. } => if *bits == 32 { "float" } else { "double" }.into(),
            Wire::Bool { .. } => "bool".into(),
            Wire::Bytes => "std::vector<uint8_t>".into(),
            Wire::OptBytes => "std::optional<std::vector<uint8_t>>".into(),
            Wire::Quant { .. } => "double".into(),
            Wire::Quat { .. } => "SmallestThree".into(),
            Wire::Ranged { int, .. } => Self::cpp_type(int),
            Wire::Bucket(b) if b.signed => int_type(b.model_bits).into(),
            Wire::Bucket(b) => uint_type(b.model_bits).into(),
            Wire::Bits(b) => b.name.clone(),
            Wire::Record { record, .. } => record.name.clone(),
            Wire::Union(u) => u.name.clone(),
            Wire::Array(a) => format!("std::vector<{}>", Self::cpp_type(&a.elem)),
            Wire::Unknown(name) => name.clone(),
        }
    }

    /// The default member initializer of a value of `wire`, if it needs one.
    fn init(wire: &Wire<'_>) -> &'static str {
        match wire {
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Varint { .. }
            | Wire::Zigzag { .. }
            | Wire::Bucket(_) => " = 0",
            Wire::Float { bits: 32, .. } => " = 0.0f",
            Wire::Float { .. } | Wire::Quant { .. } => " = 0.0",
            Wire::Bool { .. } => " = false",
            _ => "",
        }
    }

    fn record_type(&mut self, r: &Record) {
        let kind = if r.kind == RecordKind::Frame {
            "frame"
        } else {
            "record"
        };
        self.docs(&r.docs, &format!("The {kind} `{}`.", r.name));
        self.code.open(format!("struct {} {{", r.name));
        let fields: Vec<&Step<'_>> = self.plan(r).values().collect();
        for step in &fields {
            let f = step.field;
            self.docs(&f.docs, &format!("The `{}` field.", f.name));
            let ty = Self::cpp_type(&step.wire);
            if step.presence.is_some() {
                self.code
                    .line(format!("std::optional<{ty}> {};", ident(&f.name)));
            } else {
                self.code.line(format!(
                    "{ty} {}{};",
                    ident(&f.name),
                    Self::init(&step.wire)
                ));
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
                .map(|s| format!("a.{id} == b.{id}", id = ident(&s.field.name)))
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

    fn union_type(&mut self, plan: &UnionPlan<'_>) {
        let u = plan.union;
        self.docs(&u.docs, &format!("The union `{}`.", u.name));
        self.code.line("///");
        self.code.line(format!(
            "/// A tag of {} bits, then its variant:",
            tag_of(plan).0
        ));
        for ((tag, record), v) in plan.variants.iter().zip(&u.variants) {
            let (n, s) = (&record.name, snake_case(&record.name));
            let doc = v.docs.doc.join(" ");
            if doc.is_empty() {
                self.code
                    .line(format!("/// - {n} (tag {tag}, `{s}` in JSON)"));
            } else {
                self.code
                    .line(format!("/// - {n} (tag {tag}, `{s}` in JSON): {doc}"));
            }
        }
        let variants: Vec<&str> = plan.variants.iter().map(|(_, r)| r.name.as_str()).collect();
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
            Item::Const(_) | Item::State(_) | Item::Schema(_) => {}
            Item::Bits(b) => {
                let n = &b.name;
                if self.low.bits_used(n, false) {
                    private.push(sig_read(n, false, false, false));
                    private.push(sig_write(n, false, false, false));
                }
                if self.low.bits_used(n, true) {
                    private.push(sig_read(n, true, false, false));
                    private.push(sig_write(n, true, false, false));
                }
                public.push(sig_to_json(n, false));
                public.push(sig_from_json(n, false));
            }
            Item::Record(r) => {
                let n = &r.name;
                let plan = self.plan(r);
                let (empty, no_values) = (plan.steps.is_empty(), plan.values().next().is_none());
                private.push(sig_read(n, plan.packed, empty, no_values));
                private.push(sig_write(n, plan.packed, empty, no_values));
                if self.key_of(r).is_some() {
                    private.push(sig_read_after(n, plan.packed));
                    private.push(sig_write_after(n, plan.packed));
                    public.push(sig_len_after(n, plan.packed, false));
                }
                if plan.packed {
                    public.push(sig_len(n, "bit_len", false));
                } else {
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
                    uint_type(tag_of(&self.low.union_plan(u)).0)
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

    fn bits_fns(&mut self, plan: &BitsPlan<'_>) {
        let b = plan.bits;
        let n = &b.name;
        self.code.blank();
        self.code.line(format!("// ---- {n} ----"));
        self.code.blank();
        self.code.line("namespace detail {");
        if self.low.bits_used(n, false) {
            let bytes = b.width / 8;
            let be = self.low.bits_big_endian(b);
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
        if self.low.bits_used(n, true) {
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

    /// The expression of the field a presence test reads: the literal of a constant, the
    /// local a count was read into (the length of its array when encoding), else the value's
    /// field (`out.x` when decoding, `v.x` when encoding).
    fn field_ref(operand: &Operand<'_>, encode: bool) -> String {
        match operand {
            Operand::Constant { value, .. } => literal(*value),
            Operand::Count { array, .. } if encode => format!("v.{}.size()", ident(array)),
            Operand::Count { field, .. } => local(&field.name),
            other if encode => format!("v.{}", ident(other.name())),
            other => format!("out.{}", ident(other.name())),
        }
    }

    /// When a step is present, as a C++ condition: every test of its presence (the selector's
    /// bit, then the condition's), or None when always.
    fn presence(step: &Step<'_>, encode: bool) -> Option<String> {
        Some(super::c_like_presence(
            step.presence.as_ref()?,
            &|operand| Self::field_ref(operand, encode),
            &|value| literal(i128::from(value)),
        ))
    }

    // ---- decoding ----

    /// Lines reading a value of wire form `wire` into the lvalue `target`, from `r` (or `b` in
    /// a packed record); a failure returns with `path` added to the error.
    fn decode(
        &self,
        wire: &Wire<'_>,
        packed: bool,
        target: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let rd = if packed { "b" } else { "r" };
        let bail = bail(rd, path);
        let step = |s: String| check(&[s], &bail);
        match wire {
            // WIRE-29: refused outside its range, at its first byte (bit).
            Wire::Ranged {
                min,
                max,
                packed: Some(width),
                ..
            } => step(format!(
                "b.read_ranged({width}, {}, {}, {target})",
                literal(i128::from(*min)),
                literal(i128::from(*max))
            )),
            Wire::Ranged { int, min, max, .. } => {
                let (bits, big_endian) = match int.as_ref() {
                    Wire::Int {
                        bits, big_endian, ..
                    } => (*bits, *big_endian),
                    _ => (64, false),
                };
                step(format!(
                    "r.read_ranged({}, {big_endian}, {}, {}, {target})",
                    bits / 8,
                    literal(i128::from(*min)),
                    literal(i128::from(*max))
                ))
            }
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => {
                let f = if *signed { "read_int" } else { "read_uint" };
                if packed {
                    step(format!("b.{f}({bits}, {target})"))
                } else {
                    step(format!("r.{f}({}, {big_endian}, {target})", bits / 8))
                }
            }
            Wire::Float { bits, big_endian } => {
                if packed {
                    step(format!("b.read_f{bits}({target})"))
                } else {
                    step(format!("r.read_f{bits}({big_endian}, {target})"))
                }
            }
            Wire::Bool { .. } => step(format!("{rd}.read_bool({target})")),
            Wire::Varint { bits } => step(format!("r.read_varint({bits}, {target})")),
            Wire::Zigzag { bits } => step(format!("r.read_zigzag({bits}, {target})")),
            Wire::Bytes => step(format!("r.read_bytes({target})")),
            Wire::OptBytes => step(format!("r.read_opt_bytes({target})")),
            Wire::Quat { bits } => step(format!("b.read_quat({bits}, {target})")),
            Wire::Bucket(bp) => step(format!(
                "b.read_{}bucket({}, {target})",
                if bp.signed { "z" } else { "" },
                widths(bp)
            )),
            Wire::Quant { wire, num, den, .. } => {
                let mut lines = vec!["{".to_string()];
                lines.push(format!("    {} q = 0;", Self::cpp_type(wire)));
                lines.extend(indent(self.decode(wire, packed, "q", path, depth)));
                lines.push(format!(
                    "    {target} = static_cast<double>(q) * {};",
                    scale(*num, *den)
                ));
                lines.push("}".into());
                lines
            }
            Wire::Bits(_) | Wire::Record { .. } if packed => {
                step(format!("read_bits(b, {target})"))
            }
            Wire::Record { padded: true, .. } => step(format!(
                "r.packed([&](rt::BitReader& b) {{ return read_bits(b, {target}); }})"
            )),
            Wire::Array(a) => self.decode_array(a, packed, target, path, depth),
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                step(format!("read(r, {target})"))
            }
        }
    }

    /// Lines reading a list into `target`. The count (the local its count field was read into,
    /// or its prefix) is checked against what remains before anything is allocated.
    fn decode_array(
        &self,
        a: &ArrayPlan<'_>,
        packed: bool,
        target: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let (rd, pos) = if packed {
            ("b", "bit_pos")
        } else {
            ("r", "pos")
        };
        let min = a.elem_min;
        let mut lines = vec!["{".to_string()];
        let count = match &a.count {
            CountFrom::Prefix(t) => {
                let c = format!("c{depth}");
                lines.push(format!("    {} {c} = 0;", Self::cpp_type(t)));
                lines.extend(indent(self.decode(t, packed, &c, path, depth)));
                c
            }
            CountFrom::Field(name) => local(name),
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
            Wire::Int { .. }
                | Wire::Float { .. }
                | Wire::Bool { .. }
                | Wire::Varint { .. }
                | Wire::Zigzag { .. }
                | Wire::Quant { .. }
                | Wire::Quat { .. }
                | Wire::Bucket(_)
        );
        lines.push(format!("    for (size_t {i} = 0; {i} < {n}; ++{i}) {{"));
        if scalar {
            lines.push(format!("        {} {item}{{}};", Self::cpp_type(&a.elem)));
        } else {
            // Read in place: a record built aside and moved in costs a copy of every field.
            lines.push(format!(
                "        {}& {item} = {target}.emplace_back();",
                Self::cpp_type(&a.elem)
            ));
        }
        let inner = with_index(path, &i);
        let body = match &a.ascending {
            Some(Ascending::Key(_)) => check(
                &[format!("read_after({rd}, {item}, {prev})")],
                &bail(rd, &inner),
            ),
            // In a packed record: `uN` or `bucket(...)` values, each after the first carried as
            // its difference in the element's own code, the sum held to its largest value.
            Some(Ascending::Values) if packed => {
                let (max, read) = read_raw_bits(&a.elem, "delta");
                let mut body = vec![
                    "{".to_string(),
                    "    const size_t at = b.bit_pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                body.extend(indent(check(
                    &[
                        read,
                        format!("b.ascending_to({prev}, delta, {max}, at, {item})"),
                    ],
                    &bail("b", &inner),
                )));
                body.push("}".into());
                body
            }
            Some(Ascending::Values) => {
                let (bits, read) = read_raw(&a.elem, "delta");
                let mut body = vec![
                    "{".to_string(),
                    "    const size_t at = r.pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                body.extend(indent(check(
                    &[
                        read,
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

    fn read_fn(&mut self, plan: &RecordPlan<'_>) {
        let (n, packed) = (&plan.record.name, plan.packed);
        let empty = plan.steps.is_empty();
        let no_values = plan.values().next().is_none();
        if plan.key.is_some() {
            self.code.line(
                "/// Reads the record within an ascending list: its key is the difference from",
            );
            self.code
                .line("/// `prev`, the previous element's key (absolute for the first).");
            self.open_fn(&sig_read_after(n, packed));
        } else if packed {
            self.code.line("/// Reads the record from a bit stream.");
            self.open_fn(&sig_read(n, true, empty, no_values));
        } else {
            self.code.line("/// Reads the record.");
            self.open_fn(&sig_read(n, false, empty, no_values));
        }
        for step in &plan.steps {
            let target = format!("out.{}", ident(&step.field.name));
            let lines = self.read_step(step, packed, &target);
            self.lines(lines);
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    /// Lines reading step `step` of a record into the lvalue `target` (its field, `out.x`), as
    /// the record's reader reads it: a constant checked, a count into its local (declared
    /// here), a key after the previous one (`prev`), a value under its presence condition.
    fn read_step(&self, step: &Step<'_>, packed: bool, target: &str) -> Vec<String> {
        let f = step.field;
        let path = field_path(&f.name);
        let rd = if packed { "b" } else { "r" };
        match step.role {
            Role::Constant(c) => {
                let (at, fail) = if packed {
                    ("b.bit_pos()", "b.fail")
                } else {
                    ("r.pos()", "r.fail")
                };
                let mut lines = vec![
                    "{".to_string(),
                    format!("    const size_t at = {at};"),
                    format!(
                        "    {} value{};",
                        Self::cpp_type(&step.wire),
                        Self::init(&step.wire)
                    ),
                ];
                lines.extend(indent(self.decode(&step.wire, packed, "value", &path, 0)));
                lines.push(format!("    if (value != {}) {{", literal(c)));
                lines.push(format!("        {fail}(rt::ErrorKind::bad_constant, at);"));
                lines.push(format!("        {}", bail(rd, &path)));
                lines.push("    }".into());
                lines.push("}".into());
                lines
            }
            Role::Count { .. } => {
                let mut lines = vec![format!(
                    "{} {}{};",
                    Self::cpp_type(&step.wire),
                    local(&f.name),
                    Self::init(&step.wire)
                )];
                lines.extend(self.decode(&step.wire, packed, &local(&f.name), &path, 0));
                lines
            }
            Role::Key if packed => {
                let (max, read) = read_raw_bits(&step.wire, "delta");
                let mut lines = vec![
                    "{".to_string(),
                    "    const size_t at = b.bit_pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                lines.extend(indent(check(
                    &[
                        read,
                        format!("b.ascending_to(prev, delta, {max}, at, {target})"),
                    ],
                    &bail("b", &path),
                )));
                lines.push("}".into());
                lines
            }
            Role::Key => {
                let (bits, read) = read_raw(&step.wire, "delta");
                let mut lines = vec![
                    "{".to_string(),
                    "    const size_t at = r.pos();".into(),
                    "    uint64_t delta = 0;".into(),
                ];
                lines.extend(indent(check(
                    &[
                        read,
                        format!("r.ascending(prev, delta, {bits}, at, {target})"),
                    ],
                    &bail("r", &path),
                )));
                lines.push("}".into());
                lines
            }
            Role::Value => match Self::presence(step, false) {
                Some(cond) => {
                    let decode = |target: &str| self.decode(&step.wire, packed, target, &path, 0);
                    let mut lines = vec![format!("if ({cond}) {{")];
                    if decode("@").len() == 1 && !matches!(step.wire, Wire::Array(_)) {
                        lines.extend(indent(decode(&format!("{target}.emplace()"))));
                    } else {
                        lines.push(format!("    auto& value = {target}.emplace();"));
                        lines.extend(indent(decode("value")));
                    }
                    lines.push("} else {".into());
                    lines.push(format!("    {target}.reset();"));
                    lines.push("}".into());
                    lines
                }
                None => self.decode(&step.wire, packed, target, &path, 0),
            },
        }
    }

    // ---- encoding ----

    /// Lines writing the value `src` of wire form `wire` with `w` (a `Writer`, or a
    /// `BitWriter` in a packed record); a failure returns with `path` added to the error.
    fn encode(
        &self,
        wire: &Wire<'_>,
        packed: bool,
        src: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let bail = bail("w", path);
        let step = |s: String| check(&[s], &bail);
        let write_int = |signed: bool, bits: u8, big_endian: bool, src: &str| {
            let f = if signed { "write_int" } else { "write_uint" };
            if packed {
                format!("w.{f}({bits}, {src})")
            } else {
                format!("w.{f}({}, {big_endian}, {src})", bits / 8)
            }
        };
        match wire {
            // WIRE-29: a value outside the range is refused before anything is written.
            Wire::Ranged {
                min,
                max,
                packed: Some(width),
                ..
            } => step(format!(
                "w.write_ranged({width}, {}, {}, {src})",
                literal(i128::from(*min)),
                literal(i128::from(*max))
            )),
            Wire::Ranged { int, min, max, .. } => {
                let write = match int.as_ref() {
                    Wire::Int {
                        signed,
                        bits,
                        big_endian,
                    } => write_int(*signed, *bits, *big_endian, src),
                    _ => String::new(),
                };
                check(
                    &[
                        format!(
                            "w.in_range({src}, {}, {})",
                            literal(i128::from(*min)),
                            literal(i128::from(*max))
                        ),
                        write,
                    ],
                    &bail,
                )
            }
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => step(write_int(*signed, *bits, *big_endian, src)),
            Wire::Float { bits, big_endian } => {
                if packed {
                    step(format!("w.write_f{bits}({src})"))
                } else {
                    step(format!("w.write_f{bits}({big_endian}, {src})"))
                }
            }
            Wire::Bool { .. } => vec![format!("w.write_bool({src});")],
            Wire::Varint { bits } => step(format!("w.write_varint({bits}, {src})")),
            Wire::Zigzag { bits } => step(format!("w.write_zigzag({bits}, {src})")),
            Wire::Bytes => step(format!("w.write_bytes({src})")),
            Wire::OptBytes => step(format!("w.write_opt_bytes({src})")),
            Wire::Quat { bits } => step(format!("w.write_quat({bits}, {src})")),
            Wire::Bucket(b) => step(format!(
                "w.write_{}bucket({}, {src})",
                if b.signed { "z" } else { "" },
                widths(b)
            )),
            Wire::Quant {
                wire,
                num,
                den,
                signed,
                bits,
                min,
                max,
            } => {
                let s = scale(*num, *den);
                let mut lines = vec!["{".to_string()];
                let quantize = if *signed {
                    lines.push("    int64_t q = 0;".into());
                    format!(
                        "w.quantize_int({src}, {s}, {}, {}, q)",
                        literal(*min),
                        literal(*max)
                    )
                } else {
                    lines.push("    uint64_t q = 0;".into());
                    format!("w.quantize_uint({src}, {s}, {}, q)", literal(*max))
                };
                let write = match wire.as_ref() {
                    Wire::Int {
                        signed,
                        bits,
                        big_endian,
                    } => write_int(*signed, *bits, *big_endian, "q"),
                    Wire::Zigzag { bits } => format!("w.write_zigzag({bits}, q)"),
                    Wire::Bucket(b) => format!(
                        "w.write_{}bucket({}, q)",
                        if b.signed { "z" } else { "" },
                        widths(b)
                    ),
                    _ => format!("w.write_varint({bits}, q)"),
                };
                lines.extend(indent(check(&[quantize, write], &bail)));
                lines.push("}".into());
                lines
            }
            Wire::Record { padded: true, .. } => {
                let mut lines = vec!["{".to_string(), "    rt::BitWriter bits(w);".into()];
                lines.extend(indent(check(&[format!("write_bits(bits, {src})")], &bail)));
                lines.push("    bits.finish();".into());
                lines.push("}".into());
                lines
            }
            Wire::Array(a) => self.encode_array(a, packed, src, path, depth),
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                if packed {
                    step(format!("write_bits(w, {src})"))
                } else {
                    step(format!("write(w, {src})"))
                }
            }
        }
    }

    fn encode_array(
        &self,
        a: &ArrayPlan<'_>,
        packed: bool,
        src: &str,
        path: &[Seg],
        depth: usize,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        if let CountFrom::Prefix(t) = &a.count {
            lines.extend(self.encode(t, packed, &format!("{src}.size()"), path, depth));
        }
        let (i, item, prev) = (
            format!("i{depth}"),
            format!("item{depth}"),
            format!("prev{depth}"),
        );
        let inner = with_index(path, &i);
        let body: Vec<String> = match &a.ascending {
            Some(Ascending::Key(_)) => check(
                &[format!("write_after(w, {item}, {prev})")],
                &bail("w", &inner),
            ),
            Some(Ascending::Values) if packed => {
                let (max, write) = write_raw_bits(&a.elem, "delta");
                let mut body = vec!["uint64_t delta = 0;".to_string()];
                body.extend(check(
                    &[
                        format!("w.ascending_to({prev}, {item}, {max}, delta)"),
                        write,
                    ],
                    &bail("w", &inner),
                ));
                body
            }
            Some(Ascending::Values) => {
                let (bits, write) = write_raw(&a.elem, "delta");
                let mut body = vec!["uint64_t delta = 0;".to_string()];
                body.extend(check(
                    &[format!("w.ascending({prev}, {item}, {bits}, delta)"), write],
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

    fn write_fn(&mut self, plan: &RecordPlan<'_>) {
        let (n, packed) = (&plan.record.name, plan.packed);
        let empty = plan.steps.is_empty();
        let no_values = plan.values().next().is_none();
        if plan.key.is_some() {
            self.code.line(
                "/// Writes the record within an ascending list: its key as the difference from",
            );
            self.code
                .line("/// `prev`, the previous element's key (absolute for the first).");
            self.open_fn(&sig_write_after(n, packed));
        } else if packed {
            self.code.line("/// Writes the record into a bit stream.");
            self.open_fn(&sig_write(n, true, empty, no_values));
        } else {
            self.code.line("/// Writes the record.");
            self.open_fn(&sig_write(n, false, empty, no_values));
        }
        for step in &plan.steps {
            let lines = self.write_step(step, packed);
            self.lines(lines);
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    /// Lines writing step `step` of a record from `v`, as the record's writer writes it: a
    /// constant, a count of its list, a key after the previous one (`prev`), a value under its
    /// presence condition.
    fn write_step(&self, step: &Step<'_>, packed: bool) -> Vec<String> {
        let f = step.field;
        let path = field_path(&f.name);
        let src = format!("v.{}", ident(&f.name));
        let encode = |src: &str| self.encode(&step.wire, packed, src, &path, 0);
        match step.role {
            Role::Constant(c) => encode(&literal(c)),
            Role::Count { array } => encode(&format!("v.{}.size()", ident(array))),
            Role::Key if packed => {
                let (max, write) = write_raw_bits(&step.wire, "delta");
                let mut lines = vec!["{".to_string(), "    uint64_t delta = 0;".into()];
                lines.extend(indent(check(
                    &[format!("w.ascending_to(prev, {src}, {max}, delta)"), write],
                    &bail("w", &path),
                )));
                lines.push("}".into());
                lines
            }
            Role::Key => {
                let (bits, write) = write_raw(&step.wire, "delta");
                let mut lines = vec!["{".to_string(), "    uint64_t delta = 0;".into()];
                lines.extend(indent(check(
                    &[format!("w.ascending(prev, {src}, {bits}, delta)"), write],
                    &bail("w", &path),
                )));
                lines.push("}".into());
                lines
            }
            Role::Value => match Self::presence(step, true) {
                Some(cond) => {
                    let mut lines = check(
                        &[format!("w.presence({src}.has_value(), {cond})")],
                        &bail("w", &path),
                    );
                    lines.push(format!("if ({src}) {{"));
                    if encode("@").len() == 1 && !matches!(step.wire, Wire::Array(_)) {
                        lines.extend(indent(encode(&format!("*{src}"))));
                    } else {
                        lines.push(format!("    const auto& value = *{src};"));
                        lines.extend(indent(encode("value")));
                    }
                    lines.push("}".into());
                    lines
                }
                None => encode(&src),
            },
        }
    }

    // ---- lengths ----

    /// Lines adding the encoded size of `src` (bytes, or bits when packed) to `n`; `fixed` is
    /// the size of `wire` when it is fixed.
    fn len(
        &self,
        wire: &Wire<'_>,
        fixed: Option<u64>,
        packed: bool,
        src: &str,
        depth: usize,
    ) -> Vec<String> {
        if let Some(k) = fixed {
            return vec![format!("n += {k};")];
        }
        let add = |e: String| vec![format!("n += {e};")];
        match wire {
            Wire::Varint { .. } => add(format!("rt::varint_len({src})")),
            Wire::Zigzag { .. } => add(format!("rt::varint_len(rt::zigzag({src}))")),
            Wire::Bytes => add(format!("rt::bytes_len({src})")),
            Wire::OptBytes => add(format!("rt::opt_bytes_len({src})")),
            Wire::Quat { bits } => add((2 + 3 * u64::from(*bits)).to_string()),
            Wire::Bucket(b) => add(bucket_len(b, src)),
            Wire::Quant { wire, num, den, .. } => {
                let q = format!("rt::quantize({src}, {})", scale(*num, *den));
                match wire.as_ref() {
                    Wire::Bucket(b) if b.signed => {
                        add(bucket_len(b, &format!("rt::saturate_i64({q})")))
                    }
                    Wire::Bucket(b) => add(bucket_len(b, &format!("rt::saturate_u64({q})"))),
                    Wire::Zigzag { .. } => {
                        add(format!("rt::varint_len(rt::zigzag(rt::saturate_i64({q})))"))
                    }
                    _ => add(format!("rt::varint_len(rt::saturate_u64({q}))")),
                }
            }
            Wire::Record { padded: true, .. } => add(format!("(bit_len({src}) + 7) / 8")),
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                if packed {
                    add(format!("bit_len({src})"))
                } else {
                    add(format!("encoded_len({src})"))
                }
            }
            Wire::Array(a) => {
                let mut lines = Vec::new();
                if let CountFrom::Prefix(t) = &a.count {
                    lines.push(match t.int_size(packed) {
                        Some(k) => format!("n += {k};"),
                        None => format!("n += rt::varint_len({src}.size());"),
                    });
                }
                let x = format!("x{depth}");
                match (&a.ascending, a.elem_fixed) {
                    (Some(Ascending::Key(_)), _) => {
                        let prev = format!("prev{depth}");
                        lines.push("{".into());
                        lines.push(format!("    std::optional<uint64_t> {prev};"));
                        lines.push(format!("    for (const auto& {x} : {src}) {{"));
                        lines.push(format!(
                            "        n += {}_len_after({x}, {prev});",
                            if packed { "bit" } else { "encoded" }
                        ));
                        lines.push("    }".into());
                        lines.push("}".into());
                    }
                    (Some(_), _) if matches!(a.elem, Wire::Varint { .. }) => {
                        lines.push(format!("n += rt::ascending_varints_len({src});"));
                    }
                    (Some(_), _) if matches!(a.elem, Wire::Bucket(_)) => {
                        if let Wire::Bucket(b) = &a.elem {
                            lines.push(format!(
                                "n += rt::ascending_buckets_len({}, {src});",
                                widths(b)
                            ));
                        }
                    }
                    (_, Some(k)) => lines.push(format!("n += {src}.size() * {k};")),
                    (_, None) => {
                        lines.push(format!("for (const auto& {x} : {src}) {{"));
                        lines.extend(indent(self.len(&a.elem, None, packed, &x, depth + 1)));
                        lines.push("}".into());
                    }
                }
                lines
            }
            // Fixed-size kinds are handled above.
            Wire::Int { .. } | Wire::Ranged { .. } | Wire::Float { .. } | Wire::Bool { .. } => {
                Vec::new()
            }
        }
    }

    fn len_fn(&mut self, plan: &RecordPlan<'_>) {
        let (n, packed) = (&plan.record.name, plan.packed);
        let mut fixed = 0u64;
        let mut lines: Vec<String> = Vec::new();
        for step in &plan.steps {
            let f = step.field;
            let src = format!("v.{}", ident(&f.name));
            match step.role {
                Role::Constant(c) => {
                    fixed += match &step.wire {
                        Wire::Varint { .. } => leb_len(c as u64),
                        Wire::Zigzag { .. } => {
                            leb_len((((c as i64) << 1) ^ ((c as i64) >> 63)) as u64)
                        }
                        _ => step.fixed.unwrap_or(0),
                    };
                }
                Role::Count { array } => match step.fixed {
                    Some(k) => fixed += k,
                    None => lines.push(format!("n += rt::varint_len(v.{}.size());", ident(array))),
                },
                Role::Key => match (step.fixed, &step.wire) {
                    (Some(k), _) => {
                        fixed += k;
                        lines.push(format!("rt::ascending_step(prev, {src});"));
                    }
                    (None, Wire::Bucket(b)) => lines.push(format!(
                        "n += {};",
                        bucket_len(b, &format!("rt::ascending_step(prev, {src})"))
                    )),
                    (None, _) => lines.push(format!(
                        "n += rt::varint_len(rt::ascending_step(prev, {src}));"
                    )),
                },
                Role::Value if step.presence.is_some() => {
                    let len = |src: &str| self.len(&step.wire, step.fixed, packed, src, 0);
                    if len("@").len() == 1 && !matches!(step.wire, Wire::Array(_)) {
                        let line = len(&format!("*{src}")).remove(0);
                        lines.push(format!("if ({src}) {{"));
                        lines.push(format!("    {line}"));
                        lines.push("}".into());
                    } else {
                        lines.push(format!("if ({src}) {{"));
                        lines.push(format!("    const auto& value = *{src};"));
                        lines.extend(indent(len("value")));
                        lines.push("}".into());
                    }
                }
                Role::Value => match step.fixed {
                    Some(k) => fixed += k,
                    None => lines.extend(self.len(&step.wire, None, packed, &src, 0)),
                },
            }
        }
        let unused = lines.is_empty();
        if plan.key.is_some() {
            self.code.line(format!(
                "/// The number of {} write_after() writes, moving `prev` on.",
                if packed { "bits" } else { "bytes" }
            ));
            self.open_fn(&sig_len_after(n, packed, unused));
        } else if packed {
            self.code
                .line("/// The number of bits write_bits() writes.");
            self.open_fn(&sig_len(n, "bit_len", unused));
        } else {
            self.code.line("/// The number of bytes the record takes.");
            self.open_fn(&sig_len(n, "encoded_len", unused));
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

    /// The conversion to JSON of a value of `wire` where `ctx` says, as a function object of the
    /// runtime (`json::uint_number`, `json::named`, `json::list_of(...)`).
    fn json_conv(&self, wire: &Wire<'_>, ctx: Ctx) -> String {
        let big = is_big(wire, ctx);
        match wire {
            Wire::Ranged { int, .. } => self.json_conv(int, ctx),
            Wire::Int { signed: false, .. } | Wire::Varint { .. } => if big {
                "json::big_uint"
            } else {
                "json::uint_number"
            }
            .into(),
            Wire::Int { .. } | Wire::Zigzag { .. } => if big {
                "json::big_int"
            } else {
                "json::int_number"
            }
            .into(),
            Wire::Bucket(b) => match (b.signed, big) {
                (false, true) => "json::big_uint",
                (false, false) => "json::uint_number",
                (true, true) => "json::big_int",
                (true, false) => "json::int_number",
            }
            .into(),
            Wire::Quat { .. } => "json::quat".into(),
            Wire::Float { bits: 32, .. } => "json::f32_number".into(),
            Wire::Float { .. } | Wire::Quant { .. } => "json::f64_number".into(),
            Wire::Bool { .. } => "json::boolean".into(),
            Wire::Bytes => match ctx {
                Ctx::Field { .. } => "json::hex".into(),
                Ctx::Elem { .. } => "json::byte_list".into(),
            },
            Wire::OptBytes => match ctx {
                Ctx::Field { optional: false } => "json::opt_hex".into(),
                _ => "json::opt_byte_list".into(),
            },
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                "json::named".into()
            }
            Wire::Array(a) => format!(
                "json::list_of({})",
                self.json_conv(&a.elem, Ctx::Elem { big: false })
            ),
        }
    }

    /// The conversion from JSON of a value of `wire` where `ctx` says (`json::get_uint`, ...).
    fn json_get(&self, wire: &Wire<'_>, ctx: Ctx) -> String {
        let big = is_big(wire, ctx);
        match wire {
            Wire::Ranged { int, .. } => self.json_get(int, ctx),
            Wire::Int { signed: false, .. } | Wire::Varint { .. } => if big {
                "json::get_big_uint"
            } else {
                "json::get_uint"
            }
            .into(),
            Wire::Int { .. } | Wire::Zigzag { .. } => if big {
                "json::get_big_int"
            } else {
                "json::get_int"
            }
            .into(),
            Wire::Bucket(b) => match (b.signed, big) {
                (false, true) => "json::get_big_uint",
                (false, false) => "json::get_uint",
                (true, true) => "json::get_big_int",
                (true, false) => "json::get_int",
            }
            .into(),
            Wire::Quat { .. } => "json::get_quat".into(),
            Wire::Float { bits: 32, .. } => "json::get_f32".into(),
            Wire::Float { .. } | Wire::Quant { .. } => "json::get_f64".into(),
            Wire::Bool { .. } => "json::get_bool".into(),
            Wire::Bytes => match ctx {
                Ctx::Field { .. } => "json::get_hex".into(),
                Ctx::Elem { .. } => "json::get_byte_list".into(),
            },
            Wire::OptBytes => match ctx {
                Ctx::Field { optional: false } => "json::get_opt_hex".into(),
                _ => "json::get_opt_byte_list".into(),
            },
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                "json::get_named".into()
            }
            Wire::Array(a) => format!(
                "json::get_list_of({})",
                self.json_get(&a.elem, Ctx::Elem { big: false })
            ),
        }
    }

    /// An expression of the JSON form of the field value `src`.
    fn json_out(&self, wire: &Wire<'_>, src: &str, ctx: Ctx) -> String {
        match wire {
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                format!("to_json({src})")
            }
            Wire::Array(a) => {
                let inner = Ctx::Elem {
                    big: matches!(ctx, Ctx::Field { optional: false }),
                };
                format!("json::list({src}, {})", self.json_conv(&a.elem, inner))
            }
            _ => format!("{}({src})", self.json_conv(wire, ctx)),
        }
    }

    /// The step reading the JSON value `src` into the field lvalue `dst`.
    fn json_in(&self, wire: &Wire<'_>, src: &str, dst: &str, ctx: Ctx) -> String {
        match wire {
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                format!("from_json({src}, {dst}, error)")
            }
            Wire::Array(a) => {
                let inner = Ctx::Elem {
                    big: matches!(ctx, Ctx::Field { optional: false }),
                };
                format!(
                    "json::get_list({src}, {dst}, error, {})",
                    self.json_get(&a.elem, inner)
                )
            }
            _ => format!("{}({src}, {dst}, error)", self.json_get(wire, ctx)),
        }
    }

    fn record_json(&mut self, r: &Record) {
        let fields: Vec<&Step<'_>> = self.plan(r).values().collect();
        let n = &r.name;
        self.code.blank();
        self.code
            .line("/// The record's JSON form: its value fields in order, absent ones left out.");
        self.open_fn(&sig_to_json(n, fields.is_empty()));
        if fields.is_empty() {
            self.code.line("return json::Value::object();");
        } else {
            self.code.line("json::Value o = json::Value::object();");
            for step in &fields {
                let name = &step.field.name;
                let src = format!("v.{}", ident(name));
                if step.presence.is_some() {
                    let value = self.json_out(
                        &step.wire,
                        &format!("*{src}"),
                        Ctx::Field { optional: true },
                    );
                    self.code.open(format!("if ({src}) {{"));
                    self.code.line(format!("o.set(\"{name}\", {value});"));
                    self.code.close("}");
                } else {
                    let value = self.json_out(&step.wire, &src, Ctx::Field { optional: false });
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
        let names: Vec<String> = fields
            .iter()
            .map(|s| format!("\"{}\"", s.field.name))
            .collect();
        let mut lines = fill("if (!json::check_object(j, {", &names, "}, error)) {");
        let one = format!(
            "if (!json::check_object(j, {{{}}}, error)) return false;",
            names.join(", ")
        );
        // On one line when it fits within the 100 columns, at the function body's indent.
        if lines.len() == 1 && 4 + one.len() <= 100 {
            lines = vec![one];
        } else {
            lines.push("    return false;".into());
            lines.push("}".into());
        }
        self.lines(lines);
        if !fields.is_empty() {
            self.code.line("const json::Value* m = nullptr;");
        }
        for step in &fields {
            let name = &step.field.name;
            let dst = format!("out.{}", ident(name));
            let bail = format!("return error.in(\"{name}\");");
            if step.presence.is_some() {
                let ctx = Ctx::Field { optional: true };
                self.code
                    .open(format!("if (json::optional_member(j, \"{name}\", m)) {{"));
                let lines = check(
                    &[self.json_in(&step.wire, "*m", &format!("{dst}.emplace()"), ctx)],
                    &bail,
                );
                self.lines(lines);
                self.code.close("} else {");
                self.code.indent_line(format!("{dst}.reset();"));
                self.code.line("}");
            } else if matches!(step.wire, Wire::OptBytes) {
                // Absent or null: no bytes.
                let ctx = Ctx::Field { optional: false };
                self.code
                    .open(format!("if (json::optional_member(j, \"{name}\", m)) {{"));
                let lines = check(&[self.json_in(&step.wire, "*m", &dst, ctx)], &bail);
                self.lines(lines);
                self.code.close("} else {");
                self.code.indent_line(format!("{dst}.reset();"));
                self.code.line("}");
            } else {
                let ctx = Ctx::Field { optional: false };
                self.code.line(format!(
                    "if (!json::required_member(j, \"{name}\", m, error)) return false;"
                ));
                let lines = check(&[self.json_in(&step.wire, "*m", &dst, ctx)], &bail);
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
        // A record that is an element of an ascending list is printed keyed: its read, write
        // and length take the previous element's key, and the plain forms call them.
        let keyed = self
            .key_of(r)
            .and_then(|key| self.low.plan(&r.name, Some(key)));
        let packed = r.packed;
        let plan = keyed.unwrap_or_else(|| self.plan(r));
        self.code.blank();
        self.code.line("namespace detail {");
        self.code.line("");
        self.read_fn(plan);
        if keyed.is_some() {
            self.code.blank();
            self.code.line("/// Reads the record, its key absolute.");
            self.open_fn(&sig_read(&r.name, packed, false, false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line(format!(
                "return read_after({}, out, prev);",
                if packed { "b" } else { "r" }
            ));
            self.code.close("}");
        }
        self.code.blank();
        self.write_fn(plan);
        if keyed.is_some() {
            self.code.blank();
            self.code.line("/// Writes the record, its key absolute.");
            self.open_fn(&sig_write(&r.name, packed, false, false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line("return write_after(w, v, prev);");
            self.code.close("}");
        }
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        self.len_fn(plan);
        if keyed.is_some() {
            let (unit, f) = if packed {
                ("bits", "bit")
            } else {
                ("bytes", "encoded")
            };
            self.code.blank();
            self.code.line(format!(
                "/// The number of {unit} the record takes, its key absolute."
            ));
            self.open_fn(&sig_len(&r.name, &format!("{f}_len"), false));
            self.code.line("std::optional<uint64_t> prev;");
            self.code.line(format!("return {f}_len_after(v, prev);"));
            self.code.close("}");
        }
        self.record_json(r);
    }

    // ---- unions ----

    fn union_fns(&mut self, plan: &UnionPlan<'_>) {
        let n = &plan.union.name;
        let (bits, be) = tag_of(plan);
        let bytes = bits / 8;
        let tag_ty = uint_type(bits);
        self.code.blank();
        self.code.line(format!("// ---- {n} ----"));
        self.code.blank();
        self.code.line("/// The tag of the variant `v` holds.");
        self.open_fn(&format!("inline {tag_ty} tag(const {n}& v)"));
        for (tag, record) in &plan.variants {
            self.code.open(format!(
                "if (std::holds_alternative<{}>(v)) {{",
                record.name
            ));
            self.code
                .line(format!("return {};", literal(i128::from(*tag))));
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
        for (tag, record) in &plan.variants {
            self.code
                .line(format!("case {}:", literal(i128::from(*tag))));
            self.code.indent_line(format!(
                "return read(r, out.emplace<{}>()) || r.in(\"{}\");",
                record.name,
                snake_case(&record.name)
            ));
        }
        self.code.line("default:");
        // WIRE-16: a tag that names no variant is refused.
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
        for (_, record) in &plan.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                record.name
            ));
            self.code.line(format!(
                "return write(w, *x) || w.in(\"{}\");",
                snake_case(&record.name)
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
        for (_, record) in &plan.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                record.name
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
        for (_, record) in &plan.variants {
            self.code.open(format!(
                "if (const auto* x = std::get_if<{}>(&v)) {{",
                record.name
            ));
            self.code.line(format!(
                "o.set(\"{}\", to_json(*x));",
                snake_case(&record.name)
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
        for (_, record) in &plan.variants {
            let s = snake_case(&record.name);
            self.code.open(format!("if (name == \"{s}\") {{"));
            self.code.line(format!(
                "return from_json(*m, out.emplace<{}>(), error) || error.in(\"{s}\");",
                record.name
            ));
            self.code.close("}");
            known.push(format!("\"{s}\""));
        }
        let lines = fill("return json::unknown_variant(name, {", &known, "}, error);");
        self.lines(lines);
        self.code.close("}");
    }

    // ---- frames ----

    fn frames(&mut self) {
        let frames: Vec<&Record> = self
            .low
            .frames()
            .into_iter()
            .map(|(r, _)| r)
            // The validator refuses packed frames: a frame is byte-aligned.
            .filter(|r| !r.packed)
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

/// `read_after(r, out, prev)`: a record within a list ascending by its key (from a bit stream
/// when `packed`).
fn sig_read_after(n: &str, packed: bool) -> String {
    let reader = if packed {
        "rt::BitReader& b"
    } else {
        "rt::Reader& r"
    };
    format!("inline bool read_after({reader}, {n}& out, std::optional<uint64_t>& prev)")
}

/// `write_after(w, v, prev)`, into a bit stream when `packed`.
fn sig_write_after(n: &str, packed: bool) -> String {
    let writer = if packed {
        "rt::BitWriter& w"
    } else {
        "rt::Writer& w"
    };
    format!("inline bool write_after({writer}, const {n}& v, std::optional<uint64_t>& prev)")
}

fn sig_len(n: &str, name: &str, unused: bool) -> String {
    format!("inline size_t {name}({}const {n}& v)", maybe_unused(unused))
}

/// `encoded_len_after(v, prev)`, or `bit_len_after` when `packed`.
fn sig_len_after(n: &str, packed: bool, unused: bool) -> String {
    format!(
        "inline size_t {}_len_after({}const {n}& v, std::optional<uint64_t>& prev)",
        if packed { "bit" } else { "encoded" },
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
/// source is a C++ file of its own, compiled and tested by `cpp/test.sh`.
const RUNTIME: &str = include_str!("../../runtime/cpp/ackwire_runtime.hpp");

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
        // The runtime, the codec, the binding of the protocol's `state Reference` and of its
        // machine schemas, the sessions.
        let mut expected = vec![
            RUNTIME_HEADER,
            PROTOCOL_HEADER,
            "reference.hpp",
            "reference_baseline.hpp",
            "reference_datagram.hpp",
            "reference_delta.hpp",
        ];
        expected.extend(SESSION_HEADERS.iter().map(|(n, _)| *n));
        assert_eq!(names, expected);
        assert!(files[1]
            .1
            .contains("inline constexpr uint32_t SENT_RING = 32;"));
        assert!(files[1]
            .1
            .contains("inline constexpr uint32_t MAX_HEADER_LEN = 51;"));
    }
}
