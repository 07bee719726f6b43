//! `ackwire gen --testee`: a spec's codec with, beside it, a testee that speaks
//! `conformance/PROTOCOL.md` for the spec's frames, in Rust, TypeScript, C++ or C#, so that a
//! team proves each of its implementations of its own spec with `ackwire conform`.
//!
//! What answers a request is the same for every spec, so it lives in each language's runtime
//! (`ackwire_rt::testee`, `typescript/src/testee.ts`, `cpp/include/ackwire_testee.hpp`,
//! `csharp/src/Testee.cs`), where that language's own tools check it, and is written out beside
//! the codec as the other runtime files are. What is written for the spec is small: a file that
//! names the codec's frames for the runtime and serves them on standard input and output, a
//! `main` that starts it, and [`SCRIPT`], an executable that builds the testee on its first run
//! (the toolchains the bundled testees use: the pinned TypeScript compiler through npm, g++,
//! Mono's mcs, cargo) and then runs it; a second run builds nothing. While it builds, it writes
//! a line to standard error every two seconds, which a runner waiting for `hello` takes as a
//! sign of life (`conformance/PROTOCOL.md`).
//!
//! The Rust testee of a spec without a `state` is a cargo package over a copy of `ackwire-rt`
//! written beside it (`ackwire-rt/`), the same way the other languages get their runtime: the
//! codec and its runtime come from the same ackwire, and nothing of ackwire is fetched from a
//! registry. With a state it also serves the acked halves, which need the machines of
//! `ackwire-codec` and the halves of `ackwire-server` (feature `testee`); copying those crates'
//! sources would ship a second, unchecked ackwire, so it depends on them as a user's crate does,
//! on the published crates of this ackwire's exact version, and on `ackwire-rt` too (the binding's
//! types must be the machines' own). [`generate_with`] given a checkout (what [`checkout`] finds
//! when this ackwire was built from one that is still there, which `ackwire gen` and the bundled
//! tests pass) adds a `[patch.crates-io]` to its crates, so the testee builds offline from the
//! checkout, wherever it is written; its script then leaves to cargo when to build.
//!
//! A state's halves are served for each frame it is sent in, its coded frame (kind 13) too in
//! Rust, TypeScript and C#, whose generators print its schema; the C++ testee does not serve the
//! coded frame's halves yet, which `ackwire conform` then reports unimplemented, not failed.

use super::{cpp, cs, rust, source_names, ts};
use crate::model::Spec;
use std::path::{Path, PathBuf};

/// The executable every testee folder holds: builds the testee when needed, then runs it.
pub const SCRIPT: &str = "testee";

/// A language a testee is generated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// A cargo package over the generated Rust codec.
    Rust,
    /// TypeScript, compiled by the pinned `tsc` and run by node.
    Ts,
    /// C++17, compiled by g++ under AddressSanitizer and UBSan.
    Cpp,
    /// C# 7.2, compiled by Mono's mcs and run by Mono.
    Cs,
}

/// The TypeScript runtime's file that answers requests (`typescript/src`), written into
/// `runtime/` with `--testee` only.
pub const TS_RUNTIME_FILE: &str = "testee.ts";

/// The TypeScript runtime's file that serves a state's acked session halves (`typescript/src`),
/// written into `runtime/` with `--testee` only.
pub const TS_STATE_RUNTIME_FILE: &str = "state_testee.ts";

/// The C# runtime's file that serves a state's acked session halves (`csharp/src`), written
/// into `Runtime/` with `--testee` only.
pub const CS_STATE_RUNTIME_FILE: &str = "StateTestee.cs";

/// The C++ runtime's header that serves a state's acked session halves (`cpp/include`), written
/// with `--testee` only.
pub const CPP_STATE_RUNTIME_HEADER: &str = "ackwire_state_testee.hpp";

/// The C++ runtime's header that answers requests (`cpp/include`), written with `--testee` only.
pub const CPP_RUNTIME_HEADER: &str = "ackwire_testee.hpp";

/// The C# runtime's file that answers requests (`csharp/src`), written into `Runtime/` with
/// `--testee` only.
pub const CS_RUNTIME_FILE: &str = "Testee.cs";

/// The script's part shared by every language: when to build, and building with a sign of life.
const PRELUDE: &str = include_str!("testee/prelude.sh");

/// What `.gitignore` keeps out of a testee folder: what the script builds and installs.
const GITIGNORE: &str = include_str!("testee/gitignore");

/// The sources of `ackwire-rt` (`rt/src`), which a generated Rust crate gets a copy of.
pub(crate) const RUST_RUNTIME_FILES: &[(&str, &str)] = &[
    ("lib.rs", include_str!("../../runtime/rust/lib.rs")),
    ("bits.rs", include_str!("../../runtime/rust/bits.rs")),
    ("bucket.rs", include_str!("../../runtime/rust/bucket.rs")),
    ("coded.rs", include_str!("../../runtime/rust/coded.rs")),
    ("error.rs", include_str!("../../runtime/rust/error.rs")),
    ("quat.rs", include_str!("../../runtime/rust/quat.rs")),
    ("range.rs", include_str!("../../runtime/rust/range.rs")),
    ("testee.rs", include_str!("../../runtime/rust/testee.rs")),
];

/// The ackwire crates a Rust testee of a spec with a state depends on, by their folders in a
/// checkout.
pub const RUST_CRATES: [(&str, &str); 3] = [
    ("ackwire-rt", "rt"),
    ("ackwire-codec", "codec"),
    ("ackwire-server", "server"),
];

/// The checkout this ackwire was built from, when it is still there (it holds every crate of
/// [`RUST_CRATES`]): what a testee over the ackwire crates is built from offline.
pub fn checkout() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    RUST_CRATES
        .iter()
        .all(|(_, dir)| root.join(dir).join("Cargo.toml").is_file())
        .then(|| root.to_path_buf())
}

/// Every file of the testee of `spec` in `lang`, the codec included, as (path relative to the
/// output folder, contents). [`SCRIPT`] must be made executable. A Rust testee of a spec with a
/// state depends on the published ackwire crates ([`generate_with`] builds it from a checkout).
pub fn generate(spec: &Spec, lang: Lang) -> Vec<(String, String)> {
    generate_with(spec, lang, None)
}

/// [`generate`], a Rust testee of a spec with a state built over the ackwire crates of the
/// checkout `crates` (a `[patch.crates-io]` in its manifest) when one is given.
pub fn generate_with(spec: &Spec, lang: Lang, crates: Option<&Path>) -> Vec<(String, String)> {
    let sources = source_names(spec).join(", ");
    let slashes = |text: &str| {
        format!("// @generated by ackwire-spec from {sources}. Do not edit: change the layout files.\n{text}")
    };
    let mut files: Vec<(String, String)> = match lang {
        Lang::Rust => rust_files(spec, &sources, crates),
        Lang::Ts => {
            let mut files = ts::generate(spec);
            files.push((
                format!("{}/{TS_RUNTIME_FILE}", ts::RUNTIME_DIR),
                ts::runtime_copy(TS_RUNTIME_FILE, include_str!("../../runtime/ts/testee.ts")),
            ));
            files.push((
                format!("{}/{TS_STATE_RUNTIME_FILE}", ts::RUNTIME_DIR),
                ts::runtime_copy(
                    TS_STATE_RUNTIME_FILE,
                    include_str!("../../runtime/ts/state_testee.ts"),
                ),
            ));
            files.push((
                "testee.ts".into(),
                slashes(include_str!("testee/ts/testee.ts")),
            ));
            files.push(("main.ts".into(), slashes(&ts_main(spec))));
            for (name, text) in [
                ("package.json", include_str!("testee/ts/package.json")),
                (
                    "package-lock.json",
                    include_str!("testee/ts/package-lock.json"),
                ),
                ("tsconfig.json", include_str!("testee/ts/tsconfig.json")),
            ] {
                files.push((name.to_string(), text.to_string()));
            }
            files
        }
        Lang::Cpp => {
            let mut files = cpp::generate(spec);
            files.push((
                CPP_RUNTIME_HEADER.into(),
                include_str!("../../runtime/cpp/ackwire_testee.hpp").into(),
            ));
            files.push((
                "testee.hpp".into(),
                slashes(include_str!("testee/cpp/testee.hpp")),
            ));
            files.push((
                CPP_STATE_RUNTIME_HEADER.into(),
                include_str!("../../runtime/cpp/ackwire_state_testee.hpp").into(),
            ));
            files.push(("testee.cpp".into(), slashes(&cpp_main(spec))));
            files
        }
        Lang::Cs => {
            let mut files = cs::generate(spec);
            files.push((
                format!("{}/{CS_RUNTIME_FILE}", cs::RUNTIME_DIR),
                include_str!("../../runtime/cs/Testee.cs").into(),
            ));
            files.push((
                format!("{}/{CS_STATE_RUNTIME_FILE}", cs::RUNTIME_DIR),
                include_str!("../../runtime/cs/StateTestee.cs").into(),
            ));
            files.push((
                "Testee.cs".into(),
                slashes(include_str!("testee/cs/Testee.cs")),
            ));
            files.push(("Main.cs".into(), slashes(&cs_main(spec))));
            files
        }
    };
    let script = match lang {
        Lang::Rust => include_str!("testee/rust/testee.sh"),
        Lang::Ts => include_str!("testee/ts/testee.sh"),
        Lang::Cpp => include_str!("testee/cpp/testee.sh"),
        Lang::Cs => include_str!("testee/cs/testee.sh"),
    };
    files.push((
        SCRIPT.to_string(),
        format!(
            "#!/usr/bin/env bash\n# @generated by ackwire-spec from {sources}. Do not edit: change the layout files.\n{}",
            script.replace("@PRELUDE@", PRELUDE.trim_end())
        ),
    ));
    files.push((".gitignore".to_string(), GITIGNORE.to_string()));
    files
}

/// The states a testee serves acked session halves of: those with a byte-aligned frame, an ack
/// and inputs.
fn served_states(spec: &Spec) -> Vec<crate::state::StatePlan> {
    crate::state::plans(spec)
        .into_iter()
        .filter(|p| p.ack.is_some() && p.inputs.is_some() && p.byte_profile().is_some())
        .collect()
}

/// The frames a state is sent in, by the schema each is bound by: its byte-aligned and packed
/// frames, then its coded frame (kind 13, `Coded` + the state's name, as each generator names
/// the schema) when it declares one.
fn served_frames(p: &crate::state::StatePlan) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = p
        .profiles
        .iter()
        .map(|f| (f.frame_name.clone(), f.schema.clone()))
        .collect();
    if let Some(c) = &p.coded {
        out.push((c.frame_name.clone(), format!("Coded{}", p.name)));
    }
    out
}

/// The C++ testee's `testee.cpp`: serves the codec, and with a state, the acked session halves of
/// each frame it is sent in (`ackwire_state_testee.hpp`), bound by the generated schemas.
fn cpp_main(spec: &Spec) -> String {
    let plans = served_states(spec);
    if plans.is_empty() {
        return include_str!("testee/cpp/testee.cpp").to_string();
    }
    let mut out = String::from(
        "//\n// Runs the testee of protocol.hpp (testee.hpp) with the acked session halves of every state\n\
         // (ackwire_state_testee.hpp): what ./testee builds.\n\n#include \"testee.hpp\"\n",
    );
    for p in &plans {
        out.push_str(&format!("#include \"{}\"\n", cpp::state_file_name(p)));
    }
    out.push_str(
        "#include \"ackwire_state_testee.hpp\"\n\nint main() {\n    ackwire::testee::StateSessions sessions;\n",
    );
    for p in &plans {
        for (_, schema) in served_frames(p) {
            out.push_str(&format!(
                "    sessions.add<ackwire::{}::{}>();\n",
                super::snake_case(&p.name),
                schema
            ));
        }
    }
    out.push_str("    return ackwire::testee::serve(&sessions);\n}\n");
    out
}

/// The C# testee's `Main.cs`: serves the codec, and with a state, the acked session halves of
/// each frame it is sent in (`Runtime/StateTestee.cs`), bound by the generated schemas.
fn cs_main(spec: &Spec) -> String {
    let plans = served_states(spec);
    if plans.is_empty() {
        return include_str!("testee/cs/Main.cs").to_string();
    }
    let mut out = String::from(
        "//\n// Runs the testee of Protocol.cs (Testee.cs) with the acked session halves of every state\n\
         // (Runtime/StateTestee.cs): what ./testee builds.\n\n\
         using Ackwire.Protocol;\nusing Ackwire.Runtime;\n\n\
         static class Program\n{\n    static int Main()\n    {\n        StateSessions sessions = new StateSessions();\n",
    );
    for p in &plans {
        for (frame, schema) in served_frames(p) {
            out.push_str(&format!(
                "        sessions.Add(StateSessions.Frame(\"{}\", {}.Schema, {}.FromJson, {}.FromJson, {}.FromJson, (e, j) => e.ToJson(j)));\n",
                frame,
                schema,
                p.record.name,
                p.events,
                p.inputs.as_deref().unwrap_or_default()
            ));
        }
    }
    out.push_str("        return ProtocolTestee.Serve(sessions);\n    }\n}\n");
    out
}

/// The TypeScript testee's `main.ts`: serves the codec, and with a state, the acked session halves
/// of each frame it is sent in (`runtime/state_testee.ts`), bound by the generated schemas.
fn ts_main(spec: &Spec) -> String {
    let plans = served_states(spec);
    if plans.is_empty() {
        return include_str!("testee/ts/main.ts").to_string();
    }
    let mut out = String::from(
        "//\n// Runs the testee of protocol.ts (testee.ts) with the acked session halves of every state\n\
         // (runtime/state_testee.ts): what ./testee starts.\n\n",
    );
    let mut json = Vec::new();
    for p in &plans {
        json.push(format!("{}Json", p.record.name));
        json.push(format!("{}Json", p.events));
        json.extend(p.inputs.iter().map(|i| format!("{i}Json")));
    }
    json.sort();
    json.dedup();
    out.push_str(&format!(
        "import {{ {} }} from \"./protocol.js\";\n",
        json.join(", ")
    ));
    for p in &plans {
        let schemas: Vec<String> = served_frames(p).into_iter().map(|(_, s)| s).collect();
        out.push_str(&format!(
            "import {{ {} }} from \"./{}.js\";\n",
            schemas.join(", "),
            ts::state_file_stem(p)
        ));
    }
    out.push_str("import { stateSessions } from \"./runtime/state_testee.js\";\n");
    out.push_str("import { serve } from \"./testee.js\";\n\nserve(\n  stateSessions([\n");
    for p in &plans {
        for (frame, schema) in served_frames(p) {
            out.push_str(&format!(
                "    {{\n      frame: \"{}\",\n      schema: {},\n      record: {{ record: () => {}Json }},\n      event: {{ union: () => {}Json }},\n      input: {{ record: () => {}Json }},\n    }},\n",
                frame,
                schema,
                p.record.name,
                p.events,
                p.inputs.as_deref().unwrap_or_default()
            ));
        }
    }
    out.push_str("  ]),\n);\n");
    out
}

/// The Rust testee's manifest, sources and, without a state, the copy of `ackwire-rt`.
fn rust_files(spec: &Spec, sources: &str, crates: Option<&Path>) -> Vec<(String, String)> {
    let header =
        format!("@generated by ackwire-spec from {sources}. Do not edit: change the layout files.");
    let plans = served_states(spec);
    let stateful = !plans.is_empty();
    let options = rust::Options {
        source: sources.to_string(),
        machines: stateful.then(|| "::ackwire_codec::acked".to_string()),
        ..rust::Options::default()
    };
    let (manifest, main) = if stateful {
        let mut manifest = include_str!("testee/rust/state-testee.toml")
            .replace("@VERSION@", env!("CARGO_PKG_VERSION"));
        if let Some(root) = crates {
            manifest.push_str(
                "\n# The ackwire crates of the checkout that generated this crate, in place of the\n\
                 # published ones, so that it builds offline from there.\n[patch.crates-io]\n",
            );
            for (name, dir) in RUST_CRATES {
                manifest.push_str(&format!(
                    "{name} = {{ path = {} }}\n",
                    toml_string(&root.join(dir).display().to_string())
                ));
            }
        }
        let mut sessions = String::new();
        for p in &plans {
            for (_, schema) in served_frames(p) {
                sessions.push_str(&format!("    sessions.add::<protocol::{schema}>();\n"));
            }
        }
        let main = include_str!("testee/rust/state_main.rs").replace("@SESSIONS@\n", &sessions);
        (manifest, main)
    } else {
        (
            include_str!("testee/rust/testee.toml").to_string(),
            include_str!("testee/rust/main.rs").to_string(),
        )
    };
    let mut files = vec![
        ("Cargo.toml".to_string(), format!("# {header}\n{manifest}")),
        (
            "src/protocol.rs".to_string(),
            crate::format_rust(rust::generate(spec, &options)),
        ),
        ("src/main.rs".to_string(), format!("//! {header}\n{main}")),
    ];
    if !stateful {
        files.extend(rust_runtime_crate());
    }
    files
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A copy of `ackwire-rt` as a crate of its own, under `ackwire-rt/`: its manifest and sources.
pub(crate) fn rust_runtime_crate() -> Vec<(String, String)> {
    let mut files = vec![(
        "ackwire-rt/Cargo.toml".to_string(),
        include_str!("testee/rust/ackwire-rt.toml")
            .trim_start_matches("#\n")
            .to_string(),
    )];
    for (name, text) in RUST_RUNTIME_FILES {
        files.push((format!("ackwire-rt/src/{name}"), (*text).to_string()));
    }
    files
}

#[cfg(test)]
mod runtime_copy_tests {
    use super::RUST_RUNTIME_FILES;

    /// A module added to `ackwire-rt` without its file in the copy breaks every generated Rust
    /// crate (testees, fuzz crates) at its first build, far from the change that caused it.
    #[test]
    fn the_copy_of_ackwire_rt_holds_every_source_file_of_it() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/rust");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect();
        on_disk.sort();
        let mut copied: Vec<String> = RUST_RUNTIME_FILES
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        copied.sort();
        assert_eq!(copied, on_disk, "RUST_RUNTIME_FILES against rt/src");
    }
}
