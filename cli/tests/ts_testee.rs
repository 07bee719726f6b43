//! The generated TypeScript codec, held to every frame vector through the testee protocol, as
//! any other implementation is: `conformance/testees/ts/build.sh` installs the pinned compiler
//! when needed (`npm ci`), generates the codec with this crate's `ackwire gen` and compiles the
//! testee; the runner then drives `node conformance/testees/ts/dist/testee.js`.
//!
//! Needs `node` (20 or later) and `npm` on the PATH, and the npm registry the first time. Without
//! node the test fails and says so: a conformance check that did not run must not pass.

mod support;

use std::process::Command;
use std::time::Duration;
use support::Generated;

#[test]
fn the_typescript_testee_passes_every_frame_vector() {
    // TESTEE-8, in TypeScript.
    assert!(
        support::runs("node"),
        "`node` is not on the PATH: the TypeScript testee needs node 20 or later and npm to be \
         built and run (conformance/testees/ts). Install them, or skip this test by name \
         (`cargo test -- --skip typescript`) where no node can be had."
    );
    let testee = support::run_build_script("ts", None).unwrap_or_else(|why| panic!("{why}"));
    support::passes_every_frame_vector(&Generated {
        command: vec![
            "node".to_string(),
            testee.join("dist/testee.js").display().to_string(),
        ],
        name: "ackwire-ts",
        language: "TypeScript",
        timeout: Duration::from_secs(10),
    });

    // A hostile peer against every half of the testee: the stream vectors' frames with mutated
    // and random ones between them, some under the wrong frame name (src/hostile.ts). A half may
    // refuse a frame only with a SessionError; anything else escaping it fails the run.
    let hostile = Command::new("node")
        .arg(testee.join("dist/hostile.js"))
        .args(["10", "1"])
        .current_dir(support::repository_root())
        .output()
        .expect("node runs hostile.js");
    assert!(
        hostile.status.success(),
        "hostile.js found a half that throws other than a SessionError:\n{}{}",
        String::from_utf8_lossy(&hostile.stdout),
        String::from_utf8_lossy(&hostile.stderr)
    );
}
