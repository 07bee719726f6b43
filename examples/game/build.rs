//! Compiles this crate's own layout file, exactly as a game's crate would.

fn main() {
    ackwire_spec::Builder::new()
        .path("wire/game.wire")
        .acked_machines("::ackwire_codec::acked")
        // Its groups as typed datagram v2 components too (`ArenaComponent`).
        .codec("::ackwire_codec")
        .compile("game.rs")
        .unwrap_or_else(|e| panic!("{e}"));
    // The arena's groups as NetBaseline components, for tests/components.rs: snapshot frames of
    // the tests' own whose entries carry the packed groups `state Arena` declares.
    ackwire_spec::Builder::new()
        .path("wire/game.wire")
        .path("tests/baseline/arena_baseline.wire")
        .codec("::ackwire_codec")
        .compile("arena_baseline.rs")
        .unwrap_or_else(|e| panic!("{e}"));
    // Shapes the game's layout does not have, compiled for tests/state_shapes.rs.
    ackwire_spec::Builder::new()
        .path("tests/shapes/shapes.wire")
        .acked_machines("::ackwire_codec::acked")
        .compile("shapes.rs")
        .unwrap_or_else(|e| panic!("{e}"));
}
