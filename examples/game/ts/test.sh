#!/usr/bin/env bash
# The arena's TypeScript client against the recorded stream of the Rust server's run: generates
# the game's codec and binding from its own layout (`ackwire gen --lang ts examples/game/wire`:
# protocol.ts, arena.ts for `state Arena`, the runtime), compiles them with client.ts and
# replay.ts by the TypeScript testee's pinned tsc into target/examples/game-ts/, and runs
# replay.js on vectors/streams/arena.txt (kind 6, the `Arena` schema) and arena_coded.txt (kind 13,
# `CodedArena`). Prints each replay's summary; exits 1 on a difference.
#
# Run from anywhere. $ACKWIRE names a built ackwire binary (default: `cargo run`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/target/examples/game-ts"
testee="$root/conformance/testees/ts"

rm -rf "$out"
mkdir -p "$out/src"
if [ -n "${ACKWIRE:-}" ]; then
  "$ACKWIRE" gen --lang ts --out "$out/src/gen" "$root/examples/game/wire" >/dev/null
else
  (cd "$root" && cargo run -q -p ackwire -- gen --lang ts --out "$out/src/gen" examples/game/wire >/dev/null)
fi
cp "$here/client.ts" "$here/replay.ts" "$out/src/"
cat >"$out/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2020",
    "lib": ["es2020"],
    "types": ["node"],
    "typeRoots": ["TESTEE/node_modules/@types"],
    "module": "node16",
    "moduleResolution": "node16",
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "rootDir": "src",
    "outDir": "dist",
    "newLine": "lf"
  },
  "include": ["src"]
}
JSON
sed -i "s|TESTEE|$testee|" "$out/tsconfig.json"
printf '{ "type": "module" }\n' >"$out/package.json"
if [ ! -x "$testee/node_modules/.bin/tsc" ]; then
  (cd "$testee" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
"$testee/node_modules/.bin/tsc" -p "$out"
node "$out/dist/replay.js" "$root/examples/game/vectors/streams/arena.txt"
node "$out/dist/replay.js" coded "$root/examples/game/vectors/streams/arena_coded.txt"
