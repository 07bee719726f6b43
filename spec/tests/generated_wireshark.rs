//! The Wireshark dissector `ackwire gen --lang wireshark` writes, reviewed as snapshots: for the
//! reference protocol and for the kitchen sink (`sink/sink.wire`: 64-bit bit sets and tags,
//! big-endian fields, nested and ascending lists, quantized varints, wide packed fields), so
//! that a change of the printer or the lowering shows up as a diff. That the dissector agrees
//! with `ackwire explain` on every golden vector is checked in real tshark by
//! scripts/wireshark.sh.

use ackwire_spec::gen::wireshark::{generate, DISSECTOR};
use std::path::Path;

fn dissector(spec: &ackwire_spec::model::Spec) -> String {
    let files = generate(spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(files.len(), 1, "one file");
    assert_eq!(files[0].0, DISSECTOR);
    files[0].1.clone()
}

#[test]
fn wireshark_dissector_of_the_reference_protocol() {
    let (spec, _) = ackwire_spec::load(&[ackwire_spec::reference_protocol_dir().to_path_buf()])
        .unwrap_or_else(|e| panic!("{e}"));
    let lua = dissector(&spec);
    // Every frame is in the frame table and in the frame preference, by its snake_case name.
    for name in [
        "acked",
        "ack",
        "datagram",
        "datagram_ack",
        "spawn",
        "despawn",
        "full_frame",
        "snapshot",
        "snapshot_ack",
        "delta_plan",
        "delta_ack",
    ] {
        assert!(
            lua.contains(&format!("\"{name}\", ")),
            "{name} in the preference"
        );
        assert!(
            lua.contains(&format!("dissect.{name} = function(")),
            "{name}"
        );
    }
    // Every kind of the shared taxonomy is an expert info.
    for kind in ["truncated", "not_ascending", "non_finite", "unknown_tag"] {
        assert!(
            lua.contains(&format!("ProtoExpert.new(\"ackwire.{kind}\"")),
            "{kind}"
        );
    }
    insta::assert_snapshot!("wireshark_protocol", lua);
}

#[test]
fn wireshark_dissector_of_the_kitchen_sink() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sink/sink.wire");
    let (spec, _) = ackwire_spec::load(&[path]).unwrap_or_else(|e| panic!("{e}"));
    let lua = dissector(&spec);
    // The 64-bit tag has no value names (Wireshark takes numbers there) and is matched as text.
    assert!(lua.contains("t == \"18446744073709551615\""));
    // The kind byte 200 leads the frame table.
    assert!(lua.contains("constant = \"200\""));
    insta::assert_snapshot!("wireshark_sink", lua);
}

#[test]
fn names_lua_reserves_are_renamed_where_lua_needs_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wireshark/names.wire");
    let (spec, _) = ackwire_spec::load(&[path]).unwrap_or_else(|e| panic!("{e}"));
    let lua = dissector(&spec);
    // A field named `end` is a table key in brackets and a local with a `_` after it.
    assert!(lua.contains("[\"end\"] = ProtoField.uint8(\"ackwire.function.end\""));
    assert!(lua.contains("local end_ = rd:bit_set(bits.End, "));
    // A condition on it reads the renamed local; `local` and `type` are renamed the same way.
    assert!(lua.contains("if has(end_, bits.End.NIL) then"));
    assert!(lua.contains("local_ = rd:uint(1, false, p)"));
    assert!(lua.contains("local type_ = rd:uint(2, false, p)"));
    // The frame's function is reached through brackets: `function` is reserved.
    assert!(lua.contains("dissect[\"function\"] = function(rd, tree, path)"));
    // The path, shown as explain prints it, keeps the field's own name.
    assert!(lua.contains("p, at = join(path, \"end\"), rd:here()"));
}
