#!/usr/bin/env bash
# Hostile peers against the C# datagram, baseline and delta halves: compiles hostile.cs with the
# codec, the state's binding (Reference.cs), the runtime and the reference schemas that build.sh
# put into gen/ (run build.sh first), C# 7.2 with warnings as errors, and runs it for TICKS ticks
# a pair (default 3000). Exit 1 when anything but a SessionError escaped a half or a limit was
# passed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -f "$here/gen/Protocol.cs" ]; then
    echo "hostile.sh: run build.sh first (gen/ is missing)" >&2
    exit 1
fi
mkdir -p "$here/build"
mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo -out:"$here/build/hostile.exe" \
    "$here/hostile.cs" "$here/gen/Protocol.cs" "$here/gen/Reference.cs" "$here/gen/ReferenceDatagram.cs" "$here/gen/ReferenceBaseline.cs" "$here/gen/ReferenceDelta.cs" \
    "$here"/gen/Runtime/*.cs "$here"/gen/Runtime/Sessions/*.cs \
    "$here"/gen/reference/*.cs
mono "$here/build/hostile.exe" "${1:-3000}"
