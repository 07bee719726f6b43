//! Every place of a frame a derived vector is about: each field (constants and counts too) and
//! each list's first element, at its path with first elements (`changes[0].pose_full.x`), with
//! what the value must be for the place to be on the wire at all ([`Node::reach`]): the bits,
//! bools, counts and union arms its conditions and those of the records around it read.

use super::gen::Want;
use crate::interp::value::{push_field, push_index};
use ackwire_spec::gen::snake_case;
use ackwire_spec::index::Index;
use ackwire_spec::lower::{
    Ascending, Check, Lowering, Operand, RecordPlan, Role, Step, Test, Wire,
};

/// One place of a frame.
#[derive(Debug)]
pub struct Node<'a> {
    /// Its path, lists at their first element.
    pub path: String,
    /// Its wire form.
    pub wire: &'a Wire<'a>,
    /// A field of a record (with its step and record), or a list's first element.
    pub step: Option<(&'a Step<'a>, &'a RecordPlan<'a>)>,
    /// Inside a packed body.
    pub packed: bool,
    /// What makes it present: its conditions and those of every record, list and union around
    /// it.
    pub reach: Vec<(String, Want)>,
    /// For a field under a condition: what makes the records around it present and it absent.
    pub absent: Option<Vec<(String, Want)>>,
    /// The checks a decoder makes reading it, in the canonical order.
    pub checks: Vec<Check>,
}

/// Records nested deeper than this are not followed (a spec that contains itself).
const MAX_DEPTH: usize = 16;

/// The places of the frame of plan `frame`, in wire order (a record's fields after it).
pub fn nodes<'a>(low: &'a Lowering<'a>, frame: &'a RecordPlan<'a>) -> Vec<Node<'a>> {
    let mut out = Vec::new();
    Walk { low, out: &mut out }.record(frame, "", &[], 0);
    out
}

struct Walk<'a, 'o> {
    low: &'a Lowering<'a>,
    out: &'o mut Vec<Node<'a>>,
}

impl<'a> Walk<'a, '_> {
    fn record(
        &mut self,
        plan: &'a RecordPlan<'a>,
        path: &str,
        reach: &[(String, Want)],
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for step in &plan.steps {
            let mut p = path.to_string();
            push_field(&mut p, &step.field.name);
            let tests = step.presence.as_ref().map_or(&[][..], |pr| &pr.tests[..]);
            let Some(own) = tests
                .iter()
                .map(|t| test_want(t, path, false))
                .collect::<Option<Vec<_>>>()
            else {
                // A condition on a constant that never holds: never on the wire.
                continue;
            };
            let mut here = reach.to_vec();
            here.extend(own.into_iter().flatten());
            let absent = tests
                .iter()
                .find_map(|t| test_want(t, path, true).flatten())
                .map(|negated| {
                    let mut wants = reach.to_vec();
                    wants.push(negated);
                    wants
                });
            let mut checks = step.checks();
            if step.role == Role::Key {
                // A key's ascent is its list's check (at the list's node).
                checks.retain(|c| *c != Check::Ascending);
            }
            self.out.push(Node {
                path: p.clone(),
                wire: &step.wire,
                step: Some((step, plan)),
                packed: plan.packed,
                reach: here.clone(),
                absent,
                checks,
            });
            self.wire(&step.wire, &p, plan.packed, &here, depth);
        }
    }

    fn wire(
        &mut self,
        w: &'a Wire<'a>,
        path: &str,
        packed: bool,
        reach: &[(String, Want)],
        depth: usize,
    ) {
        match w {
            Wire::Record { record, .. } => {
                if let Some(plan) = self.low.plan(&record.name, None) {
                    self.record(plan, path, reach, depth + 1);
                }
            }
            Wire::Union(u) => {
                let union = self.low.union_plan(u);
                for (i, (_, record)) in union.variants.iter().enumerate() {
                    let Some(plan) = self.low.plan(&record.name, None) else {
                        continue;
                    };
                    let mut p = path.to_string();
                    push_field(&mut p, &snake_case(&record.name));
                    let mut here = reach.to_vec();
                    here.push((path.to_string(), Want::Arm(i)));
                    self.record(plan, &p, &here, depth + 1);
                }
            }
            Wire::Array(a) => {
                let mut e = path.to_string();
                push_index(&mut e, 0);
                let mut here = reach.to_vec();
                here.push((path.to_string(), Want::LenAtLeast(1)));
                self.out.push(Node {
                    path: e.clone(),
                    wire: &a.elem,
                    step: None,
                    packed,
                    reach: here.clone(),
                    absent: None,
                    checks: a.elem.read_checks(),
                });
                match (a.ascending, &a.elem) {
                    (Some(Ascending::Key(key)), Wire::Record { record, .. }) => {
                        if let Some(plan) = self.low.plan(&record.name, Some(key)) {
                            self.record(plan, &e, &here, depth + 1);
                        }
                    }
                    (_, elem) => self.wire(elem, &e, packed, &here, depth + 1),
                }
            }
            _ => {}
        }
    }
}

/// What makes `test` (of a field of the record at `path`) hold, or fail when `negate`: `None`
/// when it cannot, `Some(None)` when it always does (a constant operand).
fn test_want(test: &Test<'_>, path: &str, negate: bool) -> Option<Option<(String, Want)>> {
    let operand = test.operand();
    let mut at = path.to_string();
    match operand {
        Operand::Count { array, .. } => push_field(&mut at, array),
        other => push_field(&mut at, other.name()),
    };
    let constant = match operand {
        Operand::Constant { value, .. } => Some(*value),
        _ => None,
    };
    let want = match test {
        Test::Bit {
            bits, bit, negated, ..
        } => {
            let index = bits.and_then(|b| Index::bit_index(b, bit))?;
            let set = *negated == negate;
            if let Some(c) = constant {
                return (index < 64 && ((c >> index) & 1 == 1) == set).then_some(None);
            }
            if index >= 64 {
                return None;
            }
            if set {
                Want::SetBits(1 << index)
            } else {
                Want::ClearBits(1 << index)
            }
        }
        Test::Bool { negated, .. } => {
            if let Some(c) = constant {
                return ((c != 0) == (*negated == negate)).then_some(None);
            }
            Want::Bool(*negated == negate)
        }
        Test::NonZero { negated, .. } => {
            let nonzero = *negated == negate;
            match (constant, operand) {
                (Some(c), _) => return ((c != 0) == nonzero).then_some(None),
                (_, Operand::Count { .. }) if nonzero => Want::LenAtLeast(1),
                (_, Operand::Count { .. }) => Want::Len(0),
                _ if nonzero => Want::AtLeast(1),
                _ => Want::Zero,
            }
        }
        Test::Greater { value, .. } => {
            let more = usize::try_from(*value).ok()?.checked_add(1)?;
            match (constant, operand) {
                (Some(c), _) => return ((c > i128::from(*value)) != negate).then_some(None),
                (_, Operand::Count { .. }) if !negate => Want::LenAtLeast(more),
                (_, Operand::Count { .. }) => Want::Len(0),
                _ if !negate => Want::AtLeast(i128::from(*value) + 1),
                _ => Want::Zero,
            }
        }
    };
    Some(Some((at, want)))
}
