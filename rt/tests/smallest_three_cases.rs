//! The smallest-three conversions of this runtime ([`SmallestThree::from_xyzw`] and
//! [`SmallestThree::to_xyzw`]) as cases every other runtime is held to:
//! `vectors/quat/smallest_three_cases.txt`, checked here, by the TypeScript runtime's
//! `test/packed19.test.ts` and by the C++ runtime's `test/packed19_test.cpp` (WIRE-20's
//! canonical form, reached the same way in every language). LANGUAGE.md fixes
//! the conversions in doubles, step by step, "so that every language agrees bit for bit"; these
//! cases are where they are seen to.
//!
//! The inputs are the degenerate ones (zero, NaN, infinite, unnormalised, negative, tied), near
//! ties (where rounding can make a sent component larger than the dropped one, and the rule-3
//! step toward zero runs), and a seeded spread, at widths from 2 to 16 bits. The file is written
//! by `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --test smallest_three_cases` and never by
//! hand; a change to it is a change to the conversions, which every runtime must follow.

use ackwire_rt::SmallestThree;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The file, from the repository's root.
fn cases_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/quat/smallest_three_cases.txt")
}

/// SplitMix64, so that the spread is the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A float in [-1, 1).
    fn unit(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

fn inputs() -> Vec<[f32; 4]> {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut out = vec![
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, -1.0],
        [0.0, 0.0, 0.0, 0.0],
        [-0.0, -0.0, -0.0, -0.0],
        [f32::NAN, 0.0, 0.0, 1.0],
        [f32::INFINITY, 0.0, 0.0, 1.0],
        [0.0, f32::NEG_INFINITY, 0.0, 0.0],
        [0.0, -2.0, 0.0, 0.0],
        [0.0, 0.0, 5.0, 0.0],
        [h, 0.0, 0.0, h],
        [-h, 0.0, 0.0, -h],
        [0.0, h, -h, 0.0],
        [0.5, 0.5, 0.5, 0.5],
        [-0.5, 0.5, -0.5, 0.5],
        [0.5, -0.5, 0.5, -0.5],
        [1e-30, 2e-30, -3e-30, 4e-30],
        [1e30, -2e30, 3e30, 1e30],
        [f32::MAX, f32::MAX, 0.0, 0.0],
        [f32::MIN_POSITIVE / 2.0, 0.0, 0.0, f32::MIN_POSITIVE / 4.0],
        [0.1, 0.2, 0.3, 0.9],
        [0.9999, 0.01, -0.01, 0.001],
    ];
    let mut rng = SplitMix(0x5eed_0019);
    // Near ties of the two largest, where the rounding of a sent component can pass the
    // dropped one's and the step toward zero runs.
    for _ in 0..40 {
        let a = 0.5 + rng.unit().abs() * 0.2;
        let eps = rng.unit() * 1e-3;
        let small = rng.unit() * 0.1;
        let mut q = [a, a * (1.0 + eps), small, -small * 0.5];
        let turn = (rng.next() % 4) as usize;
        q.rotate_left(turn);
        if rng.next().is_multiple_of(2) {
            q = q.map(|v| -v);
        }
        out.push(q);
    }
    for _ in 0..120 {
        out.push([rng.unit(), rng.unit(), rng.unit(), rng.unit()]);
    }
    out
}

fn f32_hex(v: f32) -> String {
    format!("{:08x}", v.to_bits())
}

/// Every case, as the file holds them.
fn render() -> String {
    let mut text = String::from(
        "# The smallest three of four floats as rt/src/quat.rs makes them, and the floats they give\n\
         # back. Written by `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --test\n\
         # smallest_three_cases`, never by hand; checked there, by typescript/test/packed19.test.ts\n\
         # and by cpp/test/packed19_test.cpp. One case a line:\n\
         #   bits x y z w largest rest0 rest1 rest2 x' y' z' w'\n\
         # each float as the hex of its single-precision bits.\n",
    );
    let mut steps = 0usize;
    for bits in [2u8, 3, 5, 9, 12, 15, 16] {
        for q in inputs() {
            let s = SmallestThree::from_xyzw(q, bits);
            assert_eq!(s.check(bits), Ok(()), "{q:?} at {bits} bits gives {s:?}");
            let back = s.to_xyzw(bits);
            // A case where the first rounding broke rule 3 (the step toward zero ran): the
            // rest differs from the plain rounding.
            steps += usize::from(rounded_differs(q, bits, &s));
            let _ = writeln!(
                text,
                "{bits} {} {} {} {} {} {} {} {} {} {} {} {}",
                f32_hex(q[0]),
                f32_hex(q[1]),
                f32_hex(q[2]),
                f32_hex(q[3]),
                s.largest,
                s.rest[0],
                s.rest[1],
                s.rest[2],
                f32_hex(back[0]),
                f32_hex(back[1]),
                f32_hex(back[2]),
                f32_hex(back[3]),
            );
        }
    }
    assert!(steps > 0, "no case runs the step toward zero");
    text
}

/// Whether `s` differs from the plain rounding of `q` (before the rule-3 steps), worked out
/// again here as LANGUAGE.md gives it.
fn rounded_differs(q: [f32; 4], bits: u8, s: &SmallestThree) -> bool {
    let r = ackwire_rt::quat::max_component(bits) as f64;
    let mut c = q.map(f64::from);
    let norm = c.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return false;
    }
    c = c.map(|v| v / norm);
    let largest = usize::from(s.largest);
    if c[largest] < 0.0 {
        c = c.map(|v| -v);
    }
    let factor = std::f64::consts::SQRT_2 * r;
    let plain: Vec<i64> = (0..4)
        .filter(|&j| j != largest)
        .map(|j| (c[j] * factor).round().clamp(-r, r) as i64)
        .collect();
    plain != s.rest.map(i64::from)
}

#[test]
fn the_cases_file_is_what_this_runtime_computes() {
    let text = render();
    let path = cases_file();
    if std::env::var_os("ACKWIRE_WRITE_CASES").is_some() {
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let committed =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        committed == text,
        "{} is not what rt/src/quat.rs computes: a change to the conversions is a change every \
         runtime must follow; rewrite it with ACKWIRE_WRITE_CASES=1 and run the TypeScript and \
         C++ runtimes' tests",
        path.display()
    );
    assert!(text.lines().filter(|l| !l.starts_with('#')).count() > 1000);
}
