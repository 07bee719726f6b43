//! Structured fuzzing: the fuzzer's bytes build one value of every frame through the generated
//! `Arbitrary` impls (which only build encodable values); each must encode, `encoded_len` must
//! predict the bytes, the bytes must decode back to the same value, and those bytes must pass
//! the decode/re-encode check the `decode_*` targets run (WIRE-21)
//! (`ackwire_codec::fuzzing::roundtrip_arbitrary`, which `cargo test` replays the corpus through).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::roundtrip_arbitrary(data));
