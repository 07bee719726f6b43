//! What binds the NetBaseline machines to a protocol: [`BaselineSchema`] names its components (the
//! declared groups an entity's state is made of), their codec, and its `snapshot` and
//! `snapshot_ack` frames.
//!
//! The machines keep the rules of `docs/spec/baseline.md` (by entity, never by slot; confirmed, not
//! sent; lost entities named until confirmed; the budget's order); a schema gives them the
//! components those rules move, whole. The reference protocol's (`spec/protocol/baseline.wire`:
//! Transform, Velocity, Health, Team) is one schema,
//! [`ReferenceBaseline`](super::ReferenceBaseline). The TypeScript, C++ and C# ports take the same
//! schema (`BaselineSchema` in each).

use super::scene::EntityId;
use crate::{EncodeError, Frame};
use std::fmt::Debug;

/// An entity's components of schema `S` by index, `None` where absent.
pub type Values<S> = <S as BaselineSchema>::Components<Option<<S as BaselineSchema>::Value>>;

/// An entity's components of schema `S` by index, each with its encoded bits.
pub type EncodedValues<S> =
    <S as BaselineSchema>::Components<Option<(<S as BaselineSchema>::Value, Vec<u8>)>>;

/// One entry of a snapshot body, its slot as the wire's gap (NB-4).
#[derive(Debug, Clone, PartialEq)]
pub struct WireEntry<S: BaselineSchema> {
    /// Slot minus the previous entry's slot minus one (the first entry: its slot).
    pub gap: u32,
    /// The occupant's generation.
    pub generation: u8,
    /// Its components by schema index, `None` where not carried.
    pub components: Values<S>,
}

/// A protocol's NetBaseline components and frames: what [`Scene`](super::Scene),
/// [`NetBaseline`](super::NetBaseline), [`SnapshotWriter`](super::SnapshotWriter) and
/// [`SnapshotClient`](super::SnapshotClient) are generic over. A schema is a value-less marker;
/// constructors take one only so that it is named.
pub trait BaselineSchema: Clone + Copy + Debug + Default + PartialEq + 'static {
    /// One component's value, any of the schema's types.
    type Value: Clone + Debug + PartialEq;
    /// One `T` per component type, in schema order (the mask's bit order): `[T; N]` for a schema
    /// of N component types, so an entity's components stay inline.
    type Components<T: Clone + Debug + PartialEq + Default>: Clone
        + Debug
        + PartialEq
        + Default
        + AsRef<[T]>
        + AsMut<[T]>
        + IntoIterator<Item = T>;
    /// The `snapshot` frame (server to client).
    type Snapshot: Frame;
    /// The `snapshot_ack` frame (client to server).
    type Ack: Frame;

    /// Sequences an acknowledgement can still arrive within (NB-10): what a snapshot older than the
    /// newest by more than this said is given up.
    const ACK_WINDOW: u16;
    /// Lost entities one snapshot names at most.
    const MAX_LOST_PER_SNAPSHOT: usize;
    /// Bytes of a snapshot before its body.
    const HEADER_BYTES: usize;
    /// Body bits around the lists (the counts).
    const COUNT_BITS: usize;
    /// An entry's bits before its components, at their longest.
    const ENTRY_HEAD_BITS: usize;
    /// Bits a lost entity takes.
    const LOST_BITS: usize;

    /// The component type of `value`: its index in the schema (below the number of types).
    fn index(value: &Self::Value) -> usize;
    /// Its encoded bits, padded to a byte: what "differ from what the connection confirmed"
    /// compares (NB-7).
    fn bits(value: &Self::Value) -> Result<Vec<u8>, EncodeError>;
    /// Bits it takes in a snapshot body.
    fn bit_len(value: &Self::Value) -> usize;

    /// The snapshot `sequence` naming `lost` (ascending by slot) and carrying `entries` (ascending
    /// by slot, each slot as its gap).
    fn snapshot(sequence: u16, lost: &[EntityId], entries: Vec<WireEntry<Self>>) -> Self::Snapshot;
    /// A snapshot's sequence.
    fn sequence(snapshot: &Self::Snapshot) -> u16;
    /// A snapshot's lost entities and entries, as they are on the wire.
    fn read(snapshot: &Self::Snapshot) -> (Vec<EntityId>, Vec<WireEntry<Self>>);
    /// The acknowledgement of snapshot `sequence`.
    fn ack(sequence: u16) -> Self::Ack;
    /// The sequence an acknowledgement names.
    fn acked(ack: &Self::Ack) -> u16;
}
