#!/usr/bin/env bash
# The TypeScript speed bench: builds the testee (build.sh: the generated codec of the reference
# protocol, compiled), writes the bench's acked frames (bench/frames.mjs, the JSON form, made
# into bytes by `ackwire encode acked`) to dist/bench-frames.tsv, and runs dist/bench.js on
# them: the generated codec beside a hand-written DataView codec, ns per entity and ratios.
#
# Run from anywhere. BENCH_ROUNDS and BENCH_ROUND_MS set the rounds (9) and their length (100).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

bash "$here/build.sh"
if [ -z "${ACKWIRE:-}" ]; then
  (cd "$root" && cargo build -q -p ackwire --bin ackwire)
  ACKWIRE="$root/target/debug/ackwire"
fi

frames="$here/dist/bench-frames.tsv"
: >"$frames"
node "$here/bench/frames.mjs" | while IFS=$'\t' read -r name json; do
  printf '%s\t%s\n' "$name" "$(printf '%s' "$json" | "$ACKWIRE" encode acked -)" >>"$frames"
done
node "$here/dist/bench.js" "$frames"
