//! # ackwire-codec
//!
//! The encoders and decoders of the ackwire reference protocol, generated at build time from
//! `spec/protocol` by `ackwire-spec`, and the sans-IO session machines that give the frames
//! their meaning. The small runtime the generated code calls, with the error taxonomy, is the
//! crate `ackwire-rt`, re-exported here as [`rt`] (and its errors at the root), so that a crate
//! with a layout of its own depends on that runtime alone.
//!
//! ## What a decoder may allocate
//!
//! WIRE-26: no input makes a decoder allocate more than a stated small multiple of its
//! length. For the reference protocol that multiple is
//! [`DECODE_ALLOC_PER_BYTE`]: decoding `n` bytes as any frame holds at most
//! `DECODE_ALLOC_PER_BYTE * n + DECODE_ALLOC_SLACK` bytes of heap at once, whether the input
//! decodes or not. It holds because a decoder checks every count against the least wire size
//! of an element before it allocates the list (`spec/LANGUAGE.md`, "Canonical decoding"), so
//! the memory a list takes is bounded by the bytes that must follow it. The largest ratio is
//! kind 12's: a change takes 9 bits on the wire (a gap of 1 and an empty mask) and 48 bytes
//! decoded (the generated `PackedChange` boxes its two pose forms), 42.7 to 1 (the snapshot's
//! entry, 96 bytes for 20 bits, is 38.4 to 1).
//! `tests/decode_alloc.rs` holds every frame to the limit, over every golden vector, every
//! truncation of one, the fuzz corpus and crafted counts, counting allocations.
//!
//! ## One sans-IO shape
//!
//! Every session machine's client and server half is driven the same way, in the manner of
//! `quinn-proto`'s `Connection` ([`session::SessionHalf`]): a peer's frame goes in by name and
//! bytes with the time as an argument (`handle_frame(now, frame, bytes)`, returning the half's
//! report or a [`session::SessionError`]); a tick passing goes in with what the half's world is
//! then (`handle_tick(now, input)`: the world for a server half, `()` or the player's input for
//! a client's); and what the half sends is polled (`poll_transmit()`, a [`session::Transmit`]
//! of frame name, bytes and channel, until `None`). "Now" is a [`session::Now`]: the server
//! tick and milliseconds on the session's clock; each machine reads the one it is defined in.
//! The halves are in [`session`] (acked, datagram, baseline and delta, client and server); the
//! machines' typed-frame methods stay reachable through each half's `machine_mut()`.
//!
//! ```
//! use ackwire_codec::delta::{DeltaBaseline, DeltaMirror};
//! use ackwire_codec::session::{DeltaClient, DeltaServer, Now, SessionHalf};
//! use std::collections::BTreeSet;
//!
//! let mut server = DeltaServer::new(DeltaBaseline::new(32));
//! let mut client = DeltaClient::new(DeltaMirror::new());
//! let now = Now::new(1, 20);
//! server.handle_tick(now, &BTreeSet::from([7, 9])).unwrap();
//! while let Some(t) = server.poll_transmit() {
//!     let applied = client.handle_frame(now, t.frame, &t.bytes).unwrap();
//!     assert_eq!(applied.entered, 2);
//! }
//! let ack = client.poll_transmit().expect("the client acknowledges the plan");
//! let report = server.handle_frame(now, ack.frame, &ack.bytes).unwrap();
//! assert!(!report.stalled);
//! ```
//!
//! What this crate is not: a network stack. It opens no socket, reads no clock and starts no
//! thread; time and ticks are arguments (GEN-4). It is also not a server: a browser or native
//! client needs it and must not inherit a server (SRV-1).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod acked;
pub mod baseline;
pub mod datagram;
pub mod delta;
pub mod digest;
pub mod error;
pub mod fuzzing;
pub mod interp;
pub mod session;
pub mod tier;

/// The runtime the generated code calls: the crate `ackwire-rt`, re-exported.
pub use ackwire_rt as rt;

pub use error::{DecodeError, EncodeError, ErrorKind, LimitError};

/// The most heap bytes a decoder of the reference protocol holds at once per byte of its input
/// (see the crate docs); a layout whose decoded elements are larger for their wire size than
/// kind 12's change (48 bytes for 9 bits, its pose forms boxed) would need this raised.
pub const DECODE_ALLOC_PER_BYTE: usize = 48;

/// Heap bytes a decoder may hold beyond [`DECODE_ALLOC_PER_BYTE`] times its input's length,
/// whatever the length: an error's field path (a few segments), which an empty input can
/// already cost.
pub const DECODE_ALLOC_SLACK: usize = 256;
pub use rt::{BitSet, Frame, FrameVisitor};

/// The reference protocol's frames, records, bit sets, unions and constants, generated from
/// `spec/protocol/*.wire` at build time.
pub mod protocol {
    include!(concat!(env!("OUT_DIR"), "/protocol.rs"));
}
