//! What binds the delta machines to a protocol: [`DeltaSchema`] names its `delta_plan` and
//! `delta_ack` frames, and the frame traits here say what the machines read of each and how they
//! make one.
//!
//! [`DeltaBaseline`](super::DeltaBaseline) is set-theoretic and touches no frame: its
//! [`DeltaPlan`] becomes one through [`PlanFrame::new`]. [`DeltaMirror`](super::DeltaMirror)
//! applies a schema's plans and writes its acks (DELTA-20 to DELTA-25). The reference protocol's
//! frames (`spec/protocol/delta.wire`, kinds 9 and 10) are one schema,
//! [`ReferenceDelta`](super::ReferenceDelta). The TypeScript, C++ and C# ports take the same schema
//! (`DeltaSchema` in each).

use super::baseline::DeltaPlan;
use crate::Frame;
use std::fmt::Debug;

/// A `delta_plan` frame: a plan numbered as one packet (DELTA-12).
pub trait PlanFrame: Frame {
    /// The frame that carries `plan` as packet `sequence`.
    fn new(plan: &DeltaPlan, sequence: u64) -> Self;
    /// The packet's sequence.
    fn sequence(&self) -> u64;
    /// Whether the subscriber clears its mirror first.
    fn full_baseline(&self) -> bool;
    /// The sequence the differences were computed against.
    fn baseline_seq(&self) -> Option<u64>;
    /// Keys to hold, ascending.
    fn entered(&self) -> &[u64];
    /// Keys to drop, ascending.
    fn left(&self) -> &[u64];
}

/// A `delta_ack` frame: the window of packets received and the digest of the keys held
/// (DELTA-6, DELTA-23).
pub trait DeltaAckFrame: Frame {
    /// The ack of `newest` and the `mask` of the packets before it, with `digest`.
    fn new(newest: u64, mask: u64, digest: u64) -> Self;
    /// The newest sequence received.
    fn newest(&self) -> u64;
    /// Bit i: packet `newest - 1 - i` arrived too.
    fn mask(&self) -> u64;
    /// The [`SetDigest`](crate::digest::SetDigest) of the keys held.
    fn digest(&self) -> u64;
}

/// A protocol's delta frames: what [`DeltaMirror`](super::DeltaMirror) is generic over. A schema
/// is a value-less marker; a constructor takes one only so that it is named.
pub trait DeltaSchema: Clone + Copy + Debug + Default + PartialEq + 'static {
    /// The `delta_plan` frame (server to client).
    type Plan: PlanFrame;
    /// The `delta_ack` frame (client to server).
    type Ack: DeltaAckFrame;
}
