#!/usr/bin/env bash
# Installs Mono's C# compiler and runtime (Debian's mono-mcs and mono-runtime) when `mcs` or
# `mono` is missing, with sudo when not root. Prints nothing when both are there.
set -euo pipefail

if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "mono.sh: mcs and mono are missing and apt-get is not here to install them" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
fi
echo "mono.sh: installing mono-mcs and mono-runtime" >&2
"${sudo[@]}" apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq mono-mcs mono-runtime >&2
