#!/usr/bin/env bash
# Builds the TypeScript testee: installs the pinned compiler (`npm ci`) when node_modules is
# missing, generates the codec of the reference protocol and its testee into src/gen/ with
# `ackwire gen --testee` (protocol.ts, the acked binding of its `state Reference` in
# reference.ts, the other machines' schemas in reference_datagram.ts, reference_baseline.ts and
# reference_delta.ts, the runtime they import in src/gen/runtime/, and testee.ts, which serves
# the frames; its own main.ts, script and package files are not used here), copies the reference
# protocol's hand-written part (typescript/reference/: the acked presenter) into
# src/gen/reference/, and compiles everything into dist/. Prints nothing on success.
#
# Run from anywhere; then `node conformance/testees/ts/dist/testee.js` from the repository root.
# `ackwire` is run with `cargo run`, or from $ACKWIRE when that names a built binary (as the
# integration test does, from inside `cargo test`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

if [ ! -d "$here/node_modules" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# A file of an older ackwire's output must not linger among the new ones.
rm -rf "$here/src/gen"
if [ -n "${ACKWIRE:-}" ]; then
  (cd "$root" && "$ACKWIRE" gen --lang ts --testee --out "$here/src/gen" spec/protocol >/dev/null)
else
  (cd "$root" && cargo run -q -p ackwire -- \
    gen --lang ts --testee --out "$here/src/gen" spec/protocol >/dev/null)
fi

# The reference protocol's hand-written presenter for the acked machines, beside the codec.
if [ -d "$root/typescript/reference" ]; then
  cp -r "$root/typescript/reference" "$here/src/gen/reference"
fi

rm -rf "$here/dist"
(cd "$here" && npx --no-install tsc -p .)
