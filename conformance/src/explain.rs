//! Annotated dumps of frames, one row per field, in the manner of `wasm-tools dump`: the byte
//! offset, the bytes a field covers and what they mean.
//!
//! The walk is driven by the lowering ([`ackwire_spec::lower`]), the plan the code generators
//! print: which field is a constant, a count, an ascending key or a value, its wire form (byte
//! order applied, names resolved), its presence tests, an array's count source and the least
//! size of its element, a bit set's reserved bits and requirements, a union's tags. The layout
//! is worked out there once, not again here; the reads and checks are this module's own, not
//! the generated codecs', so it is a second decoder of the same plan, making its checks in
//! the lowering's canonical order ([`ackwire_spec::lower::Step::checks`]). It enforces the
//! canonical decoding rule (WIRE-21: a decoder accepts exactly the bytes its encoder can
//! produce, so a varint longer than needed, a value over its field's width, a reserved bit set,
//! a mask bit that selects nothing, a count the remaining bytes cannot hold, or bytes after the
//! frame are errors) and LANGUAGE.md's "Canonical decoding" list, and reports a fault as the generated decoders do: the same [`ErrorKind`],
//! byte (or bit) offset and field path (`changes[3].mask`). `tests/explain_agrees.rs` holds
//! the two to that.
//!
//! Like the codecs, the walk only makes checked reads, checks a count against the remaining
//! input before reading its elements, and never loops past the input. Its output is one
//! [`Row`] per field read, so it allocates in proportion to the number of fields, which is
//! bounded by the input's length in bits.
//!
//! What this module is not: a validator of specs. It expects a spec that
//! [`ackwire_spec::load`] accepted; a spec it cannot walk (an unknown type, a record that
//! contains itself) is reported as [`ExplainError::InvalidSpec`], never a panic.

use crate::interp::value::Value;
use ackwire_codec::rt::SmallestThree;
use ackwire_codec::{DecodeError, ErrorKind};
use ackwire_spec::gen::snake_case;
use ackwire_spec::index::Index;
use ackwire_spec::lower::{
    ArrayPlan, Ascending, BitsPlan, BucketPlan, CountFrom, Lowering, Operand, Presence, RecordPlan,
    Role, Step, Test, Wire,
};
use ackwire_spec::model::{Record, Spec, Union};
use std::fmt::Write as _;

/// One field of a frame, as [`explain`] read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Byte offset of the field's first byte (for a packed field: of the byte holding its first
    /// bit) from the start of the frame.
    pub offset: usize,
    /// For a field of a packed (bit-stream) record: the bit offset of its first bit from the
    /// start of the frame. `None` for byte-aligned fields.
    pub bit: Option<usize>,
    /// The bytes the field covers; for a packed field, every byte it touches (neighbouring
    /// packed fields may share a byte).
    pub bytes: Vec<u8>,
    /// The field's path, as in decode errors: `changes[3].mask`. A union's tag is shown at the
    /// union's own path, a prefix count at the array's path, a packed body's zero padding at
    /// the packed field's path.
    pub path: String,
    /// What the bytes mean: a number, bit names (`POSE | POSE_FULL`), a quantized value with
    /// its wire integer (`1.5 (wire 768)`), a byte string's length and bytes. Fields absent on
    /// the wire have no row.
    pub value: String,
}

/// Why [`explain`] could not walk a frame to its end.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// No frame of the spec has this snake_case name.
    #[error("no frame named `{name}`; the spec's frames are {}", .known.join(", "))]
    UnknownFrame {
        /// The name asked for.
        name: String,
        /// The snake_case names of the spec's frames, in declaration order.
        known: Vec<String>,
    },
    /// The bytes are not a canonical encoding of the frame.
    #[error("{error}")]
    Decode {
        /// The fields read before the fault.
        rows: Vec<Row>,
        /// The fault: the same kind, offset and path the generated decoder reports.
        error: DecodeError,
    },
    /// The spec cannot be walked (it would not pass `ackwire check`).
    #[error("the spec cannot be walked: {reason}")]
    InvalidSpec {
        /// What is wrong with it.
        reason: String,
    },
}

/// The snake_case names of the frames of `spec` (what [`explain`] takes), in declaration
/// order.
pub fn frame_names(spec: &Spec) -> Vec<String> {
    names_of(&Lowering::new(spec))
}

fn names_of(low: &Lowering<'_>) -> Vec<String> {
    low.frames()
        .iter()
        .map(|(r, _)| snake_case(&r.name))
        .collect()
}

/// Walks `bytes` as the frame named `frame` (snake_case: `acked`, `full_frame`) of `spec`,
/// returning one row per field in wire order.
///
/// On a decode fault the error carries the rows read before it and a [`DecodeError`] equal in
/// kind, offset and path to what the generated decoder reports for the same bytes.
pub fn explain(spec: &Spec, frame: &str, bytes: &[u8]) -> Result<Vec<Row>, ExplainError> {
    explain_lowered(&Lowering::new(spec), frame, bytes)
}

/// [`explain`] over a spec already lowered, for a caller that explains many frames.
pub fn explain_lowered(
    low: &Lowering<'_>,
    frame: &str,
    bytes: &[u8],
) -> Result<Vec<Row>, ExplainError> {
    walk(low, frame, bytes, true).map(|(_, rows)| rows)
}

/// The plan of the frame named `frame` (snake_case) in `low`.
pub fn frame_plan<'a, 's>(
    low: &'a Lowering<'s>,
    frame: &str,
) -> Result<&'a RecordPlan<'s>, ExplainError> {
    let frames = low.frames();
    let Some((record, _)) = frames.iter().find(|(r, _)| snake_case(&r.name) == frame) else {
        return Err(ExplainError::UnknownFrame {
            name: frame.to_string(),
            known: names_of(low),
        });
    };
    low.plan(&record.name, None)
        .ok_or_else(|| ExplainError::InvalidSpec {
            reason: format!("frame `{}` was not lowered", record.name),
        })
}

/// Decodes `bytes` as the frame named `frame` by the same walk as [`explain_lowered`], making no
/// rows: the run-time decoder of [`crate::interp`]. The error is the same kind, offset, bit and
/// path the generated decoder reports (its `rows` are empty).
pub fn read_lowered(low: &Lowering<'_>, frame: &str, bytes: &[u8]) -> Result<Value, ExplainError> {
    walk(low, frame, bytes, false).map(|(value, _)| value)
}

/// The walk behind [`explain_lowered`] and [`read_lowered`]: the frame's value, and its rows
/// when `rows` is set.
fn walk(
    low: &Lowering<'_>,
    frame: &str,
    bytes: &[u8],
    rows: bool,
) -> Result<(Value, Vec<Row>), ExplainError> {
    let plan = frame_plan(low, frame)?;
    let mut walker = Walker {
        low,
        input: bytes,
        pos: 0,
        bit: 0,
        rows: Vec::new(),
        keep_rows: rows,
        path: String::new(),
        depth: 0,
    };
    match walker.frame(plan) {
        Ok(value) => Ok((value, walker.rows)),
        Err(Stop::Decode(error)) => Err(ExplainError::Decode {
            rows: walker.rows,
            error,
        }),
        Err(Stop::Spec(reason)) => Err(ExplainError::InvalidSpec { reason }),
    }
}

/// Byte strings longer than this are elided with "…".
const SHOWN_BYTES: usize = 16;
/// Bytes per line of the bytes column.
const BYTES_PER_LINE: usize = 8;
/// Width of the bytes column: eight bytes and the elision mark.
const BYTES_WIDTH: usize = BYTES_PER_LINE * 3 + 1;

/// The rows as aligned columns, `offset  bytes  field  value`, one line per row (more when a
/// row's bytes wrap). Offsets are decimal bytes; a packed field's shows its bit within that
/// byte after a dot (`3.5` is bit 5 of byte 3, bit 29 of the frame).
pub fn render(rows: &[Row]) -> String {
    let offsets: Vec<String> = rows
        .iter()
        .map(|r| match r.bit {
            Some(b) => format!("{}.{}", r.offset, b % 8),
            None => r.offset.to_string(),
        })
        .collect();
    let offset_w = offsets.iter().map(|o| o.len()).max().unwrap_or(0).max(6);
    let field_w = rows
        .iter()
        .map(|r| r.path.chars().count())
        .max()
        .unwrap_or(0)
        .max(19);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:offset_w$}  {:BYTES_WIDTH$}  {:field_w$}  value",
        "offset", "bytes", "field"
    );
    for (row, offset) in rows.iter().zip(&offsets) {
        let lines = hex_lines(&row.bytes);
        for (i, line) in lines.iter().enumerate() {
            let text = if i == 0 {
                format!(
                    "{offset:offset_w$}  {line:BYTES_WIDTH$}  {:field_w$}  {}",
                    row.path, row.value
                )
            } else {
                format!("{:offset_w$}  {line}", "")
            };
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    out
}

/// [`render`], then a last line naming the fault: `error: truncated at byte 12, field
/// changes[0].pose_full.x`.
pub fn render_failure(rows: &[Row], error: &DecodeError) -> String {
    let mut out = render(rows);
    let _ = writeln!(out, "error: {error}");
    out
}

/// Hex bytes, eight to a line, elided with "…" after [`SHOWN_BYTES`].
fn hex_lines(bytes: &[u8]) -> Vec<String> {
    let shown = &bytes[..bytes.len().min(SHOWN_BYTES)];
    let mut lines: Vec<String> = shown.chunks(BYTES_PER_LINE).map(hex).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    if bytes.len() > SHOWN_BYTES {
        if let Some(last) = lines.last_mut() {
            last.push_str(" …");
        }
    }
    lines
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Why the walk stopped.
enum Stop {
    /// The input is at fault.
    Decode(DecodeError),
    /// The spec is.
    Spec(String),
}

impl From<DecodeError> for Stop {
    fn from(e: DecodeError) -> Self {
        Stop::Decode(e)
    }
}

type Res<T> = Result<T, Stop>;

/// Field paths built from the leaf outwards, as the generated decoders' `map_err` calls do.
trait Within<T> {
    /// The error, inside field `name`.
    fn field(self, name: &str) -> Res<T>;
    /// The error, inside element `index`.
    fn index(self, index: usize) -> Res<T>;
}

impl<T> Within<T> for Res<T> {
    fn field(self, name: &str) -> Res<T> {
        self.map_err(|s| match s {
            Stop::Decode(e) => Stop::Decode(e.field(name.to_owned())),
            other => other,
        })
    }

    fn index(self, index: usize) -> Res<T> {
        self.map_err(|s| match s {
            Stop::Decode(e) => Stop::Decode(e.index(index)),
            other => other,
        })
    }
}

/// The previous element of an ascending list: of the integers, or of the key field of the
/// records, that ascend.
struct Asc {
    prev: Option<u64>,
}

/// Records, unions and arrays nested deeper than this mean a spec that contains itself.
const MAX_DEPTH: u32 = 64;

struct Walker<'a> {
    low: &'a Lowering<'a>,
    input: &'a [u8],
    /// The next byte, outside packed records.
    pos: usize,
    /// The next bit from the start of the frame, inside packed records.
    bit: usize,
    rows: Vec<Row>,
    /// Rows are made (`explain`), or only the value (`read_lowered`).
    keep_rows: bool,
    /// The path of the field being read.
    path: String,
    depth: u32,
}

impl<'a> Walker<'a> {
    // ---- the frame, records, unions, arrays ----

    fn frame(&mut self, plan: &'a RecordPlan<'a>) -> Res<Value> {
        let value = if plan.packed {
            self.packed_body(plan, None)?
        } else {
            self.record(plan, None)?
        };
        // WIRE-17: bytes after the frame's last field are an error.
        if self.pos < self.input.len() {
            return Err(DecodeError::new(ErrorKind::TrailingBytes, self.pos).into());
        }
        Ok(value)
    }

    /// The plan of `record` on its own (`key` `None`) or as an element of a list ascending by
    /// its field `key`.
    fn plan(&self, record: &Record, key: Option<&str>) -> Res<&'a RecordPlan<'a>> {
        self.low
            .plan(&record.name, key)
            .ok_or_else(|| Stop::Spec(format!("record `{}` was not lowered", record.name)))
    }

    /// A record met at the current position: inline in a packed stream or a byte-aligned
    /// record, or as a packed body of its own when a packed record starts at a byte
    /// (`padded`).
    fn record_at(
        &mut self,
        record: &'a Record,
        padded: bool,
        key: Option<&str>,
        asc: Option<&mut Asc>,
    ) -> Res<Value> {
        let plan = self.plan(record, key)?;
        if padded {
            self.packed_body(plan, asc)
        } else {
            self.record(plan, asc)
        }
    }

    /// The outermost packed record: a bit stream from the current byte, "padded with zero bits
    /// to a byte at the end of the outermost packed record" (LANGUAGE.md); a padding bit that
    /// is set is a reserved bit.
    fn packed_body(&mut self, plan: &'a RecordPlan<'a>, asc: Option<&mut Asc>) -> Res<Value> {
        self.bit = self.pos * 8;
        let value = self.record(plan, asc)?;
        let used = self.bit;
        let end = used.div_ceil(8) * 8;
        if let Some(one) = (used..end).find(|&b| self.bit_at(b)) {
            return Err(DecodeError::at_bit(ErrorKind::ReservedBit, one).into());
        }
        if end > used {
            self.bit = end;
            self.emit_bits(used, format!("padding, {} zero bits", end - used));
        }
        self.pos = end / 8;
        Ok(value)
    }

    fn enter(&mut self) -> Res<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop::Spec(format!(
                "types nested deeper than {MAX_DEPTH} levels (a record that contains itself?)"
            )));
        }
        Ok(())
    }

    /// The record's steps in wire order, each within its field's path.
    fn record(&mut self, plan: &'a RecordPlan<'a>, mut asc: Option<&mut Asc>) -> Res<Value> {
        self.enter()?;
        let mut slots: Vec<Option<Value>> = Vec::with_capacity(plan.steps.len());
        for step in &plan.steps {
            let name = step.field.name.as_str();
            let mark = self.push_field(name);
            let value = self.step(plan, step, &slots, asc.as_deref_mut());
            self.path.truncate(mark);
            slots.push(value.field(name)?);
        }
        self.depth -= 1;
        Ok(Value::Record(slots))
    }

    /// One step: skipped when its presence does not hold, then read as its role says.
    fn step(
        &mut self,
        plan: &RecordPlan<'a>,
        step: &'a Step<'a>,
        slots: &[Option<Value>],
        asc: Option<&mut Asc>,
    ) -> Res<Option<Value>> {
        let packed = plan.packed;
        if let Some(presence) = &step.presence {
            if !self.present(plan, presence, slots)? {
                return Ok(None);
            }
        }
        match step.role {
            Role::Constant(constant) => {
                // LANGUAGE.md: a constant is "written by the encoder, checked by the decoder".
                let at = self.here(packed);
                let (v, text) = self.scalar(&step.wire, packed)?;
                if v != constant {
                    return Err(self.fault(packed, ErrorKind::BadConstant, at));
                }
                self.emit(packed, at, text);
                Ok(Some(Value::Int(v)))
            }
            Role::Key => match asc {
                Some(asc) => self.ascending(&step.wire, packed, asc).map(Some),
                None => Err(Stop::Spec(format!(
                    "key `{}` of `{}` read outside its ascending list",
                    step.field.name, plan.record.name
                ))),
            },
            Role::Count { .. } | Role::Value => {
                let count = match &step.wire {
                    Wire::Array(a) => match a.count {
                        CountFrom::Field(name) => match lookup(plan, slots, name) {
                            Some(Value::Int(n)) => Some(u64::try_from(*n).unwrap_or(u64::MAX)),
                            _ => {
                                return Err(Stop::Spec(format!(
                                    "count `{name}` of `{}` is not an integer",
                                    step.field.name
                                )));
                            }
                        },
                        CountFrom::Prefix(_) => None,
                    },
                    _ => None,
                };
                self.value(&step.wire, packed, count).map(Some)
            }
        }
    }

    /// Whether a field is on the wire: every test of its presence holds, in order.
    fn present(
        &self,
        plan: &RecordPlan<'_>,
        presence: &Presence<'_>,
        slots: &[Option<Value>],
    ) -> Res<bool> {
        for test in &presence.tests {
            let n = number(test.operand(), plan, slots);
            let holds = match test {
                Test::Bit {
                    operand,
                    bits,
                    bit,
                    negated,
                } => {
                    let bits = bits.ok_or_else(|| {
                        Stop::Spec(format!(
                            "`{}` in `{}` is not a bit set",
                            operand.name(),
                            plan.record.name
                        ))
                    })?;
                    let at = Index::bit_index(bits, bit)
                        .ok_or_else(|| Stop::Spec(format!("no bit `{bit}` in `{}`", bits.name)))?;
                    ((n >> at) & 1 == 1) != *negated
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

    /// A value of wire form `wire`, with its rows.
    fn value(&mut self, wire: &'a Wire<'a>, packed: bool, count: Option<u64>) -> Res<Value> {
        match wire {
            Wire::Int { .. }
            | Wire::Ranged { .. }
            | Wire::Varint { .. }
            | Wire::Zigzag { .. }
            | Wire::Bool { .. } => {
                let at = self.here(packed);
                let (v, text) = self.scalar(wire, packed)?;
                self.emit(packed, at, text);
                Ok(match wire {
                    Wire::Bool { .. } => Value::Bool(v == 1),
                    _ => Value::Int(v),
                })
            }
            Wire::Float { bits, big_endian } => {
                let at = self.here(packed);
                let raw = self.uint_of(u32::from(*bits), packed, *big_endian)?;
                // LANGUAGE.md: "a non-finite float" is an error.
                let (v, text) = if *bits == 32 {
                    let v = f32::from_bits(raw as u32);
                    (f64::from(v), format!("{v}"))
                } else {
                    let v = f64::from_bits(raw);
                    (v, format!("{v}"))
                };
                if !v.is_finite() {
                    return Err(self.fault(packed, ErrorKind::NonFinite, at));
                }
                self.emit(packed, at, text);
                Ok(Value::Float(v))
            }
            Wire::Bytes | Wire::OptBytes => {
                self.byte_aligned(packed, "a byte string")?;
                let at = self.pos;
                let n = self.varint(64)?;
                let len = match (wire, n) {
                    (Wire::OptBytes, 0) => None,
                    (Wire::OptBytes, n) => Some(n - 1),
                    (_, n) => Some(n),
                };
                let mut bytes = None;
                let text = match len {
                    None => "none".to_string(),
                    Some(len) => {
                        // "a count that the remaining bytes cannot hold" is an error.
                        // Like a list's count, it is reported where the bytes would begin.
                        if len > (self.input.len() - self.pos) as u64 {
                            return Err(DecodeError::new(ErrorKind::CountTooLarge, self.pos).into());
                        }
                        let data = self.take(len as usize)?;
                        bytes = Some(data.to_vec());
                        let mut text = format!("{len} bytes");
                        if !data.is_empty() {
                            let shown = &data[..data.len().min(SHOWN_BYTES)];
                            text.push_str(": ");
                            for b in shown {
                                let _ = write!(text, "{b:02x}");
                            }
                            if data.len() > SHOWN_BYTES {
                                text.push('…');
                            }
                        }
                        text
                    }
                };
                self.emit(false, at, text);
                Ok(match wire {
                    Wire::OptBytes => Value::OptBytes(bytes),
                    _ => Value::Bytes(bytes.unwrap_or_default()),
                })
            }
            Wire::Quant {
                wire: inner,
                num,
                den,
                ..
            } => {
                let at = self.here(packed);
                let (v, _) = self.scalar(inner, packed)?;
                // LANGUAGE.md: "the scale `NUM/DEN` is computed once as a double".
                let scale = *num as f64 / *den as f64;
                let value = v as f64 * scale;
                self.emit(packed, at, format!("{value} (wire {v})"));
                Ok(Value::Float(value))
            }
            Wire::Bits(b) => {
                let at = self.here(packed);
                let plan = self.low.bits_plan(b);
                let raw = self.bits(&plan, packed)?;
                self.emit(packed, at, bit_names(&plan, raw));
                Ok(Value::Bits(raw))
            }
            Wire::Record { record, padded } => self.record_at(record, *padded, None, None),
            Wire::Union(u) => self.union(u, packed),
            Wire::Array(a) => self.array(a, packed, count),
            Wire::Bucket(_) => {
                let at = self.here(packed);
                let (v, text) = self.scalar(wire, packed)?;
                self.emit(packed, at, text);
                Ok(Value::Int(v))
            }
            Wire::Quat { bits } => {
                let at = self.here(packed);
                let (q, text) = self.quat(*bits, packed)?;
                self.emit(packed, at, text);
                Ok(Value::Quat(q))
            }
            Wire::Unknown(name) => Err(Stop::Spec(format!("`{name}` is not a type"))),
        }
    }

    /// A tag, then the variant's record, whose path is its name in snake_case.
    fn union(&mut self, u: &'a Union, packed: bool) -> Res<Value> {
        self.enter()?;
        let at = self.here(packed);
        let plan = self.low.union_plan(u);
        let (bits, big_endian) = match plan.tag {
            Wire::Int {
                bits, big_endian, ..
            } => (bits, big_endian),
            _ => return Err(Stop::Spec(format!("the tag of `{}`", u.name))),
        };
        let tag = self.uint_of(u32::from(bits), packed, big_endian)?;
        // LANGUAGE.md: "an unknown union tag" is an error.
        let Some(variant) = plan.variants.iter().position(|(t, _)| *t == tag) else {
            return Err(self.fault(packed, ErrorKind::UnknownTag, at));
        };
        let record = plan.variants[variant].1;
        self.emit(packed, at, format!("{} (tag {tag})", record.name));
        let name = snake_case(&record.name);
        let mark = self.push_field(&name);
        let read = self.record_at(record, record.packed && !packed, None, None);
        self.path.truncate(mark);
        let value = read.field(&name)?;
        self.depth -= 1;
        Ok(Value::Union {
            variant,
            value: Box::new(value),
        })
    }

    fn array(&mut self, a: &'a ArrayPlan<'a>, packed: bool, count: Option<u64>) -> Res<Value> {
        self.enter()?;
        let n = match &a.count {
            CountFrom::Field(name) => {
                count.ok_or_else(|| Stop::Spec(format!("count `{name}` is not a field here")))?
            }
            CountFrom::Prefix(t) => {
                let at = self.here(packed);
                let (n, _) = self.scalar(t, packed)?;
                self.emit(packed, at, format!("count {n}"));
                u64::try_from(n).unwrap_or(u64::MAX)
            }
        };
        // WIRE-24: a count that the remaining bytes cannot hold is an error,
        // checked against the least an element can take before anything is read.
        let at = self.here(packed);
        let room = if packed {
            self.input.len() * 8 - self.bit
        } else {
            self.input.len() - self.pos
        };
        match n.checked_mul(a.elem_min.max(1)) {
            Some(need) if need <= room as u64 => {}
            _ => return Err(self.fault(packed, ErrorKind::CountTooLarge, at)),
        }
        let mut asc = Asc { prev: None };
        // At most one element per byte (bit) left, checked above.
        let mut items = Vec::with_capacity(n as usize);
        for i in 0..n as usize {
            let mark = self.push_index(i);
            let read = match (a.ascending, &a.elem) {
                (None, elem) => self.value(elem, packed, None),
                (Some(Ascending::Values), elem) => self.ascending(elem, packed, &mut asc),
                (Some(Ascending::Key(key)), Wire::Record { record, padded }) => {
                    self.record_at(record, *padded, Some(key), Some(&mut asc))
                }
                (Some(Ascending::Key(key)), _) => Err(Stop::Spec(format!(
                    "`ascending({key})` over elements that are not records"
                ))),
            };
            self.path.truncate(mark);
            items.push(read.index(i)?);
        }
        self.depth -= 1;
        Ok(Value::List(items))
    }

    /// An element (or key field) of an ascending list: the first absolute, each later one as
    /// its difference from the previous one, which is at least 1 (WIRE-14).
    fn ascending(&mut self, wire: &Wire<'_>, packed: bool, asc: &mut Asc) -> Res<Value> {
        let at = self.here(packed);
        let width = |bits: u8| {
            if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            }
        };
        // The difference is carried in the element's own type; the sum may not pass the
        // type's largest value (a bucket code's is not 2^N - 1).
        let (max, delta) = match wire {
            Wire::Varint { bits } if !packed => (width(*bits), self.varint(*bits)?),
            Wire::Int {
                bits, big_endian, ..
            } => (
                width(*bits),
                self.uint_of(u32::from(*bits), packed, *big_endian)?,
            ),
            Wire::Bucket(b) if packed && !b.signed => (b.max_code, self.bucket(b, packed)?.0),
            _ if !packed => (u64::MAX, self.varint(64)?),
            _ => {
                return Err(Stop::Spec(
                    "an ascending value that is not an unsigned integer".into(),
                ))
            }
        };
        let v = match asc.prev {
            None => delta,
            Some(_) if delta == 0 => return Err(self.fault(packed, ErrorKind::NotAscending, at)),
            Some(p) => p
                .checked_add(delta)
                .ok_or_else(|| self.fault(packed, ErrorKind::OverWidth, at))?,
        };
        if v > max {
            return Err(self.fault(packed, ErrorKind::OverWidth, at));
        }
        let text = match asc.prev {
            None => v.to_string(),
            Some(_) => format!("{v} (delta {delta})"),
        };
        asc.prev = Some(v);
        self.emit(packed, at, text);
        Ok(Value::Int(i128::from(v)))
    }

    // ---- scalars ----

    /// An integer-valued scalar (integer, bool, varint, zigzag, bit set) and its text,
    /// without a row.
    fn scalar(&mut self, wire: &Wire<'_>, packed: bool) -> Res<(i128, String)> {
        let v = match wire {
            Wire::Int {
                signed,
                bits,
                big_endian,
            } => {
                let raw = self.uint_of(u32::from(*bits), packed, *big_endian)?;
                if *signed && *bits < 64 {
                    let shift = 64 - u32::from(*bits);
                    i128::from(((raw << shift) as i64) >> shift)
                } else if *signed {
                    i128::from(raw as i64)
                } else {
                    i128::from(raw)
                }
            }
            // WIRE-29: outside its range, a ranged integer is over its width at its first byte
            // (bit); packed, it is the value less the least.
            Wire::Ranged {
                int,
                min,
                max,
                packed: width,
            } => {
                let at = self.here(packed);
                let v = match width {
                    Some(w) => i128::from(*min) + i128::from(self.take_bits(u32::from(*w))?),
                    None => self.scalar(int, packed)?.0,
                };
                if v < i128::from(*min) || v > i128::from(*max) {
                    return Err(self.fault(packed, ErrorKind::OverWidth, at));
                }
                v
            }
            Wire::Bool { .. } if packed => i128::from(self.take_bits(1)?),
            Wire::Bool { .. } => {
                // A bool byte is 0 or 1; anything else is over its width.
                let at = self.pos;
                match self.take(1)?[0] {
                    b @ (0 | 1) => i128::from(b),
                    _ => return Err(DecodeError::new(ErrorKind::OverWidth, at).into()),
                }
            }
            Wire::Varint { bits } => {
                self.byte_aligned(packed, "a varint")?;
                i128::from(self.varint(*bits)?)
            }
            Wire::Zigzag { bits } => {
                self.byte_aligned(packed, "a zigzag varint")?;
                let n = self.varint(*bits)?;
                // The inverse of (n << 1) ^ (n >> 63).
                i128::from(((n >> 1) as i64) ^ -((n & 1) as i64))
            }
            Wire::Bits(b) => i128::from(self.bits(&self.low.bits_plan(b), packed)?),
            Wire::Bucket(b) => {
                let (code, bucket) = self.bucket(b, packed)?;
                let v = if b.signed {
                    i128::from(((code >> 1) as i64) ^ -((code & 1) as i64))
                } else {
                    i128::from(code)
                };
                let k = b.widths.len();
                let cost = b.prefix_bits(bucket) + u64::from(b.widths[bucket]);
                return Ok((
                    v,
                    format!("{v} (bucket {} of {k}, {cost} bits)", bucket + 1),
                ));
            }
            Wire::Unknown(name) => {
                return Err(Stop::Spec(format!("`{name}` is not an integer type")))
            }
            _ => {
                return Err(Stop::Spec(
                    "a field that is not an integer where one is needed".into(),
                ))
            }
        };
        let text = match wire {
            Wire::Bool { .. } => (v == 1).to_string(),
            _ => v.to_string(),
        };
        Ok((v, text))
    }

    /// A bucket code (LANGUAGE.md, "bucket"): the bucket index in unary, least significant bit
    /// first (bucket `i < k-1` as `i` one bits and a zero bit, the last as `k-1` one bits,
    /// so at most `k-1` bits are read), then the value less the bucket's base in `w_i` bits.
    /// Every code is a value: only truncation can fail. Returns the code and its bucket.
    fn bucket(&mut self, b: &BucketPlan<'_>, packed: bool) -> Res<(u64, usize)> {
        self.packed_only(packed, "a bucket code")?;
        let k = b.widths.len();
        let mut i = 0;
        while i + 1 < k && self.take_bits(1)? == 1 {
            i += 1;
        }
        let (Some(&w), Some(&base)) = (b.widths.get(i), b.bases.get(i)) else {
            return Err(Stop::Spec("a bucket code without buckets".into()));
        };
        let offset = self.take_bits(u32::from(w))?;
        let code = base
            .checked_add(offset)
            .filter(|&c| c <= b.max_code)
            .ok_or_else(|| Stop::Spec("a bucket code past 2^64 values".into()))?;
        Ok((code, i))
    }

    /// A smallest-three quaternion (LANGUAGE.md, "quat(B)"): `largest` as a u2, then three
    /// `iB` components, and its canonical rules in their order, in integers, each failure at
    /// the field's first bit: every component within `[-R, R]` (`R = 2^(B-1) - 1`; the raw
    /// `-2^(B-1)` is `over_width`), then with `D = 2 R^2 - S` (`S` the sum of their squares)
    /// each component below `largest` with `c^2 < D` and each above it with `c^2 <= D`
    /// (`non_canonical`). Returns the value and the row's text.
    fn quat(&mut self, bits: u8, packed: bool) -> Res<(SmallestThree, String)> {
        self.packed_only(packed, "a quaternion")?;
        if !(2..=16).contains(&bits) {
            return Err(Stop::Spec(format!("quat({bits})")));
        }
        let at = self.bit;
        let largest = self.take_bits(2)? as usize;
        let shift = 64 - u32::from(bits);
        let mut rest = [0i64; 3];
        for c in &mut rest {
            *c = ((self.take_bits(u32::from(bits))? << shift) as i64) >> shift;
        }
        let r = (1i64 << (bits - 1)) - 1;
        if rest.iter().any(|c| c.abs() > r) {
            return Err(DecodeError::at_bit(ErrorKind::OverWidth, at).into());
        }
        let d = 2 * r * r - rest.iter().map(|c| c * c).sum::<i64>();
        let index = |i: usize| if i < largest { i } else { i + 1 };
        for (i, c) in rest.iter().enumerate() {
            let ok = if index(i) < largest {
                c * c < d
            } else {
                c * c <= d
            };
            if !ok {
                return Err(DecodeError::at_bit(ErrorKind::NonCanonical, at).into());
            }
        }
        let value = SmallestThree {
            largest: largest as u8,
            // Within [-R, R], R <= 32767.
            rest: rest.map(|c| c as i16),
        };
        let q = value.to_xyzw(bits);
        let text = format!(
            "{} dropped, rest [{}, {}, {}]: ({:.4}, {:.4}, {:.4}, {:.4})",
            ["x", "y", "z", "w"][largest],
            rest[0],
            rest[1],
            rest[2],
            q[0],
            q[1],
            q[2],
            q[3]
        );
        Ok((value, text))
    }

    fn packed_only(&self, packed: bool, what: &str) -> Res<()> {
        if packed {
            Ok(())
        } else {
            Err(Stop::Spec(format!("{what} outside a packed record")))
        }
    }

    /// A bit set's raw bits, refusing a reserved bit, then a bit without the bit it requires.
    fn bits(&mut self, plan: &BitsPlan<'_>, packed: bool) -> Res<u64> {
        let at = self.here(packed);
        let big_endian = self.low.bits_big_endian(plan.bits);
        let raw = self.uint_of(u32::from(plan.bits.width), packed, big_endian)?;
        // LANGUAGE.md: "Every bit not named is reserved: a decoder rejects it when set."
        if raw & plan.reserved != 0 {
            return Err(self.fault(packed, ErrorKind::ReservedBit, at));
        }
        // "`requires OTHER` means this bit may only be set when `OTHER` is also set".
        for bit in &plan.named {
            if let Some((_, other)) = bit.requires {
                if is_set(raw, bit.index) && !is_set(raw, other) {
                    return Err(self.fault(packed, ErrorKind::InvalidCondition, at));
                }
            }
        }
        Ok(raw)
    }

    /// An unsigned integer of `bits` bits: from the bit stream when packed, else whole bytes
    /// in the given order.
    fn uint_of(&mut self, bits: u32, packed: bool, big_endian: bool) -> Res<u64> {
        if packed {
            return self.take_bits(bits);
        }
        if bits == 0 || bits > 64 || !bits.is_multiple_of(8) {
            return Err(Stop::Spec(format!(
                "a {bits}-bit field outside a packed record"
            )));
        }
        let raw = self.take(bits as usize / 8)?;
        let mut v = 0u64;
        let mut push = |b: &u8| v = (v << 8) | u64::from(*b);
        if big_endian {
            raw.iter().for_each(&mut push);
        } else {
            raw.iter().rev().for_each(&mut push);
        }
        Ok(v)
    }

    /// An unsigned LEB128 varint of a value of at most `bits` bits: "at most 10 bytes", and
    /// "a varint that is longer than needed, a value over its field's width" are errors.
    fn varint(&mut self, bits: u8) -> Res<u64> {
        let start = self.pos;
        let mut value = 0u64;
        for i in 0..10u32 {
            let byte = self.take(1)?[0];
            if i == 9 && byte > 1 {
                // The tenth byte holds bit 63 only; reported at the varint's first byte.
                return Err(DecodeError::new(ErrorKind::OverWidth, start).into());
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                if i > 0 && byte == 0 {
                    return Err(DecodeError::new(ErrorKind::NonCanonicalVarint, start).into());
                }
                if bits < 64 && value >> bits != 0 {
                    return Err(DecodeError::new(ErrorKind::OverWidth, start).into());
                }
                return Ok(value);
            }
        }
        Err(DecodeError::new(ErrorKind::OverWidth, start).into())
    }

    // ---- the cursor ----

    fn take(&mut self, n: usize) -> Res<&'a [u8]> {
        if n > self.input.len() - self.pos {
            // The codecs report truncation at the end of the input.
            return Err(DecodeError::new(ErrorKind::Truncated, self.input.len()).into());
        }
        let out = &self.input[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// `width` bits (1 to 64), least significant first, from the bit stream.
    fn take_bits(&mut self, width: u32) -> Res<u64> {
        if width > 64 {
            return Err(Stop::Spec(format!("a {width}-bit field")));
        }
        let width = width as usize;
        if width > self.input.len() * 8 - self.bit {
            // As outside bit streams, truncation is reported where the input ends.
            return Err(DecodeError::at_bit(ErrorKind::Truncated, self.input.len() * 8).into());
        }
        let mut v = 0u64;
        for i in 0..width {
            v |= u64::from(self.bit_at(self.bit + i)) << i;
        }
        self.bit += width;
        Ok(v)
    }

    fn bit_at(&self, bit: usize) -> bool {
        (self.input[bit / 8] >> (bit % 8)) & 1 == 1
    }

    fn byte_aligned(&self, packed: bool, what: &str) -> Res<()> {
        if packed {
            Err(Stop::Spec(format!("{what} in a packed record")))
        } else {
            Ok(())
        }
    }

    /// Where the next field starts: a byte, or a bit of the frame when packed.
    fn here(&self, packed: bool) -> usize {
        if packed {
            self.bit
        } else {
            self.pos
        }
    }

    fn fault(&self, packed: bool, kind: ErrorKind, at: usize) -> Stop {
        Stop::Decode(if packed {
            DecodeError::at_bit(kind, at)
        } else {
            DecodeError::new(kind, at)
        })
    }

    // ---- rows and paths ----

    /// A row for what was read since `start` (a byte, or a bit when packed).
    fn emit(&mut self, packed: bool, start: usize, value: String) {
        if !self.keep_rows {
            return;
        }
        if packed {
            self.emit_bits(start, value);
        } else {
            self.rows.push(Row {
                offset: start,
                bit: None,
                bytes: self.input[start..self.pos].to_vec(),
                path: self.path.clone(),
                value,
            });
        }
    }

    fn emit_bits(&mut self, start: usize, value: String) {
        if !self.keep_rows {
            return;
        }
        let first = start / 8;
        let end = self.bit.div_ceil(8).max(first + 1).min(self.input.len());
        self.rows.push(Row {
            offset: first,
            bit: Some(start),
            bytes: self.input[first.min(end)..end].to_vec(),
            path: self.path.clone(),
            value,
        });
    }

    fn push_field(&mut self, name: &str) -> usize {
        let mark = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(name);
        mark
    }

    fn push_index(&mut self, index: usize) -> usize {
        let mark = self.path.len();
        let _ = write!(self.path, "[{index}]");
        mark
    }
}

/// The value read for the earlier field `name` of the record being read.
fn lookup<'v>(plan: &RecordPlan<'_>, slots: &'v [Option<Value>], name: &str) -> Option<&'v Value> {
    plan.steps
        .iter()
        .position(|s| s.field.name == name)
        .and_then(|i| slots.get(i))
        .and_then(Option::as_ref)
}

/// The integer value of the earlier field a presence test reads: a constant's literal, the
/// value a count or value field was read as, 0 for a field absent on the wire.
fn number(operand: &Operand<'_>, plan: &RecordPlan<'_>, slots: &[Option<Value>]) -> i128 {
    match operand {
        Operand::Constant { value, .. } => *value,
        other => lookup(plan, slots, other.name()).map_or(0, Value::number),
    }
}

fn is_set(raw: u64, index: u8) -> bool {
    index < 64 && (raw >> index) & 1 == 1
}

/// The names of the bits set in `raw`, in declaration order: `POSE | POSE_FULL`.
fn bit_names(plan: &BitsPlan<'_>, raw: u64) -> String {
    let names: Vec<&str> = plan
        .named
        .iter()
        .filter(|bit| is_set(raw, bit.index))
        .map(|bit| bit.name)
        .collect();
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        ackwire_spec::load(&[ackwire_spec::reference_protocol_dir().to_path_buf()])
            .expect("the reference protocol loads")
            .0
    }

    /// (offset, bit, bytes, path, value) of a row.
    type Cell<'a> = (usize, Option<usize>, Vec<u8>, &'a str, &'a str);

    /// The cells of each row.
    fn table(rows: &[Row]) -> Vec<Cell<'_>> {
        rows.iter()
            .map(|r| {
                (
                    r.offset,
                    r.bit,
                    r.bytes.clone(),
                    r.path.as_str(),
                    r.value.as_str(),
                )
            })
            .collect()
    }

    fn acked_bytes() -> Vec<u8> {
        let mut b = vec![6];
        b.extend(100u32.to_le_bytes()); // tick
        b.extend(98u32.to_le_bytes()); // base_tick
        b.extend(7u32.to_le_bytes()); // last_seq
        b.push(2); // input_buffer
        b.push(0b10); // flags: CHECK
        b.extend(1u16.to_le_bytes()); // removed_count
        b.extend(1u16.to_le_bytes()); // changed_count
        b.extend(0xdead_beefu32.to_le_bytes()); // check
        b.extend(9u16.to_le_bytes()); // removed[0]
        b.extend(5u16.to_le_bytes()); // changes[0].eid
        b.extend(0x4003u16.to_le_bytes()); // mask: POSE | HEALTH | POSE_FULL
        b.extend(1.5f32.to_le_bytes());
        b.extend((-2.0f32).to_le_bytes());
        b.extend(0.25f32.to_le_bytes());
        b.extend(16384u16.to_le_bytes()); // yaw: 90 degrees
        b.extend([80, 20]); // health
        b.push(1); // event_count
        b.extend(40u32.to_le_bytes()); // first_serial
        b.push(3); // Hit
        b.extend(5u16.to_le_bytes());
        b.extend(6u16.to_le_bytes());
        b.push(25);
        b
    }

    #[test]
    fn an_acked_frame_reads_field_by_field() {
        let bytes = acked_bytes();
        let rows = explain(&spec(), "acked", &bytes).unwrap();
        let expect: Vec<Cell<'_>> = vec![
            (0, None, vec![6], "kind", "6"),
            (1, None, vec![100, 0, 0, 0], "tick", "100"),
            (5, None, vec![98, 0, 0, 0], "base_tick", "98"),
            (9, None, vec![7, 0, 0, 0], "last_seq", "7"),
            (13, None, vec![2], "input_buffer", "2"),
            (14, None, vec![2], "flags", "CHECK"),
            (15, None, vec![1, 0], "removed_count", "1"),
            (17, None, vec![1, 0], "changed_count", "1"),
            (
                19,
                None,
                vec![0xef, 0xbe, 0xad, 0xde],
                "check",
                "3735928559",
            ),
            (23, None, vec![9, 0], "removed[0]", "9"),
            (25, None, vec![5, 0], "changes[0].eid", "5"),
            (
                27,
                None,
                vec![3, 0x40],
                "changes[0].mask",
                "POSE | HEALTH | POSE_FULL",
            ),
            (
                29,
                None,
                1.5f32.to_le_bytes().to_vec(),
                "changes[0].pose_full.x",
                "1.5",
            ),
            (
                33,
                None,
                (-2.0f32).to_le_bytes().to_vec(),
                "changes[0].pose_full.y",
                "-2",
            ),
            (
                37,
                None,
                0.25f32.to_le_bytes().to_vec(),
                "changes[0].pose_full.z",
                "0.25",
            ),
            (
                41,
                None,
                vec![0, 0x40],
                "changes[0].pose_full.yaw",
                "90 (wire 16384)",
            ),
            (43, None, vec![80], "changes[0].health.hp", "80"),
            (44, None, vec![20], "changes[0].health.armor", "20"),
            (45, None, vec![1], "event_count", "1"),
            (46, None, vec![40, 0, 0, 0], "first_serial", "40"),
            (50, None, vec![3], "events[0]", "Hit (tag 3)"),
            (51, None, vec![5, 0], "events[0].hit.attacker", "5"),
            (53, None, vec![6, 0], "events[0].hit.victim", "6"),
            (55, None, vec![25], "events[0].hit.damage", "25"),
        ];
        assert_eq!(table(&rows), expect);
        // The generated decoder agrees that this is a valid frame.
        use ackwire_codec::Frame as _;
        ackwire_codec::protocol::Acked::decode(&bytes).unwrap();
    }

    #[test]
    fn a_datagram_shows_varints_deltas_and_byte_strings() {
        let mut b = vec![2, 0x96, 0x01, 50, 0, 3]; // version, frame 150, tick, input_ack, stream_tick
        b.extend(0.5f32.to_le_bytes()); // precision
        b.extend([1, 2]); // parts, update_count
        b.extend([10, 0x34, 0x12, 0b1001, 3]); // id 10, spawn_tag, mask X | COMPONENTS, x = -2
        b.extend([2, 7, 3, 0xaa, 0xbb, 9, 0]); // two components: type 7 with 2 bytes, type 9 removed
        b.extend([5, 1, 0, 0]); // id 15 (delta 5), spawn_tag 1, no parts
        let rows = explain(&spec(), "datagram", &b).unwrap();
        let expect: Vec<Cell<'_>> = vec![
            (0, None, vec![2], "version", "2"),
            (1, None, vec![0x96, 0x01], "frame", "150"),
            (3, None, vec![50], "tick", "50"),
            (4, None, vec![0], "input_ack", "0"),
            (5, None, vec![3], "stream_tick", "3"),
            (6, None, 0.5f32.to_le_bytes().to_vec(), "precision", "0.5"),
            (10, None, vec![1], "parts", "1"),
            (11, None, vec![2], "update_count", "2"),
            (12, None, vec![10], "updates[0].id", "10"),
            (13, None, vec![0x34, 0x12], "updates[0].spawn_tag", "4660"),
            (15, None, vec![0b1001], "updates[0].mask", "X | COMPONENTS"),
            (16, None, vec![3], "updates[0].x", "-2"),
            (17, None, vec![2], "updates[0].components", "count 2"),
            (18, None, vec![7], "updates[0].components[0].type", "7"),
            (
                19,
                None,
                vec![3, 0xaa, 0xbb],
                "updates[0].components[0].data",
                "2 bytes: aabb",
            ),
            (22, None, vec![9], "updates[0].components[1].type", "9"),
            (23, None, vec![0], "updates[0].components[1].data", "none"),
            (24, None, vec![5], "updates[1].id", "15 (delta 5)"),
            (25, None, vec![1, 0], "updates[1].spawn_tag", "1"),
            (27, None, vec![0], "updates[1].mask", "(none)"),
        ];
        assert_eq!(table(&rows), expect);
    }

    #[test]
    fn a_packed_snapshot_body_has_bit_offsets() {
        // Body bits, least significant first from bit 24 (byte 3):
        // lost_count = 1 (7 bits), lost[0] = slot 5 (24 bits), generation 2 (8 bits),
        // entry_count = 1 (16 bits), entries[0]: wide 0, gap 3 (7), generation 1 (8),
        // mask HEALTH (4), health.hp 100 (7): 7 + 32 + 16 + 27 = 82 bits, 6 bits of padding.
        let mut w = ackwire_codec::rt::BitWriter::new();
        w.uint(7, 1).unwrap();
        w.uint(24, 5).unwrap();
        w.uint(8, 2).unwrap();
        w.uint(16, 1).unwrap();
        w.bool(false);
        w.uint(7, 3).unwrap();
        w.uint(8, 1).unwrap();
        w.uint(4, 0b0100).unwrap();
        w.uint(7, 100).unwrap();
        let mut bytes = vec![8, 0x34, 0x12];
        w.finish(&mut bytes);
        assert_eq!(bytes.len(), 3 + 11);
        let rows = explain(&spec(), "snapshot", &bytes).unwrap();
        let got: Vec<(usize, Option<usize>, &str, &str)> = rows
            .iter()
            .map(|r| (r.offset, r.bit, r.path.as_str(), r.value.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, None, "kind", "8"),
                (1, None, "sequence", "4660"),
                (3, Some(24), "body.lost_count", "1"),
                (3, Some(31), "body.lost[0].slot", "5"),
                (6, Some(55), "body.lost[0].generation", "2"),
                (7, Some(63), "body.entry_count", "1"),
                (9, Some(79), "body.entries[0].wide", "false"),
                (10, Some(80), "body.entries[0].gap", "3"),
                (10, Some(87), "body.entries[0].generation", "1"),
                (11, Some(95), "body.entries[0].mask", "HEALTH"),
                (12, Some(99), "body.entries[0].health.hp", "100"),
                (13, Some(106), "body", "padding, 6 zero bits"),
            ]
        );
        // A packed field's bytes are every byte it touches.
        assert_eq!(rows[3].bytes, bytes[3..7].to_vec());
        assert_eq!(rows[8].bytes, bytes[10..12].to_vec());
        // A padding bit that is set is a reserved bit, at its bit.
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() |= 0x80;
        let Err(ExplainError::Decode { rows, error }) = explain(&spec(), "snapshot", &bad) else {
            panic!("padding must be zero");
        };
        assert_eq!(
            (error.kind, error.offset, error.bit),
            (ErrorKind::ReservedBit, 13, Some(111))
        );
        assert_eq!(error.path_string(), "body");
        assert_eq!(rows.len(), 11);
    }

    fn sink() -> Spec {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/tests/sink/sink.wire");
        ackwire_spec::load(&[path]).expect("the sink loads").0
    }

    /// The sink's Motion frame, written bit by bit: turned, quat(9), gap, step, full, x,
    /// two moves ascending by eid, two ascending marks, one slot, no orients, one code.
    fn motion_bits(marks: [u64; 2], orient_x: i64) -> Vec<u8> {
        let mut w = ackwire_codec::rt::BitWriter::new();
        w.bool(true);
        w.uint(2, 3).unwrap(); // w dropped
        for c in [orient_x, 0, -7] {
            w.int(9, c).unwrap();
        }
        w.bucket(&[0, 4, 8], 17).unwrap(); // gap: bucket 3 of 3
        w.zbucket(&[2, 5, 9], -3).unwrap();
        w.bucket(&[64], u64::MAX).unwrap();
        w.zbucket(&[3, 7], 5).unwrap(); // x = 5/512
        w.uint(4, 2).unwrap(); // moved
        for (eid, near) in [(4u64, -1i64), (2, 2)] {
            w.bucket(&[0, 4, 8], eid).unwrap(); // eid 4, then 4 + 2
            w.bool(false); // not wide
            w.zbucket(&[0, 3], near).unwrap();
            w.uint(2, 3).unwrap(); // rot: w dropped, identity
            for _ in 0..3 {
                w.int(4, 0).unwrap();
            }
        }
        w.uint(3, 2).unwrap();
        for m in marks {
            w.bucket(&[1, 6], m).unwrap();
        }
        w.uint(2, 1).unwrap();
        w.uint(5, 9).unwrap();
        w.uint(2, 0).unwrap(); // orients
        w.uint(2, 1).unwrap();
        w.zbucket(&[1, 4], -4).unwrap();
        let mut bytes = vec![201];
        w.finish(&mut bytes);
        bytes
    }

    #[test]
    fn quaternions_and_bucket_codes_show_their_values_and_bits() {
        let bytes = motion_bits([1, 64], 100);
        let rows = explain(&sink(), "motion", &bytes).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(Option<usize>, &str, &str)> = rows
            .iter()
            .map(|r| (r.bit, r.path.as_str(), r.value.as_str()))
            .collect();
        assert_eq!(
            &got[..9],
            &[
                (None, "kind", "201"),
                (Some(8), "body.turned", "true"),
                (
                    Some(9),
                    "body.orient",
                    "w dropped, rest [100, 0, -7]: (0.2773, 0.0000, -0.0194, 0.9606)"
                ),
                (Some(38), "body.gap", "17 (bucket 3 of 3, 10 bits)"),
                (Some(48), "body.step", "-3 (bucket 2 of 3, 7 bits)"),
                (
                    Some(55),
                    "body.full",
                    "18446744073709551615 (bucket 1 of 1, 64 bits)"
                ),
                // zigzag 10: the last bucket, 1 prefix bit and 7.
                (Some(119), "body.x", "0.009765625 (wire 5)"),
                (Some(127), "body.moved", "2"),
                (Some(131), "body.moves[0].eid", "4"),
            ]
        );
        let find = |path: &str| {
            rows.iter()
                .find(|r| r.path == path)
                .map(|r| r.value.as_str())
                .unwrap_or_else(|| panic!("no row {path}"))
        };
        assert_eq!(find("body.moves[1].eid"), "6 (delta 2)");
        assert_eq!(find("body.moves[0].near"), "-1 (bucket 2 of 2, 4 bits)");
        assert_eq!(find("body.marks[0]"), "1");
        assert_eq!(find("body.marks[1]"), "65 (delta 64)");
        assert_eq!(find("body.codes[0]"), "-4 (bucket 2 of 2, 5 bits)");
    }

    #[test]
    fn quaternion_and_ascending_faults_are_at_the_field_s_bit() {
        let fault = |bytes: &[u8]| match explain(&sink(), "motion", bytes) {
            Err(ExplainError::Decode { error, .. }) => (error.kind, error.bit, error.path_string()),
            other => panic!("{other:?}"),
        };
        // x = 255 ties w's magnitude (D = 130050 - 255^2 - 49 < 255^2): not canonical.
        assert_eq!(
            fault(&motion_bits([1, 64], 255)),
            (ErrorKind::NonCanonical, Some(9), "body.orient".to_string())
        );
        // The raw -256 is over its width.
        assert_eq!(
            fault(&motion_bits([1, 64], -256)),
            (ErrorKind::OverWidth, Some(9), "body.orient".to_string())
        );
        // 1 + 65 passes the largest mark, 65.
        let bytes = motion_bits([1, 65], 100);
        let (kind, bit, path) = fault(&bytes);
        assert_eq!(
            (kind, path.as_str()),
            (ErrorKind::OverWidth, "body.marks[1]")
        );
        // A mark's difference of 0 is not ascending.
        let (kind, bit0, path) = fault(&motion_bits([1, 0], 100));
        assert_eq!(
            (kind, path.as_str()),
            (ErrorKind::NotAscending, "body.marks[1]")
        );
        assert_eq!(bit, bit0, "both at the second mark's first bit");
    }

    #[test]
    fn a_truncated_frame_keeps_the_rows_before_the_fault() {
        let bytes = acked_bytes();
        let cut = &bytes[..31]; // inside changes[0].pose_full.x
        let Err(ExplainError::Decode { rows, error }) = explain(&spec(), "acked", cut) else {
            panic!("a truncated frame is an error");
        };
        assert_eq!(rows.len(), 12);
        assert_eq!(rows.last().unwrap().path, "changes[0].mask");
        assert_eq!((error.kind, error.offset), (ErrorKind::Truncated, 31));
        assert_eq!(error.path_string(), "changes[0].pose_full.x");
        let text = render_failure(&rows, &error);
        assert!(
            text.ends_with("error: truncated at byte 31, field changes[0].pose_full.x\n"),
            "{text}"
        );
        use ackwire_codec::Frame as _;
        assert_eq!(
            ackwire_codec::protocol::Acked::decode(cut).unwrap_err(),
            error
        );
    }

    #[test]
    fn rendering_aligns_columns_and_elides_long_bytes() {
        let rows = vec![
            Row {
                offset: 0,
                bit: None,
                bytes: vec![2],
                path: "version".into(),
                value: "2".into(),
            },
            Row {
                offset: 1,
                bit: None,
                bytes: (0..20).collect(),
                path: "updates[0].components[0].data".into(),
                value: "19 bytes".into(),
            },
            Row {
                offset: 3,
                bit: Some(29),
                bytes: vec![0xff],
                path: "body.x".into(),
                value: "1".into(),
            },
        ];
        let text = render(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(lines[0].starts_with("offset  bytes"));
        let field_col = lines[0].find("field").unwrap();
        assert_eq!(lines[1].find("version"), Some(field_col));
        assert_eq!(lines[2].find("updates"), Some(field_col));
        assert!(lines[2].contains("00 01 02 03 04 05 06 07"));
        assert!(lines[3]
            .trim_start()
            .starts_with("08 09 0a 0b 0c 0d 0e 0f …"));
        assert!(lines[4].starts_with("3.5 "));
    }

    #[test]
    fn an_unknown_frame_names_the_known_ones() {
        let Err(ExplainError::UnknownFrame { name, known }) = explain(&spec(), "nope", &[]) else {
            panic!("no frame is called nope");
        };
        assert_eq!(name, "nope");
        assert_eq!(known, ackwire_codec::protocol::FRAME_NAMES);
    }
}
