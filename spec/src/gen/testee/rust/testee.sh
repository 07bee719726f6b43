#
# The testee of the Rust codec beside it (src/protocol.rs): conformance/PROTOCOL.md over standard
# input and output, for `ackwire conform --testee PATH/testee`. Its first run builds the crate
# with cargo (over the copy of ackwire-rt in ackwire-rt/, or, for a spec with a state, over the
# ackwire crates Cargo.toml names, and serde from the registry) and keeps the binary as
# build/testee; $CARGO_TARGET_DIR and cargo's configuration are honoured.

@PRELUDE@

if grep -q '^\[patch.crates-io\]' "$here/Cargo.toml"; then
    # Over a checkout's crates: cargo knows when one of them changed, this folder's files do not.
    stale() { true; }
fi

compile() {
    mkdir -p "$here/build"
    cargo build --manifest-path "$here/Cargo.toml" --message-format=json-render-diagnostics \
        >"$here/build/cargo.json"
    local exe
    exe="$(sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' "$here/build/cargo.json" | tail -n 1)"
    # Another runner may be executing build/testee (a running binary cannot be written over):
    # the new one takes its name by a rename, which leaves the running one whole.
    if ! cmp -s "$exe" "$here/build/testee"; then
        cp "$exe" "$here/build/testee.new"
        mv -f "$here/build/testee.new" "$here/build/testee"
    fi
}

build_if_stale
exec "$here/build/testee"
