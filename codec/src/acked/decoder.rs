//! The client's AckedDecoder (ACK-29 to ACK-36): each frame applied onto the base it names, the
//! state shown, what changed told against the last frame shown, and the check.
//!
//! The decoder builds no whole state per frame. It keeps one live state, the state of the last
//! frame shown, in a table indexed by entity id ([`LiveState`]), and edits it in place; each held
//! frame keeps the edits that undo it (for every entity it changed, the record the frame before it
//! held). Frames apply in ascending tick, so the held frames form one chain ending at the live
//! state: the state of a held frame B is the live state with the undo edits of every frame after B
//! laid over it, the oldest edit of an entity winning. A frame onto B therefore touches only the
//! entities it names and those edited since B, walked in ascending id a word of 64 ids at a time
//! (`EditWord`); what it overwrites becomes its own undo edits, so a frame that ACK-32 refuses part
//! way is undone and applies entirely or not at all. A warm delivery allocates nothing, and a frame
//! costs its changes and the entities they touch, never the world (the check, once every
//! CHECK_EVERY frames, and a keyframe aside).
//!
//! The rules it enforces are cited where they are enforced: HELD_RING states by tick (ACK-29),
//! stale frames and frames onto a base it does not hold dropped without a word (ACK-30, ACK-31),
//! the report against the last frame shown (ACK-34), each event shown once (ACK-35), the check
//! (ACK-36), and a coded frame's (CODE-3): what its basis is looked up by is read first, the frame
//! dropped as one without its base when its base or its older snapshot is not held, and read
//! against their records, each entity's found through the undo edits of the frames after the
//! held frame, a binary search in each (`HeldBasis`). The designs measured against this one, and
//! why it was kept, are in the repository's `docs/perf/acked-decoder.md`.

use super::{AckedSchema, CodedBasis, DecoderSlot, Inapplicable, StagedFrame, State};
use crate::DecodeError;
use std::collections::VecDeque;
use std::fmt::Debug;

/// What the client's AckedDecoder has done, for meters and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecoderCounters {
    /// Frames applied and shown.
    pub applied: u64,
    /// Frames not newer than the last applied, dropped.
    pub stale: u64,
    /// Frames whose base the decoder does not hold, dropped; and, of a coded schema, frames
    /// whose older snapshot it does not hold (CODE-3: dropped as a frame without its base is,
    /// [`Delivery::UnknownBase`]), also counted in [`Self::unknown_older`].
    pub unknown_base: u64,
    /// Of [`Self::unknown_base`], the coded frames whose base the decoder holds but whose older
    /// snapshot (CODE-2) it does not.
    pub unknown_older: u64,
    /// Frames that did not decode.
    pub undecodable: u64,
    /// Frames that decoded but could not apply onto their base.
    pub inapplicable: u64,
    /// Checks that matched.
    pub checks_passed: u64,
    /// Checks that did not match.
    pub checks_failed: u64,
    /// Events shown.
    pub events_shown: u64,
}

/// What an applied frame changed, told against the last frame shown, not the base.
///
/// ACK-34: the report of a frame (changed, measured and when, gone, tiers) compares with the last
/// frame shown rather than the base, so a pose repeated after it was shown is not a new
/// measurement.
///
/// The decoder owns one report and refills it for every frame it shows (its buffers are
/// reused, so a warm delivery allocates nothing); [`Delivery::Shown`] lends it until the next
/// call. Clone it to keep it.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameReport<E> {
    /// The frame's tick.
    pub tick: u32,
    /// The tick of the frame it applied onto (0 for a keyframe).
    pub base_tick: u32,
    /// Whether it was a keyframe.
    pub keyframe: bool,
    /// Entities whose record differs from the last frame shown (or that it did not hold),
    /// ascending.
    pub changed: Vec<u16>,
    /// Entities with a pose measured since the last frame shown, and the tick it was measured.
    pub measured: Vec<(u16, u32)>,
    /// Entities the last frame shown held and this one does not, ascending.
    pub gone: Vec<u16>,
    /// The tier of each changed entity as the client sees it: whether its pose came full.
    pub tiers: Vec<(u16, bool)>,
    /// The events shown for the first time, with their serials.
    pub events: Vec<(u32, E)>,
    /// The check's verdict, when the frame carried one.
    pub check: Option<bool>,
}

impl<E> FrameReport<E> {
    fn empty() -> Self {
        FrameReport {
            tick: 0,
            base_tick: 0,
            keyframe: false,
            changed: Vec::new(),
            measured: Vec::new(),
            gone: Vec::new(),
            tiers: Vec::new(),
            events: Vec::new(),
            check: None,
        }
    }

    /// Empties the lists, keeping their buffers.
    fn clear(&mut self) {
        self.changed.clear();
        self.measured.clear();
        self.gone.clear();
        self.tiers.clear();
        self.events.clear();
        self.check = None;
    }
}

/// What the decoder did with a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery<'a, E> {
    /// Applied and shown; the report is the decoder's, lent until its next delivery.
    Shown(&'a FrameReport<E>),
    /// Not newer than the last frame applied: dropped, counted.
    Stale {
        /// The frame's tick.
        tick: u32,
    },
    /// Its base is not held, or (a coded frame, CODE-3) its older snapshot: dropped, counted.
    UnknownBase {
        /// The frame's tick.
        tick: u32,
        /// The base it named.
        base_tick: u32,
    },
    /// The bytes are not a frame.
    Undecodable(DecodeError),
    /// A frame that cannot apply onto the base it named.
    Inapplicable {
        /// The frame's tick.
        tick: u32,
        /// Why.
        why: &'static str,
    },
}

/// The most entity ids there are: a u16 on the wire.
const IDS: usize = 1 << 16;

/// The size a table indexed by id grows to so that `eid` fits: a power of two, so that a
/// world that grows an id at a time reallocates a few times, not every frame.
fn table_len(eid: u16) -> usize {
    (usize::from(eid) + 1).next_power_of_two().clamp(64, IDS)
}

/// The state the client shows: every entity's record, in a table indexed by id, so that a
/// frame edits an entity in place, whatever the size of the world. It grows to the largest id
/// it has held (at most 65,536 slots, a u16's ids: the most a hostile server can make it
/// hold). Walking it in ascending id (the check, [`Self::iter`]) visits every slot up to the
/// largest id.
///
/// The table holds the schema's slots ([`AckedSchema::Slot`]), not its records: the records
/// it lends are made from them, by value.
pub struct LiveState<S: AckedSchema> {
    /// Slot `eid` holds the record of the entity `eid`.
    slots: Vec<S::Slot>,
    /// `ids[eid] == eid` for every slot: the ids [`Self::iter`] lends beside the records.
    ids: Vec<u16>,
    len: usize,
}

impl<S: AckedSchema> Clone for LiveState<S> {
    fn clone(&self) -> Self {
        LiveState {
            slots: self.slots.clone(),
            ids: self.ids.clone(),
            len: self.len,
        }
    }
}

impl<S: AckedSchema> Default for LiveState<S> {
    fn default() -> Self {
        LiveState {
            slots: Vec::new(),
            ids: Vec::new(),
            len: 0,
        }
    }
}

impl<S: AckedSchema> LiveState<S> {
    /// The record of `eid`.
    #[inline]
    pub fn get(&self, eid: &u16) -> Option<S::Record> {
        self.slot(*eid).record()
    }

    /// Whether `eid` is held.
    pub fn contains_key(&self, eid: &u16) -> bool {
        self.holds(*eid)
    }

    /// Every entity and its record, ascending by id.
    pub fn iter(&self) -> impl Iterator<Item = (u16, S::Record)> + '_ {
        self.ids
            .iter()
            .zip(&self.slots)
            .filter_map(|(eid, s)| Some((*eid, s.record()?)))
    }

    /// Every id, ascending.
    pub fn keys(&self) -> impl Iterator<Item = u16> + '_ {
        self.held_slots().map(|(eid, _)| eid)
    }

    /// How many entities.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no entity.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The same entities as a [`State`] (a copy).
    pub fn to_state(&self) -> State<S::Record> {
        self.iter().collect()
    }

    /// Every slot that holds an entity, ascending by id.
    fn held_slots(&self) -> impl Iterator<Item = (u16, &S::Slot)> + '_ {
        self.ids
            .iter()
            .zip(&self.slots)
            .filter(|(_, s)| s.holds())
            .map(|(eid, s)| (*eid, s))
    }

    /// The slot of `eid` (an empty one past the table).
    #[inline]
    fn slot(&self, eid: u16) -> S::Slot {
        self.slots
            .get(usize::from(eid))
            .copied()
            .unwrap_or(S::Slot::EMPTY)
    }

    /// Whether slot `eid` holds an entity: [`Self::contains_key`] without the record.
    #[inline]
    fn holds(&self, eid: u16) -> bool {
        self.slots.get(usize::from(eid)).is_some_and(|s| s.holds())
    }

    /// The slot of `eid`, the table grown to hold it.
    #[inline]
    fn slot_mut(&mut self, eid: u16) -> &mut S::Slot {
        let i = usize::from(eid);
        if i >= self.slots.len() {
            let n = table_len(eid);
            self.slots.resize(n, S::Slot::EMPTY);
            // Below 65,536 (`table_len`): u16 ids.
            self.ids.extend((self.ids.len()..n).map(|i| i as u16));
        }
        &mut self.slots[i]
    }

    /// Sets (or with an empty slot clears) the slot of `eid`, returning what it held.
    fn replace(&mut self, eid: u16, slot: S::Slot) -> S::Slot {
        if !slot.holds() && !self.holds(eid) {
            // Past the table nothing is held: clearing is done without growing it.
            return S::Slot::EMPTY;
        }
        let old = std::mem::replace(self.slot_mut(eid), slot);
        self.count(old.holds(), slot.holds());
        old
    }

    /// Keeps `len` (and the test's count of records written) after a slot that held an entity
    /// or not (`held`) came to hold one or not (`holds`).
    #[inline]
    fn count(&mut self, held: bool, holds: bool) {
        if holds {
            super::moves::count(1);
        }
        match (held, holds) {
            (false, true) => self.len += 1,
            (true, false) => self.len -= 1,
            _ => {}
        }
    }

    fn slots_mut(&mut self) -> impl Iterator<Item = (u16, &mut S::Slot)> + '_ {
        self.ids
            .iter()
            .zip(&mut self.slots)
            .filter(|(_, s)| s.holds())
            .map(|(eid, s)| (*eid, s))
    }
}

impl<S: AckedSchema> PartialEq for LiveState<S> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.held_slots().eq(other.held_slots())
    }
}

impl<S: AckedSchema> PartialEq<State<S::Record>> for LiveState<S> {
    fn eq(&self, other: &State<S::Record>) -> bool {
        self.len == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((a, ra), (b, rb))| a == *b && ra == *rb)
    }
}

impl<S: AckedSchema> Debug for LiveState<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The edits that undo one frame: what the frame before it held of every entity it changed
/// (`None` for an entity it did not hold), ascending by id, and which ids those are as a bit
/// set by words of 64 ids.
///
/// The words are what finding a base's records reads: the ids edited since a base are the
/// union of the words of the frames after it, taken a word (64 ids) at a time rather than an
/// id at a time, and the edit of an id in a frame is found by counting the word's bits below
/// it. Most of a frame's edits are of entities the frames around it edit too (a moving body
/// is in every frame), so most words add nothing to the union but one `and`.
#[derive(Debug, Clone)]
struct Undo<T> {
    /// What the frame before held of each edited entity (its slot), in ascending id.
    records: Vec<T>,
    /// The edited ids as words of the bit set over ids, ascending, none zero.
    words: Vec<EditWord>,
}

/// Word `word` of a frame's bit set of edited ids (bit `b`: id `64 word + b`), and how many of
/// the frame's edits come before the word's first.
#[derive(Debug, Clone, Copy)]
struct EditWord {
    bits: u64,
    /// Below 1,024: the ids' u16 over 64.
    word: u16,
    /// Below 65,536: the edits of the words before, each id at most once.
    before: u32,
}

impl<T> Default for Undo<T> {
    fn default() -> Self {
        Undo {
            records: Vec::new(),
            words: Vec::new(),
        }
    }
}

impl<T: Copy> Undo<T> {
    fn clear(&mut self) {
        self.records.clear();
        self.words.clear();
    }

    /// The ids `words` hold, ascending (the order of the records).
    fn ids_of(words: &[EditWord]) -> impl Iterator<Item = u16> + '_ {
        words.iter().flat_map(|e| {
            let mut bits = e.bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as u16;
                    bits &= bits - 1;
                    e.word * 64 + b
                })
            })
        })
    }

    /// Adds the edit of `eid` (which is above every id already edited): what `slot` holds,
    /// copied from it.
    #[inline(always)]
    fn push(&mut self, eid: u16, slot: &T) {
        // At most 65,536 ids, each edited once.
        push_id(&mut self.words, eid, self.records.len() as u32);
        // Copied slot to list, where a value pushed was first written to the stack, then read
        // back whole.
        self.records.extend_from_slice(std::slice::from_ref(slot));
    }

    /// The place among the records of the edit of `eid`, if the frame edited it: a binary
    /// search of the words, then the bits below it counted.
    fn find(&self, eid: u16) -> Option<usize> {
        let (word, bit) = (eid / 64, 1u64 << (eid % 64));
        let e = self.words[self.words.binary_search_by_key(&word, |e| e.word).ok()?];
        (e.bits & bit != 0).then(|| (e.before + (e.bits & (bit - 1)).count_ones()) as usize)
    }

    /// Takes every edit, leaving none.
    fn drain(&mut self) -> impl Iterator<Item = (u16, T)> + '_ {
        let Undo { records, words } = self;
        let ids = Self::ids_of(words);
        ids.zip(records.drain(..))
    }
}

/// Adds `eid`, above every id already there, to the edit words `words`.
#[inline]
fn push_id(words: &mut Vec<EditWord>, eid: u16, before: u32) {
    let (word, bit) = (eid / 64, 1u64 << (eid % 64));
    match words.last_mut() {
        Some(last) if last.word == word => last.bits |= bit,
        _ => words.push(EditWord {
            bits: bit,
            word,
            before,
        }),
    }
}

/// A held frame after the base, as [`apply`]'s walk passes over it word by word: the place of
/// its next edit word not yet reached and that word's index (`usize::MAX` past the last), and
/// the bits of the word being walked (zero when the frame did not edit it), with the number of
/// the frame's edits before them and of those already walked past.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    next: usize,
    word: usize,
    bits: u64,
    before: u32,
    passed: u32,
}

impl Cursor {
    /// A cursor at the first of `words`.
    fn new(words: &[EditWord]) -> Self {
        Cursor {
            next: 0,
            word: words.first().map_or(usize::MAX, |e| usize::from(e.word)),
            bits: 0,
            before: 0,
            passed: 0,
        }
    }

    /// Takes word `w` of `words` when it is the next, else no bits.
    #[inline]
    fn enter(&mut self, w: usize, words: &[EditWord]) {
        self.passed = 0;
        if self.word != w {
            self.bits = 0;
            return;
        }
        if let Some(e) = words.get(self.next) {
            (self.bits, self.before) = (e.bits, e.before);
        }
        self.next += 1;
        self.word = words
            .get(self.next)
            .map_or(usize::MAX, |e| usize::from(e.word));
    }

    /// The place in the frame's edits of the edit of bit `b` of the word (set in `bits`).
    #[inline]
    fn edit(&self, b: u32) -> u32 {
        // `b` is below 64; the bits below it, counted.
        self.before + (self.bits & ((1u64 << b) - 1)).count_ones()
    }
}

/// The decoder's buffers for applying one frame, kept between frames so that a warm delivery
/// allocates nothing.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// One per held frame after the base, oldest first (at most HELD_RING).
    cursors: Vec<Cursor>,
    /// The ids a keyframe's base-less walk passes over (every entity held), as edit words.
    held_ids: Vec<EditWord>,
    /// The frame's removals, ascending.
    removed: Vec<u16>,
    /// What the walk reads of each changed entity's slot before it starts, kept so that the
    /// reads are (never read itself). In the bench the other protocols run between two
    /// deliveries and leave the decoder's tables out of cache; read in one tight loop first,
    /// the misses of the changed entities overlap, where the walk would take them one after
    /// another between its work on each.
    primed: u64,
}

/// The rules of ACK-5, ACK-21 and ACK-32 for a frame's removals and changes onto its base (the live
/// state with the undo edits of `held[after_base..]` laid over it, the first of an entity winning;
/// nothing for a keyframe), written into the live state as they are found, each entity once, in
/// ascending id: what each write overwrote goes to `undo`, and `report` is filled against it (the
/// last frame shown). On a fault the writes are undone from `undo`, so that a frame applies
/// entirely or not at all.
///
/// The faults are those of applying the removals one by one, then the changes one by one
/// (`fuzzing::apply_one_by_one`): a removed id the base does not hold (or removed twice) wins
/// over any fault of a change, and of the changes' faults the first in frame order is told.
#[allow(clippy::too_many_arguments)]
fn apply<S: AckedSchema>(
    schema: &S,
    live: &mut LiveState<S>,
    held: &VecDeque<Undo<S::Slot>>,
    after_base: usize,
    frame: &StagedFrame<S>,
    scratch: &mut Scratch,
    undo: &mut Undo<S::Slot>,
    report: &mut FrameReport<S::Event>,
) -> Result<(), Inapplicable> {
    let Scratch {
        cursors,
        held_ids,
        removed,
        primed,
    } = scratch;
    removed.clear();
    cursors.clear();
    held_ids.clear();
    if frame.keyframe {
        // A keyframe applies onto nothing: every entity held goes unless the frame names it.
        if !frame.removed.is_empty() {
            return Err(REMOVED_NOT_HELD);
        }
        for eid in live.keys() {
            push_id(held_ids, eid, 0);
        }
    } else {
        // ACK-5: the entities gone, and those living a new life under their id, are removed (the
        // latter come again whole). The wire does not make the removals ascend; taken one by one,
        // any order of distinct held ids applies, and an id twice is a removal of an id no longer
        // held.
        removed.extend_from_slice(&frame.removed);
        removed.sort_unstable();
        if removed.windows(2).any(|w| w[0] == w[1]) {
            return Err(REMOVED_NOT_HELD);
        }
        // The base's records of the entities edited since: the oldest undo edit of each.
        cursors.extend(held.range(after_base..).map(|h| Cursor::new(&h.words)));
    }
    // The changes before the first out of ascending order: one by one, that one is refused.
    let mut ascending = frame.changes.len();
    let mut last = None;
    for (i, change) in frame.changes.iter().enumerate() {
        let eid = schema.staged_eid(change);
        if last.is_some_and(|l| l >= eid) {
            ascending = i;
            break;
        }
        last = Some(eid);
        *primed = primed.wrapping_add(u64::from(live.holds(eid)));
    }
    let changes = &frame.changes[..ascending];
    let mut walk = Walk::<S> {
        schema,
        live,
        tick: frame.tick,
        removed,
        next_removed: 0,
        fault: None,
        removal_fault: false,
        undo,
        lists: ReportLists::take(report),
    };
    // Frames with no removal and not keyframes (nearly all) take a walk compiled without the
    // removals' and the keyframe's checks.
    let general = frame.keyframe || !walk.removed.is_empty();
    let sources = Sources {
        cursors,
        held,
        after_base,
        changes,
        held_ids,
    };
    if general {
        walk_touched::<S, true>(&mut walk, sources, frame.keyframe);
    } else {
        walk_touched::<S, false>(&mut walk, sources, false);
    }
    let Walk {
        fault,
        removal_fault,
        undo,
        live,
        lists,
        ..
    } = walk;
    lists.put(report);
    let fault = if removal_fault {
        Some(REMOVED_NOT_HELD)
    } else {
        fault.or((ascending < frame.changes.len())
            .then_some(Inapplicable("changes not in ascending id order")))
    };
    match fault {
        None => Ok(()),
        Some(why) => {
            for (eid, old) in undo.drain() {
                live.replace(eid, old);
            }
            undo.clear();
            Err(why)
        }
    }
}

/// Where [`apply`]'s walk finds the touched entities and their bases.
struct Sources<'a, S: AckedSchema> {
    /// One per held frame after the base, oldest first.
    cursors: &'a mut [Cursor],
    held: &'a VecDeque<Undo<S::Slot>>,
    after_base: usize,
    /// The frame's changes, ascending.
    changes: &'a [S::Staged],
    /// For a keyframe, every id held.
    held_ids: &'a [EditWord],
}

/// [`apply`]'s walk of every touched entity, in ascending id. `GENERAL` is false for a frame
/// with no removal that is not a keyframe: then the removals and the keyframe's held ids are
/// not looked at, and the compiler leaves their checks out of the loop.
#[inline(always)]
fn walk_touched<S: AckedSchema, const GENERAL: bool>(
    walk: &mut Walk<'_, S>,
    sources: Sources<'_, S>,
    keyframe: bool,
) {
    // Every entity touched, in ascending id, 64 ids (a word) at a time: those edited since the
    // base (the words of the held frames after it), those removed, those changed, and for a
    // keyframe every one held. Each source ascends, so one cursor into each suffices.
    let Sources {
        cursors,
        held,
        after_base,
        changes,
        held_ids,
    } = sources;
    // The held frames after the base, beside their cursors.
    let after = held.range(after_base..);
    // The undo edits of the frame after the base, where most touched entities' base records are.
    let first_records = held.get(after_base).map_or(&[][..], |u| &u.records[..]);
    let (mut next_change, mut next_removal, mut next_held) = (0, 0, 0);
    loop {
        let word_of = |eid: u16| usize::from(eid / 64);
        let mut w = cursors.iter().map(|c| c.word).min().unwrap_or(usize::MAX);
        if let Some(c) = changes.get(next_change) {
            w = w.min(word_of(walk.schema.staged_eid(c)));
        }
        if GENERAL {
            if let Some(eid) = walk.removed.get(next_removal) {
                w = w.min(word_of(*eid));
            }
            if let Some(e) = held_ids.get(next_held) {
                w = w.min(usize::from(e.word));
            }
        }
        if w == usize::MAX {
            break;
        }
        let mut touched = 0u64;
        for (c, h) in cursors.iter_mut().zip(after.clone()) {
            c.enter(w, &h.words);
            touched |= c.bits;
        }
        if GENERAL {
            if let Some(e) = held_ids.get(next_held).filter(|e| usize::from(e.word) == w) {
                touched |= e.bits;
                next_held += 1;
            }
            while let Some(eid) = walk.removed.get(next_removal).filter(|e| word_of(**e) == w) {
                touched |= 1 << (eid % 64);
                next_removal += 1;
            }
        }
        let first_change = next_change;
        while let Some(c) = changes.get(next_change) {
            let eid = walk.schema.staged_eid(c);
            if word_of(eid) != w {
                break;
            }
            touched |= 1 << (eid % 64);
            next_change += 1;
        }
        let mut named = changes[first_change..next_change].iter();
        while touched != 0 {
            let b = touched.trailing_zeros();
            touched &= touched - 1;
            // Below 65,536: an id of word `w`.
            let eid = (w * 64) as u16 + b as u16;
            // The base's record: in the oldest frame after the base that edited it, else in the
            // live state; none for a keyframe. Every bit of a frame's word is walked, so
            // counting those passed gives each one's edit; the first frame (the one after the
            // base, which edits most of what is touched) is counted so, the others (rarely the
            // source) by a count of their bits below.
            let bit = 1u64 << b;
            let base = match cursors.split_first_mut() {
                _ if GENERAL && keyframe => S::Slot::EMPTY,
                Some((first, _)) if first.bits & bit != 0 => {
                    let edit = first.before + first.passed;
                    first.passed += 1;
                    first_records[edit as usize]
                }
                _ => match cursors.iter().position(|c| c.bits & bit != 0) {
                    Some(j) => held[after_base + j].records[cursors[j].edit(b) as usize],
                    None => walk.live.slot(eid),
                },
            };
            let change = named
                .as_slice()
                .first()
                .filter(|c| walk.schema.staged_eid(c) == eid);
            if change.is_some() {
                named.next();
            }
            walk.visit::<GENERAL>(eid, base, change);
        }
    }
}

/// The walk of [`apply`] over the touched entities in ascending id: what it reads (the live
/// state and the held frames' undo edits, which make the base) and writes (the live state, the
/// frame's undo edits, the report), and the first faults it found.
struct Walk<'a, S: AckedSchema> {
    schema: &'a S,
    live: &'a mut LiveState<S>,
    tick: u32,
    /// The frame's removals, ascending, and the first not yet walked past.
    removed: &'a [u16],
    next_removed: usize,
    /// The first fault of a change.
    fault: Option<Inapplicable>,
    /// A removal of an id the base does not hold (which wins over any change's fault).
    removal_fault: bool,
    undo: &'a mut Undo<S::Slot>,
    /// The report's lists, taken out of it for the walk (and put back after it), so that the
    /// compiler keeps them apart from everything else the walk writes through references.
    lists: ReportLists,
}

/// The lists of a [`FrameReport`] the walk fills.
#[derive(Default)]
struct ReportLists {
    changed: Vec<u16>,
    measured: Vec<(u16, u32)>,
    gone: Vec<u16>,
    tiers: Vec<(u16, bool)>,
}

impl ReportLists {
    fn take<E>(report: &mut FrameReport<E>) -> Self {
        ReportLists {
            changed: std::mem::take(&mut report.changed),
            measured: std::mem::take(&mut report.measured),
            gone: std::mem::take(&mut report.gone),
            tiers: std::mem::take(&mut report.tiers),
        }
    }

    fn put<E>(self, report: &mut FrameReport<E>) {
        report.changed = self.changed;
        report.measured = self.measured;
        report.gone = self.gone;
        report.tiers = self.tiers;
    }
}

impl<S: AckedSchema> Walk<'_, S> {
    /// Entity `eid`, its record at the base `base`, named by `change` or not: its record in
    /// the frame's state, written into the live state (and told in the report) when it differs
    /// from the last frame shown's.
    #[inline(always)]
    fn visit<const GENERAL: bool>(&mut self, eid: u16, base: S::Slot, change: Option<&S::Staged>) {
        super::moves::touch(1);
        if GENERAL && self.removal_fault {
            return;
        }
        let is_removed = GENERAL && self.removed.get(self.next_removed) == Some(&eid);
        if is_removed {
            self.next_removed += 1;
            if !base.holds() {
                self.removal_fault = true;
                return;
            }
        }
        if self.fault.is_some() {
            // A change's fault is told unless a removal's follows: only removals are checked.
            return;
        }
        let next = match change {
            Some(change) => {
                let mut next = if is_removed { S::Slot::EMPTY } else { base };
                // ACK-33: a pose sent with its age is recorded at the tick it was true (the slot's
                // `apply`: tick minus age).
                if let Err(why) = next.apply(self.schema, change, self.tick) {
                    self.fault = Some(why);
                    return;
                }
                next
            }
            None if is_removed => S::Slot::EMPTY,
            // Edited since the base and not named: back to the base's record.
            None => base,
        };
        let holds = next.holds();
        if !holds && !self.live.holds(eid) {
            // Not held and not held again (past the table, without growing it).
            return;
        }
        let live = &mut *self.live;
        let slot = live.slot_mut(eid);
        if *slot == next {
            return;
        }
        let report = &mut self.lists;
        if holds {
            report.changed.push(eid);
            if let Some(m) = next.measured(self.schema) {
                if slot.measured(self.schema) != Some(m) {
                    report.measured.push((eid, m));
                }
            }
            if let Some(full) = next.pose_full(self.schema) {
                report.tiers.push((eid, full));
            }
        } else {
            report.gone.push(eid);
        }
        // What the slot held goes to the undo edits straight from the slot, and the new record
        // straight into it.
        let held = slot.holds();
        self.undo.push(eid, slot);
        *slot = next;
        live.count(held, holds);
    }
}

const REMOVED_NOT_HELD: Inapplicable = Inapplicable("a removed id the base does not hold");

/// The records a coded frame is predicted from (CODE-13, CODE-14) as the decoder holds them:
/// those of its base and of its older snapshot, each a held frame B given by the place in
/// `held` after it (`None`: no such frame, no records). B's record of an entity is the live
/// state's with the undo edits of the frames after B laid over it, the oldest that edited the
/// entity winning: a lookup costs a binary search in each frame after B (at most HELD_RING),
/// never a walk of the world.
struct HeldBasis<'a, S: AckedSchema> {
    live: &'a LiveState<S>,
    held: &'a VecDeque<Undo<S::Slot>>,
    base: Option<usize>,
    older: Option<usize>,
}

impl<S: AckedSchema> HeldBasis<'_, S> {
    fn at(&self, after: Option<usize>, eid: u16) -> Option<S::Record> {
        let after = after?;
        let mut probed = 1;
        let edited = self.held.range(after..).find_map(|h| {
            probed += 1;
            h.find(eid).and_then(|i| h.records.get(i).copied())
        });
        super::moves::probe(probed);
        edited.unwrap_or_else(|| self.live.slot(eid)).record()
    }
}

impl<S: AckedSchema> CodedBasis<S::Record> for HeldBasis<'_, S> {
    fn base(&self, eid: u16) -> Option<S::Record> {
        self.at(self.base, eid)
    }

    fn older(&self, eid: u16) -> Option<S::Record> {
        self.at(self.older, eid)
    }

    /// Both records in one walk of the held frames after the older of the two: a frame's
    /// undo edit of the entity answers each frame before it not answered yet, the live state
    /// what none answers. The same records as `base` and `older`, for one search of each.
    fn records(&self, eid: u16, older: bool) -> (Option<S::Record>, Option<S::Record>) {
        let wanted = [self.base, self.older.filter(|_| older)];
        let Some(start) = wanted.iter().flatten().copied().min() else {
            return (None, None);
        };
        let mut found: [Option<S::Slot>; 2] = [None; 2];
        let mut probed = 1;
        for (j, h) in (start..).zip(self.held.range(start..)) {
            let open = |w: &Option<usize>, f: &Option<_>| w.is_some() && f.is_none();
            if !wanted.iter().zip(&found).any(|(w, f)| open(w, f)) {
                break;
            }
            probed += 1;
            if let Some(slot) = h.find(eid).and_then(|i| h.records.get(i).copied()) {
                for (w, f) in wanted.iter().zip(&mut found) {
                    if f.is_none() && w.is_some_and(|w| j >= w) {
                        *f = Some(slot);
                    }
                }
            }
        }
        super::moves::probe(probed);
        let [b, o] = [0, 1].map(|n| {
            wanted[n]?;
            found[n].unwrap_or_else(|| self.live.slot(eid)).record()
        });
        (b, o)
    }
}

/// FNV-1a of every record of `state` in ascending id (CHECK-2), hashed from the slots without
/// writing the records out.
fn live_check<S: AckedSchema>(schema: &S, state: &LiveState<S>) -> u32 {
    state
        .held_slots()
        .fold(crate::rt::Fnv1a32::new(), |h, (eid, slot)| {
            slot.hash(schema, h, eid)
        })
        .finish()
}

/// The client's half of the acked stream (ACK-29 to ACK-36): holds the states of its last HELD_RING
/// frames by tick, applies each frame onto the base it names, shows each event once.
///
/// Feed it every kind 6 frame with [`deliver`](Self::deliver); after each, answer with a kind 7
/// frame acknowledging [`ack_tick`](Self::ack_tick) (see [`super::AckWriter`]). It never
/// panics and never grows past HELD_RING states, whatever it is fed. Once warm (its buffers
/// grown to the world and the frames it is fed), a delivery allocates nothing. See the module
/// documentation for how the states are kept.
#[derive(Debug, Clone)]
pub struct AckedDecoder<S: AckedSchema> {
    /// The schema: how frames decode and changes apply, and the session constants.
    schema: S,
    /// The state of the last frame shown, edited in place by every frame applied.
    live: LiveState<S>,
    /// The tick of the last frame shown.
    shown: Option<u32>,
    /// ACK-29: the client holds the states of its last HELD_RING applied frames, by tick, oldest
    /// first, each as the edits that undo it. When any is held, the newest is the frame shown (the
    /// live state).
    held: VecDeque<Undo<S::Slot>>,
    /// The tick of each held frame, kept apart for the search for a base: a held frame's entry
    /// spans most of a cache line, the ticks of all of them one line.
    ticks: VecDeque<u32>,
    /// Undo buffers of frames no longer held, for the next frames to reuse.
    spare: Vec<Undo<S::Slot>>,
    /// The frame being delivered, decoded into the buffers of the one before.
    frame: StagedFrame<S>,
    scratch: Scratch,
    report: FrameReport<S::Event>,
    newest_serial: Option<u32>,
    keyframe_wanted: bool,
    last_seq: u32,
    input_buffer: u8,
    counters: DecoderCounters,
}

impl<S: AckedSchema + Default> Default for AckedDecoder<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: AckedSchema + Default> AckedDecoder<S> {
    /// A decoder of the schema's default value that holds nothing and has shown nothing.
    pub fn new() -> Self {
        Self::with_schema(S::default())
    }
}

impl<S: AckedSchema> AckedDecoder<S> {
    /// A decoder of `schema` that holds nothing and has shown nothing.
    pub fn with_schema(schema: S) -> Self {
        Self {
            schema,
            live: LiveState::default(),
            shown: None,
            held: VecDeque::new(),
            ticks: VecDeque::new(),
            spare: Vec::new(),
            frame: super::AckedFrame::empty(),
            scratch: Scratch::default(),
            report: FrameReport::empty(),
            newest_serial: None,
            keyframe_wanted: false,
            last_seq: 0,
            input_buffer: 0,
            counters: DecoderCounters::default(),
        }
    }

    /// The schema it decodes.
    pub fn schema(&self) -> &S {
        &self.schema
    }

    /// Takes one frame's bytes.
    pub fn deliver(&mut self, bytes: &[u8]) -> Delivery<'_, S::Event> {
        let after_base = if self.schema.coded() {
            match self.read_coded(bytes) {
                Ok(after_base) => after_base,
                Err(dropped) => return dropped,
            }
        } else {
            if let Err(e) = self.schema.decode_staged(bytes, &mut self.frame) {
                self.counters.undecodable += 1;
                return Delivery::Undecodable(e);
            }
            let frame = &self.frame;
            // ACK-31: a frame not newer than the last one applied is stale, and dropped.
            if self.shown.is_some_and(|t| frame.tick <= t) {
                self.counters.stale += 1;
                return Delivery::Stale { tick: frame.tick };
            }
            // ACK-30: a frame onto a base the client no longer holds (or never had) is dropped
            // silently; a later frame, on a newer acknowledgement, follows. While a keyframe is
            // wanted the decoder holds nothing, so only a keyframe applies.
            if frame.keyframe {
                self.held.len()
            } else {
                match self.after(frame.base_tick) {
                    Some(after_base) => after_base,
                    None => {
                        self.counters.unknown_base += 1;
                        return Delivery::UnknownBase {
                            tick: frame.tick,
                            base_tick: frame.base_tick,
                        };
                    }
                }
            }
        };
        let frame = &self.frame;
        let mut undo = self.spare.pop().unwrap_or_default();
        undo.clear();
        let report = &mut self.report;
        report.clear();
        report.tick = frame.tick;
        report.base_tick = frame.base_tick;
        report.keyframe = frame.keyframe;
        let applied = apply(
            &self.schema,
            &mut self.live,
            &self.held,
            after_base,
            frame,
            &mut self.scratch,
            &mut undo,
            report,
        );
        if let Err(why) = applied {
            self.spare.push(undo);
            self.counters.inapplicable += 1;
            return Delivery::Inapplicable {
                tick: frame.tick,
                why: why.0,
            };
        }
        // ACK-35: each event is shown once, only when its serial is above the newest shown.
        for (i, event) in frame.events.iter().enumerate() {
            // ACK-9: modulo 2^32, as the server numbers them: `i` is below 256 (a u8
            // count on the wire), so the narrowing is exact and a first_serial near u32::MAX
            // wraps rather than panics.
            let serial = frame.first_serial.wrapping_add(i as u32);
            if self.newest_serial.is_none_or(|n| serial > n) {
                self.newest_serial = Some(serial);
                self.counters.events_shown += 1;
                report.events.push((serial, event.clone()));
            }
        }
        let frame = &self.frame;
        // ACK-36: a frame that carries a check is held to the check (CHECK-2) of the state it
        // produces.
        let check = frame
            .check
            .map(|c| live_check(&self.schema, &self.live) == c);
        match check {
            Some(true) => self.counters.checks_passed += 1,
            Some(false) => self.counters.checks_failed += 1,
            None => {}
        }
        self.report.check = check;
        self.counters.applied += 1;
        self.last_seq = frame.last_seq;
        self.input_buffer = frame.input_buffer;
        self.shown = Some(frame.tick);
        if check == Some(false) {
            // ACK-36: a mismatch: every state held may be wrong. Hold nothing, acknowledge nothing
            // and ask for a keyframe (AckFlags::KEYFRAME_REQUEST, acked.wire) until one applies.
            self.keyframe_wanted = true;
            self.spare.extend(self.held.drain(..));
            self.ticks.clear();
            self.spare.push(undo);
        } else {
            if frame.keyframe {
                self.keyframe_wanted = false;
            }
            if self.keyframe_wanted {
                self.spare.push(undo);
            } else {
                if self.held.len() >= self.schema.held_ring() {
                    // The oldest held frame's edits lead to a frame no longer held.
                    if let Some(old) = self.held.pop_front() {
                        self.spare.push(old);
                    }
                    self.ticks.pop_front();
                }
                self.held.push_back(undo);
                self.ticks.push_back(frame.tick);
            }
        }
        Delivery::Shown(&self.report)
    }

    /// The place in `held` after the held frame of tick `tick`, if it is held. Searched from the
    /// newest: a base is a recent frame.
    #[inline]
    fn after(&self, tick: u32) -> Option<usize> {
        self.ticks.iter().rposition(|&t| t == tick).map(|i| i + 1)
    }

    /// A coded frame (CODE-2, CODE-3) up to its application: what its basis is looked up by read
    /// first, then, unless it is stale (ACK-31) or its base or its older snapshot is not held
    /// (dropped as ACK-30 drops a frame without its base, before its changes are read), the
    /// frame decoded into `self.frame` against the records of both as the decoder holds them
    /// ([`HeldBasis`]). The place in `held` after its base, or why it goes no further.
    fn read_coded<'r>(&mut self, bytes: &[u8]) -> Result<usize, Delivery<'r, S::Event>> {
        let ticks = match self.schema.read_basis(bytes) {
            Ok(ticks) => ticks,
            Err(e) => {
                self.counters.undecodable += 1;
                return Err(Delivery::Undecodable(e));
            }
        };
        if self.shown.is_some_and(|t| ticks.tick <= t) {
            self.counters.stale += 1;
            return Err(Delivery::Stale { tick: ticks.tick });
        }
        let unknown = Delivery::UnknownBase {
            tick: ticks.tick,
            base_tick: ticks.base_tick,
        };
        let (base, older) = if ticks.keyframe {
            // CODE-2: a keyframe names no older snapshot (the schema refuses one that does).
            (None, None)
        } else {
            let Some(base) = self.after(ticks.base_tick) else {
                self.counters.unknown_base += 1;
                return Err(unknown);
            };
            let older = match ticks.older {
                0 => None,
                d => {
                    // Before tick 0 the server sent nothing, so nothing there is held.
                    let older = ticks
                        .base_tick
                        .checked_sub(u32::from(d))
                        .and_then(|t| self.after(t));
                    if older.is_none() {
                        self.counters.unknown_base += 1;
                        self.counters.unknown_older += 1;
                        return Err(unknown);
                    }
                    older
                }
            };
            (Some(base), older)
        };
        let basis = HeldBasis {
            live: &self.live,
            held: &self.held,
            base,
            older,
        };
        let read = self.schema.decode_staged_on(bytes, &basis, &mut self.frame);
        let f = &self.frame;
        let read = read.and_then(|()| {
            // The frame must be the one its prefix said, or it would apply onto another base
            // than the one it was read against.
            let same =
                (f.tick, f.base_tick, f.keyframe) == (ticks.tick, ticks.base_tick, ticks.keyframe);
            same.then_some(()).ok_or_else(|| {
                DecodeError::new(crate::ErrorKind::InvalidCondition, 0).field("base_tick")
            })
        });
        if let Err(e) = read {
            self.counters.undecodable += 1;
            return Err(Delivery::Undecodable(e));
        }
        Ok(base.unwrap_or(self.held.len()))
    }

    /// The tick of the newest frame applied, which the next kind 7 frame acknowledges; 0
    /// before the first and while a keyframe is wanted ("acknowledges nothing until one
    /// arrives", AckFlags::KEYFRAME_REQUEST in acked.wire).
    pub fn ack_tick(&self) -> u32 {
        if self.keyframe_wanted {
            return 0;
        }
        self.shown.unwrap_or(0)
    }

    /// Whether a check failed and no keyframe has applied since: the next kind 7 frames set
    /// KEYFRAME_REQUEST.
    pub fn keyframe_wanted(&self) -> bool {
        self.keyframe_wanted
    }

    /// The last frame shown: its tick and state.
    pub fn shown(&self) -> Option<(u32, &LiveState<S>)> {
        self.shown.map(|t| (t, &self.live))
    }

    /// The check of the state shown (of an empty state before the first frame).
    pub fn state_hash(&self) -> u32 {
        live_check(&self.schema, &self.live)
    }

    /// The newest input sequence the server said it processed (`last_seq` of the last frame
    /// applied).
    pub fn last_seq(&self) -> u32 {
        self.last_seq
    }

    /// How many inputs the server said it holds (`input_buffer` of the last frame applied).
    pub fn input_buffer(&self) -> u8 {
        self.input_buffer
    }

    /// How many frame states are held.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// What the decoder has done.
    pub fn counters(&self) -> DecoderCounters {
        self.counters
    }

    /// Changes every record the decoder holds and shows through `f`: a memory corruption, for
    /// tests and the conformance scenario that the check must catch.
    pub fn tamper(&mut self, mut f: impl FnMut(u16, &mut S::Record)) {
        // Every held state is the live state with undo edits laid over it: changing every
        // record of both changes every record of every held state, each once.
        let mut f = |eid: u16, slot: &mut S::Slot| {
            if let Some(mut r) = slot.record() {
                f(eid, &mut r);
                *slot = S::Slot::of(Some(&r));
            }
        };
        for (eid, slot) in self.live.slots_mut() {
            f(eid, slot);
        }
        for undo in &mut self.held {
            let Undo { records, words } = undo;
            for (eid, slot) in Undo::<S::Slot>::ids_of(words).zip(records) {
                f(eid, slot);
            }
        }
    }
}
