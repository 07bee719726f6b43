//! Prediction forms for the coder study (issue 39): the fields of a changed cube rewritten as
//! residuals against what both sides provably hold, before the study's coders code them.
//!
//! The state is the `fiedler` lane's quantized cube ([`Cube`]: position in steps of 1/512 m,
//! smallest-three orientation at 9 bits), so every form carries exactly the information the
//! lane carries and a client that decodes a frame holds the same cubes as the server, bit for
//! bit: the render error is the lane's. A frame is encoded against the newest snapshot the
//! client acknowledged (the base) and, for the velocity forms, an older acknowledged snapshot
//! (named in the header by its distance back from the base): both are snapshots the client
//! decoded and still keeps, so a lost, duplicated or reordered frame never leaves the two
//! sides predicting from different states.
//!
//! Every prediction is integer arithmetic on quantized values ([`extrapolate`]: a product and
//! a division rounded half away from zero, in `i64`), so any language reproduces it exactly.
//! [`decode`] rebuilds the cubes from the symbols with the decoder's own copies of the base
//! and the older snapshot, and checks at each symbol that the field it expects is the one the
//! encoder wrote: the layout, not the encoder, says what comes next.

use super::{Contexts, Split, Symbol};
use crate::fiedler::{Cube, Layout, Orientation, INITIAL};
use crate::run::{capture, Length};
use crate::scenes::{Scene, SceneKind};
use std::collections::HashMap;

/// How a changed position is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Its difference from the base's.
    Base,
    /// Its difference from the base moved on by the velocity the base and the older snapshot
    /// show, scaled by the tick gaps ([`extrapolate`]).
    Velocity,
}

/// How a changed orientation is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotation {
    /// The smallest three as they are: the largest component's index and three 9-bit values.
    Absolute,
    /// Each of the three as its change from the base's, when the largest component is the
    /// base's (a bit says so); otherwise absolute.
    Base,
    /// As [`Rotation::Base`], against the base's three moved on by the turn the base and the
    /// older snapshot show (when all three share a largest component).
    Spin,
}

/// A prediction form: what a changed cube's fields become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Form {
    /// The position's form.
    pub position: Position,
    /// The orientation's form.
    pub rotation: Rotation,
    /// Whether each field's model is chosen by how fast the cube moved between the older
    /// snapshot and the base (a class both sides compute), rather than one per field.
    pub motion_contexts: bool,
    /// Whether the older snapshot is the newest acknowledged one at least as far behind the
    /// base as the base is behind this frame (a longer baseline for the velocity), rather than
    /// the newest acknowledged before the base.
    pub far_older: bool,
    /// Whether which entities changed travels as a bit per entity, its model chosen by the
    /// entity's motion class (an entity that moved between the older snapshot and the base
    /// has likely moved again), rather than as each changed index's distance from the last.
    pub changed_bits: bool,
    /// Whether a residual's model is chosen also by the residuals of the cube already sent
    /// (the largest so far of its position's, then of its orientation's, by bit length): a
    /// cube that hit the ground is off its prediction on every axis at once.
    pub residual_contexts: bool,
}

impl Form {
    /// The forms the study compares, in report order.
    pub const ALL: [Form; 8] = [
        Form {
            position: Position::Base,
            rotation: Rotation::Absolute,
            motion_contexts: false,
            far_older: false,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Base,
            rotation: Rotation::Base,
            motion_contexts: false,
            far_older: false,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Base,
            motion_contexts: false,
            far_older: false,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Base,
            motion_contexts: true,
            far_older: false,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Spin,
            motion_contexts: true,
            far_older: false,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Spin,
            motion_contexts: true,
            far_older: true,
            changed_bits: false,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Spin,
            motion_contexts: true,
            far_older: false,
            changed_bits: true,
            residual_contexts: false,
        },
        Form {
            position: Position::Velocity,
            rotation: Rotation::Spin,
            motion_contexts: true,
            far_older: false,
            changed_bits: true,
            residual_contexts: true,
        },
    ];

    /// One line on what it is.
    pub fn name(self) -> String {
        let position = match self.position {
            Position::Base => "position − base",
            Position::Velocity => "position − velocity estimate",
        };
        let rotation = match self.rotation {
            Rotation::Absolute => "orientation absolute",
            Rotation::Base => "orientation − base",
            Rotation::Spin => "orientation − spin estimate",
        };
        let mut name = format!("{position}, {rotation}");
        if self.motion_contexts {
            name.push_str(", motion contexts");
        }
        if self.far_older {
            name.push_str(", far older");
        }
        if self.changed_bits {
            name.push_str(", a changed bit per entity");
        }
        if self.residual_contexts {
            name.push_str(", residual contexts");
        }
        name
    }

    /// Whether the form uses an older snapshot.
    fn uses_older(self) -> bool {
        self.position == Position::Velocity
            || self.rotation == Rotation::Spin
            || (self.changed_bits && self.motion_contexts)
    }
}

/// Bits of a frame's header: his sequence (16), the initial-state bit and the base's sequence
/// (16), the older snapshot's distance back from the base (8, 0 for none), the count of changed
/// cubes (16), padded to whole bytes.
pub const HEADER_BITS: u64 = 56;

/// The furthest back from the base the older snapshot may be (its distance is a byte), within
/// the 256 snapshots his client keeps.
pub const MAX_OLDER_DISTANCE: u16 = 255;

/// The snapshots a frame is predicted from, as sequences, with the ticks between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refs {
    /// Ticks from the base to this frame (his snapshots are one a tick), at least 1.
    pub gap: u16,
    /// Ticks from the older snapshot to the base, when there is one (1 to
    /// [`MAX_OLDER_DISTANCE`]).
    pub older_gap: Option<u16>,
}

/// `v × num / den` rounded to the nearest integer, halves away from zero, in `i64`, clamped to
/// `i32`: the one piece of arithmetic every prediction uses, exact in every language.
pub fn extrapolate(v: i32, num: u16, den: u16) -> i32 {
    let den = i64::from(den.max(1));
    let p = i64::from(v) * i64::from(num);
    let q = (p.abs() + den / 2) / den;
    let q = if p < 0 { -q } else { q };
    q.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// A signed value as its zigzag code: 0, -1, 1, -2... to 0, 1, 2, 3...
fn zigzag(v: i32) -> u64 {
    u64::from(((v << 1) ^ (v >> 31)) as u32)
}

fn unzigzag(z: u64) -> i32 {
    let z = z as u32;
    ((z >> 1) as i32) ^ -((z & 1) as i32)
}

/// How fast a cube moved between the older snapshot and the base, per tick of this frame's
/// gap: 0 still, then by the bit length of its largest step (1 to 2, 3 to 4, 5 to 6, more).
fn motion_class(step: i32) -> u8 {
    match 32 - step.unsigned_abs().leading_zeros() {
        0 => 0,
        1..=2 => 1,
        3..=4 => 2,
        5..=6 => 3,
        _ => 4,
    }
}

/// The class of a residual's model: its field's motion class and, with residual contexts, the
/// class of the largest residual of the cube so far (`so_far`, 5 when none was sent).
fn residual_class(form: Form, motion: u8, so_far: u8) -> u8 {
    if form.residual_contexts {
        motion * 8 + so_far
    } else {
        motion
    }
}

/// The fields a form sends, by name; a context is the name and, with motion contexts, the
/// class.
#[derive(Debug, Clone, Copy)]
enum Field {
    Gap,
    Changed,
    Moved,
    Turned,
    Hurt,
    Axis(usize),
    SameLargest,
    Component(usize),
    Largest,
    Absolute(usize),
    Hp,
}

impl Field {
    fn path(self) -> String {
        match self {
            Field::Gap => "gap".into(),
            Field::Changed => "changed".into(),
            Field::Moved => "moved".into(),
            Field::Turned => "turned".into(),
            Field::Hurt => "hurt".into(),
            Field::Axis(a) => format!("position.{}", ["x", "y", "z"][a]),
            Field::SameLargest => "same_largest".into(),
            Field::Component(c) => format!("orientation.delta{c}"),
            Field::Largest => "orientation.largest".into(),
            Field::Absolute(c) => format!("orientation.component{c}"),
            Field::Hp => "hp".into(),
        }
    }
}

/// What both sides know of one cube before its fields: its base, its predictions and its
/// motion classes.
struct Known {
    base: Cube,
    position: [i32; 3],
    rotation: Option<[i32; 3]>,
    position_class: u8,
    rotation_class: u8,
}

fn known(form: Form, refs: Refs, base: &Cube, older: Option<&Cube>) -> Known {
    let mut k = Known {
        base: *base,
        position: base.pos,
        rotation: None,
        position_class: 0,
        rotation_class: 0,
    };
    let (Some(older), Some(older_gap)) = (older, refs.older_gap) else {
        return k;
    };
    let step = [0, 1, 2].map(|a| extrapolate(base.pos[a] - older.pos[a], refs.gap, older_gap));
    if form.position == Position::Velocity {
        k.position = [0, 1, 2].map(|a| base.pos[a].saturating_add(step[a]));
    }
    let turn = [0, 1, 2].map(|c| {
        extrapolate(
            i32::from(base.rot.rest[c]) - i32::from(older.rot.rest[c]),
            refs.gap,
            older_gap,
        )
    });
    if form.rotation == Rotation::Spin && base.rot.largest == older.rot.largest {
        k.rotation = Some([0, 1, 2].map(|c| (i32::from(base.rot.rest[c]) + turn[c]).clamp(0, 511)));
    }
    if form.motion_contexts {
        let largest = |v: [i32; 3]| v.into_iter().map(i32::abs).max().unwrap_or(0);
        k.position_class = motion_class(largest(step));
        k.rotation_class = if base.rot.largest == older.rot.largest {
            motion_class(largest(turn))
        } else {
            4
        };
    }
    k
}

impl Known {
    /// The three the orientation's deltas are taken from.
    fn rotation_from(&self) -> [i32; 3] {
        self.rotation.unwrap_or(self.base.rot.rest.map(i32::from))
    }

    fn class(&self, field: Field) -> u8 {
        match field {
            Field::Changed => self.position_class.max(self.rotation_class),
            Field::Moved | Field::Axis(_) => self.position_class,
            Field::Turned | Field::SameLargest | Field::Component(_) => self.rotation_class,
            _ => 0,
        }
    }
}

/// Symbols of one frame, pushed by the encoder or checked and read by the decoder.
struct Symbols<'c> {
    contexts: &'c mut Contexts,
    motion_contexts: bool,
}

impl Symbols<'_> {
    fn context(&mut self, field: Field, class: u8) -> u16 {
        let path = if self.motion_contexts {
            format!("{}/{class}", field.path())
        } else {
            field.path()
        };
        self.contexts.id(&path)
    }

    /// A field of fixed width.
    fn fixed(&mut self, field: Field, class: u8, width: u8, bits: u64) -> Symbol {
        let context = self.context(field, class);
        Symbol {
            context,
            table: self.contexts.table(context, width),
            width,
            bits,
        }
    }

    /// A signed field: its zigzag code, its width the code's bit length (0 for 0).
    fn signed(&mut self, field: Field, class: u8, v: i32) -> Symbol {
        let z = zigzag(v);
        self.fixed(field, class, (64 - z.leading_zeros()) as u8, z)
    }
}

/// The symbols of `current` against `base` (and `older`, for the forms that use one): per
/// changed cube (one that differs from its base), its index's distance from the last, its
/// flags and its fields as the form sends them. Returns the frame split, its header kept.
pub fn encode(
    form: Form,
    contexts: &mut Contexts,
    refs: Refs,
    base: &[Cube],
    older: Option<&[Cube]>,
    current: &[Cube],
    health: bool,
) -> Split {
    let older = older.filter(|_| form.uses_older() && refs.older_gap.is_some());
    let mut s = Symbols {
        contexts,
        motion_contexts: form.motion_contexts,
    };
    let mut split = Split {
        kept_bits: HEADER_BITS,
        symbols: Vec::new(),
    };
    let out = &mut split.symbols;
    let mut last = None;
    for (i, (cube, b)) in current.iter().zip(base).enumerate() {
        let changed = cube != b;
        let k = if form.changed_bits {
            let k = known(form, refs, b, older.map(|o| &o[i]));
            let field = Field::Changed;
            out.push(s.fixed(field, k.class(field), 1, u64::from(changed)));
            if !changed {
                continue;
            }
            k
        } else {
            if !changed {
                continue;
            }
            let gap = last.map_or(i, |l: usize| i - l - 1);
            last = Some(i);
            out.push(s.signed(Field::Gap, 0, gap as i32));
            known(form, refs, b, older.map(|o| &o[i]))
        };
        let moved = cube.pos != b.pos;
        let turned = cube.rot != b.rot;
        let hurt = health && cube.hp != b.hp;
        out.push(s.fixed(Field::Moved, k.class(Field::Moved), 1, u64::from(moved)));
        out.push(s.fixed(Field::Turned, k.class(Field::Turned), 1, u64::from(turned)));
        if health {
            out.push(s.fixed(Field::Hurt, 0, 1, u64::from(hurt)));
        }
        let mut so_far = 0;
        if moved {
            for a in 0..3 {
                let field = Field::Axis(a);
                let residual = cube.pos[a] - k.position[a];
                let class = residual_class(form, k.class(field), so_far);
                out.push(s.signed(field, class, residual));
                so_far = so_far.max(motion_class(residual));
            }
        } else {
            so_far = 5;
        }
        if turned {
            let same = form.rotation != Rotation::Absolute && cube.rot.largest == b.rot.largest;
            if form.rotation != Rotation::Absolute {
                let field = Field::SameLargest;
                out.push(s.fixed(field, k.class(field), 1, u64::from(same)));
            }
            if same {
                for (c, from) in k.rotation_from().into_iter().enumerate() {
                    let field = Field::Component(c);
                    let d = i32::from(cube.rot.rest[c]) - from;
                    let class = residual_class(form, k.class(field), so_far);
                    out.push(s.signed(field, class, d));
                    so_far = if c == 0 {
                        motion_class(d)
                    } else {
                        so_far.max(motion_class(d))
                    };
                }
            } else {
                out.push(s.fixed(Field::Largest, 0, 2, u64::from(cube.rot.largest)));
                for c in 0..3 {
                    let v = u64::from(cube.rot.rest[c]);
                    out.push(s.fixed(Field::Absolute(c), 0, 9, v));
                }
            }
        }
        if hurt {
            out.push(s.fixed(Field::Hp, 0, 8, u64::from(cube.hp)));
        }
    }
    split
}

/// Reads the symbols of a frame in order, checking that each is of the field the decoder
/// expects next.
struct Reader<'a, 'c> {
    symbols: std::slice::Iter<'a, Symbol>,
    s: Symbols<'c>,
}

impl Reader<'_, '_> {
    fn next(&mut self, field: Field, class: u8) -> Result<Symbol, String> {
        let want = self.s.context(field, class);
        let got = self
            .symbols
            .next()
            .ok_or_else(|| format!("the frame ends before {}", field.path()))?;
        if got.context != want {
            return Err(format!("{} expected, another field found", field.path()));
        }
        Ok(*got)
    }

    fn bit(&mut self, field: Field, class: u8) -> Result<bool, String> {
        Ok(self.next(field, class)?.bits == 1)
    }

    fn signed(&mut self, field: Field, class: u8) -> Result<i32, String> {
        Ok(unzigzag(self.next(field, class)?.bits))
    }
}

/// The cubes `symbols` (a frame's changes as [`encode`] wrote them, `count` of them) make of
/// `base` and `older`, the decoder's own copies; into `out`.
#[allow(clippy::too_many_arguments)]
pub fn decode(
    form: Form,
    contexts: &mut Contexts,
    refs: Refs,
    base: &[Cube],
    older: Option<&[Cube]>,
    symbols: &[Symbol],
    health: bool,
    out: &mut Vec<Cube>,
) -> Result<(), String> {
    let older = older.filter(|_| form.uses_older() && refs.older_gap.is_some());
    let mut r = Reader {
        symbols: symbols.iter(),
        s: Symbols {
            contexts,
            motion_contexts: form.motion_contexts,
        },
    };
    out.clear();
    out.extend_from_slice(base);
    let mut next = 0usize;
    loop {
        let i = if form.changed_bits {
            // Every entity has its bit.
            let Some(b) = base.get(next) else { break };
            let i = next;
            next += 1;
            let k = known(form, refs, b, older.map(|o| &o[i]));
            if !r.bit(Field::Changed, k.class(Field::Changed))? {
                continue;
            }
            i
        } else {
            if r.symbols.len() == 0 {
                break;
            }
            let gap = usize::try_from(r.signed(Field::Gap, 0)?).map_err(|_| "a negative gap")?;
            let i = next
                .checked_add(gap)
                .filter(|&i| i < base.len())
                .ok_or("a change past the last cube")?;
            next = i + 1;
            i
        };
        let b = &base[i];
        let k = known(form, refs, b, older.map(|o| &o[i]));
        let mut cube = *b;
        let moved = r.bit(Field::Moved, k.class(Field::Moved))?;
        let turned = r.bit(Field::Turned, k.class(Field::Turned))?;
        let hurt = health && r.bit(Field::Hurt, 0)?;
        let mut so_far = 0;
        if moved {
            for a in 0..3 {
                let field = Field::Axis(a);
                let residual = r.signed(field, residual_class(form, k.class(field), so_far))?;
                cube.pos[a] = k.position[a].saturating_add(residual);
                so_far = so_far.max(motion_class(residual));
            }
        } else {
            so_far = 5;
        }
        if turned {
            let same = form.rotation != Rotation::Absolute
                && r.bit(Field::SameLargest, k.class(Field::SameLargest))?;
            if same {
                for (c, from) in k.rotation_from().into_iter().enumerate() {
                    let field = Field::Component(c);
                    let d = r.signed(field, residual_class(form, k.class(field), so_far))?;
                    so_far = if c == 0 {
                        motion_class(d)
                    } else {
                        so_far.max(motion_class(d))
                    };
                    let v = from.saturating_add(d);
                    cube.rot.rest[c] = u16::try_from(v)
                        .ok()
                        .filter(|&v| v <= 511)
                        .ok_or("an orientation past 0..=511")?;
                }
            } else {
                let largest = r.next(Field::Largest, 0)?.bits as u8;
                let mut rest = [0u16; 3];
                for (c, slot) in rest.iter_mut().enumerate() {
                    *slot = r.next(Field::Absolute(c), 0)?.bits as u16;
                }
                cube.rot = Orientation { largest, rest };
            }
        }
        if hurt {
            cube.hp = r.next(Field::Hp, 0)?.bits as u8;
        }
        out[i] = cube;
    }
    if r.symbols.len() > 0 {
        return Err("fields past the last cube".into());
    }
    Ok(())
}

/// Which part of a change a context of these forms codes, as docs/bench splits bits: `index`,
/// `flags`, `position`, `orientation` or `rest`.
pub fn part(context: &str) -> &'static str {
    let field = context.split('/').next().unwrap_or(context);
    match field {
        "gap" | "changed" => "index",
        "moved" | "turned" | "hurt" => "flags",
        "same_largest" => "orientation",
        _ if field.starts_with("position.") => "position",
        _ if field.starts_with("orientation.") => "orientation",
        _ => "rest",
    }
}

/// One snapshot the `fiedler` lane sent.
#[derive(Debug, Clone)]
struct Sent {
    sequence: u16,
    tick: u32,
    base: Option<u16>,
    bytes: usize,
}

/// The snapshot `seq` of one side's ring.
fn lookup(seq: u16, side: &HashMap<u16, Vec<Cube>>) -> Result<&[Cube], String> {
    side.get(&seq)
        .map(|c| c.as_slice())
        .ok_or_else(|| format!("snapshot {seq} is not held"))
}

/// Whether sequence `a` is newer than `b`, with wrapping.
fn newer(a: u16, b: u16) -> bool {
    a != b && a.wrapping_sub(b) < 0x8000
}

/// The `fiedler` lane's snapshots of one run: which it sent against which base, and the
/// cubes each holds (read back from its frames with his decoder, so exactly the server's).
#[derive(Debug, Clone)]
pub struct Recorded {
    layout: Layout,
    warmup: u32,
    sent: Vec<Sent>,
    cubes: HashMap<u16, Vec<Cube>>,
    /// The entities the world changed over the measured ticks, as the bench counts them.
    pub changed: u64,
    /// Bits the lane sent over the measured ticks.
    pub fiedler_bits: u64,
}

impl Recorded {
    /// Runs `kind` at `loss_pct` each way over `length` on `seed` with the `fiedler` lane
    /// alone and keeps its snapshots (the warm-up's too: later frames are encoded against
    /// them).
    pub fn run(
        kind: SceneKind,
        loss_pct: f64,
        length: Length,
        seed: u64,
    ) -> Result<Recorded, String> {
        let all = Length {
            ticks: length.ticks,
            warmup: 0,
        };
        let layout = Layout {
            entities: usize::from(kind.entities()),
            health: kind.has_health(),
        };
        let mut r = Recorded {
            layout,
            warmup: length.warmup,
            sent: Vec::new(),
            cubes: HashMap::new(),
            changed: 0,
            fiedler_bits: 0,
        };
        for s in capture(kind, loss_pct, all, seed, &["fiedler"])? {
            let h = crate::fiedler::header(&s.packet.bytes)?;
            let base = match h.base {
                None => None,
                Some(b) => Some(
                    &r.cubes.get(&b).ok_or_else(|| {
                        format!("snapshot {} against {b}, never sent", h.sequence)
                    })?[..],
                ),
            };
            let mut out = Vec::new();
            crate::fiedler::decode(&layout, &s.packet.bytes, base, &mut out, None)?;
            r.cubes.insert(h.sequence, out);
            if s.tick > length.warmup {
                r.fiedler_bits += s.packet.bytes.len() as u64 * 8;
            }
            r.sent.push(Sent {
                sequence: h.sequence,
                tick: s.tick,
                base: h.base,
                bytes: s.packet.bytes.len(),
            });
        }
        let mut scene = Scene::new(kind, seed);
        for t in 1..=length.ticks {
            scene.step();
            if t > length.warmup {
                r.changed += scene.changed().len() as u64;
            }
        }
        Ok(r)
    }

    /// Frames measured (after the warm-up).
    pub fn measured(&self) -> usize {
        self.sent.iter().filter(|s| s.tick > self.warmup).count()
    }

    /// Every measured frame in `form`, with the `fiedler` lane's length of it in bytes. Each
    /// frame is decoded by a client that holds only what it decoded itself (its base and older
    /// snapshot rebuilt from earlier frames in this form) and must give the server's cubes bit
    /// for bit, or this fails.
    pub fn split(
        &self,
        form: Form,
        contexts: &mut Contexts,
    ) -> Result<Vec<(Split, usize)>, String> {
        let initial = vec![INITIAL; self.layout.entities];
        let mut client: HashMap<u16, Vec<Cube>> = HashMap::new();
        // The bases used so far, oldest first: snapshots the server heard acknowledged.
        let mut acked: Vec<u16> = Vec::new();
        let mut frames = Vec::new();
        let mut out = Vec::new();
        for s in &self.sent {
            let current = &self.cubes[&s.sequence];
            let gap = s.base.map_or(1, |b| s.sequence.wrapping_sub(b).max(1));
            let older = s.base.and_then(|b| {
                let far = |o: &&u16| !form.far_older || b.wrapping_sub(**o) >= gap;
                acked
                    .iter()
                    .rev()
                    .filter(|&&o| newer(b, o) && b.wrapping_sub(o) <= MAX_OLDER_DISTANCE)
                    .find(far)
                    .copied()
            });
            let refs = Refs {
                gap,
                older_gap: s.base.zip(older).map(|(b, o)| b.wrapping_sub(o)),
            };
            let (server_base, client_base) = match s.base {
                None => (&initial[..], &initial[..]),
                Some(b) => (lookup(b, &self.cubes)?, lookup(b, &client)?),
            };
            let server_older = older.map(|o| lookup(o, &self.cubes)).transpose()?;
            let client_older = older.map(|o| lookup(o, &client)).transpose()?;
            let split = encode(
                form,
                contexts,
                refs,
                server_base,
                server_older,
                current,
                self.layout.health,
            );
            decode(
                form,
                contexts,
                refs,
                client_base,
                client_older,
                &split.symbols,
                self.layout.health,
                &mut out,
            )?;
            if out != *current {
                return Err(format!(
                    "{}: snapshot {} decodes to other cubes than the server's",
                    form.name(),
                    s.sequence
                ));
            }
            client.insert(s.sequence, std::mem::take(&mut out));
            if let Some(b) = s.base {
                if acked.last().is_none_or(|&l| newer(b, l)) {
                    acked.push(b);
                }
            }
            if s.tick > self.warmup {
                frames.push((split, s.bytes));
            }
        }
        Ok(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrapolation_rounds_halves_away_from_zero_and_is_odd() {
        assert_eq!(extrapolate(3, 1, 2), 2);
        assert_eq!(extrapolate(-3, 1, 2), -2);
        assert_eq!(extrapolate(5, 6, 4), 8);
        assert_eq!(extrapolate(-5, 6, 4), -8);
        assert_eq!(extrapolate(7, 3, 1), 21);
        assert_eq!(extrapolate(1, 1, 3), 0);
        assert_eq!(extrapolate(i32::MAX, u16::MAX, 1), i32::MAX);
        for v in -100..100 {
            for (n, d) in [(1, 1), (3, 2), (5, 7), (6, 1)] {
                assert_eq!(extrapolate(-v, n, d), -extrapolate(v, n, d));
            }
        }
        for v in [0, 1, -1, 2, -2, 1000, -1000, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!([0, -1, 1, -2].map(zigzag), [0, 1, 2, 3]);
    }

    fn cube(pos: [i32; 3], rest: [u16; 3], largest: u8, hp: u8) -> Cube {
        Cube {
            pos,
            rot: Orientation { largest, rest },
            hp,
        }
    }

    #[test]
    fn every_form_decodes_to_the_cubes_and_velocity_predicts_steady_motion() {
        // Cube 0 moves 10 steps a tick along x and turns 2 a tick; cube 1 rests; cube 2 jumps
        // and changes its largest component; cube 3 only loses health.
        let older = vec![
            cube([100, 0, 50], [200, 256, 256], 3, 9),
            cube([5, 5, 5], [256, 256, 256], 3, 9),
            cube([0, 0, 0], [256, 256, 256], 3, 9),
            cube([0, 0, 0], [256, 256, 256], 3, 9),
        ];
        let refs = Refs {
            gap: 3,
            older_gap: Some(2),
        };
        let base = vec![
            cube([120, 0, 50], [204, 256, 256], 3, 9),
            older[1],
            older[2],
            older[3],
        ];
        let current = vec![
            cube([150, 0, 50], [210, 256, 256], 3, 9),
            older[1],
            cube([40_000, -3, 7], [10, 500, 0], 1, 9),
            cube([0, 0, 0], [256, 256, 256], 3, 4),
        ];
        for form in Form::ALL {
            for health in [false, true] {
                let mut contexts = Contexts::default();
                let split = encode(
                    form,
                    &mut contexts,
                    refs,
                    &base,
                    Some(&older),
                    &current,
                    health,
                );
                let mut out = Vec::new();
                decode(
                    form,
                    &mut contexts,
                    refs,
                    &base,
                    Some(&older),
                    &split.symbols,
                    health,
                    &mut out,
                )
                .unwrap();
                let mut want = current.clone();
                if !health {
                    want[3] = base[3];
                }
                assert_eq!(out, want, "{}", form.name());
                // The steady cube's position residual: 0 under the velocity forms (10 a tick,
                // 3 ticks), 30 steps against the base. Its x follows the gap and the flags.
                let x = split.symbols[3 + usize::from(health)];
                let residual = unzigzag(x.bits);
                match form.position {
                    Position::Velocity => assert_eq!(residual, 0, "{}", form.name()),
                    Position::Base => assert_eq!(residual, 30, "{}", form.name()),
                }
            }
        }
        // Against the initial state with no older snapshot, the forms still round-trip.
        let initial = vec![INITIAL; 4];
        let mut contexts = Contexts::default();
        let no_older = Refs {
            gap: 1,
            older_gap: None,
        };
        let form = Form::ALL[5];
        let split = encode(
            form,
            &mut contexts,
            no_older,
            &initial,
            None,
            &current,
            true,
        );
        let mut out = Vec::new();
        decode(
            form,
            &mut contexts,
            no_older,
            &initial,
            None,
            &split.symbols,
            true,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, current);
        // A decoder that expects another field, or meets the end early, says so.
        let e = decode(
            Form::ALL[0],
            &mut contexts,
            no_older,
            &initial,
            None,
            &split.symbols[..split.symbols.len() - 1],
            true,
            &mut out,
        )
        .unwrap_err();
        assert!(e.contains("expected") || e.contains("ends"), "{e}");
        // With a bit per entity, fields after the last entity's are refused.
        let form = Form::ALL[6];
        let split = encode(
            form,
            &mut contexts,
            no_older,
            &initial,
            None,
            &current,
            true,
        );
        let mut longer = split.symbols.clone();
        longer.push(split.symbols[0]);
        let e = decode(
            form,
            &mut contexts,
            no_older,
            &initial,
            None,
            &longer,
            true,
            &mut out,
        )
        .unwrap_err();
        assert!(e.contains("past the last"), "{e}");
    }
}
