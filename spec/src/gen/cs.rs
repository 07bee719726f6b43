//! The C# backend: a file `Protocol.cs` for the layouts, and beside it, in `Runtime/`, the
//! runtime it uses (C# 7.2, what Mono's `mcs` and Unity accept; .NET Standard 2.0 APIs; no
//! dependencies), for Unity and Godot.
//!
//! The runtime is the C# source of `csharp/src` (the `Reader` and `BitReader` structs,
//! `Writer` and `BitWriter`, varints, quantization, the shared error taxonomy, the JSON form of
//! `conformance/PROTOCOL.md`), with its own tests, written out as it is with a line saying where
//! it comes from ([`RUNTIME_FILES`]). Where the runtime is installed instead (the assembly
//! `Ackwire.Runtime` of `csharp/Ackwire.Runtime.csproj` or of the Unity package,
//! [`RuntimeSource::Package`]), `Protocol.cs` is written alone.
//!
//! What `Protocol.cs` prints, in the namespace `Ackwire.Protocol`:
//! - the constants, in `public static partial class Constants`;
//! - a bit set: a `[Flags]` enum of its named bits, and `XCodec` with its reads, writes and checks
//!   (reserved bits first, then each bit that requires another) and its JSON form;
//! - a record: a sealed class of its value fields in PascalCase (constants and counts are derived,
//!   not stored; an optional field is `T?` or `null` when absent), `Read` (static, from a
//!   `ref Reader`, or a `ref BitReader` for a packed record), `Write`, `EncodedLen` (`BitLen` when
//!   packed), `ToJson` and `FromJson`; a frame also has `Decode` and `Encode`;
//! - a union: a sealed class with its `Kind` and one property per variant;
//! - a state's coded frame (kind 13, `docs/spec/coded.md`, `cs/coded.rs`): a sealed class of the
//!   packed frame's fields with `Older`, its models and tables, `ReadBasis`, and `Read`, `Write`,
//!   `Decode`, `Encode` against an `ICodedBasis`, its changes range-coded (not in `Frames`: it
//!   needs a basis);
//! - `Frames`: every frame by its name in snake_case;
//! - `BucketWidths`: the widths of each `bucket(...)`/`zbucket(...)` code used, one static
//!   array each, which the runtime's bucket reads and writes take (nothing allocated per call).
//!
//! Issue 19's bit fields, in packed records: a `quat(B)` is the runtime's `SmallestThree`
//! struct (`Largest` and the three components `A`, `B`, `C` as shorts, the integers on the wire
//! so that every language agrees bit for bit), read and written with its canonical rules
//! checked ("the dropped component is the one of largest magnitude, the lowest index on a tie,
//! and it is made non-negative": `non_canonical` otherwise, a component outside `[-R, R]`
//! `over_width`, at the field's first bit); a bucket code is the smallest integer type that
//! holds its values; a list ascending by a bucket code or a `uN` of a packed record carries
//! each element after the first as its difference, in the element's own type, its sum kept
//! within the type's range (a bucket code's largest value, not its C# type's).
//!
//! The backend is a printer over the lowering ([`crate::lower`]): every reader, writer and
//! length walks its record's plan, printing each step's reads, writes and checks in the
//! lowering's order, so that every input gives the same value as in the other languages, or an
//! error of the same kind at the same offset and field path. Lists are read in loops, not
//! through delegates, and the readers are structs passed by `ref`: decoding allocates nothing
//! beyond the decoded values. A field path is built only when a fault happens: each record's
//! reader and writer names its field in a `catch` that puts it in front of the error's path,
//! and each list its index.

mod coded;

use super::{
    base_name, constants_of, file_banner, snake_case, source_names, storage, Code, RuntimeSource,
};
use crate::lower::{
    Ascending, BucketPlan, CountFrom, Lowering, Operand, RecordPlan, Role, Step, Test, Wire,
};
use crate::model::{BitKind, Bits, Const, Docs, File, Item, Record, RecordKind, Spec, Union};
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

/// The folder the runtime is written to, beside `Protocol.cs`.
pub const RUNTIME_DIR: &str = "Runtime";

/// The generated codec's file name.
pub const PROTOCOL_FILE: &str = "Protocol.cs";

/// The runtime's files, as (name, text): written beside the codec as they are.
pub const RUNTIME_FILES: &[(&str, &str)] = &[
    // Issue 39: the coded values of kind 13's body, over the range coder.
    ("Coded.cs", include_str!("../../runtime/cs/Coded.cs")),
    ("Errors.cs", include_str!("../../runtime/cs/Errors.cs")),
    ("Json.cs", include_str!("../../runtime/cs/Json.cs")),
    // Issue 39: the adaptive binary range coder of the coded profile.
    ("Range.cs", include_str!("../../runtime/cs/Range.cs")),
    ("Reader.cs", include_str!("../../runtime/cs/Reader.cs")),
    // Issue 19: the value of a `quat(B)` field and its canonical rules.
    (
        "SmallestThree.cs",
        include_str!("../../runtime/cs/SmallestThree.cs"),
    ),
    ("Writer.cs", include_str!("../../runtime/cs/Writer.cs")),
    // The session machines (namespace Ackwire.Runtime.Sessions), one file each.
    (
        "Sessions/Half.cs",
        include_str!("../../runtime/cs/Sessions/Half.cs"),
    ),
    // cs-acked: the acked machines (docs/spec/acked.md), the input schedule and the tier
    // boundary they use.
    (
        "Sessions/Acked.cs",
        include_str!("../../runtime/cs/Sessions/Acked.cs"),
    ),
    (
        "Sessions/InputSchedule.cs",
        include_str!("../../runtime/cs/Sessions/InputSchedule.cs"),
    ),
    (
        "Sessions/Tier.cs",
        include_str!("../../runtime/cs/Sessions/Tier.cs"),
    ),
    // Issue 36: the acked halves over any schema, and the rules a state's binding calls.
    (
        "Sessions/AckedHalf.cs",
        include_str!("../../runtime/cs/Sessions/AckedHalf.cs"),
    ),
    (
        "Sessions/State.cs",
        include_str!("../../runtime/cs/Sessions/State.cs"),
    ),
    // cs-rest: seeds 003, 002 and 004 §7 (datagram v2, NetBaseline, delta) and the set digest.
    (
        "Sessions/Datagram.cs",
        include_str!("../../runtime/cs/Sessions/Datagram.cs"),
    ),
    (
        "Sessions/Baseline.cs",
        include_str!("../../runtime/cs/Sessions/Baseline.cs"),
    ),
    (
        "Sessions/Delta.cs",
        include_str!("../../runtime/cs/Sessions/Delta.cs"),
    ),
    (
        "Sessions/Digest.cs",
        include_str!("../../runtime/cs/Sessions/Digest.cs"),
    ),
];

/// The generated files, as (path relative to the output folder, contents): `Protocol.cs`, then
/// the runtime it uses, `Runtime/*.cs`.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    generate_with(spec, RuntimeSource::Copy)
}

/// The generated files, with the runtime taken from `runtime`: for
/// [`RuntimeSource::Package`], `Protocol.cs` alone, compiled against the assembly
/// `Ackwire.Runtime` (`csharp/Ackwire.Runtime.csproj`, or the Unity package's assembly
/// definition).
pub fn generate_with(spec: &Spec, runtime: RuntimeSource) -> Vec<(String, String)> {
    let low = Lowering::new(spec);
    let mut g = Gen {
        low: &low,
        out: Code::default(),
        lists: Cell::new(0),
        widths: RefCell::new(BTreeSet::new()),
    };
    let sources = source_names(spec);
    g.out.line(format!(
        "// @generated by ackwire-spec from {}. Do not edit: change the layout files.",
        sources.join(", ")
    ));
    g.out.line("//");
    let about = match runtime {
        RuntimeSource::Copy => [
            "// The codec of these layouts (C# 7.2, .NET Standard 2.0, no dependencies), for Unity and",
            "// Godot. It uses its runtime, Runtime/*.cs, which the same command writes beside it.",
        ],
        RuntimeSource::Package => [
            "// The codec of these layouts (C# 7.2, .NET Standard 2.0), for Unity and Godot. It uses its",
            "// runtime, the assembly Ackwire.Runtime, from the installed package (.NET or Unity).",
        ],
    };
    for line in about.into_iter().chain([
        "// Decoders accept exactly the bytes their encoders write, and refuse anything else with a",
        "// DecodeError naming its kind, byte offset and field path.",
    ]) {
        g.out.line(line);
    }
    g.out.blank();
    g.out.line("using System;");
    g.out.line("using System.Collections.Generic;");
    g.out.line("using Ackwire.Runtime;");
    g.out.blank();
    g.out.line("namespace Ackwire.Protocol");
    g.out.open("{");
    for file in &spec.files {
        g.file_header(file);
        let consts: Vec<&Const> = constants_of(&file.items).collect();
        if !consts.is_empty() {
            g.out.blank();
            g.constants(&base_name(&file.name), &consts);
        }
        for item in &file.items {
            match item {
                Item::Const(_) | Item::State(_) | Item::Schema(_) => {}
                Item::Bits(b) => {
                    g.out.blank();
                    g.bits(b);
                }
                Item::Record(r) => {
                    g.out.blank();
                    g.record(r);
                }
                Item::Union(u) => {
                    g.out.blank();
                    g.union(u);
                }
            }
        }
    }
    // Each state's coded frame (kind 13), after the records its changes are.
    for plan in crate::state::plans(spec) {
        g.coded_frame(&plan);
    }
    g.out.blank();
    g.dispatch();
    g.bucket_widths();
    g.out.close("}");

    let mut files = vec![(PROTOCOL_FILE.to_string(), g.out.finish())];
    // Each state's binding of the session machines, beside the codec whose types it uses.
    files.extend(super::cs_state::generate(spec, &low));
    // And the binding of every machine schema.
    files.extend(super::cs_machines::generate(spec));
    if runtime == RuntimeSource::Package {
        return files;
    }
    for (name, text) in RUNTIME_FILES {
        files.push((
            format!("{RUNTIME_DIR}/{name}"),
            format!(
                "// @generated by ackwire-spec: src/{name} of its C# runtime, copied beside the codec\n\
                 // that uses it. Do not edit: it is the same for every layout.\n\n{text}"
            ),
        ));
    }
    files
}

/// The loop over the `len` elements of list number `d` (index `i{d}`), running `body` for each
/// inside a `try` whose `catch` of `error` (`DecodeError`, `EncodeError`, `JsonError`) puts the
/// element's index in front of the error's path and throws it on, so that a refused element is
/// named as the Rust codec names it (`changes[3].mask`, conformance/PROTOCOL.md's `path`).
fn indexed_loop(d: usize, len: &str, error: &str, body: Vec<String>) -> Vec<String> {
    let mut lines = vec![
        format!("for (int i{d} = 0; i{d} < {len}; i{d}++)"),
        "{".into(),
        "    try".into(),
        "    {".into(),
    ];
    lines.extend(body.into_iter().map(|l| format!("        {l}")));
    lines.extend([
        "    }".into(),
        format!("    catch ({error} e{d})"),
        "    {".into(),
        format!("        throw e{d}.Within(i{d});"),
        "    }".into(),
        "}".into(),
    ]);
    lines
}

/// The keywords of C#, which a local cannot be called.
const KEYWORDS: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Names the generated methods use for their own locals and parameters.
const LOCALS: &[&str] = &[
    "r", "w", "b", "j", "v", "o", "x", "e", "n", "at", "raw", "prev", "bytes", "field", "value",
];

/// Names of members every generated class has, and of the runtime's types, which a field of
/// the same name would hide.
const MEMBERS: &[&str] = &[
    "Read",
    "Write",
    "EncodedLen",
    "BitLen",
    "ReadPadded",
    "WritePadded",
    "PaddedLen",
    "Decode",
    "Encode",
    "ToJson",
    "FromJson",
    "Of",
    "Kind",
    "Reader",
    "Writer",
    "BitReader",
    "BitWriter",
    "Ascending",
    "Wire",
    "Quant",
    "Lengths",
    "Json",
    "JsonValue",
    "JsonWriter",
    "JsonKind",
    "JsonError",
    "DecodeError",
    "EncodeError",
    "ErrorKind",
    "Errors",
    "Bits",
];

pub(crate) fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The member a field is held in: its name in PascalCase, with `_` after it when that is the
/// name of its class, of a generated member or of a runtime type.
pub(crate) fn member(field: &str, class: &str) -> String {
    let p = pascal(field);
    if p == class || MEMBERS.contains(&p.as_str()) || p.is_empty() {
        format!("{p}_")
    } else {
        p
    }
}

/// The local a reader reads field `name` into: camelCase, with `_` after it when it is a word
/// of the language or a name the generated methods use.
pub(crate) fn local(name: &str) -> String {
    let p = pascal(name);
    let mut c = p.chars();
    let l = match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect::<String>(),
        None => String::new(),
    };
    let numbered = l.trim_end_matches(|c: char| c.is_ascii_digit()).len() < l.len()
        && ["items", "i", "n", "e", "asc", "prev", "x", "a", "b", "at"]
            .contains(&l.trim_end_matches(|c: char| c.is_ascii_digit()));
    if KEYWORDS.contains(&l.as_str()) || LOCALS.contains(&l.as_str()) || numbered || l.is_empty() {
        format!("{l}_")
    } else {
        l
    }
}

/// The C# type of an integer of `bits` bits: the narrowest that holds it, as Rust's.
pub(crate) fn int_type(signed: bool, bits: u8) -> &'static str {
    if signed {
        storage(bits, ["sbyte", "short", "int", "long"])
    } else {
        storage(bits, ["byte", "ushort", "uint", "ulong"])
    }
}

/// The range of `int_type(signed, bits)`: what its JSON form accepts (an encoder then refuses a
/// value past the field's own width with `over_width`).
pub(crate) fn int_range(signed: bool, bits: u8) -> (i128, i128) {
    let width = storage(bits, [8, 16, 32, 64]);
    if signed {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        (0, (1i128 << width) - 1)
    }
}

/// An integer literal of C# type `ty`.
pub(crate) fn literal(v: i128, ty: &str) -> String {
    match ty {
        "ulong" => format!("{v}UL"),
        "long" if v == i128::from(i64::MIN) => "long.MinValue".to_string(),
        "long" => format!("{v}L"),
        "uint" => format!("{v}U"),
        _ => v.to_string(),
    }
}

/// The underlying type of a bit set's enum.
fn bits_type(width: u8) -> &'static str {
    int_type(false, width)
}

/// A quantization scale as a double, computed as Rust computes it: `(360.0 / 65536.0)`.
pub(crate) fn scale(num: u64, den: u64) -> String {
    if den == 1 {
        format!("{num}.0")
    } else {
        format!("({num}.0 / {den}.0)")
    }
}

fn be(big_endian: bool) -> &'static str {
    if big_endian {
        "true"
    } else {
        "false"
    }
}

/// "a" or "an", before `name` in a doc comment.
pub(crate) fn article(name: &str) -> &'static str {
    if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

pub(crate) fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// An XML doc comment of `lines`, which are XML already (a layout's docs go through [`xml`]).
pub(crate) fn summary(lines: &[String]) -> String {
    match lines {
        [one] => format!("/// <summary>{one}</summary>"),
        _ => {
            let mut out = vec!["/// <summary>".to_string()];
            for l in lines {
                if l.is_empty() {
                    out.push("///".to_string());
                } else {
                    out.push(format!("/// {l}"));
                }
            }
            out.push("/// </summary>".to_string());
            out.join("\n")
        }
    }
}

/// Whether values of `wire` are a C# value type (`T?` when optional) rather than a reference.
fn is_value_type(wire: &Wire<'_>) -> bool {
    match wire {
        // SmallestThree is a struct; a bucket code's value an integer.
        Wire::Quat { .. } | Wire::Bucket(_) => true,
        Wire::Int { .. }
        | Wire::Ranged { .. }
        | Wire::Float { .. }
        | Wire::Bool { .. }
        | Wire::Varint { .. }
        | Wire::Zigzag { .. }
        | Wire::Quant { .. }
        | Wire::Bits(_) => true,
        Wire::Bytes
        | Wire::OptBytes
        | Wire::Record { .. }
        | Wire::Union(_)
        | Wire::Array(_)
        | Wire::Unknown(_) => false,
    }
}

/// The C# type of values of `wire`.
pub(crate) fn cs_type(wire: &Wire<'_>) -> String {
    match wire {
        Wire::Quat { .. } => "SmallestThree".into(),
        Wire::Bucket(b) => int_type(b.signed, b.model_bits).into(),
        Wire::Int { signed, bits, .. } => int_type(*signed, *bits).into(),
        Wire::Ranged { int, .. } => cs_type(int),
        Wire::Varint { bits } => int_type(false, *bits).into(),
        Wire::Zigzag { bits } => int_type(true, *bits).into(),
        Wire::Float { bits: 32, .. } => "float".into(),
        Wire::Float { .. } | Wire::Quant { .. } => "double".into(),
        Wire::Bool { .. } => "bool".into(),
        Wire::Bytes | Wire::OptBytes => "byte[]".into(),
        Wire::Bits(b) => b.name.clone(),
        Wire::Record { record, .. } => record.name.clone(),
        Wire::Union(u) => u.name.clone(),
        Wire::Unknown(name) => name.replace('.', "_"),
        Wire::Array(a) => format!("{}[]", cs_type(&a.elem)),
    }
}

/// The type of an optional field of `wire`.
fn optional_type(wire: &Wire<'_>) -> String {
    if is_value_type(wire) {
        format!("{}?", cs_type(wire))
    } else {
        cs_type(wire)
    }
}

/// `(T)expr` when `expr` (of type `from`) is not already of type `to`.
fn cast(to: &str, from: &str, expr: String) -> String {
    if to == from {
        expr
    } else {
        format!("({to}){expr}")
    }
}

/// An expression reading an integer from `src` (`r` or `b`), of C# type `int_type`.
fn read_int(signed: bool, bits: u8, big_endian: bool, packed: bool, src: &str) -> String {
    let ty = int_type(signed, bits);
    if packed {
        return if signed {
            cast(ty, "long", format!("{src}.Int({bits})"))
        } else {
            cast(ty, "ulong", format!("{src}.Uint({bits})"))
        };
    }
    let s = if signed { "I" } else { "U" };
    if bits == 8 {
        format!("{src}.{s}8()")
    } else {
        format!("{src}.{s}{bits}({})", be(big_endian))
    }
}

/// A statement writing integer `val` to `dst` (`w`).
fn write_int(
    signed: bool,
    bits: u8,
    big_endian: bool,
    packed: bool,
    dst: &str,
    val: &str,
) -> String {
    if packed {
        return if signed {
            format!("{dst}.Int({bits}, {val});")
        } else {
            format!("{dst}.Uint({bits}, {val});")
        };
    }
    let s = if signed { "I" } else { "U" };
    if bits == 8 {
        format!("{dst}.{s}8({val});")
    } else {
        format!("{dst}.{s}{bits}({val}, {});", be(big_endian))
    }
}

struct Gen<'a, 's> {
    low: &'a Lowering<'s>,
    out: Code,
    /// The number of lists met so far in the method being printed: each list's locals
    /// (`n1`, `items1`, `i1`) are numbered by it, so that no two share a name.
    lists: Cell<usize>,
    /// The widths of every bucket code printed: each is one static array of `BucketWidths`,
    /// so that reading a code allocates nothing.
    widths: RefCell<BTreeSet<Vec<u8>>>,
}

/// The codec's reads, for the state bindings' readers ([`super::cs_state`]): the same
/// expressions, list loops and presence tests as the readers of `Protocol.cs`, so that a
/// binding's reader accepts exactly what the codec's reader accepts and refuses the rest with
/// the same kind, offset and path.
pub(crate) struct Reads<'a, 's> {
    gen: Gen<'a, 's>,
}

impl<'a, 's> Reads<'a, 's> {
    /// The reads of `low`'s records.
    pub(crate) fn new(low: &'a Lowering<'s>) -> Self {
        Reads {
            gen: Gen {
                low,
                out: Code::default(),
                lists: Cell::new(0),
                widths: RefCell::new(BTreeSet::new()),
            },
        }
    }

    /// Starts a method: its lists' locals are numbered from 1.
    pub(crate) fn start_method(&self) {
        self.gen.start_method();
    }

    /// The number of the next list's locals (`n1`, `items1`, `i1`).
    pub(crate) fn next_list(&self) -> usize {
        self.gen.next_list()
    }

    /// An expression reading a scalar `wire` from `src` (`r`, or `b` when `packed`).
    pub(crate) fn scalar(&self, wire: &Wire<'_>, packed: bool, src: &str) -> String {
        self.gen.decode(wire, packed, src)
    }

    /// Statements reading `wire` (a list, or a scalar) into `target`, the count read into the
    /// local `count_local`.
    pub(crate) fn read_into(
        &self,
        wire: &Wire<'_>,
        packed: bool,
        src: &str,
        target: &str,
        count_local: Option<&str>,
    ) -> Vec<String> {
        self.gen.decode_into(wire, packed, src, target, count_local)
    }

    /// The test of `step`'s presence over the locals its reader read the earlier fields into.
    pub(crate) fn presence(&self, plan: &RecordPlan<'_>, step: &Step<'_>) -> Option<String> {
        self.gen.presence(plan, step, false)
    }

    /// An expression reading the difference of an ascending key of `wire` from `src`.
    pub(crate) fn delta(&self, wire: &Wire<'_>, packed: bool, src: &str) -> String {
        self.gen.delta_read(wire, packed, src)
    }

    /// The running key of a list of `record` ascending by `key`.
    pub(crate) fn ascending(&self, record: &Record, key: &str) -> String {
        self.gen.key_ascending(record, key)
    }
}

/// The name of the static array of the widths `w` in `BucketWidths`: `W0_4_8`.
fn widths_name(w: &[u8]) -> String {
    let parts: Vec<String> = w.iter().map(u8::to_string).collect();
    format!("W{}", parts.join("_"))
}

impl<'a, 's> Gen<'a, 's> {
    /// The expression of bucket code `b`'s widths, a static array printed once.
    fn widths_of(&self, b: &BucketPlan<'_>) -> String {
        self.widths.borrow_mut().insert(b.widths.to_vec());
        format!("BucketWidths.{}", widths_name(b.widths))
    }

    /// The static widths of every bucket code printed, when there are any.
    fn bucket_widths(&mut self) {
        let all: Vec<Vec<u8>> = self.widths.borrow().iter().cloned().collect();
        if all.is_empty() {
            return;
        }
        self.out.blank();
        self.out.line("/// <summary>The widths of the bucket codes of these layouts (<c>bucket(0, 4, 8)</c>: W0_4_8), each one");
        self.out.line(
            "/// static array, so that reading or writing a code allocates nothing.</summary>",
        );
        self.out.block("internal static class BucketWidths");
        for w in &all {
            let parts: Vec<String> = w.iter().map(u8::to_string).collect();
            self.out.line(format!(
                "/// <summary>The widths {}.</summary>",
                parts.join(", ")
            ));
            self.out.line(format!(
                "internal static readonly byte[] {} = {{ {} }};",
                widths_name(w),
                parts.join(", ")
            ));
        }
        self.out.close("}");
    }

    /// The running key of a list ascending by elements (or keys) of `wire`: its sum must stay
    /// within the type's range, which for a bucket code is its largest value (issue 19: "a sum
    /// past the type's range is over_width").
    fn ascending_new(&self, wire: &Wire<'_>) -> String {
        match wire {
            Wire::Bucket(b) => format!("Ascending.UpTo({})", literal(b.max_code.into(), "ulong")),
            Wire::Int { bits, .. } | Wire::Varint { bits } => format!("new Ascending({bits})"),
            _ => "new Ascending(64)".into(),
        }
    }

    /// An expression reading the difference of an ascending element (or key) of `wire`
    /// from `src`: unsigned, in the element's own type.
    fn delta_read(&self, wire: &Wire<'_>, packed: bool, src: &str) -> String {
        match wire {
            Wire::Int {
                bits, big_endian, ..
            } => read_int(false, *bits, *big_endian, packed, src),
            Wire::Varint { bits } => format!("{src}.Varint({bits})"),
            Wire::Bucket(b) => format!("{src}.Bucket({})", self.widths_of(b)),
            _ => format!("{src}.Varint(64)"),
        }
    }

    /// A statement writing the difference `delta` (a ulong) of an ascending element (or key)
    /// of `wire`.
    fn delta_write(&self, wire: &Wire<'_>, packed: bool, delta: String) -> String {
        match wire {
            Wire::Int {
                bits, big_endian, ..
            } if packed => write_int(false, *bits, *big_endian, true, "w", &delta),
            Wire::Int {
                bits, big_endian, ..
            } => write_int(
                false,
                *bits,
                *big_endian,
                false,
                "w",
                &cast(int_type(false, *bits), "ulong", delta),
            ),
            Wire::Varint { bits } => format!("w.Varint({bits}, {delta});"),
            Wire::Bucket(b) => format!("w.Bucket({}, {delta});", self.widths_of(b)),
            _ => format!("w.Varint(64, {delta});"),
        }
    }

    /// The size of the difference `delta` of an ascending element (or key) of variable size.
    fn delta_len(&self, wire: &Wire<'_>, delta: String) -> String {
        match wire {
            Wire::Bucket(b) => format!("Buckets.BitLen({}, {delta})", self.widths_of(b)),
            _ => format!("Lengths.Varint({delta})"),
        }
    }

    /// The number of the next list's locals.
    fn next_list(&self) -> usize {
        self.lists.set(self.lists.get() + 1);
        self.lists.get()
    }

    /// Starts a method: its lists' locals are numbered from 1.
    fn start_method(&self) {
        self.lists.set(0);
    }

    fn docs(&mut self, docs: &Docs, fallback: &str) {
        let lines: Vec<String> = if docs.doc.is_empty() {
            vec![xml(fallback)]
        } else {
            docs.doc.iter().map(|l| xml(l)).collect()
        };
        self.out.line(summary(&lines));
    }

    fn file_header(&mut self, file: &File) {
        file_banner(&mut self.out, file, true);
    }

    /// The running key of a list of `record` ascending by `key`.
    fn key_ascending(&self, record: &Record, key: &str) -> String {
        let wire = self
            .low
            .plan(&record.name, Some(key))
            .and_then(|p| p.step(key))
            .map(|s| &s.wire);
        match wire {
            Some(w) => self.ascending_new(w),
            None => self.ascending_new(&Wire::Bytes),
        }
    }

    // WIRE-27: every named constant, with the value every generator derives alike.
    fn constants(&mut self, file: &str, consts: &[&Const]) {
        self.out.line(format!(
            "/// <summary>The protocol constants of {file}.</summary>"
        ));
        self.out.block("public static partial class Constants");
        for (i, c) in consts.iter().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            self.docs(&c.docs, &format!("The protocol constant `{}`.", c.name));
            let value = self.low.index.const_value(c).unwrap_or_default();
            let ty = int_type(c.ty.signed, c.ty.bits);
            self.out.line(format!(
                "public const {ty} {} = {};",
                c.name,
                literal(value, ty)
            ));
        }
        self.out.close("}");
    }

    // ---- bit sets ----

    fn bits(&mut self, b: &'s Bits) {
        let plan = self.low.bits_plan(b);
        let name = &b.name;
        let ty = bits_type(b.width);
        self.docs(&b.docs, &format!("The bit set `{name}`."));
        self.out.line("[Flags]");
        self.out.block(format!("public enum {name} : {ty}"));
        let docs = b.bits.iter().filter_map(|bit| match bit.kind {
            BitKind::Named { .. } => Some(&bit.docs),
            BitKind::Reserved { .. } => None,
        });
        let named: Vec<_> = plan.named.iter().zip(docs).collect();
        for (i, (n, docs)) in named.iter().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            self.docs(docs, &format!("Bit {}.", n.index));
            self.out
                .line(format!("{} = {},", n.name, literal(1i128 << n.index, ty)));
        }
        self.out.close("}");
        self.out.blank();

        let mask = |m: u64| format!("0x{m:x}{}", if ty == "ulong" { "UL" } else { "" });
        let dependent: Vec<(u64, u64)> = plan
            .named
            .iter()
            .filter_map(|n| {
                n.requires
                    .map(|(_, other)| (1u64 << n.index, 1u64 << other))
            })
            .collect();
        let checked = plan.reserved != 0 || !dependent.is_empty();
        let packed = self.low.bits_used(name, true);
        let aligned = self.low.bits_used(name, false);
        self.out.line(format!(
            "/// <summary>The layout of <see cref=\"{name}\"/>: {} bits; a bit not named is reserved.</summary>",
            b.width
        ));
        self.out.block(format!("public static class {name}Codec"));
        let names: Vec<String> = plan
            .named
            .iter()
            .map(|n| format!("\"{}\"", n.name))
            .collect();
        let indices: Vec<String> = plan.named.iter().map(|n| n.index.to_string()).collect();
        self.out.line(format!(
            "static readonly string[] Names = {{ {} }};",
            names.join(", ")
        ));
        self.out.line(format!(
            "static readonly int[] Indices = {{ {} }};",
            indices.join(", ")
        ));
        if checked {
            self.out.blank();
            self.out.line(summary(&[
                "What is wrong with the bits <paramref name=\"raw\"/>, or null: a reserved bit set, then"
                    .to_string(),
                "a bit set without the bit it requires.".to_string(),
            ]));
            self.out.block("public static ErrorKind? Fault(ulong raw)");
            if plan.reserved != 0 {
                self.out
                    .block(format!("if ((raw & {}) != 0)", mask(plan.reserved)));
                self.out.line("return ErrorKind.ReservedBit;");
                self.out.close("}");
            }
            for (bit, other) in &dependent {
                self.out.block(format!(
                    "if ((raw & {}) != 0 && (raw & {}) == 0)",
                    mask(*bit),
                    mask(*other)
                ));
                self.out.line("return ErrorKind.InvalidCondition;");
                self.out.close("}");
            }
            self.out.line("return null;");
            self.out.close("}");
        }
        let big_endian = self.low.bits_big_endian(b);
        let forms: Vec<(bool, &str, &str)> = [
            (false, "Reader", "Writer"),
            (true, "BitReader", "BitWriter"),
        ]
        .into_iter()
        .filter(|(p, _, _)| if *p { packed } else { aligned })
        .collect();
        for (p, reader, writer) in forms {
            let src = if p { "b" } else { "r" };
            let read = read_int(false, b.width, big_endian, p, src);
            self.out.blank();
            self.out.line(format!(
                "/// <summary>Reads {a} <see cref=\"{name}\"/>, refusing a reserved bit and a bit without the one it requires.</summary>",
                a = article(name)
            ));
            self.out
                .block(format!("public static {name} Read(ref {reader} {src})"));
            if checked {
                let at_ty = if p { "long" } else { "int" };
                let at = if p { "BitOffset" } else { "Offset" };
                self.out.line(format!("{at_ty} at = {src}.{at};"));
                self.out.line(format!("{ty} raw = {read};"));
                self.out.line("ErrorKind? fault = Fault(raw);");
                self.out.block("if (fault.HasValue)");
                self.out.line(format!("throw {src}.Fail(fault.Value, at);"));
                self.out.close("}");
                self.out.line(format!("return ({name})raw;"));
            } else {
                self.out.line(format!("return ({name}){read};"));
            }
            self.out.close("}");
            self.out.blank();
            self.out.line(format!(
                "/// <summary>Writes {a} <see cref=\"{name}\"/>, refusing what a decoder would.</summary>",
                a = article(name)
            ));
            self.out
                .block(format!("public static void Write({writer} w, {name} v)"));
            if checked {
                self.out.line("ErrorKind? fault = Fault((ulong)v);");
                self.out.block("if (fault.HasValue)");
                self.out.line("throw w.Fail(fault.Value);");
                self.out.close("}");
            }
            self.out.line(write_int(
                false,
                b.width,
                big_endian,
                p,
                "w",
                &format!("({ty})v"),
            ));
            self.out.close("}");
        }
        self.out.blank();
        self.out
            .line("/// <summary>Writes the names of the set bits, as a JSON list.</summary>");
        self.out
            .block(format!("public static void ToJson(JsonWriter j, {name} v)"));
        self.out
            .line("Json.WriteBitNames(j, (ulong)v, Names, Indices);");
        self.out.close("}");
        self.out.blank();
        self.out
            .line("/// <summary>The set of the bits named in a JSON list.</summary>");
        self.out
            .block(format!("public static {name} FromJson(JsonValue x)"));
        self.out
            .line(format!("return ({name})Json.BitNames(x, Names, Indices);"));
        self.out.close("}");
        self.out.close("}");
    }

    // ---- decoding ----

    /// An expression reading a scalar `wire` (anything but an array) from `src`.
    fn decode(&self, wire: &Wire<'_>, packed: bool, src: &str) -> String {
        match wire {
            // Bit fields: valid in packed records only, so `src` is the bit reader.
            Wire::Quat { bits } => format!("{src}.Quat({bits})"),
            Wire::Bucket(b) if b.signed => cast(
                int_type(true, b.model_bits),
                "long",
                format!("{src}.ZBucket({})", self.widths_of(b)),
            ),
            Wire::Bucket(b) => cast(
                int_type(false, b.model_bits),
                "ulong",
                format!("{src}.Bucket({})", self.widths_of(b)),
            ),
            // WIRE-29: refused outside its range, at its first byte (bit).
            Wire::Ranged {
                int,
                min,
                max,
                packed: Some(width),
            } => cast(
                &cs_type(int),
                "long",
                format!(
                    "{src}.Ranged({width}, {}, {})",
                    literal(i128::from(*min), "long"),
                    literal(i128::from(*max), "long")
                ),
            ),
            Wire::Ranged { int, min, max, .. } => {
                let (signed, bits, big_endian) = match int.as_ref() {
                    Wire::Int {
                        signed,
                        bits,
                        big_endian,
                    } => (*signed, *bits, *big_endian),
                    _ => (true, 64, false),
                };
                let (wide, method) = if signed {
                    ("long", "RangedInt")
                } else {
                    ("ulong", "RangedUint")
                };
                cast(
                    &cs_type(int),
                    wide,
                    format!(
                        "{src}.{method}({}, {}, {}, {})",
                        bits / 8,
                        be(big_endian),
                        literal(i128::from(*min), wide),
                        literal(i128::from(*max), wide)
                    ),
                )
            }
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => read_int(*signed, *bits, *big_endian, packed, src),
            Wire::Float { bits, big_endian } => {
                if packed {
                    format!("{src}.F{bits}()")
                } else {
                    format!("{src}.F{bits}({})", be(*big_endian))
                }
            }
            Wire::Bool { .. } => format!("{src}.Bool()"),
            Wire::Varint { bits } => cast(
                int_type(false, *bits),
                "ulong",
                format!("{src}.Varint({bits})"),
            ),
            Wire::Zigzag { bits } => cast(
                int_type(true, *bits),
                "long",
                format!("{src}.Zigzag({bits})"),
            ),
            Wire::Bytes => format!("{src}.Bytes()"),
            Wire::OptBytes => format!("{src}.OptBytes()"),
            Wire::Quant { wire, num, den, .. } => {
                format!("{} * {}", self.decode(wire, packed, src), scale(*num, *den))
            }
            Wire::Bits(b) => format!("{}Codec.Read(ref {src})", b.name),
            Wire::Record {
                record,
                padded: true,
            } => format!("{}.ReadPadded(ref {src})", record.name),
            Wire::Record { record, .. } => format!("{}.Read(ref {src})", record.name),
            Wire::Union(u) => format!("{}.Read(ref {src})", u.name),
            Wire::Unknown(name) => format!("{}.Read(ref {src})", name.replace('.', "_")),
            Wire::Array(_) => String::new(),
        }
    }

    /// Statements reading `wire` into `target` (a local or an element).
    fn decode_into(
        &self,
        wire: &Wire<'_>,
        packed: bool,
        src: &str,
        target: &str,
        count_local: Option<&str>,
    ) -> Vec<String> {
        let Wire::Array(a) = wire else {
            return vec![format!("{target} = {};", self.decode(wire, packed, src))];
        };
        let d = self.next_list();
        let count = match &a.count {
            CountFrom::Field(_) => count_local.unwrap_or("0").to_string(),
            CountFrom::Prefix(t) => self.decode(t, packed, src),
        };
        let elem_ty = cs_type(&a.elem);
        let mut lines = vec![
            format!("int n{d} = {src}.Count({count}, {});", a.elem_min),
            format!(
                "{elem_ty}[] items{d} = {};",
                new_array(&elem_ty, &format!("n{d}"))
            ),
        ];
        let item = format!("items{d}[i{d}]");
        let body: Vec<String> = match (a.ascending, &a.elem) {
            (Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                lines.push(format!(
                    "Ascending prev{d} = {};",
                    self.key_ascending(record, key)
                ));
                vec![format!(
                    "{item} = {}.Read(ref {src}, ref prev{d});",
                    record.name
                )]
            }
            (Some(_), elem) => {
                // The difference from the previous element is read unsigned, in the
                // element's own type; a fault is at the element's byte (bit when packed).
                let raw = self.delta_read(elem, packed, src);
                let at = if packed { "BitOffset" } else { "Offset" };
                lines.push(format!("Ascending asc{d} = {};", self.ascending_new(elem)));
                vec![format!(
                    "{item} = {};",
                    cast(
                        &elem_ty,
                        "ulong",
                        format!("asc{d}.Next(ref {src}, {src}.{at}, {raw})")
                    )
                )]
            }
            (None, elem) => self.decode_into(elem, packed, src, &item, None),
        };
        lines.extend(indexed_loop(d, &format!("n{d}"), "DecodeError", body));
        lines.push(format!("{target} = items{d};"));
        lines
    }

    // ---- conditions ----

    /// The expression of an operand of a presence test: in a decoder the local the field was
    /// read into; in an encoder the value's member or, for a count, its list's length.
    fn operand(&self, plan: &RecordPlan<'_>, operand: &Operand<'_>, encode: bool) -> String {
        let class = &plan.record.name;
        match operand {
            Operand::Constant { value, .. } => value.to_string(),
            Operand::Count { array, .. } if encode => format!("{}.Length", member(array, class)),
            Operand::Count { field, .. } => local(&field.name),
            Operand::Value { field } if encode => member(&field.name, class),
            Operand::Value { field } => local(&field.name),
            Operand::Unknown(name) if encode => member(name, class),
            Operand::Unknown(name) => local(name),
        }
    }

    fn test(&self, plan: &RecordPlan<'_>, test: &Test<'_>, encode: bool) -> String {
        let operand = self.operand(plan, test.operand(), encode);
        match test {
            Test::Bit {
                bits, bit, negated, ..
            } => {
                let set = bits.map_or("", |b| b.name.as_str());
                format!(
                    "({operand} & {set}.{bit}) {} 0",
                    if *negated { "==" } else { "!=" }
                )
            }
            Test::Bool { negated, .. } => format!("{}{operand}", if *negated { "!" } else { "" }),
            Test::NonZero { negated, .. } => {
                format!("{operand} {} 0", if *negated { "==" } else { "!=" })
            }
            Test::Greater { value, .. } => format!("{operand} > {value}"),
        }
    }

    fn presence(&self, plan: &RecordPlan<'_>, step: &Step<'_>, encode: bool) -> Option<String> {
        let presence = step.presence.as_ref()?;
        let tests: Vec<String> = presence
            .tests
            .iter()
            .map(|t| self.test(plan, t, encode))
            .collect();
        Some(tests.join(" && "))
    }

    // ---- encoding ----

    /// Statements writing `val` of `wire` to `w`.
    fn encode(&self, wire: &Wire<'_>, packed: bool, val: &str) -> Vec<String> {
        let one = |s: String| vec![s];
        match wire {
            // The writer checks the canonical rules and the bucket range (`over_width`,
            // `non_canonical`): what no decoder would accept is refused.
            Wire::Quat { bits } => one(format!("w.Quat({bits}, {val});")),
            Wire::Bucket(b) => one(format!(
                "w.{}Bucket({}, {val});",
                if b.signed { "Z" } else { "" },
                self.widths_of(b)
            )),
            // WIRE-29: a value outside the range is refused before anything is written.
            Wire::Ranged {
                min,
                max,
                packed: Some(width),
                ..
            } => one(format!(
                "w.Ranged({width}, {}, {}, {val});",
                literal(i128::from(*min), "long"),
                literal(i128::from(*max), "long")
            )),
            Wire::Ranged { int, min, max, .. } => {
                let mut lines = one(format!(
                    "Wire.InRange({val}, {}, {});",
                    literal(i128::from(*min), "long"),
                    literal(i128::from(*max), "long")
                ));
                lines.extend(self.encode(int, packed, val));
                lines
            }
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => one(write_int(*signed, *bits, *big_endian, packed, "w", val)),
            Wire::Float { bits, big_endian } => {
                if packed {
                    one(format!("w.F{bits}({val});"))
                } else {
                    one(format!("w.F{bits}({val}, {});", be(*big_endian)))
                }
            }
            Wire::Bool { .. } => one(format!("w.Bool({val});")),
            Wire::Varint { bits } => one(format!("w.Varint({bits}, {val});")),
            Wire::Zigzag { bits } => one(format!("w.Zigzag({bits}, {val});")),
            Wire::Bytes => one(format!("w.Bytes({val});")),
            Wire::OptBytes => one(format!("w.OptBytes({val});")),
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
                let s = s.trim_start_matches('(').trim_end_matches(')');
                let q = if *signed {
                    format!(
                        "Quant.Int({val}, {s}, {}, {})",
                        literal(*min, "long"),
                        literal(*max, "long")
                    )
                } else {
                    format!("Quant.Uint({val}, {s}, {})", literal(*max, "ulong"))
                };
                let ty = int_type(*signed, *bits);
                let from = if *signed { "long" } else { "ulong" };
                let q = match wire.as_ref() {
                    Wire::Int { .. } if !packed => cast(ty, from, q),
                    _ => q,
                };
                self.encode(wire, packed, &q)
            }
            Wire::Bits(b) => one(format!("{}Codec.Write(w, {val});", b.name)),
            Wire::Record { padded: true, .. } => one(format!("{val}.WritePadded(w);")),
            Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                one(format!("{val}.Write(w);"))
            }
            Wire::Array(a) => {
                let d = self.next_list();
                let mut lines = Vec::new();
                if let CountFrom::Prefix(t) = &a.count {
                    lines.extend(self.encode_count(t, packed, &format!("{val}.Length")));
                }
                let item = format!("{val}[i{d}]");
                let body = match (a.ascending, &a.elem) {
                    (Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                        lines.push(format!(
                            "Ascending prev{d} = {};",
                            self.key_ascending(record, key)
                        ));
                        vec![format!("{item}.Write(w, ref prev{d});")]
                    }
                    (Some(_), elem) => {
                        // In a packed record an element can be narrower than its C# type
                        // (u7, a bucket code): the running key refuses one past the range,
                        // which a difference that fits would not show.
                        let asc = if packed {
                            self.ascending_new(elem)
                        } else {
                            "new Ascending(64)".to_string()
                        };
                        lines.push(format!("Ascending asc{d} = {asc};"));
                        let delta = format!("asc{d}.Delta({item})");
                        vec![self.delta_write(elem, packed, delta)]
                    }
                    (None, elem) => self.encode(elem, packed, &item),
                };
                lines.extend(indexed_loop(
                    d,
                    &format!("{val}.Length"),
                    "EncodeError",
                    body,
                ));
                lines
            }
        }
    }

    /// Statements writing a count of `wire`: the length `len` of a list, refused past the
    /// count's width.
    fn encode_count(&self, wire: &Wire<'_>, packed: bool, len: &str) -> Vec<String> {
        match wire {
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => {
                let checked = format!("Wire.Count({len}, {bits})");
                let val = if packed {
                    checked
                } else {
                    cast(int_type(*signed, *bits), "ulong", checked)
                };
                vec![write_int(false, *bits, *big_endian, packed, "w", &val)]
            }
            Wire::Varint { bits } => vec![format!("w.Varint({bits}, (ulong){len});")],
            Wire::Bucket(b) => vec![format!(
                "w.{}Bucket({}, ({}){len});",
                if b.signed { "Z" } else { "" },
                self.widths_of(b),
                if b.signed { "long" } else { "ulong" }
            )],
            other => self.encode(other, packed, len),
        }
    }

    // ---- lengths ----

    /// Statements adding the encoded size of `val` of `wire` to `n` (bytes, bits when packed).
    fn len(&self, wire: &Wire<'_>, fixed: Option<u64>, packed: bool, val: &str) -> Vec<String> {
        if let Some(n) = fixed {
            return vec![format!("n += {n};")];
        }
        let one = |e: String| vec![format!("n += {e};")];
        match wire {
            Wire::Quat { bits } => one(format!("SmallestThree.BitLen({bits})")),
            Wire::Bucket(b) => one(format!(
                "Buckets.{}BitLen({}, {val})",
                if b.signed { "Z" } else { "" },
                self.widths_of(b)
            )),
            Wire::Varint { .. } => one(format!("Lengths.Varint({val})")),
            Wire::Zigzag { .. } => one(format!("Lengths.Varint(Lengths.Zigzag({val}))")),
            Wire::Bytes => one(format!("Lengths.Bytes({val})")),
            Wire::OptBytes => one(format!("Lengths.OptBytes({val})")),
            Wire::Quant { wire, num, den, .. } => {
                // The size of what the writer will write; a value it refuses has no size.
                let q = format!(
                    "Quant.Round({val}, {})",
                    scale(*num, *den)
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                );
                match wire.as_ref() {
                    Wire::Bucket(b) if b.signed => one(format!(
                        "Buckets.ZBitLen({}, unchecked((long){q}))",
                        self.widths_of(b)
                    )),
                    Wire::Bucket(b) => one(format!(
                        "Buckets.BitLen({}, unchecked((ulong){q}))",
                        self.widths_of(b)
                    )),
                    Wire::Zigzag { .. } => one(format!(
                        "Lengths.Varint(Lengths.Zigzag(unchecked((long){q})))"
                    )),
                    _ => one(format!("Lengths.Varint(unchecked((ulong){q}))")),
                }
            }
            Wire::Record { padded: true, .. } => one(format!("{val}.PaddedLen()")),
            Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                if packed {
                    one(format!("{val}.BitLen()"))
                } else {
                    one(format!("{val}.EncodedLen()"))
                }
            }
            Wire::Array(a) => {
                let d = self.next_list();
                let mut lines = Vec::new();
                if let CountFrom::Prefix(t) = &a.count {
                    lines.push(match t {
                        Wire::Int { bits, .. } if packed => format!("n += {bits};"),
                        Wire::Int { bits, .. } => format!("n += {};", bits / 8),
                        Wire::Bucket(b) => format!(
                            "n += Buckets.BitLen({}, (ulong){val}.Length);",
                            self.widths_of(b)
                        ),
                        _ => format!("n += Lengths.Varint((ulong){val}.Length);"),
                    });
                }
                let x = format!("x{d}");
                let ty = cs_type(&a.elem);
                let each: Vec<String> = match (a.ascending, &a.elem, a.elem_fixed) {
                    (Some(Ascending::Key(key)), Wire::Record { record, .. }, _) => {
                        lines.push(format!(
                            "Ascending prev{d} = {};",
                            self.key_ascending(record, key)
                        ));
                        if packed {
                            vec![format!("n += {x}.BitLen(ref prev{d});")]
                        } else {
                            vec![format!("n += {x}.EncodedLen(ref prev{d});")]
                        }
                    }
                    (Some(_), Wire::Varint { .. }, _) => {
                        lines.push(format!("Ascending asc{d} = new Ascending(64);"));
                        vec![format!("n += Lengths.Varint(asc{d}.Step({x}));")]
                    }
                    (Some(_), elem @ Wire::Bucket(_), _) => {
                        lines.push(format!("Ascending asc{d} = {};", self.ascending_new(elem)));
                        vec![format!(
                            "n += {};",
                            self.delta_len(elem, format!("asc{d}.Step({x})"))
                        )]
                    }
                    (_, _, Some(n)) => {
                        lines.push(format!("n += {val}.Length * {n};"));
                        return lines;
                    }
                    (_, elem, None) => self.len(elem, None, packed, &x),
                };
                lines.push(format!("foreach ({ty} {x} in {val})"));
                lines.push("{".into());
                for l in each {
                    lines.push(format!("    {l}"));
                }
                lines.push("}".into());
                lines
            }
            // Fixed-size kinds have a fixed size.
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Float { .. }
            | Wire::Bool { .. }
            | Wire::Bits(_) => {
                vec!["n += 0;".into()]
            }
        }
    }

    // ---- JSON ----

    /// Statements writing `val` of `wire` in the JSON form to `j`; `strings` where a 64-bit
    /// value past 2^53 − 1 is a decimal string (see [`big_json`]).
    fn write_json(&self, wire: &Wire<'_>, val: &str, strings: bool) -> Vec<String> {
        let one = |s: String| vec![s];
        let big = if strings && big_json(wire) { "Big" } else { "" };
        match wire {
            Wire::Quat { .. } => one(format!("SmallestThree.ToJson(j, {val});")),
            Wire::Bucket(b) if b.signed => one(format!("j.{big}Int({val});")),
            Wire::Bucket(_) => one(format!("j.{big}Uint({val});")),
            Wire::Ranged { int, .. } => self.write_json(int, val, strings),
            Wire::Int { signed: false, .. } | Wire::Varint { .. } => {
                one(format!("j.{big}Uint({val});"))
            }
            Wire::Int { signed: true, .. } | Wire::Zigzag { .. } => {
                one(format!("j.{big}Int({val});"))
            }
            Wire::Float { .. } | Wire::Quant { .. } => one(format!("j.Float({val});")),
            Wire::Bool { .. } => one(format!("j.Bool({val});")),
            Wire::Bytes => one(format!("j.Hex({val});")),
            Wire::OptBytes => one(format!(
                "if ({val} == null) {{ j.Null(); }} else {{ j.Hex({val}); }}"
            )),
            Wire::Bits(b) => one(format!("{}Codec.ToJson(j, {val});", b.name)),
            Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                one(format!("{val}.ToJson(j);"))
            }
            Wire::Array(a) => {
                let d = self.next_list();
                let x = format!("x{d}");
                let mut lines = vec![
                    "j.BeginArray();".to_string(),
                    format!("foreach ({} {x} in {val})", cs_type(&a.elem)),
                    "{".to_string(),
                ];
                for l in self.write_json(&a.elem, &x, strings && big_elem(&a.elem)) {
                    lines.push(format!("    {l}"));
                }
                lines.push("}".into());
                lines.push("j.EndArray();".into());
                lines
            }
        }
    }

    /// Statements reading JSON value `src` into `target` as `wire`; `strings` where a decimal
    /// string is read as well as a number (see [`big_json`]).
    fn read_json(&self, wire: &Wire<'_>, src: &str, target: &str, strings: bool) -> Vec<String> {
        let one = |e: String| vec![format!("{target} = {e};")];
        let big = if strings && big_json(wire) { "Big" } else { "" };
        let int = |signed: bool, bits: u8| {
            let ty = int_type(signed, bits);
            let (min, max) = int_range(signed, bits);
            if signed {
                cast(
                    ty,
                    "long",
                    format!(
                        "Json.{big}Int({src}, {}, {})",
                        literal(min, "long"),
                        literal(max, "long")
                    ),
                )
            } else {
                cast(
                    ty,
                    "ulong",
                    format!("Json.{big}Uint({src}, {})", literal(max, "ulong")),
                )
            }
        };
        match wire {
            Wire::Quat { .. } => one(format!("SmallestThree.FromJson({src})")),
            // The model integer's range, as for any integer: the encoder then refuses a value
            // past the code's own range.
            Wire::Bucket(b) => one(int(b.signed, b.model_bits)),
            Wire::Int { signed, bits, .. } => one(int(*signed, *bits)),
            Wire::Ranged { int, .. } => self.read_json(int, src, target, strings),
            Wire::Varint { bits } => one(int(false, *bits)),
            Wire::Zigzag { bits } => one(int(true, *bits)),
            Wire::Float { bits: 32, .. } => one(format!("(float)Json.Float({src})")),
            Wire::Float { .. } | Wire::Quant { .. } => one(format!("Json.Float({src})")),
            Wire::Bool { .. } => one(format!("Json.Bool({src})")),
            Wire::Bytes => one(format!("Json.Bytes({src})")),
            Wire::OptBytes => one(format!(
                "{src}.Kind == JsonKind.Null ? null : Json.Bytes({src})"
            )),
            Wire::Bits(b) => one(format!("{}Codec.FromJson({src})", b.name)),
            Wire::Record { record, .. } => one(format!("{}.FromJson({src})", record.name)),
            Wire::Union(u) => one(format!("{}.FromJson({src})", u.name)),
            Wire::Unknown(name) => one(format!("{}.FromJson({src})", name.replace('.', "_"))),
            Wire::Array(a) => {
                let d = self.next_list();
                let ty = cs_type(&a.elem);
                let mut lines = vec![
                    format!("List<JsonValue> a{d} = Json.Array({src});"),
                    format!(
                        "{ty}[] items{d} = {};",
                        new_array(&ty, &format!("a{d}.Count"))
                    ),
                ];
                let body = self.read_json(
                    &a.elem,
                    &format!("a{d}[i{d}]"),
                    &format!("items{d}[i{d}]"),
                    strings && big_elem(&a.elem),
                );
                lines.extend(indexed_loop(d, &format!("a{d}.Count"), "JsonError", body));
                lines.push(format!("{target} = items{d};"));
                lines
            }
        }
    }

    // ---- records ----

    fn record(&mut self, r: &'s Record) {
        let low = self.low;
        // A record that is an element of a list ascending by a key is read and written with its
        // keyed plan (the first key, by name), any other with its own.
        let key = low.keys_of(&r.name).first().copied();
        let Some(plan) = low.plan(&r.name, key) else {
            return;
        };
        let name = &r.name;
        let kind = if r.kind == RecordKind::Frame {
            "frame"
        } else {
            "record"
        };
        self.docs(&r.docs, &format!("The {kind} `{name}`."));
        self.out.block(format!("public sealed class {name}"));
        let values: Vec<&Step<'_>> = plan.values().collect();
        for (i, s) in values.iter().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            let f = s.field;
            self.docs(&f.docs, &format!("The `{}` field.", f.name));
            let ty = if s.presence.is_some() {
                optional_type(&s.wire)
            } else {
                cs_type(&s.wire)
            };
            self.out
                .line(format!("public {ty} {};", member(&f.name, name)));
        }
        self.out.blank();
        self.read_fn(plan);
        self.out.blank();
        self.write_fn(plan);
        self.out.blank();
        self.len_fn(plan);
        if let Some(key) = plan.key {
            self.unkeyed_fns(plan, key);
        }
        if plan.packed {
            self.padded_fns(plan);
        }
        if r.kind == RecordKind::Frame {
            self.frame_fns(plan);
        }
        self.out.blank();
        self.json_fns(plan);
        self.out.close("}");
    }

    /// Opens a reader's or writer's `try` and the local naming the field at hand (when there
    /// are several fields).
    fn open_fields(&mut self, plan: &RecordPlan<'_>) {
        if let [first, _, ..] = plan.steps.as_slice() {
            self.out
                .line(format!("string field = \"{}\";", first.field.name));
        }
        if !plan.steps.is_empty() {
            self.out.block("try");
        }
    }

    fn name_field(&mut self, plan: &RecordPlan<'_>, i: usize) {
        if i > 0 {
            self.out
                .line(format!("field = \"{}\";", plan.steps[i].field.name));
        }
    }

    /// Closes what [`Gen::open_fields`] opened: the `catch` putting the field in front of the
    /// error's path.
    fn close_fields(&mut self, plan: &RecordPlan<'_>, error: &str) {
        let field = match plan.steps.as_slice() {
            [] => return,
            [only] => format!("\"{}\"", only.field.name),
            _ => "field".to_string(),
        };
        self.out.close("}");
        self.out.block(format!("catch ({error} e)"));
        self.out.line(format!("throw e.Within({field});"));
        self.out.close("}");
    }

    fn lines(&mut self, lines: &[String]) {
        for l in lines {
            self.out.line(l);
        }
    }

    fn read_fn(&mut self, plan: &RecordPlan<'_>) {
        self.start_method();
        let name = &plan.record.name;
        let a = article(name);
        let packed = plan.packed;
        let s = if packed { "b" } else { "r" };
        if let (true, Some(key)) = (packed, plan.key) {
            self.out.line(summary(&[
                format!("Reads {a} <see cref=\"{name}\"/> from a bit stream. Within a list ascending by <c>{key}</c>,"),
                "<paramref name=\"prev\"/> holds the previous element's key, of which this one's is the difference.".to_string(),
            ]));
            self.out.block(format!(
                "public static {name} Read(ref BitReader b, ref Ascending prev)"
            ));
        } else if packed {
            self.out.line(format!(
                "/// <summary>Reads {a} <see cref=\"{name}\"/> from a bit stream.</summary>"
            ));
            self.out
                .block(format!("public static {name} Read(ref BitReader b)"));
        } else if let Some(key) = plan.key {
            self.out.line(summary(&[
                format!("Reads {a} <see cref=\"{name}\"/>. Within a list ascending by <c>{key}</c>, <paramref name=\"prev\"/>"),
                "holds the previous element's key, of which this one's is the difference.".to_string(),
            ]));
            self.out.block(format!(
                "public static {name} Read(ref Reader r, ref Ascending prev)"
            ));
        } else {
            self.out.line(format!(
                "/// <summary>Reads {a} <see cref=\"{name}\"/>.</summary>"
            ));
            self.out
                .block(format!("public static {name} Read(ref Reader r)"));
        }
        self.open_fields(plan);
        for (i, step) in plan.steps.iter().enumerate() {
            self.name_field(plan, i);
            let l = local(&step.field.name);
            match step.role {
                Role::Constant(c) => {
                    let (signed, read) = match &step.wire {
                        Wire::Int { signed, .. } => (*signed, self.decode(&step.wire, packed, s)),
                        Wire::Varint { bits } => (false, format!("{s}.Varint({bits})")),
                        Wire::Zigzag { bits } => (true, format!("{s}.Zigzag({bits})")),
                        Wire::Bucket(b) => (b.signed, self.decode(&step.wire, packed, s)),
                        other => (false, self.decode(other, packed, s)),
                    };
                    let at = if packed { "BitOffset" } else { "Offset" };
                    if signed {
                        self.out.line(format!(
                            "{s}.ExpectInt({s}.{at}, {read}, {});",
                            literal(c, "long")
                        ));
                    } else {
                        self.out.line(format!(
                            "{s}.ExpectUint({s}.{at}, {read}, {});",
                            literal(c, "ulong")
                        ));
                    }
                }
                Role::Key => {
                    let raw = self.delta_read(&step.wire, packed, s);
                    let at = if packed { "BitOffset" } else { "Offset" };
                    let ty = cs_type(&step.wire);
                    self.out.line(format!(
                        "{ty} {l} = {};",
                        cast(&ty, "ulong", format!("prev.Next(ref {s}, {s}.{at}, {raw})"))
                    ));
                }
                Role::Count { .. } | Role::Value => {
                    let count_local = match &step.wire {
                        Wire::Array(a) => match a.count {
                            CountFrom::Field(c) => Some(local(c)),
                            CountFrom::Prefix(_) => None,
                        },
                        _ => None,
                    };
                    match self.presence(plan, step, false) {
                        Some(cond) => {
                            let ty = optional_type(&step.wire);
                            self.out.line(format!("{ty} {l} = null;"));
                            self.out.block(format!("if ({cond})"));
                            let lines =
                                self.decode_into(&step.wire, packed, s, &l, count_local.as_deref());
                            self.lines(&lines);
                            self.out.close("}");
                        }
                        None => {
                            let ty = cs_type(&step.wire);
                            if let Wire::Array(_) = step.wire {
                                self.out.line(format!("{ty} {l};"));
                                let lines = self.decode_into(
                                    &step.wire,
                                    packed,
                                    s,
                                    &l,
                                    count_local.as_deref(),
                                );
                                self.lines(&lines);
                            } else {
                                self.out.line(format!(
                                    "{ty} {l} = {};",
                                    self.decode(&step.wire, packed, s)
                                ));
                            }
                        }
                    }
                }
            }
        }
        let members: Vec<String> = plan
            .values()
            .map(|st| {
                format!(
                    "{} = {}",
                    member(&st.field.name, name),
                    local(&st.field.name)
                )
            })
            .collect();
        if members.is_empty() {
            self.out.line(format!("return new {name}();"));
        } else if members.iter().map(|m| m.len() + 2).sum::<usize>()
            + name.len()
            + 20
            + self.out.column()
            <= 100
        {
            self.out
                .line(format!("return new {name} {{ {} }};", members.join(", ")));
        } else {
            self.out.line(format!("return new {name}"));
            self.out.open("{");
            for m in &members {
                self.out.line(format!("{m},"));
            }
            self.out.indent -= 1;
            self.out.line("};");
        }
        self.close_fields(plan, "DecodeError");
        self.out.close("}");
    }

    /// The member of `step` as a value: `Age.Value` for an optional value type.
    fn value_of(&self, plan: &RecordPlan<'_>, step: &Step<'_>) -> String {
        let m = member(&step.field.name, &plan.record.name);
        if step.presence.is_some() && is_value_type(&step.wire) {
            format!("{m}.Value")
        } else {
            m
        }
    }

    fn given(&self, plan: &RecordPlan<'_>, step: &Step<'_>) -> String {
        let m = member(&step.field.name, &plan.record.name);
        if is_value_type(&step.wire) {
            format!("{m}.HasValue")
        } else {
            format!("{m} != null")
        }
    }

    fn write_fn(&mut self, plan: &RecordPlan<'_>) {
        self.start_method();
        let name = &plan.record.name;
        let a = article(name);
        let packed = plan.packed;
        let class = name.clone();
        if let (true, Some(key)) = (packed, plan.key) {
            self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/> into a bit stream. Within a list ascending by `{key}`, `prev` holds the previous element's key, and this one's is written as the difference.</summary>"));
            self.out
                .block("public void Write(BitWriter w, ref Ascending prev)");
        } else if packed {
            self.out.line(format!(
                "/// <summary>Writes {a} <see cref=\"{name}\"/> into a bit stream.</summary>"
            ));
            self.out.block("public void Write(BitWriter w)");
        } else if let Some(key) = plan.key {
            self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/>. Within a list ascending by `{key}`, `prev` holds the previous element's key, and this one's is written as the difference.</summary>"));
            self.out
                .block("public void Write(Writer w, ref Ascending prev)");
        } else {
            self.out.line(format!(
                "/// <summary>Writes {a} <see cref=\"{name}\"/>.</summary>"
            ));
            self.out.block("public void Write(Writer w)");
        }
        self.open_fields(plan);
        for (i, step) in plan.steps.iter().enumerate() {
            self.name_field(plan, i);
            let field = member(&step.field.name, &class);
            let lines = match step.role {
                Role::Constant(c) => {
                    let ty = cs_type(&step.wire);
                    let lit = match &step.wire {
                        Wire::Varint { .. } => literal(c, "ulong"),
                        Wire::Zigzag { .. } => literal(c, "long"),
                        Wire::Bucket(b) => literal(c, if b.signed { "long" } else { "ulong" }),
                        Wire::Int { .. } if packed => literal(
                            c,
                            if ty.starts_with('u') || ty == "byte" {
                                "ulong"
                            } else {
                                "long"
                            },
                        ),
                        _ => literal(c, &ty),
                    };
                    self.encode(&step.wire, packed, &lit)
                }
                Role::Count { array } => self.encode_count(
                    &step.wire,
                    packed,
                    &format!("{}.Length", member(array, &class)),
                ),
                Role::Key => {
                    let delta = format!("prev.Delta({field})");
                    vec![self.delta_write(&step.wire, packed, delta)]
                }
                Role::Value => match self.presence(plan, step, true) {
                    Some(cond) => {
                        let given = self.given(plan, step);
                        self.out.line(format!("Wire.Presence({given}, {cond});"));
                        self.out.block(format!("if ({given})"));
                        let lines = self.encode(&step.wire, packed, &self.value_of(plan, step));
                        self.lines(&lines);
                        self.out.close("}");
                        continue;
                    }
                    None => self.encode(&step.wire, packed, &field),
                },
            };
            self.lines(&lines);
        }
        self.close_fields(plan, "EncodeError");
        self.out.close("}");
    }

    fn len_fn(&mut self, plan: &RecordPlan<'_>) {
        self.start_method();
        let name = &plan.record.name;
        let packed = plan.packed;
        let mut fixed = 0u64;
        let mut parts: Vec<String> = Vec::new();
        for step in &plan.steps {
            let field = member(&step.field.name, name);
            match step.role {
                Role::Constant(c) => match step.wire {
                    Wire::Varint { .. } => fixed += varint_len(c),
                    _ => fixed += step.fixed.unwrap_or(0),
                },
                Role::Count { array } => match (step.fixed, &step.wire) {
                    (Some(n), _) => fixed += n,
                    (None, Wire::Bucket(b)) => parts.push(format!(
                        "n += Buckets.{}BitLen({}, {}{}.Length);",
                        if b.signed { "Z" } else { "" },
                        self.widths_of(b),
                        if b.signed { "" } else { "(ulong)" },
                        member(array, name)
                    )),
                    (None, _) => parts.push(format!(
                        "n += Lengths.Varint((ulong){}.Length);",
                        member(array, name)
                    )),
                },
                Role::Key => match step.fixed {
                    Some(n) => {
                        fixed += n;
                        parts.push(format!("prev.Step({field});"));
                    }
                    None => parts.push(format!(
                        "n += {};",
                        self.delta_len(&step.wire, format!("prev.Step({field})"))
                    )),
                },
                Role::Value if step.presence.is_some() => {
                    let inner =
                        self.len(&step.wire, step.fixed, packed, &self.value_of(plan, step));
                    parts.push(format!("if ({})", self.given(plan, step)));
                    parts.push("{".into());
                    for l in inner {
                        parts.push(format!("    {l}"));
                    }
                    parts.push("}".into());
                }
                Role::Value => match step.fixed {
                    Some(n) => fixed += n,
                    None => parts.extend(self.len(&step.wire, None, packed, &field)),
                },
            }
        }
        let ret = if packed { "long" } else { "int" };
        if packed && plan.key.is_some() {
            self.out.line(
                "/// <summary>The number of bits <see cref=\"Write(BitWriter, ref Ascending)\"/> writes, moving `prev` on.</summary>",
            );
            self.out.block("public long BitLen(ref Ascending prev)");
        } else if packed {
            self.out.line(
                "/// <summary>The number of bits <see cref=\"Write(BitWriter)\"/> writes.</summary>",
            );
            self.out.block("public long BitLen()");
        } else if plan.key.is_some() {
            self.out.line(
                "/// <summary>The number of bytes <see cref=\"Write(Writer, ref Ascending)\"/> writes, moving `prev` on.</summary>",
            );
            self.out.block("public int EncodedLen(ref Ascending prev)");
        } else {
            self.out.line(
                "/// <summary>The number of bytes <see cref=\"Write(Writer)\"/> writes.</summary>",
            );
            self.out.block("public int EncodedLen()");
        }
        if parts.is_empty() {
            self.out.line(format!("return {fixed};"));
        } else {
            self.out.line(format!("{ret} n = {fixed};"));
            self.lines(&parts);
            self.out.line("return n;");
        }
        self.out.close("}");
    }

    /// A keyed record's forms met outside an ascending list (a union's variant, a field): its
    /// key read and written absolute, as the first of a list's.
    fn unkeyed_fns(&mut self, plan: &RecordPlan<'_>, key: &str) {
        let name = &plan.record.name;
        let a = article(name);
        let asc = self.key_ascending(plan.record, key);
        // A packed record's forms are those of a bit stream, its size in bits.
        let (reader, writer, len_ty, len_fn, unit) = if plan.packed {
            ("ref BitReader b", "BitWriter w", "long", "BitLen", "bits")
        } else {
            ("ref Reader r", "Writer w", "int", "EncodedLen", "bytes")
        };
        let src = if plan.packed { "b" } else { "r" };
        let writer_ty = writer.split(' ').next().unwrap_or(writer);
        self.out.blank();
        self.out.line(format!("/// <summary>Reads {a} <see cref=\"{name}\"/> on its own: its `{key}` absolute.</summary>"));
        self.out
            .block(format!("public static {name} Read({reader})"));
        self.out.line(format!("Ascending prev = {asc};"));
        self.out.line(format!("return Read(ref {src}, ref prev);"));
        self.out.close("}");
        self.out.blank();
        self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/> on its own: its `{key}` absolute.</summary>"));
        self.out.block(format!("public void Write({writer})"));
        self.out.line(format!("Ascending prev = {asc};"));
        self.out.line("Write(w, ref prev);");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>The number of {unit} <see cref=\"Write({writer_ty})\"/> writes.</summary>",
        ));
        self.out.block(format!("public {len_ty} {len_fn}()"));
        self.out.line(format!("Ascending prev = {asc};"));
        self.out.line(format!("return {len_fn}(ref prev);"));
        self.out.close("}");
    }

    /// A packed record's reads and writes from a byte-aligned position: its bits padded with
    /// zeros to a whole byte, the padding checked on reading.
    fn padded_fns(&mut self, plan: &RecordPlan<'_>) {
        let name = &plan.record.name;
        let a = article(name);
        self.out.blank();
        self.out.line(format!("/// <summary>Reads {a} <see cref=\"{name}\"/> from a byte-aligned position: its bits, then zero padding to a byte.</summary>"));
        self.out
            .block(format!("public static {name} ReadPadded(ref Reader r)"));
        self.out.line("BitReader b = r.BeginPacked();");
        self.out.line(format!("{name} v = Read(ref b);"));
        self.out.line("r.EndPacked(ref b);");
        self.out.line("return v;");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/> at a byte-aligned position, padded with zeros to a byte.</summary>"));
        self.out.block("public void WritePadded(Writer w)");
        self.out.line("BitWriter b = new BitWriter();");
        self.out.line("Write(b);");
        self.out.line("w.Packed(b);");
        self.out.close("}");
        self.out.blank();
        self.out
            .line("/// <summary>The number of bytes <see cref=\"WritePadded\"/> writes.</summary>");
        self.out.block("public int PaddedLen()");
        self.out.line("return Lengths.Padded(BitLen());");
        self.out.close("}");
    }

    fn frame_fns(&mut self, plan: &RecordPlan<'_>) {
        let name = &plan.record.name;
        let a = article(name);
        let (read, write, len) = if plan.packed {
            ("ReadPadded", "WritePadded", "PaddedLen")
        } else {
            ("Read", "Write", "EncodedLen")
        };
        self.out.blank();
        self.out.line(format!("/// <summary>Decodes a whole <see cref=\"{name}\"/> frame; bytes after it are an error.</summary>"));
        self.out
            .block(format!("public static {name} Decode(byte[] bytes)"));
        self.out.line("Reader r = new Reader(bytes);");
        self.out.line(format!("{name} v = {read}(ref r);"));
        self.out.line("r.Finish();");
        self.out.line("return v;");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Encodes {a} <see cref=\"{name}\"/> frame.</summary>"
        ));
        self.out.block("public byte[] Encode()");
        self.out.line(format!("Writer w = new Writer({len}());"));
        self.out.line(format!("{write}(w);"));
        self.out.line("return w.ToArray();");
        self.out.close("}");
    }

    fn json_fns(&mut self, plan: &RecordPlan<'_>) {
        self.start_method();
        let name = &plan.record.name;
        let a = article(name);
        let values: Vec<&Step<'_>> = plan.values().collect();
        self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/> in the JSON form: its value fields, an absent one left out.</summary>"));
        self.out.block("public void ToJson(JsonWriter j)");
        self.out.line("j.BeginObject();");
        for s in &values {
            let lines: Vec<String> = std::iter::once(format!("j.Name(\"{}\");", s.field.name))
                .chain(self.write_json(&s.wire, &self.value_of(plan, s), true))
                .collect();
            if s.presence.is_some() {
                self.out.block(format!("if ({})", self.given(plan, s)));
                self.lines(&lines);
                self.out.close("}");
            } else {
                self.lines(&lines);
            }
        }
        self.out.line("j.EndObject();");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>{} {a} <see cref=\"{name}\"/> from its JSON form.</summary>",
            "Reads"
        ));
        self.out
            .block(format!("public static {name} FromJson(JsonValue o)"));
        if values.is_empty() {
            self.out.line("Json.Optional(o, \"\");");
            self.out.line(format!("return new {name}();"));
            self.out.close("}");
            return;
        }
        self.out.line(format!("{name} v = new {name}();"));
        if let [first, _, ..] = values.as_slice() {
            self.out
                .line(format!("string field = \"{}\";", first.field.name));
        }
        // An optional field, and a `bytes?` ("a hex string or absent/`null`"), may be absent.
        let may_be_absent = |s: &Step<'_>| s.presence.is_some() || matches!(s.wire, Wire::OptBytes);
        let optional = values.iter().any(|s| may_be_absent(s));
        if optional {
            self.out.line("JsonValue x;");
        }
        self.out.block("try");
        for (i, s) in values.iter().enumerate() {
            if i > 0 && values.len() > 1 {
                self.out.line(format!("field = \"{}\";", s.field.name));
            }
            let m = format!("v.{}", member(&s.field.name, name));
            if may_be_absent(s) {
                self.out
                    .line(format!("x = Json.Optional(o, \"{}\");", s.field.name));
                self.out.block("if (x != null)");
                let lines = self.read_json(&s.wire, "x", &m, true);
                self.lines(&lines);
                self.out.close("}");
            } else {
                let src = format!("Json.Member(o, \"{}\")", s.field.name);
                let lines = self.read_json(&s.wire, &src, &m, true);
                self.lines(&lines);
            }
        }
        self.out.close("}");
        self.out.block("catch (JsonError e)");
        let field = if values.len() > 1 {
            "field".to_string()
        } else {
            format!("\"{}\"", values[0].field.name)
        };
        self.out.line(format!("throw e.Within({field});"));
        self.out.close("}");
        self.out.line("return v;");
        self.out.close("}");
    }

    // ---- unions ----

    fn union(&mut self, u: &'s Union) {
        let plan = self.low.union_plan(u);
        let name = &u.name;
        let a = article(name);
        let (bits, big_endian) = match plan.tag {
            Wire::Int {
                bits, big_endian, ..
            } => (bits, big_endian),
            _ => (64, false),
        };
        let tag_ty = int_type(false, bits);
        self.out.line(format!(
            "/// <summary>The variants of <see cref=\"{name}\"/>, each its tag.</summary>"
        ));
        self.out.block(format!("public enum {name}Kind : {tag_ty}"));
        for (i, v) in u.variants.iter().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            self.docs(&v.docs, &format!("Tag {}.", v.tag));
            self.out.line(format!(
                "{} = {},",
                v.record,
                literal(i128::from(v.tag), tag_ty)
            ));
        }
        self.out.close("}");
        self.out.blank();
        self.docs(&u.docs, &format!("The union `{name}`."));
        self.out.block(format!("public sealed class {name}"));
        self.out
            .line("/// <summary>Which variant this is.</summary>");
        self.out
            .line(format!("public {name}Kind Kind {{ get; private set; }}"));
        self.out.blank();
        self.out
            .line("// Made only by Of, so that a value always holds the variant its Kind names.");
        self.out.line(format!("{name}()"));
        self.out.open("{");
        self.out.close("}");
        for (_, record) in &plan.variants {
            let m = member(&record.name, name);
            self.out.blank();
            self.out.line(format!("/// <summary>The <see cref=\"{0}\"/> when <see cref=\"Kind\"/> is <c>{0}</c>, else null.</summary>", record.name));
            self.out.line(format!(
                "public {} {m} {{ get; private set; }}",
                record.name
            ));
        }
        for (_, record) in &plan.variants {
            let m = member(&record.name, name);
            self.out.blank();
            self.out.line(format!(
                "/// <summary>The variant <see cref=\"{0}\"/>.</summary>",
                record.name
            ));
            self.out
                .block(format!("public static {name} Of({} value)", record.name));
            self.out.block("if (value == null)");
            self.out.line("throw new ArgumentNullException(\"value\");");
            self.out.close("}");
            self.out.line(format!(
                "return new {name} {{ Kind = {name}Kind.{}, {m} = value }};",
                record.name
            ));
            self.out.close("}");
        }
        let tag = |t: u64| literal(i128::from(t), tag_ty);
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Reads {a} <see cref=\"{name}\"/>: its tag, then the variant's record.</summary>"
        ));
        self.out
            .block(format!("public static {name} Read(ref Reader r)"));
        self.out.line("int at = r.Offset;");
        self.out.block(format!(
            "switch ({})",
            read_int(false, bits, big_endian, false, "r")
        ));
        for (t, record) in &plan.variants {
            let variant = snake_case(&record.name);
            let read = if record.packed {
                format!("{}.ReadPadded(ref r)", record.name)
            } else {
                format!("{}.Read(ref r)", record.name)
            };
            self.out.line(format!("case {}:", tag(*t)));
            self.out.indent += 1;
            self.out.block("try");
            self.out.line(format!("return Of({read});"));
            self.out.close("}");
            self.out.block("catch (DecodeError e)");
            self.out.line(format!("throw e.Within(\"{variant}\");"));
            self.out.close("}");
            self.out.indent -= 1;
        }
        self.out.line("default:");
        self.out.indent += 1;
        // WIRE-16: a tag that names no variant is refused.
        self.out.line("throw r.Fail(ErrorKind.UnknownTag, at);");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!(
            "/// <summary>Writes {a} <see cref=\"{name}\"/>: its tag, then the variant's record.</summary>"
        ));
        self.out.block("public void Write(Writer w)");
        self.out.block("switch (Kind)");
        for (t, record) in &plan.variants {
            let variant = snake_case(&record.name);
            let m = member(&record.name, name);
            self.out.line(format!("case {name}Kind.{}:", record.name));
            self.out.indent += 1;
            self.out
                .line(write_int(false, bits, big_endian, false, "w", &tag(*t)));
            self.out.block("try");
            if record.packed {
                self.out.line(format!("{m}.WritePadded(w);"));
            } else {
                self.out.line(format!("{m}.Write(w);"));
            }
            self.out.close("}");
            self.out.block("catch (EncodeError e)");
            self.out.line(format!("throw e.Within(\"{variant}\");"));
            self.out.close("}");
            self.out.line("return;");
            self.out.indent -= 1;
        }
        self.out.line("default:");
        self.out.indent += 1;
        self.out.line("throw w.Fail(ErrorKind.UnknownTag);");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(
            "/// <summary>The number of bytes <see cref=\"Write(Writer)\"/> writes.</summary>",
        );
        self.out.block("public int EncodedLen()");
        self.out.block("switch (Kind)");
        for (_, record) in &plan.variants {
            let m = member(&record.name, name);
            self.out.line(format!("case {name}Kind.{}:", record.name));
            self.out.indent += 1;
            if record.packed {
                self.out
                    .line(format!("return {} + {m}.PaddedLen();", bits / 8));
            } else {
                self.out
                    .line(format!("return {} + {m}.EncodedLen();", bits / 8));
            }
            self.out.indent -= 1;
        }
        self.out.line("default:");
        self.out.indent += 1;
        self.out.line(format!("return {};", bits / 8));
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!("/// <summary>Writes {a} <see cref=\"{name}\"/> in the JSON form: an object of one member, the variant.</summary>"));
        self.out.block("public void ToJson(JsonWriter j)");
        self.out.line("j.BeginObject();");
        self.out.block("switch (Kind)");
        for (_, record) in &plan.variants {
            let m = member(&record.name, name);
            self.out.line(format!("case {name}Kind.{}:", record.name));
            self.out.indent += 1;
            self.out
                .line(format!("j.Name(\"{}\");", snake_case(&record.name)));
            self.out.line(format!("{m}.ToJson(j);"));
            self.out.line("break;");
            self.out.indent -= 1;
        }
        self.out.close("}");
        self.out.line("j.EndObject();");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!(
            "/// <summary>Reads {a} <see cref=\"{name}\"/> from its JSON form.</summary>"
        ));
        self.out
            .block(format!("public static {name} FromJson(JsonValue o)"));
        self.out
            .line("KeyValuePair<string, JsonValue> m = Json.Variant(o);");
        self.out.block("try");
        self.out.block("switch (m.Key)");
        for (_, record) in &plan.variants {
            self.out
                .line(format!("case \"{}\":", snake_case(&record.name)));
            self.out.indent += 1;
            self.out
                .line(format!("return Of({}.FromJson(m.Value));", record.name));
            self.out.indent -= 1;
        }
        self.out.line("default:");
        self.out.indent += 1;
        self.out
            .line("throw new JsonError(\"unknown variant \" + m.Key);");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");
        self.out.block("catch (JsonError e)");
        self.out.line("throw e.Within(m.Key);");
        self.out.close("}");
        self.out.close("}");
        self.out.close("}");
    }

    // ---- every frame, by name ----

    fn dispatch(&mut self) {
        let frames: Vec<String> = self
            .low
            .frames()
            .into_iter()
            .map(|(r, _)| r.name.clone())
            .collect();
        self.out.line("// ---- every frame, by name ----");
        self.out.blank();
        self.out.line("/// <summary>Every frame of the spec, by its name in snake_case (<c>acked</c>), for code that");
        self.out
            .line("/// takes frames by name (a testee, a proxy, a log viewer).</summary>");
        self.out.block("public static class Frames");
        self.out.line(
            "/// <summary>The name of every frame of the spec, in declaration order.</summary>",
        );
        let names: Vec<String> = frames
            .iter()
            .map(|f| format!("\"{}\"", snake_case(f)))
            .collect();
        self.out.line(format!(
            "public static readonly string[] Names = {{ {} }};",
            names.join(", ")
        ));
        let unknown = "throw new ArgumentException(\"unknown frame `\" + name + \"`; the frames are: \" + string.Join(\", \", Names));";
        let fns: [Dispatch; 5] = [
            (
                "Decodes the frame named <paramref name=\"name\"/>; a bad frame throws a <see cref=\"DecodeError\"/>.",
                "public static object Decode(string name, byte[] bytes)",
                |f| format!("return {f}.Decode(bytes);"),
            ),
            (
                "Encodes <paramref name=\"value\"/>, a frame named <paramref name=\"name\"/>; a value no decoder accepts throws an <see cref=\"EncodeError\"/>.",
                "public static byte[] Encode(string name, object value)",
                |f| format!("return (({f})value).Encode();"),
            ),
            (
                "The number of bytes <see cref=\"Encode\"/> writes for <paramref name=\"value\"/>.",
                "public static int EncodedLen(string name, object value)",
                |f| format!("return (({f})value).EncodedLen();"),
            ),
            (
                "Writes <paramref name=\"value\"/>, a frame named <paramref name=\"name\"/>, in the JSON form.",
                "public static void ToJson(string name, object value, JsonWriter j)",
                |f| format!("(({f})value).ToJson(j);\nreturn;"),
            ),
            (
                "A frame named <paramref name=\"name\"/> from its JSON form; bad JSON throws a <see cref=\"JsonError\"/>.",
                "public static object FromJson(string name, JsonValue json)",
                |f| format!("return {f}.FromJson(json);"),
            ),
        ];
        for (doc, head, body) in fns {
            self.out.blank();
            self.out.line(format!("/// <summary>{doc}</summary>"));
            self.out.block(head);
            self.out.block("switch (name)");
            for f in &frames {
                self.out.line(format!("case \"{}\":", snake_case(f)));
                self.out.indent += 1;
                let mut text = body(f);
                if head.contains("EncodedLen") && self.low.plan(f, None).is_some_and(|p| p.packed) {
                    text = format!("return (({f})value).PaddedLen();");
                }
                self.out.line(text);
                self.out.indent -= 1;
            }
            self.out.line("default:");
            self.out.indent += 1;
            self.out.line(unknown);
            self.out.indent -= 1;
            self.out.close("}");
            self.out.close("}");
        }
        self.out.close("}");
    }
}

/// Whether an integer of `wire` can pass 2^53 − 1, where the JSON form writes it as a decimal
/// string and reads both forms. Where that holds is the Rust codec's (its serde helpers): a
/// field of the record, and the elements of a list of unsigned integers; a list of signed ones,
/// and a list within a list, hold plain numbers.
fn big_json(wire: &Wire<'_>) -> bool {
    match wire {
        Wire::Ranged { int, .. } => big_json(int),
        Wire::Bucket(b) => b.model_bits > 53,
        Wire::Int { bits, .. } | Wire::Varint { bits } | Wire::Zigzag { bits } => *bits > 53,
        _ => false,
    }
}

/// Whether the elements of a list of `elem` keep the decimal strings of a field.
fn big_elem(elem: &Wire<'_>) -> bool {
    matches!(elem, Wire::Int { signed: false, .. } | Wire::Varint { .. })
        || matches!(elem, Wire::Bucket(b) if !b.signed)
}

/// One method of `Frames`: its doc, its head, and the body of its arm for a frame.
type Dispatch = (&'static str, &'static str, fn(&str) -> String);

fn new_array(elem_ty: &str, n: &str) -> String {
    // `new byte[n][]` for an array of arrays: the first rank is the count.
    match elem_ty.find('[') {
        Some(at) => format!("new {}[{n}]{}", &elem_ty[..at], &elem_ty[at..]),
        None => format!("new {elem_ty}[{n}]"),
    }
}

/// The size in bytes of `value` as a varint.
fn varint_len(value: i128) -> u64 {
    let mut v = value as u64;
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}
