//! The reference conveniences of the datagram v2 machines (`Subscription::new`,
//! `ReplicaTable::new`, ...), which name the reference protocol's schema, so that the machines
//! themselves name no protocol's types. The schema itself, [`ReferenceDatagram`], and its frame
//! traits are generated from `schema ReferenceDatagram` in `spec/protocol/datagram.wire`.

use super::builder::DatagramBuilder;
use super::replica::{ReplicaLimits, ReplicaTable};
use super::schema::{DatagramHeader, UpdateFrame};
use super::spawn_tag;
use super::subscription::{Subscription, SubscriptionConfig};
pub use crate::protocol::ReferenceDatagram;
use crate::protocol::{Component, Update};
use crate::EncodeError;

impl DatagramBuilder {
    /// An empty datagram of the reference protocol with `header`, refusing updates that would take
    /// it over `limit` bytes (header counted at [`MAX_HEADER_LEN`](crate::protocol::MAX_HEADER_LEN)).
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
