#!/usr/bin/env bash
# Builds the C# testee: generates the codec of the reference protocol and its testee into gen/
# with `ackwire gen --lang cs --testee` (Protocol.cs, the binding of its `state Reference`,
# Reference.cs, their runtime Runtime/*.cs, and Testee.cs, which serves the frames; its Main.cs,
# the frames alone, and its script are not used here: testee.cs adds the session halves), then
# compiles it with testee.cs into build/testee.exe with Mono's C# compiler, C# 7.2, warnings as
# errors, and alloc.cs (what decoding allocates, measured) into build/alloc.exe. The testee also
# holds the session machines (gen/Runtime/Sessions/*.cs), the reference protocol's datagram,
# baseline and delta schemas (gen/ReferenceDatagram.cs, ReferenceBaseline.cs, ReferenceDelta.cs,
# generated from its `schema` declarations), its hand-written acked presenter's policy
# (csharp/reference/*.cs, copied into gen/reference/), the session dispatch (Sessions.cs) and
# the adapters of the halves (halves/*.cs); hostile_replay.cs, a hostile peer replaying the
# stream vectors with mutated frames into those halves, is build/hostile_replay.exe.
# Installs Mono (mono-mcs, mono-runtime) from Debian's packages when it is missing.
# Prints nothing on success.
#
# Run from anywhere; then `ackwire conform --testee "mono conformance/testees/cs/build/testee.exe"`.
# `ackwire` is run with `cargo run`, or from $ACKWIRE when that names a built binary (as the
# integration test does, from inside `cargo test`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

bash "$root/csharp/mono.sh"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [ -n "${ACKWIRE:-}" ]; then
    generate=("$ACKWIRE" gen --lang cs --testee --out "$here/gen" spec/protocol)
else
    generate=(cargo run -q -p ackwire -- gen --lang cs --testee --out "$here/gen" spec/protocol)
fi
# Anew each time, so that a runtime file removed from the generator does not linger.
rm -rf "$here/gen"
if ! (cd "$root" && "${generate[@]}") >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi

mkdir -p "$here/gen/reference"
cp "$root"/csharp/reference/*.cs "$here/gen/reference/" 2>/dev/null || true

mkdir -p "$here/build"
# A folder with no file yet (halves/ before its first adapter) adds nothing.
shopt -s nullglob
sessions=("$here"/gen/Runtime/Sessions/*.cs "$here"/gen/reference/*.cs "$here/Sessions.cs" "$here"/halves/*.cs)
shopt -u nullglob
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -doc:"$here/build/testee.xml" -out:"$here/build/testee.exe" "$here/testee.cs" "$here/gen/Protocol.cs" "$here/gen/Reference.cs" "$here/gen/Testee.cs" \
    "$here/gen/ReferenceDatagram.cs" "$here/gen/ReferenceBaseline.cs" "$here/gen/ReferenceDelta.cs" "$here"/gen/Runtime/*.cs "${sessions[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
# cs-acked: the hostile peer against the session halves (hostile_replay.cs), beside the testee.
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -out:"$here/build/hostile_replay.exe" "$here/hostile_replay.cs" "$here/gen/Protocol.cs" "$here/gen/Reference.cs" \
    "$here/gen/ReferenceDatagram.cs" "$here/gen/ReferenceBaseline.cs" "$here/gen/ReferenceDelta.cs" "$here"/gen/Runtime/*.cs \
    "${sessions[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
if ! mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo \
    -out:"$here/build/alloc.exe" "$here/alloc.cs" "$here/gen/Protocol.cs" "$here"/gen/Runtime/*.cs \
    "$here"/gen/Runtime/Sessions/*.cs \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
