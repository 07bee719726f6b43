//! # ackwire-conformance
//!
//! The conformance suite and the `ackwire` command-line tool: golden vectors, the network
//! simulator, the runner that drives an implementation under test, and its reports.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
