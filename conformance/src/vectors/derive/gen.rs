//! Values of a frame made to order: every field filled the same way ([`Fill`]), lists, bit
//! sets and unions shaped the same way, and a few fields told exactly what to be ([`Want`]),
//! by path, so that a field deep in the frame is present, a list has a length, a union an arm.
//!
//! Presence is never chosen: it follows from the fields a condition reads, as a decoder works
//! it out, so every value made here is one the encoder accepts unless a [`Want`] asks for the
//! impossible (the case is then dropped).

use crate::interp::value::{push_field, push_index, Value};
use ackwire_codec::rt::SmallestThree;
use ackwire_sim::SplitMix64;
use ackwire_spec::gen::snake_case;
use ackwire_spec::index::Index;
use ackwire_spec::lower::{
    ArrayPlan, Ascending, BucketPlan, CountFrom, Lowering, Operand, RecordPlan, Role, Test, Wire,
};

/// How every field not told otherwise is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// Zero, false, empty, the identity rotation.
    Zero,
    /// The low end of each range: the least integer, `-MAX` floats, empty byte strings.
    Min,
    /// The high end: the largest integer, `MAX` floats, a 16-byte string of `ff`.
    Max,
    /// Drawn from the seed.
    Random,
}

/// How lists, bit sets and unions are shaped where no [`Want`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Lists empty, bit sets empty, each union its first variant.
    Least,
    /// Lists of one element, every named bit set, each union its last variant.
    Most,
    /// Drawn from the seed (lists of 0 to 3 elements).
    Random,
}

/// What a field at a path must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Want {
    /// These bits of a bit set set (with the bits they require).
    SetBits(u64),
    /// These bits clear.
    ClearBits(u64),
    /// A bool.
    Bool(bool),
    /// An integer at least this (a bit set: some bit set).
    AtLeast(i128),
    /// An integer zero (a bit set: empty).
    Zero,
    /// A list at least this long.
    LenAtLeast(usize),
    /// A list exactly this long.
    Len(usize),
    /// A union as its variant of this index.
    Arm(usize),
    /// Exactly this value.
    Exact(Value),
}

/// How to make one value.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// How fields are filled.
    pub fill: Fill,
    /// How lists, bit sets and unions are shaped.
    pub shape: Shape,
    /// What some fields must be, by path.
    pub wants: Vec<(String, Want)>,
}

impl Scenario {
    /// `fill` and `shape`, with no field told anything.
    pub fn new(fill: Fill, shape: Shape) -> Self {
        Scenario {
            fill,
            shape,
            wants: Vec::new(),
        }
    }

    /// The same with more wants.
    pub fn with(mut self, wants: impl IntoIterator<Item = (String, Want)>) -> Self {
        self.wants.extend(wants);
        self
    }
}

/// Why a value cannot be made: the wants contradict each other or the layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Infeasible(pub String);

type Res<T> = Result<T, Infeasible>;

/// Lists made here hold at most this many elements ("near its limit": a list whose count can
/// exceed it is cut here, so that no vector file grows past a few hundred kilobytes; 256 still
/// needs the second byte of a `u16` count and a two-byte varint).
pub const LONG_LIST: usize = 256;

/// The value of a frame of plan `plan` that `scenario` describes, its random draws from `rng`.
pub fn make(
    low: &Lowering<'_>,
    plan: &RecordPlan<'_>,
    scenario: &Scenario,
    rng: SplitMix64,
) -> Result<Value, Infeasible> {
    Gen {
        low,
        sc: scenario,
        rng,
        path: String::new(),
        depth: 0,
    }
    .record(plan, None)
}

/// The least and largest value of an integer wire form (a bucket code's model values).
pub fn int_range(w: &Wire<'_>) -> Option<(i128, i128)> {
    let signed = |bits: u8| (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    let unsigned = |bits: u8| (0, (1i128 << bits) - 1);
    match w {
        Wire::Int {
            signed: true, bits, ..
        }
        | Wire::Zigzag { bits } => Some(signed(*bits)),
        Wire::Int { bits, .. } | Wire::Varint { bits } => Some(unsigned(*bits)),
        Wire::Bucket(b) => Some((b.min_value, b.max_value)),
        Wire::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        _ => None,
    }
}

/// The largest value an ascending list's element (or key) of wire form `w` may take: its type's.
pub fn ascending_max(w: &Wire<'_>) -> u64 {
    match w {
        Wire::Bucket(b) => b.max_code,
        Wire::Int { bits, .. } | Wire::Varint { bits } if *bits < 64 => (1u64 << bits) - 1,
        _ => u64::MAX,
    }
}

/// The most elements a list can hold: its count's largest value (`plan` is the record holding
/// a count field).
pub fn count_max(plan: Option<&RecordPlan<'_>>, a: &ArrayPlan<'_>) -> u64 {
    let wire = match &a.count {
        CountFrom::Prefix(t) => Some(t),
        CountFrom::Field(name) => plan.and_then(|p| p.step(name)).map(|s| &s.wire),
    };
    wire.and_then(int_range)
        .map_or(0, |(_, max)| u64::try_from(max).unwrap_or(u64::MAX))
}

/// The element (or key) wire of an ascending list, and its path below an element's path.
pub fn ascending_of<'w>(
    low: &'w Lowering<'_>,
    a: &'w ArrayPlan<'w>,
) -> Option<(&'w Wire<'w>, Option<&'w str>)> {
    match (a.ascending?, &a.elem) {
        (Ascending::Values, elem) => Some((elem, None)),
        (Ascending::Key(key), Wire::Record { record, .. }) => low
            .plan(&record.name, Some(key))
            .and_then(|p| p.step(key))
            .map(|s| (&s.wire, Some(key))),
        _ => None,
    }
}

/// LANGUAGE.md, a quaternion's rules 2 and 3: every component within `[-R, R]`, and each below
/// the dropped one's index strictly smaller in square than `D = 2 R^2 - S`, each above it at
/// most `D`.
pub fn quat_canonical(bits: u8, largest: u8, rest: [i64; 3]) -> bool {
    let r = (1i64 << (bits - 1)) - 1;
    if rest.iter().any(|c| c.abs() > r) {
        return false;
    }
    let d = 2 * r * r - rest.iter().map(|c| c * c).sum::<i64>();
    rest.iter().enumerate().all(|(i, c)| {
        let index = if i < usize::from(largest) { i } else { i + 1 };
        if index < usize::from(largest) {
            c * c < d
        } else {
            c * c <= d
        }
    })
}

struct Gen<'a, 'l> {
    low: &'a Lowering<'l>,
    sc: &'a Scenario,
    rng: SplitMix64,
    path: String,
    depth: usize,
}

/// Records nested deeper than this mean a spec that contains itself.
const MAX_DEPTH: usize = 32;

impl Gen<'_, '_> {
    fn wants(&self) -> impl Iterator<Item = &Want> {
        let here = self.path.clone();
        self.sc
            .wants
            .iter()
            .filter(move |(p, _)| *p == here)
            .map(|(_, w)| w)
    }

    fn infeasible(&self, why: impl std::fmt::Display) -> Infeasible {
        Infeasible(format!("{}: {why}", self.path))
    }

    fn below(&mut self, max: u64) -> u64 {
        self.rng.below_or_at(max)
    }

    fn record(&mut self, plan: &RecordPlan<'_>, key: Option<u64>) -> Res<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.infeasible("records nested too deep"));
        }
        // A counted list's length comes first: its count is read before it, and conditions
        // may read the count.
        let mut lens = vec![None; plan.steps.len()];
        for (i, step) in plan.steps.iter().enumerate() {
            if let Wire::Array(a) = &step.wire {
                if matches!(a.count, CountFrom::Field(_)) {
                    let mark = push_field(&mut self.path, &step.field.name);
                    let len = self.list_len(Some(plan), a);
                    self.path.truncate(mark);
                    lens[i] = Some(len?);
                }
            }
        }
        let mut slots: Vec<Option<Value>> = Vec::with_capacity(plan.steps.len());
        for (i, step) in plan.steps.iter().enumerate() {
            let mark = push_field(&mut self.path, &step.field.name);
            let slot = match step.role {
                Role::Constant(c) => Some(Value::Int(c)),
                Role::Count { array } => {
                    let n = plan
                        .steps
                        .iter()
                        .position(|s| s.field.name == array)
                        .and_then(|j| lens[j])
                        .unwrap_or(0);
                    Some(Value::Int(n as i128))
                }
                Role::Key | Role::Value => {
                    let present = match &step.presence {
                        Some(p) => holds(plan, &p.tests, &slots),
                        None => true,
                    };
                    match (present, step.role, key) {
                        (false, _, _) => None,
                        (true, Role::Key, Some(k)) => Some(Value::Int(i128::from(k))),
                        (true, _, _) => Some(self.value(Some(plan), &step.wire, lens[i])?),
                    }
                }
            };
            self.path.truncate(mark);
            slots.push(slot);
        }
        self.depth -= 1;
        Ok(Value::Record(slots))
    }

    /// A value of wire form `w` at this path; `plan` is the record holding it (for a list's
    /// count field), `len` a counted list's length already chosen.
    fn value(
        &mut self,
        plan: Option<&RecordPlan<'_>>,
        w: &Wire<'_>,
        len: Option<usize>,
    ) -> Res<Value> {
        if let Some(Want::Exact(v)) = self.wants().find(|w| matches!(w, Want::Exact(_))) {
            return Ok(v.clone());
        }
        let fill = self.sc.fill;
        Ok(match w {
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Varint { .. }
            | Wire::Zigzag { .. }
            | Wire::Bucket(_) => {
                let (min, max) = int_range(w).unwrap_or((0, 0));
                let v = match (w, fill) {
                    (Wire::Bucket(b), Fill::Random) => self.random_bucket(b),
                    _ => self.int(min, max),
                };
                Value::Int(self.int_wants(v, min, max)?)
            }
            Wire::Float { bits, .. } => {
                let v = match (fill, *bits) {
                    (Fill::Zero, _) => 0.0,
                    (Fill::Min, 32) => f64::from(f32::MIN),
                    (Fill::Max, 32) => f64::from(f32::MAX),
                    (Fill::Min, _) => f64::MIN,
                    (Fill::Max, _) => f64::MAX,
                    (Fill::Random, 32) => f64::from(self.random_f32()),
                    (Fill::Random, _) => self.random_f64(),
                };
                Value::Float(v)
            }
            Wire::Bool { .. } => {
                let mut b = match fill {
                    Fill::Zero | Fill::Min => false,
                    Fill::Max => true,
                    Fill::Random => self.below(1) == 1,
                };
                for want in self.wants() {
                    match want {
                        Want::Bool(x) => b = *x,
                        Want::AtLeast(n) if *n > 0 => b = true,
                        Want::Zero => b = false,
                        _ => {}
                    }
                }
                Value::Bool(b)
            }
            Wire::Bytes => Value::Bytes(self.bytes()),
            Wire::OptBytes => Value::OptBytes(match fill {
                Fill::Zero => None,
                Fill::Random if self.below(3) == 0 => None,
                _ => Some(self.bytes()),
            }),
            Wire::Quant {
                wire,
                num,
                den,
                min,
                max,
                ..
            } => {
                let v = match (wire.as_ref(), fill) {
                    (Wire::Bucket(b), Fill::Random) => self.random_bucket(b),
                    _ => self.int(*min, *max),
                };
                let v = self.int_wants(v, *min, *max)?;
                Value::Float(
                    quant_value(v, *num, *den)
                        .ok_or_else(|| self.infeasible("no quantized value round-trips"))?,
                )
            }
            Wire::Quat { bits } => {
                let r = (1i64 << (bits - 1)) - 1;
                let (largest, rest) = match fill {
                    Fill::Zero => (3, [0, 0, 0]),
                    Fill::Min => (0, [-r, 0, 0]),
                    Fill::Max => (0, [r, 0, 0]),
                    Fill::Random => self.random_quat(*bits),
                };
                Value::Quat(SmallestThree {
                    largest,
                    // Within [-R, R], R <= 32767.
                    rest: rest.map(|c| c as i16),
                })
            }
            Wire::Bits(b) => {
                let bits = self.low.bits_plan(b);
                let mut raw = match self.sc.shape {
                    Shape::Least => 0,
                    Shape::Most => bits.known,
                    Shape::Random => self.next() & bits.known,
                };
                let required = |raw: u64| {
                    bits.named
                        .iter()
                        .filter(|n| n.index < 64 && raw >> n.index & 1 == 1)
                        .filter_map(|n| n.requires)
                        .fold(0u64, |m, (_, i)| if i < 64 { m | 1 << i } else { m })
                };
                // Every bit with the bits it requires (at most one step per named bit).
                let close = |mut raw: u64| {
                    for _ in 0..=bits.named.len() {
                        raw |= required(raw);
                    }
                    raw
                };
                raw = close(raw);
                for want in self.wants() {
                    match want {
                        Want::SetBits(m) => raw = close(raw | m),
                        Want::ClearBits(m) => raw &= !m,
                        Want::Zero => raw = 0,
                        Want::AtLeast(n) if *n > 0 && raw == 0 => {
                            raw = close(bits.known & bits.known.wrapping_neg())
                        }
                        _ => {}
                    }
                }
                // A bit that requires a bit told to be clear cannot stay.
                let mut dropped = 0;
                while required(raw) & !raw != 0 && dropped <= bits.named.len() {
                    let missing = required(raw) & !raw;
                    for n in &bits.named {
                        if let Some((_, i)) = n.requires {
                            if i < 64 && missing >> i & 1 == 1 && n.index < 64 {
                                raw &= !(1 << n.index);
                            }
                        }
                    }
                    dropped += 1;
                }
                for want in self.wants() {
                    if let Want::SetBits(m) = want {
                        if raw & m != *m {
                            return Err(
                                self.infeasible("a bit wanted set requires one wanted clear")
                            );
                        }
                    }
                }
                Value::Bits(raw)
            }
            Wire::Record { record, .. } => {
                let inner = self
                    .low
                    .plan(&record.name, None)
                    .ok_or_else(|| self.infeasible("a record that was not lowered"))?;
                self.record(inner, None)?
            }
            Wire::Union(u) => {
                let union = self.low.union_plan(u);
                let n = union.variants.len();
                if n == 0 {
                    return Err(self.infeasible("a union without variants"));
                }
                let mut variant = match self.sc.shape {
                    Shape::Least => 0,
                    Shape::Most => n - 1,
                    Shape::Random => self.below(n as u64 - 1) as usize,
                };
                if let Some(Want::Arm(i)) = self.wants().find(|w| matches!(w, Want::Arm(_))) {
                    variant = *i;
                }
                let Some(&(_, record)) = union.variants.get(variant) else {
                    return Err(self.infeasible("no such variant"));
                };
                let mark = push_field(&mut self.path, &snake_case(&record.name));
                let inner = self
                    .low
                    .plan(&record.name, None)
                    .ok_or_else(|| self.infeasible("a record that was not lowered"))?;
                let value = self.record(inner, None);
                self.path.truncate(mark);
                Value::Union {
                    variant,
                    value: Box::new(value?),
                }
            }
            Wire::Array(a) => {
                let n = match len {
                    Some(n) => n,
                    None => self.list_len(plan, a)?,
                };
                self.list(a, n)?
            }
            Wire::Unknown(name) => return Err(self.infeasible(format!("`{name}` is not a type"))),
        })
    }

    /// An integer in `[min, max]` by the fill.
    fn int(&mut self, min: i128, max: i128) -> i128 {
        match self.sc.fill {
            Fill::Zero => 0.clamp(min, max),
            Fill::Min => min,
            Fill::Max => max,
            Fill::Random => {
                // A magnitude of a random number of bits, so that short and long encodings
                // both come up.
                let bits = self.below(64) as u32;
                let magnitude = if bits == 0 {
                    0
                } else {
                    i128::from(self.next() >> (64 - bits))
                };
                let v = if min < 0 && self.below(1) == 1 {
                    -magnitude
                } else {
                    magnitude
                };
                v.clamp(min, max)
            }
        }
    }

    /// `v` as the wants at this path leave it.
    fn int_wants(&self, mut v: i128, min: i128, max: i128) -> Res<i128> {
        for want in self.wants() {
            match want {
                Want::AtLeast(n) => v = v.max(*n),
                Want::Zero => v = 0,
                _ => {}
            }
        }
        if v < min || v > max {
            return Err(self.infeasible(format!("{v} is outside {min}..={max}")));
        }
        Ok(v)
    }

    fn random_bucket(&mut self, b: &BucketPlan<'_>) -> i128 {
        let i = self.below(b.widths.len() as u64 - 1) as usize;
        let w = b.widths[i];
        let offset = if w == 0 { 0 } else { self.next() >> (64 - w) };
        let code = b.bases[i].saturating_add(offset).min(b.max_code);
        if b.signed {
            i128::from(((code >> 1) as i64) ^ -((code & 1) as i64))
        } else {
            i128::from(code)
        }
    }

    fn random_f32(&mut self) -> f32 {
        loop {
            let f = f32::from_bits(self.next() as u32);
            if f.is_finite() {
                return f;
            }
        }
    }

    fn random_f64(&mut self) -> f64 {
        loop {
            let f = f64::from_bits(self.next());
            if f.is_finite() {
                return f;
            }
        }
    }

    /// A canonical quaternion: a random dropped component and three random ones, the largest
    /// in magnitude moved toward zero until the rules hold (as `from_xyzw` repairs a rounding).
    fn random_quat(&mut self, bits: u8) -> (u8, [i64; 3]) {
        let r = (1i64 << (bits - 1)) - 1;
        let largest = self.below(3) as u8;
        let mut rest = [0i64; 3];
        for c in &mut rest {
            *c = self.below(2 * r as u64) as i64 - r;
        }
        while !quat_canonical(bits, largest, rest) {
            let i = (0..3).max_by_key(|&i| rest[i].abs()).unwrap_or(0);
            rest[i] -= rest[i].signum();
        }
        (largest, rest)
    }

    fn bytes(&mut self) -> Vec<u8> {
        match self.sc.fill {
            Fill::Zero | Fill::Min => Vec::new(),
            Fill::Max => vec![0xff; 16],
            Fill::Random => {
                let n = self.below(8);
                (0..n).map(|_| self.next() as u8).collect()
            }
        }
    }

    fn next(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// How long the list at this path is: as wanted, else by the shape, never past what its
    /// count can say, [`LONG_LIST`], or (ascending) the values its elements can take.
    fn list_len(&mut self, plan: Option<&RecordPlan<'_>>, a: &ArrayPlan<'_>) -> Res<usize> {
        let mut cap = count_max(plan, a).min(LONG_LIST as u64) as usize;
        if let Some((elem, _)) = ascending_of(self.low, a) {
            cap = cap.min(
                usize::try_from(ascending_max(elem))
                    .unwrap_or(usize::MAX)
                    .saturating_add(1),
            );
        }
        let mut n = match self.sc.shape {
            Shape::Least => 0,
            Shape::Most => 1,
            Shape::Random => self.below(3) as usize,
        };
        let mut exact = None;
        for want in self.wants() {
            match want {
                Want::Len(k) => exact = Some(*k),
                Want::LenAtLeast(k) => n = n.max(*k),
                Want::Zero => exact = Some(0),
                Want::AtLeast(k) => n = n.max(usize::try_from(*k).unwrap_or(usize::MAX)),
                _ => {}
            }
        }
        let n = exact.unwrap_or(n.min(cap));
        if n > cap {
            return Err(self.infeasible(format!("a list of {n} where at most {cap} fit")));
        }
        Ok(n)
    }

    fn list(&mut self, a: &ArrayPlan<'_>, n: usize) -> Res<Value> {
        let ascending = ascending_of(self.low, a);
        let keys = ascending.map(|(elem, key)| self.keys(n, ascending_max(elem), key));
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            let mark = push_index(&mut self.path, i);
            let item = match (&keys, a.ascending, &a.elem) {
                (Some(keys), Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                    let inner = self
                        .low
                        .plan(&record.name, Some(key))
                        .ok_or_else(|| self.infeasible("a record that was not lowered"))?;
                    self.record(inner, Some(keys[i]))
                }
                (Some(keys), _, _) => Ok(Value::Int(i128::from(keys[i]))),
                (None, _, elem) => self.value_at(elem),
            };
            self.path.truncate(mark);
            items.push(item?);
        }
        Ok(Value::List(items))
    }

    /// An element that is not ascending; a list of lists is prefixed, so no record holds its
    /// count.
    fn value_at(&mut self, elem: &Wire<'_>) -> Res<Value> {
        self.value(None, elem, None)
    }

    /// `n` ascending values at most `max`: the first as wanted (at the list's first element, or
    /// its key) or by the fill, each next one more by 1 (by a random step when random). A list
    /// that cannot ascend that far ends in values past `max`, which a fault then overwrites.
    fn keys(&mut self, n: usize, max: u64, key: Option<&str>) -> Vec<u64> {
        let mut first_path = self.path.clone();
        push_index(&mut first_path, 0);
        if let Some(k) = key {
            push_field(&mut first_path, k);
        }
        let wanted = self.sc.wants.iter().find_map(|(p, w)| match w {
            Want::Exact(Value::Int(v)) if *p == first_path => u64::try_from(*v).ok(),
            _ => None,
        });
        let room = max.saturating_sub(n.saturating_sub(1) as u64);
        let first = wanted.unwrap_or(match self.sc.fill {
            Fill::Zero | Fill::Min => 0,
            Fill::Max => room,
            Fill::Random => self.below(room.min(1 << 20)),
        });
        let mut out = Vec::with_capacity(n);
        let mut v = first;
        for i in 0..n {
            out.push(v);
            let left = (n - i - 1) as u64;
            let step = match self.sc.fill {
                Fill::Random => {
                    let spare = max.saturating_sub(v).saturating_sub(left).min(1 << 16);
                    1 + self.below(spare)
                }
                _ => 1,
            };
            v = v.saturating_add(step);
        }
        out
    }
}

/// Whether every test holds over the slots made so far, as a decoder works it out.
fn holds(plan: &RecordPlan<'_>, tests: &[Test<'_>], slots: &[Option<Value>]) -> bool {
    tests.iter().all(|test| {
        let n = match test.operand() {
            Operand::Constant { value, .. } => *value,
            other => plan
                .steps
                .iter()
                .position(|s| s.field.name == other.name())
                .and_then(|i| slots.get(i))
                .and_then(Option::as_ref)
                .map_or(0, Value::number),
        };
        match test {
            Test::Bit {
                bits, bit, negated, ..
            } => {
                let set = bits
                    .and_then(|b| Index::bit_index(b, bit))
                    .is_some_and(|i| i < 64 && (n >> i) & 1 == 1);
                set != *negated
            }
            Test::Bool { negated, .. } | Test::NonZero { negated, .. } => (n != 0) != *negated,
            Test::Greater { value, .. } => n > i128::from(*value),
        }
    })
}

/// The quantized value of wire integer `wire` (`wire × NUM/DEN`, as a decoder computes it), or
/// of the nearest wire integer toward zero whose value quantizes back to it exactly.
pub fn quant_value(wire: i128, num: u64, den: u64) -> Option<f64> {
    let scale = num as f64 / den as f64;
    let mut w = wire;
    for _ in 0..130 {
        let v = w as f64 * scale;
        let back = (v / scale).round();
        if v.is_finite() && back == w as f64 && back.abs() < 9.2e18 {
            return Some(v);
        }
        w /= 2;
    }
    None
}
