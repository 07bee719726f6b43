//! The run-time codec of any spec: a frame decoded to its JSON form and encoded from it by
//! walking the lowering ([`ackwire_spec::lower`]), with nothing generated or built. What
//! `ackwire decode`, `encode` and `explain` do with `--spec`, and what judges the vectors derived
//! from a spec ([`crate::vectors::derive`]).
//!
//! The decoder is [`crate::explain`]'s walk, which makes its checks in the lowering's canonical
//! order and fails as the generated decoders do (the same [`ackwire_codec::ErrorKind`], byte and
//! bit offset, field path); the encoder ([`mod@encode`]) writes through the runtime's own writers
//! in the generated encoders' order; [`value`] maps a [`Value`] to and from the JSON form the
//! generated codecs print. Agreement with the generated codecs is tested, not assumed:
//! conformance/tests/explain_agrees.rs for the reference protocol, the derived vectors of the
//! kitchen sink and the game for theirs.
//!
//! Hostile input: every read is checked and a count is checked against the input before
//! anything is allocated for it (the walk's rules), so decoding allocates in proportion to the
//! input: at most one [`Value`] (32 bytes) per bit read, plus a record's slots.

pub mod encode;
pub mod value;

use crate::explain::{self, ExplainError};
use crate::frame_json::FrameError;
use crate::vectors::OrderedJson;
use ackwire_spec::lower::{Lowering, RecordPlan};
pub use value::Value;

/// The frame named `frame` (snake_case) of `low`, read from `bytes`.
pub fn decode_value(low: &Lowering<'_>, frame: &str, bytes: &[u8]) -> Result<Value, FrameError> {
    explain::read_lowered(low, frame, bytes).map_err(frame_error)
}

/// The JSON form of the frame named `frame` read from `bytes`, fields in declaration order:
/// what the generated codec's decoder prints.
pub fn decode(low: &Lowering<'_>, frame: &str, bytes: &[u8]) -> Result<OrderedJson, FrameError> {
    let plan = plan(low, frame)?;
    let value = decode_value(low, frame, bytes)?;
    value::to_json(low, plan, &value).map_err(|e| FrameError::InvalidSpec {
        reason: e.to_string(),
    })
}

/// The frame named `frame` read from its JSON form, as serde fills the generated type.
pub fn read_json(
    low: &Lowering<'_>,
    frame: &str,
    json: &serde_json::Value,
) -> Result<Value, FrameError> {
    let plan = plan(low, frame)?;
    value::from_json(low, plan, json).map_err(|e| FrameError::Json {
        frame: frame.to_string(),
        message: e.to_string(),
    })
}

/// The bytes of a frame's value, as the generated encoder writes them.
pub fn encode_value(low: &Lowering<'_>, frame: &str, value: &Value) -> Result<Vec<u8>, FrameError> {
    let plan = plan(low, frame)?;
    encode::encode(low, plan, value).map_err(|f| match f {
        encode::Fault::Encode(e) => FrameError::Encode(e),
        encode::Fault::Shape(reason) => FrameError::InvalidSpec { reason },
    })
}

/// The bytes of the frame named `frame` from its JSON form: [`read_json`], then
/// [`encode_value`]. A JSON form the generated type would not take is
/// [`FrameError::Json`] (with the field path), a value its encoder refuses
/// [`FrameError::Encode`] (the same kind and path).
pub fn encode(
    low: &Lowering<'_>,
    frame: &str,
    json: &serde_json::Value,
) -> Result<Vec<u8>, FrameError> {
    let value = read_json(low, frame, json)?;
    encode_value(low, frame, &value)
}

/// Whether two JSON forms of the frame named `frame` are the same value once read into its
/// model (so `0.1` and `0.10000000149011612` are the same `f32`).
pub fn same_value(
    low: &Lowering<'_>,
    frame: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
) -> Result<bool, FrameError> {
    Ok(read_json(low, frame, a)? == read_json(low, frame, b)?)
}

/// The plan of the frame named `frame`.
pub fn plan<'a, 's>(low: &'a Lowering<'s>, frame: &str) -> Result<&'a RecordPlan<'s>, FrameError> {
    explain::frame_plan(low, frame).map_err(frame_error)
}

fn frame_error(e: ExplainError) -> FrameError {
    match e {
        ExplainError::UnknownFrame { name, known } => FrameError::UnknownFrame { name, known },
        ExplainError::Decode { error, .. } => FrameError::Decode(error),
        ExplainError::InvalidSpec { reason } => FrameError::InvalidSpec { reason },
    }
}
