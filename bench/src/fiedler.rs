//! Glenn Fiedler's snapshot compression ("Snapshot Compression", gafferongames.com, 2015), as
//! the bench's reference lane `fiedler`: a bench peer, not a protocol of the spec, run beside
//! ours on the same scenes so that our bits per changed entity are compared with his scheme on
//! our data rather than with his figures on his.
//!
//! What his article and his published demo code fix, and this module follows:
//!
//! - a cube is its quantized state: position in steps of 1/512 m, x and y within ±256 m (18
//!   bits each absolute), z within 0 to 32 m (14 bits); orientation as the smallest three, the
//!   largest component's index in 2 bits and the other three in 9 bits each over
//!   ±1/√2 (unsigned, [`Orientation`]);
//! - a snapshot is encoded against a baseline, the newest snapshot the receiver acknowledged,
//!   or against the initial state both sides know (a header bit); the header is a u16
//!   sequence, that bit and the u16 baseline sequence;
//! - which cubes changed: a bit per cube, or (one header bit, when it costs fewer bits and at
//!   most 255 changed) an 8-bit count, the first index absolute and each next one relative to
//!   the previous, `[1,8]` in 1+3 bits, `[9,40]` in 1+1+5, larger in 1+1+10;
//! - per changed cube, a bit for "position changed" and one for "orientation changed";
//! - a changed position: a bit for relative; relative, per axis a bit for small, then
//!   `[-16,15]` in 5 bits or the rest of `[-271,270]` in 9 bits (the small range cut out of
//!   the large one, so no two offsets share a code); otherwise absolute;
//! - a changed orientation: relative when the largest component is the baseline's and each
//!   component moved by less than `[-143,142)`, per component a small bit then `[-16,15]` in 5
//!   bits or the rest in 8; otherwise absolute, 29 bits.
//!
//! Where our scenes are not his cubes: his per-cube `interacting` bit has nothing to carry
//! here and is not sent; the arena's heading travels as the rotation about the vertical it
//! is; the arena's health (his cubes have none) costs a changed bit per changed entity and 8
//! bits when it changed, counted as `rest`. Indices are sized by the scene's entity count as
//! his `serialize_int` sizes them by its range (10 bits for 901 or 1000 entities).
//!
//! [`decode`] counts every bit it reads into a [`Tally`] when asked, so the bench's field
//! split of this lane is the decoder's own reading of the frames and adds up to their bytes.

use crate::fields::{Class, Tally};
use ackwire_codec::rt::{BitReader, BitWriter};

/// Position steps per metre (about 2 mm), his 512.
pub const STEPS_PER_METRE: f32 = 512.0;
/// Bits of each smallest-three component, his 9.
pub const ORIENTATION_BITS: u8 = 9;
const ORIENTATION_MAX: u32 = (1 << ORIENTATION_BITS) - 1;
/// ±1/√2: the range of every component but the largest.
const COMPONENT_BOUND: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// x and y lie within ±256 m, in steps.
const XY_BOUND: i32 = 256 * 512;
const XY_BITS: u8 = 18;
/// z lies within 0 to 32 m, in steps.
const Z_BOUND: i32 = 32 * 512;
const Z_BITS: u8 = 14;
/// Relative position: small offsets `[-16,15]`, large ones within ±256 (before the cut).
const POSITION_SMALL: i32 = 16;
const POSITION_LARGE: i32 = 256;
/// Relative orientation: small offsets `[-16,15]`, large ones within ±128 (before the cut).
const ORIENTATION_SMALL: i32 = 16;
const ORIENTATION_LARGE: i32 = 128;
/// At most this many changed cubes are sent as indices (his 8-bit count).
pub const MAX_INDEXED: usize = 255;
const COUNT_BITS: u8 = 8;

/// A smallest-three orientation: the index of the largest component (made positive by
/// negating the quaternion) and the other three, in order, each as `round((v + 1/√2) / √2 ×
/// 511)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Orientation {
    /// Which of x, y, z, w was dropped.
    pub largest: u8,
    /// The other three, 0 to 511.
    pub rest: [u16; 3],
}

impl Orientation {
    /// `q` (`[x, y, z, w]`, unit length) quantized.
    pub fn from_xyzw(q: [f32; 4]) -> Orientation {
        let largest = (0..4)
            .max_by(|&a, &b| q[a].abs().total_cmp(&q[b].abs()))
            .unwrap_or(3);
        let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
        let mut rest = [0u16; 3];
        for (slot, i) in rest.iter_mut().zip((0..4).filter(|&i| i != largest)) {
            let unit = (sign * q[i] + COMPONENT_BOUND) / (2.0 * COMPONENT_BOUND);
            let steps = (unit * ORIENTATION_MAX as f32 + 0.5).floor();
            *slot = steps.clamp(0.0, ORIENTATION_MAX as f32) as u16;
        }
        Orientation {
            largest: largest as u8,
            rest,
        }
    }

    /// The quaternion it stands for, `[x, y, z, w]`, the dropped component rebuilt from unit
    /// length.
    pub fn to_xyzw(self) -> [f32; 4] {
        let mut q = [0f32; 4];
        let largest = usize::from(self.largest & 3);
        let mut sum = 0.0;
        for (&steps, i) in self.rest.iter().zip((0..4).filter(|&i| i != largest)) {
            let v =
                f32::from(steps) / ORIENTATION_MAX as f32 * 2.0 * COMPONENT_BOUND - COMPONENT_BOUND;
            q[i] = v;
            sum += v * v;
        }
        q[largest] = (1.0 - sum).max(0.0).sqrt();
        q
    }
}

/// One entity's quantized state, what a snapshot holds of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cube {
    /// Steps of 1/512 m.
    pub pos: [i32; 3],
    /// Smallest three.
    pub rot: Orientation,
    /// Health (the arena's; 0 elsewhere).
    pub hp: u8,
}

/// The state both sides know before anything is sent: every entity at the origin, not
/// turned, no health.
pub const INITIAL: Cube = Cube {
    pos: [0, 0, 0],
    rot: Orientation {
        largest: 3,
        rest: [256, 256, 256],
    },
    hp: 0,
};

impl Cube {
    /// A body's state quantized: position to steps within his bounds, orientation to the
    /// smallest three.
    pub fn quantize(pos: [f32; 3], rot: [f32; 4], hp: u8) -> Cube {
        let steps = |v: f32, lo: i32, hi: i32| {
            let s = (v * STEPS_PER_METRE).round();
            if s.is_finite() {
                (s as i64).clamp(i64::from(lo), i64::from(hi)) as i32
            } else {
                0
            }
        };
        Cube {
            pos: [
                steps(pos[0], -XY_BOUND, XY_BOUND - 1),
                steps(pos[1], -XY_BOUND, XY_BOUND - 1),
                steps(pos[2], 0, Z_BOUND - 1),
            ],
            rot: Orientation::from_xyzw(rot),
            hp,
        }
    }

    /// The position in metres.
    pub fn position(&self) -> [f32; 3] {
        self.pos.map(|s| s as f32 / STEPS_PER_METRE)
    }
}

/// What a lane's snapshots carry beyond his cube state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Entities in every snapshot.
    pub entities: usize,
    /// Whether health travels (the arena).
    pub health: bool,
}

impl Layout {
    /// Bits of an absolute index, `0..entities`.
    fn index_bits(&self) -> u8 {
        bits_for(self.entities.saturating_sub(1) as u64)
    }

    /// Bits of a relative index past 40, `41..entities`.
    fn far_bits(&self) -> u8 {
        bits_for(self.entities.saturating_sub(1 + 41) as u64)
    }

    /// What the relative indices of `changed` (ascending) cost, his mock encoding.
    fn relative_index_bits(&self, changed: &[usize]) -> u64 {
        let far = 2 + u64::from(self.far_bits());
        let mut bits = changed.first().map_or(0, |_| u64::from(self.index_bits()));
        for w in changed.windows(2) {
            bits += match w[1] - w[0] {
                1..=8 => 4,
                9..=40 => 7,
                _ => far,
            };
        }
        bits
    }
}

/// Bits an unsigned value up to `max` takes (at least 1), as his `serialize_int` sizes a range.
fn bits_for(max: u64) -> u8 {
    (64 - max.leading_zeros()).max(1) as u8
}

/// A snapshot's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Its sequence.
    pub sequence: u16,
    /// The sequence of the snapshot it is encoded against, or none: the initial state.
    pub base: Option<u16>,
}

/// Writes the fields, turning an over-width value (a bug here: every value is in range by
/// construction) into a failure that names the field.
struct Writer {
    bits: BitWriter,
}

impl Writer {
    fn uint(&mut self, width: u8, v: u64, what: &str) -> Result<(), String> {
        self.bits
            .uint(width, v)
            .map_err(|e| format!("fiedler encode: {what} = {v} in {width} bits: {e}"))
    }

    fn bool(&mut self, v: bool) {
        self.bits.bool(v);
    }
}

/// Encodes `current` (one [`Cube`] per entity, by index) as snapshot `sequence` against
/// `base` (its sequence and its cubes) or, with none, the initial state; appends the bytes to
/// `out`.
pub fn encode(
    layout: &Layout,
    sequence: u16,
    base: Option<(u16, &[Cube])>,
    current: &[Cube],
    changed: &mut Vec<usize>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    if current.len() != layout.entities || base.is_some_and(|(_, b)| b.len() != layout.entities) {
        return Err(format!(
            "fiedler encode: snapshots of {} entities, the layout has {}",
            current.len(),
            layout.entities
        ));
    }
    let mut w = Writer {
        bits: BitWriter::new(),
    };
    w.uint(16, u64::from(sequence), "sequence")?;
    w.bool(base.is_none());
    if let Some((seq, _)) = base {
        w.uint(16, u64::from(seq), "base")?;
    }
    let base_of = |i: usize| base.map_or(INITIAL, |(_, b)| b[i]);
    changed.clear();
    changed.extend((0..layout.entities).filter(|&i| current[i] != base_of(i)));
    let indexed = changed.len() <= MAX_INDEXED
        && layout.relative_index_bits(changed) < layout.entities.saturating_sub(1) as u64;
    w.bool(indexed);
    if indexed {
        w.uint(COUNT_BITS, changed.len() as u64, "count")?;
        let mut previous = None;
        for &i in changed.iter() {
            match previous {
                None => w.uint(layout.index_bits(), i as u64, "index")?,
                Some(p) => write_relative_index(&mut w, layout, i - p)?,
            }
            previous = Some(i);
            write_cube(&mut w, layout, &current[i], &base_of(i))?;
        }
    } else {
        let mut next = changed.iter().copied().peekable();
        for (i, cube) in current.iter().enumerate() {
            let is = next.next_if_eq(&i).is_some();
            w.bool(is);
            if is {
                write_cube(&mut w, layout, cube, &base_of(i))?;
            }
        }
    }
    w.bits.finish(out);
    Ok(())
}

fn write_relative_index(w: &mut Writer, layout: &Layout, offset: usize) -> Result<(), String> {
    let offset = offset as u64;
    w.bool(offset <= 8);
    if offset <= 8 {
        return w.uint(3, offset - 1, "index offset");
    }
    w.bool(offset <= 40);
    if offset <= 40 {
        w.uint(5, offset - 9, "index offset")
    } else {
        w.uint(layout.far_bits(), offset - 41, "index offset")
    }
}

fn write_cube(w: &mut Writer, layout: &Layout, cube: &Cube, base: &Cube) -> Result<(), String> {
    let moved = cube.pos != base.pos;
    let turned = cube.rot != base.rot;
    w.bool(moved);
    w.bool(turned);
    let hurt = layout.health && cube.hp != base.hp;
    if layout.health {
        w.bool(hurt);
    }
    if moved {
        write_position(w, cube.pos, base.pos)?;
    }
    if turned {
        write_orientation(w, cube.rot, base.rot)?;
    }
    if hurt {
        w.uint(8, u64::from(cube.hp), "hp")?;
    }
    Ok(())
}

/// An offset of at least `small` either way, in the large range with the small range cut out
/// of it: positive offsets lose `small - 1`, the others gain it, so 0 and -1 are never
/// written and no two offsets share a code. Returns the code, `[-large, large)` shifted to be
/// unsigned.
fn cut_offset(d: i32, small: i32, large: i32) -> u64 {
    let o = if d > 0 {
        d - (small - 1)
    } else {
        d + (small - 1)
    };
    (o + large) as u64
}

/// The offset [`cut_offset`] wrote.
fn uncut_offset(code: u64, small: i32, large: i32) -> i32 {
    let o = code as i32 - large;
    if o >= 0 {
        o + (small - 1)
    } else {
        o - (small - 1)
    }
}

fn write_offsets(
    w: &mut Writer,
    deltas: [i32; 3],
    (small, large, large_bits): (i32, i32, u8),
    what: &str,
) -> Result<(), String> {
    let is_small = deltas.map(|d| (-small..small).contains(&d));
    for s in is_small {
        w.bool(s);
    }
    for (d, s) in deltas.into_iter().zip(is_small) {
        if s {
            w.uint(5, (d + small) as u64, what)?;
        } else {
            w.uint(large_bits, cut_offset(d, small, large), what)?;
        }
    }
    Ok(())
}

fn write_position(w: &mut Writer, pos: [i32; 3], base: [i32; 3]) -> Result<(), String> {
    let d = [0, 1, 2].map(|i| pos[i] - base[i]);
    let reach = POSITION_LARGE + POSITION_SMALL - 1;
    let relative = d.iter().all(|d| (-reach..=reach - 1).contains(d));
    w.bool(relative);
    if relative {
        return write_offsets(w, d, (POSITION_SMALL, POSITION_LARGE, 9), "position offset");
    }
    w.uint(XY_BITS, (pos[0] + XY_BOUND) as u64, "x")?;
    w.uint(XY_BITS, (pos[1] + XY_BOUND) as u64, "y")?;
    w.uint(Z_BITS, pos[2] as u64, "z")
}

fn write_orientation(w: &mut Writer, rot: Orientation, base: Orientation) -> Result<(), String> {
    let d = [0, 1, 2].map(|i| i32::from(rot.rest[i]) - i32::from(base.rest[i]));
    let reach = ORIENTATION_LARGE + ORIENTATION_SMALL - 1;
    let relative = rot.largest == base.largest && d.iter().all(|d| (-reach..reach - 1).contains(d));
    w.bool(relative);
    if relative {
        let bounds = (ORIENTATION_SMALL, ORIENTATION_LARGE, 8);
        return write_offsets(w, d, bounds, "orientation offset");
    }
    w.uint(2, u64::from(rot.largest), "largest")?;
    for c in rot.rest {
        w.uint(ORIENTATION_BITS, u64::from(c), "component")?;
    }
    Ok(())
}

/// Reads fields, counting each one's bits into the tally when there is one, and names the
/// field a read fails in.
struct Reader<'a, 't> {
    bits: BitReader<'a>,
    tally: Option<&'t mut Tally>,
}

impl Reader<'_, '_> {
    fn uint(&mut self, width: u8, class: Class, what: &str) -> Result<u64, String> {
        let at = self.bits.bit_pos();
        let v = self
            .bits
            .uint(width)
            .map_err(|e| format!("fiedler snapshot: {what} at bit {at}: {}", e.kind))?;
        if let Some(t) = self.tally.as_deref_mut() {
            t.add(class, u64::from(width));
        }
        Ok(v)
    }

    fn bool(&mut self, class: Class, what: &str) -> Result<bool, String> {
        Ok(self.uint(1, class, what)? == 1)
    }
}

/// Reads a snapshot's header alone (what a receiver needs to find the baseline).
pub fn header(bytes: &[u8]) -> Result<Header, String> {
    let mut r = Reader {
        bits: BitReader::new(bytes, 0),
        tally: None,
    };
    read_header(&mut r)
}

fn read_header(r: &mut Reader<'_, '_>) -> Result<Header, String> {
    let sequence = r.uint(16, Class::Header, "sequence")? as u16;
    let initial = r.bool(Class::Header, "initial")?;
    let base = if initial {
        None
    } else {
        Some(r.uint(16, Class::Header, "base")? as u16)
    };
    Ok(Header { sequence, base })
}

/// Decodes snapshot `bytes` against `base` (the cubes of the snapshot its header names, or
/// none for the initial state) into `out`, one [`Cube`] per entity. With a `tally`, every bit
/// read is counted by class (index, flags as the mask, position, orientation, health as the
/// rest, the header and the padding as the header), so the tally grows by exactly the
/// frame's bits. A frame that ends inside a field, names a base other than `base`'s kind,
/// holds an index past the last entity or a count over [`MAX_INDEXED`], or has a set padding
/// bit or a byte past its end is refused, with the field and bit where it went wrong.
pub fn decode(
    layout: &Layout,
    bytes: &[u8],
    base: Option<&[Cube]>,
    out: &mut Vec<Cube>,
    tally: Option<&mut Tally>,
) -> Result<Header, String> {
    let mut r = Reader {
        bits: BitReader::new(bytes, 0),
        tally,
    };
    let header = read_header(&mut r)?;
    let base = match (header.base, base) {
        (None, _) => None,
        (Some(_), Some(b)) if b.len() == layout.entities => Some(b),
        (Some(seq), _) => {
            return Err(format!(
                "fiedler snapshot: encoded against snapshot {seq}, which was not given"
            ))
        }
    };
    let base_of = |i: usize| base.map_or(INITIAL, |b| b[i]);
    out.clear();
    out.extend((0..layout.entities).map(base_of));
    if r.bool(Class::Header, "indexed")? {
        let count = r.uint(COUNT_BITS, Class::Header, "count")? as usize;
        if count > MAX_INDEXED {
            return Err(format!(
                "fiedler snapshot: count {count} over {MAX_INDEXED}"
            ));
        }
        let mut previous: Option<usize> = None;
        for n in 0..count {
            let i = match previous {
                None => r.uint(layout.index_bits(), Class::Id, "index")? as usize,
                Some(p) => p + read_relative_index(&mut r, layout)?,
            };
            if i >= layout.entities {
                return Err(format!(
                    "fiedler snapshot: change {n} is of entity index {i}, past the last ({})",
                    layout.entities - 1
                ));
            }
            out[i] = read_cube(&mut r, layout, &base_of(i))?;
            previous = Some(i);
        }
    } else {
        for (i, slot) in out.iter_mut().enumerate() {
            if r.bool(Class::Id, "changed")? {
                *slot = read_cube(&mut r, layout, &base_of(i))?;
            }
        }
    }
    let padding = (8 - r.bits.bit_pos() % 8) % 8;
    let used = r
        .bits
        .finish()
        .map_err(|e| format!("fiedler snapshot: padding at bit {}: {}", e.offset, e.kind))?;
    if used != bytes.len() {
        return Err(format!(
            "fiedler snapshot: {} bytes past its end at byte {used}",
            bytes.len() - used
        ));
    }
    if let Some(t) = r.tally {
        t.add(Class::Header, padding as u64);
    }
    Ok(header)
}

fn read_relative_index(r: &mut Reader<'_, '_>, layout: &Layout) -> Result<usize, String> {
    let what = "index offset";
    if r.bool(Class::Id, what)? {
        return Ok(r.uint(3, Class::Id, what)? as usize + 1);
    }
    if r.bool(Class::Id, what)? {
        return Ok(r.uint(5, Class::Id, what)? as usize + 9);
    }
    Ok(r.uint(layout.far_bits(), Class::Id, what)? as usize + 41)
}

fn read_cube(r: &mut Reader<'_, '_>, layout: &Layout, base: &Cube) -> Result<Cube, String> {
    let moved = r.bool(Class::Mask, "position changed")?;
    let turned = r.bool(Class::Mask, "orientation changed")?;
    let hurt = layout.health && r.bool(Class::Mask, "health changed")?;
    let mut cube = *base;
    if moved {
        cube.pos = read_position(r, base.pos)?;
    }
    if turned {
        cube.rot = read_orientation(r, base.rot)?;
    }
    if hurt {
        cube.hp = r.uint(8, Class::Rest, "hp")? as u8;
    }
    Ok(cube)
}

fn read_offsets(
    r: &mut Reader<'_, '_>,
    class: Class,
    (small, large, large_bits): (i32, i32, u8),
    what: &str,
) -> Result<[i32; 3], String> {
    let mut is_small = [false; 3];
    for s in &mut is_small {
        *s = r.bool(class, what)?;
    }
    let mut d = [0i32; 3];
    for (d, s) in d.iter_mut().zip(is_small) {
        *d = if s {
            r.uint(5, class, what)? as i32 - small
        } else {
            uncut_offset(r.uint(large_bits, class, what)?, small, large)
        };
    }
    Ok(d)
}

fn read_position(r: &mut Reader<'_, '_>, base: [i32; 3]) -> Result<[i32; 3], String> {
    let c = Class::Position;
    if r.bool(c, "position relative")? {
        let d = read_offsets(r, c, (POSITION_SMALL, POSITION_LARGE, 9), "position offset")?;
        return Ok([0, 1, 2].map(|i| base[i].saturating_add(d[i])));
    }
    let x = r.uint(XY_BITS, c, "x")? as i32 - XY_BOUND;
    let y = r.uint(XY_BITS, c, "y")? as i32 - XY_BOUND;
    let z = r.uint(Z_BITS, c, "z")? as i32;
    Ok([x, y, z])
}

fn read_orientation(r: &mut Reader<'_, '_>, base: Orientation) -> Result<Orientation, String> {
    let c = Class::Orientation;
    if r.bool(c, "orientation relative")? {
        let bounds = (ORIENTATION_SMALL, ORIENTATION_LARGE, 8);
        let d = read_offsets(r, c, bounds, "orientation offset")?;
        let mut rot = base;
        for (slot, d) in rot.rest.iter_mut().zip(d) {
            let v = i32::from(*slot) + d;
            *slot = u16::try_from(v)
                .ok()
                .filter(|&v| u32::from(v) <= ORIENTATION_MAX)
                .ok_or_else(|| {
                    format!("fiedler snapshot: an orientation offset leaves 0..=511 ({v})")
                })?;
        }
        return Ok(rot);
    }
    let largest = r.uint(2, c, "largest")? as u8;
    let mut rest = [0u16; 3];
    for slot in &mut rest {
        *slot = r.uint(ORIENTATION_BITS, c, "component")? as u16;
    }
    Ok(Orientation { largest, rest })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_sim::SplitMix64;

    fn random_cube(rng: &mut SplitMix64, health: bool) -> Cube {
        let mut f = |scale: f64| (rng.next_f64() * 2.0 - 1.0) * scale;
        let q = [f(1.0), f(1.0), f(1.0), f(1.0)];
        let n = q.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-9);
        let pos = [f(40.0) as f32, f(40.0) as f32, (f(16.0) + 16.0) as f32];
        let hp = if health { (f(100.0) + 100.0) as u8 } else { 0 };
        Cube::quantize(pos, q.map(|c| (c / n) as f32), hp)
    }

    /// `base` moved a little, a lot or not at all, per field, as cubes do.
    fn nudge(rng: &mut SplitMix64, base: &Cube, health: bool) -> Cube {
        let mut c = *base;
        let reach = [0, 3, 15, 40, 300, 20_000];
        for p in &mut c.pos {
            let r = reach[rng.below_or_at(5) as usize];
            *p += ((rng.next_f64() * 2.0 - 1.0) * f64::from(r)) as i32;
        }
        c.pos[0] = c.pos[0].clamp(-XY_BOUND, XY_BOUND - 1);
        c.pos[1] = c.pos[1].clamp(-XY_BOUND, XY_BOUND - 1);
        c.pos[2] = c.pos[2].clamp(0, Z_BOUND - 1);
        match rng.below_or_at(3) {
            0 => {}
            1 => {
                for v in &mut c.rot.rest {
                    let d = (rng.next_f64() * 2.0 - 1.0) * 150.0;
                    *v = (f64::from(*v) + d).clamp(0.0, 511.0) as u16;
                }
            }
            _ => c.rot = random_cube(rng, health).rot,
        }
        if health && rng.below_or_at(3) == 0 {
            c.hp = rng.below_or_at(255) as u8;
        }
        c
    }

    #[test]
    fn a_snapshot_decodes_to_the_encoder_state_and_its_bits_add_up() {
        let mut rng = SplitMix64::new(39);
        for (entities, health) in [(901, false), (64, true), (1000, false), (1, false)] {
            let layout = Layout { entities, health };
            let base: Vec<Cube> = (0..entities)
                .map(|_| random_cube(&mut rng, health))
                .collect();
            // From nothing changed to everything changed: both index codings are taken.
            for share in [0u64, 1, 5, 30, 100] {
                let current: Vec<Cube> = base
                    .iter()
                    .map(|b| {
                        if rng.below_or_at(99) < share {
                            nudge(&mut rng, b, health)
                        } else {
                            *b
                        }
                    })
                    .collect();
                for against in [Some((7u16, &base[..])), None] {
                    let (mut bytes, mut changed) = (Vec::new(), Vec::new());
                    encode(&layout, 8, against, &current, &mut changed, &mut bytes).unwrap();
                    let mut tally = Tally::default();
                    let mut out = Vec::new();
                    let h = decode(
                        &layout,
                        &bytes,
                        against.map(|(_, b)| b),
                        &mut out,
                        Some(&mut tally),
                    )
                    .unwrap();
                    assert_eq!(h.sequence, 8);
                    assert_eq!(h.base, against.map(|(s, _)| s));
                    assert_eq!(header(&bytes).unwrap(), h);
                    assert_eq!(out, current, "{entities} entities, {share}%");
                    assert_eq!(tally.total(), bytes.len() as u64 * 8);
                    // Every changed entity pays its two flag bits (three with health).
                    let flags = if health { 3 } else { 2 };
                    assert_eq!(tally.bits(Class::Mask), changed.len() as u64 * flags);
                }
            }
        }
    }

    #[test]
    fn the_codes_are_his() {
        let layout = Layout {
            entities: 901,
            health: false,
        };
        let at = |i: usize, dx: i32| {
            let mut s = vec![INITIAL; 901];
            s[i].pos[0] += dx;
            s
        };
        let base = vec![INITIAL; 901];
        let bits = |current: &[Cube]| {
            let (mut bytes, mut changed) = (Vec::new(), Vec::new());
            encode(
                &layout,
                1,
                Some((0, &base)),
                current,
                &mut changed,
                &mut bytes,
            )
            .unwrap();
            let mut tally = Tally::default();
            decode(
                &layout,
                &bytes,
                Some(&base),
                &mut Vec::new(),
                Some(&mut tally),
            )
            .unwrap();
            tally
        };
        // One cube moved 3 steps east: header 16 + 1 + 16, indexed bit, count 8; index 10;
        // flags 2; position 1 + 3 + 3 × 5.
        let t = bits(&at(5, 3));
        assert_eq!(t.bits(Class::Id), 10);
        assert_eq!(t.bits(Class::Mask), 2);
        assert_eq!(t.bits(Class::Position), 1 + 3 + 15);
        assert_eq!(t.bits(Class::Orientation), 0);
        // 300 steps: past his relative reach of 270, absolute 18 + 18 + 14.
        assert_eq!(bits(&at(5, 300)).bits(Class::Position), 1 + 50);
        // 20 steps: large, 9 bits, the others small.
        assert_eq!(bits(&at(5, 20)).bits(Class::Position), 1 + 3 + 9 + 10);
        // Relative indices: 1 + 3, 1 + 1 + 5, 1 + 1 + 10.
        let mut s = vec![INITIAL; 901];
        for i in [0, 8, 48, 900] {
            s[i].pos[2] += 1;
        }
        assert_eq!(bits(&s).bits(Class::Id), 10 + 4 + 7 + 12);
        // The cut of the small range out of the large one: every offset has one code.
        for (small, large) in [(16, 256), (16, 128)] {
            let reach = large + small - 1;
            let mut seen = std::collections::HashSet::new();
            for d in (-reach..reach).filter(|d| !(-small..small).contains(d)) {
                let code = cut_offset(d, small, large);
                assert!(code < 2 * large as u64, "{d}");
                assert!(seen.insert(code), "{d}");
                assert_eq!(uncut_offset(code, small, large), d);
            }
        }
    }

    #[test]
    fn nine_bit_smallest_three_is_within_a_fraction_of_a_degree() {
        let mut rng = SplitMix64::new(3);
        let mut worst = 0f64;
        for _ in 0..5000 {
            let q = [(); 4].map(|_| rng.next_f64() * 2.0 - 1.0);
            let n = q.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-9);
            let truth = q.map(|c| (c / n) as f32);
            let drawn = Orientation::from_xyzw(truth).to_xyzw();
            worst = worst.max(crate::scenes::angle_between_deg(truth, drawn));
        }
        // His "hard pressed to spot any artifacts": under half a degree.
        assert!(worst < 0.5 && worst > 0.0, "{worst}");
        assert_eq!(Orientation::from_xyzw(crate::scenes::IDENTITY), INITIAL.rot);
        // A quaternion and its negation are one rotation and one code.
        let q = [0.1f32, -0.7, 0.2, 0.677];
        assert_eq!(
            Orientation::from_xyzw(q),
            Orientation::from_xyzw(q.map(|c| -c))
        );
    }

    #[test]
    fn bad_frames_are_refused_with_where() {
        let layout = Layout {
            entities: 901,
            health: false,
        };
        let base = vec![INITIAL; 901];
        let mut current = base.clone();
        current[3].pos[1] = 77;
        let (mut bytes, mut changed) = (Vec::new(), Vec::new());
        encode(
            &layout,
            2,
            Some((1, &base)),
            &current,
            &mut changed,
            &mut bytes,
        )
        .unwrap();
        let mut out = Vec::new();
        for cut in 0..bytes.len() {
            let e = decode(&layout, &bytes[..cut], Some(&base), &mut out, None).unwrap_err();
            assert!(e.contains("at bit"), "{e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let e = decode(&layout, &longer, Some(&base), &mut out, None).unwrap_err();
        assert!(e.contains("past its end"), "{e}");
        let e = decode(&layout, &bytes, None, &mut out, None).unwrap_err();
        assert!(e.contains("snapshot 1"), "{e}");
        // An index past the last entity: the first index's bits all set.
        let mut w = Writer {
            bits: BitWriter::new(),
        };
        w.uint(16, 0, "").unwrap();
        w.bool(true);
        w.bool(true);
        w.uint(8, 1, "").unwrap();
        w.uint(10, 1000, "").unwrap();
        let mut bad = Vec::new();
        w.bits.finish(&mut bad);
        let e = decode(&layout, &bad, None, &mut out, None).unwrap_err();
        assert!(e.contains("index 1000"), "{e}");
    }
}
