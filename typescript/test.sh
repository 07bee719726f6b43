#!/usr/bin/env bash
# The TypeScript runtime's own checks: installs the pinned tools (`npm ci`) when node_modules is
# missing, checks the formatting (prettier), compiles the runtime alone with only ES2020 in scope
# (no node, no DOM: it must run in both), compiles the tests, and runs them with node's own test
# runner. Run from anywhere.
#
# The reference protocol's bindings (gen/reference.ts, which `ackwire gen --lang ts` writes for
# `state Reference`, gen/reference_{datagram,baseline,delta}.ts for its machine schemas, and the
# hand-written reference/: its presenter)
# import the generated codec of spec/protocol, so their tests (test/reference_*.ts) run over one:
# `ackwire gen --lang ts` writes it into gen/ (with $ACKWIRE when that names a built binary, else
# with `cargo run`), and reference/ is copied beside it, as conformance/testees/ts/build.sh does.
# A second state's binding (spec/tests/state/arena.wire) is generated into gen-arena/ for
# test/arena_state.test.ts, and the game's (examples/game/wire, whose health is ranged) into gen-game/
# for test/game_state.test.ts.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi

npx --no-install prettier --check --log-level warn src test reference
rm -rf dist
npx --no-install tsc -p .
# A file of an older ackwire's output must not linger among the new ones.
rm -rf gen gen-arena gen-game
if [ -z "${ACKWIRE:-}" ]; then
  (cd "$root" && cargo build -q -p ackwire --bin ackwire)
  ACKWIRE="$root/target/debug/ackwire"
fi
(cd "$root" && "$ACKWIRE" gen --lang ts --out "$here/gen" spec/protocol >/dev/null)
(cd "$root" && "$ACKWIRE" gen --lang ts --out "$here/gen-arena" spec/tests/state/arena.wire >/dev/null)
(cd "$root" && "$ACKWIRE" gen --lang ts --out "$here/gen-game" examples/game/wire >/dev/null)
cp -r reference gen/reference
npx --no-install tsc -p test
node --test --test-reporter=spec dist/test/*.test.js
