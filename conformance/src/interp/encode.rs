//! The run-time encoder: a [`Value`] written by walking the lowering's plan, as the generated
//! encoders write their types.
//!
//! It makes the generated encoders' checks in their order (lower.rs, "The canonical order",
//! rule 4: "An encoder checks presence first (a value is given exactly when its condition
//! holds), then what it writes, in the same field order") through the runtime's own writers
//! (`ackwire-rt`'s `WriteExt`, `BitWriter`, `quantize_*`, `write_ascending`), so that a refused
//! value gets the generated encoder's [`EncodeError`]: the same kind and field path.
//!
//! For the derived vectors it can also say where each field went ([`Trace`]: every field's bit
//! span, every list's count and where its elements begin, every packed body's padding) and
//! write a field otherwise than its value says ([`Patch`]): the raw bytes or bits of a fault,
//! so that a negative vector is built by the same walk as a positive one and its expected error
//! is computed from where the walk put the fault.

use super::value::{push_field, push_index, Value};
use ackwire_codec::rt::{self, BitWriter, EncodeError, ErrorKind, WriteExt};
use ackwire_spec::gen::snake_case;
use ackwire_spec::lower::{
    Ascending, CountFrom, Lowering, Operand, Presence, RecordPlan, Role, Test, Wire,
};
use ackwire_spec::model::Record;

/// Where the walk put each field, in the order it wrote them. Positions are bits from the
/// frame's start (a byte-aligned field at byte `n` starts at bit `8n`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// Every field and list element written (also constants and counts), by path.
    pub fields: Vec<FieldSpan>,
    /// Every list, by path.
    pub lists: Vec<ListSpan>,
    /// Every packed body that starts at a byte, by path.
    pub bodies: Vec<BodySpan>,
    /// The frame's length in bytes.
    pub len: usize,
}

/// Where one field went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSpan {
    /// Its path (`changes[0].mask`; a list element `removed[1]`).
    pub path: String,
    /// Its first bit.
    pub start: usize,
    /// The bit after its last.
    pub end: usize,
    /// Inside a packed body.
    pub packed: bool,
}

/// One list: what a decoder checks before reading its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSpan {
    /// Its path.
    pub path: String,
    /// The bit its elements begin at (where a count past the input is reported).
    pub elements: usize,
    /// How many elements were written (a patched count prefix may say otherwise).
    pub count: u64,
    /// The least size of an element, in bytes (bits when packed): the lowering's `elem_min`.
    pub elem_min: u64,
    /// Inside a packed body.
    pub packed: bool,
}

/// One packed body padded to a byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodySpan {
    /// The packed field's path (the frame's, `""`, for a packed frame).
    pub path: String,
    /// The bit after the body's last field: its padding starts here.
    pub used: usize,
    /// The bit after its padding.
    pub end: usize,
}

/// A field written otherwise than its value says, at a path (the derived negative vectors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patch {
    /// These bytes or bits instead of the field (its checks skipped).
    Raw(Vec<Piece>),
    /// These instead of the field's head, then the rest as usual: a union's tag (then its
    /// variant), a list's count prefix (then its elements), a byte string's length varint (then
    /// its bytes).
    Head(Vec<Piece>),
}

/// Part of a raw field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Whole bytes, outside a packed body.
    Bytes(Vec<u8>),
    /// `width` bits of `value` (1 to 64), inside a packed body.
    Bits {
        /// How many bits.
        width: u8,
        /// Their value.
        value: u64,
    },
}

/// Why the walk stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The value is one the encoder refuses.
    Encode(EncodeError),
    /// The value does not have the layout's shape (a value built by hand), or the spec cannot be
    /// walked; the path and what is wrong.
    Shape(String),
}

impl From<EncodeError> for Fault {
    fn from(e: EncodeError) -> Self {
        Fault::Encode(e)
    }
}

type Res<T> = Result<T, Fault>;

trait Within<T> {
    fn field(self, name: &str) -> Res<T>;
    fn index(self, i: usize) -> Res<T>;
}

impl<T> Within<T> for Res<T> {
    fn field(self, name: &str) -> Res<T> {
        self.map_err(|f| match f {
            Fault::Encode(e) => Fault::Encode(e.field(name.to_string())),
            other => other,
        })
    }

    fn index(self, i: usize) -> Res<T> {
        self.map_err(|f| match f {
            Fault::Encode(e) => Fault::Encode(e.index(i)),
            other => other,
        })
    }
}

impl<T> Within<T> for Result<T, EncodeError> {
    fn field(self, name: &str) -> Res<T> {
        self.map_err(|e| Fault::Encode(e.field(name.to_string())))
    }

    fn index(self, i: usize) -> Res<T> {
        self.map_err(|e| Fault::Encode(e.index(i)))
    }
}

/// Encodes `value`, a frame of plan `plan`.
pub fn encode(low: &Lowering<'_>, plan: &RecordPlan<'_>, value: &Value) -> Result<Vec<u8>, Fault> {
    encode_traced(low, plan, value, &[]).map(|(bytes, _)| bytes)
}

/// [`encode`], with the [`Trace`] of where every field went, writing the fields named by
/// `patches` as those say.
pub fn encode_traced(
    low: &Lowering<'_>,
    plan: &RecordPlan<'_>,
    value: &Value,
    patches: &[(String, Patch)],
) -> Result<(Vec<u8>, Trace), Fault> {
    let mut enc = Encoder {
        low,
        out: Vec::new(),
        body: None,
        path: String::new(),
        depth: 0,
        trace: Trace::default(),
        patches,
    };
    if plan.packed {
        enc.packed_body(plan, value)?;
    } else {
        enc.record(plan, value, None)?;
    }
    enc.trace.len = enc.out.len();
    Ok((enc.out, enc.trace))
}

/// A packed body being written: the runtime's writer and how many bits it holds.
struct Body {
    w: BitWriter,
    bits: usize,
    /// The byte the body starts at.
    start: usize,
}

/// Records, unions and lists nested deeper than this mean a spec that contains itself.
const MAX_DEPTH: usize = 64;

struct Encoder<'a, 'l> {
    low: &'a Lowering<'l>,
    out: Vec<u8>,
    body: Option<Body>,
    path: String,
    depth: usize,
    trace: Trace,
    patches: &'a [(String, Patch)],
}

impl<'a, 'l> Encoder<'a, 'l> {
    fn shape(&self, what: impl std::fmt::Display) -> Fault {
        Fault::Shape(if self.path.is_empty() {
            what.to_string()
        } else {
            format!("{}: {what}", self.path)
        })
    }

    /// The bit the next field starts at.
    fn pos(&self) -> usize {
        match &self.body {
            Some(b) => 8 * b.start + b.bits,
            None => 8 * self.out.len(),
        }
    }

    fn patch(&self) -> Option<&'a Patch> {
        self.patches
            .iter()
            .find(|(p, _)| *p == self.path)
            .map(|(_, patch)| patch)
    }

    fn plan(&self, record: &Record, key: Option<&str>) -> Res<&'a RecordPlan<'l>> {
        self.low
            .plan(&record.name, key)
            .ok_or_else(|| self.shape(format!("record `{}` was not lowered", record.name)))
    }

    fn enter(&mut self) -> Res<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.shape("types nested too deep (a record that contains itself?)"));
        }
        Ok(())
    }

    // ---- records ----

    /// A packed record from the current byte: its fields as one bit stream, padded with zero
    /// bits to a byte (the runtime's `write_packed`).
    fn packed_body(&mut self, plan: &RecordPlan<'_>, value: &Value) -> Res<()> {
        if self.body.is_some() {
            return Err(self.shape("a padded body inside a packed record"));
        }
        self.body = Some(Body {
            w: BitWriter::new(),
            bits: 0,
            start: self.out.len(),
        });
        let written = self.record(plan, value, None);
        let Some(body) = self.body.take() else {
            return Err(self.shape("the packed body went missing"));
        };
        written?;
        let used = 8 * body.start + body.bits;
        body.w.finish(&mut self.out);
        self.trace.bodies.push(BodySpan {
            path: self.path.clone(),
            used,
            end: 8 * self.out.len(),
        });
        Ok(())
    }

    /// A record's steps in order; `prev` is the previous key when the record is an element of
    /// a list ascending by its key (the plan is then that key's).
    fn record(
        &mut self,
        plan: &RecordPlan<'_>,
        value: &Value,
        mut prev: Option<&mut Option<u64>>,
    ) -> Res<()> {
        self.enter()?;
        let Value::Record(slots) = value else {
            return Err(self.shape(format!("expected a record `{}`", plan.record.name)));
        };
        if slots.len() != plan.steps.len() {
            return Err(self.shape(format!(
                "a record `{}` of {} fields, not {}",
                plan.record.name,
                plan.steps.len(),
                slots.len()
            )));
        }
        for (step, slot) in plan.steps.iter().zip(slots) {
            let name = step.field.name.as_str();
            let mark = push_field(&mut self.path, name);
            let start = self.pos();
            let written = self.step(plan, step, slot.as_ref(), slots, prev.as_deref_mut());
            if matches!(written, Ok(true)) {
                self.span(start);
            }
            self.path.truncate(mark);
            written.field(name)?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn span(&mut self, start: usize) {
        let end = self.pos();
        self.trace.fields.push(FieldSpan {
            path: self.path.clone(),
            start,
            end,
            packed: self.body.is_some(),
        });
    }

    /// One field; whether anything was written for it.
    fn step(
        &mut self,
        plan: &RecordPlan<'_>,
        step: &ackwire_spec::lower::Step<'_>,
        slot: Option<&Value>,
        slots: &[Option<Value>],
        prev: Option<&mut Option<u64>>,
    ) -> Res<bool> {
        match step.role {
            Role::Constant(c) => {
                if !self.raw_patch()? {
                    self.int(&step.wire, c)?;
                }
                Ok(true)
            }
            Role::Count { array } => {
                let n = match lookup(plan, slots, array) {
                    Some(Value::List(items)) => items.len(),
                    _ => 0,
                };
                if !self.raw_patch()? {
                    self.int(&step.wire, n as i128)?;
                }
                Ok(true)
            }
            Role::Key | Role::Value => {
                // The runtime's `presence(present, cond)`: "a value is given exactly when its
                // condition holds", checked before anything of the field is written.
                if let Some(presence) = &step.presence {
                    let cond = self.holds(plan, presence, slots)?;
                    if slot.is_some() != cond {
                        return Err(EncodeError::new(ErrorKind::InvalidCondition).into());
                    }
                }
                let Some(v) = slot else {
                    return Ok(false);
                };
                match (step.role, prev) {
                    (Role::Key, Some(prev)) => self.ascending(&step.wire, v, prev)?,
                    _ => self.value(&step.wire, v)?,
                }
                Ok(true)
            }
        }
    }

    /// Whether every test of a presence holds, the operands read from the value as the
    /// generated encoders read them (a count is its list's length).
    fn holds(
        &self,
        plan: &RecordPlan<'_>,
        presence: &Presence<'_>,
        slots: &[Option<Value>],
    ) -> Res<bool> {
        for test in &presence.tests {
            let n = match test.operand() {
                Operand::Constant { value, .. } => *value,
                Operand::Count { array, .. } => match lookup(plan, slots, array) {
                    Some(Value::List(items)) => items.len() as i128,
                    _ => 0,
                },
                other => lookup(plan, slots, other.name()).map_or(0, Value::number),
            };
            let holds = match test {
                Test::Bit {
                    bits, bit, negated, ..
                } => {
                    let index = bits
                        .and_then(|b| ackwire_spec::index::Index::bit_index(b, bit))
                        .ok_or_else(|| self.shape(format!("no bit `{bit}`")))?;
                    (index < 128 && (n >> index) & 1 == 1) != *negated
                }
                Test::Bool { negated, .. } | Test::NonZero { negated, .. } => (n != 0) != *negated,
                Test::Greater { value, .. } => n > i128::from(*value),
            };
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }

    // ---- values ----

    fn value(&mut self, wire: &Wire<'_>, v: &Value) -> Res<()> {
        if self.raw_patch()? {
            return Ok(());
        }
        let packed = self.body.is_some();
        match (wire, v) {
            (Wire::Int { .. } | Wire::Ranged { .. }, Value::Int(n)) => self.int(wire, *n),
            (Wire::Float { bits, big_endian }, Value::Float(f)) => match (*bits, packed) {
                (32, true) => self.bits_with(32, |w| w.f32(*f as f32)),
                (_, true) => self.bits_with(64, |w| w.f64(*f)),
                (32, false) => Ok(self.out.f32(*big_endian, *f as f32)?),
                (_, false) => Ok(self.out.f64(*big_endian, *f)?),
            },
            (Wire::Bool { .. }, Value::Bool(b)) if packed => self.bits_with(1, |w| {
                w.bool(*b);
                Ok(())
            }),
            (Wire::Bool { .. }, Value::Bool(b)) => Ok(self.out.uint(1, false, u64::from(*b))?),
            (Wire::Varint { .. } | Wire::Zigzag { .. }, Value::Int(n)) => self.int(wire, *n),
            (Wire::Bytes, Value::Bytes(b)) => {
                if !self.head_patch()? {
                    self.out.varint(64, b.len() as u64)?;
                }
                self.out.extend_from_slice(b);
                Ok(())
            }
            (Wire::OptBytes, Value::OptBytes(b)) => {
                if !self.head_patch()? {
                    match b {
                        None => self.out.varint(64, 0)?,
                        Some(b) => self.out.varint(64, b.len() as u64 + 1)?,
                    }
                }
                self.out.extend_from_slice(b.as_deref().unwrap_or_default());
                Ok(())
            }
            (
                Wire::Quant {
                    wire: inner,
                    num,
                    den,
                    signed,
                    min,
                    max,
                    ..
                },
                Value::Float(f),
            ) => {
                // LANGUAGE.md: "the scale `NUM/DEN` is computed once as a double".
                let scale = *num as f64 / *den as f64;
                let q = if *signed {
                    i128::from(rt::quantize_int(
                        *f,
                        scale,
                        clamp_i64(*min),
                        clamp_i64(*max),
                    )?)
                } else {
                    i128::from(rt::quantize_uint(
                        *f,
                        scale,
                        u64::try_from(*max).unwrap_or(u64::MAX),
                    )?)
                };
                self.int(inner, q)
            }
            (Wire::Quat { bits }, Value::Quat(q)) => {
                let width = 2 + 3 * usize::from(*bits);
                self.bits_with(width, |w| w.quat(*bits, q))
            }
            (Wire::Bucket(_), Value::Int(n)) => self.int(wire, *n),
            (Wire::Bits(b), Value::Bits(raw)) => {
                let plan = self.low.bits_plan(b);
                // The runtime's `BitSet::check`: no reserved bit, then every bit's requirement.
                if raw & plan.reserved != 0 || (b.width < 64 && raw >> b.width != 0) {
                    return Err(EncodeError::new(ErrorKind::ReservedBit).into());
                }
                for bit in &plan.named {
                    if let Some((_, other)) = bit.requires {
                        if is_set(*raw, bit.index) && !is_set(*raw, other) {
                            return Err(EncodeError::new(ErrorKind::InvalidCondition).into());
                        }
                    }
                }
                if packed {
                    self.bits_with(usize::from(b.width), |w| w.uint(b.width, *raw))
                } else {
                    let big_endian = self.low.bits_big_endian(b);
                    Ok(self.out.uint(usize::from(b.width / 8), big_endian, *raw)?)
                }
            }
            (Wire::Record { record, padded }, v) => {
                let plan = self.plan(record, None)?;
                if *padded {
                    self.packed_body(plan, v)
                } else {
                    self.record(plan, v, None)
                }
            }
            (Wire::Union(u), Value::Union { variant, value }) => {
                self.enter()?;
                let plan = self.low.union_plan(u);
                let Some(&(tag, record)) = plan.variants.get(*variant) else {
                    return Err(self.shape(format!("no variant {variant} in `{}`", u.name)));
                };
                if !self.head_patch()? {
                    self.int(&plan.tag, i128::from(tag))?;
                }
                let name = snake_case(&record.name);
                let mark = push_field(&mut self.path, &name);
                let start = self.pos();
                let inner = self.plan(record, None)?;
                let written = if record.packed && !packed {
                    self.packed_body(inner, value)
                } else {
                    self.record(inner, value, None)
                };
                if written.is_ok() {
                    self.span(start);
                }
                self.path.truncate(mark);
                written.field(&name)?;
                self.depth -= 1;
                Ok(())
            }
            (Wire::Array(a), Value::List(items)) => {
                self.enter()?;
                if let CountFrom::Prefix(t) = &a.count {
                    if !self.head_patch()? {
                        self.int(t, items.len() as i128)?;
                    }
                }
                self.trace.lists.push(ListSpan {
                    path: self.path.clone(),
                    elements: self.pos(),
                    count: items.len() as u64,
                    elem_min: a.elem_min,
                    packed,
                });
                let mut prev = None;
                for (i, item) in items.iter().enumerate() {
                    let mark = push_index(&mut self.path, i);
                    let start = self.pos();
                    let written = match (a.ascending, &a.elem) {
                        (Some(Ascending::Key(key)), Wire::Record { record, padded }) => {
                            let plan = self.plan(record, Some(key))?;
                            if *padded {
                                Err(self.shape("a keyed packed element of a byte-aligned list"))
                            } else {
                                self.record(plan, item, Some(&mut prev))
                            }
                        }
                        (Some(Ascending::Key(_)), _) => {
                            Err(self.shape("an ascending key over elements that are not records"))
                        }
                        (Some(Ascending::Values), elem) => self.ascending(elem, item, &mut prev),
                        (None, elem) => self.value(elem, item),
                    };
                    if written.is_ok() {
                        self.span(start);
                    }
                    self.path.truncate(mark);
                    written.index(i)?;
                }
                self.depth -= 1;
                Ok(())
            }
            (Wire::Unknown(name), _) => Err(self.shape(format!("`{name}` is not a type"))),
            _ => Err(self.shape("a value of another type than the layout's")),
        }
    }

    /// An element (or key) of an ascending list, carried as its difference from the previous
    /// one: the runtime's `write_ascending` (`write_bit_ascending` in a packed body), with the
    /// element's width and writer as `gen::rust`'s `ascending_writer` and `ascending_bit_writer`
    /// take them.
    fn ascending(&mut self, wire: &Wire<'_>, v: &Value, prev: &mut Option<u64>) -> Res<()> {
        if self.raw_patch()? {
            return Ok(());
        }
        let Value::Int(n) = v else {
            return Err(self.shape("an ascending value that is not an integer"));
        };
        // A model integer of an ascending list is unsigned and at most 64 bits.
        let v = u64::try_from(*n).map_err(|_| EncodeError::new(ErrorKind::OverWidth))?;
        // The difference, as the runtime will compute it, for the bits it takes.
        let d = rt::ascending_delta(*prev, v).unwrap_or(v);
        match (self.body.is_some(), wire) {
            (true, Wire::Bucket(b)) => {
                let width = rt::bucket_len(b.widths, d);
                let widths = b.widths;
                let max = b.max_code;
                self.bits_with(width, |w| {
                    rt::write_bit_ascending(w, prev, v, max, |w, d| w.bucket(widths, d))
                })
            }
            (true, Wire::Int { bits, .. }) => {
                let bits = *bits;
                let max = if bits >= 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                self.bits_with(usize::from(bits), |w| {
                    rt::write_bit_ascending(w, prev, v, max, |w, d| w.uint(bits, d))
                })
            }
            (true, _) => self.bits_with(64, |w| {
                rt::write_bit_ascending(w, prev, v, u64::MAX, |w, d| w.uint(64, d))
            }),
            (false, Wire::Varint { bits }) => Ok(rt::write_ascending(
                &mut self.out,
                prev,
                v,
                *bits,
                |out, d| out.varint(*bits, d),
            )?),
            (
                false,
                Wire::Int {
                    bits, big_endian, ..
                },
            ) => Ok(rt::write_ascending(
                &mut self.out,
                prev,
                v,
                *bits,
                |out, d| out.uint(usize::from(bits / 8), *big_endian, d),
            )?),
            (false, _) => Ok(rt::write_ascending(
                &mut self.out,
                prev,
                v,
                64,
                |out, d| out.varint(64, d),
            )?),
        }
    }

    /// An integer of an integer wire form (a fixed-width integer, varint, zigzag or bucket
    /// code): a field's value, a constant, a count, a union's tag.
    fn int(&mut self, wire: &Wire<'_>, n: i128) -> Res<()> {
        let over = || Fault::Encode(EncodeError::new(ErrorKind::OverWidth));
        let unsigned = || u64::try_from(n).map_err(|_| over());
        let signed = || i64::try_from(n).map_err(|_| over());
        let packed = self.body.is_some();
        match wire {
            // WIRE-29: refused outside its range; packed, the value less the least.
            Wire::Ranged {
                int,
                min,
                max,
                packed: width,
            } => {
                rt::in_range(n, *min, *max)?;
                match width {
                    Some(width) => {
                        let (width, offset) = (*width, (n - i128::from(*min)) as u64);
                        self.bits_with(usize::from(width), |w| w.uint(width, offset))
                    }
                    None => self.int(int, n),
                }
            }
            Wire::Int {
                signed: true, bits, ..
            } if packed => {
                let (bits, v) = (*bits, signed()?);
                self.bits_with(usize::from(bits), |w| w.int(bits, v))
            }
            Wire::Int { bits, .. } if packed => {
                let (bits, v) = (*bits, unsigned()?);
                self.bits_with(usize::from(bits), |w| w.uint(bits, v))
            }
            Wire::Int {
                signed: true,
                bits,
                big_endian,
            } => Ok(self
                .out
                .int(usize::from(bits / 8), *big_endian, signed()?)?),
            Wire::Int {
                bits, big_endian, ..
            } => Ok(self
                .out
                .uint(usize::from(bits / 8), *big_endian, unsigned()?)?),
            Wire::Varint { bits } if !packed => Ok(self.out.varint(*bits, unsigned()?)?),
            Wire::Zigzag { bits } if !packed => Ok(self.out.zigzag(*bits, signed()?)?),
            Wire::Bucket(b) if packed && b.signed => {
                let v = signed()?;
                let widths = b.widths;
                self.bits_with(rt::zbucket_len(widths, v), |w| w.zbucket(widths, v))
            }
            Wire::Bucket(b) if packed => {
                let v = unsigned()?;
                let widths = b.widths;
                self.bits_with(rt::bucket_len(widths, v), |w| w.bucket(widths, v))
            }
            _ => Err(self.shape("an integer of a form the layout does not allow here")),
        }
    }

    /// A write of `width` bits into the packed body.
    fn bits_with(
        &mut self,
        width: usize,
        write: impl FnOnce(&mut BitWriter) -> Result<(), EncodeError>,
    ) -> Res<()> {
        let Some(body) = self.body.as_mut() else {
            return Err(self.shape("a bit field outside a packed record"));
        };
        write(&mut body.w)?;
        body.bits += width;
        Ok(())
    }

    /// Writes the raw patch of this path, if there is one: whether it did.
    fn raw_patch(&mut self) -> Res<bool> {
        match self.patch() {
            Some(Patch::Raw(pieces)) => self.pieces(pieces).map(|()| true),
            _ => Ok(false),
        }
    }

    /// Writes the head patch of this path, if there is one: whether it did.
    fn head_patch(&mut self) -> Res<bool> {
        match self.patch() {
            Some(Patch::Head(pieces)) => self.pieces(pieces).map(|()| true),
            _ => Ok(false),
        }
    }

    fn pieces(&mut self, pieces: &[Piece]) -> Res<()> {
        for piece in pieces {
            match piece {
                Piece::Bytes(b) if self.body.is_none() => self.out.extend_from_slice(b),
                Piece::Bits { width, value } => {
                    let (width, value) = (*width, *value);
                    self.bits_with(usize::from(width), |w| w.uint(width, value))?;
                }
                Piece::Bytes(_) => return Err(self.shape("raw bytes inside a packed body")),
            }
        }
        Ok(())
    }
}

/// The value of the earlier field `name` of the record being written.
fn lookup<'v>(plan: &RecordPlan<'_>, slots: &'v [Option<Value>], name: &str) -> Option<&'v Value> {
    plan.steps
        .iter()
        .position(|s| s.field.name == name)
        .and_then(|i| slots.get(i))
        .and_then(Option::as_ref)
}

fn is_set(raw: u64, index: u8) -> bool {
    index < 64 && (raw >> index) & 1 == 1
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}
