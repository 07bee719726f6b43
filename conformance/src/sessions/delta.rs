//! The `delta` session pair, for the testee protocol and the stream vectors (being written).

use super::Session;
use crate::streams::StreamVector;
use serde_json::Value;

/// The session halves this module opens.
pub const NAMES: &[&str] = &[];

/// Opens `name` when it is one of [`NAMES`].
pub fn open(_name: &str, _params: &Value) -> Option<Result<Box<dyn Session>, String>> {
    None
}

/// This pair's stream vectors, recorded anew.
pub fn stream_vectors() -> Result<Vec<StreamVector>, String> {
    Ok(Vec::new())
}
