//! The coded frame (kind 13, `docs/spec/coded.md`) of a state bound at run time: what
//! `spec/src/gen/rust/coded.rs` prints as the state's `AckedCoded`, done from the state's
//! [`CodedPlan`](ackwire_spec::state::CodedPlan) and the packed change's lowering, through
//! `ackwire_rt::coded`'s encoder, decoder and `extrapolate`. The header, removals and events are
//! the packed frame's, written and read by the run-time codec; only the body is coded here.
//!
//! Rules: CODE-1 (the packed frame with the coded body), CODE-2 (`older`, none in a keyframe),
//! CODE-10..CODE-14 (what each value codes, predicted from the base and the older snapshot),
//! CODE-15 (a model per field, found by its path in the plan).

use super::{Binding, Interp, Record};
use crate::interp;
use ackwire_codec::acked::{AckedFrame, FrameOf};
use ackwire_codec::rt::coded::{
    extrapolate, CodedBasis, CodedBasisTicks, CodedDecoder, CodedEncoder, CodedSink,
};
use ackwire_codec::rt::range::Prob;
use ackwire_codec::rt::{Reader, SmallestThree};
use ackwire_codec::{DecodeError, EncodeError, ErrorKind};
use ackwire_spec::lower::{RecordPlan, Role, Step, Test, Wire};
use ackwire_spec::model::CodedForm;
use serde_json::{json, Map, Value as Json};

/// How one value of a change is predicted (the generator's `Predict`).
enum Predict {
    /// Coded as its packed value (CODE-10..CODE-12).
    None,
    /// `coded velocity` (CODE-13): a step of the record's word `at`, within `min..=max`.
    Velocity { at: usize, min: i64, max: i64 },
    /// A quaternion (CODE-14), on the base's word `at` of group `group` when `coded base`.
    Quat {
        bits: u8,
        base: Option<(usize, usize)>,
    },
}

/// The base's and the older snapshot's records of a change's entity (none in a keyframe).
type Records = (Option<Record>, Option<Record>);

/// Where the coded frame's header ends and its events begin, in the packed frame's bytes.
struct Split {
    /// The packed frame's bytes before its body (its header and removals).
    head: usize,
    /// Where its body ends.
    tail: usize,
}

impl Binding {
    /// The starting probabilities of the coded frame's slots (CODE-16): its tables', else 2048.
    fn coded_tables(&self) -> Vec<Prob> {
        let Some(c) = &self.plan.coded else {
            return Vec::new();
        };
        if c.probs.is_empty() {
            vec![Prob::HALF; c.slots()]
        } else {
            c.probs
                .iter()
                .map(|p| Prob::new(*p).unwrap_or(Prob::HALF))
                .collect()
        }
    }

    /// Model `path`'s first slot and `W` (W = 0 codes nothing, for a model the plan lacks).
    fn model(&self, path: &str) -> (usize, u8) {
        self.plan
            .coded
            .as_ref()
            .and_then(|c| c.model(path))
            .map_or((0, 0), |m| (m.at, m.w))
    }

    /// The packed change's lowering, as an element of the ascending list (its id a key).
    fn packed_change(&self) -> Option<&RecordPlan<'static>> {
        let p = self.profile(true)?;
        self.low.plan(&p.change, Some("eid"))
    }

    /// How value `sub` of the change's field `field` (or the field itself) is predicted.
    fn predict(&self, field: &str, sub: &str, w: &Wire<'_>) -> Predict {
        for (gi, g) in self.plan.groups.iter().enumerate() {
            for form in g.forms.iter().filter(|x| x.field == field) {
                let Some(wp) = form.wire.iter().find(|x| x.name == sub) else {
                    continue;
                };
                match (wp.coded, w) {
                    (Some(CodedForm::Velocity), _) => {
                        let (min, max) = wp.range.unwrap_or((0, 0));
                        return Predict::Velocity {
                            at: self.at(gi, wp.field),
                            min: min as i64,
                            max: max as i64,
                        };
                    }
                    (coded, Wire::Quat { bits }) => {
                        // The base's quaternion, while the base holds its group (an optional
                        // group's presence bit; a group always held has none).
                        let base =
                            (coded == Some(CodedForm::Base)).then(|| (gi, self.at(gi, wp.field)));
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

    /// The base's quaternion a `coded base` value is coded against, when the base holds it.
    fn base_quat(
        &self,
        records: &Records,
        base: Option<(usize, usize)>,
        bits: u8,
    ) -> Option<SmallestThree> {
        let (g, at) = base?;
        let r = records.0.as_ref()?;
        self.present(r, g)
            .then(|| SmallestThree::from_word(r.values[at] as u64, bits))
    }

    /// CODE-13's prediction of a step of word `at`: the motion from the older snapshot to the
    /// base, extrapolated over the frame's gap and clamped to the step's range.
    fn velocity(records: &Records, at: usize, ticks: &CodedBasisTicks, min: i64, max: i64) -> i64 {
        match records {
            (Some(b), Some(o)) if ticks.older != 0 => {
                let gap = ticks.tick.wrapping_sub(ticks.base_tick).min(65535);
                extrapolate(
                    b.values[at].saturating_sub(o.values[at]),
                    gap,
                    u32::from(ticks.older),
                )
                .clamp(min, max)
            }
            _ => 0,
        }
    }

    fn records(eid: u64, ticks: &CodedBasisTicks, basis: &dyn CodedBasis<Record>) -> Records {
        match u16::try_from(eid) {
            Ok(eid) if !ticks.keyframe => {
                let older = if ticks.older == 0 {
                    None
                } else {
                    basis.older(eid)
                };
                (basis.base(eid), older)
            }
            _ => (None, None),
        }
    }

    /// The bits of a bit set's JSON form (its named bits).
    fn bits_of(&self, set: &str, j: &Json) -> u64 {
        let named = super::named_bits(self.spec, set);
        j.as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| named.iter().find(|b| Some(&b.name[..]) == n.as_str()))
            .fold(0, |acc, b| acc | 1 << b.index)
    }

    /// A bit set's JSON form from its bits; a bit it does not name is `reserved_bit`, a bit without the one it requires `invalid_condition`.
    fn bits_json(&self, set: &str, v: u64, at: usize) -> Result<Json, DecodeError> {
        let named = super::named_bits(self.spec, set);
        let known = named.iter().fold(0u64, |acc, b| acc | 1 << b.index);
        if v & !known != 0 {
            return Err(DecodeError::new(ErrorKind::ReservedBit, at));
        }
        for b in &named {
            if v >> b.index & 1 != 0 && b.requires.is_some_and(|r| v >> r & 1 == 0) {
                return Err(DecodeError::new(ErrorKind::InvalidCondition, at));
            }
        }
        Ok(Json::Array(
            named
                .iter()
                .filter(|b| v >> b.index & 1 != 0)
                .map(|b| json!(b.name))
                .collect(),
        ))
    }

    /// Whether a step of the packed change is present under `mask` (its tests on the mask).
    fn step_present(s: &Step<'_>, mask: &[String]) -> bool {
        s.presence.as_ref().is_none_or(|p| {
            p.tests.iter().all(|t| match t {
                Test::Bit { bit, negated, .. } => mask.iter().any(|m| m == bit) != *negated,
                _ => false,
            })
        })
    }

    /// The coded frame's bytes: the packed frame's header and events around the coded body
    /// (CODE-1), its changes predicted from `basis`.
    pub(super) fn encode_coded(
        &self,
        frame: &FrameOf<Interp>,
        older: u8,
        basis: &dyn CodedBasis<Record>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let (Some(coded), Some(change)) = (&self.plan.coded, self.packed_change()) else {
            return Err(EncodeError::new(ErrorKind::InvalidCondition).field("body"));
        };
        // CODE-2: a keyframe has no older snapshot.
        ackwire_codec::rt::presence(older != 0, older != 0 && !frame.keyframe)
            .map_err(|e| e.field("older"))?;
        let mut j = self.frame_json(frame, true);
        let changes = std::mem::replace(&mut j["body"]["changes"], json!([]));
        let (packed, split) = self.packed_parts(&j)?;
        out.push(coded.kind);
        out.extend_from_slice(&packed[1..split.head]);
        out.push(older);
        let changes = changes.as_array().map_or(&[][..], Vec::as_slice);
        out.extend_from_slice(&(changes.len() as u16).to_le_bytes());
        let mut probs = self.coded_tables();
        let mut stream = CodedEncoder::new(&mut probs);
        let ticks = CodedBasisTicks {
            tick: frame.tick,
            base_tick: frame.base_tick,
            keyframe: frame.keyframe,
            older,
        };
        let mut prev = None;
        for (i, c) in changes.iter().enumerate() {
            self.code_change(change, c, &mut stream, &mut prev, &ticks, basis)
                .map_err(|e| e.index(i).field("changes").field("body"))?;
        }
        stream
            .finish(changes.len(), out)
            .map_err(|e| e.field("body").field("coded_len"))?;
        out.extend_from_slice(&packed[split.tail..]);
        Ok(())
    }

    /// The packed frame `j` (its body empty) as bytes, and where its body lies in them.
    fn packed_parts(&self, j: &Json) -> Result<(Vec<u8>, Split), EncodeError> {
        let name = self.frame_name(true);
        let shape =
            |e: String| EncodeError::new(ErrorKind::InvalidCondition).field(super::leak(e).0);
        let plan = interp::plan(&self.low, &name).map_err(|e| shape(e.to_string()))?;
        let value = interp::read_json(&self.low, &name, j).map_err(|e| shape(e.to_string()))?;
        let (bytes, trace) =
            interp::encode::encode_traced(&self.low, plan, &value, &[]).map_err(|f| match f {
                interp::encode::Fault::Encode(e) => e,
                interp::encode::Fault::Shape(s) => shape(s),
            })?;
        let head = trace
            .fields
            .iter()
            .filter(|f| f.path.starts_with("body."))
            .map(|f| f.start / 8)
            .min();
        let tail = trace
            .bodies
            .iter()
            .find(|b| b.path == "body")
            .map(|b| b.end / 8);
        match (head, tail) {
            (Some(head), Some(tail)) if head <= tail && tail <= bytes.len() => {
                Ok((bytes, Split { head, tail }))
            }
            _ => Err(shape(format!("frame {name} has no packed body to code"))),
        }
    }

    /// One change's values into `sink` (CODE-10..CODE-14), as the generated `code_change`.
    fn code_change(
        &self,
        change: &RecordPlan<'_>,
        c: &Json,
        sink: &mut impl CodedSink,
        prev: &mut Option<u64>,
        ticks: &CodedBasisTicks,
        basis: &dyn CodedBasis<Record>,
    ) -> Result<(), EncodeError> {
        let mut records = (None, None);
        for s in &change.steps {
            let name = &s.field.name[..];
            let Some(v) = c.get(name).filter(|v| !v.is_null()) else {
                continue;
            };
            if s.role == Role::Key {
                let key = v.as_u64().unwrap_or(u64::MAX);
                if key > key_max(&s.wire) {
                    return Err(EncodeError::new(ErrorKind::OverWidth).field(field(name)));
                }
                let gap = ackwire_codec::rt::ascending_delta(*prev, key)
                    .map_err(|e| e.field(field(name)))?;
                *prev = Some(key);
                let (m, w) = self.model(name);
                sink.value(m, w, gap).map_err(|e| e.field(field(name)))?;
                records = Self::records(key, ticks, basis);
                continue;
            }
            if let Wire::Record { record, .. } = &s.wire {
                let Some(sub) = self.low.plan(&record.name, None) else {
                    continue;
                };
                for x in &sub.steps {
                    let path = format!("{name}.{}", x.field.name);
                    let p = self.predict(name, &x.field.name, &x.wire);
                    let xv = v.get(&x.field.name).unwrap_or(&Json::Null);
                    self.code_value(sink, &path, &x.wire, xv, &p, &records, ticks)
                        .map_err(|e| e.field(field(&x.field.name)).field(field(name)))?;
                }
            } else {
                let p = self.predict(name, "", &s.wire);
                self.code_value(sink, name, &s.wire, v, &p, &records, ticks)
                    .map_err(|e| e.field(field(name)))?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn code_value(
        &self,
        sink: &mut impl CodedSink,
        path: &str,
        w: &Wire<'_>,
        v: &Json,
        predict: &Predict,
        records: &Records,
        ticks: &CodedBasisTicks,
    ) -> Result<(), EncodeError> {
        let over = || EncodeError::new(ErrorKind::OverWidth);
        let (m, width) = self.model(path);
        match predict {
            Predict::Velocity { at, min, max } => {
                let x = v.as_i64().ok_or_else(over)?;
                if !(*min..=*max).contains(&x) {
                    return Err(over());
                }
                let p = Self::velocity(records, *at, ticks, *min, *max);
                return sink.signed(m, width, x - p);
            }
            Predict::Quat { bits, base } => {
                let q = self
                    .value_from_json(&ackwire_spec::state::Value::Quat { bits: *bits }, v)
                    .map_err(|_| over())?;
                let q = SmallestThree::from_word(q as u64, *bits);
                let b = self.base_quat(records, *base, *bits);
                return self.code_quat(sink, path, &q, b, *bits);
            }
            Predict::None => {}
        }
        match w {
            Wire::Int { signed: false, .. } => sink.value(m, width, v.as_u64().ok_or_else(over)?),
            Wire::Int { signed: true, .. } => sink.signed(m, width, v.as_i64().ok_or_else(over)?),
            Wire::Bucket(bp) if !bp.signed => {
                let x = v.as_u64().ok_or_else(over)?;
                if i128::from(x) > bp.max_value {
                    return Err(over());
                }
                sink.value(m, width, x)
            }
            Wire::Bucket(bp) => {
                let x = v.as_i64().ok_or_else(over)?;
                if !(bp.min_value..=bp.max_value).contains(&i128::from(x)) {
                    return Err(over());
                }
                sink.signed(m, width, x)
            }
            Wire::Float { bits: 32, .. } => {
                let x = v.as_f64().ok_or_else(over)? as f32;
                sink.value(m, 32, u64::from(x.to_bits()))
            }
            Wire::Float { .. } => sink.value(m, 64, v.as_f64().ok_or_else(over)?.to_bits()),
            Wire::Bool { .. } => sink.value(m, 1, u64::from(v.as_bool().ok_or_else(over)?)),
            Wire::Quant {
                num,
                den,
                signed,
                min,
                max,
                ..
            } => {
                let x = v.as_f64().ok_or_else(over)?;
                let s = *num as f64 / *den as f64;
                if *signed {
                    let q = ackwire_codec::rt::quantize_int(x, s, *min as i64, *max as i64)?;
                    sink.signed(m, width, q)
                } else {
                    let q = ackwire_codec::rt::quantize_uint(x, s, *max as u64)?;
                    sink.value(m, width, q)
                }
            }
            Wire::Bits(b) => sink.value(m, width, self.bits_of(&b.name, v)),
            Wire::Ranged { min, max, .. } => {
                let x = v.as_i64().ok_or_else(over)?;
                ackwire_codec::rt::in_range(i128::from(x), *min, *max)?;
                sink.value(m, width, (i128::from(x) - i128::from(*min)) as u64)
            }
            _ => Err(EncodeError::new(ErrorKind::InvalidCondition).field(field(path))),
        }
    }

    /// A `quat(bits)` as the generated `code_quat` codes it (CODE-14).
    fn code_quat(
        &self,
        sink: &mut impl CodedSink,
        path: &str,
        q: &SmallestThree,
        base: Option<SmallestThree>,
        bits: u8,
    ) -> Result<(), EncodeError> {
        q.check(bits).map_err(EncodeError::new)?;
        if let Some(b) = base {
            let same = b.largest == q.largest;
            let (m, w) = self.model(&format!("{path}.same"));
            sink.value(m, w, u64::from(same))
                .map_err(|e| e.field("same"))?;
            if same {
                for (i, (c, bc)) in q.rest.iter().zip(b.rest).enumerate() {
                    let (m, w) = self.model(&format!("{path}.d{i}"));
                    sink.signed(m, w, i64::from(*c) - i64::from(bc))
                        .map_err(|e| e.field("d"))?;
                }
                return Ok(());
            }
        }
        let (m, w) = self.model(&format!("{path}.largest"));
        sink.value(m, w, u64::from(q.largest))
            .map_err(|e| e.field("largest"))?;
        let mask = (1u64 << bits) - 1;
        for (i, c) in q.rest.iter().enumerate() {
            let (m, w) = self.model(&format!("{path}.c{i}"));
            sink.value(m, w, (i64::from(*c) as u64) & mask)
                .map_err(|e| e.field("c"))?;
        }
        Ok(())
    }

    /// What a coded frame's basis is looked up by, from its prefix (CODE-2, CODE-3).
    pub(super) fn coded_basis(&self, bytes: &[u8]) -> Result<CodedBasisTicks, DecodeError> {
        let (ticks, _) = self.coded_head(bytes)?;
        Ok(ticks)
    }

    /// The coded frame's header up to `older`: what its basis is looked up by, and where
    /// `older` is.
    fn coded_head(&self, bytes: &[u8]) -> Result<(CodedBasisTicks, usize), DecodeError> {
        let kind = self.plan.coded.as_ref().map_or(0, |c| c.kind);
        let mut r = Reader::new(bytes);
        if r.u8().map_err(|e| e.field("kind"))? != kind {
            return Err(DecodeError::new(ErrorKind::BadConstant, 0).field("kind"));
        }
        let tick = r.u32().map_err(|e| e.field("tick"))?;
        let base_tick = r.u32().map_err(|e| e.field("base_tick"))?;
        r.u32().map_err(|e| e.field("last_seq"))?;
        r.u8().map_err(|e| e.field("input_buffer"))?;
        let mut flags = 0u64;
        for i in 0..self.acked_flags.width.div_ceil(8) {
            flags |= u64::from(r.u8().map_err(|e| e.field("flags"))?) << (8 * i);
        }
        let removed = r.u16().map_err(|e| e.field("removed_count"))?;
        if self.acked_flags.check.is_some_and(|b| flags >> b & 1 != 0) {
            r.u32().map_err(|e| e.field("check"))?;
        }
        r.take(2 * usize::from(removed))
            .map_err(|e| e.field("removed"))?;
        let at = r.pos();
        let older = r.u8().map_err(|e| e.field("older"))?;
        let keyframe = self
            .acked_flags
            .keyframe
            .is_some_and(|b| flags >> b & 1 != 0);
        Ok((
            CodedBasisTicks {
                tick,
                base_tick,
                keyframe,
                older,
            },
            at,
        ))
    }

    /// A coded frame read against `basis`: its header and events by the packed frame's
    /// reader, its changes decoded from the stream (CODE-1..CODE-5).
    pub(super) fn decode_coded(
        &self,
        bytes: &[u8],
        basis: &dyn CodedBasis<Record>,
    ) -> Result<FrameOf<Interp>, DecodeError> {
        let (ticks, at_older) = self.coded_head(bytes)?;
        // CODE-2: a keyframe has no older snapshot.
        if ticks.keyframe && ticks.older != 0 {
            return Err(DecodeError::new(ErrorKind::InvalidCondition, at_older).field("older"));
        }
        let Some(change) = self.packed_change() else {
            return Err(DecodeError::new(ErrorKind::InvalidCondition, 0).field("body"));
        };
        let mut r = Reader::new(bytes);
        r.take(at_older + 1)?;
        let count = usize::from(
            r.u16()
                .map_err(|e| e.field("changed_count").field("body"))?,
        );
        let at = r.pos() + 2;
        let mut probs = self.coded_tables();
        let mut stream = CodedDecoder::new(&mut r, count, &mut probs)
            .map_err(|e| e.field("coded_len").field("body"))?;
        let mut changes = Vec::new();
        let mut prev = None;
        for i in 0..count {
            changes.push(
                self.read_change(change, &mut stream, &mut prev, at, &ticks, basis)
                    .map_err(|e| e.index(i).field("changes").field("body"))?,
            );
        }
        stream.finish().map_err(|e| e.field("body"))?;
        let tail = r.pos();
        // The packed frame of the same header and events, its body empty, read by the
        // run-time codec; its changes are the decoded ones.
        let empty: AckedFrame<Json, Json> = AckedFrame::empty();
        let (none, split) = self
            .packed_parts(&self.frame_json(&empty, true))
            .map_err(|_| DecodeError::new(ErrorKind::InvalidCondition, 0))?;
        let mut packed = Vec::with_capacity(bytes.len());
        packed.push(none[0]);
        packed.extend_from_slice(&bytes[1..at_older]);
        packed.extend_from_slice(&none[split.head..split.tail]);
        packed.extend_from_slice(&bytes[tail..]);
        let mut frame = self.decode_frame(&packed, true)?;
        frame.changes = changes.iter().map(|c| self.unpack_change(c)).collect();
        Ok(frame)
    }

    fn read_change(
        &self,
        change: &RecordPlan<'_>,
        stream: &mut CodedDecoder<'_, '_>,
        prev: &mut Option<u64>,
        at: usize,
        ticks: &CodedBasisTicks,
        basis: &dyn CodedBasis<Record>,
    ) -> Result<Json, DecodeError> {
        let over = || DecodeError::new(ErrorKind::OverWidth, at);
        let mut out = Map::new();
        let mut records = (None, None);
        let mut mask: Vec<String> = Vec::new();
        for s in &change.steps {
            let name = &s.field.name[..];
            if s.role == Role::Key {
                let (m, w) = self.model(name);
                let gap = stream.value(m, w).map_err(|e| e.field(field(name)))?;
                let v = match *prev {
                    None => gap,
                    Some(_) if gap == 0 => {
                        return Err(DecodeError::new(ErrorKind::NotAscending, at).field(field(name)))
                    }
                    Some(p) => p.checked_add(gap).ok_or_else(over)?,
                };
                if v > key_max(&s.wire) {
                    return Err(over().field(field(name)));
                }
                *prev = Some(v);
                records = Self::records(v, ticks, basis);
                out.insert(name.to_string(), json!(v));
                continue;
            }
            if !Self::step_present(s, &mask) {
                continue;
            }
            let v = if let Wire::Record { record, .. } = &s.wire {
                let Some(sub) = self.low.plan(&record.name, None) else {
                    continue;
                };
                let mut body = Map::new();
                for x in &sub.steps {
                    let path = format!("{name}.{}", x.field.name);
                    let p = self.predict(name, &x.field.name, &x.wire);
                    let v = self
                        .read_value(stream, &path, &x.wire, &p, &records, ticks, at)
                        .map_err(|e| e.field(field(&x.field.name)).field(field(name)))?;
                    body.insert(x.field.name.clone(), v);
                }
                Json::Object(body)
            } else {
                let p = self.predict(name, "", &s.wire);
                self.read_value(stream, name, &s.wire, &p, &records, ticks, at)
                    .map_err(|e| e.field(field(name)))?
            };
            if s.presence.is_none() && matches!(s.wire, Wire::Bits(_)) && mask.is_empty() {
                mask = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect();
            }
            out.insert(name.to_string(), v);
        }
        Ok(Json::Object(out))
    }

    #[allow(clippy::too_many_arguments)]
    fn read_value(
        &self,
        stream: &mut CodedDecoder<'_, '_>,
        path: &str,
        w: &Wire<'_>,
        predict: &Predict,
        records: &Records,
        ticks: &CodedBasisTicks,
        at: usize,
    ) -> Result<Json, DecodeError> {
        let over = || DecodeError::new(ErrorKind::OverWidth, at);
        let (m, width) = self.model(path);
        match predict {
            Predict::Velocity { at: word, min, max } => {
                let d = stream.signed(m, width)?;
                let p = Self::velocity(records, *word, ticks, *min, *max);
                return match p.checked_add(d) {
                    Some(v) if (*min..=*max).contains(&v) => Ok(json!(v)),
                    _ => Err(over()),
                };
            }
            Predict::Quat { bits, base } => {
                let b = self.base_quat(records, *base, *bits);
                let q = self.read_quat(stream, path, b, *bits, at)?;
                return Ok(json!({"largest": q.largest, "rest": q.rest}));
            }
            Predict::None => {}
        }
        Ok(match w {
            Wire::Int { signed: false, .. } => json!(stream.value(m, width)?),
            Wire::Int { signed: true, .. } => json!(stream.signed(m, width)?),
            Wire::Bucket(bp) if !bp.signed => {
                let v = stream.value(m, width)?;
                if i128::from(v) > bp.max_value {
                    return Err(over());
                }
                json!(v)
            }
            Wire::Bucket(bp) => {
                let v = stream.signed(m, width)?;
                if !(bp.min_value..=bp.max_value).contains(&i128::from(v)) {
                    return Err(over());
                }
                json!(v)
            }
            Wire::Float { bits: 32, .. } => {
                json!(f64::from(f32::from_bits(stream.value(m, 32)? as u32)))
            }
            Wire::Float { .. } => json!(f64::from_bits(stream.value(m, 64)?)),
            Wire::Bool { .. } => json!(stream.value(m, 1)? == 1),
            Wire::Quant {
                num,
                den,
                signed,
                min,
                max,
                wire,
                ..
            } => {
                let s = *num as f64 / *den as f64;
                let bounded = matches!(wire.as_ref(), Wire::Bucket(_));
                let q = if *signed {
                    i128::from(stream.signed(m, width)?)
                } else {
                    i128::from(stream.value(m, width)?)
                };
                if bounded && !(*min..=*max).contains(&q) {
                    return Err(over());
                }
                json!(q as f64 * s)
            }
            Wire::Bits(b) => self.bits_json(&b.name, stream.value(m, width)?, at)?,
            Wire::Ranged { min, max, .. } => {
                let v = stream.value(m, width)?;
                let v = i64::try_from(v)
                    .ok()
                    .and_then(|v| v.checked_add(*min))
                    .filter(|v| v <= max)
                    .ok_or_else(over)?;
                json!(v)
            }
            _ => return Err(DecodeError::new(ErrorKind::InvalidCondition, at).field(field(path))),
        })
    }

    /// A `quat(bits)` as the generated `read_quat` reads it (CODE-14).
    fn read_quat(
        &self,
        stream: &mut CodedDecoder<'_, '_>,
        path: &str,
        base: Option<SmallestThree>,
        bits: u8,
        at: usize,
    ) -> Result<SmallestThree, DecodeError> {
        let half = 1i64 << (bits - 1);
        let same = match base {
            Some(_) => {
                let (m, w) = self.model(&format!("{path}.same"));
                stream.value(m, w).map_err(|e| e.field("same"))? == 1
            }
            None => false,
        };
        let q = match base {
            Some(b) if same => {
                let mut rest = b.rest;
                for (i, c) in rest.iter_mut().enumerate() {
                    let (m, w) = self.model(&format!("{path}.d{i}"));
                    let d = stream.signed(m, w).map_err(|e| e.field("d"))?;
                    let v = i64::from(*c) + d;
                    if !(-half..half).contains(&v) {
                        return Err(DecodeError::new(ErrorKind::OverWidth, at));
                    }
                    *c = v as i16;
                }
                SmallestThree {
                    largest: b.largest,
                    rest,
                }
            }
            _ => {
                let (m, w) = self.model(&format!("{path}.largest"));
                let largest = stream.value(m, w).map_err(|e| e.field("largest"))? as u8;
                // CODE-14: the base's largest component travels as `same`, never again whole.
                if base.is_some_and(|b| b.largest == largest) {
                    return Err(
                        DecodeError::new(ErrorKind::NonCanonical, stream.offset()).field("largest")
                    );
                }
                let mut rest = [0i16; 3];
                for (i, c) in rest.iter_mut().enumerate() {
                    let (m, w) = self.model(&format!("{path}.c{i}"));
                    let raw = stream.value(m, w).map_err(|e| e.field("c"))? as i64;
                    *c = (if raw >= half { raw - 2 * half } else { raw }) as i16;
                }
                SmallestThree { largest, rest }
            }
        };
        q.check(bits).map_err(|kind| DecodeError::new(kind, at))?;
        Ok(q)
    }
}

/// The largest id a key of wire form `w` holds.
fn key_max(w: &Wire<'_>) -> u64 {
    match w {
        Wire::Bucket(bp) => bp.max_code,
        Wire::Int { bits, .. } => u64::try_from((1u128 << bits) - 1).unwrap_or(u64::MAX),
        _ => u64::MAX,
    }
}

/// A field name as the errors' static path holds it.
fn field(name: &str) -> &'static str {
    super::leak(name.to_string()).0
}

#[cfg(test)]
mod tests {
    use super::super::InterpCoded;
    use crate::sessions::state::{sessions, stream_vectors, Profile};
    use crate::streams::Side;
    use ackwire_codec::acked::AckedSchema;
    use std::path::Path;

    /// Hostile bytes get an error, never a panic: each of the game's first coded frames cut
    /// short at every length, and with each byte flipped, read against no basis; the frames
    /// themselves read.
    #[test]
    fn a_cut_or_changed_coded_frame_is_an_error_not_a_panic() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/game/wire");
        let spec = ackwire_spec::load(&[dir])
            .unwrap_or_else(|e| panic!("{e}"))
            .0;
        let (all, _) = sessions(&spec);
        let b = all
            .iter()
            .find(|(_, _, p)| *p == Profile::Coded)
            .map(|(_, b, _)| b.clone())
            .expect("the game's coded frame");
        let schema = InterpCoded(b);
        let (vectors, _) = stream_vectors(&spec).unwrap_or_else(|e| panic!("{e}"));
        let v = vectors
            .iter()
            .find(|v| v.name == "arena_coded/no_loss")
            .expect("arena_coded/no_loss");
        let frames: Vec<Vec<u8>> = v
            .steps
            .iter()
            .filter(|s| s.side == Side::Server)
            .flat_map(|s| &s.expect.sent)
            .take(8)
            .map(|f| {
                let hex: String = f.hex.split_whitespace().collect();
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect()
            })
            .collect();
        assert_eq!(frames.len(), 8);
        // The first frame is a keyframe, which reads on no basis; a later one may need its
        // base's records, and then reads to other values or is refused, both without a panic.
        let first = schema
            .decode_frame(&frames[0])
            .expect("a keyframe reads on no basis");
        assert!(first.keyframe && !first.changes.is_empty());
        let mut refused = 0;
        for f in &frames {
            for len in 0..f.len() {
                refused += usize::from(schema.decode_frame(&f[..len]).is_err());
            }
            for i in 0..f.len() {
                let mut g = f.clone();
                g[i] ^= 0x5a;
                let _ = schema.decode_frame(&g);
            }
        }
        let cuts: usize = frames.iter().map(Vec::len).sum();
        assert_eq!(refused, cuts, "every frame cut short is refused");
    }
}
