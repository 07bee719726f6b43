#!/usr/bin/env bash
# The TypeScript AckedDecoder's whole delivery beside the Rust one, on the same frames: builds
# the testee (build.sh), writes the cube scene's acked frames (the first four seconds: 901
# bodies, seed 1, 5% loss; `cargo run --release -p ackwire-bench --example cube_frames`), and
# times a fresh decoder taking all of them, in nanoseconds per entity of the world per frame:
# first the Rust AckedDecoder (bench/examples/deliver_frames.rs, release build), then the
# TypeScript one under node (dist/deliver.js). It times; it asserts no speed.
#
# Run from anywhere. BENCH_ROUNDS and BENCH_ROUND_MS set node's rounds (9) and their length (300).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

bash "$here/build.sh"
frames="$here/dist/cube-frames.hex"
(cd "$root" && cargo run -q --release -p ackwire-bench --example cube_frames -- "$frames")
(cd "$root" && cargo run -q --release -p ackwire-bench --example deliver_frames -- "$frames")
node "$here/dist/deliver.js" "$frames"
