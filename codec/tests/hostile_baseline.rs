//! Issue 13, hostile peers: a NetBaseline client that never acknowledges while the world churns.
//! NB-11 names lost entities until they are confirmed, so every entity the client was told about
//! and that died since is owed to it. These tests hold the writer to NB-14's bounded debt and to a
//! write whose cost does not grow with the entities that died before it, judged by a counting
//! allocator and by the count of entities gather_lost looks at, never by time.

#[global_allocator]
static A: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

use ackwire_codec::baseline::{BaselineLimits, ComponentValue, EntityId, Scene, SnapshotWriter};
use ackwire_codec::protocol::{SnapshotAck, Transform, Vitality, MAX_LOST_PER_SNAPSHOT};
use ackwire_codec::LimitError;
use ackwire_testkit::{is_counting, measure};

/// Entities alive at once.
const LIVE: u32 = 100;
/// Entities replaced before each snapshot.
const CHURN: u32 = 10;
/// A budget that carries a snapshot's full share of lost entities and some entries.
const BUDGET: usize = 1200;

/// The world of one churning game: `LIVE` entities, `CHURN` of them replaced by new ones (in new
/// slots) before each snapshot.
struct Churn {
    scene: Scene,
    next: u32,
}

impl Churn {
    fn new() -> Self {
        Churn {
            scene: Scene::new(),
            next: 0,
        }
    }

    fn step(&mut self) {
        for _ in 0..CHURN {
            let slot = self.next;
            self.next += 1;
            let e = EntityId {
                slot,
                generation: 1,
            };
            self.scene.spawn(e, None).unwrap();
            self.scene
                .set(slot, ComponentValue::Health(Vitality { hp: 100 }))
                .unwrap();
            self.scene
                .set(
                    slot,
                    ComponentValue::Transform(Transform {
                        x: f64::from(slot % 512),
                        y: 2.0,
                        z: 0.0,
                        yaw: 90.0,
                    }),
                )
                .unwrap();
            if slot >= LIVE {
                self.scene.despawn(slot - LIVE);
            }
        }
    }

    /// Entities that died so far.
    fn died(&self) -> u32 {
        self.next.saturating_sub(LIVE)
    }
}

/// The heap a writer keeps after `rounds` snapshots to a client that never acknowledges, with
/// how many of those writes it refused as stalled (and the last refusal).
fn never_acked(rounds: u32, limits: BaselineLimits) -> (i64, u32, Option<LimitError>) {
    let mut world = Churn::new();
    let kept = measure(|| {
        let mut writer = SnapshotWriter::new(None, BUDGET, 0).with_limits(limits);
        let mut refused = 0;
        let mut last = None;
        for _ in 0..rounds {
            world.step();
            if let Err(e) = writer.write(&world.scene) {
                refused += 1;
                last = Some(e);
            }
        }
        (writer, refused, last)
    });
    let (writer, refused, last) = kept.value;
    assert!(writer.baseline().told() <= limits.max_owed_lost + (LIVE + CHURN) as usize);
    (kept.retained_bytes, refused, last)
}

#[test]
fn a_never_acking_connection_holds_a_bounded_debt_however_many_entities_churn() {
    // NB-14.
    assert!(is_counting());
    let limits = BaselineLimits {
        max_owed_lost: 1000,
    };
    // 10,000 then 40,000 entities churned: the debt stops at the limit and the connection is
    // reported stalled, so the second run keeps no more than the first (what it keeps is mostly
    // the ACK_WINDOW + 1 snapshots held unconfirmed). Before the limit, 40,000 churned entities
    // kept 47.0 MB (about 1.2 KB each, most of it the capacity of every held snapshot's list of
    // lost entities, which held them all before being cut to 64).
    let (short, short_refused, _) = never_acked(1_000, limits);
    let (long, long_refused, last) = never_acked(4_000, limits);
    assert!(short_refused > 0 && long_refused > short_refused);
    match last {
        Some(LimitError::BaselineStalled {
            owed,
            max_owed_lost,
            ..
        }) => assert!(owed > max_owed_lost && max_owed_lost == 1000, "{owed}"),
        other => panic!("expected the connection reported stalled, got {other:?}"),
    }
    assert!(
        long <= short + 4096,
        "40,000 churned kept {long} bytes, 10,000 kept {short}"
    );
    assert!(long < 1 << 20, "a stalled connection keeps {long} bytes");
}

#[test]
fn with_the_default_limit_a_dead_entity_owed_costs_tens_of_bytes_not_a_kilobyte() {
    assert!(is_counting());
    // 40,000 churned entities are owed under the default limit (65,536), none refused.
    let (kept, refused, _) = never_acked(4_000, BaselineLimits::default());
    assert_eq!(refused, 0);
    let per_dead = kept / 40_000;
    assert!(
        per_dead <= 40,
        "{per_dead} bytes kept per dead entity ({kept} in all)"
    );
}

/// Per snapshot: what gather_lost looked at and what the write allocated, at `samples` rounds
/// of a never-acknowledged run of `rounds`.
fn cost_per_write(rounds: u32, samples: &[u32]) -> Vec<(u32, u64, u64)> {
    let mut world = Churn::new();
    let mut writer = SnapshotWriter::new(None, BUDGET, 0);
    let mut out = Vec::new();
    for round in 0..rounds {
        world.step();
        let examined = writer.baseline().examined();
        let m = measure(|| writer.write(&world.scene).map(|_| ()));
        assert!(m.value.is_ok());
        if samples.contains(&round) {
            out.push((
                world.died(),
                writer.baseline().examined() - examined,
                m.allocated_bytes,
            ));
        }
    }
    out
}

#[test]
fn a_writes_cost_does_not_grow_with_the_entities_that_died_before_it() {
    assert!(is_counting());
    // After the first ACK_WINDOW snapshots every round looks the same to the writer, except for
    // how many dead entities it is owed: 1,000 at round 110, 39,900 at round 3,999.
    let costs = cost_per_write(4_000, &[110, 1_000, 2_000, 3_999]);
    let (_, early_examined, early_bytes) = costs[0];
    for (died, examined, bytes) in &costs {
        // The live entities told about, the ones that died since the last write, and one
        // snapshot's worth of lost: the same whatever died before. Before, gather_lost looked at
        // every entity told about and not confirmed lost (1,062 with 1,010 dead, 39,952 with
        // 39,900) and a write allocated 99.5 KB, then 1.13 MB.
        assert_eq!(
            *examined, early_examined,
            "{died} dead: looked at {examined}"
        );
        assert!(
            *examined <= u64::from(LIVE + CHURN) + u64::from(MAX_LOST_PER_SNAPSHOT),
            "{examined}"
        );
        assert!(
            *bytes <= early_bytes + early_bytes / 10,
            "{died} dead: a write allocated {bytes} bytes, {early_bytes} with 1,000 dead"
        );
    }
}

#[test]
fn a_stalled_connection_whose_acknowledgements_arrive_after_all_resumes() {
    // NB-14.
    // A slow client, not a dead one: its acknowledgements, still in the window, confirm the
    // losses it was told about and bring the debt back under the limit.
    let limits = BaselineLimits {
        max_owed_lost: 2 * usize::from(MAX_LOST_PER_SNAPSHOT),
    };
    let mut world = Churn::new();
    let mut writer = SnapshotWriter::new(None, BUDGET, 0).with_limits(limits);
    let mut written = Vec::new();
    let stalled_at = loop {
        world.step();
        match writer.write(&world.scene) {
            Ok(s) => written.push(s.sequence),
            Err(e @ LimitError::BaselineStalled { sequence, .. }) => {
                assert!(
                    e.to_string().starts_with(&format!(
                        "snapshot writer, snapshot {sequence}: the connection owes"
                    )),
                    "{e}"
                );
                break sequence;
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(
        stalled_at,
        writer.next_sequence(),
        "a refused write uses no sequence"
    );
    assert!(writer.write(&world.scene).is_err(), "still owed too much");
    for sequence in written {
        writer.on_ack(&SnapshotAck { sequence });
    }
    assert!(writer.baseline().owed_lost() < limits.max_owed_lost);
    let s = writer
        .write(&world.scene)
        .expect("the debt is under the limit again");
    assert_eq!(s.sequence, stalled_at);
}
