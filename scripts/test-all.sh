#!/usr/bin/env bash
# Every test of the project, as CI runs it (.ci/run calls this script and nothing else).
# Needs only a stable Rust toolchain; whatever else a step needs, the step installs.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "formatting"
cargo fmt --all -- --check

step "lints"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "unit, property, snapshot and end-to-end tests"
cargo test --workspace --all-features

step "the reference protocol checks, and its golden vectors verify"
cargo run -q -p ackwire-conformance --bin ackwire -- check
cargo run -q -p ackwire-conformance --bin ackwire -- vectors

step "fuzzing every decoder briefly (stable Rust, no sanitizer)"
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash .ci/fuzz.sh
