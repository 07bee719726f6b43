//! Validation (in progress).
