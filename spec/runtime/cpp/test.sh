#!/usr/bin/env bash
# Builds and runs the C++ runtime's own tests (test/runtime_test.cpp over
# include/ackwire_runtime.hpp; test/acked_test.cpp over include/ackwire_acked.hpp), with g++ -std=c++17 and every warning the C++ testee is built
# with turned into an error, twice, both builds at once:
#   build/runtime_test            -O2, no sanitizer;
#   build/runtime_test-sanitized  AddressSanitizer and UBSan, any finding aborts (and reads into
#                                 a std::vector's unused capacity are findings).
# Then runs both; each ends with `N passed, M failed` and fails on any failed check.
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
flags=(-std=c++17 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -I "$here/include")
source="$here/test/runtime_test.cpp"

"$cxx" "${flags[@]}" -O2 -o "$here/build/runtime_test" "$source" &
plain=$!
"$cxx" "${flags[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
    -D_GLIBCXX_SANITIZE_VECTOR -o "$here/build/runtime_test-sanitized" "$source" &
sanitized=$!

status=0
wait "$plain" || status=$?
wait "$sanitized" || status=$?

# Seed 000's machines (cpp-acked): the same two builds of test/acked_test.cpp.
"$cxx" "${flags[@]}" -O2 -o "$here/build/acked_test" "$here/test/acked_test.cpp" &
plain=$!
"$cxx" "${flags[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
    -D_GLIBCXX_SANITIZE_VECTOR -o "$here/build/acked_test-sanitized" \
    "$here/test/acked_test.cpp" &
sanitized=$!
wait "$plain" || status=$?
wait "$sanitized" || status=$?
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

echo "== the C++ runtime's tests, -O2"
"$here/build/runtime_test"
echo "== the C++ runtime's tests, AddressSanitizer and UBSan"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$here/build/runtime_test-sanitized"
echo "== the acked machines' tests, -O2"
"$here/build/acked_test"
echo "== the acked machines' tests, AddressSanitizer and UBSan"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$here/build/acked_test-sanitized"
