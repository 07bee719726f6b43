//! The specification as a document (`docs/spec/`) holds to the code: every normative rule is
//! cited by the code that enforces it or the test that checks it, every identifier the code
//! cites is a rule of the document, and the layout diagrams the pages embed are what `ackwire
//! doc` draws from the layouts today.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_rule_is_cited_and_every_citation_is_a_rule() {
    let report = ackwire_conformance::coverage::scan(&root()).expect("the scan runs");
    assert!(report.rules.len() > 100, "{} rules", report.rules.len());
    assert!(
        report.is_ok(),
        "{}\n(`cargo run -q -p ackwire -- spec-coverage` prints the same report)",
        report.table()
    );
}

/// Every file under `dir`, relative to it, with its text.
fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_layout_pages_and_diagrams_are_what_ackwire_doc_writes() {
    let (spec, _) =
        ackwire_spec::load(&[root().join("spec/protocol")]).expect("the reference protocol loads");
    let drawn: BTreeMap<String, String> = ackwire_spec::gen::doc::generate(&spec)
        .into_iter()
        .collect();
    let committed = files(&root().join("docs/spec/layouts"));
    let stale: Vec<&String> = drawn
        .keys()
        .chain(committed.keys())
        .filter(|name| drawn.get(*name) != committed.get(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/spec/layouts is not what `ackwire doc` draws ({stale:?} differ): run \
         `rm -r docs/spec/layouts && cargo run -q -p ackwire -- doc --out docs/spec/layouts`"
    );
}
