//! The cube scene through the acked server half: the bench's [`Scene`] (901 bodies, about a
//! hundred cubes moving at a time), mirrored into the [`World`] the presenter reads, one acked
//! frame a tick from [`session::AckedServer`] told which cubes the scene moved (the
//! change-driven path: a tick's work follows the hundred, not the 901), and the hash of S_N for
//! the judge.
//!
//! S_N is hashed from a second [`Presenter`] of the same view over the same world: the
//! presenter is deterministic, so it presents the very state the half's own presenter hands its
//! encoder. Every frame that carries the check (ACK-24, every CHECK_EVERY frames) proves it: the
//! check is the FNV-1a of every record of the state the frame produces (CHECK-2), and
//! [`CubeStream::step`] refuses to go on when a frame's check differs from the hash it logs.

use ackwire_bench::scenes::{Scene, SceneKind};
use ackwire_codec::acked::{server_check, Reference};
use ackwire_codec::protocol::{Acked, Input};
use ackwire_codec::session::{
    self, AckedAckReport, AckedTick, Now, SessionError, SessionHalf, Transmit,
};
use ackwire_codec::Frame;
use ackwire_server::acked::{
    ExecuteDue, Groups, Presenter, ReferenceEncoder, ScheduledInputs, ViewConfig, World,
    WorldChanges, WorldEntity,
};
use ackwire_server::input_schedule::InputWindow;
use ackwire_server::relevance::TierBoundary;

/// The first byte of a truth message (never a frame kind): `0xEE, u32 tick, u16 count`, then
/// per body `u16 id, f32 x, f32 y` (metres), all little endian. The page draws it beside what
/// it shows; it goes on the reliable channel, around the simulated faults, as a debugging view.
pub const TRUTH: u8 = 0xEE;

/// One tick's output.
#[derive(Debug, Clone)]
pub struct TickOut {
    /// The tick.
    pub tick: u32,
    /// FNV-1a of S_N (CHECK-2, the check of the state).
    pub hash: u32,
    /// What the half sends: one acked frame (reliable when over RELIABLE_ABOVE bytes).
    pub frames: Vec<Transmit>,
}

/// The cube scene streamed to one client.
pub struct CubeStream {
    scene: Scene,
    world: World,
    /// What the scene changed since the last frame, as a game's change tracking reports it:
    /// the half presents and encodes only these (the change-driven path).
    changes: WorldChanges,
    half: session::AckedServer<ScheduledInputs<Input>>,
    shadow: Presenter,
    tick: u32,
}

/// The bench's view of the cubes: no own entity, every body in the quantized tier, every pose
/// due every tick (as `ackwire bench` runs the acked protocol on this scene).
fn view() -> ViewConfig {
    ViewConfig {
        own: Vec::new(),
        tier: TierBoundary::new(-1.0, -1.0),
        far_every: 1,
    }
}

impl CubeStream {
    /// The scene drawn from `seed`, at tick 0, every body in the world.
    pub fn new(seed: u64) -> Self {
        let scene = Scene::new(SceneKind::Cube, seed);
        let mut s = CubeStream {
            world: World::new(),
            changes: WorldChanges::new(),
            half: session::AckedServer::new(
                Presenter::new(view()),
                ReferenceEncoder::new(InputWindow::new(4, 64)),
            ),
            shadow: Presenter::new(view()),
            tick: 0,
            scene,
        };
        let all: Vec<usize> = (0..s.scene.bodies().len()).collect();
        s.mirror(&all);
        s
    }

    fn mirror(&mut self, changed: &[usize]) {
        for &i in changed {
            let Some(b) = self.scene.bodies().get(i) else {
                continue;
            };
            if self.world.contains_key(&b.id) {
                self.changes
                    .changed
                    .push((b.id, Groups::POSE | Groups::VITALS));
            } else {
                self.changes.spawned.push(b.id);
            }
            let e = self.world.entry(b.id).or_insert(WorldEntity {
                life: 1,
                x: 0.0,
                y: 0.0,
                z: 0.0,
                yaw: 0.0,
                hp: 0,
                armor: 0,
                vehicle: 0,
                seat: 0,
                orient: None,
            });
            [e.x, e.y, e.z] = b.pos;
            (e.yaw, e.hp) = (b.yaw, b.hp);
        }
    }

    /// The tick last stepped (0 before the first).
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Steps the scene one tick at `now_ms` and encodes frame N.
    pub fn step(&mut self, now_ms: u64) -> Result<TickOut, String> {
        self.scene.step();
        let changed = self.scene.changed().to_vec();
        self.mirror(&changed);
        self.tick += 1;
        let tick = self.tick;
        let hash = server_check(&Reference, &self.shadow.present(tick, &self.world));
        // SRV-12: inputs execute on the tick they name; the cubes do not act on them.
        while self
            .half
            .machine_mut()
            .execute_due(u64::from(tick))
            .is_some()
        {}
        let input = AckedTick {
            world: &self.world,
            changes: Some(&self.changes),
            events: Vec::new(),
        };
        self.half
            .handle_tick(Now::new(u64::from(tick), now_ms), input)
            .map_err(|e| format!("encoding tick {tick}: {e}"))?;
        self.changes.clear();
        let frames: Vec<Transmit> = std::iter::from_fn(|| self.half.poll_transmit()).collect();
        for f in &frames {
            let decoded = Acked::decode(&f.bytes).map_err(|e| format!("tick {tick}: {e}"))?;
            if let Some(check) = decoded.check {
                if check != hash {
                    return Err(format!(
                        "tick {tick}: the frame's check {check:#010x} is not S_N's hash {hash:#010x}"
                    ));
                }
            }
        }
        Ok(TickOut { tick, hash, frames })
    }

    /// The client's kind 7 frame arrives at `now_ms`.
    pub fn ack(&mut self, now_ms: u64, bytes: &[u8]) -> Result<AckedAckReport, SessionError> {
        self.half
            .handle_frame(Now::new(u64::from(self.tick), now_ms), "ack", bytes)
    }

    /// The truth of the tick last stepped, as a [`TRUTH`] message.
    pub fn truth(&self) -> Vec<u8> {
        let bodies = self.scene.bodies();
        let mut out = Vec::with_capacity(7 + bodies.len() * 10);
        out.push(TRUTH);
        out.extend_from_slice(&self.tick.to_le_bytes());
        out.extend_from_slice(&(bodies.len().min(usize::from(u16::MAX)) as u16).to_le_bytes());
        for b in bodies.iter().take(usize::from(u16::MAX)) {
            out.extend_from_slice(&b.id.to_le_bytes());
            out.extend_from_slice(&b.pos[0].to_le_bytes());
            out.extend_from_slice(&b.pos[1].to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_codec::acked::{AckWriter, AckedDecoder, AckedSchema, Delivery};

    /// The Rust client on the same frames, losslessly: what it shows hashes to S_N's hash of
    /// the frame's tick, which is what the judge holds every socket client to.
    #[test]
    fn a_client_that_applies_every_frame_shows_s_n() {
        let mut server = CubeStream::new(1);
        let mut decoder: AckedDecoder<Reference> = AckedDecoder::new();
        let mut writer: AckWriter<Input> = AckWriter::new(16);
        let mut shown = 0;
        for t in 0..120u64 {
            let out = server.step(t * 16).unwrap();
            assert_eq!(out.frames.len(), 1);
            for f in &out.frames {
                if let Delivery::Shown(r) = decoder.deliver(&f.bytes) {
                    assert_eq!(r.tick, out.tick);
                    shown += 1;
                }
                assert_eq!(decoder.state_hash(), out.hash, "tick {}", out.tick);
            }
            writer.confirm(decoder.last_seq());
            let ack = writer.content(decoder.ack_tick(), decoder.keyframe_wanted());
            let mut bytes = Vec::new();
            Reference.encode_ack(&ack, &mut bytes).unwrap();
            server.ack(t * 16 + 1, &bytes).unwrap();
        }
        assert_eq!(shown, 120);
        let truth = server.truth();
        assert_eq!(truth[0], TRUTH);
        assert_eq!(truth.len(), 7 + 901 * 10);
    }

    #[test]
    fn a_hostile_ack_is_an_error_not_a_crash() {
        let mut server = CubeStream::new(1);
        server.step(0).unwrap();
        assert!(server.ack(1, &[7, 0xff, 0xff]).is_err());
        assert!(server.ack(1, &[]).is_err());
        server.step(16).unwrap();
    }
}
