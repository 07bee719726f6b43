//! The network simulator the stream sessions run over: `ackwire-sim`'s seeded, millisecond
//! model, re-exported here so that the sessions and the vectors' configurations keep their
//! paths.

pub use ackwire_sim::{
    Burst, Direction, Link, LinkConfig, LinkStats, Network, NetworkConfig, SplitMix64,
};
