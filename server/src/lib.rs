//! # ackwire-server
//!
//! The server half of the plaza netcode primitives (`docs/spec/server.md`): history and rewind,
//! relevance, aggregation, input scheduling, seats and rosters, rate meters and one-shot ops. Pure
//! logic with no clock, no socket and no thread: every time is an argument.
//!
//! What this crate is not: a network stack, a game loop, or a wire format. Nothing here reads a
//! clock, opens a socket or starts a thread, so a simulation built on it is deterministic and runs
//! as fast as a test drives it. The wire formats live in `ackwire-codec`, and so do both halves of
//! delta streaming (`docs/spec/delta.md`, `ackwire_codec::delta`), which this crate's [`delta`]
//! module re-exports beside the primitives they serve, and both halves of acked snapshots
//! (`docs/spec/acked.md`, `ackwire_codec::acked`): the acked encoder reaches this crate's input
//! schedule through the codec's `InputSink` trait, which [`acked::ScheduledInputs`] implements, and
//! [`acked`] re-exports the encoder over it with the presenter and the harness.
//!
//! | rules (`docs/spec/server.md`) | here |
//! | --- | --- |
//! | SRV-2 to SRV-4, history and rewind | [`HistoricalStateBuffer`], [`TimedState`], [`render_error_at`], [`RenderError`] |
//! | SRV-5 to SRV-9, relevance | [`relevance`] ([`TierBoundary`](relevance::TierBoundary) from the codec) |
//! | SRV-10, SRV-11, aggregation | [`aggregate`] |
//! | SRV-12 to SRV-16, input scheduling | [`input_schedule`]; [`acked`], the acked encoder over it |
//! | SRV-17, SRV-18, seats | [`seats`] |
//! | SRV-19, rates | [`meter`] |
//! | SRV-20, one-shot ops | [`oneshot`] |
//!
//! With the feature `testee`, `testee` serves the acked halves of any generated state binding by
//! the testee protocol (`conformance/PROTOCOL.md`): what a generated Rust testee calls.
//!
//! **Re-exported rather than defined here.** [`Interpolatable`], [`ToF32`] and [`SetDigest`] come
//! from `ackwire-codec`, the lower crate, and so does [`relevance::TierBoundary`], which the acked
//! stream's S_N depends on. SRV-1: both sides of a delta stream compute with one implementation of
//! them, since a second one that agrees today can disagree tomorrow; and a browser client needs
//! these types and must not inherit a server to get them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod history;

pub mod acked;
pub mod aggregate;
pub mod delta;
pub mod input_schedule;
pub mod meter;
pub mod oneshot;
pub mod relevance;
pub mod seats;
#[cfg(feature = "testee")]
pub mod testee;

pub use ackwire_codec::digest::SetDigest;
pub use ackwire_codec::interp::{Interpolatable, ToF32};
pub use history::{render_error_at, HistoricalStateBuffer, RenderError, TimedState};
