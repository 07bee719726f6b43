//! WIRE-26 for the game's own layout: its generated decoders hold at most
//! `DECODE_ALLOC_PER_BYTE` heap bytes per byte of input plus `DECODE_ALLOC_SLACK`, the promise
//! ackwire makes of every decoder (docs/limits.md), counted with the counting allocator.
//!
//! The inputs are the crafted worst cases of each acked profile: a frame of as many changes of
//! the least size as its bytes can hold, which is where a decoder holds the most for the least
//! input. Kind 12's least change is 10 bits (an id gap in `bucket(2, 4, 16)`'s first bucket and
//! an empty 7-bit mask), so its decoded change must take at most 60 bytes; kind 6's is 4 bytes
//! (a `u16` id and an empty `u16` mask).

use ackwire_codec::acked::{AckedFrame, AckedSchema};
use ackwire_codec::{DECODE_ALLOC_PER_BYTE, DECODE_ALLOC_SLACK};
use ackwire_example_game::{Arena, ArenaPacked, ArenaUpdate, PackedArena};
use ackwire_rt::Frame;

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

/// Kind 6's header up to its counts: kind, tick, base_tick, last_seq, input_buffer, and flags
/// with no check.
fn header(kind: u8) -> Vec<u8> {
    let mut bytes = vec![kind];
    bytes.extend([0; 14]);
    bytes
}

/// A kind 12 frame of `n` changes of 10 bits each: the body's `u16` count, then for each
/// change the id's gap in the first bucket (a 0 bit and 2 bits of value, 0 for the first and 1
/// after) and a 7-bit mask of zeros, padded; then an event count of 0.
fn packed_changes(n: u16) -> Vec<u8> {
    let mut bytes = header(12);
    bytes.extend(0u16.to_le_bytes());
    let mut bits: Vec<bool> = (0..16).map(|i| (n >> i) & 1 == 1).collect();
    for i in 0..n {
        bits.extend([false, i > 0, false]);
        bits.extend([false; 7]);
    }
    let mut body = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.iter().enumerate() {
        body[i / 8] |= u8::from(*b) << (i % 8);
    }
    bytes.extend(body);
    bytes.push(0);
    bytes
}

/// A kind 6 frame of `n` changes of 4 bytes each (ids 0, 1, 2, ... and an empty mask), then an
/// event count of 0.
fn changes(n: u16) -> Vec<u8> {
    let mut bytes = header(6);
    bytes.extend(0u16.to_le_bytes());
    bytes.extend(n.to_le_bytes());
    for eid in 0..n {
        bytes.extend(eid.to_le_bytes());
        bytes.extend(0u16.to_le_bytes());
    }
    bytes.push(0);
    bytes
}

/// The most heap bytes decoding `bytes` as frame `F` holds at once.
fn frame_peak<F: Frame>(bytes: &[u8]) -> u64 {
    ackwire_testkit::measure(|| F::decode(bytes).is_ok()).peak_bytes
}

/// The most heap bytes the client's `AckedDecoder` holds reading `bytes` cold with schema `S`
/// (the changes staged as they are read).
fn staged_peak<S: AckedSchema + Default>(bytes: &[u8]) -> u64 {
    let schema = S::default();
    ackwire_testkit::measure(|| {
        let mut out = AckedFrame::empty();
        schema.decode_staged(bytes, &mut out).is_ok()
    })
    .peak_bytes
}

/// Checks one measured input against the limit and remembers the worst multiple.
#[derive(Default)]
struct Limit {
    checked: usize,
    over: Vec<String>,
    worst: (f64, String),
}

impl Limit {
    fn check(&mut self, what: String, bytes: &[u8], peak: u64) {
        let limit = DECODE_ALLOC_PER_BYTE as u64 * bytes.len() as u64 + DECODE_ALLOC_SLACK as u64;
        self.checked += 1;
        let multiple =
            peak.saturating_sub(DECODE_ALLOC_SLACK as u64) as f64 / bytes.len().max(1) as f64;
        if multiple > self.worst.0 {
            self.worst = (multiple, what.clone());
        }
        if peak > limit {
            self.over.push(format!(
                "{what}: {peak} bytes for an input of {} ({:.1} times), over the limit of {limit}",
                bytes.len(),
                peak as f64 / bytes.len().max(1) as f64
            ));
        }
    }
}

#[test]
fn crafted_frames_of_the_least_changes_stay_within_the_limit() {
    assert!(ackwire_testkit::is_counting());
    let mut limit = Limit::default();
    for n in [u16::MAX, 1000, 7, 1] {
        let packed = packed_changes(n);
        let update = changes(n);
        // Whole, cut short by a byte (the count then claims more than the bytes hold, or the
        // last change is cut), and with a trailing byte (room for the count check to pass).
        let mut longer = packed.clone();
        longer.push(0);
        for (what, bytes) in [
            ("whole", &packed[..]),
            ("cut by a byte", &packed[..packed.len() - 1]),
            ("with a trailing byte", &longer[..]),
        ] {
            let what = format!("kind 12, {n} empty changes, {what}");
            limit.check(
                format!("{what} (ArenaPacked::decode)"),
                bytes,
                frame_peak::<ArenaPacked>(bytes),
            );
            limit.check(
                format!("{what} (PackedArena staged)"),
                bytes,
                staged_peak::<PackedArena>(bytes),
            );
        }
        let what = format!("kind 6, {n} empty changes");
        limit.check(
            format!("{what} (ArenaUpdate::decode)"),
            &update,
            frame_peak::<ArenaUpdate>(&update),
        );
        limit.check(
            format!("{what} (Arena staged)"),
            &update,
            staged_peak::<Arena>(&update),
        );
    }
    // The crafted frames are valid: the worst case measured is one the decoder accepts.
    assert!(ArenaPacked::decode(&packed_changes(u16::MAX)).is_ok());
    assert!(ArenaUpdate::decode(&changes(u16::MAX)).is_ok());
    // The measured multiple, for `--nocapture` (docs/limits.md quotes it).
    eprintln!(
        "worst: {:.1} times the input ({}); a decoded packed change takes {} bytes",
        limit.worst.0,
        limit.worst.1,
        std::mem::size_of::<ackwire_example_game::PackedEntityChange>()
    );
    assert_eq!(limit.checked, 32);
    assert!(
        limit.over.is_empty(),
        "over {DECODE_ALLOC_PER_BYTE} times the input + {DECODE_ALLOC_SLACK}:\n{}",
        limit.over.join("\n")
    );
}
