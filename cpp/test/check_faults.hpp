// What the runtime's own tests add to check.hpp for the runtime's errors: how a failed CHECK_EQ
// prints an error kind, and CHECK_FAULT, which checks a decoding error's kind, byte offset and
// bit offset (none outside a packed body) at the caller's file and line. Shared by
// runtime_test.cpp and packed19_test.cpp.

#pragma once

#include "ackwire_runtime.hpp"

#include "check.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace ackwire::rt {
// How a failed CHECK_EQ prints an error kind (found by argument-dependent lookup).
inline std::string show(ErrorKind kind) { return std::string(kind_name(kind)); }
}  // namespace ackwire::rt

namespace check {
/// Checks a decoding error's kind, byte offset and bit offset (none outside a packed body).
inline void fault(const ackwire::rt::DecodeError& e, ackwire::rt::ErrorKind kind, size_t offset,
    std::optional<size_t> bit, const char* file, int line) {
    equal(e.kind, kind, file, line, "error.kind", "expected kind");
    equal(e.offset, offset, file, line, "error.offset", "expected offset");
    equal(e.bit, bit, file, line, "error.bit", "expected bit");
}
}  // namespace check

#define CHECK_FAULT(error, kind, offset, bit) \
    ::check::fault((error), (kind), (offset), (bit), __FILE__, __LINE__)
