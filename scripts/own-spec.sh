#!/usr/bin/env bash
# A team's own spec, end to end through the command line, as a user takes it:
# 1. the kitchen sink (spec/tests/sink) and examples/game's layout each get a testee in Rust,
#    TypeScript, C++ and C# (`ackwire gen --testee`), each proven in one command against the
#    layout's committed vectors (`ackwire conform --spec --dir --testee`): the derived ones, and
#    the game's stream vectors of its acked sessions, which every testee serves from its `state`;
# 2. a layout that is not in the repository (an arena shooter's frames: varints, zigzag, an
#    ascending list of records, a select on a change mask with a bit that requires another, a
#    union, bytes?, a float, a packed record with bucket codes and a quaternion in an ascending
#    list), written to a temporary folder, is checked, has its vectors derived and verified, is
#    explained, decoded and encoded; gets a testee in each language, each proven by `ackwire
#    conform` on the vectors it derived, all four fuzzed against each other and its run-time codec
#    by `ackwire fuzz-diff --spec` (given no testee, it runs the four it generates, which the
#    conform runs built); and gets a cargo-fuzz crate that builds and runs (2 s a target);
# 3. examples/game's fuzz crate builds and each target runs FUZZ_SECONDS (default 10).
#
# Builds are shared with the test command's earlier steps and with later runs: the sink's and the
# game's testees are generated into target/tmp/spec-testees/, where cli/tests/spec_testees.rs
# built them (`gen` rewrites no unchanged file, so none builds again); the arena's testees and
# the fuzz crates live in target/tmp/own-spec/; every Rust testee builds offline with the
# workspace's Cargo.lock into target/tmp/spec-testees/cargo-target (the game's, having a state,
# over this checkout's ackwire crates, which `gen` names from here), the TypeScript testees use
# typescript/'s pinned compiler, and the fuzz crates build with fuzz/Cargo.lock into fuzz/target,
# beside the project's own targets. Needs node, g++, Mono and cargo-fuzz (installed as
# .ci/fuzz.sh installs it when missing). Prints the seconds each part took; stops with exit 1 at
# the first thing that does not hold.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${FUZZ_SECONDS:-10}"
# A generated fuzz crate's targets each decode one frame: as .ci/fuzz.sh runs its decode_*
# targets, they run half of FUZZ_SECONDS (millions of inputs in 5 s: the game's five reached
# 1.8 to 3.1 million in 10 s).
decode_seconds="${FUZZ_DECODE_SECONDS:-$(((seconds + 1) / 2))}"

cargo build -q -p ackwire
ackwire() { "$root/target/debug/ackwire" "$@"; }
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "own-spec: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
fail() {
    echo "own-spec: $*" >&2
    exit 1
}
step() { echo "own-spec: [$SECONDS s] $*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/ackwire-own-spec.XXXXXX")"
trap 'rm -rf "$work"' EXIT
builds="$root/target/tmp/own-spec"
export CARGO_NET_OFFLINE=true CARGO_TARGET_DIR="$root/target/tmp/spec-testees/cargo-target"

# testee LANG DIR LAYOUT...: the testee of LANG for the layouts, generated into DIR as a team
# generates it, with what lets it build from this checkout (the pinned TypeScript compiler, the
# workspace's Cargo.lock); prints DIR/testee.
testee() {
    local lang="$1" dir="$2"
    shift 2
    ackwire gen --lang "$lang" --testee --out "$dir" "$@" >/dev/null
    case "$lang" in
        ts) [ -e "$dir/node_modules" ] || [ ! -d typescript/node_modules ] ||
            ln -s "$root/typescript/node_modules" "$dir/node_modules" ;;
        rust) [ -f "$dir/Cargo.lock" ] || cp Cargo.lock "$dir/" ;;
    esac
    echo "$dir/testee"
}

# proven NAME LANG TESTEE VECTORS LAYOUT: `ackwire conform` of the testee on every vector of the
# folder, each passed (none failed, none unimplemented).
proven() {
    local name="$1" lang="$2" script="$3" vectors="$4" layout="$5"
    local report="$work/conform-$name-$lang"
    ackwire conform --spec "$layout" --dir "$vectors" --testee "$script" --json "$report.json" \
        >"$report.txt" 2>&1 ||
        fail "$name: the $lang testee fails conform:$(echo && tail -n 30 "$report.txt")"
    node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        if (r.counts.pass === 0 || r.counts.pass !== r.total) {
            console.error(JSON.stringify(r.counts));
            process.exit(1);
        }
    ' "$report.json" || fail "$name: the $lang testee did not pass every case"
    echo "own-spec: $name $lang: $(tail -n 1 "$report.txt")"
}

step "the sink's and the game's testees, each proven by ackwire conform in one command"
# The game's folder holds stream vectors of its acked sessions (vectors/streams) beside the derived
# ones: every testee serves the acked halves of its `state` and replays them all.
for spec in sink:spec/tests/sink:spec/tests/sink/vectors game:examples/game/wire:examples/game/vectors; do
    IFS=: read -r name layout vectors <<<"$spec"
    for lang in rust ts cpp cs; do
        script="$(testee "$lang" "$root/target/tmp/spec-testees/$name/$lang" "$layout")"
        proven "$name" "$lang" "$script" "$vectors" "$layout"
    done
    if [ "$name" = game ]; then
        grep -q "^streams/arena_packed " "$work/conform-game-rust.txt" ||
            fail "game: the rust testee replayed no stream vector"
    fi
done

wire="$work/wire"
mkdir -p "$wire"
cat >"$wire/arena.wire" <<'EOF'
//! An arena shooter's own frames, as a team writes them once for its server and its clients.

/// What changed about a fighter.
bits FighterMask: u8 {
    /// The fighter moved: its position follows.
    MOVED = 0,
    /// The fighter was hurt: its health follows.
    HURT = 1,
    /// The fighter dashed, which only a move can be.
    DASHED = 2 requires MOVED,
    reserved 3..=7,
}

/// One fighter's change.
record Fighter {
    /// The fighter, ids ascending within a tick.
    id: varint(20),
    /// What follows.
    mask: FighterMask,
    select mask {
        /// East, in centimetres.
        MOVED => x: zigzag(24),
        /// North, in centimetres.
        MOVED => y: zigzag(24),
        /// What is left.
        HURT => health: u8,
    }
}

/// A shot that hit.
record Shot {
    /// Who fired.
    shooter: varint(20),
    /// Who was hit.
    target: varint(20),
    /// How hard.
    damage: f32,
}

/// An item picked up.
record Pickup {
    /// Who picked it up.
    fighter: varint(20),
    /// What.
    item: u16,
}

/// What happened this tick, by kind.
union Event: u8 {
    Shot = 1,
    Pickup = 2,
}

/// A turret's turn.
packed record Turn {
    /// The turret, slots ascending.
    slot: bucket(0, 3, 7),
    /// Its aim, smallest three at 7 bits.
    aim: quat(7),
    /// Its spin, small steps in few bits.
    spin: zbucket(2, 5),
}

/// The turrets that turned.
packed record Turrets {
    /// How many.
    count: u5,
    /// Their turns.
    turns: [Turn; count] ascending(slot),
}

/// The server's tick.
frame ArenaTick {
    /// Kind 30.
    kind: u8 = 30,
    /// The server tick.
    tick: u32,
    /// The fighters that changed.
    fighters: [Fighter; varint] ascending(id),
    /// What happened.
    events: [Event; u8],
    /// The message of the day, now and then.
    motd: bytes?,
    /// The turrets, bit-packed.
    turrets: Turrets,
}

/// The client's inputs.
frame ArenaInput {
    /// Kind 31.
    kind: u8 = 31,
    /// The newest tick the client shows.
    tick: u32,
    /// Its recent moves.
    moves: [i16; u8],
}
EOF

step "a layout outside the repository: checked, vectors derived and verified"
ackwire check "$wire"
ackwire fmt --check "$wire/arena.wire"
ackwire vectors --spec "$wire" --out "$work/vectors" >/dev/null
ackwire vectors --spec "$wire" --dir "$work/vectors" | tail -n 1

# A case of the derived set, as `FRAME HEX JSON-OF-EXPECTATION` (the first positive one of a
# frame, or the first that expects an error of KIND).
pick() {
    node -e '
        const [file, kind] = process.argv.slice(1);
        const cases = JSON.parse(require("fs").readFileSync(file, "utf8")).cases;
        const c = cases.find((c) => (kind ? c.error && c.error.kind === kind : c.value !== undefined));
        if (!c) { process.exit(1); }
        console.log(c.hex.replace(/ /g, ""));
        console.log(JSON.stringify(c.value ?? c.error));
    ' "$work/vectors/derived/$1.json" "${2:-}"
}

step "explain, decode and encode a derived vector of each frame"
for frame in arena_tick arena_input; do
    mapfile -t positive < <(pick "$frame")
    ackwire explain --spec "$wire" "$frame" "${positive[0]}" >"$work/explained"
    [ -s "$work/explained" ] || fail "explain printed nothing for $frame ${positive[0]}"
    decoded="$(ackwire decode --spec "$wire" "$frame" "${positive[0]}")"
    again="$(ackwire encode --spec "$wire" "$frame" "$decoded" | tr -d ' ')"
    [ "$again" = "${positive[0]}" ] || fail "$frame: decoded and encoded again as $again, not ${positive[0]}"
done
mapfile -t negative < <(pick arena_tick not_ascending)
if ackwire explain --spec "$wire" arena_tick "${negative[0]}" >"$work/explained" 2>&1; then
    fail "explain accepted ${negative[0]}, which should be not_ascending"
fi
grep -q "not_ascending" "$work/explained" || fail "explain did not name the fault: $(cat "$work/explained")"

# In the folders where `fuzz-diff --spec --out "$builds/arena"` generates them when it is given no
# testee: it finds them built.
step "its testee in every language, each proven by ackwire conform"
for lang in rust ts cpp cs; do
    script="$(testee "$lang" "$builds/arena/testees/$lang" "$wire")"
    proven arena "$lang" "$script" "$work/vectors" "$wire"
done

# Without --dir, conform draws the derived vectors itself, as `vectors --spec` draws them: the
# same cases, the same verdict.
ackwire conform --spec "$wire" --testee "$builds/arena/testees/rust/testee" >"$work/conform-nodir.txt" ||
    fail "conform without --dir failed:$(echo && tail -n 30 "$work/conform-nodir.txt")"
[ "$(tail -n 1 "$work/conform-nodir.txt")" = "$(tail -n 1 "$work/conform-arena-rust.txt")" ] ||
    fail "conform without --dir: $(tail -n 1 "$work/conform-nodir.txt"), with: $(tail -n 1 "$work/conform-arena-rust.txt")"

step "its four testees fuzzed against each other and its run-time codec"
ackwire fuzz-diff --spec "$wire" --count 3000 --out "$builds/arena" >"$work/fuzz-diff.txt" ||
    fail "fuzz-diff found disagreements:$(echo && tail -n 40 "$work/fuzz-diff.txt")"
grep -q "through rust, ts, cpp, cs: 0 disagreements" "$work/fuzz-diff.txt" ||
    fail "fuzz-diff did not run the four testees: $(tail -n 2 "$work/fuzz-diff.txt")"
tail -n 2 "$work/fuzz-diff.txt"

# fuzz NAME LAYOUT SECONDS [ALLOC_PER_BYTE]: the layout's cargo-fuzz crate, generated into
# target/tmp/own-spec/, built, and each target run SECONDS from a copy of its seeded corpus;
# ALLOC_PER_BYTE is the decode allocation multiple the layout promises (default: the codec's).
fuzz() {
    local name="$1" layout="$2" time="$3" per_byte="${4:-}"
    local crate="$builds/$name-fuzz"
    ackwire gen --lang fuzz ${per_byte:+--alloc-per-byte "$per_byte"} --out "$crate" "$layout" >/dev/null
    cmp -s fuzz/Cargo.lock "$crate/Cargo.lock" || cp fuzz/Cargo.lock "$crate/"
    [ -n "$(find "$crate/corpus" -type f -print -quit)" ] || fail "$name: the fuzz corpus holds no seed"
    cargo fuzz build --fuzz-dir "$crate" --sanitizer none -a --target-dir fuzz/target
    # One target per core at once, as .ci/fuzz.sh runs them; each still runs its full time.
    local target running=0 jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
    local targets=()
    mapfile -t targets < <(cargo fuzz list --fuzz-dir "$crate")
    for target in "${targets[@]}"; do
        if [ "$running" -ge "$jobs" ]; then
            wait -n || true
            running=$((running - 1))
        fi
        fuzz_target "$name" "$crate" "$target" "$time" &
        running=$((running + 1))
    done
    wait || true
    for target in "${targets[@]}"; do
        [ "$(cat "$work/$name-$target.status" 2>/dev/null || echo 1)" -eq 0 ] ||
            fail "$name: $target crashed:$(echo && tail -n 30 "$work/$name-$target.log")"
        echo "own-spec: $name $target: $(grep -Eo '^Done [0-9]+ runs' "$work/$name-$target.log") from $(find "$crate/corpus/$target" -type f | wc -l) seeds"
    done
}

# fuzz_target NAME CRATE TARGET SECONDS: one target of the crate from a copy of its seeded
# corpus; its log in $work/NAME-TARGET.log, its exit status in $work/NAME-TARGET.status.
fuzz_target() {
    local name="$1" crate="$2" target="$3" time="$4"
    local corpus="$work/corpus/$name/$target" status=0
    mkdir -p "$corpus"
    cp -R "$crate/corpus/$target/." "$corpus/"
    cargo fuzz run --fuzz-dir "$crate" --sanitizer none -a --target-dir fuzz/target "$target" \
        "$corpus" -- -max_total_time="$time" -rss_limit_mb=2048 >"$work/$name-$target.log" 2>&1 ||
        status=$?
    echo "$status" >"$work/$name-$target.status"
}

step "its fuzz crate, built and run 2 s a target"
fuzz arena "$wire" 2

step "examples/game's fuzz crate, ${decode_seconds} s a target"
# The codec's multiple, as every layout: the generated packed change fits it (56 bytes for its
# least 10 bits, examples/game/tests/decode_alloc.rs).
fuzz game examples/game/wire "$decode_seconds"
step "done"
