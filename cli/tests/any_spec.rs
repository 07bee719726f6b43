//! A layout that is not in the repository, taken through the commands that read any spec at run
//! time (`--spec`): `vectors --out` and `--dir`, `decode`, `encode` and `explain`, with nothing
//! generated or built; and bad `--spec` input reported at file:line:col.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ackwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ackwire"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("ackwire runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("any-spec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A small game's frames, as a new user writes them: varints, zigzag, an ascending list, a
/// select on a mask, a union, `bytes?`, a packed record with bucket codes and a quaternion.
const LAYOUT: &str = r#"//! A team's own protocol.

bits Parts: u8 {
    POSITION = 0,
    HEALTH = 1,
    FAST = 2 requires POSITION,
}

record Unit {
    id: varint(32),
    parts: Parts,
    select parts {
        POSITION => x: zigzag(32),
        POSITION => y: zigzag(32),
        HEALTH => hp: u8,
    }
    speed: u16 if parts.FAST,
}

record Chat {
    from: u16,
    text: bytes,
}

record Ping {
}

union Event: u8 {
    Chat = 1,
    Ping = 2,
}

frame Tick {
    kind: u8 = 9,
    tick: varint,
    units: [Unit; varint] ascending(id),
    events: [Event; u8],
    note: bytes?,
}

packed record Turn {
    gap: bucket(1, 4, 8),
    turned: bool,
    orient: quat(7) if turned,
    step: quant(zbucket(2, 6), 1/64),
}

packed record Turns {
    count: u4,
    turns: [Turn; count] ascending(gap),
}

frame Spin {
    kind: u8 = 10,
    body: Turns,
}
"#;

#[test]
fn a_layout_of_ones_own_goes_through_vectors_decode_encode_and_explain() {
    let dir = scratch("layout");
    let layout = dir.join("game.wire");
    std::fs::write(&layout, LAYOUT).expect("the layout is written");
    let spec = layout.to_str().expect("a UTF-8 path");
    let out = dir.join("vectors");
    let out_s = out.to_str().expect("a UTF-8 path");

    let o = ackwire(&["vectors", "--spec", spec, "--out", out_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("wrote 2 derived vector files"),
        "{}",
        stdout(&o)
    );
    let o = ackwire(&["vectors", "--spec", spec, "--dir", out_s]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(" passed, 0 failed"), "{}", stdout(&o));

    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("derived/tick.json")).expect("tick.json"),
    )
    .expect("JSON");
    let cases = file["cases"].as_array().expect("cases");
    let case = |name: &str| {
        cases
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no case {name}"))
    };
    // Every error kind a field of this layout can raise is there.
    let kinds: std::collections::BTreeSet<&str> = cases
        .iter()
        .filter_map(|c| c["error"]["kind"].as_str())
        .collect();
    for kind in [
        "truncated",
        "bad_constant",
        "reserved_bit",
        "invalid_condition",
        "non_canonical_varint",
        "over_width",
        "count_too_large",
        "not_ascending",
        "unknown_tag",
        "trailing_bytes",
    ] {
        assert!(kinds.contains(kind), "no case of {kind}: {kinds:?}");
    }

    // A positive case decodes to its value and its value encodes to its bytes.
    let positive = case("tick/units[0].speed/present");
    let hex = positive["hex"].as_str().expect("hex");
    let o = ackwire(&["decode", "--spec", spec, "tick", hex]);
    assert!(o.status.success(), "{}", stderr(&o));
    let decoded: Value = serde_json::from_str(&stdout(&o)).expect("decode prints JSON");
    assert_eq!(decoded, positive["value"]);
    let o = ackwire(&[
        "encode",
        "--spec",
        spec,
        "tick",
        &positive["value"].to_string(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), hex);
    // Fields in declaration order, as the vectors hold them.
    let text = stdout(&ackwire(&["decode", "--spec", spec, "tick", hex]));
    let order: Vec<usize> = ["\"tick\"", "\"units\"", "\"events\"", "\"note\""]
        .iter()
        .map(|f| text.find(f).unwrap_or_else(|| panic!("{f} in {text}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");

    let o = ackwire(&["explain", "--spec", spec, "tick", hex]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = stdout(&o);
    for field in [
        "kind",
        "units[0].id",
        "units[0].parts",
        "units[0].speed",
        "note",
    ] {
        assert!(rows.contains(field), "no row {field}:\n{rows}");
    }

    // A negative case fails with its kind, offset and path.
    let negative = case("tick/units[0].parts/invalid_condition");
    let o = ackwire(&[
        "decode",
        "--spec",
        spec,
        "tick",
        negative["hex"].as_str().expect("hex"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let error = &negative["error"];
    let want = format!(
        "invalid_condition at byte {}, field {}",
        error["offset"],
        error["path"].as_str().unwrap_or_default()
    );
    assert!(stderr(&o).contains(&want), "{} lacks {want}", stderr(&o));
    let o = ackwire(&[
        "explain",
        "--spec",
        spec,
        "tick",
        negative["hex"].as_str().expect("hex"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("invalid_condition"), "{}", stderr(&o));

    // The packed frame: bucket codes and a quaternion, explained bit by bit.
    let spin: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("derived/spin.json")).expect("spin.json"),
    )
    .expect("JSON");
    let turned = spin["cases"]
        .as_array()
        .and_then(|c| {
            c.iter()
                .find(|c| c["name"] == "spin/body.turns[0].orient/present")
        })
        .expect("spin/body.turns[0].orient/present");
    let o = ackwire(&[
        "explain",
        "--spec",
        spec,
        "spin",
        turned["hex"].as_str().expect("hex"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("body.turns[0].orient"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("dropped"), "{}", stdout(&o));

    // A committed set that no longer matches the layout is refused, and says how to regenerate.
    let tick = out.join("derived/tick.json");
    let text = std::fs::read_to_string(&tick).expect("tick.json");
    std::fs::write(&tick, text.replacen("\"hex\": \"09", "\"hex\": \"0a", 1)).expect("write");
    let o = ackwire(&["vectors", "--spec", spec, "--dir", out_s]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("regenerate"), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad_constant"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_spec_input_is_reported_at_file_line_and_column() {
    let dir = scratch("bad");
    let broken = dir.join("broken.wire");
    std::fs::write(&broken, "frame F {\n    kind: u8 = 1,\n    x: Nope,\n}\n").expect("written");
    let broken = broken.to_str().expect("a UTF-8 path");
    for args in [
        vec!["decode", "--spec", broken, "f", "01"],
        vec!["encode", "--spec", broken, "f", "{}"],
        vec!["explain", "--spec", broken, "f", "01"],
        vec!["vectors", "--spec", broken, "--out", broken],
    ] {
        let o = ackwire(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(e.contains("broken.wire:3:8"), "{args:?}: {e}");
        assert!(e.contains("unknown type `Nope`"), "{args:?}: {e}");
        assert!(e.contains('^'), "{args:?}: {e}");
    }
    let missing = dir.join("missing.wire");
    let o = ackwire(&[
        "decode",
        "--spec",
        missing.to_str().unwrap_or(""),
        "f",
        "01",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.wire"), "{}", stderr(&o));

    let good = dir.join("good.wire");
    std::fs::write(&good, "frame Only {\n    kind: u8 = 1,\n    n: u16,\n}\n").expect("written");
    let good = good.to_str().expect("a UTF-8 path");
    let o = ackwire(&["decode", "--spec", good, "other", "01"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown frame `other`; the frames are: only"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["encode", "--spec", good, "only", r#"{"n": 70000}"#]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("n: 70000 does not fit"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["encode", "--spec", good, "only", r#"{"n": 1, "m": 2}"#]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown field `m`"), "{}", stderr(&o));
    let o = ackwire(&["decode", "--spec", good, "only", "01 02"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("truncated at byte 2, field n"),
        "{}",
        stderr(&o)
    );
    let o = ackwire(&["vectors", "--spec", good]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--out DIR"), "{}", stderr(&o));
    // A folder of golden frame vectors is written by `--write`, never over by `--out`.
    let golden = dir.join("golden");
    std::fs::create_dir_all(golden.join("frames")).expect("made");
    let o = ackwire(&[
        "vectors",
        "--spec",
        good,
        "--out",
        golden.to_str().unwrap_or(""),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("vectors --write"), "{}", stderr(&o));
    assert!(!golden.join("derived").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_fuzz_crate_of_a_layout_starts_from_every_derived_vector() {
    let dir = scratch("fuzz");
    let layout = dir.join("game.wire");
    std::fs::write(&layout, LAYOUT).expect("the layout is written");
    let spec = layout.to_str().expect("a UTF-8 path");
    let vectors = dir.join("vectors");
    let fuzz = dir.join("fuzz");
    let o = ackwire(&[
        "vectors",
        "--spec",
        spec,
        "--out",
        vectors.to_str().expect("a UTF-8 path"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ackwire(&[
        "gen",
        "--lang",
        "fuzz",
        "--out",
        fuzz.to_str().expect("a UTF-8 path"),
        spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Generated again, no file is rewritten: what was built from them stays fresh.
    let modified = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .expect("a time")
    };
    let manifest = fuzz.join("Cargo.toml");
    let before = modified(&manifest);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = ackwire(&[
        "gen",
        "--lang",
        "fuzz",
        "--out",
        fuzz.to_str().expect("UTF-8"),
        spec,
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(modified(&manifest), before, "gen rewrote an unchanged file");
    for frame in ["tick", "spin"] {
        let file: Value = serde_json::from_str(
            &std::fs::read_to_string(vectors.join(format!("derived/{frame}.json")))
                .expect("the frame's vectors"),
        )
        .expect("JSON");
        let cases = file["cases"].as_array().expect("cases");
        let corpus = fuzz.join(format!("corpus/decode_{frame}"));
        let seeds: Vec<Vec<u8>> = std::fs::read_dir(&corpus)
            .unwrap_or_else(|e| panic!("{}: {e}", corpus.display()))
            .map(|e| std::fs::read(e.expect("an entry").path()).expect("a seed"))
            .collect();
        // One file per case: no two names collide.
        assert_eq!(seeds.len(), cases.len(), "{frame}");
        for case in cases {
            let hex: String = case["hex"]
                .as_str()
                .expect("hex")
                .split_whitespace()
                .collect();
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect();
            assert!(
                seeds.contains(&bytes),
                "{frame}: no seed for {}",
                case["name"]
            );
        }
    }
}
