//! Building datagrams: one at a time with [`DatagramBuilder`], or a whole tick split into parts
//! under a size limit with [`split_tick`].

use super::schema::{DatagramFrame, DatagramHeader, DatagramSchema, UpdateFrame};
use super::ReferenceDatagram;
use crate::EncodeError;

/// Why an update was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// DG-3: updates ascend by id; this one's is not above the previous one's.
    #[error("update id {id} does not ascend (previous {previous})")]
    NotAscending {
        /// The refused id.
        id: u64,
        /// The previous update's id.
        previous: u64,
    },
    /// The update would take the datagram over its size limit.
    #[error("the update needs {needed} bytes, {left} are left")]
    TooLarge {
        /// Bytes the update takes.
        needed: usize,
        /// Bytes left under the limit.
        left: usize,
    },
    /// The update itself does not encode (its mask contradicts its fields).
    #[error("the update does not encode: {0}")]
    Encode(#[from] EncodeError),
    /// The tick's datagrams would be numbered past u64::MAX, or be more parts than a u32
    /// counts.
    #[error("the tick's datagrams run out of numbers: first frame {first}, part {part}")]
    OutOfNumbers {
        /// The first datagram's number.
        first: u64,
        /// The part (from 0) that has no number.
        part: usize,
    },
}

/// Builds one datagram of schema `S` (DG-3: updates in ascending id order).
///
/// The size it tracks is exact for the updates and counts the header at
/// [`DatagramSchema::MAX_HEADER_LEN`] bytes, its longest, so a datagram that fits here fits on the
/// wire whatever the header's varints turn out to be.
#[derive(Debug, Clone)]
pub struct DatagramBuilder<S: DatagramSchema = ReferenceDatagram> {
    header: DatagramHeader,
    updates: Vec<S::Update>,
    prev: Option<u64>,
    len: usize,
    limit: usize,
}

impl<S: DatagramSchema> DatagramBuilder<S> {
    /// An empty datagram of `schema` with `header`, refusing updates that would take it over
    /// `limit` bytes (header counted at [`DatagramSchema::MAX_HEADER_LEN`]).
    pub fn with_schema(_schema: S, header: DatagramHeader, limit: usize) -> Self {
        DatagramBuilder {
            header,
            updates: Vec::new(),
            prev: None,
            len: S::MAX_HEADER_LEN,
            limit,
        }
    }

    /// Bytes the datagram takes so far, its header counted at its longest.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no update was added.
    pub fn is_empty(&self) -> bool {
        self.updates.is_empty()
    }

    /// The bytes `update` would add (its id delta-coded from the last update's).
    pub fn cost(&self, update: &S::Update) -> usize {
        update.encoded_len_after(&mut self.prev.clone())
    }

    /// Adds `update`, which must have an id above the last one's and fit under the limit.
    pub fn push(&mut self, update: S::Update) -> Result<(), BuildError> {
        if let Some(previous) = self.prev {
            // DG-3: ids ascend, each after the first as its difference from the previous one.
            if update.id() <= previous {
                return Err(BuildError::NotAscending {
                    id: update.id(),
                    previous,
                });
            }
        }
        // Checks the mask against the fields before counting it.
        update.check()?;
        let needed = self.cost(&update);
        let left = self.limit.saturating_sub(self.len);
        if needed > left {
            return Err(BuildError::TooLarge { needed, left });
        }
        self.len += needed;
        self.prev = Some(update.id());
        self.updates.push(update);
        Ok(())
    }

    /// Adds `update` even over the size limit (an update too large for any datagram goes
    /// alone); the id must still ascend.
    pub fn push_unlimited(&mut self, update: S::Update) -> Result<(), BuildError> {
        let limit = self.limit;
        self.limit = usize::MAX;
        let r = self.push(update);
        self.limit = limit;
        r
    }

    /// Sets the number of parts of the tick, once the split is known.
    pub fn set_parts(&mut self, parts: u32) {
        self.header.parts = parts;
    }

    /// The datagram.
    pub fn finish(self) -> S::Datagram {
        S::Datagram::new(self.header, self.updates)
    }
}

/// Splits one tick's updates of `schema` (ids ascending) into datagrams of at most `limit` bytes each,
/// numbered from `header.frame` on, each naming how many parts the tick has.
///
/// DG-11: a tick without a full frame sends one datagram or more, each giving the tick's number of
/// parts: no updates still give one datagram. An update that alone exceeds the limit goes in a
/// datagram of its own.
pub fn split_tick<S: DatagramSchema>(
    schema: S,
    header: DatagramHeader,
    updates: Vec<S::Update>,
    limit: usize,
) -> Result<Vec<S::Datagram>, BuildError> {
    let new = |header| DatagramBuilder::with_schema(schema, header, limit);
    let mut parts: Vec<DatagramBuilder<S>> = Vec::new();
    let mut current = new(header);
    let mut last_id: Option<u64> = None;
    for update in updates {
        if let Some(previous) = last_id {
            if update.id() <= previous {
                return Err(BuildError::NotAscending {
                    id: update.id(),
                    previous,
                });
            }
        }
        last_id = Some(update.id());
        match current.push(update.clone()) {
            Ok(()) => {}
            Err(BuildError::TooLarge { .. }) => {
                let next = numbered(header, parts.len() + 1)?;
                if current.is_empty() {
                    current.push_unlimited(update)?;
                    parts.push(std::mem::replace(&mut current, new(next)));
                } else {
                    parts.push(std::mem::replace(&mut current, new(next)));
                    if let Err(BuildError::TooLarge { .. }) = current.push(update.clone()) {
                        current.push_unlimited(update)?;
                        let next = numbered(header, parts.len() + 1)?;
                        parts.push(std::mem::replace(&mut current, new(next)));
                    }
                }
            }
            Err(e) => return Err(e),
        }
    }
    if !current.is_empty() || parts.is_empty() {
        parts.push(current);
    }
    let n = u32::try_from(parts.len()).map_err(|_| BuildError::OutOfNumbers {
        first: header.frame,
        part: parts.len() - 1,
    })?;
    Ok(parts
        .into_iter()
        .map(|mut b| {
            b.set_parts(n);
            b.finish()
        })
        .collect())
}

/// The header of part `part` (from 0) of the tick whose first datagram is `first`: numbered on from
/// it, checked, since a caller may start anywhere up to u64::MAX (DG-13, GEN-6).
fn numbered(first: DatagramHeader, part: usize) -> Result<DatagramHeader, BuildError> {
    let frame = u64::try_from(part)
        .ok()
        .and_then(|p| first.frame.checked_add(p))
        .ok_or(BuildError::OutOfNumbers {
            first: first.frame,
            part,
        })?;
    Ok(DatagramHeader { frame, ..first })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Datagram, Update, UpdateMask, MAX_HEADER_LEN};
    use crate::{BitSet, Frame};

    fn header() -> DatagramHeader {
        DatagramHeader {
            frame: 7,
            tick: 3,
            input_ack: 0,
            stream_tick: 0,
            precision: 0.01,
            parts: 1,
        }
    }

    fn upd(id: u64, x: i64) -> Update {
        Update {
            id,
            spawn_tag: 1,
            mask: UpdateMask::empty().with(UpdateMask::X),
            x: Some(x),
            y: None,
            z: None,
            components: None,
        }
    }

    #[test]
    fn updates_must_ascend() {
        // DG-3.
        let mut b = DatagramBuilder::new(header(), 1200);
        b.push(upd(5, 1)).unwrap();
        assert!(matches!(
            b.push(upd(5, 1)),
            Err(BuildError::NotAscending { .. })
        ));
        assert!(matches!(
            b.push(upd(4, 1)),
            Err(BuildError::NotAscending { .. })
        ));
        b.push(upd(6, 1)).unwrap();
        let bytes = b.finish().to_bytes().unwrap();
        assert_eq!(Datagram::decode(&bytes).unwrap().updates.len(), 2);
    }

    #[test]
    fn the_size_counted_bounds_the_bytes_written() {
        let mut b = DatagramBuilder::new(header(), 100_000);
        for id in 0..500 {
            b.push(upd(id * 300, -(id as i64) * 77)).unwrap();
        }
        let len = b.len();
        let d = b.finish();
        let real = d.to_bytes().unwrap().len();
        assert!(real <= len);
        // MAX_HEADER_LEN is the header at its longest: the slack is only in the header.
        assert!(len - real <= MAX_HEADER_LEN as usize);
    }

    #[test]
    fn a_tick_splits_into_parts_under_the_limit_and_each_names_the_count() {
        // DG-13, DG-11.
        let updates: Vec<Update> = (1..=200).map(|id| upd(id, id as i64 * 1000)).collect();
        let parts = split_tick(ReferenceDatagram, header(), updates.clone(), 200).unwrap();
        assert!(parts.len() > 3);
        let mut all = Vec::new();
        for (i, d) in parts.iter().enumerate() {
            assert_eq!(d.parts as usize, parts.len());
            assert_eq!(d.frame, 7 + i as u64);
            assert!(d.to_bytes().unwrap().len() <= 200);
            all.extend(d.updates.clone());
        }
        assert_eq!(all, updates);
    }

    #[test]
    fn an_empty_tick_still_sends_one_datagram() {
        // DG-11.
        let parts = split_tick(ReferenceDatagram, header(), Vec::new(), 200).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].parts, 1);
        assert!(parts[0].updates.is_empty());
    }

    /// Issue 13: numbering a tick's parts on from its first frame was `frame + i`, which
    /// overflowed (a panic with overflow checks) when the first frame was near u64::MAX.
    #[test]
    fn parts_numbered_past_u64_max_are_refused_not_wrapped() {
        // DG-13.
        let last = DatagramHeader {
            frame: u64::MAX,
            ..header()
        };
        // The last number itself is a datagram's like any other.
        let one = split_tick(ReferenceDatagram, last, vec![upd(1, 0)], 200).unwrap();
        assert_eq!((one.len(), one[0].frame), (1, u64::MAX));
        let many: Vec<Update> = (1..=200).map(|id| upd(id, id as i64 * 1000)).collect();
        assert_eq!(
            split_tick(ReferenceDatagram, last, many.clone(), 200),
            Err(BuildError::OutOfNumbers {
                first: u64::MAX,
                part: 1
            })
        );
        let near = DatagramHeader {
            frame: u64::MAX - 1,
            ..header()
        };
        assert!(matches!(
            split_tick(ReferenceDatagram, near, many, 200),
            Err(BuildError::OutOfNumbers { part: 2, .. })
        ));
    }

    #[test]
    fn an_update_over_the_limit_goes_alone() {
        // DG-13.
        let mut big = upd(2, 0);
        big.mask = big.mask.with(UpdateMask::COMPONENTS);
        big.components = Some(vec![crate::protocol::Component {
            r#type: 1,
            data: Some(vec![0; 500]),
        }]);
        let parts = split_tick(
            ReferenceDatagram,
            header(),
            vec![upd(1, 0), big, upd(3, 0)],
            100,
        )
        .unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1].updates[0].id, 2);
    }
}
