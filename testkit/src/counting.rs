//! A counting global allocator: [`CountingAlloc`] forwards to [`System`] and counts, per
//! thread, what is allocated, so that [`measure`] reports what a closure allocated on the calling
//! thread alone, however many threads run beside it. A limit is held by counting, never by
//! timing. This file is `ackwire-testkit`'s, and `ackwire gen --lang fuzz` copies it into the fuzz
//! crates it writes, whose targets hold each decoder to its allocation limit.
//!
//! Installing a global allocator is an `unsafe impl` of [`GlobalAlloc`] by definition; the
//! implementation only forwards to [`System`] and adds to thread-local counters.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// A global allocator that forwards to [`System`] and counts, per thread, the allocations made
/// and the bytes live. Install it with `#[global_allocator]` in a test binary.
pub struct CountingAlloc;

thread_local! {
    // `const` initialisers without destructors: reading them never allocates, so the allocator
    // cannot recurse into itself.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static ALLOCATED_BYTES: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn on_alloc(size: usize) {
    // `try_with` because an allocation can happen while the thread's locals are torn down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    let _ = ALLOCATED_BYTES.try_with(|c| c.set(c.get() + size as u64));
    let _ = LIVE.try_with(|live| {
        let now = live.get() + size as i64;
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

fn on_dealloc(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get() - size as i64));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds
// `GlobalAlloc`'s contract; the counting touches only thread-local cells and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_dealloc(layout.size());
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        on_dealloc(layout.size());
        on_alloc(new_size);
        // SAFETY: the caller upholds `realloc`'s contract, which is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What a closure allocated on the calling thread, with the value it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured<T> {
    /// What the closure returned.
    pub value: T,
    /// How many allocations (and reallocations) it made.
    pub allocations: u64,
    /// The bytes of all those allocations, added up (a reallocation counts its new size).
    pub allocated_bytes: u64,
    /// The most bytes it held live at once, above what was live when it started.
    pub peak_bytes: u64,
    /// The bytes it still held when it returned, above what was live when it started (negative
    /// when it freed more than it kept). Includes the returned value's heap.
    pub retained_bytes: i64,
}

/// Runs `f` and reports what it allocated on this thread. Only meaningful in a binary whose
/// global allocator is [`CountingAlloc`]; elsewhere every count is 0.
pub fn measure<T>(f: impl FnOnce() -> T) -> Measured<T> {
    let allocations = ALLOCATIONS.with(Cell::get);
    let bytes = ALLOCATED_BYTES.with(Cell::get);
    let live = LIVE.with(Cell::get);
    let outer_peak = PEAK.with(|p| p.replace(live));
    let value = f();
    let peak = PEAK.with(|p| p.replace(outer_peak.max(p.get())));
    let now = LIVE.with(Cell::get);
    Measured {
        value,
        allocations: ALLOCATIONS.with(Cell::get) - allocations,
        allocated_bytes: ALLOCATED_BYTES.with(Cell::get) - bytes,
        peak_bytes: (peak - live).max(0) as u64,
        retained_bytes: now - live,
    }
}

/// Whether this binary's global allocator is [`CountingAlloc`]: a test that relies on the
/// counts asserts it first, so a missing `#[global_allocator]` fails loudly instead of
/// passing on zeros.
pub fn is_counting() -> bool {
    measure(|| std::hint::black_box(Box::new(0u64))).allocations > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static ALLOC: CountingAlloc = CountingAlloc;

    #[test]
    fn counts_allocations_bytes_and_peak() {
        assert!(is_counting());
        let m = measure(|| {
            let a = vec![0u8; 1000];
            drop(a);
            let b: Vec<u8> = Vec::with_capacity(300);
            b
        });
        assert_eq!(m.allocations, 2);
        assert_eq!(m.allocated_bytes, 1300);
        assert_eq!(m.peak_bytes, 1000);
        assert_eq!(m.retained_bytes, 300);
    }

    #[test]
    fn nested_measures_keep_the_outer_peak() {
        let outer = measure(|| {
            let big = vec![0u8; 5000];
            let inner = measure(|| vec![0u8; 10]);
            assert_eq!(inner.peak_bytes, 10);
            assert_eq!(inner.allocations, 1);
            drop(big);
        });
        assert!(outer.peak_bytes >= 5010, "{outer:?}");
        assert_eq!(outer.allocations, 2);
    }
}
