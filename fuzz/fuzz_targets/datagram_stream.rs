//! Datagram v2 end to end: a world script, a network schedule (loss, duplication, reordering,
//! stalls) and hostile frames, all from the input; the harness's invariants must hold (GEN-3, GEN-5).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ackwire_codec::datagram::harness::run(data) {
        panic!("{e}");
    }
});
