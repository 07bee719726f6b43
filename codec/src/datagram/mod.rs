//! Datagram v2 (`docs/spec/datagram.md`): entity updates that may be lost, duplicated or reordered,
//! beside a reliable, ordered stream of spawns, despawns and full frames. Both halves, sans-IO.
//!
//! Each datagram is self-contained: an update holds the entity's absolute quantized position, so
//! losing a datagram only delays its content; the client acknowledges what it applies and the
//! server repeats whatever changed since an entity's last acknowledged state until covered (DG-14,
//! DG-22).
//!
//! - [`DatagramBuilder`] builds one datagram (updates in ascending id order, a size limit with
//!   the header counted at its longest); [`split_tick`] splits a tick into parts;
//!   [`spawn_tag`] is the part of a spawn tick an update carries.
//! - The reliable stream frames are a spawn, a despawn and a full frame; [`StreamFrame`] is any of
//!   them.
//! - [`Subscription`] is the server's half: it takes the world's operations tick by tick and the
//!   client's acks.
//! - [`ReplicaTable`] is the client's half: spawn tags, the last datagram per entity, whole
//!   ticks and the input ack.
//!
//! The machines are generic over a [`DatagramSchema`], whose frame traits ([`UpdateFrame`],
//! [`DatagramFrame`], [`SpawnFrame`], ...) say what they read of each frame and how they make one,
//! as the TypeScript, C++ and C# ports are; the component payloads they carry are bytes by type
//! (a state's groups give them types: `ReferenceComponent` for the reference state). A layout's
//! `schema Name for datagram { ... }` generates a schema and its frame traits (spec/LANGUAGE.md,
//! "Machine schemas"). The reference protocol's frames
//! (`spec/protocol/datagram.wire`: [`Spawn`](crate::protocol::Spawn) kind 1,
//! [`Despawn`](crate::protocol::Despawn) kind 2, [`FullFrame`](crate::protocol::FullFrame) kind 3,
//! [`DatagramAck`](crate::protocol::DatagramAck) kind 4 and the version-2 datagram) are one schema,
//! [`ReferenceDatagram`], generated so, which every machine defaults to; its `new` constructors and
//! [`encode_entry_into`] (one reference update's body) live beside it.
//!
//! Nothing here reads a clock or opens a socket: ticks are arguments, frames are values.
//!
//! Two choices the specification makes, made here:
//! - the client acks a datagram when it applies it (DG-22: when its tick, or a later one, is
//!   whole), not while it only holds it, so a datagram given up for room is never acknowledged and
//!   what it said is sent again;
//! - a tick that sends a full frame sends no datagram: the full frame is its whole state (DG-12).

mod builder;
pub mod harness;
mod reference;
mod replica;
mod schema;
mod subscription;

#[cfg(test)]
mod tests;

pub use crate::protocol::{MAX_HEADER_LEN, VERSION};
pub use builder::{split_tick, BuildError, DatagramBuilder};
pub use reference::{encode_entry_into, ReferenceDatagram};
pub use replica::{DatagramSummary, Replica, ReplicaLimits, ReplicaTable};
pub use schema::{
    ComponentChange, DatagramAckFrame, DatagramFrame, DatagramHeader, DatagramSchema, DespawnFrame,
    FullEntityFrame, FullFrameFrame, SpawnFrame, UpdateFrame,
};
pub use subscription::{
    AckSummary, Subscription, SubscriptionConfig, TickOutput, WorldError, WorldOp, WorldView,
};

use crate::{DecodeError, EncodeError, Frame};

/// The part of a spawn tick an update carries (DG-8: its low 16 bits).
///
/// DG-8, DG-18: an update names the low 16 bits of the tick of the stream frame that spawned its
/// entity, and applies only to the entity spawned then. Spawns 65536 ticks apart share a tag; the
/// ticks in every stream frame's header keep the two sides agreed on which spawn is meant.
pub fn spawn_tag(spawn_tick: u64) -> u16 {
    // Truncation is the rule: the low 16 bits, whatever the higher ones.
    spawn_tick as u16
}

/// An axis value on the wire: round(coordinate / precision), halves away from zero.
///
/// DG-5: an axis value is round(coordinate / precision), and a non-finite coordinate quantizes to
/// 0. A quotient that is not finite (a precision of 0) also gives 0, and one beyond the i64 range
/// saturates.
pub fn quantize(coordinate: f64, precision: f32) -> i64 {
    if !coordinate.is_finite() {
        return 0;
    }
    let q = (coordinate / f64::from(precision)).round();
    if q.is_finite() {
        q as i64
    } else {
        0
    }
}

/// One frame of the reliable stream of schema `S`.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamFrame<S: DatagramSchema = ReferenceDatagram> {
    /// An entity enters the subscription.
    Spawn(S::Spawn),
    /// An entity leaves.
    Despawn(S::Despawn),
    /// The whole subscription.
    FullFrame(S::FullFrame),
}

impl<S: DatagramSchema> StreamFrame<S> {
    /// The stream frame's tick.
    pub fn tick(&self) -> u64 {
        match self {
            StreamFrame::Spawn(f) => f.tick(),
            StreamFrame::Despawn(f) => f.tick(),
            StreamFrame::FullFrame(f) => f.tick(),
        }
    }

    /// The frame's name in the spec.
    pub fn name(&self) -> &'static str {
        match self {
            StreamFrame::Spawn(_) => S::Spawn::NAME,
            StreamFrame::Despawn(_) => S::Despawn::NAME,
            StreamFrame::FullFrame(_) => S::FullFrame::NAME,
        }
    }

    /// The frame's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        match self {
            StreamFrame::Spawn(f) => f.to_bytes(),
            StreamFrame::Despawn(f) => f.to_bytes(),
            StreamFrame::FullFrame(f) => f.to_bytes(),
        }
    }

    /// Decodes the stream frame named `name`; `None` when `name` is not a stream frame.
    pub fn decode(name: &str, bytes: &[u8]) -> Option<Result<Self, DecodeError>> {
        Some(match name {
            n if n == S::Spawn::NAME => S::Spawn::decode(bytes).map(StreamFrame::Spawn),
            n if n == S::Despawn::NAME => S::Despawn::decode(bytes).map(StreamFrame::Despawn),
            n if n == S::FullFrame::NAME => S::FullFrame::decode(bytes).map(StreamFrame::FullFrame),
            _ => return None,
        })
    }
}
