//! A per-round network whose every decision is one fuzz byte: the delta harness's.

/// One direction of a byte-driven network: frames due at a round, in send order, at most a
/// fixed number in flight (more push out the oldest, as a full queue would drop them).
#[derive(Debug, Clone)]
pub struct ByteWire {
    queue: Vec<(u64, u64, Vec<u8>)>,
    order: u64,
    capacity: usize,
}

impl ByteWire {
    /// A direction holding at most `capacity` frames in flight.
    pub fn new(capacity: usize) -> Self {
        ByteWire {
            queue: Vec::new(),
            order: 0,
            capacity,
        }
    }

    /// Sends `bytes` at `round` under decision byte `d`: lost when `d % 8 == 0`; otherwise
    /// delayed `(d >> 3) % 4` rounds, with a copy `d >> 5` rounds late when `d % 8 == 1`.
    pub fn send(&mut self, round: u64, d: u8, bytes: Vec<u8>) {
        if d.is_multiple_of(8) {
            return;
        }
        let delay = u64::from((d >> 3) % 4);
        if d % 8 == 1 {
            self.push(round + u64::from(d >> 5), bytes.clone());
        }
        self.push(round + delay, bytes);
    }

    fn push(&mut self, at: u64, bytes: Vec<u8>) {
        if self.queue.len() >= self.capacity {
            self.queue.remove(0);
        }
        self.order += 1;
        self.queue.push((at, self.order, bytes));
    }

    /// Everything due by `round`, earliest first (send order among frames due together).
    pub fn due(&mut self, round: u64) -> Vec<Vec<u8>> {
        self.queue.sort_by_key(|(at, order, _)| (*at, *order));
        let n = self
            .queue
            .iter()
            .take_while(|(at, ..)| *at <= round)
            .count();
        self.queue.drain(..n).map(|(.., b)| b).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_decides_loss_delay_and_copies() {
        let mut w = ByteWire::new(4);
        w.send(0, 0, vec![0]); // lost
        w.send(0, 2 | (1 << 3), vec![1]); // one round late
        w.send(0, 1 | (2 << 5), vec![2]); // at once, and a copy two rounds late
        assert_eq!(w.due(0), [vec![2]]);
        assert_eq!(w.due(1), [vec![1]]);
        assert_eq!(w.due(2), [vec![2]]);
        assert!(w.due(9).is_empty());
    }

    #[test]
    fn a_full_wire_drops_its_oldest() {
        let mut w = ByteWire::new(2);
        for i in 0..3 {
            w.send(0, 2, vec![i]);
        }
        assert_eq!(w.due(0), [vec![1], vec![2]]);
    }
}
