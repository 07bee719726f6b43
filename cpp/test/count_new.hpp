// Counts the heap allocations of the test binary that includes it (once, in its one source
// file): operator new and delete replaced by malloc and free, with how many allocations and how
// many bytes were asked for so far, so that a test can hold a warm path to none and a cold one to
// a bound. Shared by acked_test.cpp and reference_test.cpp.

#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

// The replaced operator new and delete below are malloc and free, a matched pair; g++ cannot
// see through the replacement and warns at every inlined delete.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
/// Allocations made so far.
size_t g_allocations = 0;
/// Bytes asked for so far, by all of them.
size_t g_allocated_bytes = 0;
}  // namespace

void* operator new(size_t n) {
    ++g_allocations;
    g_allocated_bytes += n;
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
