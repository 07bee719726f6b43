//! The `ackwire` command line end to end: exit codes, what goes to standard output, and that bad
//! input gets a located message rather than a panic.

use std::path::Path;
use std::process::{Command, Output};

fn ackwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ackwire"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp(name: &str, text: &[u8]) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn check_accepts_the_reference_protocol() {
    let o = ackwire(&["check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files = reference_layouts();
    assert!(
        stdout(&o).contains(&format!("{files} layout files valid")),
        "{}",
        stdout(&o)
    );
}

/// How many layout files the reference protocol has (`spec/protocol/*.wire`).
fn reference_layouts() -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/protocol");
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "wire")
        })
        .count()
}

#[test]
fn check_rejects_a_broken_file_with_a_located_message() {
    let p = temp("broken.wire", b"record A {\n    pose: Posee,\n}\n");
    let o = ackwire(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("error: unknown type `Posee`"), "{e}");
    assert!(e.contains("broken.wire:2:11"), "{e}");
    assert!(e.contains("^^^^^"), "{e}");
}

#[test]
fn check_survives_hostile_input() {
    let mut garbage: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    garbage.extend(b"\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
    let p = temp("garbage.wire", &garbage);
    let o = ackwire(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
    let p = temp("empty.wire", b"");
    assert!(ackwire(&["check", p.to_str().unwrap()]).status.success());
    let missing = ackwire(&["check", "/nonexistent/x.wire"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("cannot read /nonexistent/x.wire"));
}

#[test]
fn spec_prints_the_model_and_its_schema() {
    let o = ackwire(&["spec", "--json"]);
    assert!(o.status.success());
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        model["files"].as_array().unwrap().len(),
        reference_layouts()
    );
    let o = ackwire(&["spec", "--schema"]);
    let schema: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(schema["title"], "Spec");
}

#[test]
fn fmt_check_reports_unformatted_files_and_fmt_fixes_them() {
    let p = temp("messy.wire", b"record   A{a:u8}\n");
    let o = ackwire(&["fmt", "--check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("would reformat"));
    assert!(ackwire(&["fmt", p.to_str().unwrap()]).status.success());
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "record A {\n    a: u8,\n}\n"
    );
    assert!(ackwire(&["fmt", "--check", p.to_str().unwrap()])
        .status
        .success());
    assert!(
        ackwire(&["fmt", "--check"]).status.success(),
        "spec/protocol is formatted"
    );
}

#[test]
fn decode_a_datagram_built_by_hand_from_seed_003() {
    // version 2, frame 1, tick 300 (ac 02), input ack 7, stream tick 299 (ab 02), precision
    // 0.5 (00 00 00 3f), parts 1, one update: id 42, spawn tag 300 (2c 01), mask x|y (03),
    // x = -3 (zigzag 5), y = 64 (zigzag 128: 80 01).
    let hex = "02 01 ac02 07 ab02 0000003f 01 01 2a 2c01 03 05 8001";
    let o = ackwire(&["decode", "datagram", hex]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["frame"], 1);
    assert_eq!(v["tick"], 300);
    assert_eq!(v["input_ack"], 7);
    assert_eq!(v["stream_tick"], 299);
    assert_eq!(v["precision"], 0.5);
    assert_eq!(v["parts"], 1);
    let u = &v["updates"][0];
    assert_eq!(u["id"], 42);
    assert_eq!(u["spawn_tag"], 300);
    assert_eq!(u["mask"], serde_json::json!(["X", "Y"]));
    assert_eq!(u["x"], -3);
    assert_eq!(u["y"], 64);
    assert!(u.get("z").is_none());
    // And back: encode prints the same bytes.
    let o = ackwire(&["encode", "datagram", &v.to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim().replace(' ', ""), hex.replace(' ', ""));
}

#[test]
fn decode_names_offset_field_and_kind_of_bad_bytes() {
    let o = ackwire(&[
        "decode",
        "datagram",
        "02 01 ac02 07 ab02 0000003f 01 01 2a 2c01 13",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("reserved_bit at byte 16, field updates[0].mask"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["decode", "datagram", "zz"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad hex"));
    let o = ackwire(&["decode", "nope", "00"]);
    assert!(stderr(&o).contains("unknown frame `nope`"));
}

/// The coded frame (kind 13) decodes and encodes against the basis `--basis` gives: a delta's
/// step is its residual from the prediction, so the same bytes read on no basis are another
/// frame; a frame that takes no basis refuses one.
#[test]
fn decode_and_encode_read_a_coded_frame_on_its_basis() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("vectors/frames/acked_coded.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let case = file["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "acked_coded/velocity_off_prediction")
        .expect("the case");
    let (hex, basis) = (case["hex"].as_str().unwrap(), case["basis"].to_string());
    let o = ackwire(&["decode", "acked_coded", hex, "--basis", &basis]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v, case["value"]);
    let bare = ackwire(&["decode", "acked_coded", hex]);
    assert!(bare.status.success(), "{}", stderr(&bare));
    let w: serde_json::Value = serde_json::from_slice(&bare.stdout).unwrap();
    assert_ne!(w["body"], v["body"], "no basis predicts nothing");
    let value = case["value"].to_string();
    let o = ackwire(&["encode", "acked_coded", &value, "--basis", &basis]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), hex);
    let o = ackwire(&["decode", "ack", "00", "--basis", "{}"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("takes no basis"), "{}", stderr(&o));
    let o = ackwire(&["decode", "acked_coded", hex, "--basis", "{"]);
    assert!(
        stderr(&o).contains("--basis is not valid JSON"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn encode_refuses_invalid_values_and_json() {
    let o = ackwire(&["encode", "delta_ack", "{\"newest\": 1}"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("missing field `mask`"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["encode", "delta_ack", "{"]);
    assert!(stderr(&o).contains("not valid"), "{}", stderr(&o));
}

#[test]
fn explain_prints_a_row_per_field() {
    let o = ackwire(&[
        "explain",
        "delta_ack",
        "0a 05 ff00000000000000 2a00000000000000",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for field in ["kind", "newest", "mask", "digest"] {
        assert!(text.contains(field), "{field} missing from\n{text}");
    }
    let o = ackwire(&["explain", "delta_ack", "0a 05"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("newest"));
    assert!(stderr(&o).contains("truncated"));
}

#[test]
fn bench_refuses_a_bad_command_line_before_measuring() {
    let o = ackwire(&["bench", "--scene", "moon"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no scene `moon`"), "{}", stderr(&o));
    let o = ackwire(&["bench", "--loss", "150"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--loss 150"), "{}", stderr(&o));
    let readme = temp("no-markers.md", b"# a readme\n\nno bench block here\n");
    let o = ackwire(&["bench", "--readme", readme.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bench:begin"), "{}", stderr(&o));
    assert!(
        stdout(&o).is_empty(),
        "measured before refusing: {}",
        stdout(&o)
    );
}

#[test]
fn bench_writes_its_table_json_svg_and_readme_block() {
    let out = temp("bench-readme.md", b"").with_file_name("bench-out");
    let readme = temp(
        "bench-readme.md",
        b"# top\n\n<!-- bench:begin -->\nold\n<!-- bench:end -->\n\n# bottom\n",
    );
    let o = ackwire(&[
        "bench",
        "--quick",
        "--scene",
        "arena",
        "--loss",
        "5",
        "--out",
        out.to_str().unwrap(),
        "--readme",
        readme.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for protocol in ackwire_bench::run::PROTOCOLS {
        assert!(stdout(&o).contains(protocol), "{}", stdout(&o));
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("bench.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), ackwire_bench::run::PROTOCOLS.len());
    assert!(rows
        .iter()
        .all(|r| r["scene"] == "arena" && r["loss_pct"] == 5.0));
    assert!(rows.iter().all(|r| r["bytes_down"].as_u64().unwrap() > 0));
    let svg = std::fs::read_to_string(out.join("bench.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{svg:.80}"
    );
    // The report page: every table, the chart beside it, the run named.
    let page = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(page.starts_with("# ackwire bench\n"), "{page}");
    assert!(page.contains("bench --quick --scene arena"), "{page}");
    assert!(page.contains("![kbps against loss"), "{page}");
    assert!(page.contains("kbps by loss each way"), "{page}");
    // The README's block: the headline figures and a link to the page, from the README's folder.
    let text = std::fs::read_to_string(&readme).unwrap();
    assert!(
        text.starts_with("# top\n") && text.ends_with("# bottom\n"),
        "{text}"
    );
    assert!(!text.contains("\nold\n"), "{text}");
    assert!(text.contains("bench --quick --scene arena"), "{text}");
    assert!(text.contains("| acked |"), "{text}");
    assert!(text.contains("(bench-out/README.md)"), "{text}");
}

#[test]
fn conform_stops_at_once_with_one_line_when_the_testee_does_not_answer_hello() {
    // A testee that reads nothing and says nothing.
    let o = ackwire(&[
        "conform",
        "--testee",
        "sh -c 'exec sleep 600'",
        "--timeout-ms",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 1, "{e}");
    assert!(
        lines[0].contains("did not answer hello")
            && lines[0].contains("no reply to hello within 1000 ms"),
        "{e}"
    );
    // No per-case result was printed: no table, no progress line, no verdict.
    assert_eq!(stdout(&o), "");
}

// ---- ackwire breaking (issue 20) ----

#[test]
fn breaking_exits_1_and_locates_the_change_in_both_versions() {
    let o = ackwire(&[
        "breaking",
        "spec/tests/breaking/width/old.wire",
        "spec/tests/breaking/width/new.wire",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("error[width]: `Snap.tick` is 16 bits wide, was 32"),
        "{out}"
    );
    assert!(
        out.contains("--> spec/tests/breaking/width/old.wire:31:5"),
        "{out}"
    );
    assert!(
        out.contains("--> spec/tests/breaking/width/new.wire:31:5"),
        "{out}"
    );
    assert!(
        out.ends_with("error: 1 breaking change (0 warnings, 0 notes)\n"),
        "{out}"
    );
    // Folders too: a frame moved to a file of its own, and one removed.
    let old = temp(
        "breaking-old.wire",
        b"frame A {\n    kind: u8 = 1,\n}\n\nframe B {\n    kind: u8 = 2,\n    x: u16,\n}\n",
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-{}-new", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("b.wire"),
        "frame B {\n    kind: u8 = 2,\n    x: u16,\n}\n",
    )
    .unwrap();
    let o = ackwire(&["breaking", old.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("error[removed]: frame `A` (kind 1) is gone"),
        "{out}"
    );
    assert!(out.contains("breaking-old.wire:1:7"), "{out}");
    assert!(out.contains("= NEW: not there"), "{out}");
}

#[test]
fn breaking_exits_0_on_changes_that_keep_the_bytes() {
    let o = ackwire(&["breaking", "spec/protocol", "spec/protocol"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ok: no breaking change (0 warnings, 0 notes)\n");
    let o = ackwire(&[
        "breaking",
        "examples/game/wire",
        "examples/game/wire/game.wire",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = ackwire(&[
        "breaking",
        "spec/tests/breaking/ok__rename/old.wire",
        "spec/tests/breaking/ok__rename/new.wire",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("warning[rename]: field `Health.hp` is named `health_points` now"),
        "{out}"
    );
    assert!(
        out.contains("--> spec/tests/breaking/ok__rename/old.wire:71:5"),
        "{out}"
    );
    assert!(
        out.contains("--> spec/tests/breaking/ok__rename/new.wire:71:5"),
        "{out}"
    );
    assert!(
        out.ends_with("ok: no breaking change (2 warnings, 4 notes)\n"),
        "{out}"
    );
}

#[test]
fn breaking_exits_2_on_a_version_that_does_not_compile() {
    let broken = temp("breaking-broken.wire", b"record A {\n    pose: Posee,\n}\n");
    let o = ackwire(&["breaking", "spec/protocol", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("error: unknown type `Posee`"), "{e}");
    assert!(e.contains("breaking-broken.wire:2:11"), "{e}");
    assert!(stdout(&o).is_empty());
    let o = ackwire(&["breaking", "/nonexistent/old.wire", "spec/protocol"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read /nonexistent/old.wire"),
        "{}",
        stderr(&o)
    );
}

// ---- ackwire doc (issue 20) ----

#[test]
fn doc_writes_a_site_for_the_reference_protocol_and_the_game() {
    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-doc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let reference = base.join("reference");
    let o = ackwire(&["doc", "--out", reference.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("wrote "), "{}", stdout(&o));
    for page in [
        "index.html",
        "style.css",
        "acked.html",
        "datagram.html",
        "svg/Acked.svg",
    ] {
        assert!(reference.join(page).is_file(), "{page} not written");
    }
    // The diagram docs/tools.md shows is this command's output.
    let drawn = std::fs::read_to_string(reference.join("svg/Acked.svg")).unwrap();
    let committed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/acked-diagram.svg"),
    )
    .unwrap();
    assert!(
        drawn == committed,
        "docs/acked-diagram.svg is stale: cargo run -q -p ackwire -- doc --out target/doc && \
         cp target/doc/svg/Acked.svg docs/acked-diagram.svg"
    );
    let acked = std::fs::read_to_string(reference.join("acked.html")).unwrap();
    assert!(acked.contains("<svg "), "the diagrams are inline");
    assert!(!acked.contains("<script"), "no JavaScript");
    let game = base.join("game");
    let o = ackwire(&["doc", "--out", game.to_str().unwrap(), "examples/game/wire"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(game.join("game.html").is_file());
    let index = std::fs::read_to_string(game.join("index.html")).unwrap();
    assert!(index.contains("href=\"game.html\""), "{index}");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn doc_refuses_a_broken_file_with_a_located_message() {
    let p = temp(
        "doc-broken.wire",
        b"frame A {\n    kind: u8 = 1,\n    x: Nope,\n}\n",
    );
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-doc-broken-{}", std::process::id()));
    let o = ackwire(&["doc", "--out", out.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("doc-broken.wire:3:"), "{}", stderr(&o));
    assert!(
        !out.join("index.html").exists(),
        "nothing written for a broken spec"
    );
}

#[test]
fn gen_fuzz_takes_the_layouts_allocation_multiple_and_only_there() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let dir = out.to_str().unwrap();
    // The game's layout keeps the codec's multiple: its generated decoders fit it
    // (examples/game/tests/decode_alloc.rs).
    let o = ackwire(&["gen", "--lang", "fuzz", "--out", dir, "examples/game/wire"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub const DECODE_ALLOC_PER_BYTE: u64 = 48;"),
        "{lib}"
    );
    let _ = std::fs::remove_dir_all(&out);
    // A layout that states its own multiple.
    let o = ackwire(&[
        "gen",
        "--lang",
        "fuzz",
        "--alloc-per-byte",
        "96",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub const DECODE_ALLOC_PER_BYTE: u64 = 96;"),
        "{lib}"
    );
    let o = ackwire(&[
        "gen",
        "--lang",
        "ts",
        "--alloc-per-byte",
        "96",
        "--out",
        dir,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("goes with --lang fuzz"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&[
        "gen",
        "--lang",
        "fuzz",
        "--alloc-per-byte",
        "0",
        "--out",
        dir,
    ]);
    assert!(
        !o.status.success(),
        "a multiple of 0 would refuse every decode"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn gen_with_the_runtime_package_writes_no_runtime_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-gen-{}", std::process::id()));
    // The codec, each declared state's binding (the reference declares one, `Reference`) and
    // each machine schema's (`ReferenceBaseline`, `ReferenceDatagram`, `ReferenceDelta`); no
    // runtime file, since the package brings the runtime.
    for (lang, only) in [
        (
            "ts",
            &[
                "protocol.ts",
                "reference.ts",
                "reference_baseline.ts",
                "reference_datagram.ts",
                "reference_delta.ts",
            ][..],
        ),
        (
            "cpp",
            &[
                "protocol.hpp",
                "reference.hpp",
                "reference_baseline.hpp",
                "reference_datagram.hpp",
                "reference_delta.hpp",
            ][..],
        ),
        (
            "cs",
            &[
                "Protocol.cs",
                "Reference.cs",
                "ReferenceBaseline.cs",
                "ReferenceDatagram.cs",
                "ReferenceDelta.cs",
            ][..],
        ),
    ] {
        let out = dir.join(lang);
        let _ = std::fs::remove_dir_all(&out);
        let o = ackwire(&[
            "gen",
            "--lang",
            lang,
            "--runtime",
            "package",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{lang}: {}", stderr(&o));
        let mut written: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        assert_eq!(written, only, "{lang}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    for lang in ["rust", "wireshark"] {
        let o = ackwire(&["gen", "--lang", lang, "--runtime", "package", "--out", "x"]);
        assert_eq!(o.status.code(), Some(1), "{lang}");
        assert!(
            stderr(&o).contains("--runtime applies to --lang ts, cpp and cs"),
            "{}",
            stderr(&o)
        );
        assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("../x").exists());
    }
}

// ---- ackwire spec-coverage ----

#[test]
fn spec_coverage_reports_every_rule_and_one_rule_on_request() {
    let o = ackwire(&["spec-coverage"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let table = stdout(&o);
    assert!(
        table.contains("every normative rule is enforced and tested"),
        "{table}"
    );
    assert!(
        table.contains("informative (no code enforces them):"),
        "{table}"
    );
    // One rule's citations, each a file and line with its role and language.
    let o = ackwire(&["spec-coverage", "--rule", "ACK-30"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cited = stdout(&o);
    assert!(cited.starts_with("ACK-30 (docs/spec/acked.md:"), "{cited}");
    assert!(cited.contains("codec/src/acked/decoder.rs:"), "{cited}");
    assert!(cited.contains("  site  rust"), "{cited}");
    assert!(cited.contains("  test  "), "{cited}");
    // An identifier no page defines, built here so that this file does not cite it.
    let unknown = format!("ACK-{}", 99_999);
    let o = ackwire(&["spec-coverage", "--rule", &unknown]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("no page of docs/spec defines {unknown}")),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["spec-coverage", "--json"]);
    assert!(o.status.success());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json["rules"].as_array().unwrap().len() > 100);
    assert_eq!(json["problems"], serde_json::json!([]));
    // A folder without the pages is an error that says where to run it.
    let o = ackwire(&["spec-coverage", "--root", "cli"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("holds no specification pages"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn conform_with_a_spec_refuses_the_bundled_testee_and_vectors_of_another_spec() {
    let o = ackwire(&["conform", "--spec", "examples/game/wire"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--spec needs --testee"),
        "{}",
        stderr(&o)
    );
    // The reference protocol's vectors are not the game's: refused before any testee starts.
    let o = ackwire(&[
        "conform",
        "--spec",
        "examples/game/wire",
        "--dir",
        "vectors",
        "--testee",
        "false",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("which the spec does not have"),
        "{}",
        stderr(&o)
    );
}

/// `gen --testee` of a spec with a state in Rust builds over the ackwire crates `--ackwire-crates`
/// names, and refuses a folder that does not hold them, or the option without a Rust testee.
#[test]
fn gen_rust_testee_builds_over_the_ackwire_crates_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ackwire-cli-{}", std::process::id()))
        .join("game-testee");
    let out_arg = out.to_str().expect("a UTF-8 path");
    let root_arg = root.to_str().expect("a UTF-8 path");
    let o = ackwire(&[
        "gen",
        "--lang",
        "rust",
        "--testee",
        "--ackwire-crates",
        root_arg,
        "--out",
        out_arg,
        "examples/game/wire",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("the manifest");
    for dir in ["rt", "codec", "server"] {
        let path = root.join(dir).display().to_string();
        assert!(
            manifest.contains(&format!("path = \"{path}\"")),
            "{manifest}"
        );
    }
    let empty = out.join("src");
    let o = ackwire(&[
        "gen",
        "--lang",
        "rust",
        "--testee",
        "--ackwire-crates",
        empty.to_str().expect("UTF-8"),
        "--out",
        out_arg,
        "examples/game/wire",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no crate at"), "{}", stderr(&o));
    let o = ackwire(&[
        "gen",
        "--lang",
        "ts",
        "--testee",
        "--ackwire-crates",
        root_arg,
        "--out",
        out_arg,
        "examples/game/wire",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--lang rust --testee"),
        "{}",
        stderr(&o)
    );
}
