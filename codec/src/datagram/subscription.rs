//! The server's half: [`Subscription`], one client's subscription on an unreliable transport.

use super::builder::{split_tick, BuildError};
use super::schema::{
    ComponentChange, DatagramAckFrame, DatagramFrame, DatagramHeader, DatagramSchema, DespawnFrame,
    FullEntityFrame, FullFrameFrame, SpawnFrame, UpdateFrame,
};
use super::{quantize, spawn_tag, ReferenceDatagram, StreamFrame};
use std::collections::BTreeMap;

/// How a subscription encodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubscriptionConfig {
    /// Metres per quantization step of the axes.
    pub precision: f32,
    /// Bytes a datagram takes at most (header counted at its longest).
    pub max_datagram: usize,
    /// Datagrams whose contents are remembered for their ack; an ack of an older one is
    /// ignored (what it said is still sent, since nothing folded it).
    pub sent_window: u64,
}

impl Default for SubscriptionConfig {
    fn default() -> Self {
        SubscriptionConfig {
            precision: 0.01,
            max_datagram: 1200,
            sent_window: 1024,
        }
    }
}

/// One thing the world does during a tick.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldOp {
    /// An entity enters the subscription (a stream spawn frame).
    Spawn {
        /// The entity; its id must not be in use.
        id: u64,
        /// Position in metres.
        position: [f64; 3],
        /// Components by type.
        components: Vec<(u8, Vec<u8>)>,
    },
    /// An entity leaves (a stream despawn frame).
    Despawn {
        /// The entity.
        id: u64,
    },
    /// An entity moves.
    Move {
        /// The entity.
        id: u64,
        /// Its new position, in metres.
        position: [f64; 3],
    },
    /// A component is added or changed.
    SetComponent {
        /// The entity.
        id: u64,
        /// The component's type.
        r#type: u8,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// A component is removed.
    RemoveComponent {
        /// The entity.
        id: u64,
        /// The component's type.
        r#type: u8,
    },
    /// The tick sends a full frame instead of datagrams.
    FullFrame,
}

/// Why the world refused an operation or a tick.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// Ticks must ascend.
    #[error("tick {tick} is not after the last tick {last}")]
    TickNotAfter {
        /// The tick refused.
        tick: u64,
        /// The last tick.
        last: u64,
    },
    /// A spawn of an id in use.
    #[error("entity {0} is already spawned")]
    AlreadySpawned(u64),
    /// An operation on an id not spawned.
    #[error("entity {0} is not spawned")]
    NotSpawned(u64),
    /// The datagrams did not build.
    #[error("{0}")]
    Build(#[from] BuildError),
}

/// What a tick sends: stream frames (reliable, in order) and datagrams (unreliable).
#[derive(Debug, Clone, PartialEq)]
pub struct TickOutput<S: DatagramSchema = ReferenceDatagram> {
    /// Stream frames, in order.
    pub stream: Vec<StreamFrame<S>>,
    /// Datagrams: the tick's parts.
    pub datagrams: Vec<S::Datagram>,
}

impl<S: DatagramSchema> Default for TickOutput<S> {
    fn default() -> Self {
        TickOutput {
            stream: Vec::new(),
            datagrams: Vec::new(),
        }
    }
}

/// What an ack did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct AckSummary {
    /// The ack named a datagram the window remembers.
    pub known: bool,
    /// Entities the ack covered.
    pub covered: u32,
    /// Entities not covered: respawned since, or spawned after the ack's stream tick.
    pub not_covered: u32,
}

#[derive(Debug, Clone)]
struct Tracked {
    spawn_tick: u64,
    position: [i64; 3],
    /// Per axis, the number of the first datagram that could carry its last change.
    position_changed: [u64; 3],
    /// Per type: the bytes (None: removed, kept until an ack covers the removal) and the
    /// first datagram that could carry the change.
    components: BTreeMap<u8, (Option<Vec<u8>>, u64)>,
    /// The newest datagram whose ack covered this entity (or the last datagram built before
    /// its spawn).
    acked_frame: u64,
}

/// A world as the client should hold it: per id, the spawn tick, the quantized position and
/// the live components.
pub type WorldView = BTreeMap<u64, (u64, [i64; 3], BTreeMap<u8, Vec<u8>>)>;

/// The server's side of one subscription (DG-11 to DG-16).
///
/// Feed it the world's operations tick by tick with [`Subscription::tick`], which returns the
/// stream frames and the datagrams to send, and the client's acks with [`Subscription::on_ack`]. An
/// update carries every axis and component that changed since the entity's last acknowledged state
/// (DG-14).
#[derive(Debug, Clone)]
pub struct Subscription<S: DatagramSchema = ReferenceDatagram> {
    schema: S,
    config: SubscriptionConfig,
    entities: BTreeMap<u64, Tracked>,
    next_frame: u64,
    stream_tick: u64,
    last_tick: Option<u64>,
    /// Per datagram sent: the entities it carried updates for, with their spawn ticks.
    sent: BTreeMap<u64, Vec<(u64, u64)>>,
}

impl<S: DatagramSchema> Subscription<S> {
    /// A subscription of `schema` to an empty world.
    pub fn with_schema(schema: S, config: SubscriptionConfig) -> Self {
        Subscription {
            schema,
            config,
            entities: BTreeMap::new(),
            next_frame: 1,
            stream_tick: 0,
            last_tick: None,
            sent: BTreeMap::new(),
        }
    }

    /// The tick of the last stream frame sent.
    pub fn stream_tick(&self) -> u64 {
        self.stream_tick
    }

    /// Datagrams remembered for their acks.
    pub fn remembered(&self) -> usize {
        self.sent.len()
    }

    /// The world as the client should come to hold it: per id, the spawn tick, the quantized
    /// position and the live components.
    pub fn world(&self) -> WorldView {
        self.entities
            .iter()
            .map(|(id, e)| {
                let comps = e
                    .components
                    .iter()
                    .filter_map(|(t, (d, _))| d.clone().map(|d| (*t, d)))
                    .collect();
                (*id, (e.spawn_tick, e.position, comps))
            })
            .collect()
    }

    /// Whether `id` is spawned.
    pub fn contains(&self, id: u64) -> bool {
        self.entities.contains_key(&id)
    }

    fn q(&self, p: [f64; 3]) -> [i64; 3] {
        p.map(|c| quantize(c, self.config.precision))
    }

    /// One tick: applies `ops` in order, then sends the tick's stream frames and datagrams
    /// (or its full frame). `input_ack` is the highest client_seq the shard has processed.
    /// An op refused leaves the ops before it applied and the tick unsent.
    pub fn tick(
        &mut self,
        tick: u64,
        input_ack: u64,
        ops: &[WorldOp],
    ) -> Result<TickOutput<S>, WorldError> {
        if let Some(last) = self.last_tick {
            if tick <= last {
                return Err(WorldError::TickNotAfter { tick, last });
            }
        }
        let mut out = TickOutput::default();
        let mut full = false;
        // The first datagram that can carry a change made now.
        let carrier = self.next_frame;
        for op in ops {
            match op {
                WorldOp::Spawn {
                    id,
                    position,
                    components,
                } => {
                    if self.entities.contains_key(id) {
                        return Err(WorldError::AlreadySpawned(*id));
                    }
                    let position = self.q(*position);
                    let components: BTreeMap<u8, (Option<Vec<u8>>, u64)> = components
                        .iter()
                        .map(|(t, d)| (*t, (Some(d.clone()), 0)))
                        .collect();
                    out.stream.push(StreamFrame::Spawn(S::Spawn::new(
                        tick,
                        *id,
                        self.config.precision,
                        position,
                        wire_components(&components),
                    )));
                    self.entities.insert(
                        *id,
                        Tracked {
                            spawn_tick: tick,
                            position,
                            position_changed: [0; 3],
                            components,
                            // The spawn frame carries its state; nothing built before it
                            // counts.
                            acked_frame: carrier - 1,
                        },
                    );
                }
                WorldOp::Despawn { id } => {
                    let e = self
                        .entities
                        .remove(id)
                        .ok_or(WorldError::NotSpawned(*id))?;
                    if e.spawn_tick == tick {
                        // Spawned and despawned within this tick: the client never sees it.
                        // Two occupants of one id spawned in the same tick would share a spawn
                        // tag, and an update for the second could land on the first.
                        out.stream
                            .retain(|f: &StreamFrame<S>| !matches!(f, StreamFrame::Spawn(s) if s.id() == *id));
                    } else {
                        out.stream
                            .push(StreamFrame::Despawn(S::Despawn::new(tick, *id)));
                    }
                }
                WorldOp::Move { id, position } => {
                    let q = self.q(*position);
                    let e = self
                        .entities
                        .get_mut(id)
                        .ok_or(WorldError::NotSpawned(*id))?;
                    for ((held, changed), new) in
                        e.position.iter_mut().zip(&mut e.position_changed).zip(q)
                    {
                        if *held != new {
                            *held = new;
                            *changed = carrier;
                        }
                    }
                }
                WorldOp::SetComponent { id, r#type, data } => {
                    let e = self
                        .entities
                        .get_mut(id)
                        .ok_or(WorldError::NotSpawned(*id))?;
                    let same = matches!(e.components.get(r#type), Some((Some(d), _)) if d == data);
                    if !same {
                        e.components.insert(*r#type, (Some(data.clone()), carrier));
                    }
                }
                WorldOp::RemoveComponent { id, r#type } => {
                    let e = self
                        .entities
                        .get_mut(id)
                        .ok_or(WorldError::NotSpawned(*id))?;
                    if let Some((d @ Some(_), changed)) = e.components.get_mut(r#type) {
                        *d = None;
                        *changed = carrier;
                    }
                }
                WorldOp::FullFrame => full = true,
            }
        }
        self.last_tick = Some(tick);
        if !out.stream.is_empty() {
            self.stream_tick = tick;
        }
        if full {
            // A full frame replaces everything the client holds: the tick's other stream
            // frames are in it, and no datagram is sent this tick.
            out.stream.clear();
            let mut entities = Vec::with_capacity(self.entities.len());
            for (id, e) in self.entities.iter_mut() {
                e.components.retain(|_, (d, _)| d.is_some());
                for c in e.components.values_mut() {
                    c.1 = 0;
                }
                e.position_changed = [0; 3];
                e.spawn_tick = tick;
                e.acked_frame = self.next_frame - 1;
                entities.push(S::FullEntity::new(
                    *id,
                    e.position,
                    wire_components(&e.components),
                ));
            }
            out.stream.push(StreamFrame::FullFrame(S::FullFrame::new(
                tick,
                self.config.precision,
                entities,
            )));
            self.stream_tick = tick;
            return Ok(out);
        }
        let mut updates = Vec::new();
        for (id, e) in &self.entities {
            // DG-14: whatever changed since the entity's last acknowledged state is sent again
            // until an acknowledgement covers it.
            let due = |changed: u64| changed > e.acked_frame;
            let axes: [Option<i64>; 3] =
                std::array::from_fn(|axis| due(e.position_changed[axis]).then(|| e.position[axis]));
            let comps: Vec<S::Component> = e
                .components
                .iter()
                .filter(|(_, (_, changed))| due(*changed))
                .map(|(t, (d, _))| S::Component::new(*t, d.clone()))
                .collect();
            if axes.iter().all(Option::is_none) && comps.is_empty() {
                // Nothing is due: no update (its mask would be empty).
                continue;
            }
            // The tag and mask as encode_entry_into makes them.
            updates.push(S::Update::new(
                *id,
                spawn_tag(e.spawn_tick),
                axes,
                (!comps.is_empty()).then_some(comps),
            ));
        }
        let header = DatagramHeader {
            frame: self.next_frame,
            tick,
            input_ack,
            stream_tick: self.stream_tick,
            precision: self.config.precision,
            parts: 1,
        };
        // DG-11: a tick without a full frame sends one datagram or more.
        let datagrams = split_tick(self.schema, header, updates, self.config.max_datagram)?;
        for d in &datagrams {
            let carried = d
                .updates()
                .iter()
                .filter_map(|u| self.entities.get(&u.id()).map(|e| (u.id(), e.spawn_tick)))
                .collect();
            self.sent.insert(d.frame(), carried);
        }
        self.next_frame += datagrams.len() as u64;
        let oldest = self.next_frame.saturating_sub(self.config.sent_window);
        self.sent = self.sent.split_off(&oldest);
        out.datagrams = datagrams;
        Ok(out)
    }

    /// Folds the client's ack of one datagram.
    pub fn on_ack(&mut self, ack: &S::Ack) -> AckSummary {
        let mut s = AckSummary::default();
        let (frame, stream_tick) = (ack.frame(), ack.stream_tick());
        // An ack naming a stream frame never sent is not from our client.
        if stream_tick > self.stream_tick {
            return s;
        }
        let Some(carried) = self.sent.get(&frame) else {
            return s;
        };
        s.known = true;
        for (id, spawned) in carried {
            let Some(e) = self.entities.get_mut(id) else {
                s.not_covered += 1;
                continue;
            };
            // DG-15: an acknowledgement covers an entity only when its stream tick is at or after
            // the entity's spawn. The update must also be for this occupant of the id, not one
            // despawned since.
            if e.spawn_tick != *spawned || stream_tick < e.spawn_tick {
                s.not_covered += 1;
                continue;
            }
            s.covered += 1;
            // A late ack never moves the acknowledged state back.
            e.acked_frame = e.acked_frame.max(frame);
            let acked = e.acked_frame;
            e.components
                .retain(|_, (d, changed)| d.is_some() || *changed > acked);
        }
        s
    }
}

fn wire_components<C: ComponentChange>(c: &BTreeMap<u8, (Option<Vec<u8>>, u64)>) -> Vec<C> {
    c.iter()
        .filter_map(|(t, (d, _))| d.as_ref().map(|d| C::new(*t, Some(d.clone()))))
        .collect()
}
