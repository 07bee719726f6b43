//! Order-independent set digests (filled by the server-primitives step).
