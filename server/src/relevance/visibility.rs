//! [`VisibilitySet`]: a dense bitset of visible entity indices with a word-at-a-time diff.

use ackwire_codec::digest::SetDigest;

const WORD_BITS: u32 = u64::BITS;

/// A dense bitset of which entities (by `u32` index) are visible to one client, with a fast diff
/// (SRV-9).
///
/// Memory is one bit per index up to the largest inserted, so this is the fast path for dense
/// indices; for sparse handles map to dense indices first, or diff two sorted lists.
#[derive(Clone, Debug, Default)]
pub struct VisibilitySet {
    words: Vec<u64>,
}

impl VisibilitySet {
    /// An empty set.
    #[must_use]
    pub const fn new() -> Self {
        Self { words: Vec::new() }
    }

    /// An empty set with room for indices up to and including `max_index` without
    /// reallocating.
    #[must_use]
    pub fn with_capacity(max_index: u32) -> Self {
        Self {
            words: Vec::with_capacity(Self::word_of(max_index) + 1),
        }
    }

    fn word_of(index: u32) -> usize {
        (index / WORD_BITS) as usize
    }

    fn bit_of(index: u32) -> u64 {
        1 << (index % WORD_BITS)
    }

    /// Makes every index not visible, keeping the allocation.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Marks `index` visible.
    pub fn insert(&mut self, index: u32) {
        let word = Self::word_of(index);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        if let Some(bits) = self.words.get_mut(word) {
            *bits |= Self::bit_of(index);
        }
    }

    /// Marks `index` not visible.
    ///
    /// SRV-9: for an entity destroyed rather than out of range, removing it makes the next diff see
    /// a reused slot as a new arrival, instead of carrying the old occupant's membership over to
    /// the new one.
    pub fn remove(&mut self, index: u32) {
        if let Some(bits) = self.words.get_mut(Self::word_of(index)) {
            *bits &= !Self::bit_of(index);
        }
    }

    /// Whether `index` is visible.
    #[must_use]
    pub fn contains(&self, index: u32) -> bool {
        self.words
            .get(Self::word_of(index))
            .is_some_and(|bits| bits & Self::bit_of(index) != 0)
    }

    /// How many indices are visible.
    #[must_use]
    pub fn count(&self) -> usize {
        self.words
            .iter()
            .map(|bits| bits.count_ones() as usize)
            .sum()
    }

    /// Whether no index is visible.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&bits| bits == 0)
    }

    /// The visible indices, ascending.
    #[must_use]
    pub fn iter(&self) -> VisibilitySetIter<'_> {
        VisibilitySetIter {
            words: &self.words,
            word: 0,
            bits: self.words.first().copied().unwrap_or(0),
        }
    }

    /// The spawn/despawn stream: appends newly visible indices (`self & !previous`) to
    /// `entered` and no-longer-visible ones (`previous & !self`) to `left`, each ascending,
    /// word at a time.
    ///
    /// SRV-9: neither vector is cleared first, so they can be reused. Sets of different lengths
    /// diff as if the shorter were padded with zeros.
    pub fn diff(&self, previous: &VisibilitySet, entered: &mut Vec<u32>, left: &mut Vec<u32>) {
        let words = self.words.len().max(previous.words.len());
        for word in 0..words {
            let now = self.words.get(word).copied().unwrap_or(0);
            let before = previous.words.get(word).copied().unwrap_or(0);
            push_bits(word, now & !before, entered);
            push_bits(word, before & !now, left);
        }
    }

    /// An order-independent digest of the visible indices: SRV-9, the SetDigest fold (DELTA-5) with
    /// each index as the `u64` key. Equal to
    /// `SetDigest::from_keys(self.iter().map(u64::from)).digest()`.
    #[must_use]
    pub fn digest(&self) -> u64 {
        SetDigest::from_keys(self.iter().map(u64::from)).digest()
    }
}

/// Appends the indices of the set bits of word number `word`.
fn push_bits(word: usize, mut bits: u64, out: &mut Vec<u32>) {
    // `word` came from a set built from u32 indices, so the base fits a u32.
    let base = (word as u64 * u64::from(WORD_BITS)) as u32;
    while bits != 0 {
        out.push(base + bits.trailing_zeros());
        bits &= bits - 1;
    }
}

impl PartialEq for VisibilitySet {
    /// Two sets are equal when they hold the same indices, whatever their allocated lengths.
    fn eq(&self, other: &Self) -> bool {
        let words = self.words.len().max(other.words.len());
        (0..words).all(|word| {
            self.words.get(word).copied().unwrap_or(0)
                == other.words.get(word).copied().unwrap_or(0)
        })
    }
}

impl Eq for VisibilitySet {}

impl Extend<u32> for VisibilitySet {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, iter: I) {
        for index in iter {
            self.insert(index);
        }
    }
}

impl FromIterator<u32> for VisibilitySet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut set = Self::new();
        set.extend(iter);
        set
    }
}

impl<'a> IntoIterator for &'a VisibilitySet {
    type Item = u32;
    type IntoIter = VisibilitySetIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The visible indices of a [`VisibilitySet`], ascending; made by [`VisibilitySet::iter`].
#[derive(Clone, Debug)]
pub struct VisibilitySetIter<'a> {
    words: &'a [u64],
    word: usize,
    bits: u64,
}

impl Iterator for VisibilitySetIter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        while self.bits == 0 {
            self.word += 1;
            self.bits = *self.words.get(self.word)?;
        }
        let bit = self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        Some((self.word as u64 * u64::from(WORD_BITS)) as u32 + bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn insert_contains_remove_count() {
        let mut set = VisibilitySet::with_capacity(200);
        assert!(set.is_empty());
        set.insert(3);
        set.insert(64);
        set.insert(200);
        set.insert(3);
        assert!(set.contains(3) && set.contains(64) && set.contains(200));
        assert!(!set.contains(4) && !set.contains(100_000));
        assert_eq!(set.count(), 3);
        set.remove(64);
        set.remove(100_000); // beyond the end: nothing to do
        assert!(!set.contains(64));
        assert_eq!(set.count(), 2);
    }

    #[test]
    fn iter_is_ascending() {
        let set: VisibilitySet = [130, 5, 64, 0, 63, 10_000].into_iter().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 130, 10_000]);
        assert_eq!(VisibilitySet::new().iter().next(), None);
    }

    #[test]
    fn clear_empties_the_set() {
        let mut set: VisibilitySet = [1, 2, 300].into_iter().collect();
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set.count(), 0);
        assert_eq!(set, VisibilitySet::new());
    }

    #[test]
    fn diff_appends_entered_and_left_without_clearing() {
        // SRV-9.
        let previous: VisibilitySet = [1, 2, 70, 500].into_iter().collect();
        let now: VisibilitySet = [2, 3, 70, 130].into_iter().collect();
        let mut entered = vec![999];
        let mut left = vec![888];
        now.diff(&previous, &mut entered, &mut left);
        assert_eq!(entered, [999, 3, 130]);
        assert_eq!(left, [888, 1, 500]);
    }

    #[test]
    fn removing_a_destroyed_entity_makes_a_reused_slot_a_fresh_arrival() {
        // SRV-9.
        let previous: VisibilitySet = [4].into_iter().collect();
        // Slot 4's occupant is destroyed; the caller clears it from the previous set.
        let mut previous_after_destroy = previous.clone();
        previous_after_destroy.remove(4);
        // The slot is reused and visible again this tick.
        let now: VisibilitySet = [4].into_iter().collect();
        let (mut entered, mut left) = (Vec::new(), Vec::new());
        now.diff(&previous, &mut entered, &mut left);
        assert!(
            entered.is_empty(),
            "without remove the new occupant is carried forward"
        );
        now.diff(&previous_after_destroy, &mut entered, &mut left);
        assert_eq!(entered, [4]);
    }

    #[test]
    fn digest_equals_set_digest_over_the_same_indices() {
        // SRV-9, DELTA-5.
        let set: VisibilitySet = [0, 7, 64, 1000].into_iter().collect();
        assert_eq!(
            set.digest(),
            SetDigest::from_keys([1000, 64, 7, 0]).digest()
        );
        assert_eq!(VisibilitySet::new().digest(), SetDigest::new().digest());
    }

    #[test]
    fn equality_ignores_allocated_length() {
        let mut long: VisibilitySet = [1, 1000].into_iter().collect();
        long.remove(1000);
        let short: VisibilitySet = [1].into_iter().collect();
        assert_eq!(long, short);
    }

    proptest! {
        #[test]
        fn diff_matches_set_difference(
            a in proptest::collection::btree_set(0_u32..400, 0..40),
            b in proptest::collection::btree_set(0_u32..400, 0..40),
        ) {
            let now: VisibilitySet = a.iter().copied().collect();
            let previous: VisibilitySet = b.iter().copied().collect();
            let (mut entered, mut left) = (Vec::new(), Vec::new());
            now.diff(&previous, &mut entered, &mut left);
            prop_assert_eq!(entered, a.difference(&b).copied().collect::<Vec<_>>());
            prop_assert_eq!(left, b.difference(&a).copied().collect::<Vec<_>>());
            prop_assert_eq!(now.digest(), SetDigest::from_keys(a.iter().map(|&i| u64::from(i))).digest());
            prop_assert_eq!(now.count(), a.len());
        }
    }
}
