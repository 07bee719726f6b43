//! Both halves of a delta stream (`docs/spec/delta.md`) through an arbitrary world script, network
//! schedule, forged acknowledgements and forged plans: the mirror converges once the network heals,
//! memory stays bounded, nothing panics (GEN-3, GEN-5).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ackwire_codec::delta::harness::run(data);
});
