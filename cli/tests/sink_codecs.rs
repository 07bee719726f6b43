//! The kitchen sink's generated TypeScript, C++ and Rust codecs (spec/tests/sink/sink.wire,
//! every construct of the language, issue 19's `quat(B)`, `bucket(...)`, `zbucket(...)` and
//! packed ascending lists among them, and spec/tests/lang19/moves.wire, more of the same) held
//! to one verdict, and to the Rust walk of the same plan
//! (`ackwire_conformance::explain`, a second decoder held to the generated Rust codec by
//! conformance/tests/explain_agrees.rs), before any golden vector of those constructs exists.
//!
//! The test generates the three codecs with this crate's `ackwire-spec` and builds a line-driven
//! driver of each: tests/sink_codecs/driver.ts with the runtime's pinned tsc (strict),
//! driver.cpp with g++ and the testee's warnings as errors under AddressSanitizer and UBSan,
//! driver.rs as a crate of its own over this repository's ackwire-rt (built offline, into the
//! target folder the generated Rust testees of spec_testees.rs share). Then:
//! - it encodes each value of [`VALUES`] in the three languages: the same bytes, which decode
//!   back to the same JSON form;
//! - it has each value of [`REFUSED`] refused by the three, with the same error kind and path;
//! - it walks every one-bit flip, every truncation and two extensions of each encoding through
//!   the three decoders: the same verdict (a value of the same JSON form, or an error of the
//!   same kind at the same byte, bit and field path), and every mutation that still decodes
//!   re-encodes to exactly its bytes in each language (a decoder accepts only what its encoder
//!   writes).
//!
//! - it runs the sink's derived vectors (spec/tests/sink/vectors/derived, `ackwire vectors
//!   --spec spec/tests/sink/sink.wire --out spec/tests/sink/vectors`) through the three: the
//!   generated Rust codec is their judge (the derivation computes every expectation from the
//!   layout), and the TypeScript and C++ codecs are held to the same.
//!
//! Needs node (with npm, the first time, for the runtime's pinned tsc) and g++; without them
//! the test fails and says so.

use ackwire_conformance::explain::{self, ExplainError};
use ackwire_conformance::vectors::{self, Expectation};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the repository")
        .to_path_buf()
}

/// The layout files generated together: the kitchen sink, and issue 19's additions in one
/// frame of their own (spec/tests/lang19/moves.wire).
const LAYOUTS: &[&str] = &["spec/tests/sink/sink.wire", "spec/tests/lang19/moves.wire"];

/// Values of frames in their JSON form, by frame, each encoded by both languages. Numbers past
/// 2^53 are decimal strings, as the JSON form writes them.
const VALUES: &[(&str, &str)] = &[
    (
        "sink",
        r#"{"wide":["LOW","HIGH"],"n":3,"when":7,"q":2.25,"z":-5,"data":"beef","nested":[[1,2],[]],"ids":[1,5,"18446744073709551615"],"recs":[{"key":1,"delete":"00"},{"key":9,"delete":""}],"tagged":{"inner":{"key":4,"delete":"ff"}},"body":{"c":5,"d":-9,"xs":[{"p":31},{"p":0}]}}"#,
    ),
    (
        "motion",
        r#"{"body":{"turned":false,"gap":0,"step":0,"full":0,"x":0,"moves":[],"marks":[],"slots":[],"orients":[],"codes":[]}}"#,
    ),
    (
        "motion",
        r#"{"body":{"turned":true,"orient":{"largest":3,"rest":[0,0,0]},"gap":17,"step":-274,"full":"18446744073709551615","x":0.125,"moves":[{"eid":0,"wide":false,"near":-4,"rot":{"largest":3,"rest":[0,0,0]}},{"eid":272,"wide":true,"far":-2048,"rot":{"largest":0,"rest":[7,0,0]}}],"marks":[1,65],"slots":[0,31],"orients":[{"largest":3,"rest":[0,0,0]},{"largest":2,"rest":[10,0,-1]}],"codes":[-9,8,0]}}"#,
    ),
    (
        "moves",
        r#"{"tick":0,"body":{"moves":[],"ids":[],"ticks":[],"big":0,"huge":0,"scaled":0,"turned":false,"flat":[]}}"#,
    ),
    (
        "moves",
        r#"{"tick":513,"body":{"moves":[{"eid":0,"wide":false,"gap":1,"dx":0,"fine":{"largest":3,"rest":[0,0,0]}},{"eid":17,"wide":true,"wide_gap":4000,"dx":-274,"fine":{"largest":0,"rest":[0,0,32767]}},{"eid":1040,"wide":false,"gap":7,"dx":273,"fine":{"largest":3,"rest":[1000,-2000,30000]}}],"ids":[0,1,9,72],"ticks":[5,63],"big":"4611686018427388031","huge":"18446744073709551615","scaled":-4.25,"turned":true,"orient":{"largest":2,"rest":[12,-4,250]},"flat":[{"largest":2,"rest":[0,0,1]},{"largest":0,"rest":[-1,0,0]}]}}"#,
    ),
    (
        "moves",
        r#"{"tick":65535,"body":{"moves":[{"eid":16,"wide":true,"wide_gap":0,"dx":-1,"fine":{"largest":1,"rest":[-23170,23170,0]}}],"ids":[72],"ticks":[0,1,2],"big":"-4611686018427388032","huge":1,"scaled":4.125,"turned":false,"flat":[{"largest":3,"rest":[0,0,0]},{"largest":0,"rest":[1,0,0]},{"largest":1,"rest":[0,0,0]}]}}"#,
    ),
];

/// The body of a value of frame `moves` that the fields of each of [`REFUSED`] go into.
const BODY: &str = r#"{"moves":[],"ids":[],"ticks":[],"big":0,"huge":0,"scaled":0,"flat":[]}"#;

/// Values both encoders must refuse: fields put into [`BODY`] (beside its own, or instead of
/// one), with the error each encoder must give (`KIND PATH`).
const REFUSED: &[(&str, &str)] = &[
    (
        r#""turned":true,"orient":{"largest":3,"rest":[255,0,0]}"#,
        "non_canonical body.orient",
    ),
    (
        r#""turned":true,"orient":{"largest":3,"rest":[-256,0,0]}"#,
        "over_width body.orient",
    ),
    (
        r#""turned":false,"orient":{"largest":3,"rest":[0,0,0]}"#,
        "invalid_condition body.orient",
    ),
    (
        r#""turned":false,"moves":[{"eid":1041,"wide":false,"gap":0,"dx":0,"fine":{"largest":3,"rest":[0,0,0]}}]"#,
        "over_width body.moves[0].eid",
    ),
    (
        r#""turned":false,"moves":[{"eid":5,"wide":false,"gap":0,"dx":0,"fine":{"largest":3,"rest":[0,0,0]}},{"eid":5,"wide":false,"gap":0,"dx":0,"fine":{"largest":3,"rest":[0,0,0]}}]"#,
        "not_ascending body.moves[1].eid",
    ),
    (
        r#""turned":false,"moves":[{"eid":5,"wide":false,"gap":0,"dx":274,"fine":{"largest":3,"rest":[0,0,0]}}]"#,
        "over_width body.moves[0].dx",
    ),
    (
        r#""turned":false,"moves":[{"eid":5,"wide":true,"gap":0,"dx":0,"fine":{"largest":3,"rest":[0,0,0]}}]"#,
        "invalid_condition body.moves[0].gap",
    ),
    (r#""turned":false,"ids":[5,5]"#, "not_ascending body.ids[1]"),
    (r#""turned":false,"ids":[73]"#, "over_width body.ids[0]"),
    (r#""turned":false,"ticks":[64]"#, "over_width body.ticks[0]"),
    (r#""turned":false,"scaled":4.25"#, "over_width body.scaled"),
    (
        r#""turned":false,"big":"4611686018427388032""#,
        "over_width body.big",
    ),
    (
        r#""turned":false,"flat":[{"largest":3,"rest":[1,-1,0]}]"#,
        "non_canonical body.flat[0]",
    ),
];

/// One driver process and its pipes: a request line in, an answer line out.
struct Driver {
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Driver {
    fn start(name: &'static str, mut command: Command) -> Driver {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("the {name} driver does not start: {e}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Driver {
            name,
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, request: &str) -> String {
        writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("the {} driver does not read: {e}", self.name));
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("the {} driver does not answer: {e}", self.name));
        assert!(n > 0, "the {} driver ended at `{request}`", self.name);
        line.trim_end_matches('\n').to_string()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(command: &mut Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what} does not run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write_files(dir: &Path, files: &[(String, String)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a file has a folder"))
            .expect("the output folder is made");
        std::fs::write(&path, text).expect("a generated file is written");
    }
}

/// The TypeScript codec of `spec` and its driver, compiled; the driver started.
fn typescript(spec: &ackwire_spec::model::Spec, work: &Path) -> Driver {
    let root = repository_root();
    let runtime = root.join("typescript");
    if !runtime.join("node_modules").is_dir() {
        run(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&runtime),
            "npm ci in typescript",
        );
    }
    let dir = work.join("ts");
    let _ = std::fs::remove_dir_all(&dir);
    let files = ackwire_spec::gen::ts::generate(spec);
    write_files(&dir.join("src"), &files);
    std::fs::copy(
        root.join("cli/tests/sink_codecs/driver.ts"),
        dir.join("src/driver.ts"),
    )
    .expect("the driver is copied");
    let types = runtime.join("node_modules/@types");
    let tsconfig = serde_json::json!({
        "compilerOptions": {
            "target": "es2020",
            "lib": ["es2020"],
            "module": "nodenext",
            "moduleResolution": "nodenext",
            "types": ["node"],
            "typeRoots": [types.display().to_string()],
            "strict": true,
            "exactOptionalPropertyTypes": true,
            "noUncheckedIndexedAccess": true,
            "noUnusedLocals": true,
            "noUnusedParameters": true,
            "noImplicitReturns": true,
            "rootDir": "src",
            "outDir": "dist",
            "newLine": "lf"
        },
        "include": ["src"]
    });
    std::fs::write(dir.join("tsconfig.json"), tsconfig.to_string()).expect("tsconfig is written");
    std::fs::write(dir.join("package.json"), "{\"type\": \"module\"}\n")
        .expect("package.json is written");
    run(
        Command::new("node")
            .arg(runtime.join("node_modules/typescript/bin/tsc"))
            .arg("-p")
            .arg(&dir),
        "tsc (strict) over the generated sink and its driver",
    );
    let mut command = Command::new("node");
    command.arg(dir.join("dist/driver.js"));
    Driver::start("TypeScript", command)
}

/// The C++ codec of `spec` and its driver, compiled with the testee's warnings as errors under
/// AddressSanitizer and UBSan; the driver started.
fn cpp(spec: &ackwire_spec::model::Spec, work: &Path) -> Driver {
    let root = repository_root();
    let dir = work.join("cpp");
    let _ = std::fs::remove_dir_all(&dir);
    let files = ackwire_spec::gen::cpp::generate(spec);
    write_files(&dir, &files);
    let binary = dir.join("driver");
    run(
        Command::new(std::env::var("CXX").unwrap_or_else(|_| "g++".into()))
            .args([
                "-std=c++17",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wpedantic",
                "-Wshadow",
                "-Wconversion",
                "-Wsign-conversion",
                "-O1",
                // Line tables only: the reports keep file:line, the build is faster.
                "-g1",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
                "-D_GLIBCXX_SANITIZE_VECTOR",
            ])
            .arg("-I")
            .arg(&dir)
            .arg("-o")
            .arg(&binary)
            .arg(root.join("cli/tests/sink_codecs/driver.cpp")),
        "g++ over the generated sink and its driver",
    );
    let mut command = Command::new(binary);
    command.env("ASAN_OPTIONS", "detect_leaks=1");
    Driver::start("C++", command)
}

/// The generated Rust codec of `paths` and its driver (tests/sink_codecs/driver.rs), built as a
/// crate of its own over this repository's ackwire-rt, offline, with the workspace's Cargo.lock
/// (every crate it needs is one the workspace has fetched); the driver started.
fn rust(paths: &[PathBuf], work: &Path) -> Driver {
    let root = repository_root();
    let dir = work.join("rust");
    std::fs::create_dir_all(dir.join("src")).expect("the crate's folder is made");
    std::fs::create_dir_all(dir.join("gen")).expect("the crate's folder is made");
    let mut builder = ackwire_spec::Builder::new();
    for p in paths {
        builder = builder.path(p);
    }
    let code = builder.generate().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("gen/protocol.rs"), code).expect("protocol.rs is written");
    std::fs::copy(
        root.join("cli/tests/sink_codecs/driver.rs"),
        dir.join("src/main.rs"),
    )
    .expect("the driver is copied");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock is copied");
    let manifest = format!(
        "[package]\nname = \"sink-codecs-driver\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nackwire-rt = {{ path = {:?} }}\nserde = \"1\"\n\
         serde_json = \"1\"\n\n[workspace]\n",
        root.join("rt").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml is written");
    // The target folder the generated Rust testees of cli/tests/spec_testees.rs build into: the
    // dependencies both use (serde, bitvec, ...) are built once.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spec-testees/cargo-target");
    run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--quiet", "--offline", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target)
            .env_remove("CARGO_TARGET_DIR"),
        "cargo build of the generated Rust codec and its driver",
    );
    Driver::start(
        "Rust",
        Command::new(target.join("debug/sink-codecs-driver")),
    )
}

/// The Rust walk's verdict on `bytes`, in the drivers' form: `ok`, or `err KIND OFFSET BIT PATH`.
fn rust_verdict(spec: &ackwire_spec::model::Spec, frame: &str, bytes: &[u8]) -> String {
    match explain::explain(spec, frame, bytes) {
        Ok(_) => "ok".to_string(),
        Err(ExplainError::Decode { error, .. }) => format!(
            "err {} {} {} {}",
            error.kind.as_str(),
            error.offset,
            error.bit.map_or("-".to_string(), |b| b.to_string()),
            error.path
        ),
        Err(other) => panic!("the Rust walk cannot walk {frame}: {other}"),
    }
}

/// The verdict part of a driver's decode answer: `ok` for a value, the error as it is.
fn verdict(answer: &str) -> &str {
    if answer.starts_with("ok ") {
        "ok"
    } else {
        answer
    }
}

/// Two JSON forms equal as values: numbers compared as integers when both are, else as doubles
/// (one language prints `1.0` where another prints `1`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_json(va, vb))
        }
        _ => a == b,
    }
}

fn json_of(answer: &str) -> Value {
    serde_json::from_str(answer.trim_start_matches("ok "))
        .unwrap_or_else(|e| panic!("`{answer}` is not a JSON answer: {e}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn the_sinks_typescript_cpp_and_rust_codecs_agree() {
    let root = repository_root();
    let paths: Vec<PathBuf> = LAYOUTS.iter().map(|p| root.join(p)).collect();
    let (spec, _) = ackwire_spec::load(&paths).unwrap_or_else(|e| panic!("{e}"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sink_codecs");
    std::fs::create_dir_all(&work).expect("the work folder is made");
    let mut ts = typescript(&spec, &work);
    let mut cc = cpp(&spec, &work);
    let mut rs = rust(&paths, &work);

    let mut encodings = Vec::new();
    for (frame, value) in VALUES {
        let request = format!("encode {frame} {value}");
        let (a, b) = (ts.ask(&request), cc.ask(&request));
        assert_eq!(a, b, "TypeScript and C++ encode {value} differently");
        assert_eq!(
            a,
            rs.ask(&request),
            "TypeScript and Rust encode {value} differently"
        );
        assert!(a.starts_with("ok "), "{value} does not encode: {a}");
        let bytes = unhex(&a[3..]);
        assert_eq!(
            rust_verdict(&spec, frame, &bytes),
            "ok",
            "the Rust walk refuses {a} ({value})"
        );
        let back = ts.ask(&format!("decode {frame} {}", hex(&bytes)));
        assert!(
            same_json(
                &json_of(&back),
                &serde_json::from_str(value).expect("a JSON value")
            ),
            "{value} decodes back as {back}"
        );
        encodings.push((*frame, bytes));
    }

    for (fields, want) in REFUSED {
        let mut body: Value = serde_json::from_str(BODY).expect("BODY is JSON");
        let over: Value = serde_json::from_str(&format!("{{{fields}}}")).expect("fields are JSON");
        for (k, v) in over.as_object().expect("an object") {
            body[k] = v.clone();
        }
        let request = format!(
            "encode moves {}",
            serde_json::json!({"tick": 1, "body": body})
        );
        for driver in [&mut ts, &mut cc, &mut rs] {
            assert_eq!(
                driver.ask(&request),
                format!("err {want}"),
                "{} encodes {fields}",
                driver.name
            );
        }
    }

    let (mut checked, mut decoded) = (0usize, 0usize);
    for (frame, bytes) in &encodings {
        let mut mutations: Vec<Vec<u8>> = Vec::new();
        for bit in 0..bytes.len() * 8 {
            let mut m = bytes.clone();
            m[bit / 8] ^= 1 << (bit % 8);
            mutations.push(m);
        }
        for len in 0..bytes.len() {
            mutations.push(bytes[..len].to_vec());
        }
        for extra in [0x00u8, 0x01] {
            let mut m = bytes.clone();
            m.push(extra);
            mutations.push(m);
        }
        for m in mutations {
            let request = format!("decode {frame} {}", hex(&m));
            let (a, b) = (ts.ask(&request), cc.ask(&request));
            let c = rs.ask(&request);
            assert_eq!(
                verdict(&a),
                verdict(&b),
                "TypeScript and C++ on {}",
                hex(&m)
            );
            assert_eq!(
                verdict(&a),
                verdict(&c),
                "TypeScript and Rust on {}",
                hex(&m)
            );
            assert_eq!(
                verdict(&a),
                rust_verdict(&spec, frame, &m),
                "TypeScript and the Rust walk on {}",
                hex(&m)
            );
            checked += 1;
            if verdict(&a) == "ok" {
                assert!(same_json(&json_of(&a), &json_of(&b)), "{a}\n{b}");
                assert!(same_json(&json_of(&a), &json_of(&c)), "{a}\n{c}");
                let again = format!("encode {frame} {}", &a[3..]);
                for driver in [&mut ts, &mut cc, &mut rs] {
                    assert_eq!(
                        driver.ask(&again),
                        format!("ok {}", hex(&m)),
                        "{} re-encodes {} otherwise",
                        driver.name,
                        hex(&m)
                    );
                }
                decoded += 1;
            }
        }
    }
    println!(
        "{checked} inputs through the TypeScript, C++ and Rust decoders and the Rust walk, \
         {decoded} of them decoded and re-encoded"
    );

    let derived = vectors::read_frames(&root.join("spec/tests/sink/vectors/derived"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut cases = 0;
    for file in &derived {
        for case in &file.cases {
            cases += 1;
            let hex = case.hex.replace(' ', "");
            let request = format!("decode {} {hex}", file.frame);
            let expectation = case
                .expectation()
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            for driver in [&mut rs, &mut ts, &mut cc] {
                let answer = driver.ask(&request);
                match expectation {
                    Expectation::Value(value) => {
                        let expected = value.to_value();
                        let agrees = answer.starts_with("ok ")
                            && if driver.name == "Rust" {
                                json_of(&answer) == expected
                            } else {
                                same_json(&json_of(&answer), &expected)
                            };
                        assert!(agrees, "{} decodes {}: {answer}", driver.name, case.name);
                        let again = driver.ask(&format!("encode {} {expected}", file.frame));
                        assert_eq!(
                            again,
                            format!("ok {hex}"),
                            "{} encodes {}",
                            driver.name,
                            case.name
                        );
                    }
                    Expectation::Error(e) => {
                        let want = format!(
                            "err {} {} {} {}",
                            e.kind,
                            e.offset,
                            e.bit.map_or("-".to_string(), |b| b.to_string()),
                            e.path
                        );
                        assert_eq!(answer, want, "{} decodes {}", driver.name, case.name);
                    }
                }
            }
        }
    }
    println!("{cases} derived vectors of the sink through the Rust, TypeScript and C++ codecs");
    assert!(cases > 100, "too few derived vectors: {cases}");
    assert!(checked > 1000, "too few inputs to mean anything: {checked}");
    assert!(
        decoded > 0,
        "no mutation decoded: the re-encoding went untested"
    );
}
