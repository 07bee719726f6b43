#!/usr/bin/env bash
# The TypeScript runtime's own checks: installs the pinned tools (`npm ci`) when node_modules is
# missing, checks the formatting (prettier), compiles the runtime alone with only ES2020 in scope
# (no node, no DOM: it must run in both), compiles the tests, and runs them with node's own test
# runner. Run from anywhere.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi

npx --no-install prettier --check --log-level warn src test
rm -rf dist
npx --no-install tsc -p .
npx --no-install tsc -p test
node --test --test-reporter=spec dist/test/*.test.js
