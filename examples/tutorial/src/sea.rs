//! The tutorial game's server: ships in the game's own units (metres), and the loop that hands
//! each tick's ships to the encoder of the generated schema `Fleet`. What a client sees and when
//! is decided here, in the game's code; how it travels is the binding's.
//!
//! Deterministic: no clock, no randomness, only additions and products of floats, so the same
//! ticks give the same bytes on every machine (`stream.txt` depends on it).

use crate::{Fleet, Helm, SeaEvent, Ship, Sunk};
use ackwire_codec::acked::{server_check, AckedEncoder, Entry, InputSink, ServerState};
use ackwire_codec::{DecodeError, EncodeError};
use std::collections::BTreeMap;

/// Ships at sea; the player steers ship 1, the others hold their rudder.
pub const SHIPS: u16 = 4;

/// At most this many orders wait for their tick; one past it is dropped (the client repeats
/// its orders until the server says it has them).
const MAX_WAITING: usize = 64;

/// Metres a ship sails each tick (6 m/s at 60 ticks a second).
const SPEED: f32 = 0.1;

/// One ship in the game's own units.
#[derive(Debug, Clone)]
struct Boat {
    /// Which life of its id this is: a ship that sinks comes back as a new one.
    life: u32,
    x: f32,
    y: f32,
    /// Its heading, a unit vector.
    dx: f32,
    dy: f32,
    rudder: f32,
    health: u8,
}

/// The game's world: every ship, by id.
#[derive(Debug, Clone)]
pub struct Sea {
    boats: BTreeMap<u16, Boat>,
    tick: u32,
}

impl Default for Sea {
    fn default() -> Self {
        Self::new()
    }
}

impl Sea {
    /// [`SHIPS`] ships in a row, heading north.
    pub fn new() -> Self {
        let boats = (1..=SHIPS).map(|id| (id, Boat::launched(id, 1))).collect();
        Sea { boats, tick: 0 }
    }

    /// One tick: ship 1 takes the player's `helm` order, if one came; every ship sails, and
    /// one in turn is hit every 10 ticks. Returns the tick's events.
    pub fn step(&mut self, helm: Option<Helm>) -> Vec<SeaEvent> {
        self.tick += 1;
        let mut events = Vec::new();
        if let (Some(helm), Some(boat)) = (helm, self.boats.get_mut(&1)) {
            boat.rudder = helm.rudder.clamp(-1.0, 1.0) as f32;
        }
        let hit = self
            .tick
            .is_multiple_of(10)
            .then(|| (self.tick / 10 % u32::from(SHIPS)) as u16 + 1);
        for (&id, boat) in &mut self.boats {
            boat.sail();
            if hit == Some(id) {
                boat.health = boat.health.saturating_sub(25);
                if boat.health == 0 {
                    events.push(SeaEvent::Sunk(Sunk { ship: id }));
                    *boat = Boat::launched(id, boat.life + 1);
                }
            }
        }
        events
    }

    // ANCHOR: state
    /// What every client is to hold: each ship as the generated record, in its steps of
    /// 1/16 m (`quant(i32, 1/16)`), with its life.
    pub fn state(&self) -> ServerState<Ship> {
        self.boats
            .iter()
            .map(|(&id, b)| {
                let ship = Ship {
                    x: (b.x * 16.0).round() as i32,
                    y: (b.y * 16.0).round() as i32,
                    health: b.health,
                };
                (
                    id,
                    Entry {
                        life: b.life,
                        record: ship,
                    },
                )
            })
            .collect()
    }
    // ANCHOR_END: state
}

impl Boat {
    fn launched(id: u16, life: u32) -> Self {
        Boat {
            life,
            x: f32::from(id) * 40.0,
            y: 0.0,
            dx: 0.0,
            dy: 1.0,
            rudder: f32::from(id % 3) - 1.0,
            health: 100,
        }
    }

    /// Turns by the rudder (at most 1/50 rad a tick), then sails one tick ahead.
    fn sail(&mut self) {
        let s = 0.02 * self.rudder;
        let (dx, dy) = (self.dx - s * self.dy, self.dy + s * self.dx);
        let len = (dx * dx + dy * dy).sqrt();
        (self.dx, self.dy) = (dx / len, dy / len);
        self.x += SPEED * self.dx;
        self.y += SPEED * self.dy;
    }
}

/// The player's helm orders waiting for the tick they execute on: where the encoder hands the
/// orders each kind 7 frame carries.
#[derive(Debug, Clone, Default)]
pub struct Orders {
    waiting: BTreeMap<u32, Helm>,
}

impl InputSink for Orders {
    type Input = Helm;

    fn submit(&mut self, _seq: u32, tick: u32, helm: Helm, current: u64) {
        // An order for a tick gone is late; one past the limit is dropped.
        if u64::from(tick) < current
            || (self.waiting.len() >= MAX_WAITING && !self.waiting.contains_key(&tick))
        {
            return;
        }
        self.waiting.insert(tick, helm);
    }

    fn pending(&self) -> usize {
        self.waiting.len()
    }
}

impl Orders {
    /// The order aimed at `tick`, and every older one dropped.
    pub fn take(&mut self, tick: u32) -> Option<Helm> {
        let later = self.waiting.split_off(&(tick + 1));
        std::mem::replace(&mut self.waiting, later).remove(&tick)
    }
}

/// The server of one player's client: the sea, and the client's encoder over the generated
/// schema `Fleet`.
#[derive(Debug)]
pub struct Server {
    sea: Sea,
    client: AckedEncoder<Fleet, Orders>,
}

impl Default for Server {
    fn default() -> Self {
        Self::new()
    }
}

// ANCHOR: server
impl Server {
    /// A new sea, and an encoder for a client that holds nothing yet.
    pub fn new() -> Self {
        Server {
            sea: Sea::new(),
            client: AckedEncoder::new(Orders::default()),
        }
    }

    /// Server tick `tick`: the player's order for it, the world's step, and the kind 6 frame
    /// to send the client.
    pub fn tick(&mut self, tick: u32) -> Result<Vec<u8>, EncodeError> {
        let helm = self.client.inputs_mut().take(tick);
        let events = self.sea.step(helm);
        let frame = self.client.encode(tick, self.sea.state(), events)?;
        Ok(frame.bytes)
    }

    /// A kind 7 frame from the client, at server tick `tick`: its acknowledgement becomes the
    /// base of the next frames, its orders wait for their tick.
    pub fn receive(&mut self, tick: u32, bytes: &[u8]) -> Result<(), DecodeError> {
        self.client.receive(u64::from(tick), bytes)?;
        Ok(())
    }
}
// ANCHOR_END: server

impl Server {
    /// The check (CHECK-2) of the ships as they are now: what a client showing this tick must
    /// hash its state to.
    pub fn check(&self) -> u32 {
        server_check(&Fleet, &self.sea.state())
    }

    /// Every ship's record, by id.
    pub fn ships(&self) -> Vec<(u16, Ship)> {
        self.sea
            .state()
            .iter()
            .map(|(id, e)| (*id, e.record))
            .collect()
    }
}
