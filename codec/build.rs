//! Compiles the reference protocol into `$OUT_DIR/protocol.rs`, and the tiny protocol the
//! generic-schema test runs the session machines over into `$OUT_DIR/tiny.rs`.
//!
//! The layouts come from the `ackwire-spec` build-dependency, which embeds `spec/protocol/*.wire`
//! (still their one source of truth), rather than from `../spec/protocol`: a path outside this
//! package is missing from the published crate, and `cargo add ackwire-codec` could not build.

fn main() {
    if let Err(e) = ackwire_spec::Builder::new()
        .sources(ackwire_spec::reference_sources())
        .arbitrary(true)
        .acked_machines("crate::acked")
        .codec("crate")
        .compile("protocol.rs")
    {
        // The diagnostics are rustc-style already; cargo shows them under the build failure.
        eprintln!("{e}");
        std::process::exit(1);
    }
    // Only the tests read it, and a package built without its tests has no file to compile.
    let tiny = "tests/schemas/tiny.wire";
    if std::path::Path::new(tiny).exists() {
        if let Err(e) = ackwire_spec::Builder::new()
            .path(tiny)
            .codec("::ackwire_codec")
            .compile("tiny.rs")
        {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
