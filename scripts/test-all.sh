#!/usr/bin/env bash
# Every test of the project, as CI runs it (.ci/run calls this script and nothing else).
# Needs a stable Rust toolchain, node with npm, and g++; whatever else a step needs (the pinned
# TypeScript compiler, cargo-fuzz), the step installs.
set -euo pipefail
cd "$(dirname "$0")/.."
# A clean checkout gains nothing from incremental compilation, whose caches take gigabytes of
# disk; CI once failed for want of it ("No space left on device").
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Line tables are all a failing test's panic and backtrace need; full debug info made the
# workspace's test build twice the size (5.9 GB against 2.8) and its compile and link slower
# (`cargo test --workspace --all-features --no-run` on a fresh clone: 698 s against 302, on two
# cores shared with other builds). The dev profile a developer debugs with keeps full debug info.
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"

step() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
ackwire() { cargo run -q -p ackwire -- "$@"; }

step "formatting"
cargo fmt --all -- --check

step "lints"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "documentation: every crate's docs build without a warning (broken or redundant links)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "packaging: every published crate builds from its own files, as \`cargo add\` gets it"
# No --allow-dirty: CI's fresh clone is clean. Locally, commit first: cargo refuses to package
# a crate whose files have uncommitted changes. Sources unpack to target/package; the verify
# builds share target/debug. Cargo unpacks each .crate of its temporary local registry into
# $CARGO_HOME/registry/src/-<hash of that registry's path>/ and never unpacks it again while the
# folder is there, so a second run from the same checkout would verify the first run's sources.
# These crates are not on crates.io: every unpacked copy of them is such a leftover.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ackwire-*
# The examples are left out: they are not published (`publish = false`), and cargo cannot
# package ackwire-example-sockets, whose dependency (examples/game) is not published either. The
# game's and the tutorial's crates build in the test step as a user's own crate would.
cargo package --workspace --exclude ackwire-example-sockets --exclude ackwire-example-game \
    --exclude ackwire-example-tutorial

step "the C++ runtime's own tests (g++ -std=c++17 -Werror, plain and under ASan and UBSan)"
bash cpp/test.sh

step "the TypeScript runtime's own tests (prettier, tsc, node --test)"
bash typescript/test.sh

# The C# runtime (issue 21): Mono's mcs, C# 7.2, warnings as errors; installs Mono when missing.
step "the C# runtime's own tests (mcs -langversion:7.2 -warnaserror+, mono)"
bash csharp/test.sh

step "the runtimes as packages: npm, CMake, .NET and Unity, cargo, each installed and used by a project of its own (installs cmake)"
# After the packaging and runtime steps: it reuses their target/debug, node_modules and Mono.
bash scripts/packages.sh

step "unit, property, snapshot and end-to-end tests (the TypeScript and C++ testees included)"
cargo test --workspace --all-features

step "the generated TypeScript codec in headless Chromium: every frame vector (installs chromium)"
# Beside the steps that run ackwire: the `cargo run` in build.sh builds the binary they use.
bash conformance/testees/ts/browser.sh

step "the generated Wireshark dissector in tshark: every frame vector as ackwire explain reads it (installs tshark)"
bash scripts/wireshark.sh

step "ackwire doc's sites in headless Chromium: the reference protocol's and the game's (issue 20)"
bash scripts/doc-browser.sh

# --- examples (issue 18): the socket examples, a block of its own ---
step "the socket examples: the TypeScript page in headless Chromium over a WebSocket and the C++ client over UDP, against cube-server (every reported hash equals S_N)"
bash scripts/examples.sh
# --- end of the examples block ---

step "the reference protocol checks, and its golden vectors verify (derived ones too); the sink's and the game's derived vectors are up to date"
ackwire check
ackwire fmt --check
ackwire vectors
ackwire vectors --spec spec/tests/sink/sink.wire --dir spec/tests/sink/vectors
ackwire vectors --spec examples/game/wire --dir examples/game/vectors

step "the specification's coverage: every normative rule of docs/spec cited where it is enforced and by a test"
ackwire spec-coverage

step "the conformance suite against every bundled implementation"
bash scripts/conform.sh

step "differential fuzzing: Rust, TypeScript, C++ and C# decoders on the same inputs, and the session halves of those that have them on the same seeded lossy streams"
# Measured on 2 shared cores (debug build, both testees replaying all four pairs' halves,
# `time ackwire fuzz-diff --count 50000 --streams 24`): 25.6 s; 200 streams alone (`--count 0
# --streams 200 --seed 2`, 800 halves) took 22.7 s, so the stream count is cheap to raise.
ackwire fuzz-diff --count "${FUZZ_DIFF_COUNT:-50000}" --streams "${FUZZ_DIFF_STREAMS:-24}"

step "the bench, quick: every reference scene through every protocol and peer (release build)"
cargo run --release -q -p ackwire -- bench --quick --out target/ackwire-bench-quick

step "fuzzing every target briefly (stable Rust, no sanitizer)"
# 8 s a stream target and 4 a single-frame one (the script's default is 10): a single-frame
# target still runs hundreds of thousands to millions of inputs, and the run stays within its
# budget with every target in it. Longer runs: `FUZZ_SECONDS=300 bash .ci/fuzz.sh`, or
# ClusterFuzzLite (fuzz/README.md).
FUZZ_SECONDS="${FUZZ_SECONDS:-8}" bash .ci/fuzz.sh

step "the ClusterFuzzLite and OSS-Fuzz build of the fuzz targets (.clusterfuzzlite/build.sh) without Docker: every target and seed corpus in \$OUT"
# After the fuzz step: the same flags, so it copies what that step built (about 3 s).
bash scripts/clusterfuzzlite.sh

step "a team's own spec end to end: the sink's and the game's testees in four languages, each conformed in one command; a layout outside the repository through vectors, explain, four testees, conform, fuzz-diff and its fuzz crate; the game's fuzz crate run"
# Last: it reuses the testees cli/tests/spec_testees.rs built under target/tmp/spec-testees and
# the fuzz step's fuzz/target. Measured on 2 cores under a load average of 10 from that state
# (`time bash scripts/own-spec.sh`, target/tmp/own-spec removed, so the arena's four testees and
# both fuzz crates build): 118 s, of which 54 s fuzzing (the game's five targets then ran 10 s
# each, now half of FUZZ_SECONDS as single-frame targets; the arena's two 2 s each); the sink and
# the game's eight testees take 7 s.
FUZZ_SECONDS="${FUZZ_SECONDS:-8}" bash scripts/own-spec.sh
