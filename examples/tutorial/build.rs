//! Compiles the tutorial's layout file into `$OUT_DIR/ships.rs`, as any game's crate would.

// ANCHOR: build
fn main() {
    ackwire_spec::Builder::new()
        .path("wire/ships.wire")
        .acked_machines("::ackwire_codec::acked")
        .compile("ships.rs")
        .unwrap_or_else(|e| panic!("{e}"));
}
// ANCHOR_END: build
