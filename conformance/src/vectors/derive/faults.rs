//! The negative vectors: for every place of a frame, the frame cut short inside it and each
//! error kind its checks can raise ([`ackwire_spec::lower::Step::checks`]), each written by
//! the run-time encoder with the fault patched in ([`Patch`]) and its expected error computed
//! from where the encoder put it and from the lowering's canonical order:
//!
//! - a fault is reported at its field's first byte (bit, inside a packed body), with the
//!   field's path; a count past the input where the elements (or a byte string's bytes) would
//!   begin; truncation where the input ends (LANGUAGE.md, "Canonical decoding";
//!   conformance/PROTOCOL.md, "Error kinds");
//! - "a count is checked against the remaining bytes before any element is read": a cut inside
//!   a list's element is the list's `count_too_large` when its count times the least element
//!   no longer fits, and a fault whose patch leaves a list around it too short for its count
//!   is dropped (it would test the count, which a case of its own does).

use super::gen::{self, ascending_of, count_max, Fill, Scenario, Shape, Want};
use super::nodes::Node;
use super::Builder;
use crate::interp::encode::{encode_traced, Patch, Piece, Trace};
use crate::interp::Value;
use crate::vectors::ExpectedError;
use ackwire_codec::rt::{BitWriter, ErrorKind};
use ackwire_spec::lower::{Check, CountFrom, Lowering, Operand, RecordPlan, Wire};

/// Every negative vector of the frame, after its positive ones.
pub(super) fn negatives(b: &mut Builder<'_>, nodes: &[Node<'_>]) {
    for node in nodes {
        if !matches!(
            node.wire,
            Wire::Record { .. } | Wire::Union(_) | Wire::Array(_)
        ) {
            cut_short(b, node);
        }
        for check in &node.checks {
            match check {
                Check::Bool => b.fault(node, "over_width", ErrorKind::OverWidth, |_, _, _| {
                    Some(Patch::Raw(vec![Piece::Bytes(vec![2])]))
                }),
                Check::Finite => b.fault(node, "non_finite", ErrorKind::NonFinite, |_, node, _| {
                    let (bits, big_endian) = match node.wire {
                        Wire::Float { bits, big_endian } => (*bits, *big_endian),
                        _ => return None,
                    };
                    let nan = if bits == 32 {
                        0x7fc0_0000
                    } else {
                        0x7ff8_0000_0000_0000
                    };
                    Some(Patch::Raw(int_pieces(node.packed, bits, big_endian, nan)))
                }),
                Check::Varint { bits } => {
                    varint_faults(b, node, *bits);
                }
                Check::Length => length_fault(b, node),
                Check::QuatRange { bits } => {
                    let min = -(1i64 << (bits - 1));
                    quat_fault(b, node, *bits, "over_width", ErrorKind::OverWidth, min)
                }
                Check::QuatCanonical { bits } => {
                    let r = (1i64 << (bits - 1)) - 1;
                    quat_fault(b, node, *bits, "non_canonical", ErrorKind::NonCanonical, r)
                }
                Check::Constant(c) => b.fault(
                    node,
                    "bad_constant",
                    ErrorKind::BadConstant,
                    |_, node, _| {
                        let other = if *c == 0 { 1 } else { c - 1 };
                        raw_int(node.wire, node.packed, u64::try_from(other).ok()?).map(Patch::Raw)
                    },
                ),
                Check::Reserved { mask } => b.fault(
                    node,
                    "reserved_bit",
                    ErrorKind::ReservedBit,
                    |low, node, base| {
                        let (width, big_endian) = bits_form(low, node)?;
                        let value = base.int_at(&node.path, big_endian)?;
                        let lowest = mask & mask.wrapping_neg();
                        Some(Patch::Raw(int_pieces(
                            node.packed,
                            width,
                            big_endian,
                            value | lowest,
                        )))
                    },
                ),
                Check::Requires => b.fault(
                    node,
                    "invalid_condition",
                    ErrorKind::InvalidCondition,
                    |low, node, _| {
                        let Wire::Bits(bits) = node.wire else {
                            return None;
                        };
                        let (width, big_endian) = bits_form(low, node)?;
                        let lone = bits.bits.iter().find_map(|bit| match &bit.kind {
                            ackwire_spec::model::BitKind::Named {
                                index,
                                requires: Some(_),
                                ..
                            } => Some(*index),
                            _ => None,
                        })?;
                        Some(Patch::Raw(int_pieces(
                            node.packed,
                            width,
                            big_endian,
                            1 << lone,
                        )))
                    },
                ),
                Check::Tag => b.fault(
                    node,
                    "unknown_tag",
                    ErrorKind::UnknownTag,
                    |low, node, _| {
                        let Wire::Union(u) = node.wire else {
                            return None;
                        };
                        let union = low.union_plan(u);
                        let width = u.tag.bits;
                        let max = if width >= 64 {
                            u64::MAX
                        } else {
                            (1 << width) - 1
                        };
                        let unused = (0..=max.min(1 << 16))
                            .find(|t| union.variants.iter().all(|(tag, _)| tag != t))?;
                        raw_int(&union.tag, node.packed, unused).map(Patch::Head)
                    },
                ),
                Check::Range { min, max } => range_faults(b, node, *min, *max),
                Check::Count { .. } => count_fault(b, node),
                Check::Ascending => ascending_faults(b, node),
                Check::Available | Check::Record | Check::Elements => {}
            }
        }
        if matches!(node.wire, Wire::Record { padded: true, .. }) {
            padding_fault(b, &node.path, &node.reach);
        }
    }
}

/// A bit set's width, and whether it is written most significant byte first (outside a packed
/// body, in the byte order of the file that declares it).
fn bits_form(low: &Lowering<'_>, node: &Node<'_>) -> Option<(u8, bool)> {
    match node.wire {
        Wire::Bits(b) => Some((b.width, low.bits_big_endian(b))),
        _ => None,
    }
}

/// What a fault is made from: the base frame's value, its bytes and where everything went.
pub(super) struct Base {
    pub value: Value,
    pub bytes: Vec<u8>,
    pub trace: Trace,
}

impl Base {
    /// The integer written at `path`: its bits in a packed body, else its bytes in the given
    /// order.
    fn int_at(&self, path: &str, big_endian: bool) -> Option<u64> {
        let f = self.trace.fields.iter().find(|f| f.path == path)?;
        let width = (f.end - f.start).min(64);
        if f.packed {
            return Some((0..width).fold(0u64, |v, i| {
                let bit = f.start + i;
                v | u64::from(self.bytes.get(bit / 8).map_or(0, |b| b >> (bit % 8) & 1)) << i
            }));
        }
        let bytes = self.bytes.get(f.start / 8..f.start / 8 + width / 8)?;
        let fold = |v: u64, b: &u8| v << 8 | u64::from(*b);
        Some(if big_endian {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        })
    }
}

impl Builder<'_> {
    /// A fault at `node`: the frame with the node's field patched (the patch made from the
    /// base frame, at least fill with the node present), expected to fail with `kind` at the
    /// field's start.
    fn fault(
        &mut self,
        node: &Node<'_>,
        what: &str,
        kind: ErrorKind,
        patch: impl FnOnce(&Lowering<'_>, &Node<'_>, &Base) -> Option<Patch>,
    ) {
        let scenario = Scenario::new(Fill::Zero, Shape::Least).with(node.reach.clone());
        let low = self.low;
        self.patched(node, what, kind, &scenario, &node.path, |base| {
            let p = patch(low, node, base)?;
            Some((
                vec![(node.path.clone(), p)],
                Where::Start(node.path.clone()),
            ))
        });
    }

    /// The general form: a base made by `scenario`, the patches `make` gives for it and where
    /// the fault is then expected, at path `at`.
    pub(super) fn patched(
        &mut self,
        node: &Node<'_>,
        what: &str,
        kind: ErrorKind,
        scenario: &Scenario,
        at: &str,
        make: impl FnOnce(&Base) -> Option<(Vec<(String, Patch)>, Where)>,
    ) {
        let name = self.name(&node.path, what);
        let Some(base) = self.base(&name, scenario, &node.path) else {
            return;
        };
        let Some((patches, place)) = make(&base) else {
            self.drop_case(&name, "no such fault for this field's values");
            return;
        };
        let (bytes, trace) = match encode_traced(self.low, self.plan, &base.value, &patches) {
            Ok(written) => written,
            Err(e) => {
                self.drop_case(&name, &format!("the patched frame does not encode: {e:?}"));
                return;
            }
        };
        let Some((pos, packed)) = place.locate(&trace) else {
            self.drop_case(&name, "the fault's field was not written");
            return;
        };
        if preempted(&trace, at, bytes.len()) {
            self.drop_case(&name, "a list around the fault no longer holds its count");
            return;
        }
        let expected = ExpectedError {
            kind: kind.as_str().to_string(),
            offset: pos / 8,
            bit: packed.then_some(pos),
            path: at.to_string(),
        };
        let description = format!("{}: {}", describe_fault(kind), describe_where(&node.path));
        self.negative(name, description, rule_of(kind), &bytes, expected);
    }

    /// The base frame of a fault: made, encoded, and the raw integer at `path`.
    fn base(&mut self, name: &str, scenario: &Scenario, path: &str) -> Option<Base> {
        let value = match gen::make(self.low, self.plan, scenario, self.rng(name)) {
            Ok(v) => v,
            Err(e) => {
                self.drop_case(name, &e.0);
                return None;
            }
        };
        let (bytes, trace) = match encode_traced(self.low, self.plan, &value, &[]) {
            Ok(written) => written,
            Err(e) => {
                self.drop_case(name, &format!("the base frame does not encode: {e:?}"));
                return None;
            }
        };
        let _ = path;
        Some(Base {
            value,
            bytes,
            trace,
        })
    }
}

/// Where a fault is expected, found in the patched frame's trace.
pub(super) enum Where {
    /// At the first bit of the field at this path.
    Start(String),
    /// This many bits after the start of the field at this path.
    After(String, usize),
    /// Where the elements of the list at this path begin.
    Elements(String),
}

impl Where {
    /// The bit and whether it is inside a packed body.
    fn locate(&self, trace: &Trace) -> Option<(usize, bool)> {
        match self {
            Where::Start(path) => trace
                .fields
                .iter()
                .find(|f| f.path == *path)
                .map(|f| (f.start, f.packed)),
            Where::After(path, bits) => trace
                .fields
                .iter()
                .find(|f| f.path == *path)
                .map(|f| (f.start + bits, f.packed)),
            Where::Elements(path) => trace
                .lists
                .iter()
                .find(|l| l.path == *path)
                .map(|l| (l.elements, l.packed)),
        }
    }
}

/// Whether a list around `path` (its path a prefix of `path` up to an index) can no longer
/// hold its count in the `len` bytes of the frame: its `count_too_large` then comes first.
fn preempted(trace: &Trace, path: &str, len: usize) -> bool {
    trace.lists.iter().any(|l| {
        path.starts_with(&format!("{}[", l.path)) && {
            let room = if l.packed {
                (8 * len).saturating_sub(l.elements) as u64
            } else {
                len.saturating_sub(l.elements / 8) as u64
            };
            l.count.saturating_mul(l.elem_min.max(1)) > room
        }
    })
}

/// The frame cut short inside the field at `node`: what a decoder meets first, a list around
/// it whose count no longer fits or the end of the input.
fn cut_short(b: &mut Builder<'_>, node: &Node<'_>) {
    let name = b.name(&node.path, "cut_short");
    let scenario = Scenario::new(Fill::Max, Shape::Least).with(node.reach.clone());
    let Some(base) = b.base(&name, &scenario, &node.path) else {
        return;
    };
    let Some(span) = base.trace.fields.iter().find(|f| f.path == node.path) else {
        b.drop_case(&name, "the field was not written");
        return;
    };
    // The first byte a cut may keep for every list around the field to still hold its count:
    // a cut there or later is the field's `truncated`, one before it the list's
    // `count_too_large`.
    let holds_counts = base
        .trace
        .lists
        .iter()
        .filter(|l| node.path.starts_with(&format!("{}[", l.path)))
        .map(|l| {
            let need = l.count.saturating_mul(l.elem_min.max(1)) as usize;
            if l.packed {
                (l.elements + need).div_ceil(8)
            } else {
                l.elements / 8 + need
            }
        })
        .max()
        .unwrap_or(0);
    let cut = if span.packed {
        let c = span.start.div_ceil(8).max(holds_counts);
        let c = if 8 * c < span.end {
            c
        } else {
            span.start.div_ceil(8)
        };
        if 8 * c >= span.end {
            b.drop_case(
                &name,
                "the field lies within a byte it shares with the one before",
            );
            return;
        }
        c
    } else {
        let (s, e) = (span.start / 8, span.end / 8);
        match node.wire {
            // Inside the length: a cut inside the bytes is the length's count_too_large.
            Wire::Bytes | Wire::OptBytes => s,
            _ if holds_counts > s && holds_counts < e => holds_counts,
            _ => s + (e - s) / 2,
        }
    };
    let mut expected = ExpectedError {
        kind: ErrorKind::Truncated.as_str().to_string(),
        offset: cut,
        bit: span.packed.then_some(8 * cut),
        path: node.path.clone(),
    };
    // "A count is checked against the remaining bytes before any element is read."
    for l in &base.trace.lists {
        if !node.path.starts_with(&format!("{}[", l.path)) {
            continue;
        }
        let room = if l.packed {
            (8 * cut).saturating_sub(l.elements) as u64
        } else {
            cut.saturating_sub(l.elements / 8) as u64
        };
        if l.count.saturating_mul(l.elem_min.max(1)) > room {
            expected = ExpectedError {
                kind: ErrorKind::CountTooLarge.as_str().to_string(),
                offset: l.elements / 8,
                bit: l.packed.then_some(l.elements),
                path: l.path.clone(),
            };
            break;
        }
    }
    let description = format!(
        "the frame cut short after {cut} bytes, inside {}: {}",
        describe_where(&node.path),
        if expected.kind == "truncated" {
            "truncated where the input ends".to_string()
        } else {
            format!(
                "the count of `{}` no longer fits before its elements are read",
                expected.path
            )
        }
    );
    let kind = ErrorKind::from_name(&expected.kind).unwrap_or(ErrorKind::Truncated);
    b.negative(
        name,
        description,
        rule_of(kind),
        &base.bytes[..cut],
        expected,
    );
}

/// A varint's two faults: its value in a longer form than needed, and a value over its width.
fn varint_faults(b: &mut Builder<'_>, node: &Node<'_>, bits: u8) {
    // A value field, constant or count is the varint alone; a byte string or a prefixed list
    // has it as its head.
    let head = matches!(node.wire, Wire::Bytes | Wire::OptBytes | Wire::Array(_));
    let wrap = move |bytes: Vec<u8>| {
        if head {
            Patch::Head(vec![Piece::Bytes(bytes)])
        } else {
            Patch::Raw(vec![Piece::Bytes(bytes)])
        }
    };
    b.fault(
        node,
        "non_canonical_varint",
        ErrorKind::NonCanonicalVarint,
        |_, _, base| {
            let at = field_start(base, &node.path)?;
            let (value, _) = read_leb(&base.bytes, at)?;
            let mut bytes = leb(value);
            if bytes.len() >= 10 {
                return None;
            }
            if let Some(last) = bytes.last_mut() {
                *last |= 0x80;
            }
            bytes.push(0);
            Some(wrap(bytes))
        },
    );
    b.fault(node, "over_width", ErrorKind::OverWidth, |_, _, _| {
        Some(wrap(if bits >= 64 {
            // A tenth byte above 1 would set bits past 63.
            let mut ten = vec![0xff; 9];
            ten.push(0x02);
            ten
        } else {
            leb(1 << bits)
        }))
    });
}

/// A byte string whose length is one past the bytes the frame has left.
fn length_fault(b: &mut Builder<'_>, node: &Node<'_>) {
    let scenario = Scenario::new(Fill::Zero, Shape::Least).with(node.reach.clone());
    let path = node.path.clone();
    let optional = matches!(node.wire, Wire::OptBytes);
    b.patched(
        node,
        "count_too_large",
        ErrorKind::CountTooLarge,
        &scenario,
        &path.clone(),
        |base| {
            let at = field_start(base, &path)?;
            let (_, old) = read_leb(&base.bytes, at)?;
            let left = (base.bytes.len() - at - old) as u64;
            let n = left + 1 + u64::from(optional);
            let head = leb(n);
            let bits = 8 * head.len();
            Some((
                vec![(path.clone(), Patch::Head(vec![Piece::Bytes(head)]))],
                Where::After(path.clone(), bits),
            ))
        },
    );
}

/// A quaternion with `largest` 3 (w dropped) and its first component `c`: out of range, or
/// as large as the dropped one (`non_canonical`).
fn quat_fault(b: &mut Builder<'_>, node: &Node<'_>, bits: u8, what: &str, kind: ErrorKind, c: i64) {
    b.fault(node, what, kind, |_, _, _| {
        Some(Patch::Raw(bit_pieces(
            quat_bits(bits, 3, [c, 0, 0]),
            2 + 3 * u32::from(bits),
        )))
    });
}

/// WIRE-29: a ranged integer one below its least and one above its greatest value, where its
/// carrier can hold them (a packed field carries no value below the least), `over_width` at
/// the field.
fn range_faults(b: &mut Builder<'_>, node: &Node<'_>, min: i64, max: i64) {
    let Wire::Ranged { int, packed, .. } = node.wire else {
        return;
    };
    let (signed, bits, big_endian) = match int.as_ref() {
        Wire::Int {
            signed,
            bits,
            big_endian,
        } => (*signed, *bits, *big_endian),
        _ => return,
    };
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    for (what, v) in [
        ("below_range", i128::from(min) - 1),
        ("above_range", i128::from(max) + 1),
    ] {
        let raw = match packed {
            // The value less the least, in the bits the range needs.
            Some(width) => {
                let offset = v - i128::from(min);
                if offset < 0 || offset >> width != 0 {
                    continue;
                }
                vec![Piece::Bits {
                    width: *width,
                    value: offset as u64,
                }]
            }
            None if v < lo || v > hi => continue,
            None => {
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                int_pieces(false, bits, big_endian, (v as i64 as u64) & mask)
            }
        };
        b.fault(node, what, ErrorKind::OverWidth, |_, _, _| {
            Some(Patch::Raw(raw))
        });
    }
}

/// The smallest three's bits: `largest` as a u2, then the three components as `iB`.
fn quat_bits(bits: u8, largest: u8, rest: [i64; 3]) -> u128 {
    let b = u32::from(bits);
    let mask = (1u128 << b) - 1;
    rest.iter()
        .enumerate()
        .fold(u128::from(largest & 3), |raw, (i, &c)| {
            raw | ((c as u128) & mask) << (2 + i as u32 * b)
        })
}

/// A list whose count is one element more than the rest of the frame can hold.
fn count_fault(b: &mut Builder<'_>, node: &Node<'_>) {
    let Wire::Array(a) = node.wire else {
        return;
    };
    let plan = node.step.map(|(_, p)| p);
    let max = count_max(plan, a);
    // The count field, for a list counted by an earlier field: a sibling.
    let count_field = match &a.count {
        CountFrom::Field(name) => Some(*name),
        CountFrom::Prefix(_) => None,
    };
    let count_path = count_field.map(|name| sibling(&node.path, name));
    for len in [0usize, 1] {
        let scenario = Scenario::new(Fill::Zero, Shape::Least)
            .with(node.reach.clone())
            .with([(node.path.clone(), Want::Len(len))]);
        let path = node.path.clone();
        let count_path = count_path.clone();
        let mut made = false;
        b.patched(
            node,
            "count_too_large",
            ErrorKind::CountTooLarge,
            &scenario,
            &path.clone(),
            |base| {
                let list = base.trace.lists.iter().find(|l| l.path == path)?;
                let room = if list.packed {
                    (8 * base.bytes.len()).saturating_sub(list.elements) as u64
                } else {
                    base.bytes.len().saturating_sub(list.elements / 8) as u64
                };
                let n = room / a.elem_min.max(1) + 1;
                if n > max {
                    return None;
                }
                if let (Some(plan), Some(name)) = (plan, count_field) {
                    // A condition read between the count and its list must come out the same.
                    if flips(plan, name, &path, len as u64, n) {
                        return None;
                    }
                }
                made = true;
                let patch = match (&count_path, &a.count) {
                    (Some(cp), _) => {
                        let field = plan?.step(count_field?)?;
                        (
                            cp.clone(),
                            Patch::Raw(raw_int(&field.wire, node.packed, n)?),
                        )
                    }
                    (None, CountFrom::Prefix(t)) => {
                        (path.clone(), Patch::Head(raw_int(t, node.packed, n)?))
                    }
                    (None, CountFrom::Field(_)) => return None,
                };
                Some((vec![patch], Where::Elements(path.clone())))
            },
        );
        if made {
            return;
        }
    }
}

/// Whether a condition read between the count field `count` and its list at `list` comes out
/// otherwise for a count of `len` than for one of `n`.
fn flips(plan: &RecordPlan<'_>, count: &str, list: &str, len: u64, n: u64) -> bool {
    let list_name = list.rsplit('.').next().unwrap_or(list);
    let Some(from) = plan.steps.iter().position(|s| s.field.name == count) else {
        return false;
    };
    let to = plan
        .steps
        .iter()
        .position(|s| s.field.name == list_name)
        .unwrap_or(plan.steps.len());
    plan.steps[from..to].iter().any(|s| {
        s.presence.as_ref().is_some_and(|p| {
            p.tests.iter().any(|t| {
                let reads = match t.operand() {
                    Operand::Count { field, .. } | Operand::Value { field } => field.name == count,
                    _ => false,
                };
                let holds = |n: u64| match t {
                    ackwire_spec::lower::Test::NonZero { negated, .. } => (n != 0) != *negated,
                    ackwire_spec::lower::Test::Greater { value, .. } => n > *value,
                    _ => true,
                };
                reads && holds(len) != holds(n)
            })
        })
    })
}

/// An ascending list's faults, at its second element (or that element's key): a difference of
/// 0 (`not_ascending`), and a sum past the type's largest value (`over_width`).
fn ascending_faults(b: &mut Builder<'_>, node: &Node<'_>) {
    let Wire::Array(a) = node.wire else {
        return;
    };
    let Some((elem, key)) = ascending_of(b.low, a) else {
        return;
    };
    let at = |i: usize| {
        let mut p = node.path.clone();
        crate::interp::value::push_index(&mut p, i);
        if let Some(k) = key {
            crate::interp::value::push_field(&mut p, k);
        }
        p
    };
    let (first, second) = (at(0), at(1));
    let two = Scenario::new(Fill::Zero, Shape::Least)
        .with(node.reach.clone())
        .with([(node.path.clone(), Want::Len(2))]);
    for (what, kind, wants, delta) in [
        ("not_ascending", ErrorKind::NotAscending, two.clone(), 0u64),
        // The largest value less one, the largest, then a difference of 2 in its place.
        (
            "over_width",
            ErrorKind::OverWidth,
            two.clone().with([(
                first.clone(),
                Want::Exact(Value::Int(i128::from(
                    gen::ascending_max(elem).saturating_sub(1),
                ))),
            )]),
            2,
        ),
    ] {
        let second = second.clone();
        let fault_node = Node {
            path: second.clone(),
            wire: node.wire,
            step: None,
            packed: node.packed,
            reach: Vec::new(),
            absent: None,
            checks: Vec::new(),
        };
        let packed = node.packed;
        b.patched(&fault_node, what, kind, &wants, &second.clone(), |_| {
            Some((
                vec![(
                    second.clone(),
                    Patch::Raw(delta_pieces(elem, packed, delta)?),
                )],
                Where::Start(second.clone()),
            ))
        });
    }
}

/// A packed body whose first padding bit is set.
pub(super) fn padding_fault(b: &mut Builder<'_>, path: &str, reach: &[(String, Want)]) {
    let name = b.name(path, "padding");
    for (fill, shape) in [
        (Fill::Zero, Shape::Least),
        (Fill::Max, Shape::Most),
        (Fill::Random, Shape::Random),
    ] {
        let scenario = Scenario::new(fill, shape).with(reach.to_vec());
        let Some(base) = b.base(&name, &scenario, path) else {
            continue;
        };
        let Some(body) = base.trace.bodies.iter().find(|s| s.path == path) else {
            continue;
        };
        if body.used % 8 == 0 {
            continue;
        }
        let mut bytes = base.bytes.clone();
        bytes[body.used / 8] |= 1 << (body.used % 8);
        let expected = ExpectedError {
            kind: ErrorKind::ReservedBit.as_str().to_string(),
            offset: body.used / 8,
            bit: Some(body.used),
            path: path.to_string(),
        };
        let description = format!(
            "the first padding bit of {} set: padding is zero",
            describe_where(path)
        );
        b.negative(
            name,
            description,
            rule_of(ErrorKind::ReservedBit),
            &bytes,
            expected,
        );
        return;
    }
    b.drop_case(&name, "every base fills the body to a byte");
}

// ---- raw encodings ----

/// Unsigned LEB128.
pub(super) fn leb(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// The LEB128 at byte `at` of bytes the encoder wrote: its value and length.
fn read_leb(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, b) in bytes.get(at..)?.iter().take(10).enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

fn field_start(base: &Base, path: &str) -> Option<usize> {
    base.trace
        .fields
        .iter()
        .find(|f| f.path == path)
        .map(|f| f.start / 8)
}

/// `value` as an integer of `bits` bits: bits in a packed body, else whole bytes in the given
/// order.
fn int_pieces(packed: bool, bits: u8, big_endian: bool, value: u64) -> Vec<Piece> {
    if packed {
        return vec![Piece::Bits { width: bits, value }];
    }
    let le = value.to_le_bytes();
    let n = usize::from(bits / 8);
    let mut bytes = le[..n].to_vec();
    if big_endian {
        bytes.reverse();
    }
    vec![Piece::Bytes(bytes)]
}

/// `value` written as an integer of wire form `w`.
fn raw_int(w: &Wire<'_>, packed: bool, value: u64) -> Option<Vec<Piece>> {
    match w {
        Wire::Int {
            bits, big_endian, ..
        } => {
            let mask = if *bits >= 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            Some(int_pieces(packed, *bits, *big_endian, value & mask))
        }
        Wire::Varint { .. } if !packed => Some(vec![Piece::Bytes(leb(value))]),
        _ => None,
    }
}

/// The bits of `raw` (`width` of them, up to 128) as pieces of at most 64.
fn bit_pieces(raw: u128, width: u32) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < width {
        let w = (width - at).min(64);
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        out.push(Piece::Bits {
            width: w as u8,
            value: (raw >> at) as u64 & mask,
        });
        at += w;
    }
    out
}

/// The difference `d` of an ascending element of wire form `elem`, as its list writes it.
fn delta_pieces(elem: &Wire<'_>, packed: bool, d: u64) -> Option<Vec<Piece>> {
    match (elem, packed) {
        (Wire::Bucket(b), true) => {
            let mut w = BitWriter::new();
            w.bucket(b.widths, d).ok()?;
            let width = ackwire_codec::rt::bucket_len(b.widths, d);
            let mut bytes = Vec::new();
            w.finish(&mut bytes);
            let raw = bytes
                .iter()
                .rev()
                .fold(0u128, |v, byte| v << 8 | u128::from(*byte));
            Some(bit_pieces(raw, width as u32))
        }
        (Wire::Int { bits, .. }, true) => Some(vec![Piece::Bits {
            width: *bits,
            value: d,
        }]),
        (Wire::Int { .. } | Wire::Varint { .. }, false) => raw_int(elem, false, d),
        (_, false) => Some(vec![Piece::Bytes(leb(d))]),
        _ => None,
    }
}

/// The path of field `name` beside the field at `path`.
fn sibling(path: &str, name: &str) -> String {
    match path.rfind('.') {
        Some(i) => format!("{}.{name}", &path[..i]),
        None => name.to_string(),
    }
}

// ---- words ----

/// `` `path` `` or "the frame".
pub(super) fn describe_where(path: &str) -> String {
    if path.is_empty() {
        "the frame".to_string()
    } else {
        format!("`{path}`")
    }
}

fn describe_fault(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Truncated => "the input ends inside the field",
        ErrorKind::BadConstant => "a constant of another value",
        ErrorKind::ReservedBit => "a reserved bit set",
        ErrorKind::NonCanonicalVarint => "a varint one byte longer than its value needs",
        ErrorKind::OverWidth => "a value over its field's width",
        ErrorKind::CountTooLarge => "a count one more than the bytes left can hold",
        ErrorKind::TrailingBytes => "a byte after the frame",
        ErrorKind::InvalidCondition => "a bit set without the bit it requires",
        ErrorKind::UnknownTag => "a tag that names no variant",
        ErrorKind::NonFinite => "a float that is NaN",
        ErrorKind::NotAscending => "an ascending list's difference of 0",
        ErrorKind::NonCanonical => "a quaternion whose dropped component is not the largest",
        _ => "a fault",
    }
}

/// The rules a negative vector tests (the specification's, `docs/spec/wire.md`, and the layout
/// language's section that states them): canonical decoding (WIRE-21) and the rule of the
/// fault's kind.
pub(super) fn rule_of(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Truncated => "WIRE-21, WIRE-22 / LANGUAGE.md, Canonical decoding",
        ErrorKind::BadConstant => "WIRE-21, WIRE-10 / LANGUAGE.md, Canonical decoding",
        ErrorKind::ReservedBit => "WIRE-21, WIRE-12 / LANGUAGE.md, Canonical decoding",
        ErrorKind::NonCanonicalVarint => "WIRE-21, WIRE-3 / LANGUAGE.md, Canonical decoding",
        ErrorKind::OverWidth => "WIRE-21, WIRE-4 / LANGUAGE.md, Canonical decoding",
        ErrorKind::CountTooLarge => "WIRE-21, WIRE-24 / LANGUAGE.md, Canonical decoding",
        ErrorKind::TrailingBytes => "WIRE-21, WIRE-17 / LANGUAGE.md, Canonical decoding",
        ErrorKind::InvalidCondition => "WIRE-21, WIRE-11 / LANGUAGE.md, Canonical decoding",
        ErrorKind::UnknownTag => "WIRE-21, WIRE-16 / LANGUAGE.md, Canonical decoding",
        ErrorKind::NonFinite => "WIRE-21, WIRE-6 / LANGUAGE.md, Canonical decoding",
        ErrorKind::NotAscending => "WIRE-21, WIRE-14 / LANGUAGE.md, Canonical decoding",
        ErrorKind::NonCanonical => "WIRE-21, WIRE-20 / LANGUAGE.md, Canonical decoding",
        _ => "WIRE-21, WIRE-23 / LANGUAGE.md, Canonical decoding",
    }
}
