//! The README's bench tables are the bench's output, not hand-edited: rendering the committed
//! `docs/bench/bench.json` again gives, byte for byte, the block between the README's bench
//! markers, and the chart beside it is that run's too.

use ackwire_bench::{render, Report};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn committed_report() -> Report {
    let json = std::fs::read_to_string(root().join("docs/bench/bench.json")).unwrap();
    serde_json::from_str(&json).unwrap()
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
    // The command that produced it is named in the block's first line.
    let command = block
        .split('`')
        .nth(1)
        .expect("the block names the command in backticks");
    assert!(command.contains(" bench"), "{command}");
    assert_eq!(
        block.trim(),
        render::markdown(&report, command).trim(),
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
}
