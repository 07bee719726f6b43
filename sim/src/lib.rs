//! The ackwire network simulator: one crate that the conformance sessions, the codec's
//! property tests and fuzz harnesses, and the bench share.
//!
//! Sans-IO throughout: time is an argument, nothing reads a clock, and every decision comes
//! either from a seeded [`SplitMix64`] or from fuzz bytes through a [`ByteSource`], so the same
//! seed or input gives the same schedule on every machine.
//!
//! There are four network models, not one, on purpose. Each is what recorded bytes depend
//! on, and each draws its decisions in its own order: the stream vectors
//! (`vectors/streams/*`) are recorded over [`Link`], the acked harness's scenarios (and their
//! committed fuzz corpus) over [`FateQueue`], the delta harness's corpus over [`ByteWire`],
//! the bench's committed figures over [`Channel`] (per fragment, with a reliable stream that
//! retransmits).
//! Folding them into one model would change how many draws each frame takes and in what order,
//! and so every recorded schedule; the models stay apart, each named for what it is:
//! - [`netsim`]: [`Link`] and [`Network`], a seeded, millisecond network with loss (uniform or
//!   Gilbert-Elliott bursts), duplication, latency and jitter, and a bandwidth cap;
//! - [`fate`]: [`Fate`] and [`FateQueue`], a per-tick network whose schedule is a list of
//!   frame fates drawn up front by a scenario generator;
//! - [`wire`]: [`ByteWire`], a per-round network where one fuzz byte decides each frame;
//! - [`channel`]: [`Channel`] and [`Packet`], the bench's per-tick network of fragmented
//!   datagrams beside a reliable, ordered stream.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod channel;
pub mod fate;
pub mod netsim;
pub mod rng;
pub mod source;
pub mod wire;

pub use channel::{Channel, Packet};
pub use fate::{Fate, FateQueue};
pub use netsim::{Burst, Direction, Link, LinkConfig, LinkStats, Network, NetworkConfig};
pub use rng::SplitMix64;
pub use source::ByteSource;
pub use wire::ByteWire;
