#!/usr/bin/env bash
# The Unity package in src/ (package.json, Ackwire.Runtime.asmdef, the runtime's sources) needs a
# .meta file beside every file and folder: Unity ignores an asset without one in a package
# installed from git or a tarball. This checks that each is there and is what this script
# writes (a GUID derived from the file's path in the package, so a rewritten .meta is the same
# file), and that no .meta is left without its asset; with --write it writes the missing or
# different ones and removes the orphans. Run --write after adding or renaming a file in src/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$here/src"
write=0
case "${1:-}" in
  --write) write=1 ;;
  "") ;;
  *)
    echo "usage: unity-meta.sh [--write]" >&2
    exit 2
    ;;
esac

# The .meta Unity writes for `rel` (a path in the package): its importer by kind of asset.
meta() {
  local rel="$1" guid importer
  guid="$(printf 'com.ackwire.runtime/%s' "$rel" | md5sum | cut -c1-32)"
  printf 'fileFormatVersion: 2\nguid: %s\n' "$guid"
  if [ -d "$package/$rel" ]; then
    printf 'folderAsset: yes\n'
    importer=DefaultImporter
  else
    case "$rel" in
      *.cs)
        printf 'MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n'
        printf '  executionOrder: 0\n  icon: {instanceID: 0}\n'
        printf '  userData: \n  assetBundleName: \n  assetBundleVariant: \n'
        return
        ;;
      *.asmdef) importer=AssemblyDefinitionImporter ;;
      package.json) importer=PackageManifestImporter ;;
      *.md | *.txt | *.json) importer=TextScriptImporter ;;
      *) importer=DefaultImporter ;;
    esac
  fi
  printf '%s:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n' \
    "$importer"
}

cd "$package"
wrong=()
while IFS= read -r rel; do
  rel="${rel#./}"
  expected="$(meta "$rel")"
  if [ ! -f "$rel.meta" ] || [ "$(cat "$rel.meta")" != "$expected" ]; then
    wrong+=("$rel.meta")
    [ "$write" -eq 1 ] && printf '%s\n' "$expected" >"$rel.meta"
  fi
done < <(find . -mindepth 1 ! -name '*.meta' ! -name '.*' | sort)
while IFS= read -r orphan; do
  orphan="${orphan#./}"
  if [ ! -e "${orphan%.meta}" ]; then
    wrong+=("$orphan (its asset is gone)")
    [ "$write" -eq 1 ] && rm "$orphan"
  fi
done < <(find . -name '*.meta' | sort)

if [ "${#wrong[@]}" -gt 0 ]; then
  if [ "$write" -eq 1 ]; then
    printf 'unity-meta.sh: wrote %s\n' "${wrong[@]}"
  else
    printf 'unity-meta.sh: csharp/src/%s is missing or not what this script writes\n' "${wrong[@]}" >&2
    echo "unity-meta.sh: run bash csharp/unity-meta.sh --write, then review and commit" >&2
    exit 1
  fi
fi
