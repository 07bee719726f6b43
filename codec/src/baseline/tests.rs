//! One test per rule of `docs/spec/baseline.md` (NB-3 to NB-17, each failing without the code it
//! names), and the invariants over thousands of seeded runs.

use super::*;
use crate::protocol::{
    ComponentMask, Entry, Snapshot, SnapshotAck, SnapshotBody, Vitality, ACK_WINDOW,
    MAX_LOST_PER_SNAPSHOT,
};
use crate::{BitSet, Frame};

fn id(slot: u32, generation: u8) -> EntityId {
    EntityId { slot, generation }
}

fn hp(v: u8) -> ComponentValue {
    ComponentValue::Health(Vitality { hp: v })
}

fn spawn(scene: &mut Scene, e: EntityId, owner: Option<u32>, health: u8) {
    scene.spawn(e, owner).unwrap();
    scene.set(e.slot, hp(health)).unwrap();
}

fn slots(s: &Snapshot) -> Vec<EntityId> {
    read_snapshot(ReferenceBaseline, s)
        .unwrap()
        .entries
        .iter()
        .map(|(e, _)| *e)
        .collect()
}

fn lost(s: &Snapshot) -> Vec<EntityId> {
    read_snapshot(ReferenceBaseline, s).unwrap().lost
}

#[test]
fn wrapping_sequence_comparison() {
    // NB-6.
    assert!(sequence_newer(1, 0));
    assert!(sequence_newer(0, u16::MAX));
    assert!(sequence_newer(10, 65530));
    assert!(!sequence_newer(65530, 10));
    assert!(!sequence_newer(5, 5));
}

#[test]
fn find_is_by_entity_not_by_slot() {
    // NB-3.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(5, 1), None, 100);
    let s = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    assert!(w.baseline().find(id(5, 1), 2).is_some());
    // The slot is reused by a new occupant with the very same bits.
    scene.despawn(5);
    spawn(&mut scene, id(5, 2), None, 100);
    assert!(w.baseline().find(id(5, 2), 2).is_none());
    let s = w.write(&scene).unwrap();
    assert_eq!(slots(&s), vec![id(5, 2)], "the new occupant is sent whole");
}

#[test]
fn a_late_acknowledgement_never_writes_stale_bytes_over_fresh() {
    // NB-9.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(1, 1), None, 50);
    let a = w.write(&scene).unwrap();
    scene.set(1, hp(60)).unwrap();
    let b = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: b.sequence,
    });
    w.on_ack(&SnapshotAck {
        sequence: a.sequence,
    });
    assert_eq!(
        w.baseline().find(id(1, 1), 2).unwrap().bits,
        ReferenceBaseline::bits(&hp(60)).unwrap()
    );
    assert!(
        w.write(&scene).unwrap().body.entries.is_empty(),
        "60 is held: quiet"
    );
}

#[test]
fn the_late_acknowledgement_rule_holds_across_the_wrap() {
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, u16::MAX);
    spawn(&mut scene, id(1, 1), None, 50);
    let a = w.write(&scene).unwrap();
    scene.set(1, hp(60)).unwrap();
    let b = w.write(&scene).unwrap();
    assert_eq!((a.sequence, b.sequence), (u16::MAX, 0));
    w.on_ack(&SnapshotAck { sequence: 0 });
    w.on_ack(&SnapshotAck { sequence: u16::MAX });
    assert_eq!(
        w.baseline().find(id(1, 1), 2).unwrap().bits,
        ReferenceBaseline::bits(&hp(60)).unwrap()
    );
}

#[test]
fn a_snapshot_outside_the_window_is_given_up() {
    // NB-10.
    let mut b = NetBaseline::new();
    b.hold(Pending {
        sequence: 0,
        lost: vec![],
        entries: vec![(id(1, 1), 2, vec![7])],
    });
    b.expire(ACK_WINDOW);
    assert_eq!(b.pending(), 1, "still within the window");
    b.expire(ACK_WINDOW + 1);
    assert_eq!(b.pending(), 0);
    b.confirm(0);
    assert!(b.find(id(1, 1), 2).is_none(), "given up: never confirmed");
}

#[test]
fn an_unacknowledged_change_is_said_again() {
    // NB-8.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(1, 1), None, 50);
    let _lost = w.write(&scene).unwrap();
    // Confirmed, not sent: the next snapshot carries it again.
    assert_eq!(slots(&w.write(&scene).unwrap()), vec![id(1, 1)]);
}

#[test]
fn held_snapshots_stay_bounded_whatever_the_client_acknowledges() {
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(1, 1), None, 50);
    for i in 0..1000u32 {
        w.write(&scene).unwrap();
        w.on_ack(&SnapshotAck {
            sequence: (i * 7919) as u16,
        });
        assert!(w.baseline().pending() <= usize::from(ACK_WINDOW) + 1);
    }
}

#[test]
fn an_occupant_found_dead_that_comes_back_is_not_lost_and_is_sent_whole_again() {
    // NB-3, NB-11: by entity, not slot: a slot whose generation wraps back to an occupant whose
    // loss was reported but not confirmed holds that entity alive again. The client may have
    // applied the report, so nothing confirmed of the old life counts.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(4, 9), None, 50);
    let s = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    scene.despawn(4);
    let _reported_but_unconfirmed = w.write(&scene).unwrap();
    assert_eq!(w.baseline().owed_lost(), 1);
    spawn(&mut scene, id(4, 9), None, 50);
    let s = w.write(&scene).unwrap();
    assert!(lost(&s).is_empty());
    assert_eq!(slots(&s), vec![id(4, 9)]);
    assert_eq!(w.baseline().owed_lost(), 0);
    assert_eq!(w.baseline().told(), 1);
}

#[test]
fn gather_lost_is_by_entity_and_reported_until_confirmed() {
    // NB-11.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(5, 1), None, 100);
    let s = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    // The slot is reused between snapshots: alive both times, yet the old occupant is lost.
    scene.despawn(5);
    spawn(&mut scene, id(5, 2), None, 100);
    let s1 = w.write(&scene).unwrap();
    assert_eq!(lost(&s1), vec![id(5, 1)]);
    // That snapshot is lost: the next says it again (destruction is reliable).
    let s2 = w.write(&scene).unwrap();
    assert_eq!(lost(&s2), vec![id(5, 1)]);
    w.on_ack(&SnapshotAck {
        sequence: s2.sequence,
    });
    assert!(lost(&w.write(&scene).unwrap()).is_empty());
}

#[test]
fn an_entity_told_about_but_never_confirmed_is_still_reported_lost() {
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(3, 1), None, 100);
    let _arrived_but_ack_lost = w.write(&scene).unwrap();
    scene.despawn(3);
    assert_eq!(lost(&w.write(&scene).unwrap()), vec![id(3, 1)]);
}

#[test]
fn a_snapshot_names_at_most_max_lost() {
    // NB-11.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 100_000, 0);
    for slot in 0..100 {
        spawn(&mut scene, id(slot, 1), None, 1);
    }
    let s = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    let mut scene = Scene::new();
    spawn(&mut scene, id(500, 1), None, 1);
    let s = w.write(&scene).unwrap();
    assert_eq!(lost(&s).len(), usize::from(MAX_LOST_PER_SNAPSHOT));
    assert!(lost(&s).windows(2).all(|p| p[0].slot < p[1].slot));
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    assert_eq!(
        lost(&w.write(&scene).unwrap()).len(),
        36,
        "the rest wait for the next"
    );
}

#[test]
fn clear_forgets_everything_for_a_replaced_world() {
    // NB-13.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 0);
    spawn(&mut scene, id(1, 1), None, 100);
    let s = w.write(&scene).unwrap();
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    let in_flight = w.write(&scene).unwrap();
    // The replacement reuses slot and generation with the same bits: without clear, find's
    // guard would take it as held, and the client (which dropped its table) would never get it.
    w.replace_world();
    assert!(w.baseline().find(id(1, 1), 2).is_none());
    w.on_ack(&SnapshotAck {
        sequence: in_flight.sequence,
    });
    assert_eq!(w.baseline().pending(), 0);
    assert_eq!(slots(&w.write(&scene).unwrap()), vec![id(1, 1)]);
    let mut b = NetBaseline::new();
    b.hold(Pending {
        sequence: 3,
        lost: vec![],
        entries: vec![(id(9, 9), 0, vec![1])],
    });
    b.clear();
    let mut out = Vec::new();
    b.gather_lost(&Scene::new(), usize::MAX, &mut out);
    assert!(out.is_empty());
}

#[test]
fn under_a_budget_owned_entities_go_first_then_the_longest_unconfirmed_then_by_slot() {
    // NB-12.
    // One entry of one Health component fits: 3 + ceil((23 + 37 + 7) / 8) = 12 bytes.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(Some(7), 12, 0);
    spawn(&mut scene, id(1, 1), None, 1);
    spawn(&mut scene, id(2, 1), Some(7), 1);
    let s = w.write(&scene).unwrap();
    assert!(s.to_bytes().unwrap().len() <= 12);
    assert_eq!(slots(&s), vec![id(2, 1)], "owned first");
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    // Slot 1 has waited since the first snapshot; slot 0 is new.
    spawn(&mut scene, id(0, 1), None, 1);
    let s = w.write(&scene).unwrap();
    assert_eq!(slots(&s), vec![id(1, 1)], "the longest unconfirmed");
    w.on_ack(&SnapshotAck {
        sequence: s.sequence,
    });
    // Two new entities waiting equally long: by slot.
    spawn(&mut scene, id(9, 1), None, 1);
    spawn(&mut scene, id(4, 1), None, 1);
    let s = w.write(&scene).unwrap();
    assert_eq!(slots(&s), vec![id(0, 1)]);
    let s = w.write(&scene).unwrap();
    assert_eq!(
        slots(&s),
        vec![id(0, 1)],
        "unacknowledged: still the longest waiting"
    );
}

#[test]
fn the_budget_bounds_every_snapshot() {
    let mut scene = Scene::new();
    for slot in 0..200 {
        spawn(&mut scene, id(slot * 3, 1), None, 1);
    }
    for budget in [0, 5, 6, 12, 40, 100, 400] {
        let mut w = SnapshotWriter::new(None, budget, 0);
        let s = w.write(&scene).unwrap();
        assert!(s.to_bytes().unwrap().len() <= budget.max(6));
    }
}

#[test]
fn the_client_drops_a_stale_snapshot_unacknowledged() {
    // NB-16.
    let mut scene = Scene::new();
    let mut w = SnapshotWriter::new(None, 1000, 65534);
    let mut c = SnapshotClient::new(100);
    spawn(&mut scene, id(1, 1), None, 10);
    let a = w.write(&scene).unwrap();
    scene.set(1, hp(20)).unwrap();
    let b = w.write(&scene).unwrap();
    scene.set(1, hp(30)).unwrap();
    let d = w.write(&scene).unwrap();
    assert!(c.receive(&d).applied);
    assert!(c.receive(&b).stale);
    assert!(c.receive(&a).stale);
    assert_eq!(
        c.take_acks(),
        vec![SnapshotAck {
            sequence: d.sequence
        }]
    );
    assert_eq!(c.entities()[&1].components[2], Some(hp(30)));
}

#[test]
fn the_client_removes_only_the_occupant_named_lost_and_replaces_a_new_one_whole() {
    // NB-17.
    let mut c = SnapshotClient::new(100);
    let entry = |gap: u8, generation: u8, health: Option<u8>, team: Option<u8>| {
        let mut mask = ComponentMask::empty();
        mask.set(ComponentMask::HEALTH, health.is_some());
        mask.set(ComponentMask::TEAM, team.is_some());
        Entry {
            wide: false,
            gap: Some(gap),
            wide_gap: None,
            generation,
            mask,
            transform: None,
            velocity: None,
            health: health.map(|hp| Vitality { hp }),
            team: team.map(|team| crate::protocol::Team { team }),
        }
    };
    let snap = |sequence, lost: Vec<EntityId>, entries| Snapshot {
        sequence,
        body: SnapshotBody {
            lost: lost
                .into_iter()
                .map(|e| crate::protocol::EntityRef {
                    slot: e.slot,
                    generation: e.generation,
                })
                .collect(),
            entries,
        },
    };
    c.receive(&snap(1, vec![], vec![entry(5, 1, Some(9), Some(2))]));
    // A late "lost" for an earlier occupant of slot 5 does nothing to this one.
    let s = c.receive(&snap(2, vec![id(5, 0)], vec![]));
    assert_eq!((s.removed, s.not_ours), (0, 1));
    assert!(c.entities().contains_key(&5));
    // A new occupant: nothing of the old one (its team) carries over.
    c.receive(&snap(3, vec![], vec![entry(5, 2, Some(4), None)]));
    assert_eq!(c.entities()[&5].components[3], None);
    let s = c.receive(&snap(4, vec![id(5, 2)], vec![]));
    assert_eq!(s.removed, 1);
    assert!(c.entities().is_empty());
}

#[test]
fn hostile_snapshots_never_panic_or_grow_the_table_past_its_limit() {
    // GEN-5, NB-4, NB-17.
    let mut c = SnapshotClient::new(10);
    let wide = |g: u32| Entry {
        wide: true,
        gap: None,
        wide_gap: Some(g),
        generation: 0,
        mask: ComponentMask::empty(),
        transform: None,
        velocity: None,
        health: None,
        team: None,
    };
    let s = Snapshot {
        sequence: 1,
        body: SnapshotBody {
            lost: vec![],
            entries: vec![wide(0xff_ffff), wide(0xff_ffff)],
        },
    };
    assert!(c.receive(&s).malformed);
    assert!(c.take_acks().is_empty());
    let s = Snapshot {
        sequence: 2,
        body: SnapshotBody {
            lost: vec![],
            entries: (0..50).map(|_| wide(0)).collect(),
        },
    };
    c.receive(&s);
    assert!(c.entities().len() <= 10);
}

#[test]
fn the_state_hash_is_over_the_canonical_bytes() {
    // CHECK-9.
    let mut c = SnapshotClient::new(10);
    assert_eq!(c.state_hash(), crate::rt::fnv1a32(&[]));
    let mut scene = Scene::new();
    spawn(&mut scene, id(2, 3), None, 5);
    let mut w = SnapshotWriter::new(None, 100, 0);
    c.receive(&w.write(&scene).unwrap());
    // slot 2, generation 3, mask 0b0100, hp 5 in 7 bits.
    assert_eq!(c.canonical_bytes(), vec![2, 0, 0, 0, 3, 4, 5]);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
        /// Thousands of seeded runs: loss, duplication, reordering, slots reused, worlds
        /// replaced, stalls past the window, sequences across the wrap, hostile frames.
        #[test]
        fn every_run_keeps_the_invariants(data in proptest::collection::vec(any::<u8>(), 0..1000)) {
            if let Err(e) = harness::run(&data) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    #[test]
    fn the_runs_exercise_the_rules() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut total = harness::RunReport::default();
        let mut converged = 0;
        for _ in 0..150 {
            let data: Vec<u8> = (0..800)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng as u8
                })
                .collect();
            let r = harness::run(&data).unwrap();
            total.applied += r.applied;
            total.stale += r.stale;
            total.removed += r.removed;
            converged += u32::from(r.converged);
        }
        assert!(total.applied > 1000, "{total:?}");
        assert!(total.stale > 20, "{total:?}");
        assert!(total.removed > 20, "{total:?}");
        assert!(converged > 50, "{converged}");
    }
}
