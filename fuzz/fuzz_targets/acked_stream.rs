//! An arbitrary world script and network schedule through the acked stream: every state the client shows equals the ordered client's, events once, convergence after healing, bounded memory (`ackwire_server::acked::harness`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ackwire_server::acked::harness::fuzz_one(data));
