//! [`DeltaBaseline`]: one subscriber's view of a streamed set, the server half of delta
//! streaming (`docs/spec/delta.md`, DELTA-9 to DELTA-19).
//!
//! One `DeltaBaseline` serves one subscriber. It is set-theoretic and knows nothing of what a
//! key means: keys are `u64`, entering and leaving are the only events, and what a key stands
//! for (a spawn's payload, a despawn's reason) is the application's.
//!
//! It lives in the codec crate beside its client half, [`DeltaMirror`](super::DeltaMirror),
//! because it needs nothing from the server's primitives and the codec holds both halves of
//! every session machine; `ackwire_server::delta` re-exports it.
//!
//! Sans-IO: time (`now`) is an argument in the application's own clock units, and nothing here
//! reads a clock.

use super::ack::AckWindow;
use super::agreement::Agreement;
use super::schema::PlanFrame;
use crate::digest::SetDigest;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Which state the differences are computed against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RecoveryPolicy {
    /// DELTA-10: differences against the last state *sent*. Simple, and wrong once a packet is
    /// lost: what it carried is never mentioned again, so the subscriber lacks it for good
    /// while every readout looks healthy. Kept to demonstrate that failure.
    Naive,
    /// DELTA-10: differences against the newest state the subscriber has *acknowledged*, so
    /// the next difference carries a lost packet's contents again. It also turns on the digest
    /// drift check (DELTA-15) and the aged-out baseline's rebuild (DELTA-13).
    #[default]
    AckRecovery,
}

/// What to send this round (DELTA-12, `DeltaPlan`).
///
/// On the wire it is a schema's `delta_plan` frame ([`PlanFrame::new`]; the reference's:
/// [`DeltaPlan::to_frame`]): FULL_BASELINE is `full_baseline`, BASELINE says `baseline_seq`
/// follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeltaPlan {
    /// The subscriber must clear its mirror first, because what follows is the whole visible
    /// set: "set when a subscriber is new, when its acknowledged baseline has aged out of
    /// history, or when its digest proved the mirror had drifted".
    pub full_baseline: bool,
    /// The sequence the differences were computed against, or `None` for a difference from
    /// nothing.
    pub baseline_seq: Option<u64>,
    /// Keys the subscriber does not hold and should, ascending.
    pub entered: Vec<u64>,
    /// Keys the subscriber may hold and should not, ascending.
    pub left: Vec<u64>,
}

impl DeltaPlan {
    /// The plan a `delta_plan` frame of any schema carries.
    #[must_use]
    pub fn from_frame<F: PlanFrame>(frame: &F) -> Self {
        Self {
            full_baseline: frame.full_baseline(),
            baseline_seq: frame.baseline_seq(),
            entered: frame.entered().to_vec(),
            left: frame.left().to_vec(),
        }
    }
}

/// A state sent: what packet `seq` leaves the subscriber holding, kept as its difference from
/// the state sent before it, so that holding it costs what changed, not the visible set.
#[derive(Clone, Debug)]
struct SentState {
    seq: u64,
    /// Keys this state holds that the state sent before it did not, ascending.
    entered: Vec<u64>,
    /// Keys the state sent before it held that this state does not, ascending.
    left: Vec<u64>,
    /// The [`SetDigest`] of the state.
    digest: u64,
    /// Whether a mirror that applies this packet holds exactly its state whatever it lost before
    /// it: the packet was a full baseline, or was planned against an acknowledged state (see
    /// [`DeltaBaseline::observe_ack`]). A plan diffed against the last state sent is not.
    standalone: bool,
}

/// The acknowledged baseline. Its state is not kept: while it is the baseline, the states sent
/// since are kept as differences starting from it (see `DeltaBaseline::touched`).
#[derive(Clone, Copy, Debug)]
struct Acked {
    seq: u64,
    digest: u64,
}

/// Why the next plan must be a full baseline, if it must.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    /// Nothing pending.
    Nothing,
    /// A new subscriber (construction, [`DeltaBaseline::reset`], the resume signal).
    Fresh,
    /// A rebuild: drift, a baseline aged out of history, or the application's request.
    Rebuild,
}

/// Flow control's liveness record (DELTA-18, `with_flow`).
#[derive(Clone, Copy, Debug)]
struct Flow {
    stalled_after: u64,
    keepalive_every: u64,
    /// When the subscriber last acknowledged; `None` until the first send decision after
    /// construction or a reset, so that "a joiner is not born stalled".
    last_ack: Option<u64>,
    last_keepalive: Option<u64>,
}

/// One subscriber's bookkeeping: what it has been sent, what it has acknowledged, and so what
/// to send next (DELTA-9 to DELTA-19).
///
/// ```
/// use ackwire_codec::delta::{DeltaBaseline, SetDigest};
/// use std::collections::BTreeSet;
///
/// let mut baseline = DeltaBaseline::new(32);
/// baseline.reset(); // a subscriber takes the slot
/// let world: BTreeSet<u64> = [1, 2, 3].into();
/// let first = baseline.plan(&world, 1);
/// assert!(first.full_baseline && first.entered == vec![1, 2, 3]);
/// // The subscriber applied it and acknowledges sequence 1 with its digest.
/// baseline.observe_ack(1, 0, SetDigest::from_keys([1, 2, 3]).digest());
/// let next = baseline.plan(&[1, 2, 4].into(), 2);
/// assert_eq!((next.baseline_seq, next.entered, next.left), (Some(1), vec![4], vec![3]));
/// ```
#[derive(Clone, Debug)]
pub struct DeltaBaseline {
    policy: RecoveryPolicy,
    history: usize,
    /// States sent after the acknowledged one (all of this epoch's before the first
    /// acknowledgement), oldest first, at most `history`, each as its difference from the one
    /// before it: the first's from the acknowledged state.
    sent: VecDeque<SentState>,
    /// Every key a difference in `sent` names, with how many name it. A key named by none is
    /// held alike by the acknowledged state and by every state sent since (it is in the last
    /// state sent exactly when it is in all of them), so a plan against the acknowledged state
    /// looks only at these keys and at what changed since the last plan, never at the rest of
    /// the visible set.
    touched: BTreeMap<u64, usize>,
    acked: Option<Acked>,
    /// A state sent after the acknowledged one was pushed out of `sent`: the acknowledged
    /// baseline can no longer be re-derived from.
    history_lost: bool,
    /// The last state sent, kept across epochs (the next difference is taken from it), and its
    /// digest.
    last: BTreeSet<u64>,
    last_digest: SetDigest,
    /// The sequence of the last state sent in this epoch: what [`RecoveryPolicy::Naive`] diffs
    /// against.
    last_seq: Option<u64>,
    pending: Pending,
    full_rebuilds: u64,
    /// Keys and states looked at, over the baseline's life ([`DeltaBaseline::examined`]).
    examined: u64,
    /// The last acknowledgement window observed, for [`DeltaBaseline::unacked`].
    window: AckWindow,
    flow: Option<Flow>,
    /// Whether a reported digest is compared at all ([`DeltaBaseline::with_drift_check`]).
    drift_check: bool,
}

impl DeltaBaseline {
    /// A subscriber with `history` recent sent states retained (clamped to at least 1), under
    /// [`RecoveryPolicy::AckRecovery`]; the first plan is a full baseline.
    ///
    /// DELTA-9, DELTA-13: the history should cover the most packets that can be in flight plus
    /// the acknowledgement's return trip; a baseline older than it cannot be derived again, and
    /// forces a full rebuild rather than a wrong difference.
    #[must_use]
    pub fn new(history: usize) -> Self {
        Self {
            policy: RecoveryPolicy::AckRecovery,
            history: history.max(1),
            sent: VecDeque::new(),
            touched: BTreeMap::new(),
            acked: None,
            history_lost: false,
            last: BTreeSet::new(),
            last_digest: SetDigest::new(),
            last_seq: None,
            pending: Pending::Fresh,
            full_rebuilds: 0,
            examined: 0,
            window: AckWindow::new(),
            flow: None,
            drift_check: true,
        }
    }

    /// This subscriber under `policy`.
    #[must_use]
    pub fn with_policy(mut self, policy: RecoveryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Selects the policy on a live subscriber; a change resets it (DELTA-10), forgetting any
    /// state the new policy cannot honour.
    pub fn set_policy(&mut self, policy: RecoveryPolicy) {
        if policy != self.policy {
            self.policy = policy;
            self.reset();
        }
    }

    /// The policy in force.
    #[must_use]
    pub const fn policy(&self) -> RecoveryPolicy {
        self.policy
    }

    /// Turns the digest drift check on (the default) or off.
    ///
    /// DELTA-16: a client may drop its mirror, since its next acknowledgement then carries the
    /// empty set's digest and this type answers with a full baseline (DELTA-25); so the empty
    /// set's digest is compared like any other, and this switch is the way to turn the check
    /// off.
    /// Off, no digest is compared ([`observe_ack`](Self::observe_ack) returns
    /// [`Agreement::Unchecked`]), so neither a drift nor a dropped mirror is noticed: only for
    /// a subscriber that never drops its mirror, or one whose divergences the application
    /// detects itself ([`request_full_baseline`](Self::request_full_baseline)). The frontier and
    /// the stale-baseline rebuild are unaffected.
    #[must_use]
    pub const fn with_drift_check(mut self, on: bool) -> Self {
        self.drift_check = on;
        self
    }

    /// [`with_drift_check`](Self::with_drift_check) on a live subscriber; nothing else changes.
    pub fn set_drift_check(&mut self, on: bool) {
        self.drift_check = on;
    }

    /// Whether the digest drift check is on.
    #[must_use]
    pub const fn drift_check(&self) -> bool {
        self.drift_check
    }

    /// Enables flow control, in the application's clock units (DELTA-18): a subscriber silent
    /// for `stalled_after` is sent one packet every `keepalive_every` until it acknowledges
    /// again. `keepalive_every` is clamped to at least 1.
    #[must_use]
    pub fn with_flow(mut self, stalled_after: u64, keepalive_every: u64) -> Self {
        self.flow = Some(Flow {
            stalled_after,
            keepalive_every: keepalive_every.max(1),
            last_ack: None,
            last_keepalive: None,
        });
        self
    }

    /// Whether the subscriber has stopped acknowledging: silent for more than `stalled_after`.
    /// Always `false` without [`with_flow`](Self::with_flow), and during a fresh subscriber's
    /// grace period (DELTA-18: silence counts from the first send decision, so a new subscriber
    /// does not start out stalled).
    #[must_use]
    pub fn stalled(&self, now: u64) -> bool {
        match self.flow {
            Some(Flow {
                stalled_after,
                last_ack: Some(last),
                ..
            }) => now.saturating_sub(last) > stalled_after,
            _ => false,
        }
    }

    /// Whether to build and send a packet this round: `true` for a live subscriber; for a
    /// stalled one `true` once per `keepalive_every` and `false` otherwise (DELTA-18), in which
    /// case the caller skips `plan` entirely: not planning also leaves the sent history where
    /// the last acknowledgement can still name it.
    pub fn should_send(&mut self, now: u64) -> bool {
        let stalled = self.stalled(now);
        let Some(flow) = self.flow.as_mut() else {
            return true;
        };
        if flow.last_ack.is_none() {
            // The first send decision starts the grace period: construction has no clock.
            flow.last_ack = Some(now);
            return true;
        }
        if !stalled {
            return true;
        }
        match flow.last_keepalive {
            Some(k) if now.saturating_sub(k) < flow.keepalive_every => false,
            _ => {
                flow.last_keepalive = Some(now);
                true
            }
        }
    }

    /// Forgets everything and makes the next plan a full baseline. **Call this when a
    /// subscriber takes the slot.**
    ///
    /// DELTA-19: a **reused** slot needs this call, since the previous occupant's acknowledged
    /// state is a plausible baseline for a subscriber that has seen none of it. It also
    /// restarts flow control's grace period.
    pub fn reset(&mut self) {
        self.new_epoch();
        self.pending = Pending::Fresh;
        if let Some(flow) = self.flow.as_mut() {
            flow.last_ack = None;
            flow.last_keepalive = None;
        }
    }

    /// Forces the next plan to be a full baseline in a new epoch (DELTA-19): the application's
    /// way out of a divergence it found by other means. Counted in
    /// [`full_rebuilds`](Self::full_rebuilds).
    pub fn request_full_baseline(&mut self) {
        self.rebuild();
    }

    /// What to send, given the visible set `current` now; `seq` numbers this packet and is what
    /// the subscriber acknowledges. Number packets consecutively: the frontier walks
    /// `seq + 1`.
    ///
    /// Cost: one ordered walk of `current` beside the last state sent, then work in what
    /// changed: the keys that entered or left since the last plan, and those that entered or
    /// left between the acknowledged state and the last plan. However late the subscriber
    /// acknowledges, no state is rebuilt and nothing the size of the visible set is copied,
    /// except a full baseline's list of keys.
    pub fn plan(&mut self, current: &BTreeSet<u64>, seq: u64) -> DeltaPlan {
        self.examine(self.last.len() + current.len());
        let (entered, left) = difference(&self.last, current);
        self.apply(&entered, &left);
        self.plan_last(entered, left, seq)
    }

    /// [`plan`](Self::plan) for a caller that tracks what changes: `entered` and `left` are the
    /// keys that became visible and those that stopped being visible since the last plan (since
    /// construction for the first), in any order. The visible set is the last one planned,
    /// less `left`, plus `entered` (a key in both is visible); a key already visible in
    /// `entered`, or not visible in `left`, changes nothing.
    ///
    /// The same plan as [`plan`](Self::plan) given that set, without the walk of it: the cost
    /// is what changed since the acknowledged state (and a full baseline's list of keys).
    pub fn plan_changes(&mut self, entered: &[u64], left: &[u64], seq: u64) -> DeltaPlan {
        self.examine(entered.len() + left.len());
        let mut gone: Vec<u64> = left
            .iter()
            .copied()
            .filter(|k| self.last.contains(k))
            .collect();
        gone.sort_unstable();
        gone.dedup();
        let mut came: Vec<u64> = entered.to_vec();
        came.sort_unstable();
        came.dedup();
        // A key both left and entered is visible: it did not leave.
        gone.retain(|k| came.binary_search(k).is_err());
        came.retain(|k| !self.last.contains(k));
        self.apply(&came, &gone);
        self.plan_last(came, gone, seq)
    }

    /// Makes `last` the set that `entered` (keys it lacks) and `left` (keys it holds), both
    /// ascending, make of it, and its digest follow.
    fn apply(&mut self, entered: &[u64], left: &[u64]) {
        for &k in entered {
            self.last_digest.insert(k);
        }
        for &k in left {
            self.last_digest.remove(k);
        }
        // Keys inserted one at a time leave a B-tree's nodes about half full: a change as
        // large as a quarter of the set (a first plan above all) builds it anew, compact.
        if (entered.len() + left.len()).saturating_mul(4) > self.last.len() {
            self.examine(self.last.len());
            let (mut kept, mut gone) = (Vec::with_capacity(self.last.len()), left.iter());
            let mut next_gone = gone.next();
            for &k in &self.last {
                if next_gone == Some(&k) {
                    next_gone = gone.next();
                } else {
                    kept.push(k);
                }
            }
            self.last = union(&kept, entered).into_iter().collect();
        } else {
            for &k in entered {
                self.last.insert(k);
            }
            for k in left {
                self.last.remove(k);
            }
        }
    }

    /// The plan for the last state sent, `self.last`, which `entered` and `left` made from the
    /// state sent before it.
    fn plan_last(&mut self, entered: Vec<u64>, left: Vec<u64>, seq: u64) -> DeltaPlan {
        let recovering = self.policy == RecoveryPolicy::AckRecovery;
        // DELTA-13: a baseline aged out of history forces a full rebuild rather than a wrong
        // difference.
        if recovering && self.history_lost {
            self.rebuild();
        }
        let pending = std::mem::replace(&mut self.pending, Pending::Nothing);
        if pending == Pending::Rebuild {
            self.full_rebuilds = self.full_rebuilds.saturating_add(1);
        }
        // DELTA-11: under `AckRecovery` an unknown baseline means full sets for the first round
        // trip, then differences for the rest of the session.
        let unknown = recovering && self.acked.is_none();
        let named = self.touched.len();
        let mut plan = DeltaPlan::default();
        let standalone = match (&self.acked, self.last_seq) {
            _ if pending != Pending::Nothing || unknown => {
                plan.full_baseline = true;
                plan.entered = self.last.iter().copied().collect();
                true
            }
            (Some(acked), _) if recovering => {
                // DELTA-12: the two halves of the difference need baselines built by opposite
                // operations. What to *send* assumes the least the subscriber holds (the
                // acknowledged state **intersected** with every state sent since); what to
                // *retract* assumes the most (the acknowledged state **unioned** with everything
                // announced since).
                //
                // A key no difference since the acknowledged state names is in both or in
                // neither, as it is in the last state sent: it is sent or retracted exactly
                // when it entered or left since that state. A key some difference names is in
                // the union (it was held before it left, or after it entered) and not in the
                // intersection: it is sent when in `current`, retracted otherwise.
                let (held, gone): (Vec<u64>, Vec<u64>) =
                    self.touched.keys().partition(|k| self.last.contains(k));
                plan.baseline_seq = Some(acked.seq);
                plan.entered = union(&entered, &held);
                plan.left = union(&left, &gone);
                // Built this way the packet stands on its own: a mirror in any state from the
                // acknowledged one to the last sent keeps exactly `current ∩ least` (it held
                // all of `least`), gains `current − least`, and loses everything it could hold
                // outside `current`, because all of that is in `most`. It holds `current`
                // whatever was lost in between.
                true
            }
            (_, Some(last_seq)) => {
                // Naive: against the last state sent, as if every packet arrived.
                plan.baseline_seq = Some(last_seq);
                plan.entered.clone_from(&entered);
                plan.left.clone_from(&left);
                // Only right for a mirror that holds exactly the last state sent.
                false
            }
            _ => {
                plan.full_baseline = true;
                plan.entered = self.last.iter().copied().collect();
                true
            }
        };
        let against_acked = standalone && plan.baseline_seq.is_some();
        self.examine(
            plan.entered.len()
                + plan.left.len()
                + if against_acked { named } else { 0 }
                + entered.len()
                + left.len(),
        );
        for &k in entered.iter().chain(&left) {
            *self.touched.entry(k).or_insert(0) += 1;
        }
        self.sent.push_back(SentState {
            seq,
            entered,
            left,
            digest: self.last_digest.digest(),
            standalone,
        });
        while self.sent.len() > self.history {
            if let Some(old) = self.forget_oldest() {
                if self.acked.as_ref().is_some_and(|a| old > a.seq) {
                    self.history_lost = true;
                }
            }
        }
        self.last_seq = Some(seq);
        plan
    }

    /// Drops the oldest state sent, and its keys from `touched`; returns its sequence.
    fn forget_oldest(&mut self) -> Option<u64> {
        let old = self.sent.pop_front()?;
        self.examine(old.entered.len() + old.left.len());
        for k in old.entered.iter().chain(&old.left) {
            if let std::collections::btree_map::Entry::Occupied(mut named) = self.touched.entry(*k)
            {
                *named.get_mut() -= 1;
                if *named.get() == 0 {
                    named.remove();
                }
            }
        }
        Some(old.seq)
    }

    /// The return path: the subscriber's acknowledgement window and the digest of the keys its
    /// mirror holds, and how that digest compared. A no-op under [`RecoveryPolicy::Naive`]
    /// (which returns [`Agreement::Unchecked`]).
    ///
    /// The frontier steps to the newest packet sent since the acknowledged state that the
    /// window reports received and that stands on its own (a full baseline, or a plan made
    /// against an acknowledged state, DELTA-14): the subscriber acknowledges states, not
    /// packets, and DELTA-12's opposite baselines make such a packet a state it reached whatever
    /// was lost before it. A packet lost on the way does not stop the frontier, so the
    /// acknowledged baseline does not age out of history behind it.
    ///
    /// DELTA-15: the digest is compared with the digest of the acknowledged state only when the
    /// frontier has reached the newest packet the subscriber reports, so that a disagreement
    /// means wrong rather than further ahead; and it is compared on every such report, not only
    /// when the frontier advances (a client acknowledging the same sequence again still says
    /// what it holds). A disagreement makes the next plan a full rebuild.
    ///
    /// DELTA-16: every digest is compared, the empty set's included, since dropping the mirror
    /// is how a subscriber asks for a full baseline (DELTA-25) and a dropped mirror reports the
    /// empty set's digest. Passing the empty set's digest therefore does **not** turn the check
    /// off; [`with_drift_check(false)`](Self::with_drift_check) does.
    pub fn observe_ack(&mut self, newest: u64, mask: u64, digest: u64) -> Agreement {
        if self.policy != RecoveryPolicy::AckRecovery {
            return Agreement::Unchecked;
        }
        let window = AckWindow::from_encoded(newest, mask);
        self.window = window;
        // DELTA-14: states are acknowledged, not packets. Receiving packet N+1 after losing N
        // does not put a subscriber in the state N+1 implies when N+1 was diffed against N:
        // what N announced and N+1 had no reason to repeat is gone. A packet planned against an
        // acknowledged state repeats it: its entered keys assume the least the subscriber holds
        // (the acknowledged state **intersected** with every state sent since) and its
        // retractions the most (the acknowledged state **unioned** with everything announced
        // since, DELTA-12), so a mirror that applied it holds exactly its state,
        // whatever was lost in between; and the mirror never applies a packet older than the
        // newest it applied, so it holds the newest such packet's state or a later one. That
        // packet, or a full baseline, is a state the subscriber reached: the frontier steps to
        // the newest one received. `sent` holds only states after the acknowledged one (every
        // state of the epoch before its first acknowledgement, each a full baseline), so the
        // frontier never moves backwards and a pre-rebuild packet names nothing.
        //
        // The states sent up to the one reached are let go: the cost of an acknowledgement is
        // the differences it confirms.
        let reached = self
            .sent
            .iter()
            .rposition(|s| s.standalone && window.contains(s.seq));
        self.examine(self.sent.len() - reached.unwrap_or(0));
        if let Some(reached) = reached {
            for _ in 0..reached {
                self.forget_oldest();
            }
            if let Some(s) = self.sent.front() {
                self.acked = Some(Acked {
                    seq: s.seq,
                    digest: s.digest,
                });
            }
            self.forget_oldest();
        }
        let agreement = match &self.acked {
            Some(acked) if self.drift_check && acked.seq == newest => {
                Agreement::compare(acked.digest, digest)
            }
            _ => Agreement::Unchecked,
        };
        if agreement.is_disagreement() {
            // DELTA-15: a digest that disagrees with the acknowledged state's makes the next
            // plan a full rebuild.
            self.rebuild();
        }
        agreement
    }

    /// [`observe_ack`](Self::observe_ack) plus the acknowledgement's arrival time, for flow
    /// control. The time records under either policy, liveness being the subscriber's, not the
    /// policy's (DELTA-18). An acknowledgement from a stalled subscriber is the resume signal:
    /// it starts a fresh epoch (a `reset`) instead of being folded in, and its digest is not
    /// compared ([`Agreement::Unchecked`]).
    pub fn observe_ack_at(&mut self, newest: u64, mask: u64, digest: u64, now: u64) -> Agreement {
        let resuming = self.stalled(now);
        if resuming {
            self.reset();
        }
        if let Some(flow) = self.flow.as_mut() {
            flow.last_ack = Some(now);
        }
        if resuming {
            Agreement::Unchecked
        } else {
            self.observe_ack(newest, mask, digest)
        }
    }

    /// How many times this subscriber has needed a full rebuild (drift, a baseline aged out of
    /// history, [`request_full_baseline`](Self::request_full_baseline)); a new subscriber's
    /// first full baseline is not a rebuild.
    #[must_use]
    pub const fn full_rebuilds(&self) -> u64 {
        self.full_rebuilds
    }

    /// Packets sent whose fate is still unknown: sent since the acknowledged state and not in
    /// the last acknowledgement window.
    #[must_use]
    pub fn unacked(&self) -> usize {
        let after = self.acked.as_ref().map(|a| a.seq);
        self.sent
            .iter()
            .filter(|s| after.is_none_or(|a| s.seq > a) && !self.window.contains(s.seq))
            .count()
    }

    /// The newest sequence the subscriber has acknowledged reaching the state of.
    #[must_use]
    pub fn acked_seq(&self) -> Option<u64> {
        self.acked.as_ref().map(|a| a.seq)
    }

    /// DELTA-17: a rebuild starts a new epoch, dropping the acknowledged baseline, the last
    /// state sent *and* the sent history.
    fn rebuild(&mut self) {
        self.new_epoch();
        self.pending = Pending::Rebuild;
    }

    fn new_epoch(&mut self) {
        self.sent.clear();
        self.touched.clear();
        self.acked = None;
        self.history_lost = false;
        self.last_seq = None;
        self.window = AckWindow::new();
    }

    /// What this baseline has looked at over its life: the visible set that
    /// [`plan`](Self::plan) walks beside the last one sent, the changes a plan is given or
    /// finds, the keys the kept differences name, the keys of every plan it built, the states
    /// an acknowledgement looks through and the differences it lets go. The operation count
    /// that shows a plan costs what changed, however late the subscriber acknowledges.
    #[must_use]
    pub const fn examined(&self) -> u64 {
        self.examined
    }

    fn examine(&mut self, n: usize) {
        self.examined = self
            .examined
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// How many sent states are held now (at most the history length).
    #[must_use]
    pub fn held_states(&self) -> usize {
        self.sent.len()
    }
}

/// What turns `from` into `to`: the keys of `to` not in `from`, and those of `from` not in `to`,
/// each ascending; one walk of both sets side by side.
fn difference(from: &BTreeSet<u64>, to: &BTreeSet<u64>) -> (Vec<u64>, Vec<u64>) {
    let (mut entered, mut left) = (Vec::new(), Vec::new());
    let (mut a, mut b) = (from.iter().peekable(), to.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x == y => {
                a.next();
                b.next();
            }
            (Some(x), Some(y)) if x < y => left.extend(a.next()),
            (_, Some(_)) => entered.extend(b.next()),
            (Some(_), None) => left.extend(a.next()),
            (None, None) => return (entered, left),
        }
    }
}

/// The keys of two ascending lists, ascending, each once.
fn union(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        if x <= y {
            out.push(*x);
            i += 1;
            j += usize::from(x == y);
        } else {
            out.push(*y);
            j += 1;
        }
    }
    out.extend_from_slice(a.get(i..).unwrap_or_default());
    out.extend_from_slice(b.get(j..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod whole;
