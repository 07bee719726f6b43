#
# The testee of the C# codec beside it (Protocol.cs and Runtime/): conformance/PROTOCOL.md over
# standard input and output, for `ackwire conform --testee PATH/testee`. Its first run builds it
# with Mono's C# compiler (C# 7.2, warnings as errors) into build/testee.exe, which Mono runs.

@PRELUDE@

compile() {
    if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
        echo "testee: Mono is not installed (apt-get install mono-mcs mono-runtime)"
        return 1
    fi
    mkdir -p "$here/build"
    local sources=()
    mapfile -t sources < <(find "$here" \( -name build -o -name '.*' \) -prune -o -name '*.cs' -print | sort)
    mcs -langversion:7.2 -warnaserror+ -warn:4 -optimize+ -nologo -out:"$here/build/testee.exe" "${sources[@]}"
}

build_if_stale
exec mono "$here/build/testee.exe"
