//! The arena's server simulation: players that run, aim and fire, projectiles that fly and hit,
//! pickups that heal or arm, at 60 ticks a second. It is the game's own code: it computes the
//! world and hands the acked machines each tick's state as the generated record [`Entity`];
//! what travels and how is the binding's, generated from `state Arena` in `wire/game.wire`.
//!
//! Deterministic: the only randomness is a seeded generator of the bots' commands, so the same
//! seed gives the same world on every machine.

use crate::{
    ArenaEvent, Buttons, Command, Entity, EntityKind, Fired, Picked, Pickup, Player, Projectile,
    Struck,
};
use ackwire_codec::acked::{Entry, InputSink, ServerState};
use ackwire_rt::BitSet;
use std::collections::BTreeMap;

/// Half the arena's side, metres: every position lies within 30 m of the centre, so a step from
/// any base reaches it (the step form's reach, 8191 steps of 1/256 m, is 32 m).
pub const HALF_SIDE: f32 = 30.0;
/// Ticks a second.
pub const TICK_RATE: f32 = 60.0;
/// A player's speed, metres a second, at a full stick.
const RUN_SPEED: f32 = 6.0;
/// A projectile's speed, metres a second.
const SHOT_SPEED: f32 = 24.0;
/// Ticks a projectile flies before it is gone.
const SHOT_LIFE: u32 = 45;
/// Ticks between two shots of one player.
const RELOAD: u32 = 20;
/// How close, metres, a projectile or a pickup must come to a player to touch it.
const REACH: f32 = 0.8;
/// The first id of the projectiles; ids cycle through the 1000 after it.
const FIRST_SHOT: u16 = 1000;
/// The first id of the pickups.
const FIRST_PICKUP: u16 = 200;
/// A pickup's position is measured again every this many ticks (its age stays small).
const PICKUP_REFRESH: u32 = 64;

/// What kind of thing a body is, and its own part.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Player {
        /// Heading of the aim, degrees.
        aim: f32,
        health: u8,
        weapon: u8,
        /// The tick the player may fire again.
        ready: u32,
    },
    Projectile {
        owner: u16,
        /// The tick it is gone.
        until: u32,
    },
    Pickup {
        item: u8,
    },
}

/// A body of the world, in the game's own units (metres, metres a second).
#[derive(Debug, Clone, PartialEq)]
struct Body {
    life: u32,
    x: f32,
    y: f32,
    vx: f32,
    vy: f32,
    part: Part,
}

/// The arena's world and its rules.
#[derive(Debug, Clone)]
pub struct Arena {
    bodies: BTreeMap<u16, Body>,
    /// Every id's latest life, so that an id used again starts a new one.
    lives: BTreeMap<u16, u32>,
    rng: u64,
    next_shot: u16,
}

/// The commands of a player's client waiting for the tick they execute on: what the acked
/// server half hands its inputs to.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    waiting: BTreeMap<u32, Command>,
}

/// At most this many commands wait; a newer one past it replaces nothing and is dropped (the
/// client repeats its commands, and one second of them is plenty).
pub const MAX_WAITING: usize = 64;

impl InputSink for Commands {
    type Input = Command;

    fn submit(&mut self, _seq: u32, tick: u32, input: Command, current: u64) {
        // A command for a tick gone is late; one past the limit is dropped.
        if u64::from(tick) < current
            || (self.waiting.len() >= MAX_WAITING && !self.waiting.contains_key(&tick))
        {
            return;
        }
        self.waiting.insert(tick, input);
    }

    fn pending(&self) -> usize {
        self.waiting.len()
    }
}

impl Commands {
    /// The command aimed at `tick`, and every older one dropped.
    pub fn take(&mut self, tick: u32) -> Option<Command> {
        let later = self.waiting.split_off(&(tick + 1));
        let now = std::mem::replace(&mut self.waiting, later);
        now.get(&tick).cloned()
    }
}

/// A position as the record holds it: whole steps of 1/256 m.
fn steps(metres: f32) -> i32 {
    (metres * 256.0).round() as i32
}

/// A velocity as the record holds it: whole steps of 1/64 m a second.
fn speed(metres_per_second: f32) -> i16 {
    (metres_per_second * 64.0).round() as i16
}

/// An angle in degrees as a whole number of 256 steps a turn.
fn aim_steps(degrees: f32) -> u8 {
    ((degrees.rem_euclid(360.0) / (360.0 / 256.0)).round() as u32 % 256) as u8
}

/// An angle in degrees on the grid a command's `quant(u8, 360/256)` keeps.
fn heading(degrees: f32) -> f64 {
    f64::from(aim_steps(degrees)) * (360.0 / 256.0)
}

impl Arena {
    /// A world of `players` players (ids 1 to `players`, at most 100) and four pickups, its
    /// bots' commands drawn from `seed`.
    pub fn new(players: u16, seed: u64) -> Self {
        let mut arena = Arena {
            bodies: BTreeMap::new(),
            lives: BTreeMap::new(),
            rng: seed ^ 0x9e37_79b9_7f4a_7c15,
            next_shot: 0,
        };
        for id in 1..=players.min(100) {
            arena.spawn_player(id);
        }
        for (i, id) in (FIRST_PICKUP..FIRST_PICKUP + 4).enumerate() {
            arena.spawn_pickup(id, (i % 2) as u8);
        }
        arena
    }

    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number from -1 to 1.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    fn place(&mut self) -> (f32, f32) {
        (self.unit() * HALF_SIDE * 0.9, self.unit() * HALF_SIDE * 0.9)
    }

    fn insert(&mut self, id: u16, x: f32, y: f32, vx: f32, vy: f32, part: Part) {
        let life = self.lives.entry(id).and_modify(|l| *l += 1).or_insert(1);
        let body = Body {
            life: *life,
            x,
            y,
            vx,
            vy,
            part,
        };
        self.bodies.insert(id, body);
    }

    fn spawn_player(&mut self, id: u16) {
        let (x, y) = self.place();
        let part = Part::Player {
            aim: 0.0,
            health: 100,
            weapon: 0,
            ready: 0,
        };
        self.insert(id, x, y, 0.0, 0.0, part);
    }

    fn spawn_pickup(&mut self, id: u16, item: u8) {
        let (x, y) = self.place();
        self.insert(id, x, y, 0.0, 0.0, Part::Pickup { item });
    }

    /// A bot's command for player `id` at `tick`: it wanders, turns and fires now and then.
    pub fn bot(&mut self, tick: u32) -> Command {
        let mut buttons = Buttons::empty();
        if self.next().is_multiple_of(8) {
            buttons = buttons.with(Buttons::FIRE);
        }
        if self.next().is_multiple_of(97) {
            buttons = buttons.with(Buttons::SWITCH);
        }
        Command {
            tick,
            buttons,
            move_x: f64::from((self.unit() * 127.0).round()) / 127.0,
            move_y: f64::from((self.unit() * 127.0).round()) / 127.0,
            aim: heading(self.unit() * 180.0 + 180.0),
        }
    }

    /// One tick of the world: each player's command (a player without one keeps its course),
    /// then every body moves, projectiles hit, pickups are taken. Returns the tick's events.
    pub fn step(&mut self, tick: u32, commands: &BTreeMap<u16, Command>) -> Vec<ArenaEvent> {
        let mut events = Vec::new();
        let dt = 1.0 / TICK_RATE;
        // Commands: run, aim, switch, fire.
        let mut shots = Vec::new();
        for (&id, command) in commands {
            let Some(body) = self.bodies.get_mut(&id) else {
                continue;
            };
            let Part::Player {
                aim, weapon, ready, ..
            } = &mut body.part
            else {
                continue;
            };
            body.vx = command.move_x as f32 * RUN_SPEED;
            body.vy = command.move_y as f32 * RUN_SPEED;
            *aim = command.aim as f32;
            if command.buttons.contains(Buttons::SWITCH) {
                *weapon = 1 - (*weapon).min(1);
            }
            if command.buttons.contains(Buttons::FIRE) && tick >= *ready {
                *ready = tick + RELOAD;
                let (sin, cos) = aim.to_radians().sin_cos();
                shots.push((id, body.x, body.y, cos * SHOT_SPEED, sin * SHOT_SPEED));
            }
        }
        for (owner, x, y, vx, vy) in shots {
            let id = FIRST_SHOT + self.next_shot;
            self.next_shot = (self.next_shot + 1) % 1000;
            let part = Part::Projectile {
                owner,
                until: tick + SHOT_LIFE,
            };
            self.insert(id, x, y, vx, vy, part);
            events.push(ArenaEvent::Fired(Fired {
                shooter: owner,
                projectile: id,
            }));
        }
        // Motion: players bounce off the walls; a projectile leaving the arena is gone.
        let mut gone = Vec::new();
        for (&id, body) in &mut self.bodies {
            body.x += body.vx * dt;
            body.y += body.vy * dt;
            let out = body.x.abs() > HALF_SIDE || body.y.abs() > HALF_SIDE;
            match body.part {
                Part::Projectile { until, .. } if out || tick >= until => gone.push(id),
                _ if out => {
                    body.x = body.x.clamp(-HALF_SIDE, HALF_SIDE);
                    body.y = body.y.clamp(-HALF_SIDE, HALF_SIDE);
                    body.vx = -body.vx;
                    body.vy = -body.vy;
                }
                _ => {}
            }
        }
        for id in gone {
            self.bodies.remove(&id);
        }
        self.touch(&mut events);
        events
    }

    /// Projectiles hitting players, players taking pickups.
    fn touch(&mut self, events: &mut Vec<ArenaEvent>) {
        let players: Vec<(u16, f32, f32)> = self
            .bodies
            .iter()
            .filter(|(_, b)| matches!(b.part, Part::Player { .. }))
            .map(|(&id, b)| (id, b.x, b.y))
            .collect();
        let near = |b: &Body, x: f32, y: f32| (b.x - x).hypot(b.y - y) < REACH;
        let mut spent = Vec::new();
        let mut taken = Vec::new();
        for (&id, body) in &self.bodies {
            for &(player, x, y) in &players {
                match body.part {
                    Part::Projectile { owner, .. } if owner != player && near(body, x, y) => {
                        spent.push((id, player, owner));
                        break;
                    }
                    Part::Pickup { item } if near(body, x, y) => {
                        taken.push((id, player, item));
                        break;
                    }
                    _ => {}
                }
            }
        }
        for (shot, victim, owner) in spent {
            self.bodies.remove(&shot);
            let damage = match self.bodies.get(&owner).map(|b| &b.part) {
                Some(Part::Player { weapon: 1, .. }) => 35,
                _ => 15,
            };
            let mut dead = false;
            if let Some(Part::Player { health, .. }) =
                self.bodies.get_mut(&victim).map(|b| &mut b.part)
            {
                *health = health.saturating_sub(damage);
                dead = *health == 0;
            }
            events.push(ArenaEvent::Struck(Struck { victim, damage }));
            if dead {
                self.spawn_player(victim);
            }
        }
        for (pickup, player, item) in taken {
            if let Some(Part::Player { health, weapon, .. }) =
                self.bodies.get_mut(&player).map(|b| &mut b.part)
            {
                match item {
                    0 => *health = (*health + 25).min(100),
                    _ => *weapon = 1,
                }
            }
            events.push(ArenaEvent::Picked(Picked { player, item }));
            self.spawn_pickup(pickup, 1 - item);
        }
    }

    /// The state S_N at `tick` every client is shown (the arena is small: everyone sees all),
    /// as the generated record of `state Arena`.
    pub fn state(&self, tick: u32) -> ServerState<Entity> {
        self.bodies
            .iter()
            .map(|(&id, b)| {
                let mut flags = EntityKind::empty();
                let (mut player, mut projectile, mut pickup) = (None, None, None);
                let mut measured = tick;
                match b.part {
                    Part::Player {
                        aim,
                        health,
                        weapon,
                        ..
                    } => {
                        flags = flags.with(EntityKind::PLAYER);
                        player = Some(Player {
                            aim: aim_steps(aim),
                            health,
                            weapon,
                        });
                    }
                    Part::Projectile { owner, .. } => {
                        flags = flags.with(EntityKind::PROJECTILE);
                        projectile = Some(Projectile { owner });
                    }
                    Part::Pickup { item } => {
                        flags = flags.with(EntityKind::PICKUP);
                        pickup = Some(Pickup { item });
                        measured = tick - tick % PICKUP_REFRESH;
                    }
                }
                let record = Entity {
                    flags,
                    x: steps(b.x),
                    y: steps(b.y),
                    measured,
                    vx: speed(b.vx),
                    vy: speed(b.vy),
                    player,
                    projectile,
                    pickup,
                };
                (
                    id,
                    Entry {
                        life: b.life,
                        record,
                    },
                )
            })
            .collect()
    }
}
