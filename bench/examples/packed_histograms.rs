//! Prints the distributions the bit-packed acked frame (kind 12, `spec/protocol/acked_packed.wire`)
//! chose its bucket widths from: on the cube scene at 5% loss each way (seed 1, the `acked`
//! protocol, after the warm-up second), every kind 6 change's gap from the previous changed id
//! (the first: its id), each pose step's bits (`dx`, `dy`, `dz` zigzag-mapped), the step yaw
//! and the masks.
//!
//! `cargo run --release -p ackwire-bench --example packed_histograms [SECONDS]`
//!
//! Each histogram is by bits needed: the row `n` counts values `v` with `2^(n-1) <= v < 2^n`
//! (row 0: the value 0), so a bucket of width `w` holds the rows up to `w` (less its offset).

use std::collections::BTreeMap;
use std::process::ExitCode;

use ackwire_bench::run::{capture, Length};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::protocol::Acked;
use ackwire_codec::{BitSet, Frame};

const SEED: u64 = 1;
const LOSS_PCT: f64 = 5.0;

fn bits(v: u64) -> u32 {
    64 - v.leading_zeros()
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn print(name: &str, h: &BTreeMap<u32, u64>) {
    let total: u64 = h.values().sum();
    println!("{name} ({total} values): bits needed -> count, cumulative %");
    let mut acc = 0u64;
    for (b, n) in h {
        acc += n;
        println!(
            "  {b:2} bits: {n:8}  {:6.2}%",
            100.0 * acc as f64 / total.max(1) as f64
        );
    }
}

/// The bits a value costs in `bucket(widths)`, `None` past its largest value.
fn cost(widths: &[u32], v: u64) -> Option<u64> {
    let mut base = 0u64;
    for (i, w) in widths.iter().enumerate() {
        let size = 1u64 << w;
        if v < base + size {
            let unary = if i + 1 == widths.len() { i } else { i + 1 };
            return Some(unary as u64 + u64::from(*w));
        }
        base += size;
    }
    None
}

/// The widths (1 to 5 of them, strictly increasing, each at most 16) that cost the fewest
/// bits over `values` (value -> count) while holding every value up to `reach`, and their mean
/// bits per value.
fn best(values: &BTreeMap<u64, u64>, reach: u64) -> (Vec<u32>, f64) {
    let total: u64 = values.values().sum();
    let mut best: (Vec<u32>, u64) = (vec![16], u64::MAX);
    let mut stack: Vec<Vec<u32>> = (0..=16).map(|w| vec![w]).collect();
    while let Some(ws) = stack.pop() {
        let mut sum = 0u64;
        let fits = cost(&ws, reach).is_some();
        if fits {
            for (v, n) in values {
                sum += cost(&ws, *v).unwrap_or(u64::MAX / 2 / total.max(1)) * n;
            }
            // Of two equally cheap lists the one with the narrower widths reaches less far past
            // what the field needs.
            let narrower = ws.iter().sum::<u32>() < best.0.iter().sum::<u32>();
            if sum < best.1 || (sum == best.1 && narrower) {
                best = (ws.clone(), sum);
            }
        }
        if ws.len() < 5 && !fits {
            for w in ws[ws.len() - 1] + 1..=16 {
                let mut next = ws.clone();
                next.push(w);
                stack.push(next);
            }
        }
    }
    let mean = best.1 as f64 / total.max(1) as f64;
    (best.0, mean)
}

fn main() -> ExitCode {
    let seconds: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let kind = SceneKind::Cube;
    let length = Length {
        ticks: kind.hz() * seconds,
        warmup: kind.hz(),
    };
    let sent = match capture(kind, LOSS_PCT, length, SEED, &["acked"]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("packed_histograms: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut gaps, mut steps, mut yaws, mut masks) = (
        BTreeMap::new(),
        BTreeMap::new(),
        BTreeMap::new(),
        BTreeMap::<u16, u64>::new(),
    );
    let (mut gap_values, mut step_values, mut yaw_values, mut age_values) = (
        BTreeMap::<u64, u64>::new(),
        BTreeMap::<u64, u64>::new(),
        BTreeMap::<u64, u64>::new(),
        BTreeMap::<u64, u64>::new(),
    );
    let mut changes = 0u64;
    for s in sent
        .iter()
        .filter(|s| s.protocol == "acked" && s.tick > kind.hz())
    {
        let frame = match Acked::decode(&s.packet.bytes) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("packed_histograms: a frame of tick {}: {e}", s.tick);
                return ExitCode::FAILURE;
            }
        };
        let mut prev: Option<u16> = None;
        for c in &frame.changes {
            changes += 1;
            let gap = match prev {
                None => u64::from(c.eid),
                Some(p) => u64::from(c.eid - p),
            };
            prev = Some(c.eid);
            *gaps.entry(bits(gap)).or_insert(0u64) += 1;
            *gap_values.entry(gap).or_default() += 1;
            if let Some(a) = c.age {
                *age_values.entry(u64::from(a)).or_default() += 1;
            }
            *masks.entry(c.mask.bits()).or_default() += 1;
            if let Some(p) = &c.pose_step {
                for d in [p.dx, p.dy, p.dz] {
                    *steps.entry(bits(zigzag(i64::from(d)))).or_insert(0u64) += 1;
                    *step_values.entry(zigzag(i64::from(d))).or_default() += 1;
                }
                let y = (p.yaw / (360.0 / 256.0)).round() as u64;
                *yaws.entry(bits(y)).or_insert(0u64) += 1;
                *yaw_values.entry(y).or_default() += 1;
            }
        }
    }
    println!("cube scene, {seconds} s, seed {SEED}, {LOSS_PCT}% loss, {changes} changes after the warm-up second");
    print("eid gap (the first change: its eid)", &gaps);
    print("pose step, each axis, zigzag", &steps);
    print("step yaw (256 a turn)", &yaws);
    println!("masks: {masks:?}");
    println!("ages: {age_values:?}");
    // The widths that cost least on this scene, each holding every value the kind 6 field can
    // (a gap or an id up to 65535, a zigzag-mapped i16 step, a u8 yaw or age).
    for (name, values, reach) in [
        ("eid gap", &gap_values, 65535),
        ("pose step (zigzag)", &step_values, 65535),
        ("step yaw", &yaw_values, 255),
        ("age", &age_values, 255),
    ] {
        let (ws, mean) = best(values, reach);
        println!("least-cost widths for {name}: {ws:?}, {mean:.3} bits a value");
    }
    ExitCode::SUCCESS
}
