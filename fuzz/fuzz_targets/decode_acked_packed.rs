//! Any bytes the `acked_packed` decoder (kind 12) accepts re-encode to exactly those bytes, with a matching `encoded_len` (WIRE-21); any frame the bit-packed schema decodes encodes back to them, and through kind 6 back to the same frame (`ackwire_codec::fuzzing::decode_acked_packed`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::decode_acked_packed(data));
