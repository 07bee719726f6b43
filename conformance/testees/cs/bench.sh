#!/usr/bin/env bash
# The C# codec's decode and the C# AckedDecoder's whole delivery beside the Rust one, on the same
# frames as conformance/testees/ts/deliver.sh: builds the testee (build.sh: the generated codec,
# the runtime and its session machines), writes the cube scene's acked frames (the first four
# seconds: 901 bodies, seed 1, 5% loss, 240 frames;
# `cargo run --release -p ackwire-bench --example cube_frames`), and times them in nanoseconds
# per entity of the world per frame: first the Rust AckedDecoder
# (bench/examples/deliver_frames.rs, release build), then bench.cs under mono (mcs -optimize+):
# the generated Acked.Decode alone, the reference binding's reader alone, then a fresh
# AckedDecoder taking every frame, and what that delivery allocates. It times; it asserts no speed.
#
# Run from anywhere. BENCH_ROUNDS and BENCH_ROUND_MS set the C# rounds (9) and their length (300).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

bash "$here/build.sh"
frames="$here/build/cube-frames.hex"
(cd "$root" && cargo run -q --release -p ackwire-bench --example cube_frames -- "$frames")
(cd "$root" && cargo run -q --release -p ackwire-bench --example deliver_frames -- "$frames")

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -out:"$here/build/bench.exe" "$here/bench.cs" "$here/gen/Protocol.cs" "$here/gen/Reference.cs" "$here/gen/ReferenceDatagram.cs" "$here/gen/ReferenceBaseline.cs" "$here/gen/ReferenceDelta.cs" \
    "$here"/gen/Runtime/*.cs \
    "$here"/gen/Runtime/Sessions/*.cs "$here"/gen/reference/*.cs "$here/Sessions.cs" "$here"/halves/*.cs \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
mono "$here/build/bench.exe" "$frames"
