//! A per-tick network whose schedule is a list of frame fates: the acked harness's, where a
//! scenario generator (seeded or fed by fuzz bytes) draws each frame's fate up front.

use crate::SplitMix64;
use std::collections::BTreeMap;

/// What the network does to one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fate {
    /// Lost.
    pub lost: bool,
    /// Ticks until it arrives (at least 1).
    pub delay: u32,
    /// A second copy, this many ticks after sending.
    pub dup: Option<u32>,
}

impl Fate {
    /// Arrives the next tick, once.
    pub const PERFECT: Fate = Fate {
        lost: false,
        delay: 1,
        dup: None,
    };

    /// A schedule of `n` fates drawn from `seed`: `loss` of the frames lost, a tenth sent
    /// again 1 to 8 ticks later, each arriving 1 to 6 ticks after it is sent (so frames
    /// overtake each other). The draws are fixed, frame by frame (lost, delay, duplicate): a
    /// recorded stream replays from its seed.
    pub fn schedule(seed: u64, loss: f64, n: usize) -> Vec<Fate> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| Fate {
                lost: rng.chance(loss),
                delay: 1 + rng.below_or_at(5) as u32,
                dup: rng.chance(0.1).then(|| 1 + rng.below_or_at(7) as u32),
            })
            .collect()
    }

    /// The fate of frame `i` under the schedule `list`, cycled; perfect once `healed` or when
    /// `list` is empty.
    pub fn nth(list: &[Fate], i: usize, healed: bool) -> Fate {
        if healed || list.is_empty() {
            Fate::PERFECT
        } else {
            list[i % list.len()]
        }
    }
}

/// One direction of a per-tick network: frames waiting for the tick they arrive at.
#[derive(Debug, Clone, Default)]
pub struct FateQueue {
    queue: BTreeMap<u32, Vec<Vec<u8>>>,
}

impl FateQueue {
    /// An empty direction.
    pub fn new() -> Self {
        FateQueue::default()
    }

    /// Sends `bytes` at tick `now` to meet `fate`: dropped, or due `fate.delay` ticks later
    /// (at least 1), with a copy first when it is duplicated.
    pub fn send(&mut self, now: u32, fate: Fate, bytes: Vec<u8>) {
        if fate.lost {
            return;
        }
        if let Some(d) = fate.dup {
            self.queue
                .entry(now + d.max(1))
                .or_default()
                .push(bytes.clone());
        }
        self.queue
            .entry(now + fate.delay.max(1))
            .or_default()
            .push(bytes);
    }

    /// The frames arriving at tick `now`, in the order they were queued for it.
    pub fn arrivals(&mut self, now: u32) -> Vec<Vec<u8>> {
        self.queue.remove(&now).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fates_cycle_until_healed() {
        let lost = Fate {
            lost: true,
            ..Fate::PERFECT
        };
        let list = [Fate::PERFECT, lost];
        assert_eq!(Fate::nth(&list, 3, false), lost);
        assert_eq!(Fate::nth(&list, 3, true), Fate::PERFECT);
        assert_eq!(Fate::nth(&[], 3, false), Fate::PERFECT);
    }

    #[test]
    fn a_queue_delays_duplicates_and_drops() {
        let mut q = FateQueue::new();
        q.send(1, Fate::PERFECT, vec![1]);
        q.send(
            1,
            Fate {
                lost: false,
                delay: 3,
                dup: Some(0),
            },
            vec![2],
        );
        q.send(
            1,
            Fate {
                lost: true,
                ..Fate::PERFECT
            },
            vec![3],
        );
        assert_eq!(q.arrivals(2), [vec![1], vec![2]]);
        assert!(q.arrivals(3).is_empty());
        assert_eq!(q.arrivals(4), [vec![2]]);
    }
}
