//! The coded profile (kind 13, `docs/spec/coded.md`) in the bench: where a sent frame's bits go
//! by field, and the training of its tables from the bench's scenes.
//!
//! A coded frame's stream cannot be cut at field boundaries as a packed one is: a range coder
//! spends fractions of a bit. Each value is priced instead by what it costs under its model as
//! the encoder adapted it (`ackwire_rt::coded::CodedCost`, `-log2` of each bit's probability),
//! against the basis the encoder used
//! ([`AckedEncoder::basis_of`](ackwire_codec::acked::AckedEncoder::basis_of)). The values'
//! prices, scaled down to the stream when the coder's rounding left them over it, go to their
//! fields' classes; what is left of the frame (its header, the stream's length, the coder's
//! flush and any padding) is the header's, so the classes add up to the frame's bits exactly.
//!
//! Training (CODE-17) walks the same values into slot counts (`SlotCounts`), and
//! [`tables_text`] writes the tables file the layout names.

use super::fields::{classify, Class, Meaning, Tally};
use super::run::{train_scene, Length};
use super::scenes::SceneKind;
use ackwire_codec::acked::{AckedSchema, CodedBasis, CodedReference};
use ackwire_codec::protocol::{AckedCoded, EntityState};
use ackwire_codec::rt::coded::{model_slots, CodedCost, CodedSink, SlotCounts};
use ackwire_codec::rt::{EncodeError, Reader};
use std::fmt::Write;

/// A failure of the bench, said in words.
type Failure = String;

/// The frame's name for the field classes (its changes are `changes[i]`).
const FRAME: &str = "acked_coded";

/// Each model's first slot, in model order (CODE-8).
fn model_starts() -> Vec<usize> {
    AckedCoded::MODELS
        .iter()
        .scan(0, |at, &(_, w)| {
            let start = *at;
            *at += model_slots(w);
            Some(start)
        })
        .collect()
}

/// Prices each value under its model as the encoder adapts it, summed by model.
struct Meter {
    cost: CodedCost,
    starts: Vec<usize>,
    by_model: Vec<f64>,
}

impl CodedSink for Meter {
    fn value(&mut self, at: usize, w: u8, v: u64) -> Result<(), EncodeError> {
        let before = self.cost.total();
        self.cost.value(at, w, v)?;
        let model = self.starts.partition_point(|&s| s <= at).saturating_sub(1);
        if let Some(bits) = self.by_model.get_mut(model) {
            *bits += self.cost.total() - before;
        }
        Ok(())
    }
}

/// Reads the coded frame `bytes` back against the basis it was written on.
fn read(bytes: &[u8], basis: &dyn CodedBasis<EntityState>) -> Result<AckedCoded, Failure> {
    AckedCoded::read(&mut Reader::new(bytes), basis)
        .map_err(|e| format!("a sent coded frame does not read back: {e}"))
}

/// The byte length of the frame's stream: `coded_len`, after the header, the check, the
/// removals, `older` and `changed_count` (CODE-1).
fn stream_len(bytes: &[u8], frame: &AckedCoded) -> usize {
    let at = 17 + 4 * usize::from(frame.check.is_some()) + 2 * frame.removed.len() + 3;
    bytes
        .get(at..at + 2)
        .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
}

/// Adds the coded frame `bytes`, written against `basis`, to `tally` by field class.
pub(crate) fn split(
    bytes: &[u8],
    basis: &dyn CodedBasis<EntityState>,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let frame = read(bytes, basis)?;
    let starts = model_starts();
    let mut meter = Meter {
        cost: CodedCost::new(&AckedCoded::TABLES),
        by_model: vec![0.0; starts.len()],
        starts,
    };
    frame
        .code_changes(&mut meter, basis)
        .map_err(|e| format!("a sent coded frame does not code again: {e}"))?;
    let priced: f64 = meter.by_model.iter().sum();
    let stream = (stream_len(bytes, &frame) * 8) as f64;
    let scale = if priced > stream {
        stream / priced
    } else {
        1.0
    };
    let mut classes: Vec<(Class, f64)> = Vec::new();
    for (&(name, _), bits) in AckedCoded::MODELS.iter().zip(&meter.by_model) {
        let class = classify(FRAME, &format!("changes[0].{name}"), &Meaning::default());
        match classes.iter_mut().find(|(c, _)| *c == class) {
            Some((_, sum)) => *sum += bits * scale,
            None => classes.push((class, bits * scale)),
        }
    }
    let mut counted = 0u64;
    for (class, bits) in classes {
        let bits = bits.floor() as u64;
        tally.add(class, bits);
        counted += bits;
    }
    tally.add(
        Class::Header,
        (bytes.len() as u64 * 8).saturating_sub(counted),
    );
    Ok(())
}

/// Adds what the coded frame `bytes`, written against `basis`, codes to `counts`.
pub(crate) fn count(
    bytes: &[u8],
    basis: &dyn CodedBasis<EntityState>,
    counts: &mut SlotCounts,
) -> Result<(), Failure> {
    read(bytes, basis)?
        .count(counts, basis)
        .map_err(|e| format!("a sent coded frame does not count: {e}"))
}

/// The tables file of the reference's coded frame (CODE-16) for `counts`: a line a model, its
/// name, its width and every slot's trained starting probability.
pub fn tables_text(counts: &SlotCounts, header: &str) -> String {
    let probs = counts.probs();
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let mut at = 0;
    for &(name, w) in AckedCoded::MODELS {
        let n = model_slots(w);
        let slots = probs.get(at..at + n).unwrap_or_default();
        let _ = write!(out, "{name} {w}:");
        for p in slots {
            let _ = write!(out, " {}", p.get());
        }
        out.push('\n');
        at += n;
    }
    out
}

/// Counts every value the reference's coded frames code over `seconds` of each of `scenes`
/// at `loss_pct` per cent loss each way, seed `seed`: what [`tables_text`] trains the tables
/// from.
pub fn train(
    scenes: &[SceneKind],
    seconds: u32,
    loss_pct: f64,
    seed: u64,
) -> Result<SlotCounts, Failure> {
    debug_assert!(CodedReference.coded());
    let mut counts = SlotCounts::new(AckedCoded::SLOTS);
    for &kind in scenes {
        let length = Length {
            ticks: kind.hz() * seconds,
            warmup: 0,
        };
        train_scene(kind, loss_pct, length, seed, &mut counts)?;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables file written for some counts is one line a model, each with its model's
    /// slots, and the layout language reads it back to the same probabilities.
    #[test]
    fn the_tables_text_has_a_line_a_model_of_its_slots() {
        let mut counts = SlotCounts::new(AckedCoded::SLOTS);
        counts.value(0, 17, 5).unwrap();
        counts.value(0, 17, 1).unwrap();
        let text = tables_text(&counts, "trained on nothing much");
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), AckedCoded::MODELS.len());
        for (line, &(name, w)) in lines.iter().zip(AckedCoded::MODELS) {
            let (head, probs) = line.split_once(':').unwrap();
            assert_eq!(head, format!("{name} {w}"));
            assert_eq!(probs.split_whitespace().count(), model_slots(w));
        }
        let first: Vec<u16> = lines[0]
            .split_once(':')
            .unwrap()
            .1
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        let want: Vec<u16> = counts.probs()[..first.len()]
            .iter()
            .map(|p| p.get())
            .collect();
        assert_eq!(first, want);
        assert_ne!(first[0], 2048, "a slot the counts saw is trained");
    }

    /// A coded lane's frames split by field add up to their bits, and most of a cube's bits
    /// are its values', not the header's.
    #[test]
    fn a_coded_frame_splits_into_its_fields_and_adds_up() {
        let (info, rows) = crate::run::run_scene(
            SceneKind::Cube,
            5.0,
            Length {
                ticks: 120,
                warmup: 60,
            },
            1,
            &["acked-coded"],
        )
        .unwrap();
        assert_eq!(info.name, "cube");
        let row = &rows[0];
        let fields = row
            .fields
            .as_ref()
            .expect("the coded lane is split by field");
        let total = fields.id
            + fields.mask
            + fields.position
            + fields.orientation
            + fields.rest
            + fields.header
            + fields.resent;
        assert!(
            (total - row.bits_per_changed).abs() < 1e-6,
            "{total} {}",
            row.bits_per_changed
        );
        assert!(fields.position > 0.0 && fields.orientation > 0.0 && fields.id > 0.0);
        assert!(
            fields.header < fields.position + fields.orientation,
            "{fields:?}"
        );
    }
}
