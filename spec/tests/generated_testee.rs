//! What `ackwire gen --testee` writes for a user's spec (examples/game), reviewed as snapshots:
//! in each language, the files written for the spec (the binding of its frames, the `main`, the
//! manifests and the `testee` script); the runtime files beside them are held to their sources,
//! none forgotten and none edited. `cli/tests/spec_testees.rs` builds and runs them.

use ackwire_spec::gen::testee::{
    generate, generate_with, Lang, CPP_RUNTIME_HEADER, CS_RUNTIME_FILE, RUST_CRATES, SCRIPT,
    TS_RUNTIME_FILE,
};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the spec crate lives in the repository")
        .to_path_buf()
}

fn game(lang: Lang) -> Vec<(String, String)> {
    generate(&spec_of("examples/game/wire"), lang)
}

/// The kitchen sink: frames of every shape, and no `state`.
fn sink(lang: Lang) -> Vec<(String, String)> {
    generate(&spec_of("spec/tests/sink"), lang)
}

fn spec_of(layouts: &str) -> ackwire_spec::model::Spec {
    ackwire_spec::load(&[repository().join(layouts)])
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    files
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("{name} is not written"))
}

/// The files of `lang`'s testee written for the game, one after another under their names.
fn written_for_the_spec(lang: Lang, names: &[&str]) -> String {
    written_for(&game(lang), names)
}

fn written_for(files: &[(String, String)], names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("==> {name}\n{}", file(files, name)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn typescript_testee_of_the_game() {
    insta::assert_snapshot!(
        "testee_ts",
        written_for_the_spec(
            Lang::Ts,
            &[
                "testee.ts",
                "main.ts",
                "tsconfig.json",
                "package.json",
                SCRIPT,
                ".gitignore"
            ]
        )
    );
}

#[test]
fn cpp_testee_of_the_game() {
    insta::assert_snapshot!(
        "testee_cpp",
        written_for_the_spec(Lang::Cpp, &["testee.hpp", "testee.cpp", SCRIPT])
    );
}

#[test]
fn cs_testee_of_the_game() {
    insta::assert_snapshot!(
        "testee_cs",
        written_for_the_spec(Lang::Cs, &["Testee.cs", "Main.cs", SCRIPT])
    );
}

/// The game has a state: its testee serves the acked halves too, over the ackwire crates.
#[test]
fn rust_testee_of_the_game() {
    insta::assert_snapshot!(
        "testee_rust",
        written_for_the_spec(Lang::Rust, &["Cargo.toml", "src/main.rs", SCRIPT])
    );
}

/// The sink has no state: its testee is its codec over a copy of ackwire-rt.
#[test]
fn rust_testee_of_a_spec_without_a_state() {
    insta::assert_snapshot!(
        "testee_rust_sink",
        written_for(
            &sink(Lang::Rust),
            &["Cargo.toml", "src/main.rs", "ackwire-rt/Cargo.toml"]
        )
    );
}

/// A Rust testee of a state depends on the ackwire crates of this version, carries no copy of
/// ackwire-rt (the binding's types must be the machines'), and, given a checkout, builds over its
/// crates: a `[patch.crates-io]` of each, by its path, quoted as TOML quotes it.
#[test]
fn the_rust_testee_of_a_state_builds_over_the_ackwire_crates() {
    let spec = spec_of("examples/game/wire");
    let published = generate(&spec, Lang::Rust);
    assert!(published.iter().all(|(n, _)| !n.starts_with("ackwire-rt/")));
    let manifest = file(&published, "Cargo.toml");
    assert!(!manifest.contains("[patch"), "{manifest}");
    for (name, dir) in RUST_CRATES {
        assert!(
            manifest.contains(&format!("{name} = ")),
            "{name} in {manifest}"
        );
        let original = std::fs::read_to_string(repository().join(dir).join("Cargo.toml"))
            .expect("a crate's manifest reads");
        assert!(original.contains("version.workspace = true"), "{dir}");
    }
    assert!(manifest.contains(&format!("\"={}\"", env!("CARGO_PKG_VERSION"))));
    let odd = std::path::Path::new("/odd \"place\"\\x");
    let patched = generate_with(&spec, Lang::Rust, Some(odd));
    let manifest = file(&patched, "Cargo.toml");
    let patch = &manifest[manifest.find("[patch.crates-io]").expect("a patch")..];
    for (name, dir) in RUST_CRATES {
        assert!(
            patch.contains(&format!(
                "{name} = {{ path = \"/odd \\\"place\\\"\\\\x/{dir}\" }}"
            )),
            "{name}: {patch}"
        );
    }
    // Only the manifest differs; the script leaves to cargo when to build over a checkout.
    for ((n, a), (_, b)) in published.iter().zip(&patched) {
        assert!(n == "Cargo.toml" || a == b, "{n}");
    }
    assert!(file(&patched, SCRIPT).contains("patch.crates-io"));
    let main = file(&published, "src/main.rs");
    for schema in ["Arena", "PackedArena"] {
        assert!(main.contains(&format!("sessions.add::<protocol::{schema}>();")));
    }
}

/// Every language's testee holds its codec, as the codec's own generator writes it.
#[test]
fn the_codec_is_the_one_gen_writes() {
    let (spec, _) = ackwire_spec::load(&[repository().join("examples/game/wire")])
        .unwrap_or_else(|e| panic!("{e}"));
    for (lang, codec) in [
        (Lang::Ts, ackwire_spec::gen::ts::generate(&spec)),
        (Lang::Cpp, ackwire_spec::gen::cpp::generate(&spec)),
        (Lang::Cs, ackwire_spec::gen::cs::generate(&spec)),
    ] {
        let files = generate(&spec, lang);
        for (name, text) in &codec {
            assert_eq!(file(&files, name), text, "{lang:?}: {name}");
        }
    }
    let rust = generate(&spec, Lang::Rust);
    assert!(file(&rust, "src/protocol.rs")
        .starts_with("// @generated by ackwire-spec from game.wire. Do not edit"));
    assert!(file(&rust, "src/protocol.rs").contains("pub fn visit_frame<"));
}

/// The runtime's file that answers requests is written as it is in each language.
#[test]
fn the_runtimes_testee_is_written_as_it_is() {
    let root = repository();
    let ts = game(Lang::Ts);
    let source = std::fs::read_to_string(root.join("typescript/src").join(TS_RUNTIME_FILE))
        .expect("the TypeScript source reads");
    assert!(file(&ts, &format!("runtime/{TS_RUNTIME_FILE}")).ends_with(&source));
    let cpp = game(Lang::Cpp);
    let source = std::fs::read_to_string(root.join("cpp/include").join(CPP_RUNTIME_HEADER))
        .expect("the C++ source reads");
    assert_eq!(file(&cpp, CPP_RUNTIME_HEADER), source);
    let cs = game(Lang::Cs);
    let source = std::fs::read_to_string(root.join("csharp/src").join(CS_RUNTIME_FILE))
        .expect("the C# source reads");
    assert_eq!(file(&cs, &format!("Runtime/{CS_RUNTIME_FILE}")), source);
}

/// The Rust testee of a spec without a state carries every source file of `ackwire-rt` (rt/src)
/// as it is, and a manifest with the same version and dependencies as rt/Cargo.toml.
#[test]
fn the_rust_testee_carries_a_copy_of_ackwire_rt() {
    let rt = repository().join("rt");
    let files = sink(Lang::Rust);
    let mut on_disk: Vec<String> = std::fs::read_dir(rt.join("src"))
        .expect("rt/src reads")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".rs"))
        .collect();
    on_disk.sort();
    let mut copied: Vec<&str> = files
        .iter()
        .filter_map(|(n, _)| n.strip_prefix("ackwire-rt/src/"))
        .collect();
    copied.sort_unstable();
    assert_eq!(copied, on_disk);
    for name in &on_disk {
        let source = std::fs::read_to_string(rt.join("src").join(name)).expect("a source reads");
        assert_eq!(
            file(&files, &format!("ackwire-rt/src/{name}")),
            source,
            "{name}"
        );
    }
    let manifest = file(&files, "ackwire-rt/Cargo.toml");
    assert!(manifest.contains(&format!("version = \"{}\"", env!("CARGO_PKG_VERSION"))));
    let original = std::fs::read_to_string(rt.join("Cargo.toml")).expect("rt/Cargo.toml reads");
    for table in ["[features]", "[dependencies]"] {
        assert_eq!(
            names_in(&original, table),
            names_in(manifest, table),
            "{table} of the copy of ackwire-rt"
        );
    }
}

/// The keys of `table` in a Cargo manifest.
fn names_in(manifest: &str, table: &str) -> Vec<String> {
    let Some(start) = manifest.find(table) else {
        return Vec::new();
    };
    manifest[start + table.len()..]
        .lines()
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split('=').next())
        .map(|k| k.trim().trim_end_matches(".workspace").to_string())
        .collect()
}

/// The TypeScript testee pins the compiler the bundled testee pins: the same lock, but its
/// package's name.
#[test]
fn the_typescript_testee_pins_the_bundled_testees_compiler() {
    let bundled =
        std::fs::read_to_string(repository().join("conformance/testees/ts/package-lock.json"))
            .expect("the bundled lock reads");
    let files = game(Lang::Ts);
    assert_eq!(
        file(&files, "package-lock.json"),
        bundled.replace("\"ackwire-ts-testee\"", "\"ackwire-testee\"")
    );
}
