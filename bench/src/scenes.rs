//! The reference scenes `ackwire bench` runs: deterministic worlds (a seeded SplitMix64, no
//! clock) whose truth every protocol replicates, tick by tick.
//!
//! - [`SceneKind::Cube`], after Glenn Fiedler's "Snapshot Compression": 901 bodies at 60 Hz,
//!   a player body that never stops and 900 cubes on a grid, most at rest, about a hundred
//!   moving at a time; positions on a grid of 512 steps per metre, as his are, and a full
//!   orientation (a unit quaternion, [`Body::rot`]) that tumbles while a cube moves and rests
//!   when it rests, as his cubes' do;
//! - [`SceneKind::Arena`]: 64 players at 20 Hz running, turning, jumping, taking damage,
//!   dying and respawning elsewhere;
//! - [`SceneKind::Floats`]: 1000 entities with one f32 each (carried as the x of a position
//!   by the protocols whose schema has no bare float), a tenth of them changing each tick.
//!
//! Every scene has a 100 ms round trip, and runs under each of [`LOSSES`] with ±2 ticks of
//! jitter. The cubes carry what Fiedler's carry (his 57 bits include a smallest-three
//! quaternion): their orientation is [`Body::rot`] and their heading ([`Body::yaw`]) stays 0,
//! so that no protocol sends a heading beside the quaternion. The arena's players and the
//! floats keep a heading and no orientation ([`Body::rot`] stays the identity): a runner
//! turns about the vertical only, and a float has no pose at all.

use ackwire_sim::SplitMix64;

/// Loss each way, per cent, that every scene runs under.
pub const LOSSES: [f64; 5] = [0.0, 2.0, 5.0, 10.0, 25.0];

/// Jitter either way of the one-way delay, ticks.
pub const JITTER_TICKS: u32 = 2;

/// Round trip of every scene, milliseconds.
pub const RTT_MS: u32 = 100;

/// Positions of the truth lie on a grid of this many steps per metre.
pub const STEPS_PER_METRE: f32 = 512.0;

/// Which reference scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// Fiedler's cubes.
    Cube,
    /// 64 players.
    Arena,
    /// 1000 floats.
    Floats,
}

impl SceneKind {
    /// Every scene, in report order.
    pub const ALL: [SceneKind; 3] = [SceneKind::Cube, SceneKind::Arena, SceneKind::Floats];

    /// The short name (`cube`, `arena`, `floats`).
    pub fn name(self) -> &'static str {
        match self {
            SceneKind::Cube => "cube",
            SceneKind::Arena => "arena",
            SceneKind::Floats => "floats",
        }
    }

    /// One line on what the scene is.
    pub fn title(self) -> &'static str {
        match self {
            SceneKind::Cube => "Cubes (after Fiedler): 901 bodies at 60 Hz, ~100 moving",
            SceneKind::Arena => "Arena: 64 players at 20 Hz",
            SceneKind::Floats => "Floats: 1000 entities with one f32, 60 Hz",
        }
    }

    /// What the scene is and why it is here, for the bench's report page.
    pub fn description(self) -> &'static str {
        match self {
            SceneKind::Cube => {
                "After Glenn Fiedler's [Snapshot Compression]\
                 (https://gafferongames.com/post/snapshot_compression/): 901 bodies, one always \
                 moving and about a hundred cubes moving at a time (hops, slides, tumbles) while \
                 the rest rest; positions on a grid of 512 steps per metre and, as his cubes \
                 have, a full orientation (a unit quaternion that tumbles about a random axis \
                 while a cube moves and rests when it rests). Every protocol carries it: the \
                 peers as four f32, datagram v2 as a component holding the runtime's smallest \
                 three (9 bits a component, 29 bits in 4 bytes), the acked protocols in the \
                 reference schema's orientation group, and NetBaseline, whose reference schema \
                 has no orientation component, as the same 29 bits in its Velocity component \
                 (a stand-in: the cubes have no velocity to send)."
            }
            SceneKind::Arena => {
                "64 players running, turning, jumping, taking damage, dying and respawning \
                 elsewhere; the client plays player 1, which the acked presenter sends in full \
                 and NetBaseline's budget sends first. A respawn is a jump of tens of metres, \
                 the same for every protocol: it sets the worst render error."
            }
            SceneKind::Floats => {
                "1000 entities with one f32 each, a tenth of them changing each tick, all over \
                 the world (carried as the x of a position by the protocols whose schema has no \
                 bare float): scattered changes, the delta protocols' worst case."
            }
        }
    }

    /// Ticks per second.
    pub fn hz(self) -> u32 {
        match self {
            SceneKind::Arena => 20,
            SceneKind::Cube | SceneKind::Floats => 60,
        }
    }

    /// Entities in the world.
    pub fn entities(self) -> u16 {
        match self {
            SceneKind::Cube => 901,
            SceneKind::Arena => 64,
            SceneKind::Floats => 1000,
        }
    }

    /// The one-way delay in whole ticks (half the round trip), at least one.
    pub fn one_way_ticks(self) -> u32 {
        (RTT_MS * self.hz()).div_ceil(2000).max(1)
    }

    /// The entity the client plays, if the scene has one: its own entity is sent in full by
    /// the acked presenter and goes first under NetBaseline's budget.
    pub fn own(self) -> Option<u16> {
        match self {
            SceneKind::Arena => Some(1),
            SceneKind::Cube | SceneKind::Floats => None,
        }
    }

    /// Whether the scene's entities carry a full orientation (the cubes do; the others keep
    /// [`Body::rot`] at the identity and turn, if at all, by [`Body::yaw`]).
    pub fn has_orientation(self) -> bool {
        self == SceneKind::Cube
    }

    /// Whether the scene's entities carry health (the arena's players do).
    pub fn has_health(self) -> bool {
        self == SceneKind::Arena
    }

    /// By name.
    pub fn from_name(name: &str) -> Option<SceneKind> {
        SceneKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One entity's truth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Its id, from 1.
    pub id: u16,
    /// East, north, up, metres (on the 1/512 m grid).
    pub pos: [f32; 3],
    /// Heading, degrees in [0, 360) (0 on the cube scene, whose bodies turn by `rot`).
    pub yaw: f32,
    /// Orientation, a unit quaternion `[x, y, z, w]` (the cube scene's; the identity
    /// `[0, 0, 0, 1]` elsewhere). Its `w` is kept non-negative, so that a quaternion and its
    /// negation (the same rotation) are never both seen.
    pub rot: [f32; 4],
    /// Hit points (the arena's; 0 elsewhere).
    pub hp: u8,
}

/// How a body moves, per scene.
#[derive(Debug, Clone, Copy, Default)]
struct Motion {
    /// Metres per second.
    vel: [f32; 3],
    /// Angular velocity, radians per second about the east, north and up axes (cubes).
    omega: [f32; 3],
    /// Ticks of motion left (cubes), or of death (players).
    left: u32,
}

/// A reference scene: its truth and what the last tick changed.
#[derive(Debug, Clone)]
pub struct Scene {
    kind: SceneKind,
    rng: SplitMix64,
    bodies: Vec<Body>,
    motion: Vec<Motion>,
    changed: Vec<usize>,
    tick: u32,
}

fn snap(v: f32) -> f32 {
    (v * STEPS_PER_METRE).round() / STEPS_PER_METRE
}

fn wrap_deg(d: f32) -> f32 {
    d.rem_euclid(360.0)
}

/// The identity rotation, `[x, y, z, w]`.
pub const IDENTITY: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// The rotation of `angle` radians about the up axis.
fn about_up(angle: f64) -> [f32; 4] {
    let half = angle / 2.0;
    canonical([0.0, 0.0, half.sin(), half.cos()])
}

/// `q` normalised (in f64) with `w >= 0`: `q` and `-q` are one rotation, and the scene keeps
/// one of them so that a body at rest is always the same four floats.
fn canonical(q: [f64; 4]) -> [f32; 4] {
    let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    q.map(|c| (sign * c / norm) as f32)
}

/// `q` turned by the angular velocity `omega` (radians per second, world axes) for `dt`
/// seconds: the rotation `exp(omega dt / 2)` applied after `q`, in f64.
fn tumble(q: [f32; 4], omega: [f32; 3], dt: f32) -> [f32; 4] {
    let w = omega.map(f64::from);
    let rate = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    if rate == 0.0 {
        return q;
    }
    let half = rate * f64::from(dt) / 2.0;
    let s = half.sin() / rate;
    let (ax, ay, az, aw) = (w[0] * s, w[1] * s, w[2] * s, half.cos());
    let [bx, by, bz, bw] = q.map(f64::from);
    // The Hamilton product a * b: the world-frame turn after the body's orientation.
    canonical([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])
}

/// The angle between two orientations, degrees: `2 acos |a · b|` (0 for the same rotation,
/// whichever sign either quaternion has), on normalised copies so that a drawn quaternion a
/// little off unit length is not charged for its length.
pub fn angle_between_deg(a: [f32; 4], b: [f32; 4]) -> f64 {
    let a = a.map(f64::from);
    let b = b.map(f64::from);
    let norm = |q: &[f64; 4]| q.iter().map(|c| c * c).sum::<f64>().sqrt();
    let (na, nb) = (norm(&a), norm(&b));
    if na == 0.0 || nb == 0.0 || !na.is_finite() || !nb.is_finite() {
        return 180.0;
    }
    let dot = a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() / (na * nb);
    (2.0 * dot.abs().min(1.0).acos()).to_degrees()
}

/// The half-width of the cubes' and players' floor, metres: inside the acked stream's
/// quantized box (±16383 steps of 1/512 m), as Fiedler's cubes stay on their floor.
const FLOOR: f32 = 30.0;
/// Gravity, metres per second squared.
const GRAVITY: f32 = 9.81;
/// A cube resting on the floor has its centre this high.
const CUBE_REST_Z: f32 = 0.5;

impl Scene {
    /// The scene of `kind` at tick 0, every body in place, drawn from `seed`.
    pub fn new(kind: SceneKind, seed: u64) -> Scene {
        let mut rng = SplitMix64::new(seed ^ (kind as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let n = usize::from(kind.entities());
        let mut bodies = Vec::with_capacity(n);
        let mut motion = vec![Motion::default(); n];
        for (i, m) in motion.iter_mut().enumerate() {
            let id = i as u16 + 1;
            let body = match kind {
                SceneKind::Cube => {
                    if i == 0 {
                        // The player's body, circling the grid.
                        Body {
                            id,
                            pos: [0.0, -12.0, 1.0],
                            yaw: 0.0,
                            rot: IDENTITY,
                            hp: 0,
                        }
                    } else {
                        // 30 × 30 cubes, 1.5 m apart, centred on the origin.
                        let (gx, gy) = ((i - 1) % 30, (i - 1) / 30);
                        Body {
                            id,
                            pos: [
                                snap(gx as f32 * 1.5 - 21.75),
                                snap(gy as f32 * 1.5 - 21.75),
                                CUBE_REST_Z,
                            ],
                            yaw: 0.0,
                            // Each cube rests turned about the vertical its own way.
                            rot: about_up(rng.next_f64() * std::f64::consts::TAU),
                            hp: 0,
                        }
                    }
                }
                SceneKind::Arena => {
                    let heading = (rng.next_f64() * 360.0) as f32;
                    *m = run_motion(heading, &mut rng);
                    Body {
                        id,
                        pos: random_floor_point(&mut rng),
                        yaw: heading,
                        rot: IDENTITY,
                        hp: 100,
                    }
                }
                SceneKind::Floats => Body {
                    id,
                    pos: [snap((rng.next_f64() * 60.0 - 30.0) as f32), 0.0, 0.0],
                    yaw: 0.0,
                    rot: IDENTITY,
                    hp: 0,
                },
            };
            bodies.push(body);
        }
        Scene {
            kind,
            rng,
            bodies,
            motion,
            changed: (0..n).collect(),
            tick: 0,
        }
    }

    /// Which scene.
    pub fn kind(&self) -> SceneKind {
        self.kind
    }

    /// The tick the truth is at (0 before the first [`step`](Self::step)).
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Every body, in id order.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Indices (into [`bodies`](Self::bodies)) of the bodies the last step changed; every
    /// body before the first step.
    pub fn changed(&self) -> &[usize] {
        &self.changed
    }

    /// Advances the truth one tick.
    pub fn step(&mut self) {
        self.tick += 1;
        let dt = 1.0 / self.kind.hz() as f32;
        let before = self.bodies.clone();
        match self.kind {
            SceneKind::Cube => self.step_cubes(dt),
            SceneKind::Arena => self.step_arena(dt),
            SceneKind::Floats => self.step_floats(),
        }
        self.changed.clear();
        for (i, (b, a)) in before.iter().zip(&self.bodies).enumerate() {
            if b != a {
                self.changed.push(i);
            }
        }
    }

    fn step_cubes(&mut self, dt: f32) {
        // The player's body circles at 4 m/s, 12 m from the centre.
        let angle = self.tick as f32 * dt * 4.0 / 12.0;
        let player = &mut self.bodies[0];
        player.pos = [snap(12.0 * angle.sin()), snap(-12.0 * angle.cos()), 1.0];
        // It faces along its circle: a turn about the vertical, as a quaternion.
        player.rot = about_up(f64::from(angle));
        // About a hundred cubes moving: each moves for 40 to 80 ticks (one second on
        // average), so 100 / 60 start a tick.
        let starts = 1 + u32::from(self.rng.chance(2.0 / 3.0));
        for _ in 0..starts {
            let i = 1 + self.rng.below_or_at(899) as usize;
            if self.motion[i].left == 0 {
                let m = &mut self.motion[i];
                let dir = self.rng.next_f64() as f32 * std::f32::consts::TAU;
                let speed = 1.0 + self.rng.next_f64() as f32 * 3.0;
                m.vel = [
                    speed * dir.cos(),
                    speed * dir.sin(),
                    2.0 + 2.0 * self.rng.next_f64() as f32,
                ];
                // A tumble about a random axis (uniform on the sphere), 90 to 360 degrees a
                // second.
                let up = self.rng.next_f64() * 2.0 - 1.0;
                let around = self.rng.next_f64() * std::f64::consts::TAU;
                let flat = (1.0 - up * up).max(0.0).sqrt();
                let rate = (90.0 + self.rng.next_f64() * 270.0).to_radians();
                m.omega = [
                    (rate * flat * around.cos()) as f32,
                    (rate * flat * around.sin()) as f32,
                    (rate * up) as f32,
                ];
                m.left = 40 + self.rng.below_or_at(40) as u32;
            }
        }
        for i in 1..self.bodies.len() {
            let m = &mut self.motion[i];
            if m.left == 0 {
                continue;
            }
            m.left -= 1;
            let b = &mut self.bodies[i];
            if m.left == 0 {
                // Settles: on the floor, still, keeping the orientation it has; its last
                // change.
                b.pos[2] = CUBE_REST_Z;
                continue;
            }
            m.vel[2] -= GRAVITY * dt;
            for (axis, p) in b.pos.iter_mut().enumerate() {
                let mut next = *p + m.vel[axis] * dt;
                if axis < 2 && next.abs() > FLOOR {
                    m.vel[axis] = -m.vel[axis];
                    next = next.clamp(-FLOOR, FLOOR);
                }
                if axis == 2 && next < CUBE_REST_Z {
                    // A bounce that loses half its speed.
                    m.vel[2] = m.vel[2].abs() * 0.5;
                    next = CUBE_REST_Z;
                }
                *p = snap(next);
            }
            b.rot = tumble(b.rot, m.omega, dt);
        }
    }

    fn step_arena(&mut self, dt: f32) {
        for i in 0..self.bodies.len() {
            let (b, m) = (&mut self.bodies[i], &mut self.motion[i]);
            if b.hp == 0 {
                // Dead for three seconds, then back elsewhere, whole.
                m.left = m.left.saturating_sub(1);
                if m.left == 0 {
                    b.pos = random_floor_point(&mut self.rng);
                    b.yaw = (self.rng.next_f64() * 360.0) as f32;
                    b.hp = 100;
                    *m = run_motion(b.yaw, &mut self.rng);
                }
                continue;
            }
            // Now and then a player stops, turns or starts again.
            if self.rng.chance(0.05) {
                let heading = wrap_deg(b.yaw + (self.rng.next_f64() as f32 - 0.5) * 180.0);
                *m = run_motion(heading, &mut self.rng);
            }
            if b.pos[2] <= 0.0 && self.rng.chance(0.02) {
                m.vel[2] = 4.5;
            }
            m.vel[2] = if b.pos[2] > 0.0 || m.vel[2] > 0.0 {
                m.vel[2] - GRAVITY * dt
            } else {
                0.0
            };
            for (axis, p) in b.pos.iter_mut().enumerate() {
                let mut next = *p + m.vel[axis] * dt;
                if axis < 2 && next.abs() > FLOOR {
                    m.vel[axis] = -m.vel[axis];
                    next = next.clamp(-FLOOR, FLOOR);
                }
                if axis == 2 && next < 0.0 {
                    next = 0.0;
                    m.vel[2] = 0.0;
                }
                *p = snap(next);
            }
            if m.vel[0] != 0.0 || m.vel[1] != 0.0 {
                b.yaw = snap(wrap_deg(m.vel[1].atan2(m.vel[0]).to_degrees()));
            }
            if self.rng.chance(0.01) {
                let damage = 10 + self.rng.below_or_at(30) as u8;
                b.hp = b.hp.saturating_sub(damage);
                if b.hp == 0 {
                    m.left = 3 * SceneKind::Arena.hz();
                }
            }
        }
    }

    fn step_floats(&mut self) {
        for b in &mut self.bodies {
            if self.rng.chance(0.1) {
                let step = (self.rng.next_f64() as f32 - 0.5) * 1.0;
                b.pos[0] = snap((b.pos[0] + step).clamp(-FLOOR, FLOOR));
            }
        }
    }
}

fn random_floor_point(rng: &mut SplitMix64) -> [f32; 3] {
    let mut c = || snap((rng.next_f64() as f32 * 2.0 - 1.0) * (FLOOR - 2.0));
    [c(), c(), 0.0]
}

/// A player's run along `heading`: 6 m/s, or standing still one time in five.
fn run_motion(heading: f32, rng: &mut SplitMix64) -> Motion {
    let speed = if rng.chance(0.2) { 0.0 } else { 6.0 };
    let h = heading.to_radians();
    Motion {
        vel: [speed * h.cos(), speed * h.sin(), 0.0],
        omega: [0.0; 3],
        left: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: SceneKind, ticks: u32) -> (Scene, f64) {
        let mut s = Scene::new(kind, 7);
        let mut changed = 0usize;
        for _ in 0..ticks {
            s.step();
            changed += s.changed().len();
        }
        (s, changed as f64 / f64::from(ticks))
    }

    #[test]
    fn the_same_seed_gives_the_same_truth() {
        for kind in SceneKind::ALL {
            let (a, _) = run(kind, 300);
            let (b, _) = run(kind, 300);
            assert_eq!(a.bodies(), b.bodies(), "{}", kind.name());
        }
        let (a, _) = run(SceneKind::Cube, 300);
        let mut other = Scene::new(SceneKind::Cube, 8);
        (0..300).for_each(|_| other.step());
        assert_ne!(a.bodies(), other.bodies());
    }

    #[test]
    fn about_a_hundred_cubes_move_at_a_time() {
        let (_, per_tick) = run(SceneKind::Cube, 1800);
        assert!(
            (70.0..=130.0).contains(&per_tick),
            "{per_tick} cubes a tick"
        );
    }

    #[test]
    fn positions_stay_on_the_grid_and_on_the_floor() {
        for kind in SceneKind::ALL {
            let (s, _) = run(kind, 1200);
            assert_eq!(s.bodies().len(), usize::from(kind.entities()));
            for b in s.bodies() {
                for p in b.pos {
                    assert_eq!(p * STEPS_PER_METRE, (p * STEPS_PER_METRE).round(), "{b:?}");
                    assert!(p.abs() <= FLOOR + 1.0, "{b:?}");
                }
                assert!((0.0..360.0).contains(&b.yaw), "{b:?}");
            }
        }
    }

    #[test]
    fn cubes_tumble_while_they_move_and_rest_when_they_rest() {
        let mut s = Scene::new(SceneKind::Cube, 7);
        let (mut turned_moving, mut turned_resting, mut moved) = (0usize, 0usize, 0usize);
        let mut prev = s.bodies().to_vec();
        for _ in 0..1200 {
            s.step();
            for (a, b) in prev.iter().zip(s.bodies()) {
                let norm = b.rot.iter().map(|c| c * c).sum::<f32>();
                assert!((norm - 1.0).abs() < 1e-5, "{b:?}");
                assert!(b.rot[3] >= 0.0, "{b:?}");
                assert_eq!(b.yaw, 0.0, "{b:?}");
                let turned = a.rot != b.rot;
                if a.pos != b.pos {
                    moved += 1;
                    turned_moving += usize::from(turned);
                } else {
                    turned_resting += usize::from(turned);
                }
            }
            prev = s.bodies().to_vec();
        }
        // A cube that moves turns (all but its settling tick), one at rest never does.
        assert_eq!(turned_resting, 0);
        assert!(turned_moving * 10 > moved * 9, "{turned_moving} of {moved}");
        // Tumbling is about every axis, not the vertical only: many cubes end tilted.
        let tilted = s.bodies()[1..]
            .iter()
            .filter(|b| b.rot[0].abs() > 0.1 || b.rot[1].abs() > 0.1)
            .count();
        assert!(tilted > 300, "{tilted} tilted cubes");
        // The player faces along its circle.
        let p = s.bodies()[0];
        assert_eq!((p.rot[0], p.rot[1]), (0.0, 0.0), "{p:?}");
    }

    #[test]
    fn players_and_floats_have_no_orientation() {
        for kind in [SceneKind::Arena, SceneKind::Floats] {
            let (s, _) = run(kind, 600);
            assert!(!kind.has_orientation());
            assert!(
                s.bodies().iter().all(|b| b.rot == IDENTITY),
                "{}",
                kind.name()
            );
        }
        assert!(SceneKind::Cube.has_orientation());
    }

    #[test]
    fn the_angle_between_orientations_ignores_sign_and_length() {
        let q = about_up(1.0);
        assert!(angle_between_deg(q, q) < 1e-3);
        assert!(angle_between_deg(q, q.map(|c| -c)) < 1e-3);
        assert!(angle_between_deg(q, q.map(|c| 2.0 * c)) < 1e-3);
        let a = angle_between_deg(IDENTITY, about_up(90f64.to_radians()));
        assert!((a - 90.0).abs() < 1e-3, "{a}");
        let turned = tumble(IDENTITY, [0.0, std::f32::consts::PI, 0.0], 0.5);
        let a = angle_between_deg(IDENTITY, turned);
        assert!((a - 90.0).abs() < 1e-3, "{a}");
        assert_eq!(angle_between_deg(IDENTITY, [0.0; 4]), 180.0);
    }

    #[test]
    fn players_die_and_come_back_and_most_move() {
        let mut s = Scene::new(SceneKind::Arena, 3);
        let (mut deaths, mut respawns, mut moving) = (0, 0, 0usize);
        let mut prev = s.bodies().to_vec();
        for _ in 0..2400 {
            s.step();
            for (a, b) in prev.iter().zip(s.bodies()) {
                deaths += usize::from(a.hp > 0 && b.hp == 0);
                respawns += usize::from(a.hp == 0 && b.hp == 100);
            }
            moving += s.changed().len();
            prev = s.bodies().to_vec();
        }
        assert!(
            deaths > 10 && respawns > 10,
            "{deaths} deaths, {respawns} respawns"
        );
        let per_tick = moving as f64 / 2400.0;
        assert!(
            per_tick > 32.0 && per_tick < 64.0,
            "{per_tick} players change a tick"
        );
    }

    #[test]
    fn a_tenth_of_the_floats_change_a_tick() {
        let (_, per_tick) = run(SceneKind::Floats, 600);
        assert!((80.0..=120.0).contains(&per_tick), "{per_tick}");
    }

    #[test]
    fn the_round_trip_is_100_ms_in_ticks() {
        assert_eq!(SceneKind::Cube.one_way_ticks(), 3);
        assert_eq!(SceneKind::Arena.one_way_ticks(), 1);
        assert_eq!(SceneKind::from_name("arena"), Some(SceneKind::Arena));
        assert_eq!(SceneKind::from_name("nope"), None);
    }
}
