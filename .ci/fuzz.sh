#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for a short while on stable Rust, each starting from a
# copy of its committed corpus (fuzz/corpus/<target>/) in a temporary directory, so the checkout's
# corpus is never modified. Prints one summary line per target; exits non-zero if any target
# crashes (panic, timeout, out of memory), after running them all.
#
#   FUZZ_SECONDS       seconds per target (default 10)
#   FUZZ_DECODE_SECONDS  seconds per single-frame decoder target, decode_* (default: half of
#                      FUZZ_SECONDS, at least 1): such a target runs millions of inputs in that
#                      time where a stream target, which replays whole sessions, runs thousands
#   FUZZ_JOBS          targets run at once (default: the number of cores)
#   FUZZ_ARTIFACT_DIR  if set, crashing inputs are copied there (for CI to upload)
#
# Builds into fuzz/target (gitignored). Needs only stable Rust: `--sanitizer none` avoids the
# nightly-only `-Z` flags cargo-fuzz would pass for AddressSanitizer. `-a` (--debug-assertions)
# keeps overflow checks and debug_assert! in the release build, so an arithmetic overflow on a
# value from the input is a crash the fuzzer reports, not a silent wrap (issue 13). Build and
# run pass the same flags, so `run` reuses what `build` built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${FUZZ_SECONDS:-10}"
decode_seconds="${FUZZ_DECODE_SECONDS:-$(((seconds + 1) / 2))}"
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ackwire-fuzz.XXXXXX")"
failed=()
# The corpus copies go; crashing inputs and logs stay when a target failed.
cleanup() {
    if [ "${#failed[@]}" -eq 0 ]; then rm -rf "$work"; else rm -rf "$work/corpus"; fi
}
trap cleanup EXIT

start=$SECONDS
echo "fuzz: building targets (release, --sanitizer none, debug assertions)"
cargo fuzz build --sanitizer none -a
echo "fuzz: built in $((SECONDS - start)) s; ${seconds} s per target (${decode_seconds} s per decode_* target), ${jobs} at once"

mapfile -t targets < <(cargo fuzz list)
if [ "${#targets[@]}" -eq 0 ]; then
    echo "fuzz: no targets listed by 'cargo fuzz list'" >&2
    exit 1
fi

# fuzz_one TARGET: runs TARGET from a copy of its corpus; writes its summary line (and, on a
# crash, the panic and each input in hex) to $work/TARGET.summary and its status to
# $work/TARGET.status.
fuzz_one() {
    local target="$1"
    local corpus="$work/corpus/$target" artifacts="$work/artifacts/$target" log="$work/$target.log"
    local out="$work/$target.summary" time="$seconds"
    case "$target" in decode_*) time="$decode_seconds" ;; esac
    mkdir -p "$corpus" "$artifacts"
    local seeds=0
    if [ -d "fuzz/corpus/$target" ]; then
        cp -R "fuzz/corpus/$target/." "$corpus/"
        seeds=$(find "$corpus" -type f | wc -l)
    fi

    local status=0
    cargo fuzz run --sanitizer none -a "$target" "$corpus" -- \
        -max_total_time="$time" -rss_limit_mb=2048 -artifact_prefix="$artifacts/" \
        >"$log" 2>&1 || status=$?

    local runs cov found
    runs=$(grep -Eo '^Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || true)
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1 || true)
    found=$(($(find "$corpus" -type f | wc -l) - seeds))
    if [ "$status" -eq 0 ]; then
        printf 'fuzz: %-22s ok     %10s runs  %-10s corpus %d + %d new\n' \
            "$target" "${runs:-?}" "${cov:-cov: ?}" "$seeds" "$found" >"$out"
    else
        {
            printf 'fuzz: %-22s FAILED (exit %d) %s runs  corpus %d + %d new\n' \
                "$target" "$status" "${runs:-?}" "$seeds" "$found"
            # The panic message (up to its backtrace) and libFuzzer's verdict, then each input.
            awk '/panicked at/ { p = 1 } /stack backtrace:/ { p = 0 } p; /SUMMARY: libFuzzer/' "$log" |
                head -n 40 | sed 's/^/    /' || true
            for input in "$artifacts"/*; do
                [ -f "$input" ] || continue
                echo "    input $(basename "$input"): $(od -An -v -tx1 "$input" | tr -s ' \n' ' ')"
                if [ -n "${FUZZ_ARTIFACT_DIR:-}" ]; then
                    mkdir -p "$FUZZ_ARTIFACT_DIR/$target"
                    cp "$input" "$FUZZ_ARTIFACT_DIR/$target/"
                fi
            done
        } >"$out"
    fi
    echo "$status" >"$work/$target.status"
}

# libFuzzer runs one input at a time on one core, so FUZZ_JOBS targets (default: one per core)
# run at once, each still for its full FUZZ_SECONDS: the step takes targets / jobs times as long.
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
done
wait || true

for target in "${targets[@]}"; do
    cat "$work/$target.summary"
    [ "$(cat "$work/$target.status" 2>/dev/null || echo 1)" -eq 0 ] || failed+=("$target")
done

echo "fuzz: ${#targets[@]} targets, ${seconds} s each (decode_*: ${decode_seconds} s), ${jobs} at once, $((SECONDS - start)) s in all"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}; logs and crashing inputs in $work" >&2
    echo "fuzz: reproduce with: cargo fuzz run --sanitizer none -a <target> <input>; add the input to fuzz/corpus/<target>/" >&2
    exit 1
fi
