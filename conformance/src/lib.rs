//! # ackwire-conformance
//!
//! The conformance suite and the `ackwire` command-line tool: golden vectors, the network
//! simulator, the runner that drives an implementation under test, and its reports.
//!
//! What this crate is not: a codec. It drives `ackwire-codec` and external implementations
//! and judges them against the vectors.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diff;
pub mod explain;
pub mod frame_json;
pub mod netsim;
pub mod report;
pub mod runner;
pub mod sessions;
pub mod streams;
pub mod testee_client;
pub mod testee_server;
pub mod vectors;
