//! The reference protocol's [`Presenter`]: the producer of each client's S_N (`docs/spec/acked.md`)
//! from a world, with tiers judged by a [`TierBoundary`] the caller hands in (in [`ViewConfig`]).
//!
//! ACK-17: for each client the server computes S_N, what an ordered client would hold after frame
//! N, as the ordered encoder does. The same S_N feeds the ordered reference and the
//! [`AckedEncoder`](super::AckedEncoder), so the presenter lives beside both in the codec; the
//! encoder takes S_N as an argument and never calls it. The tier boundary is plain data (two radii,
//! [`crate::tier`]) that `ackwire_server::relevance` re-exports, so the presenter needs nothing of
//! the server.

use super::paged::PagedMap;
use super::{moves, Edit, Entry, ServerState, POSE_REACH};
use crate::protocol::{EntityState, Orientation, StateFlags};
use crate::rt::SmallestThree;
use crate::tier::TierBoundary;
use crate::BitSet;
use std::collections::BTreeMap;

/// One entity of the server's world (the reference schema), in world units.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldEntity {
    /// Which life of its id; bumped by every spawn under the id.
    pub life: u32,
    /// East, metres.
    pub x: f32,
    /// North, metres.
    pub y: f32,
    /// Up, metres.
    pub z: f32,
    /// Heading, degrees.
    pub yaw: f32,
    /// Hit points.
    pub hp: u8,
    /// Armour points.
    pub armor: u8,
    /// The vehicle it is in, 0 on foot.
    pub vehicle: u16,
    /// The seat taken.
    pub seat: u8,
    /// Its orientation, a unit quaternion `[x, y, z, w]` (any norm: it is normalised), or
    /// `None` for an entity without one. An entity keeps the orientation it was last given for
    /// its life: `None` after `Some` presents the last one again (the wire has no way to take
    /// an orientation away, see `Reference::diff`).
    pub orient: Option<[f32; 4]>,
}

/// The server's world: entities by id.
pub type World = BTreeMap<u16, WorldEntity>;

/// The bits of each component of the orientation's smallest three (acked.wire's
/// `Orientation`: `quat(9)`).
const ORIENT_BITS: u8 = 9;

/// A pose is measured again at least this often (in ticks), so that a pose's age always fits
/// the u8 of POSE_AGE, even in a keyframe.
pub const POSE_REFRESH: u32 = 255;

/// How a client sees the world: its own entities, the near tier's boundary, the far rate.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewConfig {
    /// The client's own entities; the lowest present is where it stands.
    pub own: Vec<u16>,
    /// The near tier, with hysteresis (SRV-5 to SRV-9).
    pub tier: TierBoundary,
    /// A far entity's pose is due on the ticks where `(tick + eid) % far_every == 0`.
    pub far_every: u32,
}

impl Default for ViewConfig {
    fn default() -> Self {
        Self {
            own: Vec::new(),
            tier: TierBoundary::new(12.0, 14.0),
            far_every: 6,
        }
    }
}

/// The widest position in steps (acked.wire, EntityState: 25 bits, signed).
const STEPS_MAX: f64 = 16_777_215.0;

/// `x` rounded half away from zero, as [`f64::round`], for `|x|` below 2^31: by truncation and
/// the fraction left, both exact there. `f64::round` is a call into libm on the baseline
/// x86-64 target, and the presenter rounds four values of each entity it judges.
fn round_small(x: f64) -> i32 {
    let t = x as i32;
    let frac = x - f64::from(t);
    if frac >= 0.5 {
        t + 1
    } else if frac <= -0.5 {
        t - 1
    } else {
        t
    }
}

fn steps(v: f32) -> i32 {
    if !v.is_finite() {
        return 0;
    }
    // An f32 holds every step of 1/512 m below 2^24 exactly (acked.wire, EntityState). The
    // product is exact; beyond the widest step it rounds to a step beyond it, clamped.
    let x = f64::from(v) * 512.0;
    if x >= STEPS_MAX {
        STEPS_MAX as i32
    } else if x <= -STEPS_MAX {
        -(STEPS_MAX as i32)
    } else {
        round_small(x)
    }
}

fn yaw_steps(deg: f32) -> u16 {
    if !deg.is_finite() {
        return 0;
    }
    let deg = f64::from(deg);
    // `rem_euclid` gives back a heading already within a turn, without its call.
    let within = if (0.0..360.0).contains(&deg) {
        deg
    } else {
        deg.rem_euclid(360.0)
    };
    let turns = within / 360.0;
    // At most 65,536: the rounding by truncation holds.
    (round_small(turns * 65536.0) as u32 & 0xffff) as u16
}

/// Groups of a [`WorldEntity`] the game changed, as its change tracking reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Groups(u8);

impl Groups {
    /// No group.
    pub const NONE: Groups = Groups(0);
    /// The position and heading (`x`, `y`, `z`, `yaw`).
    pub const POSE: Groups = Groups(1);
    /// Hit points and armour.
    pub const VITALS: Groups = Groups(1 << 1);
    /// The vehicle and the seat.
    pub const SEAT: Groups = Groups(1 << 2);
    /// The orientation.
    pub const ORIENT: Groups = Groups(1 << 3);
    /// Every group.
    pub const ALL: Groups = Groups(0b1111);

    /// Whether it holds every group of `other`.
    pub const fn contains(self, other: Groups) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether it holds no group.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The groups in which `a` and `b` differ (their life aside).
    pub fn between(a: &WorldEntity, b: &WorldEntity) -> Groups {
        let mut g = Groups::NONE;
        if (a.x, a.y, a.z, a.yaw) != (b.x, b.y, b.z, b.yaw) {
            g = g | Groups::POSE;
        }
        if (a.hp, a.armor) != (b.hp, b.armor) {
            g = g | Groups::VITALS;
        }
        if (a.vehicle, a.seat) != (b.vehicle, b.seat) {
            g = g | Groups::SEAT;
        }
        if a.orient != b.orient {
            g = g | Groups::ORIENT;
        }
        g
    }
}

impl std::ops::BitOr for Groups {
    type Output = Groups;

    fn bitor(self, other: Groups) -> Groups {
        Groups(self.0 | other.0)
    }
}

/// What changed in the world since the tick a [`Presenter`] was last told of, as an ECS's
/// change tracking knows it (bevy's change detection, Unity's change versions): the entities
/// spawned (or spawned again under their id, with a new life), those despawned, and the groups
/// that changed of the others. [`Presenter::present_changes`] reads nothing of the world but
/// the entities these name (and those its own policy is due to look at again).
///
/// An id may be named more than once, in any list and any order: each is looked up in the
/// world as it is now. An entity that changed and is named in no list is not seen to change:
/// a caller without change tracking uses [`WorldChanges::between`] (or
/// [`Presenter::present`]), which compare two worlds over every entity.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorldChanges {
    /// Entities that came, or came again under their id with a new life.
    pub spawned: Vec<u16>,
    /// Entities that left.
    pub despawned: Vec<u16>,
    /// Entities that changed, with the groups that did.
    pub changed: Vec<(u16, Groups)>,
}

impl WorldChanges {
    /// Nothing changed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every change, keeping the lists' buffers for the next tick.
    pub fn clear(&mut self) {
        self.spawned.clear();
        self.despawned.clear();
        self.changed.clear();
    }

    /// How many ids the lists name (with repeats).
    pub fn len(&self) -> usize {
        self.spawned.len() + self.despawned.len() + self.changed.len()
    }

    /// Whether the lists name no id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The changes that turn `before` into `after`: the whole-world diff, one walk over both,
    /// for a caller that keeps its last world rather than tracking changes.
    pub fn between(before: &World, after: &World) -> Self {
        let mut out = Self::new();
        let mut held = before.iter().peekable();
        for (eid, w) in after {
            while let Some((gone, _)) = held.next_if(|(id, _)| *id < eid) {
                out.despawned.push(*gone);
            }
            match held.next_if(|(id, _)| *id == eid) {
                Some((_, old)) if old.life != w.life => out.spawned.push(*eid),
                Some((_, old)) => {
                    let groups = Groups::between(old, w);
                    if !groups.is_empty() {
                        out.changed.push((*eid, groups));
                    }
                }
                None => out.spawned.push(*eid),
            }
        }
        out.despawned.extend(held.map(|(gone, _)| *gone));
        out
    }
}

/// Computes each tick's S_N for one client of the reference schema, exactly as the ordered
/// encoder would: the same function feeds the ordered reference and the acked encoder.
///
/// ACK-17, ACK-18: per client, the server computes S_N, the state an ordered client holds after
/// frame N (records, pose full or not, tier, measurement tick), as the ordered encoder would: the
/// changes, far poses only when due or when their rest changed, the client's own entities with full
/// poses.
///
/// The rules, per entity of the world:
/// - new (or a new life): whole, its pose measured now;
/// - near (the client's own, or within the tier boundary, judged with hysteresis against the
///   tier it was sent at last) or far outside the quantized box (`POSE_REACH`): the pose comes
///   full, whenever it differs from the one held;
/// - far: the pose comes quantized (1/512 m, 256 yaw steps), only when it is due, its rest
///   (health, vehicle) changed or its tier changed, and it differs;
/// - any pose is measured again when the one held is POSE_REFRESH ticks old.
///
/// **Change-driven.** [`present_changes`](Self::present_changes) applies the rules only to the
/// entities the game says changed and to those the policy is due to look at again, each kept
/// in a queue of its own: a far pose not sent, on its next due tick; a pose POSE_REFRESH ticks
/// old; an entity the client may have crossed a tier boundary of, once the client has
/// travelled as far as the entity was from that boundary (the distance changes by no more than
/// the client moved). Every other entity's record is the same as the last tick's: nothing the
/// rules read of it changed. A tick's work is so the changes and the policy's events, never the
/// world; it hands the encoder the entries that differ ([`Edit`]s), not a whole S_N.
/// [`present`](Self::present) is the same rules on a whole world (it finds what changed by
/// comparing each entity with the one last seen) and gives a whole S_N.
#[derive(Debug, Clone)]
pub struct Presenter {
    config: ViewConfig,
    /// What the presenter knows of each entity it presented, by id: what every tick that
    /// judges the entity reads and writes.
    known: PagedMap<Known>,
    /// The world's entity each entry was computed from, which only the whole-world path reads
    /// (to find what changed): kept apart from `known`, and only while that path is taken, so
    /// that the change-driven path neither copies nor carries a second entity per entity.
    seen: PagedMap<WorldEntity>,
    /// Whether `seen` holds the world of the last tick presented (false after the
    /// change-driven path: the whole-world path then presents every entity again).
    seen_current: bool,
    /// The whole-state path's last S_N (shared with the encoder, not copied); empty once the
    /// change-driven path is taken.
    prev: ServerState<EntityState>,
    /// Whether `prev` is the S_N of `known` (false after the change-driven path).
    prev_current: bool,
    /// Where the client stood last tick, in steps.
    viewer: Option<(i32, i32, i32)>,
    /// How far the client has moved since the first tick, summed tick by tick, in
    /// [`TRAVEL_UNIT`]s.
    travelled: f64,
    /// The policy's queues of entities to judge again: by the distance travelled at which the
    /// client may cross their tier boundary ([`TIER`]), by the tick their pose is
    /// POSE_REFRESH ticks old ([`REFRESH`]), by the tick a far pose not sent is next due
    /// ([`DUE`]).
    queues: [Queue; 3],
    /// The ids to present this tick, and the queue entries to push again (reused).
    candidates: Vec<u16>,
    again: Vec<(u64, u16)>,
    /// Whether an unchanged entity may keep its last record without being presented again
    /// (off only in the test that holds the shortcut to the full rules).
    pub(crate) reuse: bool,
}

/// Distances travelled are counted in 1/1024 m, rounded down, so that a queue of them orders
/// integers.
const TRAVEL_UNIT: f64 = 1024.0;

/// No key: the entity is in no queue.
const NONE: u64 = u64::MAX;

/// The queue of tier boundaries to judge again, of [`Presenter::queues`].
const TIER: usize = 0;
/// The queue of poses to measure again.
const REFRESH: usize = 1;
/// The queue of far poses not sent.
const DUE: usize = 2;

/// What the presenter knows of one entity.
#[derive(Debug, Clone)]
struct Known {
    /// The entry of the last S_N.
    entry: Entry<EntityState>,
    near: bool,
    /// Per queue, when the policy must judge it again ([`NONE`]: never, whatever the client
    /// does, until the world changes it).
    due: [u64; 3],
    /// Per queue, the key of its live entry ([`NONE`] for none), never after `due`: an entry
    /// that comes up before its entity is due is pushed again at `due`, so that an entity
    /// whose due time moves later (a pose measured again, as a moving entity's is every tick)
    /// pushes nothing.
    at: [u64; 3],
}

/// Entities by a key (a tick, or a distance travelled), smallest first. An entity has at most
/// one live entry in a queue, the one whose key it holds; the others (left when its due time
/// moved earlier) are dropped when they come up, and the queue is rebuilt from the live ones
/// when they outnumber them (so it holds at most twice the entities, plus a few).
#[derive(Debug, Clone, Default)]
struct Queue(std::collections::BinaryHeap<std::cmp::Reverse<(u64, u16)>>);

impl Queue {
    fn push(&mut self, key: u64, eid: u16) {
        if key != NONE {
            self.0.push(std::cmp::Reverse((key, eid)));
        }
    }

    /// Pops every entry whose key is at most `limit`, handing each to `f`.
    fn pop_through(&mut self, limit: u64, mut f: impl FnMut(u64, u16)) {
        while let Some(&std::cmp::Reverse((key, eid))) = self.0.peek() {
            if key > limit {
                break;
            }
            self.0.pop();
            moves::queue(1);
            f(key, eid);
        }
    }

    /// Rebuilds the queue from the live entries `live` gives, when it holds more than twice
    /// their count (`entities` bounds it).
    fn compact(&mut self, entities: usize, live: impl Iterator<Item = (u64, u16)>) {
        if self.0.len() > 2 * entities + 64 {
            moves::rebuild(self.0.len());
            self.0 = live
                .filter(|(k, _)| *k != NONE)
                .map(std::cmp::Reverse)
                .collect();
        }
    }

    fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<std::cmp::Reverse<(u64, u16)>>()
    }
}

impl Presenter {
    /// A presenter for a client that holds nothing yet.
    pub fn new(config: ViewConfig) -> Self {
        Self {
            config,
            known: PagedMap::default(),
            seen: PagedMap::default(),
            seen_current: true,
            prev: ServerState::new(),
            prev_current: true,
            viewer: None,
            travelled: 0.0,
            queues: Default::default(),
            candidates: Vec::new(),
            again: Vec::new(),
            reuse: true,
        }
    }

    /// The view it computes for.
    pub fn config(&self) -> &ViewConfig {
        &self.config
    }

    /// The last S_N the whole-state path presented (empty before the first, and once the
    /// change-driven path is taken).
    pub(crate) fn last_state(&self) -> &ServerState<EntityState> {
        &self.prev
    }

    /// The heap it holds besides its last whole S_N's (see [`super::heap_bytes`]).
    pub(crate) fn own_heap_bytes(&self) -> usize {
        self.known.heap_bytes()
            + self.seen.heap_bytes()
            + self.queues.iter().map(Queue::heap_bytes).sum::<usize>()
            + self.candidates.capacity() * std::mem::size_of::<u16>()
            + self.again.capacity() * std::mem::size_of::<(u64, u16)>()
            + self.config.own.capacity() * std::mem::size_of::<u16>()
    }

    /// S_N for tick `tick` of `world`, whole: the whole-world path, for a caller without
    /// change tracking. What changed is found by comparing every entity of the world with the
    /// one last presented; the S_N is noted with the ids whose entry differs from the last S_N's
    /// (or that came or went), which the [`AckedEncoder`](super::AckedEncoder) reads instead of
    /// comparing the two states over every entity. The same records as
    /// [`present_changes`](Self::present_changes) told of the same changes.
    pub fn present(&mut self, tick: u32, world: &World) -> ServerState<EntityState> {
        let mut changes = WorldChanges::new();
        if self.seen_current {
            let mut held = self.seen.iter().peekable();
            for (eid, w) in world {
                while let Some((gone, _)) = held.next_if(|(id, _)| id < eid) {
                    changes.despawned.push(gone);
                }
                match held.next_if(|(id, _)| id == eid) {
                    Some((_, seen)) if seen.life != w.life => changes.spawned.push(*eid),
                    Some((_, seen)) => {
                        if seen != w {
                            changes.changed.push((*eid, Groups::between(seen, w)));
                        }
                    }
                    None => changes.spawned.push(*eid),
                }
            }
            changes.despawned.extend(held.map(|(gone, _)| gone));
            for &eid in &changes.despawned {
                self.seen.remove(eid);
            }
            let named = changes
                .spawned
                .iter()
                .chain(changes.changed.iter().map(|(e, _)| e));
            for &eid in named {
                if let Some(w) = world.get(&eid) {
                    self.seen.insert(eid, w.clone());
                }
            }
        } else {
            // What the world was when last presented is not kept: every entity is judged
            // again, which the full rules make the same records as judging what changed.
            changes
                .changed
                .extend(world.keys().map(|eid| (*eid, Groups::ALL)));
            changes
                .despawned
                .extend(self.known.iter().map(|(eid, _)| eid));
            self.seen = PagedMap::default();
            for (eid, w) in world {
                self.seen.insert(*eid, w.clone());
            }
            self.seen_current = true;
        }
        let edits = self.edits(tick, world, &changes);
        if !self.prev_current {
            self.prev = self
                .known
                .iter()
                .map(|(eid, k)| (eid, k.entry.clone()))
                .collect();
            self.prev_current = true;
            return self.prev.clone();
        }
        if edits.is_empty() {
            return self.prev.clone();
        }
        // The last S_N with the edits made, in one walk of both (ascending).
        let changed: Vec<u16> = edits.iter().map(|(eid, _)| *eid).collect();
        let mut next = Vec::with_capacity(self.known.len());
        let mut held = self.prev.iter().peekable();
        for (eid, entry) in edits {
            while let Some((kept, e)) = held.next_if(|(id, _)| **id < eid) {
                next.push((*kept, e.clone()));
            }
            held.next_if(|(id, _)| **id == eid);
            if let Some(entry) = entry {
                next.push((eid, entry));
            }
        }
        next.extend(held.map(|(eid, e)| (*eid, e.clone())));
        self.prev = next
            .into_iter()
            .collect::<ServerState<_>>()
            .noted_since(&self.prev, changed);
        self.prev.clone()
    }

    /// The edits that turn the last S_N into S_N for tick `tick` of `world`, `changes` being
    /// what changed in the world since the last tick presented (see [`WorldChanges`]): the
    /// change-driven path, whose work is the entities `changes` names and those the policy is
    /// due to look at again, never the world. Hand them to
    /// [`AckedEncoder::encode_edits`](super::AckedEncoder::encode_edits): the frames are the
    /// same bytes as [`present`](Self::present)'s S_N gives.
    pub fn present_changes(
        &mut self,
        tick: u32,
        world: &World,
        changes: &WorldChanges,
    ) -> Vec<Edit<EntityState>> {
        if self.prev_current {
            self.prev = ServerState::new();
            self.prev_current = false;
        }
        if self.seen_current {
            self.seen = PagedMap::default();
            self.seen_current = false;
        }
        self.edits(tick, world, changes)
    }

    fn edits(
        &mut self,
        tick: u32,
        world: &World,
        changes: &WorldChanges,
    ) -> Vec<Edit<EntityState>> {
        // Where the client stands: its own entity with the lowest id present, or the origin.
        // Looked up by the client's ids: a client owns a few entities of a large world.
        let viewer = self
            .config
            .own
            .iter()
            .filter_map(|eid| world.get(eid).map(|w| (eid, w)))
            .min_by_key(|(eid, _)| **eid)
            .map(|(_, w)| (steps(w.x), steps(w.y), steps(w.z)))
            .unwrap_or((0, 0, 0));
        if let Some(last) = self.viewer {
            self.travelled += distance(last, viewer) * TRAVEL_UNIT;
        }
        self.viewer = Some(viewer);
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        if !self.reuse {
            candidates.extend(world.keys());
            candidates.extend(self.known.iter().map(|(eid, _)| eid));
        }
        candidates.extend(&changes.spawned);
        candidates.extend(&changes.despawned);
        candidates.extend(changes.changed.iter().map(|(eid, _)| *eid));
        // The policy's events: each queue's entries come up; an entity whose live entry it is
        // (it holds the key) is presented again when it is due, or queued again at its due.
        let mut limits = [u64::from(tick); 3];
        limits[TIER] = self.travelled as u64;
        let mut again = std::mem::take(&mut self.again);
        for (q, limit) in limits.into_iter().enumerate() {
            let known = &mut self.known;
            self.queues[q].pop_through(limit, |key, eid| {
                let Some(k) = known.get_mut(eid).filter(|k| k.at[q] == key) else {
                    return;
                };
                if k.due[q] <= limit {
                    k.at[q] = NONE;
                    candidates.push(eid);
                } else {
                    k.at[q] = k.due[q];
                    again.push((k.due[q], eid));
                }
            });
            for (key, eid) in again.drain(..) {
                self.queues[q].push(key, eid);
            }
        }
        self.again = again;
        candidates.sort_unstable();
        candidates.dedup();
        let mut edits = Vec::with_capacity(candidates.len());
        for &eid in &candidates {
            if let Some(edit) = self.judge(tick, viewer, eid, world.get(&eid)) {
                edits.push(edit);
            }
        }
        self.candidates = candidates;
        let n = self.known.len();
        for (q, queue) in self.queues.iter_mut().enumerate() {
            queue.compact(n, self.known.iter().map(|(eid, k)| (k.at[q], eid)));
        }
        edits
    }

    /// Applies the rules to entity `eid`, which the world holds as `w` (or no longer holds),
    /// the client standing at `viewer`; returns its edit when its entry differs from the last
    /// S_N's, and queues it for the policy's next look at it.
    fn judge(
        &mut self,
        tick: u32,
        viewer: (i32, i32, i32),
        eid: u16,
        w: Option<&WorldEntity>,
    ) -> Option<Edit<EntityState>> {
        let Some(w) = w else {
            return self.known.remove(eid).map(|_| (eid, None));
        };
        let last = self.known.get(eid);
        let (x, y, z) = (steps(w.x), steps(w.y), steps(w.z));
        let (prev, was_near) = match last {
            Some(k) if k.entry.life == w.life => (Some(&k.entry), k.near),
            _ => (None, false),
        };
        let own = self.config.own.contains(&eid);
        let dist = || distance((x, y, z), viewer);
        // A distance is never negative: a negative (or NaN) radius admits nothing, and the
        // square root, the costliest step of presenting, is skipped.
        let radius = |near: bool| {
            if near {
                self.config.tier.leave()
            } else {
                self.config.tier.enter()
            }
        };
        let near =
            own || (radius(was_near) >= 0.0 && self.config.tier.admits(was_near, dist() as f32));
        let in_box = [x, y, z]
            .iter()
            .all(|v| i64::from(*v).abs() <= i64::from(POSE_REACH));
        let full = near || !in_box;
        let yaw_full = yaw_steps(w.yaw);
        let yaw = if full {
            yaw_full
        } else {
            // 256 steps a turn, kept as a multiple of 256 of the 65536.
            ((u32::from(yaw_full) + 128) >> 8 << 8 & 0xffff) as u16
        };
        let mut flags = StateFlags::empty();
        flags.set(StateFlags::POSE_FULL, full);
        // The orientation is kept current on every tick it changes, like health, whatever
        // the pose's tier and rate; the entity keeps its last one when the world drops it.
        let orient = match (w.orient, prev) {
            (Some(q), _) => Some(Orientation {
                q: SmallestThree::from_xyzw(q, ORIENT_BITS),
            }),
            (None, Some(p)) => p.record.orient,
            (None, None) => None,
        };
        flags.set(StateFlags::ORIENTED, orient.is_some());
        let fresh = EntityState {
            x,
            y,
            z,
            yaw,
            flags,
            measured: tick,
            hp: w.hp,
            armor: w.armor,
            vehicle: w.vehicle,
            seat: w.seat,
            orient,
        };
        let record = match prev {
            None => fresh,
            Some(p) => {
                let p = &p.record;
                let rest_changed =
                    (p.hp, p.armor, p.vehicle, p.seat) != (w.hp, w.armor, w.vehicle, w.seat);
                let tier_changed = near != was_near;
                let pose_full = |f: StateFlags| f.contains(StateFlags::POSE_FULL);
                let differs = (p.x, p.y, p.z, p.yaw, pose_full(p.flags)) != (x, y, z, yaw, full);
                let refresh = tick.saturating_sub(p.measured) >= POSE_REFRESH;
                let due = near
                    || rest_changed
                    || tier_changed
                    || (tick.wrapping_add(u32::from(eid)))
                        .is_multiple_of(self.config.far_every.max(1));
                let send = refresh || (due && differs);
                let mut r = EntityState {
                    hp: w.hp,
                    armor: w.armor,
                    vehicle: w.vehicle,
                    seat: w.seat,
                    orient,
                    ..if send { fresh } else { *p }
                };
                r.flags.set(StateFlags::ORIENTED, orient.is_some());
                r
            }
        };
        let current = (
            record.x,
            record.y,
            record.z,
            record.yaw,
            record.flags.contains(StateFlags::POSE_FULL),
        ) == (x, y, z, yaw, full);
        let entry = Entry {
            life: w.life,
            record,
        };
        let edit = last
            .is_none_or(|k| k.entry != entry)
            .then(|| (eid, Some(entry.clone())));
        // When the policy must look at it again, whatever the world does.
        let tier_due = if own || radius(near).is_nan() || radius(near) < 0.0 {
            NONE
        } else {
            // The distance changes by no more than the client moves: it may cross the
            // boundary it is judged against next only once the client has travelled the
            // distance between them. Less a margin for the rounding of the distance (to an
            // f32 in `admits`) and of the sums, so that the look is early, never late.
            let d = dist();
            let r = f64::from(radius(near));
            let slack = (d - r).abs() - 1e-6 * (d + r.abs()) - 1e-6;
            ((self.travelled + slack.max(0.0) * TRAVEL_UNIT) as u64).min(NONE - 1)
        };
        let refresh_due = u64::from(entry.record.measured) + u64::from(POSE_REFRESH);
        let far_due = if current {
            NONE
        } else {
            // The next tick on which `(tick + eid) % far_every == 0`.
            let every = u64::from(self.config.far_every.max(1));
            let next = u64::from(tick) + 1;
            next + (every - (next + u64::from(eid)) % every) % every
        };
        moves::judge(3);
        let mut due = [NONE; 3];
        (due[TIER], due[REFRESH], due[DUE]) = (tier_due, refresh_due, far_due);
        let mut at = last.map_or([NONE; 3], |k| k.at);
        // A live entry no later than the due time stays (it comes up and is pushed again at
        // the due time); one after it is replaced by an entry at the due time.
        for (q, queue) in self.queues.iter_mut().enumerate() {
            if due[q] < at[q] {
                queue.push(due[q], eid);
                at[q] = due[q];
            }
        }
        let known = Known {
            entry,
            near,
            due,
            at,
        };
        match self.known.get_mut(eid) {
            Some(k) => *k = known,
            None => {
                self.known.insert(eid, known);
            }
        }
        edit
    }
}

/// The distance between two points given in steps (1/512 m), in metres.
fn distance(a: (i32, i32, i32), b: (i32, i32, i32)) -> f64 {
    let d = |a: i32, b: i32| (f64::from(a) - f64::from(b)) / 512.0;
    (d(a.0, b.0).powi(2) + d(a.1, b.1).powi(2) + d(a.2, b.2).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::super::harness::{apply_ops, from_seed, Shape};
    use super::*;

    #[test]
    fn reusing_an_untouched_entity_presents_what_the_full_rules_present() {
        let views = [
            ViewConfig {
                own: vec![1],
                ..ViewConfig::default()
            },
            ViewConfig::default(),
            ViewConfig {
                own: vec![],
                tier: TierBoundary::new(-1.0, -1.0),
                far_every: 1,
            },
            ViewConfig {
                own: vec![2, 3],
                tier: TierBoundary::new(20.0, 30.0),
                far_every: 3,
            },
        ];
        let mut reused = 0;
        for (seed, view) in (0..40u64).zip(views.iter().cycle()) {
            // Long enough for refreshes (POSE_REFRESH), with entities that rest: the
            // generator moves three in four each tick.
            let shape = Shape {
                ticks: 700,
                entities: 12,
                churn: 0.002,
                ..Shape::default()
            };
            let script = from_seed(shape, seed).script;
            let mut fast = Presenter::new(view.clone());
            let mut full = Presenter::new(view.clone());
            full.reuse = false;
            let (mut world, mut lives) = (World::new(), BTreeMap::new());
            for (t, ops) in script.iter().enumerate() {
                let t = t as u32 + 1;
                apply_ops(&mut world, &mut lives, ops);
                let a = fast.present(t, &world);
                assert_eq!(a, full.present(t, &world), "seed {seed}, tick {t}");
                reused += a.iter().filter(|(_, e)| e.record.measured < t).count();
            }
        }
        assert!(reused > 10_000, "the shortcut was hardly taken: {reused}");
    }

    #[test]
    fn steps_round_as_f64_round_does() {
        let by_round = |v: f32| {
            if !v.is_finite() {
                return 0;
            }
            (f64::from(v) * 512.0).round().clamp(-STEPS_MAX, STEPS_MAX) as i32
        };
        let yaw_by_round = |deg: f32| {
            if !deg.is_finite() {
                return 0;
            }
            let turns = f64::from(deg).rem_euclid(360.0) / 360.0;
            ((turns * 65536.0).round() as u32 & 0xffff) as u16
        };
        let mut values = vec![
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            0.5 / 512.0,
            -0.5 / 512.0,
            1.5 / 512.0,
            -1.5 / 512.0,
            0.499_999_97 / 512.0,
            32_767.998,
            32_768.0,
            -32_768.0,
            1e9,
            -1e9,
            f32::MAX,
            f32::MIN,
            f32::NAN,
            f32::INFINITY,
            359.999_97,
            360.0,
            -360.0,
            -0.000_1,
            0.002_746_582, // half a yaw step
        ];
        let mut x = 0x2545_f491_u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(f32::from_bits(x));
            values.push((x % 2_000_000) as f32 / 64.0 - 15_000.0);
        }
        for v in values {
            assert_eq!(steps(v), by_round(v), "{v:e}");
            assert_eq!(yaw_steps(v), yaw_by_round(v), "{v:e}");
        }
    }

    #[test]
    fn far_entities_come_quantized_when_due_and_near_ones_full() {
        // ACK-18.
        let pose_full = |s: &ServerState<EntityState>, eid: u16| {
            let entry = s.get(&eid).unwrap_or_else(|| panic!("{eid} is presented"));
            entry.record.flags.contains(StateFlags::POSE_FULL)
        };
        let mut p = Presenter::new(ViewConfig {
            own: vec![1],
            ..ViewConfig::default()
        });
        let mut w = World::new();
        let ent = |x: f32| WorldEntity {
            life: 1,
            x,
            y: 0.0,
            z: 0.0,
            yaw: 10.0,
            hp: 1,
            armor: 0,
            vehicle: 0,
            seat: 0,
            orient: None,
        };
        w.insert(1, ent(0.0));
        w.insert(2, ent(20.0));
        w.insert(3, ent(100.0));
        let s = p.present(1, &w);
        assert!(pose_full(&s, 1));
        assert!(!pose_full(&s, 2));
        assert!(pose_full(&s, 3), "outside the box");
        // Far entity 2 moves every tick: its pose changes only on its due ticks.
        let mut changes = 0;
        for t in 2..=13u32 {
            w.get_mut(&2).unwrap().x = 20.0 + t as f32 * 0.1;
            let s = p.present(t, &w);
            changes += usize::from(s.get(&2).unwrap().record.measured == t);
        }
        assert_eq!(changes, 2, "due every far_every = 6 ticks");
        // Hysteresis: 13 m stays near once near (leave 14), but does not enter (enter 12).
        w.get_mut(&2).unwrap().x = 11.0;
        let s = p.present(14, &w);
        assert!(pose_full(&s, 2));
        w.get_mut(&2).unwrap().x = 13.0;
        let s = p.present(15, &w);
        assert!(pose_full(&s, 2));
        w.get_mut(&2).unwrap().x = 14.5;
        assert!(!pose_full(&p.present(16, &w), 2));
    }
}
