//! Property tests over every frame of the reference protocol: any value the encoder accepts
//! comes back identical through bytes and through JSON, and `encoded_len` predicts the bytes.
//!
//! Values come from the generated `Arbitrary` impls, which only build encodable values, fed by
//! proptest's random bytes (so failures shrink).

use ackwire_codec::protocol::{visit_arbitrary_frame, FRAME_NAMES};
use ackwire_codec::rt::ArbitraryFrameVisitor;
use ackwire_codec::Frame;
use proptest::prelude::*;

struct RoundTrip<'a>(&'a [u8]);

impl ArbitraryFrameVisitor for RoundTrip<'_> {
    type Output = Result<(), TestCaseError>;

    fn visit<F: Frame + for<'a> arbitrary::Arbitrary<'a>>(self) -> Self::Output {
        let mut u = arbitrary::Unstructured::new(self.0);
        let Ok(value) = F::arbitrary(&mut u) else {
            return Ok(());
        };
        let bytes = value.to_bytes().map_err(|e| {
            TestCaseError::fail(format!("{}: {value:?} does not encode: {e}", F::NAME))
        })?;
        prop_assert_eq!(bytes.len(), value.encoded_len(), "{}: encoded_len", F::NAME);
        let back = F::decode(&bytes).map_err(|e| {
            TestCaseError::fail(format!("{}: {bytes:02x?} does not decode: {e}", F::NAME))
        })?;
        prop_assert_eq!(&back, &value, "{}: value -> bytes -> value", F::NAME);
        let json = serde_json::to_string(&value).unwrap();
        let from_json: F = serde_json::from_str(&json).map_err(|e| {
            TestCaseError::fail(format!("{}: {json} does not read back: {e}", F::NAME))
        })?;
        prop_assert_eq!(&from_json, &value, "{}: value -> JSON -> value", F::NAME);
        Ok(())
    }
}

/// Mutates a valid frame's bytes; whatever still decodes must re-encode to the mutated bytes
/// exactly (WIRE-21: every input a decoder accepts re-encodes to the same bytes).
struct Canonical<'a> {
    seed: &'a [u8],
    at: usize,
    xor: u8,
    cut: bool,
}

impl ArbitraryFrameVisitor for Canonical<'_> {
    type Output = Result<bool, TestCaseError>;

    fn visit<F: Frame + for<'a> arbitrary::Arbitrary<'a>>(self) -> Self::Output {
        let mut u = arbitrary::Unstructured::new(self.seed);
        let Ok(value) = F::arbitrary(&mut u) else {
            return Ok(false);
        };
        let mut bytes = value.to_bytes().unwrap();
        if bytes.is_empty() {
            return Ok(false);
        }
        let at = self.at % bytes.len();
        if self.cut {
            bytes.truncate(at);
        } else {
            bytes[at] ^= self.xor.max(1);
        }
        match F::decode(&bytes) {
            Ok(frame) => {
                let again = frame.to_bytes().map_err(|e| {
                    TestCaseError::fail(format!(
                        "{}: decoded {frame:?} does not encode: {e}",
                        F::NAME
                    ))
                })?;
                prop_assert_eq!(
                    again,
                    bytes,
                    "{}: accepted bytes re-encode differently",
                    F::NAME
                );
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_frame_round_trips(seed in proptest::collection::vec(any::<u8>(), 0..2048)) {
        for name in FRAME_NAMES {
            visit_arbitrary_frame(name, RoundTrip(&seed)).expect("every listed frame is visitable")?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn accepted_mutations_re_encode_identically(
        seed in proptest::collection::vec(any::<u8>(), 0..1024),
        at in any::<usize>(),
        xor in any::<u8>(),
        cut in any::<bool>(),
    ) {
        for name in FRAME_NAMES {
            visit_arbitrary_frame(name, Canonical { seed: &seed, at, xor, cut }).unwrap()?;
        }
    }
}

#[test]
fn every_frame_is_listed_once() {
    let mut names = FRAME_NAMES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), FRAME_NAMES.len());
    assert_eq!(
        FRAME_NAMES,
        [
            "acked",
            "acked_packed",
            "ack",
            "snapshot",
            "snapshot_ack",
            "datagram",
            "spawn",
            "despawn",
            "full_frame",
            "datagram_ack",
            "delta_plan",
            "delta_ack"
        ]
    );
}
