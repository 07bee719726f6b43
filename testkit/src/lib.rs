//! Test support shared by ackwire's crates: a counting global allocator.
//!
//! The hostile-peer rules say that a test of a limit counts allocations or operations, never
//! wall-clock time, because the machines that run the tests are shared and noisy. A test
//! binary installs [`CountingAlloc`] as its global allocator and wraps the code under test in
//! [`measure`], which reports what that code allocated on the calling thread alone, so tests
//! running side by side in other threads do not disturb the figures.
//!
//! ```
//! #[global_allocator]
//! static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;
//!
//! fn main() {
//!     assert!(ackwire_testkit::is_counting());
//!     let m = ackwire_testkit::measure(|| vec![0u8; 100]);
//!     assert_eq!(m.allocations, 1);
//!     assert_eq!(m.peak_bytes, 100);
//! }
//! ```
//!
//! This crate is for tests only and is never published. It is the one crate of the workspace
//! that cannot forbid `unsafe`: a global allocator is an `unsafe impl` of
//! [`GlobalAlloc`](std::alloc::GlobalAlloc) by definition (the module `counting`, which
//! `ackwire gen --lang fuzz` copies into the fuzz crates it writes).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod counting;

pub use counting::{is_counting, measure, CountingAlloc, Measured};
