#!/usr/bin/env bash
# Builds and runs the C++ runtime's own tests: test/runtime_test.cpp over
# include/ackwire_runtime.hpp (and the session shape), test/acked_test.cpp over
# include/ackwire_acked.hpp (`docs/spec/acked.md`'s machines), test/rest_test.cpp over the datagram,
# baseline and delta machines and their digests, test/packed19_test.cpp over the bucket codes,
# quaternions and ascending lists of packed bodies, and test/reference_test.cpp over the reference
# protocol's acked schemas (reference/acked.hpp, reference/acked_packed.hpp: the orientation group
# and kind 12, issue 19), which needs the generated codec: it is generated first into build/gen with
# `ackwire gen --lang cpp spec/protocol` (`cargo run -p ackwire`, or $ACKWIRE when that names a
# built binary), and that test alone is built against build/gen's copies of the runtime's headers
# (byte for byte those of include/). Each with g++ -std=c++17 and every warning the C++ testee is
# built with turned into an error, twice, both builds at once:
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
    generate=("$ACKWIRE" gen --lang cpp --out "$here/build/gen" spec/protocol)
else
    generate=(cargo run -q -p ackwire -- gen --lang cpp --out "$here/build/gen" spec/protocol)
fi
if ! (cd "$root" && "${generate[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
# ACKWIRE_RUNTIME_DIR: where packed19_test finds vectors/quat/smallest_three_cases.txt.
flags=(-std=c++17 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    "-DACKWIRE_RUNTIME_DIR=\"$root/vectors/quat\"")
tests=("runtime_test:the C++ runtime's tests"
    "acked_test:the acked machines' tests"
    "rest_test:the datagram, baseline and delta machines' tests"
    "packed19_test:bucket codes, smallest-three quaternions and ascending bit lists"
    "reference_test:the reference protocol's acked schemas, kind 6 and kind 12")

status=0
for t in "${tests[@]}"; do
    name="${t%%:*}"
    source="$here/test/$name.cpp"
    # reference/ is found through the runtime's folder, protocol.hpp (and the runtime's headers
    # it sits beside) through build/gen.
    if [ "$name" = reference_test ]; then
        includes=(-I "$here/build/gen" -I "$here")
    else
        includes=(-I "$here/include")
    fi
    "$cxx" "${flags[@]}" "${includes[@]}" -O2 -o "$here/build/$name" "$source" &
    plain=$!
    "$cxx" "${flags[@]}" "${includes[@]}" -O1 -g -fsanitize=address,undefined \
        -fno-sanitize-recover=all \
        -D_GLIBCXX_SANITIZE_VECTOR -o "$here/build/$name-sanitized" "$source" &
    sanitized=$!
    wait "$plain" || status=$?
    wait "$sanitized" || status=$?
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
