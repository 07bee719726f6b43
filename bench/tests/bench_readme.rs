//! The bench's figures are the bench's output, not hand-edited: rendering the committed
//! `docs/bench/bench.json` again gives, byte for byte, the report page `docs/bench/README.md`,
//! the chart beside it, and the headline block between the README's bench markers.

use ackwire_bench::{page, render, Report};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn committed_report() -> Report {
    let json = std::fs::read_to_string(root().join("docs/bench/bench.json")).unwrap();
    serde_json::from_str(&json).unwrap()
}

/// The command a rendered text names as what produced it: the first span in backticks after
/// "Produced by".
fn command_of(text: &str) -> &str {
    let after = &text[text.find("Produced by ").expect("names what produced it")..];
    after.split('`').nth(1).expect("the command in backticks")
}

#[test]
fn the_report_page_renders_from_the_committed_run() {
    let report = committed_report();
    let text = std::fs::read_to_string(root().join("docs/bench").join(page::PAGE)).unwrap();
    let command = command_of(&text);
    assert!(command.contains(" bench "), "{command}");
    assert!(command.contains("--out docs/bench"), "{command}");
    assert_eq!(
        text,
        page::page(&report, command),
        "docs/bench/README.md is not what docs/bench/bench.json renders: run the command it names"
    );
}

#[test]
fn the_readme_block_renders_from_the_committed_run() {
    let report = committed_report();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let begin = readme
        .find(render::BEGIN)
        .expect("the README has a bench block");
    let end = readme
        .find(render::END)
        .expect("the README's bench block ends");
    let block = &readme[begin + render::BEGIN.len()..end];
    let command = command_of(block);
    assert!(command.contains("--readme README.md"), "{command}");
    assert_eq!(
        block.trim(),
        page::headline(&report, command, "docs/bench/README.md").trim(),
        "the README's bench block is not what docs/bench/bench.json renders: run the command it names"
    );
}

#[test]
fn the_committed_run_is_a_full_release_run_of_every_scene_and_protocol() {
    let report = committed_report();
    assert!(!report.quick);
    assert_eq!(report.build, "release");
    let scenes: Vec<&str> = report.scenes.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(scenes, ["cube", "arena", "floats"]);
    let per_scene = report.rows.len() / scenes.len();
    assert_eq!(per_scene, 5 * ackwire_bench::run::PROTOCOLS.len());
    assert!(!report.targets.is_empty());
    let svg = std::fs::read_to_string(root().join("docs/bench/bench.svg")).unwrap();
    assert_eq!(
        svg,
        render::svg(&report),
        "docs/bench/bench.svg is not this run's chart"
    );
    // The many-client server bench, every scene it runs at every client count.
    let runs: Vec<(&str, u32)> = report
        .server
        .iter()
        .map(|r| (r.scene.as_str(), r.clients))
        .collect();
    let expected: Vec<(&str, u32)> = ackwire_bench::server::SCENES
        .iter()
        .flat_map(|k| ackwire_bench::server::CLIENTS.map(|n| (k.name(), n)))
        .collect();
    assert_eq!(runs, expected);
    let chart =
        std::fs::read_to_string(root().join("docs/bench").join(page::SERVER_CHART)).unwrap();
    assert_eq!(
        chart,
        render::server_svg(&report),
        "docs/bench/server.svg is not this run's chart"
    );
}
