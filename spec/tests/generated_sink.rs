//! The code every backend generates for `sink/sink.wire`, a layout file using every construct
//! of the language, reviewed as snapshots: what the reference protocol does not exercise
//! (64-bit bit sets and tags, big-endian fields, nested lists, ascending integers, quantized
//! varints, wide packed fields) shows up here as a diff when a printer or the lowering changes.

use std::path::Path;

fn sink() -> ackwire_spec::model::Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sink/sink.wire");
    let (spec, _) = ackwire_spec::load(&[path]).unwrap_or_else(|e| panic!("{e}"));
    spec
}

fn only<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    files
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("{name} is not generated"))
}

#[test]
fn rust_codec_of_the_kitchen_sink() {
    let code = ackwire_spec::Builder::new()
        .path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sink/sink.wire"))
        .arbitrary(true)
        .generate()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(code.contains("pub struct Sink"));
    insta::assert_snapshot!("sink_rust", code);
}

#[test]
fn ts_codec_of_the_kitchen_sink() {
    let files = ackwire_spec::gen::ts::generate(&sink()).unwrap_or_else(|e| panic!("{e}"));
    let code = only(&files, "protocol.ts");
    assert!(code.contains("export function readSink("));
    insta::assert_snapshot!("sink_ts", code);
}

#[test]
fn cpp_codec_of_the_kitchen_sink() {
    let files = ackwire_spec::gen::cpp::generate(&sink()).unwrap_or_else(|e| panic!("{e}"));
    let code = only(&files, ackwire_spec::gen::cpp::PROTOCOL_HEADER);
    assert!(code.contains("struct Sink"));
    insta::assert_snapshot!("sink_cpp", code);
}

#[test]
fn cs_codec_of_the_kitchen_sink() {
    let files = ackwire_spec::gen::cs::generate(&sink()).unwrap_or_else(|e| panic!("{e}"));
    let code = only(&files, ackwire_spec::gen::cs::PROTOCOL_FILE);
    assert!(code.contains("public sealed class Sink"));
    insta::assert_snapshot!("sink_cs", code);
}
