//! The spec a command works on: the layout files named by `--spec`, or the reference protocol.
//!
//! Every command that takes `--spec FILES` (`explain`, `decode`, `encode`, `vectors`, `conform`,
//! `fuzz-diff`) loads it here, so that a bad layout is reported the same way everywhere: as
//! `ackwire check` reports it, every problem at file:line:col with a caret.

use ackwire_spec::model::Spec;
use ackwire_spec::{Source, SpecError};
use std::path::PathBuf;

/// A spec loaded for a command.
#[derive(Debug)]
pub struct SpecArg {
    /// The spec, compiled.
    pub spec: Spec,
    /// Its layout files as read (for diagnostics).
    pub sources: Vec<Source>,
    /// No `--spec` was given: this is the reference protocol (embedded in the tool), which the
    /// bundled Rust codec implements, so a command may use that codec instead of the run-time
    /// one and print what it printed before `--spec` existed.
    pub reference: bool,
}

impl SpecArg {
    /// The layout files under `files` (each a `.wire` file or a folder of them), or the
    /// reference protocol when `files` is empty.
    pub fn load(files: &[PathBuf]) -> Result<SpecArg, SpecError> {
        if files.is_empty() {
            let sources = ackwire_spec::reference_sources();
            let spec = ackwire_spec::compile(&sources)?;
            return Ok(SpecArg {
                spec,
                sources,
                reference: true,
            });
        }
        let (spec, sources) = ackwire_spec::load(files)?;
        Ok(SpecArg {
            spec,
            sources,
            reference: false,
        })
    }

    /// The snake_case names of the spec's frames, in declaration order.
    pub fn frame_names(&self) -> Vec<String> {
        crate::explain::frame_names(&self.spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_files_is_the_reference_protocol() {
        let arg = SpecArg::load(&[]).unwrap();
        assert!(arg.reference);
        assert_eq!(arg.frame_names(), ackwire_codec::protocol::FRAME_NAMES);
    }

    #[test]
    fn a_bad_layout_is_reported_at_its_line_and_column() {
        let dir = std::env::temp_dir().join(format!("ackwire-spec-arg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.wire");
        std::fs::write(&path, "frame F {\n    kind: u8 = 1,\n    x: u9,\n}\n").unwrap();
        let e = SpecArg::load(std::slice::from_ref(&path))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.wire:3:"), "{e}");
        let missing = SpecArg::load(&[dir.join("missing.wire")])
            .unwrap_err()
            .to_string();
        assert!(missing.contains("missing.wire"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
