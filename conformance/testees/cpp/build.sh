#!/usr/bin/env bash
# Builds the C++ testee: generates the codec of the reference protocol and its testee into gen/
# with `ackwire gen --lang cpp --testee` (its session headers included, and the schemas of its
# machines, reference_{datagram,baseline,delta}.hpp; the generated testee.cpp, the frames alone,
# and its script are not used here: testee.cpp adds the session halves), copies the reference
# protocol's hand-written presenter (cpp/reference/) into gen/reference/, then compiles
# testee.cpp twice, both builds at once, unless the last build had the same inputs:
#   build/testee       AddressSanitizer and UBSan, any finding aborts (what conformance runs);
#   build/testee-fast  -O2, no sanitizer.
# Prints nothing on success.
#
# Run from anywhere; then `ackwire conform --testee conformance/testees/cpp/build/testee`.
# `ackwire` is run with `cargo run`, or from $ACKWIRE when that names a built binary (as the
# integration test does, from inside `cargo test`). $CXX overrides the compiler (g++).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cxx="${CXX:-g++}"

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "build.sh: the C++ compiler \`$cxx\` is not installed (apt-get install g++)" >&2
    exit 1
fi

# The generator's output (cargo's warnings included) is shown only when it fails.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [ -n "${ACKWIRE:-}" ]; then
    generate=("$ACKWIRE" gen --lang cpp --testee --out "$here/gen" spec/protocol)
else
    generate=(cargo run -q -p ackwire --
        gen --lang cpp --testee --out "$here/gen" spec/protocol)
fi
if ! (cd "$root" && "${generate[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi

# The reference protocol's presenter for the acked machines, beside the codec it binds.
if [ -d "$root/cpp/reference" ]; then
    # Anew each time: `cp -r` onto a folder left by an earlier build would copy into it
    # (gen/reference/reference/) and leave the stale headers where the testee includes them.
    rm -rf "$here/gen/reference"
    cp -r "$root/cpp/reference" "$here/gen/reference"
fi

mkdir -p "$here/build"
flags=(-std=c++17 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -I "$here/gen")

# The same inputs build the same testee: scripts/conform.sh builds it after the cargo tests
# (cli/tests/cpp_testee.rs) built it from the same checkout, and the sanitized compile is most of
# a minute. The stamp is a hash of the compiler, the flags and every file the compile reads.
stamp="$here/build/inputs.sha256"
inputs="$(
    {
        printf '%s\n' "$cxx" "$("$cxx" --version | head -n 1)" "${flags[@]}"
        find "$here/gen" "$here/halves" "$here/testee.cpp" "$here/sessions.hpp" -type f -print0 |
            sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d ' ' -f 1
)"
if [ -x "$here/build/testee" ] && [ -x "$here/build/testee-fast" ] &&
    [ "$(cat "$stamp" 2>/dev/null)" = "$inputs" ]; then
    exit 0
fi
rm -f "$stamp"

"$cxx" "${flags[@]}" -O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all \
    -o "$here/build/testee" "$here/testee.cpp" &
sanitized=$!
"$cxx" "${flags[@]}" -O2 -o "$here/build/testee-fast" "$here/testee.cpp" &
fast=$!

status=0
wait "$sanitized" || status=$?
wait "$fast" || status=$?
if [ "$status" -eq 0 ]; then
    echo "$inputs" >"$stamp"
fi
exit "$status"
