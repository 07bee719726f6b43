#!/usr/bin/env bash
# `ackwire doc`'s pages in a real browser: the site of the reference protocol and of
# examples/game's layout, each written by the command, its index and a frame page loaded in
# headless Chromium and screenshotted, and each screenshot decoded (python3's zlib: a PNG is
# zlib-compressed scanlines) to check that it is not blank: enough pixels differ from the
# background, some are dark (text), and a frame page shows the tints its diagram gives repeated
# fields (#ddf4ff) and, for the reference protocol's Acked, optional ones (#fff4cc), which only
# a rendered inline SVG can put there. The text of the pages and the well-formedness of every
# SVG are checked by spec/tests/doc_site.rs; this checks that a browser draws them.
#
# It installs Debian's chromium when `chromium` is not on the PATH (apt-get, through sudo when
# not root), as conformance/testees/ts/browser.sh does. The pages need no server: they have no
# JavaScript and no module, so file:// URLs load them as they are.
#
# Run from anywhere. ACKWIRE is the command to run (default: `cargo run -q -p ackwire --`);
# ACKWIRE_DOC_OUT the folder the sites and screenshots go to (default target/ackwire-doc).
# Exits non-zero, saying why, on any failure; prints one line per page on success.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${ACKWIRE_DOC_OUT:-$root/target/ackwire-doc}"

fail() {
  printf 'doc-browser.sh: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=need-package.sh
source "$root/scripts/need-package.sh"
need_package doc-browser.sh chromium chromium
command -v python3 >/dev/null || fail "python3 is needed to decode the screenshots"

if [ -n "${ACKWIRE:-}" ]; then
  read -r -a ackwire <<<"$ACKWIRE"
else
  ackwire=(cargo run -q -p ackwire --)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
trap "exit 130" INT TERM

# shot NAME URL PNG HEIGHT: a screenshot of URL, HEIGHT pixels tall, in a profile of its own so that other Chromiums on
# the machine are neither joined nor locked.
shot() {
  local status=0
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --hide-scrollbars \
    --user-data-dir="$tmp/profile-$1" --window-size="1200,$4" \
    --screenshot="$3" "$2" >"$tmp/chromium-$1.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ] || [ ! -s "$3" ]; then
    tail -n 20 "$tmp/chromium-$1.log" >&2
    fail "chromium exited with status $status and no screenshot loading $2 (its last lines are above)"
  fi
}

# check PNG [COLOUR...]: the screenshot is not blank, and holds each colour given (hex RGB).
check() {
  python3 - "$@" <<'PY'
import struct, sys, zlib

path, colours = sys.argv[1], [bytes.fromhex(c) for c in sys.argv[2:]]
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"{path}: not a PNG")
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, ctype, _, _, interlace = ihdr
channels = {2: 3, 6: 4}.get(ctype)
if depth != 8 or channels is None or interlace:
    sys.exit(f"{path}: an 8-bit RGB or RGBA PNG without interlacing was expected, not {ihdr}")
raw = zlib.decompress(idat)
stride = width * channels
rows, prev, at = [], bytearray(stride), 0
for _ in range(height):
    f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = prev[i], prev[i - channels] if i >= channels else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            sys.exit(f"{path}: unknown PNG filter {f}")
    rows.append(bytes(line))
    prev = line
counts = {}
for line in rows:
    for i in range(0, stride, channels):
        px = line[i:i + 3]
        counts[px] = counts.get(px, 0) + 1
total = width * height
background, bg = max(counts.items(), key=lambda kv: kv[1])
other = total - bg
dark = sum(n for px, n in counts.items() if sum(px) < 200)
missing = [c.hex() for c in colours if counts.get(c, 0) < 50]
print(f"{width}x{height}, {100 * other / total:.1f}% not background #{background.hex()}, "
      f"{dark} dark pixels, {len(counts)} colours")
if other < total // 50:
    sys.exit(f"{path}: blank: only {other} of {total} pixels differ from the background")
if dark < 500:
    sys.exit(f"{path}: no text: only {dark} dark pixels")
if missing:
    sys.exit(f"{path}: the diagram's colours {missing} are not drawn")
PY
}

# site NAME FRAME_PAGE COLOURS [FILES...]: the frame page is taken 4000 pixels tall, so that
# the frame's section, after the constants and bit sets its file declares first, is in it (an
# anchor in the URL would scroll to it, but headless Chromium then screenshots a blank page).
site() {
  local name="$1" page="$2" colours="$3"
  shift 3
  local dir="$out/$name"
  rm -rf "$dir"
  "${ackwire[@]}" doc --out "$dir" "$@" >/dev/null || fail "ackwire doc --out $dir $* failed"
  [ -f "$dir/index.html" ] || fail "ackwire doc wrote no $dir/index.html"
  [ -f "$dir/$page" ] || fail "ackwire doc wrote no $dir/$page"
  shot "$name-index" "file://$dir/index.html" "$dir/index.png" 1600
  result="$(check "$dir/index.png")" || fail "the index of $name: $result"
  echo "doc-browser.sh: $name index.html: $result"
  shot "$name-frame" "file://$dir/$page" "$dir/frame.png" 4000
  # shellcheck disable=SC2086 # the colours are separate words
  result="$(check "$dir/frame.png" $colours)" || fail "$page of $name: $result"
  echo "doc-browser.sh: $name $page: $result"
}

site reference acked.html "ddf4ff fff4cc"
site game game.html "ddf4ff" examples/game/wire
