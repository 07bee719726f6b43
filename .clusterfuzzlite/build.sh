#!/usr/bin/env bash
# The build of the fuzz targets for ClusterFuzzLite and OSS-Fuzz, run in the image of the
# Dockerfile beside it from the repository ($SRC/NAME, the Dockerfile's WORKDIR): every
# cargo-fuzz crate of the repository (a Cargo.toml with `cargo-fuzz = true`) built with
# `cargo fuzz build -O` and debug assertions (an overflow on a value from the input is then a
# crash), each target copied into $OUT with its seed corpus (the crate's corpus/TARGET/) as
# $OUT/TARGET_seed_corpus.zip.
#
# In the OSS-Fuzz image $SANITIZER is set and cargo-fuzz builds with that sanitizer (the image's
# nightly Rust). Outside it, $SANITIZER is unset and the targets are built with
# `--sanitizer none`, on stable Rust, as ackwire's own fuzz step builds them: that is how the
# test command runs this script, with SRC and OUT set to temporary folders, since it has no
# Docker.
set -euo pipefail

: "${SRC:?SRC must name the folder that holds the repository}"
: "${OUT:?OUT must name the folder the targets are copied into}"

sanitizer=()
if [ -z "${SANITIZER:-}" ]; then
    sanitizer=(--sanitizer none)
fi
host="$(rustc -vV | sed -n 's/^host: //p')"

mapfile -t manifests < <(grep -rl --include=Cargo.toml --exclude-dir=target \
    --exclude-dir=node_modules --exclude-dir=.git '^cargo-fuzz = true' . | sort)
if [ "${#manifests[@]}" -eq 0 ]; then
    echo "build.sh: no cargo-fuzz crate (a Cargo.toml with cargo-fuzz = true) in $(pwd)" >&2
    exit 1
fi

for manifest in "${manifests[@]}"; do
    crate="$(dirname "$manifest")"
    cargo fuzz build --fuzz-dir "$crate" -O -a "${sanitizer[@]}"
    target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$manifest" |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
    for target in $(cargo fuzz list --fuzz-dir "$crate"); do
        cp "$target_dir/$host/release/$target" "$OUT/"
        if [ -n "$(ls -A "$crate/corpus/$target" 2>/dev/null)" ]; then
            rm -f "$OUT/${target}_seed_corpus.zip"
            (cd "$crate/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
        fi
    done
done
