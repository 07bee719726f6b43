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

use std::path::PathBuf;
use std::time::Duration;
use support::Generated;

/// Generous: the sanitized testee on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Builds the sanitized testee (after checking that there is a compiler to build it with).
fn build() -> Result<PathBuf, String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    if !support::runs(&cxx) {
        return Err(format!(
            "`{cxx}` cannot be run: the C++ testee (conformance/testees/cpp) needs a C++17 \
             compiler with AddressSanitizer and UBSan (apt-get install g++). This test fails \
             rather than pass without checking anything; skip it by name \
             (`cargo test -- --skip cpp`) where no compiler can be had."
        ));
    }
    Ok(support::run_build_script("cpp", None)?.join("build/testee"))
}

/// The sanitized testee, built once for all the tests of this file, as the shared checks of
/// `support` take it.
fn testee() -> Generated {
    Generated {
        command: vec![support::built_once(build).display().to_string()],
        name: "ackwire-cpp",
        language: "C++",
        timeout: TIMEOUT,
    }
}

#[test]
fn the_sanitized_cpp_testee_passes_every_frame_vector() {
    // TESTEE-8, in C++.
    support::passes_every_frame_vector(&testee());
}

#[test]
fn mutated_and_random_inputs_never_crash_it_and_decode_as_in_rust() {
    // TESTEE-13, GEN-5.
    support::mutated_and_random_inputs_decode_as_in_rust(&testee());
}

#[test]
fn mutated_values_encode_as_in_rust() {
    support::mutated_values_encode_as_in_rust(&testee());
}

#[test]
fn garbage_requests_get_one_json_reply_each_and_never_crash_it() {
    // TESTEE-1, TESTEE-2.
    support::garbage_requests_get_one_reply_each(&testee());
}
