//! The testees `ackwire gen --testee` writes for any spec, built and run as a team would run them
//! against its own spec, through `ackwire conform` and `ackwire fuzz-diff` (the library calls
//! behind them):
//! - the kitchen sink's and the game's vectors (committed beside their layouts: the derived frame
//!   cases, and the game's stream vectors of its acked sessions) pass in all four languages,
//!   Rust, TypeScript, C++ and C#, every case, none unimplemented;
//! - the game's four testees agree with the run-time codec of its layout on its derived vectors
//!   and mutations of them (`fuzz-diff --spec`);
//! - a testee with one check removed per error kind (the generated TypeScript testee of the
//!   reference protocol, its compiled runtime patched) fails on exactly the vectors of that
//!   kind, and the unpatched one on none: every kind of fault a decoder can miss is one some
//!   vector catches, and only those vectors.
//!
//! Each testee is generated into `target/tmp/spec-testees/SPEC/LANG` and built once by its own
//! `testee` script (a later run, from this or another test binary, builds nothing: only files
//! whose text changed are written). Needs node and npm, g++ and Mono; the TypeScript compiler is
//! the one typescript/ pins (its node_modules, when installed, is linked rather than installed
//! again), and the Rust testees build offline with the workspace's Cargo.lock into one target
//! folder (the game's, having a state, over this checkout's ackwire crates).

use ackwire_conformance::runner::{self, Case, Check, Outcome, RunOptions, Verdict};
use ackwire_conformance::{conform, diff};
use ackwire_rt::ErrorKind;
use ackwire_spec::gen::testee::{self, Lang};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the repository")
        .to_path_buf()
}

/// Where generated testees are built, shared by every test binary of the workspace.
fn testees_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spec-testees")
}

fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => "rust",
        Lang::Ts => "ts",
        Lang::Cpp => "cpp",
        Lang::Cs => "cs",
    }
}

/// Writes `text` to `path` unless it already holds it, so that a testee's build stays fresh.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("a folder is made");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The `testee` script of the spec under `layouts` (paths from the repository's root) in `lang`,
/// generated as `ackwire gen --testee` writes it and built: its path. Every test of this binary
/// that asks for the same testee waits for the one build.
fn prepared(spec_name: &str, layouts: &[&str], lang: Lang) -> PathBuf {
    static PREPARED: Mutex<BTreeMap<PathBuf, Result<PathBuf, String>>> =
        Mutex::new(BTreeMap::new());
    let dir = testees_dir().join(spec_name).join(lang_name(lang));
    let mut prepared = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
    prepared
        .entry(dir.clone())
        .or_insert_with(|| prepare(&dir, layouts, lang))
        .clone()
        .unwrap_or_else(|why| panic!("{why}"))
}

fn prepare(dir: &Path, layouts: &[&str], lang: Lang) -> Result<PathBuf, String> {
    let root = repository_root();
    let paths: Vec<PathBuf> = layouts.iter().map(|l| root.join(l)).collect();
    let (spec, _) = ackwire_spec::load(&paths).map_err(|e| e.to_string())?;
    for (name, text) in testee::generate_with(&spec, lang, testee::checkout().as_deref()) {
        write_if_changed(&dir.join(name), &text);
    }
    let script = dir.join(testee::SCRIPT);
    let mut permissions = std::fs::metadata(&script)
        .map_err(|e| e.to_string())?
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).map_err(|e| e.to_string())?;
    let mut build = Command::new(&script);
    match lang {
        Lang::Ts => {
            let installed = root.join("typescript/node_modules");
            let link = dir.join("node_modules");
            if installed.is_dir() && std::fs::symlink_metadata(&link).is_err() {
                std::os::unix::fs::symlink(&installed, &link).map_err(|e| e.to_string())?;
            }
        }
        Lang::Rust => {
            // Offline, with the versions the workspace has fetched, into a target folder that
            // every Rust testee of the workspace's tests shares.
            let lock =
                std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
            if !dir.join("Cargo.lock").exists() {
                write_if_changed(&dir.join("Cargo.lock"), &lock);
            }
            build
                .env("CARGO_NET_OFFLINE", "true")
                .env("CARGO_TARGET_DIR", testees_dir().join("cargo-target"));
        }
        Lang::Cpp | Lang::Cs => {}
    }
    // With no request on its input the testee builds what it needs, starts, and ends.
    let started = Instant::now();
    let out = build
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} does not run: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}):\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    eprintln!(
        "{}: ready in {:.1} s",
        script.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(script)
}

/// The frame cases of the vectors in `dir` (every folder `ackwire conform --dir` reads).
fn frame_cases(dir: &Path) -> Vec<Case> {
    let mut cases = conform::cases(dir, None).unwrap_or_else(|e| panic!("{e}"));
    cases.retain(|c| c.session.is_none());
    cases
}

/// The cases of `cases` that do not pass through the testee `command`.
fn failing(cases: &[Case], command: Vec<String>) -> BTreeSet<String> {
    let options = RunOptions {
        command,
        timeout: Duration::from_secs(10),
        failure_list: Default::default(),
    };
    let report = runner::run(cases, &options, |_| {}).expect("the testee starts");
    assert_eq!(report.outcomes.len(), cases.len());
    let unimplemented: Vec<&str> = report
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Unimplemented)
        .map(|o| o.name.as_str())
        .collect();
    assert!(unimplemented.is_empty(), "unimplemented: {unimplemented:?}");
    report
        .outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Pass)
        .map(|o| o.name.clone())
        .collect()
}

/// Removes every check of `kind` a decoder makes from the compiled TypeScript testee in `dist`:
/// the reader's `throw this.fail(KIND, ...)`, the lists' and the codec's `throw r.fail(KIND, ...)`
/// and `throw b.fail(KIND, ...)`, the bit sets' and quaternions' `return KIND;` (the fault
/// their checks hand to the reader), and the range coder's and coded values' `throw new
/// errors_js_1.DecodeError(KIND, ...)` (kind 13, as tsc compiles it to CommonJS) become statements that do nothing, so that decoding goes
/// on as if the check were not there. The encoder's checks (`w.fail`) stay. Returns how many
/// checks were removed.
fn remove_checks(dist: &Path, kind: &str) -> usize {
    let edits: [(&str, [(String, String); 2]); 8] = [
        (
            "runtime/reader.js",
            [
                (
                    format!("throw this.fail(\"{kind}\""),
                    format!("void this.fail(\"{kind}\""),
                ),
                (String::new(), String::new()),
            ],
        ),
        (
            "runtime/lists.js",
            [
                (
                    format!("throw r.fail(\"{kind}\""),
                    format!("void r.fail(\"{kind}\""),
                ),
                (
                    format!("throw b.fail(\"{kind}\""),
                    format!("void b.fail(\"{kind}\""),
                ),
            ],
        ),
        (
            "protocol.js",
            [
                (
                    format!("throw r.fail(\"{kind}\""),
                    format!("void r.fail(\"{kind}\""),
                ),
                (
                    format!("throw b.fail(\"{kind}\""),
                    format!("void b.fail(\"{kind}\""),
                ),
            ],
        ),
        (
            "runtime/bits.js",
            [
                (format!("return \"{kind}\";"), format!("void \"{kind}\";")),
                (String::new(), String::new()),
            ],
        ),
        (
            "runtime/quat.js",
            [
                (format!("return \"{kind}\";"), format!("void \"{kind}\";")),
                (String::new(), String::new()),
            ],
        ),
        // A coded frame's (kind 13) header and stream: the generated frame's, the range
        // coder's and the coded values' own checks.
        (
            "protocol.js",
            [
                (
                    format!("throw new index_js_1.DecodeError(\"{kind}\""),
                    format!("void new index_js_1.DecodeError(\"{kind}\""),
                ),
                (String::new(), String::new()),
            ],
        ),
        (
            "runtime/range.js",
            [
                (
                    format!("throw new errors_js_1.DecodeError(\"{kind}\""),
                    format!("void new errors_js_1.DecodeError(\"{kind}\""),
                ),
                (String::new(), String::new()),
            ],
        ),
        (
            "runtime/coded.js",
            [
                (
                    format!("throw new errors_js_1.DecodeError(\"{kind}\""),
                    format!("void new errors_js_1.DecodeError(\"{kind}\""),
                ),
                (
                    format!("throw r.fail(\"{kind}\""),
                    format!("void r.fail(\"{kind}\""),
                ),
            ],
        ),
    ];
    let mut removed = 0;
    for (file, replacements) in edits {
        let path = dist.join(file);
        let mut text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (from, to) in replacements.iter().filter(|(from, _)| !from.is_empty()) {
            removed += text.matches(from.as_str()).count();
            text = text.replace(from.as_str(), to);
        }
        std::fs::write(&path, text).expect("the patched file is written");
    }
    removed
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder is made");
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a file is copied");
        }
    }
}

#[test]
fn a_testee_without_one_check_fails_exactly_the_vectors_of_its_kind() {
    let script = prepared("reference", &["spec/protocol"], Lang::Ts);
    let dist = script.parent().expect("a folder").join("dist");
    let cases = frame_cases(&repository_root().join("vectors"));
    let node = |dist: &Path| {
        vec![
            "node".to_string(),
            dist.join("main.js").display().to_string(),
        ]
    };
    let none: BTreeSet<String> = BTreeSet::new();
    assert_eq!(
        failing(&cases, node(&dist)),
        none,
        "the testee as generated"
    );

    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spec-testees/faults");
    let _ = std::fs::remove_dir_all(&work);
    for kind in ErrorKind::ALL.map(ErrorKind::as_str) {
        let expected: BTreeSet<String> = cases
            .iter()
            .filter(|c| matches!(&c.check, Check::DecodeError { kind: k, .. } if k == kind))
            .map(|c| c.name.clone())
            .collect();
        assert!(!expected.is_empty(), "no vector expects {kind}");
        let faulty = work.join(kind);
        copy_dir(&dist, &faulty);
        let removed = remove_checks(&faulty, kind);
        assert!(
            removed > 0,
            "no check of {kind} found to remove in the compiled testee"
        );
        let failed = failing(&cases, node(&faulty));
        let missed: Vec<&String> = expected.difference(&failed).collect();
        let extra: Vec<&String> = failed.difference(&expected).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "without its {removed} {kind} checks the testee should fail the {} vectors of that \
             kind and no other; these passed: {missed:?}; these failed too: {extra:?}",
            expected.len()
        );
        eprintln!(
            "{kind}: {removed} checks removed, {} vectors failed",
            failed.len()
        );
    }
}

/// The languages of the testees `gen --testee` writes.
const LANGS: [Lang; 4] = [Lang::Rust, Lang::Ts, Lang::Cpp, Lang::Cs];

/// Progress that says nothing.
struct Quiet;

impl conform::Progress for Quiet {
    fn start(&mut self, _: usize) {}
    fn outcome(&mut self, _: &Outcome) {}
    fn finish(&mut self, _: bool) {}
}

/// Every case of the sink's and the game's vector folders (the derived frame cases, and the game's
/// stream vectors of its acked sessions, which every testee serves from the game's `state`)
/// passes in every language.
#[test]
fn the_sink_and_the_game_pass_their_derived_vectors_in_every_language() {
    let root = repository_root();
    for (name, layout, vectors) in [
        ("sink", "spec/tests/sink", "spec/tests/sink/vectors"),
        ("game", "examples/game/wire", "examples/game/vectors"),
    ] {
        let streams = root.join(vectors).join("streams").is_dir();
        for lang in LANGS {
            let folder = root.join(vectors);
            let script = prepared(name, &[layout], lang);
            let options = conform::Options {
                testee: vec![script.display().to_string()],
                filter: None,
                failure_list: None,
                junit: None,
                json: None,
                timeout: Duration::from_secs(10),
                dir: Some(folder),
                spec: vec![root.join(layout)],
            };
            let report = conform::conform(&options, &mut Quiet)
                .unwrap_or_else(|e| panic!("{name} {lang:?}: {e}"));
            let not_passed: Vec<String> = report
                .outcomes
                .iter()
                .filter(|o| o.verdict != Verdict::Pass)
                .map(|o| format!("{} {}: {}", o.verdict.as_str(), o.name, o.detail))
                .collect();
            assert!(
                not_passed.is_empty(),
                "{name}, {lang:?}: {} of {} cases did not pass:\n{}",
                not_passed.len(),
                report.outcomes.len(),
                not_passed[..not_passed.len().min(20)].join("\n")
            );
            assert!(report.outcomes.len() > 50, "{name}: too few cases");
            let stream_cases = report
                .outcomes
                .iter()
                .filter(|o| o.name.starts_with("streams/"))
                .count();
            assert_eq!(
                stream_cases > 0,
                streams,
                "{name}, {lang:?}: {stream_cases} stream cases"
            );
            let passed = report
                .outcomes
                .iter()
                .filter(|o| o.verdict == Verdict::Pass)
                .count();
            eprintln!(
                "{name} {lang:?}: {passed} of {} cases passed",
                report.outcomes.len()
            );
        }
    }
}

#[test]
fn the_games_four_testees_agree_with_its_run_time_codec_on_mutated_frames() {
    let root = repository_root();
    let testees = LANGS
        .iter()
        .map(|&lang| {
            let script = prepared("game", &["examples/game/wire"], lang);
            format!("{}={}", lang_name(lang), script.display())
        })
        .collect();
    let options = diff::Options {
        count: 2000,
        seed: 7,
        testees,
        corpus: root.join("fuzz/corpus"),
        dir: root.join("vectors"),
        timeout: Duration::from_secs(10),
        streams: 0,
        out: None,
        spec: vec![root.join("examples/game/wire")],
    };
    let run = diff::fuzz(&options, |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    let labels: Vec<&str> = run.labels.iter().map(String::as_str).collect();
    assert_eq!(labels, ["rust", "ts", "cpp", "cs"]);
    assert!(
        run.frames.disagreements.is_empty(),
        "{}\n{:#?}",
        run.frames.summary(&labels),
        run.vectors
    );
    // The derived vectors and 2,000 mutations of them; some must still decode to reach deep fields.
    assert!(run.frames.inputs > 2000, "{}", run.frames.inputs);
    assert!(run.frames.accepted > 100, "{}", run.frames.summary(&labels));
}
