#
# The testee of the TypeScript codec beside it (protocol.ts): conformance/PROTOCOL.md over standard
# input and output, for `ackwire conform --testee PATH/testee`. Its first run builds it: the pinned
# TypeScript compiler (`npm ci`, from package-lock.json), then `tsc` into dist/. Needs node and npm.

@PRELUDE@

compile() {
    if [ ! -d "$here/node_modules" ]; then
        (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    fi
    rm -rf "$here/dist"
    (cd "$here" && npx --no-install tsc -p .)
}

build_if_stale
exec node "$here/dist/main.js"
