//! The coded frame of a state in TypeScript (kind 13's profile, `docs/spec/coded.md`), the port
//! of the Rust printer (`gen/rust/coded.rs`), byte for byte and error for error: the packed
//! frame's header, removals, check and events as `protocol.ts` reads and writes them, and its
//! changes range-coded through the runtime's `coded.ts`, each value under a model of its own
//! (CODE-6..CODE-15), predicted from the base and older snapshot a `CodedBasis` gives.
//!
//! The frame decodes to the packed frame's body type, so a coded change applies as a packed one
//! does (ACK-16). Everything printed is derived from the packed frame's lowering and the state's
//! [`CodedPlan`]; a value form the coded profile has no code for prints an expression that does
//! not compile, naming the field, rather than code that reads it as anything.

use super::{article, local, scale_arg, tsdoc, Gen, WIDTH};
use crate::lower::{RecordPlan, Role, Step, Wire};
use crate::model::CodedForm;
use crate::state::{CodedPlan, Holds, StatePlan};

/// How one value of a change is predicted.
enum Predict {
    /// Coded as its packed value (CODE-10..CODE-12).
    None,
    /// `coded velocity` (CODE-13): a step of record field `field`, within `min..=max`.
    Velocity { field: String, min: i128, max: i128 },
    /// A quaternion (CODE-14); `base` is the expression of the base's, when `coded base`.
    Quat { bits: u8, base: Option<String> },
}

/// A coded frame being printed.
struct Frame<'p> {
    state: &'p StatePlan,
    coded: &'p CodedPlan,
    /// `ACKED_CODED`: the prefix of the frame's constants.
    upper: String,
    /// `AckedCoded`.
    name: String,
    /// A value predicts from the base or the older snapshot: the change looks its records up.
    uses_basis: bool,
    /// A value predicts from the older snapshot (a velocity).
    uses_older: bool,
}

impl Frame<'_> {
    /// The first slot of model `path`, as the frame's slot table names it.
    fn slot(&self, path: &str) -> String {
        let ident = !path.is_empty()
            && path.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !path.starts_with(|c: char| c.is_ascii_digit());
        if ident {
            format!("{}_AT.{path}", self.upper)
        } else {
            format!("{}_AT[\"{path}\"]", self.upper)
        }
    }

    /// `W` of model `path` (0 for a model the plan does not have: nothing is then coded).
    fn width(&self, path: &str) -> u8 {
        self.coded.model(path).map_or(0, |m| m.w)
    }
}

/// An expression TypeScript refuses to compile, saying why: a form the coded profile has no
/// code for (the plan refuses every such form; were one to come, nothing must read it wrongly).
fn unsupported(what: &str) -> String {
    format!("((): never => \"a coded frame cannot {what}\")()")
}

/// The largest id a key of wire form `w` holds.
fn key_max(w: &Wire<'_>) -> Option<i128> {
    match w {
        Wire::Bucket(bp) => Some(i128::from(bp.max_code)),
        Wire::Int { bits, .. } if *bits <= 53 => Some((1i128 << bits) - 1),
        _ => None,
    }
}

impl Gen<'_, '_> {
    /// The coded frame of `state`, when it declares one: its type, JSON fields, models and
    /// tables, and its reader and writer against a basis.
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
            upper: coded.frame_name.to_ascii_uppercase(),
            name: coded.frame.clone(),
            uses_basis: false,
            uses_older: false,
        };
        // The change's functions first, so that the rest knows whether they use the basis.
        let read_change = self.coded_captured(|g| g.coded_read_change(&mut f, change));
        let code_change = self.coded_captured(|g| g.coded_code_change(&mut f, change));
        self.out.blank();
        self.coded_interface(&f, frame);
        self.out.blank();
        self.coded_consts(&f);
        self.out.blank();
        self.coded_read_basis(&f, frame);
        self.out.blank();
        self.coded_read(&f, frame, body);
        self.out.blank();
        self.coded_write(&f, frame, body);
        self.out.blank();
        self.coded_frame_fns(&f);
        self.out.blank();
        for l in read_change.lines().chain(std::iter::once("")) {
            self.coded_raw(l);
        }
        for l in code_change.lines() {
            self.coded_raw(l);
        }
        if f.uses_basis {
            self.out.blank();
            self.coded_records(&f);
        }
    }

    /// `CODED_FRAMES`: every coded frame by its name in a session, read and written against a
    /// basis, with the JSON forms of the frame and of its state's record (what a testee serves
    /// beside `FRAME_NAMES`). Nothing for a spec without one.
    pub(super) fn coded_frames_by_name(&mut self, states: &[StatePlan]) {
        let coded: Vec<(&CodedPlan, &str)> = states
            .iter()
            .filter_map(|s| s.coded.as_ref().map(|c| (c, s.record.name.as_str())))
            .collect();
        if coded.is_empty() {
            return;
        }
        self.out.blank();
        self.out.line(tsdoc(&[
            "The coded frames by name, each read and written against the records of the states its"
                .to_string(),
            "prefix names (`docs/spec/coded.md`): what serves frames by name, beside `FRAME_NAMES`."
                .to_string(),
        ]));
        self.out
            .open("export const CODED_FRAMES: { readonly [name: string]: CodedFrameCodec } = {");
        for (c, record) in coded {
            let name = &c.frame;
            self.out.open(format!("{}: {{", c.frame_name));
            self.out.line(format!("frame: {name}Json,"));
            self.out.line(format!("record: {record}Json,"));
            for (member, body) in [
                (
                    "decode: (bytes, basis) =>",
                    format!("decode{name}(bytes, basis as CodedBasis<{record}>),"),
                ),
                (
                    "encode: (value, basis) =>",
                    format!("encode{name}(value as {name}, basis as CodedBasis<{record}>),"),
                ),
            ] {
                if self.out.column() + member.len() + 1 + body.len() <= WIDTH {
                    self.out.line(format!("{member} {body}"));
                } else {
                    self.out.line(member);
                    self.out.indent_line(body);
                }
            }
            self.out.close("},");
        }
        self.out.close("};");
    }

    /// A line printed as it is, its indentation its own (a captured line).
    fn coded_raw(&mut self, line: &str) {
        let indent = std::mem::take(&mut self.out.indent);
        self.out.line(line);
        self.out.indent = indent;
    }

    /// A statement as [`Gen::stmt`] prints it, with an argument still too long for its line
    /// broken in turn (a call at its arguments, a list an element a line), as prettier breaks it.
    fn coded_stmt(&mut self, text: &str) {
        for line in coded_wrap(text, self.out.column()) {
            self.out.line(line);
        }
    }

    /// Runs `print` into an empty buffer at the current indentation and returns what it printed.
    fn coded_captured(&mut self, print: impl FnOnce(&mut Self)) -> String {
        let outer = std::mem::replace(&mut self.out, super::Code::with_unit(super::INDENT));
        print(self);
        std::mem::replace(&mut self.out, outer).finish()
    }

    /// The interface: the packed frame's fields with `older` before the body; and its JSON form.
    fn coded_interface(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>) {
        let c = f.coded;
        let docs = crate::model::Docs {
            doc: c.docs.clone(),
            comments: Vec::new(),
        };
        let name = &f.name;
        self.docs(&docs, &format!("The coded frame `{name}`."));
        self.out.open(format!("export interface {name} {{"));
        let mut json = Vec::new();
        for s in frame.values() {
            if s.field.name == "body" {
                self.out.line(tsdoc(&[
                    "Ticks from the base back to the older snapshot the changes are predicted from; 0"
                        .to_string(),
                    "for none, as in a keyframe (CODE-2).".to_string(),
                ]));
                self.out.line("older: number;");
                self.out.line(
                    "/** The changes, decoded to the packed frame's: the same values, range-coded. */",
                );
                json.push("[\"older\", \"u8\"],".to_string());
            } else {
                self.docs(&s.field.docs, &format!("The `{}` field.", s.field.name));
            }
            let ty = Self::ts_type(&s.wire);
            self.out.line(if s.presence.is_some() {
                format!("{}?: {ty} | undefined;", s.field.name)
            } else {
                format!("{}: {ty};", s.field.name)
            });
            json.push(format!(
                "[\"{}\", {}{}],",
                s.field.name,
                Self::json_type(&s.wire),
                if s.presence.is_some() { ", true" } else { "" }
            ));
        }
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/** The fields of {{@link {name}}} in the JSON form. */"
        ));
        self.out
            .open(format!("export const {name}Json: RecordJson = ["));
        for j in &json {
            self.out.line(j);
        }
        self.out.close("];");
    }

    /// The models, the slots, the tables and each model's first slot.
    fn coded_consts(&mut self, f: &Frame<'_>) {
        let c = f.coded;
        let (name, upper) = (&f.name, &f.upper);
        self.out.line(tsdoc(&[
            format!(
                "The models of {{@link {name}}}'s values, `[name, W]`, in the order they are first"
            ),
            "coded (CODE-15): each value's bit length and bits adapt under its own.".to_string(),
        ]));
        self.out.open(format!(
            "export const {upper}_MODELS: readonly (readonly [string, number])[] = ["
        ));
        for m in &c.models {
            self.out.line(format!("[\"{}\", {}],", m.name, m.w));
        }
        self.out.close("];");
        self.out.blank();
        self.out.line(format!(
            "/** The slots of every model of {{@link {name}}}, one after another (CODE-8). */"
        ));
        self.out
            .line(format!("export const {upper}_SLOTS = {};", c.slots()));
        self.out.blank();
        if c.probs.is_empty() {
            self.out.line(tsdoc(&[
                format!("Every slot's starting probability of {{@link {name}}} (CODE-16): the frame names no"),
                "tables, so each starts at even odds, 2048.".to_string(),
            ]));
            self.out.line(format!(
                "export const {upper}_TABLES: readonly number[] = new Array({upper}_SLOTS).fill(2048);"
            ));
        } else {
            let file = c.tables.as_deref().unwrap_or("the tables file");
            self.out.line(tsdoc(&[format!(
                "Every slot's starting probability of {{@link {name}}} (CODE-16), from `{file}`."
            )]));
            // Rows of 16 under each model's name, which prettier would refill.
            self.out.line("// prettier-ignore");
            self.out.open(format!(
                "export const {upper}_TABLES: readonly number[] = ["
            ));
            for m in &c.models {
                let end = (m.at + crate::state::model_slots(m.w)).min(c.probs.len());
                let ps = c.probs.get(m.at..end).unwrap_or_default();
                self.out.line(format!("// {}", m.name));
                for row in ps.chunks(16) {
                    let row: Vec<String> = row.iter().map(|p| p.to_string()).collect();
                    self.out.line(format!("{},", row.join(", ")));
                }
            }
            self.out.close("];");
        }
        self.out.blank();
        self.out.line(format!(
            "/** The first slot of each model of {{@link {name}}} (CODE-8), by the model's name. */"
        ));
        self.out.open(format!("const {upper}_AT = {{"));
        for m in &c.models {
            let key = if f.slot(&m.name).contains('[') {
                format!("\"{}\"", m.name)
            } else {
                m.name.clone()
            };
            self.out.line(format!("{key}: {},", m.at));
        }
        self.out.close("};");
    }

    /// The statements of the packed frame's prefix (every step before the body), its kind the
    /// coded frame's, each named as the one being read.
    fn coded_prefix_read(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, first: bool) {
        for (i, s) in frame
            .steps
            .iter()
            .take_while(|s| s.field.name != "body")
            .enumerate()
        {
            if i > 0 || !first {
                self.out.line(format!("field = \"{}\";", s.field.name));
            }
            self.read_step(frame, s, Some(i128::from(f.coded.kind)));
        }
    }

    /// `readAckedCodedBasis`: the prefix read up to `older`.
    fn coded_read_basis(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>) {
        let name = &f.name;
        let flags = &f.state.acked_flags;
        self.out.line(tsdoc(&[
            format!("What {} {{@link {name}}}'s basis is looked up by, read from its prefix before its", article(name)),
            "body (CODE-2, CODE-3): its tick and its base's, whether it is a keyframe, and `older`."
                .to_string(),
        ]));
        self.out.open(format!(
            "export function read{name}Basis(bytes: Uint8Array): CodedBasisTicks {{"
        ));
        self.out.line("const r = new Reader(bytes);");
        self.out.line(format!(
            "let field = \"{}\";",
            frame
                .steps
                .first()
                .map_or("kind", |s| s.field.name.as_str())
        ));
        self.out.open("try {");
        let text = self.coded_captured(|g| {
            g.out.indent = 2;
            g.coded_prefix_read(f, frame, true);
        });
        // The prefix's other fields are read (and checked) only to reach `older`: what is not
        // used after its read is read into nothing.
        let kept = ["tick", "base_tick", "flags"];
        let lines: Vec<&str> = text.lines().collect();
        let declared = |t: &str| -> Option<String> {
            let rest = t
                .strip_prefix("const ")
                .or_else(|| t.strip_prefix("let "))?;
            let end = rest.find([' ', ':'])?;
            Some(rest[..end].to_string())
        };
        let unused: Vec<String> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let name = declared(l.trim_start())?;
                let assign = format!("{name} = ");
                let used = lines[i + 1..].iter().any(|x| {
                    let x = x.trim_start();
                    !x.starts_with(&assign) && has_word(x, &name)
                });
                (!kept.contains(&name.as_str()) && !used).then_some(name)
            })
            .collect();
        for l in &lines {
            let t = l.trim_start();
            let pad = &l[..l.len() - t.len()];
            let name = declared(t).filter(|n| unused.contains(n));
            let line = match name {
                Some(_) if t.starts_with("let ") && !t.contains(" = ") => continue,
                Some(_) => format!("{pad}{}", t.split_once(" = ").map_or(t, |x| x.1)),
                None => match unused.iter().find(|n| t.starts_with(&format!("{n} = "))) {
                    Some(n) => format!("{pad}{}", &t[n.len() + 3..]),
                    None => l.to_string(),
                },
            };
            self.coded_raw(&line);
        }
        self.out.line("field = \"older\";");
        self.out.line("const older = r.u8();");
        self.out.open("return {");
        self.out.line("tick,");
        self.out.line("baseTick: base_tick,");
        self.out
            .line(format!("keyframe: (flags & {flags}.KEYFRAME) !== 0,"));
        self.out.line("older,");
        self.out.close("};");
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
    }

    /// `readAckedCoded` and the body's reader.
    fn coded_read(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, body: &RecordPlan<'_>) {
        let (name, upper) = (&f.name, &f.upper);
        let flags = &f.state.acked_flags;
        let record = &f.state.record.name;
        self.out.line(tsdoc(&[
            format!("Reads {} {{@link {name}}}, its changes predicted from `basis`: the base and older", article(name)),
            format!("snapshot its prefix names ({{@link read{name}Basis}}), which the caller holds (CODE-3)."),
        ]));
        self.open_fn(format!(
            "export function read{name}(r: Reader, basis: CodedBasis<{record}>): {name} {{"
        ));
        self.out.line(format!(
            "let field = \"{}\";",
            frame
                .steps
                .first()
                .map_or("kind", |s| s.field.name.as_str())
        ));
        self.out.open("try {");
        self.coded_prefix_read(f, frame, true);
        self.out.line("field = \"older\";");
        self.out.line("const at = r.offset;");
        self.out.line("const older = r.u8();");
        self.out
            .line("// CODE-2: a keyframe has no older snapshot.");
        self.out.open(format!(
            "if ((flags & {flags}.KEYFRAME) !== 0 && older !== 0) {{"
        ));
        self.out
            .line("throw new DecodeError(\"invalid_condition\", at, undefined);");
        self.out.close("}");
        self.out.line("field = \"body\";");
        self.out.open("const ticks: CodedBasisTicks = {");
        self.out.line("tick,");
        self.out.line("baseTick: base_tick,");
        self.out
            .line(format!("keyframe: (flags & {flags}.KEYFRAME) !== 0,"));
        self.out.line("older,");
        self.out.close("};");
        self.out
            .line(format!("const body = read{name}Changes(r, ticks, basis);"));
        let mut after = false;
        for s in &frame.steps {
            if s.field.name == "body" {
                after = true;
                continue;
            }
            if after {
                self.out.line(format!("field = \"{}\";", s.field.name));
                self.read_step(frame, s, None);
            }
        }
        let members: Vec<String> = frame
            .values()
            .flat_map(|s| {
                let l = local(&s.field.name);
                let m = if l == s.field.name {
                    l
                } else {
                    format!("{}: {l}", s.field.name)
                };
                if s.field.name == "body" {
                    vec!["older".to_string(), m]
                } else {
                    vec![m]
                }
            })
            .collect();
        self.out.open("return {");
        for m in &members {
            self.out.line(format!("{m},"));
        }
        self.out.close("};");
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
        self.out.blank();

        let body_name = &body.record.name;
        let change_name = &f
            .state
            .profiles
            .iter()
            .find(|p| p.packed)
            .map_or(String::new(), |p| p.change.clone());
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        let max = self.low.plan(change_name, Some("eid")).and_then(|c| {
            c.steps
                .iter()
                .find(|s| s.role == Role::Key)
                .and_then(|s| key_max(&s.wire))
        });
        self.out.line(
            "/** The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5). */",
        );
        self.open_fn(format!(
            "function read{name}Changes(r: Reader, ticks: CodedBasisTicks, basis: CodedBasis<{record}>): {body_name} {{"
        ));
        self.out.line(format!("let field = \"{count}\";"));
        self.out.open("try {");
        let c = local(&count);
        self.out.line(format!("const {c} = r.u16();"));
        self.out
            .line("// Values the stream cannot place are reported at its first byte.");
        self.out.line("const at = r.offset + 2;");
        self.out.line("field = \"coded_len\";");
        self.stmt(&format!(
            "const stream = new CodedDecoder(r, {c}, codedProbs({upper}_TABLES));"
        ));
        self.out.line(format!("field = \"{list}\";"));
        self.out.line(
            "// CODE-4: the stream holds at least 12 bits a change, so this is bounded by the input.",
        );
        self.out
            .line(format!("const {}: {change_name}[] = [];", local(&list)));
        match max {
            Some(m) => self.out.line(format!("const ids = new CodedIds({m});")),
            None => self.out.line(format!(
                "const ids: CodedIds = {};",
                unsupported("number an id past 53 bits")
            )),
        }
        self.out.open(format!("for (let i = 0; i < {c}; i++) {{"));
        self.out.open("try {");
        self.stmt(&format!(
            "{}.push(read{name}Change(stream, ids, at, ticks, basis));",
            local(&list)
        ));
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, i);");
        self.out.line("}");
        self.out.close("}");
        self.out.line("field = \"\";");
        self.out.line("stream.finish();");
        let l = local(&list);
        if l == list {
            self.out.line(format!("return {{ {list} }};"));
        } else {
            self.out.line(format!("return {{ {list}: {l} }};"));
        }
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
    }

    /// `writeAckedCoded`, the body's writer, `countAckedCoded` and the changes' coder.
    fn coded_write(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>, body: &RecordPlan<'_>) {
        let (name, upper) = (&f.name, &f.upper);
        let flags = &f.state.acked_flags;
        let record = &f.state.record.name;
        let change_name = f
            .state
            .profiles
            .iter()
            .find(|p| p.packed)
            .map_or(String::new(), |p| p.change.clone());
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        self.out.line(tsdoc(&[
            format!("Writes {} {{@link {name}}}, its changes predicted from `basis`: the base and older", article(name)),
            "snapshot its prefix names, which the client holds (CODE-3).".to_string(),
        ]));
        self.open_fn(format!(
            "export function write{name}(w: Writer, v: {name}, basis: CodedBasis<{record}>): void {{"
        ));
        self.out.line(format!(
            "let field = \"{}\";",
            frame
                .steps
                .first()
                .map_or("kind", |s| s.field.name.as_str())
        ));
        self.out.open("try {");
        let mut first = true;
        for s in &frame.steps {
            if !first {
                self.out.line(format!(
                    "field = \"{}\";",
                    if s.field.name == "body" {
                        "older"
                    } else {
                        s.field.name.as_str()
                    }
                ));
            }
            first = false;
            if s.field.name != "body" {
                self.write_step(frame, s, Some(i128::from(f.coded.kind)));
                continue;
            }
            self.out
                .line("// CODE-2: a keyframe has no older snapshot.");
            self.stmt(&format!(
                "w.presence(v.older !== 0, v.older !== 0 && (v.flags & {flags}.KEYFRAME) === 0);"
            ));
            self.out.line("w.u8(v.older);");
            self.out.line("field = \"body\";");
            self.out.line(format!("write{name}Changes(w, v, basis);"));
        }
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
        self.out.blank();

        self.out.line(
            "/** The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5). */",
        );
        self.open_fn(format!(
            "function write{name}Changes(w: Writer, v: {name}, basis: CodedBasis<{record}>): void {{"
        ));
        self.out.line(format!("let field = \"{count}\";"));
        self.out.open("try {");
        self.out.line(format!("w.u16(v.body.{list}.length);"));
        self.out.line("field = \"\";");
        self.out.line(format!(
            "const stream = new CodedEncoder(codedProbs({upper}_TABLES));"
        ));
        self.out
            .line(format!("code{name}Changes(v, stream, basis);"));
        self.out.line("field = \"coded_len\";");
        self.out
            .line(format!("stream.finish(v.body.{list}.length, w);"));
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
        self.out.blank();

        self.out.line(tsdoc(&[
            format!("Counts, slot by slot, the bits {{@link write{name}}} codes for the changes, without"),
            "adapting: what training sums over recorded frames (CODE-17).".to_string(),
        ]));
        self.open_fn(format!(
            "export function count{name}(v: {name}, counts: SlotCounts, basis: CodedBasis<{record}>): void {{"
        ));
        self.out.open("try {");
        self.out
            .line(format!("code{name}Changes(v, counts, basis);"));
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, \"body\");");
        self.out.line("}");
        self.out.close("}");
        self.out.blank();

        self.out.line(tsdoc(&[
            "Codes every change's values into `sink`, in order: the encoder, the training counts, or a"
                .to_string(),
            "meter that prices each value.".to_string(),
        ]));
        self.open_fn(format!(
            "export function code{name}Changes(v: {name}, sink: CodedSink, basis: CodedBasis<{record}>): void {{"
        ));
        self.out
            .line(format!("const ticks = {}BasisTicks(v);", lower_first(name)));
        let max = self.low.plan(&change_name, Some("eid")).and_then(|c| {
            c.steps
                .iter()
                .find(|s| s.role == Role::Key)
                .and_then(|s| key_max(&s.wire))
        });
        match max {
            Some(m) => self.out.line(format!("const ids = new CodedIds({m});")),
            None => self.out.line(format!(
                "const ids: CodedIds = {};",
                unsupported("number an id past 53 bits")
            )),
        }
        self.out
            .line(format!("const {} = v.body.{list};", local(&list)));
        let l = local(&list);
        self.out
            .open(format!("for (let i = 0; i < {l}.length; i++) {{"));
        self.out.open("try {");
        self.stmt(&format!(
            "code{name}Change({l}[i]!, sink, ids, ticks, basis);"
        ));
        self.out.close("} catch (e) {");
        self.out
            .indent_line(format!("throw within(within(e, i), \"{list}\");"));
        self.out.line("}");
        self.out.close("}");
        self.out.close("}");
    }

    /// `ackedCodedBasisTicks`, `decodeAckedCoded` and `encodeAckedCoded`.
    fn coded_frame_fns(&mut self, f: &Frame<'_>) {
        let name = &f.name;
        let flags = &f.state.acked_flags;
        let record = &f.state.record.name;
        self.out.line(tsdoc(&[
            format!("What {} {{@link {name}}}'s basis is looked up by: its ticks, whether it is a keyframe", article(name)),
            "and its `older` distance (CODE-2, CODE-3).".to_string(),
        ]));
        self.open_fn(format!(
            "export function {}BasisTicks(v: {name}): CodedBasisTicks {{",
            lower_first(name)
        ));
        self.out.open("return {");
        self.out.line("tick: v.tick,");
        self.out.line("baseTick: v.base_tick,");
        self.out
            .line(format!("keyframe: (v.flags & {flags}.KEYFRAME) !== 0,"));
        self.out.line("older: v.older,");
        self.out.close("};");
        self.out.close("}");
        self.out.blank();
        self.out.line(tsdoc(&[
            format!("Decodes a whole {{@link {name}}} frame against `basis` (none: a keyframe's); bytes"),
            "after it are an error.".to_string(),
        ]));
        self.open_fn(format!(
            "export function decode{name}(bytes: Uint8Array, basis: CodedBasis<{record}> = new NoBasis()): {name} {{"
        ));
        self.out.line("const r = new Reader(bytes);");
        self.out.line(format!("const v = read{name}(r, basis);"));
        self.out.line("r.finish();");
        self.out.line("return v;");
        self.out.close("}");
        self.out.blank();
        self.out.line(format!(
            "/** Encodes {} {{@link {name}}} frame against `basis` (none: a keyframe's). */",
            article(name)
        ));
        self.open_fn(format!(
            "export function encode{name}(v: {name}, basis: CodedBasis<{record}> = new NoBasis()): Uint8Array {{"
        ));
        self.out.line("const w = new Writer();");
        self.out.line(format!("write{name}(w, v, basis);"));
        self.out.line("return w.finish();");
        self.out.close("}");
    }

    /// The entity's records in the base and the older snapshot, as the change's values need them.
    fn coded_records(&mut self, f: &Frame<'_>) {
        let name = &f.name;
        let record = &f.state.record.name;
        self.out.line(tsdoc(&[
            "The entity's records in the base and in the older snapshot (CODE-13, CODE-14): none in a"
                .to_string(),
            "keyframe, no older one when `older` is 0, none for an id past a `u16`.".to_string(),
        ]));
        self.open_fn(format!(
            "function {}Records(eid: number, ticks: CodedBasisTicks, basis: CodedBasis<{record}>): [{record} | undefined, {record} | undefined] {{",
            lower_first(name)
        ));
        self.out.open("if (ticks.keyframe || eid > 65535) {");
        self.out.line("return [undefined, undefined];");
        self.out.close("}");
        self.out
            .line("return [basis.base(eid), ticks.older === 0 ? undefined : basis.older(eid)];");
        self.out.close("}");
    }

    /// How the value `sub` of the change's field `field` (or the field itself) is predicted.
    fn coded_predict(&self, f: &mut Frame<'_>, field: &str, sub: &str, w: &Wire<'_>) -> Predict {
        let st = f.state;
        for (gi, g) in st.groups.iter().enumerate() {
            for form in g.forms.iter().filter(|x| x.field == field) {
                let Some(wp) = form.wire.iter().find(|x| x.name == sub) else {
                    continue;
                };
                match (wp.coded, w) {
                    (Some(CodedForm::Velocity), _) => {
                        let target = g.fields.get(wp.field).map_or(sub, |x| x.name.as_str());
                        let (min, max) = wp.range.unwrap_or((0, 0));
                        f.uses_basis = true;
                        f.uses_older = true;
                        return Predict::Velocity {
                            field: target.to_string(),
                            min,
                            max,
                        };
                    }
                    (coded, Wire::Quat { bits }) => {
                        let base = (coded == Some(CodedForm::Base)).then(|| {
                            f.uses_basis = true;
                            let holder = st
                                .record
                                .fields
                                .iter()
                                .find(|r| r.holds == Holds::Group(gi));
                            let q = g.fields.get(wp.field).map_or(sub, |x| x.name.as_str());
                            match holder {
                                Some(h) if h.present.is_some() => {
                                    format!("base?.{}?.{q}", h.name)
                                }
                                Some(h) => format!("base?.{}.{q}", h.name),
                                None => format!("base?.{q}"),
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

    /// `readAckedCodedChange`: one change's values, read and rebuilt into the packed change.
    fn coded_read_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>) {
        let name = f.name.clone();
        let cname = &change.record.name;
        let record = f.state.record.name.clone();
        // The values first, into a buffer: the records line depends on what they predict.
        let body = self.coded_captured(|g| {
            g.out.indent = 2;
            for s in &change.steps {
                g.coded_read_step(f, change, s);
            }
        });
        self.out.line(tsdoc(&[
            "One change (CODE-10..CODE-14): its id after the previous one's, its mask, then each value"
                .to_string(),
            "the mask selects under its model, predicted from the entity's records in `basis`."
                .to_string(),
        ]));
        self.open_fn(format!(
            "function read{name}Change(stream: CodedDecoder, ids: CodedIds, at: number, ticks: CodedBasisTicks, basis: CodedBasis<{record}>): {cname} {{"
        ));
        let first = change
            .steps
            .first()
            .map_or("eid", |s| s.field.name.as_str());
        self.out.line(format!("let field = \"{first}\";"));
        self.out.open("try {");
        let mut lines = body.lines();
        let key_lines: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim_start().starts_with("// values"))
            .collect();
        for l in key_lines {
            self.coded_raw(l);
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("eid".to_string(), |s| local(&s.field.name));
        if f.uses_basis {
            let held = if f.uses_older { "base, older" } else { "base" };
            self.stmt(&format!(
                "const [{held}] = {}Records({key}, ticks, basis);",
                lower_first(&name)
            ));
        }
        for l in lines {
            self.coded_raw(l);
        }
        self.return_literal(change);
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
    }

    fn coded_read_step(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, s: &Step<'_>) {
        let fname = &s.field.name;
        let l = local(fname);
        let set_field = |g: &mut Self, path: &str| {
            if change.steps.first().is_none_or(|x| x.field.name != path) {
                g.out.line(format!("field = \"{path}\";"));
            }
        };
        if s.role == Role::Key {
            set_field(self, fname);
            let (m, w) = (f.slot(fname), f.width(fname));
            self.stmt(&format!(
                "const {l} = ids.next(stream.value({m}, {w}), at);"
            ));
            return;
        }
        // CODE-11: the mask, its bits as one value of its width, checked as kind 12 checks it.
        if let Wire::Bits(_) = s.wire {
            if s.presence.is_none() && fname == "mask" {
                set_field(self, fname);
                let e = self.coded_read_value(f, fname, &s.wire, &Predict::None);
                self.stmt(&format!("const {l} = {e};"));
                self.out.line("// values");
                return;
            }
        }
        let cond = Self::presence(change, s, false);
        let ty = Self::ts_type(&s.wire);
        match &s.wire {
            Wire::Record { record, .. } => {
                let Some(sub) = self.low.plan(&record.name, None) else {
                    return;
                };
                let mut inner = Vec::new();
                for x in &sub.steps {
                    let path = format!("{fname}.{}", x.field.name);
                    let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                    let e = self.coded_read_value(f, &path, &x.wire, &predict);
                    let lx = format!("{fname}_{}", x.field.name);
                    inner.push((path, format!("const {lx} = {e};")));
                }
                let fields: Vec<String> = sub
                    .values()
                    .map(|x| format!("{}: {fname}_{}", x.field.name, x.field.name))
                    .collect();
                let value = format!("{{ {} }}", fields.join(", "));
                let print_inner = |g: &mut Self, assign: &str| {
                    for (path, i) in &inner {
                        g.out.line(format!("field = \"{path}\";"));
                        g.coded_stmt(i);
                    }
                    let line = format!("{assign}{value};");
                    if g.out.column() + line.len() <= WIDTH {
                        g.out.line(line);
                    } else {
                        g.out.open(format!("{assign}{{"));
                        for x in &fields {
                            g.out.line(format!("{x},"));
                        }
                        g.out.close("};");
                    }
                };
                match cond {
                    Some(c) => {
                        self.out.line(format!("let {l}: {ty} | undefined;"));
                        self.out.open(format!("if ({c}) {{"));
                        print_inner(self, &format!("{l} = "));
                        self.out.close("}");
                    }
                    None => print_inner(self, &format!("const {l} = ")),
                }
            }
            w => {
                set_field(self, fname);
                let predict = self.coded_predict(f, fname, "", w);
                let e = self.coded_read_value(f, fname, w, &predict);
                match cond {
                    Some(c) => {
                        self.out.line(format!("let {l}: {ty} | undefined;"));
                        self.out.open(format!("if ({c}) {{"));
                        self.coded_stmt(&format!("{l} = {e};"));
                        self.out.close("}");
                    }
                    None => self.coded_stmt(&format!("const {l} = {e};")),
                }
            }
        }
    }

    /// The slots of a quaternion's models: `[same, d0, d1, d2]` (empty without a base) and
    /// `[largest, c0, c1, c2]`.
    fn coded_quat_slots(f: &Frame<'_>, path: &str, base: bool) -> (String, String) {
        let on_base = if base {
            format!(
                "[{}, {}, {}, {}]",
                f.slot(&format!("{path}.same")),
                f.slot(&format!("{path}.d0")),
                f.slot(&format!("{path}.d1")),
                f.slot(&format!("{path}.d2"))
            )
        } else {
            "[]".into()
        };
        let whole = format!(
            "[{}, {}, {}, {}]",
            f.slot(&format!("{path}.largest")),
            f.slot(&format!("{path}.c0")),
            f.slot(&format!("{path}.c1")),
            f.slot(&format!("{path}.c2"))
        );
        (on_base, whole)
    }

    /// An expression reading one value of model `path` in wire form `w`, of the packed record's
    /// type for it.
    fn coded_read_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        predict: &Predict,
    ) -> String {
        match predict {
            Predict::Velocity { field, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                return format!(
                    "codedPredicted(stream.signed({m}, {width}), codedVelocity(base?.{field}, older?.{field}, ticks, {min}, {max}), {min}, {max}, at)"
                );
            }
            Predict::Quat { bits, base } => {
                let (on_base, whole) = Self::coded_quat_slots(f, path, base.is_some());
                let b = base.clone().unwrap_or_else(|| "undefined".into());
                return format!("readCodedQuat(stream, {b}, {on_base}, {whole}, {bits}, at)");
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int {
                signed: false,
                bits,
                ..
            } if *bits <= 53 => format!("stream.value({m}, {width})"),
            Wire::Int { signed: false, .. } => format!("stream.bigValue({m}, {width})"),
            Wire::Int {
                signed: true, bits, ..
            } if *bits <= 53 => format!("stream.signed({m}, {width})"),
            Wire::Int { signed: true, .. } => format!("stream.bigSigned({m}, {width})"),
            Wire::Bucket(bp) if bp.model_bits > 53 => unsupported(&format!("read `{path}`")),
            Wire::Bucket(bp) if !bp.signed => format!(
                "codedWithin(stream.value({m}, {width}), 0, {}, at)",
                bp.max_value
            ),
            Wire::Bucket(bp) => format!(
                "codedWithin(stream.signed({m}, {width}), {}, {}, at)",
                bp.min_value, bp.max_value
            ),
            Wire::Float { bits: 32, .. } => format!("f32FromBits(stream.value({m}, 32))"),
            Wire::Float { .. } => format!("f64FromBits(stream.bigValue({m}, 64))"),
            Wire::Bool { .. } => format!("stream.value({m}, 1) === 1"),
            Wire::Quant {
                wire,
                num,
                den,
                signed,
                min,
                max,
                ..
            } => {
                let s = scale_arg(*num, *den);
                let bounded = matches!(wire.as_ref(), Wire::Bucket(_));
                match (signed, bounded) {
                    (false, false) => format!("stream.value({m}, {width}) * ({s})"),
                    (false, true) => {
                        format!("codedWithin(stream.value({m}, {width}), 0, {max}, at) * ({s})")
                    }
                    (true, false) => format!("stream.signed({m}, {width}) * ({s})"),
                    (true, true) => format!(
                        "codedWithin(stream.signed({m}, {width}), {min}, {max}, at) * ({s})"
                    ),
                }
            }
            Wire::Bits(b) if b.width <= 32 => format!(
                "codedBits({}Layout, stream.value({m}, {width}), at)",
                b.name
            ),
            // WIRE-29: the value less `min`, as kind 12 packs it; past `max` is over_width.
            Wire::Ranged { min, max, .. } if *min > -(1i64 << 53) && *max < (1i64 << 53) => {
                let plus = if *min == 0 {
                    String::new()
                } else {
                    format!(" + {min}")
                };
                format!("codedWithin(stream.value({m}, {width}){plus}, {min}, {max}, at)")
            }
            _ => unsupported(&format!("read `{path}`")),
        }
    }

    /// `codeAckedCodedChange`: one change's values, coded into a sink.
    fn coded_code_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>) {
        let name = f.name.clone();
        let cname = &change.record.name;
        let record = f.state.record.name.clone();
        let body = self.coded_captured(|g| {
            g.out.indent = 2;
            for s in &change.steps {
                g.coded_code_step(f, change, s);
            }
        });
        self.out.line(tsdoc(&[
            "Codes one change's values into `sink` (CODE-10..CODE-14): its id after the previous one's,"
                .to_string(),
            "its mask, then each value the mask selects, predicted from its records in `basis`."
                .to_string(),
        ]));
        self.open_fn(format!(
            "function code{name}Change(v: {cname}, sink: CodedSink, ids: CodedIds, ticks: CodedBasisTicks, basis: CodedBasis<{record}>): void {{"
        ));
        let first = change
            .steps
            .first()
            .map_or("eid", |s| s.field.name.as_str());
        self.out.line(format!("let field = \"{first}\";"));
        self.out.open("try {");
        let mut lines = body.lines();
        let key_lines: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim_start().starts_with("// values"))
            .collect();
        for l in key_lines {
            self.coded_raw(l);
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("v.eid".to_string(), |s| format!("v.{}", s.field.name));
        if f.uses_basis {
            let held = if f.uses_older { "base, older" } else { "base" };
            self.stmt(&format!(
                "const [{held}] = {}Records({key}, ticks, basis);",
                lower_first(&name)
            ));
        }
        for l in lines {
            self.coded_raw(l);
        }
        self.out.close("} catch (e) {");
        self.out.indent_line("throw within(e, field);");
        self.out.line("}");
        self.out.close("}");
    }

    fn coded_code_step(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, s: &Step<'_>) {
        let fname = &s.field.name;
        let set_field = |g: &mut Self, path: &str| {
            if change.steps.first().is_none_or(|x| x.field.name != path) {
                g.out.line(format!("field = \"{path}\";"));
            }
        };
        if s.role == Role::Key {
            set_field(self, fname);
            let (m, w) = (f.slot(fname), f.width(fname));
            self.stmt(&format!("sink.value({m}, {w}, ids.gap(v.{fname}));"));
            return;
        }
        if let Wire::Bits(_) = s.wire {
            if s.presence.is_none() && fname == "mask" {
                set_field(self, fname);
                let e =
                    self.coded_code_value(f, fname, &s.wire, &format!("v.{fname}"), &Predict::None);
                self.coded_stmt(&format!("{e};"));
                self.out.line("// values");
                return;
            }
        }
        set_field(self, fname);
        let place = format!("v.{fname}");
        let cond = Self::presence(change, s, true);
        if let Some(c) = &cond {
            self.stmt(&format!("codedPresence({place} !== undefined, {c});"));
            self.out.open(format!("if ({place} !== undefined) {{"));
        }
        match &s.wire {
            Wire::Record { record, .. } => {
                if let Some(sub) = self.low.plan(&record.name, None) {
                    for x in &sub.steps {
                        let path = format!("{fname}.{}", x.field.name);
                        let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                        let e = self.coded_code_value(
                            f,
                            &path,
                            &x.wire,
                            &format!("{place}.{}", x.field.name),
                            &predict,
                        );
                        self.out.line(format!("field = \"{path}\";"));
                        self.coded_stmt(&format!("{e};"));
                    }
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                let e = self.coded_code_value(f, fname, w, &place, &predict);
                self.coded_stmt(&format!("{e};"));
            }
        }
        if cond.is_some() {
            self.out.close("}");
        }
    }

    /// A statement coding `v` (a value of the packed record's type) as model `path` in wire form
    /// `w`.
    fn coded_code_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        v: &str,
        predict: &Predict,
    ) -> String {
        match predict {
            Predict::Velocity { field, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                return format!(
                    "sink.signed({m}, {width}, codedResidual({v}, codedVelocity(base?.{field}, older?.{field}, ticks, {min}, {max}), {min}, {max}))"
                );
            }
            Predict::Quat { bits, base } => {
                let (on_base, whole) = Self::coded_quat_slots(f, path, base.is_some());
                let b = base.clone().unwrap_or_else(|| "undefined".into());
                return format!("codeCodedQuat(sink, {v}, {b}, {on_base}, {whole}, {bits})");
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int {
                signed: false,
                bits,
                ..
            } if *bits <= 53 => {
                format!("sink.value({m}, {width}, {v})")
            }
            Wire::Int { signed: false, .. } => format!("sink.bigValue({m}, {width}, {v})"),
            Wire::Int {
                signed: true, bits, ..
            } if *bits <= 53 => {
                format!("sink.signed({m}, {width}, {v})")
            }
            Wire::Int { signed: true, .. } => format!("sink.bigSigned({m}, {width}, {v})"),
            Wire::Bucket(bp) if bp.model_bits > 53 => unsupported(&format!("write `{path}`")),
            Wire::Bucket(bp) if !bp.signed => format!(
                "sink.value({m}, {width}, codedBounded({v}, 0, {}))",
                bp.max_value
            ),
            Wire::Bucket(bp) => format!(
                "sink.signed({m}, {width}, codedBounded({v}, {}, {}))",
                bp.min_value, bp.max_value
            ),
            Wire::Float { bits: 32, .. } => format!("sink.value({m}, 32, f32Bits({v}))"),
            Wire::Float { .. } => format!("sink.bigValue({m}, 64, f64Bits({v}))"),
            Wire::Bool { .. } => format!("sink.value({m}, 1, {v} ? 1 : 0)"),
            Wire::Quant {
                num,
                den,
                signed,
                min,
                max,
                ..
            } => {
                let s = scale_arg(*num, *den);
                if *signed {
                    format!("sink.signed({m}, {width}, codedQuantizeInt({v}, {s}, {min}, {max}))")
                } else {
                    format!("sink.value({m}, {width}, codedQuantizeUint({v}, {s}, {max}))")
                }
            }
            Wire::Bits(b) if b.width <= 32 => format!(
                "sink.value({m}, {width}, codedBitsValue({}Layout, {v}))",
                b.name
            ),
            // WIRE-29: refused outside its range; the value less `min`, as kind 12 packs it.
            Wire::Ranged { min, max, .. } if *min > -(1i64 << 53) && *max < (1i64 << 53) => {
                format!("sink.value({m}, {width}, codedBounded({v}, {min}, {max}) - {min})")
            }
            _ => unsupported(&format!("write `{path}`")),
        }
    }
}

/// `AckedCoded` as a function's prefix: `ackedCoded`.
fn lower_first(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// Whether `line` holds `word` as a whole identifier (not a field path's `"word"`).
fn has_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        let is_id =
            |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '"');
        !is_id(before) && !is_id(after)
    })
}

/// `text` (a statement, or an argument ending in `,`) starting at column `column`, broken where
/// it passes [`WIDTH`]: a call at its arguments, each argument in turn, a list an element a line.
fn coded_wrap(text: &str, column: usize) -> Vec<String> {
    if column + text.len() <= WIDTH {
        return vec![text.to_string()];
    }
    let t = text.trim_start();
    let pad = &text[..text.len() - t.len()];
    if let Some(items) = t.strip_prefix('[').and_then(|x| x.strip_suffix("],")) {
        let mut out = vec![format!("{pad}[")];
        out.extend(items.split(", ").map(|i| format!("{pad}  {i},")));
        out.push(format!("{pad}],"));
        return out;
    }
    let (body, comma) = match t.strip_suffix(',') {
        Some(b) => (b, ","),
        None => (t, ""),
    };
    let wrapped = super::wrap_call(body, (column + pad.len()).div_ceil(2));
    if !wrapped.contains('\n') {
        return vec![text.to_string()];
    }
    let lines: Vec<&str> = wrapped.split('\n').collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let l = format!("{pad}{l}{}", if last { comma } else { "" });
        if i == 0 || last {
            out.push(l);
        } else {
            out.extend(coded_wrap(&l, column));
        }
    }
    out
}
