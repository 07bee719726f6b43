#!/usr/bin/env bash
# The generated Wireshark dissector (`ackwire gen --lang wireshark`) in real tshark: every
# golden frame vector (vectors/frames/*.json) as one UDP packet of a pcap built by text2pcap,
# dissected with `tshark -X lua_script:ackwire.lua -T json`, and checked by
# wireshark-check.mjs:
#
# 1. each vector file with the frame preference set to its frame: every positive vector's
#    every row (path and value) equal to what `ackwire explain` prints for the same bytes, every
#    negative vector malformed with expert info of the vector's kind, offset and path, and no
#    Lua error anywhere;
# 2. every positive vector together, the frame chosen by its kind or version byte, on the
#    dissector's UDP port (preference ackwire.udp_port);
# 3. the same packets on a port nobody registered: claimed by the heuristic, each as its frame;
# 4. every positive vector mangled 20 ways (hostile bytes): no Lua error, ever, and the rows and
#    the fault of ackwire explain for the same bytes;
# 5. layouts without vectors, examples/game's, the kitchen sink's (its Sink and Motion frames)
#    and one of names Lua reserves (spec/tests/wireshark/names.wire): one frame each, its rows
#    as explain prints them.
#
# Vectors of no bytes at all are left out: text2pcap writes no packet without a byte.
# It installs Debian's tshark when `tshark` is not on the PATH (apt-get, through sudo when not
# root). Prints one line per step and exits non-zero, saying why, on any failure.
#
# Run from anywhere. ACKWIRE names the ackwire binary to use (default: built with cargo);
# ACKWIRE_FRAME_VECTORS another folder of frame vector files, ACKWIRE_DERIVED_VECTORS another
# folder of derived ones (dissected like the others; the hostile mangling stays on the
# hand-kept vectors, whose 20 mangles each cost a run of ackwire explain apiece).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vectors="${ACKWIRE_FRAME_VECTORS:-$root/vectors/frames}"
derived="${ACKWIRE_DERIVED_VECTORS:-$root/vectors/derived}"
check="$root/scripts/wireshark-check.mjs"

fail() {
  printf 'wireshark.sh: %s\n' "$*" >&2
  exit 1
}

# The package asks whether non-root users may capture: no, without asking.
# shellcheck source=need-package.sh
source "$root/scripts/need-package.sh"
need_package --debconf "wireshark-common wireshark-common/install-setuid boolean false" \
  wireshark.sh tshark tshark text2pcap
tshark -v 2>/dev/null | grep -q "with Lua" || fail "this tshark has no Lua: $(tshark -v 2>/dev/null | head -n 1)"

ackwire="${ACKWIRE:-}"
if [ -z "$ackwire" ]; then
  (cd "$root" && cargo build -q -p ackwire) || fail "building ackwire failed"
  ackwire="$root/target/debug/ackwire"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start="$(date +%s%N)"

"$ackwire" gen --lang wireshark --out "$tmp/ref" "$root/spec/protocol" >/dev/null ||
  fail "ackwire gen --lang wireshark failed for spec/protocol"

# A pcap of the cases of vector files, one UDP packet each from port $2 to $3 (text2pcap's
# hex dump: offset, then bytes). $1 is a node expression choosing the cases.
pcap() {
  local filter="$1" src="$2" dst="$3" out="$4"
  shift 4
  node - "$filter" "$@" >"$out.txt" <<'EOF'
const fs = require("node:fs");
const [filter, ...files] = process.argv.slice(2);
const keep = new Function("c", `return ${filter};`);
for (const file of files) {
  for (const c of JSON.parse(fs.readFileSync(file, "utf8")).cases) {
    const hex = c.hex.replace(/\s+/g, "");
    if (hex === "" || !keep(c)) continue;
    const bytes = hex.match(/../g);
    for (let i = 0; i < bytes.length; i += 16) {
      console.log(`${i.toString(16).padStart(6, "0")} ${bytes.slice(i, i + 16).join(" ")}`);
    }
  }
}
EOF
  text2pcap -q -u "$src,$dst" "$out.txt" "$out" >/dev/null 2>"$out.log" || fail "text2pcap failed on $out.txt: $(cat "$out.log")"
}

# tshark with the dissector, as JSON; a Lua error while loading it fails here.
dissect() {
  local lua="$1" capture="$2" out="$3"
  shift 3
  tshark -X "lua_script:$lua" -r "$capture" -T json --no-duplicate-keys "$@" >"$out" 2>"$out.err" ||
    fail "tshark failed on $capture: $(head -c 2000 "$out.err")"
  if grep -v 'Running as user "root"' "$out.err" | grep -q .; then
    fail "tshark complained on $capture: $(head -c 2000 "$out.err")"
  fi
}

port=41000
total=0
# A coded frame (kind 13) reads against the records of its base and older snapshot, which its
# cases carry as `basis`: neither the dissector, which sees one packet without the client's held
# states, nor `ackwire explain` without `--basis` can read its changes. Its vector file is left
# out; conform.sh and browser.sh run it.
hand_kept=()
for file in "$vectors"/*.json; do
  grep -q '"basis":' "$file" || hand_kept+=("$file")
done
files=("${hand_kept[@]}")
if [ -d "$derived" ]; then files+=("$derived"/*.json); fi
for file in "${files[@]}"; do
  frame="$(basename "$file" .json)"
  set="$(basename "$(dirname "$file")")"
  pcap "true" 40000 "$port" "$tmp/$set-$frame.pcap" "$file"
  dissect "$tmp/ref/ackwire.lua" "$tmp/$set-$frame.pcap" "$tmp/$set-$frame.json" \
    -o "ackwire.udp_port:$port" -o "ackwire.frame:$frame"
  line="$(node "$check" rows "$file" "$tmp/$set-$frame.json" "$ackwire")" || {
    printf '%s\n' "$line" >&2
    fail "the dissector disagrees with the $set/$frame vectors"
  }
  n="${line%% passed*}"
  total=$((total + n))
done
echo "wireshark.sh: $total frame vectors dissected as ackwire explain reads them, negative ones as malformed with their kind"

positives=()
frames=""
for file in "${hand_kept[@]}"; do
  positives+=("$file")
done
frames="$(node -e '
const fs = require("node:fs");
const out = [];
for (const f of process.argv.slice(1)) {
  const v = JSON.parse(fs.readFileSync(f, "utf8"));
  for (const c of v.cases) if (!c.error && c.hex.trim() !== "") out.push(v.frame);
}
console.log(out.join(","));' "${positives[@]}")"
pcap "!c.error" 40000 "$port" "$tmp/auto.pcap" "${positives[@]}"
dissect "$tmp/ref/ackwire.lua" "$tmp/auto.pcap" "$tmp/auto.json" -o "ackwire.udp_port:$port"
line="$(node "$check" frames "$frames" "$tmp/auto.json")" || {
  printf '%s\n' "$line" >&2
  fail "on the UDP port, the frame chosen by its kind or version byte is not the vector's"
}
echo "wireshark.sh: on the UDP port, by kind or version byte: $line"

pcap "!c.error" 50000 50001 "$tmp/heur.pcap" "${positives[@]}"
dissect "$tmp/ref/ackwire.lua" "$tmp/heur.pcap" "$tmp/heur.json"
line="$(node "$check" frames "$frames" "$tmp/heur.json")" || {
  printf '%s\n' "$line" >&2
  fail "the heuristic did not claim every valid frame as its own"
}
echo "wireshark.sh: by the heuristic, on a port nobody registered: $line"

# Hostile bytes: every positive vector mangled 20 ways, the frame chosen by its leading byte,
# each read as ackwire explain reads the same bytes.
node "$check" mangle "${positives[@]}" >"$tmp/mangled.txt" || fail "mangling the vectors failed"
text2pcap -q -u "40000,$port" "$tmp/mangled.txt" "$tmp/mangled.pcap" >/dev/null 2>&1 ||
  fail "text2pcap failed on the mangled frames"
dissect "$tmp/ref/ackwire.lua" "$tmp/mangled.pcap" "$tmp/mangled.json" -o "ackwire.udp_port:$port"
out="$(node "$check" robust "$tmp/mangled.json" "$ackwire" "${positives[@]}")" || {
  printf '%s\n' "$out" | tail -n 20 >&2
  fail "the dissector read a mangled frame otherwise than ackwire explain, or failed on it"
}
echo "wireshark.sh: mangled vectors (hostile bytes), no Lua error, $(head -n 1 <<<"$out"): $(tail -n 1 <<<"$out")"

# A layout without vectors: its dissector generated from FILES, on one frame HEX, must show
# the rows of EXPECTED (a JSON list of [path, value], as `ackwire explain` would print them).
expect() {
  local name="$1" files="$2" hex="$3" expected="$4" dir="$tmp/$1"
  "$ackwire" gen --lang wireshark --out "$dir" "$files" >/dev/null ||
    fail "ackwire gen --lang wireshark failed for $files"
  printf '%s\n' "$expected" >"$dir/expected.json"
  printf '000000 %s\n' "$hex" >"$dir/frame.txt"
  text2pcap -q -u "40000,$port" "$dir/frame.txt" "$dir/frame.pcap" >/dev/null 2>&1 ||
    fail "text2pcap failed on the $name frame"
  dissect "$dir/ackwire.lua" "$dir/frame.pcap" "$dir/frame.json" -o "ackwire.udp_port:$port"
  line="$(node "$check" expect "$name" "$dir/frame.json" "$dir/expected.json")" || {
    printf '%s\n' "$line" >&2
    fail "the $name dissector disagrees with the expected rows"
  }
  echo "wireshark.sh: $name: $line"
}

# examples/game: kind 1, tick 100, two players: id 3 with POSITION | SCORE (x 1.5 m, y -0.01 m,
# score 7), then id 5 (delta 2) with SCORE 9.
expect "examples/game" "$root/examples/game/wire" \
  "01 64 00 00 00 02 03 03 ac 02 01 07 00 02 02 09 00" '[
  ["kind", "1"],
  ["tick", "100"],
  ["players", "count 2"],
  ["players[0].id", "3"],
  ["players[0].mask", "POSITION | SCORE"],
  ["players[0].position.x", "1.5 (wire 150)"],
  ["players[0].position.y", "-0.01 (wire -1)"],
  ["players[0].score", "7"],
  ["players[1].id", "5 (delta 2)"],
  ["players[1].mask", "SCORE"],
  ["players[1].score", "9"]
]'

# The kitchen sink (spec/tests/sink/sink.wire, big-endian): 64-bit bit set and tag, a quantized
# varint, nested lists, u64s ascending to 2^64 - 1, a packed body of 132 bits and 4 of padding.
expect "the kitchen sink" "$root/spec/tests/sink/sink.wire" \
  "c8 ac 02 80 00 00 00 00 00 00 01 03 00 00 00 2a 06 05 03 aa bb 02 01 00 07 00 02 00 00 00 00 00 00 00 05 ff ff ff ff ff ff ff fa 01 00 00 00 09 00 ff ff ff ff ff ff ff ff 01 00 00 00 00 00 00 f0 ff ff ff ff ff ff ff 9f 08" '[
  ["kind", "200"],
  ["version", "300"],
  ["wide", "LOW | HIGH"],
  ["n", "3"],
  ["when", "42"],
  ["q", "1.5 (wire 6)"],
  ["z", "-3"],
  ["data", "2 bytes: aabb"],
  ["nested", "count 2"],
  ["nested[0]", "count 1"],
  ["nested[0][0]", "7"],
  ["nested[1]", "count 0"],
  ["ids", "count 2"],
  ["ids[0]", "5"],
  ["ids[1]", "18446744073709551615 (delta 18446744073709551610)"],
  ["recs", "count 1"],
  ["recs[0].key", "9"],
  ["recs[0].delete", "0 bytes"],
  ["tagged", "Empty (tag 18446744073709551615)"],
  ["body.c", "1"],
  ["body.d", "-1"],
  ["body.count", "1"],
  ["body.xs[0].p", "17"],
  ["body", "padding, 4 zero bits"]
]'

# The kitchen sink's Motion frame (issue 19's bit fields), its bytes written by the generated
# Rust codec: a quaternion selected by a bit, bucket codes (one of 64 bits), a quantized zbucket,
# records ascending by a bucket key with two encodings selected by a bit, ascending bucket codes
# and u5s, lists of quaternions and of zbucket codes, 6 bits of padding.
expect "the kitchen sink's Motion frame" "$root/spec/tests/sink/sink.wire" \
  "c9 65 c0 1f d9 00 85 ff ff ff ff ff ff ff ff 77 49 d4 00 30 40 00 64 5a 64 5f f0 6b 1b f0 ef 00" '[
  ["kind", "201"],
  ["body.turned", "true"],
  ["body.orient", "z dropped, rest [12, -4, 200]: (0.0333, -0.0111, 0.8314, 0.5546)"],
  ["body.gap", "17 (bucket 3 of 3, 10 bits)"],
  ["body.step", "-3 (bucket 2 of 3, 7 bits)"],
  ["body.full", "18446744073709551615 (bucket 1 of 1, 64 bits)"],
  ["body.x", "-0.125 (wire -64)"],
  ["body.moved", "2"],
  ["body.moves[0].eid", "3"],
  ["body.moves[0].wide", "false"],
  ["body.moves[0].near", "-2 (bucket 2 of 2, 4 bits)"],
  ["body.moves[0].rot", "w dropped, rest [0, 0, 0]: (0.0000, 0.0000, 0.0000, 1.0000)"],
  ["body.moves[1].eid", "20 (delta 17)"],
  ["body.moves[1].wide", "true"],
  ["body.moves[1].far", "-2048"],
  ["body.moves[1].rot", "x dropped, rest [3, -3, 2]: (0.8806, 0.3030, -0.3030, 0.2020)"],
  ["body.marks", "count 2"],
  ["body.marks[0]", "1"],
  ["body.marks[1]", "65 (delta 64)"],
  ["body.slots", "count 2"],
  ["body.slots[0]", "0"],
  ["body.slots[1]", "31 (delta 31)"],
  ["body.orients", "count 1"],
  ["body.orients[0]", "y dropped, rest [-5, 6, 0]: (-0.2357, 0.9298, 0.2828, 0.0000)"],
  ["body.codes", "count 3"],
  ["body.codes[0]", "-9 (bucket 2 of 2, 5 bits)"],
  ["body.codes[1]", "8 (bucket 2 of 2, 5 bits)"],
  ["body.codes[2]", "0 (bucket 1 of 2, 2 bits)"],
  ["body", "padding, 6 zero bits"]
]'

# Names that are Lua's reserved words or the dissector's own locals (spec/tests/wireshark): the
# printer renames what it must, and the Lua still loads and reads them.
expect "reserved names" "$root/spec/tests/wireshark/names.wire" "2a 01 07 05 00 02 09 08" '[
  ["kind", "42"],
  ["end", "NIL"],
  ["local", "7"],
  ["type", "5"],
  ["path", "count 2"],
  ["path[0]", "9"],
  ["path[1]", "8"]
]'

elapsed=$((($(date +%s%N) - start) / 100000000))
echo "wireshark.sh: done in $((elapsed / 10)).$((elapsed % 10)) s with $(tshark -v 2>/dev/null | head -n 1)"
