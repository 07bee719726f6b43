//! Hostile and slow subscribers of a delta stream judged by the counting allocator (issue 38):
//! what one `DeltaBaseline` allocates and holds per round, never how long a round took.
//!
//! Before the kept differences, `plan` rebuilt the least and the most held from clones of the
//! acknowledged state and of every state sent since, and each acknowledgement cloned the state
//! it reached: a subscriber acknowledging late made every plan cost the lateness times the
//! visible keys, and a silent one held `history` copies of the visible set.

use ackwire_codec::delta::harness::LateSubscriber;
use ackwire_testkit::{is_counting, measure};
use std::collections::BTreeSet;

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

const HISTORY: usize = 32;

/// The allocations and bytes allocated by `rounds` rounds of `s`'s baseline (its plans and
/// acknowledgements, not the world's changes), checking that no acknowledgement allocates and
/// no plan is a rebuild.
fn rounds(s: &mut LateSubscriber, rounds: usize) -> (u64, u64) {
    let before = s.baseline.full_rebuilds();
    let (mut allocations, mut bytes) = (0, 0);
    for _ in 0..rounds {
        let (entered, left) = s.change();
        let plan = measure(|| s.plan(&entered, &left));
        let ack = measure(|| s.ack());
        assert_eq!(ack.allocations, 0, "an acknowledgement allocates nothing");
        allocations += plan.allocations;
        bytes += plan.allocated_bytes;
    }
    assert_eq!(s.baseline.full_rebuilds(), before, "no rebuild");
    (allocations, bytes)
}

/// A plan's allocations follow what changed since the acknowledged state, never the visible
/// set: 16 times the keys, the same allocations per round, at 1 plan late and at 30.
#[test]
fn a_late_subscriber_costs_what_changed_not_the_visible_set() {
    assert!(is_counting(), "the counting allocator is not installed");
    for told in [false, true] {
        for late in [1, 30] {
            let small = rounds(
                &mut LateSubscriber::new(2_048, 64, HISTORY, Some(late), told),
                50,
            );
            let large = rounds(
                &mut LateSubscriber::new(32_768, 64, HISTORY, Some(late), told),
                50,
            );
            eprintln!(
                "told {told}, {late} late: 2,048 keys {small:?}, 32,768 keys {large:?} \
                 (allocations, bytes over 50 rounds)"
            );
            // The B-trees' depth differs by a level or two: a node more or less per round.
            assert!(
                large.0 <= small.0 + 2 * 50 && large.1 <= small.1 * 5 / 4,
                "told {told}, {late} late: {small:?} with 2,048 keys, {large:?} with 32,768"
            );
        }
    }
    // Late costs what changed since the acknowledged state: 30 rounds of 64 keys, not the set.
    let (_, honest) = rounds(
        &mut LateSubscriber::new(32_768, 64, HISTORY, Some(1), false),
        50,
    );
    let (_, slow) = rounds(
        &mut LateSubscriber::new(32_768, 64, HISTORY, Some(30), false),
        50,
    );
    let per_key_round = (slow - honest) / 50 / (64 * 29);
    assert!(
        per_key_round <= 64,
        "{per_key_round} bytes a round per key changed since the acknowledged state"
    );
}

/// A subscriber that never acknowledges, or acknowledges 30 plans late, holds the visible set
/// once and `history` rounds of what changed: not `history` copies of the set (the probe of
/// issue 38 measured 21.6 MB for 65,536 keys at 30 plans late).
#[test]
fn a_silent_or_slow_subscriber_holds_the_set_once() {
    assert!(is_counting(), "the counting allocator is not installed");
    const KEYS: u64 = 65_536;
    let set = measure(|| (0..KEYS).collect::<BTreeSet<u64>>()).retained_bytes;
    for late in [None, Some(30)] {
        let held = measure(|| {
            let mut s = LateSubscriber::new(KEYS, 64, HISTORY, late, false);
            rounds(&mut s, 4 * HISTORY);
            s.baseline
        });
        let held = held.retained_bytes;
        // The set once (the last one sent), and per kept round the 64 keys that changed: in
        // its difference, in the map of keys changed, and as the set's nodes they left half
        // full (96 bytes a key).
        let bound = set + (HISTORY * 64 * 96) as i64;
        eprintln!("{late:?} late: {held} bytes held; the set alone {set}; bound {bound}");
        assert!(
            held <= bound,
            "{late:?} late: {held} bytes held, bound {bound}"
        );
    }
}

/// Acknowledgements from the future, ancient, repeated or garbage change nothing a plan
/// costs: none allocates, none grows what is held, and the next plans cost what they cost
/// before.
#[test]
fn hostile_acknowledgements_allocate_nothing_and_hold_nothing() {
    assert!(is_counting(), "the counting allocator is not installed");
    let mut s = LateSubscriber::new(8_192, 64, HISTORY, Some(1), false);
    let (_, honest) = rounds(&mut s, 20);
    let seq = s.seq();
    let hostile = [
        (seq + 1, u64::MAX, 0),
        (u64::MAX, u64::MAX, u64::MAX),
        (seq.saturating_sub(1_000), u64::MAX, 1),
        (0, 0, 0),
        (seq - 1, u64::MAX, 7),
        (seq - 1, u64::MAX, 7),
    ];
    let acks = measure(|| {
        for round in 0..1_000u64 {
            let (n, m, d) = hostile[(round % 6) as usize];
            s.baseline.observe_ack(n.wrapping_add(round), m, d);
        }
    });
    assert_eq!(acks.allocations, 0);
    assert!(acks.retained_bytes <= 0);
    assert!(s.baseline.held_states() <= HISTORY);
    // A garbage digest at the frontier is a drift: a rebuild, then deltas again.
    let rebuilds = s.baseline.full_rebuilds();
    s.round();
    s.round();
    let (_, after) = rounds(&mut s, 20);
    assert!(s.baseline.full_rebuilds() <= rebuilds + 1);
    assert!(
        after <= honest * 5 / 4,
        "{after} bytes after, {honest} before"
    );
}

/// The operation count, `DeltaBaseline::examined`: told the changes, a round looks at the same
/// keys for a visible set of 2,048 and of 32,768; given the set, it also walks it beside the
/// last one sent, and nothing more; 30 plans late, it looks at the 64 keys a round changed
/// times the rounds since the acknowledged state, never at the set again.
#[test]
fn a_round_looks_at_what_changed_not_the_visible_set() {
    let per_round = |keys: u64, late: u64, told: bool| {
        let mut s = LateSubscriber::new(keys, 64, HISTORY, Some(late), told);
        let before = s.baseline.examined();
        for _ in 0..50 {
            s.round();
        }
        (s.baseline.examined() - before) / 50
    };
    for late in [1, 30] {
        let told = per_round(32_768, late, true);
        assert_eq!(per_round(2_048, late, true), told, "{late} late");
        // The walk: the set beside the last one sent (32,768 keys each), where the told
        // plan was given the 64 keys that changed.
        assert_eq!(per_round(32_768, late, false), told + 2 * 32_768 - 64);
    }
    let (honest, slow) = (per_round(32_768, 1, true), per_round(32_768, 30, true));
    eprintln!("keys looked at a round, told: {honest} acknowledged 1 late, {slow} 30 late");
    assert!(slow - honest <= 3 * 64 * 30, "{honest} then {slow}");
}
