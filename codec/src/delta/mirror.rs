//! [`DeltaMirror`]: the client half of a delta stream, the set it actually holds.
//!
//! It applies `delta_plan` frames, records what arrived in an [`AckWindow`], and reports that
//! window with the [`SetDigest`] of the keys it holds on every `delta_ack` (DELTA-23), which is how
//! the server's [`DeltaBaseline`](super::DeltaBaseline) notices a mirror that diverged and rebuilds
//! it from nothing (DELTA-15).
//!
//! **Which packets it applies (DELTA-20).** A plan's keys are absolute (a key enters, a key
//! leaves), so a packet is applied whatever baseline it names: refusing one whose baseline this
//! mirror did not acknowledge would starve it. But a packet older than the newest applied one is
//! not applied (it is still acknowledged): on a link that reorders, applying it would bring back a
//! key a newer packet retracted. With that rule each applied packet leaves the mirror holding
//! exactly the state the server sent with it, provided the mirror held one of the states the server
//! sent since that packet's baseline: the guarantee the server's opposite baselines (intersection
//! for sends, union for retractions) are built to give.
//!
//! **How much it holds.** A slot index is 32 bits, so a hostile server could fill a mirror toward
//! 2^32 occupants. [`MirrorLimits::max_keys`] bounds it: a plan that would take the mirror past it
//! is refused whole ([`LimitError::MirrorKeys`]), neither applied nor acknowledged (DELTA-24),
//! which to the server is a packet the network lost. That is the one refusal the stream already
//! survives: DELTA-12 computes sends against the acknowledged state intersected with everything
//! sent after it, and retractions against it unioned with everything sent after it, so a later
//! packet says again whatever the refused one said, and the mirror still holds one of the states
//! the server sent.

use super::ack::AckWindow;
use super::agreement::Agreement;
use super::schema::{DeltaAckFrame, DeltaSchema, PlanFrame};
use super::slot::SlotKey;
use super::ReferenceDelta;
use crate::digest::SetDigest;
use crate::LimitError;
use std::collections::{BTreeMap, BTreeSet};
use std::marker::PhantomData;

/// How a mirror differs from the server's own key set ([`DeltaMirror::divergence_from`]).
///
/// A digest only says that a mirror is wrong, never how; this says how. Which side a key falls on
/// names the bug: `missing` means something was lost or never sent, `extra` that a retraction never
/// landed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Divergence {
    /// Keys this mirror holds that the server's set does not, ascending.
    pub extra: Vec<SlotKey>,
    /// Keys the server's set holds that this mirror does not, ascending.
    pub missing: Vec<SlotKey>,
}

impl Divergence {
    /// Whether the two sets agree.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.extra.is_empty() && self.missing.is_empty()
    }
}

/// What applying one `delta_plan` did ([`DeltaMirror::apply`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Whether the packet was applied; `false` for one older than the newest applied.
    pub applied: bool,
    /// Whether it was a full baseline that cleared the mirror first.
    pub cleared: bool,
    /// Keys it inserted.
    pub entered: usize,
    /// Keys it removed.
    pub left: usize,
    /// Retractions naming an occupant this mirror does not hold (another generation holds the
    /// slot), refused rather than applied to it.
    pub stale_refs: usize,
}

/// Bounds on what a [`DeltaMirror`] holds, whatever the server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MirrorLimits {
    /// Occupants held at most (default 65,536, as
    /// [`ReplicaLimits::max_entities`](crate::datagram::ReplicaLimits)). A plan that would
    /// take the mirror past it is refused whole with [`LimitError::MirrorKeys`]: not applied,
    /// not acknowledged. An insert of a new slot at the limit is refused the same way.
    pub max_keys: usize,
}

impl Default for MirrorLimits {
    fn default() -> Self {
        Self { max_keys: 1 << 16 }
    }
}

/// The client's copy of a streamed set of [`SlotKey`]s, each with an application entity `E`.
///
/// One occupant per slot: inserting a key whose slot holds another generation replaces it (the
/// previous tenant is gone), and removing or fetching by a key whose generation is not the one
/// held is refused and counted in [`stale_refs`](Self::stale_refs). At most
/// [`MirrorLimits::max_keys`] occupants are held.
///
/// Generic over the entity `E` held beside each key and the schema `S` whose frames it reads and
/// writes.
#[derive(Clone, Debug)]
pub struct DeltaMirror<E = (), S: DeltaSchema = ReferenceDelta> {
    schema: PhantomData<S>,
    held: BTreeMap<u32, (u16, E)>,
    limits: MirrorLimits,
    digest: SetDigest,
    acks: AckWindow,
    applied_seq: Option<u64>,
    generational: bool,
    frames_lost: u64,
    stale_packets: u64,
    stale_refs: u64,
}

impl<E, S: DeltaSchema> DeltaMirror<E, S> {
    /// An empty mirror of `schema`, with generations checked.
    #[must_use]
    pub fn with_schema(_schema: S) -> Self {
        Self {
            schema: PhantomData,
            held: BTreeMap::new(),
            limits: MirrorLimits::default(),
            digest: SetDigest::new(),
            acks: AckWindow::new(),
            applied_seq: None,
            generational: true,
            frames_lost: 0,
            stale_packets: 0,
            stale_refs: 0,
        }
    }

    /// With `false`, every key is taken as generation 0, so a reference to a dead occupant
    /// lands on whatever holds its slot: the bug generations prevent, available to demonstrate.
    #[must_use]
    pub fn with_generations(mut self, generational: bool) -> Self {
        if self.generational != generational {
            self.generational = generational;
            self.clear();
        }
        self
    }

    /// The same mirror holding at most what `limits` allows instead of the defaults.
    #[must_use]
    pub fn with_limits(mut self, limits: MirrorLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits it keeps to.
    #[must_use]
    pub const fn limits(&self) -> MirrorLimits {
        self.limits
    }

    /// Opens packet `seq`: records its arrival and says whether to apply it (`false` when it is not
    /// newer than the newest applied: DELTA-20). A full baseline that is applied clears the mirror
    /// (DELTA-21).
    pub fn begin(&mut self, seq: u64, full_baseline: bool) -> bool {
        self.acks.observe(seq);
        if self.is_stale(seq) {
            self.stale_packets = self.stale_packets.saturating_add(1);
            return false;
        }
        if let Some(a) = self.applied_seq {
            self.frames_lost = self.frames_lost.saturating_add(seq - a - 1);
        }
        self.applied_seq = Some(seq);
        if full_baseline {
            self.clear();
        }
        true
    }

    fn is_stale(&self, seq: u64) -> bool {
        self.applied_seq.is_some_and(|a| seq <= a)
    }

    /// Files `entity` under `key`, replacing whatever occupies its slot (DELTA-22); a new slot when
    /// [`MirrorLimits::max_keys`] are held is refused.
    pub fn insert(&mut self, key: SlotKey, entity: E) -> Result<(), LimitError> {
        let key = self.normalise(key);
        if self.held.len() >= self.limits.max_keys && !self.held.contains_key(&key.index) {
            return Err(LimitError::MirrorKeys {
                sequence: None,
                would_hold: self.held.len() + 1,
                max_keys: self.limits.max_keys,
            });
        }
        self.insert_within_limits(key, entity);
        Ok(())
    }

    /// [`insert`](Self::insert) of a normalised key the caller checked against the limit.
    fn insert_within_limits(&mut self, key: SlotKey, entity: E) {
        if let Some((generation, _)) = self.held.insert(key.index, (key.generation, entity)) {
            self.digest
                .remove(SlotKey::new(key.index, generation).encode());
        }
        self.digest.insert(key.encode());
    }

    /// How many occupants applying `frame` (a full baseline when `full`) would leave held;
    /// when even every arrival taking a new slot stays within the limit, that upper bound.
    fn would_hold(&self, frame: &S::Plan, full: bool) -> usize {
        let base = if full { 0 } else { self.held.len() };
        if base.saturating_add(frame.entered().len()) <= self.limits.max_keys {
            // Within the limit whatever the plan names: no need to count it out.
            return base.saturating_add(frame.entered().len());
        }
        // Counted as apply would go: retractions of an occupant held free its slot, then each
        // arrival takes a slot not held (one per slot, however many generations name it).
        let mut freed = BTreeSet::new();
        if !full {
            for key in frame.left() {
                let key = self.normalise(SlotKey::decode(*key));
                if self
                    .held
                    .get(&key.index)
                    .is_some_and(|(g, _)| *g == key.generation)
                {
                    freed.insert(key.index);
                }
            }
        }
        let mut taken = BTreeSet::new();
        let mut would_hold = base - freed.len();
        for key in frame.entered() {
            let index = self.normalise(SlotKey::decode(*key)).index;
            let occupied = !full && self.held.contains_key(&index) && !freed.contains(&index);
            if !occupied && taken.insert(index) {
                would_hold += 1;
            }
        }
        would_hold
    }

    /// Removes the occupant `key` names; a key of another generation than the one held is a stale
    /// reference, counted and refused (DELTA-22).
    pub fn remove(&mut self, key: SlotKey) -> Option<E> {
        let key = self.normalise(key);
        match self.held.get(&key.index) {
            Some((generation, _)) if *generation != key.generation => {
                self.stale_refs = self.stale_refs.saturating_add(1);
                None
            }
            Some(_) => {
                self.digest.remove(key.encode());
                self.held.remove(&key.index).map(|(_, e)| e)
            }
            None => None,
        }
    }

    /// The entity `key` names, if this mirror holds that occupant.
    #[must_use]
    pub fn get(&self, key: SlotKey) -> Option<&E> {
        let key = self.normalise(key);
        self.held
            .get(&key.index)
            .filter(|(g, _)| *g == key.generation)
            .map(|(_, e)| e)
    }

    /// The entity `key` names, mutably; a generation mismatch is counted as a stale reference.
    pub fn get_mut(&mut self, key: SlotKey) -> Option<&mut E> {
        let key = self.normalise(key);
        match self.held.get_mut(&key.index) {
            Some((g, e)) if *g == key.generation => Some(e),
            Some(_) => {
                self.stale_refs = self.stale_refs.saturating_add(1);
                None
            }
            None => None,
        }
    }

    /// Whether this mirror holds the occupant `key` names.
    #[must_use]
    pub fn contains(&self, key: SlotKey) -> bool {
        self.get(key).is_some()
    }

    /// Every key held, ascending by slot (so ascending as encoded keys).
    pub fn keys(&self) -> impl Iterator<Item = SlotKey> + '_ {
        self.held.iter().map(|(i, (g, _))| SlotKey::new(*i, *g))
    }

    /// How many occupants are held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether nothing is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Drops every occupant. DELTA-25: a client may skip any part of the stream unread if it also
    /// drops its mirror: its next acknowledgement then reports the empty set's digest, and the
    /// server replies with a full baseline.
    pub fn clear(&mut self) {
        self.held.clear();
        self.digest.clear();
    }

    /// The digest of the keys held now ([`SetDigest`], maintained incrementally).
    #[must_use]
    pub fn digest(&self) -> u64 {
        self.digest.digest()
    }

    /// How the digest of the keys held compares with `server_digest`, the digest of what the server
    /// believes this mirror holds (DELTA-15: the comparison the server makes, here made by the
    /// client against a digest the server shipped).
    #[must_use]
    pub fn agreement_with(&self, server_digest: u64) -> Agreement {
        Agreement::compare(server_digest, self.digest())
    }

    /// How this mirror differs from the server's key set `server_keys`: the consumer side of
    /// the opt-in mode that "ships the ground truth" a digest is a checksum of.
    pub fn divergence_from(&self, server_keys: impl IntoIterator<Item = u64>) -> Divergence {
        let theirs: BTreeSet<u64> = server_keys.into_iter().collect();
        let mine: BTreeSet<u64> = self.keys().map(SlotKey::encode).collect();
        Divergence {
            extra: mine
                .difference(&theirs)
                .map(|k| SlotKey::decode(*k))
                .collect(),
            missing: theirs
                .difference(&mine)
                .map(|k| SlotKey::decode(*k))
                .collect(),
        }
    }

    /// What arrived, for the acknowledgement.
    #[must_use]
    pub const fn acks(&self) -> &AckWindow {
        &self.acks
    }

    /// The `delta_ack` to send now: the window and the digest of what is held; `None` before
    /// any packet arrived.
    #[must_use]
    pub fn ack(&self) -> Option<S::Ack> {
        self.acks
            .encode()
            .map(|(newest, mask)| S::Ack::new(newest, mask, self.digest()))
    }

    /// The newest sequence applied.
    #[must_use]
    pub const fn applied_seq(&self) -> Option<u64> {
        self.applied_seq
    }

    /// Sequences skipped between applied packets: what the wire lost (or still holds).
    #[must_use]
    pub const fn frames_lost(&self) -> u64 {
        self.frames_lost
    }

    /// Packets not applied because a newer one already was.
    #[must_use]
    pub const fn stale_packets(&self) -> u64 {
        self.stale_packets
    }

    /// References to an occupant this mirror does not hold, refused.
    #[must_use]
    pub const fn stale_refs(&self) -> u64 {
        self.stale_refs
    }

    fn normalise(&self, key: SlotKey) -> SlotKey {
        if self.generational {
            key
        } else {
            key.ungenerational()
        }
    }
}

impl<E: Default, S: DeltaSchema> DeltaMirror<E, S> {
    /// Applies a received `delta_plan`: [`begin`](Self::begin), then its retractions, then its
    /// arrivals (each with `E::default()`). Any frame is safe to apply.
    ///
    /// A plan that would leave more than [`MirrorLimits::max_keys`] occupants held is refused
    /// with [`LimitError::MirrorKeys`] before anything is touched: neither applied nor
    /// recorded as arrived, so the mirror and its next acknowledgement are as if the network
    /// had lost it. A plan not newer than the newest applied is never refused (it is not
    /// applied anyway).
    pub fn apply(&mut self, frame: &S::Plan) -> Result<Applied, LimitError> {
        let full = frame.full_baseline();
        let sequence = frame.sequence();
        if !self.is_stale(sequence) {
            // Refused before begin() records it: DELTA-12 builds what to send from the acknowledged
            // state intersected with every state sent since, so a plan never acknowledged is said
            // again (DELTA-24) and refusing it loses nothing the stream cannot heal.
            let would_hold = self.would_hold(frame, full);
            if would_hold > self.limits.max_keys {
                return Err(LimitError::MirrorKeys {
                    sequence: Some(sequence),
                    would_hold,
                    max_keys: self.limits.max_keys,
                });
            }
        }
        let mut out = Applied {
            cleared: full,
            ..Applied::default()
        };
        if !self.begin(sequence, full) {
            out.cleared = false;
            return Ok(out);
        }
        out.applied = true;
        let before = self.stale_refs;
        for key in frame.left() {
            if self.remove(SlotKey::decode(*key)).is_some() {
                out.left += 1;
            }
        }
        out.stale_refs = usize::try_from(self.stale_refs - before).unwrap_or(usize::MAX);
        for key in frame.entered() {
            // Counted against the limit above.
            let key = self.normalise(SlotKey::decode(*key));
            self.insert_within_limits(key, E::default());
            out.entered += 1;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta::DeltaPlan;

    fn frame(seq: u64, full: bool, entered: &[u64], left: &[u64]) -> crate::protocol::DeltaPlan {
        DeltaPlan {
            full_baseline: full,
            baseline_seq: None,
            entered: entered.to_vec(),
            left: left.to_vec(),
        }
        .to_frame(seq)
    }

    fn keys(m: &DeltaMirror) -> Vec<u64> {
        m.keys().map(SlotKey::encode).collect()
    }

    #[test]
    fn a_full_baseline_replaces_the_mirror_rather_than_merging() {
        // DELTA-21.
        let mut m = DeltaMirror::<()>::new();
        m.apply(&frame(1, true, &[1, 9], &[])).unwrap();
        let a = m.apply(&frame(2, true, &[1], &[])).unwrap();
        assert!(a.applied && a.cleared);
        assert_eq!(keys(&m), vec![1]);
    }

    #[test]
    fn a_packet_older_than_the_newest_applied_is_acknowledged_not_applied() {
        // DELTA-20.
        // Reordering: 3 retracts key 5, then 2 (which announced it) arrives late.
        let mut m = DeltaMirror::<()>::new();
        m.apply(&frame(1, true, &[], &[])).unwrap();
        m.apply(&frame(3, false, &[], &[5])).unwrap();
        let late = m.apply(&frame(2, false, &[5], &[])).unwrap();
        assert!(!late.applied);
        assert!(!m.contains(SlotKey::decode(5)), "no phantom brought back");
        assert!(m.acks().contains(2) && m.acks().contains(3));
        assert_eq!((m.frames_lost(), m.stale_packets()), (1, 1));
        assert_eq!(m.ack().unwrap().newest, 3);
    }

    #[test]
    fn a_reference_to_a_dead_occupant_is_refused_not_applied_to_its_replacement() {
        // DELTA-22.
        let mut m = DeltaMirror::<&str>::new();
        m.insert(SlotKey::new(41, 7), "old").unwrap();
        m.insert(SlotKey::new(41, 8), "new").unwrap();
        assert_eq!(m.len(), 1, "one occupant per slot");
        assert_eq!(m.remove(SlotKey::new(41, 7)), None);
        assert_eq!(m.stale_refs(), 1);
        assert!(m.get_mut(SlotKey::new(41, 7)).is_none());
        assert_eq!(m.stale_refs(), 2);
        assert_eq!(m.get(SlotKey::new(41, 8)), Some(&"new"));
        assert_eq!(
            m.digest(),
            SetDigest::from_keys([SlotKey::new(41, 8).encode()]).digest()
        );
        // Without generations the same stale reference deletes the live entity, silently.
        let mut m = DeltaMirror::<&str>::new().with_generations(false);
        m.insert(SlotKey::new(41, 8), "new").unwrap();
        assert_eq!(m.remove(SlotKey::new(41, 7)), Some("new"));
        assert_eq!(m.stale_refs(), 0);
    }

    #[test]
    fn the_digest_is_the_set_digest_of_the_keys_held() {
        // DELTA-23.
        let mut m = DeltaMirror::<()>::new();
        assert_eq!(m.ack(), None);
        m.apply(&frame(1, true, &[3, 1 << 16, 2 << 16 | 9], &[]))
            .unwrap();
        m.apply(&frame(2, false, &[4], &[3])).unwrap();
        assert_eq!(m.digest(), SetDigest::from_keys(keys(&m)).digest());
        m.clear();
        assert_eq!(m.digest(), SetDigest::new().digest());
    }

    #[test]
    fn divergence_from_names_extra_and_missing_occupants() {
        let mut m = DeltaMirror::<()>::new();
        let k = |i: u32| SlotKey::new(i, 1).encode();
        m.apply(&frame(1, true, &[k(1), k(2), k(3)], &[])).unwrap();
        let d = m.divergence_from([k(2), k(3), k(4)]);
        assert_eq!(d.extra, vec![SlotKey::new(1, 1)]);
        assert_eq!(d.missing, vec![SlotKey::new(4, 1)]);
        assert!(m.divergence_from([k(1), k(2), k(3)]).is_empty());
    }
}
