//! The breaking-change checker: `ackwire breaking OLD NEW` compares two versions of a spec at
//! the level of bits and names every change that breaks a peer built from OLD.
//!
//! # What counts as breaking, and why
//!
//! LANGUAGE.md, "Canonical decoding": "A decoder accepts exactly the bytes its encoder can
//! produce ... Every accepted input re-encodes to the identical bytes." So two versions of a
//! frame interoperate exactly when their decoders accept the same bytes and read the same
//! values out of them; any change to that set breaks one direction. A version that accepts
//! more (a bit newly named, a wider varint, a new union variant) has an encoder whose bytes
//! a peer built from OLD refuses; one that accepts less (a bit newly reserved, a field made a
//! constant) refuses bytes a peer built from OLD sends; one that reads other values from the
//! same bytes (another byte order, another quantization scale, two groups of a select
//! swapped) silently misreads them. Each of those is a breaking change, reported as an
//! `error` with the place in both versions, and the command exits 1:
//!
//! - a frame's kind or version constant, any constant field's value, a field made constant;
//! - a field's width, signedness, byte order, varint against fixed width, its quantization
//!   scale, another kind of type;
//! - a field's position (a field moved, or a group moved within a `select`), a field added
//!   or removed, a presence condition changed;
//! - a bit set's width or byte order, a bit's position, a bit newly reserved or newly named,
//!   what a bit requires;
//! - a union's tag type, a variant's tag, a variant added or removed;
//! - a count's type, or which field counts an array; whether and how an array ascends; a
//!   record made packed or byte-aligned;
//! - a frame added or removed, and a protocol constant's value (`const`: SENT_RING, HELD_RING
//!   and the like are rules both peers follow);
//! - a machine schema removed, the machines it binds, or the item that plays one of its roles
//!   (`role`: another frame, by its leading constant, or a constant of another value).
//!
//! What keeps the bytes identical is not breaking: a doc comment, a renamed field, record,
//! bit set, union, bit or frame, declarations reordered or moved between files, bits or
//! variants listed in another order, an explicit `le` where the file's order was little
//! endian anyway, `a && b` written `b && a`, `x > 0` written `x` for an unsigned `x`, a
//! `select` group written as an `if` on the same bit, a count field just before its array
//! written as the array's count prefix (`n: u8, xs: [T; n]` against `xs: [T; u8]`). Those are
//! listed as notes; a rename that changes the JSON form (a value field's key, a bit's name in
//! a bit set's list, a union variant's key) or a value that becomes a float where it was an
//! integer (`quant(u16, 1)` against `u16`) is a `warning`. They exit 0. Two fields of the
//! same type that swap names keep the bytes too, and are two such warnings: the bytes say
//! nothing of which name a value had. A protocol constant added or removed, or a record no
//! frame carries removed, is a warning as well: no frame's bytes change by itself.
//!
//! # How
//!
//! The comparison works on the lowering ([`crate::lower`]), not on the text: each record is
//! compared as its list of steps with their roles, wire forms and presence tests, the
//! operands of a test and the field an array is counted by taken by position, and bit sets by
//! bit index. Fields are paired by position when the two lists have the same shape (so a
//! renamed field is a rename whatever its new name); otherwise by name, the longest run of
//! fields in the same order being kept in place and the others reported as moved, and what
//! is left between them paired by position (a rename that also changes the type). Frames are
//! paired by name, then by their leading constant; union variants by tag; bits by index.
//! Each record, bit set and union pair is compared once, where it is first reached from a
//! frame; declarations no frame reaches (a record whose bytes are a check's input, such as
//! `EntityState`) are compared after, by name.
//!
//! Two changes are reported as breaking even where the bytes happen to stay the same, since
//! the comparison does not follow bit offsets across records: a record's fields moved into a
//! nested record (or out of one), which changes the generated types and the JSON form anyway;
//! and a record made `packed` whose fields are all whole bytes at byte offsets (a packed
//! `u16` is then its little-endian bytes).
//!
//! The tool names every change of kind number, bit position, width, order or quantization between
//! two versions of a spec that breaks a peer built from the older one.

use crate::diag::Diagnostic;
use crate::gen::snake_case;
use crate::index::{Decl, Index};
use crate::lower::{
    Ascending, BitsPlan, CountFrom, Lowering, RecordPlan, Role, Step, Test, UnionPlan, Wire,
};
use crate::model::{
    BitKind, Bits, Const, Docs, Item, Machine, MachineSchema, Record, Span, Spec, Union,
};
use crate::Source;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// How much a change matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The bytes are the same; something a reader of the spec sees changed (a doc comment,
    /// a name the JSON form does not carry).
    Note,
    /// The bytes are the same but the JSON form changes (a key, a bit's name).
    Warning,
    /// A peer built from OLD and one built from NEW disagree on some bytes.
    Breaking,
}

impl Severity {
    /// As the report prints it: `error`, `warning`, `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Breaking => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// A frame's leading constant: its kind or version.
    FrameKind,
    /// A constant field's value, or a field made a constant or no longer one.
    Constant,
    /// The width of an integer, float, varint or bit set; a quaternion's component width; a
    /// bucket code's widths.
    Width,
    /// Signed against unsigned (zigzag against varint).
    Signedness,
    /// Most against least significant byte first.
    ByteOrder,
    /// A variable-width integer (a varint, a bucket code) against a fixed-width one.
    VarintFixed,
    /// A quantization scale.
    Scale,
    /// Another kind of type altogether.
    Type,
    /// A field at another position.
    Order,
    /// A group at another position within a `select`.
    SelectOrder,
    /// A field's presence condition.
    Presence,
    /// A named bit at another index.
    BitPosition,
    /// A named bit now reserved.
    BitReserved,
    /// A reserved bit now named.
    BitNamed,
    /// What a bit requires.
    BitRequires,
    /// A union's tag type, or a variant's tag.
    UnionTag,
    /// A count's type, or the field that counts an array.
    Count,
    /// Whether and by what an array ascends.
    Ascending,
    /// A record packed or byte-aligned.
    Packed,
    /// A protocol constant (`const`): its value, its type, added or removed.
    ProtocolConstant,
    /// A field, frame, variant or declaration that only NEW has.
    Added,
    /// A field, frame, variant or declaration that only OLD has.
    Removed,
    /// A name changed, the bytes did not.
    Rename,
    /// An integer that became a float in the JSON form, or the reverse.
    JsonForm,
    /// A doc comment.
    Doc,
    /// What a replicated state's fields mean against the base: a field's unit, how a form
    /// carries it (a coarser unit, a step), a step's reach, which flags bit keeps a tier or a
    /// presence, a group's tick, a group's place. The frames may keep their bytes; the records
    /// applied from them, and the check, do not.
    State,
    /// Which item plays a machine schema's role, or which machines a schema binds: the bound
    /// machines read other frames (or other constants) than peers built from OLD.
    Role,
}

impl Kind {
    /// The kind's name in the report, `error[width]: ...`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::FrameKind => "frame-kind",
            Kind::Constant => "constant",
            Kind::Width => "width",
            Kind::Signedness => "signedness",
            Kind::ByteOrder => "byte-order",
            Kind::VarintFixed => "varint-fixed",
            Kind::Scale => "scale",
            Kind::Type => "type",
            Kind::Order => "order",
            Kind::SelectOrder => "select-order",
            Kind::Presence => "presence",
            Kind::BitPosition => "bit-position",
            Kind::BitReserved => "bit-reserved",
            Kind::BitNamed => "bit-named",
            Kind::BitRequires => "bit-requires",
            Kind::UnionTag => "union-tag",
            Kind::Count => "count",
            Kind::Ascending => "ascending",
            Kind::Packed => "packed",
            Kind::ProtocolConstant => "protocol-constant",
            Kind::Added => "added",
            Kind::Removed => "removed",
            Kind::Rename => "rename",
            Kind::JsonForm => "json-form",
            Kind::Doc => "doc",
            Kind::State => "state",
            Kind::Role => "role",
        }
    }
}

/// A place in one version, with what is there.
#[derive(Debug, Clone)]
pub struct Mark {
    /// The file's name, as the sources give it.
    pub file: String,
    /// The range the caret underlines.
    pub span: Span,
    /// What the version has there.
    pub label: String,
}

/// One change between the two versions.
#[derive(Debug, Clone)]
pub struct Change {
    /// What changed.
    pub kind: Kind,
    /// Whether it breaks.
    pub severity: Severity,
    /// One line saying what changed.
    pub message: String,
    /// Where, in OLD (`None` when OLD has nothing there: a frame added).
    pub old: Option<Mark>,
    /// Where, in NEW (`None` when NEW has nothing there).
    pub new: Option<Mark>,
}

/// Every change found, in the order the frames and declarations are met.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The changes.
    pub changes: Vec<Change>,
}

impl Report {
    /// Whether any change breaks a peer built from OLD.
    pub fn is_breaking(&self) -> bool {
        self.count(Severity::Breaking) > 0
    }

    /// How many changes have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.changes
            .iter()
            .filter(|c| c.severity == severity)
            .count()
    }

    /// Renders the report rustc-style, each change located in both versions against their
    /// sources, then a closing line with the counts.
    pub fn render(&self, old: &[Source], new: &[Source]) -> String {
        let mut out = String::new();
        for c in &self.changes {
            let _ = writeln!(
                out,
                "{}[{}]: {}",
                c.severity.as_str(),
                c.kind.as_str(),
                c.message
            );
            out.push_str(&snippet(c.old.as_ref(), old, "OLD"));
            out.push_str(&snippet(c.new.as_ref(), new, "NEW"));
            out.push('\n');
        }
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let breaking = self.count(Severity::Breaking);
        let rest = format!(
            "{}, {}",
            plural(self.count(Severity::Warning), "warning"),
            plural(self.count(Severity::Note), "note")
        );
        if breaking > 0 {
            let _ = writeln!(
                out,
                "error: {} ({rest})",
                plural(breaking, "breaking change")
            );
        } else {
            let _ = writeln!(out, "ok: no breaking change ({rest})");
        }
        out
    }
}

/// One version's place, as `ackwire check` prints a diagnostic's (without its first line).
fn snippet(mark: Option<&Mark>, sources: &[Source], version: &str) -> String {
    let Some(m) = mark else {
        return format!("  = {version}: not there\n");
    };
    let text = sources
        .iter()
        .find(|s| s.name == m.file)
        .map_or("", |s| s.text.as_str());
    let d = Diagnostic::new(&m.file, m.span, "", format!("{version}: {}", m.label));
    let rendered = d.render(text);
    rendered
        .split_once('\n')
        .map_or(rendered.clone(), |(_, rest)| rest.to_string())
}

/// Compares two validated specs: every change from `old` to `new`.
pub fn compare(old: &Spec, new: &Spec) -> Report {
    let old = Lowering::new(old);
    let new = Lowering::new(new);
    let mut cmp = Cmp {
        sides: [&old, &new],
        shapes: Shapes::default(),
        changes: Vec::new(),
        seen_records: HashSet::new(),
        seen_names: HashSet::new(),
        visited: [HashSet::new(), HashSet::new()],
        broken: HashSet::new(),
        broken_hits: 0,
    };
    cmp.run();
    // A record read both on its own and within an ascending list is compared in both
    // contexts; what its fields say is the same in each, and is reported once.
    let mut seen = HashSet::new();
    let at = |m: &Option<Mark>| m.as_ref().map(|m| (m.file.clone(), m.span.start));
    let changes = cmp
        .changes
        .into_iter()
        .filter(|c| seen.insert((c.kind, c.message.clone(), at(&c.old), at(&c.new))))
        .collect();
    Report { changes }
}

/// OLD and NEW, as indices into [`Cmp::sides`].
const OLD: usize = 0;
const NEW: usize = 1;

/// One field of a record as the comparison sees it: a step, or an array with the count
/// field just before it folded in (`n: u8, xs: [T; n]` is `xs: [T; u8]` on the wire).
#[derive(Clone, Copy)]
struct Slot<'a, 's> {
    step: &'a Step<'s>,
    count: Option<&'a Step<'s>>,
}

impl Slot<'_, '_> {
    fn name(&self) -> &str {
        &self.step.field.name
    }

    /// Carried in the generated type and the JSON form under its name.
    fn is_value(&self) -> bool {
        self.count.is_some() || matches!(self.step.role, Role::Value | Role::Key)
    }
}

/// A record's slots, and where each field's name lands among them.
struct Slots<'a, 's> {
    list: Vec<Slot<'a, 's>>,
    index: HashMap<&'s str, usize>,
}

/// The slots of `plan`; with `fold`, each count field just before its array (and tested by
/// no condition) folded into the array as its count prefix, the canonical form.
fn slots<'a, 's>(plan: &'a RecordPlan<'s>, fold: bool) -> Slots<'a, 's> {
    let tested: HashSet<&str> = plan
        .steps
        .iter()
        .flat_map(|s| s.presence.iter().flat_map(|p| &p.tests))
        .map(|t| t.operand().name())
        .collect();
    let mut list = Vec::new();
    let mut index = HashMap::new();
    let mut i = 0;
    while i < plan.steps.len() {
        let step = &plan.steps[i];
        let next = plan.steps.get(i + 1);
        let folds = match (step.role, next) {
            (Role::Count { array }, Some(next)) if fold => {
                array == next.field.name
                    && step.presence.is_none()
                    && next.presence.is_none()
                    && !tested.contains(step.field.name.as_str())
            }
            _ => false,
        };
        if let (true, Some(next)) = (folds, next) {
            index.insert(step.field.name.as_str(), list.len());
            index.insert(next.field.name.as_str(), list.len());
            list.push(Slot {
                step: next,
                count: Some(step),
            });
            i += 2;
        } else {
            index.insert(step.field.name.as_str(), list.len());
            list.push(Slot { step, count: None });
            i += 1;
        }
    }
    Slots { list, index }
}

/// A presence test with its operand by position and its bit by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum NTest {
    Bit { op: usize, index: u8, negated: bool },
    NonZero { op: usize, negated: bool },
    Greater { op: usize, value: u64 },
}

impl NTest {
    fn op(&self) -> usize {
        match *self {
            NTest::Bit { op, .. } | NTest::NonZero { op, .. } | NTest::Greater { op, .. } => op,
        }
    }

    fn with_op(self, to: usize) -> Self {
        match self {
            NTest::Bit { index, negated, .. } => NTest::Bit {
                op: to,
                index,
                negated,
            },
            NTest::NonZero { negated, .. } => NTest::NonZero { op: to, negated },
            NTest::Greater { value, .. } => NTest::Greater { op: to, value },
        }
    }
}

/// The tests of a slot's presence, sorted: a conjunction does not depend on its order.
fn tests(step: &Step<'_>, slots: &Slots<'_, '_>) -> Vec<NTest> {
    let Some(p) = &step.presence else {
        return Vec::new();
    };
    let mut out: Vec<NTest> = p
        .tests
        .iter()
        .map(|t| {
            let op = slots
                .index
                .get(t.operand().name())
                .copied()
                .unwrap_or(usize::MAX);
            let unsigned = t.operand().field().is_some_and(|f| {
                matches!(
                    &f.ty,
                    crate::model::Type::Int(i) if !i.signed
                ) || matches!(
                    &f.ty,
                    crate::model::Type::Varint { .. } | crate::model::Type::Bool
                )
            });
            match t {
                Test::Bit {
                    bits, bit, negated, ..
                } => NTest::Bit {
                    op,
                    index: bits
                        .and_then(|b| Index::bit_index(b, bit))
                        .unwrap_or(u8::MAX),
                    negated: *negated,
                },
                Test::Bool { negated, .. } | Test::NonZero { negated, .. } => NTest::NonZero {
                    op,
                    negated: *negated,
                },
                // `x > 0` is `x` for an unsigned x (index.rs treats them as one test too).
                Test::Greater { value: 0, .. } if unsigned => NTest::NonZero { op, negated: false },
                Test::Greater { value, .. } => NTest::Greater { op, value: *value },
            }
        })
        .collect();
    out.sort();
    out
}

/// The scale a quantized value is multiplied by, as every generator computes it (LANGUAGE.md:
/// "the scale `NUM/DEN` is computed once as a double"): two scales are the same when their
/// doubles are.
fn scale(num: u64, den: u64) -> f64 {
    num as f64 / den as f64
}

/// A byte-aligned integer wider than a byte has a byte order; a byte and a packed field (a bit
/// stream, least significant bit first) have none.
fn has_order(bits: u8, packed: bool) -> bool {
    bits > 8 && !packed
}

/// Shapes: a wire form with every name left out, interned to a number so that comparing two
/// records' shapes costs their size, however often a record is nested.
#[derive(Default)]
struct Shapes {
    ids: HashMap<String, u32>,
    records: HashMap<(usize, String, Option<String>), u32>,
}

impl Shapes {
    fn intern(&mut self, s: String) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(s).or_insert(next)
    }

    fn wire(&mut self, low: &Lowering<'_>, side: usize, w: &Wire<'_>, packed: bool) -> u32 {
        let s = match w {
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => format!(
                "{}{bits}{}{}",
                if *signed { "i" } else { "u" },
                if has_order(*bits, packed) && *big_endian {
                    "be"
                } else {
                    ""
                },
                if packed { "p" } else { "" }
            ),
            Wire::Float { bits, big_endian } => format!(
                "f{bits}{}{}",
                if !packed && *big_endian { "be" } else { "" },
                if packed { "p" } else { "" }
            ),
            Wire::Bool { packed } => format!("bool{packed}"),
            Wire::Varint { bits } => format!("v{bits}"),
            Wire::Zigzag { bits } => format!("z{bits}"),
            Wire::Bytes => "bytes".into(),
            Wire::OptBytes => "bytes?".into(),
            // Compared on the bits: the component width, the bucket list and its sign.
            Wire::Quat { bits } => format!("quat{bits}"),
            Wire::Bucket(b) => format!("{}bucket{:?}", if b.signed { "z" } else { "" }, b.widths),
            // A range changes which values pass (and, packed, the bits): another shape.
            Wire::Ranged { int, min, max, .. } => {
                let inner = self.wire(low, side, int, packed);
                format!("r{min}:{max}({inner})")
            }
            // A scale of 1 reads the integer as it is: the bytes and values are the same.
            Wire::Quant { wire, num, den, .. } if scale(*num, *den) == 1.0 => {
                return self.wire(low, side, wire, packed);
            }
            Wire::Quant { wire, num, den, .. } => {
                let inner = self.wire(low, side, wire, packed);
                format!("q{:x}({inner})", scale(*num, *den).to_bits())
            }
            Wire::Bits(b) => {
                let plan = low.bits_plan(b);
                let mut named: Vec<String> = plan
                    .named
                    .iter()
                    .map(|n| format!("{}>{:?}", n.index, n.requires.map(|r| r.1)))
                    .collect();
                named.sort();
                format!(
                    "B{}{}{}[{}]",
                    b.width,
                    if has_order(b.width, packed) && low.bits_big_endian(b) {
                        "be"
                    } else {
                        ""
                    },
                    if packed { "p" } else { "" },
                    named.join(",")
                )
            }
            Wire::Record { record, padded } => {
                let id = self.record(low, side, &record.name, None);
                format!("R{padded}({id})")
            }
            Wire::Union(u) => {
                let plan = low.union_plan(u);
                let tag = self.wire(low, side, &plan.tag, false);
                let mut vs: Vec<(u64, u32)> = plan
                    .variants
                    .iter()
                    .map(|(t, r)| (*t, self.record(low, side, &r.name, None)))
                    .collect();
                vs.sort();
                format!("U{tag}{vs:?}")
            }
            Wire::Array(a) => return self.array(low, side, a, packed, None),
            Wire::Unknown(n) => format!("?{n}"),
        };
        self.intern(s)
    }

    /// An array's shape; `prefix` is the count field folded into it (see [`slots`]), which
    /// then stands where a count written before the elements would.
    fn array(
        &mut self,
        low: &Lowering<'_>,
        side: usize,
        a: &crate::lower::ArrayPlan<'_>,
        packed: bool,
        prefix: Option<&Wire<'_>>,
    ) -> u32 {
        let elem = match (&a.elem, a.ascending) {
            (Wire::Record { record, padded }, Some(Ascending::Key(k))) => {
                let id = self.record(low, side, &record.name, Some(k));
                let at = low
                    .plan(&record.name, Some(k))
                    .map(|p| slots(p, true).index.get(k).copied().unwrap_or(usize::MAX));
                format!("R{padded}({id})k{at:?}")
            }
            (elem, asc) => {
                format!("{}{:?}", self.wire(low, side, elem, packed), asc.is_some())
            }
        };
        let count = match (prefix, &a.count) {
            (Some(t), _) | (None, CountFrom::Prefix(t)) => {
                format!("P{}", self.wire(low, side, t, packed))
            }
            // The count field's position is compared by the record holding both.
            (None, CountFrom::Field(_)) => "F".into(),
        };
        self.intern(format!("A({elem};{count})"))
    }

    /// A slot's wire: an array with its count field folded in is the array with a prefix.
    fn folded(
        &mut self,
        low: &Lowering<'_>,
        side: usize,
        w: &Wire<'_>,
        count: &Wire<'_>,
        packed: bool,
    ) -> u32 {
        match w {
            Wire::Array(a) => self.array(low, side, a, packed, Some(count)),
            other => self.wire(low, side, other, packed),
        }
    }

    /// The shape of record `name` read on its own or within a list ascending by `key`.
    fn record(&mut self, low: &Lowering<'_>, side: usize, name: &str, key: Option<&str>) -> u32 {
        let memo = (side, name.to_string(), key.map(str::to_string));
        if let Some(id) = self.records.get(&memo) {
            return *id;
        }
        let Some(plan) = low.plan(name, key) else {
            return self.intern(format!("?{name}"));
        };
        let s = slots(plan, true);
        let parts: Vec<String> = s
            .list
            .iter()
            .map(|slot| self.slot(low, side, slot, &s, plan.packed))
            .collect();
        let id = self.intern(format!("{}{{{}}}", plan.packed, parts.join(";")));
        self.records.insert(memo, id);
        id
    }

    fn slot(
        &mut self,
        low: &Lowering<'_>,
        side: usize,
        slot: &Slot<'_, '_>,
        s: &Slots<'_, '_>,
        packed: bool,
    ) -> String {
        let role = match (slot.count, slot.step.role) {
            (Some(_), _) | (None, Role::Value) => "V".to_string(),
            (None, Role::Constant(c)) => format!("C{c}"),
            (None, Role::Count { array }) => format!("N{:?}", s.index.get(array)),
            (None, Role::Key) => "K".to_string(),
        };
        let wire = match slot.count {
            Some(c) => self.folded(low, side, &slot.step.wire, &c.wire, packed),
            None => self.wire(low, side, &slot.step.wire, packed),
        };
        let count = match (slot.count, &slot.step.wire) {
            (Some(_), _) => String::new(),
            (None, Wire::Array(a)) => match &a.count {
                CountFrom::Field(f) => format!("F{:?}", s.index.get(f)),
                CountFrom::Prefix(_) => String::new(),
            },
            _ => String::new(),
        };
        format!(
            "{role}:{wire}{count}{:?}",
            tests(slot.step, s)
                .iter()
                .map(|t| format!("{t:?}"))
                .collect::<Vec<_>>()
        )
    }
}

/// A record pair being compared: both sides' slots and how they pair.
struct Pairing<'a, 's> {
    old: Slots<'a, 's>,
    new: Slots<'a, 's>,
    /// Old slot index to new slot index.
    map: HashMap<usize, usize>,
    /// The old slots paired by name out of the order kept: moved.
    moved: HashSet<usize>,
}

/// The comparison under way.
struct Cmp<'a, 's> {
    sides: [&'a Lowering<'s>; 2],
    shapes: Shapes,
    changes: Vec<Change>,
    /// Record plans compared: (old name, old key, new name, new key).
    seen_records: HashSet<(String, Option<String>, String, Option<String>)>,
    /// Declarations compared by kind and names (renames and docs are reported once).
    seen_names: HashSet<(char, String, String)>,
    /// Declarations of each side compared, by name.
    visited: [HashSet<String>; 2],
    /// Pairs (as in `seen_records` and `seen_names`, by their debug form) whose comparison
    /// found a breaking change.
    broken: HashSet<String>,
    /// How often a pair already compared and found broken was met again: a record holding it
    /// breaks too, though nothing new is reported inside it.
    broken_hits: usize,
}

impl<'a, 's> Cmp<'a, 's> {
    fn file(&self, side: usize, decl: &str) -> String {
        self.sides[side]
            .index
            .file_of(decl)
            .map_or(String::new(), |f| f.name.clone())
    }

    fn mark(&self, side: usize, decl: &str, span: Span, label: impl Into<String>) -> Mark {
        Mark {
            file: self.file(side, decl),
            span,
            label: label.into(),
        }
    }

    fn push(
        &mut self,
        kind: Kind,
        severity: Severity,
        message: String,
        old: Option<Mark>,
        new: Option<Mark>,
    ) {
        self.changes.push(Change {
            kind,
            severity,
            message,
            old,
            new,
        });
    }

    fn run(&mut self) {
        self.states();
        self.schemas();
        self.frames();
        self.unreached_records();
        self.unreached_bits_and_unions();
        self.constants();
        self.file_docs();
    }

    // ---- machine schemas ----

    /// Each machine schema of OLD paired with NEW's of the same name (or the only one of each
    /// for its machines): which item plays each role. A frame renamed under a role keeps its
    /// place (its rename is reported with the frames); another frame, another constant's value
    /// or a role's machines changed breaks.
    fn schemas(&mut self) {
        let sides = self.sides;
        let list = move |side: usize| -> Vec<(&'s str, &'s MachineSchema)> {
            sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| f.items.iter().map(move |i| (f.name.as_str(), i)))
                .filter_map(|(f, i)| match i {
                    Item::Schema(m) => Some((f, m)),
                    _ => None,
                })
                .collect()
        };
        let (old, new) = (list(OLD), list(NEW));
        let mark = |file: &str, span: Span, label: String| Mark {
            file: file.to_string(),
            span,
            label,
        };
        let only = |l: &[(&'s str, &'s MachineSchema)], m: Machine| {
            let mut of = l.iter().filter(|(_, x)| x.machine == m);
            match (of.next(), of.next()) {
                (Some(x), None) => Some(*x),
                _ => None,
            }
        };
        let mut paired = HashSet::new();
        for &(of, o) in &old {
            let n = new
                .iter()
                .find(|(_, n)| n.name == o.name)
                .copied()
                .or_else(|| only(&old, o.machine).and(only(&new, o.machine)));
            let Some((nf, n)) = n else {
                self.push(
                    Kind::Removed,
                    Severity::Breaking,
                    format!(
                        "schema `{}` is removed: nothing binds the {} machines to these frames",
                        o.name,
                        o.machine.word()
                    ),
                    Some(mark(of, o.name_span, format!("schema `{}`", o.name))),
                    None,
                );
                continue;
            };
            paired.insert(n.name.as_str());
            if o.machine != n.machine {
                self.push(
                    Kind::Role,
                    Severity::Breaking,
                    format!(
                        "schema `{}` binds the {} machines, where it bound the {} machines",
                        n.name,
                        n.machine.word(),
                        o.machine.word()
                    ),
                    Some(mark(of, o.machine_span, o.machine.word().into())),
                    Some(mark(nf, n.machine_span, n.machine.word().into())),
                );
                continue;
            }
            if o.name != n.name {
                self.push(
                    Kind::Rename,
                    Severity::Note,
                    format!("schema `{}` is named `{}`", o.name, n.name),
                    Some(mark(of, o.name_span, o.name.clone())),
                    Some(mark(nf, n.name_span, n.name.clone())),
                );
            }
            for role in o.machine.roles() {
                let (Some(a), Some(b)) = (o.role(role), n.role(role)) else {
                    continue;
                };
                if self.role_identity(OLD, &a.name) != self.role_identity(NEW, &b.name) {
                    self.push(
                        Kind::Role,
                        Severity::Breaking,
                        format!(
                            "role `{role}` of schema `{}` is played by `{}`, where it was `{}`",
                            n.name, b.name, a.name
                        ),
                        Some(mark(of, a.span, a.name.clone())),
                        Some(mark(nf, b.span, b.name.clone())),
                    );
                }
            }
        }
        for &(nf, n) in &new {
            if !paired.contains(n.name.as_str()) {
                self.push(
                    Kind::Added,
                    Severity::Note,
                    format!(
                        "schema `{}` is added: it binds the {} machines",
                        n.name,
                        n.machine.word()
                    ),
                    None,
                    Some(mark(nf, n.name_span, format!("schema `{}`", n.name))),
                );
            }
        }
    }

    /// What a role's item is, as the bound machines meet it: a frame by its leading constant, a
    /// protocol constant by its value, anything else by its name.
    fn role_identity(&self, side: usize, name: &str) -> String {
        let low = self.sides[side];
        if let Some((_, k)) = low.frames().into_iter().find(|(f, _)| f.name == name) {
            return format!("frame {k}");
        }
        if let Some(Decl::Const(c)) = low.index.get(name) {
            if let Some(v) = low.index.const_value(c) {
                return format!("constant {v}");
            }
        }
        name.to_string()
    }

    // ---- replicated states ----

    /// Each state of OLD paired with NEW's of the same name (or the only one of each): what
    /// its groups mean against the base, which the derived frames' bytes do not show.
    fn states(&mut self) {
        let plans = |side: usize| crate::state::plans(self.sides[side].spec());
        let (old, new) = (plans(OLD), plans(NEW));
        let sides = self.sides;
        let model = move |side: usize, name: &str| -> Option<&'s crate::model::State> {
            sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| &f.items)
                .find_map(|i| match i {
                    Item::State(s) if s.name == name => Some(s),
                    _ => None,
                })
        };
        for o in &old {
            let n = new
                .iter()
                .find(|n| n.name == o.name)
                .or_else(|| (old.len() == 1 && new.len() == 1).then(|| &new[0]));
            let (Some(n), Some(om), Some(nm)) =
                (n, model(OLD, &o.name), n.and_then(|n| model(NEW, &n.name)))
            else {
                continue;
            };
            self.state_pair(o, n, om, nm);
        }
    }

    fn state_pair(
        &mut self,
        o: &crate::state::StatePlan,
        n: &crate::state::StatePlan,
        om: &crate::model::State,
        nm: &crate::model::State,
    ) {
        let mark = |p: &crate::state::StatePlan, span: Span, label: String| Mark {
            file: p.file.clone(),
            span,
            label,
        };
        let group_span = |m: &crate::model::State, g: &str| {
            m.groups()
                .find(|x| x.name == g)
                .map_or(m.name_span, |x| x.name_span)
        };
        if o.name != n.name {
            self.push(
                Kind::Rename,
                Severity::Note,
                format!(
                    "state `{}` is named `{}`: its schema types are renamed",
                    o.name, n.name
                ),
                Some(mark(o, om.name_span, o.name.clone())),
                Some(mark(n, nm.name_span, n.name.clone())),
            );
        }
        if o.groups.len() != n.groups.len() {
            self.push(
                Kind::State,
                Severity::Breaking,
                format!(
                    "state `{}` has {} groups, had {}",
                    n.name,
                    n.groups.len(),
                    o.groups.len()
                ),
                Some(mark(o, om.name_span, format!("{} groups", o.groups.len()))),
                Some(mark(n, nm.name_span, format!("{} groups", n.groups.len()))),
            );
        }
        self.coded_pair(o, n, om, nm);
        for (og, ng) in o.groups.iter().zip(&n.groups) {
            let (os, ns) = (group_span(om, &og.name), group_span(nm, &ng.name));
            let (a, b) = (state_meaning(og), state_meaning(ng));
            for (x, y) in a.iter().zip(&b) {
                if x != y {
                    self.push(
                        Kind::State,
                        Severity::Breaking,
                        format!(
                            "group `{}` means another thing against the base: {y}, where it was {x}",
                            ng.name
                        ),
                        Some(mark(o, os, x.clone())),
                        Some(mark(n, ns, y.clone())),
                    );
                }
            }
            if a.len() != b.len() {
                self.push(
                    Kind::State,
                    Severity::Breaking,
                    format!(
                        "group `{}` holds {} parts, held {}",
                        ng.name,
                        b.len(),
                        a.len()
                    ),
                    Some(mark(o, os, format!("{} parts", a.len()))),
                    Some(mark(n, ns, format!("{} parts", b.len()))),
                );
            }
        }
    }

    /// A state's coded frame (`docs/spec/coded.md`): it is no item, so its kind, its models
    /// (CODE-15) and its tables (CODE-17: a table that changes is a wire change) are compared
    /// here.
    fn coded_pair(
        &mut self,
        o: &crate::state::StatePlan,
        n: &crate::state::StatePlan,
        om: &crate::model::State,
        nm: &crate::model::State,
    ) {
        let mark = |p: &crate::state::StatePlan, span: Span, label: String| Mark {
            file: p.file.clone(),
            span,
            label,
        };
        let (ocm, ncm) = (om.coded().next(), nm.coded().next());
        match (&o.coded, &n.coded, ocm, ncm) {
            (Some(oc), None, Some(m), _) => self.push(
                Kind::Removed,
                Severity::Breaking,
                format!("coded frame `{}` is removed", oc.frame),
                Some(mark(o, m.name.span, format!("kind {}", oc.kind))),
                None,
            ),
            (None, Some(nc), _, Some(m)) => self.push(
                Kind::Added,
                Severity::Note,
                format!("coded frame `{}` is added", nc.frame),
                None,
                Some(mark(n, m.name.span, format!("kind {}", nc.kind))),
            ),
            (Some(oc), Some(nc), Some(a), Some(b)) => {
                if oc.kind != nc.kind {
                    self.push(
                        Kind::FrameKind,
                        Severity::Breaking,
                        format!(
                            "coded frame `{}` is kind {}, was {}",
                            nc.frame, nc.kind, oc.kind
                        ),
                        Some(mark(o, a.kind_span, oc.kind.to_string())),
                        Some(mark(n, b.kind_span, nc.kind.to_string())),
                    );
                }
                // A model's name is not on the wire (a renamed field keeps the bytes); its
                // place and width are.
                let models = |c: &crate::state::CodedPlan| {
                    c.models
                        .iter()
                        .map(|m| format!("{} (W {})", m.name, m.w))
                        .collect::<Vec<_>>()
                };
                let widths =
                    |c: &crate::state::CodedPlan| c.models.iter().map(|m| m.w).collect::<Vec<_>>();
                let (x, y) = (models(oc), models(nc));
                if widths(oc) != widths(nc) {
                    let at = oc
                        .models
                        .iter()
                        .zip(&nc.models)
                        .position(|(p, q)| p.w != q.w);
                    let (was, is) = match at {
                        Some(i) => (x[i].clone(), y[i].clone()),
                        None => (format!("{} models", x.len()), format!("{} models", y.len())),
                    };
                    self.push(
                        Kind::State,
                        Severity::Breaking,
                        format!(
                            "coded frame `{}` codes its values under other models: {is}, where it was {was}",
                            nc.frame
                        ),
                        Some(mark(o, a.name.span, was)),
                        Some(mark(n, b.name.span, is)),
                    );
                } else if oc.probs != nc.probs {
                    let span = |m: &crate::model::CodedProfile| {
                        m.tables.as_ref().map_or(m.name.span, |t| t.span)
                    };
                    self.push(
                        Kind::State,
                        Severity::Breaking,
                        format!(
                            "coded frame `{}` starts its models from other tables",
                            nc.frame
                        ),
                        Some(mark(o, span(a), "these tables".into())),
                        Some(mark(n, span(b), "other tables".into())),
                    );
                }
            }
            _ => {}
        }
    }

    // ---- frames ----

    fn frames(&mut self) {
        let old = self.sides[OLD].frames();
        let new = self.sides[NEW].frames();
        let lead = |r: &Record| r.fields.first().map(|f| f.name.clone());
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut new_used = vec![false; new.len()];
        let mut old_used = vec![false; old.len()];
        for (i, (o, _)) in old.iter().enumerate() {
            if let Some(j) = new.iter().position(|(n, _)| n.name == o.name) {
                pairs.push((i, j));
                old_used[i] = true;
                new_used[j] = true;
            }
        }
        // A renamed frame keeps its leading constant (kind 6; the datagram opens with its version,
        // 2: WIRE-9): pair by that.
        for (i, (o, ov)) in old.iter().enumerate() {
            if old_used[i] {
                continue;
            }
            let found: Vec<usize> = (0..new.len())
                .filter(|&j| !new_used[j] && new[j].1 == *ov && lead(new[j].0) == lead(o))
                .collect();
            if let [j] = found[..] {
                pairs.push((i, j));
                old_used[i] = true;
                new_used[j] = true;
            }
        }
        pairs.sort();
        for &(i, j) in &pairs {
            let (o, n) = (old[i].0, new[j].0);
            self.record_pair(&o.name, None, &n.name, None);
        }
        for (i, (o, v)) in old.iter().enumerate() {
            if !old_used[i] {
                self.visited[OLD].insert(o.name.clone());
                let lead = lead(o).unwrap_or_default();
                self.push(
                    Kind::Removed,
                    Severity::Breaking,
                    format!(
                        "frame `{}` ({lead} {v}) is gone: a peer built from OLD still sends it",
                        o.name
                    ),
                    Some(self.mark(OLD, &o.name, o.name_span, format!("{lead} {v}"))),
                    None,
                );
            }
        }
        for (j, (n, v)) in new.iter().enumerate() {
            if !new_used[j] {
                self.visited[NEW].insert(n.name.clone());
                let lead = lead(n).unwrap_or_default();
                self.push(
                    Kind::Added,
                    Severity::Breaking,
                    format!(
                        "frame `{}` ({lead} {v}) is new: a peer built from OLD refuses it",
                        n.name
                    ),
                    None,
                    Some(self.mark(NEW, &n.name, n.name_span, format!("{lead} {v}"))),
                );
            }
        }
    }

    // ---- declarations no frame reaches ----

    fn unreached_records(&mut self) {
        let records = |side: usize, visited: &HashSet<String>| -> Vec<&'s Record> {
            self.sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| &f.items)
                .filter_map(|i| match i {
                    Item::Record(r) if !visited.contains(&r.name) => Some(r),
                    _ => None,
                })
                .collect()
        };
        let old = records(OLD, &self.visited[OLD]);
        let new = records(NEW, &self.visited[NEW]);
        let (pairs, gone, added) = self.pair_decls(&old, &new, |c, side, r| {
            c.shapes
                .record(c.sides[side], side, &r.name, None)
                .to_string()
        });
        for (o, n) in pairs {
            self.record_pair(&o.name, None, &n.name, None);
        }
        for o in gone {
            self.push(
                Kind::Removed,
                Severity::Warning,
                format!(
                    "record `{}` is gone; no frame of OLD carries it, so no frame's bytes change",
                    o.name
                ),
                Some(self.mark(OLD, &o.name, o.name_span, "declared here")),
                None,
            );
        }
        for n in added {
            self.push(
                Kind::Added,
                Severity::Note,
                format!("record `{}` is new; no frame of OLD carries it", n.name),
                None,
                Some(self.mark(NEW, &n.name, n.name_span, "declared here")),
            );
        }
    }

    fn unreached_bits_and_unions(&mut self) {
        let bits = |side: usize, visited: &HashSet<String>| -> Vec<&'s Bits> {
            self.sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| &f.items)
                .filter_map(|i| match i {
                    Item::Bits(b) if !visited.contains(&b.name) => Some(b),
                    _ => None,
                })
                .collect()
        };
        let old = bits(OLD, &self.visited[OLD]);
        let new = bits(NEW, &self.visited[NEW]);
        let (pairs, gone, added) = self.pair_decls(&old, &new, |c, side, b| {
            c.shapes
                .wire(c.sides[side], side, &Wire::Bits(b), false)
                .to_string()
        });
        for (o, n) in pairs {
            self.bits_pair(o, n, false, false);
        }
        for o in gone {
            self.push(
                Kind::Removed,
                Severity::Note,
                format!("bit set `{}` is gone; no frame of OLD carries it", o.name),
                Some(self.mark(OLD, &o.name, o.name_span, "declared here")),
                None,
            );
        }
        for n in added {
            self.push(
                Kind::Added,
                Severity::Note,
                format!("bit set `{}` is new; no frame of OLD carries it", n.name),
                None,
                Some(self.mark(NEW, &n.name, n.name_span, "declared here")),
            );
        }
        let unions = |side: usize, visited: &HashSet<String>| -> Vec<&'s Union> {
            self.sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| &f.items)
                .filter_map(|i| match i {
                    Item::Union(u) if !visited.contains(&u.name) => Some(u),
                    _ => None,
                })
                .collect()
        };
        let old = unions(OLD, &self.visited[OLD]);
        let new = unions(NEW, &self.visited[NEW]);
        let (pairs, gone, added) = self.pair_decls(&old, &new, |c, side, u| {
            c.shapes
                .wire(c.sides[side], side, &Wire::Union(u), false)
                .to_string()
        });
        for (o, n) in pairs {
            self.union_pair(o, n);
        }
        for o in gone {
            self.push(
                Kind::Removed,
                Severity::Note,
                format!("union `{}` is gone; no frame of OLD carries it", o.name),
                Some(self.mark(OLD, &o.name, o.name_span, "declared here")),
                None,
            );
        }
        for n in added {
            self.push(
                Kind::Added,
                Severity::Note,
                format!("union `{}` is new; no frame of OLD carries it", n.name),
                None,
                Some(self.mark(NEW, &n.name, n.name_span, "declared here")),
            );
        }
    }

    /// Pairs declarations by name, then what is left by equal shape when exactly one of each
    /// side has it (a rename); returns the pairs, OLD's leftovers and NEW's.
    #[allow(clippy::type_complexity)]
    fn pair_decls<T: Named>(
        &mut self,
        old: &[&'s T],
        new: &[&'s T],
        shape: impl Fn(&mut Self, usize, &'s T) -> String,
    ) -> (Vec<(&'s T, &'s T)>, Vec<&'s T>, Vec<&'s T>) {
        let mut pairs = Vec::new();
        let mut old_left = Vec::new();
        let mut new_used = vec![false; new.len()];
        for o in old {
            match new.iter().position(|n| n.name() == o.name()) {
                Some(j) => {
                    new_used[j] = true;
                    pairs.push((*o, new[j]));
                }
                None => old_left.push(*o),
            }
        }
        let new_left: Vec<&'s T> = new
            .iter()
            .enumerate()
            .filter(|(j, _)| !new_used[*j])
            .map(|(_, n)| *n)
            .collect();
        let old_shapes: Vec<String> = old_left.iter().map(|o| shape(self, OLD, o)).collect();
        let new_shapes: Vec<String> = new_left.iter().map(|n| shape(self, NEW, n)).collect();
        let mut gone = Vec::new();
        let mut taken = vec![false; new_left.len()];
        for (i, o) in old_left.iter().enumerate() {
            let same_old = old_shapes.iter().filter(|s| **s == old_shapes[i]).count();
            let found: Vec<usize> = (0..new_left.len())
                .filter(|&j| !taken[j] && new_shapes[j] == old_shapes[i])
                .collect();
            match found[..] {
                [j] if same_old == 1 => {
                    taken[j] = true;
                    pairs.push((*o, new_left[j]));
                }
                _ => gone.push(*o),
            }
        }
        let added = new_left
            .iter()
            .enumerate()
            .filter(|(j, _)| !taken[*j])
            .map(|(_, n)| *n)
            .collect();
        (pairs, gone, added)
    }

    // ---- protocol constants ----

    /// Protocol constants, by their values: a derived one (`max_offset`) is compared by what it
    /// derives to, so a header that grows changes it (DG-7: MAX_HEADER_LEN is the most bytes before
    /// the first update).
    fn constants(&mut self) {
        let consts = |side: usize| -> Vec<&'s Const> {
            self.sides[side]
                .spec()
                .files
                .iter()
                .flat_map(|f| &f.items)
                .filter_map(|i| match i {
                    Item::Const(c) => Some(c),
                    _ => None,
                })
                .collect()
        };
        let old = consts(OLD);
        let new = consts(NEW);
        let (pairs, gone, added) = self.pair_decls(&old, &new, |c, side, k| {
            format!("{:?}={:?}", k.ty, c.sides[side].index.const_value(k))
        });
        for (o, n) in pairs {
            let ov = self.sides[OLD].index.const_value(o);
            let nv = self.sides[NEW].index.const_value(n);
            let show = |v: Option<i128>| v.map_or("?".to_string(), |v| v.to_string());
            if ov != nv {
                self.push(
                    Kind::ProtocolConstant,
                    Severity::Breaking,
                    format!(
                        "protocol constant `{}` is {}, was {}: both peers follow it",
                        n.name,
                        show(nv),
                        show(ov)
                    ),
                    Some(self.mark(OLD, &o.name, o.value_span, show(ov))),
                    Some(self.mark(NEW, &n.name, n.value_span, show(nv))),
                );
            }
            if o.ty != n.ty {
                self.push(
                    Kind::ProtocolConstant,
                    Severity::Note,
                    format!(
                        "protocol constant `{}` is declared {}, was {}: the generated constant's type changes",
                        n.name,
                        int_name(&n.ty),
                        int_name(&o.ty)
                    ),
                    Some(self.mark(OLD, &o.name, o.name_span, int_name(&o.ty))),
                    Some(self.mark(NEW, &n.name, n.name_span, int_name(&n.ty))),
                );
            }
            self.rename(
                'c',
                &o.name,
                &n.name,
                o.name_span,
                n.name_span,
                "protocol constant",
            );
            self.docs(
                &o.docs,
                &n.docs,
                (&o.name, o.name_span),
                (&n.name, n.name_span),
                &format!("protocol constant `{}`", n.name),
            );
        }
        for o in gone {
            let v = self.sides[OLD].index.const_value(o);
            self.push(
                Kind::ProtocolConstant,
                Severity::Warning,
                format!(
                    "protocol constant `{}` is gone; no frame's bytes change by itself, but a peer built from OLD still follows it",
                    o.name
                ),
                Some(self.mark(OLD, &o.name, o.name_span, format!("= {}", v.unwrap_or(0)))),
                None,
            );
        }
        for n in added {
            let v = self.sides[NEW].index.const_value(n);
            self.push(
                Kind::ProtocolConstant,
                Severity::Warning,
                format!(
                    "protocol constant `{}` is new; no frame's bytes change by itself, but a peer built from OLD does not follow it",
                    n.name
                ),
                None,
                Some(self.mark(NEW, &n.name, n.name_span, format!("= {}", v.unwrap_or(0)))),
            );
        }
    }

    fn file_docs(&mut self) {
        let base = |n: &str| {
            std::path::Path::new(n)
                .file_name()
                .map_or(n.to_string(), |b| b.to_string_lossy().into_owned())
        };
        let old = &self.sides[OLD].spec().files;
        let new = &self.sides[NEW].spec().files;
        for o in old {
            // Files pair by name, or as the only file of each version.
            let only = (old.len() == 1 && new.len() == 1).then(|| &new[0]);
            let Some(n) = new.iter().find(|n| base(&n.name) == base(&o.name)).or(only) else {
                continue;
            };
            if o.doc != n.doc {
                self.push(
                    Kind::Doc,
                    Severity::Note,
                    format!("the `//!` doc of {} changed", base(&n.name)),
                    Some(Mark {
                        file: o.name.clone(),
                        span: Span::new(0, 0),
                        label: "file doc".into(),
                    }),
                    Some(Mark {
                        file: n.name.clone(),
                        span: Span::new(0, 0),
                        label: "file doc".into(),
                    }),
                );
            }
        }
    }

    // ---- names and docs ----

    /// A declaration renamed (reported once per pair of names).
    fn rename(&mut self, what: char, old: &str, new: &str, os: Span, ns: Span, noun: &str) {
        if old == new || !self.seen_names.insert((what, old.into(), new.into())) {
            return;
        }
        self.push(
            Kind::Rename,
            Severity::Note,
            format!("{noun} `{old}` is named `{new}` now; the bytes are the same"),
            Some(self.mark(OLD, old, os, format!("`{old}`"))),
            Some(self.mark(NEW, new, ns, format!("`{new}`"))),
        );
    }

    /// A doc comment changed: `old` and `new` are (declaration, span) of each side.
    fn docs(&mut self, od: &Docs, nd: &Docs, old: (&str, Span), new: (&str, Span), what: &str) {
        if od.doc == nd.doc {
            return;
        }
        self.push(
            Kind::Doc,
            Severity::Note,
            format!("the doc comment of {what} changed"),
            Some(self.mark(OLD, old.0, old.1, "documented here")),
            Some(self.mark(NEW, new.0, new.1, "documented here")),
        );
    }

    // ---- records ----

    /// Runs the comparison of a pair (`key`), or, when it was `already` compared, notes
    /// whether it was found broken then.
    fn tracked(&mut self, key: String, already: bool, compare: impl FnOnce(&mut Self)) {
        if already {
            if self.broken.contains(&key) {
                self.broken_hits += 1;
            }
            return;
        }
        let (before, hits) = (self.changes.len(), self.broken_hits);
        compare(self);
        if self.broken_hits != hits
            || self.changes[before..]
                .iter()
                .any(|c| c.severity == Severity::Breaking)
        {
            self.broken.insert(key);
        }
    }

    fn record_pair(&mut self, on: &str, ok: Option<&str>, nn: &str, nk: Option<&str>) {
        let memo = (
            on.to_string(),
            ok.map(str::to_string),
            nn.to_string(),
            nk.map(str::to_string),
        );
        let already = self.seen_records.contains(&memo);
        self.tracked(format!("r{memo:?}"), already, |c| {
            c.record_pair_once(on, ok, nn, nk)
        });
    }

    fn record_pair_once(&mut self, on: &str, ok: Option<&str>, nn: &str, nk: Option<&str>) {
        let memo = (
            on.to_string(),
            ok.map(str::to_string),
            nn.to_string(),
            nk.map(str::to_string),
        );
        if !self.seen_records.insert(memo) {
            return;
        }
        self.visited[OLD].insert(on.to_string());
        self.visited[NEW].insert(nn.to_string());
        let (Some(o), Some(n)) = (self.sides[OLD].plan(on, ok), self.sides[NEW].plan(nn, nk))
        else {
            return;
        };
        let (or, nr) = (o.record, n.record);
        let noun = |r: &Record| match r.kind {
            crate::model::RecordKind::Frame => "frame",
            crate::model::RecordKind::Record => "record",
        };
        if self.seen_names.insert(('r', on.into(), nn.into())) {
            if on != nn {
                self.push(
                    Kind::Rename,
                    Severity::Note,
                    format!(
                        "{} `{on}` is named `{nn}` now; the bytes are the same",
                        noun(nr)
                    ),
                    Some(self.mark(OLD, on, or.name_span, format!("`{on}`"))),
                    Some(self.mark(NEW, nn, nr.name_span, format!("`{nn}`"))),
                );
            }
            self.docs(
                &or.docs,
                &nr.docs,
                (on, or.name_span),
                (nn, nr.name_span),
                &format!("{} `{nn}`", noun(nr)),
            );
            if o.packed != n.packed {
                let p = |b: bool| {
                    if b {
                        "packed (a bit stream)"
                    } else {
                        "byte-aligned"
                    }
                };
                self.push(
                    Kind::Packed,
                    Severity::Breaking,
                    format!("record `{nn}` is {}, was {}", p(n.packed), p(o.packed)),
                    Some(self.mark(OLD, on, or.name_span, p(o.packed))),
                    Some(self.mark(NEW, nn, nr.name_span, p(n.packed))),
                );
            }
        }
        let pairing = self.pair_slots(o, n);
        self.compare_slots(o, n, &pairing);
    }

    /// Pairs the slots of two plans: by position when the lists have the same shape, else
    /// by name (the longest run in order kept, the rest moved) and by position in between.
    fn pair_slots<'b>(&mut self, o: &'b RecordPlan<'s>, n: &'b RecordPlan<'s>) -> Pairing<'b, 's> {
        let shape = |c: &mut Self, side: usize, s: &Slots<'_, '_>, packed: bool| -> Vec<String> {
            s.list
                .iter()
                .map(|slot| c.shapes.slot(c.sides[side], side, slot, s, packed))
                .collect()
        };
        let mut map = HashMap::new();
        // The canonical forms first: when they agree, the records are the same on the wire
        // and pair field by field.
        let (os, ns) = (slots(o, true), slots(n, true));
        if shape(self, OLD, &os, o.packed) == shape(self, NEW, &ns, n.packed) {
            map.extend((0..os.list.len()).map(|i| (i, i)));
            return Pairing {
                old: os,
                new: ns,
                map,
                moved: HashSet::new(),
            };
        }
        // They differ: explain how, field by field as written.
        let (os, ns) = (slots(o, false), slots(n, false));
        let by_name: Vec<(usize, usize)> = os
            .list
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                ns.list
                    .iter()
                    .position(|t| t.name() == s.name())
                    .map(|j| (i, j))
            })
            .collect();
        let keep = longest_increasing(&by_name);
        for &(i, j) in &by_name {
            map.insert(i, j);
        }
        // Between kept anchors: what is left, by position when both sides have as many,
        // else by equal wire form in order.
        let wire_shape = |c: &mut Self, side: usize, slot: &Slot<'_, '_>, packed: bool| {
            c.shapes.wire(c.sides[side], side, &slot.step.wire, packed)
        };
        let mut anchors: Vec<(isize, isize)> = vec![(-1, -1)];
        anchors.extend(keep.iter().map(|&(i, j)| (i as isize, j as isize)));
        anchors.push((os.list.len() as isize, ns.list.len() as isize));
        let paired_new: HashSet<usize> = by_name.iter().map(|p| p.1).collect();
        for w in anchors.windows(2) {
            let ((oa, na), (ob, nb)) = (w[0], w[1]);
            let og: Vec<usize> = ((oa + 1)..ob)
                .map(|i| i as usize)
                .filter(|i| !map.contains_key(i))
                .collect();
            let ng: Vec<usize> = ((na + 1)..nb)
                .map(|j| j as usize)
                .filter(|j| !paired_new.contains(j))
                .collect();
            if og.len() == ng.len() {
                map.extend(og.iter().copied().zip(ng.iter().copied()));
                continue;
            }
            let new_shapes: Vec<u32> = ng
                .iter()
                .map(|&j| wire_shape(self, NEW, &ns.list[j], n.packed))
                .collect();
            let mut from = 0;
            for &i in &og {
                let want = wire_shape(self, OLD, &os.list[i], o.packed);
                let hit = (from..ng.len()).find(|&k| new_shapes[k] == want);
                if let Some(k) = hit {
                    map.insert(i, ng[k]);
                    from = k + 1;
                }
            }
        }
        let kept: HashSet<usize> = keep.iter().map(|p| p.0).collect();
        let moved = by_name
            .iter()
            .map(|p| p.0)
            .filter(|i| !kept.contains(i))
            .collect();
        Pairing {
            old: os,
            new: ns,
            map,
            moved,
        }
    }

    fn compare_slots(&mut self, o: &RecordPlan<'s>, n: &RecordPlan<'s>, p: &Pairing<'_, 's>) {
        let (on, nn) = (o.record.name.as_str(), n.record.name.as_str());
        let before = self.changes.len();
        let hits = self.broken_hits;
        let mapped_new: HashSet<usize> = p.map.values().copied().collect();
        for (i, slot) in p.old.list.iter().enumerate() {
            let Some(&j) = p.map.get(&i) else {
                self.push(
                    Kind::Removed,
                    Severity::Breaking,
                    format!(
                        "field `{on}.{}` is gone: a peer built from OLD still reads and writes it",
                        slot.name()
                    ),
                    Some(self.mark(OLD, on, slot.step.field.name_span, describe_slot(slot))),
                    Some(self.mark(
                        NEW,
                        nn,
                        n.record.name_span,
                        format!("`{nn}` has no such field"),
                    )),
                );
                continue;
            };
            let ns = &p.new.list[j];
            if p.moved.contains(&i) {
                let group = slot.step.field.selector.is_some() && ns.step.field.selector.is_some();
                self.push(
                    if group {
                        Kind::SelectOrder
                    } else {
                        Kind::Order
                    },
                    Severity::Breaking,
                    format!(
                        "{} `{nn}.{}` moved: it is field {} of {}, was field {} of {}",
                        if group { "select group" } else { "field" },
                        ns.name(),
                        j + 1,
                        p.new.list.len(),
                        i + 1,
                        p.old.list.len()
                    ),
                    Some(self.mark(
                        OLD,
                        on,
                        slot.step.field.name_span,
                        format!("field {}", i + 1),
                    )),
                    Some(self.mark(NEW, nn, ns.step.field.name_span, format!("field {}", j + 1))),
                );
            }
            self.compare_slot(o, n, p, slot, ns);
        }
        for (j, slot) in p.new.list.iter().enumerate() {
            if mapped_new.contains(&j) {
                continue;
            }
            self.push(
                Kind::Added,
                Severity::Breaking,
                format!(
                    "field `{nn}.{}` is new: a peer built from OLD does not read or write it",
                    slot.name()
                ),
                Some(self.mark(
                    OLD,
                    on,
                    o.record.name_span,
                    format!("`{on}` has no such field"),
                )),
                Some(self.mark(NEW, nn, slot.step.field.name_span, describe_slot(slot))),
            );
        }
        // The shapes differ but nothing above says where (never expected; kept so that a
        // breaking difference is never reported as none).
        let shapes_differ = {
            let a = self.shapes.record(self.sides[OLD], OLD, on, o.key);
            let b = self.shapes.record(self.sides[NEW], NEW, nn, n.key);
            a != b
        };
        let found = self.broken_hits != hits
            || self.changes[before..]
                .iter()
                .any(|c| c.severity == Severity::Breaking);
        // (A record made packed or byte-aligned was reported as such by `record_pair_once`.)
        if shapes_differ && !found && o.packed == n.packed {
            self.push(
                Kind::Type,
                Severity::Breaking,
                format!("the bytes of `{nn}` differ from those of `{on}`"),
                Some(self.mark(OLD, on, o.record.name_span, "this layout")),
                Some(self.mark(NEW, nn, n.record.name_span, "this layout")),
            );
        }
    }

    fn compare_slot(
        &mut self,
        o: &RecordPlan<'s>,
        n: &RecordPlan<'s>,
        p: &Pairing<'_, 's>,
        os: &Slot<'_, 's>,
        ns: &Slot<'_, 's>,
    ) {
        let (on, nn) = (o.record.name.as_str(), n.record.name.as_str());
        let (of, nf) = (os.step.field, ns.step.field);
        let at = At {
            on,
            nn,
            os: of.name_span,
            ns: nf.name_span,
            path: format!("{nn}.{}", nf.name),
        };
        // Names and docs.
        if of.name != nf.name {
            let json = os.is_value() && ns.is_value();
            let taken = p.old.list.iter().any(|s| s.name() == nf.name);
            self.push(
                Kind::Rename,
                if json {
                    Severity::Warning
                } else {
                    Severity::Note
                },
                if json {
                    format!(
                        "field `{on}.{}` is named `{}` now; the bytes are the same, but the JSON form's key `{}` becomes `{}`{}",
                        of.name,
                        nf.name,
                        of.name,
                        nf.name,
                        if taken {
                            format!(" (`{}` was another field's name in OLD)", nf.name)
                        } else {
                            String::new()
                        }
                    )
                } else {
                    format!(
                        "field `{on}.{}` is named `{}` now; the bytes are the same and the JSON form does not carry it",
                        of.name, nf.name
                    )
                },
                Some(self.mark(OLD, on, of.name_span, format!("`{}`", of.name))),
                Some(self.mark(NEW, nn, nf.name_span, format!("`{}`", nf.name))),
            );
        }
        self.docs(
            &of.docs,
            &nf.docs,
            (on, of.name_span),
            (nn, nf.name_span),
            &format!("field `{nn}.{}`", nf.name),
        );
        if let (Some(oc), Some(nc)) = (os.count, ns.count) {
            if oc.field.name != nc.field.name {
                self.push(
                    Kind::Rename,
                    Severity::Note,
                    format!(
                        "count field `{on}.{}` is named `{}` now; the bytes are the same and the JSON form does not carry it",
                        oc.field.name, nc.field.name
                    ),
                    Some(self.mark(OLD, on, oc.field.name_span, format!("`{}`", oc.field.name))),
                    Some(self.mark(NEW, nn, nc.field.name_span, format!("`{}`", nc.field.name))),
                );
            }
            self.docs(
                &oc.field.docs,
                &nc.field.docs,
                (on, oc.field.name_span),
                (nn, nc.field.name_span),
                &format!("field `{nn}.{}`", nc.field.name),
            );
        }
        // Role.
        let frame_lead = o.record.kind == crate::model::RecordKind::Frame
            && n.record.kind == crate::model::RecordKind::Frame
            && o.steps.first().is_some_and(|f| std::ptr::eq(os.step, f))
            && n.steps.first().is_some_and(|f| std::ptr::eq(ns.step, f));
        match (os.count.map(|_| Role::Value).unwrap_or(os.step.role), ns.count.map(|_| Role::Value).unwrap_or(ns.step.role)) {
            (Role::Constant(a), Role::Constant(b)) if a != b => {
                let (kind, what) = if frame_lead {
                    (Kind::FrameKind, format!("frame `{nn}`'s {}", nf.name))
                } else {
                    (Kind::Constant, format!("constant field `{}`", at.path))
                };
                self.push(
                    kind,
                    Severity::Breaking,
                    format!("{what} is {b}, was {a}: each peer refuses the other's"),
                    Some(self.mark(OLD, on, of.name_span, format!("= {a}"))),
                    Some(self.mark(NEW, nn, nf.name_span, format!("= {b}"))),
                );
            }
            (Role::Constant(a), r) if !matches!(r, Role::Constant(_)) => self.push(
                Kind::Constant,
                Severity::Breaking,
                format!(
                    "field `{}` is no longer a constant: a peer built from OLD refuses every value but {a}",
                    at.path
                ),
                Some(self.mark(OLD, on, of.name_span, format!("= {a}"))),
                Some(self.mark(NEW, nn, nf.name_span, "any value")),
            ),
            (r, Role::Constant(b)) if !matches!(r, Role::Constant(_)) => self.push(
                Kind::Constant,
                Severity::Breaking,
                format!(
                    "field `{}` is a constant now: a peer built from NEW refuses every value but {b}",
                    at.path
                ),
                Some(self.mark(OLD, on, of.name_span, "any value")),
                Some(self.mark(NEW, nn, nf.name_span, format!("= {b}"))),
            ),
            // Which array a count counts is compared at the array.
            (Role::Count { .. }, Role::Count { .. }) => {}
            (Role::Count { array }, _) => self.push(
                Kind::Count,
                Severity::Breaking,
                format!("field `{}` no longer counts an array (it counted `{array}`)", at.path),
                Some(self.mark(OLD, on, of.name_span, format!("the count of `{array}`"))),
                Some(self.mark(NEW, nn, nf.name_span, "a value")),
            ),
            (_, Role::Count { array }) => self.push(
                Kind::Count,
                Severity::Breaking,
                format!("field `{}` counts `{array}` now; it was a value", at.path),
                Some(self.mark(OLD, on, of.name_span, "a value")),
                Some(self.mark(NEW, nn, nf.name_span, format!("the count of `{array}`"))),
            ),
            _ => {}
        }
        // Wire.
        let from = self.changes.len();
        self.wire(
            &at,
            &os.step.wire,
            &ns.step.wire,
            o.packed,
            n.packed,
            Some((p, os, ns)),
        );
        // A count field whose type changed is a count's type changed: say so by its kind.
        if matches!(os.step.role, Role::Count { .. }) && matches!(ns.step.role, Role::Count { .. })
        {
            for c in &mut self.changes[from..] {
                if c.severity == Severity::Breaking {
                    c.kind = Kind::Count;
                    c.message = format!("count field {}", c.message);
                }
            }
        }
        // Presence.
        let ot: Vec<NTest> = tests(os.step, &p.old)
            .into_iter()
            .map(|t| t.with_op(p.map.get(&t.op()).copied().unwrap_or(usize::MAX - 1)))
            .collect::<Vec<_>>();
        let mut ot = ot;
        ot.sort();
        let nt = tests(ns.step, &p.new);
        if ot != nt {
            self.push(
                Kind::Presence,
                Severity::Breaking,
                format!(
                    "field `{}` is present {}, was {}",
                    at.path,
                    describe_presence(ns.step),
                    describe_presence(os.step)
                ),
                Some(self.mark(OLD, on, of.name_span, describe_presence(os.step))),
                Some(self.mark(NEW, nn, nf.name_span, describe_presence(ns.step))),
            );
        }
    }

    // ---- wire forms ----

    /// Compares two wire forms met at `at`. `slots` is the record pairing and the two slots
    /// when the wire is a slot's own (for an array's count).
    #[allow(clippy::too_many_arguments)]
    fn wire(
        &mut self,
        at: &At<'_>,
        o: &Wire<'s>,
        n: &Wire<'s>,
        op: bool,
        np: bool,
        slots: Option<(&Pairing<'_, 's>, &Slot<'_, 's>, &Slot<'_, 's>)>,
    ) {
        let brk = |c: &mut Self, kind: Kind, what: String, ol: String, nl: String| {
            c.push(
                kind,
                Severity::Breaking,
                format!("`{}` {what}", at.path),
                Some(c.mark(OLD, at.on, at.os, ol)),
                Some(c.mark(NEW, at.nn, at.ns, nl)),
            );
        };
        let order = |big: bool| if big { "big endian" } else { "little endian" };
        match (o, n) {
            (
                Wire::Quant {
                    wire: ow,
                    num: on,
                    den: od,
                    ..
                },
                Wire::Quant {
                    wire: nw,
                    num: nnum,
                    den: nd,
                    ..
                },
            ) => {
                if scale(*on, *od).to_bits() != scale(*nnum, *nd).to_bits() {
                    brk(
                        self,
                        Kind::Scale,
                        format!(
                            "is quantized in steps of {nnum}/{nd}, was {on}/{od}: the same bytes read as another value"
                        ),
                        format!("steps of {on}/{od}"),
                        format!("steps of {nnum}/{nd}"),
                    );
                }
                self.wire(at, ow, nw, op, np, None);
            }
            (Wire::Quant { wire, num, den, .. }, other)
            | (other, Wire::Quant { wire, num, den, .. }) => {
                let quant_old = matches!(o, Wire::Quant { .. });
                let (ol, nl) = if quant_old {
                    (format!("steps of {num}/{den}"), "an integer".to_string())
                } else {
                    ("an integer".to_string(), format!("steps of {num}/{den}"))
                };
                if scale(*num, *den) == 1.0 {
                    self.push(
                        Kind::JsonForm,
                        Severity::Warning,
                        format!(
                            "`{}` is {}; the bytes are the same (a scale of 1), but the JSON form's number becomes {}",
                            at.path,
                            if quant_old { "an integer now, was quantized" } else { "quantized now, was an integer" },
                            if quant_old { "an integer" } else { "a float" }
                        ),
                        Some(self.mark(OLD, at.on, at.os, ol)),
                        Some(self.mark(NEW, at.nn, at.ns, nl)),
                    );
                } else {
                    brk(
                        self,
                        Kind::Scale,
                        format!(
                            "is {}: the same bytes read as another value",
                            if quant_old {
                                format!("an integer now, was quantized in steps of {num}/{den}")
                            } else {
                                format!("quantized in steps of {num}/{den} now, was an integer")
                            }
                        ),
                        ol,
                        nl,
                    );
                }
                if quant_old {
                    self.wire(at, wire, other, op, np, None);
                } else {
                    self.wire(at, other, wire, op, np, None);
                }
            }
            (
                Wire::Int {
                    signed: os,
                    bits: ob,
                    big_endian: oe,
                },
                Wire::Int {
                    signed: ns,
                    bits: nb,
                    big_endian: ne,
                },
            ) => {
                let (od, nd) = (describe(o, op), describe(n, np));
                if ob != nb {
                    brk(
                        self,
                        Kind::Width,
                        format!("is {nb} bits wide, was {ob}"),
                        od.clone(),
                        nd.clone(),
                    );
                }
                if os != ns {
                    brk(
                        self,
                        Kind::Signedness,
                        format!("is {}, was {}", signed(*ns), signed(*os)),
                        od.clone(),
                        nd.clone(),
                    );
                }
                let (oo, no) = (has_order(*ob, op), has_order(*nb, np));
                if oo && no && oe != ne {
                    brk(
                        self,
                        Kind::ByteOrder,
                        format!("is {}, was {}", order(*ne), order(*oe)),
                        od,
                        nd,
                    );
                }
            }
            (
                Wire::Float {
                    bits: ob,
                    big_endian: oe,
                },
                Wire::Float {
                    bits: nb,
                    big_endian: ne,
                },
            ) => {
                let (od, nd) = (describe(o, op), describe(n, np));
                if ob != nb {
                    brk(
                        self,
                        Kind::Width,
                        format!("is {nb} bits wide, was {ob}"),
                        od.clone(),
                        nd.clone(),
                    );
                }
                if !op && !np && oe != ne {
                    brk(
                        self,
                        Kind::ByteOrder,
                        format!("is {}, was {}", order(*ne), order(*oe)),
                        od,
                        nd,
                    );
                }
            }
            (Wire::Varint { bits: ob }, Wire::Varint { bits: nb })
            | (Wire::Zigzag { bits: ob }, Wire::Zigzag { bits: nb }) => {
                if ob != nb {
                    brk(
                        self,
                        Kind::Width,
                        format!("holds at most {nb} bits, was {ob}"),
                        describe(o, op),
                        describe(n, np),
                    );
                }
            }
            (Wire::Varint { .. }, Wire::Zigzag { .. })
            | (Wire::Zigzag { .. }, Wire::Varint { .. }) => brk(
                self,
                Kind::Signedness,
                format!("is {}, was {}", describe(n, np), describe(o, op)),
                describe(o, op),
                describe(n, np),
            ),
            (Wire::Varint { .. } | Wire::Zigzag { .. }, Wire::Int { .. })
            | (Wire::Int { .. }, Wire::Varint { .. } | Wire::Zigzag { .. }) => brk(
                self,
                Kind::VarintFixed,
                format!("is {}, was {}", describe(n, np), describe(o, op)),
                describe(o, op),
                describe(n, np),
            ),
            // Issue 19's bit fields, compared on the bits: a component width, a bucket list
            // or its sign changes what every code reads as.
            (Wire::Quat { bits: ob }, Wire::Quat { bits: nb }) => {
                if ob != nb {
                    brk(
                        self,
                        Kind::Width,
                        format!("sends its components in {nb} bits each, was {ob}"),
                        describe(o, op),
                        describe(n, np),
                    );
                }
            }
            (Wire::Bucket(a), Wire::Bucket(b)) => {
                if a.signed != b.signed {
                    brk(
                        self,
                        Kind::Signedness,
                        format!("is {}, was {}", describe(n, np), describe(o, op)),
                        describe(o, op),
                        describe(n, np),
                    );
                } else if a.widths != b.widths {
                    brk(
                        self,
                        Kind::Width,
                        format!(
                            "is {}, was {}: the same bits read as another value",
                            describe(n, np),
                            describe(o, op)
                        ),
                        describe(o, op),
                        describe(n, np),
                    );
                }
            }
            (Wire::Bucket(_), Wire::Int { .. }) | (Wire::Int { .. }, Wire::Bucket(_)) => brk(
                self,
                Kind::VarintFixed,
                format!("is {}, was {}", describe(n, np), describe(o, op)),
                describe(o, op),
                describe(n, np),
            ),
            // WIRE-29: another range refuses what one side sends (and, packed, reads other bits).
            (
                Wire::Ranged {
                    int: oi,
                    min: omin,
                    max: omax,
                    ..
                },
                Wire::Ranged {
                    int: ni,
                    min: nmin,
                    max: nmax,
                    ..
                },
            ) => {
                if (omin, omax) != (nmin, nmax) {
                    brk(
                        self,
                        Kind::Type,
                        format!(
                            "is {}, was {}: each side refuses values the other sends",
                            describe(n, np),
                            describe(o, op)
                        ),
                        describe(o, op),
                        describe(n, np),
                    );
                } else {
                    self.wire(at, oi, ni, op, np, slots);
                }
            }
            (Wire::Bool { .. }, Wire::Bool { .. })
            | (Wire::Bytes, Wire::Bytes)
            | (Wire::OptBytes, Wire::OptBytes) => {}
            (Wire::Bits(a), Wire::Bits(b)) => self.bits_pair(a, b, op, np),
            (Wire::Record { record: a, .. }, Wire::Record { record: b, .. }) => {
                self.record_pair(&a.name, None, &b.name, None)
            }
            (Wire::Union(a), Wire::Union(b)) => self.union_pair(a, b),
            (Wire::Array(a), Wire::Array(b)) => {
                self.count(at, a, b, op, np, slots);
                match (a.ascending, b.ascending) {
                    (None, None) | (Some(Ascending::Values), Some(Ascending::Values)) => {}
                    (Some(Ascending::Key(ka)), Some(Ascending::Key(kb))) => {
                        // Which field is the key is compared by position within the element.
                        if let (Wire::Record { record: ra, .. }, Wire::Record { record: rb, .. }) =
                            (&a.elem, &b.elem)
                        {
                            let pa = self.sides[OLD].plan(&ra.name, Some(ka));
                            let pb = self.sides[NEW].plan(&rb.name, Some(kb));
                            if let (Some(pa), Some(pb)) = (pa, pb) {
                                let pr = self.pair_slots(pa, pb);
                                let ia = pr.old.index.get(ka).copied();
                                let ib = pr.new.index.get(kb).copied();
                                if ia.and_then(|i| pr.map.get(&i).copied()) != ib {
                                    brk(
                                        self,
                                        Kind::Ascending,
                                        format!("ascends by `{kb}` of its elements, was by `{ka}`"),
                                        format!("ascending({ka})"),
                                        format!("ascending({kb})"),
                                    );
                                }
                            }
                            self.record_pair(&ra.name, Some(ka), &rb.name, Some(kb));
                        }
                        return;
                    }
                    (x, y) => {
                        let d = |a: Option<Ascending<'_>>| match a {
                            None => "not ascending".to_string(),
                            Some(Ascending::Values) => "ascending".to_string(),
                            Some(Ascending::Key(k)) => format!("ascending({k})"),
                        };
                        brk(
                            self,
                            Kind::Ascending,
                            format!(
                                "is {}, was {}: ascending lists carry differences",
                                d(y),
                                d(x)
                            ),
                            d(x),
                            d(y),
                        );
                        if let (Some(Ascending::Key(_)), _) | (_, Some(Ascending::Key(_))) = (x, y)
                        {
                            return;
                        }
                    }
                }
                let elem = At {
                    path: format!("{}[]", at.path),
                    ..*at
                };
                self.wire(&elem, &a.elem, &b.elem, op, np, None);
            }
            _ => brk(
                self,
                Kind::Type,
                format!("is {}, was {}", describe(n, np), describe(o, op)),
                describe(o, op),
                describe(n, np),
            ),
        }
    }

    /// An array's count: the field it is counted by (mapped through the pairing) or the type
    /// written before its elements.
    #[allow(clippy::too_many_arguments)]
    fn count(
        &mut self,
        at: &At<'_>,
        a: &crate::lower::ArrayPlan<'s>,
        b: &crate::lower::ArrayPlan<'s>,
        op: bool,
        np: bool,
        slots: Option<(&Pairing<'_, 's>, &Slot<'_, 's>, &Slot<'_, 's>)>,
    ) {
        enum C<'x, 's> {
            Prefix(&'x Wire<'s>),
            Field(&'x str),
        }
        let oc = match (slots.and_then(|s| s.1.count), &a.count) {
            (Some(c), _) => C::Prefix(&c.wire),
            (None, CountFrom::Prefix(w)) => C::Prefix(w),
            (None, CountFrom::Field(f)) => C::Field(f),
        };
        let nc = match (slots.and_then(|s| s.2.count), &b.count) {
            (Some(c), _) => C::Prefix(&c.wire),
            (None, CountFrom::Prefix(w)) => C::Prefix(w),
            (None, CountFrom::Field(f)) => C::Field(f),
        };
        let d = |c: &C<'_, '_>, packed: bool| match c {
            C::Prefix(w) => format!("a {} before the elements", describe(w, packed)),
            C::Field(f) => format!("field `{f}`"),
        };
        let differs = match (&oc, &nc) {
            (C::Prefix(x), C::Prefix(y)) => {
                let sx = self.shapes.wire(self.sides[OLD], OLD, x, op);
                let sy = self.shapes.wire(self.sides[NEW], NEW, y, np);
                sx != sy
            }
            (C::Field(x), C::Field(y)) => match slots {
                Some((p, _, _)) => {
                    let ix = p.old.index.get(x).and_then(|i| p.map.get(i));
                    ix != p.new.index.get(y)
                }
                None => x != y,
            },
            _ => true,
        };
        if differs {
            let (ol, nl) = (d(&oc, op), d(&nc, np));
            self.push(
                Kind::Count,
                Severity::Breaking,
                match (&oc, &nc) {
                    (C::Prefix(x), C::Prefix(y)) => format!(
                        "the count of `{}` is {}, was {}",
                        at.path,
                        describe(y, np),
                        describe(x, op)
                    ),
                    _ => format!("`{}` is counted by {nl}, was by {ol}", at.path),
                },
                Some(self.mark(OLD, at.on, at.os, ol)),
                Some(self.mark(NEW, at.nn, at.ns, nl)),
            );
        }
    }

    // ---- bit sets ----

    fn bits_pair(&mut self, o: &'s Bits, n: &'s Bits, op: bool, np: bool) {
        let key = ('b', o.name.clone(), n.name.clone());
        let already = self.seen_names.contains(&key);
        self.tracked(format!("{key:?}"), already, |c| {
            c.bits_pair_once(o, n, op, np)
        });
    }

    fn bits_pair_once(&mut self, o: &'s Bits, n: &'s Bits, op: bool, np: bool) {
        self.visited[OLD].insert(o.name.clone());
        self.visited[NEW].insert(n.name.clone());
        if !self
            .seen_names
            .insert(('b', o.name.clone(), n.name.clone()))
        {
            return;
        }
        let (on, nn) = (o.name.as_str(), n.name.as_str());
        self.rename('B', on, nn, o.name_span, n.name_span, "bit set");
        self.docs(
            &o.docs,
            &n.docs,
            (on, o.name_span),
            (nn, n.name_span),
            &format!("bit set `{nn}`"),
        );
        let (ow, nw) = (o.width, n.width);
        let om = self.mark(OLD, on, o.name_span, format!("u{ow}"));
        let nm = self.mark(NEW, nn, n.name_span, format!("u{nw}"));
        if ow != nw {
            self.push(
                Kind::Width,
                Severity::Breaking,
                format!("bit set `{nn}` is {nw} bits wide, was {ow}"),
                Some(om.clone()),
                Some(nm.clone()),
            );
        }
        let (obe, nbe) = (
            self.sides[OLD].bits_big_endian(o),
            self.sides[NEW].bits_big_endian(n),
        );
        if has_order(ow, op) && has_order(nw, np) && obe != nbe {
            let order = |big: bool| if big { "big endian" } else { "little endian" };
            self.push(
                Kind::ByteOrder,
                Severity::Breaking,
                format!(
                    "bit set `{nn}` is read {}, was {} (the byte order of the file declaring it)",
                    order(nbe),
                    order(obe)
                ),
                Some(om),
                Some(nm),
            );
        }
        let opl = self.sides[OLD].bits_plan(o);
        let npl = self.sides[NEW].bits_plan(n);
        let at = |plan: &BitsPlan<'s>, i: u8| plan.named.iter().find(|b| b.index == i).copied();
        let by_name =
            |plan: &BitsPlan<'s>, name: &str| plan.named.iter().find(|b| b.name == name).copied();
        let entry = |b: &'s Bits, i: u8| -> Span {
            b.bits
                .iter()
                .find(|e| match &e.kind {
                    BitKind::Named { index, .. } => *index == i,
                    BitKind::Reserved { lo, hi } => (*lo..=*hi).contains(&i),
                })
                .map_or(b.name_span, |e| e.span)
        };
        // A bit that keeps its name at another index: whatever now sits where it was, a peer
        // built from OLD sets the old index for it.
        for a in &opl.named {
            if let Some(x) = by_name(&npl, a.name).filter(|x| x.index != a.index) {
                let i = a.index;
                self.push(
                    Kind::BitPosition,
                    Severity::Breaking,
                    format!("bit `{nn}.{}` is bit {}, was bit {i}", a.name, x.index),
                    Some(self.mark(OLD, on, entry(o, i), format!("bit {i}"))),
                    Some(self.mark(NEW, nn, entry(n, x.index), format!("bit {}", x.index))),
                );
            }
        }
        let width = ow.max(nw).min(64);
        for i in 0..width {
            let (a, b) = (at(&opl, i), at(&npl, i));
            match (a, b) {
                (Some(a), Some(b)) => {
                    let moved = by_name(&npl, a.name).is_some_and(|x| x.index != i)
                        || by_name(&opl, b.name).is_some_and(|x| x.index != i);
                    if a.name != b.name && !moved {
                        self.push(
                            Kind::Rename,
                            Severity::Warning,
                            format!(
                                "bit {i} of `{nn}` is named `{}` now, was `{}`; the bytes are the same, but the JSON form lists it by its new name",
                                b.name, a.name
                            ),
                            Some(self.mark(OLD, on, entry(o, i), format!("`{}`", a.name))),
                            Some(self.mark(NEW, nn, entry(n, i), format!("`{}`", b.name))),
                        );
                    } else if a.name != b.name && by_name(&opl, b.name).is_none() {
                        // `a` moved away (reported above) and a new bit took its index.
                        self.push(
                            Kind::BitNamed,
                            Severity::Breaking,
                            format!(
                                "bit {i} of `{nn}` is named `{}` now, where `{}` was: a peer built from OLD sets it for `{}`",
                                b.name, a.name, a.name
                            ),
                            Some(self.mark(OLD, on, entry(o, i), format!("`{}`", a.name))),
                            Some(self.mark(NEW, nn, entry(n, i), format!("`{}`", b.name))),
                        );
                    }
                    if a.requires.map(|r| r.1) != b.requires.map(|r| r.1) {
                        let d = |r: Option<(&str, u8)>| {
                            r.map_or("requires nothing".to_string(), |(q, x)| {
                                format!("requires bit {x} (`{q}`)")
                            })
                        };
                        self.push(
                            Kind::BitRequires,
                            Severity::Breaking,
                            format!(
                                "bit {i} of `{nn}` {}, was {}: the bytes one accepts the other refuses",
                                d(b.requires),
                                d(a.requires)
                            ),
                            Some(self.mark(OLD, on, entry(o, i), d(a.requires))),
                            Some(self.mark(NEW, nn, entry(n, i), d(b.requires))),
                        );
                    }
                    // Docs are compared between the same bit: renamed in place, or not renamed.
                    let (a_docs, b_docs) = (bit_docs(o, i), bit_docs(n, i));
                    if let (Some(x), Some(y), false) = (a_docs, b_docs, moved) {
                        self.docs(
                            x,
                            y,
                            (on, entry(o, i)),
                            (nn, entry(n, i)),
                            &format!("bit `{nn}.{}`", b.name),
                        );
                    }
                }
                (Some(a), None) => match by_name(&npl, a.name) {
                    // Moved: reported above.
                    Some(_) => {}
                    None if i < nw => self.push(
                        Kind::BitReserved,
                        Severity::Breaking,
                        format!(
                            "bit {i} of `{nn}` (`{}`) is reserved now: a peer built from NEW refuses it set",
                            a.name
                        ),
                        Some(self.mark(OLD, on, entry(o, i), format!("`{}`", a.name))),
                        Some(self.mark(NEW, nn, entry(n, i), "reserved")),
                    ),
                    None => self.push(
                        Kind::Removed,
                        Severity::Breaking,
                        format!("bit {i} of `{nn}` (`{}`) is gone with the narrower width", a.name),
                        Some(self.mark(OLD, on, entry(o, i), format!("`{}`", a.name))),
                        Some(self.mark(NEW, nn, n.name_span, format!("u{nw}"))),
                    ),
                },
                (None, Some(b)) => {
                    if by_name(&opl, b.name).is_none() {
                        self.push(
                            Kind::BitNamed,
                            Severity::Breaking,
                            format!(
                                "bit {i} of `{nn}` is named `{}` now: a peer built from OLD refuses it set",
                                b.name
                            ),
                            Some(self.mark(
                                OLD,
                                on,
                                entry(o, i),
                                if i < ow { "reserved" } else { "beyond the width" },
                            )),
                            Some(self.mark(NEW, nn, entry(n, i), format!("`{}`", b.name))),
                        );
                    }
                }
                (None, None) => {}
            }
        }
    }

    // ---- unions ----

    fn union_pair(&mut self, o: &'s Union, n: &'s Union) {
        let key = ('u', o.name.clone(), n.name.clone());
        let already = self.seen_names.contains(&key);
        self.tracked(format!("{key:?}"), already, |c| c.union_pair_once(o, n));
    }

    fn union_pair_once(&mut self, o: &'s Union, n: &'s Union) {
        self.visited[OLD].insert(o.name.clone());
        self.visited[NEW].insert(n.name.clone());
        if !self
            .seen_names
            .insert(('u', o.name.clone(), n.name.clone()))
        {
            return;
        }
        let (on, nn) = (o.name.as_str(), n.name.as_str());
        self.rename('U', on, nn, o.name_span, n.name_span, "union");
        self.docs(
            &o.docs,
            &n.docs,
            (on, o.name_span),
            (nn, n.name_span),
            &format!("union `{nn}`"),
        );
        let op: UnionPlan<'s> = self.sides[OLD].union_plan(o);
        let np: UnionPlan<'s> = self.sides[NEW].union_plan(n);
        if let (
            Wire::Int {
                bits: ob,
                big_endian: oe,
                ..
            },
            Wire::Int {
                bits: nb,
                big_endian: ne,
                ..
            },
        ) = (&op.tag, &np.tag)
        {
            if ob != nb || (has_order(*ob, false) && has_order(*nb, false) && oe != ne) {
                self.push(
                    Kind::UnionTag,
                    Severity::Breaking,
                    format!(
                        "union `{nn}`'s tag is {}, was {}",
                        describe(&np.tag, false),
                        describe(&op.tag, false)
                    ),
                    Some(self.mark(OLD, on, o.name_span, describe(&op.tag, false))),
                    Some(self.mark(NEW, nn, n.name_span, describe(&np.tag, false))),
                );
            }
        }
        let variant = |u: &'s Union, tag: u64| u.variants.iter().find(|v| v.tag == tag);
        let named = |u: &'s Union, record: &str| u.variants.iter().find(|v| v.record == record);
        for ov in &o.variants {
            // A variant that keeps its record under another tag: a peer built from OLD writes
            // the old tag for it.
            let moved = named(n, &ov.record).filter(|nv| nv.tag != ov.tag);
            if let Some(nv) = moved {
                self.push(
                    Kind::UnionTag,
                    Severity::Breaking,
                    format!(
                        "variant `{nn}.{}` has tag {}, was {}",
                        nv.record, nv.tag, ov.tag
                    ),
                    Some(self.mark(OLD, on, ov.span, format!("= {}", ov.tag))),
                    Some(self.mark(NEW, nn, nv.span, format!("= {}", nv.tag))),
                );
                self.record_pair(&ov.record, None, &nv.record, None);
            }
            match variant(n, ov.tag) {
                Some(nv) if nv.record == ov.record => {
                    self.docs(
                        &ov.docs,
                        &nv.docs,
                        (on, ov.span),
                        (nn, nv.span),
                        &format!("variant `{nn}.{}`", nv.record),
                    );
                    self.record_pair(&ov.record, None, &nv.record, None);
                }
                // Another variant took the tag this one left, or this one's tag went to a
                // variant that had another: the tag now means another record.
                Some(nv) if moved.is_some() || named(o, &nv.record).is_some() => self.push(
                    Kind::UnionTag,
                    Severity::Breaking,
                    format!(
                        "tag {} of `{nn}` carries `{}` now, where it carried `{}`",
                        ov.tag, nv.record, ov.record
                    ),
                    Some(self.mark(OLD, on, ov.span, format!("`{}`", ov.record))),
                    Some(self.mark(NEW, nn, nv.span, format!("`{}`", nv.record))),
                ),
                Some(nv) => {
                    self.push(
                        Kind::Rename,
                        Severity::Warning,
                        format!(
                            "variant {} of `{nn}` is `{}` now, was `{}`: the JSON form's key `{}` becomes `{}`",
                            ov.tag,
                            nv.record,
                            ov.record,
                            snake_case(&ov.record),
                            snake_case(&nv.record)
                        ),
                        Some(self.mark(OLD, on, ov.span, format!("`{}`", ov.record))),
                        Some(self.mark(NEW, nn, nv.span, format!("`{}`", nv.record))),
                    );
                    self.docs(
                        &ov.docs,
                        &nv.docs,
                        (on, ov.span),
                        (nn, nv.span),
                        &format!("variant `{nn}.{}`", nv.record),
                    );
                    self.record_pair(&ov.record, None, &nv.record, None);
                }
                None if moved.is_some() => {}
                None => self.push(
                    Kind::Removed,
                    Severity::Breaking,
                    format!(
                        "variant `{on}.{}` (tag {}) is gone: a peer built from NEW refuses the tag",
                        ov.record, ov.tag
                    ),
                    Some(self.mark(OLD, on, ov.span, format!("= {}", ov.tag))),
                    Some(self.mark(NEW, nn, n.name_span, format!("no tag {}", ov.tag))),
                ),
            }
        }
        for nv in &n.variants {
            if variant(o, nv.tag).is_some() || o.variants.iter().any(|v| v.record == nv.record) {
                continue;
            }
            self.push(
                Kind::Added,
                Severity::Breaking,
                format!(
                    "variant `{nn}.{}` (tag {}) is new: a peer built from OLD refuses the tag",
                    nv.record, nv.tag
                ),
                Some(self.mark(OLD, on, o.name_span, format!("no tag {}", nv.tag))),
                Some(self.mark(NEW, nn, nv.span, format!("= {}", nv.tag))),
            );
        }
    }
}

/// Where a wire form is being compared: the declarations holding it on each side, the spans
/// of the field, and its path for messages (`Acked.tick`).
#[derive(Clone)]
struct At<'x> {
    on: &'x str,
    nn: &'x str,
    os: Span,
    ns: Span,
    path: String,
}

/// Something with a name, for [`Cmp::pair_decls`].
trait Named {
    fn name(&self) -> &str;
}

impl Named for Record {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for Bits {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for Union {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for Const {
    fn name(&self) -> &str {
        &self.name
    }
}

fn bit_docs(b: &Bits, i: u8) -> Option<&Docs> {
    b.bits.iter().find_map(|e| match &e.kind {
        BitKind::Named { index, .. } if *index == i => Some(&e.docs),
        _ => None,
    })
}

/// The pairs (sorted by their first index) of the longest run whose second indices ascend
/// too: the fields that kept their relative order. O(n log n).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut sorted = pairs.to_vec();
    sorted.sort();
    // tails[k]: index into `sorted` of the smallest tail of a run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; sorted.len()];
    for (i, &(_, j)) in sorted.iter().enumerate() {
        let k = tails.partition_point(|&t| sorted[t].1 < j);
        prev[i] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut out = Vec::new();
    let mut at = tails.last().copied();
    while let Some(i) = at {
        out.push(sorted[i]);
        at = prev[i];
    }
    out.reverse();
    out
}

fn signed(s: bool) -> &'static str {
    if s {
        "signed"
    } else {
        "unsigned"
    }
}

fn int_name(t: &crate::model::IntType) -> String {
    format!("{}{}", if t.signed { "i" } else { "u" }, t.bits)
}

/// A wire form as the layout language spells it, the byte order made explicit where it has
/// one.
fn describe(w: &Wire<'_>, packed: bool) -> String {
    match w {
        Wire::Int {
            signed,
            bits,
            big_endian,
        } => format!(
            "{}{bits}{}",
            if *signed { "i" } else { "u" },
            match (has_order(*bits, packed), big_endian) {
                (false, _) => "",
                (true, true) => "be",
                (true, false) => "le",
            }
        ),
        Wire::Float { bits, big_endian } => format!(
            "f{bits}{}",
            match (packed, big_endian) {
                (true, _) => "",
                (false, true) => "be",
                (false, false) => "le",
            }
        ),
        Wire::Bool { .. } => "bool".into(),
        Wire::Varint { bits: 64 } => "varint".into(),
        Wire::Varint { bits } => format!("varint({bits})"),
        Wire::Zigzag { bits: 64 } => "zigzag".into(),
        Wire::Zigzag { bits } => format!("zigzag({bits})"),
        Wire::Bytes => "bytes".into(),
        Wire::OptBytes => "bytes?".into(),
        Wire::Quant { wire, num, den, .. } => {
            format!("quant({}, {num}/{den})", describe(wire, packed))
        }
        Wire::Quat { bits } => format!("quat({bits})"),
        Wire::Bucket(b) => crate::lower::bucket_text(b),
        Wire::Ranged { int, min, max, .. } => format!("{} in {min}..={max}", describe(int, packed)),
        Wire::Bits(b) => format!("bit set `{}`", b.name),
        Wire::Record { record, .. } => format!("record `{}`", record.name),
        Wire::Union(u) => format!("union `{}`", u.name),
        Wire::Array(a) => {
            let count = match &a.count {
                CountFrom::Field(f) => f.to_string(),
                CountFrom::Prefix(w) => describe(w, packed),
            };
            let asc = match a.ascending {
                None => String::new(),
                Some(Ascending::Values) => " ascending".into(),
                Some(Ascending::Key(k)) => format!(" ascending({k})"),
            };
            format!("[{}; {count}]{asc}", describe(&a.elem, packed))
        }
        Wire::Unknown(n) => n.clone(),
    }
}

fn describe_slot(slot: &Slot<'_, '_>) -> String {
    match (slot.count, &slot.step.wire) {
        (Some(c), Wire::Array(a)) => format!(
            "[{}; {}] (counted by `{}`)",
            describe(&a.elem, false),
            describe(&c.wire, false),
            c.field.name
        ),
        _ => describe(&slot.step.wire, false),
    }
}

fn describe_presence(step: &Step<'_>) -> String {
    let Some(p) = &step.presence else {
        return "always".into();
    };
    let parts: Vec<String> = p
        .tests
        .iter()
        .map(|t| match t {
            Test::Bit {
                operand,
                bits,
                bit,
                negated,
            } => format!(
                "{}{}.{bit} (bit {})",
                if *negated { "!" } else { "" },
                operand.name(),
                bits.and_then(|b| Index::bit_index(b, bit))
                    .map_or("?".to_string(), |i| i.to_string())
            ),
            Test::Bool { operand, negated } | Test::NonZero { operand, negated } => {
                format!("{}{}", if *negated { "!" } else { "" }, operand.name())
            }
            Test::Greater { operand, value } => format!("{} > {value}", operand.name()),
        })
        .collect();
    format!("if {}", parts.join(" && "))
}

/// What a state's group means against the base, one line per part, in a fixed order: its
/// presence and tier bits, whether it is nested, its reach, its tick's age, each field's value
/// and each form's carry of each field.
fn state_meaning(g: &crate::state::GroupPlan) -> Vec<String> {
    use crate::state::{Carry, FormRole, Value};
    let bit = |b: &Option<crate::state::FlagBit>, what: &str, none: &str| {
        b.as_ref().map_or(none.to_string(), |b| {
            format!("{what} in flags bit {}", b.index)
        })
    };
    let mut out = vec![
        bit(&g.presence, "present", "always present"),
        bit(&g.tier, "its form kept", "its form chosen by reach"),
        if g.nested {
            "held whole in the record"
        } else {
            "held as fields of the record"
        }
        .to_string(),
        g.reach
            .map_or("steps from the base's values".to_string(), |r| {
                format!("steps from the base's values within {r}, from 0 past it")
            }),
        g.tick
            .as_ref()
            .map_or("measured at no tick".to_string(), |t| {
                format!("measured at a tick, its age a u{}", t.wire.bits)
            }),
    ];
    // By position: a renamed field keeps its meaning (the derived records report the name).
    for (i, f) in g.fields.iter().enumerate() {
        out.push(match &f.value {
            Value::Int { signed, bits, unit } => format!(
                "field {} an {}{bits}{}",
                i + 1,
                if *signed { "i" } else { "u" },
                unit.map_or(String::new(), |(n, d)| format!(" in units of {n}/{d}"))
            ),
            Value::Float { bits } => format!("field {} an f{bits}", i + 1),
            Value::Bool => format!("field {} a bool", i + 1),
            Value::Bits { width, .. } => format!("field {} a bit set of {width} bits", i + 1),
            Value::Quat { bits } => format!("field {} a quat({bits})", i + 1),
            Value::Tick => format!("field {} a tick", i + 1),
        });
    }
    for form in &g.forms {
        let role = match form.role {
            FormRole::Only => "the group",
            FormRole::Full => "the full form",
            FormRole::Step => "the step form",
        };
        for w in &form.wire {
            let field = w.field + 1;
            out.push(match w.carry {
                Carry::Scaled { by: 1 } => format!("{role} carries field {field} as it is"),
                Carry::Scaled { by } => {
                    format!("{role} carries field {field} in units {by} times its own")
                }
                Carry::Float { bits, .. } => {
                    format!("{role} carries field {field}'s value as an f{bits}")
                }
                Carry::Step => format!("{role} carries field {field} less the base's"),
                Carry::Itself => format!("{role} carries field {field} itself"),
            });
        }
    }
    out
}

/// Reads, compiles and compares two versions: OLD's and NEW's sources, each a list of layout
/// files or folders (see [`crate::read_sources`]). Either failing is that version's error, as
/// `ackwire check` prints it.
#[allow(clippy::type_complexity)]
pub fn compare_sources(
    old: &[Source],
    new: &[Source],
) -> Result<Report, (Option<crate::SpecError>, Option<crate::SpecError>)> {
    let o = crate::compile(old);
    let n = crate::compile(new);
    match (o, n) {
        (Ok(o), Ok(n)) => Ok(compare(&o, &n)),
        (o, n) => Err((o.err(), n.err())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_run_in_order_is_kept() {
        assert_eq!(
            longest_increasing(&[(0, 1), (1, 0), (2, 2), (3, 3)]),
            [(1, 0), (2, 2), (3, 3)]
        );
        assert_eq!(longest_increasing(&[]), []);
        assert_eq!(longest_increasing(&[(0, 2), (1, 1), (2, 0)]).len(), 1);
    }
}
