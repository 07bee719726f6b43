//! # ackwire-conformance
//!
//! The conformance suite as a library: golden vectors, the network simulator, the stream
//! sessions, the testee protocol's client and server, the runner that drives an
//! implementation under test, its reports, `explain` and differential fuzzing. The `ackwire`
//! command-line tool (crate `ackwire`) parses its arguments and calls this crate; the bench is
//! `ackwire-bench`. No command-line dependency (clap, indicatif) comes with it: progress goes
//! through callbacks ([`conform::Progress`], the closures of [`diff::run`] and
//! [`runner::run`]).
//!
//! - [`vectors`] (with the cases kept in code, [`vectors::frame_cases`]) and [`streams`]: the
//!   frame and stream vector files, written, read and verified;
//! - [`frame_json`]: frames chosen by name, to and from their JSON form, and [`coded`]: the
//!   coded frame (kind 13), read and written against the basis its JSON names;
//! - [`netsim`] (`ackwire-sim`'s network, re-exported) and [`sessions`]: the simulated network, and every seed protocol's session
//!   halves as the stream vectors record and replay them;
//! - [`testee_client`]: the testee protocol's client, a testee as a child process
//!   ([`testee_client::TesteeProcess`]) and a session half inside it;
//! - [`testee_server`]: the testee protocol served over the Rust codec (`ackwire testee`);
//! - [`runner`], [`conform`] and [`report`]: the cases run against a testee and judged, the
//!   suite read from a vectors folder, and the table, JUnit XML and JSON reports;
//! - [`diff`]: differential fuzzing against other testees;
//! - [`explain`]: one row per field of a frame's bytes;
//! - [`coverage`]: which rules of the specification (`docs/spec/`) are enforced and tested
//!   where, in every language (`ackwire spec-coverage`);
//! - [`interp`]: the run-time codec of any spec, walking its lowering (`--spec`),
//!   [`spec_arg`]: the spec a command works on, named by `--spec` or the reference protocol,
//!   and [`judge`]: what a run holds testees to, the compiled codec of the reference protocol
//!   or the run-time codec of another spec.
//!
//! What this crate is not: a codec to ship. It drives `ackwire-codec` and external
//! implementations and judges them against the vectors; its run-time codec is a second reading
//! of a spec for tools and tests, not a replacement for the generated ones.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod coded;
pub mod conform;
pub mod coverage;
pub mod diff;
pub mod explain;
pub mod frame_json;
pub mod interp;
pub mod judge;
pub mod netsim;
pub mod report;
pub mod runner;
pub mod sessions;
pub mod spec_arg;
pub mod streams;
pub mod testee_client;
pub mod testee_server;
pub mod vectors;
