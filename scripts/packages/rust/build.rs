//! The codec of this crate's layout files, generated at build time.

fn main() {
    ackwire_spec::Builder::new()
        .path("wire")
        .compile("protocol.rs")
        .unwrap_or_else(|e| panic!("{e}"));
}
