//! Acked snapshots (`docs/spec/acked.md`), both halves and the model they share: the state S_N, the
//! delta that turns one state into another, the ordered deltas (the reference the acked stream is
//! held to), the server's per-client [`AckedEncoder`] and the reference [`Presenter`] that computes
//! each client's S_N, the client's [`AckedDecoder`] and its kind 7 writer ([`AckWriter`]), and a
//! [`harness`] that drives the whole stream under loss, duplication and reordering.
//!
//! | rules of `docs/spec/acked.md` | here | side |
//! | --- | --- | --- |
//! | S_N, S_B and the delta between them (ACK-17, ACK-19, ACK-21, CHECK-2) | [`ServerState`], [`State`], [`delta`], [`apply_frame`], [`state_check`] | both |
//! | the ordered deltas (ACK-37) | [`OrderedEncoder`], [`OrderedDecoder`] | both: the reference |
//! | what an ordered client would hold after frame N (ACK-17, ACK-18) | [`Presenter`], [`ViewConfig`] | server |
//! | what changed in the world, and so in S_N (the change-driven server half) | [`WorldChanges`], [`Groups`], [`Edit`] | server |
//! | SENT_RING frames, base or keyframe, events, check, RELIABLE_ABOVE (ACK-19 to ACK-28) | [`AckedEncoder`], [`Outgoing`] | server |
//! | the client's AckedDecoder (ACK-29 to ACK-36) | [`AckedDecoder`] | client |
//! | the ack of its input frames, kind 7 (ACK-10 to ACK-13) | [`AckWriter`] | client |
//! | the same frames bit-packed, kind 12 (ACK-14 to ACK-16) | [`PackedReference`] | both |
//! | the same frames range-coded, kind 13 (`docs/spec/coded.md`) | [`CodedReference`] | both |
//! | a coded frame's older snapshot and the records it is predicted from (CODE-2, CODE-3) | [`AckedSchema::coded`], [`CodedBasis`], [`AckedEncoder`], [`AckedDecoder`] | both |
//! | the schemas' binding, generated from `state Reference` | [`Reference`], [`PackedReference`], [`StagedChange`], [`EntityStateSlot`] | both |
//!
//! What the server half needs of the server primitives is reached without depending on
//! `ackwire-server`, which the codec never does (a browser or native client needs it and must
//! not inherit a server): the encoder hands the client's inputs to an [`InputSink`] (the
//! server's input schedule implements it, `ackwire_server::acked::ScheduledInputs`), and the
//! presenter's near tier is a [`TierBoundary`](crate::tier::TierBoundary), plain data that
//! `ackwire_server::relevance` re-exports. `ackwire_server::acked` re-exports all of it.
//!
//! Everything is generic over an [`AckedSchema`]: the entity record a state holds, how two
//! records differ as a change, how a change applies, the record's canonical bytes, the events
//! and inputs. The schemas are generated from a `state` declared in a layout file
//! (spec/LANGUAGE.md, "Replicated state"; `ackwire_spec::Builder::acked_machines`):
//! [`Reference`] and [`PackedReference`] from `state Reference` in
//! `spec/protocol/acked.wire`, a game's from its own; [`wire`] holds what they call. What is
//! policy (who sees which entity at which tier) is the [`Presenter`]'s, written by hand.
//!
//! Sans-IO: ticks are arguments, nothing reads a clock or opens a socket.

mod ack;
mod decoder;
mod encoder;
pub mod harness;
mod ordered;
mod paged;
mod presenter;
pub mod wire;

pub use crate::protocol::{
    CodedReference, EntityStateSlot, PackedReference, Reference, StagedChange, POSE_REACH,
};
pub use ack::AckWriter;
pub use decoder::{AckedDecoder, DecoderCounters, Delivery, FrameReport, LiveState};
pub use encoder::{
    AckVerdict, AckedEncoder, EncoderCounters, InputSink, Outgoing, MAX_BUFFERED_INPUTS,
};
pub use ordered::{OrderedDecoder, OrderedEncoder};
pub use presenter::{
    Groups, Presenter, ViewConfig, World, WorldChanges, WorldEntity, POSE_REFRESH,
};

pub use crate::rt::coded::{CodedBasis, CodedBasisTicks, NoBasis};
use crate::{DecodeError, EncodeError, ErrorKind};
use std::fmt::Debug;

/// One entity of a server-side state: the record, and the life it belongs to. An id whose life
/// changed is, to the client, an entity gone and another one come whole (ACK-5: removed, then whole
/// again).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<R> {
    /// Which life of the id this is; the server bumps it on every spawn under the id.
    pub life: u32,
    /// What the client is to hold of the entity.
    pub record: R,
}

/// S_N as the server computes it for one client: every entity's record, by id, with its life.
pub type ServerState<R> = IdMap<Entry<R>>;

/// What one entity became in a client's S_N against the S_N before: its entry, or `None` when
/// it left. A tick's edits, ascending by id, are what the change-driven server half hands
/// [`AckedEncoder::encode_edits`] (the [`Presenter`] makes them with
/// [`Presenter::present_changes`]).
pub type Edit<R> = (u16, Option<Entry<R>>);

/// A state as a client holds and shows it: every entity's record, by id.
pub type State<R> = IdMap<R>;

/// A map from entity id to `V`, kept as a vector in ascending id rather than a tree: both
/// sides build or copy a whole state every tick and walk states in id order (diffing against
/// a base, applying a frame, checking, reporting), so copying and walking are what must be
/// cheap. Lookups are binary searches; an insertion out of order shifts the entries after it.
///
/// The entries are shared: a clone is a reference count, and a change to a shared map copies
/// it first (one copy of the vector, no allocation per entity). The presenter's whole-state
/// path keeps the S_N it hands the encoder without copies. (Neither the change-driven server
/// half nor the AckedDecoder keeps a whole state per frame: see [`AckedEncoder`] and
/// [`LiveState`].)
///
/// A map may also carry a note of the ids whose value differs from the map it was computed
/// from (the [`Presenter`] notes them on each S_N against the one before): the
/// [`AckedEncoder`] reads only those ids, not the world, when the maps its base leads through
/// are the ones it kept. Any change to the map drops the note; equality ignores it.
#[derive(Clone)]
pub struct IdMap<V> {
    entries: std::sync::Arc<Vec<(u16, V)>>,
    since: Option<std::sync::Arc<Since<V>>>,
}

/// The ids whose value differs, came or went (and possibly more), ascending, between the map
/// `from` held and the one the note is on. `from` is weak: it keeps no entries alive, and while
/// its allocation lives (a weak reference keeps it) no other map can take its address.
struct Since<V> {
    from: std::sync::Weak<Vec<(u16, V)>>,
    changed: Vec<u16>,
}

impl<V: PartialEq> PartialEq for IdMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl<V: Debug> Debug for IdMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> IdMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        IdMap {
            entries: std::sync::Arc::new(Vec::new()),
            since: None,
        }
    }

    /// This map, noted as differing from `from` at most at the ids `changed` (ascending, each
    /// once, with every id whose value differs, came or went).
    pub(crate) fn noted_since(mut self, from: &IdMap<V>, changed: Vec<u16>) -> Self {
        debug_assert!(
            changed.windows(2).all(|w| w[0] < w[1]),
            "ascending, each once"
        );
        self.since = Some(std::sync::Arc::new(Since {
            from: std::sync::Arc::downgrade(&from.entries),
            changed,
        }));
        self
    }

    /// The ids at which this map may differ from `from`, when known without comparing the
    /// two: none when both share their entries, the note when it was taken against `from`.
    pub(crate) fn changed_since(&self, from: &IdMap<V>) -> Option<&[u16]> {
        if std::sync::Arc::ptr_eq(&self.entries, &from.entries) {
            return Some(&[]);
        }
        let since = self.since.as_deref()?;
        std::ptr::eq(since.from.as_ptr(), std::sync::Arc::as_ptr(&from.entries))
            .then_some(&since.changed[..])
    }

    fn index(&self, eid: u16) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&eid, |(e, _)| *e)
    }

    /// The value of `eid`.
    pub fn get(&self, eid: &u16) -> Option<&V> {
        self.index(*eid).ok().map(|i| &self.entries[i].1)
    }

    /// Whether `eid` has a value.
    pub fn contains_key(&self, eid: &u16) -> bool {
        self.index(*eid).is_ok()
    }

    /// Every entry, ascending by id.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&u16, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(eid, v)| (eid, v))
    }

    /// Every id, ascending.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &u16> + ExactSizeIterator {
        self.entries.iter().map(|(eid, _)| eid)
    }

    /// How many entities.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no entity.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The heap its entries and its note take: their vectors at capacity and the two shared
    /// blocks' counts. Maps that share entries each count them ([`heap_bytes`] counts them once).
    pub fn heap_bytes(&self) -> usize {
        const SHARED: usize = 2 * std::mem::size_of::<usize>();
        let entries = SHARED + self.entries.capacity() * std::mem::size_of::<(u16, V)>();
        let note = self.since.as_ref().map_or(0, |s| {
            SHARED + std::mem::size_of::<Since<V>>() + s.changed.capacity() * 2
        });
        entries + note
    }

    /// Where its entries live, to count maps that share them once.
    fn entries_at(&self) -> *const Vec<(u16, V)> {
        std::sync::Arc::as_ptr(&self.entries)
    }
}

/// The heap one client's acked server half holds: its [`Presenter`]'s knowledge of each entity,
/// its queues and its last whole S_N (if it presents whole states), and its [`AckedEncoder`]'s
/// live state, what its kept frames' edits replaced, its events and the last whole S_N handed
/// to it (not the input sink's, which is the sink's own), each whole S_N counted once however
/// many share it.
/// The memory per client a server pays, which `ackwire bench` reports and
/// `codec/tests/acked_alloc.rs` holds to the allocator's count.
pub fn heap_bytes<S: AckedSchema<Record = crate::protocol::EntityState>, Q: InputSink>(
    presenter: &Presenter,
    encoder: &AckedEncoder<S, Q>,
) -> usize {
    let mut seen: Vec<*const Vec<(u16, Entry<crate::protocol::EntityState>)>> = Vec::new();
    let mut total = presenter.own_heap_bytes() + encoder.own_heap_bytes();
    for state in std::iter::once(presenter.last_state()).chain(encoder.given_state()) {
        if !seen.contains(&state.entries_at()) {
            seen.push(state.entries_at());
            total += state.heap_bytes();
        }
    }
    total
}

impl<V: Clone> IdMap<V> {
    /// Sets the value of `eid`; returns the one it replaced. A binary search, then a shift of
    /// the entries after it when `eid` is new (none when it is the largest).
    pub fn insert(&mut self, eid: u16, value: V) -> Option<V> {
        let at = self.index(eid);
        let entries = self.entries_mut();
        match at {
            Ok(i) => Some(std::mem::replace(&mut entries[i].1, value)),
            Err(i) => {
                moves::count(entries.len() - i);
                entries.insert(i, (eid, value));
                None
            }
        }
    }

    /// Removes the value of `eid`.
    pub fn remove(&mut self, eid: &u16) -> Option<V> {
        let i = self.index(*eid).ok()?;
        let entries = self.entries_mut();
        moves::count(entries.len() - i - 1);
        Some(entries.remove(i).1)
    }

    /// The entries themselves, copied apart first if shared; the caller keeps them ascending.
    fn entries_mut(&mut self) -> &mut Vec<(u16, V)> {
        self.since = None;
        if std::sync::Arc::strong_count(&self.entries) > 1 {
            moves::count(self.entries.len());
        }
        std::sync::Arc::make_mut(&mut self.entries)
    }

    /// Every entry, ascending by id, its value mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&u16, &mut V)> {
        self.since = None;
        std::sync::Arc::make_mut(&mut self.entries)
            .iter_mut()
            .map(|(eid, v)| (&*eid, v))
    }
}

/// Entries written or shifted inside states, counted on the calling thread in this crate's
/// tests only: the measure of the regression test that a frame costs in proportion to its base
/// plus its changes, not their product (issue 13). Outside tests it compiles to nothing.
pub(crate) mod moves {
    #[cfg(test)]
    thread_local! {
        static MOVED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Counts `n` entries moved.
    #[inline]
    pub(crate) fn count(n: usize) {
        #[cfg(test)]
        MOVED.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// The entries moved on this thread since the last call.
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        MOVED.with(|m| m.replace(0))
    }

    #[cfg(test)]
    thread_local! {
        static TOUCHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Counts `n` entities a frame touched in the AckedDecoder (read from its base, applied,
    /// compared with the last frame shown): the measure of the test that a frame costs its
    /// changes and the entities they touch, never the world.
    #[inline]
    pub(crate) fn touch(n: usize) {
        #[cfg(test)]
        TOUCHED.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// The entities touched on this thread since the last call.
    #[cfg(test)]
    pub(crate) fn take_touched() -> u64 {
        TOUCHED.with(|m| m.replace(0))
    }

    #[cfg(test)]
    thread_local! {
        static EXAMINED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Counts `n` ids the AckedEncoder examined for a frame (looked up in its base and its
    /// state): the measure of the test that a frame costs what changed since its base, not the
    /// world.
    #[inline]
    pub(crate) fn examine(n: usize) {
        #[cfg(test)]
        EXAMINED.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// The ids examined on this thread since the last call.
    #[cfg(test)]
    pub(crate) fn take_examined() -> u64 {
        EXAMINED.with(|m| m.replace(0))
    }

    #[cfg(test)]
    thread_local! {
        static PROBED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Counts `n` frames' edits (or live states) searched for an entity's record at a coded
    /// frame's base or older snapshot, on either side: the measure of the test that a coded
    /// frame's basis costs its changes times the frames after its older snapshot, never the
    /// world.
    #[inline]
    pub(crate) fn probe(n: usize) {
        #[cfg(test)]
        PROBED.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// The searches counted on this thread since the last call.
    #[cfg(test)]
    pub(crate) fn take_probed() -> u64 {
        PROBED.with(|m| m.replace(0))
    }

    #[cfg(test)]
    thread_local! {
        static JUDGED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static QUEUED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static REBUILT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Counts an entity the Presenter applied its rules to, and `queued` entries its queues
    /// pushed, popped or rebuilt for it: the measure of the test that a tick's presenting
    /// follows the changes and the policy's events, never the world.
    #[inline]
    pub(crate) fn judge(queued: usize) {
        #[cfg(test)]
        {
            JUDGED.with(|m| m.set(m.get() + 1));
            QUEUED.with(|m| m.set(m.get() + queued as u64));
        }
        #[cfg(not(test))]
        let _ = queued;
    }

    /// Counts `n` queue entries the Presenter walked besides those of [`judge`].
    #[inline]
    pub(crate) fn queue(n: usize) {
        #[cfg(test)]
        QUEUED.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// Counts `n` queue entries the Presenter rebuilt a queue from.
    #[inline]
    pub(crate) fn rebuild(n: usize) {
        #[cfg(test)]
        REBUILT.with(|m| m.set(m.get() + n as u64));
        #[cfg(not(test))]
        let _ = n;
    }

    /// The entities judged, the queue entries walked and those rebuilt from on this thread
    /// since the last call.
    #[cfg(test)]
    pub(crate) fn take_judged() -> (u64, u64, u64) {
        (
            JUDGED.with(|m| m.replace(0)),
            QUEUED.with(|m| m.replace(0)),
            REBUILT.with(|m| m.replace(0)),
        )
    }
}

impl<V> FromIterator<(u16, V)> for IdMap<V> {
    /// Collects entries in any order; of two with the same id the later wins, as in a map.
    fn from_iter<I: IntoIterator<Item = (u16, V)>>(iter: I) -> Self {
        let mut entries: Vec<(u16, V)> = iter.into_iter().collect();
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable, so equal ids keep their order and the last of each run is the later one.
            entries.sort_by_key(|(eid, _)| *eid);
            let mut out: Vec<(u16, V)> = Vec::with_capacity(entries.len());
            for (eid, v) in entries {
                match out.last_mut() {
                    Some(last) if last.0 == eid => last.1 = v,
                    _ => out.push((eid, v)),
                }
            }
            entries = out;
        }
        IdMap {
            entries: std::sync::Arc::new(entries),
            since: None,
        }
    }
}

impl<'a, V> IntoIterator for &'a IdMap<V> {
    type Item = (&'a u16, &'a V);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (u16, V)>, fn(&'a (u16, V)) -> (&'a u16, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(eid, v)| (eid, v))
    }
}

/// A change that cannot apply onto the state a client holds (a whole entity without all its
/// groups, a pose off the grid, a removed id the base does not hold): the frame is refused and
/// counted, never applied in part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inapplicable(pub &'static str);

/// An acked frame (kind 6) in schema-independent terms: the header is ACK-2's, its fields what
/// ACK-3 says they are, the changes and the events the schema's.
#[derive(Debug, Clone, PartialEq)]
pub struct AckedFrame<C, E> {
    /// The server tick this frame describes.
    pub tick: u32,
    /// The tick of the acknowledged frame it applies onto (0 for a keyframe).
    pub base_tick: u32,
    /// The newest input sequence the server has processed for this client.
    pub last_seq: u32,
    /// How many of the client's inputs the server holds, ahead of execution.
    pub input_buffer: u8,
    /// The frame applies onto nothing.
    pub keyframe: bool,
    /// FNV-1a of every record of the state the frame produces, every CHECK_EVERY frames.
    pub check: Option<u32>,
    /// The entities gone, and those whose life changed (they come again whole), ascending.
    pub removed: Vec<u16>,
    /// The entities whose groups differ from the base, ascending.
    pub changes: Vec<C>,
    /// The serial of the first event (meaningful only when there are events).
    pub first_serial: u32,
    /// The events not yet acknowledged, oldest first; the i-th has `first_serial + i` (ACK-9).
    pub events: Vec<E>,
}

impl<C, E> AckedFrame<C, E> {
    /// A frame with nothing in it (tick 0, no lists): the value a decoder keeps and decodes
    /// each frame into, so that the lists' buffers are reused from frame to frame.
    pub fn empty() -> Self {
        Self {
            tick: 0,
            base_tick: 0,
            last_seq: 0,
            input_buffer: 0,
            keyframe: false,
            check: None,
            removed: Vec::new(),
            changes: Vec::new(),
            first_serial: 0,
            events: Vec::new(),
        }
    }
}

/// A kind 7 frame in schema-independent terms (ACK-10 to ACK-13): the newest frame the
/// client applied, whether it asks for a keyframe, and its recent inputs, numbered from
/// `first_seq`.
#[derive(Debug, Clone, PartialEq)]
pub struct AckContent<I> {
    /// The tick of the newest acked frame the client has applied (0 before the first, and
    /// while it asks for a keyframe).
    pub ack_tick: u32,
    /// The client's check failed: it asks for a keyframe and holds no base.
    pub keyframe_request: bool,
    /// The sequence number of the first input; the i-th has `first_seq + i` (0 without inputs).
    pub first_seq: u32,
    /// The inputs, oldest first.
    pub inputs: Vec<I>,
}

/// The acked frame of schema `S`.
pub type FrameOf<S> = AckedFrame<<S as AckedSchema>::Change, <S as AckedSchema>::Event>;

/// What the acked machines need to know of a schema. The constants default to the reference
/// protocol's (`acked.wire`); a schema with other values overrides them.
pub trait AckedSchema: Sized {
    /// One entity's record in a state.
    type Record: Clone + PartialEq + Debug;
    /// One entity's change on the wire.
    type Change: Clone + PartialEq + Debug;
    /// An event on the wire.
    type Event: Clone + PartialEq + Debug;
    /// An input on the wire, in the client's kind 7 frames.
    type Input: Clone + PartialEq + Debug;
    /// A change as the [`AckedDecoder`] keeps it between reading a frame and applying it: the
    /// form [`Self::apply_staged`] reads fastest. A binding generated from a `state` stages
    /// the wire's integers (the reference's [`StagedChange`], 28 bytes) rather than the
    /// generated `Change` (88, its quantized yaws as f64); a hand-written schema with no better
    /// form stages its `Change` itself (`type Staged = Self::Change`, [`Self::stage`] a clone,
    /// [`Self::apply_staged`] its [`Self::apply`]).
    type Staged: Clone + PartialEq + Debug;
    /// One entity's place in the [`AckedDecoder`]'s tables: its record or none, as plain data
    /// copied and compared whole. A binding generated from a `state` keeps the record's
    /// canonical fields in u64 words (the reference's [`EntityStateSlot`], 32 aligned bytes,
    /// where the generated record is 36 bytes of odd-sized fields, copied and compared field by
    /// field). Two slots are equal exactly when their records are.
    type Slot: DecoderSlot<Self>;

    /// Frames the server keeps per client (SENT_RING).
    fn sent_ring(&self) -> usize {
        crate::protocol::SENT_RING as usize
    }
    /// Frame states the client keeps by tick (HELD_RING); larger than [`Self::sent_ring`].
    fn held_ring(&self) -> usize {
        crate::protocol::HELD_RING as usize
    }
    /// Frames an unacknowledged event is sent in at most (EVENT_TTL).
    fn event_ttl(&self) -> u64 {
        crate::protocol::EVENT_TTL as u64
    }
    /// A check follows the header of every frame whose tick is a multiple of this
    /// (CHECK_EVERY).
    fn check_every(&self) -> u32 {
        crate::protocol::CHECK_EVERY
    }
    /// A frame larger than this many bytes goes on the reliable channel (RELIABLE_ABOVE).
    fn reliable_above(&self) -> usize {
        crate::protocol::RELIABLE_ABOVE as usize
    }
    /// The name of the frame the schema's frames are, in the spec (`acked` for kind 6): what a
    /// session half sends them as and takes them as.
    fn frame_name(&self) -> &'static str {
        "acked"
    }
    /// The name of the client's ack frame in the spec (`ack` for kind 7).
    fn ack_name(&self) -> &'static str {
        "ack"
    }

    /// The change that turns `base` into `next` in a frame of tick `tick` (`base` is `None`
    /// when the entity comes whole), or `None` when nothing differs. A whole entity always
    /// gives a change.
    fn diff(
        &self,
        eid: u16,
        base: Option<&Self::Record>,
        next: &Self::Record,
        tick: u32,
    ) -> Result<Option<Self::Change>, EncodeError>;

    /// The entity a change is about.
    fn change_eid(&self, change: &Self::Change) -> u16;

    /// `base` (or nothing, when the entity comes whole) with `change` applied, in a frame of
    /// tick `tick`.
    fn apply(
        &self,
        base: Option<&Self::Record>,
        change: &Self::Change,
        tick: u32,
    ) -> Result<Self::Record, Inapplicable>;

    /// Appends the record's canonical bytes (what the check hashes after the u16 eid).
    fn write_record(&self, record: &Self::Record, out: &mut Vec<u8>);

    /// The tick the record's pose was measured at, if it has one.
    fn measured(&self, record: &Self::Record) -> Option<u32>;

    /// Whether the record's pose came full (the tier the client sees), if it has one.
    fn pose_full(&self, record: &Self::Record) -> Option<bool>;

    /// Writes a frame's bytes.
    fn encode_frame(&self, frame: &FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), EncodeError>;

    /// Reads a frame from its bytes (canonically: trailing bytes are an error).
    fn decode_frame(&self, bytes: &[u8]) -> Result<FrameOf<Self>, DecodeError>;

    /// Writes a kind 7 frame's bytes.
    fn encode_ack(
        &self,
        ack: &AckContent<Self::Input>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError>;

    /// Reads a kind 7 frame from its bytes (canonically).
    fn decode_ack(&self, bytes: &[u8]) -> Result<AckContent<Self::Input>, DecodeError>;

    /// The server tick an input is aimed at.
    fn input_tick(&self, input: &Self::Input) -> u32;

    /// The staged form of `change`: what [`Self::decode_staged`] gives for its bytes.
    fn stage(&self, change: &Self::Change) -> Self::Staged;

    /// The entity a staged change is about.
    fn staged_eid(&self, staged: &Self::Staged) -> u16;

    /// [`Self::apply`] of the change `staged` stages: the same record or the same fault.
    fn apply_staged(
        &self,
        base: Option<&Self::Record>,
        staged: &Self::Staged,
        tick: u32,
    ) -> Result<Self::Record, Inapplicable>;

    /// [`Self::decode_frame`] with every change staged, into `out`, reusing its lists'
    /// buffers: the same frame (its changes staged) or the same error. On an error `out` holds
    /// anything. The [`AckedDecoder`] reads every frame so; a schema that reads into the
    /// buffers, as both reference schemas do, makes a warm delivery allocate nothing (this
    /// default allocates the decoded frame).
    fn decode_staged(&self, bytes: &[u8], out: &mut StagedFrame<Self>) -> Result<(), DecodeError> {
        *out = staged(self, &self.decode_frame(bytes)?);
        Ok(())
    }

    /// Whether the schema's frames are coded (kind 13, `docs/spec/coded.md`): predicted from
    /// states both sides hold, so that the machines encode and decode them against a
    /// [`CodedBasis`] ([`Self::encode_frame_on`], [`Self::decode_staged_on`]) and name an older
    /// snapshot (CODE-2, CODE-3). False (kinds 6 and 12): the hooks below are never called.
    fn coded(&self) -> bool {
        false
    }

    /// What a coded frame's basis is looked up by, read from its prefix before anything else:
    /// its tick, its base's, whether it is a keyframe and how far before the base its older
    /// snapshot is (0 for none). The [`AckedDecoder`] drops a frame whose base or older
    /// snapshot it does not hold before reading its changes (CODE-3). By default, for a schema
    /// that names no older snapshot, the decoded frame's header with `older` 0.
    fn read_basis(&self, bytes: &[u8]) -> Result<CodedBasisTicks, DecodeError> {
        let f = self.decode_frame(bytes)?;
        Ok(CodedBasisTicks {
            tick: f.tick,
            base_tick: f.base_tick,
            keyframe: f.keyframe,
            older: 0,
        })
    }

    /// Writes a frame's bytes against `basis`, the entity records of its base and of its older
    /// snapshot, `older` ticks before the base (0: none; always 0 for a keyframe, CODE-2). The
    /// [`AckedEncoder`] writes a coded schema's frames so; by default [`Self::encode_frame`].
    fn encode_frame_on(
        &self,
        frame: &FrameOf<Self>,
        older: u8,
        basis: &dyn CodedBasis<Self::Record>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let _ = (older, basis);
        self.encode_frame(frame, out)
    }

    /// Reads a frame from its bytes against `basis` (what [`Self::encode_frame_on`] was handed
    /// on the server); by default [`Self::decode_frame`].
    fn decode_frame_on(
        &self,
        bytes: &[u8],
        basis: &dyn CodedBasis<Self::Record>,
    ) -> Result<FrameOf<Self>, DecodeError> {
        let _ = basis;
        self.decode_frame(bytes)
    }

    /// [`Self::decode_frame_on`] with every change staged, into `out`: what
    /// [`Self::decode_staged`] is to [`Self::decode_frame`]. The [`AckedDecoder`] reads a
    /// coded schema's frames so.
    fn decode_staged_on(
        &self,
        bytes: &[u8],
        basis: &dyn CodedBasis<Self::Record>,
        out: &mut StagedFrame<Self>,
    ) -> Result<(), DecodeError> {
        *out = staged(self, &self.decode_frame_on(bytes, basis)?);
        Ok(())
    }
}

/// A record of schema `S` (or none) as the [`AckedDecoder`]'s tables hold it
/// ([`AckedSchema::Slot`]), and the rule of ACK-21 and ACK-33 for a staged change onto it. What
/// reads the record's fields takes the schema: a schema bound at run time holds its layout.
pub trait DecoderSlot<S: AckedSchema>: Copy + PartialEq + Debug {
    /// No entity.
    const EMPTY: Self;

    /// The slot of `record` (of none).
    fn of(record: Option<&S::Record>) -> Self;

    /// The record the slot holds.
    fn record(&self) -> Option<S::Record>;

    /// Whether the slot holds a record.
    fn holds(&self) -> bool;

    /// [`AckedSchema::apply_staged`] on slots, in place: `staged` applied onto this slot (an
    /// empty one when the entity comes whole) in a frame of tick `tick`, leaving the slot of
    /// the record `apply_staged` gives, or the same fault (and the slot holding anything). The
    /// [`AckedDecoder`] applies every change so.
    fn apply(&mut self, schema: &S, staged: &S::Staged, tick: u32) -> Result<(), Inapplicable>;

    /// [`AckedSchema::measured`] of the slot's record (`None` for none).
    fn measured(&self, schema: &S) -> Option<u32>;

    /// [`AckedSchema::pose_full`] of the slot's record (`None` for none).
    fn pose_full(&self, schema: &S) -> Option<bool>;

    /// The check `h` carried over entity `eid` and the slot's record as the check hashes a
    /// state's records: the id's two bytes, then [`AckedSchema::write_record`]'s (nothing for
    /// none).
    fn hash(&self, schema: &S, h: crate::rt::Fnv1a32, eid: u16) -> crate::rt::Fnv1a32;
}

/// An acked frame of schema `S` as the [`AckedDecoder`] reads it: its changes staged
/// ([`AckedSchema::Staged`]).
pub type StagedFrame<S> = AckedFrame<<S as AckedSchema>::Staged, <S as AckedSchema>::Event>;

/// `frame` with its changes staged: what [`AckedSchema::decode_staged`] gives for the frame's
/// bytes (and, by default, how it gives it).
pub(crate) fn staged<S: AckedSchema>(schema: &S, frame: &FrameOf<S>) -> StagedFrame<S> {
    AckedFrame {
        tick: frame.tick,
        base_tick: frame.base_tick,
        last_seq: frame.last_seq,
        input_buffer: frame.input_buffer,
        keyframe: frame.keyframe,
        check: frame.check,
        removed: frame.removed.clone(),
        changes: frame.changes.iter().map(|c| schema.stage(c)).collect(),
        first_serial: frame.first_serial,
        events: frame.events.clone(),
    }
}

/// The check of a state (CHECK-2): FNV-1a over every record of the state the frame produces, in
/// ascending eid, each as its `u16 eid` then the record's canonical bytes.
pub fn state_check<'a, S: AckedSchema + 'a>(
    schema: &S,
    records: impl IntoIterator<Item = (u16, &'a S::Record)>,
) -> u32 {
    let mut h = crate::rt::Fnv1a32::new();
    let mut buf = Vec::new();
    for (eid, record) in records {
        buf.clear();
        buf.extend_from_slice(&eid.to_le_bytes());
        schema.write_record(record, &mut buf);
        h = h.update(&buf);
    }
    h.finish()
}

/// The check of a server-side state (the same value as [`state_check`] of what a client holds).
pub fn server_check<S: AckedSchema>(schema: &S, state: &ServerState<S::Record>) -> u32 {
    state_check(schema, state.iter().map(|(eid, e)| (*eid, &e.record)))
}

/// The records of a server-side state, as a client holds them.
pub fn client_view<R: Clone>(state: &ServerState<R>) -> State<R> {
    state
        .iter()
        .map(|(eid, e)| (*eid, e.record.clone()))
        .collect()
}

/// What turns `base` into `next` (the removed ids and the changes, both ascending) in a frame of
/// tick `tick`; `base` is `None` for a keyframe.
///
/// ACK-19, ACK-21: frame N carries what turns the acknowledged S_B into S_N: the entities gone or
/// living a new life removed (the latter whole again), the groups that differ, a position as steps
/// from the base's.
pub fn delta<S: AckedSchema>(
    schema: &S,
    base: Option<&ServerState<S::Record>>,
    next: &ServerState<S::Record>,
    tick: u32,
) -> Result<(Vec<u16>, Vec<S::Change>), EncodeError> {
    let mut out = (Vec::new(), Vec::new());
    // Both states ascend by id: one walk over the two, no lookups.
    let mut held = base.into_iter().flatten().peekable();
    for (i, (eid, entry)) in next.iter().enumerate() {
        while let Some((gone, old)) = held.next_if(|(id, _)| *id < eid) {
            delta_one(schema, *gone, Some(old), None, || i, tick, &mut out)?;
        }
        let old = held.next_if(|(id, _)| *id == eid).map(|(_, e)| e);
        delta_one(schema, *eid, old, Some(entry), || i, tick, &mut out)?;
    }
    for (gone, old) in held {
        delta_one(schema, *gone, Some(old), None, || 0, tick, &mut out)?;
    }
    Ok(out)
}

/// One id of a delta: its entry in the base (`old`), its entry in the state the frame produces
/// (`new`) and its place there (`place`, for an error's report), into the removed ids and the
/// changes of `out`.
pub(crate) fn delta_one<S: AckedSchema>(
    schema: &S,
    eid: u16,
    old: Option<&Entry<S::Record>>,
    new: Option<&Entry<S::Record>>,
    place: impl Fn() -> usize,
    tick: u32,
    (removed, changes): &mut (Vec<u16>, Vec<S::Change>),
) -> Result<(), EncodeError> {
    moves::examine(1);
    let Some(entry) = new else {
        if old.is_some() {
            removed.push(eid);
        }
        return Ok(());
    };
    let before = match old {
        Some(old) if old.life == entry.life => Some(&old.record),
        Some(_) => {
            removed.push(eid);
            None
        }
        None => None,
    };
    match schema.diff(eid, before, &entry.record, tick) {
        Ok(Some(change)) => changes.push(change),
        Ok(None) if before.is_none() => {
            return Err(EncodeError::new(ErrorKind::InvalidCondition)
                .index(place())
                .field("changes"))
        }
        Ok(None) => {}
        Err(e) => return Err(e.index(place()).field("changes")),
    }
    Ok(())
}

/// The state a frame produces onto `base` (`None` for a keyframe): the removed ids go first,
/// then each change applies onto what remains (a removed id's change comes whole). The frame
/// applies entirely or not at all.
///
/// One merge walk over the base, its removals and its changes, writing each entry of the new
/// state once: a frame costs its base plus its lists, never their product, whatever a hostile
/// server puts in it (issue 13: a frame removing 65,535 ids one shift at a time took 1.48 s).
/// The faults are those of applying the removals one by one, then the changes one by one: a
/// removed id the base does not hold (or removed twice) wins over any fault of a change, and
/// of the changes' faults the first in frame order is told.
pub fn apply_frame<S: AckedSchema>(
    schema: &S,
    base: Option<&State<S::Record>>,
    frame: &FrameOf<S>,
) -> Result<State<S::Record>, Inapplicable> {
    let held: &[(u16, S::Record)] = match (frame.keyframe, base) {
        (true, _) => &[],
        // Nothing to change: the base itself, shared rather than copied.
        (false, Some(b)) if frame.removed.is_empty() && frame.changes.is_empty() => {
            return Ok(b.clone())
        }
        (false, Some(b)) => &b.entries,
        (false, None) => return Err(Inapplicable("a delta frame needs its base")),
    };
    // The wire does not make the removals ascend (acked.wire: `removed: [u16; removed_count]`),
    // and removing them one by one accepts any order of distinct held ids; walking them sorted
    // accepts the same lists (an id twice is then a removal of an id no longer held).
    let sorted;
    let removed: &[u16] = if frame.removed.windows(2).all(|w| w[0] < w[1]) {
        &frame.removed
    } else {
        let mut ids = frame.removed.clone();
        ids.sort_unstable();
        sorted = ids;
        &sorted
    };
    let mut walk = Walk {
        held: held.iter().peekable(),
        removed: removed.iter().copied().peekable(),
        out: Vec::with_capacity(held.len() + frame.changes.len()),
    };
    // The first fault of a change. The walk goes on over the base after it, building nothing,
    // because a removal fault further on is the one told.
    let mut fault = None;
    let mut last: Option<u16> = None;
    for change in &frame.changes {
        let eid = schema.change_eid(change);
        if last.is_some_and(|l| l >= eid) {
            fault = Some(Inapplicable("changes not in ascending id order"));
            break;
        }
        last = Some(eid);
        walk.keep_below(Some(eid), true)?;
        let was_removed = walk.removed.next_if_eq(&eid).is_some();
        let before = walk.held.next_if(|(e, _)| *e == eid).map(|(_, r)| r);
        if was_removed && before.is_none() {
            return Err(REMOVED_NOT_HELD);
        }
        // ACK-5: an entity living a new life under its id is removed, then comes whole.
        let onto = if was_removed { None } else { before };
        match schema.apply(onto, change, frame.tick) {
            Ok(record) => walk.push(eid, record),
            Err(e) => {
                fault = Some(e);
                break;
            }
        }
    }
    walk.keep_below(None, fault.is_none())?;
    match fault {
        Some(e) => Err(e),
        None => Ok(IdMap {
            entries: std::sync::Arc::new(walk.out),
            since: None,
        }),
    }
}

const REMOVED_NOT_HELD: Inapplicable = Inapplicable("a removed id the base does not hold");

/// [`apply_frame`]'s cursor over the base and the removals (both ascending), and the state it
/// builds.
struct Walk<'a, R> {
    held: std::iter::Peekable<std::slice::Iter<'a, (u16, R)>>,
    removed: std::iter::Peekable<std::iter::Copied<std::slice::Iter<'a, u16>>>,
    out: Vec<(u16, R)>,
}

impl<R: Clone> Walk<'_, R> {
    fn push(&mut self, eid: u16, record: R) {
        moves::count(1);
        self.out.push((eid, record));
    }

    /// Walks the base below `limit` (to its end for `None`): an entry removed is dropped, any
    /// other kept (copied into the new state when `build`); a removal of an id the base does
    /// not hold is the frame's fault.
    fn keep_below(&mut self, limit: Option<u16>, build: bool) -> Result<(), Inapplicable> {
        let below = |id: u16| limit.is_none_or(|l| id < l);
        loop {
            let gone = self.removed.peek().copied().filter(|id| below(*id));
            // An entry before the next removal (or with no removal left below the limit) stays.
            let kept = self
                .held
                .next_if(|(id, _)| below(*id) && gone.is_none_or(|g| *id < g));
            if let Some((eid, record)) = kept {
                if build {
                    self.push(*eid, record.clone());
                }
                continue;
            }
            let Some(g) = gone else { return Ok(()) };
            // The next entry is at or past the removal: it must be the removed id itself.
            if self.held.next_if(|(id, _)| *id == g).is_none() {
                return Err(REMOVED_NOT_HELD);
            }
            self.removed.next();
        }
    }
}

#[cfg(test)]
mod binding_tests;
#[cfg(test)]
mod coded_tests;
#[cfg(test)]
mod tests;
