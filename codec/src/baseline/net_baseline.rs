//! [`NetBaseline`]: what one connection is known to hold.
//!
//! NB-11: a lost entity is named until the client confirms a snapshot that named it, so destruction
//! is reliable. A client that never confirms is therefore owed every entity that died since it was
//! told about it. The entities found dead are kept apart from the live ones, so a snapshot takes
//! the ones it names from the front of that set and looks at the live ones only: what a write costs
//! does not grow with how many entities died before it. How many may be owed is bounded by the
//! writer ([`BaselineLimits`](super::BaselineLimits)).

use super::scene::{EntityId, Scene};
use super::schema::BaselineSchema;
use super::{sequence_newer, ReferenceBaseline};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// One component of one entity, as this connection last confirmed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmed {
    /// The component's encoded bits.
    pub bits: Vec<u8>,
    /// The snapshot that confirmed them.
    pub sequence: u16,
    /// The sequence extended past its wraps, for ordering.
    extended: u64,
}

/// What a written snapshot claimed, held until it is acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pending {
    /// The snapshot's sequence.
    pub sequence: u16,
    /// The lost entities it named.
    pub lost: Vec<EntityId>,
    /// The components it carried: entity, schema index, encoded bits.
    pub entries: Vec<(EntityId, usize, Vec<u8>)>,
}

#[derive(Debug, Clone)]
struct Record<S: BaselineSchema> {
    components: S::Components<Option<Confirmed>>,
}

impl<S: BaselineSchema> Default for Record<S> {
    fn default() -> Self {
        Record {
            components: Default::default(),
        }
    }
}

/// What one connection is known to hold, so the next snapshot says less (`docs/spec/baseline.md`).
///
/// NB-8: confirmed, not sent: what a snapshot said is held until acknowledged, or a lost snapshot's
/// content would never be sent again; per connection, since clients lose different packets.
/// Everything is keyed by [`EntityId`] (slot and generation), never by slot alone.
#[derive(Debug, Clone)]
pub struct NetBaseline<S: BaselineSchema = ReferenceBaseline> {
    /// Every entity this connection was told about (written in a snapshot) that was alive when
    /// [`gather_lost`](Self::gather_lost) last looked, with what is confirmed of it.
    records: BTreeMap<EntityId, Record<S>>,
    /// Entities told about that `gather_lost` found dead, until their loss is confirmed. Nothing
    /// of their components is kept: bits confirmed of a dead occupant say nothing the client
    /// should keep, and should the same slot and generation come back (a generation wrapped)
    /// everything of it is sent again.
    lost: BTreeSet<EntityId>,
    pending: VecDeque<(u64, Pending)>,
    /// The newest sequence seen, extended past its wraps.
    newest: Option<u64>,
    /// Entities `gather_lost` has looked at, over the baseline's life.
    examined: u64,
}

impl<S: BaselineSchema> Default for NetBaseline<S> {
    fn default() -> Self {
        NetBaseline {
            records: BTreeMap::new(),
            lost: BTreeSet::new(),
            pending: VecDeque::new(),
            newest: None,
            examined: 0,
        }
    }
}

impl<S: BaselineSchema> NetBaseline<S> {
    /// Nothing held, of `schema`.
    pub fn with_schema(_schema: S) -> Self {
        Self::default()
    }

    /// `sequence` extended past its wraps, relative to the newest seen (u16 sequences compared
    /// with wrapping arithmetic).
    fn extend(&self, sequence: u16) -> u64 {
        match self.newest {
            None => (1u64 << 40) | u64::from(sequence),
            Some(newest) => {
                let delta = sequence.wrapping_sub(newest as u16) as i16;
                newest.wrapping_add_signed(i64::from(delta))
            }
        }
    }

    /// What is confirmed for `entity`'s component `type`, or `None`.
    ///
    /// NB-3: by entity, not slot: a slot can be reused while the old occupant's record is still
    /// held, and the new occupant would be taken as holding it.
    pub fn find(&self, entity: EntityId, r#type: usize) -> Option<&Confirmed> {
        self.records
            .get(&entity)?
            .components
            .as_ref()
            .get(r#type)?
            .as_ref()
    }

    /// Holds what a snapshot said until it is confirmed or given up on. The entities it
    /// carried count as told about from now on.
    pub fn hold(&mut self, pending: Pending) {
        let extended = self.extend(pending.sequence);
        self.newest = Some(self.newest.map_or(extended, |n| n.max(extended)));
        for (entity, _, _) in &pending.entries {
            // Told about while alive: an occupant found dead that is alive again (its slot's
            // generation wrapped) is a live entity once more.
            self.lost.remove(entity);
            self.records.entry(*entity).or_default();
        }
        self.pending.retain(|(e, _)| *e != extended);
        self.pending.push_back((extended, pending));
        self.drop_outside_window();
    }

    /// Folds the snapshot `sequence` said into what is confirmed; a sequence not held is
    /// ignored.
    pub fn confirm(&mut self, sequence: u16) {
        let extended = self.extend(sequence);
        let Some(i) = self.pending.iter().position(|(e, _)| *e == extended) else {
            return;
        };
        let Some((_, pending)) = self.pending.remove(i) else {
            return;
        };
        for (entity, r#type, bits) in pending.entries {
            let Some(record) = self.records.get_mut(&entity) else {
                // It died since, or its loss was confirmed since: nothing of it is held any more.
                continue;
            };
            let Some(slot) = record.components.as_mut().get_mut(r#type) else {
                continue;
            };
            // NB-9: a component is folded only when its snapshot is newer than what is confirmed,
            // so a late acknowledgement cannot write stale bits over fresh ones.
            if slot.as_ref().is_none_or(|c| c.extended < extended) {
                *slot = Some(Confirmed {
                    bits,
                    sequence,
                    extended,
                });
            }
        }
        // The client removed them: forget them, so they are no longer reported. One alive again
        // since (a wrapped generation, told about anew) stays told: the client may hold it from
        // a later snapshot.
        for entity in pending.lost {
            self.lost.remove(&entity);
        }
    }

    /// Gives up on everything older than `sequence` (the snapshot about to be written) by
    /// more than the schema's [`ACK_WINDOW`](BaselineSchema::ACK_WINDOW): what it said is never
    /// confirmed, so the next snapshot says it again.
    pub fn expire(&mut self, sequence: u16) {
        let extended = self.extend(sequence);
        self.newest = Some(self.newest.map_or(extended, |n| n.max(extended)));
        self.drop_outside_window();
    }

    fn drop_outside_window(&mut self) {
        let Some(newest) = self.newest else { return };
        let (keep, expired): (VecDeque<_>, VecDeque<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(e, _)| *e <= newest && newest - *e <= u64::from(S::ACK_WINDOW));
        self.pending = keep;
        for (extended, pending) in expired {
            // The client may have applied what the snapshot said (its acknowledgement lost or
            // later than the window): what is confirmed older than it no longer describes the
            // client, so it is forgotten and the next snapshot says the component again.
            for (entity, r#type, _) in pending.entries {
                if let Some(slot) = self
                    .records
                    .get_mut(&entity)
                    .and_then(|r| r.components.as_mut().get_mut(r#type))
                {
                    if slot.as_ref().is_some_and(|c| c.extended < extended) {
                        *slot = None;
                    }
                }
            }
        }
    }

    /// Entities this connection was told about that are no longer alive, ascending by slot: the
    /// first `at_most` of them are appended to `out`.
    ///
    /// NB-11: a lost entity is named until a confirmed snapshot has named it, so destruction is
    /// reliable; keyed by entity, not slot (NB-3), since a reused slot is alive in both snapshots.
    ///
    /// It looks at the entities alive at the previous call (to find those that died since) and
    /// at the first `at_most` found dead, never at every entity ever owed: its cost does not
    /// grow with how many died before ([`examined`](Self::examined) counts what it looks at).
    pub fn gather_lost(&mut self, scene: &Scene<S>, at_most: usize, out: &mut Vec<EntityId>) {
        let mut examined = 0u64;
        let lost = &mut self.lost;
        self.records.retain(|entity, _| {
            examined += 1;
            let alive = scene.alive(*entity);
            if !alive {
                lost.insert(*entity);
            }
            alive
        });
        let mut taken = 0;
        let mut alive_again = Vec::new();
        for entity in self.lost.iter() {
            if taken == at_most {
                break;
            }
            examined += 1;
            // By entity: the same slot and generation alive again (a wrapped generation) is
            // not lost, and is a live entity from now on.
            if scene.alive(*entity) {
                alive_again.push(*entity);
            } else {
                out.push(*entity);
                taken += 1;
            }
        }
        for entity in alive_again {
            self.lost.remove(&entity);
            self.records.insert(entity, Record::default());
        }
        self.examined = self.examined.saturating_add(examined);
    }

    /// Forgets every entity and every unconfirmed snapshot.
    ///
    /// NB-13: for a world replaced under a live session, whose entities reuse slots and
    /// generations, so that find's guard (NB-3) cannot tell them apart.
    pub fn clear(&mut self) {
        self.records.clear();
        self.lost.clear();
        self.pending.clear();
    }

    /// Snapshots held, waiting for their acknowledgement.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Entities told about and not yet confirmed lost.
    pub fn told(&self) -> usize {
        self.records.len() + self.lost.len()
    }

    /// Entities found dead (by the last [`gather_lost`](Self::gather_lost)) whose loss the
    /// connection has not confirmed: what it is owed.
    pub fn owed_lost(&self) -> usize {
        self.lost.len()
    }

    /// Entities [`gather_lost`](Self::gather_lost) has looked at, over the baseline's life:
    /// the operation count that shows a write's cost stays flat while dead entities pile up.
    pub fn examined(&self) -> u64 {
        self.examined
    }

    /// Whether `a` is newer than `b`, with wrapping arithmetic (NB-6).
    pub fn newer(a: u16, b: u16) -> bool {
        sequence_newer(a, b)
    }
}
