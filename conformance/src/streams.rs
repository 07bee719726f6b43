//! The stream vector format: a session run end to end through a simulated network, recorded as the
//! log of everything each half was given and what it did in return. Stream vectors check session
//! semantics, not only bytes: apply only onto an acknowledged base, drop stale and unknown-base
//! frames, show events once, converge once the network heals.
//!
//! TESTEE-12: a vector holds the session's parameters, a scripted world and a seeded network
//! schedule (loss, duplication, reordering, latency), and for every step the frames sent, the
//! report of each delivery and the client's state hash; TESTEE-10 and TESTEE-11 say how a replay is
//! judged.
//!
//! A vector is a log of [`Step`]s. Each step gives one half (`server` or `client`) one input
//! (a tick of the scripted world, or a frame the network delivered) and says what that half
//! must do in return (what it tells of a delivered frame, the frames it sends, and for the
//! client the hash of its state). The
//! network's decisions are already in the log, so replaying it needs no simulator: a testee
//! that implements either half can be checked against it alone.
//!
//! `vectors/README.md` documents the format beside the frame vector format, and
//! `ackwire vectors --stream-schema` prints its JSON Schema.

use crate::netsim::NetworkConfig;
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
    /// The rules of `docs/spec/` the vector checks.
    pub seed: String,
    /// The session pair driven: `acked`, `datagram`, `baseline` or `delta`. Its halves are
    /// opened as `<session>_server` and `<session>_client`.
    pub session: String,
    /// The session's parameters (ring sizes, budgets), as the testee protocol's `open` takes
    /// them.
    #[serde(default)]
    pub params: serde_json::Value,
    /// Milliseconds per server tick.
    pub tick_ms: u64,
    /// The network the run went through (for the record: its decisions are in `steps`).
    pub network: NetworkConfig,
    /// Everything each half was given, in order, and what it must do in return.
    pub steps: Vec<Step>,
}

/// Which half of the session a step drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The server's half.
    Server,
    /// The client's half.
    Client,
}

/// One input to one half, and what must hold after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// When, in milliseconds from the start.
    pub at_ms: u64,
    /// The half that is given the input.
    pub side: Side,
    /// The input.
    pub action: Action,
    /// What must hold afterwards.
    pub expect: Expect,
}

/// The input of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// A server tick passes; the world does `ops` (in the session's own terms, such as
    /// `{"spawn": {"eid": 3}}`).
    Advance {
        /// The tick.
        tick: u64,
        /// What the world does on it.
        ops: Vec<serde_json::Value>,
    },
    /// The network delivers a frame.
    Deliver {
        /// The frame's name in the spec.
        frame: String,
        /// Its bytes, hex.
        hex: String,
    },
}

/// A frame a half sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SentFrame {
    /// The frame's name in the spec.
    pub frame: String,
    /// Its bytes, hex.
    pub hex: String,
    /// Whether it goes on the reliable channel.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reliable: bool,
}

/// What must hold after a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The frames the half sends in return, in order (what `take` gives after the step).
    #[serde(default)]
    pub sent: Vec<SentFrame>,
    /// The client's state hash after the step (FNV-1a 32 of the state's canonical bytes, as
    /// the session defines them); client steps only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_hash: Option<u32>,
    /// Deliveries: what the half tells of the frame (what it changed, or why it dropped it), in
    /// the session's canonical form (`conformance/PROTOCOL.md`, "Reports"), compared by
    /// [`report_difference`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
}

/// TESTEE-11: where a half's report of a delivery first differs from the one a stream vector
/// expects (`shown.measured`, `events[2].serial`; empty for the report itself), or `None` when it
/// is the same report in the canonical form `conformance/PROTOCOL.md` ("Reports") gives every
/// session's reports: the same members with the same values, a number equal to the same number
/// however it is written (`90`, `90.0`) or to the decimal string of the same integer (a 64-bit
/// value beyond 2^53 - 1, as frames print them), arrays in the same order. Two members are prose,
/// each implementation's own, and not compared: the `why` of an acked frame dropped as
/// `inapplicable`, and a delta client's `refused` (the limit a plan met).
pub fn report_difference(
    expected: &serde_json::Value,
    actual: &serde_json::Value,
) -> Option<String> {
    use serde_json::Value;
    let within = |at: String, inner: Option<String>| {
        inner.map(
            |rest| match (at.is_empty(), rest.is_empty() || rest.starts_with('[')) {
                (true, _) => rest,
                (false, true) => format!("{at}{rest}"),
                (false, false) => format!("{at}.{rest}"),
            },
        )
    };
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            let inapplicable = a.get("dropped").and_then(Value::as_str) == Some("inapplicable");
            let prose = |k: &str| {
                (inapplicable && k == "why")
                    || (k == "refused" && a.get(k).is_some_and(Value::is_string))
            };
            let compared = |k: &String| !prose(k);
            let keys_a: Vec<&String> = a.keys().filter(|k| compared(k)).collect();
            let keys_b: Vec<&String> = b.keys().filter(|k| compared(k)).collect();
            if let Some(k) = keys_a.iter().find(|k| !b.contains_key(k.as_str())) {
                return Some(k.to_string());
            }
            if let Some(k) = keys_b.iter().find(|k| !a.contains_key(k.as_str())) {
                return Some(k.to_string());
            }
            keys_a
                .into_iter()
                .find_map(|k| within(k.clone(), report_difference(&a[k], &b[k])))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| within(format!("[{i}]"), report_difference(x, y))),
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_u64(), b.as_u64(), a.as_i64(), b.as_i64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            (!same).then(String::new)
        }
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            (n.as_u64().is_none() || s.parse::<u64>().ok() != n.as_u64()).then(String::new)
        }
        (a, b) => (a != b).then(String::new),
    }
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
            seed: "GEN-3".into(),
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
            steps: vec![
                Step {
                    at_ms: 16,
                    side: Side::Server,
                    action: Action::Advance {
                        tick: 1,
                        ops: vec![serde_json::json!({"spawn": {"eid": 1}})],
                    },
                    expect: Expect {
                        sent: vec![SentFrame {
                            frame: "acked".into(),
                            hex: "06 01 00 00 00".into(),
                            reliable: false,
                        }],
                        client_hash: None,
                        report: None,
                    },
                },
                Step {
                    at_ms: 66,
                    side: Side::Client,
                    action: Action::Deliver {
                        frame: "acked".into(),
                        hex: "06 01 00 00 00".into(),
                    },
                    expect: Expect {
                        sent: vec![],
                        client_hash: Some(0x811c_9dc5),
                        report: Some(serde_json::json!({"applied": true})),
                    },
                },
            ],
        }
    }

    #[test]
    fn a_stream_vector_reads_back_and_its_schema_names_every_part() {
        let v = sample();
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["steps"][0]["action"]["advance"]["tick"], 1);
        let back: StreamVector = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, v);
        let schema = serde_json::to_value(schema()).unwrap();
        assert_eq!(schema["title"], "StreamVector");
        let props = schema["properties"].as_object().unwrap();
        for key in ["name", "session", "network", "steps"] {
            assert!(props.contains_key(key), "{key} missing from the schema");
        }
    }

    #[test]
    fn reports_differ_where_a_member_or_a_value_differs_not_where_a_number_is_spelt_otherwise() {
        use serde_json::json;
        let shown = json!({"shown": {"tick": 5, "measured": "1@4 2@5",
            "events": [{"serial": 2, "event": {"shot": {"yaw": 90.0}}}], "check": null}});
        let respelt = json!({"shown": {"check": null, "tick": 5.0, "measured": "1@4 2@5",
            "events": [{"event": {"shot": {"yaw": 90}}, "serial": "2"}]}});
        assert_eq!(report_difference(&shown, &respelt), None);
        let mut told = shown.clone();
        told["shown"]["measured"] = json!("1@4");
        assert_eq!(
            report_difference(&shown, &told).as_deref(),
            Some("shown.measured")
        );
        let mut twice = shown.clone();
        twice["shown"]["events"][0]["serial"] = json!(1);
        assert_eq!(
            report_difference(&shown, &twice).as_deref(),
            Some("shown.events[0].serial")
        );
        let mut more = shown.clone();
        more["shown"]["events"]
            .as_array_mut()
            .unwrap()
            .push(json!({"serial": 3}));
        assert_eq!(
            report_difference(&shown, &more).as_deref(),
            Some("shown.events")
        );
        let mut extra = shown.clone();
        extra["shown"]["gone"] = json!("");
        assert_eq!(
            report_difference(&shown, &extra).as_deref(),
            Some("shown.gone")
        );
        assert_eq!(
            report_difference(&extra, &shown).as_deref(),
            Some("shown.gone")
        );
        let stale = json!({"dropped": "stale", "tick": 4});
        assert_eq!(
            report_difference(&stale, &shown).as_deref(),
            Some("dropped")
        );
        assert_eq!(
            report_difference(&stale, &json!({"dropped": "unknown_base", "tick": 4})).as_deref(),
            Some("dropped")
        );
        assert_eq!(
            report_difference(&json!(1.5), &json!(1)).as_deref(),
            Some("")
        );
        assert_eq!(
            report_difference(&json!(-1), &json!("-1")).as_deref(),
            Some("")
        );
        // An inapplicable frame's `why` is each implementation's own text.
        let a = json!({"dropped": "inapplicable", "tick": 9, "why": "changes not in ascending id order"});
        let b = json!({"dropped": "inapplicable", "tick": 9, "why": "out of order"});
        assert_eq!(report_difference(&a, &b), None);
        let c = json!({"dropped": "inapplicable", "tick": 8, "why": "out of order"});
        assert_eq!(report_difference(&a, &c).as_deref(), Some("tick"));
        let limit = json!({"refused": "delta mirror, delta_plan 3: would hold 9 keys", "held": 8});
        let other = json!({"refused": "over max_keys", "held": 8});
        assert_eq!(report_difference(&limit, &other), None);
        let more = json!({"refused": "over max_keys", "held": 9});
        assert_eq!(report_difference(&limit, &more).as_deref(), Some("held"));
    }

    #[test]
    fn unknown_members_are_refused() {
        let mut json = serde_json::to_value(sample()).unwrap();
        json["stpes"] = serde_json::json!([]);
        assert!(serde_json::from_value::<StreamVector>(json).is_err());
    }
}

/// Why stream vector files could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamFileError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is not a stream vector.
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        /// The file.
        path: std::path::PathBuf,
        /// Where.
        line: usize,
        /// Where.
        column: usize,
        /// What serde said.
        message: String,
    },
}

/// The file a vector is kept in under `dir`: `<session>/<what>.json` from its name.
pub fn path_of(dir: &std::path::Path, vector: &StreamVector) -> std::path::PathBuf {
    let mut p = dir.to_path_buf();
    for part in vector.name.split('/') {
        p.push(part);
    }
    p.set_extension("json");
    p
}

/// Writes `vectors` under `dir` (pretty JSON, one file each), removing stream vector files of
/// the same sessions that no vector names any more.
pub fn write_streams(
    dir: &std::path::Path,
    vectors: &[StreamVector],
) -> Result<Vec<std::path::PathBuf>, StreamFileError> {
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| StreamFileError::Io { path, source }
    };
    let mut written = Vec::new();
    for v in vectors {
        let path = path_of(dir, v);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let text = serde_json::to_string_pretty(v).expect("a stream vector serializes") + "\n";
        std::fs::write(&path, text).map_err(io(&path))?;
        written.push(path);
    }
    for path in read_paths(dir)? {
        if !written.contains(&path) {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(written)
}

fn read_paths(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, StreamFileError> {
    let mut out = Vec::new();
    let Ok(sessions) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for session in sessions.filter_map(Result::ok) {
        if !session.path().is_dir() {
            continue;
        }
        let files = std::fs::read_dir(session.path()).map_err(|source| StreamFileError::Io {
            path: session.path(),
            source,
        })?;
        out.extend(
            files
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json")),
        );
    }
    out.sort();
    Ok(out)
}

/// Reads every stream vector under `dir` (none when it does not exist).
pub fn read_streams(dir: &std::path::Path) -> Result<Vec<StreamVector>, StreamFileError> {
    read_paths(dir)?
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|source| StreamFileError::Io {
                path: path.clone(),
                source,
            })?;
            serde_json::from_str(&text).map_err(|e| StreamFileError::Json {
                path,
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })
        })
        .collect()
}
