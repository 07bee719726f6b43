#!/usr/bin/env bash
# The arena's C# client against the recorded stream of the Rust server's run, as
# examples/game/ts/test.sh holds the TypeScript one: generates the game's codec and binding from
# its own layout (`ackwire gen --lang cs examples/game/wire`: Protocol.cs, Arena.cs for `state
# Arena`), compiles them with the C# runtime (csharp/src) and Replay.cs by Mono's compiler (as
# csharp/test.sh does: C# 7.2, warnings as errors) into target/examples/game-cs/, and runs it on
# vectors/streams/arena.txt (kind 6) and arena_coded.txt (kind 13). Prints the replay's summary; exits 1 on a difference. Installs Mono
# when it is missing (csharp/mono.sh).
#
# Run from anywhere. $ACKWIRE names a built ackwire binary (default: `cargo run`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/target/examples/game-cs"

bash "$root/csharp/mono.sh"
rm -rf "$out"
mkdir -p "$out"
if [ -n "${ACKWIRE:-}" ]; then
  "$ACKWIRE" gen --lang cs --out "$out/gen" "$root/examples/game/wire" >/dev/null
else
  (cd "$root" && cargo run -q -p ackwire -- gen --lang cs --out "$out/gen" examples/game/wire >/dev/null)
fi
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -out:"$out/replay.exe" \
  "$root"/csharp/src/*.cs "$root"/csharp/src/Sessions/*.cs "$out"/gen/*.cs "$here/Replay.cs"
mono "$out/replay.exe" "$root/examples/game/vectors/streams/arena.txt"
mono "$out/replay.exe" coded "$root/examples/game/vectors/streams/arena_coded.txt"
