//! The client's half: [`SnapshotClient`] applies snapshots and acknowledges them.
//!
//! NB-7: a component goes in full when its encoded bits are not the confirmed ones; what changes is
//! presence, never values, so each entry reads from its packet alone. The client therefore needs no
//! base to read a snapshot: each entry replaces the component it names, and the acknowledgement it
//! sends back is what lets the server's [`NetBaseline`](super::NetBaseline) confirm what was held.

use super::scene::EntityId;
use super::schema::{BaselineSchema, Values};
use super::writer::read_snapshot;
use super::{sequence_newer, ReferenceBaseline};
use std::collections::BTreeMap;

/// One entity as the client holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientEntity<S: BaselineSchema = ReferenceBaseline> {
    /// The occupant's generation.
    pub generation: u8,
    /// Its components by schema index.
    pub components: Values<S>,
}

/// What one snapshot did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SnapshotSummary {
    /// Applied and acknowledged.
    pub applied: bool,
    /// Dropped: not newer than the last applied (or from before a replaced world).
    pub stale: bool,
    /// Dropped: its slots run past 24 bits.
    pub malformed: bool,
    /// Entities removed.
    pub removed: u32,
    /// Lost entities not removed: the slot holds another occupant, or nothing.
    pub not_ours: u32,
    /// Entities created (or replacing another occupant of their slot).
    pub created: u32,
    /// Entities updated.
    pub updated: u32,
    /// Entries refused for room.
    pub refused: u32,
}

/// The client's side of a NetBaseline connection.
///
/// A snapshot newer than the last applied (wrapping u16 comparison) is applied and
/// acknowledged; an older one is dropped unacknowledged, since the newer one already said
/// everything unconfirmed when it was written, and what the older one said that the newer
/// one did not (a budget cut) is said again once the older one expires unconfirmed.
#[derive(Debug, Clone)]
pub struct SnapshotClient<S: BaselineSchema = ReferenceBaseline> {
    schema: S,
    entities: BTreeMap<u32, ClientEntity<S>>,
    last: Option<u16>,
    acks: Vec<S::Ack>,
    max_entities: usize,
}

impl<S: BaselineSchema> SnapshotClient<S> {
    /// An empty client of `schema` holding at most `max_entities`.
    pub fn with_schema(schema: S, max_entities: usize) -> Self {
        SnapshotClient {
            schema,
            entities: BTreeMap::new(),
            last: None,
            acks: Vec::new(),
            max_entities,
        }
    }

    /// The entities, by slot.
    pub fn entities(&self) -> &BTreeMap<u32, ClientEntity<S>> {
        &self.entities
    }

    /// The last snapshot applied.
    pub fn last(&self) -> Option<u16> {
        self.last
    }

    /// The acknowledgements to send; a second call returns nothing new.
    pub fn take_acks(&mut self) -> Vec<S::Ack> {
        std::mem::take(&mut self.acks)
    }

    /// The world was replaced: drop the table and every snapshot before `first_sequence`, the
    /// first written of the new world.
    pub fn replace_world(&mut self, first_sequence: u16) {
        self.entities.clear();
        self.last = Some(first_sequence.wrapping_sub(1));
    }

    /// Applies one snapshot (NB-16, NB-17).
    pub fn receive(&mut self, snapshot: &S::Snapshot) -> SnapshotSummary {
        let mut s = SnapshotSummary::default();
        let sequence = S::sequence(snapshot);
        if self.last.is_some_and(|l| !sequence_newer(sequence, l)) {
            s.stale = true;
            return s;
        }
        let Ok(read) = read_snapshot(self.schema, snapshot) else {
            s.malformed = true;
            return s;
        };
        for lost in read.lost {
            // By entity: only the occupant named goes.
            if self
                .entities
                .get(&lost.slot)
                .is_some_and(|e| e.generation == lost.generation)
            {
                self.entities.remove(&lost.slot);
                s.removed += 1;
            } else {
                s.not_ours += 1;
            }
        }
        for (EntityId { slot, generation }, components) in read.entries {
            match self.entities.get_mut(&slot) {
                Some(e) if e.generation == generation => {
                    for (held, new) in e.components.as_mut().iter_mut().zip(components) {
                        if new.is_some() {
                            *held = new;
                        }
                    }
                    s.updated += 1;
                }
                existing => {
                    if existing.is_none() && self.entities.len() >= self.max_entities {
                        s.refused += 1;
                        continue;
                    }
                    // Another occupant of the slot: nothing of the old one carries over.
                    self.entities.insert(
                        slot,
                        ClientEntity {
                            generation,
                            components,
                        },
                    );
                    s.created += 1;
                }
            }
        }
        self.last = Some(sequence);
        self.acks.push(S::ack(sequence));
        s.applied = true;
        s
    }

    /// The canonical bytes of the table, which the state hash is the FNV-1a of: per entity in
    /// ascending slot, `u32 slot` (little endian), `u8 generation`, `u8 mask` (bit i: component
    /// i is held, for the first 8 types of the schema), then each held component's bits in schema order, each padded to a byte.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (slot, e) in &self.entities {
            out.extend_from_slice(&slot.to_le_bytes());
            out.push(e.generation);
            let mask = e
                .components
                .as_ref()
                .iter()
                .enumerate()
                .filter(|(_, c)| c.is_some())
                .fold(0u8, |m, (i, _)| m | 1u8.checked_shl(i as u32).unwrap_or(0));
            out.push(mask);
            for c in e.components.as_ref().iter().flatten() {
                // A decoded value always re-encodes (canonical decoding).
                out.extend(S::bits(c).unwrap_or_default());
            }
        }
        out
    }

    /// FNV-1a 32 of [`SnapshotClient::canonical_bytes`].
    pub fn state_hash(&self) -> u32 {
        crate::rt::fnv1a32(&self.canonical_bytes())
    }
}
