//! The generated kind 13 frame (`AckedCoded`, acked.wire) held to `docs/spec/coded.md`, rule by
//! rule, through what it codes: the training counts (`count`) walk exactly the bits `write`
//! codes, slot by slot, so which model's slots a frame touches, and with which bits, shows
//! which values were coded under which model and what was predicted.

use ackwire_codec::protocol::{
    AckedCoded, AckedFlags, EntityState, Orientation, PackedChange, PackedChanges, PackedHealth,
    PackedMask, PackedPoseStep, StateFlags,
};
use ackwire_codec::rt::coded::{model_slots, CodedBasis, CodedBasisTicks, NoBasis, SlotCounts};
use ackwire_codec::rt::{BitSet, Reader, SmallestThree};
use ackwire_codec::ErrorKind;
use std::collections::BTreeMap;

/// Records of the base and the older snapshot, by id.
#[derive(Default)]
struct Basis {
    base: BTreeMap<u16, EntityState>,
    older: BTreeMap<u16, EntityState>,
}

impl CodedBasis<EntityState> for Basis {
    fn base(&self, eid: u16) -> Option<EntityState> {
        self.base.get(&eid).copied()
    }

    fn older(&self, eid: u16) -> Option<EntityState> {
        self.older.get(&eid).copied()
    }
}

fn state(x: i32, q: Option<SmallestThree>) -> EntityState {
    EntityState {
        x,
        y: 0,
        z: 0,
        yaw: 0,
        flags: StateFlags::from_bits(if q.is_some() { 2 } else { 0 }),
        measured: 0,
        hp: 0,
        armor: 0,
        vehicle: 0,
        seat: 0,
        orient: q.map(|q| Orientation { q }),
    }
}

fn change(eid: u32, mask: PackedMask) -> PackedChange {
    PackedChange {
        eid,
        mask,
        age: None,
        pose_full: None,
        pose_step: None,
        health: None,
        vehicle: None,
        orient: None,
    }
}

fn frame(older: u8, changes: Vec<PackedChange>) -> AckedCoded {
    AckedCoded {
        tick: 20,
        base_tick: 18,
        last_seq: 0,
        input_buffer: 0,
        flags: AckedFlags::empty(),
        check: None,
        removed: vec![],
        older,
        body: PackedChanges { changes },
        first_serial: None,
        events: vec![],
    }
}

/// The 0s and 1s counted under model `name`'s slots.
fn coded(counts: &SlotCounts, name: &str) -> [u64; 2] {
    let mut at = 0;
    for &(n, w) in AckedCoded::MODELS {
        if n == name {
            return counts.counts()[at..at + model_slots(w)]
                .iter()
                .fold([0, 0], |s, c| [s[0] + c[0], s[1] + c[1]]);
        }
        at += model_slots(w);
    }
    panic!("no model {name}")
}

fn counts(f: &AckedCoded, basis: &(impl CodedBasis<EntityState> + ?Sized)) -> SlotCounts {
    let mut c = SlotCounts::new(AckedCoded::SLOTS);
    f.count(&mut c, basis).unwrap();
    c
}

/// CODE-15, CODE-16: one model a value, in the change's order, their slots one after another
/// (CODE-8), every slot starting where `spec/protocol/acked_coded.tables` says (trained: not
/// every slot at 2048).
#[test]
fn the_models_are_the_changes_values_in_order() {
    let names: Vec<&str> = AckedCoded::MODELS.iter().map(|m| m.0).collect();
    assert_eq!(&names[..3], ["eid", "mask", "age"]);
    assert!(names.windows(2).all(|w| w[0] != w[1]));
    let slots: usize = AckedCoded::MODELS.iter().map(|m| model_slots(m.1)).sum();
    assert_eq!(slots, AckedCoded::SLOTS);
    assert!(AckedCoded::TABLES.iter().any(|p| p.get() != 2048));
    let file = include_str!("../../spec/protocol/acked_coded.tables");
    let listed: Vec<u16> = file
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.split_once(':').map_or("", |(_, p)| p).split_whitespace())
        .map(|p| p.parse().unwrap())
        .collect();
    let tables: Vec<u16> = AckedCoded::TABLES.iter().map(|p| p.get()).collect();
    assert_eq!(tables, listed);
}

/// CODE-6, CODE-10, CODE-11, CODE-12: a change codes its id's gap, its mask as one value, and
/// the values of the groups its mask selects, each under its own model and no other; CODE-17:
/// `count` walks the values `write` codes.
#[test]
fn each_value_codes_under_its_own_model() {
    let mut health = change(7, PackedMask::empty().with(PackedMask::HEALTH));
    health.health = Some(PackedHealth { hp: 200, armor: 0 });
    let f = frame(0, vec![change(3, PackedMask::empty()), health]);
    let c = counts(&f, &NoBasis);
    for touched in ["eid", "mask", "health.hp", "health.armor"] {
        assert!(
            coded(&c, touched)[0] + coded(&c, touched)[1] > 0,
            "{touched}"
        );
    }
    for (name, _) in AckedCoded::MODELS {
        if !["eid", "mask", "health.hp", "health.armor"].contains(name) {
            assert_eq!(coded(&c, name), [0, 0], "{name}");
        }
    }
    // armor 0 is a bit length of 0 alone: only 0s, in the length tree.
    assert_eq!(coded(&c, "health.armor")[1], 0);
    // hp 200: length 8 and the 7 bits below its highest one.
    assert!(coded(&c, "health.hp")[1] > 0);
    let mut bytes = Vec::new();
    f.write(&mut bytes, &NoBasis).unwrap();
    assert_eq!(bytes[0], 13, "CODE-1: kind 13");
    let back = AckedCoded::read(&mut Reader::new(&bytes), &NoBasis).unwrap();
    assert_eq!(back, f);
}

/// CODE-9: a frame's models start from the tables and adapt within it alone: a frame coded
/// after another is coded as it is alone.
#[test]
fn frames_adapt_alone() {
    let mut a = change(1, PackedMask::empty().with(PackedMask::HEALTH));
    a.health = Some(PackedHealth { hp: 9, armor: 9 });
    let mut b = a.clone();
    b.health = Some(PackedHealth { hp: 250, armor: 3 });
    let (f, g) = (frame(0, vec![a]), frame(0, vec![b]));
    let (mut one, mut two) = (Vec::new(), Vec::new());
    f.write(&mut one, &NoBasis).unwrap();
    g.write(&mut two, &NoBasis).unwrap();
    f.write(&mut two, &NoBasis).unwrap();
    assert_eq!(&two[two.len() - one.len()..], &one[..]);
}

/// CODE-2, CODE-3: the prefix names the basis (`read_basis`) before anything is decoded, and a
/// keyframe's `older` is 0.
#[test]
fn the_prefix_names_the_basis() {
    let f = frame(5, vec![change(2, PackedMask::empty())]);
    let mut bytes = Vec::new();
    f.write(&mut bytes, &NoBasis).unwrap();
    let ticks = AckedCoded::read_basis(&bytes).unwrap();
    assert_eq!(
        ticks,
        CodedBasisTicks {
            tick: 20,
            base_tick: 18,
            keyframe: false,
            older: 5
        }
    );
    // Cut right after `older`: the basis is known, the frame is not.
    assert!(AckedCoded::read_basis(&bytes[..18]).is_ok());
    let mut key = f.clone();
    key.flags = AckedFlags::empty().with(AckedFlags::KEYFRAME);
    let e = key.write(&mut Vec::new(), &NoBasis).unwrap_err();
    assert_eq!(e.path.to_string(), "older");
    key.older = 0;
    key.write(&mut Vec::new(), &NoBasis).unwrap();
}

/// CODE-13: a step the motion from the older snapshot to the base predicts exactly codes a
/// difference of 0 (only 0s under its model); without the older snapshot it codes the step.
#[test]
fn a_predicted_step_codes_its_difference() {
    // Moving 20 steps a tick: 200 steps in the 10 ticks from the older snapshot (tick 8) to
    // the base (18), and the frame, 2 ticks on, 40 steps past the base.
    let mut basis = Basis::default();
    basis.base.insert(4, state(1000, None));
    basis.older.insert(4, state(800, None));
    let mut c = change(4, PackedMask::empty().with(PackedMask::POSE));
    c.pose_step = Some(Box::new(PackedPoseStep {
        dx: 40,
        dy: 0,
        dz: 0,
        yaw: 0,
    }));
    let f = frame(10, vec![c]);
    let counted = counts(&f, &basis);
    assert!(coded(&counted, "pose_step.dx")[0] > 0);
    assert_eq!(coded(&counted, "pose_step.dx")[1], 0, "a difference of 0");
    let unpredicted = counts(&f, &NoBasis);
    assert!(coded(&unpredicted, "pose_step.dx")[1] > 0);
    let mut bytes = Vec::new();
    f.write(&mut bytes, &basis).unwrap();
    assert_eq!(
        AckedCoded::read(&mut Reader::new(&bytes), &basis).unwrap(),
        f
    );
}

/// CODE-14: an orientation whose largest component is the base's codes `same` and the three
/// differences; one whose largest is another, `same` then the whole quaternion; one the base
/// does not hold, the whole quaternion alone. A difference that leaves the component's
/// range is refused.
#[test]
fn an_orientation_codes_against_the_base() {
    let q = SmallestThree::from_xyzw([0.1, 0.2, 0.3, 0.9], 9);
    let other = SmallestThree::from_xyzw([0.9, 0.2, 0.3, 0.1], 9);
    let mut basis = Basis::default();
    basis.base.insert(1, state(0, Some(q)));
    basis.base.insert(2, state(0, Some(q)));
    let oriented = |eid, q| {
        let mut c = change(eid, PackedMask::empty().with(PackedMask::ORIENT));
        c.orient = Some(Orientation { q });
        c
    };
    let same = counts(&frame(0, vec![oriented(1, q)]), &basis);
    assert!(coded(&same, "orient.q.same")[1] > 0, "same: 1");
    for d in ["orient.q.d0", "orient.q.d1", "orient.q.d2"] {
        assert_eq!(coded(&same, d)[1], 0, "{d}: a difference of 0");
    }
    assert_eq!(coded(&same, "orient.q.largest"), [0, 0]);
    let moved = counts(&frame(0, vec![oriented(2, other)]), &basis);
    assert_eq!(coded(&moved, "orient.q.same")[1], 0, "same: 0");
    assert!(coded(&moved, "orient.q.largest")[0] > 0);
    let fresh = counts(&frame(0, vec![oriented(3, q)]), &basis);
    assert_eq!(coded(&fresh, "orient.q.same"), [0, 0]);
    assert!(coded(&fresh, "orient.q.c0")[0] + coded(&fresh, "orient.q.c0")[1] > 0);
    // Written against a base whose components sit at the range's end, read against one at the
    // other end: the sum leaves `quat(9)`'s components.
    let edge = SmallestThree {
        largest: 3,
        rest: [-200, 0, 0],
    };
    let far = SmallestThree {
        largest: 3,
        rest: [200, 0, 0],
    };
    assert!(edge.check(9).is_ok() && far.check(9).is_ok());
    let mut low = Basis::default();
    low.base.insert(1, state(0, Some(edge)));
    let mut high = Basis::default();
    high.base.insert(1, state(0, Some(far)));
    let f = frame(0, vec![oriented(1, far)]);
    let mut bytes = Vec::new();
    f.write(&mut bytes, &low).unwrap();
    let e = AckedCoded::read(&mut Reader::new(&bytes), &high).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OverWidth);
    assert_eq!(e.path.to_string(), "body.changes[0].orient.q");
}
