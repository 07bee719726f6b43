//! Compiles the reference protocol (`spec/protocol/*.wire`) into `$OUT_DIR/protocol.rs`.

fn main() {
    let protocol = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/protocol");
    if let Err(e) = ackwire_spec::Builder::new()
        .path(&protocol)
        .arbitrary(true)
        .compile("protocol.rs")
    {
        // The diagnostics are rustc-style already; cargo shows them under the build failure.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
