#!/usr/bin/env bash
# The main job: the conformance suite (every golden frame and stream vector) against every
# bundled implementation: the Rust codec, and the TypeScript, C++ and C# codecs generated from the
# same spec. Builds what it needs (npm ci for the pinned TypeScript compiler, g++, Mono), so a fresh
# clone needs nothing else. Extra arguments go to every `ackwire conform` run (e.g. --filter).
set -euo pipefail
cd "$(dirname "$0")/.."

ackwire() { cargo run -q -p ackwire -- "$@"; }

echo "building the TypeScript, C++ and C# testees"
bash conformance/testees/ts/build.sh
bash conformance/testees/cpp/build.sh
# The C# testee (issue 21): Mono's mcs, installed by build.sh when missing.
bash conformance/testees/cs/build.sh

status=0
for testee in "" "node conformance/testees/ts/dist/testee.js" "conformance/testees/cpp/build/testee" \
    "mono conformance/testees/cs/build/testee.exe"; do
    echo
    if [ -z "$testee" ]; then
        echo "== the Rust codec (ackwire testee)"
        ackwire conform "$@" || status=1
    else
        echo "== $testee"
        ackwire conform --testee "$testee" "$@" || status=1
    fi
done
exit "$status"
