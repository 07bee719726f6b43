//! Kind 13's cases (`acked_coded`, `docs/spec/coded.md`): the coded frame's bytes against the
//! basis they are read on.
//!
//! A coded change is predicted from the records of the frame's base and older snapshot
//! (CODE-13, CODE-14), so each case carries them as its `basis` (absent: nothing held, as a
//! keyframe needs). Positive cases are written by the Rust codec against their basis; each
//! negative case states the kind it must raise, and its offset, bit and path are what the Rust
//! codec reports (a range-coded value has no bit of its own: a fault inside the stream is
//! placed at the byte the decoder had read up to). The same bytes read on another basis are
//! another frame: that is how the cases the encoder cannot write (a `same` of 0 before the
//! base's own largest component, a step whose prediction moved) are made.
//!
//! Header offsets without a check or removals: 0 kind | 1 tick | 5 base_tick | 9 last_seq |
//! 13 input_buffer | 14 flags | 15 removed_count | 17 older | 18 changed_count | 20 coded_len |
//! 22 stream | then event_count.

use super::{at, cut, orientation, packed_change, packed_step, put, splice, Book, Fault};
use crate::coded::{self, BasisJson, Held};
use crate::vectors::{hex_spaced, ExpectedError, FrameCase, FrameFile, OrderedJson};
use ackwire_codec::protocol::*;
use ackwire_codec::rt::coded::{floor_len, model_slots, CodedEncoder, CodedSink};
use ackwire_codec::rt::SmallestThree;
use ackwire_codec::{BitSet, ErrorKind};

/// The rules of kind 13's frame.
const CODED_SEED: &str = "CODE-1, CODE-4, CODE-5, CODE-6, CODE-7 (spec/protocol/acked.wire)";

/// Where the body's `coded_len` and stream sit in a frame with no check and no removals.
const CODED_LEN_AT: usize = 20;
const STREAM_AT: usize = 22;

/// A record of the basis: a position in whole steps and maybe an orientation.
fn state(x: i32, y: i32, z: i32, orient: Option<SmallestThree>) -> EntityState {
    let mut flags = StateFlags::empty();
    if orient.is_some() {
        flags = flags.with(StateFlags::ORIENTED);
    }
    EntityState {
        x,
        y,
        z,
        yaw: 0,
        flags,
        measured: 0,
        hp: 100,
        armor: 0,
        vehicle: 0,
        seat: 0,
        orient: orient.map(|q| Orientation { q }),
    }
}

fn quat(largest: u8, rest: [i16; 3]) -> SmallestThree {
    orientation(largest, rest).q
}

/// A kind 13 frame onto `base_tick` (a keyframe when 0) with `older` and `changes`.
fn frame(tick: u32, base_tick: u32, older: u8, changes: Vec<PackedChange>) -> AckedCoded {
    AckedCoded {
        tick,
        base_tick,
        last_seq: 0,
        input_buffer: 0,
        flags: if base_tick == 0 {
            AckedFlags::empty().with(AckedFlags::KEYFRAME)
        } else {
            AckedFlags::empty()
        },
        check: None,
        removed: Vec::new(),
        older,
        body: PackedChanges { changes },
        first_serial: None,
        events: Vec::new(),
    }
}

fn stepped(eid: u16, dx: i16, dy: i16, dz: i16) -> PackedChange {
    PackedChange {
        pose_step: Some(packed_step(dx, dy, dz, 0)),
        ..packed_change(eid, PackedMask::empty().with(PackedMask::POSE))
    }
}

fn turned(eid: u16, q: SmallestThree) -> PackedChange {
    PackedChange {
        orient: Some(Orientation { q }),
        ..packed_change(eid, PackedMask::empty().with(PackedMask::ORIENT))
    }
}

fn health(eid: u16, hp: u8, armor: u8) -> PackedChange {
    PackedChange {
        health: Some(PackedHealth { hp, armor }),
        ..packed_change(eid, PackedMask::empty().with(PackedMask::HEALTH))
    }
}

fn vehicle(eid: u16, vehicle: u16, seat: u8) -> PackedChange {
    PackedChange {
        vehicle: Some(PackedVehicle { vehicle, seat }),
        ..packed_change(eid, PackedMask::empty().with(PackedMask::VEHICLE))
    }
}

fn full(eid: u16, x: f32, y: f32, z: f32, yaw: f64) -> PackedChange {
    PackedChange {
        pose_full: Some(Box::new(PackedPoseFull { x, y, z, yaw })),
        ..packed_change(
            eid,
            PackedMask::empty()
                .with(PackedMask::POSE)
                .with(PackedMask::POSE_FULL),
        )
    }
}

/// A basis: the base's records and the older snapshot's.
fn basis(base: &[(u16, EntityState)], older: &[(u16, EntityState)]) -> BasisJson {
    let held =
        |l: &[(u16, EntityState)]| l.iter().map(|&(eid, state)| Held { eid, state }).collect();
    BasisJson {
        base: held(base),
        older: held(older),
    }
}

/// The cases of kind 13, over the frame [`Book`] of `acked_coded`.
struct Coded {
    book: Book,
}

impl Coded {
    fn basis_json(basis: Option<&BasisJson>) -> Option<OrderedJson> {
        basis.map(|b| OrderedJson::of(b).unwrap_or_else(|e| panic!("a basis's JSON: {e}")))
    }

    /// A positive case: `value` written against `basis`; its bytes are returned.
    fn valid(
        &mut self,
        what: &str,
        seed: &str,
        description: &str,
        basis: Option<&BasisJson>,
        value: &AckedCoded,
    ) -> Vec<u8> {
        let name = format!("acked_coded/{what}");
        let held = coded::Basis::from_lists(&basis.cloned().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = coded::encode(value, &held)
            .unwrap_or_else(|e| panic!("{name}: the case's value does not encode: {e}"));
        let back = coded::decode(&bytes, &held)
            .unwrap_or_else(|e| panic!("{name}: its bytes do not decode: {e}"));
        assert_eq!(&back, value, "{name}: decodes to another value");
        let json = OrderedJson::of(value).unwrap_or_else(|e| panic!("{name}: no JSON form: {e}"));
        self.book.file.cases.push(FrameCase {
            name,
            description: description.to_string(),
            seed: seed.to_string(),
            basis: Self::basis_json(basis),
            hex: hex_spaced(&bytes),
            value: Some(json),
            error: None,
        });
        bytes
    }

    /// A negative case: `bytes` read against `basis` must fail with `kind`; the offset, bit
    /// and path are the Rust codec's (checked again by `ackwire vectors`).
    fn invalid(
        &mut self,
        what: &str,
        seed: &str,
        description: &str,
        basis: Option<&BasisJson>,
        bytes: &[u8],
        kind: ErrorKind,
    ) {
        let name = format!("acked_coded/{what}");
        let held = coded::Basis::from_lists(&basis.cloned().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let error = match coded::decode(bytes, &held) {
            Ok(v) => panic!("{name}: expected {kind:?}, it decoded to {v:?}"),
            Err(e) => e,
        };
        assert_eq!(error.kind, kind, "{name}: {error}");
        self.book.file.cases.push(FrameCase {
            name,
            description: description.to_string(),
            seed: seed.to_string(),
            basis: Self::basis_json(basis),
            hex: hex_spaced(bytes),
            value: None,
            error: Some(ExpectedError {
                kind: error.kind.as_str().to_string(),
                offset: error.offset,
                bit: error.bit,
                path: error.path_string(),
            }),
        });
    }

    /// A negative case whose fault is stated whole, as the other frames' are.
    fn invalid_at(&mut self, what: &str, seed: &str, description: &str, bytes: &[u8], f: Fault) {
        self.invalid(what, seed, description, None, bytes, f.kind);
        let case = self.book.file.cases.last().expect("just pushed");
        let e = case.error.as_ref().expect("a negative case");
        assert_eq!(
            (e.offset, e.path.as_str()),
            (f.offset, f.path),
            "{}",
            case.name
        );
    }
}

/// The `coded_len` of a frame with no check and no removals.
fn coded_len(bytes: &[u8]) -> usize {
    usize::from(u16::from_le_bytes([
        bytes[CODED_LEN_AT],
        bytes[CODED_LEN_AT + 1],
    ]))
}

/// `bytes` with its `coded_len` set to `len`.
fn with_coded_len(bytes: &[u8], len: usize) -> Vec<u8> {
    let len = u16::try_from(len).expect("a coded_len");
    put(bytes, CODED_LEN_AT, &len.to_le_bytes())
}

/// Kind 13: keyframes, deltas predicted from a base and an older snapshot, every coded value's
/// length edges, and a fault of every kind the body can meet.
pub(super) fn acked_coded() -> FrameFile {
    let mut b = Coded {
        book: Book::new("acked_coded", CODED_SEED),
    };
    let s = CODED_SEED;

    // ---- keyframes: nothing held, nothing predicted ----
    b.valid(
        "keyframe_empty",
        "CODE-1, CODE-2, CODE-4",
        "the smallest keyframe: no change, older 0, a coded_len of 0 and no stream",
        None,
        &frame(1, 0, 0, vec![]),
    );
    let mut typical = frame(
        1000,
        0,
        0,
        vec![
            full(1, 10.5, -4.25, 0.0, 90.0),
            PackedChange {
                orient: Some(orientation(3, [12, -4, 200])),
                age: Some(3),
                ..full(3, 1.0, 2.0, 3.0, 0.0)
            },
            health(9, 75, 20),
            vehicle(12, 40, 1),
        ],
    );
    typical.body.changes[1].mask = typical.body.changes[1]
        .mask
        .with(PackedMask::ORIENT)
        .with(PackedMask::POSE_AGE);
    typical.flags = typical.flags.with(AckedFlags::CHECK);
    typical.check = Some(0xdead_beef);
    typical.removed = vec![7];
    typical.first_serial = Some(41);
    typical.events = vec![Event::Shot(Shot {
        shooter: 1,
        weapon: 2,
        yaw: 90.0,
    })];
    b.valid(
        "keyframe_typical",
        "CODE-1, CODE-6, CODE-10, CODE-11, CODE-12, CODE-14",
        "a keyframe as a session writes it: full poses, an orientation with its largest component (no base), health, a vehicle, a check, a removal and an event",
        None,
        &typical,
    );

    // ---- deltas: a base and an older snapshot ----
    // Base at tick 18, older 2 ticks before it (16), the frame at 20: gap 2, q 2, so the
    // prediction is base - older (CODE-13).
    let moving = state(1000, -500, 40, Some(quat(3, [12, -4, 200])));
    let before = state(990, -480, 40, Some(quat(3, [10, -4, 198])));
    let both = basis(&[(3, moving), (5, moving)], &[(3, before)]);
    b.valid(
        "velocity_on_prediction",
        "CODE-13",
        "entity 3 is in the base and the older snapshot: its step (+10, -20, 0) is what its motion predicts, so each axis codes a residual of 0; entity 5, in the base alone, is predicted 0 and codes its step whole",
        Some(&both),
        &frame(20, 18, 2, vec![stepped(3, 10, -20, 0), stepped(5, 10, -20, 0)]),
    );
    b.valid(
        "velocity_off_prediction",
        "CODE-13",
        "entity 3 steps (+13, -18, -1) against a prediction of (+10, -20, 0): residuals 3, 2 and -1",
        Some(&both),
        &frame(20, 18, 2, vec![stepped(3, 13, -18, -1)]),
    );
    // gap 3, q 2: 10 × 3 / 2 = 15; -20 × 3 / 2 = -30; and 5 × 3 / 2 = 7.5, rounded away from 0.
    let halves = basis(
        &[(3, state(1000, -500, 45, None))],
        &[(3, state(990, -480, 40, None))],
    );
    b.valid(
        "velocity_extrapolated",
        "CODE-13",
        "a gap of 3 ticks over an older distance of 2: predictions 15, -30 and 7.5 rounded away from zero to 8; the steps are exactly those",
        Some(&halves),
        &frame(21, 18, 2, vec![stepped(3, 15, -30, 8)]),
    );
    // The prediction is clamped to the step's range (-32768..=32767): base - older is
    // -100000, so every axis is predicted -32768, and a step of 32767 is the largest residual,
    // 65535, zigzag 131070: 17 bits, the model's whole width.
    let far = basis(
        &[(3, state(-100_000, 100_000, 0, None))],
        &[(3, state(0, 0, 0, None))],
    );
    b.valid(
        "velocity_clamped_full_width",
        "CODE-13, CODE-7",
        "the motion predicts -100000 and +100000 steps, clamped to the step's range: x steps 32767 against -32768 (residual 65535, zigzag 131070, the full 17 bits), y -32768 against 32767, z 0 against 0",
        Some(&far),
        &frame(20, 18, 1, vec![stepped(3, 32767, -32768, 0)]),
    );
    b.valid(
        "velocity_without_older",
        "CODE-2, CODE-13",
        "older 0: no older snapshot is named, so entity 3 is predicted 0 although the basis holds an older record of it (a client holds more than the frame names)",
        Some(&both),
        &frame(20, 18, 0, vec![stepped(3, 10, -20, 0)]),
    );
    b.valid(
        "entity_not_in_basis",
        "CODE-3, CODE-13, CODE-14",
        "entity 8 is in neither the base nor the older snapshot (a new entity): its step is predicted 0 and its orientation comes with its largest component, as kind 12 codes it",
        Some(&both),
        &frame(
            20,
            18,
            2,
            vec![PackedChange {
                orient: Some(orientation(0, [10, 20, 30])),
                mask: PackedMask::empty()
                    .with(PackedMask::POSE)
                    .with(PackedMask::ORIENT),
                ..stepped(8, 4, 4, 4)
            }],
        ),
    );

    // ---- coded base: the orientation against the base's ----
    b.valid(
        "orient_same_largest",
        "CODE-14",
        "entity 3's orientation keeps the base's largest component (3): `same` 1, then the three components' differences from the base's (2, 0, 2)",
        Some(&both),
        &frame(20, 18, 2, vec![turned(3, quat(3, [14, -4, 202]))]),
    );
    b.valid(
        "orient_same_largest_extremes",
        "CODE-14, CODE-7",
        "a component from 254 to -254 under the same dropped w (255 would tie with w, and a tie drops the lower index): -508, zigzag 1015, the difference model's full 10 bits",
        Some(&basis(&[(3, state(0, 0, 0, Some(quat(3, [254, 0, 0]))))], &[])),
        &frame(20, 18, 0, vec![turned(3, quat(3, [-254, 0, 0]))]),
    );
    let different = b.valid(
        "orient_different_largest",
        "CODE-14",
        "entity 3's orientation drops another component (0) than the base's (3): `same` 0, then the largest component's index and the three components, as kind 12",
        Some(&both),
        &frame(20, 18, 2, vec![turned(3, quat(0, [10, 20, 30]))]),
    );
    b.valid(
        "orient_base_without_orientation",
        "CODE-14",
        "entity 4 is in the base without an orientation: no `same` bit, the largest component's index and the three components",
        Some(&basis(&[(4, state(0, 0, 0, None))], &[])),
        &frame(20, 18, 0, vec![turned(4, quat(1, [-5, 6, -7]))]),
    );

    // ---- every length of every width ----
    // health.hp and health.armor (W = 8): every bit length 0 to 8, each at both ends.
    let mut lengths8 = Vec::new();
    let mut eid = 0u16;
    for v in edges(8) {
        eid += 1;
        lengths8.push(health(eid, v as u8, (255 - v) as u8));
    }
    b.valid(
        "lengths_w8",
        "CODE-7, CODE-8, CODE-12",
        "hp and armor (W = 8) at every bit length 0 to 8, each at its lowest and highest value (0, 1, 2, 3, 4, 7, 8, 15 ... 128, 255): the length tree, the bit trees of 1, 2 and 3 bits and the position slots past them",
        None,
        &frame(30, 0, 0, lengths8),
    );
    // vehicle.vehicle (W = 16) and the id gaps (W = 17).
    let mut lengths16 = Vec::new();
    let mut eid = 0u16;
    for v in edges(16) {
        eid += 1;
        lengths16.push(vehicle(eid, v as u16, 0));
    }
    b.valid(
        "lengths_w16",
        "CODE-7, CODE-8, CODE-12",
        "vehicle (W = 16) at every bit length 0 to 16, each at its lowest and highest value",
        None,
        &frame(31, 0, 0, lengths16),
    );
    // pose_full.x (W = 32): an f32's bits at every length; L = 32 is a negative float.
    let mut lengths32 = Vec::new();
    let mut eid = 0u16;
    for v in edges(32) {
        eid += 1;
        let x = f32::from_bits(v as u32);
        let x = if x.is_finite() {
            x
        } else {
            // 0x7fffffff is a NaN: the highest finite value of that length instead.
            f32::MAX
        };
        lengths32.push(full(eid, x, -0.0, f32::MIN, 65535.0 * 360.0 / 65536.0));
    }
    b.valid(
        "lengths_w32",
        "CODE-7, CODE-8, CODE-12",
        "pose_full.x (W = 32) as its f32 bits at every bit length 0 to 32 (-0.0, the full 32 bits, in y; f32::MIN in z; the largest yaw)",
        None,
        &frame(32, 0, 0, lengths32),
    );
    // The ids: the first at 65595 (the packed code's largest, 17 bits: the model's width).
    b.valid(
        "eid_full_width",
        "CODE-10, CODE-7",
        "one change of id 65595, the largest the packed id code holds: 17 bits, the id model's whole width (past a u16, so nothing of it is predicted)",
        None,
        &frame(33, 0, 0, vec![packed_change_wide(65595)]),
    );
    let gaps = b.valid(
        "eid_gaps",
        "CODE-10",
        "ids 0, 1, 3, 7, 65535: the first absolute, then gaps of 1, 2, 4 and 65528",
        None,
        &frame(
            34,
            0,
            0,
            [0u16, 1, 3, 7, 65535]
                .into_iter()
                .map(|e| packed_change(e, PackedMask::empty()))
                .collect(),
        ),
    );

    // ---- the stream's length and padding (CODE-4, CODE-5) ----
    assert!(
        coded_len(&gaps) >= floor_len(5),
        "a stream is at least its floor"
    );
    let small = b.valid(
        "padded_to_floor",
        "CODE-4, CODE-5",
        "eight changes of ids 1 to 8 with empty masks code in fewer bytes than the floor (8 × 12 bits = 12 bytes): the stream is padded with zeros to 12",
        None,
        &frame(
            35,
            0,
            0,
            (1..=8u16)
                .map(|e| packed_change(e, PackedMask::empty()))
                .collect(),
        ),
    );
    assert_eq!(coded_len(&small), floor_len(8), "padded to the floor");
    let last_pad = STREAM_AT + coded_len(&small) - 1;
    assert_eq!(small[last_pad], 0, "the last byte is padding");
    b.invalid(
        "padding_not_zero",
        "CODE-5",
        "the last padding byte of `padded_to_floor` is 1: a byte the decode did not reach that is not 0",
        None,
        &put(&small, last_pad, &[1]),
        ErrorKind::TrailingBytes,
    );
    b.invalid(
        "coded_len_under_floor",
        "CODE-4",
        "`padded_to_floor` with a coded_len of 11 for 8 changes (the floor is 12), the byte cut: refused before anything is decoded",
        None,
        &with_coded_len(&splice(&small, STREAM_AT + 11, 1, &[]), 11),
        ErrorKind::CountTooLarge,
    );
    // A stream over the floor: the full poses of `lengths_w32`.
    let long = b
        .book
        .file
        .cases
        .iter()
        .find(|c| c.name == "acked_coded/lengths_w32");
    let long = crate::vectors::parse_hex(&long.expect("lengths_w32").hex).expect("hex");
    let len = coded_len(&long);
    let count = edges(32).len();
    assert!(
        len > floor_len(count),
        "lengths_w32's stream is over its floor"
    );
    let end = STREAM_AT + len;
    b.invalid(
        "byte_after_stream",
        "CODE-5",
        "`lengths_w32` with one byte 0x5a more in its stream (coded_len + 1): a byte the decoder does not reach that is not 0",
        None,
        &with_coded_len(&splice(&long, end, 0, &[0x5a]), len + 1),
        ErrorKind::TrailingBytes,
    );
    b.invalid(
        "zero_byte_not_reached",
        "CODE-5",
        "`lengths_w32` with a zero byte more in its stream: its stream ends where the encoder's did (no zero dropped), so the decoder does not reach the byte, and a byte not reached is not in what the encoder writes",
        None,
        &with_coded_len(&splice(&long, end, 0, &[0]), len + 1),
        ErrorKind::TrailingBytes,
    );
    // A stream whose encoder dropped trailing zeros: one of them given back is reached by
    // the decoder (it reads the dropped zeros as implicit ones), and the encoder would have
    // dropped it.
    let (name, case_basis, with_zero) = b
        .book
        .file
        .cases
        .iter()
        .filter(|c| c.value.is_some())
        .find_map(|c| {
            let bytes = crate::vectors::parse_hex(&c.hex).ok()?;
            // Only frames with no check and no removals: their body is where CODED_LEN_AT says.
            if bytes[14] & 0x02 != 0 || bytes[15..17] != [0, 0] {
                return None;
            }
            let n = coded_len(&bytes);
            let count = usize::from(u16::from_le_bytes([bytes[18], bytes[19]]));
            if n <= floor_len(count) {
                return None;
            }
            let more = with_coded_len(&splice(&bytes, STREAM_AT + n, 0, &[0]), n + 1);
            let basis: Option<BasisJson> = c
                .basis
                .as_ref()
                .map(|j| serde_json::from_value(j.to_value()).expect("a basis"));
            let held = coded::Basis::from_lists(&basis.clone().unwrap_or_default()).ok()?;
            match coded::decode(&more, &held) {
                Err(e) if e.kind == ErrorKind::NonCanonical => Some((c.name.clone(), basis, more)),
                _ => None,
            }
        })
        .expect("a case whose encoder dropped a trailing zero");
    b.invalid(
        "zero_byte_encoder_drops",
        "CODE-5",
        &format!("`{}` with one of the zero bytes its encoder dropped given back (coded_len + 1): the decoder reaches it, and the encoder drops a last zero byte", name.trim_start_matches("acked_coded/")),
        case_basis.as_ref(),
        &with_zero,
        ErrorKind::NonCanonical,
    );
    b.invalid(
        "stream_cut_in_a_code",
        "CODE-5",
        "`lengths_w32` cut 20 bytes into its stream, its coded_len unchanged: the input ends inside the stream",
        None,
        &cut(&long, STREAM_AT + 20),
        ErrorKind::Truncated,
    );
    let short_len = floor_len(count);
    b.invalid(
        "decodes_past_the_stream",
        "CODE-5",
        "`lengths_w32` with its stream cut to the floor (96 bytes for 64 changes) and its coded_len with it: the values read on past the 4 implicit zero bytes",
        None,
        &with_coded_len(&splice(&long, STREAM_AT + short_len, len - short_len, &[]), short_len),
        ErrorKind::Truncated,
    );
    b.invalid(
        "byte_after_frame",
        "CODE-1, WIRE-21",
        "`lengths_w32` with a byte after its last event count",
        None,
        &[long.as_slice(), &[0]].concat(),
        ErrorKind::TrailingBytes,
    );

    // ---- faults of the coded values ----
    // `orient_different_largest`'s bytes read against a base whose largest component is the
    // one they name (0): `same` 0 before the base's own largest.
    let same_as_base = basis(&[(3, state(1000, -500, 40, Some(quat(0, [1, 2, 3]))))], &[]);
    b.invalid(
        "orient_same_largest_not_canonical",
        "CODE-14",
        "`orient_different_largest`'s bytes read on a base whose orientation drops component 0: `same` 0 followed by the base's own largest component, which the encoder writes with `same` 1",
        Some(&same_as_base),
        &different,
        ErrorKind::NonCanonical,
    );
    // `velocity_clamped_full_width`'s bytes read on a basis predicting the other end: the
    // residual 65535 lands past 32767.
    let clamped = b
        .book
        .file
        .cases
        .iter()
        .find(|c| c.name == "acked_coded/velocity_clamped_full_width")
        .map(|c| crate::vectors::parse_hex(&c.hex).expect("hex"))
        .expect("velocity_clamped_full_width");
    b.invalid(
        "velocity_out_of_range",
        "CODE-13",
        "`velocity_clamped_full_width`'s bytes read on a basis that predicts +32767 on x: 32767 + 65535 is outside the step's range",
        Some(&basis(
            &[(3, state(100_000, 100_000, 0, None))],
            &[(3, state(0, 0, 0, None))],
        )),
        &clamped,
        ErrorKind::OverWidth,
    );
    b.invalid(
        "mask_length_over_width",
        "CODE-7",
        "the mask's bit length decoded as 7, past its 6 bits (its length tree holds up to 7)",
        None,
        &hand_coded(36, |s, mask_at| {
            s.value(0, 17, 5)?;
            // The mask's model with a width of 7: the same length tree, a length of 7.
            s.value(mask_at, 7, 64)
        }),
        ErrorKind::OverWidth,
    );
    b.invalid(
        "eid_not_ascending",
        "CODE-10",
        "a second change whose id gap is 0",
        None,
        &hand_coded2(37, |s, mask_at| {
            s.value(0, 17, 5)?;
            s.value(mask_at, 6, 0)?;
            s.value(0, 17, 0)?;
            s.value(mask_at, 6, 0)
        }),
        ErrorKind::NotAscending,
    );

    // ---- the header around the body ----
    let keyframe = typical_bytes(&typical);
    let older_at = 17 + 4 + 2;
    b.invalid_at(
        "keyframe_with_older",
        "CODE-2",
        "`keyframe_typical` with older 1: a keyframe names no older snapshot",
        &put(&keyframe, older_at, &[1]),
        at(ErrorKind::InvalidCondition, older_at, "older"),
    );
    b.invalid_at(
        "truncated_at_older",
        "CODE-1",
        "`keyframe_typical` cut before its older distance",
        &cut(&keyframe, older_at),
        at(ErrorKind::Truncated, older_at, "older"),
    );
    b.invalid(
        "bad_kind",
        s,
        "`keyframe_typical` with kind 12, kind 12's frame",
        None,
        &put(&keyframe, 0, &[12]),
        ErrorKind::BadConstant,
    );

    b.book.done()
}

/// The bit lengths' edges of a `w`-bit value: 0, then for each length 1 to `w` its lowest and
/// highest value.
fn edges(w: u32) -> Vec<u64> {
    let mut out = vec![0];
    for l in 1..=w {
        let low = 1u64 << (l - 1);
        let high = (1u64 << l) - 1;
        out.push(low);
        if high != low {
            out.push(high);
        }
    }
    out
}

/// A change of an id past a u16 with an empty mask.
fn packed_change_wide(eid: u32) -> PackedChange {
    PackedChange {
        eid,
        ..packed_change(0, PackedMask::empty())
    }
}

fn typical_bytes(f: &AckedCoded) -> Vec<u8> {
    coded::encode(f, &coded::Basis::default()).expect("keyframe_typical encodes")
}

/// A keyframe of one change whose stream `code` writes by hand, under the frame's tables;
/// `code` is given the mask model's first slot.
fn hand_coded(
    tick: u32,
    code: impl FnOnce(&mut CodedEncoder<'_>, usize) -> Result<(), ackwire_codec::EncodeError>,
) -> Vec<u8> {
    hand_coded_n(tick, 1, code)
}

/// [`hand_coded`] with two changes.
fn hand_coded2(
    tick: u32,
    code: impl FnOnce(&mut CodedEncoder<'_>, usize) -> Result<(), ackwire_codec::EncodeError>,
) -> Vec<u8> {
    hand_coded_n(tick, 2, code)
}

fn hand_coded_n(
    tick: u32,
    changes: usize,
    code: impl FnOnce(&mut CodedEncoder<'_>, usize) -> Result<(), ackwire_codec::EncodeError>,
) -> Vec<u8> {
    let prefix = coded::encode(&frame(tick, 0, 0, vec![]), &coded::Basis::default())
        .expect("an empty keyframe");
    let mut probs = AckedCoded::TABLES;
    let mut stream = CodedEncoder::new(&mut probs);
    let mask_at = model_slots(AckedCoded::MODELS[0].1);
    code(&mut stream, mask_at).expect("a hand-coded stream");
    let mut out = prefix[..18].to_vec();
    out.extend((changes as u16).to_le_bytes());
    stream.finish(changes, &mut out).expect("the stream ends");
    out.push(0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_holds_against_the_codec() {
        let file = acked_coded();
        for case in &file.cases {
            crate::vectors::verify_frame_case("acked_coded", case)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        }
        assert!(file.cases.iter().any(|c| c.basis.is_some()));
        assert!(file.cases.iter().any(|c| c.error.is_some()));
    }

    #[test]
    fn edges_are_every_lengths_ends() {
        assert_eq!(edges(3), [0, 1, 2, 3, 4, 7]);
    }
}
