//! The server's half: [`SnapshotWriter`] writes one connection's snapshots under a byte budget
//! and folds its acknowledgements; [`read_snapshot`] turns a body's slot gaps back into slots.
//!
//! What a connection can be owed is bounded ([`BaselineLimits`]): past it the connection is
//! reported stalled ([`LimitError::BaselineStalled`]) rather than given a clean slate, because
//! forgetting what is owed would be a lie to the client (NB-14): lost entities are named until
//! confirmed (NB-11), and what a snapshot said is held until acknowledged (NB-8). A server that
//! cleared a stalled connection's baseline on its own would leave every owed entity alive on the
//! client for good; plaza's `clear` is for a world replaced under a live session (NB-13), a clean
//! slate only when both sides take it ([`SnapshotWriter::replace_world`] with
//! [`SnapshotClient::replace_world`](super::SnapshotClient::replace_world)).

use super::net_baseline::{NetBaseline, Pending};
use super::scene::{EntityId, Scene};
use super::schema::{BaselineSchema, Values, WireEntry};
use super::ReferenceBaseline;
use crate::LimitError;
use std::collections::BTreeMap;

/// Bounds on what a [`SnapshotWriter`] keeps for its connection, whatever the client does
/// (or fails to do).
///
/// Everything else the writer keeps is bounded already: at most `ACK_WINDOW + 1` snapshots are held
/// unconfirmed (NB-10), each naming at most `MAX_LOST_PER_SNAPSHOT` lost entities (the schema's) and what fits its
/// byte budget, and one record per live entity of the server's own world. What a client that never
/// confirms makes grow is the set of entities it is owed: told about, dead since, their loss
/// unconfirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaselineLimits {
    /// Lost entities the connection may be owed (default 65,536, the bound the client-side
    /// machines keep too: [`ReplicaLimits::max_entities`](crate::datagram::ReplicaLimits) and
    /// [`MirrorLimits::max_keys`](crate::delta::MirrorLimits)). While it is owed more, the
    /// connection is stalled: [`SnapshotWriter::write`] refuses with
    /// [`LimitError::BaselineStalled`] and writes nothing, so the writer never keeps more than
    /// this many dead entities plus the live ones it told about. A well-behaved client is owed
    /// what died in about a round trip, and a mass despawn drains at `MAX_LOST_PER_SNAPSHOT` a
    /// snapshot, so the default leaves room for a burst of that many deaths at once.
    pub max_owed_lost: usize,
}

impl Default for BaselineLimits {
    fn default() -> Self {
        BaselineLimits {
            max_owed_lost: 1 << 16,
        }
    }
}

/// One connection's snapshot writer (NB-7 to NB-14, with NB-12's budget order).
#[derive(Debug, Clone)]
pub struct SnapshotWriter<S: BaselineSchema = ReferenceBaseline> {
    baseline: NetBaseline<S>,
    next_sequence: u16,
    budget: usize,
    client: Option<u32>,
    /// Per entity with something unconfirmed, the snapshot count when that began.
    unconfirmed_since: BTreeMap<EntityId, u64>,
    written: u64,
    limits: BaselineLimits,
}

impl<S: BaselineSchema> SnapshotWriter<S> {
    /// A writer of `schema` for the connection of `client` (whose owned entities go first),
    /// writing snapshots of at most `budget` bytes from sequence `first_sequence`.
    pub fn with_schema(schema: S, client: Option<u32>, budget: usize, first_sequence: u16) -> Self {
        SnapshotWriter {
            baseline: NetBaseline::with_schema(schema),
            next_sequence: first_sequence,
            budget,
            client,
            unconfirmed_since: BTreeMap::new(),
            written: 0,
            limits: BaselineLimits::default(),
        }
    }

    /// The same writer with `limits` instead of the defaults.
    #[must_use]
    pub fn with_limits(mut self, limits: BaselineLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits it keeps to.
    pub fn limits(&self) -> BaselineLimits {
        self.limits
    }

    /// What the connection is known to hold.
    pub fn baseline(&self) -> &NetBaseline<S> {
        &self.baseline
    }

    /// The sequence the next snapshot gets.
    pub fn next_sequence(&self) -> u16 {
        self.next_sequence
    }

    /// Folds the client's acknowledgement.
    pub fn on_ack(&mut self, ack: &S::Ack) {
        self.baseline.confirm(S::acked(ack));
    }

    /// The world was replaced under the live session: forget everything held (NB-13). The client
    /// must drop its table at the same point (see the module doc).
    pub fn replace_world(&mut self) {
        self.baseline.clear();
        self.unconfirmed_since.clear();
    }

    /// Writes the next snapshot of `scene`.
    ///
    /// A component goes, whole, when its encoded bits differ from what the connection confirmed
    /// (`docs/spec/baseline.md`). When the budget cuts the snapshot short, NB-12: owned entities
    /// first, then the longest unconfirmed, then by slot. Lost entities go before any entry, at
    /// most the schema's [`MAX_LOST_PER_SNAPSHOT`](BaselineSchema::MAX_LOST_PER_SNAPSHOT).
    ///
    /// A connection owed more lost entities than [`BaselineLimits::max_owed_lost`] is stalled:
    /// nothing is written, no sequence is used, and the error says so until acknowledgements
    /// still in the window bring it back under the limit. The game drops the connection, or
    /// replaces the world on both sides ([`replace_world`](Self::replace_world)).
    pub fn write(&mut self, scene: &Scene<S>) -> Result<S::Snapshot, LimitError> {
        let sequence = self.next_sequence;
        let budget_bits = self.budget.saturating_sub(S::HEADER_BYTES) * 8;
        let mut used = S::COUNT_BITS;

        let fit = budget_bits.saturating_sub(used) / S::LOST_BITS.max(1);
        let mut lost = Vec::new();
        self.baseline
            .gather_lost(scene, fit.min(S::MAX_LOST_PER_SNAPSHOT), &mut lost);
        let owed = self.baseline.owed_lost();
        // NB-11: a lost entity is named until the client confirms a snapshot that named it, so
        // destruction is reliable. What is owed is never dropped to make room, so past the limit
        // the connection stalls.
        if owed > self.limits.max_owed_lost {
            return Err(LimitError::BaselineStalled {
                sequence,
                owed,
                max_owed_lost: self.limits.max_owed_lost,
            });
        }
        self.next_sequence = self.next_sequence.wrapping_add(1);
        self.written += 1;
        self.baseline.expire(sequence);
        used += lost.len() * S::LOST_BITS;

        // Candidates: every live entity with a component that differs from what is confirmed.
        struct Candidate<'a, V> {
            entity: EntityId,
            owned: bool,
            since: u64,
            components: Vec<&'a (V, Vec<u8>)>,
        }
        let mut candidates = Vec::new();
        let mut still: BTreeMap<EntityId, u64> = BTreeMap::new();
        for (entity, e) in scene.iter() {
            let components: Vec<&(S::Value, Vec<u8>)> = e
                .components
                .as_ref()
                .iter()
                .enumerate()
                .filter_map(|(t, c)| {
                    let c = c.as_ref()?;
                    // By entity, never by slot (find's guard).
                    let held = self.baseline.find(entity, t);
                    (held.map(|h| &h.bits) != Some(&c.1)).then_some(c)
                })
                .collect();
            if components.is_empty() {
                continue;
            }
            let since = self
                .unconfirmed_since
                .get(&entity)
                .copied()
                .unwrap_or(self.written);
            still.insert(entity, since);
            candidates.push(Candidate {
                entity,
                owned: self.client.is_some() && e.owner == self.client,
                since,
                components,
            });
        }
        self.unconfirmed_since = still;
        candidates.sort_by_key(|c| (!c.owned, c.since, c.entity.slot));

        let mut chosen = Vec::new();
        for c in candidates {
            let bits = S::ENTRY_HEAD_BITS
                + c.components
                    .iter()
                    .map(|(v, _)| S::bit_len(v))
                    .sum::<usize>();
            if used + bits > budget_bits || chosen.len() == usize::from(u16::MAX) {
                continue;
            }
            used += bits;
            chosen.push(c);
        }
        chosen.sort_by_key(|c| c.entity.slot);

        let mut entries = Vec::with_capacity(chosen.len());
        let mut held = Vec::new();
        let mut prev: Option<u32> = None;
        for c in chosen {
            let gap = match prev {
                None => c.entity.slot,
                Some(p) => c.entity.slot - p - 1,
            };
            prev = Some(c.entity.slot);
            let mut entry = WireEntry::<S> {
                gap,
                generation: c.entity.generation,
                components: Default::default(),
            };
            for (value, bits) in c.components {
                let index = S::index(value);
                // The scene holds a value only at its schema index, so the slot is there.
                if let Some(slot) = entry.components.as_mut().get_mut(index) {
                    *slot = Some(value.clone());
                }
                held.push((c.entity, index, bits.clone()));
            }
            entries.push(entry);
        }
        let snapshot = S::snapshot(sequence, &lost, entries);
        self.baseline.hold(Pending {
            sequence,
            lost,
            entries: held,
        });
        Ok(snapshot)
    }
}

/// A snapshot's body with slots resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadSnapshot<S: BaselineSchema = ReferenceBaseline> {
    /// The snapshot's sequence.
    pub sequence: u16,
    /// The lost entities.
    pub lost: Vec<EntityId>,
    /// The entries: entity and components by schema index.
    pub entries: Vec<(EntityId, Values<S>)>,
}

/// Why a decoded snapshot does not describe a world.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// A slot gap runs past 24 bits.
    #[error("entry {0}'s slot does not fit 24 bits")]
    SlotOverflow(usize),
}

/// Resolves a decoded snapshot of `schema`'s slot gaps into entities.
pub fn read_snapshot<S: BaselineSchema>(
    _schema: S,
    snapshot: &S::Snapshot,
) -> Result<ReadSnapshot<S>, ReadError> {
    let (lost, wire) = S::read(snapshot);
    let mut entries = Vec::with_capacity(wire.len());
    let mut prev: Option<u32> = None;
    for (i, e) in wire.into_iter().enumerate() {
        let gap = e.gap;
        let slot = match prev {
            None => Some(gap),
            Some(p) => p.checked_add(gap).and_then(|s| s.checked_add(1)),
        }
        .filter(|s| *s < 1 << 24)
        .ok_or(ReadError::SlotOverflow(i))?;
        prev = Some(slot);
        entries.push((
            EntityId {
                slot,
                generation: e.generation,
            },
            e.components,
        ));
    }
    Ok(ReadSnapshot {
        sequence: S::sequence(snapshot),
        lost,
        entries,
    })
}
