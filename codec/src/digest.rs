//! Order-independent set digests: [`SetDigest`], the [`mix64`] hash it sums, and the
//! [`slot_key`] packing of an entity's slot and generation into the `u64` key it hashes.
//!
//! This lives in the codec crate, the lower one, because both ends of a delta-relevance stream must
//! fold exactly the same arithmetic: the server computes the digest of what it believes a client
//! holds, the client computes the digest of what it actually holds, and the two are compared.
//! SRV-1: both ends use one implementation of it; the server crate re-exports these items rather
//! than defining its own.
//!
//! The arithmetic is pinned by DELTA-3 to DELTA-5, so a plaza peer and an ackwire peer can check
//! each other bit for bit:
//!
//! - `SlotKey = (index << 16) | generation`, with a `u32` index and a `u16` generation;
//! - `mix64` is the SplitMix64 finalizer: add `0x9E3779B97F4A7C15`, then `x ^= x >> 30`,
//!   `x *= 0xBF58476D1CE4E5B9`, `x ^= x >> 27`, `x *= 0x94D049BB133111EB`, `x ^= x >> 31`
//!   (all wrapping);
//! - a [`SetDigest`] keeps a wrapping `u64` sum of `mix64(key)` and a wrapping `u32` count, and
//!   its digest is `sum ^ mix64(count as u64)`.
//!
//! Nothing here allocates, reads a clock or can panic.

/// The golden-ratio increment SplitMix64 adds before finalizing (DELTA-4).
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 finalizer applied to `key + 0x9E3779B97F4A7C15`, as DELTA-4 pins it.
///
/// A bijection on `u64` that spreads every input bit over the whole output, so that the sum of
/// mixed keys behaves like a sum of independent random values and two different small sets are
/// very unlikely to collide.
///
/// ```
/// # use ackwire_codec::digest::mix64;
/// assert_eq!(mix64(0), 0xE220_A839_7B1D_CDAF);
/// ```
#[must_use]
pub const fn mix64(key: u64) -> u64 {
    let mut x = key.wrapping_add(GOLDEN_GAMMA);
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    x
}

/// Packs an entity's slot `index` and `generation` into the key a [`SetDigest`] hashes: `(index <<
/// 16) | generation` (DELTA-3).
///
/// The key is what the digest hashes; carrying the generation makes a recycled slot a different key
/// from its previous occupant.
///
/// ```
/// # use ackwire_codec::digest::slot_key;
/// assert_eq!(slot_key(7, 3), 0x0007_0003);
/// ```
#[must_use]
pub const fn slot_key(index: u32, generation: u16) -> u64 {
    ((index as u64) << 16) | generation as u64
}

/// Splits a key made by [`slot_key`] back into `(index, generation)`.
///
/// Bits above the 48 that [`slot_key`] can set are ignored, so any `u64` splits without error.
#[must_use]
pub const fn split_slot_key(key: u64) -> (u32, u16) {
    ((key >> 16) as u32, key as u16)
}

/// An order-independent checksum of a set of `u64` keys, maintained incrementally.
///
/// DELTA-5: a sum of a mixed hash per key, so independent of order and kept incrementally:
/// inserting then removing a key gives back the digest before.
///
/// The type does not remember which keys it holds (that is the point: it is 12 bytes whatever
/// the set's size), so it is the caller's job to insert a key only when it enters the set and
/// remove it only when it leaves. Removing a key that was never inserted yields a digest that
/// no set has; inserting a key twice folds it twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SetDigest {
    /// Wrapping sum of `mix64(key)` over the keys held.
    sum: u64,
    /// Wrapping count of the keys held.
    count: u32,
}

impl SetDigest {
    /// The digest of the empty set.
    #[must_use]
    pub const fn new() -> Self {
        Self { sum: 0, count: 0 }
    }

    /// The digest of the given keys, in any order.
    #[must_use]
    pub fn from_keys(keys: impl IntoIterator<Item = u64>) -> Self {
        let mut digest = Self::new();
        for key in keys {
            digest.insert(key);
        }
        digest
    }

    /// Folds `key` into the set.
    pub fn insert(&mut self, key: u64) {
        self.sum = self.sum.wrapping_add(mix64(key));
        self.count = self.count.wrapping_add(1);
    }

    /// Takes `key` out of the set: the exact inverse of [`insert`](Self::insert).
    pub fn remove(&mut self, key: u64) {
        self.sum = self.sum.wrapping_sub(mix64(key));
        self.count = self.count.wrapping_sub(1);
    }

    /// Forgets every key: back to the digest of the empty set.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// How many keys are held (wrapping: DELTA-5 keeps the count as a wrapping `u32`).
    #[must_use]
    pub const fn len(&self) -> u32 {
        self.count
    }

    /// Whether no key is held.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The value two ends compare: `sum ^ mix64(count)`.
    ///
    /// Mixing the count in separates sets whose sums happen to agree but whose sizes do not,
    /// and gives the empty set a non-zero digest, `mix64(0)`.
    #[must_use]
    pub const fn digest(&self) -> u64 {
        self.sum ^ mix64(self.count as u64)
    }
}

impl FromIterator<u64> for SetDigest {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        Self::from_keys(iter)
    }
}

impl Extend<u64> for SetDigest {
    fn extend<I: IntoIterator<Item = u64>>(&mut self, iter: I) {
        for key in iter {
            self.insert(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values below were computed by hand (a few lines of Python over DELTA-4 and DELTA-5),
    // not by this code.

    #[test]
    fn mix64_is_the_splitmix64_finalizer_after_the_golden_gamma() {
        // DELTA-4.
        assert_eq!(mix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix64(1), 0x910A_2DEC_8902_5CC1);
        assert_eq!(mix64(2), 0x9758_35DE_1C97_56CE);
        assert_eq!(mix64(5), 0x6303_3B0C_A389_C35A);
        assert_eq!(mix64(slot_key(7, 3)), 0xA924_D7EB_AD36_B5AC);
    }

    #[test]
    fn slot_key_is_index_shifted_16_or_generation() {
        // DELTA-3.
        assert_eq!(slot_key(0, 0), 0);
        assert_eq!(slot_key(7, 3), (7 << 16) | 3);
        assert_eq!(slot_key(u32::MAX, u16::MAX), 0xFFFF_FFFF_FFFF);
        assert_eq!(split_slot_key(slot_key(123_456, 789)), (123_456, 789));
        assert_eq!(split_slot_key(u64::MAX), (u32::MAX, u16::MAX));
    }

    #[test]
    fn empty_digest_is_mix64_of_zero_count() {
        let digest = SetDigest::new();
        assert_eq!(digest.digest(), 0xE220_A839_7B1D_CDAF);
        assert!(digest.is_empty());
        assert_eq!(digest.len(), 0);
        assert_eq!(SetDigest::default(), digest);
    }

    #[test]
    fn digest_is_wrapping_sum_of_mixed_keys_xor_mixed_count() {
        // DELTA-5.
        // {5}: mix64(5) ^ mix64(1)
        assert_eq!(SetDigest::from_keys([5]).digest(), 0xF209_16E0_2A8B_9F9B);
        // {1, 2}: (mix64(1) + mix64(2)) mod 2^64 ^ mix64(2); the sum overflows u64.
        assert_eq!(SetDigest::from_keys([1, 2]).digest(), 0xBF3A_5614_B90E_E541);
        assert_eq!(SetDigest::from_keys([1, 2]).len(), 2);
    }

    #[test]
    fn digest_is_order_independent() {
        // DELTA-5.
        let a = SetDigest::from_keys([1, 2, 3, 99, 1 << 40]);
        let b = SetDigest::from_keys([1 << 40, 99, 3, 2, 1]);
        assert_eq!(a.digest(), b.digest());
        let c: SetDigest = [2, 1, 3, 1 << 40, 99].into_iter().collect();
        assert_eq!(a, c);
    }

    #[test]
    fn adding_then_removing_a_key_returns_to_the_previous_digest() {
        // DELTA-5.
        let mut digest = SetDigest::from_keys([10, 20, 30]);
        let before = digest.digest();
        digest.insert(40);
        assert_ne!(digest.digest(), before);
        digest.remove(40);
        assert_eq!(digest.digest(), before);
        assert_eq!(digest.len(), 3);
    }

    #[test]
    fn digest_mixes_the_count_in() {
        // The single key 0 has sum mix64(0); without the count mixed in its digest would equal
        // the empty set's, mix64(0).
        let one = SetDigest::from_keys([0]);
        assert_eq!(one.digest(), mix64(0) ^ mix64(1));
        assert_ne!(one.digest(), SetDigest::new().digest());
    }

    #[test]
    fn clear_returns_to_the_empty_digest() {
        let mut digest = SetDigest::from_keys([1, 2, 3]);
        digest.clear();
        assert_eq!(digest, SetDigest::new());
    }

    #[test]
    fn count_wraps_instead_of_panicking() {
        // DELTA-5.
        let mut digest = SetDigest::new();
        digest.remove(9);
        assert_eq!(digest.len(), u32::MAX);
        assert!(!digest.is_empty());
        digest.insert(9);
        assert_eq!(digest, SetDigest::new());
    }

    #[test]
    fn extend_folds_every_key() {
        let mut digest = SetDigest::from_keys([1]);
        digest.extend([2]);
        assert_eq!(digest, SetDigest::from_keys([1, 2]));
    }
}
