//!
//! The testee of the codec in protocol.rs and of the acked session halves of its states:
//! conformance/PROTOCOL.md over standard input and output, one JSON request a line in and one
//! reply a line out, so that `ackwire conform` checks this codec and the acked machines over its
//! binding through the same door as every other implementation. The replies are the runtime's
//! (`ackwire_rt::testee`) and the halves `ackwire_server::testee`'s; this file names the frames
//! and the schemas.

// The codec is reached here through its frames by name and its states' schemas only.
#[allow(dead_code)]
mod protocol;

use ackwire_rt::FrameVisitor;
use std::process::ExitCode;

/// The frames of protocol.rs by name.
struct ProtocolFrames;

impl ackwire_rt::testee::Frames for ProtocolFrames {
    const NAMES: &'static [&'static str] = protocol::FRAME_NAMES;

    fn visit<V: FrameVisitor>(name: &str, visitor: V) -> Option<V::Output> {
        protocol::visit_frame(name, visitor)
    }
}

fn main() -> ExitCode {
    let mut sessions = ackwire_server::testee::StateSessions::new();
@SESSIONS@
    let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
    ExitCode::from(ackwire_rt::testee::serve_with::<ProtocolFrames>(
        "ackwire-rust",
        &mut sessions,
        input,
        output,
    ))
}
