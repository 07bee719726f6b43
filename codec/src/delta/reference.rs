//! The reference conveniences of the delta machines (`DeltaMirror::new`, [`DeltaPlan::to_frame`]),
//! which name the reference protocol's schema, so that the machines themselves name no protocol's
//! types. The schema itself, [`ReferenceDelta`], and its frame traits are generated from
//! `schema ReferenceDelta` in `spec/protocol/delta.wire`.

use super::baseline::DeltaPlan;
use super::mirror::DeltaMirror;
use super::schema::PlanFrame;
use crate::protocol::DeltaPlan as DeltaPlanFrame;
pub use crate::protocol::ReferenceDelta;

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
