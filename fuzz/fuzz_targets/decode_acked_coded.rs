//! Kind 13 (issue 39): the input is a small basis (base and older-snapshot records) then a
//! coded frame's bytes; decoded against that basis, a frame holds at most CODE-4's 8 changes in
//! 10 stream bytes, names its basis in its prefix, and re-encodes against the same basis to
//! exactly the bytes read (`ackwire_codec::fuzzing::decode_acked_coded`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_codec::fuzzing::decode_acked_coded(data));
