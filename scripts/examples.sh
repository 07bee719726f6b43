#!/usr/bin/env bash
# The socket examples (examples/sockets), end to end over real sockets on 127.0.0.1:
#
# 1. the browser: cube-server streams the cube scene's acked frames over a WebSocket, dropping,
#    duplicating and reordering unreliable frames itself (seeded); headless Chromium loads the
#    page it serves (examples/sockets/page: the TypeScript AckedDecoder, through the runtime's
#    facade AckedClientHalf over the binding `ackwire gen` writes for `state Reference`), which
#    sends kind 7 acks back and reports the state hash it shows per frame; watch.mjs reads the
#    text under the page's canvas (what it is doing, its counts, and at the end the server's
#    verdict) while it runs;
# 2. the native client: examples/sockets/native/cube_client.cpp (the C++ facade
#    acked::AckedClientHalf over the generated binding reference::Reference), built with
#    the testee's warning flags under ASan and UBSan, against the same server over UDP;
# 3. examples/game's arena: its TypeScript client (examples/game/ts), generated from the game's
#    own layout, in headless Chromium against `cube-server --scene arena` over a WebSocket;
# 4. the same client under node, held to the stream the game's Rust server recorded
#    (examples/game/ts/test.sh, examples/game/vectors/streams);
# 5. the game's C# client under Mono, held to the same stream (examples/game/cs/test.sh).
# 6. the tutorial's TypeScript and C# clients (docs/replicated-state.md), held to the stream its
#    Rust server recorded (examples/tutorial/ts/test.sh, examples/tutorial/cs/test.sh).
#
# Each run passes when the server's verdict is PASS (every hash the client reported for a tick
# equals the hash of S_N, the presenter's state for that client, at that tick, and enough
# reports came) and, checked here again from the two logs, every `client tick T hash H` line
# has a `tick T hash H` line of the server. The server exits when the run is done; every wait
# is bounded (readiness is the server's `listening` line, never a fixed sleep).
#
# Installs Debian's chromium when missing (as conformance/testees/ts/browser.sh does) and the
# TypeScript testee's pinned compiler when its node_modules is missing. Builds into
# target/examples/. ACKWIRE_TS_GEN / ACKWIRE_CPP_GEN name a prepared codec folder (what
# `ackwire gen` writes, with `reference/` inside) instead of generating one. EXAMPLES_TICKS
# (default 240, four seconds at 60 Hz) and EXAMPLES_LOSS (default 0.1) shape the runs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/target/examples"
ticks="${EXAMPLES_TICKS:-240}"
loss="${EXAMPLES_LOSS:-0.1}"
cxx="${CXX:-g++}"

fail() {
  printf 'examples.sh: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=need-package.sh
source "$root/scripts/need-package.sh"
need_package examples.sh chromium chromium

cd "$root"
cargo build -q -p ackwire -p ackwire-example-sockets || fail "cargo build failed"
ackwire="$root/target/debug/ackwire"
server="$root/target/debug/cube-server"
rm -rf "$out"
mkdir -p "$out"

# A codec folder for `lang`: the prepared one, or `ackwire gen` and the reference schema.
codec() {
  local lang="$1" prepared="$2" dest="$3" reference
  case "$1" in
    ts) reference="$root/typescript/reference" ;;
    *) reference="$root/$1/reference" ;;
  esac
  if [ -n "$prepared" ]; then
    cp -r "$prepared" "$dest"
    return
  fi
  "$ackwire" gen --lang "$lang" --out "$dest" spec/protocol >/dev/null || fail "ackwire gen --lang $lang failed"
  [ -d "$reference" ] || fail "$reference is missing: the $lang session machines (issue 18's facades) are not on this branch"
  cp -r "$reference" "$dest/reference"
}

# The page: the generated codec, the runtime and main.ts compiled to ES modules by the TypeScript
# testee's pinned tsc, into target/examples/www with index.html.
page="$out/page"
mkdir -p "$page"
codec ts "${ACKWIRE_TS_GEN:-}" "$page/gen"
cp examples/sockets/page/main.ts "$page/main.ts"
cat >"$page/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "es2020",
    "lib": ["es2020", "dom"],
    "types": [],
    "module": "es2020",
    "moduleResolution": "bundler",
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "rootDir": ".",
    "outDir": "../www",
    "newLine": "lf"
  },
  "include": ["."]
}
EOF
testee_ts="$root/conformance/testees/ts"
if [ ! -x "$testee_ts/node_modules/.bin/tsc" ]; then
  (cd "$testee_ts" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || fail "npm ci failed"
fi
"$testee_ts/node_modules/.bin/tsc" -p "$page" || fail "compiling the page failed"
cp examples/sockets/page/index.html "$out/www/index.html"

# The native client, with the C++ testee's flags, under ASan and UBSan.
codec cpp "${ACKWIRE_CPP_GEN:-}" "$out/cpp"
"$cxx" -std=c++17 -Wall -Wextra -Werror -Wpedantic -Wshadow -Wconversion -Wsign-conversion \
  -O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -I "$out/cpp" \
  -o "$out/cube_client" examples/sockets/native/cube_client.cpp || fail "building cube_client failed"

pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap "exit 130" INT TERM

# Starts the server with `$@`, logging to $1.log; sets $port once it says it listens.
start_server() {
  local log="$1"
  shift
  # Made before the server starts: the redirection below happens in the background job, and a
  # read of a log not made yet would fail the script (set -e with pipefail).
  : >"$log"
  "$server" "$@" >"$log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  port=""
  for _ in $(seq 300); do
    port="$(sed -n 's|^listening [a-z]* [a-z:/]*127.0.0.1:\([0-9]*\)/\{0,1\}$|\1|p' "$log" | head -n 1)"
    [ -n "$port" ] && return
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited: $(cat "$log")"
    sleep 0.1
  done
  fail "the server did not say it listens within 30 s"
}

# Waits (at most $2 seconds) for the server to exit; its status.
wait_server() {
  local limit="$2"
  for _ in $(seq $((limit * 10))); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    fail "the $1 run did not end within $limit s: $(tail -n 5 "$out/$1.log")"
  fi
  local status=0
  wait "$server_pid" || status=$?
  return "$status"
}

# Every client report of a log has the server's hash of its tick; prints how many.
cross_check() {
  awk '
    $1 == "tick" && $3 == "hash" { s[$2] = $4 }
    $1 == "client" && $2 == "tick" { n++; if (!($3 in s) || s[$3] != $5) { bad++; print "  tick " $3 ": client " $5 ", S_N " s[$3] > "/dev/stderr" } }
    END { if (bad > 0 || n == 0) exit 1; print n }
  ' "$1"
}

summary() {
  grep -E '^(sent|verdict|client stats)' "$1" | sed 's/^/  /'
}

common=(--ticks "$ticks" --loss "$loss" --duplicate 0.05 --latency-ms 10 --jitter-ms 30 --seed 7 --timeout-s 60)

# 1. The page in headless Chromium, over a WebSocket. Beside it, watch.mjs reads the text under
# the page's canvas over the DevTools protocol, as a person watching would, until it is final.
start_server "$out/browser.log" --transport ws --www "$out/www" "${common[@]}"
url="http://127.0.0.1:$port/index.html"
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --no-first-run --no-default-browser-check --user-data-dir="$out/profile" \
  --remote-debugging-port=0 "$url" >"$out/chromium.log" 2>&1 &
chromium_pid=$!
pids+=("$chromium_pid")
node --experimental-websocket --no-warnings examples/sockets/page/watch.mjs "$out/profile" "$url" 85 \
  >"$out/page-text.log" 2>&1 &
watch_pid=$!
pids+=("$watch_pid")
status=0
wait_server browser 80 || status=$?
# The page's last words come with the server's `done`, before the server exits; watch.mjs ends
# once it has read them (bounded by its own limit).
watch_status=0
wait "$watch_pid" || watch_status=$?
kill "$chromium_pid" 2>/dev/null || true
if [ "$status" -ne 0 ]; then
  tail -n 20 "$out/browser.log" >&2
  fail "the browser run failed (server status $status); chromium said: $(tail -n 5 "$out/chromium.log")"
fi
# What the page said while it ran and at its end: counts that grow, never "not run", and the
# server's verdict once done.
[ "$watch_status" -eq 0 ] || fail "reading the page's text failed: $(tail -n 3 "$out/page-text.log")"
grep -q '^result: cube-page: running: [1-9][0-9]* frames received, [1-9][0-9]* shown and reported, showing tick [0-9]*$' "$out/page-text.log" ||
  fail "the page never said it was running with its counts: $(head -n 5 "$out/page-text.log")"
! grep -q 'not run' "$out/page-text.log" || fail "the page said it did not run while it ran"
tail -n 1 "$out/page-text.log" | grep -q '^result: cube-page: done after [1-9][0-9]* frames received, [1-9][0-9]* shown and reported; the server.s verdict: PASS ' ||
  fail "the page's last words are not the server's PASS: $(tail -n 1 "$out/page-text.log")"
checked="$(cross_check "$out/browser.log")" || fail "the page reported hashes the server never had for their ticks"
grep -q '^client stats .* agent=HeadlessChrome$' "$out/browser.log" ||
  fail "the page's closing stats (from headless Chromium) did not come: $(tail -n 3 "$out/browser.log")"
echo "examples.sh: browser (TypeScript AckedDecoder in headless Chromium, WebSocket): $checked reports equal S_N"
summary "$out/browser.log"
echo "  the page's text, read $(wc -l <"$out/page-text.log") times as it changed; at the end: $(tail -n 1 "$out/page-text.log" | sed 's/^result: //')"

# 2. The native client over UDP.
start_server "$out/native.log" --transport udp "${common[@]}"
client_status=0
timeout 90 "$out/cube_client" 127.0.0.1 "$port" --timeout-s 60 >"$out/cube_client.log" 2>&1 || client_status=$?
status=0
wait_server native 80 || status=$?
if [ "$status" -ne 0 ] || [ "$client_status" -ne 0 ]; then
  tail -n 20 "$out/native.log" "$out/cube_client.log" >&2
  fail "the native run failed (server status $status, client status $client_status)"
fi
checked="$(cross_check "$out/native.log")" || fail "the native client reported hashes the server never had for their ticks"
# The client's own log says the same as what the server received.
awk '$1 == "shown" { print "client tick " $2 " hash " $3 }' "$out/cube_client.log" >"$out/client.lines"
[ -s "$out/client.lines" ] || fail "the native client printed no report"
received="$(sed -n 's/^\(client tick [0-9]* hash [0-9]*\) ok$/\1/p' "$out/native.log")"
missing="$( (grep -vxF -e "$received" "$out/client.lines" || true) | wc -l)"
# UDP may lose a report on its way: what the server judged is what counts; a few lost is fine.
echo "examples.sh: native (C++ AckedDecoder, UDP): $checked reports equal S_N ($missing of the client's own lines not received)"
summary "$out/native.log"

# 3. examples/game's arena in headless Chromium over a WebSocket: the game's TypeScript client
# (examples/game/ts/client.ts and page.ts, over the binding `ackwire gen --lang ts` writes from
# the game's own layout) against `cube-server --scene arena` (the game's Rust server simulation
# over its generated Rust binding), its player's commands going back in the acks.
gpage="$out/game-page"
mkdir -p "$gpage"
"$ackwire" gen --lang ts --out "$gpage/gen" examples/game/wire >/dev/null || fail "ackwire gen --lang ts examples/game/wire failed"
cp examples/game/ts/client.ts examples/game/ts/page.ts "$gpage/"
sed 's|"outDir": "../www"|"outDir": "../game-www"|' "$page/tsconfig.json" >"$gpage/tsconfig.json"
"$testee_ts/node_modules/.bin/tsc" -p "$gpage" || fail "compiling the game's page failed"
cp examples/game/ts/index.html "$out/game-www/index.html"
start_server "$out/game.log" --scene arena --transport ws --www "$out/game-www" "${common[@]}"
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --no-first-run --no-default-browser-check --user-data-dir="$out/game-profile" \
  "http://127.0.0.1:$port/index.html" >"$out/game-chromium.log" 2>&1 &
chromium_pid=$!
pids+=("$chromium_pid")
status=0
wait_server game 80 || status=$?
kill "$chromium_pid" 2>/dev/null || true
if [ "$status" -ne 0 ]; then
  tail -n 20 "$out/game.log" >&2
  fail "the game's browser run failed (server status $status); chromium said: $(tail -n 5 "$out/game-chromium.log")"
fi
checked="$(cross_check "$out/game.log")" || fail "the game's page reported hashes the server never had for their ticks"
grep -q '^client stats .* agent=HeadlessChrome$' "$out/game.log" ||
  fail "the game's page's closing stats (from headless Chromium) did not come: $(tail -n 3 "$out/game.log")"
echo "examples.sh: game in the browser (examples/game's TypeScript client in headless Chromium, WebSocket): $checked reports equal S_N"
summary "$out/game.log"

# 4. The game's TypeScript client (examples/game/ts): the binding `ackwire gen --lang ts` writes
# from the game's own layout (examples/game/wire, `state Arena`), fed every frame the Rust
# server's run delivered to its client through loss, duplication and reordering
# (examples/game/vectors/streams/arena.txt): the same ticks shown with the same checks, the same
# drops, the same kind 7 bytes.
game="$(ACKWIRE="$ackwire" bash examples/game/ts/test.sh)" || fail "the game's TypeScript client differs from the recorded stream"
echo "examples.sh: game (TypeScript client of examples/game, generated from its layout): $game"

# 5. The game's C# client (examples/game/cs): the binding `ackwire gen --lang cs` writes from the
# same layout, held to the same recorded stream under Mono.
game="$(ACKWIRE="$ackwire" bash examples/game/cs/test.sh)" || fail "the game's C# client differs from the recorded stream"
echo "examples.sh: game (C# client of examples/game, generated from its layout): $game"

# 6. The tutorial's clients (examples/tutorial, the code of docs/replicated-state.md): the
# bindings `ackwire gen` writes from wire/ships.wire, fed the stream its Rust server recorded
# (stream.txt, held to the run by `cargo test -p ackwire-example-tutorial`). A few seconds: the
# ackwire binary and the TypeScript testee's node_modules are the ones built above.
for lang in ts cs; do
  tutorial="$(ACKWIRE="$ackwire" bash "examples/tutorial/$lang/test.sh")" || fail "the tutorial's $lang client differs from the recorded stream"
  echo "examples.sh: tutorial ($lang client of examples/tutorial): ${tutorial##*$'\n'}"
done
