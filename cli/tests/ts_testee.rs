//! The generated TypeScript codec, held to every frame vector through the testee protocol, as
//! any other implementation is: `conformance/testees/ts/build.sh` installs the pinned compiler
//! when needed (`npm ci`), generates the codec with this crate's `ackwire gen` and compiles the
//! testee; the runner then drives `node conformance/testees/ts/dist/testee.js`.
//!
//! Needs `node` (20 or later) and `npm` on the PATH, and the npm registry the first time. Without
//! node the test fails and says so: a conformance check that did not run must not pass.

use ackwire_conformance::runner::{self, RunOptions, Verdict};
use ackwire_conformance::{report, vectors};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the repository")
        .to_path_buf()
}

/// Fails the test, with what to do, when `node` cannot be run.
fn require_node() {
    let found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    assert!(
        found,
        "`node` is not on the PATH: the TypeScript testee needs node 20 or later and npm to be \
         built and run (conformance/testees/ts). Install them, or skip this test by name \
         (`cargo test -- --skip typescript`) where no node can be had."
    );
}

#[test]
fn the_typescript_testee_passes_every_frame_vector() {
    require_node();
    let root = repository_root();
    let testee = root.join("conformance/testees/ts");
    // The bundled `ackwire` is already built: build.sh runs it rather than a nested `cargo run`.
    let status = Command::new("bash")
        .arg(testee.join("build.sh"))
        .env("ACKWIRE", env!("CARGO_BIN_EXE_ackwire"))
        .current_dir(&root)
        .status()
        .expect("bash runs build.sh");
    assert!(
        status.success(),
        "conformance/testees/ts/build.sh failed ({status}); its output is above"
    );

    let files = vectors::frame_files();
    let cases = runner::frame_cases(&files).expect("the frame vectors make cases");
    assert!(cases.len() > 100, "too few cases to mean anything");
    let options = RunOptions {
        command: vec![
            "node".to_string(),
            testee.join("dist/testee.js").display().to_string(),
        ],
        timeout: Duration::from_secs(10),
        failure_list: Default::default(),
    };
    let report = runner::run(&cases, &options, |_| {}).expect("the testee starts");

    assert!(
        report.testee.starts_with("ackwire-ts"),
        "the testee named itself {}",
        report.testee
    );
    assert_eq!(report.outcomes.len(), cases.len());
    let unexpected: Vec<&str> = report.unexpected().map(|o| o.name.as_str()).collect();
    assert!(
        unexpected.is_empty(),
        "unexpected outcomes: {unexpected:?}\n{}",
        report::table(&report)
    );
    let unimplemented: Vec<&str> = report
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Unimplemented)
        .map(|o| o.name.as_str())
        .collect();
    assert!(
        unimplemented.is_empty(),
        "the TypeScript testee implements every frame, yet these were UNIMPLEMENTED: \
         {unimplemented:?}"
    );
    assert!(report.outcomes.iter().all(|o| o.verdict == Verdict::Pass));

    // A hostile peer against every half of the testee: the stream vectors' frames with mutated
    // and random ones between them, some under the wrong frame name (src/hostile.ts). A half may
    // refuse a frame only with a SessionError; anything else escaping it fails the run.
    let hostile = Command::new("node")
        .arg(testee.join("dist/hostile.js"))
        .args(["10", "1"])
        .current_dir(&root)
        .output()
        .expect("node runs hostile.js");
    assert!(
        hostile.status.success(),
        "hostile.js found a half that throws other than a SessionError:\n{}{}",
        String::from_utf8_lossy(&hostile.stdout),
        String::from_utf8_lossy(&hostile.stderr)
    );
}
