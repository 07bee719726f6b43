//! Structured fuzzing of kind 13 (issue 39): the fuzzer's bytes build a kind 12 frame (the
//! `arbitrary` feature, encodable values only), an `older` and a basis; taken as kind 13 it must
//! write, read back to itself against the same basis and pass the `decode_acked_coded` check
//! (`ackwire_codec::fuzzing::roundtrip_acked_coded`, which `cargo test` replays the corpus
//! through).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::roundtrip_acked_coded(data));
