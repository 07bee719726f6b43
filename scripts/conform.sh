#!/usr/bin/env bash
# The main job: the conformance suite (every golden frame and stream vector) against every
# bundled implementation: the Rust codec, and the TypeScript, C++ and C# codecs generated from the
# same spec. Builds what it needs (npm ci for the pinned TypeScript compiler, g++, Mono), so a fresh
# clone needs nothing else. Extra arguments go to every `ackwire conform` run (e.g. --filter).
#   CONFORM_JOBS   implementations checked at once (default: the number of cores). Each run is
#                  one conform process driving one testee, mostly on one core; their reports are
#                  printed whole, in the order below, whatever order they finish in.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "building the TypeScript, C++ and C# testees"
bash conformance/testees/ts/build.sh
bash conformance/testees/cpp/build.sh
# The C# testee (issue 21): Mono's mcs, installed by build.sh when missing.
bash conformance/testees/cs/build.sh
# Built once here, so the runs below do not race to build it.
cargo build -q -p ackwire
ackwire=target/debug/ackwire

jobs="${CONFORM_JOBS:-$(nproc 2>/dev/null || echo 1)}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

testees=("" "node conformance/testees/ts/dist/testee.js" "conformance/testees/cpp/build/testee"
    "mono conformance/testees/cs/build/testee.exe")

conform_one() {
    local n="$1" testee="$2" rc=0
    {
        if [ -z "$testee" ]; then
            echo "== the Rust codec (ackwire testee)"
            "$ackwire" conform "${@:3}"
        else
            echo "== $testee"
            "$ackwire" conform --testee "$testee" "${@:3}"
        fi
    } >"$logs/$n.log" 2>&1 || rc=$?
    echo "$rc" >"$logs/$n.rc"
}

running=0
for n in "${!testees[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    conform_one "$n" "${testees[$n]}" "$@" &
    running=$((running + 1))
done
wait || true

status=0
for n in "${!testees[@]}"; do
    echo
    cat "$logs/$n.log"
    if [ "$(cat "$logs/$n.rc" 2>/dev/null || echo 1)" != 0 ]; then
        status=1
    fi
done
exit "$status"
