//! One body for the `delta_stream` fuzz target and the property tests: both halves of a delta
//! stream driven through a world script, a network schedule and hostile acknowledgements, all
//! read from arbitrary bytes, with the invariants asserted (a panic is what a fuzzer reports).
//! Beside it, [`LateSubscriber`]: the slow subscriber the hostile bench times and the limit
//! tests count.
//!
//! The invariants:
//! - **convergence** (GEN-3: once the network heals the client converges to the server's world):
//!   under [`RecoveryPolicy::AckRecovery`], after the script the network heals (in order, nothing
//!   lost, no hostile acknowledgement) and within a bounded number of rounds the mirror holds
//!   exactly the server's set, whatever happened before: loss, duplication, reordering, forged
//!   acknowledgements and digests, a mirror that lost keys, a client that stopped reading and
//!   dropped its mirror, a subscriber reset;
//! - **bounded memory**: the server keeps at most `history` sent states and the mirror at most
//!   one occupant per slot of the world, whatever the peer sends; a throwaway mirror flooded
//!   with plans of new keys (a hostile server) holds at most its
//!   [`MirrorLimits::max_keys`](super::MirrorLimits), and a plan it refuses changes nothing,
//!   not even what it acknowledges;
//! - **no panic** on any frame: forged `delta_ack` bytes go to the server, forged
//!   `delta_plan` bytes to a throwaway mirror (a client trusts its server; a forged plan with a
//!   huge sequence would rightly make a real mirror ignore the honest stream).

use super::{
    DeltaBaseline, DeltaMirror, DeltaPlan, MirrorLimits, RecoveryPolicy, ReusePolicy, SetDigest,
    SlotAllocator, SlotKey,
};
use crate::protocol::{DeltaAck, DeltaPlan as PlanFrame};
use crate::rt::Frame;
use crate::LimitError;
use ackwire_sim::{ByteSource, ByteWire};
use std::collections::BTreeSet;

/// Slots in the harness's world.
const SLOTS: u32 = 24;
/// Frames a direction of the network holds at once; more are dropped, as a full queue would.
const IN_FLIGHT: usize = 128;
/// Rounds of script at most.
const MAX_ROUNDS: usize = 400;

/// What a run did, for the property tests to look at.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    /// Rounds of script run.
    pub rounds: usize,
    /// Whether the run used [`RecoveryPolicy::AckRecovery`] (and so checked convergence).
    pub recovering: bool,
    /// Rounds the healed network took to converge.
    pub heal_rounds: usize,
    /// Plans sent in all.
    pub plans: u64,
    /// The server's full rebuilds.
    pub full_rebuilds: u64,
}

/// The server half: the world (one occupant per slot) and its subscriber's baseline.
struct Server {
    world: SlotAllocator,
    baseline: DeltaBaseline,
    seq: u64,
    history: usize,
}

impl Server {
    fn set(&self) -> BTreeSet<u64> {
        self.world.live().map(SlotKey::encode).collect()
    }
    /// The occupant of `slot` leaves, if there is one.
    fn vacate(&mut self, slot: u32) {
        if let Some(old) = self.world.occupant(slot) {
            self.world.free(old);
        }
    }
    fn send(&mut self, now: u64) -> Option<Vec<u8>> {
        if !self.baseline.should_send(now) {
            return None;
        }
        self.seq += 1;
        let plan = self.baseline.plan(&self.set(), self.seq);
        let bytes = plan.to_frame(self.seq).to_bytes();
        assert!(bytes.is_ok(), "a plan over slot keys always encodes");
        bytes.ok()
    }
    fn receive(&mut self, bytes: &[u8], now: u64) {
        if let Ok(ack) = DeltaAck::decode(bytes) {
            self.baseline
                .observe_ack_at(ack.newest, ack.mask, ack.digest, now);
        }
        assert!(self.baseline.held_states() <= self.history);
        assert!(self.baseline.unacked() <= self.history);
    }
}

fn receive_plan(mirror: &mut DeltaMirror, bytes: &[u8]) -> Option<Vec<u8>> {
    let frame = PlanFrame::decode(bytes).ok()?;
    let before = (
        mirror.len(),
        mirror.digest(),
        *mirror.acks(),
        mirror.applied_seq(),
    );
    match mirror.apply(&frame) {
        Ok(_) => {}
        Err(LimitError::MirrorKeys {
            sequence,
            would_hold,
            max_keys,
        }) => {
            assert!(
                would_hold > max_keys && max_keys == mirror.limits().max_keys,
                "a plan refused within the limit: {would_hold} of {max_keys}"
            );
            assert_eq!(sequence, Some(frame.sequence));
            let after = (
                mirror.len(),
                mirror.digest(),
                *mirror.acks(),
                mirror.applied_seq(),
            );
            assert_eq!(before, after, "a refused plan changed the mirror");
            // Refused as the network would lose it: nothing to acknowledge.
            return None;
        }
        Err(e) => panic!("the mirror refused a plan with {e}"),
    }
    assert!(mirror.len() <= mirror.limits().max_keys);
    assert!(mirror.len() <= SLOTS as usize + 1);
    mirror.ack().and_then(|a| a.to_bytes().ok())
}

/// Runs the stream `data` describes and asserts the invariants; panics on a violation.
pub fn run(data: &[u8]) -> Outcome {
    let mut input = ByteSource::new(data);
    let head = input.byte();
    let history = 1 + usize::from(input.byte() % 48);
    let policy = if head & 1 == 0 {
        RecoveryPolicy::AckRecovery
    } else {
        RecoveryPolicy::Naive
    };
    let mut baseline = DeltaBaseline::new(history).with_policy(policy);
    let flow = head & 2 != 0;
    let keepalive = 1 + u64::from(input.byte() % 8);
    if flow {
        baseline = baseline.with_flow(2 + u64::from(input.byte() % 16), keepalive);
    }
    // The world's slots are handed out by a SlotAllocator, under either reuse policy, so a slot
    // reused is always the next generation (DELTA-3: a retraction must name the occupant the
    // subscriber holds, not the slot's current one).
    let reuse = if head & 4 == 0 {
        ReusePolicy::LowestFree
    } else {
        ReusePolicy::Fifo {
            quarantine: u32::from(head >> 3) % 8,
        }
    };
    let mut server = Server {
        world: SlotAllocator::new(SLOTS, reuse),
        baseline,
        seq: 0,
        history,
    };
    let mut mirror = DeltaMirror::<()>::new();
    // Forged and flooding plans go to a mirror no larger than the world, so the limit is met.
    let mut throwaway = DeltaMirror::<()>::new().with_limits(MirrorLimits {
        max_keys: SLOTS as usize + 1,
    });
    let (mut down, mut up) = (ByteWire::new(IN_FLIGHT), ByteWire::new(IN_FLIGHT));
    let mut out = Outcome {
        recovering: policy == RecoveryPolicy::AckRecovery,
        ..Outcome::default()
    };
    let mut reading = true;
    let mut round = 0u64;
    while !input.done() && (round as usize) < MAX_ROUNDS {
        round += 1;
        let op = input.byte();
        let slot = u32::from(input.byte()) % SLOTS;
        match op % 16 {
            0..=2 => {
                // Enter at this slot, or respawn: a new generation in the same slot.
                server.vacate(slot);
                server.world.allocate_at(slot);
            }
            3 | 4 => {
                // Enter wherever the reuse policy puts it (nothing when the world is full).
                server.world.allocate();
            }
            5..=7 => server.vacate(slot),
            8 => {
                // Forged acknowledgement, structured or raw bytes.
                let forged = if op & 16 == 0 {
                    DeltaAck {
                        newest: input.u64_be() % (server.seq + 80),
                        mask: input.u64_be(),
                        digest: input.u64_be(),
                    }
                    .to_bytes()
                    .unwrap_or_default()
                } else {
                    let n = usize::from(input.byte() % 24);
                    input.take(n).to_vec()
                };
                let now = round * 10;
                server.receive(&forged, now);
            }
            9 => {
                let n = usize::from(input.byte());
                let forged = input.take(n).to_vec();
                let _ = receive_plan(&mut throwaway, &forged);
            }
            10 => {
                // The mirror loses a key without losing a packet.
                let key = mirror.keys().nth(usize::from(input.byte()));
                if let Some(k) = key {
                    mirror.remove(k);
                }
            }
            11 => {
                // The client stops reading, or resumes having dropped its mirror.
                reading = !reading;
                if reading {
                    mirror.clear();
                }
            }
            12 if op & 0xF0 == 0 => server.baseline.reset(),
            13 if op & 0xF0 == 0 => server.baseline.request_full_baseline(),
            14 => {
                // A hostile server floods the mirror with keys it never held (issue 13): up to
                // 255 new slots a plan, a full baseline or not, some retracting what is held.
                let n = u32::from(input.byte());
                let first = (input.u64_be() as u32) & !0xff_u32;
                let generation = u16::from(input.byte());
                let left: Vec<u64> = throwaway
                    .keys()
                    .take(usize::from(input.byte() % 4))
                    .map(SlotKey::encode)
                    .collect();
                let plan = DeltaPlan {
                    full_baseline: op & 0x10 != 0,
                    baseline_seq: None,
                    entered: (0..n)
                        .map(|i| SlotKey::new(first + i, generation).encode())
                        .collect(),
                    left,
                };
                let seq = throwaway.applied_seq().map_or(1, |s| s.saturating_add(1));
                if let Ok(bytes) = plan.to_frame(seq).to_bytes() {
                    let _ = receive_plan(&mut throwaway, &bytes);
                }
            }
            _ => {}
        }
        let now = round * 10;
        if let Some(bytes) = server.send(now) {
            out.plans += 1;
            down.send(round, input.byte(), bytes);
        }
        for bytes in down.due(round) {
            if !reading {
                continue;
            }
            if let Some(ack) = receive_plan(&mut mirror, &bytes) {
                up.send(round, input.byte(), ack);
            }
        }
        for bytes in up.due(round) {
            server.receive(&bytes, now);
        }
    }
    out.rounds = round as usize;
    // The network heals: what is in flight is lost, and from now on every frame arrives, in
    // order, within the round.
    drop((down, up));
    let budget = 4 * history + 4 * keepalive as usize + 40;
    let mut converged = None;
    for heal in 1..=budget {
        round += 1;
        let now = round * 10;
        if let Some(bytes) = server.send(now) {
            out.plans += 1;
            if let Some(ack) = receive_plan(&mut mirror, &bytes) {
                server.receive(&ack, now);
            }
        }
        let truth = server.set();
        if mirror.keys().map(SlotKey::encode).eq(truth.iter().copied()) {
            converged.get_or_insert(heal);
        } else {
            converged = None;
        }
    }
    out.full_rebuilds = server.baseline.full_rebuilds();
    if out.recovering {
        let d = mirror.divergence_from(server.set());
        assert!(
            converged.is_some() && d.is_empty(),
            "the mirror did not converge once the network healed: {d:?}"
        );
        out.heal_rounds = converged.unwrap_or(0);
    }
    out
}

/// A subscriber of a world of keys that churns, acknowledging each plan a fixed number of
/// rounds late with the digest of the set that plan carried (issue 38's slow client): what
/// `cargo bench -p ackwire-bench --bench hostile` times and `codec/tests/hostile_delta.rs`
/// counts. Each round, [`change`](Self::change) moves the world, [`plan`](Self::plan) plans it
/// and [`ack`](Self::ack) acknowledges, so that a caller can measure each step alone.
#[derive(Debug)]
pub struct LateSubscriber {
    /// The subscriber's baseline.
    pub baseline: DeltaBaseline,
    world: BTreeSet<u64>,
    digest: SetDigest,
    /// `(sequence, digest of the set it carried)` of the plans that may still be acknowledged.
    sent: std::collections::VecDeque<(u64, u64)>,
    seq: u64,
    next: u64,
    oldest: u64,
    churn: u64,
    late: Option<u64>,
    told: bool,
}

impl LateSubscriber {
    /// A world of keys `0..keys` of which `churn / 2` leave (the oldest) and `churn / 2` enter
    /// (new ones) each round, planned into a baseline of `history` states, given the whole set
    /// or (`told`) the changes ([`DeltaBaseline::plan_changes`]), and acknowledged `late`
    /// rounds after each plan (never, for `None`). It is run for two histories' worth of
    /// rounds, past the first full baseline into the steady state.
    #[must_use]
    pub fn new(keys: u64, churn: u64, history: usize, late: Option<u64>, told: bool) -> Self {
        let world: BTreeSet<u64> = (0..keys).collect();
        let mut s = LateSubscriber {
            baseline: DeltaBaseline::new(history),
            digest: SetDigest::from_keys(world.iter().copied()),
            world,
            sent: std::collections::VecDeque::new(),
            seq: 0,
            next: keys,
            oldest: 0,
            churn,
            late,
            told,
        };
        for _ in 0..2 * history {
            s.round();
        }
        s
    }

    /// Moves the world one round: the keys that entered and those that left (for the first
    /// round, the whole world entering).
    pub fn change(&mut self) -> (Vec<u64>, Vec<u64>) {
        if self.seq == 0 {
            return (self.world.iter().copied().collect(), Vec::new());
        }
        let (mut entered, mut left) = (Vec::new(), Vec::new());
        for _ in 0..self.churn / 2 {
            self.world.remove(&self.oldest);
            self.digest.remove(self.oldest);
            left.push(self.oldest);
            self.oldest += 1;
            self.world.insert(self.next);
            self.digest.insert(self.next);
            entered.push(self.next);
            self.next += 1;
        }
        (entered, left)
    }

    /// Plans the world as [`change`](Self::change) left it (told `entered` and `left`, or
    /// given the set).
    pub fn plan(&mut self, entered: &[u64], left: &[u64]) -> DeltaPlan {
        self.seq += 1;
        let plan = if self.told {
            self.baseline.plan_changes(entered, left, self.seq)
        } else {
            self.baseline.plan(&self.world, self.seq)
        };
        self.sent.push_back((self.seq, self.digest.digest()));
        let history = self.late.map_or(0, |l| l as usize + 1);
        while self.sent.len() > history {
            self.sent.pop_front();
        }
        plan
    }

    /// Acknowledges the plan `late` rounds back, all of the window received, with the digest of
    /// the set it carried; `None` when there is nothing to acknowledge.
    pub fn ack(&mut self) -> Option<super::Agreement> {
        let newest = self.seq.checked_sub(self.late?)?;
        let (seq, digest) = self.sent.iter().find(|(s, _)| *s == newest).copied()?;
        Some(self.baseline.observe_ack(seq, u64::MAX, digest))
    }

    /// The sequence of the last plan.
    #[must_use]
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// One round: change, plan, acknowledge; returns the keys the plan named.
    pub fn round(&mut self) -> usize {
        let (entered, left) = self.change();
        let plan = self.plan(&entered, &left);
        self.ack();
        plan.entered.len() + plan.left.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_and_junk_inputs_run() {
        run(&[]);
        run(&[0xff; 64]);
        run(&[0; 300]);
        run(&(0..=255).collect::<Vec<u8>>());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Thousands of seeded runs: the invariants of the module doc hold for any script,
        /// network schedule and forged acknowledgement.
        #[test]
        fn any_stream_converges_once_the_network_heals(data in proptest::collection::vec(any::<u8>(), 0..1200)) {
            let out = run(&data);
            if out.recovering {
                prop_assert!(out.heal_rounds >= 1);
            }
        }
    }
}
