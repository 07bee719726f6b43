//! The range coder's tests: round trips and hostile streams as properties, and the edge cases
//! every other runtime's coder is held to, `vectors/coder/range_coder_cases.txt`. That file
//! is written by `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range` and never by
//! hand; a change to it is a change to the coder's bytes, which every runtime must follow.

use super::*;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// One step of a case: a bit under a context (adapting or static), or a field under the
/// context's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Adapt(usize, bool),
    Static(usize, bool),
    Tree(usize, u8, u64),
}

impl Op {
    /// The same step with its value left for the decoder to find.
    fn shape(self) -> Op {
        match self {
            Op::Adapt(c, _) => Op::Adapt(c, false),
            Op::Static(c, _) => Op::Static(c, false),
            Op::Tree(c, w, _) => Op::Tree(c, w, 0),
        }
    }

    fn text(self, with_value: bool) -> String {
        let (head, value) = match self {
            Op::Adapt(c, b) => (format!("a{c}"), u64::from(b)),
            Op::Static(c, b) => (format!("s{c}"), u64::from(b)),
            Op::Tree(c, w, v) => (format!("t{c}:{w}"), v),
        };
        if with_value {
            format!("{head}={value}")
        } else {
            head
        }
    }

    fn parse(text: &str) -> Op {
        let (head, value) = text.split_once('=').unwrap_or((text, "0"));
        let value: u64 = value.parse().expect("an op's value");
        let context = |s: &str| s.parse::<usize>().expect("an op's context");
        match head.split_at(1) {
            ("a", c) => Op::Adapt(context(c), value == 1),
            ("s", c) => Op::Static(context(c), value == 1),
            ("t", rest) => {
                let (c, w) = rest.split_once(':').expect("a tree op's width");
                Op::Tree(context(c), w.parse().expect("a width"), value)
            }
            _ => panic!("no op {text}"),
        }
    }
}

/// The contexts' probabilities (bits), and a tree per context started at its probability.
struct Model {
    probs: Vec<Prob>,
    trees: HashMap<usize, BitTree>,
}

impl Model {
    fn new(probs: &[u16]) -> Model {
        Model {
            probs: probs
                .iter()
                .map(|&p| Prob::new(p).expect("a probability"))
                .collect(),
            trees: HashMap::new(),
        }
    }

    fn tree(&mut self, c: usize) -> &mut BitTree {
        let p = self.probs[c];
        self.trees.entry(c).or_insert_with(|| BitTree::new(p))
    }
}

/// What encoding `ops` saw: carries into written bytes, the longest run of bytes waiting for
/// one.
fn encode(probs: &[u16], ops: &[Op]) -> (Vec<u8>, (u32, u64)) {
    let mut m = Model::new(probs);
    let mut e = RangeEncoder::new();
    for &op in ops {
        match op {
            Op::Adapt(c, b) => e.bit(&mut m.probs[c], b),
            Op::Static(c, b) => e.bit_static(m.probs[c], b),
            Op::Tree(c, w, v) => e.bits(m.tree(c), w, v).expect("a value within its width"),
        }
    }
    let seen = e.seen;
    let mut out = Vec::new();
    e.finish(&mut out);
    (out, seen)
}

/// `shape`'s values read from `bytes`, and the zeros read past the end.
fn decode(probs: &[u16], shape: &[Op], bytes: &[u8]) -> Result<(Vec<Op>, usize), DecodeError> {
    let mut m = Model::new(probs);
    let mut d = RangeDecoder::new(bytes, 0)?;
    let mut out = Vec::new();
    let mut bits = 0;
    for &op in shape {
        out.push(match op {
            Op::Adapt(c, _) => Op::Adapt(c, d.bit(&mut m.probs[c])?),
            Op::Static(c, _) => Op::Static(c, d.bit_static(m.probs[c])?),
            Op::Tree(c, w, _) => Op::Tree(c, w, d.bits(m.tree(c), w)?),
        });
        bits += match op {
            Op::Tree(_, w, _) => usize::from(w),
            _ => 1,
        };
        // The work is bounded by the bits the layout asks for: a bit narrows the range at
        // most 4096 times, which two bytes make up, and the first four are read up front.
        assert!(d.at <= 4 + 2 * bits, "{} bytes for {bits} bits", d.at);
    }
    let implicit = d.at.saturating_sub(bytes.len());
    d.finish()?;
    Ok((out, implicit))
}

/// SplitMix64, so that the seeded cases are the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random case of `n` steps over three contexts with skewed probabilities.
fn random_case(rng: &mut SplitMix, n: usize) -> (Vec<u16>, Vec<Op>) {
    let probs: Vec<u16> = (0..3)
        .map(|_| match rng.below(4) {
            0 => 1 + rng.below(64) as u16,
            1 => 4095 - rng.below(64) as u16,
            _ => 1 + rng.below(4095) as u16,
        })
        .collect();
    let ops = (0..n)
        .map(|_| {
            let c = rng.below(3) as usize;
            // Bits mostly as their context expects, so that runs and carries happen.
            let likely = probs[c] >= 2048;
            let bit = if rng.below(8) == 0 { likely } else { !likely };
            match rng.below(5) {
                0 => Op::Static(c, !bit),
                1 => {
                    let w = rng.below(20) as u8;
                    let v = if w == 0 { 0 } else { rng.next() >> (64 - w) };
                    Op::Tree(c, w, v)
                }
                _ => Op::Adapt(c, !bit),
            }
        })
        .collect();
    (probs, ops)
}

/// One line of the file.
enum Case {
    Ok {
        name: String,
        probs: Vec<u16>,
        ops: Vec<Op>,
        bytes: Vec<u8>,
    },
    Err {
        name: String,
        probs: Vec<u16>,
        shape: Vec<Op>,
        bytes: Vec<u8>,
        error: DecodeError,
    },
}

fn ok(name: &str, probs: &[u16], ops: Vec<Op>) -> Case {
    let (bytes, _) = encode(probs, &ops);
    Case::Ok {
        name: name.into(),
        probs: probs.to_vec(),
        ops,
        bytes,
    }
}

/// A refused stream: `bytes` read as `shape` must fail with `kind`.
fn err(name: &str, probs: &[u16], shape: &[Op], bytes: Vec<u8>, kind: ErrorKind) -> Case {
    let shape: Vec<Op> = shape.iter().map(|o| o.shape()).collect();
    let error = decode(probs, &shape, &bytes).expect_err(name);
    assert_eq!(error.kind, kind, "{name}");
    Case::Err {
        name: name.into(),
        probs: probs.to_vec(),
        shape,
        bytes,
        error,
    }
}

fn cases() -> Vec<Case> {
    let mut out = vec![
        ok("empty", &[2048], vec![]),
        ok("one_zero_even", &[2048], vec![Op::Adapt(0, false)]),
        ok("one_one_even", &[2048], vec![Op::Adapt(0, true)]),
        ok("likely_zero_at_max", &[4095], vec![Op::Static(0, false)]),
        ok("unlikely_one_at_max", &[4095], vec![Op::Static(0, true)]),
        ok("unlikely_zero_at_min", &[1], vec![Op::Static(0, false)]),
        ok("likely_one_at_min", &[1], vec![Op::Static(0, true)]),
        // The interval never leaves 0: every byte is 0, four are dropped and the rest kept.
        ok(
            "zeros_past_the_four_dropped",
            &[1],
            vec![Op::Static(0, false); 12],
        ),
        ok(
            "unlikely_run_static",
            &[4095],
            vec![Op::Static(0, true); 40],
        ),
        // An adapting probability reaches its end and stops short of it.
        ok("adapting_to_zeros", &[2048], vec![Op::Adapt(0, false); 300]),
        ok("adapting_to_ones", &[2048], vec![Op::Adapt(0, true); 300]),
        ok(
            "adapting_then_turning",
            &[2048],
            [vec![Op::Adapt(0, false); 100], vec![Op::Adapt(0, true); 20]].concat(),
        ),
        ok(
            "tree_fields_every_width",
            &[2048, 300],
            (0..=64u8)
                .map(|w| {
                    let v = if w == 0 { 0 } else { u64::MAX >> (64 - w) };
                    Op::Tree(usize::from(w % 2), w, v / 3)
                })
                .collect(),
        ),
        ok(
            "tree_field_zero_and_max_of_64",
            &[2048],
            vec![
                Op::Tree(0, 64, 0),
                Op::Tree(0, 64, u64::MAX),
                Op::Tree(0, 0, 0),
            ],
        ),
    ];
    // Seeded cases that reach the coder's edges: a carry into written bytes, a long run of
    // bytes waiting for one, and each count of dropped zeros.
    let mut rng = SplitMix(0x5eed_0039);
    type Wanted = Box<dyn Fn((u32, u64), usize) -> bool>;
    let mut wanted: Vec<(String, Wanted)> = vec![
        ("carry".into(), Box::new(|s, _| s.0 > 0)),
        (
            "carry_through_waiting_bytes".into(),
            Box::new(|s, _| s.0 > 0 && s.1 >= 3),
        ),
    ];
    for k in 0..=MAX_IMPLICIT_ZEROS {
        wanted.push((
            format!("dropped_zeros_{k}"),
            Box::new(move |_, implicit| implicit == k),
        ));
    }
    let mut tries = 0;
    while !wanted.is_empty() {
        tries += 1;
        assert!(tries < 200_000, "no case for {}", wanted[0].0);
        let n = 1 + rng.below(80) as usize;
        let (probs, ops) = random_case(&mut rng, n);
        let (bytes, seen) = encode(&probs, &ops);
        let (_, implicit) = decode(&probs, &ops, &bytes).expect("a round trip");
        if let Some(at) = wanted.iter().position(|(_, f)| f(seen, implicit)) {
            let (name, _) = wanted.remove(at);
            out.push(Case::Ok {
                name,
                probs,
                ops,
                bytes,
            });
        }
    }
    // Refused streams, each from an encoder's stream made wrong in one way.
    let (probs, ops) = (0..)
        .map(|_| random_case(&mut rng, 60))
        .find(|(p, o)| {
            let (b, _) = encode(p, o);
            b.len() >= 8 && decode(p, o, &b).is_ok_and(|(_, k)| k == 0)
        })
        .expect("a case that drops no zeros");
    let (bytes, _) = encode(&probs, &ops);
    out.push(Case::Ok {
        name: "refused_below_from_this".into(),
        probs: probs.clone(),
        ops: ops.clone(),
        bytes: bytes.clone(),
    });
    out.push(err(
        "trailing_byte",
        &probs,
        &ops,
        [&bytes[..], &[1]].concat(),
        ErrorKind::TrailingBytes,
    ));
    out.push(err(
        "cut_in_the_code",
        &probs,
        &ops,
        bytes[..bytes.len() - MAX_IMPLICIT_ZEROS - 1].to_vec(),
        ErrorKind::Truncated,
    ));
    let mut flipped = bytes.clone();
    *flipped.last_mut().expect("bytes") ^= 0x10;
    out.push(err(
        "last_byte_changed",
        &probs,
        &ops,
        flipped,
        ErrorKind::NonCanonical,
    ));
    // A stream that dropped fewer than four zeros, with a zero put back.
    let (probs, ops) = (0..)
        .map(|_| random_case(&mut rng, 40))
        .find(|(p, o)| {
            let (b, _) = encode(p, o);
            decode(p, o, &b).is_ok_and(|(_, k)| (1..MAX_IMPLICIT_ZEROS).contains(&k))
        })
        .expect("a case that drops some zeros");
    let (bytes, _) = encode(&probs, &ops);
    out.push(Case::Ok {
        name: "refused_below_from_this_too".into(),
        probs: probs.clone(),
        ops: ops.clone(),
        bytes: bytes.clone(),
    });
    out.push(err(
        "a_dropped_zero_sent",
        &probs,
        &ops,
        [&bytes[..], &[0]].concat(),
        ErrorKind::NonCanonical,
    ));
    out.push(err(
        "code_past_its_range",
        &[2048],
        &[Op::Adapt(0, false)],
        vec![0xFF; 4],
        ErrorKind::NonCanonical,
    ));
    // At the least chance of a 0, each 0 narrows the range 4096 times and takes a byte or
    // two: an empty stream runs out after the four zeros.
    out.push(err(
        "decoding_past_the_end",
        &[1],
        &[Op::Static(0, true); 8],
        vec![],
        ErrorKind::Truncated,
    ));
    out.push(err(
        "a_field_over_64_bits",
        &[2048],
        &[Op::Tree(0, 65, 0)],
        vec![],
        ErrorKind::OverWidth,
    ));
    out
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    if text == "-" {
        return Vec::new();
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

fn list(ops: &[Op], with_values: bool) -> String {
    if ops.is_empty() {
        return "-".into();
    }
    ops.iter()
        .map(|o| o.text(with_values))
        .collect::<Vec<_>>()
        .join(",")
}

fn probs_text(probs: &[u16]) -> String {
    probs
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

const HEADER: &str = "\
# The adaptive binary range coder of rt/src/range.rs: streams it writes and streams it
# refuses, as cases every other runtime's coder is held to. Written by
# `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range`, never by hand. One case a line:
#   ok NAME PROBS OPS HEX      encoding OPS gives HEX; decoding HEX as OPS gives their values
#   err NAME PROBS OPS HEX KIND OFFSET   decoding HEX as OPS fails with KIND (OFFSET, the byte
#                              the Rust coder reports, is informative)
# PROBS: each context's starting chance of a 0 in 4096ths, comma separated.
# OPS: comma separated, `-` for none: `aC=B` bit B under context C, which adapts; `sC=B` bit B
# under context C, static; `tC:W=V` the W low bits of V under context C's tree (its own
# slots, every one starting at context C's probability). In err cases the values are left out.
# HEX: the stream, `-` when empty.
";

fn render(cases: &[Case]) -> String {
    let mut text = HEADER.to_owned();
    for c in cases {
        match c {
            Case::Ok {
                name,
                probs,
                ops,
                bytes,
            } => writeln!(
                text,
                "ok {name} {} {} {}",
                probs_text(probs),
                list(ops, true),
                hex(bytes)
            ),
            Case::Err {
                name,
                probs,
                shape,
                bytes,
                error,
            } => writeln!(
                text,
                "err {name} {} {} {} {} {}",
                probs_text(probs),
                list(shape, false),
                hex(bytes),
                error.kind.as_str(),
                error.offset
            ),
        }
        .expect("a write to a string");
    }
    text
}

fn cases_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/coder/range_coder_cases.txt")
}

#[test]
fn the_cases_file_is_what_the_coder_writes_and_reads() {
    let text = render(&cases());
    if std::env::var_os("ACKWIRE_WRITE_CASES").is_some() {
        std::fs::write(cases_file(), &text).expect("the cases file is written");
    }
    let kept = std::fs::read_to_string(cases_file()).expect("the cases file is there");
    assert!(
        kept == text,
        "vectors/coder/range_coder_cases.txt is not what the coder writes: \
         ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range"
    );
    // Read back as another runtime would: every case from its line alone.
    let mut seen = 0;
    for line in kept.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let probs: Vec<u16> = f[2].split(',').map(|p| p.parse().unwrap()).collect();
        let ops: Vec<Op> = if f[3] == "-" {
            Vec::new()
        } else {
            f[3].split(',').map(Op::parse).collect()
        };
        let bytes = unhex(f[4]);
        match f[0] {
            "ok" => {
                assert_eq!(encode(&probs, &ops).0, bytes, "{}", f[1]);
                assert_eq!(decode(&probs, &ops, &bytes).unwrap().0, ops, "{}", f[1]);
            }
            "err" => {
                let e = decode(&probs, &ops, &bytes).unwrap_err();
                assert_eq!(e.kind.as_str(), f[5], "{}", f[1]);
                assert_eq!(e.offset.to_string(), f[6], "{}", f[1]);
            }
            other => panic!("a line of kind {other}"),
        }
        seen += 1;
    }
    assert!(seen >= 30, "{seen} cases");
}

#[test]
fn a_probability_never_reaches_either_end() {
    for start in [1u16, 2, 15, 16, 17, 2048, 4079, 4080, 4094, 4095] {
        for bit in [false, true] {
            let mut p = Prob::new(start).unwrap();
            for _ in 0..1000 {
                p.adapt(bit);
                assert!(Prob::new(p.get()).is_some(), "{start} {bit}: {}", p.get());
            }
        }
    }
    assert_eq!(Prob::new(0), None);
    assert_eq!(Prob::new(4096), None);
    assert_eq!(Prob::new(4095), Some(Prob::MAX));
    assert_eq!(Prob::new(1), Some(Prob::MIN));
}

#[test]
fn a_value_wider_than_its_field_is_refused() {
    let mut e = RangeEncoder::new();
    let mut t = BitTree::new(Prob::HALF);
    assert_eq!(e.bits(&mut t, 3, 8).unwrap_err().kind, ErrorKind::OverWidth);
    assert_eq!(
        e.bits(&mut t, 65, 0).unwrap_err().kind,
        ErrorKind::OverWidth
    );
    e.bits(&mut t, 3, 7).unwrap();
    e.bits(&mut t, 64, u64::MAX).unwrap();
    assert!(BitTree::from_slots(&[Prob::HALF; 3]).is_none());
    let trained = BitTree::from_slots(&[Prob::MAX; TREE_SLOTS]).unwrap();
    assert_eq!(trained.slots()[5], Prob::MAX);
}

#[test]
fn errors_carry_the_stream_offset() {
    // The stream starts at byte 10 of its frame.
    let e = RangeDecoder::new(&[0xFF; 4], 10).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::NonCanonical, 14));
    let mut d = RangeDecoder::new(&[], 10).unwrap();
    let e = (0..8)
        .map(|_| d.bit_static(Prob::MIN))
        .find_map(Result::err)
        .unwrap();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, 10));
}

fn arb_case() -> impl proptest::strategy::Strategy<Value = (Vec<u16>, Vec<Op>)> {
    use proptest::prelude::*;
    let op = (0..3usize, 0..3u8, any::<bool>(), 0..=64u8, any::<u64>()).prop_map(
        |(c, kind, bit, w, v)| match kind {
            0 => Op::Adapt(c, bit),
            1 => Op::Static(c, bit),
            _ => Op::Tree(c, w, if w == 64 { v } else { v & ((1u64 << w) - 1) }),
        },
    );
    (
        proptest::collection::vec(1..=4095u16, 3),
        proptest::collection::vec(op, 0..200),
    )
}

proptest::proptest! {
    #[test]
    fn every_case_round_trips((probs, ops) in arb_case()) {
        let (bytes, _) = encode(&probs, &ops);
        let (back, implicit) = decode(&probs, &ops, &bytes).unwrap();
        proptest::prop_assert_eq!(back, ops);
        proptest::prop_assert!(implicit <= MAX_IMPLICIT_ZEROS);
        proptest::prop_assert!(bytes.last() != Some(&0) || implicit == MAX_IMPLICIT_ZEROS);
    }

    /// Any bytes, read as any case's fields: no panic, nothing read more than four bytes past
    /// the end, and a stream that is accepted is the one the encoder writes for what it read.
    #[test]
    fn hostile_streams_are_refused_or_canonical(
        (probs, ops) in arb_case(),
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
    ) {
        let shape: Vec<Op> = ops.iter().map(|o| o.shape()).collect();
        match decode(&probs, &shape, &bytes) {
            Ok((back, _)) => proptest::prop_assert_eq!(encode(&probs, &back).0, bytes),
            Err(e) => proptest::prop_assert!(e.offset <= bytes.len()),
        }
    }
}
