//! The stream vector format: a scripted world, a seeded network schedule, and what must hold
//! after every delivery. Stream vectors check session semantics, not only bytes (DESIGN.md
//! section 6, "stateful conformance"): apply only onto an acknowledged base, drop stale and
//! unknown-base frames, show events once, converge once the network heals.
//!
//! DESIGN.md section 5: "stream vectors: a scripted world, a seeded network schedule (loss,
//! duplicate, reorder, latency) and, after every delivery, the frames sent and the FNV-1a of
//! the client's state." The session steps fill `vectors/streams/` with cases of this format;
//! `vectors/README.md` documents it beside the frame vector format, and
//! `ackwire vectors --stream-schema` prints its JSON Schema.

use crate::netsim::{Direction, NetworkConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One stream vector file: a session run end to end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamVector {
    /// `<session>/<what>`, unique across the suite.
    pub name: String,
    /// One line.
    pub description: String,
    /// The seed document and section the behaviour comes from.
    pub seed: String,
    /// The session pair driven: `acked`, `datagram`, `baseline` or `delta`.
    pub session: String,
    /// The session's parameters (ring sizes, budgets), as the testee protocol's `open` takes
    /// them.
    #[serde(default)]
    pub params: serde_json::Value,
    /// Milliseconds per server tick.
    pub tick_ms: u64,
    /// The network between the server and the client; its seed makes the schedule.
    pub network: NetworkConfig,
    /// The world, tick by tick: what the server's simulation does (spawns, moves, events),
    /// in the session's own terms.
    pub world: Vec<WorldTick>,
    /// Every delivery, in order, and what must hold after it.
    pub steps: Vec<Step>,
}

/// What the world does on one tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldTick {
    /// The server tick.
    pub tick: u64,
    /// Operations on the world, per session (for example `{"spawn": {"eid": 3, ...}}`).
    pub ops: Vec<serde_json::Value>,
}

/// One frame delivered, and what must hold after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// When, in milliseconds from the start.
    pub at_ms: u64,
    /// Which way the frame travelled.
    pub direction: Direction,
    /// The frame's name in the spec.
    pub frame: String,
    /// The frame's bytes, hex.
    pub hex: String,
    /// What must hold afterwards.
    pub expect: Expect,
}

/// What must hold after a delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Frames the receiving side wants to send in reply, hex, in order.
    #[serde(default)]
    pub sent: Vec<String>,
    /// FNV-1a 32 of the client's state after the delivery (per session, as its spec defines
    /// the state's canonical bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_hash: Option<u32>,
    /// The receiver's report of the delivery (what changed, what was dropped and why), per
    /// session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
}

/// The JSON Schema of a stream vector file.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(StreamVector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netsim::LinkConfig;

    fn sample() -> StreamVector {
        StreamVector {
            name: "acked/five_percent_loss".into(),
            description: "a keyframe, then deltas onto acknowledged bases under 5% loss".into(),
            seed: "000".into(),
            session: "acked".into(),
            params: serde_json::json!({"sent_ring": 32}),
            tick_ms: 16,
            network: NetworkConfig {
                down: LinkConfig {
                    loss: 0.05,
                    jitter_ms: 20,
                    latency_ms: 50,
                    ..LinkConfig::default()
                },
                up: LinkConfig::perfect(),
                seed: 7,
            },
            world: vec![WorldTick {
                tick: 1,
                ops: vec![serde_json::json!({"spawn": {"eid": 1}})],
            }],
            steps: vec![Step {
                at_ms: 66,
                direction: Direction::Down,
                frame: "acked".into(),
                hex: "06 01 00 00 00".into(),
                expect: Expect {
                    sent: vec!["07 01 00 00 00 00 00".into()],
                    client_hash: Some(0x811c_9dc5),
                    report: None,
                },
            }],
        }
    }

    #[test]
    fn a_stream_vector_reads_back_and_validates_against_its_schema() {
        let v = sample();
        let json = serde_json::to_value(&v).unwrap();
        let back: StreamVector = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, v);
        let schema = serde_json::to_value(schema()).unwrap();
        assert_eq!(schema["title"], "StreamVector");
        let props = schema["properties"].as_object().unwrap();
        for key in ["name", "network", "world", "steps"] {
            assert!(props.contains_key(key), "{key} missing from the schema");
        }
    }

    #[test]
    fn unknown_members_are_refused() {
        let mut json = serde_json::to_value(sample()).unwrap();
        json["stpes"] = serde_json::json!([]);
        assert!(serde_json::from_value::<StreamVector>(json).is_err());
    }
}
