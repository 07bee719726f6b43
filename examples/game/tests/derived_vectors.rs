//! The game's derived vectors (`vectors/derived`, written by `ackwire vectors --spec wire --out
//! vectors`) held to the game's own generated codec: every positive case decodes to its value
//! and encodes back to its bytes, every negative case fails with its kind, offset, bit and path.
//! The derivation computes those from the layout; this codec, compiled by build.rs, is the
//! judge. That the files are what the layout derives is `ackwire-conformance`'s
//! tests/derived_vectors.rs.

use ackwire_conformance::vectors::{self, CaseCheck};
use std::path::Path;

#[test]
fn every_derived_case_holds_against_the_generated_codec() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/derived");
    let files = vectors::read_frames(&dir).unwrap_or_else(|e| panic!("{e}"));
    let frames: Vec<&str> = files.iter().map(|f| f.frame.as_str()).collect();
    assert_eq!(
        frames,
        [
            "arena_ack",
            "arena_packed",
            "arena_update",
            "cube_update",
            "match_update"
        ]
    );
    let mut failures = Vec::new();
    let mut total = 0;
    for file in &files {
        for case in &file.cases {
            total += 1;
            let verdict = CaseCheck::new(case).and_then(|check| {
                ackwire_example_game::visit_frame(&file.frame, check)
                    .ok_or_else(|| format!("no frame `{}`", file.frame))?
            });
            if let Err(why) = verdict {
                failures.push(format!("{}: {why}", case.name));
            }
        }
    }
    assert!(total > 50, "only {total} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
