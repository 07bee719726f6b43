//! The vectors derived from a spec (`ackwire vectors --spec FILES --out DIR`), for the
//! reference protocol: every case holds against the generated Rust codec (the judge: the
//! derivation computes its expectations from the lowering, never from a decoder) and against
//! the run-time codec; the committed set (`vectors/derived`) is what the code derives; the
//! derivation is a function of the spec and the seed; it reaches every error kind of the
//! taxonomy; and it leaves out only the cases the layout makes impossible.

use ackwire_codec::ErrorKind;
use ackwire_conformance::vectors::derive::{self, DEFAULT_SEED, LONG_LIST};
use ackwire_conformance::vectors::{self, Expectation};
use ackwire_spec::lower::Lowering;
use std::collections::BTreeSet;
use std::path::Path;

fn reference() -> ackwire_spec::model::Spec {
    ackwire_spec::reference_spec().expect("the reference protocol compiles")
}

#[test]
fn every_derived_case_holds_against_the_generated_and_the_run_time_codecs() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let derived = derive::derive(&low, DEFAULT_SEED);
    let mut failures = Vec::new();
    let mut total = 0;
    for file in &derived.files {
        for case in &file.cases {
            total += 1;
            for (judge, verdict) in [
                ("generated", vectors::verify_frame_case(&file.frame, case)),
                (
                    "run-time",
                    vectors::verify_case_run_time(&low, &file.frame, case),
                ),
            ] {
                if let Err(why) = verdict {
                    failures.push(format!("{} ({judge}): {why}", case.name));
                }
            }
        }
    }
    assert!(total > 400, "only {total} derived cases");
    assert!(
        failures.is_empty(),
        "{} of {total} derived cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn only_impossible_cases_are_left_out() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let derived = derive::derive(&low, DEFAULT_SEED);
    // A packed field inside the byte the field before it ends in cannot be cut inside.
    let unexplained: Vec<String> = derived
        .dropped
        .iter()
        .filter(|d| !d.why.contains("shares with the one before"))
        .map(|d| format!("{}: {}", d.name, d.why))
        .collect();
    assert!(unexplained.is_empty(), "{}", unexplained.join("\n"));
}

#[test]
fn the_derivation_is_a_function_of_the_spec_and_the_seed() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let one = derive::derive(&low, DEFAULT_SEED);
    assert_eq!(one, derive::derive(&low, DEFAULT_SEED));
    let other = derive::derive(&low, DEFAULT_SEED + 1);
    let hex_of = |d: &derive::Derived, name: &str| {
        d.files
            .iter()
            .flat_map(|f| &f.cases)
            .find(|c| c.name == name)
            .map(|c| c.hex.clone())
    };
    // What the seed does not draw stays; what it draws moves.
    assert_eq!(
        hex_of(&one, "acked/(frame)/max"),
        hex_of(&other, "acked/(frame)/max")
    );
    assert_eq!(
        hex_of(&one, "acked/tick/cut_short"),
        hex_of(&other, "acked/tick/cut_short")
    );
    assert_ne!(
        hex_of(&one, "acked/(frame)/random"),
        hex_of(&other, "acked/(frame)/random")
    );
}

#[test]
fn every_error_kind_is_reached_and_cases_are_named_by_path() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let derived = derive::derive(&low, DEFAULT_SEED);
    let mut kinds = BTreeSet::new();
    let mut names = BTreeSet::new();
    for file in &derived.files {
        for case in &file.cases {
            assert!(
                names.insert(case.name.clone()),
                "{} is named twice",
                case.name
            );
            let rest = case
                .name
                .strip_prefix(&format!("{}/", file.frame))
                .unwrap_or_else(|| panic!("{} does not start with its frame", case.name));
            assert!(
                rest.contains('/'),
                "{} is not <frame>/<path>/<what>",
                case.name
            );
            if let Ok(Expectation::Error(e)) = case.expectation() {
                kinds.insert(e.kind.clone());
            }
        }
    }
    // Every kind of the taxonomy can happen in some frame of the reference protocol.
    for kind in ErrorKind::ALL {
        assert!(
            kinds.contains(kind.as_str()),
            "no derived case expects {kind}"
        );
    }
}

#[test]
fn a_long_list_is_near_its_limit_and_no_file_grows_past_a_few_hundred_kilobytes() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let derived = derive::derive(&low, DEFAULT_SEED);
    for file in &derived.files {
        let text = vectors::render_frame_file(file).expect("render");
        assert!(
            text.len() < 400_000,
            "{}.json is {} bytes",
            file.frame,
            text.len()
        );
    }
    let case = derived
        .files
        .iter()
        .flat_map(|f| &f.cases)
        .find(|c| c.name == "acked/events/long")
        .expect("acked/events/long");
    // `event_count: u8`: the count's largest value, 255, under the cap.
    let Some(Expectation::Value(v)) = case.expectation().ok() else {
        panic!("a positive case");
    };
    assert_eq!(v.to_value()["events"].as_array().map(Vec::len), Some(255));
    let removed = derived
        .files
        .iter()
        .flat_map(|f| &f.cases)
        .find(|c| c.name == "acked/removed/long")
        .expect("acked/removed/long");
    let Some(Expectation::Value(v)) = removed.expectation().ok() else {
        panic!("a positive case");
    };
    // `removed_count: u16` could say 65535: the cap.
    assert_eq!(
        v.to_value()["removed"].as_array().map(Vec::len),
        Some(LONG_LIST)
    );
}

#[test]
fn the_committed_reference_set_is_what_the_code_derives() {
    let spec = reference();
    let low = Lowering::new(&spec);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/derived");
    let verification =
        derive::verify_derived(&low, &dir, DEFAULT_SEED).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        verification.failures.is_empty(),
        "vectors/derived is stale or does not hold (regenerate: ackwire vectors --write):\n{}",
        vectors::failure_lines(&verification.failures)
    );
    assert!(verification.total > 400);
}

/// The committed sets of the kitchen sink and the game, beside their layouts.
const COMMITTED: &[(&str, &str)] = &[
    (
        "spec/tests/sink/sink.wire",
        "spec/tests/sink/vectors/derived",
    ),
    ("examples/game/wire", "examples/game/vectors/derived"),
];

#[test]
fn the_sink_s_and_the_game_s_committed_sets_are_what_the_code_derives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (layout, dir) in COMMITTED {
        let (spec, _) =
            ackwire_spec::load(&[root.join(layout)]).unwrap_or_else(|e| panic!("{layout}: {e}"));
        let low = Lowering::new(&spec);
        let verification = derive::verify_derived(&low, &root.join(dir), DEFAULT_SEED)
            .unwrap_or_else(|e| panic!("{dir}: {e}"));
        assert!(
            verification.failures.is_empty(),
            "{dir} is stale or does not hold (regenerate: ackwire vectors --spec {layout} --out {}):\n{}",
            Path::new(dir).parent().map(|p| p.display().to_string()).unwrap_or_default(),
            vectors::failure_lines(&verification.failures)
        );
        assert!(verification.total > 50, "{dir}: {}", verification.total);
        let unexplained: Vec<String> = derive::derive(&low, DEFAULT_SEED)
            .dropped
            .into_iter()
            .filter(|d| !d.why.contains("shares with the one before"))
            .map(|d| format!("{}: {}", d.name, d.why))
            .collect();
        assert!(
            unexplained.is_empty(),
            "{layout}: {}",
            unexplained.join("\n")
        );
    }
}
