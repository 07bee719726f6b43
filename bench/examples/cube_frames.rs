//! Writes the acked frames (kind 6) the cube scene really sends, as hex, one frame a line: the
//! input of the C++ codec bench (`cpp/bench/run.sh`), which decodes and encodes
//! them with the generated C++ codec beside a hand-written reader and writer.
//!
//! `cargo run -p ackwire-bench --example cube_frames -- OUT`
//!
//! The frames are those of `ackwire bench`'s cube scene (901 bodies at 60 Hz) as the codec
//! bench `cargo bench -p ackwire-bench --bench scenes` takes them ([`capture`]: seed 1,
//! 5% loss each way, the `acked` protocol, reliable frames too), from the first tick on: the
//! join's keyframe of every body, its resends while the client's first acks are on their way,
//! then the steady state of about 100 moving cubes, up to the end of the fourth second. Each
//! frame is checked to decode with the Rust codec and to encode back to its bytes before it is
//! written. A summary goes to standard error.

use std::fmt::Write as _;
use std::process::ExitCode;

use ackwire_bench::run::{capture, Length};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::protocol::Acked;
use ackwire_codec::Frame;

/// The seed of the scene and the network: the codec bench's.
const SEED: u64 = 1;
/// Loss each way, per cent: the codec bench's.
const LOSS_PCT: f64 = 5.0;
/// Seconds of the scene whose frames are written.
const SECONDS: u32 = 4;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out] = args.as_slice() else {
        eprintln!("usage: cube_frames OUT   (the frames as hex, one a line)");
        return ExitCode::from(2);
    };
    match run(out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cube_frames: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(out: &str) -> Result<(), String> {
    let kind = SceneKind::Cube;
    let length = Length {
        ticks: kind.hz() * SECONDS,
        // Every frame from the first tick on: the join's keyframe is the largest.
        warmup: 0,
    };
    let sent = capture(kind, LOSS_PCT, length, SEED, &["acked"]).map_err(|e| e.to_string())?;
    let mut text = String::new();
    let (mut frames, mut changes, mut largest) = (0usize, 0usize, 0usize);
    for s in sent.iter().filter(|s| s.protocol == "acked") {
        let frame = Acked::decode(&s.packet.bytes)
            .map_err(|e| format!("a frame of tick {} does not decode: {e}", s.tick))?;
        let mut again = Vec::new();
        frame
            .encode(&mut again)
            .map_err(|e| format!("a frame of tick {} does not encode: {e}", s.tick))?;
        if again != s.packet.bytes {
            return Err(format!(
                "a frame of tick {} re-encodes to other bytes",
                s.tick
            ));
        }
        frames += 1;
        changes += frame.changes.len();
        largest = largest.max(frame.changes.len());
        for b in &s.packet.bytes {
            // Writing into a String cannot fail.
            let _ = write!(text, "{b:02x}");
        }
        text.push('\n');
    }
    std::fs::write(out, text).map_err(|e| format!("cannot write {out}: {e}"))?;
    eprintln!(
        "cube_frames: {frames} acked frames of the cube scene ({SECONDS} s, seed {SEED}, \
         {LOSS_PCT}% loss), {changes} changes, at most {largest} in a frame, to {out}"
    );
    Ok(())
}
