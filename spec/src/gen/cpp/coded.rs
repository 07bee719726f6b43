//! The coded frame of a state in C++ (kind 13's profile, `docs/spec/coded.md`), the port of the
//! Rust printer (`gen/rust/coded.rs`): the packed frame's header, removals, check and events as
//! they are, an `older` byte before the body, and the changes range-coded through
//! ackwire_coded.hpp, each value under a model of its own (CODE-6..CODE-15), predicted from the
//! base and older snapshot a `coded::CodedBasis` gives (CODE-13, CODE-14).
//!
//! The frame decodes to the packed frame's body type, so the binding stages a coded change as
//! it stages a packed one (ACK-16). Everything is derived from the packed frame's lowering and
//! the state's [`CodedPlan`]: the frame's struct, header steps and JSON are those of a record
//! made from the packed frame (the kind byte the coded frame's, `older` before the body), and
//! the body's models, widths and slots are the plan's. Nothing here is the reference's.

use super::{ident, literal, scale, uint_type, Gen};
use crate::gen::Code;
use crate::lower::{Lowering, RecordPlan, Role, Step, Wire};
use crate::model::{CodedForm, Docs, Field, IntType, Item, Record, Spec, Type};
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

/// A coded frame being printed: its plan and what its values predict from.
struct Frame<'p> {
    state: &'p StatePlan,
    coded: &'p CodedPlan,
    /// A value predicts from the older snapshot (a velocity).
    uses_older: bool,
    /// A value predicts from the base.
    uses_base: bool,
}

impl Frame<'_> {
    /// The constant holding the first slot of model `path`.
    fn slot(&self, path: &str) -> String {
        format!("{}::{}", self.coded.frame, const_name(path))
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

/// A field path, innermost first, as the helpers take it: `{"x", "pose_full"}`.
fn path_list(segs: &[&str]) -> String {
    let quoted: Vec<String> = segs.iter().map(|s| format!("\"{s}\"")).collect();
    format!("{{{}}}", quoted.join(", "))
}

/// An unsigned C++ literal of `v`.
fn ulit(v: i128) -> String {
    if v > i128::from(u32::MAX) {
        format!("{v}ULL")
    } else {
        format!("{v}u")
    }
}

/// `lines` with each `if (COND) return ...;` that would pass 100 columns at `column` braced,
/// its return on a line of its own.
fn wrap_ifs(lines: Vec<String>, column: usize) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        let t = l.trim_start();
        let pad = &l[..l.len() - t.len()];
        match t
            .strip_prefix("if (")
            .and_then(|rest| rest.split_once(") return "))
        {
            Some((cond, ret)) if column + l.len() > 100 => {
                out.push(format!("{pad}if ({cond}) {{"));
                out.push(format!("{pad}    return {ret}"));
                out.push(format!("{pad}}}"));
            }
            _ => out.push(l),
        }
    }
    out
}

/// A member function's declaration, `sig` (ending with its parameters' `)`, or `) const`),
/// its parameters filled over lines when it does not fit.
fn declaration(sig: &str) -> Vec<String> {
    let (head, tail) = sig.split_once('(').unwrap_or((sig, ")"));
    let (params, after) = tail.rsplit_once(')').unwrap_or((tail, ""));
    let args: Vec<String> = params.split(", ").map(str::to_string).collect();
    super::fill(&format!("{head}("), &args, &format!("){after};"))
}

/// The declaration of `name`, the four slots of a quaternion's models, over two lines.
fn slots4(name: &str, [a, b, c, d]: [String; 4]) -> Vec<String> {
    vec![
        format!("    const std::array<size_t, 4> {name}{{{a}, {b},"),
        format!("            {c}, {d}}};"),
    ]
}

/// The declaration of `b`, the base's quaternion (`expr`), broken after its condition when
/// it is long.
fn base_lines(expr: &str) -> Vec<String> {
    let one = format!("    const std::optional<SmallestThree> b = {expr};");
    match expr.split_once(" ? ") {
        Some((cond, rest)) if one.len() > 80 => vec![
            format!("    const std::optional<SmallestThree> b = {cond}"),
            format!("            ? {rest};"),
        ],
        _ => vec![one],
    }
}

/// `lines` one level deeper.
fn deeper(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| if l.is_empty() { l } else { format!("    {l}") })
        .collect()
}

/// The coded frames of every state of `spec` that declares one, with the helpers they call,
/// as the text that ends protocol.hpp (empty when no state declares one).
pub(super) fn coded_frames(spec: &Spec) -> String {
    let plans: Vec<StatePlan> = crate::state::plans(spec)
        .into_iter()
        .filter(|p| p.coded.is_some() && p.packed_profile().is_some())
        .collect();
    if plans.is_empty() {
        return String::new();
    }
    let spec = with_coded_records(spec, &plans);
    let low = Lowering::new(&spec);
    let mut g = Gen {
        low: &low,
        code: Code::default(),
    };
    g.coded_helpers();
    for p in &plans {
        g.coded_frame(p);
    }
    g.code.finish()
}

/// Whether `spec` declares a coded frame (protocol.hpp then includes ackwire_coded.hpp).
pub(super) fn has_coded(spec: &Spec) -> bool {
    crate::state::plans(spec)
        .iter()
        .any(|p| p.coded.is_some() && p.packed_profile().is_some())
}

/// `spec` with, beside each coded frame's packed frame, the record of the coded frame's own
/// fields: the packed frame's, its kind byte the coded frame's, and `older: u8` before `body`.
/// Its plan gives the struct, the header's steps and the JSON form exactly as the packed
/// frame's.
fn with_coded_records(spec: &Spec, plans: &[StatePlan]) -> Spec {
    let mut out = spec.clone();
    for p in plans {
        let Some(c) = &p.coded else { continue };
        for file in &mut out.files {
            let Some(at) = file
                .items
                .iter()
                .position(|i| matches!(i, Item::Record(r) if r.name == c.packed_frame))
            else {
                continue;
            };
            let Item::Record(packed) = &file.items[at] else {
                continue;
            };
            let record = coded_record(packed, c);
            file.items.insert(at + 1, Item::Record(record));
        }
    }
    out
}

/// The coded frame's record, made from its packed frame's.
fn coded_record(packed: &Record, c: &CodedPlan) -> Record {
    let mut r = packed.clone();
    r.name = c.frame.clone();
    r.docs = Docs {
        doc: c.docs.clone(),
        comments: Vec::new(),
    };
    if let Some(kind) = r.fields.iter_mut().find(|f| f.constant.is_some()) {
        kind.constant = Some(i128::from(c.kind));
    }
    let mut fields = Vec::new();
    for f in &r.fields {
        if f.name == "body" {
            let mut older: Field = f.clone();
            older.name = "older".into();
            older.ty = Type::Int(IntType::unsigned(8));
            older.constant = None;
            older.selector = None;
            older.cond = None;
            older.docs = Docs {
                doc: vec![
                    "Ticks from the base back to the older snapshot the changes are predicted"
                        .into(),
                    "from; 0 for none, as in a keyframe (CODE-2).".into(),
                ],
                comments: Vec::new(),
            };
            fields.push(older);
            let mut body = f.clone();
            body.docs = Docs {
                doc: vec![
                    "The changes, decoded to the packed frame's: the same values, range-coded."
                        .into(),
                ],
                comments: Vec::new(),
            };
            fields.push(body);
        } else {
            fields.push(f.clone());
        }
    }
    r.fields = fields;
    r
}

impl Gen<'_> {
    /// The helpers every coded frame's code calls, printed once.
    fn coded_helpers(&mut self) {
        let text = r#"
// ---- the coded frames' helpers (docs/spec/coded.md) ----

namespace detail {

/// Adds `path`'s fields (innermost first) outside the error `errors` holds. Returns false.
template <typename Errors>
inline bool coded_in(Errors& errors, std::initializer_list<const char*> path) {
    for (const char* name : path) {
        errors.in(name);
    }
    return false;
}

/// The coded stream's error as the reader's, in `path`. Returns false.
inline bool coded_fault(rt::Reader& r, const coded::CodedDecoder& stream,
        std::initializer_list<const char*> path) {
    r.fail(stream.error().kind, stream.error().offset);
    return coded_in(r, path);
}

/// An error of `kind` at `at` in `path`, found in a decoded value. Returns false.
inline bool coded_refuse(rt::Reader& r, rt::ErrorKind kind, size_t at,
        std::initializer_list<const char*> path) {
    r.fail(kind, at);
    return coded_in(r, path);
}

/// An id from its gap after `prev` (CODE-10, the first absolute): the ids ascend, and none is
/// past `max`. Moves `prev` on.
inline std::optional<rt::ErrorKind> coded_ascend(std::optional<uint64_t>& prev, uint64_t gap,
        uint64_t max, uint64_t& out) {
    uint64_t v = gap;
    if (prev) {
        if (gap == 0) {
            return rt::ErrorKind::not_ascending;
        }
        if (gap > std::numeric_limits<uint64_t>::max() - *prev) {
            return rt::ErrorKind::over_width;
        }
        v = *prev + gap;
    }
    if (v > max) {
        return rt::ErrorKind::over_width;
    }
    prev = v;
    out = v;
    return std::nullopt;
}

/// A value its packed code can hold, as kind 12 would refuse it: at most `max`.
inline bool coded_at_most(coded::CodedSink& sink, uint64_t v, uint64_t max) {
    return v <= max || sink.fail(rt::ErrorKind::over_width);
}

/// A signed value its packed code can hold: within `min..=max`.
inline bool coded_within(coded::CodedSink& sink, int64_t v, int64_t min, int64_t max) {
    return (v >= min && v <= max) || sink.fail(rt::ErrorKind::over_width);
}

/// A value its check accepts (a bit set's reserved bits clear).
inline bool coded_valid(coded::CodedSink& sink, std::optional<rt::ErrorKind> fault) {
    return !fault || sink.fail(*fault);
}

/// An f32 from the 32 bits coded for it.
inline float coded_f32(uint64_t bits) {
    const auto raw = static_cast<uint32_t>(bits);
    float v = 0;
    std::memcpy(&v, &raw, sizeof v);
    return v;
}

/// An f32's bits, as coded.
inline uint64_t coded_f32_bits(float v) {
    uint32_t raw = 0;
    std::memcpy(&raw, &v, sizeof raw);
    return raw;
}

/// An f64 from the 64 bits coded for it.
inline double coded_f64(uint64_t bits) {
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

/// An f64's bits, as coded.
inline uint64_t coded_f64_bits(double v) {
    uint64_t raw = 0;
    std::memcpy(&raw, &v, sizeof raw);
    return raw;
}

/// The entity's records in the base and, when `older` is asked for, in the older snapshot
/// (CODE-13, CODE-14): none in a keyframe, no older one when the frame names none, none for
/// an id past a `u16`.
template <typename R>
inline void coded_records(uint64_t eid, const coded::CodedBasisTicks& ticks,
        const coded::CodedBasis<R>& basis, std::optional<R>& base, std::optional<R>* older) {
    if (ticks.keyframe || eid > 0xFFFF) {
        return;
    }
    const auto id = static_cast<uint16_t>(eid);
    base = basis.base(id);
    if (older != nullptr && ticks.older != 0) {
        *older = basis.older(id);
    }
}

/// Field `field` of `record`, when there is one, as a prediction's input.
template <typename R, typename T>
inline std::optional<int64_t> coded_of(const std::optional<R>& record, T R::*field) {
    if (!record) {
        return std::nullopt;
    }
    return static_cast<int64_t>((*record).*field);
}

/// CODE-13: the step the entity's motion from the older snapshot to the base predicts `gap`
/// ticks on, `extrapolate(base - older, gap, older)` clamped to the step's range; 0 without
/// both records.
inline int64_t coded_velocity(std::optional<int64_t> base, std::optional<int64_t> older,
        const coded::CodedBasisTicks& ticks, int64_t min, int64_t max) {
    if (!base || !older || ticks.older == 0) {
        return 0;
    }
    const uint32_t gap = std::min<uint32_t>(ticks.tick - ticks.base_tick, 65535);
    const int64_t b = *base;
    const int64_t o = *older;
    // base - older, saturating.
    int64_t motion = 0;
    if (o < 0 && b > std::numeric_limits<int64_t>::max() + o) {
        motion = std::numeric_limits<int64_t>::max();
    } else if (o > 0 && b < std::numeric_limits<int64_t>::min() + o) {
        motion = std::numeric_limits<int64_t>::min();
    } else {
        motion = b - o;
    }
    const int64_t step = coded::extrapolate(motion, gap, ticks.older);
    return std::clamp(step, min, max);
}

/// A predicted value from its difference `d` from the prediction `p` (CODE-13): false when
/// it is not within `min..=max`.
inline bool coded_predicted(int64_t d, int64_t p, int64_t min, int64_t max, int64_t& out) {
    if ((d > 0 && p > std::numeric_limits<int64_t>::max() - d)
            || (d < 0 && p < std::numeric_limits<int64_t>::min() - d)) {
        return false;
    }
    out = p + d;
    return out >= min && out <= max;
}

/// What a predicted value codes: its difference from the prediction `p`, the value within
/// `min..=max` (`over_width` otherwise).
inline bool coded_residual(coded::CodedSink& sink, int64_t v, int64_t p, int64_t min,
        int64_t max, int64_t& out) {
    if (v < min || v > max) {
        return sink.fail(rt::ErrorKind::over_width);
    }
    out = v - p;
    return true;
}

/// A `quat(bits)` (CODE-14). When `base` holds one: whether the largest component is the
/// base's (model `on_base[0]`), and if so the three components as differences from the
/// base's (`on_base[1..]`, `bits + 1` bits). Otherwise the largest's index and the three as
/// kind 12 codes them (`whole`). The canonical rules then hold as kind 12's.
inline bool coded_read_quat(rt::Reader& r, coded::CodedDecoder& stream,
        std::optional<SmallestThree> base, const std::array<size_t, 4>& on_base,
        const std::array<size_t, 4>& whole, unsigned bits, size_t at, SmallestThree& out) {
    const int64_t half = int64_t{1} << (bits - 1);
    bool same = false;
    if (base) {
        uint64_t v = 0;
        if (!stream.value(on_base[0], 1, v)) return coded_fault(r, stream, {"same"});
        same = v == 1;
    }
    SmallestThree q;
    if (base && same) {
        q = *base;
        for (size_t i = 0; i < 3; ++i) {
            int64_t d = 0;
            if (!stream.signed_value(on_base[i + 1], bits + 1, d)) {
                return coded_fault(r, stream, {"d"});
            }
            const int64_t v = int64_t{q.rest[i]} + d;
            if (v < -half || v >= half) {
                return coded_refuse(r, rt::ErrorKind::over_width, at, {});
            }
            q.rest[i] = static_cast<int16_t>(v);
        }
    } else {
        uint64_t largest = 0;
        if (!stream.value(whole[0], 2, largest)) return coded_fault(r, stream, {"largest"});
        q.largest = static_cast<uint8_t>(largest);
        // CODE-14: the base's largest component travels as `same`, never again whole.
        if (base && base->largest == q.largest) {
            return coded_refuse(r, rt::ErrorKind::non_canonical, stream.offset(), {"largest"});
        }
        for (size_t i = 0; i < 3; ++i) {
            uint64_t raw = 0;
            if (!stream.value(whole[i + 1], bits, raw)) return coded_fault(r, stream, {"c"});
            // Two's complement in `bits` bits, as kind 12 lays it.
            const auto v = static_cast<int64_t>(raw);
            q.rest[i] = static_cast<int16_t>(v >= half ? v - 2 * half : v);
        }
    }
    if (auto fault = rt::smallest_three_fault(q, bits)) {
        return coded_refuse(r, *fault, at, {});
    }
    out = q;
    return true;
}

/// Codes a `quat(bits)` as coded_read_quat reads it, refusing what kind 12 refuses.
inline bool coded_code_quat(coded::CodedSink& sink, const SmallestThree& q,
        std::optional<SmallestThree> base, const std::array<size_t, 4>& on_base,
        const std::array<size_t, 4>& whole, unsigned bits) {
    if (auto fault = rt::smallest_three_fault(q, bits)) {
        return sink.fail(*fault);
    }
    if (base) {
        const bool same = base->largest == q.largest;
        if (!sink.value(on_base[0], 1, same ? 1u : 0u)) return coded_in(sink, {"same"});
        if (same) {
            for (size_t i = 0; i < 3; ++i) {
                const int64_t d = int64_t{q.rest[i]} - int64_t{base->rest[i]};
                if (!sink.signed_value(on_base[i + 1], bits + 1, d)) {
                    return coded_in(sink, {"d"});
                }
            }
            return true;
        }
    }
    if (!sink.value(whole[0], 2, q.largest)) return coded_in(sink, {"largest"});
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    for (size_t i = 0; i < 3; ++i) {
        const auto raw = static_cast<uint64_t>(int64_t{q.rest[i]}) & mask;
        if (!sink.value(whole[i + 1], bits, raw)) return coded_in(sink, {"c"});
    }
    return true;
}

}  // namespace detail"#;
        for l in text.lines() {
            self.code.line(l);
        }
    }

    /// The coded frame of `state`.
    fn coded_frame(&mut self, state: &StatePlan) {
        let Some(coded) = &state.coded else { return };
        let Some(packed) = state.packed_profile() else {
            return;
        };
        let low = self.low;
        let key = low.keys_of(&packed.change);
        let (Some(frame), Some(body), Some(change)) = (
            low.plan(&coded.frame, None),
            packed.body.as_deref().and_then(|b| low.plan(b, None)),
            low.plan(&packed.change, key.first().copied()),
        ) else {
            return;
        };
        let mut f = Frame {
            state,
            coded,
            uses_older: false,
            uses_base: false,
        };
        let name = coded.frame.clone();
        let record = state.record.name.clone();
        self.code.blank();
        self.code.line(format!("// ---- {name} ----"));
        self.code.blank();
        // The struct: the record's, with the frame's constants and functions before its end.
        let text = {
            let outer = std::mem::take(&mut self.code);
            self.record_type(frame.record);
            std::mem::replace(&mut self.code, outer).finish()
        };
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.last() == Some(&"};") {
            lines.pop();
        }
        for l in lines {
            self.code.line_as_written(l);
        }
        self.code.open("");
        self.coded_consts(&f);
        self.code.blank();
        let flags = &state.acked_flags;
        let basis = format!("const coded::CodedBasis<{record}>& basis");
        self.code
            .line("/// What the frame's basis is looked up by: its ticks, whether it is a");
        self.code
            .line("/// keyframe and its `older` distance (CODE-2, CODE-3).");
        self.code
            .open("coded::CodedBasisTicks basis_ticks() const {");
        self.code.line(format!(
            "const bool keyframe = flags.contains({flags}::KEYFRAME);"
        ));
        self.code
            .line("return coded::CodedBasisTicks{tick, base_tick, keyframe, older};");
        self.code.close("}");
        self.code.blank();
        self.code.line(
            "/// Every slot's starting probability as the coder's: a copy of it is each frame's",
        );
        self.code
            .line("/// tables, which adapt within the frame (CODE-9).");
        self.code
            .line("static const std::array<range::Prob, SLOTS>& starting();");
        self.code.blank();
        self.code.line(
            "/// What the frame's basis is looked up by, read from its prefix before its body",
        );
        self.code.line(
            "/// (CODE-2, CODE-3): its tick and its base's, whether it is a keyframe, and `older`.",
        );
        for l in declaration(
            "static rt::Result<coded::CodedBasisTicks> read_basis(const uint8_t* data, size_t len)",
        ) {
            self.code.line(l);
        }
        self.code.blank();
        self.code.line(
            "/// Decodes a whole frame, its changes predicted from `basis`: the base and older",
        );
        self.code.line(
            "/// snapshot its prefix names (read_basis), which the caller holds (CODE-3); bytes",
        );
        self.code.line("/// after it are an error.");
        for l in declaration(&format!(
            "static rt::Result<{name}> decode(const uint8_t* data, size_t len, {basis})"
        )) {
            self.code.line(l);
        }
        self.code.blank();
        self.code.line(
            "/// Appends the frame's bytes to `out`, its changes predicted from `basis`: the base",
        );
        self.code.line(
            "/// and older snapshot its prefix names, which the client holds (CODE-3). On error",
        );
        self.code.line("/// `out` may hold part of the frame.");
        for l in declaration(&format!(
            "rt::EncodeStatus encode(std::vector<uint8_t>& out, {basis}) const"
        )) {
            self.code.line(l);
        }
        self.code.blank();
        self.code.line(
            "/// Counts, slot by slot, the bits encode() codes for the changes, without adapting:",
        );
        self.code
            .line("/// what training sums over recorded frames (CODE-17).");
        for l in declaration(&format!(
            "rt::EncodeStatus count(coded::SlotCounts& counts, {basis}) const"
        )) {
            self.code.line(l);
        }
        self.code.close("};");
        self.code.blank();
        self.code.line("namespace detail {");
        self.code.blank();
        self.coded_read_fns(&mut f, frame, body, change, &basis);
        self.code.blank();
        self.coded_write_fns(&mut f, frame, body, change, &basis);
        self.code.blank();
        self.code.line("}  // namespace detail");
        self.code.blank();
        self.coded_members(&f);
        self.record_json(frame.record);
    }

    /// `MODELS`, `SLOTS`, `TABLES` and each model's first slot.
    fn coded_consts(&mut self, f: &Frame<'_>) {
        let c = f.coded;
        self.code.line(
            "/// The models of the frame's values, `(name, W)`, in the order they are first coded",
        );
        self.code
            .line("/// (CODE-15): each value's bit length and bits adapt under its own.");
        self.code.open(format!(
            "static constexpr std::array<std::pair<const char*, uint8_t>, {}> MODELS{{{{",
            c.models.len()
        ));
        for m in &c.models {
            self.code.line(format!("{{\"{}\", {}}},", m.name, m.w));
        }
        self.code.close("}};");
        self.code.blank();
        self.code
            .line("/// The slots of every model, one after another (CODE-8).");
        self.code
            .line(format!("static constexpr size_t SLOTS = {};", c.slots()));
        if !c.probs.is_empty() {
            self.code.blank();
            let file = c.tables.as_deref().unwrap_or("the tables file");
            self.code.line(format!(
                "/// Every slot's starting probability in 4096ths (CODE-16), from `{file}`, each"
            ));
            self.code
                .line("/// checked 1 to 4095 when the tables were read.");
            self.code
                .open("static constexpr std::array<uint16_t, SLOTS> TABLES{{");
            for m in &c.models {
                let end = (m.at + crate::state::model_slots(m.w)).min(c.probs.len());
                let ps = c.probs.get(m.at..end).unwrap_or_default();
                self.code.line(format!("// {}", m.name));
                // Rows of up to 16, as many as fit the line.
                let room = 100usize.saturating_sub(self.code.column());
                let mut row = String::new();
                let mut n = 0;
                for v in ps {
                    let cell = format!("{v},");
                    if n == 16 || (n > 0 && row.len() + 1 + cell.len() > room) {
                        self.code.line(std::mem::take(&mut row));
                        n = 0;
                    }
                    if n > 0 {
                        row.push(' ');
                    }
                    row.push_str(&cell);
                    n += 1;
                }
                if n > 0 {
                    self.code.line(row);
                }
            }
            self.code.close("}};");
        }
        for m in &c.models {
            self.code.blank();
            self.code.line(format!(
                "/// The first slot of model `{}` (W = {}).",
                m.name, m.w
            ));
            self.code.line(format!(
                "static constexpr size_t {} = {};",
                const_name(&m.name),
                m.at
            ));
        }
    }

    /// The struct's functions, defined once the detail functions they call are.
    fn coded_members(&mut self, f: &Frame<'_>) {
        let c = f.coded;
        let n = &c.frame;
        let record = &f.state.record.name;
        let basis = format!("const coded::CodedBasis<{record}>& basis");
        if c.probs.is_empty() {
            self.code.line(
                "/// The frame names no tables (CODE-16): every slot starts at even odds, 2048.",
            );
        } else {
            self.code
                .line("/// TABLES as the coder's probabilities, built once.");
        }
        self.open_fn(&format!(
            "inline const std::array<range::Prob, {n}::SLOTS>& {n}::starting()"
        ));
        if c.probs.is_empty() {
            self.code
                .line("static const std::array<range::Prob, SLOTS> probs{};");
        } else {
            self.code
                .open("static const std::array<range::Prob, SLOTS> probs = [] {");
            self.code.line("std::array<range::Prob, SLOTS> p{};");
            self.code.open("for (size_t i = 0; i < SLOTS; ++i) {");
            self.code
                .line("p[i] = range::Prob::of(TABLES[i]).value_or(range::Prob::HALF);");
            self.code.close("}");
            self.code.line("return p;");
            self.code.close("}();");
        }
        self.code.line("return probs;");
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// What the frame's basis is looked up by (CODE-2, CODE-3).");
        self.open_fn(&format!(
            "inline rt::Result<coded::CodedBasisTicks> {n}::read_basis(const uint8_t* data, size_t len)"
        ));
        self.code.line("rt::Reader r(data, len);");
        self.code.line(format!("{n} head;"));
        self.code
            .line("if (!detail::read_basis(r, head)) return r.take_error();");
        self.code.line("return head.basis_ticks();");
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// Decodes a whole frame against `basis`; bytes after it are an error.");
        self.open_fn(&format!(
            "inline rt::Result<{n}> {n}::decode(const uint8_t* data, size_t len, {basis})"
        ));
        self.code.line("rt::Reader r(data, len);");
        self.code.line(format!("{n} frame;"));
        self.code
            .line("if (!detail::read(r, basis, frame) || !r.finish()) return r.take_error();");
        self.code.line("return frame;");
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// Appends the frame's bytes, coded against `basis`, to `out`.");
        self.code.line(format!(
            "inline rt::EncodeStatus {n}::encode(std::vector<uint8_t>& out,"
        ));
        self.code.open(format!("        {basis}) const {{"));
        self.code.line("rt::Writer w(out);");
        self.code
            .line("if (!detail::write(w, *this, basis)) return w.take_error();");
        self.code.line("return std::nullopt;");
        self.code.close("}");
        self.code.blank();
        self.code
            .line("/// Counts the bits of the changes, slot by slot, into `counts`.");
        self.code.line(format!(
            "inline rt::EncodeStatus {n}::count(coded::SlotCounts& counts,"
        ));
        self.code.open(format!("        {basis}) const {{"));
        self.code
            .open("if (!detail::code_changes(counts, *this, basis)) {");
        self.code.line("rt::EncodeError e = counts.error();");
        self.code.line("e.path.push_field(\"body\");");
        self.code.line("return e;");
        self.code.close("}");
        self.code.line("return std::nullopt;");
        self.code.close("}");
    }

    /// `read_basis`, `read`, the body's reader and the change's.
    fn coded_read_fns(
        &mut self,
        f: &mut Frame<'_>,
        frame: &RecordPlan<'_>,
        body: &RecordPlan<'_>,
        change: &RecordPlan<'_>,
        basis: &str,
    ) {
        let n = f.coded.frame.clone();
        let flags = f.state.acked_flags.clone();
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
        let change_name = &change.record.name;
        self.coded_read_change(f, change, basis);
        self.code.blank();
        self.code.line(
            "/// The body: the changes' count, then their values' stream (CODE-1, CODE-4, CODE-5).",
        );
        self.open_fn(&format!(
            "inline bool read_coded_changes(rt::Reader& r, const coded::CodedBasisTicks& ticks, {basis}, {body_name}& out)"
        ));
        self.code.line(format!("uint16_t {count} = 0;"));
        self.code.line(format!(
            "if (!r.read_uint(2, false, {count})) return r.in(\"{count}\");"
        ));
        self.code
            .line("// Values the stream cannot place are reported at its first byte.");
        self.code.line("const size_t at = r.pos() + 2;");
        self.code.line(format!(
            "std::array<range::Prob, {n}::SLOTS> probs = {n}::starting();"
        ));
        self.code
            .line("coded::CodedDecoder stream(probs.data(), probs.size());");
        self.code.line(format!(
            "if (!stream.start(r, {count})) return coded_fault(r, stream, {{\"coded_len\"}});"
        ));
        self.code.line(
            "// CODE-4: the stream holds at least 12 bits a change, so this is bounded by the input.",
        );
        self.code.line(format!("out.{list}.clear();"));
        self.code.line(format!("out.{list}.reserve({count});"));
        self.code.line("std::optional<uint64_t> prev;");
        self.code
            .open(format!("for (size_t i = 0; i < {count}; ++i) {{"));
        self.code
            .line(format!("{change_name}& c = out.{list}.emplace_back();"));
        self.code
            .open("if (!read_coded_change(r, stream, prev, at, ticks, basis, c)) {");
        self.code.line(format!("return r.index(i).in(\"{list}\");"));
        self.code.close("}");
        self.code.close("}");
        self.code
            .line("if (!stream.finish()) return coded_fault(r, stream, {});");
        self.code.line("return true;");
        self.code.close("}");
        self.code.blank();
        self.code.line(format!(
            "/// Reads `{n}`'s prefix up to `older` into `out`: what its basis is looked up by."
        ));
        self.code.open(format!(
            "inline bool read_basis(rt::Reader& r, {n}& out) {{"
        ));
        for s in &frame.steps {
            if s.field.name == "body" {
                break;
            }
            let target = format!("out.{}", ident(&s.field.name));
            let lines = self.read_step(s, false, &target);
            self.lines(lines);
        }
        self.code.line("return true;");
        self.code.close("}");
        self.code.blank();
        self.code.line(format!(
            "/// Reads `{n}`, its changes predicted from `basis`: the base and older snapshot its"
        ));
        self.code
            .line("/// prefix names, which the caller holds (CODE-3).");
        self.open_fn(&format!(
            "inline bool read(rt::Reader& r, {basis}, {n}& out)"
        ));
        for s in &frame.steps {
            match s.field.name.as_str() {
                "older" => {
                    self.code.open("{");
                    self.code.line("const size_t at = r.pos();");
                    self.code
                        .line("if (!r.read_uint(1, false, out.older)) return r.in(\"older\");");
                    self.code
                        .line("// CODE-2: a keyframe has no older snapshot.");
                    self.code.open(format!(
                        "if (out.flags.contains({flags}::KEYFRAME) && out.older != 0) {{"
                    ));
                    self.code.line(
                        "return coded_refuse(r, rt::ErrorKind::invalid_condition, at, {\"older\"});",
                    );
                    self.code.close("}");
                    self.code.close("}");
                }
                "body" => {
                    self.code.line(
                        "if (!read_coded_changes(r, out.basis_ticks(), basis, out.body)) return r.in(\"body\");",
                    );
                }
                _ => {
                    let target = format!("out.{}", ident(&s.field.name));
                    let lines = self.read_step(s, false, &target);
                    self.lines(lines);
                }
            }
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    /// `read_coded_change`: one change's values, read into the packed change.
    fn coded_read_change(&mut self, f: &mut Frame<'_>, change: &RecordPlan<'_>, basis: &str) {
        let name = &change.record.name;
        let mut head = Vec::new();
        let mut rest = Vec::new();
        let mut past_head = false;
        for s in &change.steps {
            let lines = self.coded_read_step(f, s);
            if past_head {
                rest.extend(lines);
            } else {
                head.extend(lines);
            }
            if is_mask(s) || (s.role == Role::Key && !change.steps.iter().any(is_mask)) {
                past_head = true;
            }
        }
        let records = f.uses_base || f.uses_older;
        let unused = |used: bool| if used { "" } else { "[[maybe_unused]] " };
        self.code.line(
            "/// One change (CODE-10..CODE-14): its id after `prev`'s, its mask, then each value the",
        );
        self.code.line(
            "/// mask selects under its model, predicted from the entity's records in `basis`.",
        );
        self.open_fn(&format!(
            "inline bool read_coded_change(rt::Reader& r, coded::CodedDecoder& stream, std::optional<uint64_t>& prev, size_t at, {}const coded::CodedBasisTicks& ticks, {}{basis}, {name}& out)",
            unused(records),
            unused(records)
        ));
        let column = self.code.column();
        self.lines(wrap_ifs(head, column));
        self.coded_records(f, "out");
        self.lines(wrap_ifs(rest, column));
        self.code.line("return true;");
        self.code.close("}");
    }

    /// The base's and older snapshot's records of a change's entity, as its values need them.
    fn coded_records(&mut self, f: &Frame<'_>, of: &str) {
        if !(f.uses_base || f.uses_older) {
            return;
        }
        let record = &f.state.record.name;
        let key = f
            .state
            .packed_profile()
            .and_then(|p| self.low.keys_of(&p.change).first().copied())
            .unwrap_or("eid");
        self.code.line(format!("std::optional<{record}> base;"));
        if f.uses_older {
            self.code.line(format!("std::optional<{record}> older;"));
            self.code.line(format!(
                "coded_records({of}.{}, ticks, basis, base, &older);",
                ident(key)
            ));
        } else {
            self.code.line(format!(
                "coded_records({of}.{}, ticks, basis, base, nullptr);",
                ident(key)
            ));
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
                            let q = ident(g.fields.get(wp.field).map_or(sub, |x| x.name.as_str()));
                            match holder {
                                Some(h) if h.present.is_some() => format!(
                                    "base && base->{h} ? std::optional<SmallestThree>(base->{h}->{q}) : std::nullopt",
                                    h = ident(&h.name)
                                ),
                                Some(h) => format!(
                                    "base ? std::optional<SmallestThree>(base->{}.{q}) : std::nullopt",
                                    ident(&h.name)
                                ),
                                None => format!(
                                    "base ? std::optional<SmallestThree>(base->{q}) : std::nullopt"
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

    /// The lines reading step `s` of the change into `out`.
    fn coded_read_step(&self, f: &mut Frame<'_>, s: &Step<'_>) -> Vec<String> {
        let fname = &s.field.name;
        let id = ident(fname);
        if s.role == Role::Key {
            let (m, w) = (f.slot(fname), f.width(fname));
            let max = key_max(&s.wire);
            let p = path_list(&[fname]);
            return vec![
                "{".into(),
                "    uint64_t gap = 0;".into(),
                "    uint64_t id = 0;".into(),
                format!(
                    "    if (!stream.value({m}, {w}, gap)) return coded_fault(r, stream, {p});"
                ),
                format!("    if (auto fault = coded_ascend(prev, gap, {max}, id)) {{"),
                format!("        return coded_refuse(r, *fault, at, {p});"),
                "    }".into(),
                format!(
                    "    out.{id} = static_cast<{}>(id);",
                    Self::cpp_type(&s.wire)
                ),
                "}".into(),
            ];
        }
        if !matches!(s.role, Role::Value) {
            return vec![format!(
                "#error \"a coded frame cannot read `{fname}` of a change\""
            )];
        }
        let cond = Self::presence(s, false);
        let mut lines = Vec::new();
        let inner: Vec<String> = match &s.wire {
            Wire::Record { record, .. } => {
                let Some(sub) = self.low.plan(&record.name, None) else {
                    return vec![format!(
                        "#error \"a coded frame cannot read `{fname}`: no plan of its record\""
                    )];
                };
                let mut inner = Vec::new();
                for x in &sub.steps {
                    let path = format!("{fname}.{}", x.field.name);
                    let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                    inner.extend(self.coded_read_value(
                        f,
                        &path,
                        &x.wire,
                        &predict,
                        &format!("g.{}", ident(&x.field.name)),
                        &[&x.field.name, fname],
                    ));
                }
                inner
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                self.coded_read_value(f, fname, w, &predict, "g", &[fname])
            }
        };
        match cond {
            Some(c) => {
                lines.push(format!("if ({c}) {{"));
                lines.push(format!("    auto& g = out.{id}.emplace();"));
                lines.extend(deeper(inner));
                lines.push("} else {".into());
                lines.push(format!("    out.{id}.reset();"));
                lines.push("}".into());
            }
            None => {
                lines.push("{".into());
                lines.push(format!("    auto& g = out.{id};"));
                lines.extend(deeper(inner));
                lines.push("}".into());
            }
        }
        lines
    }

    /// The lines reading one value of model `path` in wire form `w` into `target` (the packed
    /// record's type), failing with `segs` (innermost first) as its path.
    fn coded_read_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        predict: &Predict,
        target: &str,
        segs: &[&str],
    ) -> Vec<String> {
        let p = path_list(segs);
        let (m, width) = (f.slot(path), f.width(path));
        let ty = Self::cpp_type(w);
        let fault = format!("return coded_fault(r, stream, {p});");
        let over = format!("return coded_refuse(r, rt::ErrorKind::over_width, at, {p});");
        let unsigned = |body: Vec<String>| {
            let mut l = vec![
                "{".to_string(),
                "    uint64_t v = 0;".into(),
                format!("    if (!stream.value({m}, {width}, v)) {fault}"),
            ];
            l.extend(deeper(body));
            l.push("}".into());
            l
        };
        let signed = |body: Vec<String>| {
            let mut l = vec![
                "{".to_string(),
                "    int64_t v = 0;".into(),
                format!("    if (!stream.signed_value({m}, {width}, v)) {fault}"),
            ];
            l.extend(deeper(body));
            l.push("}".into());
            l
        };
        match predict {
            Predict::Velocity { field, min, max } => {
                let record = &f.state.record.name;
                let fid = ident(field);
                let (lo, hi) = (literal(*min), literal(*max));
                return vec![
                    "{".into(),
                    "    int64_t d = 0;".into(),
                    format!("    if (!stream.signed_value({m}, {width}, d)) {fault}"),
                    format!(
                        "    const int64_t p = coded_velocity(coded_of(base, &{record}::{fid}),"
                    ),
                    format!("            coded_of(older, &{record}::{fid}), ticks, {lo}, {hi});"),
                    "    int64_t v = 0;".into(),
                    format!("    if (!coded_predicted(d, p, {lo}, {hi}, v)) {over}"),
                    format!("    {target} = static_cast<{ty}>(v);"),
                    "}".into(),
                ];
            }
            Predict::Quat { bits, base } => {
                let on_base = match base {
                    Some(_) => slots4(
                        "on_base",
                        [
                            f.slot(&format!("{path}.same")),
                            f.slot(&format!("{path}.d0")),
                            f.slot(&format!("{path}.d1")),
                            f.slot(&format!("{path}.d2")),
                        ],
                    ),
                    None => vec!["    const std::array<size_t, 4> on_base{0, 0, 0, 0};".into()],
                };
                let whole = slots4(
                    "whole",
                    [
                        f.slot(&format!("{path}.largest")),
                        f.slot(&format!("{path}.c0")),
                        f.slot(&format!("{path}.c1")),
                        f.slot(&format!("{path}.c2")),
                    ],
                );
                let b = base.clone().unwrap_or_else(|| "std::nullopt".into());
                let mut l = vec!["{".to_string()];
                l.extend(base_lines(&b));
                l.extend(on_base);
                l.extend(whole);
                l.push(format!(
                    "    if (!coded_read_quat(r, stream, b, on_base, whole, {bits}, at, {target})) {{"
                ));
                l.push(format!("        return coded_in(r, {p});"));
                l.push("    }".into());
                l.push("}".into());
                return l;
            }
            Predict::None => {}
        }
        match w {
            Wire::Int { signed: false, .. } => {
                unsigned(vec![format!("{target} = static_cast<{ty}>(v);")])
            }
            Wire::Int { signed: true, .. } => {
                signed(vec![format!("{target} = static_cast<{ty}>(v);")])
            }
            Wire::Bucket(bp) if !bp.signed => unsigned(vec![
                format!("if (v > {}) {over}", ulit(bp.max_value)),
                format!("{target} = static_cast<{ty}>(v);"),
            ]),
            Wire::Bucket(bp) => signed(vec![
                format!(
                    "if (v < {} || v > {}) {over}",
                    literal(bp.min_value),
                    literal(bp.max_value)
                ),
                format!("{target} = static_cast<{ty}>(v);"),
            ]),
            Wire::Float { bits: 32, .. } => {
                let mut l = vec![
                    "{".to_string(),
                    "    uint64_t v = 0;".into(),
                    format!("    if (!stream.value({m}, 32, v)) {fault}"),
                ];
                l.push(format!("    {target} = coded_f32(v);"));
                l.push("}".into());
                l
            }
            Wire::Float { .. } => {
                let mut l = vec![
                    "{".to_string(),
                    "    uint64_t v = 0;".into(),
                    format!("    if (!stream.value({m}, 64, v)) {fault}"),
                ];
                l.push(format!("    {target} = coded_f64(v);"));
                l.push("}".into());
                l
            }
            Wire::Bool { .. } => {
                let mut l = vec![
                    "{".to_string(),
                    "    uint64_t v = 0;".into(),
                    format!("    if (!stream.value({m}, 1, v)) {fault}"),
                ];
                l.push(format!("    {target} = v == 1;"));
                l.push("}".into());
                l
            }
            Wire::Quant {
                wire,
                num,
                den,
                signed: is_signed,
                min,
                max,
                ..
            } => {
                let s = scale(*num, *den);
                let bounded = matches!(wire.as_ref(), Wire::Bucket(_));
                let set = format!("{target} = static_cast<double>(v) * {s};");
                match (is_signed, bounded) {
                    (false, false) => unsigned(vec![set]),
                    (false, true) => unsigned(vec![format!("if (v > {}) {over}", ulit(*max)), set]),
                    (true, false) => signed(vec![set]),
                    (true, true) => signed(vec![
                        format!("if (v < {} || v > {}) {over}", literal(*min), literal(*max)),
                        set,
                    ]),
                }
            }
            Wire::Bits(b) => unsigned(vec![
                format!(
                    "{target} = {}::from_bits(static_cast<{}>(v));",
                    b.name,
                    uint_type(b.width)
                ),
                format!("if (auto fault = {target}.check()) {{"),
                format!("    return coded_refuse(r, *fault, at, {p});"),
                "}".into(),
            ]),
            // WIRE-29: the value less `min`, as kind 12 packs it; past `max` is over_width.
            Wire::Ranged { min, max, .. } => {
                let span = i128::from(*max) - i128::from(*min);
                let set = if *min == 0 {
                    format!("{target} = static_cast<{ty}>(v);")
                } else {
                    format!(
                        "{target} = static_cast<{ty}>(static_cast<int64_t>(v) + {});",
                        literal(i128::from(*min))
                    )
                };
                unsigned(vec![format!("if (v > {}) {over}", ulit(span)), set])
            }
            // The plan refuses every other form in a group; were one to come, the code must not
            // compile rather than read it as anything.
            _ => vec![format!("#error \"a coded frame cannot read `{path}`\"")],
        }
    }

    /// `write`, the body's coder and the change's.
    fn coded_write_fns(
        &mut self,
        f: &mut Frame<'_>,
        frame: &RecordPlan<'_>,
        body: &RecordPlan<'_>,
        change: &RecordPlan<'_>,
        basis: &str,
    ) {
        let n = f.coded.frame.clone();
        let flags = f.state.acked_flags.clone();
        let list = body
            .values()
            .next()
            .map_or("changes".to_string(), |s| s.field.name.clone());
        let count = body
            .steps
            .iter()
            .find(|s| matches!(s.role, Role::Count { .. }))
            .map_or("changed_count".to_string(), |s| s.field.name.clone());
        let change_name = &change.record.name;
        // The change's coder.
        let mut head = Vec::new();
        let mut rest = Vec::new();
        let mut past_head = false;
        for s in &change.steps {
            let lines = self.coded_code_step(f, s);
            if past_head {
                rest.extend(lines);
            } else {
                head.extend(lines);
            }
            if is_mask(s) || (s.role == Role::Key && !change.steps.iter().any(is_mask)) {
                past_head = true;
            }
        }
        let records = f.uses_base || f.uses_older;
        let unused = |used: bool| if used { "" } else { "[[maybe_unused]] " };
        self.code.line(
            "/// Codes one change's values into `sink` (CODE-10..CODE-14): its id after `prev`'s,",
        );
        self.code.line(
            "/// its mask, then each value the mask selects, predicted from its records in `basis`.",
        );
        self.open_fn(&format!(
            "inline bool code_change(coded::CodedSink& sink, const {change_name}& v, std::optional<uint64_t>& prev, {}const coded::CodedBasisTicks& ticks, {}{basis})",
            unused(records),
            unused(records)
        ));
        let column = self.code.column();
        self.lines(wrap_ifs(head, column));
        self.coded_records(f, "v");
        self.lines(wrap_ifs(rest, column));
        self.code.line("return true;");
        self.code.close("}");
        self.code.blank();
        self.code.line(format!(
            "/// Codes every change of `{n}` into `sink`, in order: the encoder, or the training"
        ));
        self.code.line("/// counts.");
        self.open_fn(&format!(
            "inline bool code_changes(coded::CodedSink& sink, const {n}& v, {basis})"
        ));
        self.code
            .line("const coded::CodedBasisTicks ticks = v.basis_ticks();");
        self.code.line("std::optional<uint64_t> prev;");
        self.code.open(format!(
            "for (size_t i = 0; i < v.body.{list}.size(); ++i) {{"
        ));
        self.code.open(format!(
            "if (!code_change(sink, v.body.{list}[i], prev, ticks, basis)) {{"
        ));
        self.code
            .line(format!("return sink.index(i).in(\"{list}\");"));
        self.code.close("}");
        self.code.close("}");
        self.code.line("return true;");
        self.code.close("}");
        self.code.blank();
        self.code.line(format!(
            "/// Writes `{n}`, its changes predicted from `basis`: the base and older snapshot its"
        ));
        self.code
            .line("/// prefix names, which the client holds (CODE-3).");
        self.open_fn(&format!(
            "inline bool write(rt::Writer& w, const {n}& v, {basis})"
        ));
        for s in &frame.steps {
            match s.field.name.as_str() {
                "older" => {
                    self.code
                        .line("// CODE-2: a keyframe has no older snapshot.");
                    self.code.open(format!(
                        "if (!w.presence(v.older != 0, v.older != 0 && !v.flags.contains({flags}::KEYFRAME))"
                    ));
                    self.code.line("|| !w.write_uint(1, false, v.older)) {");
                    self.code.line("return w.in(\"older\");");
                    self.code.close("}");
                }
                "body" => {
                    self.code.open(format!(
                        "if (!w.write_uint(2, false, v.body.{list}.size())) {{"
                    ));
                    self.code
                        .line(format!("return coded_in(w, {{\"{count}\", \"body\"}});"));
                    self.code.close("}");
                    self.code.open("{");
                    self.code.line(format!(
                        "std::array<range::Prob, {n}::SLOTS> probs = {n}::starting();"
                    ));
                    self.code
                        .line("coded::CodedEncoder stream(probs.data(), probs.size());");
                    self.code.open("if (!code_changes(stream, v, basis)) {");
                    self.code.line("w.fail(stream.error());");
                    self.code.line("return w.in(\"body\");");
                    self.code.close("}");
                    self.code.line("std::vector<uint8_t> coded_body;");
                    self.code.open(format!(
                        "if (!stream.finish(v.body.{list}.size(), coded_body)) {{"
                    ));
                    self.code.line("w.fail(stream.error());");
                    self.code
                        .line("return coded_in(w, {\"coded_len\", \"body\"});");
                    self.code.close("}");
                    self.code.line("w.append(coded_body);");
                    self.code.close("}");
                }
                _ => {
                    let lines = self.write_step(s, false);
                    self.lines(lines);
                }
            }
        }
        self.code.line("return true;");
        self.code.close("}");
    }

    /// The lines coding step `s` of the change `v` into `sink`.
    fn coded_code_step(&self, f: &mut Frame<'_>, s: &Step<'_>) -> Vec<String> {
        let fname = &s.field.name;
        let id = ident(fname);
        if s.role == Role::Key {
            let (m, w) = (f.slot(fname), f.width(fname));
            let max = key_max(&s.wire);
            let p = path_list(&[fname]);
            return vec![
                "{".into(),
                "    uint64_t gap = 0;".into(),
                format!(
                    "    if (!sink.ascending_to(prev, v.{id}, {max}, gap) || !sink.value({m}, {w}, gap)) {{"
                ),
                format!("        return coded_in(sink, {p});"),
                "    }".into(),
                "}".into(),
            ];
        }
        if !matches!(s.role, Role::Value) {
            return vec![format!(
                "#error \"a coded frame cannot write `{fname}` of a change\""
            )];
        }
        let mut lines = Vec::new();
        let cond = Self::presence(s, true);
        if let Some(c) = &cond {
            let one = format!("if (!sink.presence(v.{id}.has_value(), {c})) {{");
            if one.len() > 84 {
                lines.push(format!("if (!sink.presence(v.{id}.has_value(),"));
                lines.push(format!("        {c})) {{"));
            } else {
                lines.push(one);
            }
            lines.push(format!("    return sink.in(\"{fname}\");"));
            lines.push("}".into());
        }
        let place = if cond.is_some() {
            format!("(*v.{id})")
        } else {
            format!("v.{id}")
        };
        let mut inner = Vec::new();
        match &s.wire {
            Wire::Record { record, .. } => {
                if let Some(sub) = self.low.plan(&record.name, None) {
                    for x in &sub.steps {
                        let path = format!("{fname}.{}", x.field.name);
                        let predict = self.coded_predict(f, fname, &x.field.name, &x.wire);
                        inner.extend(self.coded_code_value(
                            f,
                            &path,
                            &x.wire,
                            &format!("{place}.{}", ident(&x.field.name)),
                            &predict,
                            &[&x.field.name, fname],
                        ));
                    }
                }
            }
            w => {
                let predict = self.coded_predict(f, fname, "", w);
                inner.extend(self.coded_code_value(f, fname, w, &place, &predict, &[fname]));
            }
        }
        if cond.is_some() {
            lines.push(format!("if (v.{id}) {{"));
            lines.extend(deeper(inner));
            lines.push("}".into());
        } else {
            lines.extend(inner);
        }
        lines
    }

    /// The lines coding `v` (a place of the packed record's type) as model `path` in wire form
    /// `w`, failing with `segs` (innermost first) as its path.
    fn coded_code_value(
        &self,
        f: &mut Frame<'_>,
        path: &str,
        w: &Wire<'_>,
        v: &str,
        predict: &Predict,
        segs: &[&str],
    ) -> Vec<String> {
        let p = path_list(segs);
        let (m, width) = (f.slot(path), f.width(path));
        let bail = format!("return coded_in(sink, {p});");
        let one = |cond: String| vec![format!("if (!{cond}) {bail}")];
        let two = |a: String, b: String| {
            vec![
                format!("if (!{a}"),
                format!("        || !{b}) {{"),
                format!("    {bail}"),
                "}".into(),
            ]
        };
        match predict {
            Predict::Velocity { field, min, max } => {
                let record = &f.state.record.name;
                let fid = ident(field);
                let (lo, hi) = (literal(*min), literal(*max));
                return vec![
                    "{".into(),
                    format!(
                        "    const int64_t p = coded_velocity(coded_of(base, &{record}::{fid}),"
                    ),
                    format!("            coded_of(older, &{record}::{fid}), ticks, {lo}, {hi});"),
                    "    int64_t d = 0;".into(),
                    format!("    if (!coded_residual(sink, {v}, p, {lo}, {hi}, d)"),
                    format!("            || !sink.signed_value({m}, {width}, d)) {{"),
                    format!("        {bail}"),
                    "    }".into(),
                    "}".into(),
                ];
            }
            Predict::Quat { bits, base } => {
                let on_base = match base {
                    Some(_) => slots4(
                        "on_base",
                        [
                            f.slot(&format!("{path}.same")),
                            f.slot(&format!("{path}.d0")),
                            f.slot(&format!("{path}.d1")),
                            f.slot(&format!("{path}.d2")),
                        ],
                    ),
                    None => vec!["    const std::array<size_t, 4> on_base{0, 0, 0, 0};".into()],
                };
                let whole = slots4(
                    "whole",
                    [
                        f.slot(&format!("{path}.largest")),
                        f.slot(&format!("{path}.c0")),
                        f.slot(&format!("{path}.c1")),
                        f.slot(&format!("{path}.c2")),
                    ],
                );
                let b = base.clone().unwrap_or_else(|| "std::nullopt".into());
                let mut l = vec!["{".to_string()];
                l.extend(base_lines(&b));
                l.extend(on_base);
                l.extend(whole);
                l.push(format!(
                    "    if (!coded_code_quat(sink, {v}, b, on_base, whole, {bits})) {{"
                ));
                l.push(format!("        {bail}"));
                l.push("    }".into());
                l.push("}".into());
                return l;
            }
            Predict::None => {}
        }
        match w {
            Wire::Int { signed: false, .. } => one(format!("sink.value({m}, {width}, {v})")),
            Wire::Int { signed: true, .. } => one(format!("sink.signed_value({m}, {width}, {v})")),
            Wire::Bucket(bp) if !bp.signed => two(
                format!("coded_at_most(sink, {v}, {})", ulit(bp.max_value)),
                format!("sink.value({m}, {width}, {v})"),
            ),
            Wire::Bucket(bp) => two(
                format!(
                    "coded_within(sink, {v}, {}, {})",
                    literal(bp.min_value),
                    literal(bp.max_value)
                ),
                format!("sink.signed_value({m}, {width}, {v})"),
            ),
            Wire::Float { bits: 32, .. } => {
                one(format!("sink.value({m}, 32, coded_f32_bits({v}))"))
            }
            Wire::Float { .. } => one(format!("sink.value({m}, 64, coded_f64_bits({v}))")),
            Wire::Bool { .. } => one(format!("sink.value({m}, 1, {v} ? 1u : 0u)")),
            Wire::Quant {
                num,
                den,
                signed: is_signed,
                min,
                max,
                ..
            } => {
                let s = scale(*num, *den);
                let (decl, quantize, code) = if *is_signed {
                    (
                        "int64_t q = 0;",
                        format!(
                            "sink.quantize_int({v}, {s}, {}, {}, q)",
                            literal(*min),
                            literal(*max)
                        ),
                        format!("sink.signed_value({m}, {width}, q)"),
                    )
                } else {
                    (
                        "uint64_t q = 0;",
                        format!("sink.quantize_uint({v}, {s}, {}, q)", ulit(*max)),
                        format!("sink.value({m}, {width}, q)"),
                    )
                };
                let mut l = vec!["{".to_string(), format!("    {decl}")];
                l.extend(deeper(two(quantize, code)));
                l.push("}".into());
                l
            }
            Wire::Bits(_) => two(
                format!("coded_valid(sink, {v}.check())"),
                format!("sink.value({m}, {width}, {v}.bits)"),
            ),
            // WIRE-29: refused outside its range; the value less `min`, as kind 12 packs it.
            Wire::Ranged { min, max, .. } => {
                let code = if *min == 0 {
                    format!("sink.value({m}, {width}, static_cast<uint64_t>({v}))")
                } else {
                    format!(
                        "sink.value({m}, {width}, static_cast<uint64_t>(static_cast<int64_t>({v}) - {}))",
                        literal(i128::from(*min))
                    )
                };
                two(
                    format!(
                        "sink.in_range({v}, {}, {})",
                        literal(i128::from(*min)),
                        literal(i128::from(*max))
                    ),
                    code,
                )
            }
            // The plan refuses every other form in a group; were one to come, the code must not
            // compile rather than write it as anything.
            _ => vec![format!("#error \"a coded frame cannot write `{path}`\"")],
        }
    }
}

/// Whether step `s` is a change's mask: a bit set every change carries (CODE-11).
fn is_mask(s: &Step<'_>) -> bool {
    matches!(s.wire, Wire::Bits(_)) && s.presence.is_none() && s.role == Role::Value
}

/// The largest id a key of wire form `w` holds, as a C++ literal.
fn key_max(w: &Wire<'_>) -> String {
    match w {
        Wire::Bucket(bp) => ulit(i128::from(bp.max_code)),
        Wire::Int { bits, .. } if *bits < 64 => ulit((1i128 << bits) - 1),
        _ => "std::numeric_limits<uint64_t>::max()".into(),
    }
}
