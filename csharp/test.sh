#!/usr/bin/env bash
# The C# runtime's own tests: compiles src/*.cs and src/Sessions/*.cs with test/*.cs (a runner of its own,
# no NUnit) with Mono's C# compiler, C# 7.2, warnings as errors, and runs them. Installs Mono
# (mono-mcs, mono-runtime) when it is missing. `-doc` makes every public item's XML doc checked
# (present and well formed) under -warnaserror+.
#
# Then the reference protocol's binding (Reference.cs, which `ackwire gen --lang cs` writes for
# its `state Reference`: the acked schemas of kind 6 and kind 12; ReferenceDatagram.cs,
# ReferenceBaseline.cs and ReferenceDelta.cs, for its machine schemas) and its hand-written part
# (reference/*.cs: the acked presenter's policy) with
# test/reference/*.cs (and test/Harness.cs, the checks and runner both programs share), a program
# of its own: they need the generated codec of spec/protocol, which `ackwire gen --lang cs` writes
# into the temporary folder (ackwire is $ACKWIRE when that names a built binary, else `cargo
# run`, as conformance/testees/cs/build.sh runs it); its Protocol.cs and Reference.cs are compiled
# over src/. Then the binding of a second state (spec/tests/state/arena.wire) with
# test/arena/*.cs, the same way; last, the game's (examples/game/wire, whose health is ranged) with
# test/game/*.cs, over the game's recorded stream.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bash "$here/mono.sh"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -doc:"$out/doc.xml" -out:"$out/tests.exe" \
    "$here"/src/*.cs "$here"/src/Sessions/*.cs "$here"/test/*.cs
# test/RangeTests.cs and test/CodedTests.cs read vectors/coder/range_coder_cases.txt and
# vectors/coder/coded_cases.txt from there.
ACKWIRE_VECTORS_DIR="$root/vectors" mono "$out/tests.exe"

# `ackwire gen --lang cs ARGS...`, quietly; on failure its output is shown.
generate() {
    if [ -n "${ACKWIRE:-}" ]; then
        set -- "$ACKWIRE" gen --lang cs "$@"
    else
        set -- cargo run -q -p ackwire -- gen --lang cs "$@"
    fi
    if ! (cd "$root" && "$@") >"$out/gen.log" 2>&1; then
        cat "$out/gen.log" >&2
        exit 1
    fi
}
generate --out "$out/gen" spec/protocol
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -doc:"$out/reference.xml" -out:"$out/reference_tests.exe" \
    "$here"/src/*.cs "$here"/src/Sessions/*.cs "$out"/gen/*.cs "$here"/reference/*.cs "$here"/test/Harness.cs \
    "$here"/test/reference/*.cs
ACKWIRE_VECTORS_DIR="$root/vectors" mono "$out/reference_tests.exe"

# Then the binding of a second state (spec/tests/state/arena.wire: the forms, carries and values
# the reference's cubes leave out) with test/arena/*.cs, a program of its own over its own codec.
generate --out "$out/arena" spec/tests/state/arena.wire
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -doc:"$out/arena.xml" -out:"$out/arena_tests.exe" \
    "$here"/src/*.cs "$here"/src/Sessions/*.cs "$out"/arena/*.cs "$here"/test/Harness.cs "$here"/test/arena/*.cs
mono "$out/arena_tests.exe"

# The game's binding (examples/game/wire: a ranged field in kind 6's reader at once) with
# test/game/*.cs, over the recorded stream examples/game/vectors/streams/arena.txt.
generate --out "$out/game" examples/game/wire
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -doc:"$out/game.xml" -out:"$out/game_tests.exe" \
    "$here"/src/*.cs "$here"/src/Sessions/*.cs "$out"/game/*.cs "$here"/test/Harness.cs "$here"/test/game/*.cs
ACKWIRE_GAME_STREAM="$root/examples/game/vectors/streams/arena.txt" mono "$out/game_tests.exe"
