//! What `ackwire gen --lang fuzz` writes for a user's spec (examples/game), reviewed as
//! snapshots, and ackwire's own `.clusterfuzzlite/` held to what it writes for a repository
//! named `ackwire`. `scripts/own-spec.sh` builds and runs such crates.

use ackwire_spec::gen::fuzz::{clusterfuzzlite, crate_name, generate, Options, Seed};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the spec crate lives in the repository")
        .to_path_buf()
}

fn game() -> (ackwire_spec::model::Spec, Vec<(String, Vec<u8>)>) {
    let (spec, _) = ackwire_spec::load(&[repository().join("examples/game/wire")])
        .unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        repository: "my-game".to_string(),
        alloc_per_byte: 72,
        alloc_slack: 256,
        seeds: vec![
            Seed {
                frame: "match_update".to_string(),
                name: "match_update/empty".to_string(),
                bytes: vec![1, 0, 0, 0, 0, 0],
            },
            Seed {
                frame: "cube_update".to_string(),
                name: "cube_update/cut short".to_string(),
                bytes: vec![2, 0],
            },
        ],
    };
    let files = generate(&spec, &options);
    (spec, files)
}

fn text<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a str {
    let bytes = files
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| b.as_slice())
        .unwrap_or_else(|| panic!("{name} is not written"));
    std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn fuzz_crate_of_the_game() {
    let (spec, files) = game();
    assert_eq!(crate_name(&spec), "game-fuzz");
    let shown: Vec<String> = [
        "Cargo.toml",
        "src/lib.rs",
        "fuzz_targets/decode_match_update.rs",
        "fuzz_targets/decode_cube_update.rs",
        ".gitignore",
    ]
    .iter()
    .map(|name| format!("==> {name}\n{}", text(&files, name)))
    .collect();
    insta::assert_snapshot!("fuzz_game", shown.join("\n"));
}

/// The seeds become the corpus, one file each under the target of their frame, bytes as given.
#[test]
fn seeds_make_the_corpus() {
    let (_, files) = game();
    let corpus: Vec<(&str, &[u8])> = files
        .iter()
        .filter(|(n, _)| n.starts_with("corpus/"))
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    assert_eq!(
        corpus,
        [
            (
                "corpus/decode_match_update/match_update_empty",
                &[1u8, 0, 0, 0, 0, 0][..]
            ),
            (
                "corpus/decode_cube_update/cube_update_cut_short",
                &[2u8, 0][..]
            ),
        ]
    );
}

/// The crate carries its codec, the counting allocator of ackwire-testkit and a copy of
/// ackwire-rt, each as its source is.
#[test]
fn the_crate_carries_its_codec_and_runtime() {
    let (_, files) = game();
    assert!(text(&files, "src/protocol.rs").contains("pub struct MatchUpdate"));
    let counting = std::fs::read_to_string(repository().join("testkit/src/counting.rs"))
        .expect("the allocator's source reads");
    assert_eq!(text(&files, "src/counting.rs"), counting);
    let lib = std::fs::read_to_string(repository().join("rt/src/lib.rs")).expect("rt reads");
    assert_eq!(text(&files, "ackwire-rt/src/lib.rs"), lib);
}

/// ackwire's own `.clusterfuzzlite/` is what the generator writes for a repository named
/// `ackwire`, and a user's names their repository.
#[test]
fn clusterfuzzlite_files_are_ackwires_own() {
    for (name, text) in clusterfuzzlite("ackwire") {
        let ours = std::fs::read_to_string(repository().join(".clusterfuzzlite").join(&name))
            .unwrap_or_else(|e| panic!(".clusterfuzzlite/{name}: {e}"));
        assert_eq!(text, ours, ".clusterfuzzlite/{name}");
    }
    let (_, files) = game();
    let dockerfile = text(&files, ".clusterfuzzlite/Dockerfile");
    assert!(dockerfile.starts_with("# The image"), "{dockerfile}");
    assert!(dockerfile.contains("FROM gcr.io/oss-fuzz-base/base-builder-rust\n"));
    assert!(dockerfile.contains("COPY . $SRC/my-game\n"));
    assert!(text(&files, ".clusterfuzzlite/build.sh").contains("cargo fuzz build --fuzz-dir"));
    assert_eq!(
        text(&files, ".clusterfuzzlite/project.yaml"),
        "language: rust\n"
    );
}
