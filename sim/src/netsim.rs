//! The seeded, millisecond network: the lossy transport every ackwire stream vector is
//! recorded and proven over.
//!
//! Sans-IO, like the session machines it carries frames for: time is an argument (`now`, in
//! milliseconds), nothing reads a clock, and every decision comes from a seeded generator, so a
//! seed and a configuration give the same schedule on every machine. Each direction of a
//! [`Network`] is a [`Link`] of its own, with:
//! - loss, uniform or in bursts (a two-state Gilbert-Elliott chain: a good state losing at
//!   `loss`, a bad state losing at `burst.loss`);
//! - duplication (a copy delivered with its own delay);
//! - latency and per-frame delay jitter, which reorders frames sent close together;
//! - a bandwidth cap: a frame waits for the ones before it to be serialized.
//!
//! The network the sessions are held to GEN-3 over: whatever it loses, duplicates or
//! reorders, a client shows at each tick what an ordered, lossless client shows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::SplitMix64;

/// Loss in bursts: a Gilbert-Elliott chain over frames.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Burst {
    /// Chance per frame of entering the bad state from the good one.
    pub enter: f64,
    /// Chance per frame of leaving the bad state.
    pub leave: f64,
    /// Loss rate while in the bad state.
    pub loss: f64,
}

/// How one direction of the network treats frames.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LinkConfig {
    /// Chance that a frame is lost (in the good state when `burst` is set).
    pub loss: f64,
    /// Loss in bursts, on top of `loss`.
    pub burst: Option<Burst>,
    /// Chance that a frame is delivered twice.
    pub duplicate: f64,
    /// Fixed one-way delay, milliseconds.
    pub latency_ms: u64,
    /// Extra delay drawn uniformly from 0 to this per frame, milliseconds: frames sent closer
    /// together than the jitter can arrive out of order.
    pub jitter_ms: u64,
    /// Bytes per second the link serializes; `None` for no cap.
    pub bandwidth: Option<u64>,
}

impl LinkConfig {
    /// A link that delivers everything, in order, at once.
    pub fn perfect() -> Self {
        LinkConfig::default()
    }

    /// A link with uniform loss, duplication, latency and jitter, and no burst or cap.
    pub fn lossy(loss: f64, duplicate: f64, latency_ms: u64, jitter_ms: u64) -> Self {
        LinkConfig {
            loss,
            duplicate,
            latency_ms,
            jitter_ms,
            ..LinkConfig::default()
        }
    }
}

/// What a link did with the frames it was given, for reports and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkStats {
    /// Frames handed to the link.
    pub sent: u64,
    /// Frames dropped.
    pub lost: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Frames delivered after one sent later than them.
    pub reordered: u64,
    /// Frames delivered (copies included).
    pub delivered: u64,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct InFlight {
    at: u64,
    /// Send order, so that frames due at the same millisecond keep it.
    order: u64,
    sent_index: u64,
    bytes: Vec<u8>,
}

/// One direction of the network.
#[derive(Debug)]
pub struct Link {
    config: LinkConfig,
    rng: SplitMix64,
    in_burst: bool,
    queue: BinaryHeap<Reverse<InFlight>>,
    order: u64,
    serialized_until: u64,
    newest_delivered: Option<u64>,
    stats: LinkStats,
}

impl Link {
    /// A link with `config`, its decisions drawn from `seed`.
    pub fn new(config: LinkConfig, seed: u64) -> Self {
        Link {
            config,
            rng: SplitMix64::new(seed),
            in_burst: false,
            queue: BinaryHeap::new(),
            order: 0,
            serialized_until: 0,
            newest_delivered: None,
            stats: LinkStats::default(),
        }
    }

    /// Hands a frame to the link at time `now`.
    pub fn send(&mut self, now: u64, bytes: Vec<u8>) {
        let index = self.stats.sent;
        self.stats.sent += 1;
        if let Some(b) = self.config.burst {
            self.in_burst = if self.in_burst {
                !self.rng.chance(b.leave)
            } else {
                self.rng.chance(b.enter)
            };
        }
        let loss = match (self.in_burst, self.config.burst) {
            (true, Some(b)) => b.loss,
            _ => self.config.loss,
        };
        // Every draw happens whatever the outcome, so that one setting changing does not shift
        // the schedule of the others.
        let lost = self.rng.chance(loss);
        let duplicated = self.rng.chance(self.config.duplicate);
        let delay = self.config.latency_ms + self.rng.below_or_at(self.config.jitter_ms);
        let copy_delay = self.config.latency_ms + self.rng.below_or_at(self.config.jitter_ms);
        let start = match self.config.bandwidth {
            Some(bw) if bw > 0 => {
                let start = self.serialized_until.max(now);
                let cost = (bytes.len() as u64 * 1000).div_ceil(bw);
                self.serialized_until = start + cost;
                start + cost
            }
            _ => now,
        };
        if lost {
            self.stats.lost += 1;
            return;
        }
        if duplicated {
            self.stats.duplicated += 1;
            self.push(start + copy_delay, index, bytes.clone());
        }
        self.push(start + delay, index, bytes);
    }

    fn push(&mut self, at: u64, sent_index: u64, bytes: Vec<u8>) {
        self.order += 1;
        self.queue.push(Reverse(InFlight {
            at,
            order: self.order,
            sent_index,
            bytes,
        }));
    }

    /// The next frame due at or before `now`, if any. Call until it returns `None`.
    pub fn poll(&mut self, now: u64) -> Option<Vec<u8>> {
        if self.queue.peek().is_some_and(|Reverse(f)| f.at <= now) {
            let Reverse(f) = self.queue.pop()?;
            self.stats.delivered += 1;
            match self.newest_delivered {
                Some(newest) if f.sent_index < newest => self.stats.reordered += 1,
                _ => self.newest_delivered = Some(f.sent_index),
            }
            return Some(f.bytes);
        }
        None
    }

    /// When the next frame is due, if one is in flight.
    pub fn next_due(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse(f)| f.at)
    }

    /// Frames in flight.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }

    /// What the link has done so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }
}

/// Which way a frame travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Server to client.
    Down,
    /// Client to server.
    Up,
}

/// Both directions between a server and one client, each with its own configuration and its
/// own generator.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkConfig {
    /// Server to client.
    pub down: LinkConfig,
    /// Client to server.
    pub up: LinkConfig,
    /// The seed both links' generators derive from.
    pub seed: u64,
}

/// A server and a client joined by two [`Link`]s.
#[derive(Debug)]
pub struct Network {
    /// Server to client.
    pub down: Link,
    /// Client to server.
    pub up: Link,
}

impl Network {
    /// The network `config` describes.
    pub fn new(config: &NetworkConfig) -> Self {
        let mut seeds = SplitMix64::new(config.seed);
        Network {
            down: Link::new(config.down, seeds.next_u64()),
            up: Link::new(config.up, seeds.next_u64()),
        }
    }

    /// The link that carries frames going `direction`.
    pub fn link(&mut self, direction: Direction) -> &mut Link {
        match direction {
            Direction::Down => &mut self.down,
            Direction::Up => &mut self.up,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: u64 = 100_000;

    fn run(config: LinkConfig, seed: u64) -> (Link, Vec<Vec<u8>>) {
        let mut link = Link::new(config, seed);
        let mut out = Vec::new();
        for i in 0..N {
            link.send(i, i.to_le_bytes().to_vec());
            while let Some(f) = link.poll(i) {
                out.push(f);
            }
        }
        while let Some(at) = link.next_due() {
            while let Some(f) = link.poll(at) {
                out.push(f);
            }
        }
        (link, out)
    }

    fn within(measured: f64, expected: f64, tolerance: f64) {
        assert!(
            (measured - expected).abs() <= tolerance,
            "measured {measured}, expected {expected} ± {tolerance}"
        );
    }

    #[test]
    fn uniform_loss_is_close_to_its_rate() {
        let (link, out) = run(
            LinkConfig {
                loss: 0.1,
                ..LinkConfig::default()
            },
            7,
        );
        within(link.stats().lost as f64 / N as f64, 0.1, 0.005);
        assert_eq!(out.len() as u64, N - link.stats().lost);
    }

    #[test]
    fn burst_loss_clusters_and_matches_the_chain_s_rate() {
        let burst = Burst {
            enter: 0.02,
            leave: 0.25,
            loss: 0.8,
        };
        let (link, out) = run(
            LinkConfig {
                burst: Some(burst),
                ..LinkConfig::default()
            },
            3,
        );
        // Stationary share of the bad state: enter / (enter + leave).
        let bad = 0.02 / (0.02 + 0.25);
        within(link.stats().lost as f64 / N as f64, bad * 0.8, 0.01);
        // Losses cluster: the mean run of consecutive losses is far above uniform loss's.
        let delivered: std::collections::HashSet<u64> = out
            .iter()
            .map(|f| u64::from_le_bytes(f[..8].try_into().unwrap()))
            .collect();
        let (mut runs, mut lost_in_runs, mut current) = (0u64, 0u64, 0u64);
        for i in 0..N {
            if delivered.contains(&i) {
                if current > 0 {
                    runs += 1;
                    lost_in_runs += current;
                }
                current = 0;
            } else {
                current += 1;
            }
        }
        let mean_run = lost_in_runs as f64 / runs as f64;
        assert!(mean_run > 2.0, "mean loss run {mean_run}");
    }

    #[test]
    fn duplication_is_close_to_its_rate() {
        let (link, out) = run(
            LinkConfig {
                duplicate: 0.05,
                ..LinkConfig::default()
            },
            11,
        );
        within(link.stats().duplicated as f64 / N as f64, 0.05, 0.004);
        assert_eq!(out.len() as u64, N + link.stats().duplicated);
    }

    #[test]
    fn jitter_reorders_and_latency_delays() {
        let config = LinkConfig {
            latency_ms: 50,
            jitter_ms: 4,
            ..LinkConfig::default()
        };
        let mut link = Link::new(config, 5);
        link.send(0, vec![1]);
        assert_eq!(link.poll(49), None, "nothing arrives before the latency");
        assert_eq!(link.poll(54), Some(vec![1]));
        let (link, out) = run(config, 5);
        // With one frame a millisecond and 0..=4 ms of jitter, a frame overtakes an earlier one
        // often, but every frame arrives exactly once.
        let reordered = link.stats().reordered as f64 / N as f64;
        assert!(reordered > 0.2 && reordered < 0.8, "reordered {reordered}");
        assert_eq!(out.len() as u64, N);
    }

    #[test]
    fn a_bandwidth_cap_spaces_frames_out() {
        let config = LinkConfig {
            bandwidth: Some(1000),
            ..LinkConfig::default()
        };
        let mut link = Link::new(config, 1);
        // 100-byte frames at 1000 B/s take 100 ms each to serialize.
        for _ in 0..3 {
            link.send(0, vec![0; 100]);
        }
        let mut arrivals = Vec::new();
        while let Some(at) = link.next_due() {
            link.poll(at).unwrap();
            arrivals.push(at);
        }
        assert_eq!(arrivals, [100, 200, 300]);
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule() {
        let config = LinkConfig {
            loss: 0.2,
            duplicate: 0.1,
            jitter_ms: 10,
            latency_ms: 20,
            burst: Some(Burst {
                enter: 0.05,
                leave: 0.3,
                loss: 0.5,
            }),
            bandwidth: Some(50_000),
        };
        let (a, out_a) = run(config, 99);
        let (b, out_b) = run(config, 99);
        assert_eq!(out_a, out_b);
        assert_eq!(a.stats(), b.stats());
        let (_, out_c) = run(config, 100);
        assert_ne!(out_a, out_c, "another seed, another schedule");
    }

    #[test]
    fn directions_are_independent() {
        let config = NetworkConfig {
            down: LinkConfig {
                loss: 0.5,
                ..LinkConfig::default()
            },
            up: LinkConfig::perfect(),
            seed: 4,
        };
        let mut net = Network::new(&config);
        for i in 0..1000 {
            net.link(Direction::Down).send(i, vec![0]);
            net.link(Direction::Up).send(i, vec![0]);
        }
        assert!(net.down.stats().lost > 400);
        assert_eq!(net.up.stats().lost, 0);
        assert_eq!(net.up.in_flight(), 1000);
    }
}
