//! Both halves of a delta stream (seed 004 §7) through an arbitrary world script, network schedule, forged acknowledgements and forged plans: the mirror converges once the network heals, memory stays bounded, nothing panics.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ackwire_codec::delta::harness::run(data);
});
