//! Relevance (SRV-5 to SRV-9): interest management, sending each client only the entities near it,
//! and the change since last tick.
//!
//! Building blocks, not a policy: the cell size, the relevance rule and the wire encoding stay
//! the caller's. A typical tick quantizes positions onto a grid ([`GridQuantizer`]), buckets
//! the entities ([`SpatialGrid`]), asks each viewer's neighbourhood for candidates
//! (`query_radius`, a superset), applies an exact distance test through a [`TierBoundary`] so
//! loitering entities do not flap, collects the result in a [`VisibilitySet`], and diffs it
//! against last tick's set for the spawn/despawn stream, with a [`SetDigest`] of the set as the
//! liveness check. See the `relevance_demo` example.
//!
//! [`TierBoundary`] is defined in `ackwire-codec` (`ackwire_codec::tier`) and re-exported, as
//! [`SetDigest`] is: the acked stream's S_N (ACK-18) judges its near and far tiers by it, and that
//! computation lives beside the acked client in the codec, which never depends on this crate.

mod grid;
pub mod morton;
mod visibility;

pub use ackwire_codec::digest::SetDigest;
pub use ackwire_codec::tier::TierBoundary;
pub use grid::{GridQuantizer, SpatialGrid};
pub use visibility::{VisibilitySet, VisibilitySetIter};
