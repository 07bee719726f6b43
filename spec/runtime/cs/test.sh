#!/usr/bin/env bash
# The C# runtime's own tests: compiles src/*.cs and src/Sessions/*.cs with test/*.cs (a runner of its own,
# no NUnit) with Mono's C# compiler, C# 7.2, warnings as errors, and runs them. Installs Mono
# (mono-mcs, mono-runtime) when it is missing. `-doc` makes every public item's XML doc checked
# (present and well formed) under -warnaserror+.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/mono.sh"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -doc:"$out/doc.xml" -out:"$out/tests.exe" \
    "$here"/src/*.cs "$here"/src/Sessions/*.cs "$here"/test/*.cs
mono "$out/tests.exe"
