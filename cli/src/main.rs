//! The `ackwire` command-line tool: a thin layer over the spec, codec and conformance crates.
//!
//! Exit status: 0 when the command did what was asked, 1 when the input was found wrong (a
//! layout with errors, bytes that do not decode, a vector that does not verify), 2 for a
//! command line clap could not read.

#![forbid(unsafe_code)]

use ackwire_bench as bench;
use ackwire_conformance::{
    diff, explain, frame_json, report, runner, streams, testee_client, testee_server, vectors,
};
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
    },
    /// Encode a frame from its JSON form and print the bytes in hex.
    Encode {
        /// The frame's name in the spec.
        frame: String,
        /// The frame as JSON (or `-` to read it from standard input).
        json: String,
    },
    /// Print one row per field of a frame's bytes: offset, bytes, field path, value.
    Explain {
        /// The frame's name in the spec.
        frame: String,
        /// The bytes in hex; spaces are allowed.
        hex: Vec<String>,
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
        /// The vectors folder.
        #[arg(long, default_value = "vectors")]
        dir: PathBuf,
    },
    /// Speak the testee protocol on standard input and output with the bundled Rust codec.
    Testee {
        /// Misbehave on purpose, to test a runner: wrong-value, crash-on-hex=HEX,
        /// hang-on-hex=HEX, only-frames=A,B.
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
        /// Layout files or folders of them.
        files: Vec<PathBuf>,
    },
    /// Differential fuzzing: the same inputs through the Rust decoder and other testees; any
    /// disagreement is printed as a vector ready to add. Exit 1 on any disagreement.
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
    },
    /// Run the reference scenes through every protocol and the full-snapshot peers: bits,
    /// render error and CPU time, as a table, a JSON file and an SVG chart. Build with
    /// `--release`: a debug build's CPU times say little.
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
        /// Where bench.json and bench.svg are written.
        #[arg(long, default_value = "target/ackwire-bench")]
        out: PathBuf,
        /// Rewrite the block between the bench markers of this markdown file (the README)
        /// with the tables of this run.
        #[arg(long)]
        readme: Option<PathBuf>,
    },
    /// Check the golden vectors against the Rust codec, or write them anew.
    Vectors {
        /// Regenerate the vector files from the cases kept in the code (a wire change: say so
        /// in the commit message).
        #[arg(long)]
        write: bool,
        /// Print the JSON Schema of the stream vector format instead.
        #[arg(long, conflicts_with = "write")]
        stream_schema: bool,
        /// The vectors folder.
        #[arg(long, default_value = "vectors")]
        dir: PathBuf,
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

fn hex_arg(parts: &[String]) -> Result<Vec<u8>, String> {
    frame_json::parse_hex(&parts.join(" ")).map_err(|e| format!("error: bad hex: {e}"))
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Check { files } => {
            let paths = layout_paths(files);
            let sources = ackwire_spec::read_sources(&paths).map_err(spec_error)?;
            ackwire_spec::compile(&sources).map_err(spec_error)?;
            let items: usize = sources.len();
            outln!(
                "ok: {items} layout file{} valid",
                if items == 1 { "" } else { "s" }
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Spec {
            json: _,
            schema,
            files,
        } => {
            if schema {
                let schema = schemars::schema_for!(ackwire_spec::model::Spec);
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?
                );
                return Ok(ExitCode::SUCCESS);
            }
            let (spec, _) = ackwire_spec::load(&layout_paths(files)).map_err(spec_error)?;
            outln!(
                "{}",
                serde_json::to_string_pretty(&spec).map_err(|e| e.to_string())?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Fmt { check, files } => fmt(check, &layout_paths(files)),
        Command::Decode { frame, hex } => {
            let bytes = hex_arg(&hex)?;
            match frame_json::decode_json(&frame, &bytes) {
                Ok(value) => {
                    outln!(
                        "{}",
                        serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(frame_json::FrameError::Decode(e)) => Err(format!(
                    "error: {kind} at byte {offset}{bit}, field {path}",
                    kind = e.kind,
                    offset = e.offset,
                    bit = e.bit.map(|b| format!(" (bit {b})")).unwrap_or_default(),
                    path = if e.path_string().is_empty() {
                        "(frame)".to_string()
                    } else {
                        e.path_string()
                    },
                )),
                Err(e) => Err(format!("error: {e}")),
            }
        }
        Command::Encode { frame, json } => {
            let text = if json == "-" {
                std::io::read_to_string(std::io::stdin())
                    .map_err(|e| format!("error: reading standard input: {e}"))?
            } else {
                json
            };
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| format!("error: the JSON is not valid: {e}"))?;
            let bytes =
                frame_json::encode_json(&frame, &value).map_err(|e| format!("error: {e}"))?;
            outln!("{}", frame_json::hex_spaced(&bytes));
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { frame, hex } => {
            let bytes = hex_arg(&hex)?;
            let spec = ackwire_spec::reference_spec().map_err(spec_error)?;
            match explain::explain(&spec, &frame, &bytes) {
                Ok(rows) => {
                    out!("{}", explain::render(&rows));
                    Ok(ExitCode::SUCCESS)
                }
                Err(explain::ExplainError::Decode { rows, error }) => {
                    out!("{}", explain::render(&rows));
                    Err(format!("error: {error}"))
                }
                Err(e) => Err(format!("error: {e}")),
            }
        }
        Command::Gen { lang, out, files } => {
            let paths = layout_paths(files);
            let generated: Vec<(String, String)> = match lang {
                Lang::Rust => {
                    let mut builder = ackwire_spec::Builder::new();
                    for p in &paths {
                        builder = builder.path(p);
                    }
                    vec![(
                        "protocol.rs".to_string(),
                        builder.generate().map_err(spec_error)?,
                    )]
                }
                Lang::Ts => ackwire_spec::gen::ts::generate(
                    &ackwire_spec::load(&paths).map_err(spec_error)?.0,
                ),
                Lang::Cpp => ackwire_spec::gen::cpp::generate(
                    &ackwire_spec::load(&paths).map_err(spec_error)?.0,
                ),
            };
            std::fs::create_dir_all(&out)
                .map_err(|e| format!("error: cannot create {}: {e}", out.display()))?;
            for (name, text) in &generated {
                let path = out.join(name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("error: cannot create {}: {e}", parent.display()))?;
                }
                std::fs::write(&path, text)
                    .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
                outln!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::FuzzDiff {
            count,
            seed,
            testees,
            corpus,
            dir,
            timeout_ms,
        } => fuzz_diff(
            count,
            seed,
            testees,
            &corpus,
            &dir,
            Duration::from_millis(timeout_ms),
        ),
        Command::Testee { fault } => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            let code = testee_server::serve(stdin, stdout, fault.as_ref());
            Ok(if code == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(code as u8)
            })
        }
        Command::Conform {
            testee,
            filter,
            failure_list,
            junit,
            json,
            timeout_ms,
            dir,
        } => conform(ConformArgs {
            testee,
            filter,
            failure_list,
            junit,
            json,
            timeout: Duration::from_millis(timeout_ms),
            dir,
        }),
        Command::Bench {
            quick,
            scenes,
            losses,
            seed,
            out,
            readme,
        } => run_bench(quick, &scenes, losses, seed, &out, readme.as_deref()),
        Command::Vectors {
            write,
            stream_schema,
            dir,
        } => {
            if stream_schema {
                let schema = ackwire_conformance::streams::schema();
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?
                );
                return Ok(ExitCode::SUCCESS);
            }
            let frames_dir = dir.join("frames");
            let streams_dir = dir.join("streams");
            if write {
                let written =
                    vectors::write_frames(&frames_dir).map_err(|e| format!("error: {e}"))?;
                outln!(
                    "wrote {} vector files to {}",
                    written.len(),
                    frames_dir.display()
                );
                let recorded = ackwire_conformance::sessions::stream_vectors()
                    .map_err(|e| format!("error: recording a stream vector: {e}"))?;
                let written = streams::write_streams(&streams_dir, &recorded)
                    .map_err(|e| format!("error: {e}"))?;
                outln!(
                    "wrote {} stream vector files to {}",
                    written.len(),
                    streams_dir.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            let files = vectors::read_frames(&frames_dir).map_err(|e| format!("error: {e}"))?;
            let stream_vectors =
                streams::read_streams(&streams_dir).map_err(|e| format!("error: {e}"))?;
            let total = files.iter().map(|f| f.cases.len()).sum::<usize>() + stream_vectors.len();
            let failures: Vec<vectors::Failure> = vectors::verify_frame_files(&files)
                .into_iter()
                .chain(vectors::verify_stream_vectors(&stream_vectors))
                .collect();
            for f in &failures {
                eprintln!("FAIL {f}");
            }
            let failed = failures.len();
            outln!("{} passed, {} failed", total - failed, failed);
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
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
        return Ok(if unformatted.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
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

struct ConformArgs {
    testee: Option<String>,
    filter: Option<String>,
    failure_list: Option<PathBuf>,
    junit: Option<PathBuf>,
    json: Option<PathBuf>,
    timeout: Duration,
    dir: PathBuf,
}

fn conform(args: ConformArgs) -> Result<ExitCode, String> {
    let command = match &args.testee {
        Some(cmd) => split_command(cmd)?,
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| format!("error: cannot find this program: {e}"))?;
            vec![exe.display().to_string(), "testee".to_string()]
        }
    };
    let files =
        vectors::read_frames(&args.dir.join("frames")).map_err(|e| format!("error: {e}"))?;
    let mut cases = runner::frame_cases(&files).map_err(|e| format!("error: {e}"))?;
    let stream_vectors =
        streams::read_streams(&args.dir.join("streams")).map_err(|e| format!("error: {e}"))?;
    cases.extend(runner::stream_cases(&stream_vectors));
    if let Some(f) = &args.filter {
        cases.retain(|c| c.name.contains(f.as_str()));
    }
    let failure_list = match &args.failure_list {
        Some(p) => runner::read_failure_list(
            &std::fs::read_to_string(p)
                .map_err(|e| format!("error: cannot read {}: {e}", p.display()))?,
        ),
        None => Default::default(),
    };
    let options = runner::RunOptions {
        command,
        timeout: args.timeout,
        failure_list,
    };
    // indicatif hides its bar when standard error is not a terminal, which left a CI log
    // silent for the whole run: there, progress goes out as plain lines instead.
    let result = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(cases.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let result = runner::run(&cases, &options, |o| {
            bar.inc(1);
            if o.is_unexpected() {
                bar.println(format!("{} {}", o.verdict.as_str(), o.name));
            }
        });
        bar.finish_and_clear();
        result
    } else {
        let mut progress = report::ProgressLines::new(cases.len());
        let result = runner::run(&cases, &options, |o| {
            for line in progress.push(o) {
                eprintln!("{line}");
            }
        });
        if result.is_ok() {
            if let Some(line) = progress.finish() {
                eprintln!("{line}");
            }
        }
        result
    };
    let run = result.map_err(|e| format!("error: {e}"))?;
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&run))
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report::json(&run)).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    out!("{}", report::table(&run));
    Ok(if run.unexpected().next().is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Splits a command line on white space, keeping single- or double-quoted parts together.
fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    parts.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("error: unbalanced quote in --testee {text:?}"));
    }
    if started {
        parts.push(current);
    }
    if parts.is_empty() {
        return Err("error: --testee is empty".to_string());
    }
    Ok(parts)
}

/// The bundled testees, as `ackwire fuzz-diff` runs them by default.
const BUNDLED_TESTEES: [(&str, &str, &str); 2] = [
    (
        "ts",
        "node conformance/testees/ts/dist/testee.js",
        "conformance/testees/ts/dist/testee.js",
    ),
    (
        "cpp",
        "conformance/testees/cpp/build/testee",
        "conformance/testees/cpp/build/testee",
    ),
];

fn fuzz_diff(
    count: usize,
    seed: u64,
    testees: Vec<String>,
    corpus: &Path,
    dir: &Path,
    timeout: Duration,
) -> Result<ExitCode, String> {
    let mut chosen = Vec::new();
    if testees.is_empty() {
        for (label, command, built) in BUNDLED_TESTEES {
            if !Path::new(built).exists() {
                return Err(format!(
                    "error: the {label} testee is not built ({built} is missing): run conformance/testees/{label}/build.sh, or name testees with --testee LABEL=COMMAND"
                ));
            }
            chosen.push((label.to_string(), split_command(command)?));
        }
    } else {
        for t in &testees {
            let (label, command) = t
                .split_once('=')
                .ok_or_else(|| format!("error: --testee {t:?} is not LABEL=COMMAND"))?;
            chosen.push((label.to_string(), split_command(command)?));
        }
    }
    let files = vectors::read_frames(&dir.join("frames")).map_err(|e| format!("error: {e}"))?;
    let inputs = diff::inputs(Some(corpus), &files, count, seed);
    let mut running: Vec<(String, testee_client::TesteeProcess)> = chosen
        .into_iter()
        .map(|(label, cmd)| (label, testee_client::TesteeProcess::new(cmd)))
        .collect();
    let bar = indicatif::ProgressBar::new(inputs.len() as u64);
    let report = diff::run(&inputs, &mut running, timeout, |n| {
        bar.set_position(n as u64)
    });
    bar.finish_and_clear();
    for d in &report.disagreements {
        outln!(
            "{}",
            serde_json::to_string_pretty(&d.as_vector()).map_err(|e| e.to_string())?
        );
    }
    let labels: Vec<&str> = running.iter().map(|(l, _)| l.as_str()).collect();
    outln!(
        "differential: {} inputs ({} accepted by Rust) through rust, {}: {} disagreement{}",
        report.inputs,
        report.accepted,
        labels.join(", "),
        report.disagreements.len(),
        if report.disagreements.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    outln!(
        "{} passed, {} failed",
        report.inputs - report.disagreements.len(),
        report.disagreements.len()
    );
    Ok(if report.disagreements.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `ackwire bench`.
fn run_bench(
    quick: bool,
    scenes: &[String],
    losses: Vec<f64>,
    seed: u64,
    out: &Path,
    readme: Option<&Path>,
) -> Result<ExitCode, String> {
    use bench::scenes::{SceneKind, LOSSES};
    let scenes = if scenes.is_empty() {
        SceneKind::ALL.to_vec()
    } else {
        scenes
            .iter()
            .map(|n| {
                SceneKind::from_name(n).ok_or_else(|| {
                    format!("error: no scene `{n}` (there are cube, arena and floats)")
                })
            })
            .collect::<Result<_, _>>()?
    };
    if let Some(bad) = losses.iter().find(|l| !(0.0..=100.0).contains(*l)) {
        return Err(format!(
            "error: --loss {bad} is not a percentage from 0 to 100"
        ));
    }
    let losses = if losses.is_empty() {
        LOSSES.to_vec()
    } else {
        losses
    };
    // Read the README first: a missing marker is found before minutes of measuring.
    let readme_text = match readme {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
            bench::render::replace_block(&text, "")
                .map_err(|e| format!("error: {}: {e}", path.display()))?;
            Some(text)
        }
        None => None,
    };
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; CPU times say little (cargo run --release ...)");
    }
    let plan = bench::run::Plan {
        quick,
        seed,
        scenes,
        losses,
    };
    let bar = indicatif::ProgressBar::new((plan.scenes.len() * plan.losses.len()) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} scene and loss runs")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let report = bench::run::run(&plan, |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    let report = report.map_err(|e| format!("error: the bench failed: {e}"))?;
    out!("{}", bench::render::table(&report));
    std::fs::create_dir_all(out)
        .map_err(|e| format!("error: cannot create {}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    for (name, text) in [
        ("bench.json", json),
        ("bench.svg", bench::render::svg(&report)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text)
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        outln!("wrote {}", path.display());
    }
    if let (Some(path), Some(text)) = (readme, readme_text) {
        // The command as it was given, so the README names exactly what produced it.
        let args: Vec<String> = std::env::args().skip(1).collect();
        let command = format!("cargo run --release -p ackwire -- {}", args.join(" "));
        let block = bench::render::markdown(&report, &command);
        let text = bench::render::replace_block(&text, &block)
            .map_err(|e| format!("error: {}: {e}", path.display()))?;
        std::fs::write(path, text)
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        outln!("rewrote the bench block of {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
