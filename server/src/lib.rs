//! # ackwire-server
//!
//! The server half of the plaza netcode primitives (seed 004): history and rewind, relevance,
//! aggregation, input scheduling, seats and rosters, rate meters and one-shot ops. Pure logic
//! with no clock, no socket and no thread: every time is an argument.
//!
//! What this crate is not: a network stack, a game loop, or a wire format. Nothing here reads
//! a clock, opens a socket or starts a thread, so a simulation built on it is deterministic and
//! runs as fast as a test drives it. The wire formats live in `ackwire-codec`, and so do both
//! halves of delta streaming (seed 004 §7, `ackwire_codec::delta`), which this crate's
//! [`delta`] module re-exports beside the primitives they serve, and both halves of acked
//! snapshots (seed 000, `ackwire_codec::acked`): the acked encoder reaches this crate's input
//! schedule through the codec's `InputSink` trait, which [`acked::ScheduledInputs`] implements,
//! and [`acked`] re-exports the encoder over it with the presenter and the harness.
//!
//! | seed 004 section | here |
//! | --- | --- |
//! | §3 history and rewind | [`HistoricalStateBuffer`], [`TimedState`], [`render_error_at`], [`RenderError`] |
//! | §5 relevance | [`relevance`] ([`TierBoundary`](relevance::TierBoundary) from the codec) |
//! | §6 aggregation | [`aggregate`] |
//! | §8 input scheduling | [`input_schedule`]; [`acked`], the acked encoder of seed 000 over it |
//! | §9 seats | [`seats`] |
//! | §10 rates | [`meter`] |
//! | §11 one-shot ops | [`oneshot`] |
//!
//! **Re-exported rather than defined here.** [`Interpolatable`], [`ToF32`] and [`SetDigest`]
//! come from `ackwire-codec`, the lower crate, and so does [`relevance::TierBoundary`], which
//! the acked stream's S_N depends on. Seed 004 §1: "Both sides of a delta stream have to agree
//! about them exactly, and a second implementation that agrees today is a disagreement waiting
//! to happen"; and a browser client needs these types and must not inherit a server to get
//! them.

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

pub use ackwire_codec::digest::SetDigest;
pub use ackwire_codec::interp::{Interpolatable, ToF32};
pub use history::{render_error_at, HistoricalStateBuffer, RenderError, TimedState};
