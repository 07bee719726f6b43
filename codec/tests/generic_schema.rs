//! The datagram v2, NetBaseline and delta machines are generic over a schema: driven here over a
//! tiny protocol declared in `tests/schemas/tiny.wire` (other kinds, other layouts, its own two
//! components), compiled by the codec's build script, with bytes on the wire between the halves.
//! The reference protocol is one schema among others, not what the machines are written against.

use ackwire_codec::baseline::{
    BaselineSchema, EntityId, Scene, SnapshotClient, SnapshotWriter, WireEntry,
};
use ackwire_codec::datagram::{
    split_tick, BuildError, ComponentChange, DatagramAckFrame, DatagramBuilder, DatagramFrame,
    DatagramHeader, DatagramSchema, DespawnFrame, FullEntityFrame, FullFrameFrame, ReplicaLimits,
    ReplicaTable, SpawnFrame, StreamFrame, Subscription, SubscriptionConfig, UpdateFrame, WorldOp,
};
use ackwire_codec::delta::{
    DeltaAckFrame, DeltaBaseline, DeltaMirror, DeltaPlan, DeltaSchema, PlanFrame,
};
use ackwire_codec::session::{
    DatagramClient, DatagramServer, DatagramTick, DeltaClient, DeltaServer, Now, SessionError,
    SessionHalf,
};
use ackwire_codec::{BitSet, EncodeError, Frame};
use std::collections::BTreeSet;

#[allow(missing_docs, dead_code, clippy::all)]
mod tiny {
    include!(concat!(env!("OUT_DIR"), "/tiny.rs"));
}

use tiny::*;

// ---- The tiny protocol as a datagram schema.

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Tiny;

impl DatagramSchema for Tiny {
    type Component = TinyComponent;
    type Update = TinyUpdate;
    type Datagram = TinyDatagram;
    type Spawn = TinySpawn;
    type Despawn = TinyDespawn;
    type FullEntity = TinyEntity;
    type FullFrame = TinyFull;
    type Ack = TinyDatagramAck;
    const MAX_HEADER_LEN: usize = TINY_MAX_HEADER_LEN as usize;
}

impl ComponentChange for TinyComponent {
    fn new(component_type: u8, data: Option<Vec<u8>>) -> Self {
        TinyComponent {
            r#type: component_type,
            data,
        }
    }
    fn component_type(&self) -> u8 {
        self.r#type
    }
    fn data(&self) -> Option<&[u8]> {
        self.data.as_deref()
    }
}

impl UpdateFrame for TinyUpdate {
    type Component = TinyComponent;
    fn new(
        id: u64,
        spawn_tag: u16,
        axes: [Option<i64>; 3],
        components: Option<Vec<TinyComponent>>,
    ) -> Self {
        let mut mask = TinyMask::empty();
        mask.set(TinyMask::X, axes[0].is_some());
        mask.set(TinyMask::Y, axes[1].is_some());
        mask.set(TinyMask::Z, axes[2].is_some());
        mask.set(TinyMask::COMPONENTS, components.is_some());
        TinyUpdate {
            id,
            spawn_tag,
            mask,
            components,
            x: axes[0],
            y: axes[1],
            z: axes[2],
        }
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn spawn_tag(&self) -> u16 {
        self.spawn_tag
    }
    fn axes(&self) -> [Option<i64>; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> Option<&[TinyComponent]> {
        self.components.as_deref()
    }
    fn encoded_len_after(&self, prev: &mut Option<u64>) -> usize {
        TinyUpdate::encoded_len_after(self, prev)
    }
    fn check(&self) -> Result<(), EncodeError> {
        self.write(&mut Vec::new())
    }
}

impl DatagramFrame for TinyDatagram {
    type Update = TinyUpdate;
    fn new(header: DatagramHeader, updates: Vec<TinyUpdate>) -> Self {
        // The tiny protocol sends no precision: both sides agree on it out of band.
        TinyDatagram {
            frame: header.frame,
            tick: header.tick,
            input_ack: header.input_ack,
            stream_tick: header.stream_tick,
            parts: header.parts,
            updates,
        }
    }
    fn frame(&self) -> u64 {
        self.frame
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn input_ack(&self) -> u64 {
        self.input_ack
    }
    fn stream_tick(&self) -> u64 {
        self.stream_tick
    }
    fn parts(&self) -> u32 {
        self.parts
    }
    fn updates(&self) -> &[TinyUpdate] {
        &self.updates
    }
}

impl SpawnFrame for TinySpawn {
    type Component = TinyComponent;
    fn new(
        tick: u64,
        id: u64,
        _: f32,
        [x, y, z]: [i64; 3],
        components: Vec<TinyComponent>,
    ) -> Self {
        TinySpawn {
            tick,
            id,
            x,
            y,
            z,
            components,
        }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn position(&self) -> [i64; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> &[TinyComponent] {
        &self.components
    }
}

impl DespawnFrame for TinyDespawn {
    fn new(tick: u64, id: u64) -> Self {
        TinyDespawn { tick, id }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn id(&self) -> u64 {
        self.id
    }
}

impl FullEntityFrame for TinyEntity {
    type Component = TinyComponent;
    fn new(id: u64, [x, y, z]: [i64; 3], components: Vec<TinyComponent>) -> Self {
        TinyEntity {
            id,
            x,
            y,
            z,
            components,
        }
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn position(&self) -> [i64; 3] {
        [self.x, self.y, self.z]
    }
    fn components(&self) -> &[TinyComponent] {
        &self.components
    }
}

impl FullFrameFrame for TinyFull {
    type Entity = TinyEntity;
    fn new(tick: u64, _: f32, entities: Vec<TinyEntity>) -> Self {
        TinyFull { tick, entities }
    }
    fn tick(&self) -> u64 {
        self.tick
    }
    fn entities(&self) -> &[TinyEntity] {
        &self.entities
    }
}

impl DatagramAckFrame for TinyDatagramAck {
    fn new(frame: u64, stream_tick: u64) -> Self {
        TinyDatagramAck { frame, stream_tick }
    }
    fn frame(&self) -> u64 {
        self.frame
    }
    fn stream_tick(&self) -> u64 {
        self.stream_tick
    }
}

// ---- The tiny protocol as a NetBaseline schema.

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TinyBaseline;

/// One tiny component's value.
#[derive(Debug, Clone, PartialEq)]
enum TinyValue {
    Health(Health),
    Spot(Spot),
}

impl BaselineSchema for TinyBaseline {
    type Value = TinyValue;
    type Components<T: Clone + std::fmt::Debug + PartialEq + Default> = [T; 2];
    type Snapshot = TinySnapshot;
    type Ack = TinySnapshotAck;
    const ACK_WINDOW: u16 = 8;
    const MAX_LOST_PER_SNAPSHOT: usize = 31;
    const HEADER_BYTES: usize = 3;
    const COUNT_BITS: usize = 5 + 12;
    const ENTRY_HEAD_BITS: usize = 24 + 8 + 2;
    const LOST_BITS: usize = 32;

    fn index(value: &TinyValue) -> usize {
        match value {
            TinyValue::Health(_) => 0,
            TinyValue::Spot(_) => 1,
        }
    }
    fn bits(value: &TinyValue) -> Result<Vec<u8>, EncodeError> {
        let mut w = ackwire_codec::rt::BitWriter::new();
        match value {
            TinyValue::Health(v) => v.write_bits(&mut w)?,
            TinyValue::Spot(v) => v.write_bits(&mut w)?,
        }
        let mut out = Vec::new();
        w.finish(&mut out);
        Ok(out)
    }
    fn bit_len(value: &TinyValue) -> usize {
        match value {
            TinyValue::Health(v) => v.bit_len(),
            TinyValue::Spot(v) => v.bit_len(),
        }
    }
    fn snapshot(sequence: u16, lost: &[EntityId], entries: Vec<WireEntry<Self>>) -> TinySnapshot {
        let lost = lost
            .iter()
            .map(|e| TinyRef {
                slot: e.slot,
                generation: e.generation,
            })
            .collect();
        let entries = entries
            .into_iter()
            .map(|e| {
                let [health, spot] = e.components;
                let mut mask = TinyComponents::empty();
                mask.set(TinyComponents::HEALTH, health.is_some());
                mask.set(TinyComponents::SPOT, spot.is_some());
                TinyEntry {
                    gap: e.gap,
                    generation: e.generation,
                    mask,
                    health: match health {
                        Some(TinyValue::Health(v)) => Some(v),
                        _ => None,
                    },
                    spot: match spot {
                        Some(TinyValue::Spot(v)) => Some(v),
                        _ => None,
                    },
                }
            })
            .collect();
        TinySnapshot {
            sequence,
            body: TinyBody { lost, entries },
        }
    }
    fn sequence(snapshot: &TinySnapshot) -> u16 {
        snapshot.sequence
    }
    fn read(snapshot: &TinySnapshot) -> (Vec<EntityId>, Vec<WireEntry<Self>>) {
        let lost = snapshot
            .body
            .lost
            .iter()
            .map(|r| EntityId {
                slot: r.slot,
                generation: r.generation,
            })
            .collect();
        let entries = snapshot
            .body
            .entries
            .iter()
            .map(|e| WireEntry {
                gap: e.gap,
                generation: e.generation,
                components: [e.health.map(TinyValue::Health), e.spot.map(TinyValue::Spot)],
            })
            .collect();
        (lost, entries)
    }
    fn ack(sequence: u16) -> TinySnapshotAck {
        TinySnapshotAck { sequence }
    }
    fn acked(ack: &TinySnapshotAck) -> u16 {
        ack.sequence
    }
}

// ---- The tiny protocol as a delta schema.

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TinyDelta;

impl DeltaSchema for TinyDelta {
    type Plan = TinyPlan;
    type Ack = TinyDeltaAck;
}

impl PlanFrame for TinyPlan {
    fn new(plan: &DeltaPlan, sequence: u64) -> Self {
        let mut flags = TinyPlanFlags::empty();
        flags.set(TinyPlanFlags::FULL_BASELINE, plan.full_baseline);
        flags.set(TinyPlanFlags::BASELINE, plan.baseline_seq.is_some());
        TinyPlan {
            sequence,
            flags,
            baseline_seq: plan.baseline_seq,
            entered: plan.entered.clone(),
            left: plan.left.clone(),
        }
    }
    fn sequence(&self) -> u64 {
        self.sequence
    }
    fn full_baseline(&self) -> bool {
        self.flags.contains(TinyPlanFlags::FULL_BASELINE)
    }
    fn baseline_seq(&self) -> Option<u64> {
        self.baseline_seq
    }
    fn entered(&self) -> &[u64] {
        &self.entered
    }
    fn left(&self) -> &[u64] {
        &self.left
    }
}

impl DeltaAckFrame for TinyDeltaAck {
    fn new(newest: u64, mask: u64, digest: u64) -> Self {
        TinyDeltaAck {
            digest,
            newest,
            mask,
        }
    }
    fn newest(&self) -> u64 {
        self.newest
    }
    fn mask(&self) -> u64 {
        self.mask
    }
    fn digest(&self) -> u64 {
        self.digest
    }
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
                TinyValue::Health(Health {
                    hp: 100 + slot as u16,
                }),
            )
            .unwrap();
        if slot % 2 == 0 {
            scene
                .set(
                    slot,
                    TinyValue::Spot(Spot {
                        col: slot as u8,
                        row: 63,
                    }),
                )
                .unwrap();
        }
    }
    // A value out of the declared range does not encode, whatever the schema.
    assert!(scene
        .set(0, TinyValue::Health(Health { hp: 1024 }))
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
    scene.set(3, TinyValue::Health(Health { hp: 7 })).unwrap();
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
        .set(5, TinyValue::Spot(Spot { col: 1, row: 2 }))
        .unwrap();
    scene.despawn(8);
    let s = round(&scene, &mut writer, &mut client);
    let lost: Vec<u32> = s.body.lost.iter().map(|r| r.slot).collect();
    assert_eq!(lost, vec![5, 8]);
    assert!(same(&scene, &client));
    assert_eq!(
        client.entities()[&5].components,
        [None, Some(TinyValue::Spot(Spot { col: 1, row: 2 }))]
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
