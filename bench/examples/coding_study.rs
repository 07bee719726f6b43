//! The coder study of issue 39 (`ackwire_bench::coding`): kind 12's frames from every scene at
//! 5% loss each way, their changes' fields coded by each design, models trained on the frames
//! of another seed (2) and measured on the bench's seed (1). Prints, per scene, bits per
//! changed entity (each frame once, as sent, retransmissions not counted), the ratio to kind
//! 12 as packed and to the `fiedler` lane of the same run, and the coders' own encode and
//! decode time per entity per tick (the frame's fields given; kind 12's encode of the same
//! ticks beside, for scale). Every frame is checked to decode to its fields.
//!
//! `cargo run --release -p ackwire-bench --example coding_study [SECONDS]` (default 10)

use std::process::ExitCode;

use ackwire_bench::coding::{fields_of, measure, Contexts, Design, Split};
use ackwire_bench::run::{capture, run_scene, Length};
use ackwire_bench::scenes::{Scene, SceneKind};
use ackwire_spec::lower::Lowering;

const TRAIN_SEED: u64 = 2;
const TEST_SEED: u64 = 1;
const LOSS_PCT: f64 = 5.0;

/// Kind 12's frames of `kind` over `length` on `seed`, split, each with its length.
fn frames(
    low: &Lowering<'_>,
    contexts: &mut Contexts,
    kind: SceneKind,
    length: Length,
    seed: u64,
) -> Result<Vec<(Split, usize)>, String> {
    capture(kind, LOSS_PCT, length, seed, &["acked-packed"])?
        .iter()
        .map(|s| {
            Ok((
                fields_of(low, &s.packet.bytes, contexts)?,
                s.packet.bytes.len(),
            ))
        })
        .collect()
}

/// The entities the world changed over the measured ticks, as the bench counts them.
fn changes(kind: SceneKind, length: Length, seed: u64) -> u64 {
    let mut scene = Scene::new(kind, seed);
    let mut n = 0;
    for t in 1..=length.ticks {
        scene.step();
        if t > length.warmup {
            n += scene.changed().len() as u64;
        }
    }
    n
}

fn run(seconds: u32) -> Result<(), String> {
    let spec = ackwire_spec::reference_spec().map_err(|e| e.to_string())?;
    let low = Lowering::new(&spec);
    let mut contexts = Contexts::default();
    let mut train = Vec::new();
    let mut tests = Vec::new();
    for kind in SceneKind::ALL {
        let length = Length {
            ticks: kind.hz() * (seconds + 1),
            warmup: kind.hz(),
        };
        let t = frames(&low, &mut contexts, kind, length, TRAIN_SEED)?;
        train.extend(t.into_iter().map(|(s, _)| s));
        tests.push((
            kind,
            length,
            frames(&low, &mut contexts, kind, length, TEST_SEED)?,
        ));
    }
    println!(
        "Kind 12's changes coded, models trained on seed {TRAIN_SEED} (every scene), measured on \
         seed {TEST_SEED}, {seconds} s of each scene at {LOSS_PCT}% loss each way; {} fields, {} \
         field widths.",
        contexts.len(),
        contexts.tables()
    );
    for (kind, length, test) in &tests {
        let (_, rows) = run_scene(
            *kind,
            LOSS_PCT,
            *length,
            TEST_SEED,
            &["acked-packed", "fiedler"],
        )?;
        let row = |p: &str| rows.iter().find(|r| r.protocol == p);
        let fiedler = row("fiedler").map_or(f64::NAN, |r| r.bits_per_changed);
        let packed_encode = row("acked-packed").map_or(f64::NAN, |r| r.encode_ns_per_entity);
        let changed = changes(*kind, *length, TEST_SEED).max(1) as f64;
        let entity_ticks = f64::from(length.ticks - length.warmup) * f64::from(kind.entities());
        println!(
            "\n{} ({} frames; kind 12's whole encode there: {packed_encode:.1} ns/entity; the \
             fiedler lane: {fiedler:.1} bits/changed entity):\n",
            kind.title(),
            test.len()
        );
        println!("| design | bits/changed entity | × packed | × fiedler | encode ns/entity | decode ns/entity |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        let mut packed = f64::NAN;
        for design in Design::ALL {
            let f = measure(design, &contexts, &train, test)?;
            let bits = f.bits as f64 / changed;
            if design == Design::Packed {
                packed = bits;
            }
            let ns = |t: u128| {
                if design == Design::Packed {
                    "-".to_owned()
                } else {
                    format!("{:.1}", t as f64 / entity_ticks)
                }
            };
            println!(
                "| {} | {bits:.1} | {:.3}× | {:.3}× | {} | {} |",
                design.name(),
                bits / packed,
                bits / fiedler,
                ns(f.encode_ns),
                ns(f.decode_ns)
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let seconds = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => 10,
        Some(Ok(s)) if s > 0 => s,
        Some(_) => {
            eprintln!("usage: coding_study [SECONDS], SECONDS a whole number from 1");
            return ExitCode::FAILURE;
        }
    };
    match run(seconds) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coding_study: {e}");
            ExitCode::FAILURE
        }
    }
}
