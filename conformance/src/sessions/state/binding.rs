//! The acked binding of a spec's `state`, interpreted: what `spec/src/gen/rust/state.rs` prints
//! for a state (diff, apply, the check's canonical bytes, the frame and ack adapters), done at
//! run time from the state's [`StatePlan`] and the spec's lowering, so that a command that reads
//! a layout (`ackwire vectors --spec`, `conform --spec`) runs the codec's acked machines over a
//! state it never compiled. Its bytes are the generated binding's: the game's tests hold the two
//! to the same stream (examples/game/tests/acked_stream.rs), and the reference protocol's
//! committed acked streams, recorded by its generated bindings, replay on the binding
//! interpreted from its layout byte for byte (`reference_replay.rs`).
//!
//! It holds every value a group declares: integers (quantized or ranged), floats, bools, ticks,
//! bit sets and smallest-three quaternions (a [`Record`] word each: a float's bits, a bit set's
//! bits, a quaternion's packed word as the generated slot keeps it), and the session constants
//! the layout declares (SENT_RING, HELD_RING, EVENT_TTL, CHECK_EVERY, RELIABLE_ABOVE), which
//! the machines read from the schema value. What it cannot hold is named in a note by
//! [`unsupported`].
//!
//! The schemas [`Interp`] (the byte-aligned frame), [`InterpPacked`] (the packed one) and
//! [`InterpCoded`] (the coded one, kind 13's profile, when the state declares it: `coded.rs`)
//! hold the binding they run. A change, an event and an input are their JSON forms, read and
//! written by the run-time codec
//! ([`crate::interp`]); a record is its fields' integers in a fixed array ([`Record`]), so that
//! the decoder's slot copies it as the generated slot does.
//!
//! What it is not: a decoder held to the generated one on hostile frames. A packed code past its
//! byte-aligned field's range, which the generated binding refuses as `over_width` at the packed
//! body, is here a frame that does not apply; the recorded streams hold no such frame.
//!
//! Rules: ACK-19 and ACK-21 (a change is the groups that differ, a step from the base within
//! its reach, else full), ACK-22 (an optional group, once had, stays), ACK-33 (a tick travels as
//! its age), CHECK-2 and CHECK-3 (the check's bytes).

mod coded;

use crate::interp;
use ackwire_codec::acked::{
    wire, AckContent, AckedFrame, AckedSchema, DecoderSlot, FrameOf, Inapplicable,
};
use ackwire_codec::rt::coded::{CodedBasis, CodedBasisTicks, NoBasis};
use ackwire_codec::rt::SmallestThree;
use ackwire_codec::{DecodeError, EncodeError, ErrorKind};
use ackwire_spec::lower::Lowering;
use ackwire_spec::model::{BitKind, Item, Spec, Type};
use ackwire_spec::state::{Carry, FormPlan, FormRole, Holds, ProfilePlan, StatePlan, Value};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The most group fields a state bound at run time may have (a record keeps one word each).
pub const MAX_FIELDS: usize = 32;

/// One entity's record: its flags and every group field's value, as an integer (a float as its
/// bits, a bool as 0 or 1), at the field's place in group order; an optional group's fields are
/// 0 while the record does not hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The flags field's bits (0 without one).
    pub flags: u64,
    /// The group fields' values.
    pub values: [i64; MAX_FIELDS],
}

impl Record {
    const ZERO: Record = Record {
        flags: 0,
        values: [0; MAX_FIELDS],
    };
}

/// A state bound at run time: its plan, the spec's lowering, and where each group's fields lie
/// in a [`Record`].
#[derive(Debug)]
pub struct Binding {
    /// The state's plan.
    pub plan: StatePlan,
    low: Lowering<'static>,
    /// Each group's first field in [`Record::values`].
    first: Vec<usize>,
    /// The flags' named bits: name and index.
    flag_bits: Vec<(String, u8)>,
    /// The named bits of each bit set a group field holds, by the set's name.
    bit_sets: BTreeMap<String, Vec<NamedBit>>,
    /// The session constants the machines run with.
    constants: Constants,
    /// The frames' names (byte-aligned, packed, coded) and the ack's, as the machines name
    /// them.
    names: (&'static str, &'static str, &'static str, &'static str),
    /// The spec, kept for the bit sets a coded frame reads by name.
    spec: &'static Spec,
    /// The frames' flags, where a coded frame's header is read.
    acked_flags: AckedFlagBits,
}

/// The acked frames' flags: the field's width and where KEYFRAME and CHECK are.
#[derive(Debug, Clone, Copy)]
struct AckedFlagBits {
    width: u8,
    keyframe: Option<u8>,
    check: Option<u8>,
}

/// Which of a state's frames a schema sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The byte-aligned frame (kind 6's family).
    Byte,
    /// The packed frame (kind 12's).
    Packed,
    /// The coded frame (kind 13's, `docs/spec/coded.md`).
    Coded,
}

/// The session constants of a binding: the layout's where it declares them, else the
/// reference protocol's (acked.wire), as the machines' trait defaults them.
#[derive(Debug, Clone, Copy)]
struct Constants {
    sent_ring: usize,
    held_ring: usize,
    event_ttl: u64,
    check_every: u32,
    reliable_above: usize,
}

impl Constants {
    /// The constants `plan` declares over the defaults, or why one does not fit its type.
    fn of(plan: &StatePlan) -> Result<Constants, String> {
        use ackwire_codec::protocol as p;
        let get = |name: &str, default: u64| -> Result<u64, String> {
            let Some((_, v)) = plan.constants.iter().find(|(n, _)| n == name) else {
                return Ok(default);
            };
            u64::try_from(*v).map_err(|_| format!("state {}: {name} = {v} is negative", plan.name))
        };
        let fit = |name: &str, v: u64| -> Result<usize, String> {
            usize::try_from(v)
                .map_err(|_| format!("state {}: {name} = {v} is too large", plan.name))
        };
        Ok(Constants {
            sent_ring: fit("SENT_RING", get("SENT_RING", u64::from(p::SENT_RING))?)?,
            held_ring: fit("HELD_RING", get("HELD_RING", u64::from(p::HELD_RING))?)?,
            event_ttl: get("EVENT_TTL", u64::from(p::EVENT_TTL))?,
            check_every: u32::try_from(get("CHECK_EVERY", u64::from(p::CHECK_EVERY))?)
                .map_err(|_| format!("state {}: CHECK_EVERY is past u32", plan.name))?,
            reliable_above: fit(
                "RELIABLE_ABOVE",
                get("RELIABLE_ABOVE", u64::from(p::RELIABLE_ABOVE))?,
            )?,
        })
    }
}

/// A named bit of a bit set: its name, its index, and the index of the bit it requires.
#[derive(Debug, Clone)]
pub struct NamedBit {
    /// Its name.
    pub name: String,
    /// Its index, 0 the least significant.
    pub index: u8,
    /// The bit it may only be set beside (`requires OTHER`).
    pub requires: Option<u8>,
}

/// The named bits of bit set `name` of `spec`.
fn named_bits(spec: &Spec, name: &str) -> Vec<NamedBit> {
    let Some(bits) = spec
        .files
        .iter()
        .flat_map(|f| &f.items)
        .find_map(|i| match i {
            Item::Bits(b) if b.name == name => Some(&b.bits),
            _ => None,
        })
    else {
        return Vec::new();
    };
    let index_of = |other: &str| {
        bits.iter().find_map(|b| match &b.kind {
            BitKind::Named { name, index, .. } if name == other => Some(*index),
            _ => None,
        })
    };
    bits.iter()
        .filter_map(|b| match &b.kind {
            BitKind::Named {
                name,
                index,
                requires,
            } => Some(NamedBit {
                name: name.clone(),
                index: *index,
                requires: requires.as_deref().and_then(index_of),
            }),
            BitKind::Reserved { .. } => None,
        })
        .collect()
}

/// Why a state cannot be bound at run time.
pub fn unsupported(plan: &StatePlan) -> Option<String> {
    let fields: usize = plan.groups.iter().map(|g| g.fields.len()).sum();
    if fields > MAX_FIELDS {
        return Some(format!(
            "state {} has {fields} group fields, more than the {MAX_FIELDS} a run-time binding holds",
            plan.name
        ));
    }
    if plan.byte_profile().is_none() || plan.ack.is_none() || plan.inputs.is_none() {
        return Some(format!(
            "state {} has no byte-aligned frame, ack or inputs to run a session over",
            plan.name
        ));
    }
    None
}

impl Binding {
    /// The binding of `plan`, a state of `spec`. The spec and its lowering are kept for the
    /// rest of the process (a command binds a state or two).
    pub fn new(spec: &Spec, plan: StatePlan) -> Result<Rc<Binding>, String> {
        if let Some(why) = unsupported(&plan) {
            return Err(why);
        }
        let constants = Constants::of(&plan)?;
        // Kept for the rest of the process, as the spec is: the machines name frames by
        // static names.
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let frame = |packed: bool| {
            plan.profiles
                .iter()
                .find(|p| p.packed == packed)
                .map_or("", |p| leak(p.frame_name.clone()))
        };
        let names = (
            frame(false),
            frame(true),
            plan.coded
                .as_ref()
                .map_or("", |c| leak(c.frame_name.clone())),
            leak(ackwire_spec::gen::snake_case(
                plan.ack.as_ref().map_or("", |a| &a.frame[..]),
            )),
        );
        let spec: &'static Spec = Box::leak(Box::new(spec.clone()));
        let flag_set = named_bits(spec, &plan.acked_flags);
        let flag = |n: &str| flag_set.iter().find(|b| b.name == n).map(|b| b.index);
        let acked_flags = AckedFlagBits {
            width: spec
                .files
                .iter()
                .flat_map(|f| &f.items)
                .find_map(|i| match i {
                    Item::Bits(b) if b.name == plan.acked_flags => Some(b.width),
                    _ => None,
                })
                .unwrap_or(8),
            keyframe: flag("KEYFRAME"),
            check: flag("CHECK"),
        };
        let mut first = Vec::new();
        let mut n = 0;
        for g in &plan.groups {
            first.push(n);
            n += g.fields.len();
        }
        let flag_bits = plan
            .flags
            .as_ref()
            .map(|f| named_bits(spec, &f.bits))
            .unwrap_or_default()
            .into_iter()
            .map(|b| (b.name, b.index))
            .collect();
        let bit_sets = plan
            .groups
            .iter()
            .flat_map(|g| &g.fields)
            .filter_map(|f| match &f.value {
                Value::Bits { name, .. } => Some((name.clone(), named_bits(spec, name))),
                _ => None,
            })
            .collect();
        Ok(Rc::new(Binding {
            plan,
            low: Lowering::new(spec),
            first,
            flag_bits,
            bit_sets,
            constants,
            names,
            spec,
            acked_flags,
        }))
    }

    /// The spec's lowering.
    pub fn lowering(&self) -> &Lowering<'static> {
        &self.low
    }

    /// The profile of frames `packed` or not.
    pub fn profile(&self, packed: bool) -> Option<&ProfilePlan> {
        self.plan.profiles.iter().find(|p| p.packed == packed)
    }

    /// The flags' bits as their JSON form: the names of the named bits set.
    pub fn flags_json(&self, flags: u64) -> Json {
        Json::Array(
            self.flag_bits
                .iter()
                .filter(|(_, i)| flags >> i & 1 != 0)
                .map(|(n, _)| json!(n))
                .collect(),
        )
    }

    /// The flags' bits from their JSON form; an unknown name is an error.
    pub fn flags_from_json(&self, j: &Json) -> Result<u64, String> {
        let mut out = 0;
        for n in j.as_array().into_iter().flatten() {
            let (_, i) = self
                .flag_bits
                .iter()
                .find(|(name, _)| Some(&name[..]) == n.as_str())
                .ok_or_else(|| format!("no flag named {n}"))?;
            out |= 1 << i;
        }
        Ok(out)
    }

    /// The named bits of bit set `name`, when a group field holds it.
    pub fn bit_set(&self, name: &str) -> &[NamedBit] {
        self.bit_sets.get(name).map_or(&[], Vec::as_slice)
    }

    /// The JSON form of a group field's value `v` as a [`Record`] holds it: a float's value,
    /// a bool, a bit set's named bits, a quaternion's `{"largest", "rest"}` (the run-time
    /// codec's forms), an integer as it is.
    pub fn value_json(&self, value: &Value, v: i64) -> Json {
        match value {
            Value::Float { bits: 32 } => json!(f64::from(f32::from_bits(v as u32))),
            Value::Float { .. } => json!(f64::from_bits(v as u64)),
            Value::Bool => json!(v != 0),
            Value::Bits { name, .. } => Json::Array(
                self.bit_set(name)
                    .iter()
                    .filter(|b| (v as u64) >> b.index & 1 != 0)
                    .map(|b| json!(b.name))
                    .collect(),
            ),
            Value::Quat { bits } => {
                let q = SmallestThree::from_word(v as u64, *bits);
                json!({"largest": q.largest, "rest": q.rest})
            }
            Value::Int { .. } | Value::Tick => json!(v),
        }
    }

    /// A group field's value as a [`Record`] holds it, from its JSON form ([`Self::value_json`]);
    /// why not, for a value of another shape, a bit the set does not name or a quaternion off
    /// its rules.
    pub fn value_from_json(&self, value: &Value, j: &Json) -> Result<i64, String> {
        let float = || {
            j.as_f64()
                .ok_or_else(|| format!("expected a number, found {j}"))
        };
        Ok(match value {
            Value::Float { bits: 32 } => i64::from((float()? as f32).to_bits()),
            Value::Float { .. } => float()?.to_bits() as i64,
            Value::Bool => i64::from(
                j.as_bool()
                    .ok_or_else(|| format!("expected a bool, found {j}"))?,
            ),
            Value::Bits { name, .. } => {
                let mut raw = 0u64;
                for n in j
                    .as_array()
                    .ok_or_else(|| format!("expected a list of bit names, found {j}"))?
                {
                    let bit = self
                        .bit_set(name)
                        .iter()
                        .find(|b| Some(&b.name[..]) == n.as_str())
                        .ok_or_else(|| format!("{name} names no bit {n}"))?;
                    raw |= 1 << bit.index;
                }
                raw as i64
            }
            Value::Quat { bits } => {
                let int = |v: Option<&Json>, lo: i64, hi: i64| {
                    v.and_then(Json::as_i64)
                        .filter(|n| (lo..=hi).contains(n))
                        .ok_or_else(|| {
                            format!("expected {{\"largest\", \"rest\": [3]}}, found {j}")
                        })
                };
                let rest = j.get("rest").and_then(Json::as_array);
                if rest.is_none_or(|r| r.len() != 3) {
                    return Err(format!(
                        "expected {{\"largest\", \"rest\": [3]}}, found {j}"
                    ));
                }
                let c =
                    |i: usize| int(rest.and_then(|r| r.get(i)), -32768, 32767).map(|n| n as i16);
                let q = SmallestThree {
                    largest: int(j.get("largest"), 0, 3)? as u8,
                    rest: [c(0)?, c(1)?, c(2)?],
                };
                q.check(*bits)
                    .map_err(|e| format!("a quaternion off its rules ({}): {j}", e.as_str()))?;
                q.to_word(*bits) as i64
            }
            Value::Int { .. } | Value::Tick => j
                .as_i64()
                .ok_or_else(|| format!("expected an integer, found {j}"))?,
        })
    }

    /// The ack frame's snake_case name.
    pub fn ack_name(&self) -> String {
        ackwire_spec::gen::snake_case(self.plan.ack.as_ref().map_or("", |a| &a.frame[..]))
    }

    fn at(&self, group: usize, field: usize) -> usize {
        self.first[group] + field
    }

    fn present(&self, r: &Record, group: usize) -> bool {
        self.plan.groups[group]
            .presence
            .as_ref()
            .is_none_or(|b| r.flags >> b.index & 1 != 0)
    }

    fn group_values<'r>(&self, r: &'r Record, group: usize) -> &'r [i64] {
        let at = self.first[group];
        &r.values[at..at + self.plan.groups[group].fields.len()]
    }

    /// CHECK-3: the record's canonical bytes, its fields in canonical order, little endian,
    /// an optional group's only when the record holds it.
    pub fn write_record(&self, r: &Record, out: &mut Vec<u8>) {
        for f in &self.plan.record.fields {
            match f.holds {
                Holds::Flags => {
                    let width = self.plan.flags.as_ref().map_or(8, |fl| fl.width);
                    out.extend_from_slice(&r.flags.to_le_bytes()[..usize::from(width / 8)]);
                }
                Holds::Field { group, field } => {
                    let v = r.values[self.at(group, field)];
                    out.extend_from_slice(&v.to_le_bytes()[..f.bytes as usize]);
                }
                Holds::Group(group) => {
                    if !self.present(r, group) {
                        continue;
                    }
                    for (i, gf) in self.plan.groups[group].fields.iter().enumerate() {
                        let v = r.values[self.at(group, i)];
                        out.extend_from_slice(&v.to_le_bytes()[..value_bytes(&gf.value)]);
                    }
                }
            }
        }
    }

    /// The tick the measured group's field holds.
    fn measured(&self, r: &Record) -> Option<u32> {
        let g = self.plan.measured?;
        let t = self.plan.groups[g].tick.as_ref()?;
        Some(r.values[self.at(g, t.field)] as u32)
    }

    /// Whether the tiered group came full.
    fn pose_full(&self, r: &Record) -> Option<bool> {
        let g = self.plan.tiered?;
        let bit = self.plan.groups[g].tier.as_ref()?;
        Some(r.flags >> bit.index & 1 != 0)
    }

    /// Whether every stepped field of group `group` of `base` lies within its reach: a step
    /// then counts from the base's values, else from 0.
    fn steps_from_base(&self, base: &Record, group: usize) -> bool {
        let g = &self.plan.groups[group];
        let Some(reach) = g.reach else { return true };
        g.stepped()
            .iter()
            .all(|&f| base.values[self.at(group, f)].unsigned_abs() <= reach)
    }

    /// ACK-19, ACK-21, ACK-22, ACK-33: the change that turns `base` into `next` in a frame of
    /// tick `tick`, as the byte-aligned change's JSON form, or `None` when nothing differs.
    pub fn diff(
        &self,
        eid: u16,
        base: Option<&Record>,
        next: &Record,
        tick: u32,
    ) -> Result<Option<Json>, EncodeError> {
        let mut changed = Vec::new();
        for (i, g) in self.plan.groups.iter().enumerate() {
            let c = if g.presence.is_some() {
                // ACK-22: an optional group, once had, stays.
                if base.is_some_and(|b| self.present(b, i)) && !self.present(next, i) {
                    return Err(named(ErrorKind::InvalidCondition, &g.name));
                }
                self.present(next, i)
                    && base.is_none_or(|b| self.group_values(b, i) != self.group_values(next, i))
            } else {
                base.is_none_or(|b| self.group_values(b, i) != self.group_values(next, i))
            };
            changed.push(c);
        }
        if !changed.iter().any(|c| *c) {
            return Ok(None);
        }
        let mut mask = Vec::new();
        let mut change = Map::new();
        change.insert("eid".into(), json!(eid));
        let mut forms = Map::new();
        for (i, g) in self
            .plan
            .groups
            .iter()
            .enumerate()
            .filter(|(i, _)| changed[*i])
        {
            mask.push(json!(g.bit_name));
            if let Some(t) = &g.tick {
                let measured = next.values[self.at(i, t.field)];
                let age = i64::from(tick) - measured;
                if age < 0 || age > t.wire.max() as i64 {
                    return Err(named(ErrorKind::OverWidth, &t.age));
                }
                if age > 0 {
                    mask.push(json!(g.age_bit_name.clone().unwrap_or_default()));
                    forms.insert(t.age.clone(), json!(age));
                }
            }
            let origin = base.filter(|b| self.steps_from_base(b, i));
            let (form, full) = match (g.form(FormRole::Only), g.form(FormRole::Step)) {
                (Some(only), _) => (self.form_json(i, only, next, origin)?, false),
                (None, Some(step)) => {
                    let tiered = g.tier.as_ref().map(|b| next.flags >> b.index & 1 != 0);
                    let stepped = match tiered {
                        Some(true) => None,
                        _ => self.form_json(i, step, next, origin).ok(),
                    };
                    match stepped {
                        Some(s) => (s, false),
                        None => {
                            let full = g
                                .form(FormRole::Full)
                                .ok_or_else(|| named(ErrorKind::OverWidth, &step.field))?;
                            (self.form_json(i, full, next, origin)?, true)
                        }
                    }
                }
                (None, None) => return Err(named(ErrorKind::InvalidCondition, &g.name)),
            };
            let role = if full {
                mask.push(json!(g.full_bit_name.clone().unwrap_or_default()));
                FormRole::Full
            } else {
                g.form(FormRole::Only).map_or(FormRole::Step, |f| f.role)
            };
            let field = &g.form(role).map_or(&g.name, |f| &f.field);
            forms.insert(field.to_string(), form);
        }
        change.insert("mask".into(), Json::Array(mask));
        change.extend(forms);
        Ok(Some(Json::Object(change)))
    }

    /// Group `group` of `next` in form `form`, steps from `origin` (the base, when its
    /// values are within reach).
    fn form_json(
        &self,
        group: usize,
        form: &FormPlan,
        next: &Record,
        origin: Option<&Record>,
    ) -> Result<Json, EncodeError> {
        let mut out = Map::new();
        for w in &form.wire {
            let v = next.values[self.at(group, w.field)];
            let path = || format!("{}.{}", form.field, w.name);
            let value = match w.carry {
                Carry::Scaled { by } => {
                    let by = by as i64;
                    if by == 0 || v % by != 0 {
                        return Err(named(ErrorKind::InvalidCondition, &path()));
                    }
                    wire_json(&w.ty, v / by)
                }
                Carry::Float {
                    bits,
                    num,
                    den,
                    limit,
                } => {
                    if v.unsigned_abs() >= limit {
                        return Err(named(ErrorKind::OverWidth, &path()));
                    }
                    let f = v as f64 * (num as f64 / den as f64);
                    if bits == 32 {
                        json!(f64::from(f as f32))
                    } else {
                        json!(f)
                    }
                }
                Carry::Step => {
                    let o = origin.map_or(0, |b| b.values[self.at(group, w.field)]);
                    let d = i128::from(v) - i128::from(o);
                    let (lo, hi) = w.range.unwrap_or((i128::MIN, i128::MAX));
                    if d < lo || d > hi {
                        return Err(named(ErrorKind::OverWidth, &path()));
                    }
                    json!(d as i64)
                }
                Carry::Itself => self.value_json(&self.plan.groups[group].fields[w.field].value, v),
            };
            out.insert(w.name.clone(), value);
        }
        Ok(Json::Object(out))
    }

    /// ACK-21, ACK-22, ACK-33: `base` (none when the entity comes whole) with `change` (the
    /// byte-aligned change's JSON form) applied in a frame of tick `tick`.
    pub fn apply(
        &self,
        base: Option<&Record>,
        change: &Json,
        tick: u32,
    ) -> Result<Record, Inapplicable> {
        let mask = mask_names(change);
        let has = |name: &Option<String>| name.as_ref().is_some_and(|n| mask.contains(&&n[..]));
        let mut r = match base {
            Some(b) => *b,
            None => {
                let whole = self
                    .plan
                    .groups
                    .iter()
                    .filter(|g| g.presence.is_none())
                    .all(|g| mask.contains(&&g.bit_name[..]));
                if !whole {
                    return Err(Inapplicable("an entity comes whole without every group"));
                }
                Record::ZERO
            }
        };
        for (i, g) in self.plan.groups.iter().enumerate() {
            if !mask.contains(&&g.bit_name[..]) {
                continue;
            }
            let full = has(&g.full_bit_name);
            let form = g
                .form(FormRole::Only)
                .or_else(|| g.form(if full { FormRole::Full } else { FormRole::Step }))
                .ok_or(Inapplicable("a group without its form"))?;
            let body = change.get(&form.field);
            let from = base.is_some_and(|b| self.steps_from_base(b, i));
            let mut values = Vec::new();
            for w in &form.wire {
                let got = body.and_then(|b| b.get(&w.name)).unwrap_or(&Json::Null);
                let range = g.fields[w.field].value.range();
                let v = match w.carry {
                    Carry::Scaled { by } => wire_int(&w.ty, got).checked_mul(by as i64),
                    Carry::Float {
                        bits,
                        num,
                        den,
                        limit,
                    } => {
                        // An f32's JSON form is its shortest decimal: the f32 it names, not
                        // that decimal as an f64, is the value on the wire.
                        let v = got.as_f64().unwrap_or(f64::NAN);
                        let v = if bits == 32 { f64::from(v as f32) } else { v };
                        wire::whole_units(v, den as f64 / num as f64, limit as f64)
                    }
                    Carry::Step => {
                        let o = if from {
                            r.values[self.at(i, w.field)]
                        } else {
                            0
                        };
                        o.checked_add(wire_int(&w.ty, got))
                    }
                    // The run-time codec read the frame: a value of the wrong shape is not there.
                    Carry::Itself => self.value_from_json(&g.fields[w.field].value, got).ok(),
                };
                let v = v
                    .filter(|v| range.is_none_or(|(lo, hi)| (lo..=hi).contains(&i128::from(*v))))
                    .ok_or_else(|| {
                        leak(format!(
                            "a {} {}",
                            g.name,
                            if w.carry == Carry::Step {
                                "step past its range"
                            } else {
                                "off its grid"
                            }
                        ))
                    })?;
                values.push((w.field, v));
            }
            for (f, v) in values {
                r.values[self.at(i, f)] = v;
            }
            if let Some(t) = &g.tick {
                let age = if has(&g.age_bit_name) {
                    change.get(&t.age).and_then(Json::as_u64).unwrap_or(0)
                } else {
                    0
                };
                let at = u64::from(tick)
                    .checked_sub(age)
                    .ok_or_else(|| leak(format!("a {} measured before tick 0", g.name)))?;
                r.values[self.at(i, t.field)] = at as i64;
            }
            if let Some(b) = &g.tier {
                r.flags = r.flags & !(1 << b.index) | u64::from(full) << b.index;
            }
            if let Some(b) = &g.presence {
                r.flags |= 1 << b.index;
            }
        }
        Ok(r)
    }

    /// The change's JSON form in the packed profile: each wire value re-coded from its
    /// byte-aligned type to its packed code (a quantized value as its integer).
    fn pack_change(&self, change: &Json) -> Json {
        self.recode(change, true)
    }

    /// A packed change's JSON form as the byte-aligned one.
    fn unpack_change(&self, change: &Json) -> Json {
        self.recode(change, false)
    }

    fn recode(&self, change: &Json, pack: bool) -> Json {
        let mut out = change.clone();
        for g in &self.plan.groups {
            for form in &g.forms {
                let Some(body) = out.get_mut(&form.field).and_then(Json::as_object_mut) else {
                    continue;
                };
                for w in &form.wire {
                    let Some(v) = body.get_mut(&w.name) else {
                        continue;
                    };
                    // A value carried as itself in the same type in both profiles (a quaternion,
                    // a bit set, a float) is left as it is.
                    if w.ty == w.packed {
                        continue;
                    }
                    let (from, to) = if pack {
                        (&w.ty, &w.packed)
                    } else {
                        (&w.packed, &w.ty)
                    };
                    *v = wire_json(to, wire_int(from, v));
                }
            }
        }
        out
    }

    /// The ACK-2 header and lists of `frame` as the frame's JSON form.
    fn frame_json(&self, frame: &FrameOf<Interp>, packed: bool) -> Json {
        let mut flags = Vec::new();
        if frame.keyframe {
            flags.push("KEYFRAME");
        }
        if frame.check.is_some() {
            flags.push("CHECK");
        }
        let changes: Vec<Json> = if packed {
            frame.changes.iter().map(|c| self.pack_change(c)).collect()
        } else {
            frame.changes.clone()
        };
        let mut j = json!({
            "tick": frame.tick,
            "base_tick": frame.base_tick,
            "last_seq": frame.last_seq,
            "input_buffer": frame.input_buffer,
            "flags": flags,
            "removed": frame.removed,
            "events": frame.events,
        });
        if let Some(c) = frame.check {
            j["check"] = json!(c);
        }
        if !frame.events.is_empty() {
            j["first_serial"] = json!(frame.first_serial);
        }
        if packed {
            j["body"] = json!({ "changes": changes });
        } else {
            j["changes"] = Json::Array(changes);
        }
        j
    }

    fn encode_frame(
        &self,
        frame: &FrameOf<Interp>,
        packed: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let name = self.frame_name(packed);
        let bytes = interp::encode(&self.low, &name, &self.frame_json(frame, packed))
            .map_err(encode_error)?;
        out.extend_from_slice(&bytes);
        Ok(())
    }

    fn frame_name(&self, packed: bool) -> String {
        self.profile(packed)
            .map_or_else(String::new, |p| p.frame_name.clone())
    }

    fn decode_frame(&self, bytes: &[u8], packed: bool) -> Result<FrameOf<Interp>, DecodeError> {
        let j = self.decode_json(&self.frame_name(packed), bytes)?;
        let int = |k: &str| j.get(k).and_then(Json::as_u64).unwrap_or(0);
        let flags = mask_names(&json!({"mask": j.get("flags")}))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        let mut out = AckedFrame::empty();
        wire::Header {
            tick: int("tick") as u32,
            base_tick: int("base_tick") as u32,
            last_seq: int("last_seq") as u32,
            input_buffer: int("input_buffer") as u8,
            keyframe: flags.iter().any(|f| f == "KEYFRAME"),
            check: j.get("check").and_then(Json::as_u64).map(|c| c as u32),
            first_serial: j
                .get("first_serial")
                .and_then(Json::as_u64)
                .map(|c| c as u32),
        }
        .into_frame(&mut out)?;
        out.removed = list(&j, "removed")
            .iter()
            .map(|e| e.as_u64().unwrap_or(0) as u16)
            .collect();
        let changes = if packed {
            j.get("body").map_or_else(Vec::new, |b| list(b, "changes"))
        } else {
            list(&j, "changes")
        };
        out.changes = if packed {
            changes.iter().map(|c| self.unpack_change(c)).collect()
        } else {
            changes
        };
        out.events = list(&j, "events");
        Ok(out)
    }

    fn decode_json(&self, frame: &str, bytes: &[u8]) -> Result<Json, DecodeError> {
        let decoded = interp::decode(&self.low, frame, bytes).map_err(|e| match e {
            crate::frame_json::FrameError::Decode(e) => e,
            _ => DecodeError::new(ErrorKind::InvalidCondition, 0),
        })?;
        serde_json::to_value(&decoded).map_err(|_| DecodeError::new(ErrorKind::InvalidCondition, 0))
    }

    fn encode_ack(&self, ack: &AckContent<Json>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut j = json!({
            "ack_tick": ack.ack_tick,
            "flags": if ack.keyframe_request { vec!["KEYFRAME_REQUEST"] } else { vec![] },
            "inputs": ack.inputs,
        });
        if !ack.inputs.is_empty() {
            j["first_seq"] = json!(ack.first_seq);
        }
        let bytes = interp::encode(&self.low, &self.ack_name(), &j).map_err(encode_error)?;
        out.extend_from_slice(&bytes);
        Ok(())
    }

    fn decode_ack(&self, bytes: &[u8]) -> Result<AckContent<Json>, DecodeError> {
        let j = self.decode_json(&self.ack_name(), bytes)?;
        let flags = mask_names(&json!({"mask": j.get("flags")}))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        Ok(AckContent {
            ack_tick: j.get("ack_tick").and_then(Json::as_u64).unwrap_or(0) as u32,
            keyframe_request: flags.iter().any(|f| f == "KEYFRAME_REQUEST"),
            first_seq: j.get("first_seq").and_then(Json::as_u64).unwrap_or(0) as u32,
            inputs: list(&j, "inputs"),
        })
    }
}

/// The bytes a group field takes in the canonical bytes.
fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Int { bits, .. } => usize::from(*bits).div_ceil(8),
        Value::Float { bits } => usize::from(*bits / 8),
        Value::Bool => 1,
        Value::Bits { width, .. } => usize::from(*width).div_ceil(8),
        Value::Tick => 4,
        Value::Quat { bits } => (2 + 3 * usize::from(*bits)).div_ceil(8),
    }
}

/// The JSON form of wire integer `n` of type `ty`: a quantized type's value, else the integer.
fn wire_json(ty: &Type, n: i64) -> Json {
    match ty {
        Type::Quant { num, den, .. } => json!(n as f64 * (*num as f64 / *den as f64)),
        _ => json!(n),
    }
}

/// The wire integer of JSON value `v` of type `ty` (a quantized value rounded to its unit).
fn wire_int(ty: &Type, v: &Json) -> i64 {
    match ty {
        Type::Quant { num, den, .. } => {
            wire::round(v.as_f64().unwrap_or(0.0) / (*num as f64 / *den as f64)) as i64
        }
        _ => v.as_i64().unwrap_or(0),
    }
}

fn mask_names(change: &Json) -> Vec<&str> {
    change
        .get("mask")
        .and_then(Json::as_array)
        .map_or_else(Vec::new, |m| m.iter().filter_map(Json::as_str).collect())
}

fn list(j: &Json, key: &str) -> Vec<Json> {
    j.get(key)
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default()
}

fn named(kind: ErrorKind, field: &str) -> EncodeError {
    EncodeError::new(kind).field(leak(field.to_string()).0)
}

/// A fault's text, kept for the process: the machines' fault type holds a static text; only a
/// frame that does not apply makes one.
fn leak(s: String) -> Inapplicable {
    Inapplicable(Box::leak(s.into_boxed_str()))
}

fn encode_error(e: crate::frame_json::FrameError) -> EncodeError {
    match e {
        crate::frame_json::FrameError::Encode(e) => e,
        other => EncodeError::new(ErrorKind::InvalidCondition).field(leak(other.to_string()).0),
    }
}

/// The byte-aligned frame of a binding.
#[derive(Debug, Clone)]
pub struct Interp(pub Rc<Binding>);

/// The packed frame of a binding.
#[derive(Debug, Clone)]
pub struct InterpPacked(pub Rc<Binding>);

/// The coded frame of a binding (kind 13's profile).
#[derive(Debug, Clone)]
pub struct InterpCoded(pub Rc<Binding>);

/// A schema of a binding, whichever frame it runs.
pub trait Interpreted:
    AckedSchema<Record = Record, Change = Json, Event = Json, Input = Json, Staged = Json>
    + ackwire_server::testee::ServedSchema
    + Clone
    + 'static
{
    /// The binding it runs.
    fn binding(&self) -> &Rc<Binding>;
}

/// A record, or none, as the decoder's tables hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(Option<Record>);

macro_rules! schema {
    ($ty:ident, $profile:expr) => {
        impl Interpreted for $ty {
            fn binding(&self) -> &Rc<Binding> {
                &self.0
            }
        }

        impl DecoderSlot<$ty> for Slot {
            const EMPTY: Slot = Slot(None);

            fn of(record: Option<&Record>) -> Self {
                Slot(record.copied())
            }

            fn record(&self) -> Option<Record> {
                self.0
            }

            fn holds(&self) -> bool {
                self.0.is_some()
            }

            fn apply(
                &mut self,
                schema: &$ty,
                staged: &Json,
                tick: u32,
            ) -> Result<(), Inapplicable> {
                self.0 = Some(schema.0.apply(self.0.as_ref(), staged, tick)?);
                Ok(())
            }

            fn measured(&self, schema: &$ty) -> Option<u32> {
                self.0.and_then(|r| schema.0.measured(&r))
            }

            fn pose_full(&self, schema: &$ty) -> Option<bool> {
                self.0.and_then(|r| schema.0.pose_full(&r))
            }

            fn hash(
                &self,
                schema: &$ty,
                h: ackwire_codec::rt::Fnv1a32,
                eid: u16,
            ) -> ackwire_codec::rt::Fnv1a32 {
                let h = h.update(&eid.to_le_bytes());
                match &self.0 {
                    None => h,
                    Some(r) => {
                        let mut out = Vec::new();
                        schema.0.write_record(r, &mut out);
                        h.update(&out)
                    }
                }
            }
        }

        impl AckedSchema for $ty {
            type Record = Record;
            type Change = Json;
            type Event = Json;
            type Input = Json;
            type Staged = Json;
            type Slot = Slot;

            fn sent_ring(&self) -> usize {
                self.0.constants.sent_ring
            }

            fn held_ring(&self) -> usize {
                self.0.constants.held_ring
            }

            fn event_ttl(&self) -> u64 {
                self.0.constants.event_ttl
            }

            fn check_every(&self) -> u32 {
                self.0.constants.check_every
            }

            fn reliable_above(&self) -> usize {
                self.0.constants.reliable_above
            }

            fn frame_name(&self) -> &'static str {
                match $profile {
                    Profile::Byte => self.0.names.0,
                    Profile::Packed => self.0.names.1,
                    Profile::Coded => self.0.names.2,
                }
            }

            fn ack_name(&self) -> &'static str {
                self.0.names.3
            }

            fn diff(
                &self,
                eid: u16,
                base: Option<&Record>,
                next: &Record,
                tick: u32,
            ) -> Result<Option<Json>, EncodeError> {
                self.0.diff(eid, base, next, tick)
            }

            fn change_eid(&self, change: &Json) -> u16 {
                change.get("eid").and_then(Json::as_u64).unwrap_or(0) as u16
            }

            fn apply(
                &self,
                base: Option<&Record>,
                change: &Json,
                tick: u32,
            ) -> Result<Record, Inapplicable> {
                self.0.apply(base, change, tick)
            }

            fn write_record(&self, record: &Record, out: &mut Vec<u8>) {
                self.0.write_record(record, out)
            }

            fn measured(&self, record: &Record) -> Option<u32> {
                self.0.measured(record)
            }

            fn pose_full(&self, record: &Record) -> Option<bool> {
                self.0.pose_full(record)
            }

            fn encode_frame(
                &self,
                frame: &FrameOf<Self>,
                out: &mut Vec<u8>,
            ) -> Result<(), EncodeError> {
                self.encode_frame_on(frame, 0, &NoBasis, out)
            }

            fn decode_frame(&self, bytes: &[u8]) -> Result<FrameOf<Self>, DecodeError> {
                self.decode_frame_on(bytes, &NoBasis)
            }

            fn coded(&self) -> bool {
                $profile == Profile::Coded
            }

            fn read_basis(&self, bytes: &[u8]) -> Result<CodedBasisTicks, DecodeError> {
                match $profile {
                    Profile::Coded => self.0.coded_basis(bytes),
                    _ => {
                        let f = self.decode_frame(bytes)?;
                        Ok(CodedBasisTicks {
                            tick: f.tick,
                            base_tick: f.base_tick,
                            keyframe: f.keyframe,
                            older: 0,
                        })
                    }
                }
            }

            fn encode_frame_on(
                &self,
                frame: &FrameOf<Self>,
                older: u8,
                basis: &dyn CodedBasis<Record>,
                out: &mut Vec<u8>,
            ) -> Result<(), EncodeError> {
                match $profile {
                    Profile::Coded => self.0.encode_coded(frame, older, basis, out),
                    p => self.0.encode_frame(frame, p == Profile::Packed, out),
                }
            }

            fn decode_frame_on(
                &self,
                bytes: &[u8],
                basis: &dyn CodedBasis<Record>,
            ) -> Result<FrameOf<Self>, DecodeError> {
                match $profile {
                    Profile::Coded => self.0.decode_coded(bytes, basis),
                    p => self.0.decode_frame(bytes, p == Profile::Packed),
                }
            }

            fn encode_ack(
                &self,
                ack: &AckContent<Json>,
                out: &mut Vec<u8>,
            ) -> Result<(), EncodeError> {
                self.0.encode_ack(ack, out)
            }

            fn decode_ack(&self, bytes: &[u8]) -> Result<AckContent<Json>, DecodeError> {
                self.0.decode_ack(bytes)
            }

            fn input_tick(&self, input: &Json) -> u32 {
                input.get("tick").and_then(Json::as_u64).unwrap_or(0) as u32
            }

            fn stage(&self, change: &Json) -> Json {
                change.clone()
            }

            fn staged_eid(&self, staged: &Json) -> u16 {
                self.change_eid(staged)
            }

            fn apply_staged(
                &self,
                base: Option<&Record>,
                staged: &Json,
                tick: u32,
            ) -> Result<Record, Inapplicable> {
                self.apply(base, staged, tick)
            }
        }
    };
}

schema!(Interp, Profile::Byte);
schema!(InterpPacked, Profile::Packed);
schema!(InterpCoded, Profile::Coded);
