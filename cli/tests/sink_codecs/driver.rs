//! A line-driven driver of a generated Rust codec, for cli/tests/sink_codecs.rs: the protocol of
//! driver.ts, one answer line per request line, over the frames of the generated
//! `protocol.rs` (which the test writes beside this file's crate, with its Cargo.toml).
//!
//!   decode NAME HEX   ->  ok JSON | err KIND OFFSET BIT PATH (BIT `-` outside a packed body)
//!   encode NAME JSON  ->  ok HEX  | err KIND PATH | bad_json MESSAGE

#[allow(dead_code, clippy::all)]
mod protocol {
    include!("../gen/protocol.rs");
}

use ackwire_rt::{Frame, FrameVisitor};
use std::io::{BufRead, Write};

struct Decode(Vec<u8>);

impl FrameVisitor for Decode {
    type Output = String;

    fn visit<F: Frame>(self) -> String {
        match F::decode(&self.0) {
            Ok(v) => format!("ok {}", serde_json::to_string(&v).expect("JSON of a value")),
            Err(e) => format!(
                "err {} {} {} {}",
                e.kind.as_str(),
                e.offset,
                e.bit.map_or("-".to_string(), |b| b.to_string()),
                e.path
            ),
        }
    }
}

struct Encode(String);

impl FrameVisitor for Encode {
    type Output = String;

    fn visit<F: Frame>(self) -> String {
        match serde_json::from_str::<F>(&self.0) {
            Ok(v) => match v.to_bytes() {
                Ok(bytes) => format!(
                    "ok {}",
                    bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
                ),
                Err(e) => format!("err {} {}", e.kind.as_str(), e.path),
            },
            Err(e) => format!("bad_json {e}"),
        }
    }
}

fn main() {
    let mut out = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("a line of input");
        let mut parts = line.splitn(3, ' ');
        let (op, name, arg) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        let answer = if op == "decode" {
            let bytes = (0..arg.len() / 2)
                .map(|i| u8::from_str_radix(&arg[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect();
            protocol::visit_frame(name, Decode(bytes))
        } else {
            protocol::visit_frame(name, Encode(arg.to_string()))
        };
        writeln!(
            out,
            "{}",
            answer.unwrap_or_else(|| "bad_request unknown frame".into())
        )
        .and_then(|()| out.flush())
        .expect("the answer is written");
    }
}
