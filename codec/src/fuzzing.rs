//! Harnesses shared by the fuzz targets and the tests that replay their corpus: one body serves
//! both, as in s2n-quic, so a past finding stays a regression test without cargo-fuzz.

use crate::rt::{Frame, FrameVisitor};

mod acked;
pub use acked::{acked_hostile, apply_one_by_one, HostileReport};

mod coded;
#[cfg(feature = "arbitrary")]
pub use coded::roundtrip_acked_coded;
pub use coded::{
    acked_coded_input, acked_coded_samples, check_acked_coded, decode_acked_coded,
    split_acked_coded_input, FuzzBasis, CODED_ALLOC_PER_BYTE, IN_BASE, IN_OLDER, MAX_BASIS_RECORDS,
};

/// Decodes `data` as frame `F`; when it decodes, re-encoding must give back exactly `data` and
/// `encoded_len` must predict it (WIRE-21: every input a decoder accepts re-encodes to the same
/// bytes). Panics otherwise, which is what a fuzzer reports.
pub fn decode_reencode<F: Frame>(data: &[u8]) {
    if let Ok(frame) = F::decode(data) {
        let again = match frame.to_bytes() {
            Ok(bytes) => bytes,
            Err(e) => panic!(
                "{}: accepted input does not re-encode: {e}\n{frame:?}",
                F::NAME
            ),
        };
        assert_eq!(
            again,
            data,
            "{}: accepted input re-encodes differently",
            F::NAME
        );
        assert_eq!(frame.encoded_len(), data.len(), "{}: encoded_len", F::NAME);
    }
}

/// The `decode_acked` check (kind 6): [`decode_reencode`] of the generated `Acked`, and the
/// decoder's own read (`decode_staged`, whose fast read takes each change it can straight into
/// a staged change) must give the frame [`Reference`]'s `decode_frame` gives, staged, or the
/// same error. Panics otherwise.
///
/// [`Reference`]: crate::acked::Reference
pub fn decode_acked(data: &[u8]) {
    use crate::acked::{AckedFrame, AckedSchema, Reference};
    decode_reencode::<crate::protocol::Acked>(data);
    let mut staged = AckedFrame::empty();
    let got = Reference.decode_staged(data, &mut staged).map(|()| staged);
    let want = Reference
        .decode_frame(data)
        .map(|f| crate::acked::staged(&Reference, &f));
    assert_eq!(got, want, "acked: decode_staged differs from decode_frame");
}

/// The `decode_acked_packed` check (kind 12, issue 19): [`decode_reencode`] of the generated
/// `AckedPacked`, then the schema's conversion: whatever [`PackedReference`] decodes must encode
/// back to exactly `data`, and as kind 6 (the same information) must decode back to the same
/// frame; and the decoder's own read (`decode_staged`, whose fast read takes every frame it
/// can straight into staged changes) must give that frame staged, or the same error. Panics
/// otherwise.
///
/// [`PackedReference`]: crate::acked::PackedReference
pub fn decode_acked_packed(data: &[u8]) {
    use crate::acked::{AckedFrame, AckedSchema, PackedReference, Reference};
    decode_reencode::<crate::protocol::AckedPacked>(data);
    let mut staged = AckedFrame::empty();
    let got = PackedReference
        .decode_staged(data, &mut staged)
        .map(|()| staged);
    let want = PackedReference
        .decode_frame(data)
        .map(|f| crate::acked::staged(&PackedReference, &f));
    assert_eq!(
        got, want,
        "acked_packed: decode_staged differs from decode_frame"
    );
    let Ok(frame) = PackedReference.decode_frame(data) else {
        return;
    };
    let mut again = Vec::new();
    if let Err(e) = PackedReference.encode_frame(&frame, &mut again) {
        panic!("acked_packed: a frame the schema decoded does not encode: {e}\n{frame:?}");
    }
    assert_eq!(
        again, data,
        "acked_packed: the schema re-encodes differently"
    );
    let mut wide = Vec::new();
    if let Err(e) = Reference.encode_frame(&frame, &mut wide) {
        panic!("acked_packed: a kind 12 frame has no kind 6 form: {e}\n{frame:?}");
    }
    match Reference.decode_frame(&wide) {
        Ok(back) => assert_eq!(back, frame, "acked_packed: kind 6 and back differs"),
        Err(e) => panic!("acked_packed: its kind 6 form does not decode: {e}\n{frame:?}"),
    }
}

/// [`decode_reencode`] for the frame named `name`; `false` when no frame has that name.
pub fn decode_reencode_named(name: &str, data: &[u8]) -> bool {
    struct V<'a>(&'a [u8]);
    impl FrameVisitor for V<'_> {
        type Output = ();
        fn visit<F: Frame>(self) {
            decode_reencode::<F>(self.0);
        }
    }
    crate::protocol::visit_frame(name, V(data)).is_some()
}

/// The `roundtrip_arbitrary` check: `data` builds one value of every frame through the
/// generated `Arbitrary` impls (which only build encodable values); each must encode,
/// `encoded_len` must predict the bytes, the bytes must decode back to the same value, and
/// they must pass [`decode_reencode`]. Panics otherwise.
#[cfg(feature = "arbitrary")]
pub fn roundtrip_arbitrary(data: &[u8]) {
    use crate::rt::ArbitraryFrameVisitor;
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
                Err(e) => panic!(
                    "{}: arbitrary value does not encode: {e}\n{value:?}",
                    F::NAME
                ),
            };
            assert_eq!(
                value.encoded_len(),
                bytes.len(),
                "{}: encoded_len\n{value:?}",
                F::NAME
            );
            match F::decode(&bytes) {
                Ok(back) => assert_eq!(
                    back,
                    value,
                    "{}: value -> bytes -> value\n{bytes:02x?}",
                    F::NAME
                ),
                Err(e) => panic!(
                    "{}: encoded bytes do not decode: {e}\n{value:?}\n{bytes:02x?}",
                    F::NAME
                ),
            }
            decode_reencode::<F>(&bytes);
        }
    }

    // Every frame is built from the same bytes, so one input exercises all of them.
    for name in crate::protocol::FRAME_NAMES {
        assert!(
            crate::protocol::visit_arbitrary_frame(name, RoundTrip(data)).is_some(),
            "{name}: no such frame"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FRAME_NAMES;

    #[test]
    fn junk_and_empty_inputs_pass_through() {
        for name in FRAME_NAMES {
            for data in [&[][..], &[0xff; 7], &[6, 0, 0], &[0x80; 64]] {
                assert!(decode_reencode_named(name, data));
            }
        }
        assert!(!decode_reencode_named("nope", &[]));
    }
}
