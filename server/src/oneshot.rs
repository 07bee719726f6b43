//! One-shot ops (SRV-20): [`Pending`], saying a one-shot thing until the other end proves it heard.
//!
//! Every server has a handful of ops with nothing behind them: a `Welcome` that hands out a
//! seat, a `Refused` that explains why there is not one. The streams around them recover by
//! themselves; losing a `Welcome` costs the session, because the client waits for a seat it
//! already holds and nothing in the protocol will ever mention it again. No clock is read: the
//! time is an argument in milliseconds on the caller's clock.

/// The default interval between repeats, in ms.
pub const RETRY_MS: u64 = 400;

/// The default number of times an op is said (the declaration included) before the peer is
/// given up on.
pub const ATTEMPTS: u32 = 8;

/// One op waiting to be heard.
#[derive(Clone, Debug)]
struct Entry<K, Op> {
    key: K,
    op: Op,
    /// How many times it has been said, the declaration included.
    said: u32,
    /// When it is next due, in ms.
    next_ms: u64,
}

/// One-shot ops said again until confirmed (SRV-20), one per key.
///
/// Ops are kept, and returned by [`due`](Self::due), in the order they were declared, so a run
/// is deterministic.
#[derive(Clone, Debug)]
pub struct Pending<K, Op> {
    retry_ms: u64,
    attempts: u32,
    entries: Vec<Entry<K, Op>>,
}

impl<K: Eq + Clone, Op: Clone> Default for Pending<K, Op> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Eq + Clone, Op: Clone> Pending<K, Op> {
    /// Repeats every [`RETRY_MS`] (400 ms), [`ATTEMPTS`] (8) times in all.
    #[must_use]
    pub fn new() -> Self {
        Self::with_schedule(RETRY_MS, ATTEMPTS)
    }

    /// Repeats every `retry_ms`, `attempts` times in all counting the declaration. An
    /// `attempts` of 0 behaves as 1: a declared op is always said once.
    #[must_use]
    pub fn with_schedule(retry_ms: u64, attempts: u32) -> Self {
        Self {
            retry_ms,
            attempts,
            entries: Vec::new(),
        }
    }

    /// Records `op` as sent to `key` at `now_ms` and returns it for sending.
    ///
    /// SRV-20: a newer op for the same key supersedes the old one, which is never said again; the
    /// new one starts its own schedule.
    pub fn declare(&mut self, key: K, op: Op, now_ms: u64) -> Op {
        self.entries.retain(|entry| entry.key != key);
        self.entries.push(Entry {
            key,
            op: op.clone(),
            said: 1,
            next_ms: now_ms.saturating_add(self.retry_ms),
        });
        op
    }

    /// Whatever is due to be said again at `now_ms`, in declaration order.
    ///
    /// SRV-20: with `lossy` false (a link that cannot lose a frame, whose lost segments the
    /// transport retransmits) nothing is repeated and everything pending is forgotten; and a peer
    /// is not retried for ever: an op already said `attempts` times is dropped when it next comes
    /// due. The next repeat is scheduled `retry_ms` after `now_ms`, so a late call does not produce
    /// a burst.
    pub fn due(&mut self, now_ms: u64, lossy: bool) -> Vec<(K, Op)> {
        if !lossy {
            self.entries.clear();
            return Vec::new();
        }
        let attempts = self.attempts.max(1);
        let retry_ms = self.retry_ms;
        let mut out = Vec::new();
        self.entries.retain_mut(|entry| {
            if entry.next_ms > now_ms {
                return true;
            }
            if entry.said >= attempts {
                return false;
            }
            entry.said += 1;
            entry.next_ms = now_ms.saturating_add(retry_ms);
            out.push((entry.key.clone(), entry.op.clone()));
            true
        });
        out
    }

    /// The peer said something, which proves it heard: stop saying its op.
    ///
    /// Call it from the op path; no ack op has to exist, because a client that is talking has
    /// plainly received whatever let it talk. Unknown keys are ignored.
    pub fn confirm(&mut self, key: &K) {
        self.entries.retain(|entry| entry.key != *key);
    }

    /// How many ops are waiting to be heard.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is waiting to be heard.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declare_returns_the_op_for_sending() {
        let mut pending = Pending::new();
        assert_eq!(pending.declare(1, "welcome", 0), "welcome");
        assert!(!pending.is_empty());
        assert_eq!(pending.len(), 1);
    }

    #[test]
    fn the_default_schedule_is_every_400_ms_8_times_in_all() {
        // SRV-20.
        let mut pending = Pending::new();
        pending.declare(1, "welcome", 1_000);
        let mut said_at = vec![1_000];
        for now in (1_000..=10_000).step_by(50) {
            if !pending.due(now, true).is_empty() {
                said_at.push(now);
            }
        }
        assert_eq!(
            said_at,
            [1_000, 1_400, 1_800, 2_200, 2_600, 3_000, 3_400, 3_800]
        );
        assert!(pending.is_empty(), "dropped after its attempts");
    }

    #[test]
    fn nothing_is_due_before_the_retry_interval() {
        let mut pending = Pending::with_schedule(100, 3);
        pending.declare("a", 1, 0);
        assert!(pending.due(99, true).is_empty());
        assert_eq!(pending.due(100, true), [("a", 1)]);
        assert!(pending.due(199, true).is_empty());
        assert_eq!(pending.due(250, true), [("a", 1)]);
        // The repeat after a late call is scheduled from the call, not from the missed slot.
        assert!(pending.due(300, true).is_empty());
        assert!(!pending.is_empty());
        assert!(
            pending.due(350, true).is_empty(),
            "said 3 times: dropped, not said again"
        );
        assert!(pending.is_empty());
    }

    #[test]
    fn a_newer_verdict_supersedes_the_old() {
        // SRV-20.
        let mut pending = Pending::with_schedule(100, 8);
        pending.declare("a", "welcome", 0);
        pending.declare("a", "refused", 50);
        assert_eq!(pending.len(), 1);
        assert!(
            pending.due(100, true).is_empty(),
            "the new verdict has its own schedule"
        );
        assert_eq!(pending.due(150, true), [("a", "refused")]);
    }

    #[test]
    fn a_lossless_link_forgets_everything() {
        // SRV-20.
        let mut pending = Pending::new();
        pending.declare(1, 'w', 0);
        pending.declare(2, 'r', 0);
        assert!(pending.due(10_000, false).is_empty());
        assert!(pending.is_empty());
        assert!(pending.due(20_000, true).is_empty());
    }

    #[test]
    fn confirm_stops_the_repeats() {
        // SRV-20.
        let mut pending = Pending::with_schedule(100, 8);
        pending.declare(1, 'w', 0);
        pending.declare(2, 'w', 0);
        pending.confirm(&1);
        pending.confirm(&99);
        assert_eq!(pending.due(100, true), [(2, 'w')]);
        pending.confirm(&2);
        assert!(pending.is_empty());
    }

    #[test]
    fn due_lists_ops_in_declaration_order() {
        let mut pending = Pending::with_schedule(10, 8);
        for key in [5, 3, 9, 1] {
            pending.declare(key, key * 10, 0);
        }
        let keys: Vec<i32> = pending.due(10, true).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [5, 3, 9, 1]);
    }

    #[test]
    fn zero_attempts_says_the_op_once() {
        let mut pending = Pending::with_schedule(10, 0);
        assert_eq!(pending.declare(1, 'x', 0), 'x');
        assert!(pending.due(10, true).is_empty());
        assert!(pending.is_empty());
    }

    #[test]
    fn extreme_times_do_not_overflow() {
        let mut pending = Pending::with_schedule(u64::MAX, 8);
        pending.declare(1, 'x', u64::MAX);
        assert!(pending.due(u64::MAX - 1, true).is_empty());
        assert_eq!(pending.due(u64::MAX, true), [(1, 'x')]);
    }
}
