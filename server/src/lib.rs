//! # ackwire-server
//!
//! The server half of the plaza netcode primitives (seed 004): history and rewind, relevance,
//! aggregation, input scheduling, seats and rosters, rate meters and one-shot ops. Pure logic
//! with no clock, no socket and no thread: every time is an argument.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
