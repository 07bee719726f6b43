//! Session machines behind one interface: what the testee protocol's session ops drive, what
//! the stream recorder runs through the network simulator, and what stream vectors replay.
//!
//! Each seed protocol has a server half and a client half, opened by name
//! (`acked_server`, `acked_client`, `datagram_server`, ...). The machines themselves live in
//! the codec and are sans-IO, each half driven through the one shape
//! [`ackwire_codec::session::SessionHalf`]; the adapters here only translate the testee
//! protocol's JSON (world ops, reports, errors as text) into its calls, and every adapter's
//! [`Session::take`] is its half's `poll_transmit` drained.

pub mod acked;
pub mod baseline;
pub mod datagram;
pub mod delta;
pub mod state;
pub mod stream;

use ackwire_codec::session::{SessionHalf, Transmit};
use serde_json::Value;

/// A frame a session wants to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The frame's name in the spec.
    pub frame: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether it goes on the reliable channel.
    pub reliable: bool,
}

impl From<Transmit> for Sent {
    fn from(t: Transmit) -> Self {
        Sent {
            frame: t.frame.into(),
            bytes: t.bytes,
            reliable: t.reliable,
        }
    }
}

/// Everything `half` has to send now, in order: [`Session::take`] of every adapter.
fn drain(half: &mut impl SessionHalf) -> Vec<Sent> {
    std::iter::from_fn(|| half.poll_transmit())
        .map(Sent::from)
        .collect()
}

/// The JSON adapters' answer to world ops given to a client half.
fn no_world(ops: &[Value]) -> Result<(), String> {
    if ops.is_empty() {
        Ok(())
    } else {
        Err(ackwire_codec::session::SessionError::NoWorld.to_string())
    }
}

/// One half of a session pair. Time and ticks are arguments; nothing reads a clock.
pub trait Session {
    /// A server tick passes and the world does `ops` (the server half; a client half answers
    /// an error).
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String>;

    /// The network delivers a frame. Returns the half's report of what the frame changed (or
    /// why it was dropped), in the session's canonical form (`conformance/PROTOCOL.md`,
    /// "Reports"), which stream vectors hold and replays compare.
    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String>;

    /// The frames the half wants to send now, in order; a second call returns nothing new.
    fn take(&mut self) -> Vec<Sent>;

    /// The FNV-1a 32 of the half's state (the client's shown state), when it has one.
    fn state_hash(&mut self) -> Option<u32>;
}

/// Every session half implemented here, by name.
pub fn names() -> Vec<&'static str> {
    [acked::NAMES, datagram::NAMES, baseline::NAMES, delta::NAMES].concat()
}

/// Opens the session half `name` with `params`.
pub fn open(name: &str, params: &Value) -> Result<Box<dyn Session>, String> {
    acked::open(name, params)
        .or_else(|| datagram::open(name, params))
        .or_else(|| baseline::open(name, params))
        .or_else(|| delta::open(name, params))
        .unwrap_or_else(|| {
            Err(format!(
                "unknown session `{name}`; the sessions are: {}",
                names().join(", ")
            ))
        })
}

/// Every stream vector the sessions define, recorded anew.
pub fn stream_vectors() -> Result<Vec<crate::streams::StreamVector>, String> {
    let mut all = Vec::new();
    all.extend(acked::stream_vectors()?);
    all.extend(datagram::stream_vectors()?);
    all.extend(baseline::stream_vectors()?);
    all.extend(delta::stream_vectors()?);
    Ok(all)
}
