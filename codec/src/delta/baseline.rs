//! [`DeltaBaseline`]: one subscriber's view of a streamed set (seed 004 §7), the server half.
//!
//! Seed 004 §7: "One `DeltaBaseline` per subscriber. It is deliberately set-theoretic and
//! knows nothing about what a key means: keys are `u64`, entering and leaving are the only
//! events, and mapping a key back to a spawn payload or a despawn reason is the application's
//! job."
//!
//! It lives in the codec crate beside its client half, [`DeltaMirror`](super::DeltaMirror),
//! because it needs nothing from the server's primitives and DESIGN.md §4 puts both halves of
//! every seed protocol's session machine here; `ackwire_server::delta` re-exports it under the
//! seed's module name.
//!
//! Sans-IO: time (`now`) is an argument in the application's own clock units, and nothing here
//! reads a clock.

use super::ack::AckWindow;
use super::agreement::Agreement;
use crate::digest::SetDigest;
use crate::BitSet;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Which state the differences are computed against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RecoveryPolicy {
    /// Seed 004 §7: "diff against the last state *sent*. Simple, and wrong the moment a packet
    /// is lost: whatever it carried is never mentioned again, so the subscriber is permanently
    /// short of it while every readout looks healthy. Selectable because the failure is worth
    /// being able to demonstrate".
    Naive,
    /// Seed 004 §7: "diff against the newest state the subscriber has *acknowledged*, so a
    /// lost packet's contents are re-derived by the next difference. Also enables the digest
    /// drift check and the stale-baseline rebuild."
    #[default]
    AckRecovery,
}

/// What to send this round (seed 004 §7, `DeltaPlan`).
///
/// On the wire it is the `delta_plan` frame ([`DeltaPlan::to_frame`]): FULL_BASELINE is
/// `full_baseline`, BASELINE says `baseline_seq` follows.
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
    /// The `delta_plan` frame that carries this plan as packet `sequence`.
    #[must_use]
    pub fn to_frame(&self, sequence: u64) -> crate::protocol::DeltaPlan {
        use crate::protocol::PlanFlags;
        let mut flags = PlanFlags::empty();
        flags.set(PlanFlags::FULL_BASELINE, self.full_baseline);
        flags.set(PlanFlags::BASELINE, self.baseline_seq.is_some());
        crate::protocol::DeltaPlan {
            flags,
            sequence,
            baseline_seq: self.baseline_seq,
            entered: self.entered.clone(),
            left: self.left.clone(),
        }
    }

    /// The plan a `delta_plan` frame carries.
    #[must_use]
    pub fn from_frame(frame: &crate::protocol::DeltaPlan) -> Self {
        Self {
            full_baseline: frame
                .flags
                .contains(crate::protocol::PlanFlags::FULL_BASELINE),
            baseline_seq: frame.baseline_seq,
            entered: frame.entered.clone(),
            left: frame.left.clone(),
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

/// Flow control's liveness record (seed 004 §7, `with_flow`).
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
/// to send next (seed 004 §7).
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
    /// Seed 004 §7: "Cover the most packets that can be in flight plus the acknowledgement's
    /// return trip; a state older than the window cannot be recovered by re-derivation and
    /// forces a full rebuild rather than a wrong diff."
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

    /// Selects the policy on a live subscriber; a change resets it, "forgetting any state the
    /// new policy cannot honour".
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
    /// Seed 004 §7 says both that "Passing the digest of an empty set disables the drift check"
    /// (`observe_ack`) and that a client may drop its mirror "because its next acknowledgement
    /// then carries the digest of nothing and this type answers with a full baseline" (the
    /// resume story). The two cannot both hold; this type keeps the second, so the empty set's
    /// digest is compared like any other, and this switch is the way to turn the check off.
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

    /// Enables flow control, in the application's clock units: "a subscriber silent for
    /// `stalled_after` is throttled to one send every `keepalive_every` until it acknowledges
    /// again" (seed 004 §7). `keepalive_every` is clamped to at least 1.
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
    /// grace period ("silence is measured from the first send decision, so a joiner is not
    /// born stalled").
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
    /// stalled one `true` once per `keepalive_every` and `false` otherwise, "in which case skip
    /// the `plan` call entirely: not planning also leaves the sent history exactly where the
    /// last acknowledgement can still name it".
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
    /// Seed 004 §7: "the case that still needs this call is a **reused** slot, where the
    /// previous occupant's acknowledged state is a perfectly plausible baseline for a
    /// subscriber that has never seen any of it. Also restarts the flow-control grace period".
    pub fn reset(&mut self) {
        self.new_epoch();
        self.pending = Pending::Fresh;
        if let Some(flow) = self.flow.as_mut() {
            flow.last_ack = None;
            flow.last_keepalive = None;
        }
    }

    /// Forces the next plan to be a full baseline in a new epoch: "the application's own
    /// escape hatch for a divergence it detected by some other means". Counted in
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
        // Seed 004 §7: a baseline that "has aged out of history" forces a full rebuild rather
        // than a wrong diff.
        if recovering && self.history_lost {
            self.rebuild();
        }
        let pending = std::mem::replace(&mut self.pending, Pending::Nothing);
        if pending == Pending::Rebuild {
            self.full_rebuilds = self.full_rebuilds.saturating_add(1);
        }
        // Seed 004 §7: "Cold start is a decision, not an accident. [...] under `AckRecovery`
        // an unknown baseline means full sets for the first round trip, then incremental for
        // the rest of the session."
        let unknown = recovering && self.acked.is_none();
        let mut plan = DeltaPlan::default();
        let standalone = match (&self.acked, self.last_seq) {
            _ if pending != Pending::Nothing || unknown => {
                plan.full_baseline = true;
                plan.entered = self.last.iter().copied().collect();
                true
            }
            (Some(acked), _) if recovering => {
                // Seed 004 §7: "The two halves of the diff need baselines built by opposite
                // operations. What to *send* must assume the least the subscriber holds: the
                // acknowledged state **intersected** with every state sent since [...]. What
                // to *retract* must assume the most: the acknowledged state **unioned** with
                // everything announced since".
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
    /// against an acknowledged state): seed 004 §7, "Acknowledge states, not packets", read
    /// with the same section's opposite baselines, which make such a packet a state the
    /// subscriber reached whatever was lost before it. A packet lost on the way does not stop
    /// the frontier, so the acknowledged baseline does not age out of history behind it.
    ///
    /// The digest is compared with the digest of the acknowledged state only "when the
    /// frontier has reached the newest packet the subscriber reports, so a disagreement means
    /// 'wrong' rather than 'further ahead'"; and it is compared on every such report, not only
    /// when the frontier advances (seed 004 §5: "a client re-acknowledging the same sequence
    /// still tells you what it holds"). A disagreement makes the next plan a full rebuild.
    ///
    /// Every digest is compared, the empty set's included: seed 004 §7 says "dropping the
    /// mirror is the request", and a dropped mirror reports the empty set's digest. Passing the
    /// empty set's digest therefore does **not** disable the check (the seed's `observe_ack`
    /// entry says it does; the two sentences cannot both hold):
    /// [`with_drift_check(false)`](Self::with_drift_check) does.
    pub fn observe_ack(&mut self, newest: u64, mask: u64, digest: u64) -> Agreement {
        if self.policy != RecoveryPolicy::AckRecovery {
            return Agreement::Unchecked;
        }
        let window = AckWindow::from_encoded(newest, mask);
        self.window = window;
        // Seed 004 §7: "Acknowledge states, not packets. [...] Receiving packet N+1 after
        // losing N does not put a subscriber in the state N+1 implies, because whatever N
        // announced and N+1 had no reason to repeat is simply gone." That holds for a packet
        // diffed against the last state sent (N+1 against N). A packet planned against an
        // acknowledged state has every reason to repeat it: its entered keys assume the least
        // the subscriber holds ("the acknowledged state **intersected** with every state sent
        // since") and its retractions the most ("the acknowledged state **unioned** with
        // everything announced since"), so a mirror that applied it holds exactly its state,
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
            // Seed 004 §7: "when it disagrees with the digest of the state the server believes
            // it reached, the next plan is a full rebuild."
            self.rebuild();
        }
        agreement
    }

    /// [`observe_ack`](Self::observe_ack) plus the acknowledgement's arrival time, for flow
    /// control. The time records under either policy ("liveness is a property of the
    /// subscriber"). An acknowledgement from a stalled subscriber is "**the resume signal**,
    /// and it starts a fresh epoch (a `reset`) instead of being folded in".
    /// The resume signal's digest is not compared ([`Agreement::Unchecked`]).
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

    /// Seed 004 §7: "A rebuild starts a new epoch. A rebuild drops the acknowledged baseline,
    /// the last-sent state, *and* the sent history".
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
