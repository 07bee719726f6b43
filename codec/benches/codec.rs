//! Encode and decode of the reference protocol's two entity frames, an `Acked` frame of 200
//! changes and a `Datagram` of 200 updates, beside postcard and bitcode serializing the same
//! 200 entities whole as plain Rust structs, in the same run.
//!
//! `cargo bench -p ackwire-codec --bench codec` prints, once at startup, the bytes each format
//! takes (total and per entity), then criterion's timings. Every group reports
//! `Throughput::Elements(200)`, so criterion prints entities per second beside the time; the
//! time divided by 200 is the cost per entity.
//!
//! One deterministic world (a seeded xorshift, no `rand`) of 200 entities is projected three
//! ways, each as its format would carry it:
//!
//! - `acked`: what changed since the acknowledged base: mostly 1/512 m pose steps, some full
//!   poses (half of them measured `age` ticks earlier), some health, a few vehicles; plus 5
//!   removed ids, 3 events and the frame check.
//! - `datagram`: each entity's absolute position quantized to 1/64 m (zigzag varints; most
//!   updates carry all three axes) and, for some, component changes.
//! - `postcard` and `bitcode`: every entity's whole state ([`EntityState`]: id, spawn tag,
//!   f32 position and heading, health, armour, vehicle, seat, components), no delta and no
//!   quantization, as a program would serialize its own structs without a wire spec.

use ackwire_codec::BitSet;
use std::hint::black_box;

use ackwire_codec::protocol::{
    Acked, AckedFlags, Blast, Change, ChangeMask, Component, Datagram, Event, Health, Hit,
    PoseFull, PoseStep, Shot, Update, UpdateMask, Vehicle,
};
use ackwire_codec::Frame;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::{Deserialize, Serialize};

/// Entities in every scene: the 200 changes of the acked frame, the 200 updates of the
/// datagram, the 200 records postcard and bitcode serialize.
const ENTITIES: usize = 200;

/// Metres per quantization step of the datagram's axes.
const PRECISION: f32 = 1.0 / 64.0;

/// A seeded xorshift64*, so every run benches the same bytes.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A value in `lo..hi`.
    fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + unit * (hi - lo)
    }
}

/// One component of an entity as the plain structs hold it: its type and bytes, `None` when
/// removed (what the datagram's `Component` carries).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
struct ComponentState {
    kind: u8,
    data: Option<Vec<u8>>,
}

/// One entity's whole state, the plain struct postcard and bitcode serialize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
struct EntityState {
    id: u32,
    spawn_tag: u16,
    x: f32,
    y: f32,
    z: f32,
    /// Heading, degrees.
    yaw: f32,
    hp: u8,
    armor: u8,
    /// The vehicle's entity id, 0 on foot.
    vehicle: u16,
    seat: u8,
    components: Vec<ComponentState>,
}

/// What postcard and bitcode serialize: one tick of the world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
struct Snapshot {
    tick: u32,
    entities: Vec<EntityState>,
}

/// The three projections of one world.
struct Scenes {
    acked: Acked,
    datagram: Datagram,
    snapshot: Snapshot,
}

/// A heading a quantized wire field holds exactly (steps of 360/steps degrees), so a decoded
/// frame equals the one encoded.
fn heading(rng: &mut XorShift, steps: u64) -> f64 {
    rng.below(steps) as f64 * (360.0 / steps as f64)
}

fn scenes() -> Scenes {
    let mut rng = XorShift(0x5EED_ACC0_0C0D_EC5A);
    let tick: u32 = 90_000;

    let mut changes = Vec::with_capacity(ENTITIES);
    let mut updates = Vec::with_capacity(ENTITIES);
    let mut entities = Vec::with_capacity(ENTITIES);
    let mut removed = Vec::new();

    let mut id: u32 = 1_000;
    for _ in 0..ENTITIES {
        // Ascending ids with gaps; some of the gaps are entities this frame removes.
        let gap = 1 + rng.below(4) as u32;
        if gap > 2 && removed.len() < 5 {
            removed.push((id + 1) as u16);
        }
        id += gap;

        let spawn_tag = rng.below(65_536) as u16;
        let x = rng.range_f32(-500.0, 500.0);
        let y = rng.range_f32(-500.0, 500.0);
        let z = rng.range_f32(0.0, 40.0);
        let mut hp = 100u8;
        let mut armor = 50u8;
        let mut vehicle = 0u16;
        let mut seat = 0u8;

        // The acked change: which groups differ from the base, and how the pose travels.
        let roll = rng.below(100);
        let mut mask = ChangeMask::empty();
        let mut age = None;
        let mut pose_full = None;
        let mut pose_step = None;
        let mut health = None;
        let mut vehicle_group = None;
        let yaw_step;
        if !(82..96).contains(&roll) {
            mask = mask.with(ChangeMask::POSE);
            if (70..82).contains(&roll) {
                // A full pose: the entity moved too far, or the base lacks it.
                mask = mask.with(ChangeMask::POSE_FULL);
                if roll.is_multiple_of(2) {
                    mask = mask.with(ChangeMask::POSE_AGE);
                    age = Some(1 + rng.below(3) as u8);
                }
                let yaw = heading(&mut rng, 65_536);
                yaw_step = yaw as f32;
                pose_full = Some(PoseFull { x, y, z, yaw });
            } else {
                // Half a metre at most from the base's pose, in 1/512 m steps.
                let step = |rng: &mut XorShift| rng.below(513) as i16 - 256;
                let yaw = heading(&mut rng, 256);
                yaw_step = yaw as f32;
                pose_step = Some(PoseStep {
                    dx: step(&mut rng),
                    dy: step(&mut rng),
                    dz: step(&mut rng) / 8,
                    yaw,
                });
            }
        } else {
            yaw_step = heading(&mut rng, 256) as f32;
        }
        if (82..96).contains(&roll) || (roll < 70 && rng.below(5) == 0) {
            mask = mask.with(ChangeMask::HEALTH);
            hp = rng.below(101) as u8;
            armor = rng.below(51) as u8;
            health = Some(Health { hp, armor });
        }
        if roll >= 96 {
            mask = mask.with(ChangeMask::VEHICLE);
            vehicle = 5_000 + rng.below(40) as u16;
            seat = rng.below(4) as u8;
            vehicle_group = Some(Vehicle { vehicle, seat });
        }
        changes.push(Change {
            eid: id as u16,
            mask,
            age,
            pose_full,
            pose_step,
            health,
            vehicle: vehicle_group,
            orient: None,
        });

        // The datagram update: absolute quantized axes, mostly all three; some components.
        let axes = rng.below(100);
        let mut umask = UpdateMask::empty();
        let quant = |v: f32| (v / PRECISION).round() as i64;
        let (mut ux, mut uy, mut uz) = (None, None, None);
        if axes < 97 {
            umask = umask.with(UpdateMask::X);
            ux = Some(quant(x));
        }
        if !(90..97).contains(&axes) {
            umask = umask.with(UpdateMask::Y);
            uy = Some(quant(y));
        }
        if axes < 85 {
            umask = umask.with(UpdateMask::Z);
            uz = Some(quant(z));
        }
        let mut components = Vec::new();
        if rng.below(10) == 0 {
            umask = umask.with(UpdateMask::COMPONENTS);
            for _ in 0..1 + rng.below(2) {
                let kind = 1 + rng.below(12) as u8;
                let data = if rng.below(6) == 0 {
                    None
                } else {
                    Some((0..2 + rng.below(7)).map(|_| rng.next() as u8).collect())
                };
                components.push(ComponentState { kind, data });
            }
        }
        updates.push(Update {
            id: u64::from(id),
            spawn_tag,
            mask: umask,
            x: ux,
            y: uy,
            z: uz,
            components: umask.contains(UpdateMask::COMPONENTS).then(|| {
                components
                    .iter()
                    .map(|c| Component {
                        r#type: c.kind,
                        data: c.data.clone(),
                    })
                    .collect()
            }),
        });

        entities.push(EntityState {
            id,
            spawn_tag,
            x,
            y,
            z,
            yaw: yaw_step,
            hp,
            armor,
            vehicle,
            seat,
            components,
        });
    }

    let acked = Acked {
        tick,
        base_tick: tick - 4,
        last_seq: 7_321,
        input_buffer: 2,
        flags: AckedFlags::empty().with(AckedFlags::CHECK),
        check: Some(0x9E37_79B9),
        removed,
        changes,
        first_serial: Some(4_410),
        events: vec![
            Event::Shot(Shot {
                shooter: 1_004,
                weapon: 3,
                yaw: 90.0,
            }),
            Event::Hit(Hit {
                attacker: 1_004,
                victim: 1_010,
                damage: 27,
            }),
            Event::Blast(Blast {
                x: 12.5,
                y: -40.25,
                z: 1.0,
                radius: 4.0,
            }),
        ],
    };
    let datagram = Datagram {
        frame: 12_345,
        tick: u64::from(tick),
        input_ack: 7_321,
        stream_tick: u64::from(tick) - 30,
        precision: PRECISION,
        parts: 1,
        updates,
    };
    let snapshot = Snapshot { tick, entities };
    Scenes {
        acked,
        datagram,
        snapshot,
    }
}

/// Prints, once, each format's bytes in total and per entity, after checking that every
/// format gives back what it was given.
fn sizes(_c: &mut Criterion) {
    let s = scenes();
    let acked = s.acked.to_bytes().expect("acked encodes");
    let datagram = s.datagram.to_bytes().expect("datagram encodes");
    let postcard = postcard::to_allocvec(&s.snapshot).expect("postcard serializes");
    let bitcode = bitcode::encode(&s.snapshot);

    assert_eq!(acked.len(), s.acked.encoded_len());
    assert_eq!(datagram.len(), s.datagram.encoded_len());
    assert_eq!(Acked::decode(&acked).expect("acked decodes"), s.acked);
    assert_eq!(
        Datagram::decode(&datagram).expect("datagram decodes"),
        s.datagram
    );
    assert_eq!(
        postcard::from_bytes::<Snapshot>(&postcard).expect("postcard deserializes"),
        s.snapshot
    );
    assert_eq!(
        bitcode::decode::<Snapshot>(&bitcode).expect("bitcode decodes"),
        s.snapshot
    );

    eprintln!("bytes for {ENTITIES} entities (acked: a delta frame; the others: absolute):");
    eprintln!("  {:<10} {:>7} {:>12}", "format", "bytes", "bytes/entity");
    for (name, len) in [
        ("acked", acked.len()),
        ("datagram", datagram.len()),
        ("postcard", postcard.len()),
        ("bitcode", bitcode.len()),
    ] {
        eprintln!(
            "  {:<10} {:>7} {:>12.2}",
            name,
            len,
            len as f64 / ENTITIES as f64
        );
    }
}

/// `<name>/encode` and `<name>/decode`, each at 200 elements an iteration.
fn codec_group<T>(
    c: &mut Criterion,
    name: &str,
    value: &T,
    mut encode: impl FnMut(&T, &mut Vec<u8>),
    mut decode: impl FnMut(&[u8]) -> T,
) {
    let mut bytes = Vec::new();
    encode(value, &mut bytes);

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(ENTITIES as u64));
    let mut out = Vec::with_capacity(bytes.len());
    group.bench_function("encode", |b| {
        b.iter(|| {
            out.clear();
            encode(black_box(value), &mut out);
            black_box(out.len())
        })
    });
    group.bench_function("decode", |b| b.iter(|| decode(black_box(&bytes))));
    group.finish();
}

fn benches(c: &mut Criterion) {
    let s = scenes();

    codec_group(
        c,
        "acked",
        &s.acked,
        |v, out| v.encode(out).expect("acked encodes"),
        |b| Acked::decode(b).expect("acked decodes"),
    );
    codec_group(
        c,
        "datagram",
        &s.datagram,
        |v, out| v.encode(out).expect("datagram encodes"),
        |b| Datagram::decode(b).expect("datagram decodes"),
    );
    // postcard writes into the cleared Vec it is lent and hands it back.
    codec_group(
        c,
        "postcard",
        &s.snapshot,
        |v, out| {
            *out = postcard::to_extend(v, std::mem::take(out)).expect("postcard serializes");
        },
        |b| postcard::from_bytes::<Snapshot>(b).expect("postcard deserializes"),
    );
    // bitcode's fast path: its own derive, and a Buffer that keeps its allocations between
    // calls. The copy into `out` keeps the work done equal to the others' (bytes in a Vec).
    let mut enc = bitcode::Buffer::new();
    let mut dec = bitcode::Buffer::new();
    codec_group(
        c,
        "bitcode",
        &s.snapshot,
        |v, out| out.extend_from_slice(enc.encode(v)),
        |b| dec.decode::<Snapshot>(b).expect("bitcode decodes"),
    );
}

criterion_group!(codec, sizes, benches);
criterion_main!(codec);
