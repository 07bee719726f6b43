//! Delta streaming (seed 004 §7): a subscriber's visible set of keys, sent as the keys that
//! entered and left since a baseline, and checked by a digest on the return path.
//!
//! Seed 004 §7: "`relevance` tells you what changed; this owns the bookkeeping that gets it to
//! a subscriber and keeps it there."
//!
//! | seed 004 name | here | side |
//! | --- | --- | --- |
//! | `SlotKey` | [`SlotKey`] | both: the key space, `(index << 16) \| generation` |
//! | `SlotAllocator`, `ReusePolicy` | [`SlotAllocator`], [`ReusePolicy`] | both: hands out `SlotKey`s, a new generation on each reuse |
//! | `SetDigest` | [`SetDigest`] (from [`crate::digest`]) | both: the checksum compared |
//! | `AckWindow` | [`AckWindow`] | both: the `(newest, mask)` pair of a `delta_ack` |
//! | `RecoveryPolicy`, `DeltaPlan`, `DeltaBaseline` | [`RecoveryPolicy`], [`DeltaPlan`], [`DeltaBaseline`] | server |
//! | `Agreement` | [`Agreement`] | both: the outcome of comparing a mirror's digest with the server's |
//! | `DeltaMirror`, `Divergence` | [`DeltaMirror`], [`Divergence`] | client |
//!
//! On the wire a plan is the `delta_plan` frame (kind 9) and an acknowledgement the
//! `delta_ack` frame (kind 10), both in `spec/protocol/delta.wire`. The arithmetic of
//! [`SlotKey`], [`SetDigest`] and [`AckWindow`] is pinned by DESIGN.md §4, so a plaza peer and
//! an ackwire peer agree bit for bit.
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
mod slot;

pub use crate::digest::SetDigest;
pub use ack::{AckWindow, WINDOW};
pub use agreement::Agreement;
pub use allocator::{ReusePolicy, SlotAllocator};
pub use baseline::{DeltaBaseline, DeltaPlan, RecoveryPolicy};
pub use mirror::{Applied, DeltaMirror, Divergence, MirrorLimits};
pub use slot::SlotKey;
