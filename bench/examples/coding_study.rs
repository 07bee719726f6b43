//! The coder study of issue 39 (`ackwire_bench::coding`): kind 12's frames from every scene at
//! 5% loss each way, their changes' fields coded by each design, models trained on the frames
//! of another seed (2) and measured on the bench's seed (1). Prints, per scene, bits per
//! changed entity (each frame once, as sent, retransmissions not counted), the ratio to kind
//! 12 as packed and to the `fiedler` lane of the same run, and the coders' own encode and
//! decode time per entity per tick (the frame's fields given; kind 12's encode of the same
//! ticks beside, for scale). Every frame is checked to decode to its fields.
//!
//! Then the prediction forms (`ackwire_bench::coding::predict`): the `fiedler` lane's
//! quantized cubes sent as residuals against the acknowledged base and an older acknowledged
//! snapshot, coded by the same coders with models trained per scene on seed 2; every frame
//! is decoded by a client holding only what it decoded itself and must give the server's
//! cubes bit for bit.
//!
//! `cargo run --release -p ackwire-bench --example coding_study [SECONDS] [predict]` (default
//! 10; `predict`: the prediction forms alone)

use std::process::ExitCode;

use ackwire_bench::coding::predict::{self, Form, Recorded};
use ackwire_bench::coding::{
    field_costs, fields_of, measure, BinaryModel, Contexts, Design, Split,
};
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

/// The designs the prediction forms are coded with.
const PREDICTED: [Design; 3] = [
    Design::AdaptiveTrained,
    Design::StaticBinary,
    Design::StaticRans,
];

/// The prediction forms on every scene, against the `fiedler` lane's own frames.
fn predict(seconds: u32) -> Result<(), String> {
    println!(
        "\nPrediction forms on the fiedler lane's quantized cubes, models trained per scene on \
         seed {TRAIN_SEED}, measured on seed {TEST_SEED}, {seconds} s at {LOSS_PCT}% loss each \
         way; every frame decoded by the client's own copies to the server's cubes."
    );
    for kind in SceneKind::ALL {
        let length = Length {
            ticks: kind.hz() * (seconds + 1),
            warmup: kind.hz(),
        };
        let train = Recorded::run(kind, LOSS_PCT, length, TRAIN_SEED)?;
        let test = Recorded::run(kind, LOSS_PCT, length, TEST_SEED)?;
        let changed = test.changed.max(1) as f64;
        let fiedler = test.fiedler_bits as f64 / changed;
        let entity_ticks = f64::from(length.ticks - length.warmup) * f64::from(kind.entities());
        println!(
            "\n{} ({} frames; the fiedler lane: {fiedler:.1} bits/changed entity):\n",
            kind.title(),
            test.measured()
        );
        println!("| form | fields, widths | coder | bits/changed entity | × fiedler | encode ns/entity | decode ns/entity |");
        println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
        let mut split_of_chosen = None;
        for form in Form::ALL {
            let mut contexts = Contexts::default();
            let trained: Vec<Split> = train
                .split(form, &mut contexts)?
                .into_iter()
                .map(|(s, _)| s)
                .collect();
            let measured = test.split(form, &mut contexts)?;
            for design in PREDICTED {
                let f = measure(design, &contexts, &trained, &measured)?;
                let bits = f.bits as f64 / changed;
                println!(
                    "| {} | {}, {} | {} | {bits:.1} | {:.3}× | {:.1} | {:.1} |",
                    form.name(),
                    contexts.len(),
                    contexts.tables(),
                    design.name(),
                    bits / fiedler,
                    f.encode_ns as f64 / entity_ticks,
                    f.decode_ns as f64 / entity_ticks,
                );
                if form == CHOSEN && design == Design::AdaptiveTrained {
                    let model = BinaryModel::trained(&contexts, &trained, true);
                    let costs = field_costs(&model, &contexts, &measured);
                    split_of_chosen = Some((costs, bits));
                }
            }
        }
        if let Some((costs, total)) = split_of_chosen {
            let part = |name: &str| {
                costs
                    .iter()
                    .filter(|(c, _)| predict::part(c) == name)
                    .map(|(_, b)| b)
                    .sum::<f64>()
                    .max(0.0)
                    / changed
            };
            let parts = ["index", "flags", "position", "orientation", "rest"].map(part);
            let header = (predict::HEADER_BITS * test.measured() as u64) as f64 / changed;
            let flush = total - parts.iter().sum::<f64>() - header;
            println!(
                "\nWhere the bits of `{}` with the adaptive binary coder go, per changed entity: \
                 index {:.1}, flags {:.1}, position {:.1}, orientation {:.1}, rest {:.1}, \
                 header {header:.1}, the coder's flush and bytes {flush:.1}; total {total:.1}.",
                CHOSEN.name(),
                parts[0],
                parts[1],
                parts[2],
                parts[3],
                parts[4],
            );
        }
    }
    Ok(())
}

/// The form docs/perf/coding.md chooses, whose bits are split by field.
const CHOSEN: Form = Form::ALL[7];

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
    let usage = || {
        eprintln!("usage: coding_study [SECONDS] [predict], SECONDS a whole number from 1");
        ExitCode::FAILURE
    };
    let seconds = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => 10,
        Some(Ok(s)) if s > 0 => s,
        Some(_) => return usage(),
    };
    let only_predict = match std::env::args().nth(2).as_deref() {
        None => false,
        Some("predict") => true,
        Some(_) => return usage(),
    };
    let result = if only_predict {
        predict(seconds)
    } else {
        run(seconds).and_then(|()| predict(seconds))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coding_study: {e}");
            ExitCode::FAILURE
        }
    }
}
