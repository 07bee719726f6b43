//! The coded frame of a state in C# (kind 13's profile, `docs/spec/coded.md`), the port of the
//! Rust printer (`gen/rust/coded.rs`), byte for byte and error for error: the packed frame's
//! header, removals, check and events as they are, and its changes range-coded through the
//! runtime's `CodedEncoder`/`CodedDecoder` (Coded.cs), each value under a model of its own
//! (CODE-6..CODE-15), predicted from the base and older snapshot an `ICodedBasis` gives.
//!
//! The frame decodes to the packed frame's body type, so a coded change stages as a packed one
//! does (ACK-16). What the printer derives, it derives from the packed frame's plan, the
//! change's steps and the state's [`CodedPlan`] (the models, their widths and slots). A form
//! the profile does not code prints a `#error` naming the field, so that the file does not
//! compile rather than code it as anything.

use super::{cs_type, literal, local, member, scale, summary, Gen};
use crate::lower::{RecordPlan, Role, Step, Wire};
use crate::model::CodedForm;
use crate::state::{CodedPlan, Holds, StatePlan};
use std::collections::BTreeSet;

/// The helpers a coded frame's code calls, printed once each when used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Helper {
    AtMost,
    Within,
    Bounded,
    BoundedSigned,
    Velocity,
    Predicted,
    Residual,
    Ranged,
    Quat,
    /// The checked value and the bits of a bit set, by its name.
    Set(String),
}

/// How one value of a change is predicted.
enum Predict {
    /// Coded as its packed value (CODE-10..CODE-12).
    None,
    /// `coded velocity` (CODE-13): a step of record member `member`, within `min..=max`.
    Velocity {
        member: String,
        min: i128,
        max: i128,
    },
    /// A quaternion (CODE-14); `base` is the expression of the base's, when `coded base`.
    Quat { bits: u8, base: Option<String> },
}

/// A coded frame being printed: its plan and what its code has used so far.
struct Frame<'p> {
    state: &'p StatePlan,
    coded: &'p CodedPlan,
    helpers: BTreeSet<Helper>,
    /// The quaternions' slot arrays, `(path, on_base, whole)`, printed as static arrays.
    quats: Vec<(String, bool)>,
    uses_older: bool,
    uses_base: bool,
}

impl Frame<'_> {
    fn slot(&self, path: &str) -> String {
        const_name(path)
    }

    /// `W` of model `path` (0 for a model the plan does not have: nothing is then coded).
    fn width(&self, path: &str) -> u8 {
        self.coded.model(path).map_or(0, |m| m.w)
    }
}

/// A model's slot constant: its path in `SCREAMING_CASE` (`pose_step.dx`: `POSE_STEP_DX`).
fn const_name(path: &str) -> String {
    path.replace('.', "_").to_ascii_uppercase()
}

/// The largest id a key of wire form `w` holds, as a `ulong` literal.
fn key_max(w: &Wire<'_>) -> String {
    match w {
        Wire::Bucket(bp) => format!("{}UL", bp.max_code),
        Wire::Int { bits, .. } if *bits < 64 => format!("{}UL", (1u128 << bits) - 1),
        _ => "ulong.MaxValue".into(),
    }
}

/// `(T)expr` when `T` is not `from`.
fn cast(to: &str, from: &str, expr: String) -> String {
    if to == from {
        expr
    } else {
        format!("({to}){expr}")
    }
}

/// Whether `line` holds `word` as a whole identifier (not inside a string).
fn has_word(line: &str, word: &str) -> bool {
    let is_id =
        |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '"');
    line.match_indices(word).any(|(i, _)| {
        !is_id(line[..i].chars().next_back()) && !is_id(line[i + word.len()..].chars().next())
    })
}

/// Replaces the whole word `from` in `text` by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let is_id = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in text.match_indices(from) {
        if i < last {
            continue;
        }
        let before = text[..i].chars().next_back();
        let after = text[i + from.len()..].chars().next();
        if !is_id(before) && !is_id(after) {
            out.push_str(&text[last..i]);
            out.push_str(to);
            last = i + from.len();
        }
    }
    out.push_str(&text[last..]);
    out
}

impl Gen<'_, '_> {
    /// The coded frame of `state`, when it declares one: its class, after the codec's records.
    pub(super) fn coded_frame(&mut self, state: &StatePlan) {
        let Some(coded) = &state.coded else { return };
        let low = self.low;
        let Some(packed) = state.profiles.iter().find(|p| p.packed) else {
            return;
        };
        let (Some(frame), Some(body)) = (
            low.plan(&coded.packed_frame, None),
            packed.body.as_deref().and_then(|b| low.plan(b, None)),
        ) else {
            return;
        };
        let Some(change) = low.plan(&packed.change, Some("eid")) else {
            return;
        };
        let mut f = Frame {
            state,
            coded,
            helpers: BTreeSet::new(),
            quats: Vec::new(),
            uses_older: false,
            uses_base: false,
        };
        let name = coded.frame.clone();
        let docs = crate::model::Docs {
            doc: coded.docs.clone(),
            comments: Vec::new(),
        };
        self.out.blank();
        self.docs(&docs, &format!("The coded frame `{name}`."));
        self.out.block(format!("public sealed class {name}"));
        self.coded_fields(frame);
        self.out.blank();
        self.coded_consts(&f);
        // The changes' functions first, so that the frame's know which helpers they use.
        let read_change = self.captured(|g| g.coded_read_change(&mut f, change));
        let code_change = self.captured(|g| g.coded_code_change(&mut f, change));
        self.coded_quat_slots(&f);
        self.out.blank();
        let packed_read = self.captured(|g| g.read_fn(frame));
        let packed_write = self.captured(|g| g.write_fn(frame));
        let packed_json = self.captured(|g| g.json_fns(frame));
        self.coded_read_basis(&f, frame, &packed_read);
        self.out.blank();
        self.coded_read(&f, frame, &packed_read);
        self.out.blank();
        self.coded_read_changes(&f, body);
        self.out.blank();
        self.coded_write(&f, frame, &packed_write);
        self.out.blank();
        self.coded_write_changes(&f, body);
        self.out.blank();
        self.coded_decode_encode(&f);
        self.out.blank();
        for l in read_change.lines().chain(std::iter::once("")) {
            self.out.line(l);
        }
        for l in code_change.lines() {
            self.out.line(l);
        }
        self.coded_helpers(&f);
        self.out.blank();
        self.coded_json(frame, &packed_json, &name);
        self.out.close("}");
    }

    /// Runs `print` into an empty buffer and returns what it printed.
    fn captured(&mut self, print: impl FnOnce(&mut Self)) -> String {
        let outer = std::mem::take(&mut self.out);
        print(self);
        std::mem::replace(&mut self.out, outer).finish()
    }

    /// The packed frame's fields with `Older` before the body.
    fn coded_fields(&mut self, frame: &RecordPlan<'_>) {
        let class = &frame.record.name;
        for (i, s) in frame.values().enumerate() {
            if i > 0 {
                self.out.blank();
            }
            if s.field.name == "body" {
                self.out.line(summary(&[
                    "Ticks from the base back to the older snapshot the changes are predicted from; 0 for"
                        .to_string(),
                    "none, as in a keyframe (CODE-2).".to_string(),
                ]));
                self.out.line("public byte Older;");
                self.out.blank();
                self.out.line(
                    "/// <summary>The changes, decoded to the packed frame's: the same values, range-coded.</summary>",
                );
            } else {
                self.docs(&s.field.docs, &format!("The `{}` field.", s.field.name));
            }
            let ty = cs_type(&s.wire);
            let ty = if s.presence.is_some() && super::is_value_type(&s.wire) {
                format!("{ty}?")
            } else {
                ty
            };
            self.out
                .line(format!("public {ty} {};", member(&s.field.name, class)));
        }
    }

    /// `ModelNames`, `ModelWidths`, `Slots`, the tables and each model's first slot.
    fn coded_consts(&mut self, f: &Frame<'_>) {
        let c = f.coded;
        self.out.line(summary(&[
            "The models of the frame's values by name, in the order they are first coded (CODE-15):"
                .to_string(),
            "each value's bit length and bits adapt under its own.".to_string(),
        ]));
        self.out
            .line("public static readonly string[] ModelNames =");
        self.out.open("{");
        for m in &c.models {
            self.out.line(format!("\"{}\",", m.name));
        }
        self.out.close("};");
        self.out.blank();
        self.out.line(
            "/// <summary>Each model's W, the bits of its widest value, as <see cref=\"ModelNames\"/> orders them.</summary>",
        );
        let ws: Vec<String> = c.models.iter().map(|m| m.w.to_string()).collect();
        self.out.line("public static readonly byte[] ModelWidths =");
        self.out.open("{");
        for row in ws.chunks(16) {
            self.out.line(format!("{},", row.join(", ")));
        }
        self.out.close("};");
        self.out.blank();
        self.out
            .line("/// <summary>The slots of every model, one after another (CODE-8).</summary>");
        self.out
            .line(format!("public const int Slots = {};", c.slots()));
        self.out.blank();
        if c.probs.is_empty() {
            self.out.line(summary(&[
                "Every slot's starting probability (CODE-16), a copy the frame's coder adapts: the frame"
                    .to_string(),
                "names no tables, so each starts at even odds, 2048.".to_string(),
            ]));
            self.out.block("public static Prob[] Tables()");
            self.out.line("Prob[] t = new Prob[Slots];");
            self.out.block("for (int i = 0; i < t.Length; i++)");
            self.out.line("t[i] = Prob.Half;");
            self.out.close("}");
            self.out.line("return t;");
            self.out.close("}");
        } else {
            let file = c.tables.as_deref().unwrap_or("the tables file");
            self.out.line(format!(
                "// Every slot's starting probability (CODE-16), from `{file}`, model by model."
            ));
            self.out.line("static readonly ushort[] TableProbs =");
            self.out.open("{");
            for m in &c.models {
                let end = (m.at + crate::state::model_slots(m.w)).min(c.probs.len());
                let ps: Vec<String> = c
                    .probs
                    .get(m.at..end)
                    .unwrap_or_default()
                    .iter()
                    .map(u16::to_string)
                    .collect();
                self.out.line(format!("// {}", m.name));
                for row in ps.chunks(16) {
                    self.out.line(format!("{},", row.join(", ")));
                }
            }
            self.out.close("};");
            self.out.blank();
            self.out.line(summary(&[
                "Every slot's starting probability (CODE-16), a copy the frame's coder adapts; each was"
                    .to_string(),
                "checked 1 to 4095 when the tables were read.".to_string(),
            ]));
            self.out.block("public static Prob[] Tables()");
            self.out.line("Prob[] t = new Prob[Slots];");
            self.out.block("for (int i = 0; i < t.Length; i++)");
            self.out.line("t[i] = Prob.Of(TableProbs[i]) ?? Prob.Half;");
            self.out.close("}");
            self.out.line("return t;");
            self.out.close("}");
        }
        for m in &c.models {
            self.out.blank();
            self.out.line(format!(
                "// The first slot of model `{}` (W = {}).",
                m.name, m.w
            ));
            self.out
                .line(format!("const int {} = {};", const_name(&m.name), m.at));
        }
    }

    /// The slots of each quaternion's models, as the quaternion helpers take them.
    fn coded_quat_slots(&mut self, f: &Frame<'_>) {
        for (path, on_base) in &f.quats {
            let p = const_name(path);
            if *on_base {
                self.out.blank();
                self.out.line(format!(
                    "// `{path}` coded against the base's: whether its largest is the same, then the differences."
                ));
                self.out.line(format!(
                    "static readonly int[] {p}_ON_BASE = {{ {p}_SAME, {p}_D0, {p}_D1, {p}_D2 }};"
                ));
            }
            self.out.blank();
            self.out.line(format!(
                "// `{path}` coded whole: its largest component's index, then the three."
            ));
            self.out.line(format!(
                "static readonly int[] {p}_WHOLE = {{ {p}_LARGEST, {p}_C0, {p}_C1, {p}_C2 }};"
            ));
        }
    }

    /// The packed reader's lines of the prefix, before the body: the header, the check and the
    /// removed ids, read as the packed frame reads them, with the coded frame's kind.
    fn coded_prefix(
        &self,
        f: &Frame<'_>,
        frame: &RecordPlan<'_>,
        packed_read: &str,
    ) -> Vec<String> {
        let lines: Vec<&str> = packed_read.lines().collect();
        // The try's body: after its `{`, up to `field = "body";`.
        let start = lines
            .iter()
            .position(|l| l.trim() == "try")
            .map_or(0, |i| i + 2);
        let end = lines
            .iter()
            .position(|l| l.trim() == "field = \"body\";")
            .unwrap_or(lines.len());
        let kind = frame.steps.iter().find_map(|s| match s.role {
            Role::Constant(c) => Some(c),
            _ => None,
        });
        let indent = lines
            .get(start)
            .map_or(0, |l| l.len() - l.trim_start().len());
        lines
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|l| {
                let l = l.get(indent..).unwrap_or(l.trim_start());
                match kind {
                    Some(c) => {
                        l.replacen(&format!(", {c}UL);"), &format!(", {}UL);", f.coded.kind), 1)
                    }
                    None => l.to_string(),
                }
            })
            .collect()
    }

    /// The ticks of the frame's basis from the locals of its reader.
    fn basis_ticks_of(&self, f: &Frame<'_>, flags: &str) -> String {
        format!(
            "new CodedBasisTicks {{ Tick = tick, BaseTick = baseTick, Keyframe = ({flags} & {}.KEYFRAME) != 0, Older = older }}",
            f.state.acked_flags
        )
    }

    /// `ReadBasis` and `BasisTicks`.
    fn coded_read_basis(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, packed_read: &str) {
        let flags = f.state.acked_flags.clone();
        self.out.line(summary(&[
            "What the frame's basis is looked up by, read from its prefix before its body (CODE-2,"
                .to_string(),
            "CODE-3): its tick and its base's, whether it is a keyframe, and <c>older</c>; throws a"
                .to_string(),
            "DecodeError.".to_string(),
        ]));
        self.out
            .block("public static CodedBasisTicks ReadBasis(byte[] bytes)");
        self.out.line("Reader r = new Reader(bytes);");
        self.out.line("string field = \"kind\";");
        self.out.block("try");
        // The prefix's other fields are read (and checked) only to reach `older`: a value no
        // later line reads is read as a statement.
        let prefix = self.coded_prefix(f, frame, packed_read);
        let kept = ["tick", "baseTick", "flags", "field"];
        for (i, l) in prefix.iter().enumerate() {
            let t = l.trim_start();
            let pad = &l[..l.len() - t.len()];
            let assigned = t.strip_suffix(';').and_then(|t| {
                let (head, value) = t.split_once(" = ").map_or((t, None), |(h, v)| (h, Some(v)));
                let name = head.rsplit(' ').next()?;
                let is_name = !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !head.contains('(');
                let read_later = prefix[i + 1..].iter().any(|x| {
                    has_word(x, name) && !x.trim_start().starts_with(&format!("{name} = "))
                });
                (is_name && !kept.contains(&name) && !read_later).then_some(value)
            });
            match assigned {
                // A read whose value is not needed, kept for its checks.
                Some(Some(v)) if v.contains('(') => self.out.line(format!("{pad}{v};")),
                // A declaration or a constant: nothing to read.
                Some(_) => {}
                None => self.out.line(l),
            }
        }
        self.out.line("field = \"older\";");
        self.out.line("byte older = r.U8();");
        self.out
            .line(format!("return {};", self.basis_ticks_of(f, "flags")));
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(field);");
        self.out.close("}");
        self.out.close("}");
        self.out.blank();
        self.out.line(summary(&[
            "What the frame's basis is looked up by: its ticks, whether it is a keyframe and its"
                .to_string(),
            "<c>older</c> distance (CODE-2, CODE-3).".to_string(),
        ]));
        self.out.block("public CodedBasisTicks BasisTicks()");
        self.out.line(format!(
            "return new CodedBasisTicks {{ Tick = Tick, BaseTick = BaseTick, Keyframe = (Flags & {flags}.KEYFRAME) != 0, Older = Older }};"
        ));
        self.out.close("}");
    }

    /// `Read`: the packed frame's reader with `older` and the coded body in the packed body's place.
    fn coded_read(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, packed_read: &str) {
        let name = &f.coded.frame;
        let record = &f.state.record.name;
        let flags = &f.state.acked_flags;
        let packed = &frame.record.name;
        self.out.line(summary(&[
            format!("Reads an <see cref=\"{name}\"/>, its changes predicted from <paramref name=\"basis\"/>: the"),
            "base and older snapshot its prefix names (<see cref=\"ReadBasis\"/>), which the caller holds"
                .to_string(),
            "(CODE-3).".to_string(),
        ]));
        let mut lines = packed_read
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("public static"));
        let _ = lines.next();
        self.out.line(format!(
            "public static {name} Read(ref Reader r, ICodedBasis<{record}> basis)"
        ));
        let kind = frame.steps.iter().find_map(|s| match s.role {
            Role::Constant(c) => Some(c),
            _ => None,
        });
        let mut kind_done = false;
        for l in lines {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            let rel = indent;
            if !kind_done {
                if let Some(c) = kind {
                    if t.contains(&format!(", {c}UL);")) {
                        kind_done = true;
                        self.out.line(format!(
                            "{rel}{}",
                            t.replacen(
                                &format!(", {c}UL);"),
                                &format!(", {}UL);", f.coded.kind),
                                1
                            )
                        ));
                        continue;
                    }
                }
            }
            if t == "field = \"body\";" {
                for x in [
                    "field = \"older\";".to_string(),
                    "int olderAt = r.Offset;".to_string(),
                    "byte older = r.U8();".to_string(),
                    "// CODE-2: a keyframe has no older snapshot.".to_string(),
                    format!("if ((flags & {flags}.KEYFRAME) != 0 && older != 0)"),
                    "{".to_string(),
                    "    throw new DecodeError(ErrorKind.InvalidCondition, olderAt, -1);"
                        .to_string(),
                    "}".to_string(),
                    t.to_string(),
                ] {
                    self.out.line(format!("{rel}{x}"));
                }
                continue;
            }
            if t.contains(".ReadPadded(ref r);") && t.contains(" body = ") {
                let ty = t.split(' ').next().unwrap_or("");
                self.out.line(format!(
                    "{rel}{ty} body = ReadChanges(ref r, {}, basis);",
                    self.basis_ticks_of(f, "flags")
                ));
                continue;
            }
            if t == "Body = body," {
                self.out.line(format!("{rel}Older = older,"));
            }
            let t = if t.starts_with("return new ") {
                t.replacen("Body = body", "Older = older, Body = body", 1)
            } else {
                t.to_string()
            };
            let t = replace_word(&t, packed, name);
            self.out.line(format!("{rel}{t}"));
        }
    }

    /// `ReadChanges`: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5).
    fn coded_read_changes(&mut self, f: &Frame<'_>, body: &RecordPlan<'_>) {
        let record = &f.state.record.name;
        let body_name = &body.record.name;
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        let change_ty = body
            .values()
            .next()
            .map_or("object".to_string(), |s| match &s.wire {
                Wire::Array(a) => cs_type(&a.elem),
                w => cs_type(w),
            });
        self.out.line(
            "/// <summary>The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5).</summary>",
        );
        self.out.block(format!(
            "static {body_name} ReadChanges(ref Reader r, CodedBasisTicks ticks, ICodedBasis<{record}> basis)"
        ));
        let n = local(&count);
        self.out.line(format!("ushort {n};"));
        self.out.block("try");
        self.out.line(format!("{n} = r.U16(false);"));
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line(format!("throw e.Within(\"{count}\");"));
        self.out.close("}");
        self.out
            .line("// Values the stream cannot place are reported at its first byte.");
        self.out.line("long at = r.Offset + 2;");
        self.out.line("CodedDecoder stream;");
        self.out.block("try");
        self.out
            .line(format!("stream = new CodedDecoder(ref r, {n}, Tables());"));
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(\"coded_len\");");
        self.out.close("}");
        self.out.line(
            "// CODE-4: the stream holds at least 12 bits a change, so this is bounded by the input.",
        );
        let l = local(&list);
        self.out
            .line(format!("{change_ty}[] {l} = new {change_ty}[{n}];"));
        self.out.line("ulong? prev = null;");
        self.out
            .block(format!("for (int i = 0; i < {l}.Length; i++)"));
        self.out.block("try");
        self.out.line(format!(
            "{l}[i] = ReadChange(ref stream, ref prev, at, ticks, basis);"
        ));
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out
            .line(format!("throw e.Within(i).Within(\"{list}\");"));
        self.out.close("}");
        self.out.close("}");
        self.out.line("stream.Finish();");
        self.out.line(format!(
            "return new {body_name} {{ {} = {l} }};",
            member(&list, body_name)
        ));
        self.out.close("}");
    }

    /// `Write`: the packed frame's writer with `older` and the coded body in the packed body's place.
    fn coded_write(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, packed_write: &str) {
        let name = &f.coded.frame;
        let record = &f.state.record.name;
        let flags = &f.state.acked_flags;
        let packed = &frame.record.name;
        self.out.line(summary(&[
            format!("Writes an <see cref=\"{name}\"/>, its changes predicted from <paramref name=\"basis\"/>: the"),
            "base and older snapshot its prefix names, which the client holds (CODE-3).".to_string(),
        ]));
        let mut lines = packed_write
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("public void Write"));
        let _ = lines.next();
        self.out.line(format!(
            "public void Write(Writer w, ICodedBasis<{record}> basis)"
        ));
        let kind = frame.steps.iter().find_map(|s| match s.role {
            Role::Constant(c) => Some(c),
            _ => None,
        });
        let mut kind_done = false;
        for l in lines {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            let rel = indent;
            if !kind_done {
                if let Some(c) = kind {
                    if t.contains(&format!("({c});")) || t.contains(&format!(", {c}")) {
                        kind_done = true;
                        let x = t
                            .replacen(&format!("({c});"), &format!("({});", f.coded.kind), 1)
                            .replacen(&format!(", {c}"), &format!(", {}", f.coded.kind), 1);
                        self.out.line(format!("{rel}{x}"));
                        continue;
                    }
                }
            }
            if t == "field = \"body\";" {
                for x in [
                    "field = \"older\";".to_string(),
                    "// CODE-2: a keyframe has no older snapshot.".to_string(),
                    format!(
                        "Wire.Presence(Older != 0, Older != 0 && (Flags & {flags}.KEYFRAME) == 0);"
                    ),
                    "w.U8(Older);".to_string(),
                    t.to_string(),
                ] {
                    self.out.line(format!("{rel}{x}"));
                }
                continue;
            }
            if t.starts_with("Body.WritePadded(w);") {
                self.out.line(format!("{rel}WriteChanges(w, basis);"));
                continue;
            }
            let t = replace_word(t, packed, name);
            self.out.line(format!("{rel}{t}"));
        }
    }

    /// `WriteChanges`, `Count` and `CodeChanges`.
    fn coded_write_changes(&mut self, f: &Frame<'_>, body: &RecordPlan<'_>) {
        let record = &f.state.record.name;
        let body_name = &body.record.name;
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        let items = format!("Body.{}", member(&list, body_name));
        self.out.line(
            "/// <summary>The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5).</summary>",
        );
        self.out.block(format!(
            "void WriteChanges(Writer w, ICodedBasis<{record}> basis)"
        ));
        self.out.block("try");
        self.out.line(format!(
            "w.U16((ushort)Wire.Count({items}.Length, 16), false);"
        ));
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line(format!("throw e.Within(\"{count}\");"));
        self.out.close("}");
        self.out
            .line("CodedEncoder stream = new CodedEncoder(Tables());");
        self.out.line("CodeChanges(stream, basis);");
        self.out.block("try");
        self.out.line(format!("stream.Finish({items}.Length, w);"));
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"coded_len\");");
        self.out.close("}");
        self.out.close("}");
        self.out.blank();
        self.out.line(summary(&[
            "Counts, slot by slot, the bits <see cref=\"Write\"/> codes for the changes, without"
                .to_string(),
            "adapting: what training sums over recorded frames (CODE-17); throws an EncodeError."
                .to_string(),
        ]));
        self.out.block(format!(
            "public void Count(SlotCounts counts, ICodedBasis<{record}> basis)"
        ));
        self.out.block("try");
        self.out.line("CodeChanges(counts, basis);");
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"body\");");
        self.out.close("}");
        self.out.close("}");
        self.out.blank();
        self.out.line(summary(&[
            "Codes every change's values into <paramref name=\"sink\"/>, in order: the encoder or the"
                .to_string(),
            "training counts; throws an EncodeError.".to_string(),
        ]));
        self.out.block(format!(
            "public void CodeChanges(CodedSink sink, ICodedBasis<{record}> basis)"
        ));
        self.out.line("CodedBasisTicks ticks = BasisTicks();");
        self.out.line("ulong? prev = null;");
        self.out
            .block(format!("for (int i = 0; i < {items}.Length; i++)"));
        self.out.block("try");
        self.out.line(format!(
            "CodeChange({items}[i], sink, ref prev, ticks, basis);"
        ));
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out
            .line(format!("throw e.Within(i).Within(\"{list}\");"));
        self.out.close("}");
        self.out.close("}");
        self.out.close("}");
    }

    /// `Decode` and `Encode`.
    fn coded_decode_encode(&mut self, f: &Frame<'_>) {
        let name = &f.coded.frame;
        let record = &f.state.record.name;
        self.out.line(summary(&[
            format!("Decodes a whole <see cref=\"{name}\"/> frame against <paramref name=\"basis\"/>; bytes after"),
            "it are an error.".to_string(),
        ]));
        self.out.block(format!(
            "public static {name} Decode(byte[] bytes, ICodedBasis<{record}> basis)"
        ));
        self.out.line("Reader r = new Reader(bytes);");
        self.out.line(format!("{name} v = Read(ref r, basis);"));
        self.out.line("r.Finish();");
        self.out.line("return v;");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/// <summary>Encodes an <see cref=\"{name}\"/> frame against <paramref name=\"basis\"/>.</summary>"
        ));
        self.out
            .block(format!("public byte[] Encode(ICodedBasis<{record}> basis)"));
        self.out.line("Writer w = new Writer(64);");
        self.out.line("Write(w, basis);");
        self.out.line("return w.ToArray();");
        self.out.close("}");
    }

    /// `ToJson`/`FromJson`: the packed frame's, with `older` before the body.
    fn coded_json(&mut self, frame: &RecordPlan<'_>, packed_json: &str, name: &str) {
        let packed = &frame.record.name;
        for l in packed_json.lines() {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            let rel = indent;
            if t == "j.Name(\"body\");" {
                self.out.line(format!("{rel}j.Name(\"older\");"));
                self.out.line(format!("{rel}j.Uint(Older);"));
            }
            if t == "field = \"body\";" {
                self.out.line(format!("{rel}field = \"older\";"));
                self.out.line(format!(
                    "{rel}v.Older = (byte)Json.Uint(Json.Member(o, \"older\"), 255UL);"
                ));
            }
            let t = replace_word(t, packed, name);
            self.out.line(format!("{rel}{t}"));
        }
    }

    /// How the value `sub` of the change's field `field` (or the field itself) is predicted.
    fn coded_predict(&self, f: &mut Frame<'_>, field: &str, sub: &str, w: &Wire<'_>) -> Predict {
        let st = f.state;
        let record = &st.record.name;
        for (gi, g) in st.groups.iter().enumerate() {
            for form in g.forms.iter().filter(|x| x.field == field) {
                let Some(wp) = form.wire.iter().find(|x| x.name == sub) else {
                    continue;
                };
                match (wp.coded, w) {
                    (Some(CodedForm::Velocity), _) => {
                        let target = g.fields.get(wp.field).map_or(sub, |x| x.name.as_str());
                        let (min, max) = wp.range.unwrap_or((0, 0));
                        f.uses_older = true;
                        f.uses_base = true;
                        return Predict::Velocity {
                            member: member(target, record),
                            min,
                            max,
                        };
                    }
                    (coded, Wire::Quat { bits }) => {
                        let base = (coded == Some(CodedForm::Base)).then(|| {
                            f.uses_base = true;
                            let holder = st
                                .record
                                .fields
                                .iter()
                                .find(|r| r.holds == Holds::Group(gi));
                            let q = g.fields.get(wp.field).map_or(sub, |x| x.name.as_str());
                            match holder {
                                Some(h) if h.present.is_some() => {
                                    let hm = member(&h.name, record);
                                    format!(
                                        "baseRecord != null && baseRecord.{hm} != null ? baseRecord.{hm}.{} : (SmallestThree?)null",
                                        member(q, &form.record)
                                    )
                                }
                                Some(h) => format!(
                                    "baseRecord != null ? baseRecord.{}.{} : (SmallestThree?)null",
                                    member(&h.name, record),
                                    member(q, &form.record)
                                ),
                                None => format!(
                                    "baseRecord != null ? baseRecord.{} : (SmallestThree?)null",
                                    member(q, record)
                                ),
                            }
                        });
                        return Predict::Quat { bits: *bits, base };
                    }
                    _ => {}
                }
            }
        }
        match w {
            Wire::Quat { bits } => Predict::Quat {
                bits: *bits,
                base: None,
            },
            _ => Predict::None,
        }
    }

    /// The base's and older snapshot's records of a change's entity, when its values use them.
    fn coded_records(&mut self, f: &Frame<'_>, eid: &str) {
        if f.uses_base || f.uses_older {
            let record = &f.state.record.name;
            self.out.line(format!("{record} baseRecord, olderRecord;"));
            self.out.line(format!(
                "Records({eid}, ticks, basis, out baseRecord, out olderRecord);"
            ));
        }
    }

    /// `ReadChange`: one change's values, read and rebuilt into the packed change.
    fn coded_read_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>) {
        let name = &change.record.name;
        let record = f.state.record.name.clone();
        // The values first, into a buffer: the records line depends on what they predict.
        let mut key_lines = Vec::new();
        let values = self.captured(|g| {
            for s in &change.steps {
                if s.role == Role::Key || (s.field.name == "mask" && s.presence.is_none()) {
                    let inner = g.captured(|g| g.coded_read_step(f, change, s));
                    key_lines.push(inner);
                } else {
                    g.coded_read_step(f, change, s);
                }
            }
        });
        self.out.line(summary(&[
            "One change (CODE-10..CODE-14): its id after <paramref name=\"prev\"/>'s, its mask, then each"
                .to_string(),
            "value the mask selects under its model, predicted from the entity's records in"
                .to_string(),
            "<paramref name=\"basis\"/>.".to_string(),
        ]));
        self.out.block(format!(
            "static {name} ReadChange(ref CodedDecoder stream, ref ulong? prev, long at, CodedBasisTicks ticks, ICodedBasis<{record}> basis)"
        ));
        let first = change
            .steps
            .first()
            .map_or("eid", |s| s.field.name.as_str());
        self.out.line(format!("string field = \"{first}\";"));
        self.out.block("try");
        for k in &key_lines {
            for l in k.lines() {
                self.out.line(l);
            }
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("eid".to_string(), |s| local(&s.field.name));
        self.coded_records(f, &key);
        for l in values.lines() {
            self.out.line(l);
        }
        let members: Vec<String> = change
            .values()
            .map(|x| format!("{} = {}", member(&x.field.name, name), local(&x.field.name)))
            .collect();
        self.out.line(format!("return new {name}"));
        self.out.open("{");
        for m in &members {
            self.out.line(format!("{m},"));
        }
        self.out.close("};");
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(field);");
        self.out.close("}");
        self.out.close("}");
    }

    fn coded_read_step(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, s: &Step<'_>) {
        let fname = &s.field.name;
        let l = local(fname);
        if s.role != Role::Key {
            self.out.line(format!("field = \"{fname}\";"));
        }
        if s.role == Role::Key {
            let (m, w) = (f.slot(fname), f.width(fname));
            let ty = cs_type(&s.wire);
            self.out.line(format!(
                "{ty} {l} = {};",
                cast(
                    &ty,
                    "ulong",
                    format!(
                        "Ascend(ref prev, stream.Value({m}, {w}), {}, at)",
                        key_max(&s.wire)
                    )
                )
            ));
            return;
        }
        let cond = self.presence(change, s, false);
        match &s.wire {
            Wire::Record { record, .. } => {
                let Some(sub) = self.low.plan(&record.name, None) else {
                    return;
                };
                let rname = record.name.clone();
                self.out.line(format!("{rname} {l} = null;"));
                if let Some(c) = &cond {
                    self.out.block(format!("if ({c})"));
                }
                let inner = format!("{}Field", l.trim_end_matches('_'));
                let single = sub.steps.len() == 1;
                if !single {
                    self.out.line(format!(
                        "string {inner} = \"{}\";",
                        sub.steps.first().map_or("", |x| x.field.name.as_str())
                    ));
                }
                self.out.line(format!("{l} = new {rname}();"));
                self.out.block("try");
                for (i, x) in sub.steps.iter().enumerate() {
                    if i > 0 && !single {
                        self.out.line(format!("{inner} = \"{}\";", x.field.name));
                    }
                    let path = format!("{fname}.{}", x.field.name);
                    let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                    let e = self.coded_read_value(f, &path, &x.wire, &predict);
                    self.out
                        .line(format!("{l}.{} = {e};", member(&x.field.name, &rname)));
                }
                self.out.close("}");
                self.out.block("catch (DecodeError e)");
                if single {
                    self.out.line(format!(
                        "throw e.Within(\"{}\");",
                        sub.steps.first().map_or("", |x| x.field.name.as_str())
                    ));
                } else {
                    self.out.line(format!("throw e.Within({inner});"));
                }
                self.out.close("}");
                if cond.is_some() {
                    self.out.close("}");
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                let e = self.coded_read_value(f, fname, w, &predict);
                let ty = cs_type(w);
                match cond {
                    Some(c) => {
                        let opt = if super::is_value_type(w) {
                            format!("{ty}?")
                        } else {
                            ty
                        };
                        self.out.line(format!("{opt} {l} = null;"));
                        self.out.block(format!("if ({c})"));
                        self.out.line(format!("{l} = {e};"));
                        self.out.close("}");
                    }
                    None => self.out.line(format!("{ty} {l} = {e};")),
                }
            }
        }
    }

    /// An expression reading one value of model `path` in wire form `w`, of the packed
    /// record's C# type for it; it throws a DecodeError.
    fn coded_read_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        predict: &Predict,
    ) -> String {
        let ty = cs_type(w);
        match predict {
            Predict::Velocity { member, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                f.helpers.insert(Helper::Velocity);
                f.helpers.insert(Helper::Predicted);
                let (lo, hi) = (literal(*min, "long"), literal(*max, "long"));
                return cast(
                    &ty,
                    "long",
                    format!(
                        "Predicted(stream.Signed({m}, {width}), Velocity(baseRecord == null ? (long?)null : (long)baseRecord.{member}, olderRecord == null ? (long?)null : (long)olderRecord.{member}, ticks, {lo}, {hi}), {lo}, {hi}, at)"
                    ),
                );
            }
            Predict::Quat { bits, base } => {
                f.helpers.insert(Helper::Quat);
                let p = const_name(path);
                if !f.quats.iter().any(|(q, _)| q == path) {
                    f.quats.push((path.to_string(), base.is_some()));
                }
                return match base {
                    Some(b) => {
                        format!("ReadQuat(ref stream, {b}, {p}_ON_BASE, {p}_WHOLE, {bits}, at)")
                    }
                    None => format!("ReadQuat(ref stream, null, null, {p}_WHOLE, {bits}, at)"),
                };
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int { signed: false, .. } => {
                cast(&ty, "ulong", format!("stream.Value({m}, {width})"))
            }
            Wire::Int { signed: true, .. } => {
                cast(&ty, "long", format!("stream.Signed({m}, {width})"))
            }
            Wire::Bucket(bp) if !bp.signed => {
                f.helpers.insert(Helper::AtMost);
                cast(
                    &ty,
                    "ulong",
                    format!(
                        "AtMost(stream.Value({m}, {width}), {}, at)",
                        literal(bp.max_value, "ulong")
                    ),
                )
            }
            Wire::Bucket(bp) => {
                f.helpers.insert(Helper::Within);
                cast(
                    &ty,
                    "long",
                    format!(
                        "Within(stream.Signed({m}, {width}), {}, {}, at)",
                        literal(bp.min_value, "long"),
                        literal(bp.max_value, "long")
                    ),
                )
            }
            Wire::Float { bits: 32, .. } => {
                format!("Bits.ToSingle((uint)stream.Value({m}, 32))")
            }
            Wire::Float { .. } => {
                format!("BitConverter.Int64BitsToDouble(unchecked((long)stream.Value({m}, 64)))")
            }
            Wire::Bool { .. } => format!("stream.Value({m}, 1) == 1"),
            Wire::Quant {
                wire,
                num,
                den,
                signed,
                min,
                max,
                ..
            } => {
                let s = scale(*num, *den);
                let bounded = matches!(wire.as_ref(), Wire::Bucket(_));
                match (signed, bounded) {
                    (false, false) => format!("stream.Value({m}, {width}) * {s}"),
                    (false, true) => {
                        f.helpers.insert(Helper::AtMost);
                        format!(
                            "AtMost(stream.Value({m}, {width}), {}, at) * {s}",
                            literal(*max, "ulong")
                        )
                    }
                    (true, false) => format!("stream.Signed({m}, {width}) * {s}"),
                    (true, true) => {
                        f.helpers.insert(Helper::Within);
                        format!(
                            "Within(stream.Signed({m}, {width}), {}, {}, at) * {s}",
                            literal(*min, "long"),
                            literal(*max, "long")
                        )
                    }
                }
            }
            Wire::Bits(b) => {
                f.helpers.insert(Helper::Set(b.name.clone()));
                format!("{}Of(stream.Value({m}, {width}), at)", b.name)
            }
            // WIRE-29: the value less `min`, as kind 12 packs it; past `max` is over_width.
            Wire::Ranged { min, max, .. } => {
                f.helpers.insert(Helper::Ranged);
                cast(
                    &ty,
                    "long",
                    format!(
                        "Ranged(stream.Value({m}, {width}), {}, {}, at)",
                        literal(i128::from(*min), "long"),
                        literal(i128::from(*max), "long")
                    ),
                )
            }
            // The plan refuses every other form in a group; were one to come, the file must not
            // compile rather than read it as anything.
            _ => format!("\n#error a coded frame cannot read `{path}`\n"),
        }
    }

    /// `CodeChange`: one change's values, coded into a sink.
    fn coded_code_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>) {
        let name = &change.record.name;
        let record = f.state.record.name.clone();
        let mut key_lines = Vec::new();
        let values = self.captured(|g| {
            for s in &change.steps {
                if s.role == Role::Key || (s.field.name == "mask" && s.presence.is_none()) {
                    let inner = g.captured(|g| g.coded_code_step(f, change, s));
                    key_lines.push(inner);
                } else {
                    g.coded_code_step(f, change, s);
                }
            }
        });
        self.out.line(summary(&[
            "Codes one change's values into <paramref name=\"sink\"/> (CODE-10..CODE-14): its id after"
                .to_string(),
            "<paramref name=\"prev\"/>'s, its mask, then each value the mask selects, predicted from its"
                .to_string(),
            "records in <paramref name=\"basis\"/>.".to_string(),
        ]));
        self.out.block(format!(
            "static void CodeChange({name} c, CodedSink sink, ref ulong? prev, CodedBasisTicks ticks, ICodedBasis<{record}> basis)"
        ));
        let first = change
            .steps
            .first()
            .map_or("eid", |s| s.field.name.as_str());
        self.out.line(format!("string field = \"{first}\";"));
        self.out.block("try");
        for k in &key_lines {
            for l in k.lines() {
                self.out.line(l);
            }
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("c.Eid".to_string(), |s| {
                format!("c.{}", member(&s.field.name, name))
            });
        self.coded_records(f, &key);
        for l in values.lines() {
            self.out.line(l);
        }
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(field);");
        self.out.close("}");
        self.out.close("}");
    }

    fn coded_code_step(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, s: &Step<'_>) {
        let fname = &s.field.name;
        let class = &change.record.name;
        let mm = member(fname, class);
        if s.role != Role::Key {
            self.out.line(format!("field = \"{fname}\";"));
        }
        if s.role == Role::Key {
            let (m, w) = (f.slot(fname), f.width(fname));
            let max = key_max(&s.wire);
            self.out.line(format!("ulong key = c.{mm};"));
            self.out.block(format!("if (key > {max})"));
            self.out.line("throw new EncodeError(ErrorKind.OverWidth);");
            self.out.close("}");
            self.out.block("if (prev.HasValue && key <= prev.Value)");
            self.out
                .line("throw new EncodeError(ErrorKind.NotAscending);");
            self.out.close("}");
            self.out.line(format!(
                "sink.Value({m}, {w}, prev.HasValue ? key - prev.Value : key);"
            ));
            self.out.line("prev = key;");
            return;
        }
        if s.field.name == "mask" && s.presence.is_none() {
            // The presence tests of the values read the mask's local, as the reader's do.
            let e = self.coded_code_value(f, fname, &s.wire, &format!("c.{mm}"), &Predict::None);
            self.out.line(format!("{e};"));
            self.out
                .line(format!("{} {} = c.{mm};", cs_type(&s.wire), local(fname)));
            return;
        }
        let cond = self.presence(change, s, false);
        let value_type = super::is_value_type(&s.wire);
        let given = if value_type {
            format!("c.{mm}.HasValue")
        } else {
            format!("c.{mm} != null")
        };
        if let Some(c) = &cond {
            self.out.line(format!("Wire.Presence({given}, {c});"));
            self.out.block(format!("if ({given})"));
        }
        match &s.wire {
            Wire::Record { record, .. } => {
                if let Some(sub) = self.low.plan(&record.name, None) {
                    let rname = record.name.clone();
                    let inner = format!("{}Field", local(fname).trim_end_matches('_'));
                    let single = sub.steps.len() == 1;
                    if !single {
                        self.out.line(format!(
                            "string {inner} = \"{}\";",
                            sub.steps.first().map_or("", |x| x.field.name.as_str())
                        ));
                    }
                    self.out.block("try");
                    for (i, x) in sub.steps.iter().enumerate() {
                        if i > 0 && !single {
                            self.out.line(format!("{inner} = \"{}\";", x.field.name));
                        }
                        let path = format!("{fname}.{}", x.field.name);
                        let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                        let v = format!("c.{mm}.{}", member(&x.field.name, &rname));
                        let e = self.coded_code_value(f, &path, &x.wire, &v, &predict);
                        self.out.line(format!("{e};"));
                    }
                    self.out.close("}");
                    self.out.block("catch (EncodeError e)");
                    if single {
                        self.out.line(format!(
                            "throw e.Within(\"{}\");",
                            sub.steps.first().map_or("", |x| x.field.name.as_str())
                        ));
                    } else {
                        self.out.line(format!("throw e.Within({inner});"));
                    }
                    self.out.close("}");
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                let v = if cond.is_some() && value_type {
                    format!("c.{mm}.Value")
                } else {
                    format!("c.{mm}")
                };
                let e = self.coded_code_value(f, fname, w, &v, &predict);
                self.out.line(format!("{e};"));
            }
        }
        if cond.is_some() {
            self.out.close("}");
        }
    }

    /// A statement (without its `;`) coding `v` (of the packed record's type) as model `path`
    /// in wire form `w`; it throws an EncodeError.
    fn coded_code_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        v: &str,
        predict: &Predict,
    ) -> String {
        match predict {
            Predict::Velocity { member, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                f.helpers.insert(Helper::Velocity);
                f.helpers.insert(Helper::Residual);
                let (lo, hi) = (literal(*min, "long"), literal(*max, "long"));
                return format!(
                    "sink.Signed({m}, {width}, Residual({v}, Velocity(baseRecord == null ? (long?)null : (long)baseRecord.{member}, olderRecord == null ? (long?)null : (long)olderRecord.{member}, ticks, {lo}, {hi}), {lo}, {hi}))"
                );
            }
            Predict::Quat { bits, base } => {
                f.helpers.insert(Helper::Quat);
                let p = const_name(path);
                if !f.quats.iter().any(|(q, _)| q == path) {
                    f.quats.push((path.to_string(), base.is_some()));
                }
                return match base {
                    Some(b) => {
                        format!("CodeQuat(sink, {v}, {b}, {p}_ON_BASE, {p}_WHOLE, {bits})")
                    }
                    None => format!("CodeQuat(sink, {v}, null, null, {p}_WHOLE, {bits})"),
                };
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int { signed: false, .. } => format!("sink.Value({m}, {width}, {v})"),
            Wire::Int { signed: true, .. } => format!("sink.Signed({m}, {width}, {v})"),
            Wire::Bucket(bp) if !bp.signed => {
                f.helpers.insert(Helper::Bounded);
                format!(
                    "sink.Value({m}, {width}, Bounded({v}, {}))",
                    literal(bp.max_value, "ulong")
                )
            }
            Wire::Bucket(bp) => {
                f.helpers.insert(Helper::BoundedSigned);
                format!(
                    "sink.Signed({m}, {width}, BoundedSigned({v}, {}, {}))",
                    literal(bp.min_value, "long"),
                    literal(bp.max_value, "long")
                )
            }
            Wire::Float { bits: 32, .. } => format!("sink.Value({m}, 32, Bits.FromSingle({v}))"),
            Wire::Float { .. } => format!(
                "sink.Value({m}, 64, unchecked((ulong)BitConverter.DoubleToInt64Bits({v})))"
            ),
            Wire::Bool { .. } => format!("sink.Value({m}, 1, {v} ? 1UL : 0UL)"),
            Wire::Quant {
                num,
                den,
                signed,
                min,
                max,
                ..
            } => {
                let s = scale(*num, *den);
                let s = s.trim_start_matches('(').trim_end_matches(')');
                if *signed {
                    format!(
                        "sink.Signed({m}, {width}, Quant.Int({v}, {s}, {}, {}))",
                        literal(*min, "long"),
                        literal(*max, "long")
                    )
                } else {
                    format!(
                        "sink.Value({m}, {width}, Quant.Uint({v}, {s}, {}))",
                        literal(*max, "ulong")
                    )
                }
            }
            Wire::Bits(b) => {
                f.helpers.insert(Helper::Set(b.name.clone()));
                format!("sink.Value({m}, {width}, {}Bits({v}))", b.name)
            }
            // WIRE-29: refused outside its range; the value less `min`, as kind 12 packs it.
            Wire::Ranged { min, max, .. } => {
                let (lo, hi) = (
                    literal(i128::from(*min), "long"),
                    literal(i128::from(*max), "long"),
                );
                format!(
                    "Wire.InRange((long){v}, {lo}, {hi});\nsink.Value({m}, {width}, unchecked((ulong)((long){v} - {lo})))"
                )
            }
            _ => format!("\n#error a coded frame cannot write `{path}`\n"),
        }
    }

    /// The helpers the frame's code used, and the records' lookup.
    fn coded_helpers(&mut self, f: &Frame<'_>) {
        let record = &f.state.record.name;
        self.out.blank();
        self.out.line(summary(&[
            "An id from its gap after <paramref name=\"prev\"/> (CODE-10, the first absolute): the ids"
                .to_string(),
            "ascend, and none is past <paramref name=\"max\"/>.".to_string(),
        ]));
        self.out
            .block("static ulong Ascend(ref ulong? prev, ulong gap, ulong max, long at)");
        self.out.line("ulong v = gap;");
        self.out.block("if (prev.HasValue)");
        self.out.block("if (gap == 0)");
        self.out
            .line("throw new DecodeError(ErrorKind.NotAscending, at, -1);");
        self.out.close("}");
        self.out.line("v = unchecked(prev.Value + gap);");
        self.out.block("if (v < gap)");
        self.out
            .line("throw new DecodeError(ErrorKind.OverWidth, at, -1);");
        self.out.close("}");
        self.out.close("}");
        self.out.block("if (v > max)");
        self.out
            .line("throw new DecodeError(ErrorKind.OverWidth, at, -1);");
        self.out.close("}");
        self.out.line("prev = v;");
        self.out.line("return v;");
        self.out.close("}");
        if f.uses_base || f.uses_older {
            self.out.blank();
            self.out.line(summary(&[
                "The entity's records in the base and in the older snapshot (CODE-13, CODE-14): none in a"
                    .to_string(),
                "keyframe, no older one when <c>older</c> is 0, none for an id past a <c>u16</c>."
                    .to_string(),
            ]));
            self.out.block(format!(
                "static void Records(ulong eid, CodedBasisTicks ticks, ICodedBasis<{record}> basis, out {record} baseRecord, out {record} olderRecord)"
            ));
            self.out.line("baseRecord = null;");
            self.out.line("olderRecord = null;");
            self.out
                .block("if (ticks.Keyframe || eid > ushort.MaxValue)");
            self.out.line("return;");
            self.out.close("}");
            self.out.line("baseRecord = basis.Base((int)eid);");
            self.out.block("if (ticks.Older != 0)");
            self.out.line("olderRecord = basis.Older((int)eid);");
            self.out.close("}");
            self.out.close("}");
        }
        let over_decode = "throw new DecodeError(ErrorKind.OverWidth, at, -1);";
        let over_encode = "throw new EncodeError(ErrorKind.OverWidth);";
        for h in &f.helpers {
            self.out.blank();
            match h {
                Helper::AtMost => {
                    self.out.line("/// <summary>A decoded code its packed code can hold: at most <paramref name=\"max\"/> (<c>over_width</c>).</summary>");
                    self.out
                        .block("static ulong AtMost(ulong v, ulong max, long at)");
                    self.out.block("if (v > max)");
                    self.out.line(over_decode);
                    self.out.close("}");
                    self.out.line("return v;");
                    self.out.close("}");
                }
                Helper::Within => {
                    self.out.line("/// <summary>A decoded signed code its packed code can hold: within <paramref name=\"min\"/>..=<paramref name=\"max\"/>.</summary>");
                    self.out
                        .block("static long Within(long v, long min, long max, long at)");
                    self.out.block("if (v < min || v > max)");
                    self.out.line(over_decode);
                    self.out.close("}");
                    self.out.line("return v;");
                    self.out.close("}");
                }
                Helper::Bounded => {
                    self.out.line("/// <summary>A value its packed code can hold, as kind 12 would refuse it: at most <paramref name=\"max\"/>.</summary>");
                    self.out.block("static ulong Bounded(ulong v, ulong max)");
                    self.out.block("if (v > max)");
                    self.out.line(over_encode);
                    self.out.close("}");
                    self.out.line("return v;");
                    self.out.close("}");
                }
                Helper::BoundedSigned => {
                    self.out.line("/// <summary>A signed value its packed code can hold: within <paramref name=\"min\"/>..=<paramref name=\"max\"/>.</summary>");
                    self.out
                        .block("static long BoundedSigned(long v, long min, long max)");
                    self.out.block("if (v < min || v > max)");
                    self.out.line(over_encode);
                    self.out.close("}");
                    self.out.line("return v;");
                    self.out.close("}");
                }
                Helper::Ranged => {
                    self.out.line(summary(&[
                        "WIRE-29: a ranged value from its code, the value less <paramref name=\"min\"/>; past"
                            .to_string(),
                        "<paramref name=\"max\"/> is <c>over_width</c>.".to_string(),
                    ]));
                    self.out
                        .block("static long Ranged(ulong v, long min, long max, long at)");
                    self.out.block("if (v > unchecked((ulong)(max - min)))");
                    self.out.line(over_decode);
                    self.out.close("}");
                    self.out.line("return unchecked(min + (long)v);");
                    self.out.close("}");
                }
                Helper::Velocity => {
                    self.out.line(summary(&[
                        "CODE-13: the step the entity's motion from the older snapshot to the base predicts"
                            .to_string(),
                        "<c>gap</c> ticks on, <c>extrapolate(base - older, gap, older)</c> clamped to the step's"
                            .to_string(),
                        "range; 0 without both records.".to_string(),
                    ]));
                    self.out.block("static long Velocity(long? b, long? o, CodedBasisTicks ticks, long min, long max)");
                    self.out
                        .block("if (!b.HasValue || !o.HasValue || ticks.Older == 0)");
                    self.out.line("return 0;");
                    self.out.close("}");
                    self.out.line(
                        "uint gap = Math.Min(unchecked(ticks.Tick - ticks.BaseTick), 65535u);",
                    );
                    self.out.line("long d = unchecked(b.Value - o.Value);");
                    self.out.line("// Saturating, as Rust's saturating_sub.");
                    self.out
                        .block("if (((b.Value ^ o.Value) & (b.Value ^ d)) < 0)");
                    self.out
                        .line("d = b.Value < 0 ? long.MinValue : long.MaxValue;");
                    self.out.close("}");
                    self.out
                        .line("long v = Coded.Extrapolate(d, gap, ticks.Older);");
                    self.out.line("return Math.Min(Math.Max(v, min), max);");
                    self.out.close("}");
                }
                Helper::Predicted => {
                    self.out.line(summary(&[
                        "A predicted value from its difference <paramref name=\"d\"/> from the prediction"
                            .to_string(),
                        "<paramref name=\"p\"/>: within <paramref name=\"min\"/>..=<paramref name=\"max\"/> (CODE-13, <c>over_width</c>)."
                            .to_string(),
                    ]));
                    self.out.block(
                        "static long Predicted(long d, long p, long min, long max, long at)",
                    );
                    self.out.line("long v = unchecked(p + d);");
                    self.out
                        .block("if (((p ^ v) & (d ^ v)) < 0 || v < min || v > max)");
                    self.out.line(over_decode);
                    self.out.close("}");
                    self.out.line("return v;");
                    self.out.close("}");
                }
                Helper::Residual => {
                    self.out.line(summary(&[
                        "What a predicted value codes: its difference from the prediction <paramref name=\"p\"/>,"
                            .to_string(),
                        "the value within <paramref name=\"min\"/>..=<paramref name=\"max\"/>.".to_string(),
                    ]));
                    self.out
                        .block("static long Residual(long v, long p, long min, long max)");
                    self.out.block("if (v < min || v > max)");
                    self.out.line(over_encode);
                    self.out.close("}");
                    self.out.line("return v - p;");
                    self.out.close("}");
                }
                Helper::Set(name) => {
                    self.out.line(format!(
                        "/// <summary>A decoded <see cref=\"{name}\"/>, checked as kind 12 checks it.</summary>"
                    ));
                    self.out
                        .block(format!("static {name} {name}Of(ulong v, long at)"));
                    self.out
                        .line(format!("ErrorKind? fault = {name}Codec.Fault(v);"));
                    self.out.block("if (fault.HasValue)");
                    self.out.line("throw new DecodeError(fault.Value, at, -1);");
                    self.out.close("}");
                    self.out.line(format!("return ({name})v;"));
                    self.out.close("}");
                    self.out.blank();
                    self.out.line(format!(
                        "/// <summary>The bits of a <see cref=\"{name}\"/>, refused as kind 12 refuses them.</summary>"
                    ));
                    self.out.block(format!("static ulong {name}Bits({name} v)"));
                    self.out
                        .line(format!("ErrorKind? fault = {name}Codec.Fault((ulong)v);"));
                    self.out.block("if (fault.HasValue)");
                    self.out.line("throw new EncodeError(fault.Value);");
                    self.out.close("}");
                    self.out.line("return (ulong)v;");
                    self.out.close("}");
                }
                Helper::Quat => self.coded_quat_helpers(),
            }
        }
    }

    /// `ReadQuat` and `CodeQuat` (CODE-14).
    fn coded_quat_helpers(&mut self) {
        self.out.line(summary(&[
            "A <c>quat(bits)</c> (CODE-14). When <paramref name=\"baseQ\"/> holds one: whether the largest"
                .to_string(),
            "component is the base's (model <c>onBase[0]</c>), and if so the three components as differences"
                .to_string(),
            "from the base's (<c>onBase[1..]</c>, <c>bits + 1</c> bits). Otherwise the largest's index and"
                .to_string(),
            "the three as kind 12 codes them (<c>whole</c>). The canonical rules then hold as kind 12's."
                .to_string(),
        ]));
        self.out.block("static SmallestThree ReadQuat(ref CodedDecoder stream, SmallestThree? baseQ, int[] onBase, int[] whole, int bits, long at)");
        self.out.line("bool same = false;");
        self.out.block("if (baseQ.HasValue)");
        self.out.block("try");
        self.out.line("same = stream.Value(onBase[0], 1) == 1;");
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(\"same\");");
        self.out.close("}");
        self.out.close("}");
        self.out.line("SmallestThree q;");
        self.out.block("if (same)");
        self.out.line("SmallestThree b = baseQ.Value;");
        self.out
            .line("short a0 = QuatStep(ref stream, onBase[1], bits, b.A, at);");
        self.out
            .line("short a1 = QuatStep(ref stream, onBase[2], bits, b.B, at);");
        self.out
            .line("short a2 = QuatStep(ref stream, onBase[3], bits, b.C, at);");
        self.out
            .line("q = new SmallestThree(b.Largest, a0, a1, a2);");
        self.out.close("}");
        self.out.block("else");
        self.out.line("byte largest;");
        self.out.block("try");
        self.out.line("largest = (byte)stream.Value(whole[0], 2);");
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(\"largest\");");
        self.out.close("}");
        self.out
            .line("// CODE-14: the base's largest component travels as `same`, never again whole.");
        self.out
            .block("if (baseQ.HasValue && baseQ.Value.Largest == largest)");
        self.out.line("throw new DecodeError(ErrorKind.NonCanonical, stream.Offset(), -1).Within(\"largest\");");
        self.out.close("}");
        self.out
            .line("short c0 = QuatWhole(ref stream, whole[1], bits);");
        self.out
            .line("short c1 = QuatWhole(ref stream, whole[2], bits);");
        self.out
            .line("short c2 = QuatWhole(ref stream, whole[3], bits);");
        self.out.line("q = new SmallestThree(largest, c0, c1, c2);");
        self.out.close("}");
        self.out
            .line("ErrorKind? fault = SmallestThree.Check(q, bits);");
        self.out.block("if (fault.HasValue)");
        self.out.line("throw new DecodeError(fault.Value, at, -1);");
        self.out.close("}");
        self.out.line("return q;");
        self.out.close("}");
        self.out.blank();
        self.out.line(summary(&[
            "A component of a quaternion coded against the base's: its difference from".to_string(),
            "<paramref name=\"from\"/>, the sum within <c>bits</c> bits.".to_string(),
        ]));
        self.out.block(
            "static short QuatStep(ref CodedDecoder stream, int slot, int bits, short from, long at)",
        );
        self.out.line("long d;");
        self.out.block("try");
        self.out.line("d = stream.Signed(slot, (byte)(bits + 1));");
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(\"d\");");
        self.out.close("}");
        self.out.line("long half = 1L << (bits - 1);");
        self.out.line("long v = from + d;");
        self.out.block("if (v < -half || v >= half)");
        self.out
            .line("throw new DecodeError(ErrorKind.OverWidth, at, -1);");
        self.out.close("}");
        self.out.line("return (short)v;");
        self.out.close("}");
        self.out.blank();
        self.out.line(
            "/// <summary>A component of a quaternion coded whole, as kind 12 lays it.</summary>",
        );
        self.out
            .block("static short QuatWhole(ref CodedDecoder stream, int slot, int bits)");
        self.out.line("long raw;");
        self.out.block("try");
        self.out.line("raw = (long)stream.Value(slot, (byte)bits);");
        self.out.close("}");
        self.out.block("catch (DecodeError e)");
        self.out.line("throw e.Within(\"c\");");
        self.out.close("}");
        self.out.line("long half = 1L << (bits - 1);");
        self.out
            .line("// Two's complement in `bits` bits, as kind 12 lays it.");
        self.out
            .line("return (short)(raw >= half ? raw - 2 * half : raw);");
        self.out.close("}");
        self.out.blank();
        self.out.line(
            "/// <summary>Codes a <c>quat(bits)</c> as <see cref=\"ReadQuat\"/> reads it, refusing what kind 12 refuses.</summary>",
        );
        self.out.block("static void CodeQuat(CodedSink sink, SmallestThree q, SmallestThree? baseQ, int[] onBase, int[] whole, int bits)");
        self.out
            .line("ErrorKind? fault = SmallestThree.Check(q, bits);");
        self.out.block("if (fault.HasValue)");
        self.out.line("throw new EncodeError(fault.Value);");
        self.out.close("}");
        self.out.block("if (baseQ.HasValue)");
        self.out.line("SmallestThree b = baseQ.Value;");
        self.out.line("bool same = b.Largest == q.Largest;");
        self.out.block("try");
        self.out.line("sink.Value(onBase[0], 1, same ? 1UL : 0UL);");
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"same\");");
        self.out.close("}");
        self.out.block("if (same)");
        self.out.block("for (int i = 0; i < 3; i++)");
        self.out.block("try");
        self.out
            .line("sink.Signed(onBase[i + 1], (byte)(bits + 1), (long)q.Rest(i) - b.Rest(i));");
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"d\");");
        self.out.close("}");
        self.out.close("}");
        self.out.line("return;");
        self.out.close("}");
        self.out.close("}");
        self.out.block("try");
        self.out.line("sink.Value(whole[0], 2, q.Largest);");
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"largest\");");
        self.out.close("}");
        self.out.line("ulong mask = (1UL << bits) - 1;");
        self.out.block("for (int i = 0; i < 3; i++)");
        self.out.block("try");
        self.out.line(
            "sink.Value(whole[i + 1], (byte)bits, unchecked((ulong)(long)q.Rest(i)) & mask);",
        );
        self.out.close("}");
        self.out.block("catch (EncodeError e)");
        self.out.line("throw e.Within(\"c\");");
        self.out.close("}");
        self.out.close("}");
        self.out.close("}");
    }
}

#[cfg(test)]
mod tests {
    use super::replace_word;

    #[test]
    fn only_whole_words_are_replaced() {
        assert_eq!(
            replace_word(
                "AckedPacked v = new AckedPacked(); AckedPackedX",
                "AckedPacked",
                "AckedCoded"
            ),
            "AckedCoded v = new AckedCoded(); AckedPackedX"
        );
    }
}
