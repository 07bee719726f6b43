//! One test per rule of `docs/spec/datagram.md` (each fails without the code it names), and the
//! invariants over thousands of seeded runs.

use super::*;
use crate::protocol::{Component, Datagram, DatagramAck, Update, UpdateMask};
use crate::{BitSet, Frame};

fn config() -> SubscriptionConfig {
    SubscriptionConfig {
        precision: 1.0,
        max_datagram: 1200,
        sent_window: 64,
    }
}

fn spawn(id: u64, x: f64) -> WorldOp {
    WorldOp::Spawn {
        id,
        position: [x, 0.0, 0.0],
        components: vec![],
    }
}

fn mv(id: u64, x: f64) -> WorldOp {
    WorldOp::Move {
        id,
        position: [x, 0.0, 0.0],
    }
}

fn upd_x(id: u64, tag: u16, x: i64) -> Update {
    Update {
        id,
        spawn_tag: tag,
        mask: UpdateMask::empty().with(UpdateMask::X),
        x: Some(x),
        y: None,
        z: None,
        components: None,
    }
}

fn dgram(frame: u64, tick: u64, stream_tick: u64, parts: u32, updates: Vec<Update>) -> Datagram {
    Datagram {
        frame,
        tick,
        input_ack: tick * 10,
        stream_tick,
        precision: 1.0,
        parts,
        updates,
    }
}

fn spawn_frame(tick: u64, id: u64, x: i64) -> StreamFrame {
    StreamFrame::Spawn(crate::protocol::Spawn {
        tick,
        id,
        precision: 1.0,
        x,
        y: 0,
        z: 0,
        components: vec![],
    })
}

/// Delivers everything a tick sent, in order, and returns the acks.
fn deliver(client: &mut ReplicaTable, out: &TickOutput) -> Vec<DatagramAck> {
    for f in &out.stream {
        client.apply_stream(f);
    }
    for d in &out.datagrams {
        client.receive(d.clone());
    }
    client.take_acks()
}

fn x_of(client: &ReplicaTable, id: u64) -> Option<i64> {
    client.entities().get(&id).map(|e| e.position[0])
}

#[test]
fn max_header_len_is_the_longest_header() {
    // DG-7.
    assert_eq!(MAX_HEADER_LEN, 51);
    let d = Datagram {
        frame: u64::MAX,
        tick: u64::MAX,
        input_ack: u64::MAX,
        stream_tick: u64::MAX,
        precision: 1.0,
        parts: (1 << 21) - 1,
        updates: vec![],
    };
    // Every header field at its longest, and an update count of 2^21 - 1 (3 bytes, as 0).
    assert_eq!(d.to_bytes().unwrap().len() + 2, MAX_HEADER_LEN as usize);
}

#[test]
fn quantization_rounds_and_sends_non_finite_as_zero() {
    // DG-5.
    assert_eq!(quantize(1.26, 0.5), 3);
    assert_eq!(quantize(-1.25, 0.5), -3);
    assert_eq!(quantize(f64::NAN, 0.5), 0);
    assert_eq!(quantize(f64::INFINITY, 0.5), 0);
    assert_eq!(quantize(1.0, 0.0), 0);
    assert_eq!(quantize(1e300, 1e-5), i64::MAX);
    // The server applies it: a NaN coordinate goes as 0.
    let mut s = Subscription::new(config());
    let out = s
        .tick(
            1,
            0,
            &[WorldOp::Spawn {
                id: 1,
                position: [f64::NAN, 2.4, -2.6],
                components: vec![],
            }],
        )
        .unwrap();
    let StreamFrame::Spawn(sp) = &out.stream[0] else {
        panic!()
    };
    assert_eq!((sp.x, sp.y, sp.z), (0, 2, -3));
}

#[test]
fn an_update_applies_only_to_the_entity_spawned_at_its_tag() {
    // DG-8, DG-18.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 7, 0));
    // Despawned and spawned again under the same id at tick 3.
    c.apply_stream(&StreamFrame::Despawn(crate::protocol::Despawn {
        tick: 3,
        id: 7,
    }));
    c.apply_stream(&spawn_frame(3, 7, 100));
    // A late datagram for the first occupant (tag 1), numbered above anything applied.
    let s = c.receive(dgram(9, 3, 3, 1, vec![upd_x(7, spawn_tag(1), 55)]));
    assert_eq!(s.skipped_spawn_tag, 1);
    assert_eq!(x_of(&c, 7), Some(100));
    let s = c.receive(dgram(10, 4, 3, 1, vec![upd_x(7, spawn_tag(3), 56)]));
    assert_eq!(s.applied, 1);
    assert_eq!(x_of(&c, 7), Some(56));
}

#[test]
fn a_datagram_built_before_a_full_frame_changes_nothing() {
    // DG-17, DG-18.
    let mut s = Subscription::new(config());
    let mut c = ReplicaTable::new();
    let out1 = s.tick(1, 0, &[spawn(1, 0.0)]).unwrap();
    deliver(&mut c, &out1);
    let out2 = s.tick(2, 0, &[mv(1, 5.0)]).unwrap();
    let out3 = s.tick(3, 0, &[mv(1, 9.0), WorldOp::FullFrame]).unwrap();
    assert!(out3.datagrams.is_empty());
    for f in &out3.stream {
        c.apply_stream(f);
    }
    assert_eq!(x_of(&c, 1), Some(9));
    // Tick 2's datagram arrives after the full frame: its tag is the old spawn.
    let sum = c.receive(out2.datagrams[0].clone());
    assert_eq!(sum.skipped_spawn_tag, 1);
    assert_eq!(x_of(&c, 1), Some(9));
}

#[test]
fn an_update_from_an_older_datagram_than_the_last_applied_is_skipped() {
    // DG-19.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 1, 0));
    c.receive(dgram(5, 2, 1, 1, vec![upd_x(1, 1, 50)]));
    let s = c.receive(dgram(4, 1, 1, 1, vec![upd_x(1, 1, 40)]));
    assert_eq!(s.skipped_stale, 1);
    assert_eq!(x_of(&c, 1), Some(50));
    // Not newer: a duplicate of the last one is skipped too.
    let s = c.receive(dgram(5, 2, 1, 1, vec![upd_x(1, 1, 50)]));
    assert_eq!(s.skipped_stale, 1);
}

#[test]
fn a_tick_is_held_until_all_its_parts_are_in() {
    // DG-21.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 1, 0));
    c.apply_stream(&spawn_frame(1, 2, 0));
    let s = c.receive(dgram(1, 2, 1, 2, vec![upd_x(1, 1, 11)]));
    assert!(s.held);
    assert_eq!(x_of(&c, 1), Some(0));
    assert_eq!(c.input_ack(), 0);
    assert!(c.take_acks().is_empty(), "held, not acked");
    let s = c.receive(dgram(2, 2, 1, 2, vec![upd_x(2, 1, 22)]));
    assert_eq!(s.released, 2);
    assert_eq!((x_of(&c, 1), x_of(&c, 2)), (Some(11), Some(22)));
    assert_eq!(c.input_ack(), 20);
    assert_eq!(c.take_acks().len(), 2);
}

#[test]
fn a_tick_is_held_until_its_stream_frame_is_in() {
    // DG-21.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 1, 0));
    // Tick 3's datagram says a stream frame of tick 3 was sent by then.
    let s = c.receive(dgram(1, 3, 3, 1, vec![upd_x(1, 1, 33), upd_x(2, 3, 7)]));
    assert!(s.held);
    assert_eq!(x_of(&c, 1), Some(0));
    assert_eq!(c.input_ack(), 0);
    let s = c.apply_stream(&spawn_frame(3, 2, 0));
    assert_eq!(s.applied, 2);
    assert_eq!((x_of(&c, 1), x_of(&c, 2)), (Some(33), Some(7)));
    assert_eq!(c.input_ack(), 30);
}

#[test]
fn the_input_ack_is_taken_only_from_a_whole_tick_or_a_later_one() {
    // DG-21.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 1, 0));
    // Tick 2 loses its second part; tick 3 comes whole.
    c.receive(dgram(1, 2, 1, 2, vec![upd_x(1, 1, 20)]));
    assert_eq!(c.input_ack(), 0);
    assert_eq!(x_of(&c, 1), Some(0));
    c.receive(dgram(3, 3, 1, 1, vec![upd_x(1, 1, 30)]));
    // The later whole tick releases tick 2's part first, then its own: its ack is taken.
    assert_eq!(c.input_ack(), 30);
    assert_eq!(x_of(&c, 1), Some(30));
    assert_eq!(c.whole_tick(), Some(3));
    assert_eq!(c.held(), 0);
    // Tick 2's lost part arriving late is applied at once, and does not take the ack back.
    let s = c.receive(dgram(2, 2, 1, 2, vec![]));
    assert_eq!(s.released, 1);
    assert_eq!(c.input_ack(), 30);
}

#[test]
fn every_tick_without_a_full_frame_sends_at_least_one_datagram() {
    // DG-11, DG-12.
    let mut s = Subscription::new(config());
    for t in 1..5 {
        let out = s.tick(t, 0, &[]).unwrap();
        assert_eq!(out.datagrams.len(), 1);
        assert_eq!(out.datagrams[0].parts, 1);
    }
    let out = s.tick(5, 0, &[WorldOp::FullFrame]).unwrap();
    assert!(out.datagrams.is_empty());
    assert!(matches!(out.stream[..], [StreamFrame::FullFrame(_)]));
}

#[test]
fn the_server_splits_a_tick_under_its_limit() {
    // DG-13.
    let mut s = Subscription::new(SubscriptionConfig {
        max_datagram: 80,
        ..config()
    });
    let ops: Vec<WorldOp> = (0..40).map(|i| spawn(i, 0.0)).collect();
    s.tick(1, 0, &ops).unwrap();
    let moves: Vec<WorldOp> = (0..40).map(|i| mv(i, 1000.0 + i as f64)).collect();
    let out = s.tick(2, 0, &moves).unwrap();
    assert!(out.datagrams.len() > 2);
    let mut c = ReplicaTable::new();
    let ops_out = TickOutput {
        stream: vec![],
        datagrams: vec![],
    };
    deliver(&mut c, &ops_out);
    for d in &out.datagrams {
        assert!(d.to_bytes().unwrap().len() <= 80);
        assert_eq!(d.parts as usize, out.datagrams.len());
    }
}

#[test]
fn the_server_keeps_sending_a_change_until_an_ack_covers_it() {
    // DG-14.
    let mut s = Subscription::new(config());
    let mut c = ReplicaTable::new();
    deliver(&mut c, &s.tick(1, 0, &[spawn(1, 0.0)]).unwrap());
    let out = s.tick(2, 0, &[mv(1, 5.0)]).unwrap();
    assert_eq!(out.datagrams[0].updates.len(), 1);
    // Lost. The next ticks say it again, unchanged.
    let out = s.tick(3, 0, &[]).unwrap();
    assert_eq!(out.datagrams[0].updates[0].x, Some(5));
    let acks = deliver(&mut c, &out);
    assert_eq!(x_of(&c, 1), Some(5));
    for a in &acks {
        assert!(s.on_ack(a).known);
    }
    let out = s.tick(4, 0, &[]).unwrap();
    assert!(out.datagrams[0].updates.is_empty(), "covered: quiet");
}

#[test]
fn a_change_undone_before_its_ack_is_still_sent() {
    // x goes to 5 (sent, arrives, ack lost) and back to 0: the client holds 5, so 0 must go.
    let mut s = Subscription::new(config());
    let mut c = ReplicaTable::new();
    deliver(&mut c, &s.tick(1, 0, &[spawn(1, 0.0)]).unwrap());
    let _lost_ack = deliver(&mut c, &s.tick(2, 0, &[mv(1, 5.0)]).unwrap());
    assert_eq!(x_of(&c, 1), Some(5));
    let out = s.tick(3, 0, &[mv(1, 0.0)]).unwrap();
    assert_eq!(out.datagrams[0].updates[0].x, Some(0));
    deliver(&mut c, &out);
    assert_eq!(x_of(&c, 1), Some(0));
}

#[test]
fn a_removed_component_is_sent_until_covered() {
    // DG-14, DG-20.
    let mut s = Subscription::new(config());
    let mut c = ReplicaTable::new();
    let sp = WorldOp::Spawn {
        id: 1,
        position: [0.0; 3],
        components: vec![(4, vec![1, 2])],
    };
    deliver(&mut c, &s.tick(1, 0, &[sp]).unwrap());
    assert!(c.entities()[&1].components.contains_key(&4));
    let rm = WorldOp::RemoveComponent { id: 1, r#type: 4 };
    let _lost = s.tick(2, 0, &[rm]).unwrap();
    let out = s.tick(3, 0, &[]).unwrap();
    let u = &out.datagrams[0].updates[0];
    assert_eq!(
        u.components,
        Some(vec![Component {
            r#type: 4,
            data: None
        }])
    );
    for a in deliver(&mut c, &out) {
        s.on_ack(&a);
    }
    assert!(c.entities()[&1].components.is_empty());
    assert!(s.tick(4, 0, &[]).unwrap().datagrams[0].updates.is_empty());
}

#[test]
fn an_ack_covers_an_entity_only_when_its_stream_tick_is_at_or_after_the_spawn() {
    // DG-15.
    let mut s = Subscription::new(config());
    s.tick(1, 0, &[]).unwrap();
    s.tick(2, 0, &[spawn(1, 0.0)]).unwrap();
    let out = s.tick(3, 0, &[mv(1, 8.0)]).unwrap();
    let frame = out.datagrams[0].frame;
    // The client got the datagram before the spawn frame: its stream tick is 0.
    let sum = s.on_ack(&DatagramAck {
        frame,
        stream_tick: 0,
    });
    assert_eq!((sum.covered, sum.not_covered), (0, 1));
    let out = s.tick(4, 0, &[]).unwrap();
    assert_eq!(
        out.datagrams[0].updates[0].x,
        Some(8),
        "not covered: sent again"
    );
    let sum = s.on_ack(&DatagramAck {
        frame: out.datagrams[0].frame,
        stream_tick: 2,
    });
    assert_eq!(sum.covered, 1);
    assert!(s.tick(5, 0, &[]).unwrap().datagrams[0].updates.is_empty());
}

#[test]
fn an_ack_for_an_earlier_occupant_does_not_cover_the_next() {
    // DG-15.
    let mut s = Subscription::new(config());
    s.tick(1, 0, &[spawn(1, 0.0)]).unwrap();
    let out = s.tick(2, 0, &[mv(1, 3.0)]).unwrap();
    let old = out.datagrams[0].frame;
    // Respawned under the same id, then moved: the new occupant's change is pending.
    s.tick(3, 0, &[WorldOp::Despawn { id: 1 }, spawn(1, 0.0)])
        .unwrap();
    s.tick(4, 0, &[mv(1, 6.0)]).unwrap();
    let sum = s.on_ack(&DatagramAck {
        frame: old,
        stream_tick: 3,
    });
    assert_eq!(sum.covered, 0);
    let out = s.tick(5, 0, &[]).unwrap();
    assert_eq!(out.datagrams[0].updates[0].x, Some(6));
}

#[test]
fn a_late_ack_never_moves_the_acknowledged_state_back() {
    // DG-15.
    let mut s = Subscription::new(config());
    s.tick(1, 0, &[spawn(1, 0.0)]).unwrap();
    let a = s.tick(2, 0, &[mv(1, 3.0)]).unwrap().datagrams[0].frame;
    let b = s.tick(3, 0, &[mv(1, 4.0)]).unwrap().datagrams[0].frame;
    s.on_ack(&DatagramAck {
        frame: b,
        stream_tick: 1,
    });
    s.on_ack(&DatagramAck {
        frame: a,
        stream_tick: 1,
    });
    assert!(s.tick(4, 0, &[]).unwrap().datagrams[0].updates.is_empty());
}

#[test]
fn hostile_acks_are_ignored() {
    // DG-15, GEN-5.
    let mut s = Subscription::new(config());
    s.tick(1, 0, &[spawn(1, 0.0)]).unwrap();
    let f = s.tick(2, 0, &[mv(1, 3.0)]).unwrap().datagrams[0].frame;
    for a in [
        DatagramAck {
            frame: f,
            stream_tick: 99,
        },
        DatagramAck {
            frame: u64::MAX,
            stream_tick: 1,
        },
        DatagramAck {
            frame: 0,
            stream_tick: 0,
        },
    ] {
        assert_eq!(s.on_ack(&a).covered, 0);
    }
    assert_eq!(
        s.tick(3, 0, &[]).unwrap().datagrams[0].updates[0].x,
        Some(3)
    );
}

#[test]
fn the_client_holds_a_bounded_number_of_datagrams() {
    // DG-23.
    let mut c = ReplicaTable::with_limits(ReplicaLimits {
        max_entities: 4,
        max_held: 10,
        ..ReplicaLimits::default()
    });
    for i in 0..1000 {
        // Ticks that are never whole (a million parts each).
        c.receive(dgram(i + 1, i + 1, 0, 1 << 20, vec![upd_x(i, 0, 1)]));
        assert!(c.held() <= 10);
    }
    for i in 0..100 {
        c.apply_stream(&spawn_frame(1, i, 0));
    }
    assert!(c.entities().len() <= 4);
}

/// `max_held_bytes`, with the figures every language's test repeats: datagrams of ten updates
/// each carrying a 100-byte component cost 256 + 10 × (96 + 100 + 64) = 2,856; under a bound
/// of 10,000 three ticks are held, and each further one gives up the oldest.
#[test]
fn the_client_holds_a_bounded_number_of_datagram_bytes() {
    let mut c = ReplicaTable::with_limits(ReplicaLimits {
        max_held_bytes: 10_000,
        ..ReplicaLimits::default()
    });
    let updates = || {
        (0..10)
            .map(|id| Update {
                mask: UpdateMask::empty().with(UpdateMask::COMPONENTS),
                x: None,
                components: Some(vec![Component {
                    r#type: 1,
                    data: Some(vec![0; 100]),
                }]),
                ..upd_x(id, 1, 0)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ReplicaLimits::held_cost(&dgram(1, 1, 0, 2, updates())),
        2_856
    );
    let mut given_up = 0;
    for t in 1..=20 {
        // Two parts each, and only one sent: never whole.
        given_up += c.receive(dgram(t, t, 0, 2, updates())).given_up;
    }
    assert_eq!((c.held(), c.held_bytes(), given_up), (3, 8_568, 17));
}

#[test]
fn the_server_remembers_a_bounded_window() {
    let mut s = Subscription::new(SubscriptionConfig {
        sent_window: 8,
        ..config()
    });
    for t in 1..100 {
        s.tick(t, 0, &[]).unwrap();
        assert!(s.remembered() <= 8);
    }
}

#[test]
fn a_state_hash_tells_tables_apart() {
    // CHECK-8.
    let mut a = ReplicaTable::new();
    let b = ReplicaTable::new();
    assert_eq!(a.state_hash(), b.state_hash());
    a.apply_stream(&spawn_frame(1, 1, 0));
    assert_ne!(a.state_hash(), b.state_hash());
}

#[test]
fn a_quiet_lossless_run_converges() {
    // GEN-3.
    // A hand-written schedule through the harness: ticks, then deliveries.
    let r = harness::run(&[
        200, 0, 0, 0, 4, 1, 1, 2, 3, 4, 5, 6, 0, 3, 2, 5, 7, 0, 4, 4, 6, 6,
    ])
    .unwrap();
    assert!(r.converged);
}

#[test]
fn an_entity_spawned_and_despawned_within_a_tick_never_reaches_the_stream() {
    // DG-16.
    let mut s = Subscription::new(config());
    let out = s
        .tick(
            1,
            0,
            &[spawn(6, 1.0), WorldOp::Despawn { id: 6 }, spawn(6, 2.0)],
        )
        .unwrap();
    // One occupant per id and tick: the second spawn is the only one the client sees.
    assert!(matches!(&out.stream[..], [StreamFrame::Spawn(sp)] if sp.x == 2));
}

#[test]
fn an_ack_made_while_a_spawn_of_the_last_stream_tick_is_missing_names_the_tick_before() {
    // DG-22.
    // Two spawns share tick 2; the datagram of tick 3 lands between them.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(2, 1, 0));
    c.receive(dgram(1, 3, 2, 1, vec![upd_x(1, 2, 5), upd_x(2, 2, 9)]));
    let acks = c.take_acks();
    assert_eq!(
        acks[0].stream_tick, 1,
        "entity 2's spawn may still be coming"
    );
    c.apply_stream(&spawn_frame(2, 2, 0));
    c.receive(dgram(2, 4, 2, 1, vec![upd_x(2, 2, 9)]));
    assert_eq!(c.take_acks()[0].stream_tick, 2);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        /// Thousands of seeded runs: loss, duplication, reordering, respawns under the same id,
        /// full frames, stalls, hostile frames; every invariant of the harness holds.
        #[test]
        fn every_run_keeps_the_invariants(data in proptest::collection::vec(any::<u8>(), 0..1500)) {
            if let Err(e) = harness::run(&data) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    #[test]
    fn the_runs_exercise_the_skip_rules_and_the_hostile_cases() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut total = harness::RunReport::default();
        let mut converged = 0;
        for _ in 0..300 {
            let data: Vec<u8> = (0..1200)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng as u8
                })
                .collect();
            let r = harness::run(&data).unwrap();
            total.applied += r.applied;
            total.skipped_spawn_tag += r.skipped_spawn_tag;
            total.skipped_stale += r.skipped_stale;
            total.skipped_over_bytes += r.skipped_over_bytes;
            total.extreme_ticks += r.extreme_ticks;
            converged += u32::from(r.converged);
        }
        assert!(total.applied > 1000, "{total:?}");
        // Issue 13's hostile cases are reached: the component byte bound, ticks at the end of
        // the u64 range.
        assert!(total.skipped_over_bytes > 10, "{total:?}");
        assert!(total.extreme_ticks > 10, "{total:?}");
        assert!(total.skipped_spawn_tag > 10, "{total:?}");
        assert!(total.skipped_stale > 10, "{total:?}");
        assert!(converged > 10, "{converged}");
    }
}

#[test]
fn fuzz_regressions() {
    // Garbage that decodes as a datagram is a forgery: the run stops expecting convergence.
    let crash = [
        0x6b, 0xb5, 0xef, 0xf6, 0xff, 0xff, 0x02, 0x00, 0x9f, 0xff, 0x3b, 0xfe, 0xff, 0x0f, 0x00,
        0xff,
    ];
    harness::run(&crash).unwrap();
}

/// Issue 13: a datagram's tick comes from the wire, and `release` split the held ticks at
/// `whole + 1`, which overflowed for tick u64::MAX (a panic with overflow checks; in release a
/// split at 0 that kept the tick held forever). A whole tick of u64::MAX is applied like any
/// other, with the ticks held below it, and its input ack taken.
#[test]
fn a_datagram_of_tick_u64_max_is_applied_when_whole() {
    // GEN-6.
    let mut c = ReplicaTable::new();
    c.apply_stream(&spawn_frame(1, 7, 0));
    let datagram = |frame, tick, parts, x| Datagram {
        frame,
        tick,
        input_ack: frame * 10,
        stream_tick: 1,
        precision: 1.0,
        parts,
        updates: vec![upd_x(7, 1, x)],
    };
    // A tick just below, not whole (one part of two): held until a later tick is whole.
    assert!(c.receive(datagram(1, u64::MAX - 1, 2, 5)).held);
    let s = c.receive(datagram(2, u64::MAX, 1, 9));
    assert_eq!((s.released, s.applied), (2, 2), "{s:?}");
    assert_eq!(c.whole_tick(), Some(u64::MAX));
    assert_eq!(c.input_ack(), 20);
    assert_eq!(c.held(), 0);
    assert_eq!(x_of(&c, 7), Some(9));
    let acked: Vec<u64> = c.take_acks().iter().map(|a| a.frame).collect();
    assert_eq!(acked, [1, 2]);
    // Every later tick is at or below the whole one: applied at once, never held.
    let s = c.receive(datagram(3, u64::MAX, 2, 11));
    assert_eq!((s.held, s.applied), (false, 1));
    assert_eq!(x_of(&c, 7), Some(11));
}

fn comp(r#type: u8, len: usize) -> Component {
    Component {
        r#type,
        data: Some(vec![r#type; len]),
    }
}

fn spawn_with(tick: u64, id: u64, components: Vec<Component>) -> StreamFrame {
    StreamFrame::Spawn(crate::protocol::Spawn {
        tick,
        id,
        precision: 1.0,
        x: 0,
        y: 0,
        z: 0,
        components,
    })
}

/// ReplicaLimits::max_component_bytes: past it a spawn is refused like one past the entity
/// limit, an update is skipped whole and its datagram left unacked, and what leaves the table
/// (a despawn, a removed component) makes room again.
#[test]
fn component_bytes_past_the_limit_are_refused_and_counted() {
    // DG-23.
    let o = ReplicaLimits::COMPONENT_OVERHEAD;
    let mut c = ReplicaTable::with_limits(ReplicaLimits {
        max_component_bytes: 2 * (100 + o),
        ..ReplicaLimits::default()
    });
    assert_eq!(
        c.apply_stream(&spawn_with(1, 1, vec![comp(0, 100)]))
            .refused,
        0
    );
    assert_eq!(c.component_bytes(), 100 + o);
    // A spawn whose components do not fit is refused; the table is as it was.
    assert_eq!(
        c.apply_stream(&spawn_with(1, 2, vec![comp(0, 101)]))
            .refused,
        1
    );
    assert!(!c.entities().contains_key(&2));
    assert_eq!(c.apply_stream(&spawn_with(1, 2, vec![])).refused, 0);
    // An update that would go past: skipped whole (its x too), not acked.
    let mut over = upd_x(2, 1, 77);
    over.mask = over.mask.with(UpdateMask::COMPONENTS);
    over.components = Some(vec![comp(3, 101)]);
    let s = c.receive(dgram(1, 2, 1, 1, vec![over.clone()]));
    assert_eq!((s.applied, s.skipped_over_bytes), (0, 1), "{s:?}");
    assert_eq!(x_of(&c, 2), Some(0));
    assert!(
        c.take_acks().is_empty(),
        "a refused update's datagram is acked"
    );
    assert_eq!(c.component_bytes(), 100 + o);
    // Removing entity 1's component in the same update makes room: the update counts the
    // bytes it leaves, not those it adds.
    let mut swap = over.clone();
    swap.id = 1;
    swap.components = Some(vec![
        comp(3, 101),
        Component {
            r#type: 0,
            data: None,
        },
    ]);
    let s = c.receive(dgram(2, 3, 1, 1, vec![swap]));
    assert_eq!((s.applied, s.skipped_over_bytes), (1, 0), "{s:?}");
    assert_eq!(c.component_bytes(), 101 + o);
    assert_eq!(c.take_acks().len(), 1);
    // A despawn frees what the entity held: the refused update, sent again, now fits.
    c.apply_stream(&StreamFrame::Despawn(crate::protocol::Despawn {
        tick: 4,
        id: 1,
    }));
    assert_eq!(c.component_bytes(), 0);
    let s = c.receive(dgram(3, 4, 1, 1, vec![over]));
    assert_eq!((s.applied, s.skipped_over_bytes), (1, 0), "{s:?}");
    assert_eq!(x_of(&c, 2), Some(77));
    assert_eq!(c.component_bytes(), 101 + o);
}

/// A full frame keeps its entities while their components fit, refusing (and counting) the
/// rest, as it does past the entity limit.
#[test]
fn a_full_frame_past_the_component_byte_limit_refuses_the_entities_that_do_not_fit() {
    let o = ReplicaLimits::COMPONENT_OVERHEAD;
    let mut c = ReplicaTable::with_limits(ReplicaLimits {
        max_component_bytes: 3 * (10 + o),
        ..ReplicaLimits::default()
    });
    let entities = (1..=5)
        .map(|id| crate::protocol::FullEntity {
            id,
            x: 0,
            y: 0,
            z: 0,
            components: vec![comp(1, 10)],
        })
        .collect();
    let s = c.apply_stream(&StreamFrame::FullFrame(crate::protocol::FullFrame {
        tick: 5,
        precision: 1.0,
        entities,
    }));
    assert_eq!(s.refused, 2);
    assert_eq!(c.entities().keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(c.component_bytes(), 3 * (10 + o));
}

/// Against an honest server, a refused update is sent again until it fits: the bound delays
/// what does not fit, it never makes the table hold what the server did not say.
#[test]
fn a_refused_update_is_sent_again_until_it_fits() {
    // DG-23, DG-22.
    let o = ReplicaLimits::COMPONENT_OVERHEAD;
    let mut server = Subscription::new(config());
    let mut c = ReplicaTable::with_limits(ReplicaLimits {
        max_component_bytes: 2 * (50 + o),
        ..ReplicaLimits::default()
    });
    let set = |id, len| WorldOp::SetComponent {
        id,
        r#type: 4,
        data: vec![9; len],
    };
    let out = server.tick(1, 0, &[spawn(1, 0.0), spawn(2, 0.0)]).unwrap();
    deliver(&mut c, &out);
    let out = server.tick(2, 0, &[set(1, 50), set(2, 60)]).unwrap();
    // The tick's one datagram holds both updates; entity 2's does not fit: nothing to ack.
    assert!(deliver(&mut c, &out).is_empty());
    assert_eq!(c.entities()[&1].components.get(&4).map(Vec::len), Some(50));
    assert!(c.entities()[&2].components.is_empty());
    // Entity 2's component shrinks to fit: the next datagram carries it again and it lands.
    let out = server.tick(3, 0, &[set(2, 50)]).unwrap();
    for a in deliver(&mut c, &out) {
        server.on_ack(&a);
    }
    let mut world = server.world();
    for (id, r) in c.entities() {
        let (spawn_tick, position, components) = world.remove(id).unwrap();
        assert_eq!(
            (r.spawn_tick, r.position, &r.components),
            (spawn_tick, position, &components)
        );
    }
    assert!(world.is_empty());
}
