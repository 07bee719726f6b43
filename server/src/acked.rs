//! The server's half of acked snapshots (seed 000): the per-client [`AckedEncoder`], the
//! reference protocol's [`Presenter`] that computes each client's S_N (tiers with hysteresis,
//! far poses when due, the client's own entities in full), and a [`harness`] that drives the
//! whole stream against the ordered reference under any loss, duplication and reordering.
//!
//! Sans-IO: ticks are arguments, nothing reads a clock, opens a socket or starts a thread.
//! The client's half (AckedDecoder, the kind 7 writer) and the state model are in
//! `ackwire_codec::acked`.

use crate::input_schedule::{InputSchedule, InputWindow, Submission};
use crate::relevance::TierBoundary;
use ackwire_codec::acked::{
    delta, server_check, AckedFrame, AckedSchema, Entry, FrameOf, Reference, ServerState,
    POSE_REACH,
};
use ackwire_codec::protocol::{Ack, AckFlags, EntityState, Input, StateFlags};
use ackwire_codec::rt::Frame;
use ackwire_codec::{BitSet, DecodeError, EncodeError, ErrorKind};
use std::collections::{BTreeMap, VecDeque};

/// Inputs a client may have buffered in its schedule at once; more are dropped before
/// `submit` (seed 004 §8: "a game that also wants a bound on inputs per tick enforces it
/// before `submit`").
pub const MAX_BUFFERED_INPUTS: usize = 256;

/// One frame the server keeps: its tick, the state it produces, and the newest event serial it
/// carried.
#[derive(Debug, Clone)]
struct Kept<R> {
    tick: u32,
    state: ServerState<R>,
    events_through: Option<u32>,
}

#[derive(Debug, Clone)]
struct Pending<E> {
    serial: u32,
    born: u64,
    event: E,
}

/// A frame to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing<S: AckedSchema> {
    /// The frame.
    pub frame: FrameOf<S>,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Seed 000: "A frame over RELIABLE_ABOVE bytes is better sent reliably ... it is still a
    /// frame like any other."
    pub reliable: bool,
}

/// What the encoder has done, for meters and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncoderCounters {
    /// Frames sent.
    pub frames: u64,
    /// Of which keyframes.
    pub keyframes: u64,
    /// Of which marked for the reliable channel.
    pub reliable: u64,
    /// Acks that moved the base forward.
    pub acks_taken: u64,
    /// Acks of a tick the server does not keep (never sent, from the future, left the ring).
    pub acks_unknown: u64,
    /// Acks not newer than the base already taken (repeats, reordered), or from before a
    /// keyframe request.
    pub acks_old: u64,
    /// Keyframe requests received.
    pub keyframe_requests: u64,
    /// Events dropped after EVENT_TTL frames without an acknowledgement.
    pub events_expired: u64,
    /// Inputs submitted to the schedule.
    pub inputs_taken: u64,
    /// Inputs already taken, carried again.
    pub inputs_repeated: u64,
    /// Inputs dropped because MAX_BUFFERED_INPUTS were buffered.
    pub inputs_overflow: u64,
}

/// The server's per-client acked encoder (seed 000), generic over the schema.
///
/// Each tick, compute the client's S_N (e.g. with [`Presenter`]) and call
/// [`encode`](Self::encode); hand every kind 7 frame the client sends to
/// [`on_ack`](Self::on_ack) (or [`receive`](Self::receive) for its bytes). Memory stays bounded
/// whatever the acks say: SENT_RING frames, the events of EVENT_TTL frames,
/// MAX_BUFFERED_INPUTS inputs.
#[derive(Debug, Clone)]
pub struct AckedEncoder<S: AckedSchema, I = Input> {
    /// Seed 000: "With no acknowledged base (the first frame, an acknowledgement lost for
    /// longer than the server keeps its frames: SENT_RING) the frame is a keyframe".
    sent: VecDeque<Kept<S::Record>>,
    acked: Option<u32>,
    floor: Option<u32>,
    pending: VecDeque<Pending<S::Event>>,
    next_serial: u32,
    acked_serial: Option<u32>,
    expired: Vec<u32>,
    keep_expired: bool,
    inputs: InputSchedule<I>,
    window: InputWindow,
    last_seq: u32,
    counters: EncoderCounters,
}

impl<S: AckedSchema, I> AckedEncoder<S, I> {
    /// An encoder for a fresh client, judging inputs by `window`.
    pub fn new(window: InputWindow) -> Self {
        Self {
            sent: VecDeque::new(),
            acked: None,
            floor: None,
            pending: VecDeque::new(),
            next_serial: 1,
            acked_serial: None,
            expired: Vec::new(),
            keep_expired: false,
            inputs: InputSchedule::new(),
            window,
            last_seq: 0,
            counters: EncoderCounters::default(),
        }
    }

    /// Also lists the serials of expired events (for tests; unbounded over a long session).
    pub fn keep_expired_serials(mut self) -> Self {
        self.keep_expired = true;
        self
    }

    /// The frame of tick `tick`, producing `state` (S_N), with this tick's new `events`.
    ///
    /// Seed 000: "Frame N carries what turns the acknowledged frame's S_B into S_N". A tick
    /// not newer than the last frame's is refused.
    pub fn encode(
        &mut self,
        tick: u32,
        state: ServerState<S::Record>,
        events: impl IntoIterator<Item = S::Event>,
    ) -> Result<Outgoing<S>, EncodeError> {
        if self.sent.back().is_some_and(|k| tick <= k.tick) {
            return Err(EncodeError::new(ErrorKind::InvalidCondition).field("tick"));
        }
        let frame_no = self.counters.frames;
        for event in events {
            self.pending.push_back(Pending {
                serial: self.next_serial,
                born: frame_no,
                event,
            });
            self.next_serial = self.next_serial.wrapping_add(1);
        }
        // Seed 000: events "are sent again in every frame until a frame that held them is
        // acknowledged, or for EVENT_TTL frames at most".
        while let Some(p) = self.pending.front() {
            if self.acked_serial.is_some_and(|a| p.serial <= a) {
                self.pending.pop_front();
            } else if p.born + S::EVENT_TTL <= frame_no {
                self.counters.events_expired += 1;
                if self.keep_expired {
                    self.expired.push(p.serial);
                }
                self.pending.pop_front();
            } else {
                break;
            }
        }
        let base = self
            .acked
            .and_then(|a| self.sent.iter().find(|k| k.tick == a));
        let (removed, changes) = delta::<S>(base.map(|k| &k.state), &state, tick)?;
        let carried: Vec<&Pending<S::Event>> =
            self.pending.iter().take(usize::from(u8::MAX)).collect();
        let frame = AckedFrame {
            tick,
            base_tick: base.map_or(0, |k| k.tick),
            last_seq: self.last_seq,
            input_buffer: u8::try_from(self.inputs.pending()).unwrap_or(u8::MAX),
            keyframe: base.is_none(),
            // Seed 000: "Every CHECK_EVERY frames a check follows the header". Frames, not
            // ticks: a server that does not encode every tick (30 Hz sends on a 60 Hz
            // simulation, odd ticks only) would otherwise check at another rate or never.
            // Counted from 1, so the CHECK_EVERY-th frame carries the first check, and a
            // stream encoded every tick from tick 1 checks on the same frames as before.
            check: (frame_no + 1)
                .is_multiple_of(u64::from(S::CHECK_EVERY))
                .then(|| server_check::<S>(&state)),
            removed,
            changes,
            first_serial: carried.first().map_or(0, |p| p.serial),
            events: carried.iter().map(|p| p.event.clone()).collect(),
        };
        let events_through = carried.last().map(|p| p.serial);
        let mut bytes = Vec::new();
        S::encode_frame(&frame, &mut bytes)?;
        let reliable = bytes.len() > S::RELIABLE_ABOVE;
        self.counters.frames += 1;
        self.counters.keyframes += u64::from(frame.keyframe);
        self.counters.reliable += u64::from(reliable);
        self.sent.push_back(Kept {
            tick,
            state,
            events_through,
        });
        // Seed 000: "The server keeps fewer frames than the client, so the base of a frame it
        // sends is always one the client still holds."
        while self.sent.len() > S::SENT_RING {
            self.sent.pop_front();
        }
        if self
            .acked
            .is_some_and(|a| !self.sent.iter().any(|k| k.tick == a))
        {
            self.acked = None;
        }
        Ok(Outgoing {
            frame,
            bytes,
            reliable,
        })
    }

    /// Takes a client's kind 7 content: the tick it acknowledges, whether it asks for a
    /// keyframe, and its inputs (`first_seq` numbering the first), judged against the tick the
    /// simulation is on, `current`.
    ///
    /// Only a tick the server keeps and that is newer than the base already taken moves the
    /// base: an ack of a tick never sent, from the future or repeated changes nothing, so no
    /// frame goes onto a base the client cannot hold. Each input is taken once, by sequence
    /// number; `last_seq` (in the next frames) reports the newest taken.
    pub fn on_ack(
        &mut self,
        current: u64,
        ack_tick: u32,
        keyframe_request: bool,
        first_seq: u32,
        inputs: impl IntoIterator<Item = (u32, I)>,
    ) -> AckVerdict {
        let verdict = if keyframe_request {
            // acked.wire, AckFlags::KEYFRAME_REQUEST: forget every acknowledgement, ignore
            // those of frames sent before the request, send keyframes until one is acked.
            self.counters.keyframe_requests += 1;
            self.acked = None;
            self.floor = self.sent.back().map(|k| k.tick).or(self.floor);
            AckVerdict::KeyframeRequested
        } else if ack_tick == 0 {
            AckVerdict::Nothing
        } else if self.floor.is_some_and(|f| ack_tick <= f)
            || self.acked.is_some_and(|a| ack_tick <= a)
        {
            self.counters.acks_old += 1;
            AckVerdict::Old
        } else if let Some(k) = self.sent.iter().find(|k| k.tick == ack_tick) {
            self.acked = Some(ack_tick);
            if let Some(e) = k.events_through {
                self.acked_serial = Some(self.acked_serial.map_or(e, |a| a.max(e)));
            }
            self.counters.acks_taken += 1;
            AckVerdict::Taken
        } else {
            self.counters.acks_unknown += 1;
            AckVerdict::Unknown
        };
        for (i, (tick, input)) in inputs.into_iter().enumerate() {
            let Some(seq) = u32::try_from(u64::from(first_seq) + i as u64).ok() else {
                break;
            };
            if seq <= self.last_seq {
                self.counters.inputs_repeated += 1;
                continue;
            }
            self.last_seq = seq;
            if self.inputs.pending() >= MAX_BUFFERED_INPUTS {
                self.counters.inputs_overflow += 1;
                continue;
            }
            let _: Submission = self
                .inputs
                .submit(u64::from(tick), input, current, self.window);
            self.counters.inputs_taken += 1;
        }
        verdict
    }

    /// The input to apply on tick `current` (level semantics, seed 004 §8).
    pub fn execute_due(&mut self, current: u64) -> Option<I> {
        self.inputs.execute_due(current)
    }

    /// The client's input schedule, for its counters.
    pub fn inputs(&self) -> &InputSchedule<I> {
        &self.inputs
    }

    /// The tick of the base the next frame goes onto, if any.
    pub fn acked(&self) -> Option<u32> {
        self.acked
    }

    /// Frames kept (at most SENT_RING).
    pub fn kept(&self) -> usize {
        self.sent.len()
    }

    /// Events waiting for an acknowledgement.
    pub fn pending_events(&self) -> usize {
        self.pending.len()
    }

    /// Serials of the events that expired unacknowledged (when kept, see
    /// [`keep_expired_serials`](Self::keep_expired_serials)).
    pub fn expired_serials(&self) -> &[u32] {
        &self.expired
    }

    /// The newest input sequence taken.
    pub fn last_seq(&self) -> u32 {
        self.last_seq
    }

    /// What the encoder has done.
    pub fn counters(&self) -> EncoderCounters {
        self.counters
    }
}

impl<S: AckedSchema> AckedEncoder<S, Input> {
    /// Takes a kind 7 frame's bytes (see [`on_ack`](Self::on_ack)).
    pub fn receive(&mut self, current: u64, bytes: &[u8]) -> Result<AckVerdict, DecodeError> {
        let ack = Ack::decode(bytes)?;
        Ok(self.on_ack(
            current,
            ack.ack_tick,
            ack.flags.contains(AckFlags::KEYFRAME_REQUEST),
            ack.first_seq.unwrap_or(0),
            ack.inputs.into_iter().map(|i| (i.tick, i)),
        ))
    }
}

/// What an ack did to the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckVerdict {
    /// The base moved to the acknowledged tick.
    Taken,
    /// Not newer than the base taken, or from before a keyframe request.
    Old,
    /// A tick the server does not keep.
    Unknown,
    /// The client acknowledges nothing yet.
    Nothing,
    /// The client asked for a keyframe.
    KeyframeRequested,
}

impl AckVerdict {
    /// The verdict's name, for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AckVerdict::Taken => "taken",
            AckVerdict::Old => "old",
            AckVerdict::Unknown => "unknown",
            AckVerdict::Nothing => "nothing",
            AckVerdict::KeyframeRequested => "keyframe_requested",
        }
    }
}

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
}

/// The server's world: entities by id.
pub type World = BTreeMap<u16, WorldEntity>;

/// A pose is measured again at least this often (in ticks), so that a pose's age always fits
/// the u8 of POSE_AGE, even in a keyframe.
pub const POSE_REFRESH: u32 = 255;

/// How a client sees the world: its own entities, the near tier's boundary, the far rate.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewConfig {
    /// The client's own entities; the lowest present is where it stands.
    pub own: Vec<u16>,
    /// The near tier, with hysteresis (seed 004 §5).
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
/// Seed 000: "The server keeps computing, for each client, what an ordered client would hold
/// after frame N (S_N: every entity's record, whether its pose came full, the tier it was sent
/// at and the tick its pose was measured at), exactly as the ordered encoder does: what
/// changed, a far entity's pose only when it is due or its rest changed, the client's own
/// entities' pose in full."
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
    reuse: bool,
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

    /// S_N for tick `tick` of `world`.
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
        let mut held = self.prev.iter().zip(&self.extras).peekable();
        for (eid, w) in world {
            while held.next_if(|((id, _), _)| *id < eid).is_some() {}
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
            };
            let record = match prev {
                None => fresh,
                Some(p) => {
                    let p = &p.record;
                    let rest_changed =
                        (p.hp, p.armor, p.vehicle, p.seat) != (w.hp, w.armor, w.vehicle, w.seat);
                    let tier_changed = near != was_near;
                    let differs =
                        (p.x, p.y, p.z, p.yaw, p.flags.bits()) != (x, y, z, yaw, flags.bits());
                    let refresh = tick.saturating_sub(p.measured) >= POSE_REFRESH;
                    let due = near
                        || rest_changed
                        || tier_changed
                        || (tick.wrapping_add(u32::from(*eid)))
                            .is_multiple_of(self.config.far_every.max(1));
                    let send = refresh || (due && differs);
                    EntityState {
                        hp: w.hp,
                        armor: w.armor,
                        vehicle: w.vehicle,
                        seat: w.seat,
                        ..if send { fresh } else { *p }
                    }
                }
            };
            let current = (
                record.x,
                record.y,
                record.z,
                record.yaw,
                record.flags.bits(),
            ) == (x, y, z, yaw, flags.bits());
            next.push((
                *eid,
                Entry {
                    life: w.life,
                    record,
                },
            ));
            extras.push(Presented {
                near,
                seen: w.clone(),
                current,
            });
        }
        drop(held);
        // Ascending ids, as the world's: collecting sorts nothing.
        self.prev = next.into_iter().collect();
        self.extras = extras;
        self.prev.clone()
    }
}

/// The acked encoder of the reference schema.
pub type ReferenceEncoder = AckedEncoder<Reference, Input>;

/// Drives a whole acked stream of the reference schema (world, [`Presenter`],
/// [`AckedEncoder`], a scripted network, the client's AckedDecoder and kind 7 writer) beside
/// the ordered reference, and checks the invariant at every step. The property tests, the
/// fuzz target and the bytes measurement all run through [`run`](harness::run).
///
/// DESIGN.md section 4: "under any pattern of loss, duplication and reordering, every state
/// the client shows equals what an ordered, lossless client shows at that tick, and once the
/// network heals the client converges to the server's world."
pub mod harness {
    use super::*;
    use ackwire_codec::acked::{
        client_view, AckWriter, AckedDecoder, Delivery, OrderedDecoder, OrderedEncoder, State,
    };
    use ackwire_codec::protocol::{Blast, Buttons, Event, Hit, Shot};
    use std::collections::BTreeSet;

    /// One operation of the world in a tick.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Op {
        /// An entity appears under `eid` (a new life if the id was used before).
        Spawn {
            /// Its id.
            eid: u16,
            /// East, north, up, metres.
            pos: [f32; 3],
            /// Heading, degrees.
            yaw: f32,
            /// Hit points.
            hp: u8,
        },
        /// An entity moves to a pose.
        Move {
            /// Its id.
            eid: u16,
            /// East, north, up, metres.
            pos: [f32; 3],
            /// Heading, degrees.
            yaw: f32,
        },
        /// An entity's rest changes.
        Set {
            /// Its id.
            eid: u16,
            /// Hit points.
            hp: u8,
            /// Armour.
            armor: u8,
            /// Vehicle, 0 on foot.
            vehicle: u16,
            /// Seat.
            seat: u8,
        },
        /// An entity is gone.
        Despawn {
            /// Its id.
            eid: u16,
        },
        /// An event happens.
        Event(Event),
    }

    /// Applies `ops` to `world`; returns the events. `lives` counts spawns per id.
    pub fn apply_ops(world: &mut World, lives: &mut BTreeMap<u16, u32>, ops: &[Op]) -> Vec<Event> {
        let mut events = Vec::new();
        for op in ops {
            match op {
                Op::Spawn { eid, pos, yaw, hp } => {
                    let life = lives.entry(*eid).or_insert(0);
                    *life += 1;
                    world.insert(
                        *eid,
                        WorldEntity {
                            life: *life,
                            x: pos[0],
                            y: pos[1],
                            z: pos[2],
                            yaw: *yaw,
                            hp: *hp,
                            armor: 0,
                            vehicle: 0,
                            seat: 0,
                        },
                    );
                }
                Op::Move { eid, pos, yaw } => {
                    if let Some(w) = world.get_mut(eid) {
                        (w.x, w.y, w.z, w.yaw) = (pos[0], pos[1], pos[2], *yaw);
                    }
                }
                Op::Set {
                    eid,
                    hp,
                    armor,
                    vehicle,
                    seat,
                } => {
                    if let Some(w) = world.get_mut(eid) {
                        (w.hp, w.armor, w.vehicle, w.seat) = (*hp, *armor, *vehicle, *seat);
                    }
                }
                Op::Despawn { eid } => {
                    world.remove(eid);
                }
                Op::Event(e) => events.push(e.clone()),
            }
        }
        events
    }

    /// What the network does to one frame.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Fate {
        /// Lost.
        pub lost: bool,
        /// Ticks until it arrives (at least 1).
        pub delay: u32,
        /// A second copy, this many ticks after sending.
        pub dup: Option<u32>,
    }

    impl Fate {
        /// Arrives the next tick, once.
        pub const PERFECT: Fate = Fate {
            lost: false,
            delay: 1,
            dup: None,
        };
    }

    /// A world script, a view and a network schedule.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Scenario {
        /// How the client sees the world.
        pub view: ViewConfig,
        /// The world's operations, one entry per tick from tick 1.
        pub script: Vec<Vec<Op>>,
        /// The fate of each server frame in turn (cycled; empty is perfect).
        pub down: Vec<Fate>,
        /// The fate of each kind 7 frame in turn (cycled; empty is perfect).
        pub up: Vec<Fate>,
        /// From this tick on the network is perfect (and after the script in any case).
        pub heal_at: u32,
        /// Ticks run after the script, on a healed network.
        pub drain: u32,
    }

    /// What a run measured.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Outcome {
        /// Ticks run.
        pub ticks: u32,
        /// Bytes of every kind 6 frame sent (each once, duplicates not counted).
        pub bytes_down: u64,
        /// Bytes the ordered reference would have sent.
        pub bytes_ordered: u64,
        /// Frames the client showed.
        pub shown: u64,
        /// Frames the client dropped as stale or onto an unknown base.
        pub dropped: u64,
        /// Keyframes sent.
        pub keyframes: u64,
        /// Events the world produced.
        pub events: u64,
        /// Events the client showed.
        pub events_shown: u64,
        /// Events that expired unacknowledged.
        pub events_expired: u64,
        /// The most frame states the client held at once.
        pub max_held: usize,
        /// The most frames the server kept at once.
        pub max_kept: usize,
    }

    /// The world-side fault the harness tolerates nowhere: its message says which invariant broke.
    type Broken = String;

    fn fate(list: &[Fate], i: usize, healed: bool) -> Fate {
        if healed || list.is_empty() {
            Fate::PERFECT
        } else {
            list[i % list.len()]
        }
    }

    fn queue(q: &mut BTreeMap<u32, Vec<Vec<u8>>>, now: u32, f: Fate, bytes: Vec<u8>) {
        if f.lost {
            return;
        }
        if let Some(d) = f.dup {
            q.entry(now + d.max(1)).or_default().push(bytes.clone());
        }
        q.entry(now + f.delay.max(1)).or_default().push(bytes);
    }

    /// Runs `s` and checks, at every step: every state the client shows equals the ordered
    /// client's state at that tick, record for record; each event is shown at most once, is the
    /// event of its serial, and every event not shown expired unacknowledged; from two ticks
    /// after healing, the client shows the frame sent the tick before; both sides' memory stays
    /// within its ring. Returns what it measured, or the first broken invariant.
    pub fn run(s: &Scenario) -> Result<Outcome, Broken> {
        let mut world = World::new();
        let mut lives = BTreeMap::new();
        let mut presenter = Presenter::new(s.view.clone());
        let mut oenc = OrderedEncoder::<Reference>::new();
        let mut odec = OrderedDecoder::<Reference>::new();
        let mut ordered: BTreeMap<u32, State<EntityState>> = BTreeMap::new();
        let mut enc = ReferenceEncoder::new(InputWindow::new(4, 64)).keep_expired_serials();
        let mut dec = AckedDecoder::<Reference>::new();
        let mut writer = AckWriter::<Input>::new(16);
        let mut down: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
        let mut up: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
        let mut generated: Vec<Event> = Vec::new();
        let mut seen: BTreeSet<u32> = BTreeSet::new();
        let mut out = Outcome::default();
        let end = s.script.len() as u32 + s.drain;
        let heal = s.heal_at.min(s.script.len() as u32 + 1);
        let mut last_state = State::new();
        for t in 1..=end {
            let healed = t >= heal;
            // 1. Frames arriving at the client.
            for bytes in down.remove(&t).unwrap_or_default() {
                match dec.deliver(&bytes) {
                    Delivery::Shown(report) => {
                        let report = report.clone();
                        out.shown += 1;
                        let want = ordered.get(&report.tick).ok_or_else(|| {
                            format!("tick {t}: shown tick {} has no ordered state", report.tick)
                        })?;
                        let (_, got) = dec.shown().ok_or("shown nothing")?;
                        if got != want {
                            return Err(format!(
                                "tick {t}: the client shows frame {} (base {}) unlike the ordered client:\n acked {got:?}\n ordered {want:?}",
                                report.tick, report.base_tick
                            ));
                        }
                        if report.check == Some(false) {
                            return Err(format!(
                                "tick {t}: frame {} failed its check",
                                report.tick
                            ));
                        }
                        for (serial, event) in report.events {
                            if !seen.insert(serial) {
                                return Err(format!("tick {t}: event {serial} shown twice"));
                            }
                            let i = serial.checked_sub(1).map(|i| i as usize);
                            if i.and_then(|i| generated.get(i)) != Some(&event) {
                                return Err(format!("tick {t}: event {serial} is not its event"));
                            }
                        }
                        writer.confirm(dec.last_seq());
                    }
                    Delivery::Stale { .. } | Delivery::UnknownBase { .. } => out.dropped += 1,
                    other => {
                        return Err(format!("tick {t}: the client refused a frame: {other:?}"))
                    }
                }
            }
            out.max_held = out.max_held.max(dec.held());
            if healed && t >= heal + 2 && t >= 2 {
                let shown = dec.shown().map(|(k, _)| k);
                if shown != Some(t - 1) {
                    return Err(format!(
                        "tick {t}: healed since {heal}, the client shows {shown:?}, not {}",
                        t - 1
                    ));
                }
            }
            // 2. Kind 7 frames arriving at the server.
            for bytes in up.remove(&t).unwrap_or_default() {
                enc.receive(u64::from(t), &bytes)
                    .map_err(|e| format!("tick {t}: the server refused an ack: {e}"))?;
            }
            // 3. The client acknowledges and sends an input aimed two ticks ahead.
            writer.push(Input {
                tick: t + 2,
                buttons: Buttons::empty(),
                move_x: 0.0,
                move_y: 0.0,
                yaw: 0.0,
            });
            let ack = writer.frame(dec.ack_tick(), dec.keyframe_wanted());
            let bytes = ack.to_bytes().map_err(|e| e.to_string())?;
            queue(&mut up, t, fate(&s.up, t as usize, healed), bytes);
            // 4. The server's tick.
            let ops = s.script.get(t as usize - 1).map_or(&[][..], |v| &v[..]);
            let events = apply_ops(&mut world, &mut lives, ops);
            generated.extend(events.iter().cloned());
            let _ = enc.execute_due(u64::from(t));
            let state = presenter.present(t, &world);
            let oframe = oenc
                .encode(t, state.clone(), events.clone())
                .map_err(|e| format!("tick {t}: ordered encode: {e}"))?;
            let mut obytes = Vec::new();
            Reference::encode_frame(&oframe, &mut obytes).map_err(|e| e.to_string())?;
            out.bytes_ordered += obytes.len() as u64;
            let oframe = Reference::decode_frame(&obytes).map_err(|e| e.to_string())?;
            let ostate = odec
                .apply(&oframe)
                .map_err(|e| format!("tick {t}: ordered apply: {}", e.0))?;
            last_state = client_view(&state);
            if *ostate != last_state {
                return Err(format!("tick {t}: the ordered client differs from S_N"));
            }
            ordered.insert(t, last_state.clone());
            while ordered.len() > 512 {
                ordered.pop_first();
            }
            let sent = enc
                .encode(t, state, events)
                .map_err(|e| format!("tick {t}: acked encode: {e}"))?;
            out.bytes_down += sent.bytes.len() as u64;
            out.max_kept = out.max_kept.max(enc.kept());
            queue(&mut down, t, fate(&s.down, t as usize, healed), sent.bytes);
        }
        // Converged: the last frame (sent at `end`) arrives at `end + 1`.
        if let Some(bytes) = down.remove(&(end + 1)) {
            for b in bytes {
                let _ = dec.deliver(&b);
            }
        }
        if end > 0 && !dec.shown().is_some_and(|(_, st)| *st == last_state) {
            return Err("after draining, the client does not show the server's world".into());
        }
        let c = enc.counters();
        out.ticks = end;
        out.keyframes = c.keyframes;
        out.events = generated.len() as u64;
        out.events_shown = seen.len() as u64;
        out.events_expired = c.events_expired;
        let expired: BTreeSet<u32> = enc.expired_serials().iter().copied().collect();
        for serial in 1..=generated.len() as u32 {
            if !seen.contains(&serial) && !expired.contains(&serial) {
                return Err(format!("event {serial} was never shown and did not expire"));
            }
        }
        if out.max_held > Reference::HELD_RING || out.max_kept > Reference::SENT_RING {
            return Err(format!("memory past the rings: {out:?}"));
        }
        Ok(out)
    }

    /// The shape of a generated scenario.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Shape {
        /// Ticks of script.
        pub ticks: u32,
        /// Entity ids 1..=entities (1 is the client's own).
        pub entities: u16,
        /// Chance a frame (either way) is lost.
        pub loss: f64,
        /// Chance a frame is duplicated.
        pub duplicate: f64,
        /// Largest extra delay in ticks (reordering).
        pub jitter: u32,
        /// Chance per tick of an entity's despawn or respawn.
        pub churn: f64,
        /// Chance per tick of an event.
        pub events: f64,
        /// Where the network heals (ticks from the start).
        pub heal_at: u32,
    }

    impl Default for Shape {
        fn default() -> Self {
            Shape {
                ticks: 200,
                entities: 10,
                loss: 0.25,
                duplicate: 0.05,
                jitter: 3,
                churn: 0.02,
                events: 0.3,
                heal_at: u32::MAX,
            }
        }
    }

    /// SplitMix64 over a seed: the generator's randomness.
    struct Mix(u64);
    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    /// A scenario of `shape` drawn from `next` (a source of random u64s).
    pub fn generate(shape: Shape, next: &mut dyn FnMut() -> u64) -> Scenario {
        let mut unit = || (next() >> 11) as f64 / (1u64 << 53) as f64;
        let mut script = Vec::new();
        let mut alive: BTreeMap<u16, ([f32; 3], f32)> = BTreeMap::new();
        for t in 0..shape.ticks {
            let mut ops = Vec::new();
            for eid in 1..=shape.entities.max(1) {
                let spawn_now = !alive.contains_key(&eid) && (t == 0 || unit() < shape.churn * 4.0);
                if spawn_now {
                    // Spread over ±48 m: near, far, and outside the quantized box.
                    let pos = [
                        (unit() * 96.0 - 48.0) as f32,
                        (unit() * 96.0 - 48.0) as f32,
                        (unit() * 4.0) as f32,
                    ];
                    let yaw = (unit() * 360.0) as f32;
                    alive.insert(eid, (pos, yaw));
                    ops.push(Op::Spawn {
                        eid,
                        pos,
                        yaw,
                        hp: 100,
                    });
                    continue;
                }
                let Some((pos, yaw)) = alive.get_mut(&eid) else {
                    continue;
                };
                let r = unit();
                if r < shape.churn {
                    alive.remove(&eid);
                    ops.push(Op::Despawn { eid });
                    // Sometimes back at once under the same id: a new life in the same tick.
                    if unit() < 0.5 {
                        let p = [
                            (unit() * 40.0 - 20.0) as f32,
                            (unit() * 40.0 - 20.0) as f32,
                            0.0,
                        ];
                        alive.insert(eid, (p, 0.0));
                        ops.push(Op::Spawn {
                            eid,
                            pos: p,
                            yaw: 0.0,
                            hp: 100,
                        });
                    }
                } else if r < 0.75 {
                    let step = if unit() < 0.02 { 30.0 } else { 0.4 };
                    for v in pos.iter_mut().take(2) {
                        *v += ((unit() * 2.0 - 1.0) * step) as f32;
                        *v = v.clamp(-60.0, 60.0);
                    }
                    *yaw = (*yaw + (unit() * 20.0 - 10.0) as f32).rem_euclid(360.0);
                    ops.push(Op::Move {
                        eid,
                        pos: *pos,
                        yaw: *yaw,
                    });
                } else if r < 0.8 {
                    ops.push(Op::Set {
                        eid,
                        hp: (unit() * 100.0) as u8,
                        armor: (unit() * 50.0) as u8,
                        vehicle: if unit() < 0.5 { 0 } else { 1 },
                        seat: (unit() * 4.0) as u8,
                    });
                }
            }
            while unit() < shape.events {
                let who = (unit() * f64::from(shape.entities)) as u16 + 1;
                ops.push(Op::Event(match (unit() * 3.0) as u32 {
                    0 => Event::Shot(Shot {
                        shooter: who,
                        weapon: 1,
                        yaw: 90.0,
                    }),
                    1 => Event::Hit(Hit {
                        attacker: who,
                        victim: 1,
                        damage: 7,
                    }),
                    _ => Event::Blast(Blast {
                        x: 1.5,
                        y: -2.0,
                        z: 0.0,
                        radius: 2.0,
                    }),
                }));
            }
            script.push(ops);
        }
        let mut fates = |n: usize| -> Vec<Fate> {
            (0..n)
                .map(|_| Fate {
                    lost: unit() < shape.loss,
                    delay: 1 + (unit() * f64::from(shape.jitter + 1)) as u32,
                    dup: (unit() < shape.duplicate)
                        .then(|| 1 + (unit() * f64::from(shape.jitter + 2)) as u32),
                })
                .collect()
        };
        let down = fates(shape.ticks as usize + 1);
        let up = fates(shape.ticks as usize + 1);
        Scenario {
            view: ViewConfig {
                own: vec![1],
                ..ViewConfig::default()
            },
            script,
            down,
            up,
            heal_at: shape.heal_at,
            drain: 8,
        }
    }

    /// A scenario of `shape` drawn from `seed`.
    pub fn from_seed(shape: Shape, seed: u64) -> Scenario {
        let mut mix = Mix(seed);
        generate(shape, &mut || mix.next())
    }

    /// A scenario drawn from arbitrary bytes (the fuzz target's input): the first bytes choose
    /// the shape, the rest feed the generator (zeros once they run out).
    pub fn from_bytes(data: &[u8]) -> Scenario {
        let b = |i: usize| data.get(i).copied().unwrap_or(0);
        let shape = Shape {
            ticks: 1 + u32::from(b(0)) % 160,
            entities: 1 + u16::from(b(1)) % 12,
            loss: f64::from(b(2)) / 255.0 * 0.9,
            duplicate: f64::from(b(3)) / 255.0 * 0.3,
            jitter: u32::from(b(4)) % 40,
            churn: f64::from(b(5)) / 255.0 * 0.1,
            events: f64::from(b(6)) / 255.0 * 0.8,
            heal_at: u32::from(b(7)) * 2,
        };
        let mut at = 8;
        let mut mix = Mix(0);
        generate(shape, &mut || {
            let mut v = 0u64;
            for _ in 0..8 {
                v = (v << 8) | u64::from(b(at));
                at += 1;
            }
            // Mixed, so that a short input still gives varied draws.
            mix.0 ^= v;
            mix.next()
        })
    }

    /// The fuzz target's body: runs the scenario `data` describes, then feeds the same bytes
    /// as hostile frames to a client decoder (`ackwire_codec::fuzzing::acked_hostile`: extreme
    /// ticks, large removal lists, faulty changes), and panics when an invariant breaks.
    pub fn fuzz_one(data: &[u8]) {
        if let Err(broken) = run(&from_bytes(data)) {
            panic!("acked stream invariant broken: {broken}");
        }
        ackwire_codec::fuzzing::acked_hostile(data);
    }
}

#[cfg(test)]
mod tests {
    use super::harness::{apply_ops, from_seed, run, Shape};
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
    fn a_lossless_stream_equals_the_ordered_one() {
        let s = from_seed(
            Shape {
                loss: 0.0,
                duplicate: 0.0,
                jitter: 0,
                ..Shape::default()
            },
            1,
        );
        let out = run(&s).unwrap();
        // Frame 2 goes before the ack of frame 1 arrives.
        assert_eq!(out.keyframes, 2);
        assert_eq!(out.events_expired, 0);
        assert_eq!(out.events_shown, out.events);
    }

    #[test]
    fn lossy_streams_equal_the_ordered_one() {
        for seed in 0..40 {
            let s = from_seed(Shape::default(), seed);
            if let Err(e) = run(&s) {
                panic!("seed {seed}: {e}");
            }
        }
    }

    fn one(tick: u32) -> ServerState<EntityState> {
        let mut p = Presenter::new(ViewConfig::default());
        let mut w = World::new();
        w.insert(
            1,
            WorldEntity {
                life: 1,
                x: tick as f32,
                y: 0.0,
                z: 0.0,
                yaw: 0.0,
                hp: 1,
                armor: 0,
                vehicle: 0,
                seat: 0,
            },
        );
        p.present(tick, &w)
    }

    fn input(tick: u32) -> Input {
        Input {
            tick,
            buttons: ackwire_codec::protocol::Buttons::empty(),
            move_x: 0.0,
            move_y: 0.0,
            yaw: 0.0,
        }
    }

    #[test]
    fn hostile_acks_never_move_the_base_off_the_ring() {
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        let mut sent = Vec::new();
        for t in 1..=300u32 {
            let out = e.encode(t, one(t), []).unwrap();
            if !out.frame.keyframe {
                // Only a tick the server sent, still in its ring, and acknowledged.
                assert!(sent.contains(&out.frame.base_tick));
                assert!(out.frame.base_tick + Reference::SENT_RING as u32 >= t);
            }
            sent.push(t);
            for ack in [t + 1, t + 1000, u32::MAX, 0, t.saturating_sub(40), t / 2, t] {
                e.on_ack(u64::from(t), ack, t % 17 == 0, 0, []);
            }
            assert!(e.kept() <= Reference::SENT_RING);
        }
        let c = e.counters();
        assert!(c.acks_unknown > 0 && c.acks_old > 0 && c.keyframe_requests > 0);
        // Acks from before a keyframe request never come back as a base.
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        for t in 1..=10 {
            e.encode(t, one(t), []).unwrap();
        }
        e.on_ack(10, 0, true, 0, []);
        assert_eq!(e.on_ack(10, 9, false, 0, []), AckVerdict::Old);
        assert!(e.encode(11, one(11), []).unwrap().frame.keyframe);
        assert_eq!(e.on_ack(11, 11, false, 0, []), AckVerdict::Taken);
        assert!(!e.encode(12, one(12), []).unwrap().frame.keyframe);
    }

    #[test]
    fn input_floods_and_sequence_jumps_stay_bounded() {
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        for round in 0..200u32 {
            let inputs = (0..255u32).map(|i| (round * 7 + i % 60, input(i)));
            e.on_ack(u64::from(round), 0, false, round * 255 + 1, inputs);
            let far = (0..255u32).map(|i| (u32::MAX - i, input(i)));
            e.on_ack(u64::from(round), 0, false, round * 255 + 1, far);
            assert!(e.inputs().pending() <= MAX_BUFFERED_INPUTS);
        }
        assert!(e.counters().inputs_overflow > 0);
        assert!(e.counters().inputs_repeated > 0);
        e.on_ack(1, 0, false, u32::MAX - 2, (0..10).map(|i| (1, input(i))));
        assert_eq!(e.last_seq(), u32::MAX);
        let before = e.counters().inputs_taken;
        e.on_ack(1, 0, false, 5, (0..10).map(|i| (1, input(i))));
        assert_eq!(
            e.counters().inputs_taken,
            before,
            "nothing after the jump is new"
        );
        // A kind 7 frame's bytes that do not decode are refused, not a panic.
        assert!(e.receive(1, &[7, 0, 0]).is_err());
    }

    #[test]
    fn events_expire_after_event_ttl_frames_unacknowledged() {
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        let shot = ackwire_codec::protocol::Event::Shot(ackwire_codec::protocol::Shot {
            shooter: 1,
            weapon: 1,
            yaw: 0.0,
        });
        let mut carried = 0;
        for t in 1..=100u32 {
            let ev = if t == 1 { vec![shot.clone()] } else { vec![] };
            carried += e.encode(t, one(t), ev).unwrap().frame.events.len();
        }
        assert_eq!(carried as u64, Reference::EVENT_TTL);
        assert_eq!(e.counters().events_expired, 1);
        assert_eq!(e.pending_events(), 0);
    }

    /// Seed 000: "Every CHECK_EVERY frames a check follows the header": counted in frames,
    /// whichever ticks the frames are encoded on.
    #[test]
    fn a_check_follows_every_check_every_frames_whatever_the_ticks() {
        let every = Reference::CHECK_EVERY as usize;
        // Odd ticks only (no odd tick is a multiple of 30, so a rule on ticks never checks),
        // even ticks (30 Hz sends on a 60 Hz simulation: a rule on ticks checks every 15
        // frames), every tick, and every third from tick 7.
        for (first, step) in [(1u32, 2u32), (2, 2), (1, 1), (7, 3)] {
            let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
            let mut checked = Vec::new();
            for n in 1..=3 * every + 5 {
                let tick = first + (n as u32 - 1) * step;
                let state = one(tick);
                let out = e.encode(tick, state.clone(), []).unwrap();
                // What the bytes say, not only the frame value handed back.
                let sent = Reference::decode_frame(&out.bytes).unwrap();
                assert_eq!(sent.check, out.frame.check);
                if let Some(check) = sent.check {
                    assert_eq!(check, server_check::<Reference>(&state));
                    checked.push(n);
                }
            }
            assert_eq!(
                checked,
                [every, 2 * every, 3 * every],
                "frames on ticks {first}, {}, ...",
                first + step
            );
        }
    }

    /// Seed 000: "A frame over RELIABLE_ABOVE bytes is better sent reliably
    /// (transport.send('reliable', …)): it is still a frame like any other." Keyframes of a
    /// growing crowd with a growing number of events, until one of exactly RELIABLE_ABOVE bytes
    /// and one of a byte more are found: the first stays on the unreliable channel, the second
    /// goes reliably, and every frame on the way is routed by the same rule.
    #[test]
    fn a_frame_over_reliable_above_bytes_goes_reliably_and_one_at_it_does_not() {
        let limit = Reference::RELIABLE_ABOVE;
        // Six and seven bytes: together with the changes, frames of every length.
        let hit = ackwire_codec::protocol::Event::Hit(ackwire_codec::protocol::Hit {
            attacker: 2,
            victim: 1,
            damage: 9,
        });
        let carjack = ackwire_codec::protocol::Event::Carjack(ackwire_codec::protocol::Carjack {
            thief: 2,
            victim: 1,
            vehicle: 1,
        });
        let (mut at, mut over) = (false, false);
        for n in 1..=160u16 {
            // Near and far, inside and outside the quantized box: entities of several sizes.
            let world: World = (1..=n)
                .map(|eid| {
                    let d = f32::from(eid) * 0.75;
                    let mut w = WorldEntity {
                        life: 1,
                        x: d,
                        y: -d * 0.5,
                        z: 0.0,
                        yaw: d * 7.0,
                        hp: 100,
                        armor: 0,
                        vehicle: 0,
                        seat: 0,
                    };
                    w.vehicle = eid % 3;
                    (eid, w)
                })
                .collect();
            for (carjacks, hits) in (0..8).flat_map(|c| (0..7).map(move |h| (c, h))) {
                let events = std::iter::repeat_n(carjack.clone(), carjacks)
                    .chain(std::iter::repeat_n(hit.clone(), hits));
                let mut p = Presenter::new(ViewConfig {
                    own: vec![1],
                    ..ViewConfig::default()
                });
                let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
                let out = e.encode(1, p.present(1, &world), events).unwrap();
                assert!(out.frame.keyframe);
                let len = out.bytes.len();
                assert_eq!(out.reliable, len > limit, "{len} bytes");
                assert_eq!(e.counters().reliable, u64::from(out.reliable));
                // Still a frame like any other: it decodes to what was encoded.
                assert_eq!(Reference::decode_frame(&out.bytes).unwrap(), out.frame);
                at |= len == limit;
                over |= len == limit + 1;
            }
            if at && over {
                return;
            }
        }
        panic!(
            "no keyframe of exactly {limit} (found: {at}) or {} bytes (found: {over})",
            limit + 1
        );
    }

    #[test]
    fn a_tick_not_newer_than_the_last_frame_is_refused() {
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        e.encode(5, one(5), []).unwrap();
        assert!(e.encode(5, one(5), []).is_err());
    }

    #[test]
    fn far_entities_come_quantized_when_due_and_near_ones_full() {
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
