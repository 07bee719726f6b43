//! Any bytes the `acked` decoder accepts re-encode to exactly those bytes, with a matching `encoded_len` (WIRE-21); the AckedDecoder's own read of them (`decode_staged`) gives the same frame or error (`ackwire_codec::fuzzing::decode_acked`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::decode_acked(data));
