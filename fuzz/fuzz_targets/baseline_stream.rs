//! NetBaseline end to end: a world script, a network schedule (loss, duplication, reordering,
//! stalls past ACK_WINDOW, the u16 wrap) and hostile frames, all from the input; the harness's
//! invariants must hold (GEN-3, GEN-5).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ackwire_codec::baseline::harness::run(data) {
        panic!("{e}");
    }
});
