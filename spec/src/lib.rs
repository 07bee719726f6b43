//! # ackwire-spec
//!
//! The ackwire layout language: the text in which every ackwire frame is written, and the
//! machinery around it.
//!
//! - [`parse`] reads a `.wire` file into the [`model`] (nom 8), reporting every error it can
//!   find as a [`diag::Diagnostic`] located at file:line:col;
//! - [`validate`] checks a whole [`model::Spec`] (names, order, widths, bits, kinds);
//! - [`fmt`] prints a model back as canonical text;
//! - [`index`] resolves names and derives sizes from the layout;
//! - [`lower`] turns a spec once into what every generator prints and `ackwire explain`
//!   walks: each field's role, wire form, presence and checks in the canonical order;
//! - [`state`] resolves a replicated state into the plan every binding generator prints, and
//!   derives its frames' items;
//! - [`machines`] resolves a machine schema (which frames play the datagram v2, NetBaseline or
//!   delta machines' roles) into the plan their binding is printed from;
//! - [`gen`] holds the printers (Rust, TypeScript, C++, a Wireshark dissector in Lua) and
//!   `gen::doc`, the documentation site;
//! - [`breaking`] compares two versions of a spec at the level of bits (`ackwire breaking`).
//!
//! The language itself is described in `LANGUAGE.md` beside this crate.
//!
//! What this crate is not: a codec. It never sees a frame's bytes; `ackwire-rt` holds the
//! runtime the generated code calls, and `ackwire-codec` the reference protocol compiled.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod breaking;
pub mod diag;
pub mod fmt;
pub mod index;
pub mod lower;
pub mod machines;
pub mod model;
pub mod parse;
pub mod state;
pub mod validate;

use diag::Diagnostic;
use model::Spec;
use std::path::{Path, PathBuf};

/// The one error type of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A layout file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The layout files have errors; `rendered` holds them as rustc-style text.
    #[error("{rendered}")]
    Invalid {
        /// Every problem found.
        diagnostics: Vec<Diagnostic>,
        /// The diagnostics rendered against their files.
        rendered: String,
    },
}

/// One layout file's name and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The name diagnostics use (usually the path as given).
    pub name: String,
    /// The file's text.
    pub text: String,
}

/// Parses and validates `sources` as one spec. Every parse error of every file and, when all
/// files parse, every validation error is reported. A source named `*.tables` is a coded
/// frame's tables file (CODE-16), found there by its path before the disk is tried.
pub fn compile(sources: &[Source]) -> Result<Spec, SpecError> {
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    // A coded frame's tables file among the sources is read by the frame, not parsed.
    for source in sources.iter().filter(|s| !s.name.ends_with(".tables")) {
        match parse::parse_file(&source.name, &source.text) {
            Ok(file) => files.push(file),
            Err(mut errors) => diagnostics.append(&mut errors),
        }
    }
    if diagnostics.is_empty() {
        let mut spec = Spec { files };
        // A state's own problems first; a state without any derives its frames' items, which
        // the general validation then checks with everything else.
        diagnostics = state::check(&spec);
        if diagnostics.is_empty() {
            spec = state::expand(spec);
        }
        diagnostics.extend(validate::validate(&spec));
        diagnostics.extend(machines::check(&spec));
        if diagnostics.is_empty() {
            // A coded frame's tables (CODE-16), read against its models.
            let (problems, tables) = state::tables::load(&mut spec, sources);
            if problems.is_empty() {
                return Ok(spec);
            }
            let all: Vec<Source> = sources.iter().cloned().chain(tables).collect();
            let rendered = render(&problems, &all);
            return Err(SpecError::Invalid {
                diagnostics: problems,
                rendered,
            });
        }
    }
    let rendered = render(&diagnostics, sources);
    Err(SpecError::Invalid {
        diagnostics,
        rendered,
    })
}

/// Renders `diagnostics` against the files they point into, one after another.
pub fn render(diagnostics: &[Diagnostic], sources: &[Source]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let text = sources
            .iter()
            .find(|s| s.name == d.file)
            .map_or("", |s| s.text.as_str());
        out.push_str(&d.render(text));
        out.push('\n');
    }
    let n = diagnostics.len();
    out.push_str(&format!(
        "error: {n} problem{} found\n",
        if n == 1 { "" } else { "s" }
    ));
    out
}

/// Reads layout files: each path is a `.wire` file, or a folder whose `.wire` files are read in
/// name order. A file that is not UTF-8 becomes a diagnostic at the first bad byte.
pub fn read_sources(paths: &[PathBuf]) -> Result<Vec<Source>, SpecError> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| SpecError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|source| SpecError::Io {
                    path: path.clone(),
                    source,
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "wire"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut sources = Vec::new();
    let mut diagnostics = Vec::new();
    for path in files {
        let bytes = std::fs::read(&path).map_err(|source| SpecError::Io {
            path: path.clone(),
            source,
        })?;
        let name = path.display().to_string();
        match String::from_utf8(bytes) {
            Ok(text) => sources.push(Source { name, text }),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                diagnostics.push(Diagnostic::new(
                    &name,
                    model::Span::new(at, at + 1),
                    format!("{name} is not UTF-8 text (byte {at})"),
                    "a layout file is UTF-8",
                ));
                sources.push(Source { name, text });
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(sources)
    } else {
        let rendered = render(&diagnostics, &sources);
        Err(SpecError::Invalid {
            diagnostics,
            rendered,
        })
    }
}

/// Reads and compiles the layout files under `paths` (see [`read_sources`]).
pub fn load(paths: &[PathBuf]) -> Result<(Spec, Vec<Source>), SpecError> {
    let sources = read_sources(paths)?;
    let spec = compile(&sources)?;
    Ok((spec, sources))
}

/// The folder holding the reference protocol's layout files, in this crate's source tree (in
/// the workspace, `spec/protocol`; in a packaged crate, its own `protocol/`).
pub fn reference_protocol_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol"))
}

pub mod gen;

/// Compiles layout files into a Rust codec from a build script, the way prost-build does. The
/// crate then depends on `ackwire-rt` (the runtime the code calls) and `serde`, with this crate
/// as its build-dependency:
///
/// ```no_run
/// // build.rs
/// ackwire_spec::Builder::new()
///     .path("wire/game.wire")
///     .compile("game.rs")
///     .unwrap_or_else(|e| panic!("{e}"));
/// // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/game.rs"));
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    paths: Vec<PathBuf>,
    sources: Vec<Source>,
    options: gen::rust::Options,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A builder with no files, generating code that calls `::ackwire_rt`.
    pub fn new() -> Self {
        Builder {
            paths: Vec::new(),
            sources: Vec::new(),
            options: gen::rust::Options::default(),
        }
    }

    /// Adds a layout file, or a folder of them.
    pub fn path(mut self, path: impl Into<PathBuf>) -> Self {
        self.paths.push(path.into());
        self
    }

    /// Adds layout files already in memory, compiled after those given by [`Builder::path`].
    ///
    /// This is how `ackwire-codec`'s build script compiles the reference protocol: from
    /// [`reference_sources`], embedded in this crate, because a published crate cannot read
    /// files outside its own package. Cargo runs a build script again when a build-dependency
    /// changes, so no `rerun-if-changed` is needed for them.
    pub fn sources(mut self, sources: impl IntoIterator<Item = Source>) -> Self {
        self.sources.extend(sources);
        self
    }

    /// The path the generated code names the runtime crate by (default `::ackwire_rt`).
    pub fn runtime(mut self, path: impl Into<String>) -> Self {
        self.options.runtime = path.into();
        self
    }

    /// Also emit `arbitrary::Arbitrary` impls that build only encodable values, behind the
    /// generated crate's own `arbitrary` feature (which it must declare, with `arbitrary` as an
    /// optional dependency, enabling `ackwire-rt/arbitrary` too).
    pub fn arbitrary(mut self, on: bool) -> Self {
        self.options.arbitrary = on;
        self
    }

    /// Also emit each `state`'s binding of the acked session machines (spec/LANGUAGE.md,
    /// "Replicated state"): its schemas, staged change and decoder slot, calling the machines
    /// at `path` (`::ackwire_codec::acked` in a crate depending on `ackwire-codec`).
    pub fn acked_machines(mut self, path: impl Into<String>) -> Self {
        self.options.machines = Some(path.into());
        self
    }

    /// Also emit each machine `schema`'s binding (spec/LANGUAGE.md, "Machine schemas"): its
    /// marker type and `impl DatagramSchema`, `BaselineSchema` or `DeltaSchema` with the frame
    /// traits, against the machines of the crate at `path` (`::ackwire_codec`); and each
    /// `state`'s groups as typed datagram v2 components (`{State}Component`, DG-6), whose
    /// `to_component` and `from_component` take any of that crate's `ComponentChange` types.
    pub fn codec(mut self, path: impl Into<String>) -> Self {
        self.options.codec = Some(path.into());
        self
    }

    /// Generates the code as a string.
    pub fn generate(&self) -> Result<String, SpecError> {
        self.generate_from().map(|(code, _)| code)
    }

    /// The code, and the tables files it was generated from that were read from the disk.
    fn generate_from(&self) -> Result<(String, Vec<String>), SpecError> {
        let mut sources = read_sources(&self.paths)?;
        sources.extend(self.sources.iter().cloned());
        let spec = compile(&sources)?;
        let tables = state::tables::paths(&spec)
            .into_iter()
            .filter(|path| !sources.iter().any(|s| &s.name == path))
            .collect();
        let mut options = self.options.clone();
        // The layout files, as a header names them; a tables file among the sources is
        // named by its layout.
        options.source = sources
            .iter()
            .filter(|s| !s.name.ends_with(".tables"))
            .map(|s| {
                Path::new(&s.name)
                    .file_name()
                    .map_or(s.name.clone(), |n| n.to_string_lossy().into_owned())
            })
            .collect::<Vec<_>>()
            .join(", ");
        Ok((format_rust(gen::rust::generate(&spec, &options)), tables))
    }

    /// Generates the code into `$OUT_DIR/file_name`, and tells cargo to run the build script
    /// again when a layout file changes.
    pub fn compile(&self, file_name: &str) -> Result<PathBuf, SpecError> {
        let out_dir = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| SpecError::Io {
                path: PathBuf::from("$OUT_DIR"),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "OUT_DIR is not set: call compile from a build script",
                ),
            })?;
        for path in &self.paths {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let (code, tables) = self.generate_from()?;
        // A coded frame's tables file read from the disk is an input too.
        for path in tables {
            println!("cargo:rerun-if-changed={path}");
        }
        let out = out_dir.join(file_name);
        std::fs::write(&out, code).map_err(|source| SpecError::Io {
            path: out.clone(),
            source,
        })?;
        Ok(out)
    }
}

/// The reference protocol's layout files, embedded at compile time (the same files as
/// [`reference_protocol_dir`]), so that a built tool needs no source tree, and a build script
/// depending on this crate from crates.io can compile them ([`Builder::sources`]).
pub fn reference_sources() -> Vec<Source> {
    [
        (
            "spec/protocol/acked.wire",
            include_str!("../protocol/acked.wire"),
        ),
        (
            "spec/protocol/acked_packed.wire",
            include_str!("../protocol/acked_packed.wire"),
        ),
        (
            "spec/protocol/acked_coded.tables",
            include_str!("../protocol/acked_coded.tables"),
        ),
        (
            "spec/protocol/baseline.wire",
            include_str!("../protocol/baseline.wire"),
        ),
        (
            "spec/protocol/datagram.wire",
            include_str!("../protocol/datagram.wire"),
        ),
        (
            "spec/protocol/delta.wire",
            include_str!("../protocol/delta.wire"),
        ),
    ]
    .into_iter()
    .map(|(name, text)| Source {
        name: name.to_string(),
        text: text.to_string(),
    })
    .collect()
}

/// The reference protocol, compiled.
pub fn reference_spec() -> Result<Spec, SpecError> {
    compile(&reference_sources())
}

/// Formats Rust source with `rustfmt` (from `$RUSTFMT`, or on the `PATH`), as prost-build does,
/// so that generated code reads like hand-written code; returns the code unchanged when no
/// rustfmt can be run.
pub fn format_rust(code: String) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let rustfmt = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let child = Command::new(rustfmt)
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return code;
    };
    let written = child
        .stdin
        .take()
        .is_some_and(|mut stdin| stdin.write_all(code.as_bytes()).is_ok());
    match child.wait_with_output() {
        Ok(out) if written && out.status.success() && !out.stdout.is_empty() => {
            String::from_utf8(out.stdout).unwrap_or(code)
        }
        _ => code,
    }
}
