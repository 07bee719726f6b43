#!/usr/bin/env bash
# The ClusterFuzzLite and OSS-Fuzz build of the fuzz targets (.clusterfuzzlite/build.sh), run as
# the image would run it but without Docker: $SRC a temporary folder holding the repository (a
# link to it, named as the Dockerfile names it), $OUT another. Outside the OSS-Fuzz image the
# script builds with `--sanitizer none` on stable Rust, the flags .ci/fuzz.sh builds with, so
# after that step it only copies. Then checks what a fuzzing engine would find in $OUT: every
# target of `cargo fuzz list`, executable, and beside each target with a committed corpus its
# `<target>_seed_corpus.zip` holding every file of that corpus. Exits 1 on anything missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

work="$(mktemp -d "${TMPDIR:-/tmp}/ackwire-cflite.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out"
name="$(sed -n 's|^COPY \. \$SRC/||p' .clusterfuzzlite/Dockerfile)"
ln -s "$root" "$work/src/$name"

start=$SECONDS
# From the repository's place under $SRC, as the Dockerfile's WORKDIR has it.
(cd "$work/src/$name" && SRC="$work/src" OUT="$work/out" bash .clusterfuzzlite/build.sh)

failed=0
mapfile -t targets < <(cargo fuzz list --fuzz-dir fuzz)
for target in "${targets[@]}"; do
    if [ ! -x "$work/out/$target" ]; then
        echo "clusterfuzzlite: $target is not in \$OUT" >&2
        failed=1
    fi
    if [ -d "fuzz/corpus/$target" ]; then
        want=$(find "fuzz/corpus/$target" -type f | wc -l)
        got=$(unzip -Z1 "$work/out/${target}_seed_corpus.zip" 2>/dev/null | grep -cv '/$' || true)
        if [ "$got" -ne "$want" ]; then
            echo "clusterfuzzlite: ${target}_seed_corpus.zip holds $got files, fuzz/corpus/$target $want" >&2
            failed=1
        fi
    fi
done
echo "clusterfuzzlite: ${#targets[@]} targets and their seed corpora in \$OUT, in $((SECONDS - start)) s"
exit "$failed"
