#!/usr/bin/env bash
# The generated TypeScript codec of the reference protocol in a real browser: every golden frame
# vector (vectors/frames/*.json) decoded, compared as JSON, re-encoded byte for byte, and every
# negative vector refused with its kind, offset, path and bit, inside headless Chromium, as the
# TypeScript testee is checked under node (cli/tests/ts_testee.rs).
#
# It installs Debian's chromium when `chromium` is not on the PATH (apt-get, through sudo when
# not root), builds the codec with build.sh (the pinned tsc, `ackwire gen`), compiles it and
# browser/checks.ts to ES modules (browser/tsconfig.json) into dist/browser/, writes the vectors
# there as vectors.js, serves that folder on a free local port (browser/serve.mjs: file:// URLs
# may not import ES modules), loads browser/index.html with `chromium --headless --dump-dom`,
# and reads the verdict from the dumped DOM: every check passed, and as many vectors ran as the
# files hold. Exits non-zero, saying why, on any failure. Prints two lines on success.
#
# It lives beside the TypeScript testee rather than the runtime package (typescript): what it
# tests is the generated codec of the reference protocol against the golden vectors, which is
# what build.sh generates here and the testee runs under node; the runtime alone has neither.
#
# Then every stream vector (vectors/streams/*/*.json) is replayed in the same page, one half at a
# time, through the testee's session ops (browser/streams.ts over src/sessions.ts: every half its
# OPENERS register): each delivery's report (as the runner compares it, conformance/PROTOCOL.md
# "Reports"), each step's sent frames (names, bytes, channels) and the client's state hash must be
# the vector's. A half this build does not register is counted as skipped; at least one must run,
# and every one that runs must pass; and a copy of one vector with one report altered must fail
# there, so that a page that compared no report could not pass.
#
# Run from anywhere. ACKWIRE as for build.sh; ACKWIRE_FRAME_VECTORS and ACKWIRE_STREAM_VECTORS name
# other folders of frame and stream vector files (to see the test fail on a corrupted copy).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
vectors="${ACKWIRE_FRAME_VECTORS:-$root/vectors/frames}"
derived="${ACKWIRE_DERIVED_VECTORS:-$root/vectors/derived}"

fail() {
  printf 'browser.sh: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=../../../scripts/need-package.sh
source "$root/scripts/need-package.sh"
need_package browser.sh chromium chromium

bash "$here/build.sh" || fail "build.sh failed; its output is above"
out="$here/dist/browser"
rm -rf "$out"
(cd "$here" && npx --no-install tsc -p browser) || fail "compiling browser/ to ES modules failed"
cp "$here/browser/index.html" "$out/index.html"

# The vectors as one module, each file's JSON text as it is (JSON is JavaScript: -0.0 stays -0):
# the hand-kept ones, then the derived ones when their folder is there; and how many cases they
# hold, counted here, apart from the page.
expected="$(node - "$out/vectors.js" "$vectors" "$derived" <<'EOF'
const fs = require("node:fs");
const path = require("node:path");
const [target, dir, derived] = process.argv.slice(2);
const files = (d) =>
  fs.readdirSync(d).filter((n) => n.endsWith(".json")).sort().map((n) => path.join(d, n));
const names = files(dir);
if (names.length === 0) {
  throw new Error(`no frame vector files in ${dir}`);
}
if (fs.existsSync(derived)) names.push(...files(derived));
let cases = 0;
const texts = names.map((n) => {
  const text = fs.readFileSync(n, "utf8");
  cases += JSON.parse(text).cases.length;
  return `// ${path.relative(path.dirname(dir), n)}\n${text.trim()}`;
});
fs.writeFileSync(target, `// Written by browser.sh from ${dir} and ${derived}.\nexport default [\n${texts.join(",\n")}\n];\n`);
console.log(cases);
EOF
)" || fail "reading the frame vectors in $vectors and $derived failed"

# The stream vectors as one module (each file's JSON, compacted), and how many halves they hold.
streams="${ACKWIRE_STREAM_VECTORS:-$root/vectors/streams}"
expected_halves="$(node - "$streams" "$out/stream-vectors.js" <<'EOF'
const fs = require("node:fs");
const path = require("node:path");
const [dir, target] = process.argv.slice(2);
const files = [];
for (const d of fs.readdirSync(dir).sort()) {
  const sub = path.join(dir, d);
  if (fs.statSync(sub).isDirectory()) {
    for (const n of fs.readdirSync(sub).filter((n) => n.endsWith(".json")).sort()) {
      files.push(path.join(sub, n));
    }
  }
}
if (files.length === 0) {
  throw new Error(`no stream vector files in ${dir}`);
}
const texts = files.map((f) => JSON.stringify(JSON.parse(fs.readFileSync(f, "utf8"))));
fs.writeFileSync(target, `// Written by browser.sh from ${dir}.\nexport default [\n${texts.join(",\n")}\n];\n`);
console.log(2 * files.length);
EOF
)" || fail "reading the stream vectors in $streams failed"

tmp="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap "exit 130" INT TERM

node "$here/browser/serve.mjs" "$out" >"$tmp/port" 2>"$tmp/server.log" &
server=$!
for _ in $(seq 100); do
  [ -s "$tmp/port" ] && break
  kill -0 "$server" 2>/dev/null || fail "the file server exited: $(cat "$tmp/server.log")"
  sleep 0.1
done
port="$(head -n 1 "$tmp/port")"
[ -n "$port" ] || fail "the file server did not say its port within 10 s"
url="http://127.0.0.1:$port/index.html"

# A profile of its own, so that other Chromiums on the machine are neither joined nor locked.
# The checks run while the page's modules are evaluated, before the load event, and --dump-dom
# dumps the DOM after it: no --virtual-time-budget is needed for the verdict to be there.
status=0
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --no-first-run --no-default-browser-check --user-data-dir="$tmp/profile" \
  --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/chromium.log" || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 20 "$tmp/chromium.log" >&2
  fail "chromium exited with status $status loading $url (its last lines are above)"
fi

# The failed checks, one a line, as the page wrote them (HTML-escaped): what lies between
# <pre id="failures"> and the next </pre>, however many lines that is.
failures() {
  tr '\n' '\001' <"$tmp/dom.html" | sed 's|.*<pre id="failures">||; s|</pre>.*||' | tr '\001' '\n' |
    head -n 50
  echo
}
pre() { sed -n "s|.*<pre id=\"$1\">\([^<]*\)</pre>.*|\1|p" "$tmp/dom.html" | head -n 1; }
result="$(pre result)"
agent="$(pre agent)"
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$result"; }
vectors_run="$(field vectors)"
passed="$(field passed)"
failed="$(field failed)"
checks="$(field checks)"
checks_passed="$(field checks_passed)"
if [ -z "$vectors_run" ] || [ -z "$passed" ] || [ -z "$failed" ] || [ -z "$checks" ] ||
  [ -z "$checks_passed" ]; then
  head -c 4000 "$tmp/dom.html" >&2
  echo >&2
  fail "no verdict in the DOM chromium dumped (${result:-no #result}); the page is above"
fi
browser="$(grep -o 'HeadlessChrome/[0-9.]*' <<<"$agent" || true)"
[ -n "$browser" ] || fail "the page did not run in headless Chromium: its user agent is '$agent' (${result})"
if [ "$failed" -ne 0 ] || [ "$passed" -ne "$vectors_run" ] || [ "$checks_passed" -ne "$checks" ]; then
  failures >&2
  fail "$failed of $vectors_run frame vectors failed in $browser ($checks_passed of $checks checks held)"
fi
if [ "$vectors_run" -ne "$expected" ]; then
  fail "the page ran $vectors_run vectors, but $vectors holds $expected"
fi
halves="$(field stream_halves)"
halves_passed="$(field stream_passed)"
skipped="$(field stream_skipped)"
steps="$(field stream_steps)"
hashes="$(field stream_hashes)"
reports="$(field stream_reports)"
control="$(field report_control)"
if [ -z "$halves" ] || [ -z "$halves_passed" ] || [ -z "$skipped" ]; then
  fail "no stream verdict in the DOM chromium dumped (${result})"
fi
if [ "$halves_passed" -ne "$halves" ]; then
  failures >&2
  fail "$((halves - halves_passed)) of $halves stream vector halves failed in $browser"
fi
if [ $((halves + skipped)) -ne "$expected_halves" ] || [ "$halves" -eq 0 ]; then
  fail "the page replayed $halves stream halves and skipped $skipped, but $streams holds $expected_halves"
fi
if [ "${reports:-0}" -eq 0 ] || [ "$control" != 1 ]; then
  fail "the page compared ${reports:-no} delivery reports, and a vector with one report altered $([ "$control" = 1 ] && echo failed || echo passed) (${result})"
fi
echo "browser.sh: $passed of $expected frame vectors passed ($checks checks) in $browser"
echo "browser.sh: $halves_passed of $expected_halves stream vector halves passed ($steps steps, $reports reports, $hashes state hashes; $skipped halves not registered in src/sessions.ts)"
