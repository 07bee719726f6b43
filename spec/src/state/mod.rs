//! Replicated state: a `state` item resolved once into the [`StatePlan`] every binding
//! generator prints from, and the frame items it derives ([`expand`]).
//!
//! A state declares an entity's record as named groups of fields, each field with its form
//! against the base (absolute, quantized, a step from the base's value, a measured tick, a
//! smallest-three quaternion), and the frames it travels in. Two things come of it:
//!
//! - the frames' layouts ([`expand`]): the change mask, the change record and each group's
//!   records, the acked frame with ACK-2's header, a bit-packed profile of the same
//!   declaration, the ack frame, and the record whose canonical bytes the check hashes. They
//!   are ordinary items, so every frame printer, `explain`, the dissector, the docs and
//!   `breaking` handle them as any other;
//! - the binding's meaning ([`StatePlan`]): which fields a group holds and how each travels in
//!   each form, the mask bits, the staged change and the decoder's slot in machine words. A
//!   binding generator walks the plan and writes diff, apply, equality, the check's bytes and
//!   the frame and ack adapters; it re-derives nothing.
//!
//! What this module enforces: groups take change-mask bits 0, 1, ... in declaration order
//! (ACK-6); the check hashes `u16 eid` then the record's canonical bytes as the
//! declaration defines them; policy (who sees what, tiers, refresh) is the game's, not here.
//!
//! Every misuse of a state is a located diagnostic ([`check`]); a state that passes derives
//! items that pass the general validation.

mod expand;
mod plan;
pub mod tables;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> StatePlan {
        let spec = crate::compile(&crate::reference_sources()).unwrap_or_else(|e| panic!("{e}"));
        plans(&spec).remove(0)
    }

    /// The reference's coded frame has one model per value the packed change holds, in the
    /// change's order, with CODE-10..CODE-14's widths.
    #[test]
    fn the_reference_coded_frame_names_its_models_in_coding_order() {
        let c = reference().coded.expect("acked.wire declares AckedCoded");
        assert_eq!((c.frame.as_str(), c.kind), ("AckedCoded", 13));
        assert_eq!(c.packed_frame, "AckedPacked");
        let models: Vec<(&str, u8)> = c.models.iter().map(|m| (m.name.as_str(), m.w)).collect();
        assert_eq!(
            models,
            [
                ("eid", 17),
                ("mask", 6),
                ("age", 9),
                ("pose_full.x", 32),
                ("pose_full.y", 32),
                ("pose_full.z", 32),
                ("pose_full.yaw", 16),
                // i16 steps: max - min = 65535, its zigzag code 17 bits.
                ("pose_step.dx", 17),
                ("pose_step.dy", 17),
                ("pose_step.dz", 17),
                ("pose_step.yaw", 9),
                ("health.hp", 8),
                ("health.armor", 8),
                ("vehicle.vehicle", 16),
                ("vehicle.seat", 8),
                ("orient.q.same", 1),
                ("orient.q.d0", 10),
                ("orient.q.d1", 10),
                ("orient.q.d2", 10),
                ("orient.q.largest", 2),
                ("orient.q.c0", 9),
                ("orient.q.c1", 9),
                ("orient.q.c2", 9),
            ]
        );
        // Each model's slots follow the one before's.
        for pair in c.models.windows(2) {
            assert_eq!(pair[1].at, pair[0].at + model_slots(pair[0].w));
        }
        assert_eq!(model_slots(1), 1);
        assert_eq!(model_slots(2), 4);
        // W = 8: the tree of 4 bits' 15, then L = 2..8: 1, 3, 7, 7+1, 7+2, 7+3, 7+4.
        assert_eq!(model_slots(8), 15 + 1 + 3 + 7 + 8 + 9 + 10 + 11);
        // The trained tables, every slot of every model.
        let slots: usize = c.models.iter().map(|m| model_slots(m.w)).sum();
        assert_eq!(c.probs.len(), slots);
        assert!(c.probs.iter().any(|&p| p != 2048));
    }

    /// The reference state's plan names today's items and lays the masks, the staged change and
    /// the slot out as ACK-6 and the hand-tuned bindings did.
    #[test]
    fn the_reference_state_resolves_to_the_seed_layout() {
        let p = reference();
        assert_eq!(p.name, "Reference");
        assert_eq!(p.record.name, "EntityState");
        let names: Vec<&str> = p.record.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "x", "y", "z", "yaw", "flags", "measured", "hp", "armor", "vehicle", "seat",
                "orient"
            ]
        );
        assert_eq!(p.record_bytes(), 24);
        let groups: Vec<(&str, u8)> = p
            .groups
            .iter()
            .map(|g| (g.bit_name.as_str(), g.bit))
            .collect();
        assert_eq!(
            groups,
            [("POSE", 0), ("HEALTH", 1), ("VEHICLE", 2), ("ORIENT", 3)]
        );
        let byte = p.byte_profile().unwrap();
        assert_eq!(
            (byte.schema.as_str(), byte.frame_name.as_str()),
            ("Reference", "acked")
        );
        assert_eq!((byte.full_bits[0], byte.age_bits[0]), (Some(14), Some(15)));
        assert_eq!(byte.named(), 0xc00f);
        let packed = p.packed_profile().unwrap();
        assert_eq!(packed.schema, "PackedReference");
        assert_eq!(packed.frame_name, "acked_packed");
        assert_eq!(
            (packed.full_bits[0], packed.age_bits[0], packed.mask_width),
            (Some(4), Some(5), 6)
        );
        let pose = &p.groups[0];
        assert_eq!(pose.tier.as_ref().map(|b| b.index), Some(0));
        assert_eq!(pose.reach, Some(16383));
        assert_eq!(pose.stepped(), [0, 1, 2]);
        let step = pose.form(FormRole::Step).unwrap();
        assert_eq!(step.packed_record, "PackedPoseStep");
        assert_eq!(step.wire[3].carry, Carry::Scaled { by: 256 });
        let full = pose.form(FormRole::Full).unwrap();
        assert!(matches!(
            full.wire[0].carry,
            Carry::Float {
                bits: 32,
                num: 1,
                den: 512,
                limit: 16_777_216
            }
        ));
        let orient = &p.groups[3];
        assert!(orient.nested && orient.packed_record);
        assert_eq!(orient.presence.as_ref().map(|b| b.index), Some(1));
        assert_eq!(orient.forms[0].packed_record, "Orientation");
        // The staged change: the wire's integers (28 bytes in the hand-written StagedChange).
        let staged: Vec<(&str, bool, u8)> = p
            .staged
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.signed, f.bits))
            .collect();
        assert_eq!(
            staged,
            [
                ("x", true, 32),
                ("y", true, 32),
                ("z", true, 32),
                ("yaw", false, 16),
                ("age", false, 8),
                ("hp", false, 8),
                ("armor", false, 8),
                ("vehicle", false, 16),
                ("seat", false, 8),
                ("orient_q", false, 32),
            ]
        );
        assert_eq!(p.staged.name, "StagedChange");
        // The slot: canonical order in four u64 words, none straddling, the length last.
        assert_eq!(p.slot.words, 4);
        let at: Vec<u32> = p.slot.fields.iter().map(|f| f.at).collect();
        assert_eq!(at, [0, 4, 8, 12, 14, 16, 20, 21, 22, 24, 25]);
        assert_eq!(p.slot.holds_at, 31);
        assert_eq!((p.measured, p.tiered), (Some(0), Some(0)));
        assert_eq!(p.constants.len(), 5);
    }
}
