//! Seats (SRV-17, SRV-18): who occupies which per-seat slot of the simulation, and whether an
//! occupant is new to it.
//!
//! - [`SeatTable`]: plain seat-on-arrival, free-on-leave, answering with [`Seating`] so the
//!   caller must decide between resetting a seat's state ([`Seating::Fresh`]) and keeping it
//!   ([`Seating::Existing`]).
//! - [`SeatSlots`] and [`RankedQueue`]: the two blocks [`Roster`] is composed of, public so a
//!   seating policy `Roster` does not express can be built from them directly.
//! - [`Roster`]: seating with the policies games actually vary: a lock, a waitlist, held seats
//!   and ranks, each off by default.
//!
//! No clocks: a held seat stays held until the caller expires it.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// Where [`SeatTable::seat`] put a key.
///
/// SRV-17: `Fresh` means the seat's accumulated state must be reset, `Existing` that it must not.
/// Collapsing the two is the warm-arena join bug: a joiner taking a seat whose relevance baseline
/// was already most of the world got a first frame that was a delta against a baseline it never
/// received. Matching on freshness makes the compiler ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seating {
    /// Newly seated here: reset this seat's accumulated state.
    Fresh(usize),
    /// Already seated here: keep everything.
    Existing(usize),
    /// No seat is free.
    Full,
}

impl Seating {
    /// The seat, unless [`Full`](Self::Full).
    #[must_use]
    pub const fn index(&self) -> Option<usize> {
        match self {
            Self::Fresh(seat) | Self::Existing(seat) => Some(*seat),
            Self::Full => None,
        }
    }

    /// Whether the seat's state must be reset.
    #[must_use]
    pub const fn is_fresh(&self) -> bool {
        matches!(self, Self::Fresh(_))
    }
}

/// The lowest seat below `capacity` that `taken` does not hold.
///
/// Walks at most `taken.len() + 1` seats, so a huge capacity costs nothing.
fn lowest_free<V>(taken: &BTreeMap<usize, V>, capacity: usize) -> Option<usize> {
    let mut candidate = 0;
    for &seat in taken.keys() {
        if seat != candidate {
            break;
        }
        candidate += 1;
    }
    (candidate < capacity).then_some(candidate)
}

/// Plain seat-on-arrival, free-on-leave. A key takes the lowest free seat (SRV-17).
///
/// Storage is proportional to the occupants, not the capacity, so any capacity is accepted.
#[derive(Clone, Debug)]
pub struct SeatTable<Key> {
    capacity: usize,
    /// Occupied seats only.
    seats: BTreeMap<usize, Key>,
    index: HashMap<Key, usize>,
}

impl<Key: Eq + Hash + Clone> SeatTable<Key> {
    /// A table of `capacity` empty seats.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            seats: BTreeMap::new(),
            index: HashMap::new(),
        }
    }

    /// Seats `key`: [`Seating::Existing`] if it already has a seat, else
    /// [`Seating::Fresh`] in the lowest free seat, else [`Seating::Full`].
    pub fn seat(&mut self, key: Key) -> Seating {
        if let Some(&seat) = self.index.get(&key) {
            return Seating::Existing(seat);
        }
        let Some(seat) = lowest_free(&self.seats, self.capacity) else {
            return Seating::Full;
        };
        self.seats.insert(seat, key.clone());
        self.index.insert(key, seat);
        Seating::Fresh(seat)
    }

    /// Frees `key`'s seat and returns it; `None` if it had none.
    ///
    /// Idempotent, since a disconnect may be reported more than once (SRV-17).
    pub fn unseat(&mut self, key: &Key) -> Option<usize> {
        let seat = self.index.remove(key)?;
        self.seats.remove(&seat);
        Some(seat)
    }

    /// `key`'s seat, if seated.
    #[must_use]
    pub fn seat_of(&self, key: &Key) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// Every occupied seat with its occupant, in seat order.
    pub fn occupants(&self) -> impl Iterator<Item = (usize, &Key)> + '_ {
        self.seats.iter().map(|(&seat, key)| (seat, key))
    }

    /// Every seated key, in seat order.
    pub fn keys(&self) -> impl Iterator<Item = &Key> + '_ {
        self.seats.values()
    }

    /// The occupants by seat.
    #[must_use]
    pub fn by_seat(&self) -> HashMap<usize, Key> {
        self.occupants()
            .map(|(seat, key)| (seat, key.clone()))
            .collect()
    }

    /// How many seats are occupied.
    #[must_use]
    pub fn occupied_count(&self) -> usize {
        self.index.len()
    }

    /// How many seats there are.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether every seat is occupied.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.occupied_count() >= self.capacity()
    }

    /// Empties every seat.
    pub fn clear(&mut self) {
        self.seats.clear();
        self.index.clear();
    }

    /// Resizes to `capacity` seats and returns everyone's new seat, in seat order.
    ///
    /// A key that does not fit is dropped from the table and left out of the list; every seat
    /// returned is fresh, since the world behind it is new. An occupant keeps its seat number when
    /// it still exists, and the others take the lowest free seats in the order of their old seats,
    /// so when the table shrinks it is the occupants of the highest seats who are dropped.
    pub fn reseat_all(&mut self, capacity: usize) -> Vec<(Key, usize)> {
        let old = std::mem::take(&mut self.seats);
        self.index.clear();
        self.capacity = capacity;
        let mut movers = Vec::new();
        for (seat, key) in old {
            if seat < capacity {
                self.seats.insert(seat, key.clone());
                self.index.insert(key, seat);
            } else {
                movers.push(key);
            }
        }
        for key in movers {
            let Some(seat) = lowest_free(&self.seats, capacity) else {
                break;
            };
            self.seats.insert(seat, key.clone());
            self.index.insert(key, seat);
        }
        self.occupants()
            .map(|(seat, key)| (key.clone(), seat))
            .collect()
    }
}

/// The state of one seat: who, if anyone, has it.
///
/// `SeatState::Open` says nothing of who drives the seat, so a game whose empty seats are bots
/// reads every open seat as a bot's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeatState<'a, Key> {
    /// Occupied by a present key.
    Human(&'a Key),
    /// Kept for a key that is away.
    Held(&'a Key),
    /// Free.
    Open,
}

/// What an occupied slot holds; with "absent" for open, the owned form of [`SeatState`].
#[derive(Clone, Debug)]
enum Slot<Key> {
    Human(Key),
    Held(Key),
}

/// The tri-state slot map: [`SeatTable`]'s sibling with one more state, [`SeatState::Held`], for a
/// seat kept while its occupant is away. One of the two blocks [`Roster`] is composed of.
///
/// Storage is proportional to the occupants, not the capacity.
#[derive(Clone, Debug)]
pub struct SeatSlots<Key> {
    capacity: usize,
    /// Occupied (present or held) seats only.
    slots: BTreeMap<usize, Slot<Key>>,
    index: HashMap<Key, usize>,
}

impl<Key: Eq + Hash + Clone> SeatSlots<Key> {
    /// `capacity` open seats.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            slots: BTreeMap::new(),
            index: HashMap::new(),
        }
    }

    /// The lowest open seat, if any.
    #[must_use]
    pub fn first_open(&self) -> Option<usize> {
        lowest_free(&self.slots, self.capacity)
    }

    /// Seats `key` in `seat` as present. The seat must be open (and below the capacity) and
    /// the key not seated anywhere; returns whether it was seated (`false` changes nothing).
    pub fn seat(&mut self, key: Key, seat: usize) -> bool {
        if seat >= self.capacity || self.index.contains_key(&key) || self.slots.contains_key(&seat)
        {
            return false;
        }
        self.slots.insert(seat, Slot::Human(key.clone()));
        self.index.insert(key, seat);
        true
    }

    /// Marks a present key's seat held; returns the seat, `None` unless the key was present.
    pub fn hold(&mut self, key: &Key) -> Option<usize> {
        let seat = self.seat_of(key)?;
        let slot = self.slots.get_mut(&seat)?;
        if let Slot::Human(occupant) = slot {
            *slot = Slot::Held(occupant.clone());
            Some(seat)
        } else {
            None
        }
    }

    /// Makes a held key present again; returns the seat, `None` unless the seat was held.
    pub fn resume(&mut self, key: &Key) -> Option<usize> {
        let seat = self.seat_of(key)?;
        let slot = self.slots.get_mut(&seat)?;
        if let Slot::Held(occupant) = slot {
            *slot = Slot::Human(occupant.clone());
            Some(seat)
        } else {
            None
        }
    }

    /// Opens the key's seat, present or held; returns the seat, `None` if it had none.
    pub fn open(&mut self, key: &Key) -> Option<usize> {
        let seat = self.index.remove(key)?;
        self.slots.remove(&seat);
        Some(seat)
    }

    /// Whether the key's seat is held.
    #[must_use]
    pub fn is_held(&self, key: &Key) -> bool {
        self.seat_of(key)
            .is_some_and(|seat| matches!(self.slots.get(&seat), Some(Slot::Held(_))))
    }

    /// The key's seat, present or held.
    #[must_use]
    pub fn seat_of(&self, key: &Key) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// The state of `seat`. A seat number beyond the capacity reads as
    /// [`SeatState::Open`]; [`first_open`](Self::first_open) never returns one.
    #[must_use]
    pub fn state(&self, seat: usize) -> SeatState<'_, Key> {
        match self.slots.get(&seat) {
            Some(Slot::Human(key)) => SeatState::Human(key),
            Some(Slot::Held(key)) => SeatState::Held(key),
            None => SeatState::Open,
        }
    }

    /// Every present or held seat with its state, in seat order.
    pub fn occupied(&self) -> impl Iterator<Item = (usize, SeatState<'_, Key>)> + '_ {
        self.slots.iter().map(|(&seat, slot)| {
            let state = match slot {
                Slot::Human(key) => SeatState::Human(key),
                Slot::Held(key) => SeatState::Held(key),
            };
            (seat, state)
        })
    }

    /// How many seats there are.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many seats are present or held.
    #[must_use]
    pub fn occupied_count(&self) -> usize {
        self.index.len()
    }
}

/// A queue with priority bands: better (lower) ranks first, arrival order within a band, membership
/// removal. The other block [`Roster`] composes.
///
/// Positions are 0-based: position 0 is the next out. A key is queued at most once; pushing a
/// key already queued requeues it at the tail of the given rank's band.
#[derive(Clone, Debug)]
pub struct RankedQueue<Key> {
    /// In queue order: ascending rank, arrival order within a rank.
    entries: Vec<(Key, u32)>,
}

impl<Key> Default for RankedQueue<Key> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<Key: Eq> RankedQueue<Key> {
    /// An empty queue.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `key` at the tail of the `rank` band and returns its 0-based position.
    pub fn push(&mut self, key: Key, rank: u32) -> usize {
        self.remove(&key);
        let position = self.entries.partition_point(|&(_, r)| r <= rank);
        self.entries.insert(position, (key, rank));
        position
    }

    /// Takes `key` out of the queue; returns whether it was queued.
    pub fn remove(&mut self, key: &Key) -> bool {
        match self.position(key) {
            Some(position) => {
                self.entries.remove(position);
                true
            }
            None => false,
        }
    }

    /// The 0-based position of `key`, if queued.
    #[must_use]
    pub fn position(&self, key: &Key) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    /// The rank `key` is queued with, if queued.
    #[must_use]
    pub fn rank_of(&self, key: &Key) -> Option<u32> {
        self.entries
            .iter()
            .find_map(|(k, rank)| (k == key).then_some(*rank))
    }

    /// The next out, with its rank.
    #[must_use]
    pub fn best(&self) -> Option<(&Key, u32)> {
        self.entries.first().map(|(key, rank)| (key, *rank))
    }

    /// Takes the next out, with its rank.
    pub fn pop_best(&mut self) -> Option<(Key, u32)> {
        if self.entries.is_empty() {
            None
        } else {
            Some(self.entries.remove(0))
        }
    }

    /// Every queued key with its rank, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, u32)> + '_ {
        self.entries.iter().map(|(key, rank)| (key, *rank))
    }

    /// How many keys are queued.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is queued.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Why [`Roster::admit`] turned a key away. Whether that means spectating or refusal is the
/// application's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turnaway {
    /// Every seat is taken and there is no waitlist.
    Full,
    /// The roster is locked and there is no waitlist.
    Locked,
}

/// What [`Roster::admit`] did with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Admission {
    /// Seated; `fresh` has the same contract as [`Seating`]: reset the seat's state when true.
    Seated {
        /// The seat.
        seat: usize,
        /// Whether the seat is new to this key (`false`: it was already seated there).
        fresh: bool,
    },
    /// Their held seat is theirs again, everything in it intact: resend state, reset nothing.
    Resumed {
        /// The seat.
        seat: usize,
    },
    /// Queued for the next open seat.
    Waitlisted {
        /// 0-based position in the queue.
        position: usize,
    },
    /// Turned away.
    Turned(Turnaway),
}

/// What [`Roster::depart`] did with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Departure {
    /// The seat is open again; the waitlist reaches it at the next [`Roster::resolve`].
    Freed {
        /// The seat.
        seat: usize,
    },
    /// The seat is kept for the key until [`Roster::expire`]: start their clock.
    Held {
        /// The seat.
        seat: usize,
    },
    /// The key was waiting and is no longer queued.
    Unwaitlisted,
    /// The key was neither seated nor waiting.
    NotPresent,
}

/// A seat change made by [`Roster::resolve`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shuffle<Key> {
    /// A waiter took a seat; the seat is fresh.
    Promoted {
        /// Who.
        key: Key,
        /// The seat.
        seat: usize,
    },
    /// A seated key lost its seat to a better rank and was requeued at the tail of its own
    /// rank band.
    Displaced {
        /// Who.
        key: Key,
        /// The seat it lost.
        seat: usize,
    },
}

/// Seating with the policies games actually vary (SRV-18): [`SeatSlots`] and [`RankedQueue`]
/// composed along four orthogonal axes, each off by default.
///
/// - **lock** ([`lock`](Self::lock)): seats only between rounds; a locked roster turns
///   newcomers away or queues them whatever the free count.
/// - **waitlist** ([`with_waitlist`](Self::with_waitlist)): turned-away keys queue for the next
///   open seat.
/// - **held seats** ([`holding_seats`](Self::holding_seats)): a departure keeps the seat until
///   [`expire`](Self::expire).
/// - **ranks** ([`admit_ranked`](Self::admit_ranked)): lower is better; people at 0 and bots at
///   1, so a bot holds a seat only until a person wants one.
///
/// Rules the seed leaves open, decided here:
/// - A key already seated, or holding a seat, is seated or resumed even while locked: the lock
///   is about seating newcomers, and a hold is a promise.
/// - A newcomer takes an open seat at once only when nobody is waiting; otherwise it queues
///   behind (or ahead of, by rank) the waiters, and [`resolve`](Self::resolve) seats the queue
///   in order. A newcomer never jumps the queue for a seat freed since the last resolve.
/// - With ranks but no waitlist, a full roster queues a newcomer whose rank is better than some
///   present occupant's, since displacement happens in `resolve`; anyone else is turned away.
///   A displaced key is requeued, as the seed says, waitlist or not.
#[derive(Clone, Debug)]
pub struct Roster<Key> {
    slots: SeatSlots<Key>,
    queue: RankedQueue<Key>,
    /// The rank of every seated key, present or held.
    ranks: HashMap<Key, u32>,
    waitlist: bool,
    holding: bool,
    locked: bool,
}

impl<Key: Eq + Hash + Clone> Roster<Key> {
    /// A roster of `capacity` open seats with every axis off.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            slots: SeatSlots::new(capacity),
            queue: RankedQueue::new(),
            ranks: HashMap::new(),
            waitlist: false,
            holding: false,
            locked: false,
        }
    }

    /// Turned-away keys queue for the next open seat.
    #[must_use]
    pub fn with_waitlist(mut self) -> Self {
        self.waitlist = true;
        self
    }

    /// A departure keeps the seat until [`expire`](Self::expire).
    #[must_use]
    pub fn holding_seats(mut self) -> Self {
        self.holding = true;
        self
    }

    /// Stops seating newcomers (between rounds) and makes [`resolve`](Self::resolve) a no-op.
    pub fn lock(&mut self) {
        self.locked = true;
    }

    /// Seats newcomers again.
    pub fn unlock(&mut self) {
        self.locked = false;
    }

    /// Whether the roster is locked.
    #[must_use]
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// Admits `key` at rank 0: a roster whose admissions all come this way never displaces anyone
    /// (SRV-18).
    pub fn admit(&mut self, key: Key) -> Admission {
        self.admit_ranked(key, 0)
    }

    /// Admits `key` at `rank` (lower is better): seats, resumes, queues or turns away, in that
    /// order of preference.
    ///
    /// Settled at once (SRV-18), but any displacement its rank earns waits for
    /// [`resolve`](Self::resolve). A key already waiting keeps its place, unless its rank changed,
    /// in which case it moves to the tail of its new band.
    pub fn admit_ranked(&mut self, key: Key, rank: u32) -> Admission {
        if let Some(seat) = self.slots.seat_of(&key) {
            if let Some(seat) = self.slots.resume(&key) {
                return Admission::Resumed { seat };
            }
            return Admission::Seated { seat, fresh: false };
        }
        if let Some(queued) = self.queue.rank_of(&key) {
            let position = if queued == rank {
                self.queue.position(&key).unwrap_or_default()
            } else {
                self.queue.push(key, rank)
            };
            return Admission::Waitlisted { position };
        }
        if self.locked {
            return if self.waitlist {
                Admission::Waitlisted {
                    position: self.queue.push(key, rank),
                }
            } else {
                Admission::Turned(Turnaway::Locked)
            };
        }
        if self.queue.is_empty() {
            if let Some(seat) = self.slots.first_open() {
                if self.slots.seat(key.clone(), seat) {
                    self.ranks.insert(key, rank);
                    return Admission::Seated { seat, fresh: true };
                }
            }
        }
        let open_later = self.slots.first_open().is_some();
        if self.waitlist || open_later || self.displaceable_seat(rank).is_some() {
            return Admission::Waitlisted {
                position: self.queue.push(key, rank),
            };
        }
        Admission::Turned(Turnaway::Full)
    }

    /// `key` leaves (or is reported leaving again).
    ///
    /// Idempotent (SRV-17), since a disconnect may be reported more than once: a repeated report of
    /// a held key reports the hold again rather than breaking it. A freed seat reaches the waitlist
    /// only in [`resolve`](Self::resolve).
    pub fn depart(&mut self, key: &Key) -> Departure {
        if let Some(seat) = self.slots.seat_of(key) {
            if self.slots.is_held(key) {
                return Departure::Held { seat };
            }
            if self.holding {
                if let Some(seat) = self.slots.hold(key) {
                    return Departure::Held { seat };
                }
            }
            self.slots.open(key);
            self.ranks.remove(key);
            return Departure::Freed { seat };
        }
        if self.queue.remove(key) {
            return Departure::Unwaitlisted;
        }
        Departure::NotPresent
    }

    /// Releases a held seat whose grace ran out; returns the seat, `None` unless it was held.
    /// The seat reaches the waitlist at the next [`resolve`](Self::resolve).
    pub fn expire(&mut self, key: &Key) -> Option<usize> {
        if !self.slots.is_held(key) {
            return None;
        }
        self.ranks.remove(key);
        self.slots.open(key)
    }

    /// The present seat with the worst rank strictly worse than `rank`, later seats first on
    /// ties. Held seats are never displaceable.
    fn displaceable_seat(&self, rank: u32) -> Option<(usize, u32)> {
        let mut worst: Option<(usize, u32)> = None;
        for (seat, state) in self.slots.occupied() {
            if let SeatState::Human(key) = state {
                let seated = self.ranks.get(key).copied().unwrap_or_default();
                if seated > rank && worst.is_none_or(|(_, w)| seated >= w) {
                    worst = Some((seat, seated));
                }
            }
        }
        worst
    }

    /// Seats the waitlist into open seats in queue order, then settles rank displacement.
    ///
    /// SRV-18: the waitlist is seated only here, on the tick: call this from the simulation step,
    /// the one place seating is decided. A rank displaces only across bands: a waiter with a better
    /// rank takes the worst-ranked present seat (later seats first); equals never displace each
    /// other, and a held seat is never displaced, because the hold is a promise. A no-op while
    /// locked. For a displacement the `Displaced` entry comes before the `Promoted` one for the
    /// same seat.
    pub fn resolve(&mut self) -> Vec<Shuffle<Key>> {
        let mut shuffles = Vec::new();
        if self.locked {
            return shuffles;
        }
        while let Some(seat) = self.slots.first_open() {
            let Some((key, rank)) = self.queue.pop_best() else {
                break;
            };
            self.take_seat(key, rank, seat, &mut shuffles);
        }
        // Each displacement seats a strictly better rank in place of a worse one, so this ends.
        while let Some((_, rank)) = self.queue.best() {
            let Some((seat, _)) = self.displaceable_seat(rank) else {
                break;
            };
            let SeatState::Human(displaced) = self.slots.state(seat) else {
                break;
            };
            let displaced = displaced.clone();
            let displaced_rank = self.ranks.remove(&displaced).unwrap_or_default();
            self.slots.open(&displaced);
            self.queue.push(displaced.clone(), displaced_rank);
            shuffles.push(Shuffle::Displaced {
                key: displaced,
                seat,
            });
            let Some((key, rank)) = self.queue.pop_best() else {
                break;
            };
            self.take_seat(key, rank, seat, &mut shuffles);
        }
        shuffles
    }

    fn take_seat(&mut self, key: Key, rank: u32, seat: usize, shuffles: &mut Vec<Shuffle<Key>>) {
        if self.slots.seat(key.clone(), seat) {
            self.ranks.insert(key.clone(), rank);
            shuffles.push(Shuffle::Promoted { key, seat });
        }
    }

    /// The key's seat, present or held.
    #[must_use]
    pub fn seat_of(&self, key: &Key) -> Option<usize> {
        self.slots.seat_of(key)
    }

    /// The state of `seat` (out-of-range seats read as open).
    #[must_use]
    pub fn seat_state(&self, seat: usize) -> SeatState<'_, Key> {
        self.slots.state(seat)
    }

    /// Every seat's state, in seat order.
    pub fn seats(&self) -> impl Iterator<Item = SeatState<'_, Key>> + '_ {
        (0..self.slots.capacity()).map(|seat| self.slots.state(seat))
    }

    /// Every waiting key with its rank, in queue order.
    pub fn waiting(&self) -> impl Iterator<Item = (&Key, u32)> + '_ {
        self.queue.iter()
    }

    /// How many seats there are.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// How many seats are taken, held seats included: a held seat is not free (SRV-18).
    #[must_use]
    pub fn occupied_count(&self) -> usize {
        self.slots.occupied_count()
    }

    /// Whether every seat is taken (held seats included).
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.occupied_count() >= self.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- Seating and SeatTable ----

    #[test]
    fn seating_index_and_freshness() {
        assert_eq!(Seating::Fresh(2).index(), Some(2));
        assert_eq!(Seating::Existing(3).index(), Some(3));
        assert_eq!(Seating::Full.index(), None);
        assert!(Seating::Fresh(0).is_fresh());
        assert!(!Seating::Existing(0).is_fresh());
        assert!(!Seating::Full.is_fresh());
    }

    #[test]
    fn a_new_key_is_fresh_and_a_seated_key_is_existing() {
        // SRV-17.
        let mut table = SeatTable::new(2);
        assert_eq!(table.seat("a"), Seating::Fresh(0));
        assert_eq!(table.seat("a"), Seating::Existing(0));
        assert_eq!(table.seat("b"), Seating::Fresh(1));
        assert_eq!(table.seat("c"), Seating::Full);
        assert!(table.is_full());
    }

    #[test]
    fn a_reused_seat_is_fresh_for_its_new_occupant() {
        // SRV-17.
        let mut table = SeatTable::new(1);
        table.seat("a");
        table.unseat(&"a");
        assert_eq!(table.seat("b"), Seating::Fresh(0));
    }

    #[test]
    fn unseat_is_idempotent() {
        // SRV-17.
        let mut table = SeatTable::new(2);
        table.seat("a");
        assert_eq!(table.unseat(&"a"), Some(0));
        assert_eq!(table.unseat(&"a"), None);
        assert_eq!(table.seat_of(&"a"), None);
        assert_eq!(table.occupied_count(), 0);
    }

    #[test]
    fn table_views_list_occupants_in_seat_order() {
        let mut table = SeatTable::new(3);
        table.seat("a");
        table.seat("b");
        table.seat("c");
        table.unseat(&"b");
        assert_eq!(
            table.occupants().collect::<Vec<_>>(),
            [(0, &"a"), (2, &"c")]
        );
        assert_eq!(table.keys().collect::<Vec<_>>(), [&"a", &"c"]);
        assert_eq!(table.by_seat(), HashMap::from([(0, "a"), (2, "c")]));
        assert_eq!(table.capacity(), 3);
        assert_eq!(table.seat_of(&"c"), Some(2));
        assert!(!table.is_full());
        table.clear();
        assert_eq!(table.occupied_count(), 0);
        assert_eq!(table.seat("z"), Seating::Fresh(0));
    }

    #[test]
    fn reseat_all_drops_who_does_not_fit_and_returns_the_rest() {
        let mut table = SeatTable::new(4);
        for key in ["a", "b", "c", "d"] {
            table.seat(key);
        }
        table.unseat(&"b");
        let reseated = table.reseat_all(2);
        // a keeps seat 0, c moves into the free seat 1, d does not fit.
        assert_eq!(reseated, [("a", 0), ("c", 1)]);
        assert_eq!(table.seat_of(&"d"), None);
        assert_eq!(table.capacity(), 2);
        assert!(table.is_full());
        let grown = table.reseat_all(5);
        assert_eq!(grown, [("a", 0), ("c", 1)]);
        assert_eq!(table.seat("e"), Seating::Fresh(2));
    }

    #[test]
    fn a_zero_capacity_table_is_always_full() {
        let mut table = SeatTable::new(0);
        assert_eq!(table.seat(1), Seating::Full);
        assert!(table.is_full());
    }

    #[test]
    fn huge_capacities_cost_nothing() {
        let mut table = SeatTable::new(usize::MAX);
        assert_eq!(table.seat("a"), Seating::Fresh(0));
        assert!(!table.is_full());
        assert_eq!(table.reseat_all(usize::MAX), [("a", 0)]);
        let mut slots = SeatSlots::new(usize::MAX);
        assert!(slots.seat("a", usize::MAX - 1));
        assert_eq!(slots.first_open(), Some(0));
        let mut roster = Roster::new(usize::MAX).with_waitlist();
        roster.admit_ranked("bot", 1);
        roster.admit("ann");
        assert!(roster.resolve().is_empty());
        assert_eq!(roster.seat_of(&"ann"), Some(1));
    }

    #[test]
    fn the_lowest_free_seat_fills_gaps_first() {
        // SRV-17.
        let mut table = SeatTable::new(4);
        for key in ["a", "b", "c"] {
            table.seat(key);
        }
        table.unseat(&"a");
        table.unseat(&"c");
        assert_eq!(table.seat("d"), Seating::Fresh(0));
        assert_eq!(table.seat("e"), Seating::Fresh(2));
        assert_eq!(table.seat("f"), Seating::Fresh(3));
        assert_eq!(table.seat("g"), Seating::Full);
    }

    // ---- SeatSlots ----

    #[test]
    fn slots_move_between_open_human_and_held() {
        let mut slots = SeatSlots::new(2);
        assert_eq!(slots.first_open(), Some(0));
        assert!(slots.seat("a", 0));
        assert_eq!(slots.state(0), SeatState::Human(&"a"));
        assert_eq!(slots.hold(&"a"), Some(0));
        assert!(slots.is_held(&"a"));
        assert_eq!(slots.state(0), SeatState::Held(&"a"));
        assert_eq!(slots.hold(&"a"), None, "already held");
        assert_eq!(slots.resume(&"a"), Some(0));
        assert_eq!(slots.resume(&"a"), None, "not held");
        assert_eq!(slots.open(&"a"), Some(0));
        assert_eq!(slots.open(&"a"), None);
        assert_eq!(slots.state(0), SeatState::Open);
        assert_eq!(slots.hold(&"zz"), None);
    }

    #[test]
    fn slots_seat_only_into_an_open_seat() {
        let mut slots = SeatSlots::new(2);
        assert!(slots.seat("a", 1));
        assert!(!slots.seat("b", 1), "taken");
        assert!(!slots.seat("b", 7), "out of range");
        assert!(!slots.seat("a", 0), "already seated");
        assert_eq!(slots.first_open(), Some(0));
        assert_eq!(slots.state(7), SeatState::Open);
        assert_eq!(slots.capacity(), 2);
        slots.hold(&"a");
        assert_eq!(slots.occupied_count(), 1, "held counts as occupied");
        assert_eq!(slots.seat_of(&"a"), Some(1));
    }

    // ---- RankedQueue ----

    #[test]
    fn ranked_queue_orders_by_rank_then_arrival() {
        let mut queue = RankedQueue::new();
        assert_eq!(queue.push("bot1", 1), 0);
        assert_eq!(queue.push("bot2", 1), 1);
        assert_eq!(queue.push("ann", 0), 0);
        assert_eq!(queue.push("bob", 0), 1);
        assert_eq!(
            queue.iter().collect::<Vec<_>>(),
            [(&"ann", 0), (&"bob", 0), (&"bot1", 1), (&"bot2", 1)]
        );
        assert_eq!(queue.position(&"bot1"), Some(2));
        assert_eq!(queue.best(), Some((&"ann", 0)));
        assert_eq!(queue.pop_best(), Some(("ann", 0)));
        assert_eq!(queue.len(), 3);
    }

    #[test]
    fn ranked_queue_removes_by_membership_and_requeues_on_push() {
        let mut queue = RankedQueue::new();
        queue.push("a", 0);
        queue.push("b", 0);
        queue.push("c", 0);
        assert!(queue.remove(&"b"));
        assert!(!queue.remove(&"b"));
        assert_eq!(queue.push("a", 0), 1, "requeued at the tail of its band");
        assert_eq!(queue.rank_of(&"a"), Some(0));
        assert_eq!(queue.len(), 2);
        queue.pop_best();
        queue.pop_best();
        assert!(queue.is_empty());
        assert_eq!(queue.pop_best(), None);
        assert_eq!(queue.best(), None);
    }

    // ---- Roster ----

    #[test]
    fn plain_roster_seats_fresh_then_turns_away_when_full() {
        // SRV-17.
        let mut roster = Roster::new(1);
        assert_eq!(
            roster.admit("a"),
            Admission::Seated {
                seat: 0,
                fresh: true
            }
        );
        assert_eq!(
            roster.admit("a"),
            Admission::Seated {
                seat: 0,
                fresh: false
            }
        );
        assert_eq!(roster.admit("b"), Admission::Turned(Turnaway::Full));
        assert_eq!(roster.depart(&"a"), Departure::Freed { seat: 0 });
        assert_eq!(roster.depart(&"a"), Departure::NotPresent);
        assert_eq!(
            roster.admit("b"),
            Admission::Seated {
                seat: 0,
                fresh: true
            }
        );
    }

    #[test]
    fn a_locked_roster_turns_away_or_queues_whatever_the_free_count() {
        let mut roster = Roster::new(4);
        roster.lock();
        assert!(roster.is_locked());
        assert_eq!(roster.admit("a"), Admission::Turned(Turnaway::Locked));
        let mut waiting = Roster::new(4).with_waitlist();
        waiting.lock();
        assert_eq!(waiting.admit("a"), Admission::Waitlisted { position: 0 });
        assert!(
            waiting.resolve().is_empty(),
            "resolve is a no-op while locked"
        );
        waiting.unlock();
        assert_eq!(waiting.resolve(), [Shuffle::Promoted { key: "a", seat: 0 }]);
    }

    #[test]
    fn a_waitlist_queues_turned_away_keys() {
        let mut roster = Roster::new(1).with_waitlist();
        roster.admit("a");
        assert_eq!(roster.admit("b"), Admission::Waitlisted { position: 0 });
        assert_eq!(roster.admit("c"), Admission::Waitlisted { position: 1 });
        assert_eq!(
            roster.admit("b"),
            Admission::Waitlisted { position: 0 },
            "keeps its place"
        );
        assert_eq!(
            roster.waiting().map(|(k, _)| *k).collect::<Vec<_>>(),
            ["b", "c"]
        );
        assert_eq!(roster.depart(&"c"), Departure::Unwaitlisted);
        assert_eq!(roster.depart(&"c"), Departure::NotPresent);
    }

    #[test]
    fn promotion_happens_only_in_resolve() {
        // SRV-18.
        let mut roster = Roster::new(1).with_waitlist();
        roster.admit("a");
        roster.admit("b");
        assert_eq!(roster.depart(&"a"), Departure::Freed { seat: 0 });
        // The freed seat has not reached the waitlist yet.
        assert_eq!(roster.seat_state(0), SeatState::Open);
        assert_eq!(roster.seat_of(&"b"), None);
        // A newcomer does not jump the queue for it either.
        assert_eq!(roster.admit("c"), Admission::Waitlisted { position: 1 });
        assert_eq!(roster.resolve(), [Shuffle::Promoted { key: "b", seat: 0 }]);
        assert_eq!(roster.seat_state(0), SeatState::Human(&"b"));
        assert!(
            roster.resolve().is_empty(),
            "a second resolve has nothing to do"
        );
    }

    #[test]
    fn held_seats_are_kept_until_expire_and_resume_intact() {
        let mut roster = Roster::new(1).holding_seats().with_waitlist();
        roster.admit("a");
        assert_eq!(roster.depart(&"a"), Departure::Held { seat: 0 });
        assert_eq!(
            roster.depart(&"a"),
            Departure::Held { seat: 0 },
            "a repeat reports the hold"
        );
        assert_eq!(roster.occupied_count(), 1, "a held seat is not free");
        assert!(roster.is_full());
        assert_eq!(roster.admit("b"), Admission::Waitlisted { position: 0 });
        assert!(roster.resolve().is_empty());
        assert_eq!(roster.admit("a"), Admission::Resumed { seat: 0 });
        assert_eq!(roster.seat_state(0), SeatState::Human(&"a"));
        assert_eq!(roster.expire(&"a"), None, "not held any more");
        roster.depart(&"a");
        assert_eq!(roster.expire(&"a"), Some(0));
        assert_eq!(roster.expire(&"a"), None);
        assert_eq!(roster.resolve(), [Shuffle::Promoted { key: "b", seat: 0 }]);
    }

    #[test]
    fn a_held_key_resumes_even_while_locked() {
        let mut roster = Roster::new(1).holding_seats();
        roster.admit("a");
        roster.depart(&"a");
        roster.lock();
        assert_eq!(roster.admit("a"), Admission::Resumed { seat: 0 });
    }

    #[test]
    fn a_better_rank_displaces_the_worst_ranked_latest_seat_at_resolve() {
        // SRV-18.
        let mut roster = Roster::new(3);
        roster.admit_ranked("bot0", 1);
        roster.admit_ranked("bot1", 1);
        roster.admit("ann");
        // Full; ann's rank beats the bots, so a person is queued even without a waitlist.
        assert_eq!(roster.admit("bob"), Admission::Waitlisted { position: 0 });
        assert_eq!(
            roster.seat_of(&"bob"),
            None,
            "displacement waits for resolve"
        );
        assert_eq!(
            roster.resolve(),
            [
                Shuffle::Displaced {
                    key: "bot1",
                    seat: 1
                },
                Shuffle::Promoted {
                    key: "bob",
                    seat: 1
                },
            ]
        );
        assert_eq!(roster.waiting().collect::<Vec<_>>(), [(&"bot1", 1)]);
    }

    #[test]
    fn equal_ranks_never_displace_each_other() {
        // SRV-18.
        let mut roster = Roster::new(1).with_waitlist();
        roster.admit_ranked("a", 1);
        roster.admit_ranked("b", 1);
        assert!(roster.resolve().is_empty());
        let mut plain = Roster::new(1);
        plain.admit("a");
        assert_eq!(plain.admit("b"), Admission::Turned(Turnaway::Full));
    }

    #[test]
    fn a_held_seat_is_never_displaced() {
        // SRV-18.
        let mut roster = Roster::new(2).holding_seats();
        roster.admit_ranked("bot0", 1);
        roster.admit_ranked("bot1", 1);
        roster.depart(&"bot1"); // held
        roster.admit("ann");
        assert_eq!(
            roster.resolve(),
            [
                Shuffle::Displaced {
                    key: "bot0",
                    seat: 0
                },
                Shuffle::Promoted {
                    key: "ann",
                    seat: 0
                },
            ]
        );
        // Only a held bot is left to displace, so a person is turned away.
        assert_eq!(roster.admit("bob"), Admission::Turned(Turnaway::Full));
        assert!(roster.resolve().is_empty());
        assert_eq!(roster.seat_state(1), SeatState::Held(&"bot1"));
    }

    #[test]
    fn a_displaced_key_is_requeued_at_the_tail_of_its_band_and_promoted_later() {
        let mut roster = Roster::new(1).with_waitlist();
        roster.admit_ranked("bot", 1);
        roster.admit_ranked("bot_b", 1);
        roster.admit("ann");
        roster.resolve();
        assert_eq!(
            roster.waiting().collect::<Vec<_>>(),
            [(&"bot_b", 1), (&"bot", 1)]
        );
        roster.depart(&"ann");
        assert_eq!(
            roster.resolve(),
            [Shuffle::Promoted {
                key: "bot_b",
                seat: 0
            }]
        );
    }

    #[test]
    fn resolve_promotes_in_queue_order_by_rank() {
        let mut roster = Roster::new(2).with_waitlist();
        roster.lock();
        roster.admit_ranked("bot", 1);
        roster.admit("ann");
        roster.admit("bob");
        roster.unlock();
        assert_eq!(
            roster.resolve(),
            [
                Shuffle::Promoted {
                    key: "ann",
                    seat: 0
                },
                Shuffle::Promoted {
                    key: "bob",
                    seat: 1
                },
            ]
        );
        assert_eq!(roster.waiting().count(), 1);
        assert_eq!(
            roster.seats().collect::<Vec<_>>(),
            [SeatState::Human(&"ann"), SeatState::Human(&"bob")]
        );
        assert_eq!(roster.capacity(), 2);
    }

    #[test]
    fn admit_only_rosters_never_displace() {
        // SRV-18.
        let mut roster = Roster::new(2).with_waitlist();
        for key in 0..6 {
            roster.admit(key);
        }
        for _ in 0..3 {
            assert!(roster.resolve().is_empty());
        }
        assert_eq!(roster.seat_of(&0), Some(0));
        assert_eq!(roster.seat_of(&1), Some(1));
    }

    #[test]
    fn a_waiter_changing_rank_moves_bands() {
        let mut roster = Roster::new(1).with_waitlist();
        roster.admit("a");
        roster.admit_ranked("b", 2);
        roster.admit_ranked("c", 1);
        assert_eq!(
            roster.admit_ranked("b", 0),
            Admission::Waitlisted { position: 0 }
        );
    }
}
