//! The reference conveniences of the NetBaseline machines (`Scene::new`, `SnapshotWriter::new`,
//! ...), which name the reference protocol's schema, so that the machines themselves name no
//! protocol's types. The schema itself, [`ReferenceBaseline`] with its four components
//! (Transform, Velocity, Health, Team: [`ComponentValue`]), is generated from
//! `schema ReferenceBaseline` in `spec/protocol/baseline.wire`.

use super::client::SnapshotClient;
use super::net_baseline::NetBaseline;
use super::scene::Scene;
use super::writer::SnapshotWriter;
pub use crate::protocol::{ReferenceBaseline, ReferenceBaselineValue as ComponentValue};

/// Component types of the reference schema, in schema order (the mask's bit order).
pub const COMPONENT_TYPES: usize = ReferenceBaseline::COMPONENT_TYPES;

impl Scene {
    /// An empty world of the reference schema.
    pub fn new() -> Self {
        Self::default()
    }
}

impl NetBaseline {
    /// Nothing held, of the reference schema.
    pub fn new() -> Self {
        Self::default()
    }
}

impl SnapshotWriter {
    /// A reference writer for the connection of `client` (whose owned entities go first),
    /// writing snapshots of at most `budget` bytes from sequence `first_sequence`.
    pub fn new(client: Option<u32>, budget: usize, first_sequence: u16) -> Self {
        Self::with_schema(ReferenceBaseline, client, budget, first_sequence)
    }
}

impl SnapshotClient {
    /// An empty reference client holding at most `max_entities`.
    pub fn new(max_entities: usize) -> Self {
        Self::with_schema(ReferenceBaseline, max_entities)
    }
}
