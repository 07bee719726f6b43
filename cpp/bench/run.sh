#!/usr/bin/env bash
# The C++ codec bench: the generated C++ codec of the acked frame beside a hand-written reader
# and writer of the same bytes, on the cube scene's real frames, in one run (bench.cpp says what
# it checks and how it times). Into build/ (gitignored):
#   build/gen/             the reference protocol's C++ codec, from `ackwire gen --lang cpp`;
#   build/cube_frames.hex  the 240 acked frames of the first four seconds of the cube scene
#                          (seed 1, 5% loss), from
#                          `cargo run -p ackwire-bench --example cube_frames`;
#   build/bench            bench.cpp, g++ -std=c++17 -O2 with the testee's warnings as errors;
#   build/deliver_bench_frames.hex  the 570 acked frames `cargo bench -p ackwire-bench --bench deliver`
#                          replays (no loss), from
#                          `cargo run -p ackwire-bench --example deliver_bench_frames`;
#   build/deliver          deliver.cpp (the C++ AckedDecoder's whole delivery), likewise.
# Then runs build/bench on the frames; arguments go to it (`--check`: only that both codecs
# agree on every frame and on mutants of them, in about a second; `--samples N`, `--ms M`).
# Then, without `--check`, runs build/deliver on its frames, with the same arguments.
#
# Run from anywhere. `ackwire` and the example are run with cargo's debug profile (neither is
# timed). $CXX overrides the compiler (g++).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cxx="${CXX:-g++}"

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "run.sh: the C++ compiler \`$cxx\` is not installed (apt-get install g++)" >&2
    exit 1
fi

mkdir -p "$here/build"
# cargo's output (its warnings included) is shown only when it fails.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! (cd "$root" \
    && cargo run -q -p ackwire -- \
        gen --lang cpp --out "$here/build/gen" spec/protocol \
    && cargo run -q -p ackwire-bench --example cube_frames -- \
        "$here/build/cube_frames.hex" \
    && cargo run -q -p ackwire-bench --example deliver_bench_frames -- \
        "$here/build/deliver_bench_frames.hex") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi

"$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion \
    -Wsign-conversion -I "$here/build/gen" -o "$here/build/bench" "$here/bench.cpp" &
codec=$!
# reference.hpp (the generated binding), protocol.hpp and the runtime's headers are in build/gen.
"$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion \
    -Wsign-conversion -I "$here/build/gen" -o "$here/build/deliver" \
    "$here/deliver.cpp" &
deliver=$!
status=0
wait "$codec" || status=$?
wait "$deliver" || status=$?
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

"$here/build/bench" "$here/build/cube_frames.hex" "$@"
for arg in "$@"; do
    if [ "$arg" = "--check" ]; then
        exit 0
    fi
done
"$here/build/deliver" "$here/build/deliver_bench_frames.hex" "$@"
