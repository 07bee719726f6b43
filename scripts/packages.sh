#!/usr/bin/env bash
# Each runtime as a package a user installs, installed and used by a project of its own in a
# temporary folder outside the tree (scripts/packages/<lang>/), whose codec `ackwire gen` writes
# against the installed runtime (`--runtime package`). Each consumer runs every golden frame
# vector, hand-kept (vectors/frames) and derived from the layouts (vectors/derived): an accepted
# frame must re-encode to its own bytes, a refused one fail with the vector's kind, byte offset
# and field path.
#
# 1. npm: `npm pack` of typescript/ (its prepack builds dist/src: .js and .d.ts); the consumer
#    installs the tarball by path with the pinned TypeScript, type-checks against it
#    (module nodenext, strict), and runs under node, importing `@ackwire/runtime` and its
#    `sessions/*` export by name.
# 2. CMake: cpp/ configured and installed into a temporary prefix; the consumer's
#    find_package(ackwire) and target_link_libraries(frames ackwire::runtime) build a header
#    generated at build time, with every warning an error.
# 3. .NET and Unity: the Compile items of csharp/Ackwire.Runtime.csproj must be the Unity
#    package's sources (csharp/src, every .cs under its assembly definition), its .meta files
#    what csharp/unity-meta.sh writes, and both manifests name the assembly Ackwire.Runtime;
#    Mono's mcs builds those items into Ackwire.Runtime.dll (C# 7.2, warnings as errors, XML
#    docs checked, as the project asks: Debian has no msbuild), and the consumer's generated
#    Protocol.cs, Reference.cs and the machine schemas' Reference{Datagram,Baseline,Delta}.cs
#    (the bindings of the reference's state and schemas; with the reference presenter's policy,
#    csharp/reference), compiled against
#    the DLL, runs under mono.
# 4. cargo: the packaged ackwire-rt and ackwire-spec (`cargo package --no-verify`: their .crate
#    files in target/package, unpacked) patched in for crates.io in a crate of its own, whose
#    build.rs generates the codec with ackwire-spec's Builder, run with cargo.
#
# Before all of them: the version of every manifest is the workspace's.
#
# Installs cmake and Mono when missing (apt-get), and the TypeScript runtime's pinned tools
# (`npm ci`) when typescript/node_modules is missing. Reuses what the test command built before
# it: target/debug/ackwire, the dependencies in target/debug (the Rust consumer builds into the
# workspace's target folder, so only the ackwire crates compile again), the npm cache.
# Run from anywhere; prints one line per package and the seconds it took. ACKWIRE_FRAME_VECTORS
# names other folders of frame vector files, separated by `:`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
consumers="$root/scripts/packages"
IFS=: read -r -a vectors <<<"${ACKWIRE_FRAME_VECTORS:-$root/vectors/frames:$root/vectors/derived}"
# each COMMAND...: COMMAND run with each folder of vectors as its last argument, in turn.
each() {
  local dir
  for dir in "${vectors[@]}"; do
    "$@" "$dir" || return 1
  done
}

fail() {
  printf 'packages.sh: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=need-package.sh
source "$root/scripts/need-package.sh"
need_package packages.sh cmake cmake
bash "$root/csharp/mono.sh"

# Outside the tree, and the same folder on every run from this checkout: the Rust consumer builds
# into the workspace's target folder, where a crate at a new path each run would leave another
# copy of its build behind.
work="${TMPDIR:-/tmp}/ackwire-packages-$(printf '%s' "$root" | md5sum | cut -c1-12)"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
log="$work/log"
# Runs a command quietly; on failure shows its output and stops.
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "failed: $*"
  fi
}
started=$SECONDS
took() { printf '   (%d s)\n' $((SECONDS - started)); started=$SECONDS; }

cd "$root"
quiet cargo build -q -p ackwire
ackwire="$root/target/debug/ackwire"

# ---- the versions ----
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
[ -n "$version" ] || fail "no version in Cargo.toml's [workspace.package]"
json_version() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version)' "$1"; }
for found in \
  "typescript/package.json:$(json_version typescript/package.json)" \
  "csharp/src/package.json:$(json_version csharp/src/package.json)" \
  "csharp/Ackwire.Runtime.csproj:$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' csharp/Ackwire.Runtime.csproj)" \
  "cpp/CMakeLists.txt:$(sed -n 's/^project(ackwire VERSION \([^ ]*\) .*/\1/p' cpp/CMakeLists.txt)"; do
  [ "${found#*:}" = "$version" ] ||
    fail "${found%%:*} says version '${found#*:}', the workspace $version"
done
echo "== every package is version $version"
took

# ---- npm: @ackwire/runtime ----
if [ ! -d typescript/node_modules ]; then
  (cd typescript && quiet npm ci --no-audit --no-fund --loglevel=error)
fi
mkdir -p "$work/npm"
(cd typescript && quiet npm pack --pack-destination "$work/npm")
tarball="$work/npm/ackwire-runtime-$version.tgz"
[ -f "$tarball" ] || fail "npm pack did not write $tarball"
tar -tzf "$tarball" >"$work/npm/files"
for f in dist/src/index.js dist/src/index.d.ts dist/src/sessions/acked.js dist/src/sessions/acked.d.ts; do
  grep -qx "package/$f" "$work/npm/files" || fail "the npm package has no $f"
done
if grep -v '\.d\.ts$' "$work/npm/files" | grep -q '\.ts$'; then
  fail "the npm package holds TypeScript sources: $(grep -v '\.d\.ts$' "$work/npm/files" | grep '\.ts$' | head -3)"
fi
ts="$work/npm/consumer"
cp -r "$consumers/ts" "$ts"
quiet "$ackwire" gen --lang ts --runtime package --out "$ts/src/gen" spec/protocol
(
  cd "$ts"
  quiet npm install --prefer-offline --no-audit --no-fund --loglevel=error "$tarball"
  quiet npx --no-install tsc -p .
  each node dist/main.js
) || fail "the npm consumer failed"
took

# ---- CMake: find_package(ackwire), ackwire::runtime ----
cmake_dir="$work/cmake"
quiet cmake -S cpp -B "$cmake_dir/runtime"
quiet cmake --install "$cmake_dir/runtime" --prefix "$cmake_dir/prefix"
cp -r "$consumers/cpp" "$cmake_dir/consumer"
quiet cmake -S "$cmake_dir/consumer" -B "$cmake_dir/consumer/build" \
  -DCMAKE_PREFIX_PATH="$cmake_dir/prefix" -DACKWIRE="$ackwire" -DLAYOUTS="$root/spec/protocol"
quiet cmake --build "$cmake_dir/consumer/build"
each "$cmake_dir/consumer/build/frames" || fail "the CMake consumer failed"
took

# ---- .NET and Unity: the assembly Ackwire.Runtime ----
csproj=csharp/Ackwire.Runtime.csproj
# The Compile items, expanded as MSBuild expands them (relative to the project's folder).
mapfile -t items < <(grep -o '<Compile [^>]*>' "$csproj")
listed=()
shopt -s globstar nullglob
for item in "${items[@]}"; do
  [[ "$item" =~ ^'<Compile Include="'([^\"]+)'" />'$ ]] ||
    fail "$csproj: $item: only <Compile Include=\"PATTERN\" /> items are read here"
  pattern="${BASH_REMATCH[1]//\\//}"
  # shellcheck disable=SC2206 # the pattern is a glob, expanded here on purpose
  listed+=($(cd csharp && printf '%s\n' $pattern))
done
shopt -u globstar nullglob
printf '%s\n' "${listed[@]}" | sort -u >"$work/csproj-files"
(cd csharp && find src -name '*.cs' | sort) >"$work/unity-files"
diff -u "$work/unity-files" "$work/csproj-files" >&2 ||
  fail "$csproj compiles other files than the Unity package (csharp/src) holds (diff above: - Unity, + csproj)"
bash csharp/unity-meta.sh
node -e '
  const fs = require("fs");
  const asmdef = JSON.parse(fs.readFileSync("csharp/src/Ackwire.Runtime.asmdef", "utf8"));
  const unity = JSON.parse(fs.readFileSync("csharp/src/package.json", "utf8"));
  const faults = [];
  if (asmdef.name !== "Ackwire.Runtime") faults.push(`the assembly definition names ${asmdef.name}`);
  if (!/^com\.[a-z0-9-]+\.[a-z0-9.-]+$/.test(unity.name)) faults.push(`${unity.name} is not a Unity package name`);
  for (const key of ["displayName", "description", "unity"]) if (!unity[key]) faults.push(`no ${key}`);
  if (faults.length) { console.error(faults.join("\n")); process.exit(1); }
' || fail "csharp/src is not a Unity package (above)"
grep -q '<AssemblyName>Ackwire.Runtime</AssemblyName>' "$csproj" || fail "$csproj does not build the assembly Ackwire.Runtime"
cs="$work/cs"
mkdir -p "$cs"
(cd csharp && quiet mcs -target:library -langversion:7.2 -warnaserror+ -warn:4 -nologo \
  -doc:"$cs/Ackwire.Runtime.xml" -out:"$cs/Ackwire.Runtime.dll" "${listed[@]}")
quiet "$ackwire" gen --lang cs --runtime package --out "$cs/gen" spec/protocol
# With the generated bindings of the reference's state (Reference.cs) and machine schemas
# (Reference{Datagram,Baseline,Delta}.cs) and the presenter's policy (csharp/reference), which
# csharp/README.md has a Unity project copy beside
# its Protocol.cs: they must compile against the assembly too, not only inside it.
quiet mcs -langversion:7.2 -warnaserror+ -warn:4 -nologo -r:"$cs/Ackwire.Runtime.dll" \
  -out:"$cs/frames.exe" "$consumers/cs/Frames.cs" "$cs"/gen/*.cs csharp/reference/*.cs
each mono "$cs/frames.exe" || fail "the C# consumer failed"
took

# ---- cargo: ackwire-rt and ackwire-spec as packaged ----
# Packaged again without the verify build (a second or two): the files of this checkout, even
# uncommitted, and never a .crate left by an older run.
quiet cargo package --no-verify --allow-dirty -p ackwire-rt -p ackwire-spec
rust="$work/cargo"
mkdir -p "$rust/crates"
for crate in ackwire-rt ackwire-spec; do
  tar -xzf "target/package/$crate-$version.crate" -C "$rust/crates"
done
# A .crate dates every file alike, and cargo judges a path dependency fresh by its files' times:
# dated now, the packaged sources always build again.
find "$rust/crates" -type f -exec touch {} +
cp -r "$consumers/rust" "$rust/consumer"
mkdir -p "$rust/consumer/wire"
# The layout files and the coded frame's tables beside them (CODE-16).
cp spec/protocol/*.wire spec/protocol/*.tables "$rust/consumer/wire/"
# The crates are not on crates.io yet: the patch stands in for the registry.
cat >>"$rust/consumer/Cargo.toml" <<EOF

[patch.crates-io]
ackwire-rt = { path = "$rust/crates/ackwire-rt-$version" }
ackwire-spec = { path = "$rust/crates/ackwire-spec-$version" }
EOF
# The workspace's lock file pins the same versions of the dependencies as target/debug holds.
cp Cargo.lock "$rust/consumer/"
(cd "$rust/consumer" && CARGO_TARGET_DIR="$root/target" quiet cargo build --offline -q)
each "$root/target/debug/ackwire-package-consumer" || fail "the Rust consumer failed"
took
