//! The Rust AckedDecoder's whole delivery on a file of acked frames (hex, one a line, as
//! `cube_frames` writes them): nanoseconds per entity of the world per frame, the unit of
//! `cargo bench -p ackwire-bench --bench deliver`, printed beside the TypeScript decoder's
//! figure by `conformance/testees/ts/deliver.sh` on the same frames.
//!
//! `cargo run --release -p ackwire-bench --example deliver_frames -- FRAMES [ENTITIES]`
//!
//! One call is a fresh decoder taking every frame in order; every frame must show first. The
//! world's size is ENTITIES, or the largest number of entities a shown frame changed (the
//! join's keyframe names every one). The median of 9 rounds of about 300 ms.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use ackwire_codec::acked::{AckedDecoder, Delivery, Reference};

fn parse(line: &str) -> Result<Vec<u8>, String> {
    let hex: Vec<u8> = line.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !hex.len().is_multiple_of(2) {
        return Err(format!("an odd number of hex digits: {line}"));
    }
    hex.chunks(2)
        .map(|p| {
            let s = std::str::from_utf8(p).map_err(|e| e.to_string())?;
            u8::from_str_radix(s, 16).map_err(|e| format!("{e}: {s}"))
        })
        .collect()
}

fn deliver_all(frames: &[Vec<u8>]) -> usize {
    let mut d = AckedDecoder::<Reference>::new();
    frames
        .iter()
        .filter(|f| matches!(d.deliver(f), Delivery::Shown(_)))
        .count()
}

fn run(args: &[String]) -> Result<(), String> {
    let (file, entities) = match args {
        [f] => (f, None),
        [f, n] => (
            f,
            Some(n.parse::<usize>().map_err(|e| format!("ENTITIES: {e}"))?),
        ),
        _ => return Err("usage: deliver_frames FRAMES [ENTITIES]".into()),
    };
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let frames = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(parse)
        .collect::<Result<Vec<_>, _>>()?;
    let mut d = AckedDecoder::<Reference>::new();
    let mut largest = 0;
    for f in &frames {
        match d.deliver(f) {
            Delivery::Shown(r) => largest = largest.max(r.changed.len()),
            other => return Err(format!("a frame did not show: {other:?}")),
        }
    }
    let entities = entities.unwrap_or(largest);
    let per = (entities * frames.len()) as f64;
    let mut ns = Vec::new();
    for _ in 0..9 {
        let mut n = 1u64;
        loop {
            let t0 = Instant::now();
            for _ in 0..n {
                black_box(deliver_all(black_box(&frames)));
            }
            let e = t0.elapsed().as_nanos() as f64;
            if e >= 300e6 {
                ns.push(e / n as f64 / per);
                break;
            }
            n *= if e < 30e6 { 10 } else { 2 };
        }
    }
    ns.sort_by(f64::total_cmp);
    println!(
        "rust AckedDecoder:       {} frames, {entities} entities; median of 9 rounds of 300 ms: \
         {:.2} ns/entity/frame (range {:.2} to {:.2})",
        frames.len(),
        ns[ns.len() / 2],
        ns[0],
        ns[ns.len() - 1]
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deliver_frames: {e}");
            ExitCode::FAILURE
        }
    }
}
