//! The reference protocol's coded frame (kind 13, `docs/spec/coded.md`) by name, with the basis
//! it is read and written against: what the vectors, the Rust testee and the runner need of it.
//!
//! A kind 13 frame decodes only against the records its prefix names (CODE-3, CODE-13,
//! CODE-14): the base's and the older snapshot's. A frame vector carries them as its `basis`
//! member, and a testee request as the same member (`conformance/PROTOCOL.md`):
//! `{"base": [{"eid": 3, "state": <EntityState JSON>}], "older": [...]}`, each list optional,
//! no id twice in one list; no basis at all is the empty one (`NoBasis`). The frame is not in
//! the generated `visit_frame` (its `read` and `write` take the basis), so it is named here.

use crate::frame_json::FrameError;
use ackwire_codec::protocol::{AckedCoded, EntityState};
use ackwire_codec::rt::coded::CodedBasis;
use ackwire_codec::rt::Reader;
use ackwire_codec::DecodeError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The coded frame's name in the spec (`coded frame AckedCoded = 13`), as vectors and testees
/// name it.
pub const FRAME: &str = "acked_coded";

/// One record the basis holds: an entity id and its record.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Held {
    /// The entity's id.
    pub eid: u16,
    /// Its record, the generated `EntityState` in its JSON form.
    pub state: EntityState,
}

/// The basis of a coded frame in its JSON form: the base's records and the older snapshot's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasisJson {
    /// The records of the frame's base.
    #[serde(default)]
    pub base: Vec<Held>,
    /// The records of the frame's older snapshot.
    #[serde(default)]
    pub older: Vec<Held>,
}

/// A basis looked up by id ([`CodedBasis`]), read from [`BasisJson`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Basis {
    base: BTreeMap<u16, EntityState>,
    older: BTreeMap<u16, EntityState>,
}

impl CodedBasis<EntityState> for Basis {
    fn base(&self, eid: u16) -> Option<EntityState> {
        self.base.get(&eid).copied()
    }

    fn older(&self, eid: u16) -> Option<EntityState> {
        self.older.get(&eid).copied()
    }
}

impl Basis {
    /// The basis `json` describes; `None` is the empty one. A list naming an id twice is refused:
    /// a snapshot holds one record an entity.
    pub fn from_json(json: Option<&Value>) -> Result<Basis, String> {
        let Some(json) = json.filter(|j| !j.is_null()) else {
            return Ok(Basis::default());
        };
        let parsed: BasisJson =
            serde_json::from_value(json.clone()).map_err(|e| format!("not a basis: {e}"))?;
        Basis::from_lists(&parsed)
    }

    /// The basis of `json`'s lists.
    pub fn from_lists(json: &BasisJson) -> Result<Basis, String> {
        let map = |list: &[Held], what: &str| {
            let mut out = BTreeMap::new();
            for h in list {
                if out.insert(h.eid, h.state).is_some() {
                    return Err(format!("the basis's {what} holds entity {} twice", h.eid));
                }
            }
            Ok(out)
        };
        Ok(Basis {
            base: map(&json.base, "base")?,
            older: map(&json.older, "older snapshot")?,
        })
    }
}

/// `bytes` read as one coded frame against `basis`, nothing after it (`trailing_bytes`).
pub fn decode(bytes: &[u8], basis: &Basis) -> Result<AckedCoded, DecodeError> {
    let mut r = Reader::new(bytes);
    let frame = AckedCoded::read(&mut r, basis)?;
    r.finish()?;
    Ok(frame)
}

/// `frame` written against `basis`.
pub fn encode(frame: &AckedCoded, basis: &Basis) -> Result<Vec<u8>, FrameError> {
    let mut out = Vec::new();
    frame.write(&mut out, basis).map_err(FrameError::Encode)?;
    Ok(out)
}

fn basis_of(json: Option<&Value>) -> Result<Basis, FrameError> {
    Basis::from_json(json).map_err(|message| FrameError::Json {
        frame: FRAME.to_string(),
        message,
    })
}

fn read_value(value: &Value) -> Result<AckedCoded, FrameError> {
    serde_json::from_value(value.clone()).map_err(|e| FrameError::Json {
        frame: FRAME.to_string(),
        message: e.to_string(),
    })
}

/// `bytes` decoded against the basis `basis` describes, in the frame's JSON form.
pub fn decode_json(bytes: &[u8], basis: Option<&Value>) -> Result<Value, FrameError> {
    let frame = decode(bytes, &basis_of(basis)?).map_err(FrameError::Decode)?;
    // Through text, as every frame's JSON form: an f32 keeps its shortest form.
    serde_json::to_string(&frame)
        .and_then(|text| serde_json::from_str(&text))
        .map_err(|e| FrameError::Json {
            frame: FRAME.to_string(),
            message: e.to_string(),
        })
}

/// The frame's JSON form `value` encoded against the basis `basis` describes.
pub fn encode_json(value: &Value, basis: Option<&Value>) -> Result<Vec<u8>, FrameError> {
    encode(&read_value(value)?, &basis_of(basis)?)
}

/// Whether two JSON forms are the same coded frame once read into its type.
pub fn same_value(a: &Value, b: &Value) -> Result<bool, FrameError> {
    Ok(read_value(a)? == read_value(b)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_codec::acked::{AckedSchema, CodedReference};
    use serde_json::json;

    #[test]
    fn the_name_is_the_coded_schemas_frame_name() {
        assert_eq!(CodedReference.frame_name(), FRAME);
    }

    #[test]
    fn a_basis_reads_from_its_json_and_refuses_an_id_twice() {
        let state = json!({"x": 512, "y": 0, "z": 0, "yaw": 0, "flags": [], "measured": 3,
            "hp": 100, "armor": 0, "vehicle": 0, "seat": 0});
        let b = Basis::from_json(Some(&json!({"base": [{"eid": 3, "state": state}]}))).unwrap();
        assert_eq!(b.base(3).map(|s| s.x), Some(512));
        assert!(b.older(3).is_none());
        assert_eq!(Basis::from_json(None).unwrap(), Basis::default());
        assert_eq!(
            Basis::from_json(Some(&Value::Null)).unwrap(),
            Basis::default()
        );
        let twice = json!({"older": [{"eid": 3, "state": state}, {"eid": 3, "state": state}]});
        let e = Basis::from_json(Some(&twice)).unwrap_err();
        assert!(e.contains("entity 3 twice"), "{e}");
        let e = Basis::from_json(Some(&json!({"base": [{"eid": 3}]}))).unwrap_err();
        assert!(e.contains("state"), "{e}");
    }
}
