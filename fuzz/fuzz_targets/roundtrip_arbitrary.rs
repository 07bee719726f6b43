//! Structured fuzzing: the fuzzer's bytes build one value of every frame through the generated
//! `Arbitrary` impls (which only build encodable values); each must encode, `encoded_len` must
//! predict the bytes, the bytes must decode back to the same value, and those bytes must pass
//! the decode/re-encode check the `decode_*` targets run.
#![no_main]

use ackwire_codec::protocol::{visit_arbitrary_frame, FRAME_NAMES};
use ackwire_codec::rt::ArbitraryFrameVisitor;
use ackwire_codec::Frame;
use arbitrary::{Arbitrary, Unstructured};

struct RoundTrip<'a>(&'a [u8]);

impl ArbitraryFrameVisitor for RoundTrip<'_> {
    type Output = ();

    fn visit<F: Frame + for<'a> Arbitrary<'a>>(self) {
        let Ok(value) = F::arbitrary(&mut Unstructured::new(self.0)) else {
            return;
        };
        let bytes = match value.to_bytes() {
            Ok(bytes) => bytes,
            Err(e) => panic!("{}: arbitrary value does not encode: {e}\n{value:?}", F::NAME),
        };
        assert_eq!(value.encoded_len(), bytes.len(), "{}: encoded_len\n{value:?}", F::NAME);
        match F::decode(&bytes) {
            Ok(back) => assert_eq!(back, value, "{}: value -> bytes -> value\n{bytes:02x?}", F::NAME),
            Err(e) => panic!("{}: encoded bytes do not decode: {e}\n{value:?}\n{bytes:02x?}", F::NAME),
        }
        ackwire_codec::fuzzing::decode_reencode::<F>(&bytes);
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Every frame is built from the same bytes, so one input exercises all of them.
    for name in FRAME_NAMES {
        assert!(
            visit_arbitrary_frame(name, RoundTrip(data)).is_some(),
            "{name}: no such frame"
        );
    }
});
