//! [`AckWindow`]: which recent sequences arrived, as the newest one and a 64-bit mask.
//!
//! DELTA-6, DELTA-7: the newest u64 sequence and a 64-bit mask whose bit i means that newest − 1 −
//! i arrived; contiguous_base(first) walks from first while the next sequence is held. The pair is
//! what a `delta_ack` frame carries (`newest`, `mask`), so the receiver records arrivals with
//! [`AckWindow::observe`] and the sender rebuilds the window with [`AckWindow::from_encoded`].
//!
//! Pure sequence arithmetic: no allocation, no clock, no panic on any input.

/// How many sequences behind the newest the mask speaks about.
pub const WINDOW: u64 = 64;

/// The newest sequence received and a mask of the [`WINDOW`] before it.
///
/// Bit `i` of the mask stands for `newest - 1 - i`. A sequence older than the window is
/// neither received nor missing: past the window a sender resynchronises rather than backfills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AckWindow {
    newest: u64,
    mask: u64,
    started: bool,
}

impl AckWindow {
    /// An empty window: nothing has arrived.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            newest: 0,
            mask: 0,
            started: false,
        }
    }

    /// The window a peer sent as `(newest, mask)`; any pair is accepted.
    #[must_use]
    pub const fn from_encoded(newest: u64, mask: u64) -> Self {
        Self {
            newest,
            mask,
            started: true,
        }
    }

    /// The `(newest, mask)` pair to put on the wire, or `None` before anything arrived.
    #[must_use]
    pub const fn encode(&self) -> Option<(u64, u64)> {
        if self.started {
            Some((self.newest, self.mask))
        } else {
            None
        }
    }

    /// Records that `seq` arrived. Returns `true` when it is fresh: `false` for a duplicate and
    /// for a straggler older than the window, which is forgotten.
    ///
    /// A straggler inside the window lands in its own bit; it never becomes the newest.
    pub fn observe(&mut self, seq: u64) -> bool {
        if !self.started {
            *self = Self::from_encoded(seq, 0);
            return true;
        }
        if seq > self.newest {
            let shift = seq - self.newest;
            // A shift of exactly WINDOW keeps the old newest in the last bit; one more drops it.
            let moved = if shift >= 64 { 0 } else { self.mask << shift };
            self.mask = if shift <= WINDOW {
                moved | (1u64 << (shift - 1))
            } else {
                0
            };
            self.newest = seq;
            true
        } else if seq == self.newest {
            false
        } else {
            let back = self.newest - seq;
            if back > WINDOW {
                return false;
            }
            let bit = 1u64 << (back - 1);
            let fresh = self.mask & bit == 0;
            self.mask |= bit;
            fresh
        }
    }

    /// The newest sequence recorded, if any.
    #[must_use]
    pub const fn newest(&self) -> Option<u64> {
        if self.started {
            Some(self.newest)
        } else {
            None
        }
    }

    /// The mask as it goes on the wire: bit `i` is `newest - 1 - i`.
    #[must_use]
    pub const fn mask(&self) -> u64 {
        self.mask
    }

    /// Whether `seq` is recorded as arrived; `false` outside the window and beyond the newest.
    #[must_use]
    pub const fn contains(&self, seq: u64) -> bool {
        if !self.started || seq > self.newest {
            return false;
        }
        if seq == self.newest {
            return true;
        }
        let back = self.newest - seq;
        back <= WINDOW && self.mask & (1u64 << (back - 1)) != 0
    }

    /// How many of the window's slots are filled, the newest included (0 when empty).
    #[must_use]
    pub const fn received_in_window(&self) -> u32 {
        if self.started {
            1 + self.mask.count_ones()
        } else {
            0
        }
    }

    /// The sequences from `oldest` up to (not including) the newest that did not arrive,
    /// ascending; clamped to the window, so it yields at most [`WINDOW`] items however far back
    /// `oldest` points.
    pub fn missing_since(&self, oldest: u64) -> impl Iterator<Item = u64> + '_ {
        let floor = self.newest.saturating_sub(WINDOW).max(oldest);
        let end = if self.started { self.newest } else { 0 };
        (floor..end).filter(move |seq| !self.contains(*seq))
    }

    /// The newest sequence such that every sequence from `first` up to it arrived.
    ///
    /// DELTA-7: the newest sequence reached from `first` without a gap, not the newest bit set,
    /// since a packet that is a difference from the one before it describes no state the subscriber
    /// holds once that one was lost. `first` is the first sequence to check (one past the settled
    /// baseline), so a stream numbered from zero can name its first packet. `None` when `first` did
    /// not arrive or is older than the window: the frontier cannot advance, and never moves
    /// backwards. At most [`WINDOW`] steps.
    ///
    /// This is the frontier of a stream whose packets are differences from the packet before
    /// (DELTA-10's `Naive` plan). [`DeltaBaseline`](super::DeltaBaseline) does not walk it:
    /// its plans are made against an acknowledged state, so each received one is a state
    /// reached on its own, and the frontier steps over a gap (see its `observe_ack`).
    #[must_use]
    pub const fn contiguous_base(&self, first: u64) -> Option<u64> {
        if !self.contains(first) {
            return None;
        }
        let mut base = first;
        while base < self.newest && self.contains(base + 1) {
            base += 1;
        }
        Some(base)
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        *self = Self::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(seqs: &[u64]) -> AckWindow {
        let mut w = AckWindow::new();
        for s in seqs {
            w.observe(*s);
        }
        w
    }

    #[test]
    fn bit_i_means_newest_minus_one_minus_i() {
        // DELTA-6.
        // DELTA-6: bit i of the mask means that newest − 1 − i arrived.
        let w = window(&[10, 9, 7]);
        assert_eq!(w.encode(), Some((10, 0b101)));
        assert_eq!(w.received_in_window(), 3);
    }

    #[test]
    fn observe_reports_fresh_once_and_keeps_stragglers_in_their_slot() {
        // DELTA-6.
        let mut w = AckWindow::new();
        assert!(w.observe(20));
        assert!(w.observe(25));
        assert!(w.observe(22), "a straggler is fresh");
        assert!(!w.observe(22), "once");
        assert!(!w.observe(25), "a duplicate of the newest is not fresh");
        assert_eq!(w.newest(), Some(25));
        assert!(w.contains(22) && !w.contains(23) && !w.contains(26));
        assert_eq!(w.missing_since(20).collect::<Vec<_>>(), vec![21, 23, 24]);
    }

    #[test]
    fn a_shift_of_exactly_the_window_keeps_the_old_newest() {
        let mut w = window(&[0]);
        w.observe(WINDOW);
        assert!(w.contains(0));
        assert_eq!(w.mask(), 1 << 63);
        w.observe(WINDOW + 1);
        assert!(!w.contains(0));
        assert!(!w.observe(0), "older than the window: forgotten, not fresh");
    }

    #[test]
    fn a_big_jump_forgets_and_missing_since_stays_bounded() {
        let mut w = window(&[0, 1, 2]);
        w.observe(u64::MAX);
        assert_eq!(w.mask(), 0);
        assert_eq!(w.missing_since(0).count(), WINDOW as usize);
        assert_eq!(w.contiguous_base(u64::MAX), Some(u64::MAX));
    }

    #[test]
    fn the_contiguous_base_stops_at_the_first_gap_not_the_newest_bit() {
        // DELTA-7.
        // DELTA-7: the newest set bit would name a state the subscriber never held.
        let mut w = window(&[1, 2, 3, 5, 6, 7]);
        assert_eq!(w.contiguous_base(1), Some(3));
        assert_eq!(w.contiguous_base(4), None, "4 never arrived");
        w.observe(4);
        assert_eq!(
            w.contiguous_base(1),
            Some(7),
            "the filled gap unblocks the run"
        );
        assert_eq!(window(&[0, 1, 2]).contiguous_base(0), Some(2), "from zero");
        assert_eq!(AckWindow::new().contiguous_base(0), None);
        assert_eq!(
            window(&[5, 1000]).contiguous_base(6),
            None,
            "older than the window"
        );
    }

    #[test]
    fn the_encoding_round_trips_and_an_empty_window_encodes_to_nothing() {
        let w = window(&[100, 101, 104, 107, 108]);
        let (newest, mask) = w.encode().unwrap();
        assert_eq!(AckWindow::from_encoded(newest, mask), w);
        assert_eq!(AckWindow::new().encode(), None);
        assert_eq!(AckWindow::new().received_in_window(), 0);
        assert_eq!(AckWindow::new().missing_since(0).count(), 0);
        let mut r = w;
        r.reset();
        assert_eq!(r, AckWindow::new());
    }

    #[test]
    fn any_encoded_pair_is_safe_to_query() {
        for (newest, mask) in [(0, u64::MAX), (u64::MAX, u64::MAX), (63, u64::MAX), (1, 0)] {
            let w = AckWindow::from_encoded(newest, mask);
            let _ = w.contiguous_base(0);
            let _ = w.contiguous_base(u64::MAX);
            assert!(w.missing_since(0).count() <= WINDOW as usize);
        }
    }
}
