//! The run-time codec (`ackwire decode --spec`) under hostile input, fuzz-style: for the
//! reference protocol, the kitchen sink and the game, every derived vector, seeded mutations of
//! them (bit flips, cut ends, bytes inserted and removed) and seeded random byte strings go
//! through the run-time decoder. None may panic; each accepted input re-encodes to exactly its
//! bytes (canonical decoding) and prints its JSON form, which reads back to the same value; and
//! a decode allocates at most [`PER_BIT`] bytes per bit of input plus [`SLACK`] (counted by
//! `ackwire-testkit`'s allocator, never timed): the bound docs/limits.md states.

use ackwire_conformance::interp::Value;
use ackwire_conformance::interp::{self, encode, value};
use ackwire_conformance::vectors::{self, derive};
use ackwire_sim::SplitMix64;
use ackwire_spec::lower::{Lowering, Step, Wire};
use std::path::Path;

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

/// The most bytes the run-time decoder may hold per bit of its input: one value (32 bytes) per
/// bit read, and a record's slots beside it.
const PER_BIT: u64 = 96;
/// Plus this much whatever the input: the walk's path and the plan's lookups.
const SLACK: u64 = 4096;

/// Inputs per spec beyond the derived vectors themselves.
const MUTATIONS: usize = 6_000;
const RANDOM: usize = 3_000;

fn specs() -> Vec<(&'static str, ackwire_spec::model::Spec)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    vec![
        (
            "reference",
            ackwire_spec::reference_spec().expect("the reference compiles"),
        ),
        (
            "sink",
            ackwire_spec::load(&[root.join("spec/tests/sink/sink.wire")])
                .expect("the sink compiles")
                .0,
        ),
        (
            "game",
            ackwire_spec::load(&[root.join("examples/game/wire")])
                .expect("the game compiles")
                .0,
        ),
    ]
}

#[test]
fn the_run_time_decoder_survives_hostile_input_within_its_allocation_bound() {
    assert!(ackwire_testkit::is_counting(), "the counting allocator");
    let mut rng = SplitMix64::new(0x5eed);
    let (mut inputs, mut accepted, mut lossy, mut worst) = (0usize, 0usize, 0usize, 0f64);
    let mut failures = Vec::new();
    for (label, spec) in specs() {
        let low = Lowering::new(&spec);
        let derived = derive::derive(&low, derive::DEFAULT_SEED);
        let seeds: Vec<(String, Vec<u8>)> = derived
            .files
            .iter()
            .flat_map(|f| {
                f.cases
                    .iter()
                    .map(move |c| (f.frame.clone(), c.bytes().expect("hex")))
            })
            .collect();
        let mut all: Vec<(String, Vec<u8>)> = seeds.clone();
        for i in 0..MUTATIONS {
            let (frame, mut bytes) = seeds[i % seeds.len()].clone();
            for _ in 0..=rng.below_or_at(3) {
                let at = rng.below_or_at(bytes.len() as u64) as usize;
                match rng.below_or_at(4) {
                    0 if !bytes.is_empty() => {
                        let at = at.min(bytes.len() - 1);
                        bytes[at] ^= 1 << rng.below_or_at(7);
                    }
                    1 => bytes.truncate(at),
                    2 => bytes.insert(at, rng.next_u64() as u8),
                    3 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => bytes.push(0xff),
                }
            }
            all.push((frame, bytes));
        }
        let frames: Vec<String> = derived.files.iter().map(|f| f.frame.clone()).collect();
        for i in 0..RANDOM {
            let len = rng.below_or_at(200) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let frame = frames[i % frames.len()].clone();
            // Mostly with the frame's own first byte, so that the walk gets past its kind.
            if let (Some(b), Some((_, seed))) = (
                bytes.first_mut(),
                seeds.iter().find(|(f, s)| *f == frame && !s.is_empty()),
            ) {
                if rng.below_or_at(7) != 0 {
                    *b = seed[0];
                }
            }
            all.push((frame, bytes));
        }
        for (frame, bytes) in &all {
            inputs += 1;
            let plan = interp::plan(&low, frame).expect("a frame of the spec");
            let m = ackwire_testkit::measure(|| interp::decode_value(&low, frame, bytes));
            let bound = PER_BIT * 8 * bytes.len() as u64 + SLACK;
            if m.peak_bytes > bound {
                failures.push(format!(
                    "{label} {frame} {}: {} bytes held at once, more than {bound}",
                    vectors::hex_spaced(bytes),
                    m.peak_bytes
                ));
            }
            if !bytes.is_empty() {
                worst = worst.max(m.peak_bytes as f64 / bytes.len() as f64);
            }
            let Ok(value) = m.value else { continue };
            accepted += 1;
            if lossy_quant(&low, &plan.steps, &value, 0) {
                // A quantized value of a wire integer past 2^53 is a double that cannot hold it
                // (the sink's `quant(varint, 1/4)`): the generated codecs lose its low bits too.
                lossy += 1;
                continue;
            }
            match encode::encode(&low, plan, &value) {
                Ok(again) if again == *bytes => {}
                other => failures.push(format!(
                    "{label} {frame} {}: accepted, but re-encodes as {other:?}",
                    vectors::hex_spaced(bytes)
                )),
            }
            let json = value::to_json(&low, plan, &value).expect("a decoded value prints");
            // Read back, it is the same value: it prints the same and encodes to the bytes.
            let back = value::from_json(&low, plan, &json.to_value());
            let same = back.as_ref().is_ok_and(|back| {
                value::to_json(&low, plan, back).as_ref() == Ok(&json)
                    && encode::encode(&low, plan, back).as_ref() == Ok(bytes)
            });
            if !same {
                failures.push(format!(
                    "{label} {frame} {}: its JSON form reads back as {back:?}",
                    vectors::hex_spaced(bytes)
                ));
            }
        }
    }
    eprintln!(
        "the run-time decoder: {inputs} hostile inputs, {accepted} accepted ({lossy} with a \
         quantized value past 2^53), at most {worst:.0} bytes held per input byte"
    );
    assert!(accepted > 1_000, "too few inputs decoded: {accepted}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// Whether `value`, of a record of `steps`, holds a quantized value whose wire integer is past
/// 2^53, where a double no longer holds every integer.
fn lossy_quant(low: &Lowering<'_>, steps: &[Step<'_>], value: &Value, depth: usize) -> bool {
    let Value::Record(slots) = value else {
        return false;
    };
    depth < 16
        && steps
            .iter()
            .zip(slots)
            .any(|(s, v)| v.as_ref().is_some_and(|v| lossy_in(low, &s.wire, v, depth)))
}

fn lossy_in(low: &Lowering<'_>, w: &Wire<'_>, v: &Value, depth: usize) -> bool {
    match (w, v) {
        (Wire::Quant { num, den, .. }, Value::Float(f)) => {
            (f / (*num as f64 / *den as f64)).abs() >= 9_007_199_254_740_992.0
        }
        (Wire::Record { record, .. }, v) => low
            .plan(&record.name, None)
            .is_some_and(|p| lossy_quant(low, &p.steps, v, depth + 1)),
        (Wire::Union(u), Value::Union { variant, value }) => low
            .union_plan(u)
            .variants
            .get(*variant)
            .and_then(|(_, r)| low.plan(&r.name, None))
            .is_some_and(|p| lossy_quant(low, &p.steps, value, depth + 1)),
        (Wire::Array(a), Value::List(items)) => {
            items.iter().any(|i| lossy_in(low, &a.elem, i, depth + 1))
        }
        _ => false,
    }
}
