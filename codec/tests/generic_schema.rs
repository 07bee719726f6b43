//! The datagram v2, NetBaseline and delta machines are generic over a schema: driven here over a
//! tiny protocol declared in `tests/schemas/tiny.wire` (other kinds, other layouts, its own two
//! components), compiled by the codec's build script with its schemas' bindings, with bytes on
//! the wire between the halves.
//! The reference protocol is one schema among others, not what the machines are written against.

use ackwire_codec::baseline::{BaselineSchema, EntityId, Scene, SnapshotClient, SnapshotWriter};
use ackwire_codec::datagram::{
    split_tick, BuildError, DatagramBuilder, DatagramHeader, DatagramSchema, ReplicaLimits,
    ReplicaTable, StreamFrame, Subscription, SubscriptionConfig, UpdateFrame, WorldOp,
};
use ackwire_codec::delta::{DeltaBaseline, DeltaMirror, DeltaPlan, PlanFrame};
use ackwire_codec::session::{
    DatagramClient, DatagramServer, DatagramTick, DeltaClient, DeltaServer, Now, SessionError,
    SessionHalf,
};
use ackwire_codec::Frame;
use std::collections::BTreeSet;

#[allow(missing_docs, dead_code, clippy::all)]
mod tiny {
    include!(concat!(env!("OUT_DIR"), "/tiny.rs"));
}

use tiny::*;

// The schemas `Tiny` (datagram v2), `TinyBaseline` (its components `TinyBaselineValue`) and
// `TinyDelta` are generated from the `schema` declarations of tiny.wire, as the reference
// protocol's are from spec/protocol.

/// What the generated bindings count the tiny frames at is what their layout gives: the
/// datagram header at `max_offset(TinyDatagram.updates)`, a snapshot's kind and sequence, its
/// 5- and 12-bit counts, an entry's 24-bit gap, generation and 2-bit mask, and the constants
/// the schema names.
#[test]
fn the_generated_tiny_schemas_count_what_the_layout_gives() {
    assert_eq!(Tiny::MAX_HEADER_LEN, TINY_MAX_HEADER_LEN as usize);
    assert_eq!(
        (
            TinyBaseline::HEADER_BYTES,
            TinyBaseline::COUNT_BITS,
            TinyBaseline::ENTRY_HEAD_BITS,
            TinyBaseline::LOST_BITS
        ),
        (3, 5 + 12, 24 + 8 + 2, 24 + 8)
    );
    assert_eq!(
        (
            TinyBaseline::ACK_WINDOW,
            TinyBaseline::MAX_LOST_PER_SNAPSHOT
        ),
        (8, 31)
    );
    let health = TinyBaselineValue::Health(Health { hp: 1023 });
    let spot = TinyBaselineValue::Spot(Spot { col: 63, row: 1 });
    assert_eq!(
        (TinyBaseline::index(&health), TinyBaseline::index(&spot)),
        (0, 1)
    );
    assert_eq!(
        (TinyBaseline::bit_len(&health), TinyBaseline::bit_len(&spot)),
        (10, 12)
    );
    // Bits least significant first: hp 1023 is ten ones, padded to two bytes.
    assert_eq!(TinyBaseline::bits(&health).unwrap(), [0xff, 0x03]);
}

/// A frame through its bytes, as the other side reads it.
fn wire<F: Frame>(frame: &F) -> F {
    F::decode(&frame.to_bytes().unwrap()).unwrap()
}

// ---- Datagram v2.

fn header() -> DatagramHeader {
    DatagramHeader {
        frame: 1,
        tick: 1,
        input_ack: 0,
        stream_tick: 0,
        precision: 0.01,
        parts: 1,
    }
}

#[test]
fn the_builder_counts_the_tiny_header_and_splits_under_its_limit() {
    // DG-3: ids ascend, whatever the schema.
    let mut b = DatagramBuilder::with_schema(Tiny, header(), 1200);
    assert_eq!(b.len(), TINY_MAX_HEADER_LEN as usize);
    let update = |id| <TinyUpdate as UpdateFrame>::new(id, 1, [Some(5), None, None], None);
    b.push(update(4)).unwrap();
    assert!(matches!(
        b.push(update(4)),
        Err(BuildError::NotAscending { id: 4, previous: 4 })
    ));
    let bytes = b.finish().to_bytes().unwrap();
    // The tiny datagram's kind, not the reference's version byte.
    assert_eq!(bytes[0], 40);
    assert_eq!(
        TinyDatagram::decode(&bytes).unwrap().updates,
        vec![update(4)]
    );

    // DG-11, DG-13: parts under the limit, each naming the count, the header counted at its
    // longest.
    let updates: Vec<TinyUpdate> = (1..=100)
        .map(|id| {
            <TinyUpdate as UpdateFrame>::new(id, 1, [Some(id as i64 * 1000), None, None], None)
        })
        .collect();
    let parts = split_tick(Tiny, header(), updates.clone(), 120).unwrap();
    assert!(parts.len() > 3);
    let mut all = Vec::new();
    for (i, d) in parts.iter().enumerate() {
        assert_eq!((d.frame, d.parts as usize), (1 + i as u64, parts.len()));
        assert!(d.to_bytes().unwrap().len() <= 120);
        all.extend(wire(d).updates);
    }
    assert_eq!(all, updates);
}

/// One tick's operations of a scripted world: spawns, moves, component changes and removals,
/// despawns, a full frame.
fn script(tick: u64) -> Vec<WorldOp> {
    let id = tick % 7;
    let mut ops = Vec::new();
    match tick {
        1 => {
            for id in 0..7 {
                ops.push(WorldOp::Spawn {
                    id,
                    position: [id as f64, 0.5, -1.0],
                    components: vec![(1, vec![id as u8; 3]), (9, vec![])],
                });
            }
        }
        20 => ops.push(WorldOp::FullFrame),
        t if t % 11 == 0 => {
            ops.push(WorldOp::Despawn { id });
            ops.push(WorldOp::Spawn {
                id: 100 + t,
                position: [0.0; 3],
                components: vec![(2, vec![1, 2])],
            });
        }
        _ => {}
    }
    ops
}

/// Runs the scripted world through a subscription and a replica table of schema `S`, every
/// frame through its bytes, losing every third datagram until tick 30: the client's table, as
/// its state hash sees it, at the end.
fn run_datagram<S: DatagramSchema>(schema: S) -> (ReplicaTable<S>, u32) {
    let mut server = Subscription::with_schema(schema, SubscriptionConfig::default());
    let mut client = ReplicaTable::with_schema(schema, ReplicaLimits::default());
    let mut live: BTreeSet<u64> = BTreeSet::new();
    let mut sent = 0u32;
    for tick in 1..=40 {
        let mut ops = script(tick);
        for op in &ops {
            match op {
                WorldOp::Spawn { id, .. } => {
                    live.insert(*id);
                }
                WorldOp::Despawn { id } => {
                    live.remove(id);
                }
                _ => {}
            }
        }
        // Every live entity moves, and one changes or loses a component.
        for id in &live {
            ops.push(WorldOp::Move {
                id: *id,
                position: [tick as f64 * 0.25, *id as f64, 1.0],
            });
        }
        if let Some(id) = live.iter().nth(tick as usize % live.len().max(1)) {
            ops.push(if tick % 4 == 0 {
                WorldOp::RemoveComponent { id: *id, r#type: 1 }
            } else {
                WorldOp::SetComponent {
                    id: *id,
                    r#type: 1,
                    data: vec![tick as u8],
                }
            });
        }
        let out = server.tick(tick, tick, &ops).unwrap();
        for frame in &out.stream {
            let bytes = frame.to_bytes().unwrap();
            let back = StreamFrame::<S>::decode(frame.name(), &bytes)
                .unwrap()
                .unwrap();
            assert_eq!(&back, frame);
            client.apply_stream(&back);
        }
        for d in &out.datagrams {
            sent += 1;
            if tick < 30 && sent.is_multiple_of(3) {
                continue;
            }
            client.receive(wire(d));
        }
        for ack in client.take_acks() {
            server.on_ack(&wire(&ack));
        }
    }
    // The network healed ten ticks ago: the client holds the world as the server says.
    let world = server.world();
    assert_eq!(client.entities().len(), world.len());
    for (id, (spawn_tick, position, components)) in &world {
        let replica = &client.entities()[id];
        assert_eq!(
            (replica.spawn_tick, replica.position, &replica.components),
            (*spawn_tick, *position, components),
            "entity {id}"
        );
    }
    let hash = client.state_hash();
    (client, hash)
}

#[test]
fn a_subscription_and_a_replica_table_converge_over_the_tiny_protocol() {
    let (tiny, tiny_hash) = run_datagram(Tiny);
    assert!(tiny.entities().len() >= 7);
    // The machines' state does not depend on the wire: the reference protocol, run through the
    // same world and losses, leaves the client holding the same table.
    let (_, reference_hash) = run_datagram(ackwire_codec::datagram::ReferenceDatagram);
    assert_eq!(tiny_hash, reference_hash);
}

// ---- NetBaseline.

#[test]
fn netbaseline_round_trips_the_tiny_components() {
    let mut scene = Scene::with_schema(TinyBaseline);
    // A budget that holds a few entries, so the world goes over several snapshots.
    let mut writer = SnapshotWriter::with_schema(TinyBaseline, None, 32, 65_530);
    let mut client = SnapshotClient::with_schema(TinyBaseline, 64);
    for slot in 0..12u32 {
        scene
            .spawn(
                EntityId {
                    slot,
                    generation: 1,
                },
                None,
            )
            .unwrap();
        scene
            .set(
                slot,
                TinyBaselineValue::Health(Health {
                    hp: 100 + slot as u16,
                }),
            )
            .unwrap();
        if slot % 2 == 0 {
            scene
                .set(
                    slot,
                    TinyBaselineValue::Spot(Spot {
                        col: slot as u8,
                        row: 63,
                    }),
                )
                .unwrap();
        }
    }
    // A value out of the declared range does not encode, whatever the schema.
    assert!(scene
        .set(0, TinyBaselineValue::Health(Health { hp: 1024 }))
        .is_err());

    let round = |scene: &Scene<TinyBaseline>,
                 writer: &mut SnapshotWriter<TinyBaseline>,
                 client: &mut SnapshotClient<TinyBaseline>| {
        let snapshot = writer.write(scene).unwrap();
        let bytes = snapshot.to_bytes().unwrap();
        assert!(bytes.len() <= 32, "over the budget: {} bytes", bytes.len());
        assert_eq!(bytes[0], 45);
        let summary = client.receive(&TinySnapshot::decode(&bytes).unwrap());
        assert!(summary.applied);
        for ack in client.take_acks() {
            writer.on_ack(&TinySnapshotAck::decode(&ack.to_bytes().unwrap()).unwrap());
        }
        snapshot
    };
    let same = |scene: &Scene<TinyBaseline>, client: &SnapshotClient<TinyBaseline>| {
        scene.len() == client.entities().len()
            && scene.iter().all(|(id, e)| {
                client.entities().get(&id.slot).is_some_and(|c| {
                    c.generation == id.generation
                        && c.components
                            .iter()
                            .zip(e.components.iter())
                            .all(|(c, e)| c.as_ref() == e.as_ref().map(|(v, _)| v))
                })
            })
    };
    let mut rounds = 0;
    while !same(&scene, &client) {
        round(&scene, &mut writer, &mut client);
        rounds += 1;
        assert!(rounds < 20, "the client never caught up");
    }
    assert!(rounds > 1, "the budget should have split the world");
    // NB-7: once confirmed, an unchanged component is not sent again.
    assert!(round(&scene, &mut writer, &mut client)
        .body
        .entries
        .is_empty());

    // A change goes alone; a slot reused by a new generation replaces the old occupant whole,
    // and the dead one is named lost (NB-3, NB-11).
    scene
        .set(3, TinyBaselineValue::Health(Health { hp: 7 }))
        .unwrap();
    scene.despawn(5);
    scene
        .spawn(
            EntityId {
                slot: 5,
                generation: 2,
            },
            None,
        )
        .unwrap();
    scene
        .set(5, TinyBaselineValue::Spot(Spot { col: 1, row: 2 }))
        .unwrap();
    scene.despawn(8);
    let s = round(&scene, &mut writer, &mut client);
    let lost: Vec<u32> = s.body.lost.iter().map(|r| r.slot).collect();
    assert_eq!(lost, vec![5, 8]);
    assert!(same(&scene, &client));
    assert_eq!(
        client.entities()[&5].components,
        [None, Some(TinyBaselineValue::Spot(Spot { col: 1, row: 2 }))]
    );
}

// ---- Delta.

#[test]
fn a_delta_mirror_follows_a_baseline_over_the_tiny_frames() {
    let mut server = DeltaBaseline::new(64);
    let mut mirror = DeltaMirror::<(), TinyDelta>::with_schema(TinyDelta);
    let mut set: BTreeSet<u64> = BTreeSet::new();
    for seq in 1..=30u64 {
        set.insert((seq * 3) << 16);
        if seq % 4 == 0 {
            set.remove(&(((seq - 2) * 3) << 16));
        }
        let plan = server.plan(&set, seq);
        let frame = <TinyPlan as PlanFrame>::new(&plan, seq);
        let bytes = frame.to_bytes().unwrap();
        assert_eq!(bytes[0], 47);
        assert_eq!(
            DeltaPlan::from_frame(&TinyPlan::decode(&bytes).unwrap()),
            plan
        );
        // Every fifth plan is lost until the last few; the acknowledged baseline brings its
        // content again.
        if seq % 5 == 0 && seq < 28 {
            continue;
        }
        mirror.apply(&TinyPlan::decode(&bytes).unwrap()).unwrap();
        let ack = TinyDeltaAck::decode(&mirror.ack().unwrap().to_bytes().unwrap()).unwrap();
        server.observe_ack(ack.newest, ack.mask, ack.digest);
    }
    let held: BTreeSet<u64> = mirror.keys().map(|k| k.encode()).collect();
    assert_eq!(held, set);
}

// ---- The session halves.

/// Hands every frame `from` has to send to `to`, by name, as a socket would; returns the names.
fn pass<A: SessionHalf, B: SessionHalf>(from: &mut A, to: &mut B, now: Now) -> Vec<&'static str> {
    let mut names = Vec::new();
    while let Some(t) = from.poll_transmit() {
        names.push(t.frame);
        to.handle_frame(now, t.frame, &t.bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", t.frame));
    }
    names
}

#[test]
fn the_datagram_and_delta_session_halves_speak_the_tiny_frames() {
    // Datagram v2: the world's script, every frame by name and bytes between the halves.
    let mut server = DatagramServer::new(Subscription::with_schema(
        Tiny,
        SubscriptionConfig::default(),
    ));
    let mut client = DatagramClient::new(ReplicaTable::with_schema(Tiny, ReplicaLimits::default()));
    let mut names = BTreeSet::new();
    for tick in 1..=25 {
        let now = Now::new(tick, tick * 16);
        let ops = script(tick);
        server
            .handle_tick(
                now,
                DatagramTick {
                    input_ack: tick,
                    ops: &ops,
                },
            )
            .unwrap();
        names.extend(pass(&mut server, &mut client, now));
        names.extend(pass(&mut client, &mut server, now));
    }
    let want = [
        TinyDatagram::NAME,
        TinyDatagramAck::NAME,
        TinyDespawn::NAME,
        TinyFull::NAME,
        TinySpawn::NAME,
    ];
    assert_eq!(names, want.into_iter().collect());
    assert_eq!(
        client.machine().entities().len(),
        server.machine().world().len()
    );
    // A frame of another protocol is not taken.
    assert!(matches!(
        client.handle_frame(Now::new(26, 0), "datagram", &[]),
        Err(SessionError::UnexpectedFrame(_))
    ));

    // Delta streaming: a plan every tick the baseline allows, its acks back.
    let mut server = DeltaServer::with_schema(TinyDelta, DeltaBaseline::new(64));
    let mut client = DeltaClient::<TinyDelta>::default();
    let mut visible = BTreeSet::new();
    let mut names = BTreeSet::new();
    for tick in 1..=20u64 {
        visible.insert((tick * 5) << 16);
        let now = Now::new(tick, tick * 50);
        server.handle_tick(now, &visible).unwrap();
        names.extend(pass(&mut server, &mut client, now));
        names.extend(pass(&mut client, &mut server, now));
    }
    assert_eq!(
        names,
        [TinyPlan::NAME, TinyDeltaAck::NAME].into_iter().collect()
    );
    let held: BTreeSet<u64> = client.machine().keys().map(|k| k.encode()).collect();
    assert_eq!(held, visible);
}
