#!/usr/bin/env bash
# The tutorial's TypeScript client (examples/tutorial/ts/client.ts) on the stream the Rust
# server's run recorded (examples/tutorial/stream.txt, held to the run by tests/ship.rs):
# `ackwire gen --lang ts` from wire/ships.wire, compiled with the TypeScript testee's pinned tsc
# into target/examples/tutorial-ts/, run under node. Exits 1 on a difference.
#
# Run from anywhere. $ACKWIRE names a built ackwire binary (default: `cargo run`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/target/examples/tutorial-ts"
testee="$root/conformance/testees/ts"

rm -rf "$out"
mkdir -p "$out/src"
ackwire=("${ACKWIRE:-cargo}")
[ -n "${ACKWIRE:-}" ] || ackwire+=(run -q --manifest-path "$root/Cargo.toml" -p ackwire --)
"${ackwire[@]}" gen --lang ts --out "$out/src/gen" "$here/../wire/ships.wire" >/dev/null
cp "$here/client.ts" "$out/src/"
cat >"$out/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "es2020",
    "lib": ["es2020"],
    "types": ["node"],
    "typeRoots": ["$testee/node_modules/@types"],
    "module": "node16",
    "moduleResolution": "node16",
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"]
}
JSON
printf '{ "type": "module" }\n' >"$out/package.json"
if [ ! -x "$testee/node_modules/.bin/tsc" ]; then
  (cd "$testee" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
"$testee/node_modules/.bin/tsc" -p "$out"
node "$out/dist/client.js" "$here/../stream.txt"
