//! # ackwire-codec
//!
//! The encoders and decoders of the ackwire reference protocol, generated at build time from
//! `spec/protocol` by `ackwire-spec`, the small runtime they call, and the sans-IO session
//! machines that give the frames their meaning.
//!
//! What this crate is not: a network stack. It opens no socket, reads no clock and starts no
//! thread; time and ticks are arguments. It is also not a server: a browser or native client
//! needs it and must not inherit a server (seed 004, section 1).

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
pub mod rt;

pub use error::{DecodeError, EncodeError, ErrorKind, LimitError};
pub use rt::{Frame, FrameVisitor};

// The generated code names the runtime by its crate path, as a user's crate would.
extern crate self as ackwire_codec;

/// The reference protocol's frames, records, bit sets, unions and constants, generated from
/// `spec/protocol/*.wire` at build time.
pub mod protocol {
    include!(concat!(env!("OUT_DIR"), "/protocol.rs"));
}
