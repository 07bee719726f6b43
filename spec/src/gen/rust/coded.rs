//! The coded frame of a state (kind 13's profile, `docs/spec/coded.md`): the packed frame's
//! header, removals, check and events as they are, and its changes range-coded through
//! `ackwire_rt::coded`, each value under a model of its own (CODE-6..CODE-15), predicted from
//! the base and older snapshot an `ackwire_rt::coded::CodedBasis` gives.
//!
//! The frame decodes to the packed frame's body type, so a coded change applies as a packed
//! one does (ACK-16). What the printer derives, it derives from the packed frame's lowering
//! (its header steps, the change's steps and the groups' packed records) and the state's
//! [`CodedPlan`] (the models, their widths and slots): nothing is the reference's.

use super::{ident, local, scale_arg, uint_type, wrap, Gen};
use crate::lower::{RecordPlan, Role, Step, Wire};
use crate::model::CodedForm;
use crate::state::{CodedPlan, Holds, StatePlan};
use std::collections::BTreeSet;

/// The helper functions a coded frame's code calls, printed once each when used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Helper {
    Ascend,
    AtMost,
    Within,
    Bounded,
    BoundedSigned,
    Velocity,
    Predicted,
    Residual,
    Quat,
}

/// How one value of a change is predicted.
enum Predict {
    /// Coded as its packed value (CODE-10..CODE-12).
    None,
    /// `coded velocity` (CODE-13): a step of record field `field`, within `min..=max`.
    Velocity { field: String, min: i128, max: i128 },
    /// A quaternion (CODE-14); `base` is the expression of the base's, when `coded base`.
    Quat { bits: u8, base: Option<String> },
}

/// A coded frame being printed: its plan and what its code has used so far.
struct Frame<'p> {
    state: &'p StatePlan,
    coded: &'p CodedPlan,
    helpers: BTreeSet<Helper>,
    /// A value predicts from the older snapshot (a velocity).
    uses_older: bool,
    /// A value predicts from the base.
    uses_base: bool,
}

impl Frame<'_> {
    /// The constant holding the first slot of model `path`.
    fn slot(&self, path: &str) -> String {
        format!("Self::{}", const_name(path))
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

impl Gen<'_, '_> {
    /// The coded frame of `state`, when it declares one.
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
            uses_older: false,
            uses_base: false,
        };
        let rt = self.rt.clone();
        let name = coded.frame.clone();
        let record = state.record.name.clone();
        let basis = format!("&(impl {rt}::coded::CodedBasis<{record}> + ?Sized)");
        self.code.blank();
        self.coded_struct(&mut f, frame);
        self.code.blank();
        self.code.open(format!("impl {name} {{"));
        self.coded_consts(&f);
        self.code.blank();
        self.coded_read_basis(&f, frame);
        self.code.blank();
        self.code
            .line("/// What the frame's basis is looked up by: its ticks, whether it is a");
        self.code
            .line("/// keyframe and its `older` distance (CODE-2, CODE-3).");
        self.code.open(format!(
            "pub fn basis_ticks(&self) -> {rt}::coded::CodedBasisTicks {{"
        ));
        self.code.open(format!("{rt}::coded::CodedBasisTicks {{"));
        self.code.line("tick: self.tick,");
        self.code.line("base_tick: self.base_tick,");
        self.code.line(format!(
            "keyframe: self.flags.contains({}::KEYFRAME),",
            state.acked_flags
        ));
        self.code.line("older: self.older,");
        self.code.close("}");
        self.code.close("}");
        self.code.blank();
        // The change's functions come first so that the frame's know which helpers they use.
        let read_change = self.captured(|g| g.coded_read_change(&mut f, change, &basis));
        let code_change = self.captured(|g| g.coded_code_change(&mut f, change, &basis));
        self.coded_read(&f, frame, body, &basis);
        self.code.blank();
        self.coded_write(&f, frame, body, &basis);
        self.code.blank();
        for l in read_change.lines().chain(std::iter::once("")) {
            self.code.line(l);
        }
        for l in code_change.lines() {
            self.code.line(l);
        }
        self.coded_helpers(&f, &basis);
        self.code.close("}");
    }

    /// A step of the packed frame's prefix or suffix, read as the packed frame reads it; its
    /// kind constant is the coded frame's `kind`.
    fn coded_read_step_of(&mut self, frame: &RecordPlan<'_>, s: &Step<'_>, kind: u8) {
        let text = self.captured(|g| g.read_step(frame, s));
        let text = match s.role {
            Role::Constant(c) => text.replace(&format!("? != {c} {{"), &format!("? != {kind} {{")),
            _ => text,
        };
        for l in text.lines() {
            self.code.line(l);
        }
    }

    /// A step of the packed frame's prefix or suffix, written as the packed frame writes it;
    /// its kind constant is the coded frame's `kind`.
    fn coded_write_step_of(&mut self, frame: &RecordPlan<'_>, s: &Step<'_>, kind: u8) {
        let text = self.captured(|g| g.write_step(frame, s));
        let text = match s.role {
            Role::Constant(c) => text.replacen(&format!(", {c})"), &format!(", {kind})"), 1),
            _ => text,
        };
        for l in text.lines() {
            self.code.line(l);
        }
    }

    /// Runs `print` into an empty buffer and returns what it printed.
    fn captured(&mut self, print: impl FnOnce(&mut Self)) -> String {
        let outer = std::mem::take(&mut self.code);
        print(self);
        std::mem::replace(&mut self.code, outer).finish()
    }

    /// The struct: the packed frame's fields with `older` before the body.
    fn coded_struct(&mut self, f: &mut Frame<'_>, frame: &RecordPlan<'_>) {
        let c = f.coded;
        let docs = crate::model::Docs {
            doc: c.docs.clone(),
            comments: Vec::new(),
        };
        self.docs(&docs, &format!("The coded frame `{}`.", c.frame));
        self.code
            .line("#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]");
        self.code.line("#[serde(deny_unknown_fields)]");
        self.code.open(format!("pub struct {} {{", c.frame));
        for s in frame.values() {
            if s.field.name == "body" {
                self.code.line(
                    "/// Ticks from the base back to the older snapshot the changes are predicted",
                );
                self.code
                    .line("/// from; 0 for none, as in a keyframe (CODE-2).");
                self.code.line("pub older: u8,");
                self.code.line(
                    "/// The changes, decoded to the packed frame's: the same values, range-coded.",
                );
            } else {
                self.docs(&s.field.docs, &format!("The `{}` field.", s.field.name));
            }
            let optional = s.presence.is_some();
            match (optional, self.serde_with(&s.wire, optional)) {
                (true, Some(w)) => self.code.line(format!(
                    "#[serde(default, skip_serializing_if = \"Option::is_none\", with = \"{w}\")]"
                )),
                (true, None) => self
                    .code
                    .line("#[serde(default, skip_serializing_if = \"Option::is_none\")]"),
                (false, Some(w)) => self.code.line(format!("#[serde(with = \"{w}\")]")),
                (false, None) => {}
            }
            let ty = self.rust_type(&s.wire);
            let ty = if optional {
                format!("Option<{ty}>")
            } else {
                ty
            };
            self.code
                .line(format!("pub {}: {ty},", ident(&s.field.name)));
        }
        self.code.close("}");
    }

    /// `MODELS`, `SLOTS`, `TABLES` and each model's first slot.
    fn coded_consts(&mut self, f: &Frame<'_>) {
        let c = f.coded;
        let rt = &self.rt;
        self.code.line(
            "/// The models of the frame's values, `(name, W)`, in the order they are first coded",
        );
        self.code
            .line("/// (CODE-15): each value's bit length and bits adapt under its own.");
        self.code
            .open("pub const MODELS: &'static [(&'static str, u8)] = &[");
        for m in &c.models {
            self.code.line(format!("(\"{}\", {}),", m.name, m.w));
        }
        self.code.close("];");
        self.code.blank();
        self.code
            .line("/// The slots of every model, one after another (CODE-8).");
        self.code
            .line(format!("pub const SLOTS: usize = {};", c.slots()));
        self.code.blank();
        if c.probs.is_empty() {
            self.code.line(
                "/// Every slot's starting probability (CODE-16): the frame names no tables, so",
            );
            self.code.line("/// each starts at even odds, 2048.");
            self.code.line(format!(
                "pub const TABLES: [{rt}::range::Prob; Self::SLOTS] = [{rt}::range::Prob::HALF; Self::SLOTS];"
            ));
        } else {
            let file = c.tables.as_deref().unwrap_or("the tables file");
            self.code.line(format!(
                "/// Every slot's starting probability in 4096ths (CODE-16), from `{file}`: each"
            ));
            self.code
                .line("/// model's slots in rows of up to 16 under its name.");
            // rustfmt would pour the numbers into lines of its own width, across the models.
            self.code.line("#[rustfmt::skip]");
            self.code.open("const PROBS: [u16; Self::SLOTS] = [");
            for m in &c.models {
                let end = (m.at + crate::state::model_slots(m.w)).min(c.probs.len());
                let ps = c.probs.get(m.at..end).unwrap_or_default();
                if ps.is_empty() {
                    continue;
                }
                self.code.line(format!("// {}", m.name));
                for row in ps.chunks(16) {
                    let row: Vec<String> = row.iter().map(u16::to_string).collect();
                    self.code.line(format!("{},", row.join(", ")));
                }
            }
            self.code.close("];");
            self.code.blank();
            self.code.line(format!(
                "/// Every slot's starting probability (CODE-16), from `{file}`."
            ));
            self.code.line(format!(
                "pub const TABLES: [{rt}::range::Prob; Self::SLOTS] = Self::tables();"
            ));
            self.code.blank();
            self.code.line(
                "/// [`Self::PROBS`] as probabilities, at compile time: the frame copies `TABLES`",
            );
            self.code.line("/// as they are.");
            self.code.open(format!(
                "const fn tables() -> [{rt}::range::Prob; Self::SLOTS] {{"
            ));
            self.code.line(format!(
                "let mut out = [{rt}::range::Prob::HALF; Self::SLOTS];"
            ));
            self.code.line("let mut i = 0;");
            self.code.open("while i < Self::SLOTS {");
            self.code.line("out[i] = Self::prob(Self::PROBS[i]);");
            self.code.line("i += 1;");
            self.code.close("}");
            self.code.line("out");
            self.code.close("}");
            self.code.blank();
            self.code
                .line("/// A table's probability, checked 1 to 4095 when the tables were read.");
            self.code
                .open(format!("const fn prob(p: u16) -> {rt}::range::Prob {{"));
            self.code
                .open(format!("match {rt}::range::Prob::new(p) {{"));
            self.code.line("Some(p) => p,");
            self.code.line(format!("None => {rt}::range::Prob::HALF,"));
            self.code.close("}");
            self.code.close("}");
        }
        for m in &c.models {
            self.code.blank();
            self.code.line(format!(
                "/// The first slot of model `{}` (W = {}).",
                m.name, m.w
            ));
            self.code
                .line(format!("const {}: usize = {};", const_name(&m.name), m.at));
        }
    }

    /// `read_basis`: the prefix read up to `older`.
    fn coded_read_basis(&mut self, f: &Frame<'_>, frame: &RecordPlan<'_>) {
        let rt = self.rt.clone();
        self.code.line(
            "/// What the frame's basis is looked up by, read from its prefix before its body",
        );
        self.code.line(
            "/// (CODE-2, CODE-3): its tick and its base's, whether it is a keyframe, and `older`.",
        );
        self.code.open(format!(
            "pub fn read_basis(bytes: &[u8]) -> Result<{rt}::coded::CodedBasisTicks, DecodeError> {{"
        ));
        self.code.line("let mut r = Reader::new(bytes);");
        self.code.line("let r = &mut r;");
        let prefix: Vec<&Step<'_>> = frame
            .steps
            .iter()
            .take_while(|s| s.field.name != "body")
            .collect();
        let kind = f.coded.kind;
        let text = self.captured(|g| {
            for s in &prefix {
                g.coded_read_step_of(frame, s, kind);
            }
        });
        // The prefix's other fields are read (and checked) only to reach `older`.
        let kept = ["tick", "base_tick", "flags"];
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            let renamed = t.strip_prefix("let ").and_then(|rest| {
                let (name, after) = rest.split_once(" = ")?;
                let used_later = lines[i + 1..].iter().any(|x| has_word(x, name));
                (!kept.contains(&name) && !used_later)
                    .then(|| format!("{}let _ = {after}", &l[..l.len() - t.len()]))
            });
            self.code.line(renamed.as_deref().unwrap_or(l));
        }
        self.code
            .line("let older = r.u8().map_err(|e| e.field(\"older\"))?;");
        self.code
            .open(format!("Ok({rt}::coded::CodedBasisTicks {{"));
        self.code.line("tick,");
        self.code.line("base_tick,");
        self.code.line(format!(
            "keyframe: flags.contains({}::KEYFRAME),",
            f.state.acked_flags
        ));
        self.code.line("older,");
        self.code.close("})");
        self.code.close("}");
    }

    /// `read` and the body's reader.
    fn coded_read(
        &mut self,
        f: &Frame<'_>,
        frame: &RecordPlan<'_>,
        body: &RecordPlan<'_>,
        basis: &str,
    ) {
        let rt = self.rt.clone();
        let flags = &f.state.acked_flags;
        self.code.line(
            "/// Reads the frame, its changes predicted from `basis`: the base and older snapshot",
        );
        self.code
            .line("/// its prefix names ([`Self::read_basis`]), which the caller holds (CODE-3).");
        self.code.open(format!(
            "pub fn read(r: &mut Reader<'_>, basis: {basis}) -> Result<Self, DecodeError> {{"
        ));
        for s in &frame.steps {
            if s.field.name != "body" {
                self.coded_read_step_of(frame, s, f.coded.kind);
                continue;
            }
            self.code.line("let at = r.pos();");
            self.code
                .line("let older = r.u8().map_err(|e| e.field(\"older\"))?;");
            self.code
                .line("// CODE-2: a keyframe has no older snapshot.");
            self.code.open(format!(
                "if flags.contains({flags}::KEYFRAME) && older != 0 {{"
            ));
            self.code.line(format!(
                "return Err(DecodeError::new({rt}::ErrorKind::InvalidCondition, at).field(\"older\"));"
            ));
            self.code.close("}");
            self.code
                .open(format!("let ticks = {rt}::coded::CodedBasisTicks {{"));
            self.code.line("tick,");
            self.code.line("base_tick,");
            self.code
                .line(format!("keyframe: flags.contains({flags}::KEYFRAME),"));
            self.code.line("older,");
            self.code.close("};");
            self.code.line(
                "let body = Self::read_changes(r, &ticks, basis).map_err(|e| e.field(\"body\"))?;",
            );
        }
        self.code.open("Ok(Self {");
        for s in frame.values() {
            if s.field.name == "body" {
                self.code.line("older,");
            }
            let id = ident(&s.field.name);
            let l = local(&s.field.name);
            if id == l {
                self.code.line(format!("{id},"));
            } else {
                self.code.line(format!("{id}: {l},"));
            }
        }
        self.code.close("})");
        self.code.close("}");
        self.code.blank();
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
        self.code.line(
            "/// The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5).",
        );
        self.code.open(format!(
            "fn read_changes(r: &mut Reader<'_>, ticks: &{rt}::coded::CodedBasisTicks, basis: {basis}) -> Result<{body_name}, DecodeError> {{"
        ));
        self.code.line(format!(
            "let {count} = usize::from(r.u16().map_err(|e| e.field(\"{count}\"))?);"
        ));
        self.code
            .line("// Values the stream cannot place are reported at its first byte.");
        self.code.line("let at = r.pos() + 2;");
        self.code.line("let mut probs = Self::TABLES;");
        self.code.line(format!(
            "let mut stream = {rt}::coded::CodedDecoder::new(r, {count}, &mut probs).map_err(|e| e.field(\"coded_len\"))?;"
        ));
        self.code.line(
            "// CODE-4: the stream holds at least 12 bits a change, so this is bounded by the input.",
        );
        self.code
            .line(format!("let mut {list} = Vec::with_capacity({count});"));
        self.code.line("let mut prev = None;");
        self.code.open(format!("for i in 0..{count} {{"));
        self.code.line(format!(
            "{list}.push(Self::read_change(&mut stream, &mut prev, at, ticks, basis).map_err(|e| e.index(i).field(\"{list}\"))?);"
        ));
        self.code.close("}");
        self.code.line("stream.finish()?;");
        self.code.line(format!("Ok({body_name} {{ {list} }})"));
        self.code.close("}");
    }

    /// `write`, `count` and the changes' coder.
    fn coded_write(
        &mut self,
        f: &Frame<'_>,
        frame: &RecordPlan<'_>,
        body: &RecordPlan<'_>,
        basis: &str,
    ) {
        let rt = self.rt.clone();
        let flags = &f.state.acked_flags;
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        self.code.line(
            "/// Writes the frame, its changes predicted from `basis`: the base and older snapshot",
        );
        self.code
            .line("/// its prefix names, which the client holds (CODE-3).");
        self.code.open(format!(
            "pub fn write(&self, out: &mut Vec<u8>, basis: {basis}) -> Result<(), EncodeError> {{"
        ));
        for s in &frame.steps {
            if s.field.name != "body" {
                self.coded_write_step_of(frame, s, f.coded.kind);
                continue;
            }
            self.code
                .line("// CODE-2: a keyframe has no older snapshot.");
            self.code.line(format!(
                "{rt}::presence(self.older != 0, self.older != 0 && !self.flags.contains({flags}::KEYFRAME)).map_err(|e| e.field(\"older\"))?;"
            ));
            self.code.line(
                "out.uint(1, false, u64::from(self.older)).map_err(|e| e.field(\"older\"))?;",
            );
            self.code.line(format!(
                "out.uint(2, false, self.body.{list}.len() as u64).map_err(|e| e.field(\"body\").field(\"{count}\"))?;"
            ));
            self.code.line("let mut probs = Self::TABLES;");
            self.code.line(format!(
                "let mut stream = {rt}::coded::CodedEncoder::new(&mut probs);"
            ));
            self.code
                .line("self.code_changes(&mut stream, basis).map_err(|e| e.field(\"body\"))?;");
            self.code.line(format!(
                "stream.finish(self.body.{list}.len(), out).map_err(|e| e.field(\"body\").field(\"coded_len\"))?;"
            ));
        }
        self.code.line("Ok(())");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Counts, slot by slot, the bits [`Self::write`] codes for the changes, without",
        );
        self.code
            .line("/// adapting: what training sums over recorded frames (CODE-17).");
        self.code.open(format!(
            "pub fn count(&self, counts: &mut {rt}::coded::SlotCounts, basis: {basis}) -> Result<(), EncodeError> {{"
        ));
        self.code
            .line("self.code_changes(counts, basis).map_err(|e| e.field(\"body\"))");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Codes every change's values into `sink`, in order: the encoder, the training",
        );
        self.code
            .line("/// counts, or a meter that prices each value (the bench's bits by field).");
        self.code.open(format!(
            "pub fn code_changes<S: {rt}::coded::CodedSink>(&self, sink: &mut S, basis: {basis}) -> Result<(), EncodeError> {{"
        ));
        self.code.line("let ticks = self.basis_ticks();");
        self.code.line("let mut prev = None;");
        self.code.open(format!(
            "for (i, c) in self.body.{list}.iter().enumerate() {{"
        ));
        self.code.line(format!(
            "Self::code_change(c, sink, &mut prev, &ticks, basis).map_err(|e| e.index(i).field(\"{list}\"))?;"
        ));
        self.code.close("}");
        self.code.line("Ok(())");
        self.code.close("}");
    }

    /// The base's and older snapshot's records of a change's entity, as the change's values
    /// need them.
    fn coded_records(&mut self, f: &Frame<'_>, eid: &str) {
        match (f.uses_base || f.uses_older, f.uses_older) {
            (false, _) => {}
            (true, true) => self.code.line(format!(
                "let (base, older) = Self::records({eid}, ticks, basis);"
            )),
            (true, false) => self.code.line(format!(
                "let (base, _) = Self::records({eid}, ticks, basis);"
            )),
        }
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
                        f.uses_older = true;
                        f.uses_base = true;
                        return Predict::Velocity {
                            field: target.to_string(),
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
                                Some(h) if h.present.is_some() => format!(
                                    "base.as_ref().and_then(|b| b.{}.as_ref()).map(|g| g.{})",
                                    ident(&h.name),
                                    ident(q)
                                ),
                                Some(h) => format!(
                                    "base.as_ref().map(|b| b.{}.{})",
                                    ident(&h.name),
                                    ident(q)
                                ),
                                None => format!("base.as_ref().map(|b| b.{})", ident(q)),
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

    /// `read_change`: one change's values, read and rebuilt into the packed change.
    fn coded_read_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, basis: &str) {
        let rt = self.rt.clone();
        let name = &change.record.name;
        // The values first, into a buffer: the records line depends on what they predict.
        let body = self.captured(|g| {
            for s in &change.steps {
                g.coded_read_step(f, change, s);
            }
        });
        self.code.line(
            "/// One change (CODE-10..CODE-14): its id after `prev`'s, its mask, then each value the",
        );
        self.code.line(
            "/// mask selects under its model, predicted from the entity's records in `basis`.",
        );
        self.code.open(format!(
            "fn read_change(stream: &mut {rt}::coded::CodedDecoder<'_, '_>, prev: &mut Option<u64>, at: usize, ticks: &{rt}::coded::CodedBasisTicks, basis: {basis}) -> Result<{name}, DecodeError> {{"
        ));
        let mut lines = body.lines();
        // The key and the mask, then the records the rest is predicted from.
        let key_lines: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("// values"))
            .collect();
        for l in key_lines {
            self.code.line(l);
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("eid".to_string(), |s| local(&s.field.name));
        self.coded_records(f, &key);
        for l in lines {
            self.code.line(l);
        }
        self.code.open(format!("Ok({name} {{"));
        for x in change.values() {
            let (id, l) = (ident(&x.field.name), local(&x.field.name));
            if id == l {
                self.code.line(format!("{id},"));
            } else {
                self.code.line(format!("{id}: {l},"));
            }
        }
        self.code.close("})");
        self.code.close("}");
    }

    fn coded_read_step(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, s: &Step<'_>) {
        let fname = &s.field.name;
        let l = local(fname);
        if s.role == Role::Key {
            let path = fname.clone();
            let (m, w) = (f.slot(&path), f.width(&path));
            let max = key_max(&s.wire);
            f.helpers.insert(Helper::Ascend);
            let cast = self.cast_from_u64(&s.wire);
            self.code.line(format!(
                "let {l} = stream.value({m}, {w}).and_then(|gap| Self::ascend(prev, gap, {max}, at)){cast}{}?;",
                wrap(&[format!("field(\"{fname}\")")])
            ));
            return;
        }
        // CODE-11: the mask, its bits as one value of its width, checked as kind 12 checks it.
        if let Wire::Bits(_) = s.wire {
            if s.presence.is_none() && fname == "mask" {
                let e = self.coded_read_value(f, fname, &s.wire, &Predict::None);
                self.code.line(format!(
                    "let {l} = {e}{}?;",
                    wrap(&[format!("field(\"{fname}\")")])
                ));
                self.code.line("// values");
                return;
            }
        }
        let seg = format!("field(\"{fname}\")");
        let boxed = self.is_boxed(&change.record.name, fname);
        let cond = s.presence.as_ref().map(|p| self.presence(p, false));
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
                    inner.push(format!(
                        "let {} = {e}{}?;",
                        local(&x.field.name),
                        wrap(&[format!("field(\"{}\")", x.field.name), seg.clone()])
                    ));
                }
                let fields: Vec<String> = sub
                    .values()
                    .map(|x| {
                        let (id, lo) = (ident(&x.field.name), local(&x.field.name));
                        if id == lo {
                            id
                        } else {
                            format!("{id}: {lo}")
                        }
                    })
                    .collect();
                let value = format!("{} {{ {} }}", record.name, fields.join(", "));
                let value = if boxed {
                    format!("Box::new({value})")
                } else {
                    value
                };
                match cond {
                    Some(c) => {
                        self.code.open(format!("let {l} = if {c} {{"));
                        for i in &inner {
                            self.code.line(i);
                        }
                        self.code.line(format!("Some({value})"));
                        self.code.close("} else {");
                        self.code.indent_line("None");
                        self.code.line("};");
                    }
                    None => {
                        for i in &inner {
                            self.code.line(i);
                        }
                        self.code.line(format!("let {l} = {value};"));
                    }
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                let e = self.coded_read_value(f, fname, w, &predict);
                let e = format!("{e}{}?", wrap(&[seg]));
                match cond {
                    Some(c) => {
                        self.code.open(format!("let {l} = if {c} {{"));
                        self.code.line(format!("Some({e})"));
                        self.code.close("} else {");
                        self.code.indent_line("None");
                        self.code.line("};");
                    }
                    None => self.code.line(format!("let {l} = {e};")),
                }
            }
        }
    }

    /// `as T` after a `u64` value read for wire form `w`, when `T` is narrower.
    fn cast_from_u64(&self, w: &Wire<'_>) -> String {
        let rust = self.rust_type(w);
        if rust == "u64" {
            String::new()
        } else {
            format!(".map(|v| v as {rust})")
        }
    }

    /// An expression reading one value of model `path` in wire form `w`, of type
    /// `Result<T, DecodeError>` with `T` the packed record's type for it.
    fn coded_read_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        predict: &Predict,
    ) -> String {
        let rt = &self.rt;
        match predict {
            Predict::Velocity { field, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                f.helpers.insert(Helper::Velocity);
                f.helpers.insert(Helper::Predicted);
                let rust = self.rust_type(w);
                let cast = if rust == "i64" {
                    String::new()
                } else {
                    format!(".map(|v| v as {rust})")
                };
                let id = ident(field);
                return format!(
                    "stream.signed({m}, {width}).and_then(|d| Self::predicted(d, Self::velocity(base.as_ref().map(|b| b.{id} as i64), older.as_ref().map(|o| o.{id} as i64), ticks, {min}, {max}), {min}, {max}, at)){cast}"
                );
            }
            Predict::Quat { bits, base } => {
                f.helpers.insert(Helper::Quat);
                let on_base = match base {
                    Some(_) => format!(
                        "[{}, {}, {}, {}]",
                        f.slot(&format!("{path}.same")),
                        f.slot(&format!("{path}.d0")),
                        f.slot(&format!("{path}.d1")),
                        f.slot(&format!("{path}.d2"))
                    ),
                    None => "[0; 4]".into(),
                };
                let whole = format!(
                    "[{}, {}, {}, {}]",
                    f.slot(&format!("{path}.largest")),
                    f.slot(&format!("{path}.c0")),
                    f.slot(&format!("{path}.c1")),
                    f.slot(&format!("{path}.c2"))
                );
                let b = base.clone().unwrap_or_else(|| "None".into());
                return format!("Self::read_quat(stream, {b}, {on_base}, {whole}, {bits}, at)");
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int { signed: false, .. } => {
                format!("stream.value({m}, {width}){}", self.cast_from_u64(w))
            }
            Wire::Int { signed: true, .. } => {
                let rust = self.rust_type(w);
                let cast = if rust == "i64" {
                    String::new()
                } else {
                    format!(".map(|v| v as {rust})")
                };
                format!("stream.signed({m}, {width}){cast}")
            }
            Wire::Bucket(bp) if !bp.signed => {
                f.helpers.insert(Helper::AtMost);
                format!(
                    "stream.value({m}, {width}).and_then(|v| Self::at_most(v, {}, at)){}",
                    bp.max_value,
                    self.cast_from_u64(w)
                )
            }
            Wire::Bucket(bp) => {
                f.helpers.insert(Helper::Within);
                let rust = self.rust_type(w);
                format!(
                    "stream.signed({m}, {width}).and_then(|v| Self::within(v, {}, {}, at)).map(|v| v as {rust})",
                    bp.min_value, bp.max_value
                )
            }
            Wire::Float { bits: 32, .. } => {
                format!("stream.value({m}, 32).map(|v| f32::from_bits(v as u32))")
            }
            Wire::Float { .. } => format!("stream.value({m}, 64).map(f64::from_bits)"),
            Wire::Bool { .. } => format!("stream.value({m}, 1).map(|v| v == 1)"),
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
                    (false, false) => {
                        format!("stream.value({m}, {width}).map(|v| v as f64 * ({s}))")
                    }
                    (false, true) => {
                        f.helpers.insert(Helper::AtMost);
                        format!(
                            "stream.value({m}, {width}).and_then(|v| Self::at_most(v, {max}, at)).map(|v| v as f64 * ({s}))"
                        )
                    }
                    (true, false) => {
                        format!("stream.signed({m}, {width}).map(|v| v as f64 * ({s}))")
                    }
                    (true, true) => {
                        f.helpers.insert(Helper::Within);
                        format!(
                            "stream.signed({m}, {width}).and_then(|v| Self::within(v, {min}, {max}, at)).map(|v| v as f64 * ({s}))"
                        )
                    }
                }
            }
            Wire::Bits(b) => {
                let store = uint_type(b.width);
                format!(
                    "stream.value({m}, {width}).and_then(|v| {{ let set = <{name} as {rt}::BitSet>::from_bits(v as {store}); {rt}::BitSet::check(&set).map(|()| set).map_err(|kind| DecodeError::new(kind, at)) }})",
                    name = b.name
                )
            }
            // WIRE-29: the value less `min`, as kind 12 packs it; past `max` is over_width.
            Wire::Ranged { min, max, .. } => format!(
                "stream.value({m}, {width}).and_then(|v| i64::try_from(v).ok().and_then(|v| v.checked_add({min})).filter(|v| *v <= {max}).ok_or(DecodeError::new({rt}::ErrorKind::OverWidth, at))).map(|v| v as {rust})",
                rust = self.rust_type(w)
            ),
            // The plan refuses every other form in a group; were one to come, the code must not
            // compile rather than read it as anything.
            _ => format!("compile_error!(\"a coded frame cannot read `{path}`\")"),
        }
    }

    /// `code_change`: one change's values, coded into a sink.
    fn coded_code_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, basis: &str) {
        let rt = self.rt.clone();
        let name = &change.record.name;
        let body = self.captured(|g| {
            for s in &change.steps {
                g.coded_code_step(f, s);
            }
        });
        self.code.line(
            "/// Codes one change's values into `sink` (CODE-10..CODE-14): its id after `prev`'s,",
        );
        self.code.line(
            "/// its mask, then each value the mask selects, predicted from its records in `basis`.",
        );
        self.code.open(format!(
            "fn code_change<S: {rt}::coded::CodedSink>(c: &{name}, sink: &mut S, prev: &mut Option<u64>, ticks: &{rt}::coded::CodedBasisTicks, basis: {basis}) -> Result<(), EncodeError> {{"
        ));
        let mut lines = body.lines();
        let key_lines: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("// values"))
            .collect();
        for l in key_lines {
            self.code.line(l);
        }
        let key = change
            .steps
            .iter()
            .find(|s| s.role == Role::Key)
            .map_or("c.eid".to_string(), |s| {
                format!("c.{}", ident(&s.field.name))
            });
        self.coded_records(f, &key);
        for l in lines {
            self.code.line(l);
        }
        self.code.line("Ok(())");
        self.code.close("}");
    }

    fn coded_code_step(&mut self, f: &mut Frame<'_>, s: &Step<'_>) {
        let rt = self.rt.clone();
        let fname = &s.field.name;
        let id = ident(fname);
        let seg = format!("field(\"{fname}\")");
        if s.role == Role::Key {
            let (m, w) = (f.slot(fname), f.width(fname));
            let max = key_max(&s.wire);
            let v = self.to_u64(&format!("c.{id}"), &s.wire);
            self.code.line(format!("let key = {v};"));
            self.code.open(format!("if key > {max} {{"));
            self.code.line(format!(
                "return Err(EncodeError::new({rt}::ErrorKind::OverWidth).{seg});"
            ));
            self.code.close("}");
            self.code.line(format!(
                "let gap = {rt}::ascending_delta(*prev, key){}?;",
                wrap(std::slice::from_ref(&seg))
            ));
            self.code.line("*prev = Some(key);");
            self.code.line(format!(
                "sink.value({m}, {w}, gap){}?;",
                wrap(std::slice::from_ref(&seg))
            ));
            return;
        }
        if let Wire::Bits(_) = s.wire {
            if s.presence.is_none() && fname == "mask" {
                let e =
                    self.coded_code_value(f, fname, &s.wire, &format!("c.{id}"), &Predict::None);
                self.code.line(format!("{e}{}?;", wrap(&[seg])));
                self.code.line("// values");
                return;
            }
        }
        if let Some(p) = &s.presence {
            let cond = self.presence(p, true).replace("self.", "c.");
            self.code.line(format!(
                "{rt}::presence(c.{id}.is_some(), {cond}){}?;",
                wrap(std::slice::from_ref(&seg))
            ));
        }
        let (open, place) = if s.presence.is_some() {
            (
                Some(format!("if let Some(v) = &c.{id} {{")),
                "v".to_string(),
            )
        } else {
            (None, format!("c.{id}"))
        };
        if let Some(o) = &open {
            self.code.open(o);
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
                            &format!("{place}.{}", ident(&x.field.name)),
                            &predict,
                        );
                        self.code.line(format!(
                            "{e}{}?;",
                            wrap(&[format!("field(\"{}\")", x.field.name), seg.clone()])
                        ));
                    }
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                let v = if s.presence.is_some() {
                    format!("*{place}")
                } else {
                    place.clone()
                };
                let e = self.coded_code_value(f, fname, w, &v, &predict);
                self.code.line(format!("{e}{}?;", wrap(&[seg])));
            }
        }
        if open.is_some() {
            self.code.close("}");
        }
    }

    /// An expression coding `v` (a place of the packed record's type) as model `path` in
    /// wire form `w`, of type `Result<(), EncodeError>`.
    fn coded_code_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        v: &str,
        predict: &Predict,
    ) -> String {
        let rt = &self.rt;
        match predict {
            Predict::Velocity { field, min, max } => {
                let (m, width) = (f.slot(path), f.width(path));
                f.helpers.insert(Helper::Velocity);
                f.helpers.insert(Helper::Residual);
                let id = ident(field);
                return format!(
                    "Self::residual(i64::from({v}), Self::velocity(base.as_ref().map(|b| b.{id} as i64), older.as_ref().map(|o| o.{id} as i64), ticks, {min}, {max}), {min}, {max}).and_then(|d| sink.signed({m}, {width}, d))"
                );
            }
            Predict::Quat { bits, base } => {
                f.helpers.insert(Helper::Quat);
                let on_base = match base {
                    Some(_) => format!(
                        "[{}, {}, {}, {}]",
                        f.slot(&format!("{path}.same")),
                        f.slot(&format!("{path}.d0")),
                        f.slot(&format!("{path}.d1")),
                        f.slot(&format!("{path}.d2"))
                    ),
                    None => "[0; 4]".into(),
                };
                let whole = format!(
                    "[{}, {}, {}, {}]",
                    f.slot(&format!("{path}.largest")),
                    f.slot(&format!("{path}.c0")),
                    f.slot(&format!("{path}.c1")),
                    f.slot(&format!("{path}.c2"))
                );
                let b = base.clone().unwrap_or_else(|| "None".into());
                return format!("Self::code_quat(sink, &{v}, {b}, {on_base}, {whole}, {bits})");
            }
            Predict::None => {}
        }
        let (m, width) = (f.slot(path), f.width(path));
        match w {
            Wire::Int { signed: false, .. } => {
                format!("sink.value({m}, {width}, {})", self.to_u64(v, w))
            }
            Wire::Int { signed: true, .. } => {
                let x = if self.rust_type(w) == "i64" {
                    v.to_string()
                } else {
                    format!("i64::from({v})")
                };
                format!("sink.signed({m}, {width}, {x})")
            }
            Wire::Bucket(bp) if !bp.signed => {
                f.helpers.insert(Helper::Bounded);
                format!(
                    "Self::bounded({}, {}).and_then(|v| sink.value({m}, {width}, v))",
                    self.to_u64(v, w),
                    bp.max_value
                )
            }
            Wire::Bucket(bp) => {
                f.helpers.insert(Helper::BoundedSigned);
                let x = if self.rust_type(w) == "i64" {
                    v.to_string()
                } else {
                    format!("i64::from({v})")
                };
                format!(
                    "Self::bounded_signed({x}, {}, {}).and_then(|v| sink.signed({m}, {width}, v))",
                    bp.min_value, bp.max_value
                )
            }
            Wire::Float { bits: 32, .. } => {
                format!("sink.value({m}, 32, u64::from({v}.to_bits()))")
            }
            Wire::Float { .. } => format!("sink.value({m}, 64, {v}.to_bits())"),
            Wire::Bool { .. } => format!("sink.value({m}, 1, u64::from({v}))"),
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
                    format!(
                        "{rt}::quantize_int({v}, {s}, {min}, {max}).and_then(|q| sink.signed({m}, {width}, q))"
                    )
                } else {
                    format!(
                        "{rt}::quantize_uint({v}, {s}, {max}).and_then(|q| sink.value({m}, {width}, q))"
                    )
                }
            }
            Wire::Bits(_) => format!(
                "{rt}::BitSet::check(&{v}).map_err(EncodeError::new).and_then(|()| sink.value({m}, {width}, u64::from({rt}::BitSet::bits(&{v}))))"
            ),
            // WIRE-29: refused outside its range; the value less `min`, as kind 12 packs it.
            Wire::Ranged { min, max, .. } => format!(
                "{rt}::in_range(i128::from({v}), {min}, {max}).and_then(|()| sink.value({m}, {width}, (i128::from({v}) - i128::from({min}_i64)) as u64))"
            ),
            // The plan refuses every other form in a group; were one to come, the code must not
            // compile rather than write it as anything.
            _ => format!("compile_error!(\"a coded frame cannot write `{path}`\")"),
        }
    }

    /// The helpers the frame's code used, and the records' lookup.
    fn coded_helpers(&mut self, f: &Frame<'_>, basis: &str) {
        let rt = self.rt.clone();
        let record = &f.state.record.name;
        if f.uses_base || f.uses_older {
            self.code.blank();
            self.code.line(
                "/// The entity's records in the base and in the older snapshot (CODE-13, CODE-14):",
            );
            self.code.line(
                "/// none in a keyframe, no older one when `older` is 0, none for an id past a `u16`.",
            );
            self.code.open(format!(
                "fn records(eid: u32, ticks: &{rt}::coded::CodedBasisTicks, basis: {basis}) -> (Option<{record}>, Option<{record}>) {{"
            ));
            self.code.open("match u16::try_from(eid) {");
            self.code.open("Ok(eid) if !ticks.keyframe => {");
            self.code.line("basis.records(eid, ticks.older != 0)");
            self.code.close("}");
            self.code.line("_ => (None, None),");
            self.code.close("}");
            self.code.close("}");
        }
        for h in &f.helpers {
            self.code.blank();
            match h {
                Helper::Ascend => {
                    self.code.line(
                        "/// An id from its gap after `prev` (CODE-10, the first absolute): the ids",
                    );
                    self.code.line("/// ascend, and none is past `max`.");
                    self.code.open("fn ascend(prev: &mut Option<u64>, gap: u64, max: u64, at: usize) -> Result<u64, DecodeError> {");
                    self.code.open("let v = match *prev {");
                    self.code.line("None => gap,");
                    self.code.line(format!(
                        "Some(_) if gap == 0 => return Err(DecodeError::new({rt}::ErrorKind::NotAscending, at)),"
                    ));
                    self.code.line(format!(
                        "Some(p) => p.checked_add(gap).ok_or(DecodeError::new({rt}::ErrorKind::OverWidth, at))?,"
                    ));
                    self.code.close("};");
                    self.code.open("if v > max {");
                    self.code.line(format!(
                        "return Err(DecodeError::new({rt}::ErrorKind::OverWidth, at));"
                    ));
                    self.code.close("}");
                    self.code.line("*prev = Some(v);");
                    self.code.line("Ok(v)");
                    self.code.close("}");
                }
                Helper::AtMost => {
                    self.code.line(
                        "/// A decoded code its packed code can hold: at most `max` (`over_width`).",
                    );
                    self.code.open(
                        "fn at_most(v: u64, max: u64, at: usize) -> Result<u64, DecodeError> {",
                    );
                    self.code.open("if v > max {");
                    self.code.line(format!(
                        "return Err(DecodeError::new({rt}::ErrorKind::OverWidth, at));"
                    ));
                    self.code.close("}");
                    self.code.line("Ok(v)");
                    self.code.close("}");
                }
                Helper::Within => {
                    self.code.line(
                        "/// A decoded signed code its packed code can hold: within `min..=max`.",
                    );
                    self.code.open("fn within(v: i64, min: i64, max: i64, at: usize) -> Result<i64, DecodeError> {");
                    self.code.open("if !(min..=max).contains(&v) {");
                    self.code.line(format!(
                        "return Err(DecodeError::new({rt}::ErrorKind::OverWidth, at));"
                    ));
                    self.code.close("}");
                    self.code.line("Ok(v)");
                    self.code.close("}");
                }
                Helper::Bounded => {
                    self.code.line(
                        "/// A value its packed code can hold, as kind 12 would refuse it: at most `max`.",
                    );
                    self.code
                        .open("fn bounded(v: u64, max: u64) -> Result<u64, EncodeError> {");
                    self.code.open("if v > max {");
                    self.code.line(format!(
                        "return Err(EncodeError::new({rt}::ErrorKind::OverWidth));"
                    ));
                    self.code.close("}");
                    self.code.line("Ok(v)");
                    self.code.close("}");
                }
                Helper::BoundedSigned => {
                    self.code
                        .line("/// A signed value its packed code can hold: within `min..=max`.");
                    self.code.open("fn bounded_signed(v: i64, min: i64, max: i64) -> Result<i64, EncodeError> {");
                    self.code.open("if !(min..=max).contains(&v) {");
                    self.code.line(format!(
                        "return Err(EncodeError::new({rt}::ErrorKind::OverWidth));"
                    ));
                    self.code.close("}");
                    self.code.line("Ok(v)");
                    self.code.close("}");
                }
                Helper::Velocity => {
                    self.code.line(
                        "/// CODE-13: the step the entity's motion from the older snapshot to the base",
                    );
                    self.code.line(
                        "/// predicts `gap` ticks on, `extrapolate(base - older, gap, older)` clamped to",
                    );
                    self.code
                        .line("/// the step's range; 0 without both records.");
                    self.code.open(format!(
                        "fn velocity(base: Option<i64>, older: Option<i64>, ticks: &{rt}::coded::CodedBasisTicks, min: i64, max: i64) -> i64 {{"
                    ));
                    self.code.open("match (base, older) {");
                    self.code
                        .open("(Some(b), Some(o)) if ticks.older != 0 => {");
                    self.code
                        .line("let gap = ticks.tick.wrapping_sub(ticks.base_tick).min(65535);");
                    self.code.line(format!(
                        "{rt}::coded::extrapolate(b.saturating_sub(o), gap, u32::from(ticks.older)).clamp(min, max)"
                    ));
                    self.code.close("}");
                    self.code.line("_ => 0,");
                    self.code.close("}");
                    self.code.close("}");
                }
                Helper::Predicted => {
                    self.code.line(
                        "/// A predicted value from its difference `d` from the prediction `p`: within",
                    );
                    self.code.line("/// `min..=max` (CODE-13, `over_width`).");
                    self.code.open("fn predicted(d: i64, p: i64, min: i64, max: i64, at: usize) -> Result<i64, DecodeError> {");
                    self.code.open("match p.checked_add(d) {");
                    self.code
                        .line("Some(v) if (min..=max).contains(&v) => Ok(v),");
                    self.code.line(format!(
                        "_ => Err(DecodeError::new({rt}::ErrorKind::OverWidth, at)),"
                    ));
                    self.code.close("}");
                    self.code.close("}");
                }
                Helper::Residual => {
                    self.code.line(
                        "/// What a predicted value codes: its difference from the prediction `p`, the",
                    );
                    self.code.line("/// value within `min..=max`.");
                    self.code.open("fn residual(v: i64, p: i64, min: i64, max: i64) -> Result<i64, EncodeError> {");
                    self.code.open("if !(min..=max).contains(&v) {");
                    self.code.line(format!(
                        "return Err(EncodeError::new({rt}::ErrorKind::OverWidth));"
                    ));
                    self.code.close("}");
                    self.code.line("Ok(v - p)");
                    self.code.close("}");
                }
                Helper::Quat => self.coded_quat_helpers(),
            }
        }
    }

    /// `read_quat` and `code_quat` (CODE-14).
    fn coded_quat_helpers(&mut self) {
        let rt = self.rt.clone();
        self.code.line(
            "/// A `quat(bits)` (CODE-14). When `base` holds one: whether the largest component is",
        );
        self.code.line(
            "/// the base's (model `on_base[0]`), and if so the three components as differences from",
        );
        self.code.line(
            "/// the base's (`on_base[1..]`, `bits + 1` bits). Otherwise the largest's index and the",
        );
        self.code.line(
            "/// three as kind 12 codes them (`whole`). The canonical rules then hold as kind 12's.",
        );
        self.code.open(format!(
            "fn read_quat(stream: &mut {rt}::coded::CodedDecoder<'_, '_>, base: Option<{rt}::SmallestThree>, on_base: [usize; 4], whole: [usize; 4], bits: u8, at: usize) -> Result<{rt}::SmallestThree, DecodeError> {{"
        ));
        self.code.line("let half = 1i64 << (bits - 1);");
        self.code.open("let same = match base {");
        self.code
            .line("Some(_) => stream.value(on_base[0], 1).map_err(|e| e.field(\"same\"))? == 1,");
        self.code.line("None => false,");
        self.code.close("};");
        self.code.open("let q = match base {");
        self.code.open("Some(b) if same => {");
        self.code.line("let mut rest = b.rest;");
        self.code
            .open("for (i, c) in rest.iter_mut().enumerate() {");
        self.code
            .line("let d = stream.signed(on_base[i + 1], bits + 1).map_err(|e| e.field(\"d\"))?;");
        self.code.line("let v = i64::from(*c) + d;");
        self.code.open("if !(-half..half).contains(&v) {");
        self.code.line(format!(
            "return Err(DecodeError::new({rt}::ErrorKind::OverWidth, at));"
        ));
        self.code.close("}");
        self.code.line("*c = v as i16;");
        self.code.close("}");
        self.code.line(format!(
            "{rt}::SmallestThree {{ largest: b.largest, rest }}"
        ));
        self.code.close("}");
        self.code.open("_ => {");
        self.code.line(
            "let largest = stream.value(whole[0], 2).map_err(|e| e.field(\"largest\"))? as u8;",
        );
        self.code
            .line("// CODE-14: the base's largest component travels as `same`, never again whole.");
        self.code
            .open("if base.is_some_and(|b| b.largest == largest) {");
        self.code.line(format!(
            "return Err(DecodeError::new({rt}::ErrorKind::NonCanonical, stream.offset()).field(\"largest\"));"
        ));
        self.code.close("}");
        self.code.line("let mut rest = [0i16; 3];");
        self.code
            .open("for (i, c) in rest.iter_mut().enumerate() {");
        self.code.line(
            "let raw = stream.value(whole[i + 1], bits).map_err(|e| e.field(\"c\"))? as i64;",
        );
        self.code
            .line("// Two's complement in `bits` bits, as kind 12 lays it.");
        self.code
            .line("*c = (if raw >= half { raw - 2 * half } else { raw }) as i16;");
        self.code.close("}");
        self.code
            .line(format!("{rt}::SmallestThree {{ largest, rest }}"));
        self.code.close("}");
        self.code.close("};");
        self.code
            .line("q.check(bits).map_err(|kind| DecodeError::new(kind, at))?;");
        self.code.line("Ok(q)");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Codes a `quat(bits)` as [`Self::read_quat`] reads it, refusing what kind 12 refuses.",
        );
        self.code.open(format!(
            "fn code_quat<S: {rt}::coded::CodedSink>(sink: &mut S, q: &{rt}::SmallestThree, base: Option<{rt}::SmallestThree>, on_base: [usize; 4], whole: [usize; 4], bits: u8) -> Result<(), EncodeError> {{"
        ));
        self.code.line("q.check(bits).map_err(EncodeError::new)?;");
        self.code.open("if let Some(b) = base {");
        self.code.line("let same = b.largest == q.largest;");
        self.code
            .line("sink.value(on_base[0], 1, u64::from(same)).map_err(|e| e.field(\"same\"))?;");
        self.code.open("if same {");
        self.code
            .open("for (i, (c, bc)) in q.rest.iter().zip(b.rest).enumerate() {");
        self.code.line("sink.signed(on_base[i + 1], bits + 1, i64::from(*c) - i64::from(bc)).map_err(|e| e.field(\"d\"))?;");
        self.code.close("}");
        self.code.line("return Ok(());");
        self.code.close("}");
        self.code.close("}");
        self.code.line(
            "sink.value(whole[0], 2, u64::from(q.largest)).map_err(|e| e.field(\"largest\"))?;",
        );
        self.code.line("let mask = (1u64 << bits) - 1;");
        self.code.open("for (i, c) in q.rest.iter().enumerate() {");
        self.code.line("sink.value(whole[i + 1], bits, (i64::from(*c) as u64) & mask).map_err(|e| e.field(\"c\"))?;");
        self.code.close("}");
        self.code.line("Ok(())");
        self.code.close("}");
    }
}

/// The largest id a key of wire form `w` holds, as a `u64` literal.
fn key_max(w: &Wire<'_>) -> String {
    match w {
        Wire::Bucket(bp) => format!("{}", bp.max_code),
        Wire::Int { bits, .. } => format!("{}", (1u128 << bits) - 1),
        _ => "u64::MAX".into(),
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
