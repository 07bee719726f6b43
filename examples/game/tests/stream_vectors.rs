//! The game's stream vectors (`vectors/streams/`, written by `ackwire vectors --spec wire --out
//! vectors` over the state's binding interpreted at run time) replayed through the binding
//! `build.rs` generated from the same layout: both halves, in all three profiles (kinds 6, 12
//! and 13), send the same
//! bytes, tell the same reports and show the same state hashes. The command's bytes are the
//! compiled game's. The halves are `ackwire_server::testee`'s, which the game's generated Rust
//! testee serves too.

use ackwire_conformance::sessions::stream::replay;
use ackwire_conformance::streams::{read_streams, Side, StreamVector};
use ackwire_example_game::{Arena, CodedArena, PackedArena};
use ackwire_server::testee::{ServedSchema, StateClient, StateServer, DEFAULT_KEEP_INPUTS};
use serde_json::json;
use std::path::Path;

fn replay_with<S: ServedSchema + Default>(v: &StreamVector) {
    let keep = v.params["keep_inputs"]
        .as_u64()
        .map_or(DEFAULT_KEEP_INPUTS, |k| k as usize);
    let mut server = StateServer::<S>::new();
    replay(v, Side::Server, &mut server).unwrap_or_else(|e| panic!("{} server: {e}", v.name));
    let mut client = StateClient::<S>::new(keep);
    replay(v, Side::Client, &mut client).unwrap_or_else(|e| panic!("{} client: {e}", v.name));
}

#[test]
fn the_command_s_stream_vectors_are_the_compiled_binding_s() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/streams");
    let all = read_streams(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (mut kind6, mut kind12, mut kind13) = (0, 0, 0);
    for v in &all {
        match v.session.as_str() {
            "arena_update" => {
                replay_with::<Arena>(v);
                kind6 += 1;
            }
            "arena_packed" => {
                replay_with::<PackedArena>(v);
                kind12 += 1;
            }
            "arena_coded" => {
                replay_with::<CodedArena>(v);
                kind13 += 1;
            }
            other => panic!("{}: a session of no game frame, {other}", v.name),
        }
        // Every check a frame carried passed, and frames were shown.
        let shown = v
            .steps
            .iter()
            .filter_map(|s| s.expect.report.as_ref())
            .filter(|r| r.get("shown").is_some())
            .count();
        assert!(shown > 20, "{}: {shown} frames shown", v.name);
        assert!(v.steps.iter().all(|s| s
            .expect
            .report
            .as_ref()
            .is_none_or(|r| r.pointer("/shown/check") != Some(&json!(false)))));
    }
    assert!(
        kind6 >= 3 && kind12 >= 3 && kind13 >= 3,
        "{kind6} kind 6, {kind12} kind 12, {kind13} kind 13"
    );
}
