#
# The testee of the C++ codec beside it (protocol.hpp): conformance/PROTOCOL.md over standard
# input and output, for `ackwire conform --testee PATH/testee`. Its first run builds it with
# $CXX (default g++), C++17, under AddressSanitizer and UBSan (any finding aborts: the runner
# records a crash), unoptimized: a testee checks, and builds twice as fast so. $CXXFLAGS
# replaces those flags.

@PRELUDE@

compile() {
    local cxx="${CXX:-g++}"
    if ! command -v "$cxx" >/dev/null 2>&1; then
        echo "testee: the C++ compiler \`$cxx\` is not installed (apt-get install g++)"
        return 1
    fi
    mkdir -p "$here/build"
    # shellcheck disable=SC2086 # $CXXFLAGS is a list of flags
    "$cxx" -std=c++17 -Wall -Wextra ${CXXFLAGS:--O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all} \
        -I "$here" -o "$here/build/testee" "$here/testee.cpp"
}

build_if_stale
exec "$here/build/testee"
