//! The reference protocol's [`Presenter`]: the producer of each client's S_N (`docs/spec/acked.md`)
//! from a world, with tiers judged by a [`TierBoundary`] the caller hands in (in [`ViewConfig`]).
//!
//! ACK-17: for each client the server computes S_N, what an ordered client would hold after frame
//! N, as the ordered encoder does. The same S_N feeds the ordered reference and the
//! [`AckedEncoder`](super::AckedEncoder), so the presenter lives beside both in the codec; the
//! encoder takes S_N as an argument and never calls it. The tier boundary is plain data (two radii,
//! [`crate::tier`]) that `ackwire_server::relevance` re-exports, so the presenter needs nothing of
//! the server.

use super::{Entry, ServerState, POSE_REACH};
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

fn steps(v: f32) -> i32 {
    if !v.is_finite() {
        return 0;
    }
    // An f32 holds every step of 1/512 m below 2^24 exactly (acked.wire, EntityState).
    (f64::from(v) * 512.0)
        .round()
        .clamp(-16_777_215.0, 16_777_215.0) as i32
}

fn yaw_steps(deg: f32) -> u16 {
    if !deg.is_finite() {
        return 0;
    }
    let turns = f64::from(deg).rem_euclid(360.0) / 360.0;
    ((turns * 65536.0).round() as u32 & 0xffff) as u16
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
#[derive(Debug, Clone)]
pub struct Presenter {
    config: ViewConfig,
    /// The last S_N (shared with the encoder, not copied), ascending by id: walked in step
    /// with the world (also ascending), so presenting costs no lookups.
    prev: ServerState<EntityState>,
    /// What else the presenter knew of each entity of `prev`, in the same order.
    extras: Vec<Presented>,
    /// Where the client stood last tick, in steps.
    viewer: Option<(i32, i32, i32)>,
    /// Whether an unchanged entity may keep its last record without being presented again
    /// (off only in the test that holds the shortcut to the full rules).
    pub(crate) reuse: bool,
}

/// How the presenter last computed an entity's record.
#[derive(Debug, Clone)]
struct Presented {
    near: bool,
    /// The world's entity it was computed from.
    seen: WorldEntity,
    /// Whether the record's pose is the one `seen` gives (it was sent, or did not differ).
    current: bool,
}

impl Presenter {
    /// A presenter for a client that holds nothing yet.
    pub fn new(config: ViewConfig) -> Self {
        Self {
            config,
            prev: ServerState::new(),
            extras: Vec::new(),
            viewer: None,
            reuse: true,
        }
    }

    /// The view it computes for.
    pub fn config(&self) -> &ViewConfig {
        &self.config
    }

    /// The last S_N it presented (empty before the first).
    pub(crate) fn last_state(&self) -> &ServerState<EntityState> {
        &self.prev
    }

    /// The heap it holds besides its last S_N's (see [`super::heap_bytes`]).
    pub(crate) fn own_heap_bytes(&self) -> usize {
        self.extras.capacity() * std::mem::size_of::<Presented>()
            + self.config.own.capacity() * std::mem::size_of::<u16>()
    }

    /// S_N for tick `tick` of `world`, noted with the ids whose entry differs from the last
    /// S_N's (or that came or went), which the [`AckedEncoder`](super::AckedEncoder) reads
    /// instead of comparing the two states over every entity.
    pub fn present(&mut self, tick: u32, world: &World) -> ServerState<EntityState> {
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
        let same_viewer = self.viewer == Some(viewer);
        self.viewer = Some(viewer);
        let mut next = Vec::with_capacity(world.len());
        let mut extras = Vec::with_capacity(world.len());
        // The ids whose entry differs from the last S_N's, came or went: the note the encoder
        // reads instead of comparing the two states over every entity.
        let mut changed = Vec::new();
        let mut held = self.prev.iter().zip(&self.extras).peekable();
        for (eid, w) in world {
            while let Some(((gone, _), _)) = held.next_if(|((id, _), _)| *id < eid) {
                changed.push(*gone);
            }
            let last = held.next_if(|((id, _), _)| *id == eid);
            // An entity the world did not touch, seen from where the client stood, whose
            // record is current and not due a refresh, is presented as it was: its distance
            // and tier are the same (hysteresis keeps a tier at an unchanged distance), so
            // nothing of the rules below could change its record.
            if let Some(((_, entry), p)) = last.filter(|((_, entry), p)| {
                self.reuse
                    && same_viewer
                    && p.current
                    && p.seen == *w
                    && tick.saturating_sub(entry.record.measured) < POSE_REFRESH
            }) {
                next.push((*eid, entry.clone()));
                extras.push(p.clone());
                continue;
            }
            let (x, y, z) = (steps(w.x), steps(w.y), steps(w.z));
            let (prev, was_near) = match last {
                Some(((_, entry), p)) if entry.life == w.life => (Some(entry), p.near),
                _ => (None, false),
            };
            let own = self.config.own.contains(eid);
            let d = |a: i32, b: i32| (f64::from(a) - f64::from(b)) / 512.0;
            let dist = || {
                (d(x, viewer.0).powi(2) + d(y, viewer.1).powi(2) + d(z, viewer.2).powi(2)).sqrt()
            };
            // A distance is never negative: a negative (or NaN) radius admits nothing, and the
            // square root, the costliest step of presenting, is skipped.
            let radius = if was_near {
                self.config.tier.leave()
            } else {
                self.config.tier.enter()
            };
            let near = own || (radius >= 0.0 && self.config.tier.admits(was_near, dist() as f32));
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
                    let differs =
                        (p.x, p.y, p.z, p.yaw, pose_full(p.flags)) != (x, y, z, yaw, full);
                    let refresh = tick.saturating_sub(p.measured) >= POSE_REFRESH;
                    let due = near
                        || rest_changed
                        || tier_changed
                        || (tick.wrapping_add(u32::from(*eid)))
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
            if last.is_none_or(|((_, before), _)| *before != entry) {
                changed.push(*eid);
            }
            next.push((*eid, entry));
            extras.push(Presented {
                near,
                seen: w.clone(),
                current,
            });
        }
        changed.extend(held.map(|((gone, _), _)| *gone));
        // Ascending ids, as the world's: collecting sorts nothing.
        self.prev = next
            .into_iter()
            .collect::<ServerState<_>>()
            .noted_since(&self.prev, changed);
        self.extras = extras;
        self.prev.clone()
    }
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
