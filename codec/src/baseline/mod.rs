//! NetBaseline snapshots (seed 002): both halves, sans-IO.
//!
//! Seed 002: "A component is sent, whole, when its encoded bits differ from what this
//! connection has confirmed receiving: the delta is on presence, never on values, so every
//! entry decodes from the packet alone and a joiner's first snapshot is the whole world by the
//! same rule."
//!
//! - [`NetBaseline`]: find, hold, confirm, expire, gather_lost (seed: gatherLost), clear; by
//!   entity (slot and generation), never by slot.
//! - [`SnapshotWriter`]: the server's half; writes [`Snapshot`](crate::protocol::Snapshot)s
//!   (kind 8) under a byte budget in DESIGN.md §3's order and folds
//!   [`SnapshotAck`](crate::protocol::SnapshotAck)s (kind 11).
//! - [`read_snapshot`] resolves a body's slot gaps; [`SnapshotClient`] is the client's half.
//! - [`Scene`]: the world, entities by [`EntityId`] with the reference schema's components.
//!
//! Nothing here reads a clock or opens a socket.
//!
//! Decisions the seed leaves open, made here:
//! - an entity's component set only grows: the wire has no component removal, so a component
//!   is removed by replacing the entity (a new generation);
//! - a world replaced under a live session is replaced on both sides at one sequence:
//!   [`SnapshotWriter::replace_world`] clears the baseline (seed 002, clear) and the client's
//!   [`SnapshotClient::replace_world`] drops its table and every snapshot written before (the
//!   game's level load carries that sequence);
//! - the client acknowledges a snapshot when it applies it and drops, unacknowledged, one not
//!   newer than the last applied;
//! - what a connection is owed is bounded ([`BaselineLimits`]): a client that stops
//!   confirming is owed every entity that dies (seed 002: "Reported until confirmed, which
//!   makes destruction reliable"), so past the bound the writer reports the connection stalled
//!   ([`LimitError::BaselineStalled`](crate::LimitError::BaselineStalled)) instead of
//!   forgetting what it owes, and a write's cost does not grow with how many entities died.

mod client;
pub mod harness;
mod net_baseline;
mod scene;
mod writer;

#[cfg(test)]
mod tests;

pub use client::{ClientEntity, SnapshotClient, SnapshotSummary};
pub use net_baseline::{Confirmed, NetBaseline, Pending};
pub use scene::{ComponentValue, EntityId, Scene, SceneEntity, SceneError, COMPONENT_TYPES};
pub use writer::{read_snapshot, BaselineLimits, ReadError, ReadSnapshot, SnapshotWriter};

/// Whether sequence `a` is newer than `b`: seed 002's u16 sequences compared with wrapping
/// arithmetic (newer when `a - b`, wrapped, is in 1..=32767).
pub fn sequence_newer(a: u16, b: u16) -> bool {
    (a.wrapping_sub(b) as i16) > 0
}
