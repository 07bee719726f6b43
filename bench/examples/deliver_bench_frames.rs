//! Writes the acked frames (kind 6) of the client's whole-delivery bench
//! (`cargo bench -p ackwire-bench --bench deliver`), as hex, one frame a line: the input of the
//! C++ AckedDecoder's delivery bench (`cpp/bench/run.sh`, `deliver.cpp`), so that
//! the C++ and the Rust figures are over the same frames.
//!
//! `cargo run -p ackwire-bench --example deliver_bench_frames -- OUT`
//!
//! The frames are those `bench/benches/deliver.rs` replays: the cube scene (901 bodies at 60 Hz,
//! [`capture`]: seed 1, no loss, so that every frame applies), a second of join and settling
//! and then two cycles of POSE_REFRESH ticks, the join's keyframe first. Each frame is checked
//! to be shown by a fresh Rust `AckedDecoder` in turn before it is written. A summary goes to
//! standard error.

use std::fmt::Write as _;
use std::process::ExitCode;

use ackwire_bench::run::{capture, Length};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::acked::{AckedDecoder, Delivery, Reference};
use ackwire_server::acked::POSE_REFRESH;

/// Seconds of the join and its settling, before the refresh cycles (deliver.rs's).
const LEAD_SECONDS: u32 = 1;
/// Cycles of POSE_REFRESH ticks after the lead (deliver.rs's).
const CYCLES: u32 = 2;
/// The seed of scene and network (deliver.rs's).
const SEED: u64 = 1;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out] = args.as_slice() else {
        eprintln!("usage: deliver_bench_frames OUT   (the frames as hex, one a line)");
        return ExitCode::from(2);
    };
    match run(out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deliver_bench_frames: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(out: &str) -> Result<(), String> {
    let kind = SceneKind::Cube;
    let length = Length {
        ticks: kind.hz() * LEAD_SECONDS + CYCLES * POSE_REFRESH,
        warmup: 0,
    };
    // Captured beside bitcode, as deliver.rs captures them.
    let sent =
        capture(kind, 0.0, length, SEED, &["acked", "bitcode"]).map_err(|e| e.to_string())?;
    let mut decoder = AckedDecoder::<Reference>::new();
    let mut text = String::new();
    let mut frames = 0usize;
    for s in sent.iter().filter(|s| s.protocol == "acked") {
        if !matches!(decoder.deliver(&s.packet.bytes), Delivery::Shown(_)) {
            return Err(format!("the frame of tick {} is not shown", s.tick));
        }
        frames += 1;
        for b in &s.packet.bytes {
            // Writing into a String cannot fail.
            let _ = write!(text, "{b:02x}");
        }
        text.push('\n');
    }
    std::fs::write(out, text).map_err(|e| format!("cannot write {out}: {e}"))?;
    eprintln!(
        "deliver_bench_frames: {frames} acked frames of the cube scene ({} ticks, seed {SEED}, no \
         loss), {} entities, to {out}",
        length.ticks,
        kind.entities()
    );
    Ok(())
}
