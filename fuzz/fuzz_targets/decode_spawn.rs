//! Any bytes the `spawn` decoder accepts re-encode to exactly those bytes, with a matching `encoded_len` (WIRE-21).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::decode_reencode::<ackwire_codec::protocol::Spawn>(data));
