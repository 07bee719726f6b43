#!/usr/bin/env bash
# Builds the C# testee: generates the codec of the reference protocol into gen/ with
# `ackwire gen --lang cs` (Protocol.cs and its runtime, Runtime/*.cs), then compiles it with
# testee.cs into build/testee.exe with Mono's C# compiler, C# 7.2, warnings as errors, and
# alloc.cs (what decoding allocates, measured) into build/alloc.exe.
# Installs Mono (mono-mcs, mono-runtime) from Debian's packages when it is missing.
# Prints nothing on success.
#
# Run from anywhere; then `ackwire conform --testee "mono conformance/testees/cs/build/testee.exe"`.
# `ackwire` is run with `cargo run`, or from $ACKWIRE when that names a built binary (as the
# integration test does, from inside `cargo test`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

bash "$root/spec/runtime/cs/mono.sh"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [ -n "${ACKWIRE:-}" ]; then
    generate=("$ACKWIRE" gen --lang cs --out "$here/gen" spec/protocol)
else
    generate=(cargo run -q -p ackwire -- gen --lang cs --out "$here/gen" spec/protocol)
fi
# Anew each time, so that a runtime file removed from the generator does not linger.
rm -rf "$here/gen"
if ! (cd "$root" && "${generate[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi

mkdir -p "$here/build"
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -doc:"$here/build/testee.xml" -out:"$here/build/testee.exe" "$here/testee.cs" "$here/gen/Protocol.cs" "$here"/gen/Runtime/*.cs \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -out:"$here/build/alloc.exe" "$here/alloc.cs" "$here/gen/Protocol.cs" "$here"/gen/Runtime/*.cs \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
