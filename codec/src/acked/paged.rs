//! [`PagedMap`]: the live states the change-driven server half edits in place, entity by
//! entity.
//!
//! A table from entity id to a value in pages of [`PAGE`] slots, a page allocated when an id in
//! it first gets a value and let go when its last one goes: setting, adding or removing an
//! entity is one slot, reached through its page, never a search, a copy or a shift of the world
//! (a sorted vector of the whole state shifts every entry after a spawn, and a search through
//! chunks costs a chain of reads, each a cache miss when many clients' states share the cache).
//! A world of dense ids takes about its entities' slots; at most 65,536 slots, the id being a
//! `u16` (1,024 pages). Walking it in id order (a keyframe, the check) reads page after page.
//! Its heap is the page list and the pages, which [`PagedMap::heap_bytes`] counts exactly.

/// The slots of a page.
pub(crate) const PAGE: usize = 64;

/// One page: its slots, and how many hold a value.
#[derive(Debug, Clone)]
struct Page<V> {
    slots: Box<[Option<V>]>,
    used: usize,
}

/// Values by entity id, in pages of [`PAGE`] slots.
#[derive(Debug, Clone)]
pub(crate) struct PagedMap<V> {
    /// Page `i` holds ids `i * PAGE ..`; `None` where none has a value.
    pages: Vec<Option<Page<V>>>,
    len: usize,
}

impl<V> Default for PagedMap<V> {
    fn default() -> Self {
        Self {
            pages: Vec::new(),
            len: 0,
        }
    }
}

fn split(eid: u16) -> (usize, usize) {
    (usize::from(eid) / PAGE, usize::from(eid) % PAGE)
}

impl<V> PagedMap<V> {
    /// The value of `eid`.
    pub(crate) fn get(&self, eid: u16) -> Option<&V> {
        let (p, s) = split(eid);
        self.pages.get(p)?.as_ref()?.slots.get(s)?.as_ref()
    }

    /// The value of `eid`, mutable.
    pub(crate) fn get_mut(&mut self, eid: u16) -> Option<&mut V> {
        let (p, s) = split(eid);
        self.pages.get_mut(p)?.as_mut()?.slots.get_mut(s)?.as_mut()
    }

    /// The place of `eid` among all values, ascending (its rank), when it has one: a walk of
    /// the values before it, for error reports only.
    pub(crate) fn rank(&self, eid: u16) -> Option<usize> {
        self.get(eid)?;
        Some(self.iter().take_while(|(e, _)| *e < eid).count())
    }

    /// Sets the value of `eid`; returns the one it replaced.
    pub(crate) fn insert(&mut self, eid: u16, value: V) -> Option<V> {
        let (p, s) = split(eid);
        if self.pages.len() <= p {
            self.pages.resize_with(p + 1, || None);
        }
        let page = self.pages[p].get_or_insert_with(|| Page {
            slots: (0..PAGE).map(|_| None).collect(),
            used: 0,
        });
        let old = page.slots[s].replace(value);
        if old.is_none() {
            page.used += 1;
            self.len += 1;
        }
        old
    }

    /// Removes the value of `eid`.
    pub(crate) fn remove(&mut self, eid: u16) -> Option<V> {
        let (p, s) = split(eid);
        let slot = self.pages.get_mut(p)?;
        let page = slot.as_mut()?;
        let old = page.slots.get_mut(s)?.take()?;
        page.used -= 1;
        self.len -= 1;
        if page.used == 0 {
            *slot = None;
        }
        Some(old)
    }

    /// Every entry, ascending by id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u16, &V)> {
        self.pages
            .iter()
            .enumerate()
            .filter_map(|(p, page)| page.as_ref().map(|page| (p, page)))
            .flat_map(|(p, page)| {
                page.slots.iter().enumerate().filter_map(move |(s, v)| {
                    // At most 1,024 pages of 64 slots: the id fits a u16.
                    v.as_ref().map(|v| ((p * PAGE + s) as u16, v))
                })
            })
    }

    /// How many values.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The heap it takes: the page list at capacity and each page's slots.
    pub(crate) fn heap_bytes(&self) -> usize {
        let pages = self.pages.iter().flatten().count();
        self.pages.capacity() * std::mem::size_of::<Option<Page<V>>>()
            + pages * PAGE * std::mem::size_of::<Option<V>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn it_holds_what_a_map_holds_through_inserts_and_removals() {
        let mut paged = PagedMap::default();
        let mut model = BTreeMap::new();
        let mut x = 0x2545_f491_u32;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Dense low ids and a few up to the largest.
            let eid = if x.is_multiple_of(7) {
                u16::MAX - (x >> 8) as u16 % 300
            } else {
                (x % 700) as u16
            };
            if x.is_multiple_of(3) {
                assert_eq!(paged.remove(eid), model.remove(&eid), "step {step}");
            } else {
                assert_eq!(paged.insert(eid, step), model.insert(eid, step));
            }
            assert_eq!(paged.len(), model.len());
            assert_eq!(paged.get(eid), model.get(&eid));
        }
        let all: Vec<(u16, u32)> = paged.iter().map(|(e, v)| (e, *v)).collect();
        let expected: Vec<(u16, u32)> = model.iter().map(|(e, v)| (*e, *v)).collect();
        assert_eq!(all, expected);
        for (rank, (eid, _)) in expected.iter().enumerate().step_by(17) {
            assert_eq!(paged.rank(*eid), Some(rank));
        }
        // A page whose last value went is let go.
        for eid in model.keys() {
            paged.remove(*eid);
        }
        assert!(paged.pages.iter().all(Option::is_none));
    }
}
