//! [`SlotKey`]: an entity's slot and the generation of its occupant, packed into the `u64` a
//! [`SetDigest`](crate::digest::SetDigest) hashes.

use crate::digest::{slot_key, split_slot_key};

/// A slot index and the generation of its occupant.
///
/// DELTA-3: `(index << 16) | generation`, from a u32 index and a u16 generation, is the key the
/// digest hashes and every retraction names, so that a retraction names the occupant the subscriber
/// holds rather than whatever holds the slot now. A respawn in the same slot is a different key:
/// the old occupant leaves and the new one enters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotKey {
    /// The slot.
    pub index: u32,
    /// The occupant's generation: bumped each time the slot is reused.
    pub generation: u16,
}

impl SlotKey {
    /// The key of the occupant `generation` of slot `index`.
    #[must_use]
    pub const fn new(index: u32, generation: u16) -> Self {
        Self { index, generation }
    }

    /// `(index << 16) | generation`: at most 48 bits, what the wire and the digest carry.
    #[must_use]
    pub const fn encode(self) -> u64 {
        slot_key(self.index, self.generation)
    }

    /// The key `key` encodes. Bits above the 48 that [`encode`](Self::encode) sets are
    /// ignored, so any `u64` decodes.
    #[must_use]
    pub const fn decode(key: u64) -> Self {
        let (index, generation) = split_slot_key(key);
        Self { index, generation }
    }

    /// The same slot with generation 0: for running deliberately without generations, which
    /// is how one demonstrates what they are for (every reference then matches whatever
    /// occupies the slot).
    #[must_use]
    pub const fn ungenerational(self) -> Self {
        Self {
            index: self.index,
            generation: 0,
        }
    }
}

impl From<SlotKey> for u64 {
    fn from(key: SlotKey) -> u64 {
        key.encode()
    }
}

impl From<u64> for SlotKey {
    fn from(key: u64) -> SlotKey {
        SlotKey::decode(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_space_is_index_shifted_sixteen_or_generation() {
        assert_eq!(SlotKey::new(7, 3).encode(), (7 << 16) | 3);
        assert_eq!(SlotKey::new(u32::MAX, u16::MAX).encode(), 0xFFFF_FFFF_FFFF);
        assert_eq!(SlotKey::decode(0x0001_0002_0003), SlotKey::new(0x1_0002, 3));
        assert_eq!(SlotKey::decode(u64::MAX), SlotKey::new(u32::MAX, u16::MAX));
        let k = SlotKey::new(123_456, 789);
        assert_eq!(SlotKey::from(u64::from(k)), k);
    }

    #[test]
    fn a_respawn_is_a_different_key_unless_generations_are_dropped() {
        let old = SlotKey::new(41, 7);
        let new = SlotKey::new(41, 8);
        assert_ne!(old.encode(), new.encode());
        assert_eq!(old.ungenerational(), new.ungenerational());
        assert_eq!(old.ungenerational().encode(), 41 << 16);
    }
}
