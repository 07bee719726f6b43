//! The reference protocol's schema for the NetBaseline machines: its four components (Transform,
//! Velocity, Health, Team) and the `snapshot` and `snapshot_ack` frames of
//! `spec/protocol/baseline.wire` ([`ReferenceBaseline`]), and the reference conveniences that name
//! it (`Scene::new`, `SnapshotWriter::new`, ...), so the machines themselves name no protocol's
//! types.

use super::client::SnapshotClient;
use super::net_baseline::NetBaseline;
use super::scene::{EntityId, Scene};
use super::schema::{BaselineSchema, WireEntry};
use super::writer::SnapshotWriter;
use crate::protocol::{
    ComponentMask, EntityRef, Entry, Snapshot, SnapshotAck, SnapshotBody, Team, Transform,
    Velocity, Vitality, ACK_WINDOW, MAX_LOST_PER_SNAPSHOT,
};
use crate::rt::{Bit, BitWriter};
use crate::{BitSet, EncodeError};

/// Component types of the reference schema, in schema order (the mask's bit order).
pub const COMPONENT_TYPES: usize = 4;

/// The NetBaseline components and frames of the reference protocol (`docs/spec/baseline.md`):
/// kind 8 snapshots and kind 11 acknowledgements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReferenceBaseline;

/// One component's value.
#[derive(Debug, Clone, PartialEq)]
pub enum ComponentValue {
    /// Position and heading (type 0).
    Transform(Transform),
    /// Velocity (type 1).
    Velocity(Velocity),
    /// Hit points (type 2).
    Health(Vitality),
    /// Team (type 3).
    Team(Team),
}

impl ComponentValue {
    /// The component's index in the schema.
    pub fn index(&self) -> usize {
        match self {
            ComponentValue::Transform(_) => 0,
            ComponentValue::Velocity(_) => 1,
            ComponentValue::Health(_) => 2,
            ComponentValue::Team(_) => 3,
        }
    }

    /// The bit of an entry's mask that says the component is carried (bit [`Self::index`]).
    pub fn mask_bit(&self) -> Bit<ComponentMask> {
        match self {
            ComponentValue::Transform(_) => ComponentMask::TRANSFORM,
            ComponentValue::Velocity(_) => ComponentMask::VELOCITY,
            ComponentValue::Health(_) => ComponentMask::HEALTH,
            ComponentValue::Team(_) => ComponentMask::TEAM,
        }
    }

    /// Its encoded bits, padded to a byte: what "differ from what the connection confirmed"
    /// compares.
    pub fn bits(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = BitWriter::new();
        match self {
            ComponentValue::Transform(v) => v.write_bits(&mut w)?,
            ComponentValue::Velocity(v) => v.write_bits(&mut w)?,
            ComponentValue::Health(v) => v.write_bits(&mut w)?,
            ComponentValue::Team(v) => v.write_bits(&mut w)?,
        }
        let mut out = Vec::new();
        w.finish(&mut out);
        Ok(out)
    }

    /// Bits it takes in a snapshot body.
    pub fn bit_len(&self) -> usize {
        match self {
            ComponentValue::Transform(v) => v.bit_len(),
            ComponentValue::Velocity(v) => v.bit_len(),
            ComponentValue::Health(v) => v.bit_len(),
            ComponentValue::Team(v) => v.bit_len(),
        }
    }
}

impl BaselineSchema for ReferenceBaseline {
    type Value = ComponentValue;
    type Components<T: Clone + std::fmt::Debug + PartialEq + Default> = [T; COMPONENT_TYPES];
    type Snapshot = Snapshot;
    type Ack = SnapshotAck;

    const ACK_WINDOW: u16 = ACK_WINDOW;
    const MAX_LOST_PER_SNAPSHOT: usize = MAX_LOST_PER_SNAPSHOT as usize;
    /// Kind and sequence.
    const HEADER_BYTES: usize = 3;
    /// The 7-bit lost count and the 16-bit entry count.
    const COUNT_BITS: usize = 7 + 16;
    /// The wide flag, a wide gap, the generation and the 4-bit mask.
    const ENTRY_HEAD_BITS: usize = 1 + 24 + 8 + 4;
    /// A 24-bit slot and an 8-bit generation.
    const LOST_BITS: usize = 32;

    fn index(value: &ComponentValue) -> usize {
        value.index()
    }

    fn bits(value: &ComponentValue) -> Result<Vec<u8>, EncodeError> {
        value.bits()
    }

    fn bit_len(value: &ComponentValue) -> usize {
        value.bit_len()
    }

    fn snapshot(sequence: u16, lost: &[EntityId], entries: Vec<WireEntry<Self>>) -> Snapshot {
        let lost = lost
            .iter()
            .map(|e| EntityRef {
                slot: e.slot,
                generation: e.generation,
            })
            .collect();
        let entries = entries
            .into_iter()
            .map(|e| {
                // NB-4: a gap below 128 takes 7 bits, a wider one 24.
                let wide = e.gap >= 1 << 7;
                let mut entry = Entry {
                    wide,
                    gap: (!wide).then_some(e.gap as u8),
                    wide_gap: wide.then_some(e.gap),
                    generation: e.generation,
                    mask: ComponentMask::empty(),
                    transform: None,
                    velocity: None,
                    health: None,
                    team: None,
                };
                for value in e.components.into_iter().flatten() {
                    entry.mask.set(value.mask_bit(), true);
                    match value {
                        ComponentValue::Transform(v) => entry.transform = Some(v),
                        ComponentValue::Velocity(v) => entry.velocity = Some(v),
                        ComponentValue::Health(v) => entry.health = Some(v),
                        ComponentValue::Team(v) => entry.team = Some(v),
                    }
                }
                entry
            })
            .collect();
        Snapshot {
            sequence,
            body: SnapshotBody { lost, entries },
        }
    }

    fn sequence(snapshot: &Snapshot) -> u16 {
        snapshot.sequence
    }

    fn read(snapshot: &Snapshot) -> (Vec<EntityId>, Vec<WireEntry<Self>>) {
        let lost = snapshot
            .body
            .lost
            .iter()
            .map(|r| EntityId {
                slot: r.slot,
                generation: r.generation,
            })
            .collect();
        let entries = snapshot
            .body
            .entries
            .iter()
            .map(|e| WireEntry {
                gap: e.wide_gap.or(e.gap.map(u32::from)).unwrap_or_default(),
                generation: e.generation,
                components: [
                    e.transform.map(ComponentValue::Transform),
                    e.velocity.map(ComponentValue::Velocity),
                    e.health.map(ComponentValue::Health),
                    e.team.map(ComponentValue::Team),
                ],
            })
            .collect();
        (lost, entries)
    }

    fn ack(sequence: u16) -> SnapshotAck {
        SnapshotAck { sequence }
    }

    fn acked(ack: &SnapshotAck) -> u16 {
        ack.sequence
    }
}

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
