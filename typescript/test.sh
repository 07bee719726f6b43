#!/usr/bin/env bash
# The TypeScript runtime's own checks: installs the pinned tools (`npm ci`) when node_modules is
# missing, checks the formatting (prettier), compiles the runtime alone with only ES2020 in scope
# (no node, no DOM: it must run in both), compiles the tests, and runs them with node's own test
# runner. Run from anywhere.
#
# The reference protocol's schemas (reference/: kind 6's and kind 12's acked schemas, the
# presenter) import the generated codec of spec/protocol, so their tests (test/reference_*.ts)
# run over one: `ackwire gen --lang ts` writes it into gen/ (with $ACKWIRE when that names a
# built binary, else with `cargo run`), and reference/ is copied beside it, as
# conformance/testees/ts/build.sh does.
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
rm -rf gen
if [ -n "${ACKWIRE:-}" ]; then
  (cd "$root" && "$ACKWIRE" gen --lang ts --out "$here/gen" spec/protocol >/dev/null)
else
  (cd "$root" && cargo run -q -p ackwire -- gen --lang ts --out "$here/gen" spec/protocol >/dev/null)
fi
cp -r reference gen/reference
npx --no-install tsc -p test
node --test --test-reporter=spec dist/test/*.test.js
