//! Golden frame vectors (TESTEE-8): bytes and the value they decode to, both ways,
//! and bytes that must not decode, with the error every ackwire codec must report.
//!
//! The vectors are data reviewed by humans. There is one JSON file per frame,
//! `vectors/frames/<frame>.json`:
//!
//! ```json
//! {
//!   "frame": "acked",
//!   "seed": "ACK-2, ACK-3, ACK-4, ACK-6, ACK-7, ACK-8, ACK-9",
//!   "cases": [
//!     {
//!       "name": "acked/smallest",
//!       "description": "one line",
//!       "seed": "ACK-2, ACK-3, ACK-4, ACK-6, ACK-7, ACK-8, ACK-9",
//!       "hex": "06 00 00 ...",
//!       "value": { "tick": 0, "...": "the decoded frame as JSON" }
//!     },
//!     {
//!       "name": "acked/truncated_tick",
//!       "description": "one line",
//!       "seed": "WIRE-21 (canonical decoding)",
//!       "hex": "06 00 00",
//!       "error": { "kind": "truncated", "offset": 3, "path": "tick" }
//!     }
//!   ]
//! }
//! ```
//!
//! A case is positive (it has a `value`) or negative (it has an `error`), never both. Hex is
//! lower case with the bytes separated by single spaces; a reader accepts it with or without
//! the spaces. `value` is the JSON form of the decoded frame (the generated type through serde:
//! bit sets as lists of bit names, 64-bit integers above 2^53 as strings, bytes as hex, unions
//! as `{"shot": {...}}`), with the fields in declaration order. `error` names the kind from the
//! shared taxonomy ([`ackwire_codec::ErrorKind::as_str`]), the byte offset and the field path;
//! inside a bit-packed body it also names the bit (`bit`, from the start of the frame).
//!
//! The files are generated from the cases kept in code ([`frame_cases`]) by [`write_frames`]
//! (`ackwire vectors --write`) and never edited by hand; [`verify_frame_case`] checks a case
//! against the Rust codec. Beside them, `vectors/derived/<frame>.json` holds the same format
//! derived from the layout itself ([`mod@derive`]), for the reference protocol as for any spec;
//! [`verify_case_run_time`] checks a case against the run-time codec of any spec, and
//! [`CaseCheck`] against any generated codec.
//!
//! What this module is not: a test runner for other implementations. It defines the data and
//! judges the Rust codec; the runner drives other testees with the same files.

pub mod derive;
pub mod frame_cases;

use ackwire_codec::protocol::visit_frame;
use ackwire_codec::{Frame, FrameVisitor};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The vectors of one frame: the contents of `vectors/frames/<frame>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameFile {
    /// The frame's name in the spec, in snake_case (`acked`, `datagram`, ...).
    pub frame: String,
    /// The rules of `docs/spec/` the frame's layout follows.
    pub seed: String,
    /// The cases, positive and negative.
    pub cases: Vec<FrameCase>,
}

/// One vector: bytes, and either the value they decode to or the error they must raise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameCase {
    /// `<frame>/<what>`, unique across all files.
    pub name: String,
    /// What the case shows, in one line.
    pub description: String,
    /// The rules of `docs/spec/` the case checks (`"DG-10"`, `"WIRE-21, WIRE-3 / LANGUAGE.md,
    /// Canonical decoding"`).
    pub seed: String,
    /// What a coded frame (kind 13) is read and written against: the records of its base and
    /// older snapshot, `{"base": [{"eid", "state"}], "older": [...]}` ([`crate::coded`]); absent
    /// for every other frame, and for a coded frame that needs none (nothing held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<OrderedJson>,
    /// The frame's bytes, lower-case hex; single spaces between bytes when written.
    pub hex: String,
    /// A positive case: the decoded frame as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<OrderedJson>,
    /// A negative case: the error a decoder must report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ExpectedError>,
}

impl FrameCase {
    /// The case's bytes, from its hex.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        parse_hex(&self.hex)
    }

    /// What the case expects: a value or an error, exactly one of them.
    pub fn expectation(&self) -> Result<Expectation<'_>, String> {
        match (&self.value, &self.error) {
            (Some(v), None) => Ok(Expectation::Value(v)),
            (None, Some(e)) => Ok(Expectation::Error(e)),
            (Some(_), Some(_)) => Err("has both a `value` and an `error`".to_string()),
            (None, None) => Err("has neither a `value` nor an `error`".to_string()),
        }
    }
}

/// What a case expects of a decoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expectation<'a> {
    /// The bytes decode to this value (and it encodes back to the bytes).
    Value(&'a OrderedJson),
    /// The bytes do not decode; this is the error.
    Error(&'a ExpectedError),
}

/// The error a negative case expects: judged by kind, offset and path, never by text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    /// The kind's name in the shared taxonomy (`truncated`, `bad_constant`, ...).
    pub kind: String,
    /// The byte offset from the start of the frame.
    pub offset: usize,
    /// Inside a bit-packed body: the bit offset from the start of the frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bit: Option<usize>,
    /// The field path (`changes[1].mask`); empty for the frame as a whole (trailing bytes).
    pub path: String,
}

/// Why vectors could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    /// A file or folder could not be read, written or listed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A vector file is not valid JSON, or not of the vector format.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Line of the fault, from 1.
        line: usize,
        /// Column of the fault, from 1.
        column: usize,
        /// What serde_json said.
        message: String,
    },
    /// A vector file is JSON of the right shape but says something impossible (a case with
    /// both a value and an error, bad hex, a name of another frame).
    #[error("{}: {case}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The case (or the file's `frame` field).
        case: String,
        /// What is wrong.
        reason: String,
    },
    /// A file's contents could not be rendered as JSON.
    #[error("cannot render the vectors of {frame}: {source}")]
    Render {
        /// The frame.
        frame: String,
        /// What serde_json said.
        source: serde_json::Error,
    },
}

/// Every frame vector, built from the cases kept in code ([`frame_cases`]), one file per frame in
/// the order of [`ackwire_codec::protocol::FRAME_NAMES`].
///
/// # Panics
///
/// When a positive case's value cannot be encoded: a mistake in the case definitions, caught
/// by the crate's tests.
pub fn frame_files() -> Vec<FrameFile> {
    frame_cases::all()
}

/// The text [`write_frames`] writes for `file`: pretty JSON, two-space indentation, a final
/// newline.
pub fn render_frame_file(file: &FrameFile) -> Result<String, VectorError> {
    let mut text = serde_json::to_string_pretty(file).map_err(|source| VectorError::Render {
        frame: file.frame.clone(),
        source,
    })?;
    text.push('\n');
    Ok(text)
}

/// Writes every frame's vectors to `dir/<frame>.json` (creating `dir`), and returns the paths
/// written. The output depends only on the code: running it twice writes the same bytes.
///
/// A `.json` file in `dir` that holds frame vectors of a frame that no longer has cases is
/// removed, so that the folder mirrors the code; other files are left alone.
pub fn write_frames(dir: &Path) -> Result<Vec<PathBuf>, VectorError> {
    write_files(dir, &frame_files())
}

/// Writes `files` to `dir/<frame>.json` (creating `dir`) and removes any other frame vector
/// file there, so that the folder mirrors what was written; other files are left alone.
pub(crate) fn write_files(dir: &Path, files: &[FrameFile]) -> Result<Vec<PathBuf>, VectorError> {
    std::fs::create_dir_all(dir).map_err(|source| VectorError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::with_capacity(files.len());
    for file in files {
        let path = dir.join(format!("{}.json", file.frame));
        let text = render_frame_file(file)?;
        std::fs::write(&path, text).map_err(|source| VectorError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    for stale in json_files(dir)? {
        if written.contains(&stale) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&stale) else {
            continue;
        };
        if serde_json::from_str::<FrameFile>(&text).is_ok() {
            std::fs::remove_file(&stale).map_err(|source| VectorError::Io {
                path: stale.clone(),
                source,
            })?;
        }
    }
    Ok(written)
}

/// Reads every `*.json` file of `dir`, in file-name order, checking that each is a frame
/// vector file whose cases are well formed (exactly one of `value` and `error`, valid hex,
/// names `<frame>/...`, the file named after its frame). It does not run the codec: see
/// [`verify_frame_case`].
pub fn read_frames(dir: &Path) -> Result<Vec<FrameFile>, VectorError> {
    let mut out = Vec::new();
    for path in json_files(dir)? {
        let text = std::fs::read_to_string(&path).map_err(|source| VectorError::Io {
            path: path.clone(),
            source,
        })?;
        let file: FrameFile = serde_json::from_str(&text).map_err(|e| VectorError::Json {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        check_file(&path, &file)?;
        out.push(file);
    }
    Ok(out)
}

/// The frame vectors of a vectors folder: those of `dir/frames` (kept by hand) and of
/// `dir/derived` (derived from a spec), each folder when it is there; at least one must be.
pub fn read_frame_sets(dir: &Path) -> Result<Vec<FrameFile>, VectorError> {
    let folders = [dir.join("frames"), dir.join("derived")];
    if !folders.iter().any(|f| f.is_dir()) {
        return Err(VectorError::Invalid {
            path: dir.to_path_buf(),
            case: "frames".to_string(),
            reason: "no frames/ or derived/ folder of frame vectors".to_string(),
        });
    }
    let mut files = Vec::new();
    for folder in folders.iter().filter(|f| f.is_dir()) {
        files.extend(read_frames(folder)?);
    }
    Ok(files)
}

/// The `.json` files of `dir`, sorted by name.
pub(crate) fn json_files(dir: &Path) -> Result<Vec<PathBuf>, VectorError> {
    let io = |source| VectorError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// The shape checks of [`read_frames`].
fn check_file(path: &Path, file: &FrameFile) -> Result<(), VectorError> {
    let invalid = |case: &str, reason: String| VectorError::Invalid {
        path: path.to_path_buf(),
        case: case.to_string(),
        reason,
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if stem != file.frame {
        return Err(invalid(
            "frame",
            format!(
                "the file holds frame `{}` but is named `{stem}.json`",
                file.frame
            ),
        ));
    }
    let prefix = format!("{}/", file.frame);
    let mut seen = std::collections::BTreeSet::new();
    for case in &file.cases {
        if !case.name.starts_with(&prefix) || case.name.len() == prefix.len() {
            return Err(invalid(
                &case.name,
                format!("the name must be `{prefix}<what>`"),
            ));
        }
        if !seen.insert(case.name.as_str()) {
            return Err(invalid(&case.name, "the name is used twice".to_string()));
        }
        case.expectation()
            .map_err(|reason| invalid(&case.name, reason))?;
        case.bytes()
            .map_err(|reason| invalid(&case.name, format!("bad hex: {reason}")))?;
    }
    Ok(())
}

/// A vector that does not hold: its name and what differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The case's or stream vector's name (`acked/smallest`, `acked/loss_05`).
    pub name: String,
    /// What differs, as [`verify_frame_case`] or [`crate::sessions::stream::verify`] says it.
    pub why: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.why)
    }
}

/// The failures one a line, as a test or a command reports them.
pub fn failure_lines(failures: &[Failure]) -> String {
    failures
        .iter()
        .map(Failure::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks every case of `files` against the Rust codec ([`verify_frame_case`]); returns the
/// cases that fail, in order. What `ackwire vectors` runs over `vectors/frames`.
pub fn verify_frame_files(files: &[FrameFile]) -> Vec<Failure> {
    files
        .iter()
        .flat_map(|file| {
            file.cases.iter().filter_map(|case| {
                verify_frame_case(&file.frame, case)
                    .err()
                    .map(|why| Failure {
                        name: case.name.clone(),
                        why,
                    })
            })
        })
        .collect()
}

/// Replays both halves of every stream vector on this crate's own sessions
/// ([`crate::sessions::stream::verify`]); returns the vectors that fail, in order. What
/// `ackwire vectors` runs over `vectors/streams`, kept here so that `cargo test` runs the very
/// same check.
pub fn verify_stream_vectors(vectors: &[crate::streams::StreamVector]) -> Vec<Failure> {
    vectors
        .iter()
        .filter_map(|vector| {
            crate::sessions::stream::verify(vector)
                .err()
                .map(|why| Failure {
                    name: vector.name.clone(),
                    why,
                })
        })
        .collect()
}

/// Checks one case of frame `frame` against the Rust codec. A positive case must decode to its
/// `value`, re-encode to the identical bytes, have an `encoded_len` of the byte count, and its
/// `value` read back from JSON must encode to the same bytes. A negative case must fail to
/// decode with the expected kind, offset and path (and bit, when the case names one).
///
/// The error text says what differs.
///
/// The coded frame ([`crate::coded::FRAME`]) is checked against its case's `basis`
/// ([`verify_coded_case`]); any other frame's case must have none.
pub fn verify_frame_case(frame: &str, case: &FrameCase) -> Result<(), String> {
    if frame == crate::coded::FRAME {
        return verify_coded_case(case);
    }
    if case.basis.is_some() {
        return Err(format!(
            "has a `basis`, which only `{}` takes",
            crate::coded::FRAME
        ));
    }
    visit_frame(frame, CaseCheck::new(case)?).ok_or_else(|| format!("unknown frame `{frame}`"))?
}

/// Checks one case of the coded frame (kind 13) against the Rust codec, decoding and encoding
/// against its `basis` (none: nothing held): a positive case decodes to its `value` (nothing
/// after the frame), the decoded frame re-encodes against the basis to the identical bytes, and
/// the `value` read back from JSON encodes to them too; a negative case fails to decode with
/// the expected kind, offset and path (and bit, when it names one).
pub fn verify_coded_case(case: &FrameCase) -> Result<(), String> {
    use crate::coded;
    let bytes = case.bytes().map_err(|e| format!("bad hex: {e}"))?;
    let basis = coded::Basis::from_json(case.basis.as_ref().map(|b| b.to_value()).as_ref())?;
    match case.expectation()? {
        Expectation::Value(expected) => {
            let frame = coded::decode(&bytes, &basis)
                .map_err(|e| format!("expected a value, the decoder said: {e}"))?;
            let decoded = OrderedJson::of(&frame)
                .map_err(|e| format!("cannot render the decoded frame: {e}"))?;
            if decoded.to_value() != expected.to_value() {
                return Err(format!(
                    "decoded to {}, expected {}",
                    compact(&decoded),
                    compact(expected)
                ));
            }
            let again = coded::encode(&frame, &basis)
                .map_err(|e| format!("the decoded frame does not encode: {e}"))?;
            if again != bytes {
                return Err(format!(
                    "the decoded frame re-encodes to {}, not to the case's bytes",
                    hex_spaced(&again)
                ));
            }
            let encoded = coded::encode_json(
                &expected.to_value(),
                case.basis.as_ref().map(|b| b.to_value()).as_ref(),
            )
            .map_err(|e| format!("the case's value does not encode: {e}"))?;
            if encoded != bytes {
                return Err(format!(
                    "the case's value encodes to {}, not to the case's bytes",
                    hex_spaced(&encoded)
                ));
            }
            Ok(())
        }
        Expectation::Error(expected) => match coded::decode(&bytes, &basis) {
            Ok(frame) => {
                let json = OrderedJson::of(&frame)
                    .map(|j| compact(&j))
                    .unwrap_or_default();
                Err(format!(
                    "expected {}, it decoded to {json}",
                    describe(expected)
                ))
            }
            Err(error) => judge_error(&error, expected),
        },
    }
}

/// One case as a [`FrameVisitor`]: visited with a generated codec's frame type, it checks the
/// case against that codec as [`verify_frame_case`] does against the reference protocol's. A
/// crate with its own generated codec holds it to its vectors with
/// `visit_frame(&file.frame, CaseCheck::new(case)?)`.
#[derive(Debug)]
pub struct CaseCheck<'a> {
    bytes: Vec<u8>,
    expectation: Expectation<'a>,
}

impl<'a> CaseCheck<'a> {
    /// The check of `case`; its hex or its expectation may be malformed.
    pub fn new(case: &'a FrameCase) -> Result<Self, String> {
        Ok(CaseCheck {
            bytes: case.bytes().map_err(|e| format!("bad hex: {e}"))?,
            expectation: case.expectation()?,
        })
    }
}

impl FrameVisitor for CaseCheck<'_> {
    type Output = Result<(), String>;

    fn visit<F: Frame>(self) -> Result<(), String> {
        match self.expectation {
            Expectation::Value(value) => verify_value::<F>(&self.bytes, value),
            Expectation::Error(error) => verify_error::<F>(&self.bytes, error),
        }
    }
}

fn verify_value<F: Frame>(bytes: &[u8], expected: &OrderedJson) -> Result<(), String> {
    let frame = F::decode(bytes).map_err(|e| format!("expected a value, the decoder said: {e}"))?;
    let decoded =
        OrderedJson::of(&frame).map_err(|e| format!("cannot render the decoded frame: {e}"))?;
    if decoded.to_value() != expected.to_value() {
        return Err(format!(
            "decoded to {}, expected {}",
            compact(&decoded),
            compact(expected)
        ));
    }
    let again = frame
        .to_bytes()
        .map_err(|e| format!("the decoded frame does not encode: {e}"))?;
    if again != bytes {
        return Err(format!(
            "the decoded frame re-encodes to {}, not to the case's bytes",
            hex_spaced(&again)
        ));
    }
    if frame.encoded_len() != bytes.len() {
        return Err(format!(
            "encoded_len says {}, the frame has {} bytes",
            frame.encoded_len(),
            bytes.len()
        ));
    }
    let from_json: F = serde_json::from_value(expected.to_value())
        .map_err(|e| format!("the case's value does not read as a {}: {e}", F::NAME))?;
    let encoded = from_json
        .to_bytes()
        .map_err(|e| format!("the case's value does not encode: {e}"))?;
    if encoded != bytes {
        return Err(format!(
            "the case's value encodes to {}, not to the case's bytes",
            hex_spaced(&encoded)
        ));
    }
    Ok(())
}

fn verify_error<F: Frame>(bytes: &[u8], expected: &ExpectedError) -> Result<(), String> {
    let error = match F::decode(bytes) {
        Ok(frame) => {
            let json = OrderedJson::of(&frame)
                .map(|j| compact(&j))
                .unwrap_or_default();
            return Err(format!(
                "expected {}, it decoded to {json}",
                describe(expected)
            ));
        }
        Err(e) => e,
    };
    judge_error(&error, expected)
}

/// Whether a decoder's `error` is the one a case expects: the same kind, offset and path, and
/// the same bit when the case names one (a case that names no bit accepts any).
fn judge_error(error: &ackwire_codec::DecodeError, expected: &ExpectedError) -> Result<(), String> {
    let got = ExpectedError {
        kind: error.kind.as_str().to_string(),
        offset: error.offset,
        bit: error.bit,
        path: error.path_string(),
    };
    let same = got.kind == expected.kind
        && got.offset == expected.offset
        && got.path == expected.path
        && (expected.bit.is_none() || expected.bit == got.bit);
    if same {
        Ok(())
    } else {
        Err(format!(
            "expected {}, got {}",
            describe(expected),
            describe(&got)
        ))
    }
}

/// Checks one case of frame `frame` against the run-time codec of any spec ([`crate::interp`]):
/// a positive case's bytes decode to its value and its value encodes to its bytes; a negative
/// case's bytes fail with its kind, offset and path (and bit, when it names one).
pub fn verify_case_run_time(
    low: &ackwire_spec::lower::Lowering<'_>,
    frame: &str,
    case: &FrameCase,
) -> Result<(), String> {
    use crate::frame_json::FrameError;
    let bytes = case.bytes().map_err(|e| format!("bad hex: {e}"))?;
    match case.expectation()? {
        Expectation::Value(expected) => {
            let decoded = crate::interp::decode(low, frame, &bytes)
                .map_err(|e| format!("expected a value, the decoder said: {e}"))?;
            if decoded.to_value() != expected.to_value() {
                return Err(format!(
                    "decoded to {}, expected {}",
                    compact(&decoded),
                    compact(expected)
                ));
            }
            let encoded = crate::interp::encode(low, frame, &expected.to_value())
                .map_err(|e| format!("the case's value does not encode: {e}"))?;
            if encoded != bytes {
                return Err(format!(
                    "the case's value encodes to {}, not to the case's bytes",
                    hex_spaced(&encoded)
                ));
            }
            Ok(())
        }
        Expectation::Error(expected) => match crate::interp::decode(low, frame, &bytes) {
            Ok(value) => Err(format!(
                "expected {}, it decoded to {}",
                describe(expected),
                compact(&value)
            )),
            Err(FrameError::Decode(error)) => judge_error(&error, expected),
            Err(other) => Err(format!("expected {}, got {other}", describe(expected))),
        },
    }
}

/// `kind at byte N (bit B), field P`.
fn describe(e: &ExpectedError) -> String {
    let bit = e.bit.map(|b| format!(" (bit {b})")).unwrap_or_default();
    let path = if e.path.is_empty() {
        "(frame)"
    } else {
        e.path.as_str()
    };
    format!("{} at byte {}{bit}, field {path}", e.kind, e.offset)
}

fn compact(json: &OrderedJson) -> String {
    serde_json::to_string(json).unwrap_or_else(|e| format!("<{e}>"))
}

/// Lower-case hex with single spaces between bytes (`06 00 ff`): the form vectors are written
/// in.
pub fn hex_spaced(bytes: &[u8]) -> String {
    ackwire_codec::rt::json::to_hex_spaced(bytes)
}

/// Bytes from hex, by the one rule of every ackwire tool ([`ackwire_codec::rt::json::from_hex`]):
/// white space between bytes or none, never inside a byte.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    ackwire_codec::rt::json::from_hex(text)
}

/// A JSON value that keeps the order of an object's fields as written, so that a frame's value
/// reads in declaration order (`serde_json::Value` sorts them).
///
/// Its derived equality is structural and order-sensitive; to compare values as JSON (fields
/// in any order) compare their [`OrderedJson::to_value`].
#[derive(Debug, Clone, PartialEq)]
pub enum OrderedJson {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json holds it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<OrderedJson>),
    /// An object, fields in order.
    Object(Vec<(String, OrderedJson)>),
}

impl OrderedJson {
    /// The JSON form of `value`, through its text, so that numbers read as they print
    /// (an `f32` of 0.01 is 0.01, not 0.009999999776482582).
    pub fn of<T: Serialize>(value: &T) -> Result<OrderedJson, serde_json::Error> {
        serde_json::from_str(&serde_json::to_string(value)?)
    }

    /// The same value as a `serde_json::Value` (fields sorted).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            OrderedJson::Null => Value::Null,
            OrderedJson::Bool(b) => Value::Bool(*b),
            OrderedJson::Number(n) => Value::Number(n.clone()),
            OrderedJson::String(s) => Value::String(s.clone()),
            OrderedJson::Array(items) => {
                Value::Array(items.iter().map(OrderedJson::to_value).collect())
            }
            OrderedJson::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OrderedJson::Null => s.serialize_unit(),
            OrderedJson::Bool(b) => s.serialize_bool(*b),
            OrderedJson::Number(n) => n.serialize(s),
            OrderedJson::String(v) => s.serialize_str(v),
            OrderedJson::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            OrderedJson::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for OrderedJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OrderedJsonVisitor)
    }
}

struct OrderedJsonVisitor;

impl<'de> Visitor<'de> for OrderedJsonVisitor {
    type Value = OrderedJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<OrderedJson, D::Error> {
        OrderedJson::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<OrderedJson, E> {
        Ok(OrderedJson::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<OrderedJson, E> {
        serde_json::Number::from_f64(v)
            .map(OrderedJson::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a JSON number")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<OrderedJson, E> {
        Ok(OrderedJson::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OrderedJson, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(OrderedJson::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedJson, A::Error> {
        let mut fields: Vec<(String, OrderedJson)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, OrderedJson>()? {
            if fields.iter().any(|(seen, _)| *seen == k) {
                return Err(de::Error::custom(format!("the field `{k}` appears twice")));
            }
            fields.push((k, v));
        }
        Ok(OrderedJson::Object(fields))
    }
}

/// What [`verify_dir`] found: how many vectors it checked and those that do not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Frame cases and stream vectors checked.
    pub total: usize,
    /// The ones that fail, frame cases first, in order.
    pub failures: Vec<Failure>,
}

impl Verification {
    /// The summary line `ackwire vectors` prints: `N passed, M failed`.
    pub fn summary(&self) -> String {
        let failed = self.failures.len();
        format!("{} passed, {failed} failed", self.total - failed)
    }
}

/// Reads the frame vectors of `dir/frames` and the stream vectors of `dir/streams` and checks
/// every one against the Rust codec and this crate's sessions ([`verify_frame_files`],
/// [`verify_stream_vectors`]); when `dir/derived` exists, the reference protocol's derived
/// vectors there too: each against the Rust codec, and the set against what
/// [`derive::derive`] makes with [`derive::DEFAULT_SEED`] ([`derive::verify_derived`]). What
/// `ackwire vectors` does.
pub fn verify_dir(dir: &Path) -> Result<Verification, String> {
    let files = read_frames(&dir.join("frames")).map_err(|e| e.to_string())?;
    let streams = crate::streams::read_streams(&dir.join("streams")).map_err(|e| e.to_string())?;
    let mut total = files.iter().map(|f| f.cases.len()).sum::<usize>() + streams.len();
    let mut failures: Vec<Failure> = verify_frame_files(&files)
        .into_iter()
        .chain(verify_stream_vectors(&streams))
        .collect();
    let derived_dir = dir.join("derived");
    if derived_dir.is_dir() {
        let spec = ackwire_spec::reference_spec().map_err(|e| e.to_string())?;
        let low = ackwire_spec::lower::Lowering::new(&spec);
        let derived = derive::verify_derived(&low, &derived_dir, derive::DEFAULT_SEED)?;
        let files = read_frames(&derived_dir).map_err(|e| e.to_string())?;
        total += derived.total;
        failures.extend(derived.failures);
        failures.extend(verify_frame_files(&files));
    }
    Ok(Verification { total, failures })
}

/// What [`write_dir`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The frame vectors' folder, `dir/frames`.
    pub frames_dir: PathBuf,
    /// The frame vector files written there.
    pub frame_files: usize,
    /// The stream vectors' folder, `dir/streams`.
    pub streams_dir: PathBuf,
    /// The stream vector files written there.
    pub stream_files: usize,
    /// The derived vectors' folder, `dir/derived`.
    pub derived_dir: PathBuf,
    /// The derived vector files written there.
    pub derived_files: usize,
}

/// Writes every vector anew from the cases kept in code: the frame vectors to `dir/frames`
/// ([`write_frames`]), the stream vectors, recorded through the network simulator, to
/// `dir/streams`, and the reference protocol's derived vectors to `dir/derived`: what
/// `ackwire vectors --write` does.
pub fn write_dir(dir: &Path) -> Result<Written, String> {
    let frames_dir = dir.join("frames");
    let streams_dir = dir.join("streams");
    let frame_files = write_frames(&frames_dir).map_err(|e| e.to_string())?.len();
    let recorded =
        crate::sessions::stream_vectors().map_err(|e| format!("recording a stream vector: {e}"))?;
    let stream_files = crate::streams::write_streams(&streams_dir, &recorded)
        .map_err(|e| e.to_string())?
        .len();
    let spec = ackwire_spec::reference_spec().map_err(|e| e.to_string())?;
    let low = ackwire_spec::lower::Lowering::new(&spec);
    let derived_dir = dir.join("derived");
    let derived_files =
        derive::write_derived(&derived_dir, &derive::derive(&low, derive::DEFAULT_SEED))
            .map_err(|e| e.to_string())?
            .len();
    Ok(Written {
        frames_dir,
        frame_files,
        streams_dir,
        stream_files,
        derived_dir,
        derived_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verification_sums_up_passed_and_failed() {
        let v = Verification {
            total: 3,
            failures: vec![Failure {
                name: "ack/x".into(),
                why: "differs".into(),
            }],
        };
        assert_eq!(v.summary(), "2 passed, 1 failed");
    }

    #[test]
    fn hex_reads_with_or_without_spaces() {
        assert_eq!(parse_hex("06 00 ff").unwrap(), [6, 0, 255]);
        assert_eq!(parse_hex("0600FF").unwrap(), [6, 0, 255]);
        assert_eq!(parse_hex(" 06\n00ff ").unwrap(), [6, 0, 255]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert!(parse_hex("0 600").is_err());
        assert!(parse_hex("0g").is_err());
        assert_eq!(hex_spaced(&[6, 0, 255]), "06 00 ff");
        assert_eq!(hex_spaced(&[]), "");
    }

    #[test]
    fn ordered_json_keeps_field_order_and_compares_as_json() {
        let a: OrderedJson =
            serde_json::from_str(r#"{"b": 1, "a": [0.5, "x", null, true]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"b":1,"a":[0.5,"x",null,true]}"#
        );
        let b: OrderedJson =
            serde_json::from_str(r#"{"a": [0.5, "x", null, true], "b": 1}"#).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.to_value(), b.to_value());
        assert!(serde_json::from_str::<OrderedJson>(r#"{"a": 1, "a": 2}"#).is_err());
    }

    #[test]
    fn floats_read_as_they_print() {
        assert_eq!(
            serde_json::to_string(&OrderedJson::of(&0.01f32).unwrap()).unwrap(),
            "0.01"
        );
    }

    #[test]
    fn a_case_has_exactly_one_expectation() {
        let mut case = FrameCase {
            basis: None,
            name: "x/y".into(),
            description: String::new(),
            seed: String::new(),
            hex: String::new(),
            value: None,
            error: None,
        };
        assert!(case.expectation().is_err());
        case.value = Some(OrderedJson::Null);
        assert!(case.expectation().is_ok());
        case.error = Some(ExpectedError {
            kind: "truncated".into(),
            offset: 0,
            bit: None,
            path: String::new(),
        });
        assert!(case.expectation().is_err());
    }

    #[test]
    fn verification_reports_what_differs() {
        let mut case = FrameCase {
            basis: None,
            name: "snapshot_ack/x".into(),
            description: String::new(),
            seed: String::new(),
            hex: "0b 2c 01".into(),
            value: Some(serde_json::from_str(r#"{"sequence": 300}"#).unwrap()),
            error: None,
        };
        assert_eq!(verify_frame_case("snapshot_ack", &case), Ok(()));
        case.value = Some(serde_json::from_str(r#"{"sequence": 301}"#).unwrap());
        let why = verify_frame_case("snapshot_ack", &case).unwrap_err();
        assert!(why.contains("301"), "{why}");
        assert!(verify_frame_case("nope", &case)
            .unwrap_err()
            .contains("unknown frame"));
        case.value = None;
        case.error = Some(ExpectedError {
            kind: "trailing_bytes".into(),
            offset: 3,
            bit: None,
            path: String::new(),
        });
        case.hex = "0b 2c 01 00".into();
        assert_eq!(verify_frame_case("snapshot_ack", &case), Ok(()));
        case.hex = "0b 2c".into();
        let why = verify_frame_case("snapshot_ack", &case).unwrap_err();
        assert!(why.contains("truncated at byte 2"), "{why}");
    }
}
