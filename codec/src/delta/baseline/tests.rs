//! Every rule of `docs/spec/delta.md` that `DeltaBaseline` enforces (DELTA-9 to DELTA-19),
//! each with a test that fails without it and names the rule.

use super::*;
use crate::delta::Agreement;
use crate::BitSet;

fn keys(items: &[u64]) -> BTreeSet<u64> {
    items.iter().copied().collect()
}

fn digest(items: &BTreeSet<u64>) -> u64 {
    SetDigest::from_keys(items.iter().copied()).digest()
}

/// A subscriber that applies every plan it is given, in the order given.
#[derive(Default)]
struct Sub {
    held: BTreeSet<u64>,
}

impl Sub {
    fn apply(&mut self, plan: &DeltaPlan) {
        if plan.full_baseline {
            self.held.clear();
        }
        for k in &plan.left {
            self.held.remove(k);
        }
        self.held.extend(plan.entered.iter().copied());
    }
    fn digest(&self) -> u64 {
        digest(&self.held)
    }
}

/// DELTA-19.
#[test]
fn failure_mode_a_subscriber_joining_a_warm_slot_needs_the_reset() {
    // Without `reset`, a client arriving in a warm slot gets as its first packet a difference
    // against a state it never received: the slot's baseline already describes most of the
    // world.
    let world = keys(&[1, 2, 3, 4, 5]);
    let mut b = DeltaBaseline::new(24);
    let mut previous = Sub::default();
    for seq in 1..=10 {
        previous.apply(&b.plan(&world, seq));
        b.observe_ack(seq, u64::MAX, previous.digest());
    }
    // A new subscriber takes the slot without the reset: it is sent nothing.
    let mut joiner = Sub::default();
    joiner.apply(&b.plan(&world, 11));
    assert!(
        joiner.held.is_empty(),
        "the bug: a difference against a state never received"
    );
    // With the reset the next plan is the whole set.
    b.reset();
    let plan = b.plan(&world, 12);
    assert!(plan.full_baseline && plan.baseline_seq.is_none());
    let mut joiner = Sub::default();
    joiner.apply(&plan);
    assert_eq!(joiner.held, world);
    assert_eq!(b.full_rebuilds(), 0, "a new subscriber is not a rebuild");
}

/// DELTA-15, DELTA-16.
#[test]
fn failure_mode_a_mirror_that_diverged_is_rebuilt_from_its_digest() {
    // Once the server believes a subscriber holds a key, the key only ever travels as an update,
    // so a single divergence lasts whatever traffic follows; the digest on the acknowledgement
    // lets the server see the disagreement and rebuild from nothing.
    let world = keys(&[1, 2, 3]);
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&world, 1));
    b.observe_ack(1, 0, sub.digest());
    // The mirror loses key 2 without losing a packet.
    sub.held.remove(&2);
    // Without the digest (an ack that reports what the server believes), nothing ever repairs it.
    let mut blind = b.clone();
    let mut blind_sub = Sub {
        held: sub.held.clone(),
    };
    for seq in 2..=20 {
        blind_sub.apply(&blind.plan(&world, seq));
        blind.observe_ack(seq, u64::MAX, digest(&world));
    }
    assert_eq!(
        blind_sub.held,
        keys(&[1, 3]),
        "permanent, whatever the traffic"
    );
    // With its own digest on the ack the server rebuilds, in one round trip.
    sub.apply(&b.plan(&world, 2));
    b.observe_ack(2, 1, sub.digest());
    let plan = b.plan(&world, 3);
    assert!(plan.full_baseline);
    sub.apply(&plan);
    assert_eq!(sub.held, world);
    assert_eq!(b.full_rebuilds(), 1);
    b.observe_ack(3, 0b11, sub.digest());
    assert!(!b.plan(&world, 4).full_baseline, "and deltas again");
}

/// DELTA-15.
#[test]
fn the_digest_is_compared_on_a_re_acknowledgement_too() {
    // The comparison belongs to the report, not to the state change: a mirror that loses
    // something *without* losing a packet says so on its next acknowledgement.
    let world = keys(&[1, 2, 3]);
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&world, 1));
    b.observe_ack(1, 0, sub.digest());
    sub.held.remove(&3);
    // The same sequence again: the frontier does not move, but the report is checked.
    b.observe_ack(1, 0, sub.digest());
    assert!(b.plan(&world, 2).full_baseline);
    assert_eq!(b.full_rebuilds(), 1);
}

/// DELTA-15.
#[test]
fn ordinary_loss_is_not_a_drift_and_a_late_acknowledgement_is_not_compared() {
    // Compared only once the frontier has reached the newest packet reported, a disagreement
    // means wrong rather than further ahead, and ordinary loss triggers no rebuild.
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&keys(&[1]), 1));
    b.observe_ack(1, 0, sub.digest());
    let _lost = b.plan(&keys(&[1, 2]), 2);
    sub.apply(&b.plan(&keys(&[1, 2, 3]), 3));
    let late = sub.digest();
    sub.apply(&b.plan(&keys(&[3]), 4));
    // The ack of 4 arrives first: 2 is missing, yet 4's digest is the state 4 was sent with.
    assert_eq!(b.observe_ack(4, 0b101, sub.digest()), Agreement::Agrees);
    assert_eq!(b.acked_seq(), Some(4));
    // The ack of 3, overtaken on the way back, reports a state older than the frontier.
    assert_eq!(b.observe_ack(3, 0b10, late), Agreement::Unchecked);
    assert_eq!(b.acked_seq(), Some(4), "the frontier never moves backwards");
    let plan = b.plan(&keys(&[3]), 5);
    assert!(
        !plan.full_baseline,
        "neither the loss nor the late digest is a drift"
    );
    assert_eq!(
        (plan.baseline_seq, plan.entered, plan.left),
        (Some(4), vec![], vec![])
    );
    assert_eq!(b.full_rebuilds(), 0);
}

/// DELTA-12.
#[test]
fn sends_assume_the_least_held_the_acknowledged_state_intersected_with_every_state_since() {
    // What to *send* assumes the least the subscriber holds: the acknowledged state
    // **intersected** with every state sent since, since a later packet may have retracted any
    // of it.
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&keys(&[1]), 1));
    b.observe_ack(1, 0, sub.digest());
    // Packet 2 retracts 1; packet 3 brings it back. Neither acknowledged yet.
    sub.apply(&b.plan(&keys(&[]), 2));
    let plan = b.plan(&keys(&[1]), 3);
    assert_eq!(
        plan.entered,
        vec![1],
        "the raw acknowledged state would say 1 is held"
    );
    sub.apply(&plan);
    assert_eq!(sub.held, keys(&[1]));
}

/// DELTA-12.
#[test]
fn retractions_assume_the_most_held_the_acknowledged_state_unioned_with_everything_since() {
    // An entity that entered and left inside the gap is in neither the baseline nor the current
    // set, and a single difference never mentions it.
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&keys(&[]), 1));
    b.observe_ack(1, 0, sub.digest());
    sub.apply(&b.plan(&keys(&[5]), 2));
    let plan = b.plan(&keys(&[]), 3);
    assert_eq!(
        plan.left,
        vec![5],
        "5 entered and left inside the unacknowledged gap"
    );
    sub.apply(&plan);
    assert!(sub.held.is_empty(), "no corpse left behind");
}

/// DELTA-11.
#[test]
fn cold_start_sends_full_sets_for_the_first_round_trip_then_deltas() {
    // No state is acknowledged before the first acknowledgement, so an unknown baseline means
    // full sets for the first round trip, not the naive differences by accident.
    let mut b = DeltaBaseline::new(24);
    let _lost = b.plan(&keys(&[1, 2]), 1);
    let second = b.plan(&keys(&[1, 2, 3]), 2);
    assert!(
        second.full_baseline,
        "no acknowledgement yet: a full set, not [3]"
    );
    assert_eq!(second.entered, vec![1, 2, 3]);
    let mut sub = Sub::default();
    sub.apply(&second);
    // The acknowledgement of 2 (1 never arrived) settles the first baseline.
    b.observe_ack(2, 0, sub.digest());
    assert_eq!(b.acked_seq(), Some(2));
    let third = b.plan(&keys(&[1, 2, 3, 4]), 3);
    assert!(!third.full_baseline);
    assert_eq!((third.baseline_seq, third.entered), (Some(2), vec![4]));
    // The naive policy falls back to the last state sent, which loses 1 and 2.
    let mut n = DeltaBaseline::new(24).with_policy(RecoveryPolicy::Naive);
    let _lost = n.plan(&keys(&[1, 2]), 1);
    assert_eq!(n.plan(&keys(&[1, 2, 3]), 2).entered, vec![3]);
}

/// DELTA-17.
#[test]
fn a_rebuild_starts_a_new_epoch() {
    // Dropping the acknowledged baseline, the last state sent *and* the sent history means no
    // acknowledgement in flight can name a state from before the rebuild: the frontier restarts
    // at the next packet, and one round trip ends the full sets.
    let world = keys(&[1, 2, 3]);
    let d = digest(&world);
    let mut b = DeltaBaseline::new(24);
    for seq in 1..=5 {
        b.plan(&world, seq);
        b.observe_ack(seq, u64::MAX, d);
    }
    b.request_full_baseline();
    assert_eq!(b.acked_seq(), None);
    assert!(b.plan(&world, 6).full_baseline);
    assert_eq!(b.unacked(), 1, "the old epoch's history is gone");
    b.observe_ack(5, u64::MAX, d);
    assert_eq!(b.acked_seq(), None, "a pre-rebuild state is not a baseline");
    assert!(b.plan(&world, 7).full_baseline, "still unknown");
    // The restarted subscriber's window has a gap at the boundary (it lost 6 and the old
    // epoch): 7 alone is enough.
    b.observe_ack(7, 0, d);
    assert_eq!(b.acked_seq(), Some(7));
    let settled = b.plan(&world, 8);
    assert!(!settled.full_baseline && settled.entered.is_empty() && settled.left.is_empty());
    assert_eq!(b.full_rebuilds(), 1);
}

/// DELTA-14.
#[test]
fn a_packet_planned_against_an_acknowledged_state_is_a_state_reached_whatever_was_lost() {
    // States are acknowledged, not packets: packet N+1 received after losing N is not the state
    // it implies when it was diffed against N. A plan made against the acknowledged state
    // repeats what was lost (its sends assume the acknowledged state **intersected** with every
    // state sent since), so packet 3 below, received after losing 2, is the state it names:
    // the frontier steps to it instead of waiting at 1 until 1 ages out of history.
    let mut b = DeltaBaseline::new(24);
    let mut sub = Sub::default();
    sub.apply(&b.plan(&keys(&[1, 5]), 1));
    b.observe_ack(1, 0, sub.digest());
    let _lost = b.plan(&keys(&[1, 7]), 2); // announces 7, retracts 5
    let third = b.plan(&keys(&[1, 7, 8]), 3);
    assert_eq!((third.baseline_seq, &third.entered), (Some(1), &vec![7, 8]));
    assert_eq!(third.left, vec![5]);
    sub.apply(&third);
    assert_eq!(
        sub.held,
        keys(&[1, 7, 8]),
        "exactly the state 3 was sent with"
    );
    b.observe_ack(3, 0b10, sub.digest()); // 3 and 1 arrived, 2 did not
    assert_eq!(
        b.acked_seq(),
        Some(3),
        "not stuck at 1 behind the lost packet"
    );
    assert_eq!(b.unacked(), 0);
    let fourth = b.plan(&keys(&[1, 7, 8, 9]), 4);
    assert_eq!((fourth.baseline_seq, fourth.entered), (Some(3), vec![9]));
    assert!(fourth.left.is_empty());
    assert_eq!(b.full_rebuilds(), 0);
}

/// DELTA-13, DELTA-14.
#[test]
fn a_lost_packet_no_longer_ages_the_baseline_out_of_history() {
    // A baseline older than the history forces a full rebuild. With the frontier stepping past
    // a lost packet, one loss costs nothing of the window: 2 is lost, every later packet
    // arrives, and 40 packets through a history of 4 need no rebuild.
    let world = keys(&[1, 2]);
    let mut b = DeltaBaseline::new(4);
    let mut w = AckWindow::new();
    for seq in 1..=40 {
        let plan = b.plan(&world, seq);
        assert!(seq == 1 || !plan.full_baseline, "packet {seq}");
        if seq != 2 {
            w.observe(seq);
            let (newest, mask) = w.encode().unwrap();
            b.observe_ack(newest, mask, digest(&world));
        }
    }
    assert_eq!((b.full_rebuilds(), b.acked_seq()), (0, Some(40)));
}

/// DELTA-13.
#[test]
fn a_baseline_aged_out_of_history_forces_a_full_rebuild() {
    // A baseline older than the history cannot be derived again: a full rebuild, not a wrong
    // difference.
    let world = keys(&[1, 2]);
    let mut b = DeltaBaseline::new(4);
    b.plan(&world, 1);
    b.observe_ack(1, 0, digest(&world));
    for seq in 2..=6 {
        assert!(!b.plan(&world, seq).full_baseline, "packet {seq}");
        assert!(b.held_states() <= 4);
    }
    // Packet 2's state fell out of the four kept: the baseline cannot be re-derived.
    assert!(b.plan(&world, 7).full_baseline);
    assert_eq!(b.full_rebuilds(), 1);
    assert_eq!(b.acked_seq(), None);
}

/// DELTA-10.
#[test]
fn the_naive_policy_loses_a_lost_packets_contents_and_ack_recovery_does_not() {
    // `Naive`: what a lost packet carried is never mentioned again, so the subscriber lacks it
    // for good while every readout looks healthy.
    for (policy, expect) in [
        (RecoveryPolicy::Naive, keys(&[1])),
        (RecoveryPolicy::AckRecovery, keys(&[1, 2])),
    ] {
        let mut b = DeltaBaseline::new(24).with_policy(policy);
        let mut sub = Sub::default();
        sub.apply(&b.plan(&keys(&[1]), 1));
        b.observe_ack(1, 0, sub.digest());
        let _lost = b.plan(&keys(&[1, 2]), 2);
        for seq in 3..=10 {
            sub.apply(&b.plan(&keys(&[1, 2]), seq));
            b.observe_ack(seq, !0b1, sub.digest()); // everything but 2 arrived
        }
        assert_eq!(sub.held, expect, "{policy:?}");
    }
}

/// DELTA-10, DELTA-18.
#[test]
fn observe_ack_is_a_no_op_under_naive_but_liveness_still_records() {
    let mut b = DeltaBaseline::new(8)
        .with_policy(RecoveryPolicy::Naive)
        .with_flow(100, 50);
    assert!(b.should_send(0));
    b.plan(&keys(&[1]), 1);
    b.observe_ack_at(1, 0, 12345, 90);
    assert_eq!(b.acked_seq(), None);
    assert!(
        !b.plan(&keys(&[1]), 2).full_baseline,
        "no drift check under Naive"
    );
    assert!(!b.stalled(180), "the ack at 90 recorded liveness");
    assert!(b.stalled(191));
}

/// DELTA-18.
#[test]
fn flow_control_throttles_a_stalled_subscriber_to_keepalives() {
    // `with_flow`: a subscriber silent for `stalled_after` is sent one packet every
    // `keepalive_every` until it acknowledges again.
    let world = keys(&[1, 2, 3]);
    let d = digest(&world);
    let mut b = DeltaBaseline::new(24).with_flow(3_000, 1_000);
    let (mut seq, mut stalled_sends) = (0, 0);
    for round in 1..=160u64 {
        let now = round * 62;
        if b.should_send(now) {
            seq += 1;
            b.plan(&world, seq);
            if now <= 1_000 {
                b.observe_ack_at(seq, u64::MAX, d, now);
            } else if now > 5_000 {
                stalled_sends += 1;
            }
        }
    }
    assert!(b.stalled(160 * 62));
    assert!(
        (4..=6).contains(&stalled_sends),
        "{stalled_sends} keepalives in ~5 s"
    );
    // Without flow control every round sends and nothing is ever stalled.
    let mut free = DeltaBaseline::new(24);
    assert!((0..100).all(|r| free.should_send(r * 62) && !free.stalled(r * 62)));
}

/// DELTA-18, DELTA-19.
#[test]
fn a_fresh_subscriber_is_not_born_stalled_and_a_reset_restarts_the_grace() {
    // Silence counts from the first send decision, so a new subscriber does not start out
    // stalled; `reset` restarts the grace period too.
    let mut b = DeltaBaseline::new(24).with_flow(3_000, 1_000);
    assert!(!b.stalled(3_600_000));
    assert!(b.should_send(3_600_000));
    assert!(b.should_send(3_600_062));
    b.observe_ack_at(1, 0, 0, 3_600_062);
    b.reset();
    assert!(
        !b.stalled(7_200_000),
        "the new occupant's silence starts now"
    );
    assert!(b.should_send(7_200_000));
    assert!(b.should_send(7_200_062));
}

/// DELTA-18.
#[test]
fn the_resume_signal_starts_a_fresh_epoch() {
    // An acknowledgement from a stalled subscriber is the resume signal: a fresh epoch (a
    // `reset`) instead of being folded in, and deltas again after a single round trip.
    let world = keys(&[1, 2, 3]);
    let d = digest(&world);
    let mut b = DeltaBaseline::new(64).with_flow(1_000, 500);
    let mut seq = 0;
    for now in (0..=500).step_by(50) {
        assert!(b.should_send(now));
        seq += 1;
        b.plan(&world, seq);
        b.observe_ack_at(seq, u64::MAX, d, now);
    }
    let settled = seq;
    // Silent for 3 s: keepalives only. The subscriber receives them but does not read.
    let mut keepalives = Vec::new();
    let mut throttled = 0;
    for now in (550..=3_500).step_by(50) {
        if b.should_send(now) {
            seq += 1;
            b.plan(&world, seq);
            keepalives.push(seq);
            throttled += usize::from(b.stalled(now));
        }
    }
    assert!(
        (3..=5).contains(&throttled),
        "{throttled} keepalives in 2 s"
    );
    // It resumes, having discarded the stretch unread, and acknowledges the last keepalive:
    // its window spans the silence, with a gap at the stall boundary.
    let mut w = AckWindow::new();
    for s in (1..=settled).chain(keepalives.last().copied()) {
        w.observe(s);
    }
    let (newest, mask) = w.encode().unwrap();
    b.observe_ack_at(newest, mask, d, 3_550);
    assert!(!b.stalled(3_550));
    assert_eq!(b.acked_seq(), None, "not folded in: a fresh epoch");
    seq += 1;
    assert!(b.plan(&world, seq).full_baseline, "one clean full set");
    b.observe_ack_at(seq, 0, d, 3_600);
    seq += 1;
    let next = b.plan(&world, seq);
    assert!(
        !next.full_baseline && next.entered.is_empty(),
        "deltas one round trip later"
    );
    // Folded in instead, the walk from the last settled state stops at the first gap.
    assert_eq!(w.contiguous_base(settled + 1), None);
}

/// DELTA-9.
#[test]
fn unacked_counts_what_is_in_flight_after_a_plan_or_an_ack() {
    let world = keys(&[1]);
    let mut b = DeltaBaseline::new(24);
    for seq in 1..=4 {
        b.plan(&world, seq);
    }
    assert_eq!(b.unacked(), 4);
    b.observe_ack(2, 0b1, digest(&world));
    assert_eq!((b.acked_seq(), b.unacked()), (Some(2), 2));
    b.plan(&world, 5);
    // 4, 2 and 1 arrived, 3 did not: 4 is a state reached all the same, and 5 is in flight.
    b.observe_ack(4, 0b110, digest(&world));
    assert_eq!((b.acked_seq(), b.unacked()), (Some(4), 1));
}

/// DELTA-10, DELTA-19.
#[test]
fn set_policy_on_a_live_subscriber_resets_it() {
    let world = keys(&[1]);
    let mut b = DeltaBaseline::new(24);
    b.plan(&world, 1);
    b.observe_ack(1, 0, digest(&world));
    b.set_policy(RecoveryPolicy::AckRecovery);
    assert!(
        !b.plan(&world, 2).full_baseline,
        "the same policy changes nothing"
    );
    b.set_policy(RecoveryPolicy::Naive);
    assert_eq!(b.policy(), RecoveryPolicy::Naive);
    assert!(b.plan(&world, 3).full_baseline);
    assert_eq!(b.full_rebuilds(), 0);
}

/// DELTA-1.
#[test]
fn a_plan_rides_the_delta_plan_frame() {
    use crate::rt::Frame;
    let plan = DeltaPlan {
        full_baseline: false,
        baseline_seq: Some(7),
        entered: vec![1, 1 << 20],
        left: vec![3],
    };
    let frame = plan.to_frame(9);
    let bytes = frame.to_bytes().unwrap();
    let back = crate::protocol::DeltaPlan::decode(&bytes).unwrap();
    assert_eq!(back.sequence, 9);
    assert_eq!(DeltaPlan::from_frame(&back), plan);
    let full = DeltaPlan {
        full_baseline: true,
        ..DeltaPlan::default()
    };
    assert_eq!(full.to_frame(1).flags.bits(), 1);
}

/// GEN-5, GEN-6.
#[test]
fn hostile_acknowledgements_never_panic_or_grow_the_history() {
    let world = keys(&[1, 2, 3]);
    let mut b = DeltaBaseline::new(8).with_flow(10, 5);
    let hostile = [
        (0, 0, 0),
        (u64::MAX, u64::MAX, u64::MAX),
        (3, u64::MAX, 0),
        (u64::MAX - 1, 0, 1),
        (1 << 40, 1, 2),
    ];
    for seq in 1..=200u64 {
        if b.should_send(seq) {
            b.plan(&world, seq);
        }
        let (n, m, d) = hostile[(seq % 5) as usize];
        b.observe_ack_at(n.wrapping_add(seq), m, d, seq.wrapping_mul(7));
        assert!(b.held_states() <= 8);
        assert!(b.unacked() <= 8);
    }
}

/// DELTA-17.
#[test]
fn a_stale_acknowledgement_from_before_a_rebuild_names_no_baseline() {
    // An acknowledgement in flight from before a rebuild could otherwise name a state of the
    // old epoch as the baseline of a subscriber about to hold something else.
    let mut b = DeltaBaseline::new(24);
    b.plan(&keys(&[1]), 1);
    b.plan(&keys(&[1]), 2);
    // The subscriber restarts before acknowledging anything; the application rebuilds.
    b.request_full_baseline();
    assert!(b.plan(&keys(&[1, 2]), 3).full_baseline);
    // The old mirror's acknowledgement of 1 and 2, still in flight, arrives.
    b.observe_ack(2, 0b1, digest(&keys(&[1])));
    assert_eq!(b.acked_seq(), None, "the old epoch's states are gone");
    assert!(b.plan(&keys(&[1, 2]), 4).full_baseline);
}

/// DELTA-18.
#[test]
fn a_subscriber_that_never_acknowledges_stalls_counted_from_the_first_send_decision() {
    // Silence counts from the first send decision.
    let mut b = DeltaBaseline::new(24).with_flow(1_000, 500);
    assert!(b.should_send(10_000));
    assert!(!b.stalled(10_900));
    assert!(b.stalled(11_001), "silent since the first decision");
    assert!(b.should_send(11_001), "the first keepalive");
    assert!(!b.should_send(11_100));
    assert!(b.should_send(11_501));
}

/// DELTA-16, DELTA-25.
#[test]
fn the_drift_check_is_turned_off_by_a_switch_not_by_the_empty_sets_digest() {
    // A client that drops its mirror reports the empty set's digest and gets a full baseline
    // (DELTA-25), so that digest cannot also turn the check off: the switch does.
    let world = keys(&[1, 2, 3]);
    let empty = SetDigest::new().digest();
    let mut b = DeltaBaseline::new(24);
    assert!(b.drift_check(), "on by default");
    b.plan(&world, 1);
    assert_eq!(b.observe_ack(1, 0, digest(&world)), Agreement::Agrees);
    // A dropped mirror reports the empty set's digest: the request for a full baseline.
    assert_eq!(
        b.observe_ack(1, 0, empty),
        Agreement::Disagrees {
            expected: digest(&world),
            reported: empty
        }
    );
    assert!(b.plan(&world, 2).full_baseline);
    assert_eq!(b.full_rebuilds(), 1);

    // Off, no digest is compared, the empty set's or any other; the frontier still moves.
    let mut off = DeltaBaseline::new(24).with_drift_check(false);
    assert!(!off.drift_check());
    off.plan(&world, 1);
    assert_eq!(off.observe_ack(1, 0, empty), Agreement::Unchecked);
    assert_eq!(off.acked_seq(), Some(1));
    for seq in 2..=5 {
        assert!(!off.plan(&world, seq).full_baseline, "packet {seq}");
        assert_eq!(off.observe_ack(seq, u64::MAX, 12_345), Agreement::Unchecked);
    }
    assert_eq!((off.full_rebuilds(), off.acked_seq()), (0, Some(5)));
    // And back on, on the live subscriber.
    off.set_drift_check(true);
    assert!(off.observe_ack(5, u64::MAX, 12_345).is_disagreement());
    assert!(off.plan(&world, 6).full_baseline);
}

/// DELTA-9.
#[test]
fn a_history_of_zero_is_clamped_to_one() {
    // `new(history)` keeps at least 1 state: with none, no acknowledgement could name a state,
    // and every plan would be a full baseline.
    let (mut zero, mut one) = (DeltaBaseline::new(0), DeltaBaseline::new(1));
    let mut sub = Sub::default();
    for seq in 1..=12u64 {
        let world = if seq % 3 == 0 {
            keys(&[1])
        } else {
            keys(&[1, 2])
        };
        let plan = zero.plan(&world, seq);
        assert_eq!(
            plan,
            one.plan(&world, seq),
            "packet {seq}: the same as a history of 1"
        );
        assert_eq!(plan.full_baseline, seq == 1, "packet {seq}");
        assert!(zero.held_states() <= 1);
        // A subscriber that acknowledges each packet before the next is planned.
        sub.apply(&plan);
        zero.observe_ack(seq, u64::MAX, sub.digest());
        one.observe_ack(seq, u64::MAX, sub.digest());
        assert_eq!(sub.held, world);
    }
    assert_eq!(zero.full_rebuilds(), 0);
}
