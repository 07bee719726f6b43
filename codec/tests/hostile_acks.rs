//! Hostile acknowledgements to the servers of seeds 002 and 003 (issue 38), judged by the
//! counting allocator and by what the server sends next, never by time: an ack of a snapshot or
//! datagram from the future, an ancient one, a repeated one or garbage allocates nothing, holds
//! nothing, and leaves every later snapshot and datagram the bytes an honest twin sends; a
//! client that never acknowledges holds what the window bounds, however long it stays silent.

use ackwire_codec::baseline::{ComponentValue, EntityId, Scene, SnapshotWriter};
use ackwire_codec::datagram::{Subscription, SubscriptionConfig, TickOutput, WorldOp};
use ackwire_codec::protocol::{DatagramAck, SnapshotAck, Transform, Vitality};
use ackwire_testkit::{is_counting, measure};

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

/// A scene of 100 entities, 10 of them replaced by new ones and the rest moved each round.
struct Churn {
    scene: Scene,
    next: u32,
    round: u32,
}

impl Churn {
    const LIVE: u32 = 100;

    fn new() -> Self {
        let mut c = Churn {
            scene: Scene::new(),
            next: 0,
            round: 0,
        };
        for _ in 0..Self::LIVE {
            c.spawn();
        }
        c
    }

    fn spawn(&mut self) {
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
        if slot >= Self::LIVE {
            self.scene.despawn(slot - Self::LIVE);
        }
    }

    fn step(&mut self) {
        self.round += 1;
        for _ in 0..10 {
            self.spawn();
        }
        for slot in self.next - Self::LIVE..self.next {
            let moved = ComponentValue::Transform(Transform {
                x: f64::from((slot + self.round) % 512),
                y: 2.0,
                z: 0.0,
                yaw: 90.0,
            });
            self.scene.set(slot, moved).unwrap();
        }
    }
}

/// The forged sequences sent after the honest ack of `acked`, the newest snapshot written being
/// `newest`: from the future (never written), ancient (far outside the window of 65), and the
/// honest one again.
fn forged_sequences(acked: u16, newest: u16) -> Vec<u16> {
    let mut forged: Vec<u16> = (1..=200).map(|d| newest.wrapping_add(d)).collect();
    forged.extend((1_000..1_200).map(|d| newest.wrapping_sub(d)));
    forged.extend([acked; 50]);
    forged
}

/// A writer acknowledged honestly two snapshots late, and its twin that also takes 450 forged
/// acknowledgements a snapshot: the twin writes the same snapshots, its forged acks allocate
/// nothing, and it holds no more than the honest one.
#[test]
fn forged_snapshot_acks_change_nothing_and_allocate_nothing() {
    assert!(is_counting(), "the counting allocator is not installed");
    let mut world = Churn::new();
    let mut honest = SnapshotWriter::new(None, 1200, 0);
    let mut hostile = SnapshotWriter::new(None, 1200, 0);
    let mut written = Vec::new();
    let mut forged_allocations = 0;
    for _ in 0..300 {
        world.step();
        let a = honest.write(&world.scene).unwrap();
        let b = hostile.write(&world.scene).unwrap();
        assert_eq!(a, b, "snapshot {}", a.sequence);
        written.push(a.sequence);
        if written.len() > 2 {
            let sequence = written[written.len() - 3];
            let ack = SnapshotAck { sequence };
            honest.on_ack(&ack);
            hostile.on_ack(&ack);
            let forged = forged_sequences(sequence, a.sequence);
            let m = measure(|| {
                for &sequence in &forged {
                    hostile.on_ack(&SnapshotAck { sequence });
                }
            });
            forged_allocations += m.allocations;
        }
    }
    assert_eq!(forged_allocations, 0);
    assert_eq!(
        hostile.baseline().owed_lost(),
        honest.baseline().owed_lost()
    );
    let held = |w: SnapshotWriter| measure(move || w).retained_bytes;
    let (honest_held, hostile_held) = (held(honest.clone()), held(hostile.clone()));
    assert!(
        hostile_held <= honest_held,
        "{hostile_held} bytes held, {honest_held} by the honest twin"
    );
}

/// A world of 200 entities for a subscription: each tick, 50 move, 10 change a component and
/// 4 are replaced by new ids (one of them losing a component first).
fn ops(tick: u64) -> Vec<WorldOp> {
    let mut ops = Vec::new();
    if tick == 1 {
        for id in 0..200 {
            ops.push(WorldOp::Spawn {
                id,
                position: [id as f64, 0.0, 0.0],
                components: vec![(1, vec![1, 2, 3]), (2, vec![4])],
            });
        }
        return ops;
    }
    // Ids 4 * (tick - 2) .. 4 * (tick - 1) give way to 200 + the same.
    let gone = 4 * (tick - 2)..4 * (tick - 1);
    let live = 4 * (tick - 1)..4 * (tick - 1) + 200 - 4;
    for id in live.clone().step_by(4).take(50) {
        ops.push(WorldOp::Move {
            id,
            position: [id as f64, tick as f64 * 0.5, 0.0],
        });
    }
    for id in live.clone().skip(1).step_by(19).take(10) {
        ops.push(WorldOp::SetComponent {
            id,
            r#type: 1,
            data: vec![tick as u8; 3],
        });
    }
    ops.push(WorldOp::RemoveComponent {
        id: live.start,
        r#type: 2,
    });
    for id in gone {
        ops.push(WorldOp::Despawn { id });
        ops.push(WorldOp::Spawn {
            id: id + 200,
            position: [0.0, 0.0, 1.0],
            components: vec![(1, vec![9])],
        });
    }
    ops
}

fn config() -> SubscriptionConfig {
    SubscriptionConfig {
        precision: 0.01,
        max_datagram: 1200,
        sent_window: 256,
    }
}

/// Acks the client might forge after the newest tick, whose output was `out`, the stream tick being
/// `stream`: datagrams never sent, ancient ones outside the window, the zeroth and the last,
/// a stream tick from the future on a real datagram.
fn forged_acks(out: &TickOutput, stream: u64) -> Vec<DatagramAck> {
    let newest = out.datagrams.last().map_or(0, |d| d.frame);
    let mut acks: Vec<DatagramAck> = (1..100)
        .map(|d| DatagramAck {
            frame: newest + d,
            stream_tick: stream,
        })
        .collect();
    acks.extend((1..100).map(|d| DatagramAck {
        frame: newest.saturating_sub(1_000 + d),
        stream_tick: stream,
    }));
    for frame in [0, u64::MAX] {
        acks.push(DatagramAck {
            frame,
            stream_tick: u64::MAX,
        });
    }
    acks.push(DatagramAck {
        frame: newest,
        stream_tick: stream + 1,
    });
    acks
}

/// A subscription whose client acknowledges each datagram a tick late, and its twin that also
/// takes forged acks and every honest ack 20 times: the twin sends the same datagrams, the
/// forged acks allocate nothing and touch no entity, and a repeated ack looks at no more
/// entities than its datagram carried.
#[test]
fn forged_and_repeated_datagram_acks_change_nothing_and_allocate_nothing() {
    assert!(is_counting(), "the counting allocator is not installed");
    let mut honest = Subscription::new(config());
    let mut hostile = Subscription::new(config());
    let mut last: Option<TickOutput> = None;
    let (mut forged_allocations, mut repeat_allocations) = (0, 0);
    for tick in 1..=400 {
        let ops = ops(tick);
        let a = honest.tick(tick, tick, &ops).unwrap();
        let b = hostile.tick(tick, tick, &ops).unwrap();
        assert_eq!(a, b, "tick {tick}");
        let forged = forged_acks(&b, hostile.stream_tick());
        if let Some(prev) = last.replace(a) {
            for d in &prev.datagrams {
                let ack = DatagramAck {
                    frame: d.frame,
                    stream_tick: d.stream_tick,
                };
                let summary = honest.on_ack(&ack);
                assert!(summary.known);
                let carried = d.updates.len() as u32;
                let repeats = measure(|| {
                    (0..20)
                        .map(|_| hostile.on_ack(&ack))
                        .map(|s| s.covered + s.not_covered)
                        .max()
                        .unwrap_or(0)
                });
                // The operation count: entities an ack looks at, at most those it carried.
                assert!(repeats.value <= carried, "{} > {carried}", repeats.value);
                repeat_allocations += repeats.allocations;
            }
            let m = measure(|| {
                forged
                    .iter()
                    .map(|ack| hostile.on_ack(ack))
                    .filter(|s| s.known || s.covered + s.not_covered > 0)
                    .count()
            });
            assert_eq!(m.value, 0, "a forged ack was taken at tick {tick}");
            forged_allocations += m.allocations;
        }
    }
    assert_eq!((forged_allocations, repeat_allocations), (0, 0));
    assert_eq!(hostile.world(), honest.world());
    assert!(hostile.remembered() <= config().sent_window as usize);
}

/// A client that never acknowledges holds the window of datagrams remembered and the world's
/// entities, and no more however long it stays silent: the same bytes after 400 ticks as after
/// 1,600 (the window of 256 datagrams is full by tick 256 of this world).
#[test]
fn a_never_acking_subscriber_holds_its_window_and_no_more() {
    assert!(is_counting(), "the counting allocator is not installed");
    let silent = |ticks: u64| {
        measure(|| {
            let mut s = Subscription::new(config());
            for tick in 1..=ticks {
                s.tick(tick, tick, &ops(tick)).unwrap();
            }
            s
        })
    };
    let (short, long) = (silent(400), silent(1_600));
    assert!(long.value.remembered() <= config().sent_window as usize);
    assert_eq!(long.value.world().len(), 200);
    let (a, b) = (short.retained_bytes, long.retained_bytes);
    eprintln!(
        "a never-acking subscriber of 200 entities: {a} bytes held at 400 ticks, {b} at 1,600"
    );
    assert!(b <= a + a / 20, "{a} bytes held at 400 ticks, {b} at 1,600");
}
