//! The coded values' tests: the slot layout against CODE-7 and CODE-8 written out
//! independently, round trips and hostile bodies as properties, the end rules of CODE-5, and
//! the cases every other runtime is held to, `vectors/coder/coded_cases.txt`. That file is
//! written by `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib coded` and never by hand; a
//! change to it is a change to kind 13's bytes, which every runtime must follow.

use super::*;
use crate::range::MAX_IMPLICIT_ZEROS;
use std::fmt::Write as _;
use std::path::PathBuf;

/// One coded value of a case: unsigned or signed, under the model of `w` bits at slot `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    U(usize, u8, u64),
    I(usize, u8, i64),
}

impl Val {
    /// The same value's model, its value left for the decoder to find.
    fn shape(self) -> Val {
        match self {
            Val::U(at, w, _) => Val::U(at, w, 0),
            Val::I(at, w, _) => Val::I(at, w, 0),
        }
    }

    fn text(self, with_value: bool) -> String {
        let (head, value) = match self {
            Val::U(at, w, v) => (format!("u{at}:{w}"), v.to_string()),
            Val::I(at, w, v) => (format!("i{at}:{w}"), v.to_string()),
        };
        if with_value {
            format!("{head}={value}")
        } else {
            head
        }
    }

    fn parse(text: &str) -> Val {
        let (head, value) = text.split_once('=').unwrap_or((text, "0"));
        let (at, w) = head[1..].split_once(':').expect("a value's model");
        let at: usize = at.parse().expect("a slot");
        let w: u8 = w.parse().expect("a width");
        match &head[..1] {
            "u" => Val::U(at, w, value.parse().expect("an unsigned value")),
            "i" => Val::I(at, w, value.parse().expect("a signed value")),
            _ => panic!("no value {text}"),
        }
    }

    fn put(self, sink: &mut impl CodedSink) -> Result<(), EncodeError> {
        match self {
            Val::U(at, w, v) => sink.value(at, w, v),
            Val::I(at, w, v) => sink.signed(at, w, v),
        }
    }
}

/// A case's tables: `slots` slots at `flat`, but for the slots listed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Table {
    slots: usize,
    flat: u16,
    listed: Vec<(usize, u16)>,
}

impl Table {
    fn flat(slots: usize, flat: u16) -> Table {
        Table {
            slots,
            flat,
            listed: Vec::new(),
        }
    }

    fn probs(&self) -> Vec<Prob> {
        let mut probs = vec![Prob::new(self.flat).expect("a probability"); self.slots];
        for &(s, p) in &self.listed {
            probs[s] = Prob::new(p).expect("a probability");
        }
        probs
    }

    fn text(&self) -> String {
        let mut t = format!("{}:{}", self.slots, self.flat);
        for (s, p) in &self.listed {
            write!(t, ",{s}={p}").expect("a write to a string");
        }
        t
    }

    fn parse(text: &str) -> Table {
        let mut parts = text.split(',');
        let (slots, flat) = parts
            .next()
            .and_then(|h| h.split_once(':'))
            .expect("SLOTS:P");
        Table {
            slots: slots.parse().expect("slots"),
            flat: flat.parse().expect("a probability"),
            listed: parts
                .map(|l| {
                    let (s, p) = l.split_once('=').expect("SLOT=P");
                    (
                        s.parse().expect("a slot"),
                        p.parse().expect("a probability"),
                    )
                })
                .collect(),
        }
    }
}

fn encode(table: &Table, count: usize, vals: &[Val]) -> Result<Vec<u8>, EncodeError> {
    let mut probs = table.probs();
    let mut e = CodedEncoder::new(&mut probs);
    for &v in vals {
        v.put(&mut e)?;
    }
    let mut out = Vec::new();
    e.finish(count, &mut out)?;
    Ok(out)
}

/// `shape`'s values read from `bytes` (the whole input: a byte after the body is refused).
fn decode(
    table: &Table,
    count: usize,
    shape: &[Val],
    bytes: &[u8],
) -> Result<Vec<Val>, DecodeError> {
    let mut probs = table.probs();
    let mut r = Reader::new(bytes);
    let mut d = CodedDecoder::new(&mut r, count, &mut probs)?;
    let mut out = Vec::new();
    for &v in shape {
        out.push(match v {
            Val::U(at, w, _) => Val::U(at, w, d.value(at, w)?),
            Val::I(at, w, _) => Val::I(at, w, d.signed(at, w)?),
        });
    }
    d.finish()?;
    r.finish()?;
    Ok(out)
}

/// CODE-7 and CODE-8 written out again, the simple way: the model's slots laid out block by
/// block, and the (slot, bit) pairs coding `v` under the model at `at`.
fn spec_bits(at: usize, w: u8, v: u64) -> Vec<(usize, bool)> {
    let w = usize::from(w);
    let k = (0..=7).find(|&k| w < 1 << k).expect("W <= 64");
    let l = 64 - v.leading_zeros() as usize;
    let mut out = Vec::new();
    let mut node = 1;
    for i in (0..k).rev() {
        let b = l >> i & 1 == 1;
        out.push((at + node - 1, b));
        node = 2 * node + usize::from(b);
    }
    // The blocks of lengths 2 to l - 1 before l's.
    let mut block = at + (1 << k) - 1;
    for j in 2..l {
        let t = (j - 1).min(3);
        block += (1 << t) - 1 + (j - 1 - t);
    }
    if l >= 2 {
        let t = (l - 1).min(3);
        let below: Vec<bool> = (0..l - 1).rev().map(|p| v >> p & 1 == 1).collect();
        let mut node = 1;
        for &b in &below[..t] {
            out.push((block + node - 1, b));
            node = 2 * node + usize::from(b);
        }
        for (j, &b) in below[t..].iter().enumerate() {
            out.push((block + (1 << t) - 1 + j, b));
        }
    }
    out
}

/// CODE-8's count, summed term by term.
fn spec_slots(w: u8) -> usize {
    let w = usize::from(w);
    let k = (0..=8).find(|&k| w < 1 << k).expect("W < 256");
    let mut n = (1 << k) - 1;
    for l in 2..=w {
        let t = (l - 1).min(3);
        n += (1 << t) - 1 + (l - 1 - t);
    }
    n
}

#[test]
fn a_model_has_the_slots_code_8_counts() {
    for w in [0u8, 1, 2, 3, 7, 8, 16, 17, 32, 64] {
        assert_eq!(model_slots(w), spec_slots(w), "W = {w}");
    }
    for w in 0..=255u8 {
        assert_eq!(model_slots(w), spec_slots(w), "W = {w}");
    }
    // By hand: W = 0 codes nothing; W = 1 one length bit; W = 3 a tree of 2 bits and the
    // trees of lengths 2 (1 slot) and 3 (3 slots).
    assert_eq!(
        [0, 1, 3, 7, 8, 16, 64].map(model_slots),
        [0, 1, 7, 45, 64, 204, 2388]
    );
    const AT_COMPILE_TIME: usize = model_slots(64);
    assert_eq!(AT_COMPILE_TIME, 2388);
}

#[test]
fn values_are_coded_under_the_slots_code_7_names() {
    let mut rng = SplitMix(7);
    for _ in 0..5000 {
        let w = rng.below(65) as u8;
        let v = random_value(&mut rng, w);
        let at = rng.below(5) as usize;
        let mut seen = Vec::new();
        let back = walk(at, w, v, |s, b| {
            seen.push((s, b));
            Ok::<_, ()>(b)
        })
        .unwrap();
        assert_eq!(back, Some(v));
        assert_eq!(seen, spec_bits(at, w, v), "W = {w}, v = {v}");
        assert!(seen
            .iter()
            .all(|&(s, _)| s >= at && s < at + model_slots(w)));
    }
    assert_eq!(spec_bits(0, 0, 0), []);
    assert_eq!(spec_bits(0, 1, 1), [(0, true)]);
    // W = 8: L = 5 is 0101 under nodes 1, 2, 5, 10; 21 = 10101 then codes 010 under its
    // tree (15 + 11 = 26: nodes 1, 2, 5) and 1 under its first position slot (26 + 7).
    assert_eq!(
        spec_bits(0, 8, 21),
        [
            (0, false),
            (1, true),
            (4, false),
            (9, true),
            (26, false),
            (27, true),
            (30, false),
            (33, true)
        ]
    );
}

#[test]
fn the_counts_walk_what_the_encoder_codes() {
    let mut rng = SplitMix(11);
    for _ in 0..200 {
        let (table, vals) = random_case(&mut rng, 30);
        let mut probs = table.probs();
        let mut e = CodedEncoder::new(&mut probs);
        let mut counts = SlotCounts::new(table.slots);
        let mut expected = vec![[0u64; 2]; table.slots];
        for &v in &vals {
            v.put(&mut e).unwrap();
            v.put(&mut counts).unwrap();
            let (at, w, u) = match v {
                Val::U(at, w, u) => (at, w, u),
                Val::I(at, w, i) => (at, w, zigzag(i)),
            };
            for (s, b) in spec_bits(at, w, u) {
                expected[s][usize::from(b)] += 1;
            }
        }
        assert_eq!(counts.counts(), &expected[..]);
        let total: u64 = expected.iter().flatten().sum();
        assert_eq!(e.enc.coded_bits, total, "the encoder coded every bit, once");
        // Slots the counts never saw kept their starting probability in the encoder.
        let start = table.probs();
        for (s, c) in expected.iter().enumerate() {
            if c == &[0, 0] {
                assert_eq!(e.probs[s], start[s]);
            }
        }
    }
}

#[test]
fn counts_train_probabilities_by_the_formula() {
    let mut c = SlotCounts::new(3);
    c.counts = vec![[0, 0], [3, 1], [1_000_000, 0]];
    let mut more = SlotCounts::new(4);
    more.counts = vec![[0, 0], [0, 0], [0, 0], [0, 1_000_000]];
    c.add(&more);
    let p: Vec<u16> = c.probs().into_iter().map(Prob::get).collect();
    // (0+1)*4096/2 = 2048; (3+1)*4096/6 = 2730; nearly all zeros clamps to 4064, all ones to 32.
    assert_eq!(p, [2048, 2730, 4064, 32]);
    let mut c = SlotCounts::new(1);
    c.counts = vec![[u64::MAX, u64::MAX]];
    c.add(&c.clone());
    assert_eq!(c.counts(), &[[u64::MAX, u64::MAX]]);
    assert_eq!(c.probs()[0].get(), 2048);
    // The formula over a range of counts, against its own terms.
    for c0 in 0..40u64 {
        for c1 in 0..40u64 {
            let mut c = SlotCounts::new(1);
            c.counts = vec![[c0, c1]];
            let want = ((c0 + 1) * 4096 / (c0 + c1 + 2)).clamp(32, 4064);
            assert_eq!(u64::from(c.probs()[0].get()), want);
        }
    }
}

#[test]
fn the_floor_is_twelve_bits_a_change() {
    assert_eq!(
        [0, 1, 2, 3, 4, 5, 8, 43690, 43691, 65535].map(floor_len),
        [0, 2, 3, 5, 6, 8, 12, 65535, 65537, 98303]
    );
    assert_eq!(CODED_FLOOR_BITS, 12);
    assert_eq!(floor_len(usize::MAX), usize::MAX.div_ceil(8));
    // A floor past a u16 cannot be written.
    let mut out = vec![9];
    let mut probs = [];
    let e = CodedEncoder::new(&mut probs).finish(43691, &mut out);
    assert_eq!(e.unwrap_err().kind, ErrorKind::CountTooLarge);
    assert_eq!(out, [9], "nothing is left of a body refused");
    let mut probs = [];
    CodedEncoder::new(&mut probs)
        .finish(43690, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1 + 2 + 65535);
}

#[test]
fn extrapolation_rounds_halves_away_from_zero_and_saturates() {
    for (v, n, d, want) in [
        (10, 3, 2, 15),
        (5, 1, 2, 3),
        (-5, 1, 2, -3),
        (7, 1, 3, 2),
        (-7, 2, 3, -5),
        (1, 1, 2, 1),
        (-1, 1, 2, -1),
        (1, 1, 3, 0),
        (-1, 1, 3, 0),
        (3, 0, 5, 0),
        (6, 7, 0, 42),
        (i64::MAX, 65535, 1, i64::MAX),
        (i64::MIN, 65535, 1, i64::MIN),
        (i64::MIN, 1, 1, i64::MIN),
        (i64::MIN, 1, 2, -(1 << 62)),
        (i64::MAX, 1, 2, 1 << 62),
        (i64::MAX, u32::MAX, u32::MAX, i64::MAX),
    ] {
        assert_eq!(extrapolate(v, n, d), want, "{v} * {n} / {d}");
    }
}

#[test]
fn values_wider_than_their_model_or_past_the_tables_are_refused() {
    let mut probs = vec![Prob::HALF; model_slots(8)];
    let mut e = CodedEncoder::new(&mut probs);
    for (at, w, v) in [
        (0, 3, 8),
        (0, 0, 1),
        (0, 65, 0),
        (1, 8, 0),
        (usize::MAX, 0, 0),
    ] {
        assert_eq!(
            e.value(at, w, v).unwrap_err().kind,
            ErrorKind::OverWidth,
            "{at} {w} {v}"
        );
    }
    assert_eq!(e.signed(0, 3, -5).unwrap_err().kind, ErrorKind::OverWidth);
    // Through a sink lent out, as a generated writer passes it on.
    fn lent(mut sink: impl CodedSink, v: u64) -> Result<(), EncodeError> {
        sink.value(0, 3, v)
    }
    let dyn_sink: &mut dyn CodedSink = &mut e;
    assert_eq!(lent(dyn_sink, 8).unwrap_err().kind, ErrorKind::OverWidth);
    lent(&mut e, 7).unwrap();
    e.signed(0, 3, -4).unwrap();
    e.value(0, 8, 255).unwrap();
    e.value(64, 0, 0).unwrap();
    let mut counts = SlotCounts::new(4);
    assert_eq!(
        counts.value(0, 3, 0).unwrap_err().kind,
        ErrorKind::OverWidth
    );
    assert_eq!(
        counts.counts(),
        &[[0; 2]; 4],
        "nothing counted of a refused value"
    );
    // The decoder: slots past the tables, a width over 64, a length over the width.
    let bytes = [0, 0];
    let mut probs = vec![Prob::HALF; 7];
    let mut r = Reader::new(&bytes);
    let mut d = CodedDecoder::new(&mut r, 0, &mut probs).unwrap();
    let e = d.value(1, 3).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::OverWidth, 2));
    assert_eq!(d.value(0, 65).unwrap_err().kind, ErrorKind::OverWidth);
    assert_eq!(d.value(0, 3).unwrap(), 0);
    d.finish().unwrap();
}

#[test]
fn a_length_over_the_width_is_over_width_at_the_stream() {
    // 7 is L = 3, which the same slots of a model of 2 bits cannot hold.
    let table = Table::flat(model_slots(3), 2048);
    let mut bytes = vec![0xAA];
    bytes.extend(encode(&table, 0, &[Val::U(0, 3, 7)]).unwrap());
    let mut probs = table.probs();
    let mut r = Reader::new(&bytes);
    r.u8().unwrap();
    let mut d = CodedDecoder::new(&mut r, 0, &mut probs).unwrap();
    let e = d.value(0, 2).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OverWidth);
    assert!((3..=bytes.len()).contains(&e.offset), "{}", e.offset);
}

#[test]
fn a_body_under_its_floor_is_refused_before_it_is_read() {
    // 8 changes need 12 bytes; 11 are there, then none at all: the length is refused first.
    let table = Table::flat(1, 2048);
    for bytes in [[&[11u8, 0][..], &[0; 11]].concat(), vec![0, 0], vec![11, 0]] {
        let e = decode(&table, 8, &[], &bytes).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::CountTooLarge, 0));
    }
    let e = decode(&table, 8, &[], &[12, 0]).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, 2));
    let e = decode(&table, 0, &[], &[0]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    // At an offset within the frame.
    let bytes = [1, 2, 3, 1, 0, 0];
    let mut r = Reader::new(&bytes);
    r.take(3).unwrap();
    let mut probs = [];
    let e = CodedDecoder::new(&mut r, 1, &mut probs).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::CountTooLarge, 3));
}

#[test]
fn a_padded_body_round_trips_and_its_padding_is_zeros() {
    let table = Table::flat(model_slots(8), 2048);
    let vals = [Val::U(0, 8, 200), Val::U(0, 8, 3)];
    let bytes = encode(&table, 20, &vals).unwrap();
    assert_eq!(bytes.len(), 2 + 30);
    assert_eq!(&bytes[..2], &[30, 0]);
    assert_eq!(decode(&table, 20, &vals, &bytes).unwrap(), vals);
    let stream = encode(&table, 0, &vals).unwrap();
    assert_eq!(&bytes[2..stream.len()], &stream[2..]);
    assert!(bytes[stream.len()..].iter().all(|&b| b == 0));
    // A byte of the padding the decoder did not reach set: trailing bytes at that byte. One it
    // reached (a zero the encoder dropped, which the padding sends) changes the code.
    let reached = stream.len() + implicit_zeros(&table, 0, &vals, &stream);
    for at in stream.len()..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] = 1;
        let e = decode(&table, 20, &vals, &bad).unwrap_err();
        if at >= reached {
            assert_eq!((e.kind, e.offset), (ErrorKind::TrailingBytes, at));
        }
    }
    // The same body under a lower floor: the encoder writes no padding there.
    let e = decode(&table, 19, &vals, &bytes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TrailingBytes);
}

#[test]
fn decoding_past_the_four_implicit_zeros_is_truncated() {
    // Under the least chance of a 0, each 0 takes a byte or two.
    let table = Table::flat(model_slots(64), 1);
    let vals = vec![Val::U(0, 64, 0); 6];
    let bytes = encode(&table, 0, &vals).unwrap();
    assert!(bytes.len() > 2 + MAX_IMPLICIT_ZEROS + 1, "{}", bytes.len());
    assert_eq!(decode(&table, 0, &vals, &bytes).unwrap(), vals);
    // Cut (its length with it): the decode runs out.
    let mut cut = bytes[..bytes.len() - MAX_IMPLICIT_ZEROS - 1].to_vec();
    cut[0] -= (MAX_IMPLICIT_ZEROS + 1) as u8;
    let e = decode(&table, 0, &vals, &cut).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, cut.len()));
    // And an empty body read for them.
    let e = decode(&table, 0, &vals, &[0, 0]).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, 2));
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

/// A value of at most `w` bits, of a bit length drawn evenly, so that every length appears.
fn random_value(rng: &mut SplitMix, w: u8) -> u64 {
    let l = rng.below(u64::from(w) + 1) as u32;
    match l {
        0 => 0,
        _ => (1 << (l - 1)) | (rng.next() & ((1u64 << (l - 1)) - 1)),
    }
}

/// A random case of up to `n` values over one to three models of random widths, laid out one
/// after another, and some slots listed at skewed probabilities.
fn random_case(rng: &mut SplitMix, n: usize) -> (Table, Vec<Val>) {
    let mut models = Vec::new();
    let mut slots = 0;
    for _ in 0..1 + rng.below(3) {
        let w = match rng.below(4) {
            0 => rng.below(4) as u8,
            1 => 64,
            _ => rng.below(65) as u8,
        };
        models.push((slots, w));
        slots += model_slots(w);
    }
    let mut table = Table::flat(slots, 1 + rng.below(4095) as u16);
    for _ in 0..rng.below(4) {
        if slots > 0 {
            let p = match rng.below(3) {
                0 => 1 + rng.below(64) as u16,
                1 => 4095 - rng.below(64) as u16,
                _ => 1 + rng.below(4095) as u16,
            };
            table.listed.push((rng.below(slots as u64) as usize, p));
        }
    }
    let vals = (0..rng.below(n as u64 + 1))
        .map(|_| {
            let (at, w) = models[rng.below(models.len() as u64) as usize];
            let v = random_value(rng, w);
            if w > 0 && rng.below(3) == 0 {
                Val::I(at, w, unzigzag(v))
            } else {
                Val::U(at, w, v)
            }
        })
        .collect();
    (table, vals)
}

/// One line of the file.
enum Case {
    Ok {
        name: String,
        count: usize,
        table: Table,
        vals: Vec<Val>,
        bytes: Vec<u8>,
    },
    Err {
        name: String,
        count: usize,
        table: Table,
        shape: Vec<Val>,
        bytes: Vec<u8>,
        error: DecodeError,
    },
    Train {
        name: String,
        slots: usize,
        vals: Vec<Val>,
        probs: Vec<Prob>,
    },
    Extrapolate {
        name: String,
        v: i64,
        num: u32,
        den: u32,
    },
}

fn ok(name: &str, count: usize, table: Table, vals: Vec<Val>) -> Case {
    let bytes = encode(&table, count, &vals).expect(name);
    assert_eq!(decode(&table, count, &vals, &bytes).expect(name), vals);
    Case::Ok {
        name: name.into(),
        count,
        table,
        vals,
        bytes,
    }
}

/// A refused body: `bytes` read as `shape` must fail with `kind`.
fn err(
    name: &str,
    count: usize,
    table: &Table,
    shape: &[Val],
    bytes: Vec<u8>,
    kind: ErrorKind,
) -> Case {
    let shape: Vec<Val> = shape.iter().map(|v| v.shape()).collect();
    let error = decode(table, count, &shape, &bytes).expect_err(name);
    assert_eq!(error.kind, kind, "{name}");
    Case::Err {
        name: name.into(),
        count,
        table: table.clone(),
        shape,
        bytes,
        error,
    }
}

fn train(name: &str, slots: usize, vals: Vec<Val>) -> Case {
    let mut counts = SlotCounts::new(slots);
    for &v in &vals {
        v.put(&mut counts).expect(name);
    }
    Case::Train {
        name: name.into(),
        slots,
        vals,
        probs: counts.probs(),
    }
}

/// The body's length field set to `len`.
fn with_len(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes[..2].copy_from_slice(&u16::try_from(len).expect("a u16").to_le_bytes());
    bytes
}

/// How many zeros a decode of the body read past its stream's end.
fn implicit_zeros(table: &Table, count: usize, vals: &[Val], bytes: &[u8]) -> usize {
    let mut probs = table.probs();
    let mut r = Reader::new(bytes);
    let mut d = CodedDecoder::new(&mut r, count, &mut probs).expect("a body");
    for &v in vals {
        match v {
            Val::U(at, w, _) => d.value(at, w).map(drop),
            Val::I(at, w, _) => d.signed(at, w).map(drop),
        }
        .expect("a value");
    }
    d.dec.implicit_zeros()
}

/// A random case (and its body, for no changes) that `keep` keeps.
fn find_case(
    rng: &mut SplitMix,
    n: usize,
    keep: impl Fn(&Table, &[Val], &[u8]) -> bool,
) -> (Table, Vec<Val>, Vec<u8>) {
    (0..100_000)
        .map(|_| random_case(rng, n))
        .map(|(t, v)| {
            let b = encode(&t, 0, &v).expect("a random case");
            (t, v, b)
        })
        .find(|(t, v, b)| keep(t, v, b))
        .expect("a case")
}

fn cases() -> Vec<Case> {
    let w8 = || Table::flat(model_slots(8), 2048);
    let w64 = || Table::flat(model_slots(64), 2048);
    let u8s = |vs: &[u64]| vs.iter().map(|&v| Val::U(0, 8, v)).collect::<Vec<_>>();
    let (a, b) = (model_slots(16), model_slots(16) + model_slots(3));
    let mut out = vec![
        ok("empty", 0, Table::flat(0, 2048), vec![]),
        ok(
            "w0_codes_nothing",
            0,
            Table::flat(0, 2048),
            vec![Val::U(0, 0, 0); 3],
        ),
        ok(
            "w0_padded_to_one_change",
            1,
            Table::flat(0, 2048),
            vec![Val::U(0, 0, 0)],
        ),
        ok(
            "w1",
            0,
            Table::flat(1, 2048),
            [0, 1, 1, 0, 1].map(|v| Val::U(0, 1, v)).to_vec(),
        ),
        ok("w64_max", 0, w64(), vec![Val::U(0, 64, u64::MAX)]),
        ok(
            "w64_edges",
            0,
            w64(),
            [0, 1, 2, 3, 1 << 63, u64::MAX, (1 << 63) - 1]
                .map(|v| Val::U(0, 64, v))
                .to_vec(),
        ),
        ok(
            "length_boundaries",
            0,
            w8(),
            u8s(&[
                0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 21, 9, 17,
            ]),
        ),
        ok(
            "signed_w64_edges",
            0,
            w64(),
            [0, -1, 1, i64::MIN, i64::MAX, -2, 2]
                .map(|v| Val::I(0, 64, v))
                .to_vec(),
        ),
        ok(
            "signed_w4",
            0,
            Table::flat(model_slots(4), 2048),
            (-8..=7).map(|v| Val::I(0, 4, v)).collect(),
        ),
        ok("run_adapting_to_zero", 0, w8(), vec![Val::U(0, 8, 0); 300]),
        ok("run_adapting_to_max", 0, w8(), vec![Val::U(0, 8, 255); 300]),
        ok(
            "run_adapting_to_long_values",
            0,
            Table::flat(model_slots(20), 2048),
            vec![Val::U(0, 20, 0xA_5A5A); 300],
        ),
        ok(
            "run_then_turning",
            0,
            w8(),
            [u8s(&[1; 100]), u8s(&[200; 20])].concat(),
        ),
        ok(
            "listed_table",
            0,
            Table {
                slots: model_slots(8),
                flat: 2048,
                listed: vec![(0, 1), (1, 4095), (2, 32), (3, 4064), (15, 1), (63, 4095)],
            },
            u8s(&[0, 1, 5, 255, 128, 3, 2, 0]),
        ),
        ok(
            "skewed_flat_table",
            0,
            Table::flat(model_slots(8), 4095),
            u8s(&[0, 255, 0, 1, 254]),
        ),
        ok(
            "three_models",
            3,
            Table::flat(b + model_slots(1), 1000),
            vec![
                Val::U(0, 16, 1000),
                Val::U(a, 3, 5),
                Val::U(b, 1, 1),
                Val::I(0, 16, -3),
                Val::U(a, 3, 0),
                Val::U(b, 1, 0),
                Val::U(0, 16, 65535),
                Val::U(a, 3, 7),
                Val::U(b, 1, 1),
            ],
        ),
        ok("padded_to_floor", 20, w8(), u8s(&[200, 3])),
        ok(
            "longer_than_floor",
            2,
            w64(),
            vec![Val::U(0, 64, 0x0123_4567_89ab_cdef); 4],
        ),
    ];
    let mut rng = SplitMix(0x5eed_0013);
    // A stream exactly its floor long, unpadded; a padded one whose encoder dropped zeros (the
    // padding sends them); each count of dropped zeros above the floor.
    // From a stream's length and the zeros its encoder dropped, the count to code it for.
    type Wanted = Box<dyn Fn(usize, usize) -> Option<usize>>;
    let mut wanted: Vec<(String, Wanted)> = vec![(
        "stream_exactly_at_floor".into(),
        Box::new(|len, _| (1..40).find(|&c| floor_len(c) == len && len > 0)),
    )];
    wanted.push((
        "padding_after_dropped_zeros".into(),
        Box::new(|len, zeros| (zeros == MAX_IMPLICIT_ZEROS && len >= 2).then_some(len + 1)),
    ));
    for k in 0..=MAX_IMPLICIT_ZEROS {
        wanted.push((
            format!("above_floor_dropped_zeros_{k}"),
            Box::new(move |len, zeros| (zeros == k && len >= 3).then_some(1)),
        ));
    }
    let mut tries = 0;
    while !wanted.is_empty() {
        tries += 1;
        assert!(tries < 100_000, "no case for {}", wanted[0].0);
        let (table, vals) = random_case(&mut rng, 12);
        let raw = encode(&table, 0, &vals).expect("a random case");
        let zeros = implicit_zeros(&table, 0, &vals, &raw);
        let found = wanted
            .iter()
            .enumerate()
            .find_map(|(i, (_, f))| f(raw.len() - 2, zeros).map(|c| (i, c)));
        if let Some((i, count)) = found {
            let (name, _) = wanted.remove(i);
            out.push(ok(&name, count, table, vals));
        }
    }
    for i in 0..4 {
        let (table, vals) = random_case(&mut rng, 40);
        let count = rng.below(30) as usize;
        out.push(ok(&format!("seeded_{i}"), count, table, vals));
    }

    // Refused bodies.
    let t3 = Table::flat(model_slots(3), 2048);
    out.push(err(
        "length_over_width",
        0,
        &t3,
        &[Val::U(0, 2, 0)],
        encode(&t3, 0, &[Val::U(0, 3, 7)]).unwrap(),
        ErrorKind::OverWidth,
    ));
    let over_64 = (0..)
        .map(|_| [vec![8, 0], rng.next().to_le_bytes().to_vec()].concat())
        .find(|bytes| {
            decode(&w64(), 0, &[Val::U(0, 64, 0)], bytes)
                .is_err_and(|e| e.kind == ErrorKind::OverWidth)
        })
        .expect("a length over 64");
    out.push(err(
        "length_over_64",
        0,
        &w64(),
        &[Val::U(0, 64, 0)],
        over_64,
        ErrorKind::OverWidth,
    ));
    out.push(err(
        "width_over_64",
        0,
        &w64(),
        &[Val::U(0, 65, 0)],
        vec![0, 0],
        ErrorKind::OverWidth,
    ));
    out.push(err(
        "model_past_the_tables",
        0,
        &Table::flat(10, 2048),
        &[Val::U(5, 8, 0)],
        vec![0, 0],
        ErrorKind::OverWidth,
    ));
    out.push(err(
        "under_floor",
        8,
        &w8(),
        &[Val::U(0, 8, 0)],
        [&[9u8, 0][..], &[0; 9]].concat(),
        ErrorKind::CountTooLarge,
    ));
    out.push(err(
        "under_floor_before_anything_else",
        8,
        &w8(),
        &[Val::U(0, 8, 0)],
        vec![0, 0],
        ErrorKind::CountTooLarge,
    ));
    let padded = encode(&w8(), 20, &u8s(&[200, 3])).unwrap();
    let mut bad = padded.clone();
    bad[20] = 1;
    out.push(err(
        "nonzero_padding",
        20,
        &w8(),
        &u8s(&[200, 3]),
        bad,
        ErrorKind::TrailingBytes,
    ));
    // The padded body's code moved off the interval's bottom: its last stream byte changed.
    let raw = encode(&w8(), 0, &u8s(&[200, 3])).unwrap();
    let mut bad = padded.clone();
    bad[raw.len() - 1] ^= 0x01;
    out.push(err(
        "padded_code_not_at_bottom",
        20,
        &w8(),
        &u8s(&[200, 3]),
        bad,
        ErrorKind::NonCanonical,
    ));
    out.push(err(
        "padded_body_under_a_lower_floor",
        19,
        &w8(),
        &u8s(&[200, 3]),
        padded,
        ErrorKind::TrailingBytes,
    ));
    // A body above its floor whose encoder dropped no zeros, so that a byte after it is not
    // reached.
    let (table, vals, long) = find_case(&mut rng, 12, |t, v, b| {
        b.len() >= 2 + 8 && implicit_zeros(t, 0, v, b) == 0
    });
    out.push(Case::Ok {
        name: "refused_below_from_this".into(),
        count: 0,
        table: table.clone(),
        vals: vals.clone(),
        bytes: long.clone(),
    });
    out.push(err(
        "trailing_byte_in_stream",
        0,
        &table,
        &vals,
        with_len([&long[..], &[1]].concat(), long.len() - 1),
        ErrorKind::TrailingBytes,
    ));
    out.push(err(
        "byte_after_body",
        0,
        &table,
        &vals,
        [&long[..], &[0]].concat(),
        ErrorKind::TrailingBytes,
    ));
    out.push(err(
        "body_longer_than_input",
        0,
        &table,
        &vals,
        long[..long.len() - 1].to_vec(),
        ErrorKind::Truncated,
    ));
    out.push(err(
        "length_field_cut",
        0,
        &w64(),
        &[],
        vec![5],
        ErrorKind::Truncated,
    ));
    // Under the least chance of a 0 each 0 takes a byte or two, so a cut body runs out
    // whatever its bytes decode to.
    let (least, zeros) = (Table::flat(model_slots(64), 1), vec![Val::U(0, 64, 0); 6]);
    let long = encode(&least, 0, &zeros).unwrap();
    let cut = long.len() - 2 - MAX_IMPLICIT_ZEROS - 1;
    out.push(err(
        "decoding_past_the_implicit_zeros",
        0,
        &least,
        &zeros,
        with_len(long[..2 + cut].to_vec(), cut),
        ErrorKind::Truncated,
    ));
    let (table, vals, bytes) = find_case(&mut rng, 12, |t, v, b| {
        (1..MAX_IMPLICIT_ZEROS).contains(&implicit_zeros(t, 0, v, b))
    });
    out.push(Case::Ok {
        name: "refused_below_from_this_too".into(),
        count: 0,
        table: table.clone(),
        vals: vals.clone(),
        bytes: bytes.clone(),
    });
    let len = bytes.len() - 1;
    out.push(err(
        "a_dropped_zero_sent",
        0,
        &table,
        &vals,
        with_len([&bytes[..], &[0]].concat(), len),
        ErrorKind::NonCanonical,
    ));
    out.push(err(
        "code_past_its_range",
        0,
        &w8(),
        &[Val::U(0, 8, 0)],
        vec![4, 0, 0xFF, 0xFF, 0xFF, 0xFF],
        ErrorKind::NonCanonical,
    ));

    // Training counts, and extrapolation.
    out.push(train(
        "train_w8",
        model_slots(8),
        u8s(&[0, 0, 0, 1, 5, 5, 200, 255, 17, 0]),
    ));
    out.push(train(
        "train_two_models",
        model_slots(3) + model_slots(2),
        vec![
            Val::U(0, 3, 7),
            Val::I(model_slots(3), 2, -2),
            Val::U(0, 3, 1),
            Val::I(model_slots(3), 2, 1),
        ],
    ));
    out.push(train("train_nothing", 5, vec![]));
    for (i, (v, num, den)) in [
        (10, 3, 2),
        (5, 1, 2),
        (-5, 1, 2),
        (7, 1, 3),
        (-7, 2, 3),
        (-1, 1, 3),
        (3, 0, 5),
        (6, 7, 0),
        (-123_456, 65535, 255),
        (i64::MAX, 65535, 1),
        (i64::MIN, 65535, 1),
        (i64::MIN, 1, 2),
        (i64::MAX, 3, 2),
    ]
    .into_iter()
    .enumerate()
    {
        out.push(Case::Extrapolate {
            name: format!("extrapolate_{i}"),
            v,
            num,
            den,
        });
    }
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

fn list(vals: &[Val], with_values: bool) -> String {
    if vals.is_empty() {
        return "-".into();
    }
    vals.iter()
        .map(|v| v.text(with_values))
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_list(text: &str) -> Vec<Val> {
    if text == "-" {
        Vec::new()
    } else {
        text.split(',').map(Val::parse).collect()
    }
}

const HEADER: &str = "\
# The coded values of kind 13's body (rt/src/coded.rs, docs/spec/coded.md CODE-4 to CODE-8):
# bodies it writes and bodies it refuses, as cases every other runtime is held to. Written by
# `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib coded`, never by hand. One case a line:
#   ok NAME COUNT TABLE VALUES HEX   encoding VALUES (a fresh copy of TABLE, adapting) and
#                                    ending the body for COUNT changes gives HEX; decoding HEX
#                                    as the same models gives the values, and every byte is read
#   err NAME COUNT TABLE VALUES HEX KIND OFFSET   decoding HEX as VALUES' models fails with
#                                    KIND (OFFSET, the byte the Rust decoder reports, is
#                                    informative); decoding reads the whole of HEX as the input
#   train NAME SLOTS VALUES PROBS    counting VALUES over SLOTS slots gives the trained PROBS
#   extrapolate NAME V NUM DEN R     extrapolate(V, NUM, DEN) = R
# COUNT: changed_count, which sets the floor ceil(COUNT * 12 / 8).
# TABLE: `SLOTS:P` every slot at P, then `,S=P` for each slot S listed at another P.
# VALUES: comma separated, `-` for none: `uAT:W=V` the unsigned V under the model of W bits
# whose slots start at AT; `iAT:W=V` the signed V, coded as its zigzag code. In err cases the
# values are left out.
# HEX: the body, `u16 coded_len` little-endian then the stream, `-` when empty.
# PROBS: each slot's trained probability, comma separated, `-` for none.
# Within a model (CODE-7, CODE-8), the position slots of a length's block are in coding order:
# the first bit after the tree's under the block's first position slot.
";

fn render(cases: &[Case]) -> String {
    let mut text = HEADER.to_owned();
    for c in cases {
        match c {
            Case::Ok {
                name,
                count,
                table,
                vals,
                bytes,
            } => writeln!(
                text,
                "ok {name} {count} {} {} {}",
                table.text(),
                list(vals, true),
                hex(bytes)
            ),
            Case::Err {
                name,
                count,
                table,
                shape,
                bytes,
                error,
            } => writeln!(
                text,
                "err {name} {count} {} {} {} {} {}",
                table.text(),
                list(shape, false),
                hex(bytes),
                error.kind.as_str(),
                error.offset
            ),
            Case::Train {
                name,
                slots,
                vals,
                probs,
            } => {
                let probs = if probs.is_empty() {
                    "-".to_owned()
                } else {
                    probs
                        .iter()
                        .map(|p| p.get().to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                writeln!(text, "train {name} {slots} {} {probs}", list(vals, true))
            }
            Case::Extrapolate { name, v, num, den } => writeln!(
                text,
                "extrapolate {name} {v} {num} {den} {}",
                extrapolate(*v, *num, *den)
            ),
        }
        .expect("a write to a string");
    }
    text
}

fn cases_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/coder/coded_cases.txt")
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
        "vectors/coder/coded_cases.txt is not what the coder writes: \
         ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib coded"
    );
    // Read back as another runtime would: every case from its line alone.
    let mut seen = [0; 4];
    for line in kept.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let name = f[1];
        match f[0] {
            "ok" => {
                let (count, table, vals) =
                    (f[2].parse().unwrap(), Table::parse(f[3]), parse_list(f[4]));
                let bytes = unhex(f[5]);
                assert_eq!(encode(&table, count, &vals).unwrap(), bytes, "{name}");
                assert_eq!(
                    decode(&table, count, &vals, &bytes).unwrap(),
                    vals,
                    "{name}"
                );
                seen[0] += 1;
            }
            "err" => {
                let (count, table, shape) =
                    (f[2].parse().unwrap(), Table::parse(f[3]), parse_list(f[4]));
                let e = decode(&table, count, &shape, &unhex(f[5])).unwrap_err();
                assert_eq!(e.kind.as_str(), f[6], "{name}");
                assert_eq!(e.offset.to_string(), f[7], "{name}");
                seen[1] += 1;
            }
            "train" => {
                let mut counts = SlotCounts::new(f[2].parse().unwrap());
                for v in parse_list(f[3]) {
                    v.put(&mut counts).unwrap();
                }
                let probs: Vec<String> =
                    counts.probs().iter().map(|p| p.get().to_string()).collect();
                let probs = if probs.is_empty() {
                    "-".into()
                } else {
                    probs.join(",")
                };
                assert_eq!(probs, f[4], "{name}");
                seen[2] += 1;
            }
            "extrapolate" => {
                let r = extrapolate(
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                );
                assert_eq!(r.to_string(), f[5], "{name}");
                seen[3] += 1;
            }
            other => panic!("a line of kind {other}"),
        }
    }
    assert!(
        seen[0] >= 25 && seen[1] >= 15 && seen[2] >= 3 && seen[3] >= 10,
        "{seen:?}"
    );
}

fn arb_case() -> impl proptest::strategy::Strategy<Value = (Table, Vec<Val>, usize)> {
    use proptest::prelude::*;
    (any::<u64>(), 0..60usize, 0..40usize).prop_map(|(seed, n, count)| {
        let (table, vals) = random_case(&mut SplitMix(seed), n);
        (table, vals, count)
    })
}

proptest::proptest! {
    #[test]
    fn every_case_round_trips((table, vals, count) in arb_case()) {
        let bytes = encode(&table, count, &vals).unwrap();
        proptest::prop_assert!(bytes.len() >= 2 + floor_len(count));
        proptest::prop_assert_eq!(usize::from(u16::from_le_bytes([bytes[0], bytes[1]])), bytes.len() - 2);
        proptest::prop_assert_eq!(decode(&table, count, &vals, &bytes).unwrap(), vals);
    }

    /// Any bytes, read as any case's models: no panic, an error within the input, and a body
    /// that is accepted is the one the encoder writes for what it read.
    #[test]
    fn hostile_bodies_are_refused_or_canonical(
        (table, vals, count) in arb_case(),
        stream in proptest::collection::vec(proptest::num::u8::ANY, 0..48),
        exact_len in proptest::bool::ANY,
        len in 0..64u16,
    ) {
        let len = if exact_len { stream.len() as u16 } else { len };
        let bytes = [&len.to_le_bytes()[..], &stream].concat();
        let shape: Vec<Val> = vals.iter().map(|v| v.shape()).collect();
        match decode(&table, count, &shape, &bytes) {
            Ok(back) => proptest::prop_assert_eq!(encode(&table, count, &back).unwrap(), bytes),
            Err(e) => proptest::prop_assert!(e.offset <= bytes.len()),
        }
    }

    /// An encoder's body with one byte changed, cut or lengthened: refused, or canonical.
    #[test]
    fn changed_bodies_are_refused_or_canonical(
        (table, vals, count) in arb_case(),
        at in proptest::num::usize::ANY,
        flip in 1..=255u8,
        how in 0..3u8,
    ) {
        let mut bytes = encode(&table, count, &vals).unwrap();
        match how {
            0 => {
                let i = at % bytes.len();
                bytes[i] ^= flip;
            }
            1 => {
                bytes.truncate(at % bytes.len());
            }
            _ => {
                let len = bytes.len() - 1;
                bytes.push(flip);
                bytes[..2].copy_from_slice(&u16::try_from(len).unwrap().to_le_bytes());
            }
        }
        let shape: Vec<Val> = vals.iter().map(|v| v.shape()).collect();
        match decode(&table, count, &shape, &bytes) {
            Ok(back) => proptest::prop_assert_eq!(encode(&table, count, &back).unwrap(), bytes),
            Err(e) => proptest::prop_assert!(e.offset <= bytes.len()),
        }
    }

    #[test]
    fn extrapolation_is_the_rounded_quotient(v in proptest::num::i64::ANY, num in proptest::num::u32::ANY, den in proptest::num::u32::ANY) {
        let r = extrapolate(v, num, den);
        let exact = i128::from(v) * i128::from(num);
        let den = i128::from(den.max(1));
        // |r - exact/den| <= 1/2, a tie away from zero, unless saturated.
        let diff = i128::from(r) * den - exact;
        if r != i64::MIN && r != i64::MAX {
            proptest::prop_assert!(2 * diff.abs() <= den);
            if 2 * diff.abs() == den {
                proptest::prop_assert_eq!(diff.signum(), exact.signum());
            }
        }
    }
}

proptest::proptest! {
    /// Values under 2^31 take `extrapolate`'s 64-bit path: the same quotient as 128-bit
    /// arithmetic gives, ties away from zero, at either side of the boundary.
    #[test]
    fn extrapolation_of_small_values_matches_the_wide_one(v in -(1i64 << 31) - 2..(1i64 << 31) + 2, num in proptest::num::u32::ANY, den in proptest::num::u32::ANY) {
        let p = i128::from(v) * i128::from(num);
        let d = i128::from(den.max(1));
        let q = (p.abs() * 2 + d) / (2 * d);
        let want = if p < 0 { -q } else { q };
        proptest::prop_assert_eq!(i128::from(extrapolate(v, num, den)), want);
    }
}

/// The cost meter prices the bits the encoder writes: over seeded frames its total rounded up
/// is within the coder's flush (the five bytes `finish` shifts out, less the first) of the
/// stream's own length, never short of it by more than a byte's rounding.
#[test]
fn the_cost_is_what_the_stream_spends() {
    let mut rng = SplitMix(7);
    for n in [1usize, 5, 40, 300] {
        let (table, vals) = random_case(&mut rng, n);
        let mut probs = table.probs();
        let mut enc = CodedEncoder::new(&mut probs);
        let mut cost = CodedCost::new(&table.probs());
        for v in &vals {
            v.put(&mut enc).unwrap();
            v.put(&mut cost).unwrap();
        }
        let mut out = Vec::new();
        enc.finish(0, &mut out).unwrap();
        let stream_bits = (out.len() - 2) as f64 * 8.0;
        assert!(
            cost.total() <= stream_bits + 8.0 && stream_bits <= cost.total() + 40.0,
            "{n} values: {} bits priced, {stream_bits} written",
            cost.total()
        );
    }
}

/// The decoder's offset is a frame offset inside the stream: at its start before the first
/// value, moving on as values are read, never past the stream's end.
#[test]
fn the_offset_follows_the_stream() {
    let table = Table::flat(model_slots(16), 2048);
    let vals: Vec<Val> = (0..200u64)
        .map(|v| Val::parse(&format!("u0:16={}", v * 311 % 65536)))
        .collect();
    let body = encode(&table, 0, &vals).unwrap();
    let mut frame = vec![0xaa; 5];
    frame.extend_from_slice(&body);
    let mut r = Reader::new(&frame);
    r.take(5).unwrap();
    let mut probs = table.probs();
    let mut dec = CodedDecoder::new(&mut r, 0, &mut probs).unwrap();
    let first = dec.offset();
    assert!((7..=11).contains(&first), "{first}");
    let mut last = first;
    for _ in 0..vals.len() {
        dec.value(0, 16).unwrap();
        assert!(dec.offset() >= last);
        last = dec.offset();
    }
    assert!(last > first + 100, "{first} to {last}");
    assert!(last <= frame.len());
    dec.finish().unwrap();
}
