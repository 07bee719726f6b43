//! What binds the datagram v2 machines to a protocol: [`DatagramSchema`] names its frames, and the
//! frame traits here say what the machines read of each and how they make one.
//!
//! The machines keep the rules of `docs/spec/datagram.md` (ids ascending, spawn tags, whole ticks,
//! the acks); a schema gives them the frames those rules are about, with their codecs. The
//! reference protocol's frames (`spec/protocol/datagram.wire`) are one schema,
//! [`ReferenceDatagram`](super::ReferenceDatagram); another protocol with the same frames under its
//! own names and kinds is another. The TypeScript, C++ and C# ports take the same schema
//! (`DatagramSchema` in each).

use crate::{EncodeError, Frame};
use std::fmt::Debug;

/// One component of an entity in an update or a stream frame, or its removal (DG-6): a type and
/// its payload, absent when removed.
pub trait ComponentChange: Clone + Debug + PartialEq {
    /// The change of component `component_type` to `data` (`None`: removed).
    fn new(component_type: u8, data: Option<Vec<u8>>) -> Self;
    /// The component's type.
    fn component_type(&self) -> u8;
    /// Its bytes, or `None` when the change removes it.
    fn data(&self) -> Option<&[u8]>;
}

/// One entity's update in a datagram (DG-4 to DG-6).
pub trait UpdateFrame: Clone + Debug + PartialEq {
    /// The component changes it carries.
    type Component: ComponentChange;
    /// The update of entity `id` under spawn tag `spawn_tag`, carrying the axes given and, when
    /// `components` is given (even empty), its changes; the mask follows from what is given (DG-4).
    fn new(
        id: u64,
        spawn_tag: u16,
        axes: [Option<i64>; 3],
        components: Option<Vec<Self::Component>>,
    ) -> Self;
    /// The entity.
    fn id(&self) -> u64;
    /// The low 16 bits of the tick of the stream frame that spawned the entity (DG-8).
    fn spawn_tag(&self) -> u16;
    /// The absolute axes it carries, in steps of the datagram's precision.
    fn axes(&self) -> [Option<i64>; 3];
    /// Its component changes, when it carries any (even none under the mask bit).
    fn components(&self) -> Option<&[Self::Component]>;
    /// The bytes it takes in a datagram's ascending list after the update of id `prev` (the first:
    /// none), moving `prev` on to its id (DG-3).
    fn encoded_len_after(&self, prev: &mut Option<u64>) -> usize;
    /// Whether it encodes on its own (its mask matches what it carries).
    fn check(&self) -> Result<(), EncodeError>;
}

/// The fields of a datagram's header that the caller chooses (the update count follows from the
/// updates, the parts from the split).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DatagramHeader {
    /// The datagram's number, per subscription, from 1.
    pub frame: u64,
    /// The server tick the updates describe.
    pub tick: u64,
    /// The highest client_seq the shard has processed.
    pub input_ack: u64,
    /// The tick of the last stream frame sent by this tick.
    pub stream_tick: u64,
    /// Metres per quantization step.
    pub precision: f32,
    /// How many datagrams this tick is sent in.
    pub parts: u32,
}

/// One datagram: the updates of one tick, or of one part of it (DG-1).
pub trait DatagramFrame: Frame {
    /// Its updates.
    type Update: UpdateFrame;
    /// The datagram of `header` holding `updates` (ids ascending).
    fn new(header: DatagramHeader, updates: Vec<Self::Update>) -> Self;
    /// The datagram's number, per subscription (DG-2).
    fn frame(&self) -> u64;
    /// The server tick the updates describe.
    fn tick(&self) -> u64;
    /// The highest client_seq the shard has processed.
    fn input_ack(&self) -> u64;
    /// The tick of the last stream frame sent by this tick.
    fn stream_tick(&self) -> u64;
    /// How many datagrams the tick was sent in.
    fn parts(&self) -> u32;
    /// The updates, ids ascending.
    fn updates(&self) -> &[Self::Update];
}

/// Stream frame: an entity enters the subscription (DG-9).
pub trait SpawnFrame: Frame {
    /// Its components.
    type Component: ComponentChange;
    /// Entity `id` spawned at `tick` at `position` (in steps of `precision`) with `components`.
    fn new(
        tick: u64,
        id: u64,
        precision: f32,
        position: [i64; 3],
        components: Vec<Self::Component>,
    ) -> Self;
    /// The stream frame's tick.
    fn tick(&self) -> u64;
    /// The entity.
    fn id(&self) -> u64;
    /// Its absolute position, in steps.
    fn position(&self) -> [i64; 3];
    /// Its components.
    fn components(&self) -> &[Self::Component];
}

/// Stream frame: an entity leaves the subscription.
pub trait DespawnFrame: Frame {
    /// Entity `id` despawned at `tick`.
    fn new(tick: u64, id: u64) -> Self;
    /// The stream frame's tick.
    fn tick(&self) -> u64;
    /// The entity.
    fn id(&self) -> u64;
}

/// One entity of a full frame.
pub trait FullEntityFrame: Clone + Debug + PartialEq {
    /// Its components.
    type Component: ComponentChange;
    /// Entity `id` at `position` with `components`.
    fn new(id: u64, position: [i64; 3], components: Vec<Self::Component>) -> Self;
    /// The entity.
    fn id(&self) -> u64;
    /// Its absolute position, in steps.
    fn position(&self) -> [i64; 3];
    /// Its components.
    fn components(&self) -> &[Self::Component];
}

/// Stream frame: the whole subscription (DG-12, DG-17).
pub trait FullFrameFrame: Frame {
    /// Its entities.
    type Entity: FullEntityFrame;
    /// The subscription at `tick`, positions in steps of `precision`, entities ascending by id.
    fn new(tick: u64, precision: f32, entities: Vec<Self::Entity>) -> Self;
    /// The stream frame's tick.
    fn tick(&self) -> u64;
    /// The entities, ids ascending.
    fn entities(&self) -> &[Self::Entity];
}

/// The client's acknowledgement of one datagram (DG-10).
pub trait DatagramAckFrame: Frame {
    /// The ack of datagram `frame`, applied with every stream frame up to `stream_tick`.
    fn new(frame: u64, stream_tick: u64) -> Self;
    /// The datagram's number.
    fn frame(&self) -> u64;
    /// The tick of the last stream frame applied.
    fn stream_tick(&self) -> u64;
}

/// A protocol's datagram v2 frames: what [`DatagramBuilder`](super::DatagramBuilder),
/// [`Subscription`](super::Subscription) and [`ReplicaTable`](super::ReplicaTable) are generic
/// over. A schema is a value-less marker; the machines hold one only so a constructor can name it.
pub trait DatagramSchema: Clone + Copy + Debug + Default + PartialEq + 'static {
    /// A component change.
    type Component: ComponentChange;
    /// An update.
    type Update: UpdateFrame<Component = Self::Component>;
    /// A datagram.
    type Datagram: DatagramFrame<Update = Self::Update>;
    /// The spawn stream frame.
    type Spawn: SpawnFrame<Component = Self::Component>;
    /// The despawn stream frame.
    type Despawn: DespawnFrame;
    /// One entity of a full frame.
    type FullEntity: FullEntityFrame<Component = Self::Component>;
    /// The full stream frame.
    type FullFrame: FullFrameFrame<Entity = Self::FullEntity>;
    /// The client's acknowledgement.
    type Ack: DatagramAckFrame;
    /// A datagram's header at its longest, in bytes: what a builder counts it at (DG-7).
    const MAX_HEADER_LEN: usize;
}
