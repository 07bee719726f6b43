//! The bench's per-tick network: unreliable datagrams (a frame over [`MTU`] bytes travels as
//! fragments and is lost when any fragment is) beside a reliable, ordered stream (each lost
//! fragment sent again a round trip later, its bytes counted again, and no frame delivered
//! before a reliable frame sent earlier: head-of-line blocking). Delay is uniform within
//! one-way ± jitter ticks, so frames reorder.

use crate::SplitMix64;
use std::collections::BTreeMap;

/// A datagram carries this many bytes at most; a larger frame travels as fragments.
pub const MTU: usize = 1200;

/// One frame on the network.
#[derive(Debug, Clone)]
pub struct Packet {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Sent on the reliable, ordered channel.
    pub reliable: bool,
}

impl Packet {
    /// A frame for the unreliable channel.
    pub fn unreliable(bytes: Vec<u8>) -> Packet {
        Packet {
            bytes,
            reliable: false,
        }
    }
}

/// One direction of the simulated network, in ticks.
#[derive(Debug)]
pub struct Channel {
    rng: SplitMix64,
    loss: f64,
    one_way: u32,
    earliest: u32,
    latest: u32,
    queue: BTreeMap<u32, Vec<Packet>>,
    /// When the last reliable frame is delivered: the next cannot overtake it.
    reliable_until: u32,
}

/// Sends of one fragment at most on the reliable channel, so a loss of 1 cannot spin forever.
const MAX_ATTEMPTS: u32 = 64;

impl Channel {
    /// A channel losing `loss` (0 to 1) of its fragments, delaying each frame by `one_way`
    /// ticks ± `jitter` (at least one).
    pub fn new(loss: f64, one_way: u32, jitter: u32, seed: u64) -> Channel {
        Channel {
            rng: SplitMix64::new(seed),
            loss,
            one_way,
            earliest: one_way.saturating_sub(jitter).max(1),
            latest: one_way + jitter,
            queue: BTreeMap::new(),
            reliable_until: 0,
        }
    }

    /// Sends `packet` at tick `now`; returns the bytes it put on the wire (a reliable frame's
    /// retransmissions included).
    pub fn send(&mut self, now: u32, packet: Packet) -> u64 {
        let len = packet.bytes.len();
        let fragments = len.div_ceil(MTU).max(1);
        if packet.reliable {
            let (mut wire, mut rounds) = (0u64, 0u32);
            for i in 0..fragments {
                let size = (len - i * MTU).min(MTU) as u64;
                let mut attempts = 1;
                while attempts < MAX_ATTEMPTS && self.rng.chance(self.loss) {
                    attempts += 1;
                }
                wire += size * u64::from(attempts);
                rounds = rounds.max(attempts - 1);
            }
            // A lost fragment is noticed and sent again a round trip later.
            let at = (now + self.one_way + rounds * 2 * self.one_way).max(self.reliable_until);
            self.reliable_until = at;
            self.queue.entry(at).or_default().push(packet);
            return wire.max(len as u64);
        }
        // Every fragment's draw happens, so a frame's size does not shift later draws.
        let lost = (0..fragments).fold(false, |lost, _| self.rng.chance(self.loss) | lost);
        let delay =
            self.earliest + self.rng.below_or_at(u64::from(self.latest - self.earliest)) as u32;
        if !lost {
            self.queue.entry(now + delay).or_default().push(packet);
        }
        len as u64
    }

    /// The frames arriving at tick `now`, in the order they arrive.
    pub fn arrivals(&mut self, now: u32) -> Vec<Packet> {
        self.queue.remove(&now).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reliable_frame_is_sent_again_until_it_arrives_and_never_overtakes() {
        let mut ch = Channel::new(0.25, 3, 2, 4);
        let (mut wire, mut sent) = (0, 0);
        for t in 0..400u32 {
            // Each frame says when it was sent.
            let mut bytes = vec![0; 3 * MTU];
            bytes[..4].copy_from_slice(&t.to_le_bytes());
            sent += bytes.len() as u64;
            let packet = Packet {
                bytes,
                reliable: true,
            };
            wire += ch.send(t, packet);
        }
        // A quarter of the fragments lost: a third more bytes on the wire (1 / 0.75).
        let extra = wire as f64 / sent as f64;
        assert!((1.25..1.42).contains(&extra), "{extra}");
        let (mut order, mut late) = (Vec::new(), 0);
        for t in 0..2000 {
            for p in ch.arrivals(t) {
                let at = u32::from_le_bytes([p.bytes[0], p.bytes[1], p.bytes[2], p.bytes[3]]);
                late += usize::from(t > at + 3);
                order.push(at);
            }
        }
        // Every frame arrives, in the order sent, many after a retransmission's round trip.
        assert_eq!(order, (0..400).collect::<Vec<_>>());
        assert!(late > 100, "retransmissions delay frames: {late}");
    }

    #[test]
    fn a_fragmented_frame_is_lost_when_any_fragment_is() {
        let (mut small, mut big) = (0, 0);
        let mut ch = Channel::new(0.1, 3, 2, 9);
        for t in 0..2000 {
            ch.send(t, Packet::unreliable(vec![0; 100]));
            ch.send(t, Packet::unreliable(vec![0; 10 * MTU]));
        }
        for t in 0..2010 {
            for p in ch.arrivals(t) {
                if p.bytes.len() == 100 {
                    small += 1;
                } else {
                    big += 1;
                }
            }
        }
        // 90% of the small frames; 0.9^10 ≈ 35% of the ten-fragment ones.
        assert!((1700..1900).contains(&small), "{small}");
        assert!((550..850).contains(&big), "{big}");
    }
}
