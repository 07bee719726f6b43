//! The client's half: [`ReplicaTable`], the replicas of one subscription.
//!
//! `docs/spec/datagram.md` gives the table's rules (DG-17 to DG-22: spawn tags, the last
//! datagram per entity, whole ticks, the input ack); [`ReplicaLimits`] adds what it holds at
//! most, whatever the server sends, and what it does past it (GEN-5, DG-23, `docs/limits.md`).

use std::collections::BTreeMap;

use super::schema::{
    ComponentChange, DatagramAckFrame, DatagramFrame, DatagramSchema, DespawnFrame,
    FullEntityFrame, FullFrameFrame, SpawnFrame, UpdateFrame,
};
use super::{spawn_tag, ReferenceDatagram, StreamFrame};

/// One entity as the client holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replica {
    /// The tick of the stream frame that spawned it (a spawn or a full frame).
    pub spawn_tick: u64,
    /// Absolute position, in steps of the precision.
    pub position: [i64; 3],
    /// Components by type: their bytes.
    pub components: BTreeMap<u8, Vec<u8>>,
    /// The number of the last datagram applied to it; 0 before any.
    pub last_datagram: u64,
}

/// Bounds on what a [`ReplicaTable`] holds, whatever the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaLimits {
    /// Entities held at most; a spawn beyond is refused.
    pub max_entities: usize,
    /// Datagrams held for ticks that are not whole yet; beyond, the oldest tick held is given
    /// up (its datagrams were never acked, so the server sends what they said again).
    pub max_held: usize,
    /// Component bytes held at most, over every entity, each component counted at its length
    /// plus [`ReplicaLimits::COMPONENT_OVERHEAD`] (see [`ReplicaTable::component_bytes`]).
    /// Default 16 MiB. Past it:
    /// - a spawn, or an entity of a full frame, is refused (counted in
    ///   [`DatagramSummary::refused`]), as past `max_entities`;
    /// - an update is skipped whole, position too (counted in
    ///   [`DatagramSummary::skipped_over_bytes`]), and its datagram is not acked, so the server
    ///   sends what it said again, as for a datagram given up for room.
    ///
    /// The datagrams held for ticks not yet whole are not counted here: `max_held` and
    /// `max_held_bytes` bound them.
    pub max_component_bytes: usize,
    /// Bytes of datagrams held for ticks not yet whole, each counted by
    /// [`ReplicaLimits::held_cost`] (at least what the table spends to hold it). Default 8 MiB.
    /// Past it, as past `max_held`, the oldest tick held is given up (counted in
    /// [`DatagramSummary::given_up`]): its datagrams were never acked, so the server sends what
    /// they said again.
    ///
    /// `max_held` alone bounds a count, not memory: 256 datagrams of 64 KiB of the smallest
    /// updates, whose ticks never become whole, take 22 heap bytes per wire byte, 369 MB.
    pub max_held_bytes: usize,
}

impl ReplicaLimits {
    /// What each component costs beyond its bytes, in [`ReplicaLimits::max_component_bytes`]:
    /// about what the table spends to hold one beyond them (its vector's header and its share
    /// of the entity's map nodes), so that a flood of empty components is bounded too.
    pub const COMPONENT_OVERHEAD: usize = 64;

    /// What a held datagram costs beyond its updates, in [`ReplicaLimits::max_held_bytes`]:
    /// its header and its share of the held tick.
    pub const HELD_DATAGRAM_OVERHEAD: usize = 256;

    /// What each update of a held datagram costs beyond its components, in
    /// [`ReplicaLimits::max_held_bytes`]: a decoded update takes 88 bytes.
    pub const HELD_UPDATE_OVERHEAD: usize = 96;

    /// What `datagram` costs in [`ReplicaLimits::max_held_bytes`], the same in every language:
    /// [`HELD_DATAGRAM_OVERHEAD`](Self::HELD_DATAGRAM_OVERHEAD), plus
    /// [`HELD_UPDATE_OVERHEAD`](Self::HELD_UPDATE_OVERHEAD) an update, plus each component at
    /// its length (0 for a removal) and [`COMPONENT_OVERHEAD`](Self::COMPONENT_OVERHEAD).
    /// Saturating: the counts and lengths are the wire's.
    #[must_use]
    pub fn held_cost<D: DatagramFrame>(datagram: &D) -> usize {
        datagram
            .updates()
            .iter()
            .fold(Self::HELD_DATAGRAM_OVERHEAD, |sum, u| {
                let components = u.components().into_iter().flatten().fold(0, |c: usize, x| {
                    let length = x.data().map_or(0, <[u8]>::len);
                    c.saturating_add(length.saturating_add(Self::COMPONENT_OVERHEAD))
                });
                sum.saturating_add(Self::HELD_UPDATE_OVERHEAD)
                    .saturating_add(components)
            })
    }
}

impl Default for ReplicaLimits {
    fn default() -> Self {
        ReplicaLimits {
            max_entities: 1 << 16,
            max_held: 256,
            max_component_bytes: 16 << 20,
            max_held_bytes: 8 << 20,
        }
    }
}

/// What one datagram, or one stream frame, did to the table: counts over every update applied
/// or skipped during the call (a datagram that makes a tick whole releases the tick's others).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DatagramSummary {
    /// The datagram is held until its tick is whole.
    pub held: bool,
    /// Datagrams applied during the call.
    pub released: u32,
    /// Updates applied.
    pub applied: u32,
    /// Updates skipped: their spawn tag is not the entity's.
    pub skipped_spawn_tag: u32,
    /// Updates skipped: their datagram is not newer than the last applied to the entity.
    pub skipped_stale: u32,
    /// Updates skipped: no entity has their id.
    pub skipped_unknown: u32,
    /// Held datagrams given up for room.
    pub given_up: u32,
    /// Stream frames refused (out of order, or a spawn over the entity limit or the component
    /// byte limit), and entities of a full frame refused for those limits.
    pub refused: u32,
    /// Updates skipped whole: their components would take the table past
    /// [`ReplicaLimits::max_component_bytes`]. Their datagram is not acked. Left out of the
    /// serialized summary while 0, so reports of streams within the limit are unchanged.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_over_bytes: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone)]
struct HeldTick<D> {
    parts: u32,
    stream_tick: u64,
    /// Ascending by number, each number once. A vector rather than a map: a map's first node
    /// holds room for eleven datagrams, about a kilobyte, for a tick that holds one.
    datagrams: Vec<D>,
    /// What `datagrams` cost, as [`ReplicaLimits::max_held_bytes`] counts them.
    bytes: usize,
}

/// The client's replica table (DG-17 to DG-23).
///
/// Stream frames (spawn, despawn, full frame) go to [`ReplicaTable::apply_stream`] in the
/// order the reliable stream delivers them; datagrams to [`ReplicaTable::receive`] as they
/// arrive. The acks to send come out of [`ReplicaTable::take_acks`]. A datagram is acked when
/// its updates have been applied (or skipped), never while it is only held: what the server
/// folds into "acknowledged" is then what the table holds.
#[derive(Debug, Clone)]
pub struct ReplicaTable<S: DatagramSchema = ReferenceDatagram> {
    entities: BTreeMap<u64, Replica>,
    stream_tick: u64,
    input_ack: u64,
    whole_tick: Option<u64>,
    held: BTreeMap<u64, HeldTick<S::Datagram>>,
    held_count: usize,
    /// What the held datagrams cost, as [`ReplicaLimits::max_held_bytes`] counts them.
    held_bytes: usize,
    acks: Vec<S::Ack>,
    /// What the entities' components cost, as [`ReplicaLimits::max_component_bytes`] counts.
    component_bytes: usize,
    limits: ReplicaLimits,
}

impl<S: DatagramSchema> ReplicaTable<S> {
    /// An empty table of `schema` with `limits`.
    pub fn with_schema(_schema: S, limits: ReplicaLimits) -> Self {
        ReplicaTable {
            entities: BTreeMap::new(),
            stream_tick: 0,
            input_ack: 0,
            whole_tick: None,
            held: BTreeMap::new(),
            held_count: 0,
            held_bytes: 0,
            acks: Vec::new(),
            component_bytes: 0,
            limits,
        }
    }

    /// The entities, by id.
    pub fn entities(&self) -> &BTreeMap<u64, Replica> {
        &self.entities
    }

    /// The tick of the last stream frame applied (DG-17).
    pub fn stream_tick(&self) -> u64 {
        self.stream_tick
    }

    /// The input ack of the newest whole tick: the highest client_seq the table's state
    /// reflects.
    pub fn input_ack(&self) -> u64 {
        self.input_ack
    }

    /// The newest tick that was whole.
    pub fn whole_tick(&self) -> Option<u64> {
        self.whole_tick
    }

    /// Datagrams held for ticks that are not whole yet.
    pub fn held(&self) -> usize {
        self.held_count
    }

    /// What the datagrams held for ticks not yet whole cost, as
    /// [`ReplicaLimits::max_held_bytes`] counts them: at most that limit after every call.
    pub fn held_bytes(&self) -> usize {
        self.held_bytes
    }

    /// The component bytes held, over every entity, each component counted at its length plus
    /// [`ReplicaLimits::COMPONENT_OVERHEAD`]: at most [`ReplicaLimits::max_component_bytes`].
    pub fn component_bytes(&self) -> usize {
        self.component_bytes
    }

    /// The limits the table keeps.
    pub fn limits(&self) -> ReplicaLimits {
        self.limits
    }

    /// The acks to send, in order; a second call returns nothing new.
    pub fn take_acks(&mut self) -> Vec<S::Ack> {
        std::mem::take(&mut self.acks)
    }

    /// Applies one stream frame, in stream order.
    pub fn apply_stream(&mut self, frame: &StreamFrame<S>) -> DatagramSummary {
        let mut s = DatagramSummary::default();
        let tick = frame.tick();
        if tick < self.stream_tick {
            // The stream is ordered; a frame from before the last one applied is not ours.
            count(&mut s.refused, 1);
            return s;
        }
        self.stream_tick = tick;
        match frame {
            StreamFrame::Spawn(spawn) => {
                let replica = Replica {
                    spawn_tick: spawn.tick(),
                    position: spawn.position(),
                    components: whole(spawn.components()),
                    last_datagram: 0,
                };
                if !self.admit(spawn.id(), replica) {
                    count(&mut s.refused, 1);
                }
            }
            StreamFrame::Despawn(despawn) => {
                if let Some(gone) = self.entities.remove(&despawn.id()) {
                    self.component_bytes -= cost(&gone.components);
                }
            }
            StreamFrame::FullFrame(full) => {
                // DG-17: a full frame is the whole subscription, replacing everything held; each
                // of its entities counts as spawned at the frame's tick.
                self.entities.clear();
                self.component_bytes = 0;
                for e in full.entities() {
                    let replica = Replica {
                        spawn_tick: full.tick(),
                        position: e.position(),
                        components: whole(e.components()),
                        last_datagram: 0,
                    };
                    if !self.admit(e.id(), replica) {
                        count(&mut s.refused, 1);
                    }
                }
            }
        }
        self.release(&mut s);
        s
    }

    /// Holds `replica` under `id` (replacing the one there) when the limits allow it: an entity
    /// more than `max_entities`, or components past `max_component_bytes`, are refused.
    fn admit(&mut self, id: u64, replica: Replica) -> bool {
        let replaced = self.entities.get(&id).map(|r| cost(&r.components));
        if replaced.is_none() && self.entities.len() >= self.limits.max_entities {
            return false;
        }
        let bytes = (self.component_bytes - replaced.unwrap_or(0))
            .saturating_add(cost(&replica.components));
        if bytes > self.limits.max_component_bytes {
            return false;
        }
        self.component_bytes = bytes;
        self.entities.insert(id, replica);
        true
    }

    /// Takes one datagram: applies it when its tick (or a later one) is whole, holds it
    /// otherwise, and applies whatever it makes whole.
    pub fn receive(&mut self, datagram: S::Datagram) -> DatagramSummary {
        let mut s = DatagramSummary::default();
        // DG-21: a tick's datagrams apply, and their input ack is taken, when the tick or a
        // later one is whole. A later tick is whole already: apply now, once the stream frame
        // it names is in.
        if self.whole_tick.is_some_and(|w| datagram.tick() <= w)
            && datagram.stream_tick() <= self.stream_tick
        {
            self.apply(&datagram, &mut s);
            return s;
        }
        let held = self
            .held
            .entry(datagram.tick())
            .or_insert_with(|| HeldTick {
                parts: datagram.parts(),
                stream_tick: 0,
                datagrams: Vec::new(),
                bytes: 0,
            });
        held.stream_tick = held.stream_tick.max(datagram.stream_tick());
        if let Err(at) = held
            .datagrams
            .binary_search_by_key(&datagram.frame(), |d| d.frame())
        {
            let bytes = ReplicaLimits::held_cost(&datagram);
            held.datagrams.insert(at, datagram);
            held.bytes = held.bytes.saturating_add(bytes);
            self.held_bytes = self.held_bytes.saturating_add(bytes);
            self.held_count += 1;
        }
        s.held = true;
        self.release(&mut s);
        // Memory stays bounded whatever the server sends: give up the oldest ticks held.
        while self.held_count > self.limits.max_held || self.held_bytes > self.limits.max_held_bytes
        {
            let Some((_, t)) = self.held.pop_first() else {
                break;
            };
            self.held_count -= t.datagrams.len();
            self.held_bytes = self.held_bytes.saturating_sub(t.bytes);
            count(&mut s.given_up, t.datagrams.len());
        }
        s
    }

    /// Applies every held tick up to the newest whole one.
    fn release(&mut self, s: &mut DatagramSummary) {
        // DG-21: a tick is whole when the client holds all of its datagrams and the stream
        // frame they name.
        let whole = self
            .held
            .iter()
            .rev()
            .find(|(tick, h)| {
                (h.datagrams.len() as u64 >= u64::from(h.parts)
                    || self.whole_tick.is_some_and(|w| **tick <= w))
                    && h.stream_tick <= self.stream_tick
            })
            .map(|(tick, _)| *tick);
        let Some(whole) = whole else { return };
        // The tick is the wire's: u64::MAX is a tick like any other, above which nothing is
        // held (`whole + 1` overflowed there, issue 13).
        let rest = match whole.checked_add(1) {
            Some(above) => self.held.split_off(&above),
            None => BTreeMap::new(),
        };
        let ready = std::mem::replace(&mut self.held, rest);
        let mut newest_ack = None;
        for (tick, h) in ready {
            self.held_count -= h.datagrams.len();
            self.held_bytes = self.held_bytes.saturating_sub(h.bytes);
            for d in h.datagrams {
                if tick == whole {
                    newest_ack =
                        Some(newest_ack.map_or(d.input_ack(), |a: u64| a.max(d.input_ack())));
                }
                self.apply(&d, s);
            }
        }
        if self.whole_tick.is_none_or(|w| whole > w) {
            self.whole_tick = Some(whole);
            // DG-21: only then does the input ack describe the table.
            if let Some(a) = newest_ack {
                self.input_ack = a;
            }
        }
    }

    fn apply(&mut self, d: &S::Datagram, s: &mut DatagramSummary) {
        count(&mut s.released, 1);
        // Several stream frames can share a tick, and the stream says nothing of how many: an
        // update for an entity spawned at the last stream tick that the table does not hold
        // (yet) means that tick's frames may still be coming. The ack then names the tick
        // before, all of whose frames are surely in, so it does not cover that entity.
        let doubtful_tag = spawn_tag(self.stream_tick);
        let mut doubtful = false;
        // An update refused for room: the datagram is not acked, so its contents come again.
        let mut refused = false;
        for u in d.updates() {
            let Some(e) = self.entities.get_mut(&u.id()) else {
                doubtful |= u.spawn_tag() == doubtful_tag;
                count(&mut s.skipped_unknown, 1);
                continue;
            };
            // DG-18: an update applies only to the entity spawned at the tick its tag names, so
            // a late datagram for an id respawned since, or one built before a full frame,
            // changes nothing.
            if u.spawn_tag() != spawn_tag(e.spawn_tick) {
                doubtful |= u.spawn_tag() == doubtful_tag;
                count(&mut s.skipped_spawn_tag, 1);
                continue;
            }
            // DG-19: per entity, the number of the last datagram applied; an update from a
            // datagram that is not newer is skipped.
            if d.frame() <= e.last_datagram {
                count(&mut s.skipped_stale, 1);
                continue;
            }
            let changes = u.components().unwrap_or_default();
            let Some(bytes) = cost_after(self.component_bytes, &e.components, changes)
                .filter(|b| *b <= self.limits.max_component_bytes)
            else {
                // ReplicaLimits::max_component_bytes: refused whole, before any of it applies.
                count(&mut s.skipped_over_bytes, 1);
                refused = true;
                continue;
            };
            self.component_bytes = bytes;
            e.last_datagram = d.frame();
            // DG-20: the axes and components the update carries replace the entity's; a
            // component without bytes is removed.
            for (held, v) in e.position.iter_mut().zip(u.axes()) {
                if let Some(v) = v {
                    *held = v;
                }
            }
            for c in changes {
                match c.data() {
                    Some(bytes) => {
                        e.components.insert(c.component_type(), bytes.to_vec());
                    }
                    None => {
                        e.components.remove(&c.component_type());
                    }
                }
            }
            count(&mut s.applied, 1);
        }
        if refused {
            return;
        }
        // DG-10, DG-22: the ack names the datagram and the tick of the last stream frame
        // applied.
        let stream_tick = if doubtful {
            self.stream_tick.saturating_sub(1)
        } else {
            self.stream_tick
        };
        self.acks.push(S::Ack::new(d.frame(), stream_tick));
    }

    /// The canonical bytes of the table, which the state hash is the FNV-1a of: `u64 stream_tick,
    /// u64 input_ack, u32 entity count`, then per entity in ascending id `u64 id, u64
    /// spawn_tick, i64 x, i64 y, i64 z, u32 component count`, then per component in ascending
    /// type `u8 type, u32 length, bytes`; every integer little endian.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.stream_tick.to_le_bytes());
        out.extend_from_slice(&self.input_ack.to_le_bytes());
        out.extend_from_slice(&(self.entities.len() as u32).to_le_bytes());
        for (id, e) in &self.entities {
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&e.spawn_tick.to_le_bytes());
            for v in e.position {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&(e.components.len() as u32).to_le_bytes());
            for (t, bytes) in &e.components {
                out.push(*t);
                out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                out.extend_from_slice(bytes);
            }
        }
        out
    }

    /// FNV-1a 32 of [`ReplicaTable::canonical_bytes`].
    pub fn state_hash(&self) -> u32 {
        crate::rt::fnv1a32(&self.canonical_bytes())
    }
}

/// Adds `n` to a summary's counter, saturating: the counts follow from what the peer sent (a
/// full frame's entities, a datagram's updates), so they are the wire's and must not wrap.
fn count(counter: &mut u32, n: usize) {
    *counter = counter.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
}

/// What one component costs in [`ReplicaLimits::max_component_bytes`]; saturating, since the
/// length is the wire's.
fn component_cost(bytes: &[u8]) -> usize {
    bytes
        .len()
        .saturating_add(ReplicaLimits::COMPONENT_OVERHEAD)
}

/// What an entity's components cost in [`ReplicaLimits::max_component_bytes`].
fn cost(components: &BTreeMap<u8, Vec<u8>>) -> usize {
    components
        .values()
        .fold(0, |sum: usize, c| sum.saturating_add(component_cost(c)))
}

/// The table's component bytes, `held` of them now, once `changes` apply onto an entity's
/// `components` (in order: of two changes of one type the later stands); `None` past
/// `usize::MAX`.
fn cost_after<C: ComponentChange>(
    held: usize,
    components: &BTreeMap<u8, Vec<u8>>,
    changes: &[C],
) -> Option<usize> {
    // The types changed and the cost each ends at (0 once removed).
    let mut after: BTreeMap<u8, usize> = BTreeMap::new();
    for c in changes {
        after.insert(c.component_type(), c.data().map_or(0, component_cost));
    }
    after.iter().try_fold(held, |sum, (t, new)| {
        let old = components.get(t).map_or(0, |c| component_cost(c));
        sum.checked_sub(old)?.checked_add(*new)
    })
}

/// A spawn's or full frame's components: a removal in them means absent.
fn whole<C: ComponentChange>(components: &[C]) -> BTreeMap<u8, Vec<u8>> {
    components
        .iter()
        .filter_map(|c| c.data().map(|d| (c.component_type(), d.to_vec())))
        .collect()
}
