//! `explain` is a second decoder, driven by the lowering of the layout (the same lowering the
//! generators print) rather than by the generated code. This test holds the two to each other
//! (WIRE-21: decoding is canonical; WIRE-22: a decode error names its kind, byte offset and field
//! path): for every input, explain succeeds exactly when the generated decoder does, a failure has
//! the same kind, byte offset, bit offset and path, and a success's rows tile the input (packed
//! fields may share a byte).
//!
//! Inputs, for every frame of the reference protocol: frames encoded from hand-built values,
//! every truncation of them, one trailing byte after them, deterministic single-byte mutations
//! of them, and deterministic pseudo-random byte strings (a small inline xorshift; no `rand`).
//! Nothing is skipped: every input is checked, and the counts are printed.
//!
//! The same walk is the run-time codec of `ackwire decode --spec` ([`ackwire_conformance::interp`]),
//! held here to the generated codec too: an accepted input decodes to the very JSON form the
//! generated decoder prints (fields in the same order) and encodes back to the input; a refused
//! one fails with the same error. Its encoder is held to the generated encoders on mutated JSON
//! forms: the same bytes, or a refusal of the same kind and path (or both refusing the JSON).

use ackwire_codec::protocol::*;
use ackwire_codec::rt::SmallestThree;
use ackwire_codec::{BitSet, DecodeError, ErrorKind, Frame, FrameVisitor};
use ackwire_conformance::explain::{explain, explain_lowered, ExplainError, Row};
use ackwire_conformance::frame_json::FrameError;
use ackwire_conformance::interp;
use ackwire_conformance::vectors::OrderedJson;
use ackwire_spec::lower::Lowering;
use ackwire_spec::model::Spec;
use std::collections::BTreeMap;

/// Mutations of valid frames, over all frames.
const MUTATIONS: usize = 8_000;
/// Random byte strings, over all frames.
const RANDOM: usize = 10_000;

fn spec() -> Spec {
    ackwire_spec::load(&[ackwire_spec::reference_protocol_dir().to_path_buf()])
        .expect("the reference protocol loads")
        .0
}

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        (self.next() >> 32) as u8
    }
}

/// Decodes with the generated decoder of the frame named, and re-encodes what it accepted; the
/// JSON form it prints beside.
struct Decode<'a>(&'a [u8]);

impl FrameVisitor for Decode<'_> {
    type Output = Result<(Result<Vec<u8>, String>, OrderedJson), DecodeError>;

    fn visit<F: Frame>(self) -> Self::Output {
        let frame = F::decode(self.0)?;
        let json = OrderedJson::of(&frame).expect("a decoded frame prints");
        Ok((frame.to_bytes().map_err(|e| e.to_string()), json))
    }
}

/// What the generated encoder makes of a JSON form: bytes, a refusal (`kind path`), or a JSON
/// form its type does not take.
#[derive(Debug, PartialEq)]
enum Encoded {
    Bytes(Vec<u8>),
    Refused(String),
    BadJson,
}

struct Encode<'a>(&'a serde_json::Value);

impl FrameVisitor for Encode<'_> {
    type Output = Encoded;

    fn visit<F: Frame>(self) -> Encoded {
        match serde_json::from_value::<F>(self.0.clone()) {
            Ok(frame) => match frame.to_bytes() {
                Ok(bytes) => Encoded::Bytes(bytes),
                Err(e) => Encoded::Refused(format!("{} {}", e.kind, e.path)),
            },
            Err(_) => Encoded::BadJson,
        }
    }
}

/// What the run-time encoder makes of it, in the same terms.
fn interp_encoded(low: &Lowering<'_>, name: &str, json: &serde_json::Value) -> Encoded {
    match interp::encode(low, name, json) {
        Ok(bytes) => Encoded::Bytes(bytes),
        Err(FrameError::Encode(e)) => Encoded::Refused(format!("{} {}", e.kind, e.path)),
        Err(FrameError::Json { .. }) => Encoded::BadJson,
        Err(other) => Encoded::Refused(format!("unexpected: {other}")),
    }
}

fn encode<F: Frame>(frame: F) -> (&'static str, Vec<u8>) {
    let bytes = frame.to_bytes().expect("a hand-built frame encodes");
    assert_eq!(bytes.len(), frame.encoded_len(), "{}", F::NAME);
    (F::NAME, bytes)
}

fn components() -> Vec<Component> {
    vec![
        Component {
            r#type: 1,
            data: Some(vec![1, 2, 3]),
        },
        Component {
            r#type: 2,
            data: None,
        },
        Component {
            r#type: 200,
            data: Some(Vec::new()),
        },
        Component {
            r#type: 9,
            data: Some((0..40).collect()),
        },
    ]
}

/// Hand-built values of every frame, small and large, each field at an edge somewhere.
fn valid_frames() -> Vec<(&'static str, Vec<u8>)> {
    let pose_full = ChangeMask::empty()
        .with(ChangeMask::POSE)
        .with(ChangeMask::POSE_FULL)
        .with(ChangeMask::POSE_AGE);
    let step_vehicle = ChangeMask::empty()
        .with(ChangeMask::POSE)
        .with(ChangeMask::VEHICLE);
    let mut frames = vec![
        encode(Acked {
            tick: 100,
            base_tick: 0,
            last_seq: 3,
            input_buffer: 2,
            flags: AckedFlags::empty().with(AckedFlags::KEYFRAME),
            check: None,
            removed: vec![],
            changes: vec![],
            first_serial: None,
            events: vec![],
        }),
        encode(Acked {
            tick: u32::MAX,
            base_tick: 4_000_000,
            last_seq: 77,
            input_buffer: 255,
            flags: AckedFlags::empty().with(AckedFlags::CHECK),
            check: Some(0xdead_beef),
            removed: vec![1, 300, u16::MAX],
            changes: vec![
                Change {
                    eid: 5,
                    mask: pose_full,
                    age: Some(3),
                    pose_full: Some(PoseFull {
                        x: 1.5,
                        y: -2.25,
                        z: 1e30,
                        yaw: 90.0,
                    }),
                    pose_step: None,
                    health: None,
                    vehicle: None,
                    orient: None,
                },
                Change {
                    eid: 6,
                    mask: step_vehicle,
                    age: None,
                    pose_full: None,
                    pose_step: Some(PoseStep {
                        dx: -1,
                        dy: i16::MAX,
                        dz: i16::MIN,
                        yaw: 180.0,
                    }),
                    health: None,
                    vehicle: Some(Vehicle {
                        vehicle: 9,
                        seat: 1,
                    }),
                    orient: None,
                },
                Change {
                    eid: 7,
                    mask: ChangeMask::empty().with(ChangeMask::HEALTH),
                    age: None,
                    pose_full: None,
                    pose_step: None,
                    health: Some(Health { hp: 0, armor: 100 }),
                    vehicle: None,
                    orient: None,
                },
                Change {
                    eid: 8,
                    mask: ChangeMask::empty(),
                    age: None,
                    pose_full: None,
                    pose_step: None,
                    health: None,
                    vehicle: None,
                    orient: None,
                },
            ],
            first_serial: Some(40),
            events: vec![
                Event::Shot(Shot {
                    shooter: 5,
                    weapon: 2,
                    yaw: 45.0,
                }),
                Event::Blast(Blast {
                    x: 0.0,
                    y: -1.0,
                    z: 3.5,
                    radius: 2.5,
                }),
                Event::Hit(Hit {
                    attacker: 5,
                    victim: 6,
                    damage: 25,
                }),
                Event::Carjack(Carjack {
                    thief: 1,
                    victim: 2,
                    vehicle: 3,
                }),
            ],
        }),
        // Kind 12 (issue 19): ascending ids as gaps in buckets, steps in zbuckets, a yaw
        // bucket, orientations, every group.
        encode(AckedPacked {
            tick: 101,
            base_tick: 100,
            last_seq: 4,
            input_buffer: 1,
            flags: AckedFlags::empty().with(AckedFlags::CHECK),
            check: Some(7),
            removed: vec![9],
            body: PackedChanges {
                changes: vec![
                    PackedChange {
                        eid: 3,
                        mask: PackedMask::empty()
                            .with(PackedMask::POSE)
                            .with(PackedMask::ORIENT)
                            .with(PackedMask::POSE_AGE),
                        age: Some(13),
                        pose_full: None,
                        pose_step: Some(Box::new(PackedPoseStep {
                            dx: 12,
                            dy: -300,
                            dz: 0,
                            yaw: 0,
                        })),
                        health: None,
                        vehicle: None,
                        orient: Some(Orientation {
                            q: SmallestThree {
                                largest: 3,
                                rest: [12, -4, 200],
                            },
                        }),
                    },
                    PackedChange {
                        eid: 70,
                        mask: PackedMask::empty()
                            .with(PackedMask::POSE)
                            .with(PackedMask::POSE_FULL)
                            .with(PackedMask::HEALTH)
                            .with(PackedMask::VEHICLE),
                        age: None,
                        pose_full: Some(Box::new(PackedPoseFull {
                            x: 1.5,
                            y: -2.0,
                            z: 0.25,
                            yaw: 90.0,
                        })),
                        pose_step: None,
                        health: Some(PackedHealth { hp: 3, armor: 4 }),
                        vehicle: Some(PackedVehicle {
                            vehicle: 5,
                            seat: 1,
                        }),
                        orient: None,
                    },
                    PackedChange {
                        eid: 40_000,
                        mask: PackedMask::empty()
                            .with(PackedMask::POSE)
                            .with(PackedMask::ORIENT),
                        age: None,
                        pose_full: None,
                        pose_step: Some(Box::new(PackedPoseStep {
                            dx: -32768,
                            dy: 900,
                            dz: 1,
                            yaw: 255,
                        })),
                        health: None,
                        vehicle: None,
                        orient: Some(Orientation {
                            q: SmallestThree {
                                largest: 0,
                                rest: [255, 0, 0],
                            },
                        }),
                    },
                ],
            },
            first_serial: Some(2),
            events: vec![Event::Hit(Hit {
                attacker: 1,
                victim: 2,
                damage: 3,
            })],
        }),
        encode(Ack {
            ack_tick: 0,
            flags: AckFlags::empty(),
            first_seq: None,
            inputs: vec![],
        }),
        encode(Ack {
            ack_tick: 99,
            flags: AckFlags::empty().with(AckFlags::KEYFRAME_REQUEST),
            first_seq: Some(1000),
            inputs: vec![
                Input {
                    tick: 101,
                    buttons: Buttons::empty().with(Buttons::FIRE).with(Buttons::CROUCH),
                    move_x: 1.0,
                    move_y: -1.0,
                    yaw: 0.0,
                },
                Input {
                    tick: 102,
                    buttons: Buttons::empty(),
                    move_x: 0.0,
                    move_y: 64.0 / 127.0,
                    yaw: 359.0,
                },
            ],
        }),
        encode(Snapshot {
            sequence: 0,
            body: SnapshotBody {
                lost: vec![],
                entries: vec![],
            },
        }),
        encode(Snapshot {
            sequence: 65535,
            body: SnapshotBody {
                lost: vec![
                    EntityRef {
                        slot: 3,
                        generation: 1,
                    },
                    EntityRef {
                        slot: 0xff_ffff,
                        generation: 255,
                    },
                ],
                entries: vec![
                    Entry {
                        wide: false,
                        gap: Some(4),
                        wide_gap: None,
                        generation: 2,
                        mask: ComponentMask::from_bits(0b1111),
                        transform: Some(Transform {
                            x: 1.5,
                            y: -100.0,
                            z: 0.015625,
                            yaw: 180.0,
                        }),
                        velocity: Some(Velocity {
                            vx: -0.5,
                            vy: 127.9375,
                            vz: -128.0,
                        }),
                        health: Some(Vitality { hp: 127 }),
                        team: Some(Team { team: 5 }),
                    },
                    Entry {
                        wide: true,
                        gap: None,
                        wide_gap: Some(100_000),
                        generation: 0,
                        mask: ComponentMask::empty(),
                        transform: None,
                        velocity: None,
                        health: None,
                        team: None,
                    },
                    Entry {
                        wide: false,
                        gap: Some(0),
                        wide_gap: None,
                        generation: 9,
                        mask: ComponentMask::empty().with(ComponentMask::TEAM),
                        transform: None,
                        velocity: None,
                        health: None,
                        team: Some(Team { team: 7 }),
                    },
                ],
            },
        }),
        encode(SnapshotAck { sequence: 513 }),
        encode(Datagram {
            frame: 1,
            tick: 0,
            input_ack: 0,
            stream_tick: 0,
            precision: 0.01,
            parts: 1,
            updates: vec![],
        }),
        encode(Datagram {
            frame: 300,
            tick: u64::MAX,
            input_ack: 1 << 40,
            stream_tick: 127,
            precision: 0.5,
            parts: (1 << 21) - 1,
            updates: vec![
                Update {
                    id: 0,
                    spawn_tag: 7,
                    mask: UpdateMask::empty()
                        .with(UpdateMask::X)
                        .with(UpdateMask::Y)
                        .with(UpdateMask::Z)
                        .with(UpdateMask::COMPONENTS),
                    x: Some(-1),
                    y: Some(i64::MIN),
                    z: Some(i64::MAX),
                    components: Some(components()),
                },
                Update {
                    id: 1,
                    spawn_tag: 0,
                    mask: UpdateMask::empty().with(UpdateMask::Y),
                    x: None,
                    y: Some(64),
                    z: None,
                    components: None,
                },
                Update {
                    id: 1_000_000,
                    spawn_tag: u16::MAX,
                    mask: UpdateMask::empty().with(UpdateMask::COMPONENTS),
                    x: None,
                    y: None,
                    z: None,
                    components: Some(vec![]),
                },
            ],
        }),
        encode(Spawn {
            tick: 5,
            id: 9,
            precision: 0.25,
            x: 0,
            y: -300,
            z: 1 << 50,
            components: components(),
        }),
        encode(Spawn {
            tick: 0,
            id: 0,
            precision: 1.0,
            x: 0,
            y: 0,
            z: 0,
            components: vec![],
        }),
        encode(Despawn { tick: 128, id: 3 }),
        encode(FullFrame {
            tick: 10,
            precision: 0.125,
            entities: vec![],
        }),
        encode(FullFrame {
            tick: 11,
            precision: 2.0,
            entities: vec![
                FullEntity {
                    id: 4,
                    x: 1,
                    y: 2,
                    z: 3,
                    components: vec![],
                },
                FullEntity {
                    id: 5,
                    x: -1,
                    y: -2,
                    z: -3,
                    components: components(),
                },
                FullEntity {
                    id: 1 << 33,
                    x: 0,
                    y: 0,
                    z: 0,
                    components: vec![Component {
                        r#type: 0,
                        data: None,
                    }],
                },
            ],
        }),
        encode(DatagramAck {
            frame: 17,
            stream_tick: 16_384,
        }),
        encode(DeltaPlan {
            flags: PlanFlags::empty().with(PlanFlags::FULL_BASELINE),
            sequence: 1,
            baseline_seq: None,
            entered: vec![0, 1, (1 << 48) - 1],
            left: vec![],
        }),
        encode(DeltaPlan {
            flags: PlanFlags::empty().with(PlanFlags::BASELINE),
            sequence: 90,
            baseline_seq: Some(88),
            entered: vec![65_537],
            left: vec![3, 200, 201, 70_000],
        }),
        encode(DeltaAck {
            newest: 12,
            mask: u64::MAX,
            digest: 0x0123_4567_89ab_cdef,
        }),
    ];
    frames.sort_by_key(|(name, _)| *name);
    frames
}

/// What happened to the inputs, for the report.
#[derive(Default)]
struct Tally {
    inputs: usize,
    accepted: usize,
    rejected: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, name: &str, bytes: &[u8], why: String) {
        if self.failures.len() < 25 {
            self.failures.push(format!("{name} {}: {why}", hex(bytes)));
        } else if self.failures.len() == 25 {
            self.failures.push("...".into());
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The rows cover `bytes[..end]` in order without a gap or an overlap, each showing the bytes
/// it names; a packed row may start in the byte the previous packed row ended in.
fn tiling(bytes: &[u8], rows: &[Row]) -> Result<usize, String> {
    let mut covered = 0usize;
    let mut last_packed = false;
    let mut last_bit = None;
    for row in rows {
        let packed = row.bit.is_some();
        let shares = packed && last_packed && covered > 0 && row.offset == covered - 1;
        if row.offset != covered && !shares {
            return Err(format!(
                "row `{}` at {} leaves a gap or overlaps ({covered} covered)",
                row.path, row.offset
            ));
        }
        if row.bytes.is_empty() {
            return Err(format!("row `{}` covers no byte", row.path));
        }
        let end = row.offset + row.bytes.len();
        if bytes.get(row.offset..end) != Some(row.bytes.as_slice()) {
            return Err(format!(
                "row `{}` shows bytes that are not the input's",
                row.path
            ));
        }
        if let Some(bit) = row.bit {
            if bit / 8 != row.offset || last_bit.is_some_and(|b| bit <= b) {
                return Err(format!("row `{}` has bit {bit} out of place", row.path));
            }
            last_bit = Some(bit);
        } else {
            last_bit = None;
        }
        covered = covered.max(end);
        last_packed = packed;
    }
    Ok(covered)
}

fn check(low: &Lowering<'_>, name: &'static str, bytes: &[u8], tally: &mut Tally) {
    tally.inputs += 1;
    let generated = visit_frame(name, Decode(bytes)).expect("a frame of the protocol");
    let explained = explain_lowered(low, name, bytes);
    let interpreted = interp::decode(low, name, bytes);
    match (&generated, &interpreted) {
        (Ok((_, json)), Ok(value)) => {
            if json != value {
                tally.fail(
                    name,
                    bytes,
                    format!(
                        "the run-time decoder prints {}, the generated one {}",
                        serde_json::to_string(value).unwrap_or_default(),
                        serde_json::to_string(json).unwrap_or_default()
                    ),
                );
            }
            match interp::encode(low, name, &value.to_value()) {
                Ok(again) if again == bytes => {}
                Ok(again) => tally.fail(
                    name,
                    bytes,
                    format!("the run-time encoder writes {}", hex(&again)),
                ),
                Err(e) => tally.fail(name, bytes, format!("the run-time encoder refuses: {e}")),
            }
        }
        (Err(expected), Err(FrameError::Decode(error))) if expected == error => {}
        (expected, got) => tally.fail(
            name,
            bytes,
            format!(
                "generated: {:?}; run-time: {got:?}",
                expected.as_ref().map(|_| "a value")
            ),
        ),
    }
    match (generated, explained) {
        (Ok((reencoded, _)), Ok(rows)) => {
            tally.accepted += 1;
            match tiling(bytes, &rows) {
                Ok(n) if n == bytes.len() => {}
                Ok(n) => tally.fail(
                    name,
                    bytes,
                    format!("rows cover {n} of {} bytes", bytes.len()),
                ),
                Err(why) => tally.fail(name, bytes, why),
            }
            // Canonical decoding: what is accepted re-encodes to the identical bytes.
            match reencoded {
                Ok(again) if again == bytes => {}
                Ok(again) => tally.fail(name, bytes, format!("re-encodes as {}", hex(&again))),
                Err(e) => tally.fail(name, bytes, format!("accepted but does not re-encode: {e}")),
            }
        }
        (Err(expected), Err(ExplainError::Decode { rows, error })) => {
            *tally.rejected.entry(expected.kind.as_str()).or_default() += 1;
            let same = (
                expected.kind,
                expected.offset,
                expected.bit,
                expected.path_string(),
            ) == (error.kind, error.offset, error.bit, error.path_string());
            if !same {
                tally.fail(
                    name,
                    bytes,
                    format!("generated: {expected}; explain: {error}"),
                );
            }
            match tiling(bytes, &rows) {
                Ok(n) if n <= bytes.len() => {}
                Ok(n) => tally.fail(name, bytes, format!("partial rows cover {n} bytes")),
                Err(why) => tally.fail(name, bytes, format!("partial rows: {why}")),
            }
        }
        (Ok(_), Err(e)) => tally.fail(name, bytes, format!("generated accepts; explain: {e}")),
        (Err(expected), Ok(_)) => tally.fail(
            name,
            bytes,
            format!("explain accepts; generated: {expected}"),
        ),
        (Err(_), Err(e)) => tally.fail(name, bytes, format!("explain fails outside decoding: {e}")),
    }
}

#[test]
fn explain_agrees_with_the_generated_decoders() {
    let spec = spec();
    // One lowering for the twenty thousand inputs, as a tool explaining many frames keeps one.
    let low = Lowering::new(&spec);
    let valid = valid_frames();
    let names: Vec<&str> = valid.iter().map(|(n, _)| *n).collect();
    for name in FRAME_NAMES {
        assert!(names.contains(name), "no hand-built `{name}` frame");
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut counts = BTreeMap::new();
    let mut tally = Tally::default();

    for (name, bytes) in &valid {
        let before = tally.failures.len();
        check(&low, name, bytes, &mut tally);
        assert_eq!(
            tally.failures.len(),
            before,
            "a valid {name} frame: {:?}",
            tally.failures
        );
    }
    counts.insert("valid frames", tally.inputs);

    let start = tally.inputs;
    for (name, bytes) in &valid {
        for cut in 0..bytes.len() {
            check(&low, name, &bytes[..cut], &mut tally);
        }
        let mut longer = bytes.clone();
        longer.push(rng.byte());
        check(&low, name, &longer, &mut tally);
    }
    counts.insert("truncations and trailing bytes", tally.inputs - start);

    let start = tally.inputs;
    for i in 0..MUTATIONS {
        let (name, bytes) = &valid[i % valid.len()];
        let mut bytes = bytes.clone();
        let at = rng.below(bytes.len());
        bytes[at] = match rng.below(4) {
            0 => bytes[at] ^ (1 << rng.below(8)),
            1 => [0x00, 0x01, 0x7f, 0x80, 0xff][rng.below(5)],
            _ => rng.byte(),
        };
        check(&low, name, &bytes, &mut tally);
    }
    counts.insert("single-byte mutations", tally.inputs - start);

    let start = tally.inputs;
    for i in 0..RANDOM {
        let (name, valid_bytes) = &valid[i % valid.len()];
        let len = rng.below(64);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        // Mostly with the right kind byte, so that the walk gets past it.
        if len > 0 && rng.below(8) != 0 {
            bytes[0] = valid_bytes[0];
        }
        check(&low, name, &bytes, &mut tally);
    }
    counts.insert("random byte strings", tally.inputs - start);

    eprintln!(
        "explain agrees: {} inputs, {} accepted",
        tally.inputs, tally.accepted
    );
    for (what, n) in &counts {
        eprintln!("  {what}: {n}");
    }
    for (kind, n) in &tally.rejected {
        eprintln!("  rejected as {kind}: {n}");
    }
    assert!(
        tally.failures.is_empty(),
        "disagreements:\n{}",
        tally.failures.join("\n")
    );
    // The inputs reach every fault the reference protocol can produce: `non_canonical`
    // only once it has a quaternion (`quat(B)`).
    let has_quat = spec
        .files
        .iter()
        .any(|f| ackwire_spec::fmt::format_file(f).contains("quat("));
    for kind in ErrorKind::ALL
        .into_iter()
        .filter(|k| has_quat || *k != ErrorKind::NonCanonical)
    {
        assert!(
            tally.rejected.contains_key(kind.as_str()),
            "no input was rejected as {kind}"
        );
    }
}

#[test]
fn unknown_frames_are_refused_with_the_known_names() {
    let Err(ExplainError::UnknownFrame { known, .. }) = explain(&spec(), "acked_frame", &[6])
    else {
        panic!("`acked_frame` is not a frame");
    };
    assert_eq!(known, FRAME_NAMES);
}

/// Every place in a JSON value, as a path of keys and indices.
fn places(value: &serde_json::Value, at: &mut Vec<Place>, out: &mut Vec<Vec<Place>>) {
    out.push(at.clone());
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                at.push(Place::Key(k.clone()));
                places(v, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Place::Index(i));
                places(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Place {
    Key(String),
    Index(usize),
}

fn at_place<'v>(value: &'v mut serde_json::Value, path: &[Place]) -> &'v mut serde_json::Value {
    path.iter().fold(value, |v, p| match p {
        Place::Key(k) => &mut v[k.as_str()],
        Place::Index(i) => &mut v[*i],
    })
}

/// One mutation of the value at a place: a number moved to an edge or past it, a string made
/// another, a list grown, shrunk or reordered, a field removed or added.
fn mutate(value: &mut serde_json::Value, rng: &mut Rng, names: &[&str]) {
    use serde_json::{json, Value};
    let numbers = [
        json!(0),
        json!(1),
        json!(-1),
        json!(127),
        json!(128),
        json!(255),
        json!(256),
        json!(65535),
        json!(65536),
        json!(2147483647),
        json!(4294967295u64),
        json!(4294967296u64),
        json!(9007199254740993u64),
        json!("18446744073709551615"),
        json!("-9223372036854775808"),
        json!(0.5),
        json!(-2.25),
        json!(1e40),
        json!(1e300),
        json!(359.9),
        json!(null),
    ];
    match value {
        Value::Number(_) | Value::Null | Value::Bool(_) => {
            *value = if rng.below(6) == 0 {
                json!(rng.below(2) == 0)
            } else {
                numbers[rng.below(numbers.len())].clone()
            };
        }
        Value::String(s) => {
            *value = match rng.below(4) {
                0 => json!(names[rng.below(names.len())]),
                1 => json!(format!("{s}0")),
                2 => json!("zz"),
                _ => numbers[rng.below(numbers.len())].clone(),
            };
        }
        Value::Array(items) => match rng.below(5) {
            0 if !items.is_empty() => {
                let first = items[0].clone();
                items.push(first);
            }
            1 if !items.is_empty() => {
                items.remove(rng.below(items.len()));
            }
            2 => items.reverse(),
            3 => items.push(json!(names[rng.below(names.len())])),
            _ => items.clear(),
        },
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            match rng.below(3) {
                0 if !keys.is_empty() => {
                    map.remove(&keys[rng.below(keys.len())]);
                }
                1 => {
                    let name = names[rng.below(names.len())];
                    map.insert(name.to_string(), numbers[rng.below(numbers.len())].clone());
                }
                _ => {
                    let name = names[rng.below(names.len())];
                    map.insert(name.to_string(), json!([]));
                }
            }
        }
    }
}

#[test]
fn the_run_time_encoder_agrees_with_the_generated_encoders() {
    let spec = spec();
    let low = Lowering::new(&spec);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // Field and bit names of the spec, for mutations that add or rename.
    let mut names: Vec<&str> = vec!["check", "age", "first_serial", "orient", "x", "y", "nope"];
    names.extend([
        "POSE",
        "POSE_FULL",
        "POSE_AGE",
        "KEYFRAME",
        "CHECK",
        "FULL_BASELINE",
    ]);
    let (mut inputs, mut agreed_bytes, mut refused) = (0usize, 0usize, BTreeMap::new());
    let mut failures = Vec::new();
    for (i, (name, bytes)) in valid_frames().iter().cycle().take(6_000).enumerate() {
        let mut value = interp::decode(&low, name, bytes)
            .unwrap_or_else(|e| panic!("a valid {name}: {e}"))
            .to_value();
        for _ in 0..=(i % 3) {
            let mut all = Vec::new();
            places(&value, &mut Vec::new(), &mut all);
            let place = &all[rng.below(all.len())];
            mutate(at_place(&mut value, place), &mut rng, &names);
        }
        inputs += 1;
        let generated = visit_frame(name, Encode(&value)).expect("a frame of the protocol");
        let run_time = interp_encoded(&low, name, &value);
        match &generated {
            Encoded::Bytes(_) => agreed_bytes += 1,
            Encoded::Refused(why) => {
                *refused
                    .entry(why.split(' ').next().unwrap_or_default().to_string())
                    .or_insert(0) += 1
            }
            Encoded::BadJson => *refused.entry("bad JSON".to_string()).or_insert(0) += 1,
        }
        if generated != run_time && failures.len() < 25 {
            failures.push(format!(
                "{name} {value}: generated {generated:?}, run-time {run_time:?}"
            ));
        }
    }
    eprintln!("the run-time encoder agrees: {inputs} mutated JSON forms, {agreed_bytes} encoded");
    for (kind, n) in &refused {
        eprintln!("  refused as {kind}: {n}");
    }
    assert!(
        failures.is_empty(),
        "disagreements:\n{}",
        failures.join("\n")
    );
    for kind in [
        "over_width",
        "invalid_condition",
        "not_ascending",
        "non_finite",
        "bad JSON",
    ] {
        assert!(
            refused.contains_key(kind),
            "no mutation was refused as {kind}"
        );
    }
    assert!(
        agreed_bytes > 100,
        "too few mutations encoded: {agreed_bytes}"
    );
}
