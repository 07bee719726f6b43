//! Interpolation traits shared by client and server (filled by the server-primitives step).
