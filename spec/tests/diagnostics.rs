//! One broken layout file per diagnostic, under `tests/diagnostics/`, each with the rendered
//! report it must produce beside it (`NAME.stderr`). Regenerate the expected reports with
//! `ACKWIRE_BLESS=1 cargo test -p ackwire-spec --test diagnostics`, and review the diff: a
//! failing comparison never rewrites anything by itself.

use std::path::Path;

/// Among them ACK-1's: `sent_ring_not_below_held_ring` and `check_every_zero`.
#[test]
fn every_broken_file_reports_what_it_expects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let bless = std::env::var_os("ACKWIRE_BLESS").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wire"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "the broken files are missing");
    let mut mismatches = Vec::new();
    for path in &paths {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = ackwire_spec::Source {
            name: format!("tests/diagnostics/{stem}.wire"),
            text: std::fs::read_to_string(path).unwrap(),
        };
        let report = match ackwire_spec::compile(std::slice::from_ref(&source)) {
            Ok(_) => panic!("{} compiled, but it is meant to be broken", source.name),
            Err(e) => e.to_string(),
        };
        // Every report is located: a `--> file:line:col` line under each error.
        let errors = report.lines().filter(|l| l.starts_with("error: ")).count() - 1;
        let located = report
            .lines()
            .filter(|l| l.contains(&format!("--> {}:", source.name)))
            .count();
        assert!(
            errors >= 1 && located == errors,
            "{}: unlocated errors in\n{report}",
            source.name
        );
        let expected_path = path.with_extension("stderr");
        if bless {
            std::fs::write(&expected_path, &report).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != report {
            mismatches.push(format!(
                "{}: expected\n{expected}\ngot\n{report}",
                source.name
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(re-run with ACKWIRE_BLESS=1 to accept, then review the diff)",
        mismatches.join("\n")
    );
}

#[test]
fn several_errors_in_one_file_are_all_reported() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics/several_errors.wire"),
    )
    .unwrap();
    let e = ackwire_spec::compile(&[ackwire_spec::Source {
        name: "several.wire".into(),
        text,
    }])
    .unwrap_err();
    let ackwire_spec::SpecError::Invalid { diagnostics, .. } = e else {
        panic!("not a diagnostic")
    };
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
}

#[test]
fn an_empty_file_is_a_valid_empty_spec() {
    let spec = ackwire_spec::compile(&[ackwire_spec::Source {
        name: "empty.wire".into(),
        text: String::new(),
    }])
    .unwrap();
    assert!(spec.files[0].items.is_empty());
}
