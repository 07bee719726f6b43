//! The shared traits and the digest are the codec crate's own items, re-exported, not copies
//! (SRV-1): one impl of `Interpolatable` serves a client buffer and the server's rewind,
//! and both ends of a stream fold the same `SetDigest`.

use std::time::Duration;

use ackwire_codec::digest::SetDigest as CodecDigest;
use ackwire_codec::interp::Interpolatable as CodecInterpolatable;
use ackwire_server::relevance::{SetDigest, VisibilitySet};
use ackwire_server::{render_error_at, HistoricalStateBuffer, Interpolatable, ToF32};

/// A snapshot type a game would write once, against the codec crate's trait.
#[derive(Clone, Debug, PartialEq)]
struct Pose {
    x: f32,
    y: f32,
}

impl CodecInterpolatable<u64> for Pose {
    fn interpolate(&self, other: &Self, fraction: f32) -> Self {
        Pose {
            x: self.x + (other.x - self.x) * fraction,
            y: self.y + (other.y - self.y) * fraction,
        }
    }
}

fn takes_server_trait<T: Interpolatable<u64>>(a: &T, b: &T) -> T {
    a.interpolate(b, 0.5)
}

#[test]
fn one_interpolatable_impl_serves_both_crates() {
    let a = Pose { x: 0.0, y: 0.0 };
    let b = Pose { x: 10.0, y: 20.0 };
    assert_eq!(takes_server_trait(&a, &b), Pose { x: 5.0, y: 10.0 });

    let mut history = HistoricalStateBuffer::new(16);
    history.record_state("ship", 1_000_u64, a);
    history.record_state("ship", 1_100_u64, b);
    assert_eq!(
        history.get_state_at_or_before(&"ship", 1_025),
        Some(Pose { x: 2.5, y: 5.0 })
    );
    let error = render_error_at(
        &history,
        1_050,
        [
            ("ship", Pose { x: 5.0, y: 13.0 }),
            ("ghost", Pose { x: 0.0, y: 0.0 }),
        ],
        |truth, drawn| (truth.x - drawn.x).hypot(truth.y - drawn.y),
    );
    assert_eq!(error.samples(), 1);
    assert_eq!(error.mean(), 3.0);
}

#[test]
fn to_f32_covers_u64_and_duration() {
    fn ratio<T: ToF32>(a: T, b: T) -> f32 {
        a.to_f32() / b.to_f32()
    }
    assert_eq!(ratio(25_u64, 100), 0.25);
    assert_eq!(
        ratio(Duration::from_millis(25), Duration::from_millis(100)),
        0.25
    );
}

#[test]
fn set_digest_is_the_codec_crates_type() {
    let server_side: SetDigest = SetDigest::from_keys([1, 2, 3]);
    let client_side: CodecDigest = server_side;
    assert_eq!(
        client_side.digest(),
        CodecDigest::from_keys([3, 2, 1]).digest()
    );
    let root: ackwire_server::SetDigest = client_side;
    let visible: VisibilitySet = [1, 2, 3].into_iter().collect();
    assert_eq!(visible.digest(), root.digest());
}
