//! The `ackwire` command-line tool: a thin layer over `ackwire-spec`, `ackwire-conformance` and
//! `ackwire-bench`. It parses its arguments (clap), shows progress (indicatif) and prints; the
//! work is the libraries'.
//!
//! Exit status: 0 when the command did what was asked, 1 when the input was found wrong (a
//! layout with errors, bytes that do not decode, a vector that does not verify), 2 for a
//! command line clap could not read. `ackwire breaking` exits 1 on a breaking change and 2 on
//! a version it cannot read or compile.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use ackwire_conformance::spec_arg::SpecArg;
use ackwire_conformance::{conform, diff, explain, frame_json, report, runner, streams};
use ackwire_conformance::{interp, testee_client, testee_server, vectors};
use ackwire_spec::lower::Lowering;
use ackwire_spec::SpecError;
use clap::{Parser, Subcommand};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `println!` that ends the program quietly when standard output is closed (`ackwire ... |
/// head`), instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            quit_on_closed_stdout(e);
        }
    }};
}

/// `print!` that ends the program quietly when standard output is closed.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout(), $($arg)*) {
            quit_on_closed_stdout(e);
        }
    }};
}

fn quit_on_closed_stdout(e: std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// ackwire: game-replication wire protocols, specified once and checked everywhere.
#[derive(Debug, Parser)]
#[command(name = "ackwire", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A target language of `ackwire gen`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Lang {
    /// Rust, calling the runtime crate `ackwire-rt` (what `Builder` writes from build.rs).
    Rust,
    /// TypeScript: one module, no dependencies.
    Ts,
    /// C++17: one header.
    Cpp,
    /// C# 7.2 (Unity, Godot, Mono): `Protocol.cs`, the acked binding of each declared state
    /// beside it (`Reference.cs` for `state Reference`), and its runtime in `Runtime/` unless
    /// `--runtime package`.
    Cs,
    /// A Wireshark dissector in Lua: `ackwire.lua`.
    Wireshark,
    /// A cargo-fuzz crate: a target per frame, seeded with the spec's derived vectors, with the
    /// files ClusterFuzzLite and OSS-Fuzz read (`.clusterfuzzlite/`).
    Fuzz,
}

/// Where a codec of `ackwire gen` finds its language's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Runtime {
    /// Write a copy of the runtime beside the codec: nothing to install.
    Copy,
    /// Write the codec alone, using the installed runtime package: `@ackwire/runtime` (npm),
    /// the CMake package `ackwire` (`<ackwire_runtime.hpp>`), the assembly `Ackwire.Runtime`.
    Package,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate layout files (default: spec/protocol); print every problem, rustc-style.
    Check {
        /// Layout files or folders of them.
        files: Vec<PathBuf>,
    },
    /// Print the parsed model of layout files as JSON, or the model's JSON Schema.
    Spec {
        /// Print the model (the default).
        #[arg(long, conflicts_with = "schema")]
        json: bool,
        /// Print the JSON Schema of the model instead.
        #[arg(long)]
        schema: bool,
        /// Layout files or folders of them (default: spec/protocol).
        files: Vec<PathBuf>,
    },
    /// Rewrite layout files in canonical form.
    Fmt {
        /// Change nothing; list the files that are not formatted and exit 1 if any.
        #[arg(long)]
        check: bool,
        /// Layout files or folders of them (default: spec/protocol).
        files: Vec<PathBuf>,
    },
    /// Decode a frame's bytes and print it as JSON.
    Decode {
        /// The frame's name in the spec (acked, ack, datagram, ...).
        frame: String,
        /// The bytes in hex; spaces are allowed (quote them).
        hex: Vec<String>,
        /// A layout file or folder of them (repeatable): decode a frame of that spec, read at
        /// run time (default: the reference protocol, through its compiled codec).
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
        /// The coded frame's basis (acked_coded), as JSON: `{"base": [{"eid", "state"}],
        /// "older": [...]}` (vectors/README.md); default: nothing held.
        #[arg(long = "basis", value_name = "JSON")]
        basis: Option<String>,
    },
    /// Encode a frame from its JSON form and print the bytes in hex.
    Encode {
        /// The frame's name in the spec.
        frame: String,
        /// The frame as JSON (or `-` to read it from standard input).
        json: String,
        /// A layout file or folder of them (repeatable): encode a frame of that spec, read at
        /// run time (default: the reference protocol, through its compiled codec).
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
        /// The coded frame's basis (acked_coded), as for `decode`.
        #[arg(long = "basis", value_name = "JSON")]
        basis: Option<String>,
    },
    /// Print one row per field of a frame's bytes: offset, bytes, field path, value.
    Explain {
        /// The frame's name in the spec.
        frame: String,
        /// The bytes in hex; spaces are allowed.
        hex: Vec<String>,
        /// A layout file or folder of them (repeatable; default: the reference protocol).
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
    },
    /// Run every vector against an implementation (default: the bundled Rust codec) through
    /// the testee protocol (conformance/PROTOCOL.md).
    Conform {
        /// The testee's command line, e.g. "node testee.js" (default: this tool's `testee`).
        #[arg(long)]
        testee: Option<String>,
        /// Run only the cases whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Known failures, one case name per line.
        #[arg(long)]
        failure_list: Option<PathBuf>,
        /// Write a JUnit XML report here.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Write a JSON summary here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// How long one reply may take, in milliseconds.
        #[arg(long, default_value_t = 5000)]
        timeout_ms: u64,
        /// The vectors folder: its `frames/`, `derived/` and `streams/` [default: `vectors`; with
        /// `--spec`, the spec's derived vectors, drawn as `ackwire vectors --spec` draws them].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// A layout file or folder of them (repeatable): the spec the testee implements, its
        /// decoded values judged by that spec read at run time (default: the reference
        /// protocol). A testee `ackwire gen --testee` wrote is run as `--testee DIR/testee`.
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
    },
    /// Speak the testee protocol on standard input and output with the bundled Rust codec.
    Testee {
        /// Misbehave on purpose, to test a runner: wrong-value, crash-on-hex=HEX,
        /// hang-on-hex=HEX, only-frames=A,B, wrong-hash-after=N, no-sessions.
        #[arg(long, hide = true)]
        fault: Option<testee_server::Fault>,
    },
    /// Generate a codec from layout files (default: the reference protocol).
    Gen {
        /// The target language.
        #[arg(long, value_enum)]
        lang: Lang,
        /// The folder to write into (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// Where the codec finds its runtime (ts, cpp and cs; a Rust codec always uses the
        /// crate `ackwire-rt`) [default: copy].
        #[arg(long, value_enum)]
        runtime: Option<Runtime>,
        /// Also write, beside the codec, a testee of the spec's frames (conformance/PROTOCOL.md)
        /// and `OUT/testee`, which builds it on its first run and then runs it (rust, ts, cpp,
        /// cs): `ackwire conform --spec FILES --testee OUT/testee`.
        #[arg(long)]
        testee: bool,
        /// With --lang rust --testee of a spec with a `state`: build the testee over the ackwire
        /// crates of this checkout (DIR/rt, DIR/codec, DIR/server, by a `[patch.crates-io]`)
        /// [default: the checkout this ackwire was built from, when it is still there; else the
        /// published crates of its version].
        #[arg(long, value_name = "DIR")]
        ackwire_crates: Option<PathBuf>,
        /// With --lang fuzz: the most heap bytes a decode may hold per byte of its input, the
        /// multiple the layout's codec promises [default: ackwire-codec's
        /// DECODE_ALLOC_PER_BYTE, the reference protocol's]. A layout whose decoded values are
        /// larger for their bits than the reference's states its own.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        alloc_per_byte: Option<u64>,
        /// Layout files or folders of them.
        files: Vec<PathBuf>,
    },
    /// Document layout files (default: the reference protocol) as a static site: one page per
    /// file and an index, every frame, record, bit set and union with its doc comments and an
    /// SVG diagram of its bytes and bits, and the protocol constants.
    Doc {
        /// The folder to write into (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// Layout files or folders of them.
        files: Vec<PathBuf>,
    },
    /// Differential fuzzing: the same inputs through the Rust decoder and other testees, then
    /// seeded lossy streams recorded with the Rust session halves and replayed through theirs;
    /// a frame disagreement is printed as a vector ready to add, a stream disagreement shrunk
    /// and written as a stream vector under --out. Exit 1 on any disagreement, and at once,
    /// with one line, on a testee that does not answer hello (first started, or twice in a row
    /// after restarts).
    FuzzDiff {
        /// Seeded random and mutated inputs, beyond the corpus and the vectors.
        #[arg(long, default_value_t = 50_000)]
        count: usize,
        /// The seed of those inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A testee as LABEL=COMMAND, repeatable (default: the bundled TypeScript and C++
        /// testees, which must have been built).
        #[arg(long = "testee")]
        testees: Vec<String>,
        /// The fuzz corpus folder.
        #[arg(long, default_value = "fuzz/corpus")]
        corpus: PathBuf,
        /// The vectors folder.
        #[arg(long, default_value = "vectors")]
        dir: PathBuf,
        /// How long one reply may take, in milliseconds.
        #[arg(long, default_value_t = 5000)]
        timeout_ms: u64,
        /// Seeded lossy streams (the session pairs in turn), each half replayed through every
        /// testee that lists it; 0 runs none.
        #[arg(long, default_value_t = 40)]
        streams: usize,
        /// Where shrunk stream disagreements are written (`streams/<session>/<name>.json`
        /// beside an empty `frames/`: run them with `ackwire conform --dir OUT`); with `--spec`
        /// and no `--testee`, where the spec's generated testees are built (`OUT/testees/`).
        #[arg(long, default_value = "target/fuzz-diff")]
        out: PathBuf,
        /// A layout file or folder of them (repeatable): fuzz the implementations of that spec
        /// (the testees given, or its testees in Rust, TypeScript, C++ and C#, generated and
        /// built under `--out`), held to the spec read at run time, on its derived vectors and
        /// mutations of them; no stream is run (default: the reference protocol).
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
    },
    /// Run the reference scenes through every protocol and the full-snapshot peers: bits,
    /// render error and CPU time, as a table, a JSON file, an SVG chart and a report page.
    /// Build with `--release`: a debug build's CPU times say little.
    Bench {
        /// Five seconds of each scene instead of a minute (what CI runs).
        #[arg(long)]
        quick: bool,
        /// Only this scene (cube, arena, floats); repeatable.
        #[arg(long = "scene")]
        scenes: Vec<String>,
        /// Only this loss, per cent; repeatable (default 0, 2, 5, 10, 25).
        #[arg(long = "loss")]
        losses: Vec<f64>,
        /// The seed of the scenes and the network.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where bench.json, bench.svg and the report page (README.md: the method, the
        /// scenes, every table, the chart, the targets' verdicts) are written.
        #[arg(long, default_value = "target/ackwire-bench")]
        out: PathBuf,
        /// Rewrite the block between the bench markers of this markdown file (the project's
        /// README) with this run's headline figures and a link to the report page.
        #[arg(long)]
        readme: Option<PathBuf>,
    },
    /// Check the golden vectors against the Rust codec, or write them anew; with `--spec`,
    /// derive the frame vectors of any spec (`--out`) or check a committed set (`--dir`).
    ///
    /// Derived vectors go to `DIR/derived/<frame>.json`, beside the hand-kept `frames/` and
    /// `streams/` of a vectors folder, and `ackwire conform --dir DIR` runs them all.
    Vectors {
        /// Regenerate the vector files from the cases kept in the code, and the reference
        /// protocol's derived vectors (a wire change: say so in the commit message).
        #[arg(long, conflicts_with_all = ["out", "spec"])]
        write: bool,
        /// Print the JSON Schema of the stream vector format instead.
        #[arg(long, conflicts_with_all = ["write", "out", "spec"])]
        stream_schema: bool,
        /// The vectors folder (default `vectors`); with `--spec`, the one whose `derived/` to
        /// check.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// A layout file or folder of them (repeatable): derive the vectors of that spec
        /// instead of the reference protocol's.
        #[arg(long = "spec", value_name = "FILE")]
        spec: Vec<PathBuf>,
        /// Write the derived vectors of the spec into `OUT/derived/`, one file per frame.
        #[arg(long, conflicts_with = "dir")]
        out: Option<PathBuf>,
        /// The seed of the derived vectors' drawn values.
        #[arg(long, default_value_t = vectors::derive::DEFAULT_SEED)]
        seed: u64,
    },
    // ---- ackwire breaking (issue 20) ----
    /// Name every change from OLD to NEW that breaks a peer built from OLD, on the bits.
    ///
    /// Compared on what each version puts on the wire: kinds, widths, order, byte order,
    /// quantization, bits, union tags, counts, protocol constants. Each is shown at
    /// file:line:col in both versions; renames and doc comments are listed as notes (a
    /// warning where the JSON form changes).
    ///
    /// Exit status: 0 when nothing breaks, 1 when something does, 2 when a version cannot be
    /// read or has errors (shown as `ackwire check` shows them).
    Breaking {
        /// The old version: a layout file or a folder of them.
        old: PathBuf,
        /// The new version: a layout file or a folder of them.
        new: PathBuf,
    },
    /// Report which rules of the specification (docs/spec) are enforced and tested where, in
    /// every language: a table of every rule with its sites and tests per language, the
    /// informative rules apart. Exit 1 when a normative rule is cited nowhere, when a file cites
    /// an identifier no page defines, or when a page defines one twice.
    SpecCoverage {
        /// The repository's root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Print every citation of this rule (its identifier, a page prefix and a number) instead of the table.
        #[arg(long)]
        rule: Option<String>,
        /// Print the whole report as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}

/// Exit 0 when `ok`, 1 when not.
fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A library's error as the tool prints it.
fn error(e: impl std::fmt::Display) -> String {
    format!("error: {e}")
}

/// Pretty JSON, printed.
fn print_json(value: &impl serde::Serialize) -> Result<ExitCode, String> {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).map_err(|e| e.to_string())?
    );
    Ok(ExitCode::SUCCESS)
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Check { files } => check(&layout_paths(files)),
        Command::Spec { schema: true, .. } => {
            print_json(&schemars::schema_for!(ackwire_spec::model::Spec))
        }
        Command::Spec { files, .. } => print_json(
            &ackwire_spec::load(&layout_paths(files))
                .map_err(spec_error)?
                .0,
        ),
        Command::Fmt { check, files } => fmt(check, &layout_paths(files)),
        Command::Decode {
            frame,
            hex,
            spec,
            basis,
        } => {
            let bytes = hex_arg(&hex)?;
            let basis = basis_arg(basis.as_deref(), &spec)?;
            if spec.is_empty() {
                let value = frame_json::decode_json_on(&frame, &bytes, basis.as_ref())
                    .map_err(|e| error(e.describe()))?;
                return print_json(&value);
            }
            let arg = SpecArg::load(&spec).map_err(spec_error)?;
            let low = Lowering::new(&arg.spec);
            let value = interp::decode(&low, &frame, &bytes).map_err(|e| error(e.describe()))?;
            print_json(&value)
        }
        Command::Encode {
            frame,
            json,
            spec,
            basis,
        } => {
            let basis = basis_arg(basis.as_deref(), &spec)?;
            let text = match json.as_str() {
                "-" => std::io::read_to_string(std::io::stdin())
                    .map_err(|e| error(format!("reading standard input: {e}")))?,
                _ => json,
            };
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| error(format!("the JSON is not valid: {e}")))?;
            let bytes = if spec.is_empty() {
                frame_json::encode_json_on(&frame, &value, basis.as_ref()).map_err(error)?
            } else {
                let arg = SpecArg::load(&spec).map_err(spec_error)?;
                let low = Lowering::new(&arg.spec);
                interp::encode(&low, &frame, &value).map_err(error)?
            };
            outln!("{}", frame_json::hex_spaced(&bytes));
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { frame, hex, spec } => explain_frame(&spec, &frame, &hex_arg(&hex)?),
        Command::Gen {
            lang,
            out,
            runtime,
            testee,
            ackwire_crates,
            alloc_per_byte,
            files,
        } => gen(
            lang,
            runtime,
            (testee, ackwire_crates),
            alloc_per_byte,
            &out,
            &layout_paths(files),
        ),
        Command::Doc { out, files } => doc(&out, &layout_paths(files)),
        Command::FuzzDiff {
            count,
            seed,
            testees,
            corpus,
            dir,
            timeout_ms,
            streams,
            out,
            spec,
        } => fuzz_diff(&diff::Options {
            count,
            seed,
            testees,
            corpus,
            dir,
            timeout: Duration::from_millis(timeout_ms),
            streams,
            out: Some(out),
            spec,
        }),
        Command::Testee { fault } => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            let code = testee_server::serve(stdin, stdout, fault.as_ref());
            Ok(ExitCode::from(code as u8))
        }
        Command::Conform {
            testee,
            filter,
            failure_list,
            junit,
            json,
            timeout_ms,
            dir,
            spec,
        } => {
            let testee = match testee {
                Some(cmd) => testee_client::split_command(&cmd).map_err(error)?,
                None if spec.is_empty() => this_testee()?,
                None => {
                    return Err(error(
                        "--spec needs --testee: the bundled testee implements the reference \
                         protocol (ackwire gen --testee writes one for a spec)",
                    ))
                }
            };
            run_conform(&conform::Options {
                testee,
                filter,
                failure_list,
                junit,
                json,
                timeout: Duration::from_millis(timeout_ms),
                dir,
                spec,
            })
        }
        Command::Bench {
            quick,
            scenes,
            losses,
            seed,
            out,
            readme,
        } => run_bench(ackwire_bench::command::Args {
            quick,
            scenes,
            losses,
            seed,
            out,
            readme,
        }),
        Command::Vectors {
            stream_schema: true,
            ..
        } => print_json(&streams::schema()),
        Command::Vectors {
            out: Some(out),
            spec,
            seed,
            ..
        } => derive_vectors(&spec, &out, seed),
        Command::Vectors {
            dir, spec, seed, ..
        } if !spec.is_empty() => {
            let Some(dir) = dir else {
                return Err(error(
                    "with --spec, give --out DIR to write derived vectors or --dir DIR to check them",
                ));
            };
            let arg = SpecArg::load(&spec).map_err(spec_error)?;
            let low = Lowering::new(&arg.spec);
            let mut verification =
                vectors::derive::verify_derived(&low, &dir.join("derived"), seed).map_err(error)?;
            // The acked streams of the spec's states, recorded again from their seeds.
            let streams = ackwire_conformance::sessions::state::verify_streams(
                &arg.spec,
                &dir.join("streams"),
            )
            .map_err(error)?;
            verification.total += streams.total;
            verification.failures.extend(streams.failures);
            report_verification(&verification)
        }
        Command::Vectors {
            write: true, dir, ..
        } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("vectors"));
            let written = vectors::write_dir(&dir).map_err(error)?;
            outln!(
                "wrote {} vector files to {}",
                written.frame_files,
                written.frames_dir.display()
            );
            outln!(
                "wrote {} stream vector files to {}",
                written.stream_files,
                written.streams_dir.display()
            );
            outln!(
                "wrote {} derived vector files to {}",
                written.derived_files,
                written.derived_dir.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Breaking { old, new } => breaking(&old, &new),
        Command::SpecCoverage { root, rule, json } => spec_coverage(&root, rule.as_deref(), json),
        Command::Vectors { dir, .. } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("vectors"));
            let verification = vectors::verify_dir(&dir).map_err(error)?;
            report_verification(&verification)
        }
    }
}

/// `ackwire spec-coverage`.
fn spec_coverage(root: &Path, rule: Option<&str>, json: bool) -> Result<ExitCode, String> {
    let report = ackwire_conformance::coverage::scan(root).map_err(error)?;
    if json {
        print_json(&report)?;
    } else if let Some(id) = rule {
        let text = report
            .rule(id)
            .ok_or_else(|| error(format!("no page of docs/spec defines {id}")))?;
        out!("{text}");
        return Ok(ExitCode::SUCCESS);
    } else {
        out!("{}", report.table());
    }
    Ok(exit(report.is_ok()))
}

/// The failures one a line on standard error, the summary on standard output.
fn report_verification(verification: &vectors::Verification) -> Result<ExitCode, String> {
    for f in &verification.failures {
        eprintln!("FAIL {f}");
    }
    outln!("{}", verification.summary());
    Ok(exit(verification.failures.is_empty()))
}

/// `ackwire vectors --out DIR [--spec FILE] [--seed N]`.
fn derive_vectors(spec: &[PathBuf], out: &Path, seed: u64) -> Result<ExitCode, String> {
    // The golden set keeps its stream vectors as the reference's own halves recorded them; the
    // run-time binding's recordings of the same layout would replace them with other streams.
    if out.join("frames").is_dir() {
        return Err(error(format!(
            "{} holds golden frame vectors (frames/): write that folder with `ackwire vectors --write`, or give --out another folder",
            out.display()
        )));
    }
    let arg = SpecArg::load(spec).map_err(spec_error)?;
    let low = Lowering::new(&arg.spec);
    let derived = vectors::derive::derive(&low, seed);
    let dir = out.join("derived");
    let written = vectors::derive::write_derived(&dir, &derived).map_err(error)?;
    let cases: usize = derived.files.iter().map(|f| f.cases.len()).sum();
    for d in &derived.dropped {
        eprintln!("note: no case {}: {}", d.name, d.why);
    }
    outln!(
        "wrote {} derived vector files ({cases} cases) to {}",
        written.len(),
        dir.display()
    );
    let streams = out.join("streams");
    let (n, skipped) = ackwire_conformance::sessions::state::write_streams(&arg.spec, &streams)
        .map_err(|e| error(format!("recording a stream vector: {e}")))?;
    for why in &skipped {
        eprintln!("note: no stream vectors: {why}");
    }
    if n > 0 {
        outln!("wrote {n} stream vector files to {}", streams.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The layout files to work on: those given, or the reference protocol.
fn layout_paths(files: Vec<PathBuf>) -> Vec<PathBuf> {
    if !files.is_empty() {
        return files;
    }
    let local = PathBuf::from("spec/protocol");
    if local.is_dir() {
        vec![local]
    } else {
        vec![ackwire_spec::reference_protocol_dir().to_path_buf()]
    }
}

fn spec_error(e: SpecError) -> String {
    e.to_string()
}

/// `--basis`: a coded frame's basis as JSON (the reference protocol's coded frame only: the
/// run-time codec of another spec reads no coded frame).
fn basis_arg(basis: Option<&str>, spec: &[PathBuf]) -> Result<Option<serde_json::Value>, String> {
    let Some(text) = basis else {
        return Ok(None);
    };
    if !spec.is_empty() {
        return Err(error(
            "--basis is for the reference protocol's coded frame (acked_coded), not with --spec",
        ));
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| error(format!("--basis is not valid JSON: {e}")))
}

fn hex_arg(parts: &[String]) -> Result<Vec<u8>, String> {
    frame_json::parse_hex(&parts.join(" ")).map_err(|e| error(format!("bad hex: {e}")))
}

/// The bundled Rust testee: this program's `testee`.
fn this_testee() -> Result<Vec<String>, String> {
    let exe =
        std::env::current_exe().map_err(|e| error(format!("cannot find this program: {e}")))?;
    Ok(vec![exe.display().to_string(), "testee".to_string()])
}

/// `ackwire check`.
fn check(paths: &[PathBuf]) -> Result<ExitCode, String> {
    let sources = ackwire_spec::read_sources(paths).map_err(spec_error)?;
    ackwire_spec::compile(&sources).map_err(spec_error)?;
    let items: usize = sources.len();
    outln!(
        "ok: {items} layout file{} valid",
        if items == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

/// `ackwire explain`: the rows, and on bytes that do not decode the rows up to the error.
fn explain_frame(spec: &[PathBuf], frame: &str, bytes: &[u8]) -> Result<ExitCode, String> {
    let arg = SpecArg::load(spec).map_err(spec_error)?;
    match explain::explain(&arg.spec, frame, bytes) {
        Ok(rows) => {
            out!("{}", explain::render(&rows));
            Ok(ExitCode::SUCCESS)
        }
        Err(explain::ExplainError::Decode { rows, error: e }) => {
            out!("{}", explain::render(&rows));
            Err(error(e))
        }
        Err(e) => Err(error(e)),
    }
}

/// `ackwire gen`.
fn gen(
    lang: Lang,
    runtime: Option<Runtime>,
    (testee, crates): (bool, Option<PathBuf>),
    alloc_per_byte: Option<u64>,
    out: &Path,
    paths: &[PathBuf],
) -> Result<ExitCode, String> {
    use ackwire_spec::gen::testee::{self, Lang as TesteeLang};
    use ackwire_spec::gen::RuntimeSource;
    let crates = match (crates, testee, lang) {
        (None, ..) => testee::checkout(),
        (Some(dir), true, Lang::Rust) => {
            if let Some((_, missing)) = testee::RUST_CRATES
                .iter()
                .find(|(_, d)| !dir.join(d).join("Cargo.toml").is_file())
            {
                return Err(error(format!(
                    "--ackwire-crates {}: no crate at {}",
                    dir.display(),
                    dir.join(missing).join("Cargo.toml").display()
                )));
            }
            Some(std::path::absolute(&dir).map_err(error)?)
        }
        (Some(_), ..) => {
            return Err(error(
                "--ackwire-crates names what a Rust testee builds over: it goes with --lang rust --testee",
            ))
        }
    };
    if let Lang::Fuzz = lang {
        if runtime.is_some() || testee {
            return Err(error(
                "--lang fuzz writes a crate of its own: it takes neither --runtime nor --testee",
            ));
        }
        return gen_fuzz(out, paths, alloc_per_byte);
    }
    if alloc_per_byte.is_some() {
        return Err(error(
            "--alloc-per-byte is a promise of a fuzz crate: it goes with --lang fuzz",
        ));
    }
    let source = match (lang, runtime) {
        (Lang::Rust | Lang::Wireshark, Some(_)) => {
            return Err(error(
                "--runtime applies to --lang ts, cpp and cs: a Rust codec always uses the crate \
                 ackwire-rt, a Wireshark dissector has no runtime",
            ))
        }
        (_, Some(Runtime::Package)) if testee => return Err(error(
            "--testee writes the runtime beside the codec, so that the testee builds on its own: \
                 leave out --runtime package",
        )),
        (_, None | Some(Runtime::Copy)) => RuntimeSource::Copy,
        (_, Some(Runtime::Package)) => RuntimeSource::Package,
    };
    let testee_lang = match (testee, lang) {
        (false, _) => None,
        (true, Lang::Rust) => Some(TesteeLang::Rust),
        (true, Lang::Ts) => Some(TesteeLang::Ts),
        (true, Lang::Cpp) => Some(TesteeLang::Cpp),
        (true, Lang::Cs) => Some(TesteeLang::Cs),
        (true, Lang::Wireshark | Lang::Fuzz) => {
            return Err(error("--testee is for --lang rust, ts, cpp and cs"))
        }
    };
    let generated: Vec<(String, String)> = match (testee_lang, lang) {
        (Some(t), _) => testee::generate_with(
            &ackwire_spec::load(paths).map_err(spec_error)?.0,
            t,
            crates.as_deref(),
        ),
        (None, Lang::Rust) => {
            let mut builder = ackwire_spec::Builder::new();
            for p in paths {
                builder = builder.path(p);
            }
            vec![(
                "protocol.rs".to_string(),
                builder.generate().map_err(spec_error)?,
            )]
        }
        (None, Lang::Ts) => ackwire_spec::gen::ts::generate_with(
            &ackwire_spec::load(paths).map_err(spec_error)?.0,
            source,
        ),
        (None, Lang::Cpp) => ackwire_spec::gen::cpp::generate_with(
            &ackwire_spec::load(paths).map_err(spec_error)?.0,
            source,
        ),
        (None, Lang::Cs) => ackwire_spec::gen::cs::generate_with(
            &ackwire_spec::load(paths).map_err(spec_error)?.0,
            source,
        ),
        (None, Lang::Wireshark) => ackwire_spec::gen::wireshark::generate(
            &ackwire_spec::load(paths).map_err(spec_error)?.0,
        ),
        (None, Lang::Fuzz) => Vec::new(),
    };
    std::fs::create_dir_all(out)
        .map_err(|e| error(format!("cannot create {}: {e}", out.display())))?;
    for (name, text) in &generated {
        let executable = testee_lang.is_some() && name == testee::SCRIPT;
        let path = write_generated(out, name, text.as_bytes(), executable)?;
        outln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes a generated file `name` (a path under `out`), its folders first, unless it already
/// holds `bytes`; executable when asked. Returns its path.
fn write_generated(
    out: &Path,
    name: &str,
    bytes: &[u8],
    executable: bool,
) -> Result<PathBuf, String> {
    let path = out.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| error(format!("cannot create {}: {e}", parent.display())))?;
    }
    // An unchanged file keeps its time, so a testee or a build that depends on it does not
    // build again after every `gen`.
    if std::fs::read(&path).map_or(true, |old| old != bytes) {
        std::fs::write(&path, bytes)
            .map_err(|e| error(format!("cannot write {}: {e}", path.display())))?;
    }
    if executable {
        make_executable(&path)?;
    }
    Ok(path)
}

/// `ackwire gen --lang fuzz`: the crate, its corpus seeded with the spec's derived vectors, and
/// `.clusterfuzzlite/` for the repository `out` is in.
fn gen_fuzz(
    out: &Path,
    paths: &[PathBuf],
    alloc_per_byte: Option<u64>,
) -> Result<ExitCode, String> {
    use ackwire_spec::gen::fuzz;
    let spec = ackwire_spec::load(paths).map_err(spec_error)?.0;
    let derived = vectors::derive::derive(&Lowering::new(&spec), vectors::derive::DEFAULT_SEED);
    let mut seeds = Vec::new();
    for file in &derived.files {
        for case in &file.cases {
            seeds.push(fuzz::Seed {
                frame: file.frame.clone(),
                name: case
                    .name
                    .strip_prefix(&format!("{}/", file.frame))
                    .unwrap_or(&case.name)
                    .to_string(),
                bytes: case.bytes().map_err(error)?,
            });
        }
    }
    let options = fuzz::Options {
        repository: repository_name(out),
        seeds,
        alloc_per_byte: alloc_per_byte.unwrap_or(ackwire_codec::DECODE_ALLOC_PER_BYTE as u64),
        alloc_slack: ackwire_codec::DECODE_ALLOC_SLACK as u64,
    };
    let files = fuzz::generate(&spec, &options);
    for (name, bytes) in &files {
        write_generated(out, name, bytes, name.ends_with(".sh"))?;
    }
    outln!(
        "wrote {} files to {} (the crate {}, {} seeds); ClusterFuzzLite reads .clusterfuzzlite/ at the repository's root",
        files.len(),
        out.display(),
        fuzz::crate_name(&spec),
        options.seeds.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The name of the repository `dir` is in: the folder holding `.git`, above it or itself, or
/// `dir`'s own name when none does.
fn repository_name(dir: &Path) -> String {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let root = absolute
        .ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(&absolute);
    root.file_name()
        .map_or("project".to_string(), |n| n.to_string_lossy().into_owned())
}

/// Lets everyone run `path`, as `chmod +x` does.
fn make_executable(path: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mut permissions = std::fs::metadata(path)
            .map_err(|e| error(format!("cannot read {}: {e}", path.display())))?
            .permissions();
        permissions.set_mode(permissions.mode() | 0o111);
        std::fs::set_permissions(path, permissions)
            .map_err(|e| error(format!("cannot make {} executable: {e}", path.display())))?;
    }
    Ok(())
}

/// `ackwire doc`.
fn doc(out: &Path, paths: &[PathBuf]) -> Result<ExitCode, String> {
    let spec = ackwire_spec::load(paths).map_err(spec_error)?.0;
    let written = ackwire_spec::gen::doc::write_site(&spec, out)
        .map_err(|e| error(format!("cannot write the site into {}: {e}", out.display())))?;
    outln!(
        "wrote {} files to {} (open {})",
        written.len(),
        out.display(),
        out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

fn fmt(check: bool, paths: &[PathBuf]) -> Result<ExitCode, String> {
    let sources = ackwire_spec::read_sources(paths).map_err(spec_error)?;
    let mut unformatted = Vec::new();
    let mut errors = Vec::new();
    for source in &sources {
        match ackwire_spec::parse::parse_file(&source.name, &source.text) {
            Ok(file) => {
                let formatted = ackwire_spec::fmt::format_file(&file);
                if formatted != source.text {
                    unformatted.push((source.name.clone(), formatted));
                }
            }
            Err(mut diags) => errors.append(&mut diags),
        }
    }
    if !errors.is_empty() {
        return Err(ackwire_spec::render(&errors, &sources));
    }
    if check {
        for (name, _) in &unformatted {
            outln!("would reformat {name}");
        }
        return Ok(exit(unformatted.is_empty()));
    }
    for (name, text) in &unformatted {
        write_atomically(Path::new(name), text)?;
        outln!("formatted {name}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes through a temporary file and a rename, so that an interrupted run never leaves a
/// half-written layout file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("wire.tmp");
    std::fs::write(&tmp, text)
        .map_err(|e| format!("error: cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .map_err(|e| format!("error: cannot replace {}: {e}", path.display()))
}

/// `ackwire conform`'s progress on a terminal: a bar, with the unexpected results above it.
struct Bar(Option<indicatif::ProgressBar>);

impl conform::Progress for Bar {
    fn start(&mut self, cases: usize) {
        let bar = indicatif::ProgressBar::new(cases as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        self.0 = Some(bar);
    }

    fn outcome(&mut self, o: &runner::Outcome) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
            if o.is_unexpected() {
                bar.println(format!("{} {}", o.verdict.as_str(), o.name));
            }
        }
    }

    fn finish(&mut self, _completed: bool) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
        }
    }
}

/// `ackwire conform`'s progress elsewhere (a CI log, where indicatif hides its bar and the run
/// would otherwise be silent): plain lines on standard error.
struct Lines(Option<report::ProgressLines>);

impl conform::Progress for Lines {
    fn start(&mut self, cases: usize) {
        self.0 = Some(report::ProgressLines::new(cases));
    }

    fn outcome(&mut self, o: &runner::Outcome) {
        for line in self.0.iter_mut().flat_map(|p| p.push(o)) {
            eprintln!("{line}");
        }
    }

    fn finish(&mut self, completed: bool) {
        if let Some(line) = self
            .0
            .as_mut()
            .filter(|_| completed)
            .and_then(|p| p.finish())
        {
            eprintln!("{line}");
        }
    }
}

/// `ackwire conform`.
fn run_conform(options: &conform::Options) -> Result<ExitCode, String> {
    let run = if std::io::stderr().is_terminal() {
        conform::conform(options, &mut Bar(None))
    } else {
        conform::conform(options, &mut Lines(None))
    }
    .map_err(error)?;
    out!("{}", report::table(&run));
    let passed = run.unexpected().next().is_none();
    Ok(exit(passed))
}

/// `ackwire fuzz-diff`.
fn fuzz_diff(options: &diff::Options) -> Result<ExitCode, String> {
    let bar = indicatif::ProgressBar::new(0);
    let run = diff::fuzz(options, |n, total| {
        bar.set_length(total as u64);
        bar.set_position(n as u64)
    })
    .map_err(error)?;
    bar.finish_and_clear();
    for vector in &run.vectors {
        outln!(
            "{}",
            serde_json::to_string_pretty(vector).map_err(|e| e.to_string())?
        );
    }
    for d in &run.streams.disagreements {
        let side = match d.side {
            streams::Side::Server => "server",
            streams::Side::Client => "client",
        };
        outln!(
            "stream {} ({} steps): the {} {side} half disagrees with Rust's: {}",
            d.original.name,
            d.original_steps,
            d.label,
            d.why
        );
        match (&d.shrunk, &d.written) {
            (Some(s), Some(path)) => outln!(
                "  shrunk in {} replays to {} ticks and {} steps, written to {} (run it: ackwire conform --dir {} --testee ...)",
                s.replays,
                s.recording.script.len(),
                s.vector.steps.len(),
                path.display(),
                options.out.as_deref().unwrap_or(Path::new(".")).display()
            ),
            (Some(s), None) => outln!(
                "  shrunk in {} replays to {} ticks and {} steps (not written)",
                s.replays,
                s.recording.script.len(),
                s.vector.steps.len()
            ),
            (None, _) => outln!("  not shrunk: the same half disagreed on an earlier stream"),
        }
    }
    let labels: Vec<&str> = run.labels.iter().map(String::as_str).collect();
    outln!("{}", run.frames.summary(&labels));
    if options.spec.is_empty() {
        outln!("{}", run.streams.summary());
    }
    let failed = !run.frames.disagreements.is_empty()
        || !run.streams.disagreements.is_empty()
        || !run.streams.unrecorded.is_empty();
    Ok(exit(!failed))
}

/// `ackwire bench`.
fn run_bench(args: ackwire_bench::command::Args) -> Result<ExitCode, String> {
    let bench = ackwire_bench::command::Command::prepare(args).map_err(error)?;
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; CPU times say little (cargo run --release ...)");
    }
    let plan = bench.plan();
    let bar = indicatif::ProgressBar::new(plan.runs() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs (scenes and losses, then many clients)",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let report = bench.run(|done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    let report = report.map_err(error)?;
    out!("{}", ackwire_bench::render::table(&report));
    // The command as it was given, so the README names exactly what produced it.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = format!("cargo run --release -p ackwire -- {}", args.join(" "));
    bench
        .write(&report, &command, |line| outln!("{line}"))
        .map_err(error)?;
    Ok(ExitCode::SUCCESS)
}

// ---- ackwire breaking (issue 20) ----

/// `ackwire breaking`: the report on standard output; exit 1 when a change breaks, and 2 when
/// a version does not compile, since 1 means a breaking change here (as `diff` uses 2).
fn breaking(old: &Path, new: &Path) -> Result<ExitCode, String> {
    let load = |p: &Path| {
        ackwire_spec::read_sources(&[p.to_path_buf()])
            .and_then(|sources| ackwire_spec::compile(&sources).map(|spec| (spec, sources)))
    };
    match (load(old), load(new)) {
        (Ok((o, os)), Ok((n, ns))) => {
            let report = ackwire_spec::breaking::compare(&o, &n);
            out!("{}", report.render(&os, &ns));
            Ok(exit(!report.is_breaking()))
        }
        (o, n) => {
            for e in [o.err(), n.err()].into_iter().flatten() {
                eprintln!("{}", spec_error(e).trim_end());
            }
            Ok(ExitCode::from(2))
        }
    }
}
