//! The Rust side of a run over any spec: what a testee's decoded values are compared with, and
//! what differential fuzzing holds every testee to. For the reference protocol it is the
//! bundled codec (`ackwire_codec::protocol`, through [`crate::frame_json`]); for a spec given
//! with `--spec`, the run-time codec walking its lowering ([`crate::interp`]), so that
//! `ackwire conform --spec` and `ackwire fuzz-diff --spec` need no build of that spec.

use crate::frame_json::{self, FrameError};
use crate::interp;
use crate::spec_arg::SpecArg;
use ackwire_spec::lower::Lowering;
use serde_json::Value;

/// The codec a run judges by.
#[derive(Debug)]
pub enum Judge<'s> {
    /// The reference protocol, through its compiled codec.
    Reference,
    /// A spec, through the run-time codec over its lowering.
    Spec(Lowering<'s>),
}

impl<'s> Judge<'s> {
    /// The judge of the spec of `arg`: the compiled codec for the reference protocol, the
    /// run-time codec for any other.
    pub fn of(arg: &'s SpecArg) -> Judge<'s> {
        if arg.reference {
            Judge::Reference
        } else {
            Judge::Spec(Lowering::new(&arg.spec))
        }
    }

    /// The snake_case names of the spec's frames, in declaration order.
    pub fn frame_names(&self) -> Vec<String> {
        match self {
            Judge::Reference => ackwire_codec::protocol::FRAME_NAMES
                .iter()
                .map(|n| n.to_string())
                .collect(),
            Judge::Spec(low) => low
                .frames()
                .iter()
                .map(|(r, _)| ackwire_spec::gen::snake_case(&r.name))
                .collect(),
        }
    }

    /// `bytes` decoded as the frame named `frame`, in its JSON form.
    pub fn decode(&self, frame: &str, bytes: &[u8]) -> Result<Value, FrameError> {
        match self {
            Judge::Reference => frame_json::decode_json(frame, bytes),
            Judge::Spec(low) => interp::decode(low, frame, bytes).map(|v| v.to_value()),
        }
    }

    /// Whether two JSON forms of the frame named `frame` are the same value once read into the
    /// frame's model (so `0.1` and `0.10000000149011612` are the same `f32`).
    pub fn same_value(&self, frame: &str, a: &Value, b: &Value) -> Result<bool, FrameError> {
        match self {
            Judge::Reference => frame_json::same_value(frame, a, b),
            Judge::Spec(low) => interp::same_value(low, frame, a, b),
        }
    }
}
