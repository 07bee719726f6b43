#!/usr/bin/env bash
# Builds and runs the C++ runtime's own tests: test/runtime_test.cpp over
# include/ackwire_runtime.hpp (and the session shape), test/acked_test.cpp over
# include/ackwire_acked.hpp (ACK-17 to ACK-36's machines), test/rest_test.cpp over the datagram, baseline
# and delta machines and their digests, test/packed19_test.cpp over the bucket codes, quaternions
# and ascending lists of packed bodies, test/range_test.cpp over include/ackwire_range.hpp (the
# range coder, against vectors/coder/range_coder_cases.txt), test/coded_test.cpp over
# include/ackwire_coded.hpp (kind 13's coded values, against vectors/coder/coded_cases.txt), and
# the bindings `ackwire gen --lang cpp` writes for a
# `state`: test/reference_test.cpp over the reference protocol's (build/gen/reference.hpp, from
# spec/protocol, with its presenter reference/presenter.hpp, and its machine schemas,
# build/gen/reference_{datagram,baseline,delta}.hpp), test/coded_machine_test.cpp over the same
# binding (the acked machines' coded session rules, CODE-2 and CODE-3, through a probe schema
# wrapping its kind 12 schema), test/arena_test.cpp over a second
# state's (build/gen-arena/arena.hpp, from spec/tests/state/players.wire) and test/game_test.cpp
# over the game's (build/gen-game/arena.hpp, from examples/game/wire: a ranged field, over the
# recorded stream examples/game/vectors/streams/arena.txt). Those three are generated
# first (`cargo run -p ackwire`, or $ACKWIRE when that names a built binary) and built against
# their folder's copies of the runtime's headers (byte for byte those of include/). Each with
# g++ -std=c++17 and every warning the C++ testee is built with turned into an error, twice, both
# builds at once:
#   build/NAME            -O2, no sanitizer;
#   build/NAME-sanitized  AddressSanitizer and UBSan, any finding aborts (and reads into a
#                         std::vector's unused capacity are findings).
# Then runs them all; each ends with `N passed, M failed` and fails on any failed check.
#
# Run from anywhere. $CXX overrides the compiler (g++).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cxx="${CXX:-g++}"

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "test.sh: the C++ compiler \`$cxx\` is not installed (apt-get install g++)" >&2
    exit 1
fi

mkdir -p "$here/build"
root="$(cd "$here/.." && pwd)"
# The generator's output (cargo's warnings included) is shown only when it fails.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [ -n "${ACKWIRE:-}" ]; then
    ackwire=("$ACKWIRE")
else
    ackwire=(cargo run -q -p ackwire --)
fi
if ! (cd "$root" && "${ackwire[@]}" gen --lang cpp --out "$here/build/gen" spec/protocol \
    && "${ackwire[@]}" gen --lang cpp --out "$here/build/gen-arena" spec/tests/state/players.wire \
    && "${ackwire[@]}" gen --lang cpp --out "$here/build/gen-game" examples/game/wire) \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
# ACKWIRE_RUNTIME_DIR: where packed19_test finds vectors/quat/smallest_three_cases.txt;
# ACKWIRE_VECTORS_DIR: where range_test and coded_test find coder/range_coder_cases.txt and
# coder/coded_cases.txt;
# ACKWIRE_GAME_DIR: where game_test finds vectors/streams/arena.txt.
flags=(-std=c++17 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    "-DACKWIRE_RUNTIME_DIR=\"$root/vectors/quat\"" "-DACKWIRE_VECTORS_DIR=\"$root/vectors\""
    "-DACKWIRE_GAME_DIR=\"$root/examples/game\"")
tests=("runtime_test:the C++ runtime's tests"
    "acked_test:the acked machines' tests"
    "rest_test:the datagram, baseline and delta machines' tests"
    "packed19_test:bucket codes, smallest-three quaternions and ascending bit lists"
    "range_test:the range coder, against the Rust coder's cases"
    "coded_test:kind 13's coded values, against the Rust runtime's cases"
    "reference_test:the reference state's binding, kind 6 and kind 12, its presenter, machine schemas and components"
    "coded_machine_test:the acked machines' coded session rules (CODE-2, CODE-3), over the reference binding"
    "arena_test:a second state's binding (spec/tests/state/players.wire)"
    "game_test:the game's binding (examples/game/wire), its ranged health and components")

# Every compile in one pool as wide as the machine: a sanitized build takes three to four times
# its -O2 twin (reference_test: 41 s against 16), so pairing each test's two builds left a core
# idle most of the step. Sanitized builds carry line tables only (-g1): the reports keep their
# file:line frames, and full debug info made them 43% slower to build (58.6 s against 40.8).
status=0
running=0
jobs="$(nproc 2>/dev/null || echo 2)"
compile() {
    if [ "$running" -ge "$jobs" ]; then
        wait -n || status=$?
        running=$((running - 1))
    fi
    "$@" &
    running=$((running + 1))
}
for t in "${tests[@]}"; do
    name="${t%%:*}"
    source="$here/test/$name.cpp"
    # The bindings, protocol.hpp and the runtime's headers they sit beside through their
    # generated folder; reference/presenter.hpp through this one.
    case "$name" in
        reference_test | coded_machine_test) includes=(-I "$here/build/gen" -I "$here") ;;
        arena_test) includes=(-I "$here/build/gen-arena") ;;
        game_test) includes=(-I "$here/build/gen-game") ;;
        *) includes=(-I "$here/include") ;;
    esac
    compile "$cxx" "${flags[@]}" "${includes[@]}" -O1 -g1 -fsanitize=address,undefined \
        -fno-sanitize-recover=all \
        -D_GLIBCXX_SANITIZE_VECTOR -o "$here/build/$name-sanitized" "$source"
    compile "$cxx" "${flags[@]}" "${includes[@]}" -O2 -o "$here/build/$name" "$source"
done
while [ "$running" -gt 0 ]; do
    wait -n || status=$?
    running=$((running - 1))
done
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

for t in "${tests[@]}"; do
    name="${t%%:*}"
    echo "== ${t#*:}, -O2"
    "$here/build/$name"
    echo "== ${t#*:}, AddressSanitizer and UBSan"
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
        UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
        "$here/build/$name-sanitized"
done
