//! The generated C# codec, held to the Rust codec through the testee protocol:
//! `conformance/testees/cs/build.sh` generates it with this crate's `ackwire gen` and compiles
//! the testee with Mono's C# compiler (installing Mono when it is missing), then
//! - every frame vector must pass, none UNIMPLEMENTED;
//! - thousands of deterministic mutated and random inputs are decoded by the C# testee and by
//!   the Rust codec: the testee must never crash, and both must give the same value, or the same
//!   error kind at the same offset with the same path; every input the C# codec accepts must
//!   re-encode to the identical bytes;
//! - positive vectors' values with mutated leaves are encoded by both, with the same bytes or
//!   the same refusal;
//! - garbage and mutated request lines each get one reply, a line of UTF-8 JSON.
//!
//! The testee also checks the codec against itself on every request (what it decodes encodes
//! back to the same bytes; `EncodedLen` predicts what `Encode` writes) and exits otherwise,
//! which these tests see as a crash.
//!
//! Needs bash and Mono (or apt-get to install it). Without them the tests fail and say so: a
//! conformance check that did not run must not pass.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use support::Generated;

/// Generous: Mono's start and JIT on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Builds the testee (`build.sh` installs Mono when it is missing).
fn build() -> Result<PathBuf, String> {
    let hint = "the C# testee needs Mono (apt-get install mono-mcs mono-runtime). This test \
                fails rather than pass without checking anything; skip it by name \
                (`cargo test -- --skip cs`) where Mono cannot be had.";
    Ok(support::run_build_script("cs", Some(hint))?.join("build/testee.exe"))
}

/// The testee, built once for all the tests of this file.
fn built_testee() -> PathBuf {
    support::built_once(build)
}

/// The built testee, as the shared checks of `support` take it.
fn testee() -> Generated {
    Generated {
        command: vec!["mono".to_string(), built_testee().display().to_string()],
        name: "ackwire-cs",
        language: "C#",
        timeout: TIMEOUT,
    }
}

#[test]
fn the_cs_testee_passes_every_frame_vector() {
    // TESTEE-8, in C#.
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

/// Runs one of the testee's own checks, showing what it printed, and fails the test unless it
/// exits successfully having printed `verdict` (its closing line's words).
fn succeeds_saying(check: &mut Command, verdict: &str) {
    let out = check
        .output()
        .unwrap_or_else(|e| panic!("cannot run {check:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(verdict), "{text}");
}

/// WIRE-26: a decoder allocates at most a stated small multiple of its input. The C#
/// readers are structs passed by `ref` and lists are read in loops, not through delegates, so a
/// decode allocates its values alone: `alloc.exe` measures every positive frame vector's decode
/// (kept by hand and derived)
/// with `GC.GetAllocatedBytesForCurrentThread` and fails past 256 + 32 bytes per input byte (a
/// datagram's update, at least 4 bytes, decodes to 96: 24 a byte, measured on the derived
/// vectors' long lists), or 72 for a bit-packed body (kind 12's changes are as short as 9 bits,
/// measured on its vectors and on the densest frame its bytes can hold).
#[test]
fn decoding_allocates_a_small_multiple_of_the_input() {
    // WIRE-26, in C#.
    let testee = built_testee();
    let alloc = testee.with_file_name("alloc.exe");
    for set in ["vectors/frames", "vectors/derived"] {
        succeeds_saying(
            Command::new("mono")
                .arg(&alloc)
                .arg(support::repository_root().join(set)),
            " 0 over the bound",
        );
    }
}

// cs-rest: hostile peers against the C# datagram, baseline and delta halves.
/// `hostile.sh` (after the build above) runs the three pairs over the reference schemas with
/// every frame between them lost, duplicated, mutated or replaced by random bytes: a half may
/// refuse a frame only with a `SessionError`, and no machine may pass its limits.
#[test]
fn hostile_frames_get_only_session_errors_from_the_datagram_baseline_and_delta_halves() {
    let testee = built_testee();
    let dir = testee
        .parent()
        .and_then(Path::parent)
        .expect("build/ is inside the testee's folder");
    succeeds_saying(
        Command::new("bash").arg(dir.join("hostile.sh")).arg("5000"),
        "nothing else escaped",
    );
}
