//! Where a protocol's bits go: each frame a server sends, split into field classes (which
//! entity, which parts follow, position, orientation, the rest of an entity, the frame's own
//! header), so that the report can say, per protocol, how many bits of each class it spends
//! per changed entity.
//!
//! The ackwire protocols are measured from the frames themselves: the walk `ackwire explain`
//! makes ([`ackwire_conformance::explain`], a second decoder of the lowering) gives every field
//! of a frame with its byte (or, in a packed record, bit) offset and its field path
//! (`changes[3].pose_step.dx`), and [`classify`] names a class from the path alone. A
//! byte-aligned field's size is the bytes it covers; a packed field's is the distance from its
//! first bit to the next field's first bit (a packed row lists every byte it touches, which
//! neighbours share), so the classes of a frame add up to its length exactly, which
//! [`Tally::frame`] checks.
//!
//! The peers' full snapshots are plain serde or bitcode structs, measured by what each format
//! is: postcard is a concatenation of its fields' encodings, so each field is serialized alone
//! and its bytes counted ([`Tally::postcard`]); bitcode lays a `Vec` of structs out as one
//! column per field, so each column is encoded alone as a `Vec` of its own and the snapshot's
//! remaining bytes (tick, lengths, what bitcode shares between columns) are its header
//! ([`Tally::bitcode`]).
//!
//! Acks (client to server) are not counted here, as the report's downstream bits do not count
//! them; a reliable frame's retransmissions are a class of their own ([`Class::Resent`]), so
//! that the classes add up to the row's downstream bits.

use crate::run::{FullCube, FullSnapshot};
use ackwire_conformance::explain::{self, ExplainError};
use ackwire_spec::lower::Lowering;
use serde::{Deserialize, Serialize};

/// A field class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Which entity: an id, a gap from the previous id, a generation or spawn tag, the bit
    /// that says how wide a gap is.
    Id,
    /// Which of an entity's parts follow: a change mask, a component's type and length.
    Mask,
    /// Position: absolute or as steps.
    Position,
    /// Orientation: a heading, a quaternion.
    Orientation,
    /// Anything else of an entity (health, the pose's age, a vehicle).
    Rest,
    /// The frame's own fields, outside every entity (kind, ticks, counts, the check,
    /// padding, events, removals).
    Header,
    /// Bytes a reliable channel sent again after a loss.
    Resent,
}

impl Class {
    /// Every class, in report order.
    pub const ALL: [Class; 7] = [
        Class::Id,
        Class::Mask,
        Class::Position,
        Class::Orientation,
        Class::Rest,
        Class::Header,
        Class::Resent,
    ];

    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Id => "id",
            Class::Mask => "mask",
            Class::Position => "position",
            Class::Orientation => "orientation",
            Class::Rest => "rest",
            Class::Header => "header",
            Class::Resent => "resent",
        }
    }
}

/// Bits per changed entity, by [`Class`]: a row of the report's field table. The classes add
/// up to the row's downstream bits per changed entity.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FieldBits {
    /// [`Class::Id`].
    pub id: f64,
    /// [`Class::Mask`].
    pub mask: f64,
    /// [`Class::Position`].
    pub position: f64,
    /// [`Class::Orientation`].
    pub orientation: f64,
    /// [`Class::Rest`].
    pub rest: f64,
    /// [`Class::Header`].
    pub header: f64,
    /// [`Class::Resent`].
    pub resent: f64,
}

impl FieldBits {
    /// The bits of `class`.
    pub fn get(&self, class: Class) -> f64 {
        match class {
            Class::Id => self.id,
            Class::Mask => self.mask,
            Class::Position => self.position,
            Class::Orientation => self.orientation,
            Class::Rest => self.rest,
            Class::Header => self.header,
            Class::Resent => self.resent,
        }
    }

    /// Every class summed.
    pub fn total(&self) -> f64 {
        Class::ALL.iter().map(|c| self.get(*c)).sum()
    }
}

/// What a protocol's datagram components and NetBaseline components mean in the bench: the
/// class of a component's payload, by its type byte (datagram v2's open components), and
/// whether NetBaseline's Velocity component carries the orientation (see `run.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Meaning {
    /// The class of a datagram component's data, by its type.
    pub component: fn(u8) -> Class,
    /// NetBaseline's Velocity carries a smallest-three orientation.
    pub velocity_is_orientation: bool,
}

impl Default for Meaning {
    fn default() -> Self {
        Meaning {
            component: |_| Class::Rest,
            velocity_is_orientation: false,
        }
    }
}

/// The lists whose elements are entities, by the field name of the list.
const ENTITY_LISTS: [&str; 4] = ["changes", "updates", "entities", "entries"];

/// Frames that describe one entity as a whole (datagram v2's spawn).
const ENTITY_FRAMES: [&str; 1] = ["spawn"];

/// The class of the field at `path` in the frame `frame` (snake_case), from the path alone:
/// fields inside an element of an entity list (`changes[3].eid`, `body.entries[0].gap`) are
/// the entity's, classed by their own name and the record they are in; every other field is
/// the frame's header. A datagram component's data is classed by `meaning` with the type
/// read before it (see [`Tally::frame`]).
pub fn classify(frame: &str, path: &str, meaning: &Meaning) -> Class {
    let segments: Vec<&str> = path.split('.').collect();
    let inside = segments.iter().position(|s| {
        s.split_once('[')
            .is_some_and(|(list, _)| ENTITY_LISTS.contains(&list))
    });
    let own: &[&str] = match inside {
        Some(i) => &segments[i + 1..],
        None if ENTITY_FRAMES.contains(&frame) => &segments[..],
        None => return Class::Header,
    };
    let Some(leaf) = own.last() else {
        // The element itself (a packed element's padding, were it to have one).
        return Class::Header;
    };
    let leaf = leaf.split_once('[').map_or(*leaf, |(name, _)| name);
    let within = |names: &[&str]| own.iter().any(|s| names.contains(s));
    if within(&["velocity"]) && meaning.velocity_is_orientation {
        return Class::Orientation;
    }
    if within(&["orient", "orientation", "rot", "quat"]) {
        return Class::Orientation;
    }
    match leaf {
        "eid" | "id" | "slot" | "gap" | "wide" | "wide_gap" | "generation" | "spawn_tag" => {
            Class::Id
        }
        "mask" | "flags" | "components" | "type" => Class::Mask,
        "x" | "y" | "z" | "dx" | "dy" | "dz" | "pos" | "position" => Class::Position,
        "yaw" | "heading" | "orient" | "rot" | "q" => Class::Orientation,
        _ => Class::Rest,
    }
}

/// The snake_case name of the frame of `low` whose first field is `kind: u8 = kind` (the
/// acked family's frames: kind 6, and any other acked kind a layout adds), if one is.
pub fn frame_of_kind(low: &Lowering<'_>, kind: u8) -> Option<String> {
    low.frames()
        .into_iter()
        .find(|(r, k)| *k == i128::from(kind) && r.fields.first().is_some_and(|f| f.name == "kind"))
        .map(|(r, _)| ackwire_spec::gen::snake_case(&r.name))
}

/// Bits counted by class, over frames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    bits: [u64; 7],
    /// Why some frame could not be walked (`explain` does not walk one of its types yet):
    /// the tally is then incomplete and tells nothing.
    unexplained: Option<String>,
}

/// The leading number of an `explain` value such as `4 bytes: 0a0b0c0d`.
fn leading_number(value: &str) -> Option<usize> {
    value.split_whitespace().next()?.parse().ok()
}

fn index(class: Class) -> usize {
    Class::ALL
        .iter()
        .position(|c| *c == class)
        .unwrap_or_default()
}

impl Tally {
    /// Adds `bits` to `class`.
    pub fn add(&mut self, class: Class, bits: u64) {
        self.bits[index(class)] += bits;
    }

    /// The bits counted for `class`.
    pub fn bits(&self, class: Class) -> u64 {
        self.bits[index(class)]
    }

    /// Every class summed.
    pub fn total(&self) -> u64 {
        self.bits.iter().sum()
    }

    /// Why a frame could not be walked, if one could not: then [`Tally::per_changed`] is
    /// not the protocol's split.
    pub fn unexplained(&self) -> Option<&str> {
        self.unexplained.as_deref()
    }

    /// Bits per changed entity, over `changes` changes (none: zero).
    pub fn per_changed(&self, changes: u64) -> FieldBits {
        let per = |c: Class| self.bits(c) as f64 / changes.max(1) as f64;
        FieldBits {
            id: per(Class::Id),
            mask: per(Class::Mask),
            position: per(Class::Position),
            orientation: per(Class::Orientation),
            rest: per(Class::Rest),
            header: per(Class::Header),
            resent: per(Class::Resent),
        }
    }

    /// Adds the frame `frame` (a snake_case frame name of the lowered spec) in `bytes`, field
    /// by field. Every bit of the frame lands in one class: a frame that does not decode to
    /// its end, or whose fields do not cover it, is an error (the protocol sent what its own
    /// spec refuses, a bug). A frame of a type the walk does not know yet
    /// ([`ExplainError::InvalidSpec`]) is not an error of the protocol: the tally is marked
    /// [`unexplained`](Self::unexplained) and the frame's bits are not split.
    pub fn frame(
        &mut self,
        low: &Lowering<'_>,
        frame: &str,
        bytes: &[u8],
        meaning: &Meaning,
    ) -> Result<(), String> {
        let rows = match explain::explain_lowered(low, frame, bytes) {
            Ok(rows) => rows,
            Err(ExplainError::InvalidSpec { reason }) => {
                self.unexplained.get_or_insert(reason);
                return Ok(());
            }
            Err(ExplainError::Decode { error, .. }) => {
                return Err(format!("{frame} does not explain: {error}"))
            }
            Err(other) => return Err(format!("{frame} does not explain: {other}")),
        };
        let start = |i: usize| -> usize {
            rows.get(i)
                .map_or(bytes.len() * 8, |r| r.bit.unwrap_or(r.offset * 8))
        };
        let mut component = Class::Rest;
        let mut counted = 0u64;
        for (i, row) in rows.iter().enumerate() {
            let width = match row.bit {
                Some(bit) => start(i + 1).saturating_sub(bit),
                None => row.bytes.len() * 8,
            } as u64;
            counted += width;
            let class = classify(frame, &row.path, meaning);
            let in_component = row.path.contains("components[");
            if in_component && row.path.ends_with(".type") {
                component = leading_number(&row.value)
                    .and_then(|t| u8::try_from(t).ok())
                    .map_or(Class::Rest, meaning.component);
                self.add(Class::Mask, width);
            } else if in_component && row.path.ends_with(".data") {
                // `bytes?`: a length prefix (what follows: the mask's kind of bits), then the
                // component's own bytes, of the component's class.
                let payload = (leading_number(&row.value).unwrap_or(0) as u64 * 8).min(width);
                self.add(Class::Mask, width - payload);
                self.add(component, payload);
            } else {
                self.add(class, width);
            }
        }
        if counted != bytes.len() as u64 * 8 {
            return Err(format!(
                "{frame}: its fields cover {counted} bits of {} ({} bytes)",
                bytes.len() * 8,
                bytes.len()
            ));
        }
        Ok(())
    }

    /// Adds a packet `resent_bytes` a reliable channel sent again.
    pub fn resent(&mut self, resent_bytes: u64) {
        self.add(Class::Resent, resent_bytes * 8);
    }

    /// Adds a postcard snapshot, `encoded` being its whole encoding: postcard writes a struct
    /// as its fields' encodings one after the other and a sequence as its varint length then
    /// its elements, so each field's bytes are what it serializes to alone. The bodies'
    /// fields are classed (id, position, orientation, rest); the tick and the lengths are the
    /// header, which is what remains of `encoded`.
    pub fn postcard(&mut self, snapshot: &FullSnapshot, encoded: usize) -> Result<(), String> {
        // Each field alone into a buffer on the stack (the largest, four f32, takes 16).
        fn len<T: Serialize>(value: &T) -> Result<usize, String> {
            let mut buf = [0u8; 32];
            postcard::to_slice(value, &mut buf)
                .map(|v| v.len())
                .map_err(|e| format!("postcard: {e}"))
        }
        let mut classed = 0u64;
        let mut add = |tally: &mut Tally, class: Class, bytes: usize| {
            tally.add(class, bytes as u64 * 8);
            classed += bytes as u64;
        };
        for b in &snapshot.bodies {
            add(self, Class::Id, len(&b.id)?);
            add(self, Class::Position, len(&b.pos)?);
            add(self, Class::Orientation, len(&b.yaw)?);
            add(self, Class::Rest, len(&b.hp)?);
        }
        for c in &snapshot.cubes {
            add(self, Class::Id, len(&c.id)?);
            add(self, Class::Position, len(&c.pos)?);
            add(self, Class::Orientation, len(&c.rot)?);
        }
        for v in &snapshot.values {
            add(self, Class::Id, len(&v.id)?);
            add(self, Class::Position, len(&v.value)?);
        }
        let header = (encoded as u64).checked_sub(classed).ok_or_else(|| {
            format!("postcard: the fields alone take {classed} bytes of {encoded}")
        })?;
        self.add(Class::Header, header * 8);
        Ok(())
    }

    /// Adds a bitcode snapshot, `encoded` being its whole encoding: each column (every
    /// body's id, every position, ...) is encoded alone as a `Vec` of its own, less what its
    /// length costs, and what remains of `encoded` is the header.
    pub fn bitcode(&mut self, snapshot: &FullSnapshot, encoded: usize) -> Result<(), String> {
        // A column alone, less its length (what a `Vec` of as many `()` costs): the
        // snapshot holds each list's length once, as its header.
        fn column<T: bitcode::Encode>(values: Vec<T>) -> u64 {
            let length = vec![(); values.len()];
            let whole = bitcode::encode(&values).len();
            whole.saturating_sub(bitcode::encode(&length).len()) as u64
        }
        let bodies = &snapshot.bodies;
        let cubes: &[FullCube] = &snapshot.cubes;
        let values = &snapshot.values;
        let columns = [
            (Class::Id, column(bodies.iter().map(|b| b.id).collect())),
            (
                Class::Position,
                column(bodies.iter().map(|b| b.pos).collect()),
            ),
            (
                Class::Orientation,
                column(bodies.iter().map(|b| b.yaw).collect()),
            ),
            (Class::Rest, column(bodies.iter().map(|b| b.hp).collect())),
            (Class::Id, column(cubes.iter().map(|c| c.id).collect())),
            (
                Class::Position,
                column(cubes.iter().map(|c| c.pos).collect()),
            ),
            (
                Class::Orientation,
                column(cubes.iter().map(|c| c.rot).collect()),
            ),
            (Class::Id, column(values.iter().map(|v| v.id).collect())),
            (
                Class::Position,
                column(values.iter().map(|v| v.value).collect()),
            ),
        ];
        let classed: u64 = columns.iter().map(|(_, b)| b).sum();
        let header = (encoded as u64).checked_sub(classed).ok_or_else(|| {
            format!("bitcode: the columns alone take {classed} bytes of {encoded}")
        })?;
        for (class, b) in columns {
            self.add(class, b * 8);
        }
        self.add(Class::Header, header * 8);
        Ok(())
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &Tally) {
        for (a, b) in self.bits.iter_mut().zip(other.bits) {
            *a += b;
        }
        if let Some(why) = &other.unexplained {
            self.unexplained.get_or_insert_with(|| why.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_class() {
        let m = Meaning::default();
        let c = |frame: &str, path: &str| classify(frame, path, &m);
        assert_eq!(c("acked", "tick"), Class::Header);
        assert_eq!(c("acked", "changed_count"), Class::Header);
        assert_eq!(c("acked", "removed[0]"), Class::Header);
        assert_eq!(c("acked", "changes[3].eid"), Class::Id);
        assert_eq!(c("acked", "changes[3].mask"), Class::Mask);
        assert_eq!(c("acked", "changes[3].age"), Class::Rest);
        assert_eq!(c("acked", "changes[3].pose_step.dx"), Class::Position);
        assert_eq!(c("acked", "changes[3].pose_full.z"), Class::Position);
        assert_eq!(c("acked", "changes[3].pose_step.yaw"), Class::Orientation);
        assert_eq!(c("acked", "changes[3].orient.q"), Class::Orientation);
        assert_eq!(c("acked", "changes[3].health.hp"), Class::Rest);
        assert_eq!(c("acked", "events[0].shot.x"), Class::Header);
        assert_eq!(c("datagram", "updates[2].id"), Class::Id);
        assert_eq!(c("datagram", "updates[2].spawn_tag"), Class::Id);
        assert_eq!(c("datagram", "updates[2].components"), Class::Mask);
        assert_eq!(c("datagram", "updates[2].x"), Class::Position);
        assert_eq!(c("spawn", "id"), Class::Id);
        assert_eq!(c("spawn", "x"), Class::Position);
        assert_eq!(c("snapshot", "body.entries[0].wide_gap"), Class::Id);
        assert_eq!(c("snapshot", "body.entries[0].generation"), Class::Id);
        assert_eq!(
            c("snapshot", "body.entries[0].transform.yaw"),
            Class::Orientation
        );
        assert_eq!(c("snapshot", "body.entries[0].velocity.vx"), Class::Rest);
        assert_eq!(c("snapshot", "body.entry_count"), Class::Header);
        assert_eq!(c("snapshot", "body.lost[0].slot"), Class::Header);
        assert_eq!(c("snapshot", "body"), Class::Header);
        let carried = Meaning {
            velocity_is_orientation: true,
            ..Meaning::default()
        };
        assert_eq!(
            classify("snapshot", "body.entries[0].velocity.vx", &carried),
            Class::Orientation
        );
    }

    #[test]
    fn a_packed_field_is_as_wide_as_the_bits_to_the_next() {
        // A snapshot (kind 8) of one entry with a transform and a velocity, written bit by
        // bit: header 24 + 7 + 16 bits, the entry's wide, gap and generation (16), its mask
        // (4), x, y, z (24 + 24 + 20), yaw (9), the velocity (3 × 12), 4 bits of padding.
        let mut w = ackwire_codec::rt::BitWriter::new();
        w.uint(7, 0).unwrap();
        w.uint(16, 1).unwrap();
        w.bool(false);
        w.uint(7, 3).unwrap();
        w.uint(8, 1).unwrap();
        w.uint(4, 0b0011).unwrap();
        w.int(24, -5).unwrap();
        w.int(24, 7).unwrap();
        w.int(20, 32).unwrap();
        w.uint(9, 100).unwrap();
        for v in [1, -2, 3] {
            w.int(12, v).unwrap();
        }
        let mut bytes = vec![8, 0x34, 0x12];
        w.finish(&mut bytes);
        assert_eq!(bytes.len(), 23);
        let spec = ackwire_spec::reference_spec().unwrap();
        let low = Lowering::new(&spec);
        let carried = Meaning {
            velocity_is_orientation: true,
            ..Meaning::default()
        };
        let mut t = Tally::default();
        t.frame(&low, "snapshot", &bytes, &carried).unwrap();
        let got = Class::ALL.map(|c| t.bits(c));
        // id, mask, position, orientation (yaw and the velocity), rest, header, resent.
        assert_eq!(got, [16, 4, 68, 9 + 36, 0, 24 + 7 + 16 + 4, 0]);
        // Without the stand-in, the velocity is the rest of the entity.
        let mut plain = Tally::default();
        plain
            .frame(&low, "snapshot", &bytes, &Meaning::default())
            .unwrap();
        assert_eq!(
            (plain.bits(Class::Orientation), plain.bits(Class::Rest)),
            (9, 36)
        );
    }

    #[test]
    fn acked_frames_are_found_by_their_kind() {
        let spec = ackwire_spec::reference_spec().unwrap();
        let low = Lowering::new(&spec);
        assert_eq!(frame_of_kind(&low, 6).as_deref(), Some("acked"));
        assert_eq!(frame_of_kind(&low, 8).as_deref(), Some("snapshot"));
        // Datagram v2 opens with `version: u8 = 2`, not a kind: kind 2 is the despawn.
        assert_eq!(frame_of_kind(&low, 2).as_deref(), Some("despawn"));
        assert_eq!(frame_of_kind(&low, 250), None);
    }

    #[test]
    fn postcard_fields_add_up_to_the_snapshot() {
        let snapshot = FullSnapshot {
            tick: 1,
            bodies: Vec::new(),
            cubes: vec![FullCube {
                id: 300,
                pos: [1.0, 2.0, 3.0],
                rot: [0.0, 0.0, 0.0, 1.0],
            }],
            values: Vec::new(),
        };
        let bytes = postcard::to_allocvec(&snapshot).unwrap();
        // tick (1), three list lengths (3), id 300 as a varint (2), 12 + 16 bytes of floats.
        assert_eq!(bytes.len(), 1 + 3 + 2 + 12 + 16);
        let mut t = Tally::default();
        t.postcard(&snapshot, bytes.len()).unwrap();
        assert_eq!(t.bits(Class::Id), 16);
        assert_eq!(t.bits(Class::Position), 96);
        assert_eq!(t.bits(Class::Orientation), 128);
        assert_eq!(t.bits(Class::Header), 32);
        assert_eq!(t.total(), bytes.len() as u64 * 8);
        // A length the fields do not fit is refused, not wrapped.
        assert!(t.postcard(&snapshot, 3).is_err());
    }

    #[test]
    fn bitcode_columns_and_header_add_up_to_the_snapshot() {
        let cubes: Vec<FullCube> = (1..=50)
            .map(|id| FullCube {
                id,
                pos: [f32::from(id), 0.5, 0.25],
                rot: [0.0, 0.6, 0.0, 0.8],
            })
            .collect();
        let snapshot = FullSnapshot {
            tick: 9,
            cubes,
            ..FullSnapshot::default()
        };
        let bytes = bitcode::encode(&snapshot);
        let mut t = Tally::default();
        t.bitcode(&snapshot, bytes.len()).unwrap();
        assert_eq!(t.total(), bytes.len() as u64 * 8);
        assert!(t.bits(Class::Orientation) >= 50 * 4 * 8, "{t:?}");
        assert!(
            t.bits(Class::Position) > 0 && t.bits(Class::Id) > 0,
            "{t:?}"
        );
        assert_eq!(t.bits(Class::Mask), 0);
    }

    #[test]
    fn a_frame_is_split_field_by_field_and_covered_to_its_end() {
        use ackwire_codec::protocol::{Snapshot, SnapshotBody};
        use ackwire_codec::Frame as _;
        let spec = ackwire_spec::reference_spec().unwrap();
        let low = Lowering::new(&spec);
        let frame = Snapshot {
            sequence: 7,
            body: SnapshotBody {
                lost: Vec::new(),
                entries: Vec::new(),
            },
        };
        let bytes = frame.to_bytes().unwrap();
        let mut t = Tally::default();
        t.frame(&low, "snapshot", &bytes, &Meaning::default())
            .unwrap();
        // kind, sequence, then a packed body of two counts and its padding: all header.
        assert_eq!(t.bits(Class::Header), bytes.len() as u64 * 8);
        assert_eq!(t.total(), bytes.len() as u64 * 8);
        // Bytes that are not the frame are an error, not a guess.
        assert!(t
            .frame(&low, "snapshot", &bytes[..2], &Meaning::default())
            .is_err());
        assert!(t
            .frame(&low, "no_such_frame", &bytes, &Meaning::default())
            .is_err());
    }
}
