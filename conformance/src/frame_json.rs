//! Frames chosen by name at run time: decode bytes to the JSON form, encode the JSON form to
//! bytes. What `ackwire decode`/`encode` and the Rust testee do with the generated codec; the
//! run-time codec of any spec ([`crate::interp`]) fails with the same [`FrameError`].

use ackwire_codec::protocol::{visit_frame, FRAME_NAMES};
use ackwire_codec::{DecodeError, EncodeError, Frame, FrameVisitor};

/// Why a frame operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// No frame of the spec has this name.
    #[error("unknown frame `{name}`; the frames are: {}", known.join(", "))]
    UnknownFrame {
        /// The name asked for.
        name: String,
        /// The snake_case names of the spec's frames, in declaration order.
        known: Vec<String>,
    },
    /// The bytes are not a valid frame.
    #[error("{0}")]
    Decode(DecodeError),
    /// The value is not one the encoder accepts.
    #[error("{0}")]
    Encode(EncodeError),
    /// The JSON does not describe a frame of this kind.
    #[error("not a valid {frame} value: {message}")]
    Json {
        /// The frame.
        frame: String,
        /// What is wrong: serde's message with line and column, or the run-time codec's with
        /// the field path.
        message: String,
    },
    /// The spec cannot be walked (it would not pass `ackwire check`), or a value does not have
    /// its shape.
    #[error("the spec cannot be walked: {reason}")]
    InvalidSpec {
        /// What is wrong.
        reason: String,
    },
}

fn unknown(name: &str) -> FrameError {
    FrameError::UnknownFrame {
        name: name.to_string(),
        known: frame_names().iter().map(|n| n.to_string()).collect(),
    }
}

/// Every frame of the reference protocol by name: the generated `FRAME_NAMES`, then the coded
/// frame ([`crate::coded::FRAME`]), which `visit_frame` does not hold because it is read and
/// written against a basis.
pub fn frame_names() -> Vec<&'static str> {
    FRAME_NAMES
        .iter()
        .copied()
        .chain([crate::coded::FRAME])
        .collect()
}

/// A basis given for a frame that takes none.
fn no_basis_taken(name: &str, basis: Option<&serde_json::Value>) -> Result<(), FrameError> {
    match basis {
        Some(b) if !b.is_null() => Err(FrameError::Json {
            frame: name.to_string(),
            message: format!(
                "`{name}` takes no basis (only `{}` does)",
                crate::coded::FRAME
            ),
        }),
        _ => Ok(()),
    }
}

struct DecodeJson<'a>(&'a [u8]);

impl FrameVisitor for DecodeJson<'_> {
    type Output = Result<serde_json::Value, FrameError>;
    fn visit<F: Frame>(self) -> Self::Output {
        let frame = F::decode(self.0).map_err(FrameError::Decode)?;
        // Through text rather than `to_value`: an f32 then keeps its shortest form (`0.1`, not
        // the widened `0.10000000149011612`), as in the vectors.
        serde_json::to_string(&frame)
            .and_then(|text| serde_json::from_str(&text))
            .map_err(|e| FrameError::Json {
                frame: F::NAME.to_string(),
                message: e.to_string(),
            })
    }
}

struct EncodeJson<'a>(&'a serde_json::Value);

impl FrameVisitor for EncodeJson<'_> {
    type Output = Result<Vec<u8>, FrameError>;
    fn visit<F: Frame>(self) -> Self::Output {
        let frame: F = serde_json::from_value(self.0.clone()).map_err(|e| FrameError::Json {
            frame: F::NAME.to_string(),
            message: e.to_string(),
        })?;
        frame.to_bytes().map_err(FrameError::Encode)
    }
}

struct SameValue<'a>(&'a serde_json::Value, &'a serde_json::Value);

impl FrameVisitor for SameValue<'_> {
    type Output = Result<bool, FrameError>;
    fn visit<F: Frame>(self) -> Self::Output {
        let read = |v: &serde_json::Value| {
            serde_json::from_value::<F>(v.clone()).map_err(|e| FrameError::Json {
                frame: F::NAME.to_string(),
                message: e.to_string(),
            })
        };
        Ok(read(self.0)? == read(self.1)?)
    }
}

/// Whether two JSON forms of the frame named `name` are the same value once read into the
/// frame's types (so `0.1` and `0.10000000149011612` are the same `f32`).
pub fn same_value(
    name: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
) -> Result<bool, FrameError> {
    if name == crate::coded::FRAME {
        return crate::coded::same_value(a, b);
    }
    visit_frame(name, SameValue(a, b)).unwrap_or_else(|| Err(unknown(name)))
}

/// Decodes `bytes` as the frame named `name` into its JSON form (a coded frame against no
/// basis).
pub fn decode_json(name: &str, bytes: &[u8]) -> Result<serde_json::Value, FrameError> {
    decode_json_on(name, bytes, None)
}

/// Encodes the JSON form of the frame named `name` (a coded frame against no basis).
pub fn encode_json(name: &str, value: &serde_json::Value) -> Result<Vec<u8>, FrameError> {
    encode_json_on(name, value, None)
}

/// [`decode_json`] against `basis`, the JSON form of a coded frame's basis
/// ([`crate::coded::Basis::from_json`]); a frame that takes none refuses one.
pub fn decode_json_on(
    name: &str,
    bytes: &[u8],
    basis: Option<&serde_json::Value>,
) -> Result<serde_json::Value, FrameError> {
    if name == crate::coded::FRAME {
        return crate::coded::decode_json(bytes, basis);
    }
    no_basis_taken(name, basis)?;
    visit_frame(name, DecodeJson(bytes)).unwrap_or_else(|| Err(unknown(name)))
}

/// [`encode_json`] against `basis`, as [`decode_json_on`].
pub fn encode_json_on(
    name: &str,
    value: &serde_json::Value,
    basis: Option<&serde_json::Value>,
) -> Result<Vec<u8>, FrameError> {
    if name == crate::coded::FRAME {
        return crate::coded::encode_json(value, basis);
    }
    no_basis_taken(name, basis)?;
    visit_frame(name, EncodeJson(value)).unwrap_or_else(|| Err(unknown(name)))
}

pub use crate::vectors::{hex_spaced, parse_hex};

impl FrameError {
    /// The error as `ackwire decode` reports it: for bytes that do not decode, the kind, the
    /// byte offset (and bit), and the field path (`(frame)` for the frame itself); otherwise
    /// its message.
    pub fn describe(&self) -> String {
        match self {
            FrameError::Decode(e) => format!(
                "{kind} at byte {offset}{bit}, field {path}",
                kind = e.kind,
                offset = e.offset,
                bit = e.bit.map(|b| format!(" (bit {b})")).unwrap_or_default(),
                path = if e.path_string().is_empty() {
                    "(frame)".to_string()
                } else {
                    e.path_string()
                },
            ),
            e => e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WIRE-28: a frame's JSON form, both ways.
    #[test]
    fn decode_then_encode_gives_the_bytes_back() {
        let bytes = parse_hex("0a 05 ff 00 00 00 00 00 00 00 2a 00 00 00 00 00 00 00").unwrap();
        let json = decode_json("delta_ack", &bytes).unwrap();
        assert_eq!(json["newest"], 5);
        assert_eq!(json["mask"], 255);
        assert_eq!(json["digest"], 42);
        assert_eq!(encode_json("delta_ack", &json).unwrap(), bytes);
    }

    #[test]
    fn unknown_frames_name_the_known_ones() {
        let e = decode_json("nope", &[]).unwrap_err();
        assert!(e.to_string().contains("acked"), "{e}");
    }

    #[test]
    fn bad_json_says_what_is_wrong() {
        let e = encode_json("delta_ack", &serde_json::json!({"newest": 1})).unwrap_err();
        assert!(matches!(e, FrameError::Json { .. }), "{e}");
        assert!(e.to_string().contains("mask"), "{e}");
    }

    #[test]
    fn a_decode_error_is_described_by_kind_offset_and_field() {
        let e = decode_json("ack", &[]).unwrap_err();
        let text = e.describe();
        assert!(text.contains(" at byte 0"), "{text}");
        assert!(text.contains(", field "), "{text}");
        let e = decode_json("no_such_frame", &[]).unwrap_err();
        assert_eq!(e.describe(), e.to_string());
    }

    #[test]
    fn hex_accepts_spaces_and_rejects_junk() {
        assert_eq!(parse_hex("0a0B  ff").unwrap(), [0x0a, 0x0b, 0xff]);
        assert!(parse_hex("0g").is_err());
        assert!(parse_hex("abc").is_err());
        assert_eq!(hex_spaced(&[1, 0xab]), "01 ab");
    }
}
