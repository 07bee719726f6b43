//! `DeltaBaseline` against DELTA-12's arithmetic taken literally: every state kept whole, the
//! least and the most held rebuilt from them for every plan. The two must plan the same packets
//! and judge the same acknowledgements under any script, hostile acknowledgements included;
//! the kept differences are only a cheaper way to the same sets.

use super::*;
use proptest::prelude::*;

/// DELTA-12's arithmetic with whole states: what `DeltaBaseline` computed before it kept
/// differences (flow control aside, which does not touch the sets).
struct Whole {
    recovering: bool,
    history: usize,
    /// `(seq, state, standalone)`, oldest first.
    sent: VecDeque<(u64, BTreeSet<u64>, bool)>,
    acked: Option<(u64, BTreeSet<u64>, u64)>,
    history_lost: bool,
    last_sent: Option<(u64, BTreeSet<u64>)>,
    pending: Pending,
    full_rebuilds: u64,
    window: AckWindow,
}

impl Whole {
    fn new(history: usize, recovering: bool) -> Self {
        Whole {
            recovering,
            history: history.max(1),
            sent: VecDeque::new(),
            acked: None,
            history_lost: false,
            last_sent: None,
            pending: Pending::Fresh,
            full_rebuilds: 0,
            window: AckWindow::new(),
        }
    }

    fn new_epoch(&mut self) {
        self.sent.clear();
        self.acked = None;
        self.history_lost = false;
        self.last_sent = None;
        self.window = AckWindow::new();
    }

    fn plan(&mut self, current: &BTreeSet<u64>, seq: u64) -> DeltaPlan {
        if self.recovering && self.history_lost {
            self.new_epoch();
            self.pending = Pending::Rebuild;
        }
        let pending = std::mem::replace(&mut self.pending, Pending::Nothing);
        if pending == Pending::Rebuild {
            self.full_rebuilds += 1;
        }
        let unknown = self.recovering && self.acked.is_none();
        let mut plan = DeltaPlan::default();
        let standalone = match (&self.acked, &self.last_sent) {
            _ if pending != Pending::Nothing || unknown => {
                plan.full_baseline = true;
                plan.entered = current.iter().copied().collect();
                true
            }
            (Some((acked_seq, acked, _)), _) if self.recovering => {
                let mut least = acked.clone();
                let mut most = acked.clone();
                for (_, state, _) in self.sent.iter().filter(|s| s.0 > *acked_seq) {
                    least.retain(|k| state.contains(k));
                    most.extend(state.iter().copied());
                }
                plan.baseline_seq = Some(*acked_seq);
                plan.entered = current.difference(&least).copied().collect();
                plan.left = most.difference(current).copied().collect();
                true
            }
            (_, Some((last_seq, last))) => {
                plan.baseline_seq = Some(*last_seq);
                plan.entered = current.difference(last).copied().collect();
                plan.left = last.difference(current).copied().collect();
                false
            }
            _ => {
                plan.full_baseline = true;
                plan.entered = current.iter().copied().collect();
                true
            }
        };
        self.sent.push_back((seq, current.clone(), standalone));
        while self.sent.len() > self.history {
            if let Some(old) = self.sent.pop_front() {
                if self.acked.as_ref().is_some_and(|a| old.0 > a.0) {
                    self.history_lost = true;
                }
            }
        }
        self.last_sent = Some((seq, current.clone()));
        plan
    }

    fn observe_ack(&mut self, newest: u64, mask: u64, digest: u64) -> Agreement {
        if !self.recovering {
            return Agreement::Unchecked;
        }
        let window = AckWindow::from_encoded(newest, mask);
        self.window = window;
        let reached = self.sent.iter().rev().find(|s| s.2 && window.contains(s.0));
        if let Some((seq, state, _)) = reached {
            let seq = *seq;
            let d = SetDigest::from_keys(state.iter().copied()).digest();
            self.acked = Some((seq, state.clone(), d));
            self.sent.retain(|s| s.0 > seq);
        }
        let agreement = match &self.acked {
            Some((seq, _, d)) if *seq == newest => Agreement::compare(*d, digest),
            _ => Agreement::Unchecked,
        };
        if agreement.is_disagreement() {
            self.new_epoch();
            self.pending = Pending::Rebuild;
        }
        agreement
    }

    fn unacked(&self) -> usize {
        let after = self.acked.as_ref().map(|a| a.0);
        self.sent
            .iter()
            .filter(|s| after.is_none_or(|a| s.0 > a) && !self.window.contains(s.0))
            .count()
    }
}

/// One step of a script.
#[derive(Debug, Clone)]
enum Step {
    /// The visible set changes (`(key, enters)` pairs over a small key space), then a plan:
    /// given the whole set, or (`changes`) the changes themselves, with some that change
    /// nothing (a key entering that is visible, one leaving that is not).
    Plan {
        changes: Vec<(u8, bool)>,
        told: bool,
    },
    /// An acknowledgement `late` plans back with a window `mask`, carrying the digest of the
    /// state it names (`honest`) or garbage.
    Ack {
        late: u8,
        mask: u64,
        honest: bool,
    },
    /// An acknowledgement of anything at all: future, ancient, garbage.
    Forged(u64, u64, u64),
    Reset,
    RequestFullBaseline,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (proptest::collection::vec((any::<u8>(), any::<bool>()), 0..6), any::<bool>())
            .prop_map(|(changes, told)| Step::Plan { changes, told }),
        4 => (0u8..40, any::<u64>(), any::<bool>()).prop_map(|(late, mask, honest)| {
            Step::Ack { late, mask, honest }
        }),
        1 => (any::<u64>(), any::<u64>(), any::<u64>())
            .prop_map(|(n, m, d)| Step::Forged(n, m, d)),
        1 => Just(Step::Reset),
        1 => Just(Step::RequestFullBaseline),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn kept_differences_plan_what_whole_states_plan(
        history in 1usize..40,
        recovering in any::<bool>(),
        steps in proptest::collection::vec(step(), 1..120),
    ) {
        let policy = if recovering { RecoveryPolicy::AckRecovery } else { RecoveryPolicy::Naive };
        let mut kept = DeltaBaseline::new(history).with_policy(policy);
        let mut whole = Whole::new(history, recovering);
        let mut world = BTreeSet::new();
        // The digest of the world each plan carried, by sequence.
        let mut digests = Vec::new();
        let mut seq = 0u64;
        for (i, step) in steps.into_iter().enumerate() {
            match step {
                Step::Plan { changes, told } => {
                    let (mut entered, mut left) = (Vec::new(), Vec::new());
                    for (key, enters) in changes {
                        // A small key space, so that keys come back and go again.
                        let key = u64::from(key % 48) << 16;
                        if enters {
                            world.insert(key);
                            entered.push(key);
                            left.retain(|k| *k != key);
                        } else {
                            world.remove(&key);
                            left.push(key);
                            entered.retain(|k| *k != key);
                        }
                    }
                    seq += 1;
                    digests.push(SetDigest::from_keys(world.iter().copied()).digest());
                    let plan = if told {
                        kept.plan_changes(&entered, &left, seq)
                    } else {
                        kept.plan(&world, seq)
                    };
                    prop_assert_eq!(&plan, &whole.plan(&world, seq), "step {}", i);
                }
                Step::Ack { late, mask, honest } => {
                    let newest = seq.saturating_sub(u64::from(late));
                    let digest = match digests.get(newest.wrapping_sub(1) as usize) {
                        Some(d) if honest => *d,
                        _ => mask,
                    };
                    let agreement = kept.observe_ack(newest, mask, digest);
                    prop_assert_eq!(agreement, whole.observe_ack(newest, mask, digest));
                }
                Step::Forged(n, m, d) => {
                    prop_assert_eq!(kept.observe_ack(n, m, d), whole.observe_ack(n, m, d));
                }
                Step::Reset => {
                    kept.reset();
                    whole.new_epoch();
                    whole.pending = Pending::Fresh;
                }
                Step::RequestFullBaseline => {
                    kept.request_full_baseline();
                    whole.new_epoch();
                    whole.pending = Pending::Rebuild;
                }
            }
            prop_assert_eq!(kept.acked_seq(), whole.acked.as_ref().map(|a| a.0));
            prop_assert_eq!(kept.held_states(), whole.sent.len());
            prop_assert_eq!(kept.unacked(), whole.unacked());
            prop_assert_eq!(kept.full_rebuilds(), whole.full_rebuilds);
            // What the differences cost to hold: every key they name is one that changed.
            let named: usize = kept.sent.iter().map(|s| s.entered.len() + s.left.len()).sum();
            prop_assert!(kept.touched.len() <= named);
        }
    }
}
