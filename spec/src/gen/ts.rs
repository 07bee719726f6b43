//! The TypeScript backend: a module `protocol.ts` for the layouts, and beside it, in `runtime/`,
//! the runtime it imports (ES2020: `bigint`, `DataView`; no dependencies), for node and for
//! browsers.
//!
//! The runtime is the package `@ackwire/runtime` in `typescript` (checked `Reader` and
//! `Writer`, bit streams, varints, the shared error taxonomy, the JSON form of
//! `conformance/PROTOCOL.md`), TypeScript source with its own tests, written out as it is with a
//! line saying where it comes from ([`RUNTIME_FILES`]). `protocol.ts` imports what it calls from
//! `./runtime/index.js`: a relative specifier with its extension resolves the same in node and in
//! a browser's ES modules, with no bundler, import map or installed package. It also exports the
//! whole runtime (`export * from`), so that users import everything from the one module. Where
//! the runtime is installed from npm instead ([`RuntimeSource::Package`]), `protocol.ts` is
//! written alone and imports [`RUNTIME_PACKAGE`] by name.
//!
//! What `protocol.ts` prints, after a header line and that import:
//! - a constant: `export const NAME = value;` (`max_offset` derived from the layout);
//! - a bit set: its type, the list of the names of its set bits (`readonly AckedFlagsBit[]`), and
//!   under the same name its layout (`BitSet`: width, named bits, the guard its reader tests
//!   first, `requires`);
//! - a record: an interface of its value fields in snake_case, as in the JSON form (constants and
//!   counts are derived, not stored; conditional fields are optional, `?: T | undefined`: a
//!   decoded value has every field, an absent one `undefined`, so that all values of a record
//!   share one shape, and an encoder takes `undefined` as absent; 64-bit integers are `bigint`,
//!   bytes `Uint8Array`, a `quat(B)` the runtime's `SmallestThree` (its integers: LANGUAGE.md's
//!   canonical rules are checked on them by `b.quat(B)` and `w.quat(B, v)`), a `bucket(...)` or
//!   `zbucket(...)` a number, or a `bigint` when its model integer is 64 bits), `readX`,
//!   `writeX` and `encodedLenX` (for a packed record the bit-stream forms and `bitLenX`; within
//!   a list ascending by a key they take the running key `prev`), and `XJson`, its fields in the
//!   JSON form;
//! - a union: a discriminated union of `{ kind, value }`, with the same functions;
//! - a frame: also `decodeX` and `encodeX`; then `Frames`, `FRAME_NAMES` and the functions that
//!   take a frame by name (`decodeFrame`, `encodeFrame`, `frameToJson`, `frameFromJson`).
//!
//! The backend is a printer over the lowering ([`crate::lower`]): [`generate`] lowers the spec
//! once, and every reader, writer and length function walks its record's plan, printing each
//! step's reads, writes and checks as the plan resolved them (roles, wire forms, presence,
//! sizes). The order of the checks is the lowering's, the same in every language, so that every
//! input gives the same value as in the other languages, or an error of the same kind at the
//! same offset and field path.
//!
//! A field path is kept as a stack in the reader or writer: a record enters a level and names
//! each field before it reads or writes it, a list pushes its elements' indices, so that an
//! error is raised with the path the Rust codec builds as it travels up through `map_err`.

use super::{file_banner, snake_case, source_names, storage, Code, RuntimeSource};

#[path = "ts_coded.rs"]
mod coded;
use crate::lower::{
    ArrayPlan, Ascending, BucketPlan, CountFrom, Lowering, NamedBit, Operand, RecordPlan, Role,
    Step, Test, Wire,
};
use crate::model::{BitKind, Bits, Const, Docs, File, Item, Record, RecordKind, Spec, Union};
use std::collections::BTreeSet;

/// The generated files, as (path relative to the output folder, contents): `protocol.ts`, then
/// the runtime it imports, `runtime/index.ts` and the files beside it.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    generate_with(spec, RuntimeSource::Copy)
}

/// The generated files, with the runtime taken from `runtime`: for
/// [`RuntimeSource::Package`], `protocol.ts` alone, importing the npm package
/// [`RUNTIME_PACKAGE`] by name.
pub fn generate_with(spec: &Spec, runtime: RuntimeSource) -> Vec<(String, String)> {
    // Every construct of the language prints (issue 19's `quat(B)`, bucket codes and packed
    // ascending lists included): the `Result` is the shape the printers share, never an `Err`.
    let low = Lowering::new(spec);
    let mut g = Gen {
        low: &low,
        out: Code::with_unit(INDENT),
    };
    let sources = source_names(spec);
    for file in &spec.files {
        g.file_header(file);
        for item in &file.items {
            if matches!(item, Item::State(_) | Item::Schema(_)) {
                continue;
            }
            g.out.blank();
            match item {
                Item::Const(c) => g.constant(c),
                Item::Bits(b) => g.bits(b),
                Item::Record(r) => g.record(r),
                Item::Union(u) => g.union(u),
                Item::State(_) | Item::Schema(_) => {}
            }
        }
    }
    let states = crate::state::plans(spec);
    for plan in &states {
        g.coded_frame(plan);
    }
    g.coded_frames_by_name(&states);
    g.out.blank();
    g.dispatch();

    let body = g.out.finish();
    let mut module = Code::with_unit(INDENT);
    module.line(format!(
        "// @generated by ackwire-spec from {}. Do not edit: change the layout files.",
        sources.join(", ")
    ));
    module.line("//");
    let (specifier, about) = match runtime {
        RuntimeSource::Copy => (
            RUNTIME_IMPORT,
            [
                "// The codec of these layouts (ES2020, no dependencies), for node and for browsers. It",
                "// imports its runtime from ./runtime/index.js, which the same command writes beside it, and",
            ],
        ),
        RuntimeSource::Package => (
            RUNTIME_PACKAGE,
            [
                "// The codec of these layouts (ES2020), for node and for browsers. It imports its runtime from",
                "// the npm package @ackwire/runtime, a dependency of the project it is generated into, and",
            ],
        ),
    };
    for line in about.into_iter().chain([
        "// exports it too. Decoders accept exactly the bytes their encoders write, and refuse anything",
        "// else with a DecodeError naming its kind, byte offset and field path.",
    ]) {
        module.line(line);
    }
    module.blank();
    let import = runtime_import(&body, specifier);
    if !import.is_empty() {
        module.line(import);
    }
    module.line(format!("export * from \"{specifier}\";"));
    module.blank();
    let mut text = module.finish();
    text.push_str(body.trim_start_matches('\n'));

    let mut files = vec![("protocol.ts".to_string(), text)];
    // Beside it, the acked binding of every state the spec declares.
    files.extend(super::ts_state::generate(spec, runtime));
    // And the binding of every machine schema.
    files.extend(super::ts_machines::generate(spec, runtime));
    if runtime == RuntimeSource::Copy {
        for (name, text) in RUNTIME_FILES {
            files.push((format!("{RUNTIME_DIR}/{name}"), runtime_copy(name, text)));
        }
    }
    files
}

/// One level of TypeScript's indentation: two spaces, as prettier writes it.
const INDENT: &str = "  ";

/// Words a local variable cannot be called in TypeScript (strict mode).
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// Names the generated functions use for their own locals and parameters.
const LOCALS: &[&str] = &[
    "r", "w", "b", "v", "n", "x", "d", "e", "at", "prev", "bytes", "field",
];

/// The local variable a reader reads field `name` into: the name, with `_` after it when it is
/// a word of the language, a name the generated functions use, or a name of the runtime (which
/// the local would hide).
fn local(name: &str) -> String {
    if RESERVED.contains(&name)
        || LOCALS.contains(&name)
        || runtime_exports().iter().any(|e| e.name == name)
    {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Whether a bit set of `width` bits is a `bigint`: `&` and `|` of numbers work on 32 bits.
fn wide_bits(width: u8) -> bool {
    width > 32
}

/// Integers wider than this are `bigint`: a JavaScript number holds 53 bits exactly.
fn big(bits: u8) -> bool {
    bits > 53
}

/// Whether values of `wire` are `bigint`.
fn is_big(wire: &Wire<'_>) -> bool {
    match wire {
        Wire::Int { bits, .. } | Wire::Varint { bits } | Wire::Zigzag { bits } => big(*bits),
        Wire::Bucket(b) => big(b.model_bits),
        Wire::Ranged { int, .. } => is_big(int),
        _ => false,
    }
}

/// A ranged integer's bound as a literal of its model type: `100`, or `100n` for a `bigint`.
fn bound(v: i64, big: bool) -> String {
    if big {
        format!("{v}n")
    } else {
        v.to_string()
    }
}

/// A bucket code's widths as the runtime takes them: `[0, 4, 8]`.
fn widths(b: &BucketPlan<'_>) -> String {
    let list: Vec<String> = b.widths.iter().map(u8::to_string).collect();
    format!("[{}]", list.join(", "))
}

/// The name of the bit reader's and writer's method of a bucket code: `bucket`, `zbucket`, and
/// their `bigint` forms for a 64-bit model.
fn bucket_method(b: &BucketPlan<'_>) -> &'static str {
    match (b.signed, big(b.model_bits)) {
        (false, false) => "bucket",
        (false, true) => "bigBucket",
        (true, false) => "zbucket",
        (true, true) => "bigZbucket",
    }
}

/// The bits of the code of `val` (a number or a bigint as `b`'s model is) in `b`'s buckets.
fn bucket_len(b: &BucketPlan<'_>, val: &str) -> String {
    let w = widths(b);
    match (b.signed, big(b.model_bits)) {
        (false, false) => format!("bucketLen({w}, {val})"),
        (false, true) => format!("bigBucketLen({w}, {val})"),
        (true, false) => format!("bucketLen({w}, zigzag({val}))"),
        (true, true) => format!("bigBucketLen({w}, bigZigzag({val}))"),
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

/// The JSON type of an integer of at most 53 bits: the range of the type Rust holds it in.
fn int_json(signed: bool, bits: u8) -> &'static str {
    if signed {
        storage(bits, ["i8", "i16", "i32", "int"])
    } else {
        storage(bits, ["u8", "u16", "u32", "uint"])
    }
}

/// "a" or "an", before `name` in a doc comment.
fn article(name: &str) -> &'static str {
    if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

/// An integer literal, with `n` when the value is a `bigint`.
fn literal(v: i128, big: bool) -> String {
    if big {
        format!("{v}n")
    } else {
        v.to_string()
    }
}

/// A quantization scale as a factor: `(360 / 65536)`, computed once as a double as in Rust.
fn scale(num: u64, den: u64) -> String {
    if den == 1 {
        num.to_string()
    } else {
        format!("({num} / {den})")
    }
}

/// The scale as an argument, where it needs no parentheses.
fn scale_arg(num: u64, den: u64) -> String {
    if den == 1 {
        num.to_string()
    } else {
        format!("{num} / {den}")
    }
}

/// `, true` when a fixed-width number is big endian: the last argument of a read or write.
fn be_arg(big_endian: bool) -> &'static str {
    if big_endian {
        ", true"
    } else {
        ""
    }
}

/// A TSDoc comment of `lines`.
fn tsdoc(lines: &[String]) -> String {
    let escape = |l: &str| l.replace("*/", "*\\/");
    match lines {
        [one] => format!("/** {} */", escape(one)),
        _ => {
            let mut out = vec!["/**".to_string()];
            for l in lines {
                if l.is_empty() {
                    out.push(" *".to_string());
                } else {
                    out.push(format!(" * {}", escape(l)));
                }
            }
            out.push(" */".to_string());
            out.join("\n")
        }
    }
}

/// A function that takes one argument more than `f`'s first: `(w, x) => body`.
fn arrow(params: &str, statements: &[String]) -> String {
    match statements {
        [one] => format!("({params}) => {}", one.trim_end_matches(';')),
        _ => format!("({params}) => {{ {} }}", statements.join(" ")),
    }
}

/// The width generated lines keep within, where a statement can be broken.
const WIDTH: usize = 100;

/// A statement ending in a call, at `indent` levels: as it is when it fits [`WIDTH`], else with
/// the call's arguments one a line.
pub(crate) fn wrap_call(line: &str, indent: usize) -> String {
    if indent * 2 + line.len() <= WIDTH {
        return line.to_string();
    }
    let (body, tail) = match line.strip_suffix(';') {
        Some(body) => (body, ";"),
        None => (line, ""),
    };
    let Some(open) = matching_open(body) else {
        return line.to_string();
    };
    let args = split_args(&body[open + 1..body.len() - 1]);
    if args.len() < 2 {
        return line.to_string();
    }
    let mut out = format!("{}(\n", &body[..open]);
    for arg in args {
        out.push_str(&format!("  {arg},\n"));
    }
    out.push_str(&format!("){tail}"));
    out
}

/// The offset of the `(` that matches the `)` ending `text`, if `text` ends with one.
fn matching_open(text: &str) -> Option<usize> {
    if !text.ends_with(')') {
        return None;
    }
    let mut stack = Vec::new();
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '`') => quote = Some(c),
            (None, '(') => stack.push(i),
            (None, ')') => {
                let open = stack.pop()?;
                if i == text.len() - 1 {
                    return Some(open);
                }
            }
            _ => {}
        }
    }
    None
}

/// The arguments of a call, split at its top-level commas.
fn split_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut quote = None;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                args.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(text[start..].trim().to_string());
    args
}

struct Gen<'a, 's> {
    low: &'a Lowering<'s>,
    out: Code,
}

impl<'a, 's> Gen<'a, 's> {
    /// Statements, one a line (or several separated by `\n`), each broken at its call's
    /// arguments when too long.
    fn stmt(&mut self, text: &str) {
        for line in text.split('\n') {
            let wrapped = wrap_call(line, self.out.indent);
            self.out.line(wrapped);
        }
    }

    /// Opens a function at its signature `line` (`export function f(a, b): T {`): as it is
    /// when it fits [`WIDTH`], else with its parameters one a line, as prettier breaks them.
    fn open_fn(&mut self, line: String) {
        let (Some(open), Some(close)) = (line.find('('), line.rfind(')')) else {
            self.out.open(line);
            return;
        };
        if self.out.column() + line.len() <= WIDTH || close < open {
            self.out.open(line);
            return;
        }
        self.out.line(&line[..=open]);
        self.out.indent += 1;
        for param in split_args(&line[open + 1..close]) {
            self.out.line(format!("{param},"));
        }
        self.out.indent -= 1;
        self.out.open(&line[close..]);
    }

    fn docs(&mut self, docs: &Docs, fallback: &str) {
        let lines = if docs.doc.is_empty() {
            vec![fallback.to_string()]
        } else {
            docs.doc.clone()
        };
        self.out.line(tsdoc(&lines));
    }

    fn file_header(&mut self, file: &File) {
        file_banner(&mut self.out, file, true);
    }

    /// The running key of a list of `record` ascending by `key`, made for the key step of the
    /// record's keyed plan.
    fn key_prev(&self, record: &Record, key: &str) -> String {
        let wire = self
            .low
            .plan(&record.name, Some(key))
            .and_then(|p| p.step(key))
            .map(|s| &s.wire);
        match wire {
            Some(wire) => Self::running_key(wire),
            None => Self::running_key_of(64, None),
        }
    }

    /// The running value of a list ascending by values of `wire` (or by keys of it): its width,
    /// and a bucket code's largest value, past which a sum is over its width.
    fn running_key(wire: &Wire<'_>) -> String {
        match wire {
            Wire::Int { bits, .. } | Wire::Varint { bits } => Self::running_key_of(*bits, None),
            Wire::Bucket(b) => Self::running_key_of(b.model_bits, Some(b.max_value)),
            _ => Self::running_key_of(64, None),
        }
    }

    /// `new Ascending(bits)` or `new BigAscending(bits)`, with `max` after the width when the
    /// largest value is not the width's.
    fn running_key_of(bits: u8, max: Option<i128>) -> String {
        let class = if big(bits) {
            "BigAscending"
        } else {
            "Ascending"
        };
        match max {
            Some(m) => format!("new {class}({bits}, {})", literal(m, big(bits))),
            None => format!("new {class}({bits})"),
        }
    }

    // WIRE-27: every named constant, with the value every generator derives alike.
    fn constant(&mut self, c: &Const) {
        self.docs(&c.docs, &format!("The protocol constant `{}`.", c.name));
        let value = self.low.index.const_value(c).unwrap_or_default();
        self.out.line(format!(
            "export const {} = {};",
            c.name,
            literal(value, big(c.ty.bits))
        ));
    }

    // ---- bit sets ----

    fn bits(&mut self, b: &'s Bits) {
        let plan = self.low.bits_plan(b);
        let name = &b.name;
        let wide = wide_bits(b.width);
        let value = |index: u8| {
            let v = 1u64 << index;
            if wide {
                format!("0x{v:x}n")
            } else {
                format!("0x{v:x}")
            }
        };
        self.docs(&b.docs, &format!("The bit set `{name}`."));
        self.out.line(format!(
            "export type {name} = {};",
            if wide { "bigint" } else { "number" }
        ));
        self.out.blank();
        // The docs of the named bits, which the plan lists in the same order.
        let docs = b.bits.iter().filter_map(|bit| match bit.kind {
            BitKind::Named { .. } => Some(&bit.docs),
            BitKind::Reserved { .. } => None,
        });
        let named: Vec<(&NamedBit<'_>, &Docs)> = plan.named.iter().zip(docs).collect();
        // Every bit another requires, with the bits that require it, in declaration order.
        let mut required: Vec<(&str, Vec<String>)> = Vec::new();
        for n in &plan.named {
            if let Some((req, _)) = n.requires {
                let by = format!("{name}.{}", n.name);
                match required.iter_mut().find(|(other, _)| *other == req) {
                    Some((_, bits)) => bits.push(by),
                    None => required.push((req, vec![by])),
                }
            }
        }
        let requires: Vec<String> = required
            .iter()
            .map(|(other, bits)| format!("[{}, {name}.{other}]", bits.join(" | ")))
            .collect();
        self.out.line(tsdoc(&[
            format!("The bits of {{@link {name}}}, each as its value: a set is their `|`, and"),
            format!(
                "`(set & {name}.X) !== {}` tests one.",
                if wide { "0n" } else { "0" }
            ),
        ]));
        if named.is_empty() {
            self.out
                .line(format!("export const {name} = {{}} as const;"));
        } else {
            self.out.open(format!("export const {name} = {{"));
            for (n, docs) in &named {
                self.docs(docs, &format!("Bit {}.", n.index));
                self.out.line(format!("{}: {},", n.name, value(n.index)));
            }
            self.out.close("} as const;");
        }
        self.out.blank();
        self.out.line(format!(
            "/** The layout of {{@link {name}}}: {} bits; a bit not named is reserved. */",
            b.width
        ));
        self.out
            .open(format!("export const {name}Layout: BitSet<{name}> = {{"));
        self.out.line(format!("width: {},", b.width));
        if named.is_empty() {
            self.out.line("names: [],");
        } else {
            self.out.open("names: [");
            for (n, _) in &named {
                self.out
                    .line(format!("[\"{}\", {name}.{}],", n.name, n.name));
            }
            self.out.close("],");
        }
        let n = if wide { "n" } else { "" };
        self.out.line(format!("known: 0x{:x}{n},", plan.known));
        // What a reader tests a value against first: the reserved bits and the bits that
        // require another; a value with none of them set needs no other check.
        let dependent = plan
            .named
            .iter()
            .filter(|b| b.requires.is_some() && b.index < 64)
            .fold(0u64, |m, b| m | 1 << b.index);
        self.out
            .line(format!("guard: 0x{:x}{n},", plan.reserved | dependent));
        let line = format!("requires: [{}],", requires.join(", "));
        if 2 + line.len() <= WIDTH {
            self.out.line(line);
        } else {
            self.out.open("requires: [");
            for r in &requires {
                self.out.line(format!("{r},"));
            }
            self.out.close("],");
        }
        if self.low.bits_big_endian(b) {
            self.out.line("bigEndian: true,");
        }
        self.out.close("};");
    }

    // ---- types ----

    /// The TypeScript type of values of `wire`.
    fn ts_type(wire: &Wire<'_>) -> String {
        match wire {
            Wire::Int { bits, .. } | Wire::Varint { bits } | Wire::Zigzag { bits } => {
                if big(*bits) { "bigint" } else { "number" }.into()
            }
            Wire::Bucket(b) => if big(b.model_bits) {
                "bigint"
            } else {
                "number"
            }
            .into(),
            Wire::Quat { .. } => "SmallestThree".into(),
            Wire::Ranged { int, .. } => Self::ts_type(int),
            Wire::Float { .. } | Wire::Quant { .. } => "number".into(),
            Wire::Bool { .. } => "boolean".into(),
            Wire::Bytes => "Uint8Array".into(),
            Wire::OptBytes => "Uint8Array | null".into(),
            Wire::Bits(b) => b.name.clone(),
            Wire::Record { record, .. } => record.name.clone(),
            Wire::Union(u) => u.name.clone(),
            Wire::Unknown(name) => name.clone(),
            Wire::Array(a) => {
                let elem = Self::ts_type(&a.elem);
                if elem.contains(' ') {
                    format!("({elem})[]")
                } else {
                    format!("{elem}[]")
                }
            }
        }
    }

    /// How a value of `wire` is written in the JSON form (the runtime's `JsonType`).
    fn json_type(wire: &Wire<'_>) -> String {
        match wire {
            Wire::Int { signed, bits, .. } if big(*bits) => {
                if *signed { "\"i64\"" } else { "\"u64\"" }.into()
            }
            Wire::Varint { bits } if big(*bits) => "\"u64\"".into(),
            Wire::Zigzag { bits } if big(*bits) => "\"i64\"".into(),
            Wire::Int { signed, bits, .. } => format!("\"{}\"", int_json(*signed, *bits)),
            Wire::Varint { bits } => format!("\"{}\"", int_json(false, *bits)),
            Wire::Zigzag { bits } => format!("\"{}\"", int_json(true, *bits)),
            // The JSON range is the model integer's (u8 ... u64), as the Rust codec reads it.
            Wire::Bucket(b) if big(b.model_bits) => {
                if b.signed { "\"i64\"" } else { "\"u64\"" }.into()
            }
            Wire::Bucket(b) => format!("\"{}\"", int_json(b.signed, b.model_bits)),
            Wire::Quat { .. } => "\"quat\"".into(),
            Wire::Ranged { int, .. } => Self::json_type(int),
            Wire::Float { bits: 32, .. } => "\"f32\"".into(),
            Wire::Float { .. } | Wire::Quant { .. } => "\"float\"".into(),
            Wire::Bool { .. } => "\"bool\"".into(),
            Wire::Bytes => "\"bytes\"".into(),
            Wire::OptBytes => "\"opt_bytes\"".into(),
            Wire::Bits(b) => format!("{{ bits: () => {}Layout }}", b.name),
            Wire::Union(u) => format!("{{ union: () => {}Json }}", u.name),
            Wire::Record { record, .. } => format!("{{ record: () => {}Json }}", record.name),
            Wire::Unknown(name) => format!("{{ record: () => {name}Json }}"),
            Wire::Array(a) => format!("{{ list: {} }}", Self::json_type(&a.elem)),
        }
    }

    // ---- decoding ----

    /// An expression reading `wire`, met in a packed record (`packed`) or a byte-aligned one;
    /// `src` is the reader its first read goes through (`r` or `b`).
    fn decode(&self, wire: &Wire<'_>, packed: bool, src: &str) -> String {
        match wire {
            // WIRE-29: refused outside its range, at its first byte (bit).
            Wire::Ranged {
                int,
                min,
                max,
                packed: Some(width),
            } => {
                let big = is_big(int);
                format!(
                    "{src}.{}({width}, {}, {})",
                    if big { "bigRanged" } else { "ranged" },
                    bound(*min, big),
                    bound(*max, big)
                )
            }
            Wire::Ranged { int, min, max, .. } => {
                let big = is_big(int);
                format!(
                    "{src}.ranged({}, {}, (r) => {})",
                    bound(*min, big),
                    bound(*max, big),
                    self.decode(int, packed, "r")
                )
            }
            Wire::Int { signed, bits, .. } if packed => {
                let method = match (signed, big(*bits)) {
                    (false, false) => "uint",
                    (false, true) => "bigUint",
                    (true, false) => "int",
                    (true, true) => "bigInt",
                };
                format!("{src}.{method}({bits})")
            }
            Wire::Int {
                signed,
                bits,
                big_endian: be,
            } => match (signed, bits) {
                (false, 64) => format!("{src}.u64({})", if *be { "true" } else { "" }),
                (true, 64) => format!("{src}.i64({})", if *be { "true" } else { "" }),
                (signed, bits) => format!(
                    "{src}.{}{bits}({})",
                    if *signed { "i" } else { "u" },
                    if *be && *bits > 8 { "true" } else { "" }
                ),
            },
            Wire::Float { bits, big_endian } => {
                if packed || !big_endian {
                    format!("{src}.f{bits}()")
                } else {
                    format!("{src}.f{bits}(true)")
                }
            }
            Wire::Bool { .. } => format!("{src}.bool()"),
            Wire::Varint { bits } => {
                format!(
                    "{src}.{}({bits})",
                    if big(*bits) { "bigVarint" } else { "varint" }
                )
            }
            Wire::Zigzag { bits } => {
                format!(
                    "{src}.{}({bits})",
                    if big(*bits) { "bigZigzag" } else { "zigzag" }
                )
            }
            Wire::Bytes => format!("{src}.bytes()"),
            Wire::OptBytes => format!("{src}.optBytes()"),
            Wire::Quat { bits } => format!("{src}.quat({bits})"),
            Wire::Bucket(b) => format!("{src}.{}({})", bucket_method(b), widths(b)),
            Wire::Quant { wire, num, den, .. } => {
                let inner = self.decode(wire, packed, src);
                if is_big(wire) {
                    format!("Number({inner}) * {}", scale(*num, *den))
                } else {
                    format!("{inner} * {}", scale(*num, *den))
                }
            }
            Wire::Bits(b) => format!("{src}.bits({}Layout)", b.name),
            Wire::Record {
                record,
                padded: true,
            } => format!("{src}.packed(read{})", record.name),
            Wire::Record { record, .. } => format!("read{}({src})", record.name),
            Wire::Union(u) => format!("read{}({src})", u.name),
            Wire::Unknown(name) => format!("read{name}({src})"),
            Wire::Array(a) => self.decode_array(a, packed, src),
        }
    }

    /// A function reading one element `elem` from `r` (or `b`).
    fn elem_reader(&self, elem: &Wire<'_>, packed: bool) -> String {
        match elem {
            Wire::Record {
                record,
                padded: true,
            } => format!("(r) => r.packed(read{})", record.name),
            Wire::Record { record, .. } => format!("read{}", record.name),
            Wire::Union(u) => format!("read{}", u.name),
            _ => {
                let s = if packed { "b" } else { "r" };
                format!("({s}) => {}", self.decode(elem, packed, s))
            }
        }
    }

    /// A list read: its count (a count field's local, or read before the elements), the
    /// least size of an element it is checked against, and the reader of an element.
    fn decode_array(&self, a: &ArrayPlan<'_>, packed: bool, src: &str) -> String {
        let s = if packed { "b" } else { "r" };
        let elem = match (a.ascending, &a.elem) {
            (Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                format!("keyed({}, read{})", self.key_prev(record, key), record.name)
            }
            (Some(_), elem) => {
                // In a packed record, a list of `uN` or `bucket(...)` values (LANGUAGE.md): a
                // bucket's sum is bounded by its largest value, not its model integer's.
                let (bits, raw, max) = match elem {
                    Wire::Varint { bits } => (*bits, self.decode(elem, false, "r"), None),
                    // The difference from the previous element is read unsigned.
                    Wire::Int {
                        bits, big_endian, ..
                    } => (
                        *bits,
                        self.decode(
                            &Wire::Int {
                                signed: false,
                                bits: *bits,
                                big_endian: *big_endian,
                            },
                            packed,
                            s,
                        ),
                        None,
                    ),
                    Wire::Bucket(b) => (
                        b.model_bits,
                        self.decode(elem, packed, s),
                        Some(b.max_value),
                    ),
                    _ => (64, "r.bigVarint(64)".to_string(), None),
                };
                let f = if big(bits) {
                    "bigAscending"
                } else {
                    "ascending"
                };
                let max = max.map_or(String::new(), |m| format!(", {}", literal(m, big(bits))));
                format!("{f}({bits}, ({s}) => {raw}{max})")
            }
            (None, elem) => self.elem_reader(elem, packed),
        };
        let count = match &a.count {
            CountFrom::Field(name) => local(name),
            // A count read as a number: beyond 2^53 it is approximate, and too large anyway.
            CountFrom::Prefix(Wire::Varint { bits }) => format!("{s}.varint({bits})"),
            CountFrom::Prefix(t) => self.decode(t, packed, s),
        };
        format!("readList({src}, {count}, {}, {elem})", a.elem_min)
    }

    // ---- conditions ----

    /// The expression of an operand of a presence test, and whether it is a `bigint`: in a
    /// decoder, the local the field was read into (`flags`); in an encoder, the value's field
    /// (`v.flags`) or, for a count, its list's length.
    fn operand(plan: &RecordPlan<'_>, operand: &Operand<'_>, encode: bool) -> (String, bool) {
        let big = plan.step(operand.name()).is_some_and(|s| is_big(&s.wire));
        match operand {
            Operand::Constant { value, .. } => (
                format!(
                    "({} as {})",
                    literal(*value, big),
                    if big { "bigint" } else { "number" }
                ),
                big,
            ),
            Operand::Count { array, .. } if encode => (format!("v.{array}.length"), false),
            Operand::Count { field, .. } => (local(&field.name), big),
            Operand::Value { field } if encode => (format!("v.{}", field.name), big),
            Operand::Value { field } => (local(&field.name), big),
            Operand::Unknown(name) if encode => (format!("v.{name}"), false),
            Operand::Unknown(name) => (local(name), false),
        }
    }

    /// One test of a presence condition: `(v.mask & ChangeMask.POSE) !== 0`, `v.flag`,
    /// `count > 2`.
    fn test(plan: &RecordPlan<'_>, test: &Test<'_>, encode: bool) -> String {
        let (operand, big) = Self::operand(plan, test.operand(), encode);
        match test {
            Test::Bit {
                bits, bit, negated, ..
            } => {
                let (set, zero) = match bits {
                    Some(b) => (b.name.as_str(), if wide_bits(b.width) { "0n" } else { "0" }),
                    None => ("", "0"),
                };
                format!(
                    "({operand} & {set}.{bit}) {} {zero}",
                    if *negated { "===" } else { "!==" }
                )
            }
            Test::Bool { negated, .. } => format!("{}{operand}", if *negated { "!" } else { "" }),
            Test::NonZero { negated, .. } => format!(
                "{operand} {} {}",
                if *negated { "===" } else { "!==" },
                literal(0, big)
            ),
            Test::Greater { value, .. } => {
                format!("{operand} > {}", literal(i128::from(*value), big))
            }
        }
    }

    /// When `step` is present: every test of its presence, or `None` when always.
    fn presence(plan: &RecordPlan<'_>, step: &Step<'_>, encode: bool) -> Option<String> {
        let presence = step.presence.as_ref()?;
        let tests: Vec<String> = presence
            .tests
            .iter()
            .map(|t| Self::test(plan, t, encode))
            .collect();
        Some(tests.join(" && "))
    }

    // ---- encoding ----

    /// Statements writing `val` of `wire`; `dst` is the writer the first write goes through.
    fn encode(&self, wire: &Wire<'_>, packed: bool, dst: &str, val: &str) -> Vec<String> {
        let one = |s: String| vec![format!("{s};")];
        match wire {
            // WIRE-29: a value outside the range is refused before anything is written.
            Wire::Ranged {
                int,
                min,
                max,
                packed: Some(width),
            } => {
                let big = is_big(int);
                one(format!(
                    "{dst}.{}({width}, {}, {}, {val})",
                    if big { "bigRanged" } else { "ranged" },
                    bound(*min, big),
                    bound(*max, big)
                ))
            }
            Wire::Ranged { int, min, max, .. } => {
                let big = is_big(int);
                let mut lines = one(format!(
                    "{dst}.inRange({val}, {}, {})",
                    bound(*min, big),
                    bound(*max, big)
                ));
                lines.extend(self.encode(int, packed, dst, val));
                lines
            }
            Wire::Int { signed, bits, .. } if packed => {
                let method = match (signed, big(*bits)) {
                    (false, false) => "uint",
                    (false, true) => "bigUint",
                    (true, false) => "int",
                    (true, true) => "bigInt",
                };
                one(format!("{dst}.{method}({bits}, {val})"))
            }
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => {
                let be = be_arg(*big_endian && *bits > 8);
                match (signed, bits) {
                    (false, 64) => one(format!("{dst}.u64({val}{be})")),
                    (true, 64) => one(format!("{dst}.i64({val}{be})")),
                    (signed, bits) => one(format!(
                        "{dst}.{}{bits}({val}{be})",
                        if *signed { "i" } else { "u" }
                    )),
                }
            }
            Wire::Float { bits, big_endian } => {
                let be = if packed { "" } else { be_arg(*big_endian) };
                one(format!("{dst}.f{bits}({val}{be})"))
            }
            Wire::Bool { .. } => one(format!("{dst}.bool({val})")),
            Wire::Varint { bits } => one(format!(
                "{dst}.{}({bits}, {val})",
                if big(*bits) { "bigVarint" } else { "varint" }
            )),
            Wire::Zigzag { bits } => one(format!(
                "{dst}.{}({bits}, {val})",
                if big(*bits) { "bigZigzag" } else { "zigzag" }
            )),
            Wire::Bytes => one(format!("{dst}.bytes({val})")),
            Wire::OptBytes => one(format!("{dst}.optBytes({val})")),
            Wire::Quat { bits } => one(format!("{dst}.quat({bits}, {val})")),
            Wire::Bucket(b) => one(format!("{dst}.{}({}, {val})", bucket_method(b), widths(b))),
            Wire::Quant {
                wire,
                num,
                den,
                signed,
                bits,
                min,
                max,
            } => {
                let s = scale_arg(*num, *den);
                let q = match (signed, big(*bits)) {
                    (true, false) => format!("w.quantizeInt({val}, {s}, {min}, {max})"),
                    (false, false) => format!("w.quantizeUint({val}, {s}, {max})"),
                    (true, true) => format!("w.quantizeBigInt({val}, {s}, {min}n, {max}n)"),
                    (false, true) => format!("w.quantizeBigUint({val}, {s}, {max}n)"),
                };
                self.encode(wire, packed, dst, &q)
            }
            Wire::Bits(b) => one(format!("{dst}.bits({}Layout, {val})", b.name)),
            Wire::Record {
                record,
                padded: true,
            } => one(format!("{dst}.packed(write{}, {val})", record.name)),
            Wire::Record { record, .. } => one(format!("write{}({dst}, {val})", record.name)),
            Wire::Union(u) => one(format!("write{}({dst}, {val})", u.name)),
            Wire::Unknown(name) => one(format!("write{name}({dst}, {val})")),
            Wire::Array(a) => self.encode_array(a, packed, dst, val),
        }
    }

    /// A function writing one element `elem`.
    fn elem_writer(&self, elem: &Wire<'_>, packed: bool) -> String {
        match elem {
            Wire::Record {
                record,
                padded: true,
            } => format!("(w, x) => w.packed(write{}, x)", record.name),
            Wire::Record { record, .. } => format!("write{}", record.name),
            Wire::Union(u) => format!("write{}", u.name),
            _ => arrow("w, x", &self.encode(elem, packed, "w", "x")),
        }
    }

    /// Statements writing a count of `wire`: the length `len` of a list.
    fn encode_count(&self, wire: &Wire<'_>, packed: bool, dst: &str, len: &str) -> Vec<String> {
        match wire {
            // A length is a number; the varint writer takes one of any width.
            Wire::Varint { bits } => vec![format!("{dst}.varint({bits}, {len});")],
            wire if is_big(wire) => self.encode(wire, packed, dst, &format!("BigInt({len})")),
            wire => self.encode(wire, packed, dst, len),
        }
    }

    fn encode_array(&self, a: &ArrayPlan<'_>, packed: bool, dst: &str, val: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let mut dst = dst.to_string();
        if let CountFrom::Prefix(t) = &a.count {
            lines.extend(self.encode_count(t, packed, &dst, &format!("{val}.length")));
            dst = "w".to_string();
        }
        let elem = match (a.ascending, &a.elem) {
            (Some(Ascending::Key(key)), Wire::Record { record, .. }) => format!(
                "keyedWriter({}, write{})",
                self.key_prev(record, key),
                record.name
            ),
            (Some(_), elem) => {
                let (bits, raw, max) = match elem {
                    Wire::Varint { bits } => (*bits, self.encode(elem, false, "w", "d"), None),
                    // The difference from the previous element is written unsigned.
                    Wire::Int {
                        bits, big_endian, ..
                    } => (
                        *bits,
                        self.encode(
                            &Wire::Int {
                                signed: false,
                                bits: *bits,
                                big_endian: *big_endian,
                            },
                            packed,
                            "w",
                            "d",
                        ),
                        // Packed (new in issue 19): the element itself is held to its width,
                        // as the decoder holds the sum.
                        packed.then(|| (1i128 << *bits) - 1),
                    ),
                    // A bucket's element is held to the bucket's largest value.
                    Wire::Bucket(b) => (
                        b.model_bits,
                        self.encode(elem, packed, "w", "d"),
                        Some(b.max_value),
                    ),
                    _ => (64, vec!["w.bigVarint(64, d);".to_string()], None),
                };
                let f = if big(bits) {
                    "bigAscendingWriter"
                } else {
                    "ascendingWriter"
                };
                match max {
                    Some(m) => format!("{f}({}, {})", arrow("w, d", &raw), literal(m, big(bits))),
                    None => format!("{f}({})", arrow("w, d", &raw)),
                }
            }
            (None, elem) => self.elem_writer(elem, packed),
        };
        lines.push(format!("writeList({dst}, {val}, {elem});"));
        lines
    }

    // ---- lengths ----

    /// An expression of the encoded size of `val` of `wire` (bytes, or bits when packed), whose
    /// size is `fixed` when the lowering found it fixed.
    fn len(&self, wire: &Wire<'_>, fixed: Option<u64>, packed: bool, val: &str) -> String {
        if let Some(n) = fixed {
            return n.to_string();
        }
        match wire {
            Wire::Varint { bits } if big(*bits) => format!("bigVarintLen({val})"),
            Wire::Varint { .. } => format!("varintLen({val})"),
            Wire::Zigzag { bits } if big(*bits) => format!("bigVarintLen(bigZigzag({val}))"),
            Wire::Zigzag { .. } => format!("varintLen(zigzag({val}))"),
            Wire::Bytes => format!("bytesLen({val})"),
            Wire::OptBytes => format!("optBytesLen({val})"),
            Wire::Quat { bits } => (2 + 3 * u64::from(*bits)).to_string(),
            Wire::Bucket(b) => bucket_len(b, val),
            Wire::Quant { wire, num, den, .. } => {
                let q = format!("quantize({val}, {})", scale_arg(*num, *den));
                match wire.as_ref() {
                    Wire::Bucket(b) if big(b.model_bits) => bucket_len(b, &format!("BigInt({q})")),
                    Wire::Bucket(b) => bucket_len(b, &q),
                    Wire::Zigzag { bits } if big(*bits) => {
                        format!("bigVarintLen(bigZigzag(BigInt({q})))")
                    }
                    Wire::Zigzag { .. } => format!("varintLen(zigzag({q}))"),
                    _ => format!("varintLen({q})"),
                }
            }
            Wire::Record {
                record,
                padded: true,
            } => format!("Math.ceil(bitLen{}({val}) / 8)", record.name),
            Wire::Bits(_) | Wire::Record { .. } | Wire::Union(_) | Wire::Unknown(_) => {
                let name = match wire {
                    Wire::Bits(b) => b.name.as_str(),
                    Wire::Record { record, .. } => record.name.as_str(),
                    Wire::Union(u) => u.name.as_str(),
                    Wire::Unknown(name) => name.as_str(),
                    _ => "",
                };
                if packed {
                    format!("bitLen{name}({val})")
                } else {
                    format!("encodedLen{name}({val})")
                }
            }
            Wire::Array(a) => {
                let mut parts = Vec::new();
                if let CountFrom::Prefix(t) = &a.count {
                    // A count is an unsigned integer of a fixed width, or a varint.
                    parts.push(match t {
                        Wire::Int { bits, .. } if packed => bits.to_string(),
                        Wire::Int { bits, .. } => (bits / 8).to_string(),
                        _ => format!("varintLen({val}.length)"),
                    });
                }
                parts.push(match (a.ascending, &a.elem, a.elem_fixed) {
                    (Some(Ascending::Key(key)), Wire::Record { record, .. }, _) => format!(
                        "sumOf({val}, keyed({}, {}{}))",
                        self.key_prev(record, key),
                        if packed { "bitLen" } else { "encodedLen" },
                        record.name
                    ),
                    (Some(_), Wire::Bucket(b), _) => format!(
                        "{}({}, {val})",
                        if big(b.model_bits) {
                            "bigAscendingBucketsLen"
                        } else {
                            "ascendingBucketsLen"
                        },
                        widths(b)
                    ),
                    (Some(_), Wire::Varint { bits }, _) if big(*bits) => {
                        format!("bigAscendingVarintsLen({val})")
                    }
                    (Some(_), Wire::Varint { .. }, _) => format!("ascendingVarintsLen({val})"),
                    (_, _, Some(n)) => format!("{val}.length * {n}"),
                    (_, elem, None) => {
                        let each = self.len(elem, None, packed, "x");
                        match each.strip_suffix("(x)") {
                            Some(f) if !f.contains('(') => format!("sumOf({val}, {f})"),
                            _ => format!("sumOf({val}, (x) => {each})"),
                        }
                    }
                });
                parts.join(" + ")
            }
            // Fixed-size kinds have a fixed size.
            Wire::Int { .. } | Wire::Ranged { .. } | Wire::Float { .. } | Wire::Bool { .. } => {
                "0".into()
            }
        }
    }

    // ---- records ----

    fn record(&mut self, r: &'s Record) {
        let low = self.low;
        // A record that is an element of a list ascending by a key is read and written with
        // its keyed plan (the first key, by name), any other with its own.
        let key = low.keys_of(&r.name).first().copied();
        let Some(plan) = low.plan(&r.name, key) else {
            return;
        };
        let values: Vec<&Step<'_>> = plan.values().collect();
        let kind = if r.kind == RecordKind::Frame {
            "frame"
        } else {
            "record"
        };
        self.docs(&r.docs, &format!("The {kind} `{}`.", r.name));
        if values.is_empty() {
            self.out.line(format!("export interface {} {{}}", r.name));
        } else {
            self.out.open(format!("export interface {} {{", r.name));
            for s in &values {
                let f = s.field;
                self.docs(&f.docs, &format!("The `{}` field.", f.name));
                let ty = Self::ts_type(&s.wire);
                self.out.line(if s.presence.is_some() {
                    format!("{}?: {ty} | undefined;", f.name)
                } else {
                    format!("{}: {ty};", f.name)
                });
            }
            self.out.close("}");
        }
        self.out.blank();
        self.read_fn(plan);
        self.out.blank();
        self.write_fn(plan, !values.is_empty());
        self.out.blank();
        self.len_fn(plan);
        if r.kind == RecordKind::Frame {
            self.frame_fns(plan);
        }
        self.out.blank();
        self.out.line(format!(
            "/** The fields of {{@link {}}} in the JSON form. */",
            r.name
        ));
        if values.is_empty() {
            self.out
                .line(format!("export const {}Json: RecordJson = [];", r.name));
            return;
        }
        self.out
            .open(format!("export const {}Json: RecordJson = [", r.name));
        for s in &values {
            self.out.line(format!(
                "[\"{}\", {}{}],",
                s.field.name,
                Self::json_type(&s.wire),
                if s.presence.is_some() { ", true" } else { "" }
            ));
        }
        self.out.close("];");
    }

    fn read_fn(&mut self, plan: &RecordPlan<'_>) {
        let name = &plan.record.name;
        let a = article(name);
        let packed = plan.packed;

        // A record of no fields reads nothing: its reader is `_r`, which strict compilers
        // (`noUnusedParameters`) accept unused.
        let unused = if plan.steps.is_empty() { "_" } else { "" };
        if let Some(key) = plan.key {
            let (from, src) = if packed {
                (" from a bit stream", "b: BitReader")
            } else {
                ("", "r: Reader")
            };
            self.out.line(tsdoc(&[
                format!(
                    "Reads {a} {{@link {name}}}{from}. Within a list ascending by `{key}`, `prev` \
                     holds"
                ),
                "the previous element's key, of which this one's is the difference.".to_string(),
            ]));
            self.open_fn(format!(
                "export function read{name}({src}, prev = {}): {name} {{",
                self.key_prev(plan.record, key)
            ));
        } else if packed {
            self.out.line(format!(
                "/** Reads {a} {{@link {name}}} from a bit stream. */"
            ));
            self.out.open(format!(
                "export function read{name}({unused}b: BitReader): {name} {{"
            ));
        } else {
            self.out.line(format!("/** Reads {a} {{@link {name}}}. */"));
            self.out.open(format!(
                "export function read{name}({unused}r: Reader): {name} {{"
            ));
        }
        // The fields are read into locals, and the record made at once as one object literal
        // of every field of its type, an absent one `undefined`: the engine then makes every
        // value of the record with the same shape, whichever fields it holds.
        self.open_fields(plan);
        for (i, step) in plan.steps.iter().enumerate() {
            self.name_field(plan, i);
            self.read_step(plan, step, None);
        }
        self.return_literal(plan);
        self.close_fields(plan);
        self.out.close("}");
    }

    /// The statements reading one step of `plan` into its local; a constant's value is
    /// `constant` when given (a coded frame's kind in place of its packed frame's).
    fn read_step(&mut self, plan: &RecordPlan<'_>, step: &Step<'_>, constant: Option<i128>) {
        let packed = plan.packed;
        let s = if packed { "b" } else { "r" };
        let l = local(&step.field.name);
        let read = self.decode(&step.wire, packed, s);
        match step.role {
            Role::Constant(c) => self.stmt(&format!(
                "{s}.constant({}, ({s}) => {read});",
                literal(constant.unwrap_or(c), is_big(&step.wire))
            )),
            // The difference is read where it starts, with no function made to read it.
            Role::Key => self.stmt(&format!(
                "const {l} = prev.next({s}, {s}.{}, {});",
                if packed { "bitOffset" } else { "offset" },
                self.decode(&step.wire, packed, s)
            )),
            Role::Count { .. } | Role::Value => match Self::presence(plan, step, false) {
                Some(cond) => {
                    let ty = Self::ts_type(&step.wire);
                    self.out.line(format!("let {l}: {ty} | undefined;"));
                    self.out.open(format!("if ({cond}) {{"));
                    self.stmt(&format!("{l} = {read};"));
                    self.out.close("}");
                }
                None => self.stmt(&format!("const {l} = {read};")),
            },
        }
    }

    /// `return { dx, dy, dz, yaw };`: the record of the locals its fields were read into.
    fn return_literal(&mut self, plan: &RecordPlan<'_>) {
        let members: Vec<String> = plan
            .values()
            .map(|s| {
                let l = local(&s.field.name);
                if l == s.field.name {
                    l
                } else {
                    format!("{}: {l}", s.field.name)
                }
            })
            .collect();
        let line = if members.is_empty() {
            "return {};".to_string()
        } else {
            format!("return {{ {} }};", members.join(", "))
        };
        if self.out.column() + line.len() <= WIDTH {
            self.out.line(line);
        } else {
            self.out.open("return {");
            for m in &members {
                self.out.line(format!("{m},"));
            }
            self.out.close("};");
        }
    }

    /// Opens the body of a record's reader or writer: the `try` whose `catch` puts the field
    /// being read or written in front of an error's path, and the local naming it (`field`),
    /// when there are several. Nothing when the record has no fields.
    fn open_fields(&mut self, plan: &RecordPlan<'_>) {
        if let [first, _, ..] = plan.steps.as_slice() {
            self.out
                .line(format!("let field = \"{}\";", first.field.name));
        }
        if !plan.steps.is_empty() {
            self.out.open("try {");
        }
    }

    /// Names the `i`-th step of `plan` as the one being read or written, after the first.
    fn name_field(&mut self, plan: &RecordPlan<'_>, i: usize) {
        if i > 0 {
            self.out
                .line(format!("field = \"{}\";", plan.steps[i].field.name));
        }
    }

    /// Closes what [`Gen::open_fields`] opened.
    fn close_fields(&mut self, plan: &RecordPlan<'_>) {
        let field = match plan.steps.as_slice() {
            [] => return,
            [only] => format!("\"{}\"", only.field.name),
            _ => "field".to_string(),
        };
        self.out.close("} catch (e) {");
        self.out.indent += 1;
        self.out.line(format!("throw within(e, {field});"));
        self.out.close("}");
    }

    fn write_fn(&mut self, plan: &RecordPlan<'_>, uses_value: bool) {
        let name = &plan.record.name;
        let a = article(name);
        let packed = plan.packed;
        let v = if uses_value { "v" } else { "_v" };
        let unused = if plan.steps.is_empty() { "_" } else { "" };
        if let Some(key) = plan.key {
            let (into, dst) = if packed {
                (" into a bit stream", "BitWriter")
            } else {
                ("", "Writer")
            };
            self.out.line(tsdoc(&[
                format!(
                    "Writes {a} {{@link {name}}}{into}. Within a list ascending by `{key}`, \
                     `prev` holds"
                ),
                "the previous element's key, and this one's is written as the difference."
                    .to_string(),
            ]));
            self.open_fn(format!(
                "export function write{name}(w: {dst}, {v}: {name}, prev = {}): void {{",
                self.key_prev(plan.record, key)
            ));
        } else if packed {
            self.out.line(format!(
                "/** Writes {a} {{@link {name}}} into a bit stream. */"
            ));
            self.out.open(format!(
                "export function write{name}({unused}w: BitWriter, {v}: {name}): void {{"
            ));
        } else {
            self.out
                .line(format!("/** Writes {a} {{@link {name}}}. */"));
            self.out.open(format!(
                "export function write{name}({unused}w: Writer, {v}: {name}): void {{"
            ));
        }
        self.open_fields(plan);
        for (i, step) in plan.steps.iter().enumerate() {
            self.name_field(plan, i);
            self.write_step(plan, step, None);
        }
        self.close_fields(plan);
        self.out.close("}");
    }

    /// The statements writing one step of `plan` from `v`; a constant's value is `constant`
    /// when given (a coded frame's kind in place of its packed frame's).
    fn write_step(&mut self, plan: &RecordPlan<'_>, step: &Step<'_>, constant: Option<i128>) {
        let packed = plan.packed;
        {
            let field = format!("v.{}", step.field.name);
            let lines = match step.role {
                Role::Constant(c) => self.encode(
                    &step.wire,
                    packed,
                    "w",
                    &literal(constant.unwrap_or(c), is_big(&step.wire)),
                ),
                Role::Count { array } => {
                    self.encode_count(&step.wire, packed, "w", &format!("v.{array}.length"))
                }
                Role::Key => {
                    let raw = self.encode(&step.wire, packed, "w", "d");
                    vec![format!("prev.write(w, {field}, {});", arrow("w, d", &raw))]
                }
                Role::Value => match Self::presence(plan, step, true) {
                    Some(cond) => {
                        self.stmt(&format!("w.presence({field} !== undefined, {cond});"));
                        self.out.open(format!("if ({field} !== undefined) {{"));
                        let lines = self.encode(&step.wire, packed, "w", &field);
                        self.stmt(&lines.join("\n"));
                        self.out.close("}");
                        return;
                    }
                    None => self.encode(&step.wire, packed, "w", &field),
                },
            };
            self.stmt(&lines.join("\n"));
        }
    }

    fn len_fn(&mut self, plan: &RecordPlan<'_>) {
        let name = &plan.record.name;
        let packed = plan.packed;
        let mut fixed = 0u64;
        let mut parts: Vec<String> = Vec::new();
        for step in &plan.steps {
            let field = format!("v.{}", step.field.name);
            match step.role {
                // A constant varint's size is its value's.
                Role::Constant(c) => match step.wire {
                    Wire::Varint { .. } => fixed += varint_len(c),
                    _ => fixed += step.fixed.unwrap_or(0),
                },
                Role::Count { array } => match step.fixed {
                    Some(n) => fixed += n,
                    None => parts.push(format!("n += varintLen(v.{array}.length);")),
                },
                Role::Key => match (step.fixed, &step.wire, is_big(&step.wire)) {
                    (Some(n), _, _) => {
                        fixed += n;
                        parts.push(format!("prev.step({field});"));
                    }
                    (None, Wire::Bucket(b), _) => parts.push(format!(
                        "n += {};",
                        bucket_len(b, &format!("prev.step({field})"))
                    )),
                    (None, _, true) => {
                        parts.push(format!("n += bigVarintLen(prev.step({field}));"))
                    }
                    (None, _, false) => parts.push(format!("n += varintLen(prev.step({field}));")),
                },
                Role::Value if step.presence.is_some() => {
                    let inner = self.len(&step.wire, step.fixed, packed, &field);
                    let line = format!("n += {field} !== undefined ? {inner} : 0;");
                    if 2 + line.len() <= WIDTH {
                        parts.push(line);
                    } else {
                        parts.push(format!(
                            "n +=\n  {field} !== undefined\n    ? {inner}\n    : 0;"
                        ));
                    }
                }
                Role::Value => match step.fixed {
                    Some(n) => fixed += n,
                    None => parts.push(format!(
                        "n += {};",
                        self.len(&step.wire, None, packed, &field)
                    )),
                },
            }
        }
        let v = if parts.is_empty() { "_v" } else { "v" };
        if let Some(key) = plan.key {
            let (unit, f) = if packed {
                ("bits", "bitLen")
            } else {
                ("bytes", "encodedLen")
            };
            self.out.line(format!(
                "/** The number of {unit} {{@link write{name}}} writes, moving `prev` on. */"
            ));
            self.open_fn(format!(
                "export function {f}{name}({v}: {name}, prev = {}): number {{",
                self.key_prev(plan.record, key)
            ));
        } else if packed {
            self.out.line(format!(
                "/** The number of bits {{@link write{name}}} writes. */"
            ));
            self.out.open(format!(
                "export function bitLen{name}({v}: {name}): number {{"
            ));
        } else {
            self.out.line(format!(
                "/** The number of bytes {{@link write{name}}} writes. */"
            ));
            self.out.open(format!(
                "export function encodedLen{name}({v}: {name}): number {{"
            ));
        }
        if parts.is_empty() {
            self.out.line(format!("return {fixed};"));
        } else {
            self.out.line(format!("let n = {fixed};"));
            for p in &parts {
                self.stmt(p);
            }
            self.out.line("return n;");
        }
        self.out.close("}");
    }

    fn frame_fns(&mut self, plan: &RecordPlan<'_>) {
        let name = &plan.record.name;
        let a = article(name);
        self.out.blank();
        self.out.line(format!(
            "/** Decodes a whole {{@link {name}}} frame; bytes after it are an error. */"
        ));
        self.out.open(format!(
            "export function decode{name}(bytes: Uint8Array): {name} {{"
        ));
        self.out.line("const r = new Reader(bytes);");
        if plan.packed {
            self.out.line(format!("const v = r.packed(read{name});"));
        } else {
            self.out.line(format!("const v = read{name}(r);"));
        }
        self.out.line("r.finish();");
        self.out.line("return v;");
        self.out.close("}");
        self.out.blank();
        self.out
            .line(format!("/** Encodes {a} {{@link {name}}} frame. */"));
        self.out.open(format!(
            "export function encode{name}(v: {name}): Uint8Array {{"
        ));
        self.out
            .line(format!("const w = new Writer(encodedLen{name}(v));"));
        if plan.packed {
            self.out.line(format!("w.packed(write{name}, v);"));
        } else {
            self.out.line(format!("write{name}(w, v);"));
        }
        self.out.line("return w.finish();");
        self.out.close("}");
        if plan.packed {
            self.out.blank();
            self.out.line(format!(
                "/** The number of bytes {{@link encode{name}}} writes. */"
            ));
            self.out.open(format!(
                "export function encodedLen{name}(v: {name}): number {{"
            ));
            self.out
                .line(format!("return Math.ceil(bitLen{name}(v) / 8);"));
            self.out.close("}");
        }
    }

    // ---- unions ----

    fn union(&mut self, u: &'s Union) {
        let plan = self.low.union_plan(u);
        let name = &u.name;
        let a = article(name);
        self.docs(&u.docs, &format!("The union `{name}`."));
        self.out.open(format!("export type {name} ="));
        for (i, v) in u.variants.iter().enumerate() {
            self.docs(&v.docs, &format!("Tag {}.", v.tag));
            let end = if i + 1 == u.variants.len() { ";" } else { "" };
            self.out.line(format!(
                "| {{ kind: \"{}\"; value: {} }}{end}",
                snake_case(&v.record),
                v.record
            ));
        }
        self.out.indent = self.out.indent.saturating_sub(1);
        let (bits, be) = match plan.tag {
            Wire::Int {
                bits, big_endian, ..
            } => (bits, big_endian),
            _ => (64, false),
        };
        let big_tag = big(bits);
        let tag = |t: u64| literal(i128::from(t), big_tag);

        self.out.blank();
        self.out.line(format!(
            "/** Reads {a} {{@link {name}}}: its tag, then the variant's record. */"
        ));
        self.out
            .open(format!("export function read{name}(r: Reader): {name} {{"));
        self.out.line("const at = r.offset;");
        let read_tag = if big_tag {
            format!("r.u64({})", if be { "true" } else { "" })
        } else {
            format!("r.u{bits}({})", if be && bits > 8 { "true" } else { "" })
        };
        self.out.open(format!("switch ({read_tag}) {{"));
        for (t, record) in &plan.variants {
            let variant = snake_case(&record.name);
            let read = if record.packed {
                format!("(r) => r.packed(read{})", record.name)
            } else {
                format!("read{}", record.name)
            };
            self.out.open(format!("case {}:", tag(*t)));
            self.out.line(format!(
                "return {{ kind: \"{variant}\", value: r.inside(\"{variant}\", {read}) }};"
            ));
            self.out.indent -= 1;
        }
        self.out.open("default:");
        // WIRE-16: a tag that names no variant is refused.
        self.out.line("throw r.fail(\"unknown_tag\", at);");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!(
            "/** Writes {a} {{@link {name}}}: its tag, then the variant's record. */"
        ));
        self.out.open(format!(
            "export function write{name}(w: Writer, v: {name}): void {{"
        ));
        self.out.open("switch (v.kind) {");
        for (t, record) in &plan.variants {
            let variant = snake_case(&record.name);
            self.out.open(format!("case \"{variant}\":"));
            if big_tag {
                self.out.line(format!("w.u64({}{});", tag(*t), be_arg(be)));
            } else {
                self.out
                    .line(format!("w.u{bits}({t}{});", be_arg(be && bits > 8)));
            }
            if record.packed {
                self.out.line(format!(
                    "w.inside(\"{variant}\", (w, x) => w.packed(write{}, x), v.value);",
                    record.name
                ));
            } else {
                self.out.line(format!(
                    "w.inside(\"{variant}\", write{}, v.value);",
                    record.name
                ));
            }
            self.out.line("return;");
            self.out.indent -= 1;
        }
        self.out.open("default:");
        self.out.line("throw w.fail(\"unknown_tag\");");
        self.out.indent -= 1;
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!(
            "/** The number of bytes {{@link write{name}}} writes. */"
        ));
        self.out.open(format!(
            "export function encodedLen{name}(v: {name}): number {{"
        ));
        self.out.open("switch (v.kind) {");
        for (_, record) in &plan.variants {
            self.out
                .open(format!("case \"{}\":", snake_case(&record.name)));
            if record.packed {
                self.out.line(format!(
                    "return {} + Math.ceil(bitLen{}(v.value) / 8);",
                    bits / 8,
                    record.name
                ));
            } else {
                self.out.line(format!(
                    "return {} + encodedLen{}(v.value);",
                    bits / 8,
                    record.name
                ));
            }
            self.out.indent -= 1;
        }
        self.out.close("}");
        self.out.close("}");

        self.out.blank();
        self.out.line(format!(
            "/** The variants of {{@link {name}}} in the JSON form. */"
        ));
        self.out
            .open(format!("export const {name}Json: UnionJson = ["));
        for (_, record) in &plan.variants {
            self.out.line(format!(
                "[\"{}\", {{ record: () => {}Json }}],",
                snake_case(&record.name),
                record.name
            ));
        }
        self.out.close("];");
    }

    // ---- every frame, by name ----

    fn dispatch(&mut self) {
        let frames: Vec<&str> = self
            .low
            .frames()
            .into_iter()
            .map(|(r, _)| r.name.as_str())
            .collect();
        self.out.line("// ---- every frame, by name ----");
        self.out.blank();
        self.out.line(
            "/** Every frame of the spec, by its name in snake_case (as `decodeFrame` takes it). */",
        );
        if frames.is_empty() {
            self.out.line("export interface Frames {}");
        } else {
            self.out.open("export interface Frames {");
            for f in &frames {
                self.out.line(format!("/** {{@link {f}}} */"));
                self.out.line(format!("{}: {f};", snake_case(f)));
            }
            self.out.close("}");
        }
        self.out.blank();
        self.out.line("/** The name of a frame of the spec. */");
        self.out.line("export type FrameName = keyof Frames;");
        self.out.blank();
        self.out
            .line("/** The name of every frame of the spec, in declaration order. */");
        let names: Vec<String> = frames
            .iter()
            .map(|f| format!("\"{}\"", snake_case(f)))
            .collect();
        let line = format!(
            "export const FRAME_NAMES: readonly FrameName[] = [{}];",
            names.join(", ")
        );
        if line.len() <= WIDTH {
            self.out.line(line);
        } else {
            self.out
                .open("export const FRAME_NAMES: readonly FrameName[] = [");
            for n in &names {
                self.out.line(format!("{n},"));
            }
            self.out.close("];");
        }
        self.out.blank();
        if frames.is_empty() {
            self.out
                .line("const FRAMES: { readonly [N in FrameName]: FrameCodec<Frames[N]> } = {};");
        } else {
            self.out
                .open("const FRAMES: { readonly [N in FrameName]: FrameCodec<Frames[N]> } = {");
            for f in &frames {
                let line = format!(
                    "{}: {{ decode: decode{f}, encode: encode{f}, encodedLen: encodedLen{f}, json: {f}Json }},",
                    snake_case(f)
                );
                if 2 + line.len() <= WIDTH {
                    self.out.line(line);
                } else {
                    self.out.open(format!("{}: {{", snake_case(f)));
                    self.out.line(format!("decode: decode{f},"));
                    self.out.line(format!("encode: encode{f},"));
                    self.out.line(format!("encodedLen: encodedLen{f},"));
                    self.out.line(format!("json: {f}Json,"));
                    self.out.close("},");
                }
            }
            self.out.close("};");
        }
        self.out.line(DISPATCH.trim_end());
    }
}

/// The functions that take a frame by name, after the `FRAMES` table.
const DISPATCH: &str = r#"
/** Whether `name` is the name of a frame of the spec. */
export function isFrameName(name: string): name is FrameName {
  return Object.prototype.hasOwnProperty.call(FRAMES, name);
}

function codecOf<N extends FrameName>(name: N): FrameCodec<Frames[N]> {
  if (!isFrameName(name)) {
    const known = FRAME_NAMES.join(", ");
    throw new RangeError(`unknown frame \`${String(name)}\`; the frames are: ${known}`);
  }
  return FRAMES[name];
}

/** Decodes the frame named `name`; a bad frame throws a {@link DecodeError}. */
export function decodeFrame<N extends FrameName>(name: N, bytes: Uint8Array): Frames[N] {
  return codecOf(name).decode(bytes);
}

/** Encodes the frame named `name`; a value no decoder accepts throws an {@link EncodeError}. */
export function encodeFrame<N extends FrameName>(name: N, value: Frames[N]): Uint8Array {
  return codecOf(name).encode(value);
}

/** The number of bytes {@link encodeFrame} writes for `value`. */
export function frameEncodedLen<N extends FrameName>(name: N, value: Frames[N]): number {
  return codecOf(name).encodedLen(value);
}

/**
 * A frame in the JSON form of conformance/PROTOCOL.md, ready for `JSON.stringify` (which writes
 * a float of -0 as `0`: a printer that keeps the sign writes `-0.0`, as the Rust codec does).
 */
export function frameToJson<N extends FrameName>(name: N, value: Frames[N]): JsonValue {
  const fields = codecOf(name).json;
  return toJson({ record: () => fields }, value);
}

/** A frame from its JSON form (as `JSON.parse` gives it); bad JSON throws a {@link JsonError}. */
export function frameFromJson<N extends FrameName>(name: N, json: unknown): Frames[N] {
  const fields = codecOf(name).json;
  return fromJson({ record: () => fields }, json) as Frames[N];
}
"#;

/// The folder, beside the generated module, that the TypeScript runtime is written into.
pub const RUNTIME_DIR: &str = "runtime";

/// The module specifier the generated module imports the runtime by: a relative path with its
/// extension, which node (as an ES module or CommonJS, after `tsc`) and a browser's ES modules
/// (without a bundler or an import map) all resolve the same way.
const RUNTIME_IMPORT: &str = "./runtime/index.js";

/// The runtime's npm package, which the generated module imports by name when the runtime is
/// installed ([`RuntimeSource::Package`]): `typescript/package.json` names it.
pub const RUNTIME_PACKAGE: &str = "@ackwire/runtime";

/// The TypeScript runtime (`typescript/src`, the package `@ackwire/runtime`): its source
/// files, as (file name, text). `index.ts` says what it exports.
pub const RUNTIME_FILES: &[(&str, &str)] = &[
    ("bits.ts", include_str!("../../runtime/ts/bits.ts")),
    // Issue 39: the coded values of kind 13's body, over the range coder.
    ("coded.ts", include_str!("../../runtime/ts/coded.ts")),
    ("errors.ts", include_str!("../../runtime/ts/errors.ts")),
    ("frame.ts", include_str!("../../runtime/ts/frame.ts")),
    ("index.ts", include_str!("../../runtime/ts/index.ts")),
    ("ints.ts", include_str!("../../runtime/ts/ints.ts")),
    ("json.ts", include_str!("../../runtime/ts/json.ts")),
    ("lengths.ts", include_str!("../../runtime/ts/lengths.ts")),
    ("lists.ts", include_str!("../../runtime/ts/lists.ts")),
    ("quat.ts", include_str!("../../runtime/ts/quat.ts")),
    // Issue 39: the adaptive binary range coder of the coded profile.
    ("range.ts", include_str!("../../runtime/ts/range.ts")),
    ("reader.ts", include_str!("../../runtime/ts/reader.ts")),
    ("writer.ts", include_str!("../../runtime/ts/writer.ts")),
    // The session machines (`sessions/`): generic over a schema, they import the runtime and
    // never a generated module, so they are the same for every layout.
    (
        "sessions/fnv.ts",
        include_str!("../../runtime/ts/sessions/fnv.ts"),
    ),
    (
        "sessions/half.ts",
        include_str!("../../runtime/ts/sessions/half.ts"),
    ),
    // ts-rest: the datagram v2, NetBaseline and delta machines, and the digests they share.
    (
        "sessions/digest.ts",
        include_str!("../../runtime/ts/sessions/digest.ts"),
    ),
    (
        "sessions/datagram.ts",
        include_str!("../../runtime/ts/sessions/datagram.ts"),
    ),
    (
        "sessions/baseline.ts",
        include_str!("../../runtime/ts/sessions/baseline.ts"),
    ),
    (
        "sessions/delta.ts",
        include_str!("../../runtime/ts/sessions/delta.ts"),
    ),
    // The acked pair (docs/spec/acked.md), and the server primitives its server half feeds
    // (ts-acked).
    (
        "sessions/acked.ts",
        include_str!("../../runtime/ts/sessions/acked.ts"),
    ),
    // The halves over any acked schema, and what the bindings of a `state` call.
    (
        "sessions/acked_half.ts",
        include_str!("../../runtime/ts/sessions/acked_half.ts"),
    ),
    (
        "sessions/state.ts",
        include_str!("../../runtime/ts/sessions/state.ts"),
    ),
    (
        "sessions/input_schedule.ts",
        include_str!("../../runtime/ts/sessions/input_schedule.ts"),
    ),
    (
        "sessions/tier.ts",
        include_str!("../../runtime/ts/sessions/tier.ts"),
    ),
];

/// The module name (without `.ts`) of a state's binding, as an import names it.
pub(crate) fn state_file_stem(plan: &crate::state::StatePlan) -> String {
    super::ts_state::file_name(plan)
        .trim_end_matches(".ts")
        .to_string()
}

/// A copy of the runtime file `name`, as it is written beside a generated module.
pub(crate) fn runtime_copy(name: &str, text: &str) -> String {
    format!(
        "// @generated by ackwire-spec: src/{name} of its TypeScript runtime (@ackwire/runtime),\n\
         // copied beside the codec that imports it. Do not edit: it is the same for every layout.\n\
         \n{text}"
    )
}

/// A name the runtime's `index.ts` exports, and whether it is only a type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Export {
    name: String,
    is_type: bool,
}

/// What the runtime's `index.ts` exports: the names listed in its `export { ... } from "...";`
/// statements, a name written `type Name` being a type only.
fn runtime_exports() -> Vec<Export> {
    let index = RUNTIME_FILES
        .iter()
        .find(|(name, _)| *name == "index.ts")
        .map_or("", |(_, text)| text);
    let mut exports = Vec::new();
    let mut rest = index;
    while let Some(at) = rest.find("export {") {
        rest = &rest[at + "export {".len()..];
        let Some(end) = rest.find('}') else { break };
        for item in rest[..end].split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (is_type, name) = match item.strip_prefix("type ") {
                Some(name) => (true, name.trim()),
                None => (false, item),
            };
            exports.push(Export {
                name: name.to_string(),
                is_type,
            });
        }
        rest = &rest[end..];
    }
    exports
}

/// The identifiers TypeScript `code` refers to: every identifier outside comments and string
/// literals (the `${...}` of a template literal is code), except a member after `.` and a key
/// before `:` (an object literal's or an interface's, or an optional one's `?:`). The generated
/// code has no regular expression literals, which this does not know.
fn referenced_names(code: &str) -> BTreeSet<&str> {
    let mut names = BTreeSet::new();
    scan_code(code.as_bytes(), code, 0, false, &mut names);
    names
}

/// Scans code from `i`; with `nested`, up to the `}` that closes a template's `${`, returning the
/// index after it (else the end).
fn scan_code<'a>(
    bytes: &[u8],
    code: &'a str,
    mut i: usize,
    nested: bool,
    names: &mut BTreeSet<&'a str>,
) -> usize {
    let mut depth = 0usize;
    // The last character of code before the current token that is not white space.
    let mut prev = b' ';
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = code[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |end| i + 2 + end + 2);
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != c {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                prev = c;
                continue;
            }
            b'`' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    if bytes[i] == b'\\' {
                        i += 2;
                    } else if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
                        i = scan_code(bytes, code, i + 2, true, names);
                    } else {
                        i += 1;
                    }
                }
                i += 1;
                prev = c;
                continue;
            }
            b'{' => depth += 1,
            b'}' if nested && depth == 0 => return i + 1,
            b'}' => depth = depth.saturating_sub(1),
            b'0'..=b'9' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                prev = b'0';
                continue;
            }
            // A byte beyond ASCII belongs to an identifier too, so that a name is never cut.
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || !c.is_ascii() => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'_'
                        || bytes[i] == b'$'
                        || !bytes[i].is_ascii())
                {
                    i += 1;
                }
                let spread = start >= 3 && &bytes[start - 3..start] == b"...";
                let member = prev == b'.' && !spread;
                let after = code[i..].trim_start();
                let key = prev != b'?' && (after.starts_with(':') || after.starts_with("?:"));
                if !member && !key {
                    names.insert(&code[start..i]);
                }
                prev = b'a';
                continue;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        i += 1;
    }
    i
}

/// The import of what `body` uses of the runtime from `specifier`, each name once, in ASCII
/// order; a type is imported as `type Name`. Empty when it uses nothing.
fn runtime_import(body: &str, specifier: &str) -> String {
    let used = referenced_names(body);
    let mut names: Vec<Export> = runtime_exports()
        .into_iter()
        .filter(|e| used.contains(e.name.as_str()))
        .collect();
    names.sort_by(|a, b| a.name.cmp(&b.name));
    names.dedup();
    if names.is_empty() {
        return String::new();
    }
    let items: Vec<String> = names
        .iter()
        .map(|e| {
            if e.is_type {
                format!("type {}", e.name)
            } else {
                e.name.clone()
            }
        })
        .collect();
    let line = format!("import {{ {} }} from \"{specifier}\";", items.join(", "));
    if line.len() <= WIDTH {
        return line;
    }
    let mut out = String::from("import {\n");
    for item in &items {
        out.push_str(&format!("  {item},\n"));
    }
    out.push_str(&format!("}} from \"{specifier}\";"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    /// Every construct of the language (spec/tests/sink/sink.wire, also snapshotted for every
    /// backend by spec/tests/generated_sink.rs).
    const KITCHEN_SINK: &str = include_str!("../../tests/sink/sink.wire");

    fn kitchen_sink() -> String {
        let spec = crate::compile(&[Source {
            name: "sink.wire".to_string(),
            text: KITCHEN_SINK.to_string(),
        }])
        .unwrap_or_else(|e| panic!("{e}"));
        let mut files = generate(&spec);
        assert_eq!(files[0].0, "protocol.ts");
        files.remove(0).1
    }

    #[test]
    fn every_construct_generates() {
        let code = kitchen_sink();
        for expected in [
            "// @generated by ackwire-spec from sink.wire. Do not edit: change the layout files.",
            "export const HUGE = 18446744073709551615n;",
            "export type Wide = bigint;",
            "  HIGH: 0x8000000000000000n,",
            "  known: 0x8000000000000001n,\n  guard: 0xfffffffffffffffen,\n  requires: [[Wide.HIGH, Wide.LOW]],\n  bigEndian: true,",
            "r.constant(300n, (r) => r.bigVarint(64));",
            "field = \"version\";",
            "throw within(e, field);",
            "let when: number | undefined;\n    if (n_ > 2) {\n      when = r.u32(true);",
            "when?: number | undefined;",
            "const q = Number(r.bigVarint(64)) * (1 / 4);",
            "w.bigVarint(64, w.quantizeBigUint(v.q, 1 / 4, 18446744073709551615n));",
            "const w = new Writer(encodedLenSink(v));",
            "bigAscending(64, (r) => r.u64(true))",
            "keyed(new Ascending(32), readInner)",
            "export function readInner(r: Reader, prev = new Ascending(32)): Inner {",
            "case 18446744073709551615n:",
            "const body = r.packed(readBody);",
            "return { wide, n: n_, when, q, z, data, nested, ids, recs, tagged, body };",
            "const key = prev.next(r, r.offset, r.u32(true));",
            "return { key, delete: delete_ };",
            "const c = b.bigUint(60);",
            "return { c, d: d_, xs };",
            "export const EmptyJson: RecordJson = [];",
            "export function encodedLenEmpty(_v: Empty): number {",
        ] {
            assert!(code.contains(expected), "missing {expected:?}");
        }
    }

    #[test]
    fn output_is_formatted() {
        let reference = crate::reference_spec().unwrap_or_else(|e| panic!("{e}"));
        let reference = generate(&reference).remove(0).1;
        for code in [kitchen_sink(), reference] {
            for (i, line) in code.lines().enumerate().skip(1) {
                assert!(!line.contains('\t'), "tab on line {}", i + 1);
                assert_eq!(line.trim_end(), line, "trailing space on line {}", i + 1);
                // The lines of a doc comment after its first are indented one more, to the `*`.
                let code = line.trim_start();
                let indent = line.len() - code.len() - usize::from(code.starts_with('*'));
                assert_eq!(indent % 2, 0, "odd indentation on line {}: {line}", i + 1);
                assert!(line.len() <= WIDTH, "line {} is too long: {line}", i + 1);
            }
        }
    }

    #[test]
    fn long_calls_break_at_their_arguments() {
        let short = "w.field(\"x\").presence(v.x !== undefined, v.mask.includes(\"X\"));";
        assert_eq!(wrap_call(short, 1), short);
        let long = format!(
            "v.updates = readList(r.field(\"updates\"), n, 4, keyed({}, f));",
            "x".repeat(60)
        );
        assert_eq!(
            wrap_call(&long, 1),
            format!(
                "v.updates = readList(\n  r.field(\"updates\"),\n  n,\n  4,\n  keyed({}, f),\n);",
                "x".repeat(60)
            )
        );
        assert_eq!(
            split_args("a, f(b, c), \"d, e\", [g, h]"),
            ["a", "f(b, c)", "\"d, e\"", "[g, h]"]
        );
    }

    #[test]
    fn doc_comments_cannot_end_early() {
        assert_eq!(tsdoc(&["one */ two".to_string()]), "/** one *\\/ two */");
        assert_eq!(
            tsdoc(&["a".to_string(), String::new(), "b".to_string()]),
            "/**\n * a\n *\n * b\n */"
        );
    }

    #[test]
    fn the_runtime_exports_what_its_index_lists() {
        let exports = runtime_exports();
        let names: BTreeSet<&str> = exports.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), exports.len(), "a name exported twice");
        for e in &exports {
            assert!(
                e.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{e:?} is not a name"
            );
            let kinds: &[&str] = if e.is_type {
                &["type", "interface"]
            } else {
                &["class", "function", "const"]
            };
            let declared = RUNTIME_FILES.iter().any(|(_, text)| {
                kinds.iter().any(|kind| {
                    text.contains(&format!("\nexport {kind} {}<", e.name))
                        || text.contains(&format!("\nexport {kind} {} ", e.name))
                        || text.contains(&format!("\nexport {kind} {}(", e.name))
                })
            });
            assert!(declared, "{e:?} is declared by no runtime file as such");
        }
        for name in ["Reader", "Writer", "DecodeError", "readList", "toJson"] {
            assert!(
                exports.iter().any(|e| e.name == name && !e.is_type),
                "{name}"
            );
        }
        for name in ["BitSet", "ErrorKind", "RecordJson", "FrameCodec"] {
            assert!(
                exports.iter().any(|e| e.name == name && e.is_type),
                "{name}"
            );
        }
    }

    #[test]
    fn only_code_refers_to_names() {
        let code = r#"
// Reader in a comment
/** {@link Writer} in a doc comment */
const a = "BitReader in a string" + 'BitWriter' + `toHex ${fromHex(x)} and ${`${keyed}`}`;
v.sumOf = r.readList(w);
interface T { zigzag: number; bigZigzag?: bigint }
const o = { varintLen: 1, ...Ascending };
const t = c ? quantize : 0x1fn;
function f(r: Reader): Writer { return new BitSet(1); }
const é = "…"; /* − */ const xé = éToHex + toHexé;
"#;
        let names = referenced_names(code);
        for name in [
            "a",
            "fromHex",
            "keyed",
            "v",
            "r",
            "w",
            "T",
            "number",
            "bigint",
            "o",
            "Ascending",
            "t",
            "c",
            "quantize",
            "f",
            "Reader",
            "Writer",
            "BitSet",
            "é",
            "xé",
            "éToHex",
            "toHexé",
        ] {
            assert!(names.contains(name), "{name} is referred to");
        }
        for name in [
            "BitReader",
            "BitWriter",
            "toHex",
            "sumOf",
            "readList",
            "zigzag",
            "bigZigzag",
            "varintLen",
            "x1fn",
            "link",
            "ToHex",
        ] {
            assert!(!names.contains(name), "{name} is not referred to");
        }
    }

    #[test]
    fn the_codec_imports_what_it_uses_of_the_runtime() {
        assert_eq!(
            runtime_import("const r = new Reader(bytes); // Writer\n", RUNTIME_IMPORT),
            "import { Reader } from \"./runtime/index.js\";"
        );
        assert_eq!(
            runtime_import("const r = new Reader(bytes);\n", RUNTIME_PACKAGE),
            "import { Reader } from \"@ackwire/runtime\";"
        );
        assert_eq!(runtime_import("const x = 1;\n", RUNTIME_IMPORT), "");
        let code = kitchen_sink();
        let import = code
            .split_once("import {\n")
            .and_then(|(_, rest)| rest.split_once("} from \"./runtime/index.js\";\n"))
            .map(|(names, _)| names)
            .expect("an import of the runtime");
        let names: Vec<&str> = import
            .lines()
            .map(|l| l.trim().trim_end_matches(','))
            .collect();
        let mut sorted = names.clone();
        sorted.sort_by_key(|n| n.trim_start_matches("type "));
        assert_eq!(names, sorted, "in ASCII order");
        for name in [
            "Ascending",
            "BitReader",
            "type BitSet",
            "bigAscending",
            "keyed",
            "optBytesLen",
            "type UnionJson",
        ] {
            assert!(names.contains(&name), "{name} is imported: {names:?}");
        }
        for name in [
            "Cursor",
            "Encoder",
            "pathText",
            "type ErrorKind",
            "toHex",
            "fromHex",
        ] {
            assert!(!names.contains(&name), "{name} is not used");
        }
        assert!(code.contains("\nexport * from \"./runtime/index.js\";\n"));
    }

    #[test]
    fn names_that_are_words_of_the_language_get_a_suffix() {
        assert_eq!(local("delete"), "delete_");
        assert_eq!(local("v"), "v_");
        assert_eq!(local("count"), "count");
        assert_eq!(article("Acked"), "an");
        assert_eq!(article("Change"), "a");
    }
}
