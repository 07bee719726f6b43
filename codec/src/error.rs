//! The codec's errors: the taxonomy of decode faults and the encoder's refusals, which are
//! `ackwire-rt`'s (re-exported here, as generated code of any layout uses them), and the
//! session machines' refusals of a peer that pushes past their limits ([`LimitError`]).
//!
//! WIRE-22: a decode error names its kind, the byte offset and the field path
//! (`changes[3].mask`). WIRE-23: conformance judges an error by its [`ErrorKind`] (its
//! [`ErrorKind::as_str`] name), never by its text.

pub use ackwire_rt::error::{DecodeError, EncodeError, ErrorKind, FieldPath};

/// A peer pushed a session machine past one of its documented limits: what the machine holds at
/// most is part of the specification (GEN-5, docs/limits.md). Each variant names the machine, the
/// limit and the frame at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// A `delta_plan` would make a [`DeltaMirror`](crate::delta::DeltaMirror) hold more
    /// occupants than its [`MirrorLimits::max_keys`](crate::delta::MirrorLimits::max_keys); the
    /// plan was neither applied nor acknowledged.
    #[error(
        "delta mirror, {at}: would hold {would_hold} keys, over max_keys = {max_keys}",
        at = plan_text(*.sequence)
    )]
    MirrorKeys {
        /// The refused plan's sequence; `None` for a key inserted outside a plan.
        sequence: Option<u64>,
        /// How many occupants the mirror would have held.
        would_hold: usize,
        /// The limit.
        max_keys: usize,
    },
    /// A [`SnapshotWriter`](crate::baseline::SnapshotWriter)'s connection owes more lost
    /// entities than its
    /// [`BaselineLimits::max_owed_lost`](crate::baseline::BaselineLimits::max_owed_lost) allows:
    /// the connection is stalled and the snapshot was not written.
    #[error(
        "snapshot writer, snapshot {sequence}: the connection owes {owed} lost entities, over \
         max_owed_lost = {max_owed_lost}: stalled"
    )]
    BaselineStalled {
        /// The sequence the refused snapshot would have had.
        sequence: u16,
        /// Lost entities whose removal the client has not confirmed.
        owed: usize,
        /// The limit.
        max_owed_lost: usize,
    },
}

fn plan_text(sequence: Option<u64>) -> String {
    sequence.map_or_else(|| "insert".to_owned(), |s| format!("delta_plan {s}"))
}
