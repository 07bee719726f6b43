//! The checked-in stream vectors (`vectors/streams/<session>/*.json`) hold against this crate's
//! own sessions: both halves of every vector replay and do what it records. It is the check
//! `ackwire vectors` (and so `scripts/conform.sh`) runs, through the same library function, so
//! a plain `cargo test` catches a session that no longer does what its vectors say.
//!
//! The files are regenerated with `ackwire vectors --write`; a change is a change of what a
//! session sends or shows, and its commit says so.

use ackwire_conformance::streams::{self, Action, StreamVector};
use ackwire_conformance::vectors;
use std::path::Path;

fn checked_in() -> Vec<StreamVector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/streams");
    streams::read_streams(&dir).unwrap_or_else(|e| panic!("reading the stream vectors: {e}"))
}

#[test]
fn every_checked_in_stream_vector_replays_on_the_rust_sessions() {
    let all = checked_in();
    for session in ["acked", "datagram", "baseline", "delta"] {
        assert!(
            all.iter().any(|v| v.session == session),
            "no stream vector of session `{session}`"
        );
    }
    let failures = vectors::verify_stream_vectors(&all);
    assert!(
        failures.is_empty(),
        "{} of {} stream vectors fail:\n{}",
        failures.len(),
        all.len(),
        vectors::failure_lines(&failures)
    );
}

/// The check is only worth running if it can fail: one changed byte of what a half must send,
/// or of the client's state hash, in one vector of each session, is reported under that
/// vector's name.
#[test]
fn a_vector_that_says_otherwise_is_reported() {
    let all = checked_in();
    for session in ["acked", "datagram", "baseline", "delta"] {
        let original = all.iter().find(|v| v.session == session).unwrap();
        let mut sent = original.clone();
        let step = sent
            .steps
            .iter_mut()
            .find(|s| !s.expect.sent.is_empty())
            .unwrap_or_else(|| panic!("{}: nothing is ever sent", original.name));
        let frame = &mut step.expect.sent[0];
        // The last byte's low bit: still hex, still the same length, another frame.
        let flipped = frame.hex.pop().and_then(|c| c.to_digit(16)).unwrap() ^ 1;
        frame.hex.push(char::from_digit(flipped, 16).unwrap());
        let mut hash = original.clone();
        let step = hash
            .steps
            .iter_mut()
            .find(|s| s.expect.client_hash.is_some() && matches!(s.action, Action::Deliver { .. }))
            .unwrap_or_else(|| panic!("{}: no client state hash", original.name));
        step.expect.client_hash = step.expect.client_hash.map(|h| h ^ 1);
        let failures = vectors::verify_stream_vectors(&[sent, hash]);
        assert_eq!(failures.len(), 2, "{}: {failures:?}", original.name);
        assert!(failures.iter().all(|f| f.name == original.name));
        assert!(failures[0].why.contains("expected to send"), "{failures:?}");
        assert!(
            failures[1].why.contains("expected client state hash"),
            "{failures:?}"
        );
    }
}
