//! Harnesses shared by the fuzz targets and the tests that replay their corpus: one body serves
//! both, as in s2n-quic, so a past finding stays a regression test without cargo-fuzz.

use crate::rt::{Frame, FrameVisitor};

mod acked;
pub use acked::{acked_hostile, apply_one_by_one, HostileReport};

/// A fuzz input read a byte at a time, as the stream harnesses (acked, datagram, baseline)
/// draw their choices from it: zeros once it is used up, so every input, however short, is a
/// whole run and the fuzzer's mutations stay local.
pub(crate) struct ByteSource<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteSource<'a> {
    /// A source at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        ByteSource { data, pos: 0 }
    }

    /// The next byte; 0 past the end.
    pub(crate) fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// The next two bytes, little endian.
    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next four bytes, little endian.
    pub(crate) fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// Whether every byte of the input has been read.
    pub(crate) fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// An index below `len` chosen by the next byte; `None` (reading nothing) when `len` is 0.
    pub(crate) fn pick(&mut self, len: usize) -> Option<usize> {
        (len > 0).then(|| usize::from(self.byte()) % len)
    }
}

/// Decodes `data` as frame `F`; when it decodes, re-encoding must give back exactly `data`
/// and `encoded_len` must predict it (DESIGN.md section 3: "every accepted input re-encodes to
/// the identical bytes"). Panics otherwise, which is what a fuzzer reports.
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
