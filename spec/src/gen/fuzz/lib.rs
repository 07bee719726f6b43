//!
//! The check every fuzz target of this crate makes, one body for every frame of the codec in
//! protocol.rs (in the manner of s2n-quic: a target is one line over it).
//!
//! A target decodes its input as its frame and holds the decoder to what ackwire promises of
//! every decoder: an accepted input re-encodes to exactly the same bytes, `encoded_len` agrees
//! with what `encode` wrote, and decoding holds at most [`DECODE_ALLOC_PER_BYTE`] heap bytes per
//! byte of input, plus [`DECODE_ALLOC_SLACK`], counted by the allocator this crate installs
//! (counting.rs). A broken promise panics, which the fuzzer reports with the input.

pub mod protocol;

pub mod counting;

use ackwire_rt::Frame;

#[global_allocator]
static ALLOC: counting::CountingAlloc = counting::CountingAlloc;

/// The most heap bytes decoding holds at once per byte of its input: ackwire's documented
/// multiple (`ackwire_codec::DECODE_ALLOC_PER_BYTE`, docs/limits.md), which a layout whose
/// decoded values are much larger than their bytes would exceed.
pub const DECODE_ALLOC_PER_BYTE: u64 = @PER_BYTE@;

/// Heap bytes decoding may hold beyond [`DECODE_ALLOC_PER_BYTE`] times its input's length,
/// whatever the length: an error's field path.
pub const DECODE_ALLOC_SLACK: u64 = @SLACK@;

/// The check of the target of frame `F` on `data`. Panics when a promise is broken.
pub fn decode<F: Frame>(data: &[u8]) {
    let decoded = counting::measure(|| F::decode(data));
    let limit = DECODE_ALLOC_PER_BYTE
        .saturating_mul(data.len() as u64)
        .saturating_add(DECODE_ALLOC_SLACK);
    assert!(
        decoded.peak_bytes <= limit,
        "{}: decoding {} bytes held {} bytes of heap, over the limit of {limit}",
        F::NAME,
        data.len(),
        decoded.peak_bytes
    );
    let Ok(frame) = decoded.value else {
        return;
    };
    let bytes = match frame.to_bytes() {
        Ok(bytes) => bytes,
        Err(e) => panic!("{}: an accepted input does not re-encode: {e}\n{frame:?}", F::NAME),
    };
    assert_eq!(bytes, data, "{}: an accepted input re-encodes to other bytes", F::NAME);
    assert_eq!(frame.encoded_len(), data.len(), "{}: encoded_len", F::NAME);
}
