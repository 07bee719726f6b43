set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Written after a build succeeded; removed before one starts, so a build cut short is done again.
stamp="$here/.testee-built"

# Whether the build is missing or a file of this folder is newer than it (hidden files and what
# builds make, under node_modules, dist, build and target, aside).
stale() {
    [ ! -f "$stamp" ] || [ -n "$(find "$here" \( -name '.*' -o -name node_modules -o -name dist \
        -o -name build -o -name target \) -prune -o -type f -newer "$stamp" -print -quit)" ]
}

# Runs `compile` (defined below) when the build is stale, one build at a time (flock, where it is
# installed). Everything it prints goes to standard error: standard output is the protocol's. A
# line every two seconds tells a runner waiting for `hello` that the testee is still starting.
build_if_stale() {
    stale || return 0
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$here/.testee-lock"
        # Another start of this testee is building: waited for with a line every two seconds,
        # so that its runner goes on waiting for `hello` too.
        until flock -w 2 9; do
            echo "testee: waiting for another start's build" >&2
        done
    fi
    if stale; then
        echo "testee: building (a first run, or the sources changed)" >&2
        rm -f "$stamp"
        compile >&2 &
        # Polled every fifth of a second: a build that has nothing to do (cargo's, over a
        # checkout) costs a start no more.
        local pid=$! polls=0
        while kill -0 "$pid" 2>/dev/null; do
            sleep 0.2
            polls=$((polls + 1))
            if [ $((polls % 10)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
                echo "testee: still building ($((polls / 5)) s)" >&2
            fi
        done
        wait "$pid"
        touch "$stamp"
    fi
    # The testee itself must not hold the lock.
    exec 9>&-
}
