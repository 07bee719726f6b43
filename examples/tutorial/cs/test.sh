#!/usr/bin/env bash
# The tutorial's C# client (examples/tutorial/cs/Client.cs) on the stream the Rust server's run
# recorded (examples/tutorial/stream.txt), as ts/test.sh runs the TypeScript one: `ackwire gen
# --lang cs` from wire/ships.wire (the binding and its runtime), compiled with Client.cs by Mono's
# compiler (C# 7.2, warnings as errors) into target/examples/tutorial-cs/. Exits 1 on a
# difference. Installs Mono when it is missing (csharp/mono.sh).
#
# Run from anywhere. $ACKWIRE names a built ackwire binary (default: `cargo run`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/target/examples/tutorial-cs"

bash "$root/csharp/mono.sh"
rm -rf "$out"
mkdir -p "$out"
ackwire=("${ACKWIRE:-cargo}")
[ -n "${ACKWIRE:-}" ] || ackwire+=(run -q --manifest-path "$root/Cargo.toml" -p ackwire --)
"${ackwire[@]}" gen --lang cs --out "$out/gen" "$here/../wire/ships.wire" >/dev/null
mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -out:"$out/client.exe" -recurse:"$out/gen/*.cs" "$here/Client.cs"
mono "$out/client.exe" "$here/../stream.txt"
