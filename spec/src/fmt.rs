//! Formatter (in progress).
