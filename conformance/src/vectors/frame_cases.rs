//! The frame vectors' cases kept by hand (`vectors/frames`): only those that say something the
//! vectors derived from the layout (`vectors/derived`, [`super::derive`]) cannot, each
//! description saying what after "kept:": a frame as a session writes it, another
//! frame's kind, the highest reserved bit, the second bit that requires another, an infinity,
//! the canonical rules of a quaternion at their other boundaries, the last padding bit, a count
//! whose product overflows, the JSON form's 2^53 boundary, a cut no derived case can make.
//! Every other case (each field at its ends, cut short, and each fault its checks can raise)
//! is derived.
//!
//! Each positive case is a value of the generated type, encoded with the codec; each negative
//! case is valid bytes changed in one place, with the error written down by hand from the
//! layout (offsets counted in the comments), so that the vectors check the decoder rather than
//! copy it.
//!
//! Offsets: a truncation is reported at the end of the input; a varint fault (non-canonical,
//! over its width) at the varint's first byte; a count the remaining bytes cannot hold right
//! after the count (where the list would start), or at a `bytes?` length's first byte; a
//! reserved bit or a bad constant at the field's byte; an ascending list's fault at the
//! difference's first byte. Inside a bit-packed body the `bit` is counted from the start of the
//! frame and `offset` is `bit / 8`.

use super::{hex_spaced, ExpectedError, FrameCase, FrameFile, OrderedJson};
use ackwire_codec::digest::SetDigest;
use ackwire_codec::protocol::*;
use ackwire_codec::rt::SmallestThree;
use ackwire_codec::{BitSet, ErrorKind, Frame};

/// Every frame's file, in the order of `FRAME_NAMES`, then the coded frame's (kind 13, which
/// `FRAME_NAMES` does not hold: it is read against a basis).
pub(super) fn all() -> Vec<FrameFile> {
    vec![
        acked(),
        acked_packed(),
        ack(),
        snapshot(),
        snapshot_ack(),
        datagram(),
        spawn(),
        despawn(),
        full_frame(),
        datagram_ack(),
        delta_plan(),
        delta_ack(),
        coded::acked_coded(),
    ]
}

mod coded;

// Each case's `seed` member names the rules of `docs/spec/` the case checks.

/// The rules of the acked frame's layout (kind 6).
const ACKED_SEED: &str = "ACK-2, ACK-3, ACK-4, ACK-6, ACK-7, ACK-8, ACK-9";
/// The rules of the ack/input frame (kind 7).
const ACK_SEED: &str = "ACK-10, ACK-11, ACK-12, ACK-13";
/// The rules of NetBaseline snapshots (kind 8).
const BASELINE_SEED: &str = "NB-1, NB-2, NB-4";
/// The rule of a snapshot's acknowledgement (kind 11).
const SNAPSHOT_ACK_SEED: &str = "NB-5";
/// The rules of the datagram (version 2).
const DATAGRAM_SEED: &str = "DG-1, DG-3, DG-4, DG-5, DG-6";
/// The rules of the reliable stream's frames.
const STREAM_SEED: &str = "DG-6, DG-9";
/// The rule of the datagram's acknowledgement (kind 4).
const DATAGRAM_ACK_SEED: &str = "DG-10";
/// The rules of a delta plan (kind 9).
const DELTA_SEED: &str = "DELTA-1, DELTA-3";
/// The rules of a delta acknowledgement (kind 10).
const DELTA_ACK_SEED: &str = "DELTA-2, DELTA-5, DELTA-6";
/// The rule every negative case enforces: canonical decoding.
const CANONICAL: &str = "WIRE-21 (canonical decoding)";

// ---- building cases ----

/// A set of named bits: `bits!(ChangeMask, POSE, HEALTH)`.
macro_rules! bits {
    ($t:ident $(, $b:ident)*) => {
        $t::empty()$(.with($t::$b))*
    };
}

/// The error a negative case expects.
struct Fault {
    kind: ErrorKind,
    offset: usize,
    bit: Option<usize>,
    path: &'static str,
}

/// An error at byte `offset`.
fn at(kind: ErrorKind, offset: usize, path: &'static str) -> Fault {
    Fault {
        kind,
        offset,
        bit: None,
        path,
    }
}

/// An error at bit `bit` of the frame (inside a bit-packed body).
fn at_bit(kind: ErrorKind, bit: usize, path: &'static str) -> Fault {
    Fault {
        kind,
        offset: bit / 8,
        bit: Some(bit),
        path,
    }
}

/// The cases of one frame, as they are written.
struct Book {
    file: FrameFile,
}

impl Book {
    fn new(frame: &'static str, seed: &'static str) -> Book {
        Book {
            file: FrameFile {
                frame: frame.to_string(),
                seed: seed.to_string(),
                cases: Vec::new(),
            },
        }
    }

    /// A positive case: `value` and its bytes, which are returned to derive negative cases.
    fn valid<F: Frame>(&mut self, what: &str, seed: &str, description: &str, value: &F) -> Vec<u8> {
        let name = format!("{}/{what}", self.file.frame);
        assert_eq!(F::NAME, self.file.frame, "{name}: a value of another frame");
        let bytes = value
            .to_bytes()
            .unwrap_or_else(|e| panic!("{name}: the case's value does not encode: {e}"));
        let json = OrderedJson::of(value).unwrap_or_else(|e| panic!("{name}: no JSON form: {e}"));
        self.file.cases.push(FrameCase {
            basis: None,
            name,
            description: description.to_string(),
            seed: seed.to_string(),
            hex: hex_spaced(&bytes),
            value: Some(json),
            error: None,
        });
        bytes
    }

    /// A negative case: `bytes` must fail with `fault`.
    fn invalid(&mut self, what: &str, seed: &str, description: &str, bytes: &[u8], fault: Fault) {
        self.file.cases.push(FrameCase {
            basis: None,
            name: format!("{}/{what}", self.file.frame),
            description: description.to_string(),
            seed: seed.to_string(),
            hex: hex_spaced(bytes),
            value: None,
            error: Some(ExpectedError {
                kind: fault.kind.as_str().to_string(),
                offset: fault.offset,
                bit: fault.bit,
                path: fault.path.to_string(),
            }),
        });
    }

    /// The negative case every frame keeps: its first byte another frame's (the derived
    /// `bad_constant` uses a value no frame has).
    fn common(&mut self, valid: &[u8], first: &'static str, wrong: u8) {
        self.invalid(
            &format!("bad_{first}"),
            CANONICAL,
            &format!(
                "the {first} byte is {wrong}, another frame's (kept: another frame's {first}: the derived case uses one no frame has)"
            ),
            &put(valid, 0, &[wrong]),
            at(ErrorKind::BadConstant, 0, first),
        );
    }

    fn done(self) -> FrameFile {
        self.file
    }
}

/// The bytes of `value`, a frame kept only as the base of the faults written from it.
fn bytes_of<F: Frame>(value: &F) -> Vec<u8> {
    value
        .to_bytes()
        .unwrap_or_else(|e| panic!("a base frame does not encode: {e}"))
}

/// The first `n` bytes.
fn cut(bytes: &[u8], n: usize) -> Vec<u8> {
    bytes[..n].to_vec()
}

/// `bytes` with `with` written over it from `at`.
fn put(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + with.len()].copy_from_slice(with);
    out
}

/// `bytes` with `remove` bytes at `at` replaced by `insert`.
fn splice(bytes: &[u8], at: usize, remove: usize, insert: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.splice(at..at + remove, insert.iter().copied());
    out
}

/// `bytes` with the `width` bits from frame bit `bit` set to `value`, least significant bit
/// first (the packed bodies' bit order).
fn set_bits(bytes: &[u8], bit: usize, width: usize, value: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for i in 0..width {
        let (byte, shift) = ((bit + i) / 8, (bit + i) % 8);
        if value >> i & 1 == 1 {
            out[byte] |= 1 << shift;
        } else {
            out[byte] &= !(1 << shift);
        }
    }
    out
}

/// u64::MAX as a varint: ten bytes.
const MAX_VARINT: [u8; 10] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
/// Positive infinity, f32 little endian.
const INF_F32: [u8; 4] = [0x00, 0x00, 0x80, 0x7f];
/// Negative infinity, f32 little endian.
const NEG_INF_F32: [u8; 4] = [0x00, 0x00, 0x80, 0xff];

// Quantized values exactly as the generated decoders compute them from the wire integer, so
// that a value encodes to that integer and decodes to the same float.

/// `quant(u16, 360/65536)`.
fn yaw16(wire: u16) -> f64 {
    f64::from(wire) * (360.0 / 65536.0)
}

/// `quant(u8, 360/256)`.
fn yaw8(wire: u8) -> f64 {
    f64::from(wire) * (360.0 / 256.0)
}

/// `quant(i8, 1/127)`.
fn stick(wire: i8) -> f64 {
    f64::from(wire) * (1.0 / 127.0)
}

/// `quant(u8, 1/8)`.
fn eighths(wire: u8) -> f64 {
    f64::from(wire) * (1.0 / 8.0)
}

/// `quant(i24, 1/64)` and `quant(i20, 1/64)`.
fn sixty_fourths(wire: i32) -> f64 {
    f64::from(wire) * (1.0 / 64.0)
}

/// `quant(u9, 360/512)`.
fn yaw9(wire: u16) -> f64 {
    f64::from(wire) * (360.0 / 512.0)
}

// ---- acked, kind 6 ----

/// A change of `eid` with `mask` and no group yet.
fn change(eid: u16, mask: ChangeMask) -> Change {
    Change {
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

/// An acked frame with an empty body.
fn acked_header(
    tick: u32,
    base_tick: u32,
    last_seq: u32,
    input_buffer: u8,
    flags: AckedFlags,
) -> Acked {
    Acked {
        tick,
        base_tick,
        last_seq,
        input_buffer,
        flags,
        check: None,
        removed: Vec::new(),
        changes: Vec::new(),
        first_serial: None,
        events: Vec::new(),
    }
}

fn acked() -> FrameFile {
    let mut b = Book::new("acked", ACKED_SEED);
    let s = ACKED_SEED;

    // 0 kind | 1 tick | 5 base_tick | 9 last_seq | 13 input_buffer | 14 flags
    // | 15 removed_count | 17 changed_count | 19 removed[0]
    // | 21 changes[0]: eid, 23 mask, 25 pose_step (dx 25, dy 27, dz 29, yaw 31)
    // | 32 changes[1]: eid, 34 mask, 36 health | 38 event_count | 39 first_serial
    // | 43 events[0] tag, 44 blast (x 44, y 48, z 52, radius 56) | 57 end
    let typical = b.valid(
        "typical",
        s,
        "a delta onto tick 990: one entity removed, a pose step and a health change, one blast (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &Acked {
            removed: vec![7],
            changes: vec![
                Change {
                    pose_step: Some(PoseStep {
                        dx: 12,
                        dy: -4,
                        dz: 0,
                        yaw: yaw8(64),
                    }),
                    ..change(3, bits!(ChangeMask, POSE))
                },
                Change {
                    health: Some(Health { hp: 75, armor: 20 }),
                    ..change(9, bits!(ChangeMask, HEALTH))
                },
            ],
            first_serial: Some(41),
            events: vec![Event::Blast(Blast {
                x: 10.5,
                y: -4.25,
                z: 0.0,
                radius: eighths(24),
            })],
            ..acked_header(1000, 990, 480, 2, AckedFlags::empty())
        },
    );

    // 19 changes[0]: eid, 21 mask, 23 pose_full (x 23, y 27, z 31, yaw 35), 37 health
    // | 39 event_count | 40 end
    let keyframe = bytes_of(&Acked {
        changes: vec![Change {
            pose_full: Some(PoseFull {
                x: 12.5,
                y: -3.25,
                z: 0.5,
                yaw: yaw16(32768),
            }),
            health: Some(Health { hp: 100, armor: 0 }),
            ..change(1, bits!(ChangeMask, POSE, POSE_FULL, HEALTH))
        }],
        ..acked_header(5000, 0, 470, 3, bits!(AckedFlags, KEYFRAME))
    });

    b.valid(
        "extremes",
        s,
        "u32::MAX ticks, serial and check, eid 65535, i16 step extremes, f32::MAX and -0.0, top quant steps (kept: -0.0, a subnormal and f32::MAX side by side: the derived cases hold floats at 0, at -MAX and MAX, and at drawn values)",
        &Acked {
            check: Some(u32::MAX),
            removed: vec![0, u16::MAX],
            changes: vec![
                Change {
                    age: Some(u8::MAX),
                    pose_full: Some(PoseFull {
                        x: f32::MAX,
                        y: f32::MIN,
                        z: -0.0,
                        yaw: yaw16(u16::MAX),
                    }),
                    health: Some(Health { hp: u8::MAX, armor: u8::MAX }),
                    vehicle: Some(Vehicle { vehicle: u16::MAX, seat: u8::MAX }),
                    ..change(u16::MAX - 1, bits!(ChangeMask, POSE, HEALTH, VEHICLE, POSE_FULL, POSE_AGE))
                },
                Change {
                    pose_step: Some(PoseStep { dx: i16::MIN, dy: i16::MAX, dz: -1, yaw: yaw8(u8::MAX) }),
                    ..change(u16::MAX, bits!(ChangeMask, POSE))
                },
            ],
            first_serial: Some(u32::MAX),
            events: vec![
                Event::Blast(Blast {
                    x: f32::from_bits(1),
                    y: -f32::MIN_POSITIVE,
                    z: 1e30,
                    radius: eighths(u8::MAX),
                }),
                Event::Shot(Shot { shooter: u16::MAX, weapon: u8::MAX, yaw: yaw16(u16::MAX) }),
            ],
            ..acked_header(u32::MAX, u32::MAX - 1, u32::MAX, u8::MAX, bits!(AckedFlags, CHECK))
        },
    );

    b.common(&typical, "kind", 7);
    let c = CANONICAL;

    b.invalid(
        "reserved_flag_7",
        c,
        "flags bit 7 is reserved, beside KEYFRAME (kept: the highest reserved bit: the derived case sets the lowest)",
        &put(&keyframe, 14, &[0x81]),
        at(ErrorKind::ReservedBit, 14, "flags"),
    );
    // Bit 3 is ORIENT since issue 19: bit 4 is the first reserved bit after the groups.

    b.invalid(
        "reserved_mask_bit_13",
        c,
        "change mask bit 13 (the last before POSE_FULL) is reserved (kept: a reserved bit between the groups and POSE_FULL: the derived case sets the lowest)",
        &put(&typical, 34, &[0x02, 0x20]),
        at(ErrorKind::ReservedBit, 34, "changes[1].mask"),
    );

    b.invalid(
        "pose_age_without_pose",
        "ACK-6 (POSE_AGE is only valid with POSE)",
        "a mask of HEALTH and POSE_AGE, without POSE (kept: the second bit that requires POSE: the derived case tries the first)",
        &put(&typical, 34, &[0x02, 0x80]),
        at(ErrorKind::InvalidCondition, 34, "changes[1].mask"),
    );
    b.invalid(
        "unknown_event_tag_9",
        c,
        "event tag 9 names no event (kept: a tag past the last variant's: the derived case uses the least unused tag, 0)",
        &put(&typical, 43, &[9]),
        at(ErrorKind::UnknownTag, 43, "events[0]"),
    );

    b.invalid(
        "infinity_in_pose_full",
        c,
        "the full pose's y is +infinity (kept: an infinity: the derived cases use a NaN)",
        &put(&keyframe, 27, &INF_F32),
        at(ErrorKind::NonFinite, 27, "changes[0].pose_full.y"),
    );

    b.invalid(
        "events_without_serial",
        c,
        "an event count of 0 leaves first_serial and the event as bytes after the frame (kept: a count that switches a condition off turns the fields it guarded into trailing bytes: the derived cases change one field at a time)",
        &put(&typical, 38, &[0]),
        at(ErrorKind::TrailingBytes, 39, ""),
    );
    acked_orient(&mut b);
    b.done()
}

/// A smallest-three orientation: the dropped component's index and the other three.
fn orientation(largest: u8, rest: [i16; 3]) -> Orientation {
    Orientation {
        q: SmallestThree { largest, rest },
    }
}

/// The orientation's canonical rules.
const QUAT_RULES: &str = "WIRE-20 (smallest three: the dropped component is the one of \
largest magnitude, the lowest index on a tie, made non-negative) / spec/LANGUAGE.md";

/// The ORIENT group of kind 6 (issue 19): a change carrying an orientation, the quaternion's
/// canonical rules at their boundaries, and a fault of each.
///
/// `quat(9)`: R = 255, 2R^2 = 130050; with S the sum of the sent squares and D = 2R^2 - S,
/// a sent component before the dropped one (in x, y, z, w) needs `c^2 < D`, one after it
/// `c^2 <= D`.
fn acked_orient(b: &mut Book) {
    let s = QUAT_RULES;
    // 0 kind | 1 tick | 5 base_tick | 9 last_seq | 13 input_buffer | 14 flags
    // | 15 removed_count | 17 changed_count | 19 changes[0]: eid, 21 mask, 23 pose_step
    // (dx 23, dy 25, dz 27, yaw 29), 30 orient: bits 240..242 largest, 242..251 rest[0],
    // 251..260 rest[1], 260..269 rest[2], 269..272 padding | 34 event_count | 35 end
    let frame = |q: Orientation| Acked {
        changes: vec![Change {
            pose_step: Some(PoseStep {
                dx: 12,
                dy: -4,
                dz: 0,
                yaw: yaw8(0),
            }),
            orient: Some(q),
            ..change(3, bits!(ChangeMask, POSE, ORIENT))
        }],
        ..acked_header(1000, 990, 480, 2, AckedFlags::empty())
    };
    let oriented = bytes_of(&frame(orientation(3, [12, -4, 200])));
    b.valid(
        "orientation_identity",
        s,
        "the identity: w dropped, the three sent all 0 (kept: the identity rotation: the derived cases put the components at the rules' edges or draw them)",
        &frame(orientation(3, [0, 0, 0])),
    );

    b.valid(
        "orientation_tie_after",
        s,
        "x dropped, y = 255 = the dropped x's magnitude: a tie goes to the lowest index, so a \
         component after the dropped one may equal it (65025 <= D = 65025) (kept: a tie after the dropped index, which the rules allow: the derived cases tie only before it)",
        &frame(orientation(0, [255, 0, 0])),
    );
    b.valid(
        "orientation_tie_after_negative",
        s,
        "x dropped, y = -255 (the most negative value): a tie after the dropped index (kept: a tie after the dropped index at the most negative value)",
        &frame(orientation(0, [-255, 0, 0])),
    );
    b.valid(
        "orientation_just_under_before",
        s,
        "z dropped, x = -254: a component before the dropped one just under it (64516 < 65534) (kept: one under the strict bound before the dropped index)",
        &frame(orientation(2, [-254, 0, 0])),
    );
    b.valid(
        "orientation_every_component_sent",
        s,
        "y dropped, x, z, w = 147, -147, 147: S = 64827 and each square under D = 65223 (kept: three components near the bound at once)",
        &frame(orientation(1, [147, -147, 147])),
    );
    let c = CANONICAL;

    b.invalid(
        "orientation_component_over_width_last",
        QUAT_RULES,
        "rest[2] is -256 (kept: the third component out of range: the derived case puts the first there)",
        &set_bits(&oriented, 260, 9, 0x100),
        at_bit(ErrorKind::OverWidth, 240, "changes[0].orient.q"),
    );
    let quat = |largest: u64, rest: [i16; 3]| {
        let mut out = set_bits(&oriented, 240, 2, largest);
        for (i, r) in rest.iter().enumerate() {
            out = set_bits(&out, 242 + 9 * i, 9, u64::from(*r as u16) & 0x1ff);
        }
        out
    };

    b.invalid(
        "orientation_larger_before",
        QUAT_RULES,
        "w dropped, x = y = 255: D = 0, so x is larger than the dropped w (kept: D = 0 with a component before the dropped one: the derived case ties one)",
        &quat(3, [255, 255, 0]),
        at_bit(ErrorKind::NonCanonical, 240, "changes[0].orient.q"),
    );
    b.invalid(
        "orientation_larger_after",
        QUAT_RULES,
        "x dropped, y = 255, z = 100: D = 55025 < 65025, y is larger than the dropped x (kept: a component after the dropped one larger than it: the derived case ties one before it)",
        &quat(0, [255, 100, 0]),
        at_bit(ErrorKind::NonCanonical, 240, "changes[0].orient.q"),
    );
    b.invalid(
        "orientation_past_unit",
        QUAT_RULES,
        "w dropped, all three 255: S = 195075 is past 2R^2, no unit quaternion has them (kept: a sum of squares past 2R^2, no unit quaternion: the derived case stays within it)",
        &quat(3, [255, 255, 255]),
        at_bit(ErrorKind::NonCanonical, 240, "changes[0].orient.q"),
    );
    b.invalid(
        "orientation_padding_bit",
        c,
        "the orientation's last padding bit (271) is 1 (kept: the last padding bit: the derived case sets the first)",
        &set_bits(&oriented, 271, 1, 1),
        at_bit(ErrorKind::ReservedBit, 271, "changes[0].orient"),
    );
}

// ---- acked_packed, kind 12 ----

/// A packed change of `eid` with `mask` and no group yet.
fn packed_change(eid: u16, mask: PackedMask) -> PackedChange {
    PackedChange {
        eid: eid.into(),
        mask,
        age: None,
        pose_full: None,
        pose_step: None,
        health: None,
        vehicle: None,
        orient: None,
    }
}

/// A packed pose step.
fn packed_step(dx: i16, dy: i16, dz: i16, yaw: u8) -> Box<PackedPoseStep> {
    Box::new(PackedPoseStep {
        dx: dx.into(),
        dy: dy.into(),
        dz: dz.into(),
        yaw: yaw.into(),
    })
}

/// A kind 12 frame with no change.
fn packed_header(
    tick: u32,
    base_tick: u32,
    last_seq: u32,
    input_buffer: u8,
    flags: AckedFlags,
) -> AckedPacked {
    AckedPacked {
        tick,
        base_tick,
        last_seq,
        input_buffer,
        flags,
        check: None,
        removed: Vec::new(),
        body: PackedChanges {
            changes: Vec::new(),
        },
        first_serial: None,
        events: Vec::new(),
    }
}

/// The rules of kind 12.
const PACKED_SEED: &str = "ACK-14, ACK-15 (spec/protocol/acked_packed.wire)";

/// Kind 12: every bucket of every bucketed field at its edges, an orientation, every group,
/// and a fault of every kind the frame can meet.
///
/// The codes (least significant bit first, the bucket index in unary: `i` one bits then a
/// zero, the last bucket's `k-1` one bits alone; then the value less the bucket's base):
/// - eid `bucket(2, 3, 4, 5, 16)`: bases 0, 4, 12, 28, 60; 3, 5, 7, 9 and 20 bits;
/// - age `bucket(2, 3, 4, 8)`: bases 0, 4, 12, 28; 3, 5, 7 and 11 bits;
/// - steps `zbucket(0, 7, 8, 9, 16)`, zigzag-mapped: bases 0, 1, 129, 385, 897; 1, 9, 11, 13
///   and 20 bits;
/// - yaw `bucket(0, 8)`: 0 in 1 bit, 1..=256 in 9.
fn acked_packed() -> FrameFile {
    let mut b = Book::new("acked_packed", PACKED_SEED);
    let s = PACKED_SEED;

    // 0 kind | 1 tick | 5 base_tick | 9 last_seq | 13 input_buffer | 14 flags
    // | 15 removed_count | 17 removed[0] | 19 body (bit 152): changed_count 152..168
    // | changes[0]: eid 168..171 (bucket 0: "0", 3), mask 171..177 (POSE, ORIENT),
    //   dx 177..186 (12, zigzag 24: bucket 1, "01", 23), dy 186..195 (-4, zigzag 7: bucket 1,
    //   6), dz 195 (0), yaw 196 (0), orient 197..226 (largest 197..199, rest 199..208,
    //   208..217, 217..226)
    // | changes[1]: eid 226..231 (gap 6: bucket 1, "01", 2), mask 231..237 (HEALTH),
    //   hp 237..245, armor 245..253 | padding 253..256
    // | 32 event_count | 33 first_serial | 37 events[0] tag, 38 blast | 51 end
    let typical = b.valid(
        "typical",
        s,
        "a delta onto tick 990: one entity removed, a pose step with an orientation, a health change, one blast (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &AckedPacked {
            removed: vec![7],
            body: PackedChanges {
                changes: vec![
                    PackedChange {
                        pose_step: Some(packed_step(12, -4, 0, 0)),
                        orient: Some(orientation(3, [12, -4, 200])),
                        ..packed_change(3, bits!(PackedMask, POSE, ORIENT))
                    },
                    PackedChange {
                        health: Some(PackedHealth { hp: 75, armor: 20 }),
                        ..packed_change(9, bits!(PackedMask, HEALTH))
                    },
                ],
            },
            first_serial: Some(41),
            events: vec![Event::Blast(Blast {
                x: 10.5,
                y: -4.25,
                z: 0.0,
                radius: eighths(24),
            })],
            ..packed_header(1000, 990, 480, 2, AckedFlags::empty())
        },
    );

    // 17 body (bit 136): changed_count 136..152 | changes[0]: eid 152..155 (0), mask 155..161
    // (POSE), dx 161..172 (100, zigzag 200: bucket 2, "011", 71), dy 172, dz 173, yaw 174
    // | changes[1]: eid 175..195 (gap 65535: "1111", 65475), mask 195..201 | padding
    // 201..208 | 26 event_count | 27 end
    let long_gap = b.valid(
        "long_gap",
        s,
        "id 0 with a step, then id 65535: the largest gap, in the last bucket (kept: the largest difference between two ids, in the last bucket: the derived cases put bucket edges on the first id only)",
        &AckedPacked {
            body: PackedChanges {
                changes: vec![
                    PackedChange {
                        pose_step: Some(packed_step(100, 0, 0, 0)),
                        ..packed_change(0, bits!(PackedMask, POSE))
                    },
                    packed_change(u16::MAX, PackedMask::empty()),
                ],
            },
            ..packed_header(1005, 1000, 484, 0, AckedFlags::empty())
        },
    );

    b.common(&typical, "kind", 6);
    let c = CANONICAL;

    b.invalid(
        "truncated_in_eid_prefix",
        c,
        "the input ends after the first bit of the second id's unary prefix (175..179) (kept: cut inside a bucket code's unary prefix: the derived cut falls where the field's byte boundary does)",
        &cut(&long_gap, 22),
        at_bit(ErrorKind::Truncated, 176, "body.changes[1].eid"),
    );

    b.invalid(
        "pose_age_without_pose",
        "ACK-6 (POSE_AGE is only valid with POSE)",
        "the second change's mask is HEALTH and POSE_AGE, without POSE (kept: the second bit that requires POSE: the derived case tries the first)",
        &set_bits(&typical, 231, 6, 0x22),
        at_bit(ErrorKind::InvalidCondition, 231, "body.changes[1].mask"),
    );
    b.invalid(
        "padding_bit_set",
        c,
        "the body's last padding bit (255) is 1 (kept: the last padding bit: the derived case sets the first)",
        &set_bits(&typical, 255, 1, 1),
        at_bit(ErrorKind::ReservedBit, 255, "body"),
    );

    b.done()
}

// ---- ack, kind 7 ----

/// An input.
fn input(tick: u32, buttons: Buttons, move_x: i8, move_y: i8, yaw: u16) -> Input {
    Input {
        tick,
        buttons,
        move_x: stick(move_x),
        move_y: stick(move_y),
        yaw: yaw16(yaw),
    }
}

fn ack() -> FrameFile {
    let mut b = Book::new("ack", ACK_SEED);
    let s = ACK_SEED;

    // 0 kind | 1 ack_tick | 5 flags | 6 input_count | 7 first_seq
    // | 11 inputs[0] | 20 inputs[1] (buttons 24) | 29 inputs[2] | 38 end
    let typical = b.valid(
        "typical",
        s,
        "frame 990 applied; inputs 480 to 482 aimed at ticks 1002 to 1004, repeated for loss (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &Ack {
            ack_tick: 990,
            flags: AckFlags::empty(),
            first_seq: Some(480),
            inputs: vec![
                input(1002, bits!(Buttons, FIRE), 127, 0, 16384),
                input(1003, bits!(Buttons, FIRE, JUMP), -64, 32, 16400),
                input(1004, Buttons::empty(), 0, 0, 0),
            ],
        },
    );

    b.common(&typical, "kind", 6);

    b.done()
}

// ---- snapshot, kind 8 (bit-packed body) ----

/// An entry with a narrow gap and no component.
fn entry(gap: u8, generation: u8) -> Entry {
    Entry {
        wide: false,
        gap: Some(gap),
        wide_gap: None,
        generation,
        mask: ComponentMask::empty(),
        transform: None,
        velocity: None,
        health: None,
        team: None,
    }
}

fn transform(x: i32, y: i32, z: i32, yaw: u16) -> Transform {
    Transform {
        x: sixty_fourths(x),
        y: sixty_fourths(y),
        z: sixty_fourths(z),
        yaw: yaw9(yaw),
    }
}

fn snapshot() -> FrameFile {
    let mut b = Book::new("snapshot", BASELINE_SEED);
    let s = BASELINE_SEED;
    // Body bits (from the frame's start): lost_count 24..31 | lost[0] slot 31..55,
    // generation 55..63 | entry_count 63..79 | entries[0] wide 79, gap 80..87,
    // generation 87..95, mask 95..99, transform 99..176 | entries[1] wide 176, gap 177..184,
    // generation 184..192, mask 192..196, health 196..203, team 203..206 | padding 206..208.
    let typical = b.valid(
        "typical",
        s,
        "one lost entity, an entry at slot 3 with its transform and one at slot 4 with health and team (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &Snapshot {
            sequence: 300,
            body: SnapshotBody {
                lost: vec![EntityRef { slot: 17, generation: 2 }],
                entries: vec![
                    Entry {
                        mask: bits!(ComponentMask, TRANSFORM),
                        transform: Some(transform(96, -128, 16, 128)),
                        ..entry(3, 1)
                    },
                    Entry {
                        mask: bits!(ComponentMask, HEALTH, TEAM),
                        health: Some(Vitality { hp: 100 }),
                        team: Some(Team { team: 2 }),
                        ..entry(0, 4)
                    },
                ],
            },
        },
    );

    b.common(&typical, "kind", 11);
    let c = CANONICAL;

    b.invalid(
        "truncated_before_entry",
        c,
        "the input ends where the second entry starts, on a byte boundary (kept: a one-bit field cut at the byte boundary it starts on: its derived case cannot be made, the field before it ending in the same byte)",
        &cut(&typical, 22),
        at_bit(ErrorKind::Truncated, 176, "body.entries[1].wide"),
    );

    b.invalid(
        "padding_bit_set",
        c,
        "the last padding bit of the body is 1 (kept: the last padding bit: the derived case sets the first)",
        &set_bits(&typical, 207, 1, 1),
        at_bit(ErrorKind::ReservedBit, 207, "body"),
    );

    b.done()
}

// ---- snapshot_ack, kind 11 ----

fn snapshot_ack() -> FrameFile {
    let mut b = Book::new("snapshot_ack", SNAPSHOT_ACK_SEED);
    let s = SNAPSHOT_ACK_SEED;

    let typical = b.valid(
        "typical",
        s,
        "snapshot 300 received (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &SnapshotAck { sequence: 300 },
    );

    b.common(&typical, "kind", 8);

    b.done()
}

// ---- datagram, version 2 ----

/// An update of `id` with `mask` and no part yet.
fn update(id: u64, spawn_tag: u16, mask: UpdateMask) -> Update {
    Update {
        id,
        spawn_tag,
        mask,
        x: None,
        y: None,
        z: None,
        components: None,
    }
}

/// A component with bytes.
fn component(r#type: u8, data: &[u8]) -> Component {
    Component {
        r#type,
        data: Some(data.to_vec()),
    }
}

/// A component's removal.
fn removal(r#type: u8) -> Component {
    Component { r#type, data: None }
}

/// A datagram with no update.
fn datagram_header(
    frame: u64,
    tick: u64,
    input_ack: u64,
    stream_tick: u64,
    precision: f32,
    parts: u32,
) -> Datagram {
    Datagram {
        frame,
        tick,
        input_ack,
        stream_tick,
        precision,
        parts,
        updates: Vec::new(),
    }
}

/// The datagram worked out by hand, byte by byte (DG-1, DG-4), in the tests below: frame 1 of tick
/// 300, input ack 17, stream tick 290, a precision of 0.01 m; entity 5 (spawned at tick 290)
/// at x 250, y -3, and entity 12 (spawn tag 0x0102) at z -1 with a component of type 3.
fn seed_003_datagram() -> Datagram {
    Datagram {
        updates: vec![
            Update {
                x: Some(250),
                y: Some(-3),
                ..update(5, 290, bits!(UpdateMask, X, Y))
            },
            Update {
                z: Some(-1),
                components: Some(vec![component(3, &[0xaa, 0xbb])]),
                ..update(12, 0x0102, bits!(UpdateMask, Z, COMPONENTS))
            },
        ],
        ..datagram_header(1, 300, 17, 290, 0.01, 1)
    }
}

fn datagram() -> FrameFile {
    let mut b = Book::new("datagram", DATAGRAM_SEED);
    let s = DATAGRAM_SEED;
    // 0 version | 1 frame | 2 tick (2 bytes) | 4 input_ack | 5 stream_tick (2 bytes)
    // | 7 precision | 11 parts | 12 update_count
    // | 13 updates[0]: id, 14 spawn_tag, 16 mask, 17 x (2 bytes), 19 y
    // | 20 updates[1]: id delta, 21 spawn_tag, 23 mask, 24 z, 25 component count,
    //   26 components[0] type, 27 length + 1, 28 data (2 bytes) | 30 end
    let example = b.valid(
        "seed_003_example",
        s,
        "worked out by hand, byte by byte: two updates, ids 5 and 12 (delta 7), axes x y then z and a component (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &seed_003_datagram(),
    );

    b.valid(
        "wide_id_gaps",
        s,
        "id differences of 1, 127, 128 and 2^32 (1, 1, 2 and 5 varint bytes) (kept: id differences at the varint's length boundaries: the derived lists ascend by 1 or by drawn steps)",
        &Datagram {
            updates: vec![
                update(0, 0, UpdateMask::empty()),
                update(1, 0, UpdateMask::empty()),
                update(128, 0, UpdateMask::empty()),
                update(256, 0, UpdateMask::empty()),
                update(256 + (1 << 32), 0, UpdateMask::empty()),
            ],
            ..datagram_header(11, 412, 202, 400, 0.05, 1)
        },
    );
    b.valid(
        "extremes",
        s,
        "10-byte varints (u64::MAX frame, id difference, zigzag i64 extremes), 2^53 as a string, max parts (kept: 2^53, the first integer the JSON form writes as a string: the derived cases hold 0, the ends of each range and drawn values)",
        &Datagram {
            updates: vec![
                Update {
                    x: Some(i64::MIN),
                    y: Some(i64::MAX),
                    z: Some(-(1 << 53)),
                    ..update(0, u16::MAX, bits!(UpdateMask, X, Y, Z))
                },
                Update {
                    x: Some((1 << 53) - 1),
                    components: Some(vec![component(u8::MAX, &[0x5a; 127]), removal(0)]),
                    ..update(u64::MAX, 0, bits!(UpdateMask, X, COMPONENTS))
                },
            ],
            ..datagram_header(u64::MAX, 1 << 53, (1 << 53) - 1, u64::MAX - 1, f32::MAX, (1 << 21) - 1)
        },
    );
    b.valid(
        "tiny_precision",
        s,
        "the smallest subnormal f32 as the precision (kept: the smallest subnormal f32, whose JSON form every language must read back exactly)",
        &datagram_header(2, 301, 17, 290, f32::from_bits(1), 1),
    );
    b.common(&example, "version", 1);
    let c = CANONICAL;

    b.invalid(
        "non_canonical_id_delta",
        c,
        "the second id's difference 7 written as 87 80 00 (kept: two bytes longer than needed: the derived case is one byte longer)",
        &splice(&example, 20, 1, &[0x87, 0x80, 0x00]),
        at(ErrorKind::NonCanonicalVarint, 20, "updates[1].id"),
    );

    b.invalid(
        "reserved_mask_bit_7",
        "DG-4 (mask bits other than 1, 2, 4, 8 are reserved)",
        "update mask bit 7 (0x80) is reserved (kept: the highest reserved bit: the derived case sets the lowest)",
        &put(&example, 23, &[0x8c]),
        at(ErrorKind::ReservedBit, 23, "updates[1].mask"),
    );

    b.invalid(
        "infinite_precision",
        c,
        "the precision is -infinity (kept: an infinity: the derived cases use a NaN)",
        &put(&example, 7, &NEG_INF_F32),
        at(ErrorKind::NonFinite, 7, "precision"),
    );

    b.invalid(
        "huge_component_length",
        c,
        "a component's length + 1 of u64::MAX (kept: a length of u64::MAX, whose product with the least size overflows: the derived case is one past what fits)",
        &splice(&example, 27, 1, &MAX_VARINT),
        at(
            ErrorKind::CountTooLarge,
            37,
            "updates[1].components[0].data",
        ),
    );
    b.done()
}

// ---- spawn, kind 1 ----

fn spawn() -> FrameFile {
    let mut b = Book::new("spawn", STREAM_SEED);
    let s = STREAM_SEED;

    // 0 kind | 1 tick (2 bytes) | 3 id | 4 precision | 8 x (2 bytes) | 10 y | 11 z
    // | 12 component count | 13 components[0] type, 14 length + 1, 15 data (2 bytes)
    // | 17 components[1] type, 18 length + 1 | 19 end
    let typical = b.valid(
        "typical",
        s,
        "entity 5 spawned at tick 290 (its spawn tag), two components, one of them empty (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &Spawn {
            tick: 290,
            id: 5,
            precision: 0.01,
            x: 250,
            y: -3,
            z: 0,
            components: vec![component(1, &[0x0a, 0x0b]), component(2, &[])],
        },
    );
    b.valid(
        "extremes",
        s,
        "u64::MAX tick, 2^53 id (a string), zigzag i64 extremes, a 127-byte component (length + 1 = 128, two bytes) (kept: a length + 1 of 128, the first that needs a second varint byte, and 2^53 as a string: the derived cases hold 0, the ends of each range and drawn values)",
        &Spawn {
            tick: u64::MAX,
            id: 1 << 53,
            precision: f32::MIN_POSITIVE,
            x: i64::MIN,
            y: i64::MAX,
            z: -1,
            components: vec![component(0, &[0xee; 127])],
        },
    );
    b.common(&typical, "kind", 2);

    b.done()
}

// ---- despawn, kind 2 ----

fn despawn() -> FrameFile {
    let mut b = Book::new("despawn", STREAM_SEED);
    let s = STREAM_SEED;
    // 0 kind | 1 tick (2 bytes) | 3 id | 4 end
    let typical = b.valid(
        "typical",
        s,
        "entity 5 leaves at tick 300 (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &Despawn { tick: 300, id: 5 },
    );

    b.common(&typical, "kind", 1);

    b.done()
}

// ---- full_frame, kind 3 ----

/// An entity of a full frame.
fn full_entity(id: u64, x: i64, y: i64, z: i64, components: Vec<Component>) -> FullEntity {
    FullEntity {
        id,
        x,
        y,
        z,
        components,
    }
}

fn full_frame() -> FrameFile {
    let mut b = Book::new("full_frame", STREAM_SEED);
    let s = STREAM_SEED;

    // 0 kind | 1 tick (2 bytes) | 3 precision | 7 entity_count
    // | 8 entities[0]: id, 9 x, 10 y, 11 z, 12 component count
    // | 13 entities[1]: id delta, 14 x, 15 y, 16 z, 17 component count, 18 type, 19 length + 1,
    //   20 data | 21 entities[2]: id delta (2 bytes), 23 x, 24 y, 25 z, 26 component count
    // | 27 end
    let typical = b.valid(
        "typical",
        s,
        "three entities, ids 5, 12, 300 (differences 5, 7, 288), one with a component (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &FullFrame {
            tick: 290,
            precision: 0.5,
            entities: vec![
                full_entity(5, 1, 2, 3, Vec::new()),
                full_entity(12, -1, 0, 0, vec![component(4, &[0xff])]),
                full_entity(300, 0, 0, 0, Vec::new()),
            ],
        },
    );

    b.common(&typical, "kind", 1);
    let c = CANONICAL;

    b.invalid(
        "huge_entity_count",
        c,
        "an entity count of u64::MAX (kept: a count of u64::MAX, whose product with the least size overflows: the derived case is one past what fits)",
        &splice(&typical, 7, 1, &MAX_VARINT),
        at(ErrorKind::CountTooLarge, 17, "entities"),
    );
    b.done()
}

// ---- datagram_ack, kind 4 ----

fn datagram_ack() -> FrameFile {
    let mut b = Book::new("datagram_ack", DATAGRAM_ACK_SEED);
    let s = DATAGRAM_ACK_SEED;

    // 0 kind | 1 frame | 2 stream_tick (2 bytes) | 4 end
    let typical = b.valid(
        "typical",
        s,
        "datagram 17 received, stream applied up to tick 290 (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &DatagramAck {
            frame: 17,
            stream_tick: 290,
        },
    );
    b.valid(
        "extremes",
        s,
        "u64::MAX frame (10 bytes, a string), stream tick 2^53 - 1 (the largest plain JSON number) (kept: 2^53 - 1, the largest integer the JSON form writes as a plain number: the derived cases hold 0, the ends of each range and drawn values)",
        &DatagramAck {
            frame: u64::MAX,
            stream_tick: (1 << 53) - 1,
        },
    );
    b.common(&typical, "kind", 3);

    b.done()
}

// ---- delta_plan, kind 9 ----

/// A SlotKey: (index << 16) | generation (DELTA-3).
fn slot_key(index: u32, generation: u16) -> u64 {
    (u64::from(index) << 16) | u64::from(generation)
}

fn delta_plan() -> FrameFile {
    let mut b = Book::new("delta_plan", DELTA_SEED);
    let s = DELTA_SEED;

    // 0 kind | 1 flags | 2 sequence | 3 baseline_seq | 4 entered count
    // | 5 entered[0] (3 bytes) | 8 entered[1] delta (3 bytes) | 11 left count | 12 left[0] (3 bytes)
    // | 15 end
    let typical = b.valid(
        "typical",
        s,
        "differences against sequence 40: keys (3,1) and (7,2) entered, (5,1) left (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &DeltaPlan {
            flags: bits!(PlanFlags, BASELINE),
            sequence: 42,
            baseline_seq: Some(40),
            entered: vec![slot_key(3, 1), slot_key(7, 2)],
            left: vec![slot_key(5, 1)],
        },
    );

    b.common(&typical, "kind", 10);
    let c = CANONICAL;

    b.invalid(
        "reserved_flag_7",
        c,
        "plan flags bit 7 is reserved (kept: the highest reserved bit: the derived case sets the lowest)",
        &put(&typical, 1, &[0x82]),
        at(ErrorKind::ReservedBit, 1, "flags"),
    );

    b.done()
}

// ---- delta_ack, kind 10 ----

fn delta_ack() -> FrameFile {
    let mut b = Book::new("delta_ack", DELTA_ACK_SEED);
    let s = DELTA_ACK_SEED;

    // 0 kind | 1 newest | 2 mask (8 bytes) | 10 digest (8 bytes) | 18 end
    let typical = b.valid(
        "typical",
        s,
        "newest 42, 41 40 and 38 arrived too, the SetDigest of keys (3,1) and (7,2) (kept: a frame as a session writes it, which the derived cases, filled field by field, do not)",
        &DeltaAck {
            newest: 42,
            mask: 0b1011,
            digest: SetDigest::from_keys([slot_key(3, 1), slot_key(7, 2)]).digest(),
        },
    );
    b.valid(
        "empty_set",
        s,
        "nothing held: the digest of the empty set, mix64(0) (kept: a digest by the protocol's own arithmetic: the derived cases draw the digest's bits)",
        &DeltaAck {
            newest: 1,
            mask: 0,
            digest: SetDigest::new().digest(),
        },
    );

    b.common(&typical, "kind", 9);

    b.done()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::parse_hex;

    /// DG-1 and DG-4's layout, by hand: u8 version | varint frame | varint tick | varint input ack |
    /// varint stream tick | f32 LE precision | varint parts | varint update count | per update:
    /// id (delta-coded), u16 LE spawn tick, u8 mask (1 x, 2 y, 4 z, 8 components), the axes
    /// (zigzag), the components.
    const SEED_003_HEX: &str = concat!(
        "02 ",          // version 2
        "01 ",          // frame 1
        "ac 02 ",       // tick 300 = 0x2c | 0x80, 300 >> 7 = 2
        "11 ",          // input ack 17
        "a2 02 ",       // stream tick 290 = 0x22 | 0x80, 2
        "0a d7 23 3c ", // precision 0.01f32 = 0x3c23d70a
        "01 ",          // parts 1
        "02 ",          // 2 updates
        "05 ",          // id 5 (the first is absolute)
        "22 01 ",       // spawn tick 290 = 0x0122
        "03 ",          // mask x | y
        "f4 03 ",       // x 250: zigzag 500 = 0x74 | 0x80, 500 >> 7 = 3
        "05 ",          // y -3: zigzag 5
        "07 ",          // id 12 = 5 + 7
        "02 01 ",       // spawn tag 0x0102
        "0c ",          // mask z | components
        "01 ",          // z -1: zigzag 1
        "01 ",          // 1 component
        "03 ",          // type 3
        "03 ",          // length 2, + 1
        "aa bb",        // its bytes
    );

    #[test]
    fn the_seed_003_datagram_decodes_to_the_fields_of_the_table() {
        let bytes = parse_hex(SEED_003_HEX).unwrap();
        let d = Datagram::decode(&bytes).unwrap();
        assert_eq!(
            (d.frame, d.tick, d.input_ack, d.stream_tick),
            (1, 300, 17, 290)
        );
        assert_eq!(d.precision, 0.01f32);
        assert_eq!(d.parts, 1);
        assert_eq!(d.updates.len(), 2);
        let (a, b) = (&d.updates[0], &d.updates[1]);
        assert_eq!((a.id, a.spawn_tag, a.mask.bits()), (5, 290, 0x03));
        assert_eq!(
            (a.x, a.y, a.z, a.components.as_ref()),
            (Some(250), Some(-3), None, None)
        );
        assert_eq!((b.id, b.spawn_tag, b.mask.bits()), (12, 0x0102, 0x0c));
        assert_eq!((b.x, b.y, b.z), (None, None, Some(-1)));
        let c = b.components.as_ref().unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].r#type, c[0].data.as_deref()),
            (3, Some(&[0xaa, 0xbb][..]))
        );
        // And the case kept in code is that datagram.
        assert_eq!(d, seed_003_datagram());
        assert_eq!(seed_003_datagram().to_bytes().unwrap(), bytes);
    }

    #[test]
    fn the_smallest_frames_are_what_the_layouts_say() {
        let mut acked = vec![6];
        acked.extend([0; 19]);
        assert_eq!(
            acked_header(0, 0, 0, 0, AckedFlags::empty())
                .to_bytes()
                .unwrap(),
            acked
        );
        let snapshot = Snapshot {
            sequence: 0,
            body: SnapshotBody {
                lost: Vec::new(),
                entries: Vec::new(),
            },
        };
        assert_eq!(snapshot.to_bytes().unwrap(), [8, 0, 0, 0, 0, 0]);
        assert_eq!(
            SnapshotAck { sequence: 300 }.to_bytes().unwrap(),
            [0x0b, 0x2c, 0x01]
        );
        assert_eq!(
            Despawn { tick: 300, id: 5 }.to_bytes().unwrap(),
            [0x02, 0xac, 0x02, 0x05]
        );
    }

    #[test]
    fn the_helpers_write_what_they_say() {
        assert_eq!(set_bits(&[0, 0], 7, 2, 3), [0x80, 0x01]);
        assert_eq!(set_bits(&[0xff], 1, 1, 0), [0xfd]);
        assert_eq!(splice(&[1, 2, 3], 1, 1, &[7, 8]), [1, 7, 8, 3]);
    }

    #[test]
    fn every_frame_has_a_file_in_order_and_names_are_unique() {
        let files = all();
        let names: Vec<&str> = files.iter().map(|f| f.frame.as_str()).collect();
        assert_eq!(names, crate::frame_json::frame_names());
        let mut seen = std::collections::BTreeSet::new();
        for file in &files {
            for case in &file.cases {
                assert!(
                    case.name.starts_with(&format!("{}/", file.frame)),
                    "{}",
                    case.name
                );
                assert!(seen.insert(case.name.clone()), "{} twice", case.name);
                assert!(!case.description.contains('\n'), "{}: one line", case.name);
            }
        }
    }
}
