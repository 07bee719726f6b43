//! Delta streaming (`docs/spec/delta.md`): a subscriber's visible set of keys, sent as the keys
//! that entered and left since a baseline, and checked by a digest on the return path.
//!
//! Relevance says what changed; this keeps the books that get it to a subscriber and keep it
//! there.
//!
//! | plaza's name (rules) | here | side |
//! | --- | --- | --- |
//! | `SlotKey` (DELTA-3) | [`SlotKey`] | both: the key space, `(index << 16) \| generation` |
//! | `SlotAllocator`, `ReusePolicy` (DELTA-8) | [`SlotAllocator`], [`ReusePolicy`] | both: hands out `SlotKey`s, a new generation on each reuse |
//! | `SetDigest` (DELTA-5) | [`SetDigest`] (from [`crate::digest`]) | both: the checksum compared |
//! | `AckWindow` (DELTA-6, DELTA-7) | [`AckWindow`] | both: the `(newest, mask)` pair of a `delta_ack` |
//! | `RecoveryPolicy`, `DeltaPlan`, `DeltaBaseline` (DELTA-9 to DELTA-19) | [`RecoveryPolicy`], [`DeltaPlan`], [`DeltaBaseline`] | server |
//! | `Agreement` (DELTA-15) | [`Agreement`] | both: the outcome of comparing a mirror's digest with the server's |
//! | `DeltaMirror`, `Divergence` (DELTA-20 to DELTA-25) | [`DeltaMirror`], [`Divergence`] | client |
//!
//! On the wire a plan is a schema's `delta_plan` frame and an acknowledgement its `delta_ack`
//! frame: [`DeltaMirror`] is generic over a [`DeltaSchema`] that names them, as the TypeScript,
//! C++ and C# ports are, while [`DeltaBaseline`] is set-theoretic and touches no frame. The
//! reference protocol's (kinds 9 and 10 in `spec/protocol/delta.wire`) is [`ReferenceDelta`],
//! generated from that file's `schema ReferenceDelta for delta`, which the mirror defaults to. The arithmetic of
//! [`SlotKey`], [`SetDigest`] and [`AckWindow`] is pinned by DELTA-3 to DELTA-7, so a plaza peer
//! and an ackwire peer agree bit for bit.
//!
//! [`harness`] drives both halves through a scripted world and a lossy, duplicating,
//! reordering network and asserts the invariants: the fuzz target `delta_stream` and the
//! property tests are one call into it.
//!
//! Sans-IO: no clock, no socket, no thread; time and sequence numbers are arguments.

mod ack;
mod agreement;
mod allocator;
mod baseline;
pub mod harness;
mod mirror;
mod reference;
mod schema;
mod slot;

pub use crate::digest::SetDigest;
pub use ack::{AckWindow, WINDOW};
pub use agreement::Agreement;
pub use allocator::{ReusePolicy, SlotAllocator};
pub use baseline::{DeltaBaseline, DeltaPlan, RecoveryPolicy};
pub use mirror::{Applied, DeltaMirror, Divergence, MirrorLimits};
pub use reference::ReferenceDelta;
pub use schema::{DeltaAckFrame, DeltaSchema, PlanFrame};
pub use slot::SlotKey;
