//! [`ChunkMap`]: the live state the change-driven server half edits in place, entity by entity.
//!
//! A map from entity id to a value, kept ascending by id in chunks of at most [`CHUNK`] entries,
//! so that setting, adding or removing one entity costs a search and a shift inside one chunk,
//! never a copy or a shift of the world (a sorted vector of the whole state shifts every entry
//! after a spawn). Walking it in id order (a keyframe, the check) reads chunk after chunk.
//! Its heap is the chunks' vectors at capacity, which [`ChunkMap::heap_bytes`] counts exactly.

use super::moves;

/// The most entries a chunk holds; a chunk that grows past it splits in two.
pub(crate) const CHUNK: usize = 64;

/// Entries by id, ascending, in chunks of at most [`CHUNK`].
#[derive(Debug, Clone)]
pub(crate) struct ChunkMap<V> {
    /// Never an empty chunk; each ascending, each after the one before.
    chunks: Vec<Vec<(u16, V)>>,
    len: usize,
}

impl<V> Default for ChunkMap<V> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<V> ChunkMap<V> {
    /// The chunk `eid` is in or would go into: the first whose last id is not below it, or the
    /// last chunk.
    fn chunk_of(&self, eid: u16) -> usize {
        let at = self
            .chunks
            .partition_point(|c| c.last().is_some_and(|(e, _)| *e < eid));
        at.min(self.chunks.len().saturating_sub(1))
    }

    /// The value of `eid`.
    pub(crate) fn get(&self, eid: u16) -> Option<&V> {
        let chunk = self.chunks.get(self.chunk_of(eid))?;
        let i = chunk.binary_search_by_key(&eid, |(e, _)| *e).ok()?;
        chunk.get(i).map(|(_, v)| v)
    }

    /// The value of `eid`, mutable.
    pub(crate) fn get_mut(&mut self, eid: u16) -> Option<&mut V> {
        let c = self.chunk_of(eid);
        let chunk = self.chunks.get_mut(c)?;
        let i = chunk.binary_search_by_key(&eid, |(e, _)| *e).ok()?;
        chunk.get_mut(i).map(|(_, v)| v)
    }

    /// The place of `eid` among all entries (its rank), when it has a value: a walk over the
    /// chunks before its own, for error reports only.
    pub(crate) fn rank(&self, eid: u16) -> Option<usize> {
        let c = self.chunk_of(eid);
        let i = self
            .chunks
            .get(c)?
            .binary_search_by_key(&eid, |(e, _)| *e)
            .ok()?;
        Some(self.chunks[..c].iter().map(Vec::len).sum::<usize>() + i)
    }

    /// Sets the value of `eid`; returns the one it replaced.
    pub(crate) fn insert(&mut self, eid: u16, value: V) -> Option<V> {
        if self.chunks.is_empty() {
            self.chunks.push(Vec::with_capacity(CHUNK + 1));
        }
        let c = self.chunk_of(eid);
        let chunk = &mut self.chunks[c];
        match chunk.binary_search_by_key(&eid, |(e, _)| *e) {
            Ok(i) => {
                moves::count(1);
                Some(std::mem::replace(&mut chunk[i].1, value))
            }
            Err(i) => {
                moves::count(chunk.len() - i + 1);
                chunk.insert(i, (eid, value));
                self.len += 1;
                if chunk.len() > CHUNK {
                    // Half of it moves to a chunk of its own: a shift of the chunks' list, once
                    // every CHUNK / 2 entries added at most.
                    let mut upper = Vec::with_capacity(CHUNK + 1);
                    upper.extend(chunk.drain(CHUNK / 2..));
                    moves::count(upper.len());
                    self.chunks.insert(c + 1, upper);
                }
                None
            }
        }
    }

    /// Removes the value of `eid`.
    pub(crate) fn remove(&mut self, eid: u16) -> Option<V> {
        let c = self.chunk_of(eid);
        let chunk = self.chunks.get_mut(c)?;
        let i = chunk.binary_search_by_key(&eid, |(e, _)| *e).ok()?;
        moves::count(chunk.len() - i);
        let (_, v) = chunk.remove(i);
        self.len -= 1;
        if chunk.is_empty() {
            self.chunks.remove(c);
        }
        Some(v)
    }

    /// Every entry, ascending by id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u16, &V)> {
        self.chunks.iter().flatten().map(|(e, v)| (*e, v))
    }

    /// How many entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The heap its chunks take, at capacity.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Vec<(u16, V)>>()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<(u16, V)>())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn it_holds_what_a_map_holds_through_inserts_and_removals() {
        let mut chunked = ChunkMap::default();
        let mut model = BTreeMap::new();
        let mut x = 0x2545_f491_u32;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let eid = (x % 700) as u16;
            if x % 3 == 0 {
                assert_eq!(chunked.remove(eid), model.remove(&eid), "step {step}");
            } else {
                assert_eq!(chunked.insert(eid, step), model.insert(eid, step));
            }
            assert_eq!(chunked.len(), model.len());
            assert_eq!(chunked.get(eid), model.get(&eid));
        }
        let all: Vec<(u16, u32)> = chunked.iter().map(|(e, v)| (e, *v)).collect();
        let expected: Vec<(u16, u32)> = model.iter().map(|(e, v)| (*e, *v)).collect();
        assert_eq!(all, expected);
        for (rank, (eid, _)) in expected.iter().enumerate() {
            assert_eq!(chunked.rank(*eid), Some(rank));
        }
        assert!(chunked
            .chunks
            .iter()
            .all(|c| !c.is_empty() && c.len() <= CHUNK));
    }
}
