//! NetBaseline snapshots (`docs/spec/baseline.md`): both halves, sans-IO.
//!
//! NB-7: a component goes in full when its encoded bits are not the confirmed ones; what changes is
//! presence, never values, so each entry reads from its packet alone and a new client's first
//! snapshot holds the whole world.
//!
//! - [`NetBaseline`]: find, hold, confirm, expire, gather_lost (plaza's gatherLost), clear; by
//!   entity (slot and generation), never by slot (NB-3).
//! - [`SnapshotWriter`]: the server's half; writes snapshots under a byte budget in NB-12's order
//!   and folds their acknowledgements.
//! - [`read_snapshot`] resolves a body's slot gaps; [`SnapshotClient`] is the client's half.
//! - [`Scene`]: the world, entities by [`EntityId`] with their schema's components.
//!
//! The machines are generic over a [`BaselineSchema`]: its components (the groups an entity's
//! state is declared in), their encoded bits and bit costs, and its `snapshot` and `snapshot_ack`
//! frames, as the TypeScript, C++ and C# ports are. The reference protocol's is
//! [`ReferenceBaseline`] (`spec/protocol/baseline.wire`: Transform, Velocity, Health and Team as
//! [`ComponentValue`], [`Snapshot`](crate::protocol::Snapshot) kind 8 and
//! [`SnapshotAck`](crate::protocol::SnapshotAck) kind 11), which every machine defaults to,
//! generated from the layout's `schema ReferenceBaseline for baseline { ... }`: the components
//! are the `select` arms of the snapshot's entry, their type the mask bit's index.
//!
//! Nothing here reads a clock or opens a socket.
//!
//! Choices `docs/spec/baseline.md` makes, made here:
//! - an entity's component set only grows (NB-15): the wire has no component removal, so a
//!   component is removed by replacing the entity (a new generation);
//! - a world replaced under a live session is replaced on both sides at one sequence:
//!   [`SnapshotWriter::replace_world`] clears the baseline (NB-13) and the client's
//!   [`SnapshotClient::replace_world`] drops its table and every snapshot written before (the
//!   game's level load carries that sequence);
//! - the client acknowledges a snapshot when it applies it and drops, unacknowledged, one not newer
//!   than the last applied (NB-16);
//! - what a connection is owed is bounded ([`BaselineLimits`]): a client that stops confirming is
//!   owed every entity that dies (NB-11: named until confirmed, so that destruction is reliable),
//!   so past the bound the writer reports the connection stalled (NB-14)
//!   ([`LimitError::BaselineStalled`](crate::LimitError::BaselineStalled)) instead of forgetting
//!   what it owes, and a write's cost does not grow with how many entities died.

mod client;
pub mod harness;
mod net_baseline;
mod reference;
mod scene;
mod schema;
mod writer;

#[cfg(test)]
mod tests;

pub use client::{ClientEntity, SnapshotClient, SnapshotSummary};
pub use net_baseline::{Confirmed, NetBaseline, Pending};
pub use reference::{ComponentValue, ReferenceBaseline, COMPONENT_TYPES};
pub use scene::{EntityId, Scene, SceneEntity, SceneError};
pub use schema::{BaselineSchema, EncodedValues, Values, WireEntry};
pub use writer::{read_snapshot, BaselineLimits, ReadError, ReadSnapshot, SnapshotWriter};

/// Whether sequence `a` is newer than `b`: NB-6's u16 sequences compared with wrapping arithmetic
/// (newer when `a - b`, wrapped, is in 1..=32767).
pub fn sequence_newer(a: u16, b: u16) -> bool {
    (a.wrapping_sub(b) as i16) > 0
}
