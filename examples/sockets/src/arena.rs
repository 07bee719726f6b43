//! examples/game's arena through the acked machines over its own generated binding (`Arena`,
//! from `state Arena` of the game's layout): the game's server simulation, its player 1 played
//! by the client (its commands come in the kind 7 acks and execute at their tick), the others
//! by bots, one frame a tick, and the hash of S_N for the judge.
//!
//! The arena is small: every client sees everything, so S_N is the world's state, hashed as the
//! check hashes it; [`ArenaStream::step`] refuses to go on when a frame's check differs from
//! the hash it logs.

use crate::cube::TickOut;
use ackwire_codec::acked::{server_check, AckedEncoder, AckedSchema};
use ackwire_codec::session::Transmit;
use ackwire_example_game::arena::{Arena as World, Commands};
use ackwire_example_game::Arena;
use std::collections::BTreeMap;

/// Players in the arena; the client plays player 1.
const PLAYERS: u16 = 6;

/// The arena streamed to one client.
pub struct ArenaStream {
    world: World,
    enc: AckedEncoder<Arena, Commands>,
    tick: u32,
}

impl ArenaStream {
    /// The arena drawn from `seed`, at tick 0.
    pub fn new(seed: u64) -> Self {
        ArenaStream {
            world: World::new(PLAYERS, seed),
            enc: AckedEncoder::new(Commands::default()),
            tick: 0,
        }
    }

    /// The tick last stepped (0 before the first).
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Steps the arena one tick and encodes frame N.
    pub fn step(&mut self) -> Result<TickOut, String> {
        self.tick += 1;
        let tick = self.tick;
        let mut commands = BTreeMap::new();
        if let Some(c) = self.enc.inputs_mut().take(tick) {
            commands.insert(1, c);
        }
        for player in 2..=PLAYERS {
            // Each bot acts on one tick in four, the others keep their course.
            if (u32::from(player) + tick).is_multiple_of(4) {
                commands.insert(player, self.world.bot(tick));
            }
        }
        let events = self.world.step(tick, &commands);
        let state = self.world.state(tick);
        let hash = server_check(&Arena, &state);
        let out = self
            .enc
            .encode(tick, state, events)
            .map_err(|e| format!("encoding tick {tick}: {e}"))?;
        if let Some(check) = out.frame.check {
            if check != hash {
                return Err(format!(
                    "tick {tick}: the frame's check {check:#010x} is not S_N's hash {hash:#010x}"
                ));
            }
        }
        let frames = vec![Transmit {
            frame: Arena.frame_name(),
            bytes: out.bytes,
            reliable: out.reliable,
        }];
        Ok(TickOut { tick, hash, frames })
    }

    /// The client's kind 7 frame arrives: its acknowledgement and its player's commands.
    pub fn ack(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.enc
            .receive(u64::from(self.tick), bytes)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_codec::acked::{AckWriter, AckedDecoder, Delivery};
    use ackwire_example_game::Command;

    /// The Rust client on the same frames, losslessly, playing player 1: what it shows hashes
    /// to S_N's hash of the frame's tick, which is what the judge holds every socket client to.
    #[test]
    fn a_client_that_applies_every_frame_shows_s_n() {
        let mut server = ArenaStream::new(1);
        let mut decoder: AckedDecoder<Arena> = AckedDecoder::new();
        let mut writer: AckWriter<Command> = AckWriter::new(16);
        let mut bot = World::new(1, 9);
        for t in 1..=120u32 {
            let out = server.step().unwrap();
            assert_eq!(out.frames.len(), 1);
            for f in &out.frames {
                assert!(matches!(decoder.deliver(&f.bytes), Delivery::Shown(_)));
                assert_eq!(decoder.state_hash(), out.hash, "tick {}", out.tick);
            }
            writer.confirm(decoder.last_seq());
            writer.push(bot.bot(t + 2));
            let ack = writer.content(decoder.ack_tick(), decoder.keyframe_wanted());
            let mut bytes = Vec::new();
            Arena.encode_ack(&ack, &mut bytes).unwrap();
            server.ack(&bytes).unwrap();
        }
        assert!(server.ack(&[7, 0xff]).is_err(), "a hostile ack is an error");
    }
}
