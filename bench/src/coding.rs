//! The coder study of issue 39 (measured, not shipped): what entropy coding would take off
//! kind 12's bit-packed bodies, on the frames the bench's scenes send, before the coded profile
//! is designed. `cargo run --release -p ackwire-bench --example coding_study` prints the
//! figures `docs/perf/coding.md` keeps.
//!
//! A frame is split by the walk `ackwire explain` makes ([`fields_of`]): the byte-aligned
//! header stays as it is, and each field of a change inside the packed body becomes a symbol
//! (its raw bits, with a context naming the field, indices dropped). The coders then code
//! those symbols, each frame on its own, so that a lost, duplicated or reordered frame never
//! desynchronises anything:
//!
//! - [`BinaryCoder`]: the runtime's adaptive binary range coder
//!   ([`ackwire_codec::rt::range`]: integer arithmetic, 12-bit probabilities moved a sixteenth
//!   of the way per bit, LZMA's byte output with a carry through a cached byte), each
//!   field's bits in stream order under a binary-tree context for the first eight and a
//!   context per position after; its probabilities start flat or from a trained table, and
//!   adapt within the frame only;
//! - [`Rans`]: static rANS (32-bit state, byte output, 14-bit frequencies), each field cut in
//!   chunks of at most 8 bits, a frequency table per field and chunk trained from recorded
//!   frames.
//!
//! Both round-trip every frame of the study, which [`measure`] checks. [`predict`] rewrites
//! the fields themselves as residuals against what the client provably holds, for the same
//! coders.

pub mod predict;

use crate::fields::frame_of_kind;
use ackwire_codec::rt::range::{self, BitTree, Prob, RangeDecoder, RangeEncoder, TREE_SLOTS};
use ackwire_conformance::explain;
use ackwire_spec::lower::Lowering;
use std::collections::HashMap;

/// One field of a change: its context and raw bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// Which field (its path without indices), as an index into the study's [`Contexts`].
    pub context: u16,
    /// Which field at which width (a bucket code's width is its bucket), numbered by
    /// [`Contexts`]: the table its bits are coded with.
    pub table: u16,
    /// Its width in bits, 0 to 64 (a prediction's residual of 0 has none).
    pub width: u8,
    /// Its bits as the stream holds them, the first in the least significant bit.
    pub bits: u64,
}

/// A frame split for coding: the bits left as they are and the changes' fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    /// Bits of the frame outside the changes (its header, counts, padding).
    pub kept_bits: u64,
    /// The changes' fields in stream order.
    pub symbols: Vec<Symbol>,
}

/// The widest field.
const MAX_WIDTH: usize = 64;

/// Field paths without indices, numbered in order of first appearance, and each field's
/// widths: a decoder knows the field from the layout and decodes its width first, then its
/// bits with that width's table.
#[derive(Debug, Clone, Default)]
pub struct Contexts {
    ids: HashMap<String, u16>,
    /// Per context, the table of each width (`u16::MAX`: none yet).
    by_width: Vec<[u16; MAX_WIDTH + 1]>,
    tables: u16,
}

impl Contexts {
    fn id(&mut self, path: &str) -> u16 {
        let key: String = {
            let mut out = String::with_capacity(path.len());
            let mut depth = 0;
            for c in path.chars() {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ if depth == 0 => out.push(c),
                    _ => {}
                }
            }
            out
        };
        let next = self.ids.len() as u16;
        let id = *self.ids.entry(key).or_insert(next);
        if usize::from(id) == self.by_width.len() {
            self.by_width.push([u16::MAX; MAX_WIDTH + 1]);
        }
        id
    }

    fn table(&mut self, context: u16, width: u8) -> u16 {
        let slot = &mut self.by_width[usize::from(context)][usize::from(width)];
        if *slot == u16::MAX {
            *slot = self.tables;
            self.tables += 1;
        }
        *slot
    }

    /// The table of `context` at `width`, if that width was seen.
    fn table_of(&self, context: u16, width: u8) -> Option<u16> {
        self.by_width
            .get(usize::from(context))?
            .get(usize::from(width))
            .copied()
            .filter(|&t| t != u16::MAX)
    }

    /// How many contexts there are.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// How many (context, width) tables there are.
    pub fn tables(&self) -> usize {
        usize::from(self.tables)
    }
}

/// The bits `[from, from + width)` of `bytes`, least significant bit first.
fn bits_at(bytes: &[u8], from: usize, width: usize) -> u64 {
    (0..width).fold(0u64, |v, i| {
        let bit = from + i;
        v | (u64::from(bytes[bit / 8] >> (bit % 8) & 1) << i)
    })
}

/// Splits the acked frame `bytes` (its kind names its frame in `low`): packed fields inside an
/// element of a list become symbols, the rest is kept.
pub fn fields_of(
    low: &Lowering<'_>,
    bytes: &[u8],
    contexts: &mut Contexts,
) -> Result<Split, String> {
    let kind = bytes.first().copied().unwrap_or_default();
    let frame = frame_of_kind(low, kind).ok_or_else(|| format!("no frame of kind {kind}"))?;
    let rows = explain::explain_lowered(low, &frame, bytes).map_err(|e| e.to_string())?;
    let start = |i: usize| {
        rows.get(i)
            .map_or(bytes.len() * 8, |r| r.bit.unwrap_or(r.offset * 8))
    };
    let mut split = Split::default();
    for (i, row) in rows.iter().enumerate() {
        match row.bit {
            Some(bit) if row.path.contains('[') => {
                let width = start(i + 1).saturating_sub(bit);
                if !(1..=64).contains(&width) {
                    return Err(format!("{}: a field of {width} bits", row.path));
                }
                let context = contexts.id(&row.path);
                split.symbols.push(Symbol {
                    context,
                    table: contexts.table(context, width as u8),
                    width: width as u8,
                    bits: bits_at(bytes, bit, width),
                });
            }
            Some(bit) => split.kept_bits += start(i + 1).saturating_sub(bit) as u64,
            None => split.kept_bits += row.bytes.len() as u64 * 8,
        }
    }
    Ok(split)
}

/// Probabilities are the runtime coder's: the chance of a 0 in 4096ths.
const PROB_ONE: u64 = 1 << range::PROB_BITS;

/// A width is coded as 7 bits under its own tree.
const WIDTH_BITS: u8 = 7;

/// The probabilities of the binary coder: per context, its widths' tree; per table, its bits'
/// tree (both [`range::BitTree`]s, a binary tree over a field's first 8 bits and one slot per
/// bit after).
#[derive(Debug, Clone)]
pub struct BinaryModel {
    widths: Vec<BitTree>,
    bits: Vec<BitTree>,
    /// Whether coding moves the probabilities (false: a static model).
    pub adapt: bool,
}

/// Zeros and ones seen, to a probability of a zero (add-one smoothed, kept within 1/128 of 0
/// and 1).
fn probability([zeros, ones]: [u64; 2]) -> Prob {
    let p = zeros * PROB_ONE / (zeros + ones);
    Prob::new(p.clamp(32, PROB_ONE - 32) as u16).unwrap_or(Prob::HALF)
}

impl BinaryModel {
    /// Every probability one half.
    pub fn flat(contexts: &Contexts, adapt: bool) -> BinaryModel {
        BinaryModel {
            widths: vec![BitTree::new(Prob::HALF); contexts.len()],
            bits: vec![BitTree::new(Prob::HALF); contexts.tables()],
            adapt,
        }
    }

    /// Probabilities counted on `frames`.
    pub fn trained(contexts: &Contexts, frames: &[Split], adapt: bool) -> BinaryModel {
        let mut widths = vec![[[1u64; 2]; TREE_SLOTS]; contexts.len()];
        let mut bits = vec![[[1u64; 2]; TREE_SLOTS]; contexts.tables()];
        for s in frames.iter().flat_map(|f| &f.symbols) {
            let w = u64::from(s.width);
            for i in 0..WIDTH_BITS {
                widths[usize::from(s.context)][BitTree::slot(i, w)][(w >> i & 1) as usize] += 1;
            }
            for i in 0..s.width {
                bits[usize::from(s.table)][BitTree::slot(i, s.bits)][(s.bits >> i & 1) as usize] +=
                    1;
            }
        }
        let tree = |counts: &[[u64; 2]; TREE_SLOTS]| {
            BitTree::from_slots(&counts.map(probability)).unwrap_or(BitTree::new(Prob::HALF))
        };
        BinaryModel {
            widths: widths.iter().map(tree).collect(),
            bits: bits.iter().map(tree).collect(),
            adapt,
        }
    }
}

/// The binary coder: the runtime's range coder ([`ackwire_codec::rt::range`]) over each field
/// of a frame, its width first.
#[derive(Debug)]
pub struct BinaryCoder;

/// `width` bits of `v` under `tree`, adapting or not.
fn put_field(
    e: &mut RangeEncoder,
    tree: &mut BitTree,
    width: u8,
    v: u64,
    adapt: bool,
) -> Result<(), String> {
    if adapt {
        return e.bits(tree, width, v).map_err(|e| e.to_string());
    }
    for i in 0..width {
        e.bit_static(tree.slots()[BitTree::slot(i, v)], v >> i & 1 == 1);
    }
    Ok(())
}

/// `width` bits under `tree`, adapting or not.
fn get_field(
    d: &mut RangeDecoder<'_>,
    tree: &mut BitTree,
    width: u8,
    adapt: bool,
) -> Result<u64, String> {
    if adapt {
        return d.bits(tree, width).map_err(|e| e.to_string());
    }
    let mut v = 0u64;
    for i in 0..width {
        if d.bit_static(tree.slots()[BitTree::slot(i, v)])
            .map_err(|e| e.to_string())?
        {
            v |= 1 << i;
        }
    }
    Ok(v)
}

impl BinaryCoder {
    /// Codes `symbols` (each its width, then its bits) from a fresh copy of `model`.
    pub fn encode(
        model: &BinaryModel,
        symbols: &[Symbol],
        work: &mut BinaryModel,
    ) -> Result<Vec<u8>, String> {
        work.clone_from(model);
        let mut e = RangeEncoder::new();
        for s in symbols {
            let widths = &mut work.widths[usize::from(s.context)];
            put_field(&mut e, widths, WIDTH_BITS, u64::from(s.width), model.adapt)?;
            let bits = &mut work.bits[usize::from(s.table)];
            put_field(&mut e, bits, s.width, s.bits, model.adapt)?;
        }
        let mut out = Vec::new();
        e.finish(&mut out);
        Ok(out)
    }

    /// Decodes from `bytes` one field of each context of `shape` into `out` (only the
    /// contexts of `shape` are read: the layout tells a decoder which field comes next), and
    /// holds the stream to what the encoder writes.
    pub fn decode(
        model: &BinaryModel,
        contexts: &Contexts,
        bytes: &[u8],
        shape: &[Symbol],
        work: &mut BinaryModel,
        out: &mut Vec<Symbol>,
    ) -> Result<(), String> {
        work.clone_from(model);
        let mut d = RangeDecoder::new(bytes, 0).map_err(|e| e.to_string())?;
        out.clear();
        for s in shape {
            let widths = &mut work.widths[usize::from(s.context)];
            let width = get_field(&mut d, widths, WIDTH_BITS, model.adapt)? as u8;
            let table = contexts
                .table_of(s.context, width)
                .ok_or_else(|| format!("field {} has no width {width}", s.context))?;
            let bits = get_field(
                &mut d,
                &mut work.bits[usize::from(table)],
                width,
                model.adapt,
            )?;
            out.push(Symbol {
                context: s.context,
                table,
                width,
                bits,
            });
        }
        d.finish().map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// rANS frequencies are 14-bit.
const RANS_BITS: u32 = 14;
const RANS_TOTAL: u32 = 1 << RANS_BITS;
/// The state stays within `[RANS_LOW, RANS_LOW << 8)`.
const RANS_LOW: u32 = 1 << 23;
/// Chunks of at most this many bits.
const CHUNK: u8 = 8;
/// Chunks a 64-bit field has.
const MAX_CHUNKS: usize = 8;

/// A frequency table: each symbol's frequency and cumulative start, and the symbol of each
/// slot of the total (the decoder's lookup).
#[derive(Debug, Clone)]
struct Table {
    freq: Vec<u32>,
    start: Vec<u32>,
    lookup: Vec<u16>,
}

impl Table {
    /// From counts: every symbol at least frequency 1, the rest shared in proportion, the
    /// total exactly [`RANS_TOTAL`].
    fn from_counts(counts: &[u64]) -> Table {
        let spare = u64::from(RANS_TOTAL) - counts.len() as u64;
        let sum: u64 = counts.iter().sum::<u64>().max(1);
        let mut freq: Vec<u32> = counts
            .iter()
            .map(|&c| 1 + (c * spare / sum) as u32)
            .collect();
        // Rounding down left a few slots: the most frequent symbol takes them.
        let short = RANS_TOTAL - freq.iter().sum::<u32>();
        if let Some(top) = (0..freq.len()).max_by_key(|&i| counts[i]) {
            freq[top] += short;
        }
        let mut start = Vec::with_capacity(freq.len());
        let mut lookup = Vec::with_capacity(RANS_TOTAL as usize);
        let mut at = 0;
        for (s, &f) in freq.iter().enumerate() {
            start.push(at);
            at += f;
            lookup.extend(std::iter::repeat_n(s as u16, f as usize));
        }
        Table {
            freq,
            start,
            lookup,
        }
    }
}

/// Static rANS: per context a table of widths, per (context, width) table and chunk a table
/// of the chunk's values.
#[derive(Debug, Clone)]
pub struct Rans {
    widths: Vec<Table>,
    chunks: Vec<Vec<Table>>,
}

/// The chunks of `width` bits of `bits`: (index, width, value), in stream order.
fn chunks(width: u8, bits: u64) -> impl Iterator<Item = (usize, u8, u64)> {
    (0..width.div_ceil(CHUNK)).map(move |k| {
        let from = k * CHUNK;
        let w = (width - from).min(CHUNK);
        (usize::from(k), w, (bits >> from) & ((1u64 << w) - 1))
    })
}

/// One rANS step of the encoder: `value` of `t` onto the state `x`.
fn rans_put(x: &mut u32, t: &Table, value: usize, out: &mut Vec<u8>) {
    let (f, c) = (t.freq[value], t.start[value]);
    let x_max = ((RANS_LOW >> RANS_BITS) << 8) * f;
    while *x >= x_max {
        out.push(*x as u8);
        *x >>= 8;
    }
    *x = ((*x / f) << RANS_BITS) + (*x % f) + c;
}

/// One rANS step of the decoder: the value of `t` the state `x` holds.
fn rans_get(x: &mut u32, t: &Table, bytes: &[u8], at: &mut usize) -> Result<usize, String> {
    let v = usize::from(t.lookup[(*x & (RANS_TOTAL - 1)) as usize]);
    *x = t.freq[v] * (*x >> RANS_BITS) + (*x & (RANS_TOTAL - 1)) - t.start[v];
    while *x < RANS_LOW {
        let b = *bytes.get(*at).ok_or("rANS: the code ends early")?;
        *x = (*x << 8) | u32::from(b);
        *at += 1;
    }
    Ok(v)
}

impl Rans {
    /// Tables counted on `frames`; a value never seen keeps frequency 1.
    pub fn trained(contexts: &Contexts, frames: &[Split]) -> Rans {
        let mut widths = vec![vec![0u64; MAX_WIDTH + 1]; contexts.len()];
        let mut counts: Vec<Vec<Vec<u64>>> = vec![Vec::new(); contexts.tables()];
        for by_width in &contexts.by_width {
            for (width, &t) in by_width.iter().enumerate().filter(|(_, t)| **t != u16::MAX) {
                counts[usize::from(t)] = chunks(width as u8, 0)
                    .map(|(_, w, _)| vec![0u64; 1 << w])
                    .collect();
            }
        }
        for s in frames.iter().flat_map(|f| &f.symbols) {
            widths[usize::from(s.context)][usize::from(s.width)] += 1;
            for (k, _, v) in chunks(s.width, s.bits) {
                counts[usize::from(s.table)][k][v as usize] += 1;
            }
        }
        Rans {
            widths: widths.iter().map(|c| Table::from_counts(c)).collect(),
            chunks: counts
                .iter()
                .map(|t| t.iter().map(|c| Table::from_counts(c)).collect())
                .collect(),
        }
    }

    /// Codes `symbols` (each its width, then its chunks): pushed last to first, the state's 4
    /// bytes ahead of the rest.
    pub fn encode(&self, symbols: &[Symbol], scratch: &mut Vec<u8>) -> Vec<u8> {
        scratch.clear();
        let mut x = RANS_LOW;
        let mut parts = [(0usize, 0u8, 0u64); MAX_CHUNKS];
        for s in symbols.iter().rev() {
            let n = chunks(s.width, s.bits)
                .zip(parts.iter_mut())
                .map(|(c, slot)| *slot = c)
                .count();
            let tables = &self.chunks[usize::from(s.table)];
            for &(k, _, v) in parts[..n].iter().rev() {
                rans_put(&mut x, &tables[k], v as usize, scratch);
            }
            rans_put(
                &mut x,
                &self.widths[usize::from(s.context)],
                usize::from(s.width),
                scratch,
            );
        }
        let mut out = x.to_be_bytes().to_vec();
        out.extend(scratch.iter().rev());
        out
    }

    /// Decodes from `bytes` one field of each context of `shape` into `out`.
    pub fn decode(
        &self,
        contexts: &Contexts,
        bytes: &[u8],
        shape: &[Symbol],
        out: &mut Vec<Symbol>,
    ) -> Result<(), String> {
        let mut at = 4;
        let head: [u8; 4] = bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or("rANS: fewer than 4 bytes")?;
        let mut x = u32::from_be_bytes(head);
        out.clear();
        for s in shape {
            let width = rans_get(&mut x, &self.widths[usize::from(s.context)], bytes, &mut at)?;
            let width = width as u8;
            let table = contexts
                .table_of(s.context, width)
                .ok_or_else(|| format!("field {} has no width {width}", s.context))?;
            let mut bits = 0u64;
            for (k, _, _) in chunks(width, 0) {
                let t = &self.chunks[usize::from(table)][k];
                bits |= (rans_get(&mut x, t, bytes, &mut at)? as u64) << (k * usize::from(CHUNK));
            }
            out.push(Symbol {
                context: s.context,
                table,
                width,
                bits,
            });
        }
        if at != bytes.len() {
            return Err(format!(
                "rANS: {} bytes past the code's end",
                bytes.len() - at
            ));
        }
        Ok(())
    }
}

/// One coder's figures over a set of frames.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    /// Bits sent (the kept bits and the coded body's bytes), over every frame.
    pub bits: u64,
    /// Nanoseconds encoding the frames' symbols.
    pub encode_ns: u128,
    /// Nanoseconds decoding them.
    pub decode_ns: u128,
}

/// The coders the study compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// The packed body as kind 12 sends it.
    Packed,
    /// The binary coder, flat start, adapting within the frame.
    AdaptiveFlat,
    /// The binary coder, trained start, adapting within the frame.
    AdaptiveTrained,
    /// The binary coder, trained and static.
    StaticBinary,
    /// Static rANS, trained.
    StaticRans,
}

impl Design {
    /// Every design, in report order.
    pub const ALL: [Design; 5] = [
        Design::Packed,
        Design::AdaptiveFlat,
        Design::AdaptiveTrained,
        Design::StaticBinary,
        Design::StaticRans,
    ];

    /// One line on what it is.
    pub fn name(self) -> &'static str {
        match self {
            Design::Packed => "kind 12 as packed",
            Design::AdaptiveFlat => "adaptive binary, flat start",
            Design::AdaptiveTrained => "adaptive binary, trained start",
            Design::StaticBinary => "static binary, trained",
            Design::StaticRans => "static rANS, trained",
        }
    }
}

/// What each field costs under `model` adapting within each frame, as the coder spends it
/// to within its flush: per context name, the sum over `frames` of `-log2` of each of its
/// bits' probabilities (its width's bits included), in bits.
pub fn field_costs(
    model: &BinaryModel,
    contexts: &Contexts,
    frames: &[(Split, usize)],
) -> Vec<(String, f64)> {
    let mut names = vec![String::new(); contexts.len()];
    for (name, &id) in &contexts.ids {
        names[usize::from(id)].clone_from(name);
    }
    let mut cost = vec![0f64; contexts.len()];
    let mut work = model.clone();
    // One bit's cost, and its probability moved as the runtime coder moves it.
    let spend = |tree: &mut BitTree, width: u8, v: u64| -> f64 {
        let mut slots = *tree.slots();
        let mut bits = 0.0;
        for i in 0..width {
            let slot = BitTree::slot(i, v);
            let p = slots[slot].get();
            let one = v >> i & 1 == 1;
            let chance = if one {
                PROB_ONE - u64::from(p)
            } else {
                u64::from(p)
            };
            bits -= (chance as f64 / PROB_ONE as f64).log2();
            if model.adapt {
                let moved = if one {
                    p - (p >> range::ADAPT_SHIFT)
                } else {
                    p + ((PROB_ONE as u16 - p) >> range::ADAPT_SHIFT)
                };
                slots[slot] = Prob::new(moved).unwrap_or(slots[slot]);
            }
        }
        *tree = BitTree::from_slots(&slots).unwrap_or_else(|| tree.clone());
        bits
    };
    for (split, _) in frames {
        work.clone_from(model);
        for s in &split.symbols {
            let c = usize::from(s.context);
            cost[c] += spend(&mut work.widths[c], WIDTH_BITS, u64::from(s.width));
            cost[c] += spend(&mut work.bits[usize::from(s.table)], s.width, s.bits);
        }
    }
    names.into_iter().zip(cost).collect()
}

/// Codes every frame of `test` (each with its length in bytes as kind 12 sent it) with
/// `design`, whose models come from `train`; checks that each frame decodes to its fields.
/// The packed design sends each frame's bytes as they are.
pub fn measure(
    design: Design,
    contexts: &Contexts,
    train: &[Split],
    test: &[(Split, usize)],
) -> Result<Figures, String> {
    let mut fig = Figures::default();
    let binary = match design {
        Design::AdaptiveFlat => Some(BinaryModel::flat(contexts, true)),
        Design::AdaptiveTrained => Some(BinaryModel::trained(contexts, train, true)),
        Design::StaticBinary => Some(BinaryModel::trained(contexts, train, false)),
        _ => None,
    };
    let rans = (design == Design::StaticRans).then(|| Rans::trained(contexts, train));
    let mut work = BinaryModel::flat(contexts, false);
    let (mut scratch, mut back) = (Vec::new(), Vec::new());
    for (split, frame_bytes) in test {
        let started = std::time::Instant::now();
        let coded = match (&binary, &rans) {
            (Some(model), _) => BinaryCoder::encode(model, &split.symbols, &mut work)?,
            (_, Some(r)) => r.encode(&split.symbols, &mut scratch),
            _ => {
                fig.bits += *frame_bytes as u64 * 8;
                continue;
            }
        };
        fig.encode_ns += started.elapsed().as_nanos();
        let started = std::time::Instant::now();
        match (&binary, &rans) {
            (Some(model), _) => BinaryCoder::decode(
                model,
                contexts,
                &coded,
                &split.symbols,
                &mut work,
                &mut back,
            )?,
            (_, Some(r)) => r.decode(contexts, &coded, &split.symbols, &mut back)?,
            _ => {}
        }
        fig.decode_ns += started.elapsed().as_nanos();
        if back != split.symbols {
            return Err(format!(
                "{}: a frame did not decode to its fields",
                design.name()
            ));
        }
        fig.bits += split.kept_bits + coded.len() as u64 * 8;
    }
    Ok(fig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_sim::SplitMix64;

    /// Frames of three fields: a 3-bit one mostly 1, a bucket of 4 or 12 bits mostly the
    /// narrow one, and a random 20-bit one.
    fn frames(contexts: &mut Contexts, seed: u64, n: usize) -> Vec<Split> {
        let mut rng = SplitMix64::new(seed);
        let ids = ["c[0].a", "c[0].b", "c[0].c"].map(|p| contexts.id(p));
        let symbol = |contexts: &mut Contexts, i: usize, width: u8, bits: u64| Symbol {
            context: ids[i],
            table: contexts.table(ids[i], width),
            width,
            bits,
        };
        (0..n)
            .map(|_| Split {
                kept_bits: 40,
                symbols: (0..50)
                    .flat_map(|_| {
                        let small = if rng.below_or_at(9) < 8 {
                            1
                        } else {
                            rng.below_or_at(7)
                        };
                        let narrow = rng.below_or_at(9) < 8;
                        let (w, v) = if narrow {
                            (4, rng.below_or_at(3))
                        } else {
                            (12, rng.below_or_at(4095))
                        };
                        let wide = rng.below_or_at((1 << 20) - 1);
                        [
                            symbol(contexts, 0, 3, small),
                            symbol(contexts, 1, w, v),
                            symbol(contexts, 2, 20, wide),
                        ]
                    })
                    .collect(),
            })
            .collect()
    }

    fn with_lengths(frames: Vec<Split>) -> Vec<(Split, usize)> {
        frames
            .into_iter()
            .map(|s| {
                let bits = s.kept_bits + s.symbols.iter().map(|x| u64::from(x.width)).sum::<u64>();
                (s, bits.div_ceil(8) as usize)
            })
            .collect()
    }

    #[test]
    fn every_design_round_trips_and_the_skewed_fields_cost_less() {
        let mut contexts = Contexts::default();
        let train = frames(&mut contexts, 1, 40);
        let test = with_lengths(frames(&mut contexts, 2, 40));
        let packed = measure(Design::Packed, &contexts, &train, &test)
            .unwrap()
            .bits;
        for design in &Design::ALL[1..] {
            // Every design decodes every frame to its fields (measure checks it).
            let f = measure(*design, &contexts, &train, &test).unwrap();
            // Trained, the random 20-bit field cannot shrink and the other two do, by more
            // than the widths and a coder's flush cost. A flat start learns within each
            // frame of 150 fields only, and pays for it.
            if *design != Design::AdaptiveFlat {
                assert!(f.bits < packed, "{design:?}: {} of {packed}", f.bits);
            }
        }
    }

    #[test]
    fn a_cut_or_padded_rans_code_is_refused() {
        let mut contexts = Contexts::default();
        let train = frames(&mut contexts, 3, 10);
        let r = Rans::trained(&contexts, &train);
        let coded = r.encode(&train[0].symbols, &mut Vec::new());
        let mut out = Vec::new();
        for cut in 0..coded.len() {
            assert!(r
                .decode(&contexts, &coded[..cut], &train[0].symbols, &mut out)
                .is_err());
        }
        let mut longer = coded.clone();
        longer.push(0);
        assert!(r
            .decode(&contexts, &longer, &train[0].symbols, &mut out)
            .is_err());
        r.decode(&contexts, &coded, &train[0].symbols, &mut out)
            .unwrap();
        assert_eq!(out, train[0].symbols);
    }

    #[test]
    fn paths_lose_their_indices_and_widths_get_tables() {
        let mut c = Contexts::default();
        let a = c.id("body.changes[3].pose_step.dx");
        let b = c.id("body.changes[17].pose_step.dx");
        let d = c.id("body.changes[3].eid");
        assert_eq!(a, b);
        assert_ne!(a, d);
        assert_eq!(c.len(), 2);
        let t4 = c.table(a, 4);
        assert_eq!(c.table(a, 4), t4);
        assert_ne!(c.table(a, 9), t4);
        assert_ne!(c.table(d, 4), t4);
        assert_eq!(c.table_of(a, 4), Some(t4));
        assert_eq!(c.table_of(a, 5), None);
        assert_eq!(c.tables(), 3);
    }
}
