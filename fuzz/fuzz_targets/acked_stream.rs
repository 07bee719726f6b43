//! An arbitrary world script and network schedule through the acked stream: every state the client shows equals the ordered client's (GEN-3), events once, convergence after healing, bounded memory (`ackwire_server::acked::harness`); then the same bytes as hostile frames to the client's decoder (`ackwire_codec::fuzzing::acked_hostile`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_server::acked::harness::fuzz_one(data));
