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

pub mod digest;
pub mod error;
pub mod interp;
pub mod rt;

pub use error::{DecodeError, EncodeError, ErrorKind};
