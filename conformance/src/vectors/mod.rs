//! Golden vectors (in progress).
