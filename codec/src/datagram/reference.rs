//! The reference protocol's schema for the datagram v2 machines: the frames of
//! `spec/protocol/datagram.wire` as the generated codec declares them ([`ReferenceDatagram`]), and
//! the reference conveniences that name it (`Subscription::new`, `ReplicaTable::new`, ...), so the
//! machines themselves name no protocol's types.

use super::builder::DatagramBuilder;
use super::replica::{ReplicaLimits, ReplicaTable};
use super::schema::{
    ComponentChange, DatagramAckFrame, DatagramFrame, DatagramHeader, DatagramSchema, DespawnFrame,
    FullEntityFrame, FullFrameFrame, SpawnFrame, UpdateFrame,
};
use super::spawn_tag;
use super::subscription::{Subscription, SubscriptionConfig};
use crate::protocol::{
    Component, Datagram, DatagramAck, Despawn, FullEntity, FullFrame, Spawn, Update, UpdateMask,
    MAX_HEADER_LEN,
};
use crate::{BitSet, EncodeError};

/// The datagram v2 frames of the reference protocol (`docs/spec/datagram.md`): kinds 1 to 4 and the
/// version-2 datagram of `spec/protocol/datagram.wire`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReferenceDatagram;

impl DatagramSchema for ReferenceDatagram {
    type Component = Component;
    type Update = Update;
    type Datagram = Datagram;
    type Spawn = Spawn;
    type Despawn = Despawn;
    type FullEntity = FullEntity;
    type FullFrame = FullFrame;
    type Ack = DatagramAck;
    const MAX_HEADER_LEN: usize = MAX_HEADER_LEN as usize;
}

impl ComponentChange for Component {
    fn new(component_type: u8, data: Option<Vec<u8>>) -> Self {
        Component {
            r#type: component_type,
            data,
        }
    }
    fn component_type(&self) -> u8 {
        self.r#type
    }
    fn data(&self) -> Option<&[u8]> {
        self.data.as_deref()
    }
}

impl UpdateFrame for Update {
    type Component = Component;
    fn new(
        id: u64,
        spawn_tag: u16,
        axes: [Option<i64>; 3],
        components: Option<Vec<Component>>,
    ) -> Self {
        let mut mask = UpdateMask::empty();
        // DG-4: mask bit 1 x, 2 y, 4 z, 8 components.
        for (bit, axis) in [UpdateMask::X, UpdateMask::Y, UpdateMask::Z]
            .into_iter()
            .zip(&axes)
        {
            mask.set(bit, axis.is_some());
        }
        mask.set(UpdateMask::COMPONENTS, components.is_some());
        Update {
            id,
            spawn_tag,
            mask,
            x: axes[0],
            y: axes[1],
            z: axes[2],
            components,
        }
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn spawn_tag(&self) -> u16 {
        self.spawn_tag
    }
    fn axes(&self) -> [Option<i64>; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> Option<&[Component]> {
        self.components.as_deref()
    }
    fn encoded_len_after(&self, prev: &mut Option<u64>) -> usize {
        Update::encoded_len_after(self, prev)
    }
    fn check(&self) -> Result<(), EncodeError> {
        self.write(&mut Vec::new())
    }
}

impl DatagramFrame for Datagram {
    type Update = Update;
    fn new(header: DatagramHeader, updates: Vec<Update>) -> Self {
        Datagram {
            frame: header.frame,
            tick: header.tick,
            input_ack: header.input_ack,
            stream_tick: header.stream_tick,
            precision: header.precision,
            parts: header.parts,
            updates,
        }
    }
    fn frame(&self) -> u64 {
        self.frame
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn input_ack(&self) -> u64 {
        self.input_ack
    }
    fn stream_tick(&self) -> u64 {
        self.stream_tick
    }
    fn parts(&self) -> u32 {
        self.parts
    }
    fn updates(&self) -> &[Update] {
        &self.updates
    }
}

impl SpawnFrame for Spawn {
    type Component = Component;
    fn new(
        tick: u64,
        id: u64,
        precision: f32,
        position: [i64; 3],
        components: Vec<Component>,
    ) -> Self {
        let [x, y, z] = position;
        Spawn {
            tick,
            id,
            precision,
            x,
            y,
            z,
            components,
        }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn position(&self) -> [i64; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> &[Component] {
        &self.components
    }
}

impl DespawnFrame for Despawn {
    fn new(tick: u64, id: u64) -> Self {
        Despawn { tick, id }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn id(&self) -> u64 {
        self.id
    }
}

impl FullEntityFrame for FullEntity {
    type Component = Component;
    fn new(id: u64, position: [i64; 3], components: Vec<Component>) -> Self {
        let [x, y, z] = position;
        FullEntity {
            id,
            x,
            y,
            z,
            components,
        }
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn position(&self) -> [i64; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> &[Component] {
        &self.components
    }
}

impl FullFrameFrame for FullFrame {
    type Entity = FullEntity;
    fn new(tick: u64, precision: f32, entities: Vec<FullEntity>) -> Self {
        FullFrame {
            tick,
            precision,
            entities,
        }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn entities(&self) -> &[FullEntity] {
        &self.entities
    }
}

impl DatagramAckFrame for DatagramAck {
    fn new(frame: u64, stream_tick: u64) -> Self {
        DatagramAck { frame, stream_tick }
    }
    fn frame(&self) -> u64 {
        self.frame
    }
    fn stream_tick(&self) -> u64 {
        self.stream_tick
    }
}

impl DatagramBuilder {
    /// An empty datagram of the reference protocol with `header`, refusing updates that would take
    /// it over `limit` bytes (header counted at [`MAX_HEADER_LEN`]).
    pub fn new(header: DatagramHeader, limit: usize) -> Self {
        Self::with_schema(ReferenceDatagram, header, limit)
    }
}

impl Subscription {
    /// A subscription of the reference protocol to an empty world.
    pub fn new(config: SubscriptionConfig) -> Self {
        Self::with_schema(ReferenceDatagram, config)
    }
}

impl Default for ReplicaTable {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplicaTable {
    /// An empty table of the reference protocol with default limits.
    pub fn new() -> Self {
        Self::with_limits(ReplicaLimits::default())
    }

    /// An empty table of the reference protocol with `limits`.
    pub fn with_limits(limits: ReplicaLimits) -> Self {
        Self::with_schema(ReferenceDatagram, limits)
    }
}

/// Encode one reference update body (everything after the id): the spawn tick's tag, mask, the
/// axes given, and the component changes (`docs/spec/datagram.md`). Appends to `out`.
///
/// The mask follows from what is given: X, Y, Z for the axes present (absolute quantized
/// values, see [`quantize`](super::quantize)), COMPONENTS when `components` is given, even empty
/// (the wire allows a count of 0 under the bit; the server's own updates never send one). The id in
/// front is the caller's to write, as an ascending list codes it (absolute for the first
/// update, then the difference from the previous id). On an error `out` is left as it was.
pub fn encode_entry_into(
    out: &mut Vec<u8>,
    spawn_tick: u64,
    axes: [Option<i64>; 3],
    components: Option<&[Component]>,
) -> Result<(), EncodeError> {
    let start = out.len();
    // The update's layout lives in datagram.wire alone, so the generated encoder writes it:
    // with an absolute id of 0, whose varint is the one byte 0, taken out again.
    let update = <Update as UpdateFrame>::new(
        0,
        spawn_tag(spawn_tick),
        axes,
        components.map(<[Component]>::to_vec),
    );
    if let Err(e) = update.write(out) {
        out.truncate(start);
        return Err(e);
    }
    out.remove(start);
    Ok(())
}
