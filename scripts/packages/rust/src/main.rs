//! A user's program over the packaged ackwire-rt: every golden frame vector through the codec
//! build.rs generated. An accepted frame must re-encode to its own bytes; a refused one must
//! fail with the vector's kind, byte offset and field path. Usage: consumer VECTORS/frames

use ackwire_rt::{Frame, FrameVisitor};
use std::path::Path;
use std::process::ExitCode;

/// The codec of `wire/`.
#[allow(dead_code)]
mod protocol {
    include!(concat!(env!("OUT_DIR"), "/protocol.rs"));
}

/// One vector case checked against the frame type it is visited with: what is wrong, if
/// anything.
struct Check<'a> {
    bytes: &'a [u8],
    error: Option<&'a serde_json::Value>,
}

impl FrameVisitor for Check<'_> {
    type Output = Result<(), String>;

    fn visit<F: Frame>(self) -> Self::Output {
        match (F::decode(self.bytes), self.error) {
            (Ok(frame), None) => {
                let again = frame
                    .to_bytes()
                    .map_err(|e| format!("does not re-encode: {e}"))?;
                if again == self.bytes {
                    Ok(())
                } else {
                    Err(format!("re-encoded as {again:02x?}"))
                }
            }
            (Ok(_), Some(want)) => Err(format!("decoded, but the vector says {want}")),
            (Err(e), None) => Err(format!("refused a valid frame: {e}")),
            (Err(e), Some(want)) => {
                let same = want["kind"] == e.kind.as_str()
                    && want["offset"] == e.offset
                    && want["path"] == e.path_string();
                if same {
                    Ok(())
                } else {
                    Err(format!("{e}, want {want}"))
                }
            }
        }
    }
}

fn hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .filter(|p| p.len() == 2)
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("`{}` is not a hex byte", String::from_utf8_lossy(pair)))
        })
        .collect()
}

fn run(dir: &Path) -> Result<(usize, usize, Vec<String>), String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut accepted, mut refused, mut failures) = (0, 0, Vec::new());
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let vectors: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let frame = vectors["frame"].as_str().unwrap_or_default();
        for case in vectors["cases"].as_array().into_iter().flatten() {
            let name = case["name"].as_str().unwrap_or_default();
            let bytes = hex(case["hex"].as_str().unwrap_or_default())?;
            let error = case.get("error");
            if error.is_some() {
                refused += 1;
            } else {
                accepted += 1;
            }
            let outcome = protocol::visit_frame(
                frame,
                Check {
                    bytes: &bytes,
                    error,
                },
            )
            .unwrap_or_else(|| Err(format!("the codec has no frame {frame}")));
            if let Err(why) = outcome {
                failures.push(format!("{name}: {why}"));
            }
        }
    }
    Ok((accepted, refused, failures))
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: consumer VECTORS/frames");
        return ExitCode::from(2);
    };
    match run(Path::new(&dir)) {
        Ok((accepted, refused, failures)) => {
            for f in &failures {
                eprintln!("FAIL {f}");
            }
            println!(
                "ackwire-rt in a crate of its own: {accepted} frame vectors decoded and re-encoded, \
                 {refused} refused at their byte and field, {} failures",
                failures.len()
            );
            if failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
