//! Replicated state: a `state` item resolved once into the [`StatePlan`] every binding
//! generator prints from, and the frame items it derives ([`expand`]).
//!
//! A state declares an entity's record as named groups of fields, each field with its form
//! against the base (absolute, quantized, a step from the base's value, a measured tick, a
//! smallest-three quaternion), and the frames it travels in. Two things come of it:
//!
//! - the frames' layouts ([`expand`]): the change mask, the change record and each group's
//!   records, the acked frame with the seed's header, a bit-packed profile of the same
//!   declaration, the ack frame, and the record whose canonical bytes the check hashes. They
//!   are ordinary items, so every frame printer, `explain`, the dissector, the docs and
//!   `breaking` handle them as any other;
//! - the binding's meaning ([`StatePlan`]): which fields a group holds and how each travels in
//!   each form, the mask bits, the staged change and the decoder's slot in machine words. A
//!   binding generator walks the plan and writes diff, apply, equality, the check's bytes and
//!   the frame and ack adapters; it re-derives nothing.
//!
//! DESIGN.md section 7 pins what this module enforces: groups take change-mask bits 0, 1, ... in
//! declaration order; the check hashes `u16 eid` then the record's canonical bytes as the
//! declaration defines them; policy (who sees what, tiers, refresh) is the game's, not here.
//!
//! Every misuse of a state is a located diagnostic ([`check`]); a state that passes derives
//! items that pass the general validation.

mod expand;
mod plan;

pub use expand::expand;
pub use plan::*;

use crate::diag::Diagnostic;
use crate::index::Index;
use crate::model::{Item, Spec};

/// Every problem of every state of `spec` (empty when each resolves into a plan). Runs on a
/// spec before [`expand`]: what a state derives is checked by the general validation after.
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let index = Index::new(spec);
    let mut out = Vec::new();
    for file in &spec.files {
        for item in &file.items {
            if let Item::State(s) = item {
                if let Err(mut d) = StatePlan::resolve(s, &index, &file.name) {
                    out.append(&mut d);
                }
            }
        }
    }
    out
}

/// The plan of every state of `spec`, in declaration order. A spec that passed
/// [`crate::compile`] resolves every state; one that did not is skipped.
pub fn plans(spec: &Spec) -> Vec<StatePlan> {
    let index = Index::new(spec);
    spec.files
        .iter()
        .flat_map(|f| f.items.iter().map(move |i| (f, i)))
        .filter_map(|(f, item)| match item {
            Item::State(s) => StatePlan::resolve(s, &index, &f.name).ok(),
            _ => None,
        })
        .collect()
}
