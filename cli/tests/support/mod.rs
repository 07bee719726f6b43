//! What the tests of the generated codecs' testees share (`mod support;` in `cpp_testee.rs`,
//! `cs_testee.rs` and `ts_testee.rs`): building a testee once with its
//! `conformance/testees/LANG/build.sh` ([`built_once`], [`run_build_script`]), and the checks
//! it is held to, beside the Rust codec, through the testee protocol, each called from a test of
//! the file's own (the C++ and C# testees take all four; the TypeScript one the frame vectors,
//! its differential fuzzing being `ackwire fuzz-diff`'s):
//! - every frame vector must pass, none UNIMPLEMENTED (but the coded frame's, kind 13, while the
//!   testee's `hello` does not list it: see [`coded_listed`]);
//! - thousands of deterministic mutated and random inputs are decoded by the testee and by the
//!   Rust codec: the testee must never crash, and both must give the same value, or the same
//!   error kind at the same offset with the same path; every input the testee accepts must
//!   re-encode to the identical bytes;
//! - positive vectors' values with mutated leaves are encoded by both, with the same bytes or
//!   the same refusal;
//! - garbage and mutated request lines each get one reply, a line of UTF-8 JSON.

// Each test file compiles its own copy of this module and uses a part of it (the C# testee
// needs no tool check, the TypeScript one no differential check): what one file leaves unused
// is another's, not dead.
#![allow(dead_code)]

use ackwire_conformance::frame_json::{self, FrameError};
use ackwire_conformance::runner::{self, RunOptions, Verdict};
use ackwire_conformance::testee_client::{Fault, TesteeProcess};
use ackwire_conformance::{report, vectors};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The repository's root: the cli crate's parent folder.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the repository")
        .to_path_buf()
}

/// Whether `program --version` runs and succeeds: a tool a testee needs is there, so that a
/// test can say what is missing rather than fail on a build script's output.
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Runs `conformance/testees/NAME/build.sh` from the repository's root, giving it the bundled
/// `ackwire` (already built: the script runs it rather than a nested `cargo run`), and returns
/// the testee's folder. When the script fails, the error says so with its status, `hint` (what
/// the testee needs, if the script may fail for want of it) and the script's output.
pub fn run_build_script(name: &str, hint: Option<&str>) -> Result<PathBuf, String> {
    let root = repository_root();
    let dir = root.join("conformance/testees").join(name);
    let out = Command::new("bash")
        .arg(dir.join("build.sh"))
        .env("ACKWIRE", env!("CARGO_BIN_EXE_ackwire"))
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run bash build.sh: {e}"))?;
    if !out.status.success() {
        let hint = hint.map_or(String::new(), |h| format!(": {h}"));
        return Err(format!(
            "conformance/testees/{name}/build.sh failed ({}){hint}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(dir)
}

/// The testee `build` makes, built once for all the tests of a file; a failed build fails each
/// of them with its error. Each test file is a crate of its own, with its own copy of this
/// module, and builds one testee: the first `build` given is the one that runs.
pub fn built_once(build: fn() -> Result<PathBuf, String>) -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(build)
        .clone()
        .unwrap_or_else(|why| panic!("{why}"))
}

/// A built testee of a generated codec.
pub struct Generated {
    /// The command that runs it.
    pub command: Vec<String>,
    /// The name it gives in `hello`.
    pub name: &'static str,
    /// Its language, as the failure messages name it.
    pub language: &'static str,
    /// How long a request may take (the sanitized C++ build and Mono's JIT are slow to start).
    pub timeout: Duration,
}

/// Whether the testee's `hello` lists the coded frame (kind 13, `acked_coded`). Its generator
/// prints the frame when it does; until then the coded frame's cases are outside what it
/// implements (UNIMPLEMENTED for the runner) and are not asked of it here. Once it lists the
/// frame, every case of it is held to the Rust codec as any other frame's.
pub fn coded_listed(testee: &TesteeProcess) -> bool {
    testee
        .capabilities()
        .is_some_and(|c| c.frames.contains(ackwire_conformance::coded::FRAME))
}

/// [`reference_frame_files`] the started `testee` is asked: without the coded frame's unless
/// it lists it ([`coded_listed`]).
fn frame_files_for(testee: &TesteeProcess) -> Vec<vectors::FrameFile> {
    let coded = coded_listed(testee);
    reference_frame_files()
        .into_iter()
        .filter(|f| coded || f.frame != ackwire_conformance::coded::FRAME)
        .collect()
}

/// The reference protocol's frame vectors, one file per frame: the cases kept by hand, then the
/// derived ones.
fn reference_frame_files() -> Vec<vectors::FrameFile> {
    let spec = ackwire_spec::reference_spec().expect("the reference protocol compiles");
    let low = ackwire_spec::lower::Lowering::new(&spec);
    let derived = vectors::derive::derive(&low, vectors::derive::DEFAULT_SEED).files;
    let mut files = vectors::frame_files();
    for file in &mut files {
        if let Some(more) = derived.iter().find(|d| d.frame == file.frame) {
            file.cases.extend(more.cases.iter().cloned());
        }
    }
    files
}

/// Every frame vector (kept by hand, and derived from the reference protocol) passes through
/// the testee, none UNIMPLEMENTED.
pub fn passes_every_frame_vector(t: &Generated) {
    let lang = t.language;
    let files = reference_frame_files();
    let cases = runner::frame_cases(&files).expect("the frame vectors make cases");
    assert!(cases.len() > 100, "too few cases to mean anything");
    let options = RunOptions {
        command: t.command.clone(),
        timeout: t.timeout,
        failure_list: Default::default(),
    };
    let report = runner::run(&cases, &options, |_| {}).expect("the testee starts");

    assert!(
        report.testee.starts_with(t.name),
        "the testee named itself {}",
        report.testee
    );
    assert_eq!(report.outcomes.len(), cases.len());
    let unexpected: Vec<String> = report
        .unexpected()
        .map(|o| format!("{} {}: {}", o.verdict.as_str(), o.name, o.detail))
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected outcomes:\n{}\n{}",
        unexpected.join("\n"),
        report::table(&report)
    );
    let coded = coded_listed(&start(t));
    let unimplemented: Vec<&str> = report
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Unimplemented)
        .filter(|o| coded || o.frame != ackwire_conformance::coded::FRAME)
        .map(|o| o.name.as_str())
        .collect();
    assert!(
        unimplemented.is_empty(),
        "the {lang} testee implements every frame, yet these were UNIMPLEMENTED: {unimplemented:?}"
    );
    assert!(report
        .outcomes
        .iter()
        .all(|o| o.verdict == Verdict::Pass
            || (!coded && o.frame == ackwire_conformance::coded::FRAME)));
}

/// SplitMix64 (`ackwire-sim`'s): deterministic, so that a failure names an input that can be
/// replayed.
struct Rng(ackwire_sim::SplitMix64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(ackwire_sim::SplitMix64::new(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n.max(1) as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.0.next_u64() as u8
    }
}

/// A mutation of `seed`: one to three of bit flips, interesting bytes, truncation, insertion,
/// deletion, duplication, appended bytes, or another input's tail spliced on.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    const INTERESTING: [u8; 8] = [0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff];
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(8) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            2 => b.truncate(rng.below(b.len() + 1)),
            3 => {
                let i = rng.below(b.len() + 1);
                let v = rng.byte();
                b.insert(i, v);
            }
            4 if !b.is_empty() => {
                b.remove(rng.below(b.len()));
            }
            5 if !b.is_empty() => {
                let i = rng.below(b.len());
                let n = 1 + rng.below((b.len() - i).min(8));
                let chunk = b[i..i + n].to_vec();
                b.splice(i..i, chunk);
            }
            6 => {
                for _ in 0..1 + rng.below(8) {
                    b.push(rng.byte());
                }
            }
            _ => {
                let cut = rng.below(b.len() + 1);
                b.truncate(cut);
                b.extend_from_slice(&other[rng.below(other.len() + 1)..]);
            }
        }
    }
    b
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A started, greeted testee.
fn start(t: &Generated) -> TesteeProcess {
    let mut testee = TesteeProcess::new(t.command.clone());
    let caps = testee
        .ensure(t.timeout)
        .expect("the testee starts")
        .expect("the testee answers hello");
    assert_eq!(caps.name, t.name);
    testee
}

/// One request; a crash or a stall fails the test with what the testee said last (a sanitizer
/// report, for the C++ one).
fn ask(t: &Generated, testee: &mut TesteeProcess, request: Value) -> Value {
    let lang = t.language;
    match testee.request(request.clone(), t.timeout) {
        Ok(reply) => reply,
        Err(Fault::Crash(why)) => panic!("the {lang} testee crashed on {request}: {why}"),
        Err(Fault::Timeout) => panic!("the {lang} testee stalled on {request}"),
    }
}

/// Decodes `bytes` as `frame` with both codecs; None when they agree, else how they differ.
fn disagreement(
    t: &Generated,
    testee: &mut TesteeProcess,
    frame: &str,
    bytes: &[u8],
) -> Option<String> {
    let lang = t.language;
    let input = hex(bytes);
    let reply = ask(
        t,
        testee,
        json!({"op": "decode", "frame": frame, "hex": input}),
    );
    let rust = frame_json::decode_json(frame, bytes);
    let what = format!("{frame} {input}: Rust {rust:?}, {lang} {reply}");
    match (rust, reply.get("ok"), reply.get("error")) {
        (Ok(expected), Some(ok), None) => {
            let value = &ok["value"];
            if !matches!(frame_json::same_value(frame, &expected, value), Ok(true)) {
                return Some(format!("another value: {what}"));
            }
            // Canonical: what the decoder under test accepts, its encoder writes back byte for byte.
            let again = ask(
                t,
                testee,
                json!({"op": "encode", "frame": frame, "value": value}),
            );
            (again["ok"]["hex"] != json!(input)).then(|| format!("re-encoded as {again}: {what}"))
        }
        (Err(FrameError::Decode(e)), None, Some(err)) => {
            let expected = json!({
                "kind": e.kind.as_str(),
                "offset": e.offset,
                "path": e.path_string(),
                "bit": e.bit,
            });
            let actual = json!({
                "kind": err["kind"],
                "offset": err["offset"],
                "path": err["path"],
                "bit": err.get("bit").cloned().unwrap_or(Value::Null),
            });
            (expected != actual).then(|| format!("another error: {what}"))
        }
        _ => Some(format!("another verdict: {what}")),
    }
}

/// Mutated and random inputs never crash the testee, and decode as in Rust: the same value
/// (re-encoded to the same bytes), or the same error kind, offset, path and bit.
pub fn mutated_and_random_inputs_decode_as_in_rust(t: &Generated) {
    let lang = t.language;
    let mut testee = start(t);
    let files = frame_files_for(&testee);
    let mut rng = Rng::new(0x00C0_FFEE_ACC0_57ED);
    let mut failures = Vec::new();
    let mut asked = 0;
    let mut accepted = 0;
    for file in &files {
        let seeds: Vec<Vec<u8>> = file
            .cases
            .iter()
            .map(|c| c.bytes().expect("vector hex"))
            .collect();
        assert!(!seeds.is_empty(), "{} has no vectors", file.frame);
        let kind = seeds.iter().find_map(|s| s.first().copied()).unwrap_or(0);
        let mut inputs: Vec<Vec<u8>> = seeds.clone();
        for _ in 0..300 {
            let seed = &seeds[rng.below(seeds.len())];
            let other = &seeds[rng.below(seeds.len())];
            inputs.push(mutate(&mut rng, seed, other));
        }
        for _ in 0..60 {
            let len = rng.below(48);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
            if !bytes.is_empty() && rng.below(5) != 0 {
                bytes[0] = kind;
            }
            inputs.push(bytes);
        }
        for bytes in &inputs {
            asked += 1;
            if frame_json::decode_json(&file.frame, bytes).is_ok() {
                accepted += 1;
            }
            if let Some(why) = disagreement(t, &mut testee, &file.frame, bytes) {
                failures.push(why);
            }
        }
    }
    eprintln!(
        "{asked} inputs, {accepted} decoded, {} disagreements",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {asked} inputs decode differently in {lang} and in Rust; the first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(asked >= 3000, "only {asked} inputs");
    // Canonical decoding refuses most mutations; some must still get through to deep fields.
    assert!(
        accepted >= 150,
        "only {accepted} of {asked} inputs decode: the mutations no longer reach deep fields"
    );
}

/// Every scalar leaf of `value` (numbers, strings, booleans, nulls), as JSON pointers.
fn leaves(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(o) => {
            for (k, v) in o {
                leaves(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                leaves(v, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// Positive vectors' values with mutated leaves encode as in Rust: the same bytes or the same
/// refusal.
pub fn mutated_values_encode_as_in_rust(t: &Generated) {
    let lang = t.language;
    let edges = [
        json!(0),
        json!(1),
        json!(-1),
        json!(127),
        json!(128),
        json!(-128),
        json!(-129),
        json!(255),
        json!(256),
        json!(32767),
        json!(32768),
        json!(65535),
        json!(65536),
        json!(2_147_483_648_u64),
        json!(4_294_967_295_u64),
        json!(4_294_967_296_u64),
        json!(9_007_199_254_740_993_u64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.5),
        json!(-0.5),
        json!(1.5),
        json!(2.5),
        json!(-2.5),
        json!(0.1),
        json!(359.99),
        json!(360.0),
        json!(-0.007),
        json!(1e30),
        json!(3.5e38),
        json!(-1e300),
        json!("18446744073709551615"),
        json!("-9223372036854775808"),
        json!("12x"),
        json!(null),
        json!(true),
        json!([]),
    ];
    let mut testee = start(t);
    let mut rng = Rng::new(0x0E7C_0DE5_00F1_1CE5);
    let mut failures = Vec::new();
    let mut asked = 0;
    for file in frame_files_for(&testee) {
        for case in &file.cases {
            let Some(value) = &case.value else { continue };
            let value = value.to_value();
            let mut paths = Vec::new();
            leaves(&value, String::new(), &mut paths);
            for _ in 0..8 {
                let Some(path) = paths.get(rng.below(paths.len())) else {
                    break;
                };
                let mut mutated = value.clone();
                if let Some(leaf) = mutated.pointer_mut(path) {
                    *leaf = edges[rng.below(edges.len())].clone();
                }
                asked += 1;
                let reply = ask(
                    t,
                    &mut testee,
                    json!({"op": "encode", "frame": file.frame, "value": mutated}),
                );
                let rust = frame_json::encode_json(&file.frame, &mutated);
                let same = match (&rust, reply.get("ok"), reply.get("error")) {
                    (Ok(bytes), Some(ok), None) => ok["hex"] == json!(hex(bytes)),
                    (Err(FrameError::Encode(e)), None, Some(err)) => {
                        err["kind"] == json!(e.kind.as_str())
                            && err["path"] == json!(e.path.to_string())
                    }
                    (Err(FrameError::Json { .. }), None, Some(err)) => {
                        err["kind"] == json!("bad_request")
                    }
                    _ => false,
                };
                if !same {
                    failures.push(format!(
                        "{} {mutated}: Rust {rust:?}, {lang} {reply}",
                        file.frame
                    ));
                }
            }
        }
    }
    eprintln!("{asked} values, {} disagreements", failures.len());
    assert!(asked >= 1000, "only {asked} values");
    assert!(
        failures.is_empty(),
        "{} of {asked} values encode differently in {lang} and in Rust; the first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Garbage and mutated request lines each get one reply, a line of JSON, and never crash it.
pub fn garbage_requests_get_one_reply_each(t: &Generated) {
    let mut valid: Vec<String> = vec![
        json!({"id": 0, "op": "hello", "protocol": 1}).to_string(),
        json!({"id": 1, "op": "open", "session": "acked"}).to_string(),
    ];
    for file in vectors::frame_files() {
        for case in &file.cases {
            let hex = case.hex.replace(' ', "");
            valid.push(
                json!({"id": 2, "op": "decode", "frame": file.frame, "hex": hex}).to_string(),
            );
            if let Some(value) = &case.value {
                let value = value.to_value();
                valid.push(
                    json!({"id": 3, "op": "encode", "frame": file.frame, "value": value})
                        .to_string(),
                );
            }
        }
    }
    let mut lines: Vec<Vec<u8>> = vec![
        b"[".repeat(100_000),
        b"{\"id\":".repeat(10_000),
        br#"{"id":1,"op":"encode","frame":"acked","value":{"tick":1e999}}"#.to_vec(),
        br#"{"id":1,"op":"decode","frame":"acked","hex":"0"}"#.to_vec(),
        br#"{"id":"\ud800","op":"hello"}"#.to_vec(),
        br#"{"id":[1,{"a":null}],"op":"bye!"}"#.to_vec(),
        b"\xff\xfe{}".to_vec(),
        b"{}".to_vec(),
        b"null".to_vec(),
    ];
    let mut rng = Rng::new(0x6A7B_A6E0_0000_0001);
    for _ in 0..3000 {
        let seed = valid[rng.below(valid.len())].as_bytes();
        let other = valid[rng.below(valid.len())].as_bytes();
        lines.push(mutate(&mut rng, seed, other));
    }
    for line in &mut lines {
        for b in line.iter_mut() {
            if *b == b'\n' {
                *b = b' ';
            }
        }
    }
    let expected = lines
        .iter()
        .filter(|l| l.iter().any(|b| !b" \t\r".contains(b)))
        .count();

    let mut child = Command::new(&t.command[0])
        .args(&t.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the testee starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        for line in &lines {
            if stdin
                .write_all(line)
                .and_then(|_| stdin.write_all(b"\n"))
                .is_err()
            {
                return;
            }
        }
        // Dropping stdin ends the input: the testee exits.
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut replies = 0;
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("every reply is a line of UTF-8");
        let reply: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {line}"));
        let members = ["ok", "error", "unimplemented"]
            .iter()
            .filter(|m| reply.get(**m).is_some())
            .count();
        assert!(
            reply.get("id").is_some() && members == 1,
            "not a reply: {line}"
        );
        replies += 1;
    }
    writer.join().expect("the writer thread");
    let status = child.wait().expect("the testee exits");
    let stderr = errors.join().expect("the stderr thread");
    assert!(
        status.success(),
        "the testee exited with {status}:\n{stderr}"
    );
    assert_eq!(replies, expected, "one reply per request line");
}
