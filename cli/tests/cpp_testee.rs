//! The generated C++ codec, held to the Rust codec through the testee protocol:
//! `conformance/testees/cpp/build.sh` generates it with this crate's `ackwire gen` and compiles
//! the testee with AddressSanitizer and UBSan (any finding aborts the process), then
//! - every frame vector must pass, none UNIMPLEMENTED;
//! - thousands of deterministic mutated and random inputs are decoded by the C++ testee and by
//!   the Rust codec: the testee must never crash, and both must give the same value, or the same
//!   error kind at the same offset with the same path; every input the C++ codec accepts must
//!   re-encode to the identical bytes;
//! - positive vectors' values with mutated leaves are encoded by both, with the same bytes or
//!   the same refusal;
//! - garbage and mutated request lines each get one reply, a line of UTF-8 JSON.
//!
//! The testee also checks the codec against itself on every request (what it decodes encodes
//! back to the same bytes; `encoded_len` predicts what `encode` writes) and aborts otherwise,
//! which these tests see as a crash.
//!
//! Needs `g++` (or `$CXX`) and bash. Without a compiler the tests fail and say so: a
//! conformance check that did not run must not pass.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;
use support::Generated;

/// Generous: the sanitized testee on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(20);

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the repository")
        .to_path_buf()
}

/// The sanitized testee, built once for all the tests of this file.
fn sanitized_testee() -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(build)
        .clone()
        .unwrap_or_else(|why| panic!("{why}"))
}

fn build() -> Result<PathBuf, String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let found = Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        return Err(format!(
            "`{cxx}` cannot be run: the C++ testee (conformance/testees/cpp) needs a C++17 \
             compiler with AddressSanitizer and UBSan (apt-get install g++). This test fails \
             rather than pass without checking anything; skip it by name \
             (`cargo test -- --skip cpp`) where no compiler can be had."
        ));
    }
    let root = repository_root();
    let dir = root.join("conformance/testees/cpp");
    // The bundled `ackwire` is already built: build.sh runs it rather than a nested `cargo run`.
    let out = Command::new("bash")
        .arg(dir.join("build.sh"))
        .env("ACKWIRE", env!("CARGO_BIN_EXE_ackwire"))
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run bash build.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "conformance/testees/cpp/build.sh failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(dir.join("build/testee"))
}

/// The built testee, as the shared checks of `support` take it.
fn testee() -> Generated {
    Generated {
        command: vec![sanitized_testee().display().to_string()],
        name: "ackwire-cpp",
        language: "C++",
        timeout: TIMEOUT,
    }
}

#[test]
fn the_sanitized_cpp_testee_passes_every_frame_vector() {
    support::passes_every_frame_vector(&testee());
}

#[test]
fn mutated_and_random_inputs_never_crash_it_and_decode_as_in_rust() {
    support::mutated_and_random_inputs_decode_as_in_rust(&testee());
}

#[test]
fn mutated_values_encode_as_in_rust() {
    support::mutated_values_encode_as_in_rust(&testee());
}

#[test]
fn garbage_requests_get_one_json_reply_each_and_never_crash_it() {
    support::garbage_requests_get_one_reply_each(&testee());
}
