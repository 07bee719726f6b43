//! The reference protocol's schema for the delta machines: the `delta_plan` and `delta_ack` frames
//! of `spec/protocol/delta.wire` ([`ReferenceDelta`]), and the reference conveniences that name it
//! (`DeltaMirror::new`, [`DeltaPlan::to_frame`]), so the machines themselves name no protocol's
//! types.

use super::baseline::DeltaPlan;
use super::mirror::DeltaMirror;
use super::schema::{DeltaAckFrame, DeltaSchema, PlanFrame};
use crate::protocol::{DeltaAck, DeltaPlan as DeltaPlanFrame, PlanFlags};
use crate::BitSet;

/// The delta frames of the reference protocol (`docs/spec/delta.md`): kind 9 plans and kind 10
/// acks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReferenceDelta;

impl DeltaSchema for ReferenceDelta {
    type Plan = DeltaPlanFrame;
    type Ack = DeltaAck;
}

impl PlanFrame for DeltaPlanFrame {
    fn new(plan: &DeltaPlan, sequence: u64) -> Self {
        let mut flags = PlanFlags::empty();
        flags.set(PlanFlags::FULL_BASELINE, plan.full_baseline);
        flags.set(PlanFlags::BASELINE, plan.baseline_seq.is_some());
        DeltaPlanFrame {
            flags,
            sequence,
            baseline_seq: plan.baseline_seq,
            entered: plan.entered.clone(),
            left: plan.left.clone(),
        }
    }
    fn sequence(&self) -> u64 {
        self.sequence
    }
    fn full_baseline(&self) -> bool {
        self.flags.contains(PlanFlags::FULL_BASELINE)
    }
    fn baseline_seq(&self) -> Option<u64> {
        self.baseline_seq
    }
    fn entered(&self) -> &[u64] {
        &self.entered
    }
    fn left(&self) -> &[u64] {
        &self.left
    }
}

impl DeltaAckFrame for DeltaAck {
    fn new(newest: u64, mask: u64, digest: u64) -> Self {
        DeltaAck {
            newest,
            mask,
            digest,
        }
    }
    fn newest(&self) -> u64 {
        self.newest
    }
    fn mask(&self) -> u64 {
        self.mask
    }
    fn digest(&self) -> u64 {
        self.digest
    }
}

impl DeltaPlan {
    /// The reference `delta_plan` frame that carries this plan as packet `sequence` (any schema's:
    /// [`PlanFrame::new`]).
    #[must_use]
    pub fn to_frame(&self, sequence: u64) -> DeltaPlanFrame {
        DeltaPlanFrame::new(self, sequence)
    }
}

impl<E> DeltaMirror<E> {
    /// An empty mirror of the reference protocol, with generations checked.
    #[must_use]
    pub fn new() -> Self {
        Self::with_schema(ReferenceDelta)
    }
}

impl<E> Default for DeltaMirror<E> {
    fn default() -> Self {
        Self::new()
    }
}
