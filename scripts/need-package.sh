# Sourced by the test scripts that need a Debian package CI's fresh machine may not have
# (chromium, tshark, mono): `need_package WHO PACKAGE COMMAND...` installs PACKAGE with apt-get
# (through sudo when not root) unless every COMMAND is already on the PATH, and exits 1, saying
# why, when it cannot. `--debconf LINE` before WHO answers one of the package's debconf questions
# first (tshark asks whether non-root users may capture), so nothing waits for a person.
# shellcheck shell=bash

need_package() {
  local debconf=""
  if [ "${1:-}" = "--debconf" ]; then
    debconf="$2"
    shift 2
  fi
  local who="$1" package="$2"
  shift 2
  local c missing=0
  for c in "$@"; do
    command -v "$c" >/dev/null || missing=1
  done
  [ "$missing" -eq 0 ] && return 0

  echo "$who: $package is not installed; installing Debian's package" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      printf '%s: %s is missing, and without root or sudo it cannot be installed (apt-get install %s)\n' \
        "$who" "$package" "$package" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  if ! "${sudo[@]}" apt-get update -q >&2; then
    printf '%s: apt-get update failed; its output is above\n' "$who" >&2
    exit 1
  fi
  if [ -n "$debconf" ]; then
    echo "$debconf" | "${sudo[@]}" debconf-set-selections
  fi
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >&2; then
    printf '%s: apt-get install %s failed; its output is above\n' "$who" "$package" >&2
    exit 1
  fi
  for c in "$@"; do
    if ! command -v "$c" >/dev/null; then
      printf '%s: %s is still not on the PATH after installing %s\n' "$who" "$c" "$package" >&2
      exit 1
    fi
  done
}
