//! The acked stream's invariant over thousands of seeded runs (GEN-3): under any loss, duplication
//! and reordering, every state the client shows equals the ordered client's state at that tick,
//! record for record; every event is shown once unless it expired unacknowledged; once the network
//! heals the client shows the newest frame within two ticks; both sides' memory stays within their
//! rings. `ackwire_server::acked::harness::run` checks all of it at every step.

use ackwire_server::acked::harness::{from_bytes, from_seed, run, Shape};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn every_shown_state_is_the_ordered_clients(
        seed in any::<u64>(),
        ticks in 1u32..90,
        entities in 1u16..8,
        loss in 0.0f64..0.7,
        duplicate in 0.0f64..0.3,
        jitter in 0u32..12,
        churn in 0.0f64..0.08,
        events in 0.0f64..0.7,
        heal_at in 0u32..120,
    ) {
        let shape = Shape { ticks, entities, loss, duplicate, jitter, churn, events, heal_at };
        let scenario = from_seed(shape, seed);
        if let Err(broken) = run(&scenario) {
            return Err(TestCaseError::fail(format!("{shape:?} seed {seed}: {broken}")));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The fuzz target's input decoding, on arbitrary bytes.
    #[test]
    fn arbitrary_bytes_describe_a_stream_that_holds(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Err(broken) = run(&from_bytes(&data)) {
            return Err(TestCaseError::fail(broken));
        }
    }
}

#[test]
fn a_burst_longer_than_sent_ring_recovers_by_keyframe() {
    let mut s = from_seed(
        Shape {
            ticks: 150,
            loss: 0.0,
            duplicate: 0.0,
            jitter: 0,
            ..Shape::default()
        },
        9,
    );
    // Frames 40..=100 all lost: the ack base leaves the server's ring.
    s.down = (0..=150)
        .map(|i| ackwire_server::acked::harness::Fate {
            lost: (40..=100).contains(&i),
            delay: 1,
            dup: None,
        })
        .collect();
    let out = run(&s).unwrap();
    assert!(out.keyframes >= 3, "{out:?}");
}

#[test]
fn half_the_frames_lost_both_ways_still_converges() {
    for seed in 0..50 {
        let s = from_seed(
            Shape {
                loss: 0.5,
                jitter: 6,
                ..Shape::default()
            },
            seed,
        );
        let out = run(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(out.shown > 0);
    }
}
