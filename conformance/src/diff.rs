//! Differential fuzzing: the same bytes through the Rust decoder and every other testee; each
//! input must give the same value or the same error kind everywhere.
//!
//! TESTEE-13: the same input through the Rust, TypeScript, C++ and C# codecs must give the same
//! value or the same error kind, and a disagreement becomes a new vector. The inputs are the fuzz
//! corpus, the golden vectors, and a bounded number of seeded random and mutated frames; a
//! disagreement is printed as a frame vector ready to add to `vectors/frames/`.
//!
//! [`streams`] does the same for the session machines: seeded lossy streams recorded with the
//! Rust halves and replayed through each testee's, a disagreement shrunk into a stream vector.

use crate::frame_json::{self, FrameError};
use crate::judge::Judge;
use crate::netsim::SplitMix64;
use crate::spec_arg::SpecArg;
use crate::testee_client::{split_command, Fault, RunError, TesteeProcess};
use crate::vectors::{self, FrameFile};
use ackwire_codec::protocol::FRAME_NAMES;
use ackwire_spec::model::Spec;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod streams;

/// One input: a frame name and the bytes to decode as that frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The frame.
    pub frame: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// What one decoder made of an input.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A value (the JSON form).
    Value(Value),
    /// An error of this kind.
    Error(String),
    /// The testee did not answer (crash, timeout, or not a reply).
    Fault(String),
    /// The testee does not implement this frame.
    Unimplemented,
}

/// An input on which the decoders disagree.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// The input.
    pub input: Input,
    /// What the Rust decoder said.
    pub rust: Verdict,
    /// What each other testee said, by label.
    pub others: Vec<(String, Verdict)>,
}

impl Disagreement {
    /// The input as a frame vector holding the Rust decoder's answer, ready to add to the
    /// frame's vector file once the disagreement is understood.
    pub fn as_vector(&self) -> Value {
        self.as_vector_judged(&Judge::Reference)
    }

    /// [`Disagreement::as_vector`], the error's offset and path from `judge`'s decoder (the
    /// run-time codec of a spec, for `--spec`).
    pub fn as_vector_judged(&self, judge: &Judge<'_>) -> Value {
        let hex = frame_json::hex_spaced(&self.input.bytes);
        let id = ackwire_codec::rt::fnv1a32(&self.input.bytes);
        let who: Vec<String> = self
            .others
            .iter()
            .map(|(label, v)| format!("{label}: {}", describe(v)))
            .collect();
        let mut vector = json!({
            "name": format!("{}/differential_{id:08x}", self.input.frame),
            "description": format!("found by differential fuzzing ({})", who.join("; ")),
            "seed": "TESTEE-13",
            "hex": hex,
        });
        match &self.rust {
            Verdict::Value(v) => vector["value"] = v.clone(),
            Verdict::Error(kind) => {
                if let Err(FrameError::Decode(e)) =
                    judge.decode(&self.input.frame, &self.input.bytes)
                {
                    vector["error"] =
                        json!({"kind": kind, "offset": e.offset, "path": e.path_string()});
                    if let Some(bit) = e.bit {
                        vector["error"]["bit"] = json!(bit);
                    }
                }
            }
            _ => {}
        }
        vector
    }
}

fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Value(_) => "a value".into(),
        Verdict::Error(kind) => format!("error {kind}"),
        Verdict::Fault(why) => format!("no answer ({why})"),
        Verdict::Unimplemented => "unimplemented".into(),
    }
}

/// The Rust decoder's verdict.
pub fn rust_verdict(input: &Input) -> Verdict {
    judged_verdict(&Judge::Reference, input)
}

/// The verdict of `judge`'s decoder: the reference protocol's compiled one, or the run-time
/// codec of a spec.
pub fn judged_verdict(judge: &Judge<'_>, input: &Input) -> Verdict {
    match judge.decode(&input.frame, &input.bytes) {
        Ok(v) => Verdict::Value(v),
        Err(FrameError::Decode(e)) => Verdict::Error(e.kind.as_str().to_string()),
        Err(e) => Verdict::Fault(e.to_string()),
    }
}

/// The inputs of a run: every corpus file under `corpus` (`decode_<frame>/*`), every vector,
/// then `count` seeded random and mutated frames spread over the frames.
pub fn inputs(corpus: Option<&Path>, vectors: &[FrameFile], count: usize, seed: u64) -> Vec<Input> {
    let frames: Vec<String> = FRAME_NAMES.iter().map(|f| f.to_string()).collect();
    inputs_of(&frames, corpus, vectors, count, seed)
}

/// [`inputs`] of the spec whose frames are `frames`.
pub fn inputs_of(
    frames: &[String],
    corpus: Option<&Path>,
    vectors: &[FrameFile],
    count: usize,
    seed: u64,
) -> Vec<Input> {
    let mut out = Vec::new();
    let mut samples: Vec<Input> = Vec::new();
    for file in vectors {
        for case in &file.cases {
            if let Ok(bytes) = case.bytes() {
                samples.push(Input {
                    frame: file.frame.clone(),
                    bytes,
                });
            }
        }
    }
    if let Some(dir) = corpus {
        for frame in frames {
            let Ok(entries) = std::fs::read_dir(dir.join(format!("decode_{frame}"))) else {
                continue;
            };
            let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for p in paths {
                if let Ok(bytes) = std::fs::read(&p) {
                    out.push(Input {
                        frame: frame.to_string(),
                        bytes,
                    });
                }
            }
        }
    }
    out.extend(samples.iter().cloned());
    let mut rng = SplitMix64::new(seed);
    for i in 0..count {
        let Some(frame) = frames.get(i % frames.len().max(1)) else {
            break;
        };
        let of_frame: Vec<&Input> = samples.iter().filter(|s| &s.frame == frame).collect();
        let bytes = if of_frame.is_empty() || rng.chance(0.25) {
            random_frame(
                &mut rng,
                of_frame.first().and_then(|s| s.bytes.first().copied()),
            )
        } else {
            let base = of_frame[rng.below_or_at(of_frame.len() as u64 - 1) as usize];
            mutate(&mut rng, &base.bytes)
        };
        out.push(Input {
            frame: frame.to_string(),
            bytes,
        });
    }
    out
}

fn random_frame(rng: &mut SplitMix64, kind: Option<u8>) -> Vec<u8> {
    let len = rng.below_or_at(48) as usize;
    let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    if let (Some(k), Some(first)) = (kind, bytes.first_mut()) {
        // Mostly the right kind byte, or nearly every input dies at the first field.
        if rng.chance(0.9) {
            *first = k;
        }
    }
    bytes
}

fn mutate(rng: &mut SplitMix64, base: &[u8]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    let edits = 1 + rng.below_or_at(2);
    for _ in 0..edits {
        let at = if bytes.is_empty() {
            0
        } else {
            rng.below_or_at(bytes.len() as u64 - 1) as usize
        };
        match rng.below_or_at(5) {
            0 if !bytes.is_empty() => bytes[at] ^= 1 << rng.below_or_at(7),
            1 if !bytes.is_empty() => {
                bytes[at] = [0x00, 0x01, 0x7f, 0x80, 0xff][rng.below_or_at(4) as usize]
            }
            2 => bytes.insert(at.min(bytes.len()), rng.next_u64() as u8),
            3 if !bytes.is_empty() => {
                bytes.remove(at);
            }
            4 => bytes.truncate(at),
            _ => bytes.push(rng.next_u64() as u8),
        }
    }
    bytes
}

/// A testee's verdict on an input; [`RunError`] when the testee cannot be run at all (it
/// cannot be started, or does not answer `hello` when first started or twice in a row:
/// [`TesteeProcess::ensure`]).
pub fn testee_verdict(
    testee: &mut TesteeProcess,
    input: &Input,
    timeout: Duration,
) -> Result<Verdict, RunError> {
    match testee.ensure(timeout)? {
        Ok(caps) if !caps.frames.contains(&input.frame) => return Ok(Verdict::Unimplemented),
        Ok(_) => {}
        Err(why) => return Ok(Verdict::Fault(why)),
    }
    let hex: String = frame_json::hex_spaced(&input.bytes).replace(' ', "");
    let request = json!({"op": "decode", "frame": input.frame, "hex": hex});
    Ok(match testee.request(request, timeout) {
        Ok(reply) => {
            if let Some(v) = reply.get("ok").and_then(|o| o.get("value")) {
                Verdict::Value(v.clone())
            } else if let Some(kind) = reply
                .get("error")
                .and_then(|e| e.get("kind"))
                .and_then(Value::as_str)
            {
                Verdict::Error(kind.to_string())
            } else if reply.get("unimplemented").is_some() {
                Verdict::Unimplemented
            } else {
                Verdict::Fault(format!("not a decode reply: {reply}"))
            }
        }
        Err(Fault::Timeout) => {
            testee.stop();
            Verdict::Fault("timeout".into())
        }
        Err(Fault::Crash(why)) => {
            testee.stop();
            Verdict::Fault(why)
        }
    })
}

/// Whether a testee's verdict agrees with Rust's: the same value once read into the frame's
/// types, or the same error kind. A frame the testee does not implement is not a disagreement.
pub fn agrees(frame: &str, rust: &Verdict, other: &Verdict) -> bool {
    agrees_judged(&Judge::Reference, frame, rust, other)
}

/// [`agrees`], values read into the frame's model of `judge`'s spec.
pub fn agrees_judged(judge: &Judge<'_>, frame: &str, rust: &Verdict, other: &Verdict) -> bool {
    match (rust, other) {
        (_, Verdict::Unimplemented) => true,
        (Verdict::Value(a), Verdict::Value(b)) => judge.same_value(frame, a, b).unwrap_or(false),
        (Verdict::Error(a), Verdict::Error(b)) => a == b,
        _ => false,
    }
}

/// The result of a differential run.
#[derive(Debug, Default)]
pub struct DiffReport {
    /// Inputs run.
    pub inputs: usize,
    /// Inputs the Rust decoder accepted.
    pub accepted: usize,
    /// Inputs every decoder agreed on but at least one testee did not implement.
    pub skipped: usize,
    /// The disagreements.
    pub disagreements: Vec<Disagreement>,
    /// What the testees were held to, when not the reference protocol's Rust codec.
    pub judged_by: String,
}

/// Runs every input through Rust and each testee (`(label, testee)`), calling `progress` after
/// each input. Stops with [`RunError`] at the first testee that cannot be run (see
/// [`testee_verdict`]) rather than wait out the timeout on every input.
pub fn run(
    inputs: &[Input],
    testees: &mut [(String, TesteeProcess)],
    timeout: Duration,
    progress: impl FnMut(usize),
) -> Result<DiffReport, RunError> {
    run_judged(inputs, testees, &Judge::Reference, timeout, progress)
}

/// [`run`], every testee held to `judge`'s decoder.
pub fn run_judged(
    inputs: &[Input],
    testees: &mut [(String, TesteeProcess)],
    judge: &Judge<'_>,
    timeout: Duration,
    mut progress: impl FnMut(usize),
) -> Result<DiffReport, RunError> {
    let mut report = DiffReport {
        inputs: inputs.len(),
        judged_by: match judge {
            Judge::Reference => String::new(),
            Judge::Spec(_) => "the spec's run-time codec".to_string(),
        },
        ..DiffReport::default()
    };
    for (i, input) in inputs.iter().enumerate() {
        let rust = judged_verdict(judge, input);
        if matches!(rust, Verdict::Value(_)) {
            report.accepted += 1;
        }
        let others = testees
            .iter_mut()
            .map(|(label, t)| Ok((label.clone(), testee_verdict(t, input, timeout)?)))
            .collect::<Result<Vec<(String, Verdict)>, RunError>>()?;
        if others.iter().any(|(_, v)| *v == Verdict::Unimplemented) {
            report.skipped += 1;
        }
        if others
            .iter()
            .any(|(_, v)| !agrees_judged(judge, &input.frame, &rust, v))
        {
            report.disagreements.push(Disagreement {
                input: input.clone(),
                rust,
                others,
            });
        }
        progress(i + 1);
    }
    Ok(report)
}

impl DiffReport {
    /// The closing lines of `ackwire fuzz-diff` over the testees labelled `labels`: what ran
    /// and how many disagreed, then `N passed, M failed`.
    pub fn summary(&self, labels: &[&str]) -> String {
        let n = self.disagreements.len();
        let (by, through) = if self.judged_by.is_empty() {
            ("Rust", "rust, ".to_string())
        } else {
            (self.judged_by.as_str(), String::new())
        };
        format!(
            "differential: {} inputs ({} accepted by {by}) through {through}{}: {n} disagreement{}\n{} passed, {n} failed",
            self.inputs,
            self.accepted,
            labels.join(", "),
            if n == 1 { "" } else { "s" },
            self.inputs - n,
        )
    }
}

/// The bundled testees, as `ackwire fuzz-diff` runs them by default: label, command line, and
/// the file that must have been built.
pub const BUNDLED_TESTEES: [(&str, &str, &str); 3] = [
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
    // The C# testee, run by Mono (issue 21).
    (
        "cs",
        "mono conformance/testees/cs/build/testee.exe",
        "conformance/testees/cs/build/testee.exe",
    ),
];

/// The testees to run, `(label, command)`, from `LABEL=COMMAND` specifications, or the
/// [`BUNDLED_TESTEES`] (which must have been built) when there are none.
pub fn testees(specs: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut chosen = Vec::new();
    if specs.is_empty() {
        for (label, command, built) in BUNDLED_TESTEES {
            if !Path::new(built).exists() {
                return Err(format!(
                    "the {label} testee is not built ({built} is missing): run conformance/testees/{label}/build.sh, or name testees with --testee LABEL=COMMAND"
                ));
            }
            chosen.push((label.to_string(), split_command(command)?));
        }
    } else {
        for t in specs {
            let (label, command) = t
                .split_once('=')
                .ok_or_else(|| format!("--testee {t:?} is not LABEL=COMMAND"))?;
            chosen.push((label.to_string(), split_command(command)?));
        }
    }
    Ok(chosen)
}

/// What `ackwire fuzz-diff` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seeded random and mutated inputs, beyond the corpus and the vectors.
    pub count: usize,
    /// The seed of those inputs.
    pub seed: u64,
    /// The testees as `LABEL=COMMAND` (none: the bundled ones), see [`testees`].
    pub testees: Vec<String>,
    /// The fuzz corpus folder.
    pub corpus: PathBuf,
    /// The vectors folder (`frames/` and `derived/` inside, either or both).
    pub dir: PathBuf,
    /// How long one reply may take.
    pub timeout: Duration,
    /// Seeded lossy streams ([`streams::run`]), after the frames; 0 runs none.
    pub streams: usize,
    /// Where shrunk stream disagreements are written as stream vectors (none: not written);
    /// with a spec and no testee given, its generated testees are built under `OUT/testees/`.
    pub out: Option<PathBuf>,
    /// The layout files of the spec (`--spec`); none: the reference protocol. For a spec, the
    /// inputs are its derived vectors and mutations of them (and its frames' corpus folders
    /// under `corpus`, when there are any), every testee is held to the spec's run-time codec,
    /// and no stream is run.
    pub spec: Vec<PathBuf>,
}

/// What `ackwire fuzz-diff` found: the frames' report, the streams' and the testees' labels.
#[derive(Debug)]
pub struct FuzzRun {
    /// The frame decoders'.
    pub frames: DiffReport,
    /// The session halves'.
    pub streams: streams::StreamReport,
    /// The testees, by label.
    pub labels: Vec<String>,
    /// Each frame disagreement as a vector holding the answer of the codec the testees were
    /// held to ([`Disagreement::as_vector_judged`]), in order.
    pub vectors: Vec<Value>,
}

/// Chooses the testees, builds the inputs ([`inputs`]) and runs them ([`run`]), then the
/// streams ([`streams::run`]), calling `progress` with the inputs and streams done and their
/// total.
pub fn fuzz(options: &Options, mut progress: impl FnMut(usize, usize)) -> Result<FuzzRun, String> {
    let arg = SpecArg::load(&options.spec).map_err(|e| e.to_string())?;
    let judge = Judge::of(&arg);
    let (chosen, files) = match &judge {
        Judge::Reference => (
            testees(&options.testees)?,
            vectors::read_frame_sets(&options.dir).map_err(|e| e.to_string())?,
        ),
        Judge::Spec(low) => {
            let chosen = if options.testees.is_empty() {
                let out = options
                    .out
                    .as_deref()
                    .unwrap_or(Path::new("target/fuzz-diff"));
                generated_testees(&arg.spec, &out.join("testees"))?
            } else {
                testees(&options.testees)?
            };
            let derived = vectors::derive::derive(low, vectors::derive::DEFAULT_SEED);
            (chosen, derived.files)
        }
    };
    let inputs = inputs_of(
        &judge.frame_names(),
        Some(&options.corpus),
        &files,
        options.count,
        options.seed,
    );
    let streams = if arg.reference { options.streams } else { 0 };
    let mut running: Vec<(String, TesteeProcess)> = chosen
        .into_iter()
        .map(|(label, cmd)| (label, TesteeProcess::new(cmd)))
        .collect();
    let total = inputs.len() + streams;
    progress(0, total);
    let frames = run_judged(&inputs, &mut running, &judge, options.timeout, |n| {
        progress(n, total)
    })
    .map_err(|e| e.to_string())?;
    let streams = streams::run(
        streams,
        options.seed,
        &mut running,
        options.timeout,
        options.out.as_deref(),
        |n| progress(inputs.len() + n, total),
    )
    .map_err(|e| e.to_string())?;
    let labels = running.into_iter().map(|(label, _)| label).collect();
    let vectors = frames
        .disagreements
        .iter()
        .map(|d| d.as_vector_judged(&judge))
        .collect();
    Ok(FuzzRun {
        frames,
        streams,
        labels,
        vectors,
    })
}

/// The testees of `spec` in every language, as `ackwire gen --testee` writes them, generated
/// into `dir/LANG/` and run by their `testee` scripts, which build them on their first start:
/// `(label, command)`. A file is written only when its text changed, so that a testee built
/// there once is not built again.
pub fn generated_testees(spec: &Spec, dir: &Path) -> Result<Vec<(String, Vec<String>)>, String> {
    use ackwire_spec::gen::testee::{self, Lang};
    let mut chosen = Vec::new();
    for (label, lang) in [
        ("rust", Lang::Rust),
        ("ts", Lang::Ts),
        ("cpp", Lang::Cpp),
        ("cs", Lang::Cs),
    ] {
        let folder = dir.join(label);
        for (name, text) in testee::generate_with(spec, lang, testee::checkout().as_deref()) {
            let path = folder.join(&name);
            if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
                continue;
            }
            let parent = path.parent().unwrap_or(&folder);
            std::fs::create_dir_all(parent)
                .and_then(|()| std::fs::write(&path, &text))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        let script = folder.join(testee::SCRIPT);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("cannot make {} executable: {e}", script.display()))?;
        }
        chosen.push((label.to_string(), vec![script.display().to_string()]));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn testees_are_label_equals_command() {
        let chosen = testees(&["ts=node 'a b.js'".to_string()]).unwrap();
        assert_eq!(
            chosen,
            [(
                "ts".to_string(),
                vec!["node".to_string(), "a b.js".to_string()]
            )]
        );
        assert!(testees(&["node testee.js".to_string()]).is_err());
    }

    #[test]
    fn the_summary_counts_disagreements() {
        let report = DiffReport {
            inputs: 10,
            accepted: 4,
            ..DiffReport::default()
        };
        assert_eq!(
            report.summary(&["ts", "cpp"]),
            "differential: 10 inputs (4 accepted by Rust) through rust, ts, cpp: 0 disagreements\n10 passed, 0 failed"
        );
    }

    #[test]
    fn inputs_are_deterministic_and_bounded() {
        let files = crate::vectors::frame_files();
        let a = inputs(None, &files, 500, 9);
        let b = inputs(None, &files, 500, 9);
        assert_eq!(a, b);
        let c = inputs(None, &files, 500, 10);
        assert_ne!(a, c);
        let vectors: usize = files.iter().map(|f| f.cases.len()).sum();
        assert_eq!(a.len(), vectors + 500);
        assert!(a.iter().all(|i| i.bytes.len() < 4096));
    }

    #[test]
    fn values_agree_by_type_and_errors_by_kind() {
        let v = json!({"newest": 5, "mask": 255, "digest": 42});
        let same = json!({"newest": 5, "mask": "255", "digest": 42});
        let other = json!({"newest": 6, "mask": 255, "digest": 42});
        assert!(agrees(
            "delta_ack",
            &Verdict::Value(v.clone()),
            &Verdict::Value(same)
        ));
        assert!(!agrees(
            "delta_ack",
            &Verdict::Value(v.clone()),
            &Verdict::Value(other)
        ));
        assert!(agrees(
            "delta_ack",
            &Verdict::Error("truncated".into()),
            &Verdict::Error("truncated".into())
        ));
        assert!(!agrees(
            "delta_ack",
            &Verdict::Error("truncated".into()),
            &Verdict::Value(v)
        ));
        assert!(agrees(
            "delta_ack",
            &Verdict::Error("x".into()),
            &Verdict::Unimplemented
        ));
        assert!(!agrees(
            "delta_ack",
            &Verdict::Error("x".into()),
            &Verdict::Fault("crash".into())
        ));
    }

    #[test]
    fn a_testee_that_never_answers_hello_is_not_run_at_all() {
        // `false` exits at once without answering `hello`.
        let mut t = TesteeProcess::new(vec!["false".into()]);
        let input = Input {
            frame: "delta_ack".into(),
            bytes: vec![10],
        };
        let e = testee_verdict(&mut t, &input, Duration::from_millis(500)).unwrap_err();
        assert!(matches!(e, RunError::Hello { .. }), "{e}");
    }

    #[test]
    fn disagreements_become_vectors_with_rust_s_answer() {
        let input = Input {
            frame: "delta_ack".into(),
            bytes: vec![10, 5],
        };
        let d = Disagreement {
            rust: rust_verdict(&input),
            input,
            others: vec![("ts".into(), Verdict::Error("over_width".into()))],
        };
        let v = d.as_vector();
        assert_eq!(v["error"]["kind"], "truncated");
        assert_eq!(v["error"]["path"], "mask");
        assert_eq!(v["hex"], "0a 05");
        assert!(v["name"]
            .as_str()
            .unwrap()
            .starts_with("delta_ack/differential_"));
        assert!(v["description"]
            .as_str()
            .unwrap()
            .contains("ts: error over_width"));
    }
}
