//! # ackwire-spec
//!
//! The ackwire layout language: the text in which every ackwire frame is written, and the
//! machinery around it.
//!
//! - [`parse`] reads a `.wire` file into the [`model`] (nom 8), reporting every error it can
//!   find as a [`diag::Diagnostic`] located at file:line:col;
//! - [`validate`] checks a whole [`model::Spec`] (names, order, widths, bits, kinds);
//! - [`fmt`] prints a model back as canonical text;
//! - the generators (later steps) compile a validated spec into codecs.
//!
//! The language itself is described in `LANGUAGE.md` beside this crate.
//!
//! What this crate is not: a codec. It never sees a frame's bytes; `ackwire-codec` holds the
//! runtime the generated code calls.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diag;
pub mod fmt;
pub mod model;
pub mod parse;
pub mod validate;
