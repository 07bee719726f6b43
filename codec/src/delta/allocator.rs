//! [`SlotAllocator`]: hands out [`SlotKey`]s, bumping a slot's generation each time it is
//! reused, under the [`ReusePolicy`] a game chooses.
//!
//! `SlotAllocator` and `ReusePolicy` are among the types both sides of a delta stream share
//! (SRV-1), and DELTA-3 says why a key carries a generation at all: a retraction computed after a
//! slot was recycled would otherwise name its current occupant, and the one the subscriber holds
//! would never be named again. An allocator is where that generation is bumped, once, rather than
//! by every world that recycles slots.
//!
//! DELTA-8: the first occupant of a slot is generation 0 (the occupants an arena starts with);
//! every reuse bumps it by one, wrapping at `u16::MAX`.
//!
//! Pure bookkeeping: no clock, and memory bounded by the capacity.

use super::slot::SlotKey;
use std::collections::BTreeSet;

/// Which free slot [`SlotAllocator::allocate`] hands out next.
///
/// The choice trades a dense key space against how soon a slot comes back. Generations make
/// both correct; the policy decides how often a reference still in flight meets a recycled
/// slot, and how fast a slot's 16-bit generation wraps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReusePolicy {
    /// The lowest free index, whether it was used before or not: the slot range stays as small as
    /// the population, which keeps a `VisibilitySet` bitset (SRV-9, indices kept dense) and the
    /// encoded keys short. A slot freed now is the next one handed out, so only its generation
    /// tells the new occupant from the old one.
    #[default]
    LowestFree,
    /// First freed, first reused, and only while more than `quarantine` freed slots wait: below
    /// that a never-used index is handed out instead (while the capacity allows). A freed slot
    /// rests while references to its last occupant drain, and reuse spreads over every slot, so
    /// each generation wraps as late as it can. When the capacity is used up the oldest freed
    /// slot is reused anyway: a quarantine is a preference, not a refusal. `quarantine: 0` is
    /// plain FIFO.
    Fifo {
        /// How many freed slots must wait before the oldest of them is reused.
        quarantine: u32,
    },
}

/// One slot's record: the generation of its current or last occupant.
#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u16,
    live: bool,
    /// Where the slot sits in `freed` while it is free: its index under
    /// [`ReusePolicy::LowestFree`], the order it was freed in under [`ReusePolicy::Fifo`].
    order: u64,
}

/// Allocates [`SlotKey`]s from `capacity` slots: one live occupant per slot, a slot's
/// generation bumped each time it is reused.
///
/// ```
/// use ackwire_codec::delta::{ReusePolicy, SlotAllocator, SlotKey};
///
/// let mut slots = SlotAllocator::new(8, ReusePolicy::LowestFree);
/// let a = slots.allocate().unwrap();
/// let b = slots.allocate().unwrap();
/// assert_eq!((a, b), (SlotKey::new(0, 0), SlotKey::new(1, 0)));
/// assert!(slots.free(a));
/// assert!(!slots.free(a), "a second free of the same occupant is refused");
/// // The lowest free slot again, as its next occupant: a different key.
/// assert_eq!(slots.allocate(), Some(SlotKey::new(0, 1)));
/// ```
#[derive(Clone, Debug)]
pub struct SlotAllocator {
    policy: ReusePolicy,
    capacity: u32,
    /// Every slot below the highest one ever handed out.
    slots: Vec<Slot>,
    /// Free slots that had an occupant, in the policy's order: `(order, index)`.
    freed: BTreeSet<(u64, u32)>,
    /// Slots below `slots.len()` that never had an occupant (skipped by
    /// [`allocate_at`](SlotAllocator::allocate_at)).
    unused: BTreeSet<u32>,
    /// The next [`ReusePolicy::Fifo`] order.
    stamp: u64,
    live: usize,
}

impl SlotAllocator {
    /// An allocator of slots `0..capacity`, none occupied.
    #[must_use]
    pub const fn new(capacity: u32, policy: ReusePolicy) -> Self {
        Self {
            policy,
            capacity,
            slots: Vec::new(),
            freed: BTreeSet::new(),
            unused: BTreeSet::new(),
            stamp: 0,
            live: 0,
        }
    }

    /// The policy in force.
    #[must_use]
    pub const fn policy(&self) -> ReusePolicy {
        self.policy
    }

    /// How many slots there are.
    #[must_use]
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// How many slots are occupied.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.live
    }

    /// Whether no slot is occupied.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// A new occupant in the slot the policy picks, or `None` when every slot is occupied.
    pub fn allocate(&mut self) -> Option<SlotKey> {
        let fresh = self.fresh();
        let index = match self.policy {
            ReusePolicy::LowestFree => {
                let reused = self.freed.first().map(|(_, i)| *i);
                [reused, fresh].into_iter().flatten().min()?
            }
            ReusePolicy::Fifo { quarantine } => {
                let waiting = self.freed.len() > quarantine as usize;
                let oldest = self.freed.first().map(|(_, i)| *i);
                match (waiting, fresh) {
                    (true, _) | (false, None) => oldest?,
                    (false, Some(i)) => i,
                }
            }
        };
        self.allocate_at(index)
    }

    /// A new occupant in slot `index`, whatever the policy would pick: for a game whose slots
    /// are places (a seat, a spawn point, a cell). `None` when `index` is outside the capacity
    /// or occupied.
    pub fn allocate_at(&mut self, index: u32) -> Option<SlotKey> {
        if index >= self.capacity {
            return None;
        }
        let at = index as usize;
        if at >= self.slots.len() {
            let first_new = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
            self.unused.extend(first_new..index);
            self.slots.resize(
                at + 1,
                Slot {
                    generation: 0,
                    live: false,
                    order: 0,
                },
            );
            // The slot itself has never had an occupant: its first is generation 0.
            self.slots[at].live = true;
        } else {
            let slot = self.slots[at];
            if slot.live {
                return None;
            }
            if self.unused.remove(&index) {
                self.slots[at].generation = 0;
            } else {
                self.freed.remove(&(slot.order, index));
                // DELTA-3, DELTA-8: a respawn in the same slot must be a different key, so each
                // reuse is the next generation.
                self.slots[at].generation = slot.generation.wrapping_add(1);
            }
            self.slots[at].live = true;
        }
        self.live += 1;
        Some(SlotKey::new(index, self.slots[at].generation))
    }

    /// Frees the occupant `key` names. `false`, and nothing changes, when `key` is not a live
    /// occupant: a slot freed twice, or a reference to an earlier generation (the stale
    /// reference generations exist to catch).
    pub fn free(&mut self, key: SlotKey) -> bool {
        if !self.is_live(key) {
            return false;
        }
        let order = match self.policy {
            ReusePolicy::LowestFree => u64::from(key.index),
            ReusePolicy::Fifo { .. } => {
                self.stamp += 1;
                self.stamp
            }
        };
        let slot = &mut self.slots[key.index as usize];
        slot.live = false;
        slot.order = order;
        self.freed.insert((order, key.index));
        self.live -= 1;
        true
    }

    /// Whether `key` is the live occupant of its slot.
    #[must_use]
    pub fn is_live(&self, key: SlotKey) -> bool {
        self.slots
            .get(key.index as usize)
            .is_some_and(|s| s.live && s.generation == key.generation)
    }

    /// The live occupant of slot `index`, if any.
    #[must_use]
    pub fn occupant(&self, index: u32) -> Option<SlotKey> {
        self.slots
            .get(index as usize)
            .filter(|s| s.live)
            .map(|s| SlotKey::new(index, s.generation))
    }

    /// Every live occupant, ascending by slot (so ascending as encoded keys).
    pub fn live(&self) -> impl Iterator<Item = SlotKey> + '_ {
        self.slots
            .iter()
            .zip(0u32..)
            .filter(|(s, _)| s.live)
            .map(|(s, i)| SlotKey::new(i, s.generation))
    }

    /// The lowest never-used slot, if the capacity has one.
    fn fresh(&self) -> Option<u32> {
        let next = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        self.unused
            .first()
            .copied()
            .or((next < self.capacity).then_some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(a: &mut SlotAllocator, n: usize) -> Vec<SlotKey> {
        (0..n).map_while(|_| a.allocate()).collect()
    }

    #[test]
    fn each_reuse_of_a_slot_is_the_next_generation() {
        // DELTA-3, DELTA-8: a retraction must name the occupant held, not the slot's next one.
        let mut a = SlotAllocator::new(4, ReusePolicy::LowestFree);
        let mut key = a.allocate().unwrap();
        assert_eq!(
            key,
            SlotKey::new(0, 0),
            "the first occupant is generation 0"
        );
        for g in 1..=3u16 {
            assert!(a.free(key));
            key = a.allocate().unwrap();
            assert_eq!(key, SlotKey::new(0, g));
        }
        assert!(!a.is_live(SlotKey::new(0, 2)) && a.is_live(key));
        assert!(
            !a.free(SlotKey::new(0, 2)),
            "a stale reference frees nothing"
        );
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn the_generation_wraps_rather_than_panicking() {
        // DELTA-8.
        let mut a = SlotAllocator::new(1, ReusePolicy::LowestFree);
        let mut key = a.allocate().unwrap();
        for _ in 0..=u16::MAX {
            assert!(a.free(key));
            key = a.allocate().unwrap();
        }
        assert_eq!(key, SlotKey::new(0, 0), "65536 reuses come back to 0");
    }

    #[test]
    fn lowest_free_reuses_the_lowest_index_at_once() {
        // DELTA-8.
        let mut a = SlotAllocator::new(8, ReusePolicy::LowestFree);
        let keys = take(&mut a, 5);
        assert!(a.free(keys[3]) && a.free(keys[1]));
        assert_eq!(a.allocate(), Some(SlotKey::new(1, 1)));
        assert_eq!(a.allocate(), Some(SlotKey::new(3, 1)));
        assert_eq!(a.allocate(), Some(SlotKey::new(5, 0)), "then a fresh index");
    }

    #[test]
    fn fifo_reuses_the_longest_free_slot_and_quarantine_holds_it_back() {
        // DELTA-8.
        let mut a = SlotAllocator::new(8, ReusePolicy::Fifo { quarantine: 0 });
        let keys = take(&mut a, 4);
        assert!(a.free(keys[2]) && a.free(keys[0]));
        assert_eq!(
            a.allocate(),
            Some(SlotKey::new(2, 1)),
            "first freed, first reused"
        );
        assert_eq!(a.allocate(), Some(SlotKey::new(0, 1)));

        let mut q = SlotAllocator::new(8, ReusePolicy::Fifo { quarantine: 2 });
        let keys = take(&mut q, 4);
        assert!(q.free(keys[1]) && q.free(keys[3]));
        // Two wait, not more than two: fresh indices while the capacity lasts.
        assert_eq!(q.allocate(), Some(SlotKey::new(4, 0)));
        assert!(q.free(keys[0]));
        assert_eq!(
            q.allocate(),
            Some(SlotKey::new(1, 1)),
            "three wait: the oldest"
        );
        assert_eq!(
            take(&mut q, 3),
            (5..8).map(|i| SlotKey::new(i, 0)).collect::<Vec<_>>()
        );
        // With the capacity used up the quarantine gives way rather than refusing.
        assert_eq!(q.allocate(), Some(SlotKey::new(3, 1)));
        assert_eq!(q.allocate(), Some(SlotKey::new(0, 1)));
        assert_eq!((q.len(), q.allocate()), (8, None));
    }

    #[test]
    fn allocate_at_takes_a_given_slot_and_the_policies_fill_the_gaps() {
        let mut a = SlotAllocator::new(6, ReusePolicy::LowestFree);
        assert_eq!(a.allocate_at(3), Some(SlotKey::new(3, 0)));
        assert_eq!(a.allocate_at(3), None, "occupied");
        assert_eq!(a.allocate_at(6), None, "outside the capacity");
        assert_eq!(
            take(&mut a, 6),
            vec![
                SlotKey::new(0, 0),
                SlotKey::new(1, 0),
                SlotKey::new(2, 0),
                SlotKey::new(4, 0),
                SlotKey::new(5, 0),
            ]
        );
        assert!(a.free(SlotKey::new(3, 0)));
        assert_eq!(
            a.allocate_at(3),
            Some(SlotKey::new(3, 1)),
            "a reuse all the same"
        );
        assert_eq!(
            a.live().collect::<Vec<_>>(),
            (0..6)
                .map(|i| SlotKey::new(i, u16::from(i == 3)))
                .collect::<Vec<_>>()
        );
        assert_eq!(a.occupant(3), Some(SlotKey::new(3, 1)));
        assert_eq!(a.occupant(7), None);
    }

    #[test]
    fn an_empty_capacity_allocates_nothing() {
        for policy in [ReusePolicy::LowestFree, ReusePolicy::Fifo { quarantine: 3 }] {
            let mut a = SlotAllocator::new(0, policy);
            assert_eq!((a.allocate(), a.allocate_at(0)), (None, None));
            assert!(a.is_empty() && !a.free(SlotKey::new(0, 0)));
        }
    }
}
