//! The value of a frame of any spec, and its JSON form.
//!
//! [`Value`] is what the run-time decoder ([`crate::explain`]'s walk) reads and the run-time
//! encoder ([`mod@super::encode`]) writes: one variant per kind of model value, a record as one slot
//! per field of its plan. Its JSON form is exactly what the generated Rust codec prints through
//! serde (conformance/PROTOCOL.md, "The JSON form of a frame"; WIRE-28), down to the
//! corners serde's derives leave: a 64-bit integer beyond 2^53 - 1 is a decimal string only
//! where the generated field carries one of the runtime's `big_*` helpers (a field, or the
//! elements of a list field of unsigned integers), bytes are hex only as a field (a list of byte
//! strings is a list of byte arrays), and `bytes?` under a condition is an optional byte array.
//! [`gen::rust`](ackwire_spec::gen::rust) decides those helpers; the run-time codec's agreement
//! tests hold the two together.
//!
//! Reading a JSON form checks what serde checks when it fills the generated types: every field
//! of the record and no other, each value of its model type (an `n: u8` of 300 is refused here,
//! a `p: u5` of 40 is the encoder's `over_width`). A refusal names the field path.

use crate::vectors::OrderedJson;
use ackwire_codec::rt::json::{from_hex, to_hex};
use ackwire_codec::rt::SmallestThree;
use ackwire_spec::gen::snake_case;
use ackwire_spec::lower::{ArrayPlan, Lowering, RecordPlan, Role, Wire};
use ackwire_spec::model::Record;
use serde_json::Value as Json;

/// A value of a spec's model, as read from bytes or JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer of any wire form: fixed width, varint, zigzag, bucket code; also a constant or
    /// a count as the decoder read it.
    Int(i128),
    /// A bool.
    Bool(bool),
    /// An `f32` (held exactly), an `f64`, or a quantized value (`wire × NUM/DEN`).
    Float(f64),
    /// A bit set's raw bits.
    Bits(u64),
    /// A byte string.
    Bytes(Vec<u8>),
    /// An optional byte string (`bytes?`).
    OptBytes(Option<Vec<u8>>),
    /// A quaternion as smallest three.
    Quat(SmallestThree),
    /// A record: one slot per step of its plan, `None` where the field is absent (or, in a
    /// value read from JSON, a constant or a count, which the encoder derives).
    Record(Vec<Option<Value>>),
    /// A union: the index of the variant in the union's plan, and its record.
    Union {
        /// Index into [`ackwire_spec::lower::UnionPlan::variants`].
        variant: usize,
        /// The variant's record.
        value: Box<Value>,
    },
    /// A list.
    List(Vec<Value>),
}

impl Value {
    /// The integer a presence test reads from this value: an integer, a bool (0 or 1), a bit
    /// set's bits; 0 for anything else.
    pub fn number(&self) -> i128 {
        match self {
            Value::Int(n) => *n,
            Value::Bool(b) => i128::from(*b),
            Value::Bits(b) => i128::from(*b),
            _ => 0,
        }
    }
}

/// Integers beyond this travel as decimal strings where the generated type says so.
const SAFE: u128 = (1 << 53) - 1;

/// Where a value sits in the generated type, which decides its serde form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A field of a record (optional or not).
    Field,
    /// An element of a list that is a field.
    Element,
    /// Anything deeper: an element of a list of lists.
    Nested,
}

/// The width of the integer the generated type holds a value of wire form `w` in, and whether
/// it is signed: `u8`..`u64`, `i8`..`i64`.
pub(crate) fn model_int(w: &Wire<'_>) -> Option<(bool, u8)> {
    let storage = |bits: u8| match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    };
    match w {
        Wire::Ranged { int, .. } => model_int(int),
        Wire::Int { signed, bits, .. } => Some((*signed, storage(*bits))),
        Wire::Varint { bits } => Some((false, storage(*bits))),
        Wire::Zigzag { bits } => Some((true, storage(*bits))),
        Wire::Bucket(b) => Some((b.signed, b.model_bits)),
        _ => None,
    }
}

/// Whether a value of wire form `w` at `ctx` is written as a decimal string past 2^53 - 1: what
/// `gen::rust`'s `serde_with` gives the field a `big_*` helper for.
fn big(w: &Wire<'_>, ctx: Ctx) -> bool {
    let wide = |bits: u8| bits > 53;
    if let Wire::Ranged { int, .. } = w {
        return big(int, ctx);
    }
    match (ctx, w) {
        (Ctx::Field, Wire::Int { bits, .. } | Wire::Varint { bits } | Wire::Zigzag { bits }) => {
            wide(*bits)
        }
        (Ctx::Field, Wire::Bucket(b)) => wide(b.model_bits),
        (
            Ctx::Element,
            Wire::Int {
                signed: false,
                bits,
                ..
            }
            | Wire::Varint { bits },
        ) => wide(*bits),
        (Ctx::Element, Wire::Bucket(b)) => !b.signed && wide(b.model_bits),
        _ => false,
    }
}

/// Why a value or its JSON form does not fit the layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The field path (`changes[0].mask`); empty for the frame itself.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// The JSON form of a frame's value, fields in declaration order.
pub fn to_json(
    low: &Lowering<'_>,
    plan: &RecordPlan<'_>,
    value: &Value,
) -> Result<OrderedJson, JsonError> {
    Printer {
        low,
        path: String::new(),
        depth: 0,
    }
    .record(plan, value)
}

/// A frame's value from its JSON form, as serde fills the generated type.
pub fn from_json(
    low: &Lowering<'_>,
    plan: &RecordPlan<'_>,
    json: &Json,
) -> Result<Value, JsonError> {
    Reader {
        low,
        path: String::new(),
        depth: 0,
    }
    .record(plan, json)
}

/// Records nested deeper than this mean a spec that contains itself.
const MAX_DEPTH: usize = 64;

/// Appends a field name to a path, returning the length to truncate back to.
pub(crate) fn push_field(path: &mut String, name: &str) -> usize {
    let mark = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
    mark
}

/// Appends an index to a path, returning the length to truncate back to.
pub(crate) fn push_index(path: &mut String, index: usize) -> usize {
    let mark = path.len();
    path.push('[');
    path.push_str(&index.to_string());
    path.push(']');
    mark
}

struct Printer<'a, 'l> {
    low: &'a Lowering<'l>,
    path: String,
    depth: usize,
}

impl<'a, 'l> Printer<'a, 'l> {
    fn fault(&self, message: impl Into<String>) -> JsonError {
        JsonError {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn record(&mut self, plan: &RecordPlan<'_>, value: &Value) -> Result<OrderedJson, JsonError> {
        self.depth += 1;
        let out = self.record_fields(plan, value);
        self.depth -= 1;
        out
    }

    fn record_fields(
        &mut self,
        plan: &RecordPlan<'_>,
        value: &Value,
    ) -> Result<OrderedJson, JsonError> {
        if self.depth > MAX_DEPTH {
            return Err(self.fault("records nested too deep"));
        }
        let Value::Record(slots) = value else {
            return Err(self.fault(format!("expected a record `{}`", plan.record.name)));
        };
        let mut fields = Vec::new();
        for (step, slot) in plan.steps.iter().zip(slots) {
            if !matches!(step.role, Role::Value | Role::Key) {
                continue;
            }
            let name = step.field.name.as_str();
            let mark = push_field(&mut self.path, name);
            let optional = step.presence.is_some();
            let json = match (slot, &step.wire) {
                (None, _) if optional => None,
                // `bytes?`: "a hex string or absent/`null`", printed as null.
                (None, Wire::OptBytes) => Some(OrderedJson::Null),
                (None, _) => return Err(self.fault("a field without a value")),
                // Under a condition, `bytes?` is an `Option<Option<Vec<u8>>>` with no helper.
                (Some(Value::OptBytes(v)), Wire::OptBytes) if optional => Some(match v {
                    None => OrderedJson::Null,
                    Some(b) => byte_array(b),
                }),
                (Some(v), w) => Some(self.value(w, v, Ctx::Field)?),
            };
            self.path.truncate(mark);
            if let Some(json) = json {
                fields.push((name.to_string(), json));
            }
        }
        Ok(OrderedJson::Object(fields))
    }

    fn value(&mut self, w: &Wire<'_>, v: &Value, ctx: Ctx) -> Result<OrderedJson, JsonError> {
        Ok(match (w, v) {
            (
                Wire::Int { .. }
                | Wire::Ranged { .. }
                | Wire::Varint { .. }
                | Wire::Zigzag { .. }
                | Wire::Bucket(_),
                Value::Int(n),
            ) => int_json(*n, big(w, ctx)),
            (Wire::Float { bits: 32, .. }, Value::Float(f)) => f32_json(*f as f32),
            (Wire::Float { .. } | Wire::Quant { .. }, Value::Float(f)) => {
                serde_json::Number::from_f64(*f).map_or(OrderedJson::Null, OrderedJson::Number)
            }
            (Wire::Bool { .. }, Value::Bool(b)) => OrderedJson::Bool(*b),
            (Wire::Bits(b), Value::Bits(raw)) => {
                let plan = self.low.bits_plan(b);
                OrderedJson::Array(
                    plan.named
                        .iter()
                        .filter(|n| n.index < 64 && raw >> n.index & 1 == 1)
                        .map(|n| OrderedJson::String(n.name.to_string()))
                        .collect(),
                )
            }
            (Wire::Bytes, Value::Bytes(b)) if ctx == Ctx::Field => OrderedJson::String(to_hex(b)),
            (Wire::Bytes, Value::Bytes(b)) => byte_array(b),
            (Wire::OptBytes, Value::OptBytes(b)) => match b {
                None => OrderedJson::Null,
                Some(b) if ctx == Ctx::Field => OrderedJson::String(to_hex(b)),
                Some(b) => byte_array(b),
            },
            (Wire::Quat { .. }, Value::Quat(q)) => OrderedJson::Object(vec![
                (
                    "largest".into(),
                    OrderedJson::Number(u64::from(q.largest).into()),
                ),
                (
                    "rest".into(),
                    OrderedJson::Array(
                        q.rest
                            .iter()
                            .map(|c| OrderedJson::Number(i64::from(*c).into()))
                            .collect(),
                    ),
                ),
            ]),
            (Wire::Record { record, .. }, v) => {
                let plan = self.plan(record)?;
                self.record(plan, v)?
            }
            (Wire::Union(u), Value::Union { variant, value }) => {
                let plan = self.low.union_plan(u);
                let Some(&(_, record)) = plan.variants.get(*variant) else {
                    return Err(self.fault(format!("no variant {variant} in `{}`", u.name)));
                };
                let name = snake_case(&record.name);
                let mark = push_field(&mut self.path, &name);
                let inner = self.plan(record)?;
                let json = self.record(inner, value)?;
                self.path.truncate(mark);
                OrderedJson::Object(vec![(name, json)])
            }
            (Wire::Array(a), Value::List(items)) => {
                let inner = if ctx == Ctx::Field {
                    Ctx::Element
                } else {
                    Ctx::Nested
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let mark = push_index(&mut self.path, i);
                    out.push(self.value(&a.elem, item, inner)?);
                    self.path.truncate(mark);
                }
                OrderedJson::Array(out)
            }
            _ => return Err(self.fault("a value of another type than the layout's")),
        })
    }

    fn plan(&self, record: &Record) -> Result<&'a RecordPlan<'l>, JsonError> {
        self.low
            .plan(&record.name, None)
            .ok_or_else(|| self.fault("a record that was not lowered"))
    }
}

fn int_json(n: i128, big: bool) -> OrderedJson {
    if big && n.unsigned_abs() > SAFE {
        return OrderedJson::String(n.to_string());
    }
    match (u64::try_from(n), i64::try_from(n)) {
        (Ok(u), _) => OrderedJson::Number(u.into()),
        (_, Ok(i)) => OrderedJson::Number(i.into()),
        // Never met: every model integer is within u64 or i64.
        _ => OrderedJson::String(n.to_string()),
    }
}

/// An `f32` as serde_json prints it (its shortest decimal form), read back as JSON reads it.
fn f32_json(f: f32) -> OrderedJson {
    serde_json::to_string(&f)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Number>(&text).ok())
        .map_or(OrderedJson::Null, OrderedJson::Number)
}

fn byte_array(b: &[u8]) -> OrderedJson {
    OrderedJson::Array(
        b.iter()
            .map(|x| OrderedJson::Number(u64::from(*x).into()))
            .collect(),
    )
}

struct Reader<'a, 'l> {
    low: &'a Lowering<'l>,
    path: String,
    depth: usize,
}

impl Reader<'_, '_> {
    fn fault(&self, message: impl Into<String>) -> JsonError {
        JsonError {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn record(&mut self, plan: &RecordPlan<'_>, json: &Json) -> Result<Value, JsonError> {
        self.depth += 1;
        let out = self.record_fields(plan, json);
        self.depth -= 1;
        out
    }

    fn record_fields(&mut self, plan: &RecordPlan<'_>, json: &Json) -> Result<Value, JsonError> {
        if self.depth > MAX_DEPTH {
            return Err(self.fault("records nested too deep"));
        }
        let Json::Object(map) = json else {
            return Err(self.fault(format!(
                "expected an object (record `{}`), found {}",
                plan.record.name,
                kind_of(json)
            )));
        };
        let fields: Vec<&str> = plan.values().map(|s| s.field.name.as_str()).collect();
        if let Some(unknown) = map.keys().find(|k| !fields.contains(&k.as_str())) {
            return Err(self.fault(format!(
                "unknown field `{unknown}`, expected {}",
                if fields.is_empty() {
                    "none".to_string()
                } else {
                    format!("one of {}", fields.join(", "))
                }
            )));
        }
        let mut slots = Vec::with_capacity(plan.steps.len());
        for step in &plan.steps {
            if !matches!(step.role, Role::Value | Role::Key) {
                slots.push(None);
                continue;
            }
            let name = step.field.name.as_str();
            let optional = step.presence.is_some();
            let mark = push_field(&mut self.path, name);
            let slot = match (map.get(name), &step.wire) {
                // serde's `default` on an optional field: absent or null is `None`.
                (None | Some(Json::Null), _) if optional => None,
                // `bytes?` is "a hex string or absent/`null`".
                (None | Some(Json::Null), Wire::OptBytes) => Some(Value::OptBytes(None)),
                (None, _) => {
                    self.path.truncate(mark);
                    return Err(self.fault(format!("missing field `{name}`")));
                }
                (Some(v), Wire::OptBytes) if optional => {
                    Some(Value::OptBytes(Some(self.byte_array(v)?)))
                }
                (Some(v), w) => Some(self.value(w, v, Ctx::Field)?),
            };
            self.path.truncate(mark);
            slots.push(slot);
        }
        Ok(Value::Record(slots))
    }

    fn value(&mut self, w: &Wire<'_>, json: &Json, ctx: Ctx) -> Result<Value, JsonError> {
        match w {
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Varint { .. }
            | Wire::Zigzag { .. }
            | Wire::Bucket(_) => {
                let (signed, bits) = model_int(w).unwrap_or((false, 64));
                self.int(json, signed, bits, big(w, ctx)).map(Value::Int)
            }
            Wire::Float { bits, .. } => {
                let f = self.float(json)?;
                // serde reads an `f32` as the double narrowed.
                Ok(Value::Float(if *bits == 32 {
                    f64::from(f as f32)
                } else {
                    f
                }))
            }
            Wire::Quant { .. } => self.float(json).map(Value::Float),
            Wire::Bool { .. } => match json {
                Json::Bool(b) => Ok(Value::Bool(*b)),
                other => Err(self.fault(format!("expected a bool, found {}", kind_of(other)))),
            },
            Wire::Bits(b) => {
                let plan = self.low.bits_plan(b);
                let Json::Array(names) = json else {
                    return Err(self.fault(format!(
                        "expected a list of bit names, found {}",
                        kind_of(json)
                    )));
                };
                let mut raw = 0u64;
                for name in names {
                    let Json::String(name) = name else {
                        return Err(
                            self.fault(format!("expected a bit name, found {}", kind_of(name)))
                        );
                    };
                    let Some(bit) = plan.named.iter().find(|n| n.name == name) else {
                        let known: Vec<&str> = plan.named.iter().map(|n| n.name).collect();
                        return Err(self.fault(format!(
                            "unknown bit `{name}`, expected one of {}",
                            known.join(", ")
                        )));
                    };
                    if bit.index < 64 {
                        raw |= 1 << bit.index;
                    }
                }
                Ok(Value::Bits(raw))
            }
            Wire::Bytes if ctx == Ctx::Field => self.hex(json).map(Value::Bytes),
            Wire::Bytes => self.byte_array(json).map(Value::Bytes),
            Wire::OptBytes => match json {
                Json::Null => Ok(Value::OptBytes(None)),
                v if ctx == Ctx::Field => self.hex(v).map(|b| Value::OptBytes(Some(b))),
                v => self.byte_array(v).map(|b| Value::OptBytes(Some(b))),
            },
            Wire::Quat { .. } => self.quat(json).map(Value::Quat),
            Wire::Record { record, .. } => {
                let plan = self
                    .low
                    .plan(&record.name, None)
                    .ok_or_else(|| self.fault("a record that was not lowered"))?;
                self.record(plan, json)
            }
            Wire::Union(u) => {
                let plan = self.low.union_plan(u);
                let names: Vec<String> = plan
                    .variants
                    .iter()
                    .map(|(_, r)| snake_case(&r.name))
                    .collect();
                let Json::Object(map) = json else {
                    return Err(self.fault(format!(
                        "expected an object with one of {}, found {}",
                        names.join(", "),
                        kind_of(json)
                    )));
                };
                let mut entries = map.iter();
                let (Some((name, inner)), None) = (entries.next(), entries.next()) else {
                    return Err(self.fault(format!(
                        "expected an object with exactly one of {}",
                        names.join(", ")
                    )));
                };
                let Some(variant) = names.iter().position(|n| n == name) else {
                    return Err(self.fault(format!(
                        "unknown variant `{name}`, expected one of {}",
                        names.join(", ")
                    )));
                };
                let record = plan.variants[variant].1;
                let mark = push_field(&mut self.path, name);
                let inner_plan = self
                    .low
                    .plan(&record.name, None)
                    .ok_or_else(|| self.fault("a record that was not lowered"))?;
                let value = self.record(inner_plan, inner)?;
                self.path.truncate(mark);
                Ok(Value::Union {
                    variant,
                    value: Box::new(value),
                })
            }
            Wire::Array(a) => self.list(a, json, ctx),
            Wire::Unknown(name) => Err(self.fault(format!("`{name}` is not a type"))),
        }
    }

    fn list(&mut self, a: &ArrayPlan<'_>, json: &Json, ctx: Ctx) -> Result<Value, JsonError> {
        let Json::Array(items) = json else {
            return Err(self.fault(format!("expected a list, found {}", kind_of(json))));
        };
        let inner = if ctx == Ctx::Field {
            Ctx::Element
        } else {
            Ctx::Nested
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let mark = push_index(&mut self.path, i);
            out.push(self.value(&a.elem, item, inner)?);
            self.path.truncate(mark);
        }
        Ok(Value::List(out))
    }

    /// An integer of the model type (`signed`, `bits` of 8, 16, 32 or 64): a number, or when
    /// `big` also a decimal string.
    fn int(&self, json: &Json, signed: bool, bits: u8, big: bool) -> Result<i128, JsonError> {
        let n = match json {
            Json::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => i128::from(u),
                (_, Some(i)) => i128::from(i),
                _ => {
                    return Err(self.fault(format!(
                        "expected an integer, found the floating point number {n}"
                    )))
                }
            },
            Json::String(s) if big => s
                .parse::<i128>()
                .map_err(|_| self.fault(format!("`{s}` is not an integer")))?,
            other => {
                return Err(self.fault(format!(
                    "expected an integer{}, found {}",
                    if big { " or a decimal string" } else { "" },
                    kind_of(other)
                )))
            }
        };
        let (min, max) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if n < min || n > max {
            return Err(self.fault(format!(
                "{n} does not fit the field's type, {}{bits}",
                if signed { "i" } else { "u" }
            )));
        }
        Ok(n)
    }

    fn float(&self, json: &Json) -> Result<f64, JsonError> {
        match json {
            Json::Number(n) => n
                .as_f64()
                .ok_or_else(|| self.fault(format!("{n} is not a number"))),
            other => Err(self.fault(format!("expected a number, found {}", kind_of(other)))),
        }
    }

    fn hex(&self, json: &Json) -> Result<Vec<u8>, JsonError> {
        match json {
            Json::String(s) => from_hex(s).map_err(|e| self.fault(e)),
            other => Err(self.fault(format!("expected a hex string, found {}", kind_of(other)))),
        }
    }

    fn byte_array(&self, json: &Json) -> Result<Vec<u8>, JsonError> {
        let Json::Array(items) = json else {
            return Err(self.fault(format!("expected a list of bytes, found {}", kind_of(json))));
        };
        items
            .iter()
            .map(|b| self.int(b, false, 8, false).map(|n| n as u8))
            .collect()
    }

    fn quat(&mut self, json: &Json) -> Result<SmallestThree, JsonError> {
        let Json::Object(map) = json else {
            return Err(self.fault(format!(
                "expected {{\"largest\": ..., \"rest\": [...]}}, found {}",
                kind_of(json)
            )));
        };
        if let Some(unknown) = map.keys().find(|k| *k != "largest" && *k != "rest") {
            return Err(self.fault(format!(
                "unknown field `{unknown}`, expected largest or rest"
            )));
        }
        let mark = push_field(&mut self.path, "largest");
        let largest = match map.get("largest") {
            Some(v) => self.int(v, false, 8, false)? as u8,
            None => {
                self.path.truncate(mark);
                return Err(self.fault("missing field `largest`"));
            }
        };
        self.path.truncate(mark);
        let mark = push_field(&mut self.path, "rest");
        let rest = match map.get("rest") {
            Some(Json::Array(items)) if items.len() == 3 => {
                let mut rest = [0i16; 3];
                for (slot, item) in rest.iter_mut().zip(items) {
                    *slot = self.int(item, true, 16, false)? as i16;
                }
                rest
            }
            Some(_) => return Err(self.fault("expected a list of three integers")),
            None => {
                self.path.truncate(mark);
                return Err(self.fault("missing field `rest`"));
            }
        };
        self.path.truncate(mark);
        Ok(SmallestThree { largest, rest })
    }
}

fn kind_of(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a bool",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}
