//! `docs/replicated-state.md` cannot drift from the code it shows: every fenced block the page
//! marks with a line `<!-- file: PATH -->` (or `<!-- file: PATH#NAME -->`) just above it is,
//! line for line, the file at PATH (from the repository's root), or the lines between
//! `ANCHOR: NAME` and `ANCHOR_END: NAME` in it (any anchor line inside left out). Every block
//! but a shell session (`sh`) carries a mark. A difference fails with the block's line in the
//! page.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What a mark names: the file's lines, or the anchor's.
fn excerpt(root: &Path, mark: &str) -> Result<Vec<String>, String> {
    let (path, anchor) = match mark.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (mark, None),
    };
    let text = std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"))?;
    let lines = text.lines().map(str::to_owned);
    let Some(name) = anchor else {
        return Ok(lines.collect());
    };
    let (start, end) = (format!("ANCHOR: {name}"), format!("ANCHOR_END: {name}"));
    let mut out = None;
    for line in lines {
        match &mut out {
            None if line.trim_end().ends_with(&start) => out = Some(Vec::new()),
            None => {}
            Some(_) if line.trim_end().ends_with(&end) => return Ok(out.unwrap_or_default()),
            Some(_) if line.contains("ANCHOR: ") || line.contains("ANCHOR_END: ") => {}
            Some(v) => v.push(line),
        }
    }
    Err(format!("{path} has no anchor `{name}` closed by `{end}`"))
}

/// Every difference between the page and the files it marks, each with its line in the page;
/// and how many blocks it checked.
fn check(page: &str, root: &Path) -> (Vec<String>, usize) {
    let lines: Vec<&str> = page.lines().collect();
    let (mut errors, mut checked) = (Vec::new(), 0);
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let open = i + 1;
        let body_start = i + 1;
        let mut j = body_start;
        while j < lines.len() && lines[j] != "```" {
            j += 1;
        }
        let body = &lines[body_start..j.min(lines.len())];
        let mark = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("<!-- file: "))
            .and_then(|l| l.strip_suffix(" -->"));
        match mark {
            None if lang == "sh" => {}
            None => errors.push(format!(
                "line {open}: a `{lang}` block without a `<!-- file: PATH#ANCHOR -->` line above it"
            )),
            Some(mark) => match excerpt(root, mark) {
                Err(e) => errors.push(format!("line {open}: {e}")),
                Ok(want) => {
                    checked += 1;
                    let at = (0..body.len().max(want.len()))
                        .find(|&k| body.get(k).copied() != want.get(k).map(String::as_str));
                    if let Some(k) = at {
                        errors.push(format!(
                            "line {}: the block differs from {mark}: the page has {:?}, the file {:?}",
                            body_start + k + 1,
                            body.get(k),
                            want.get(k)
                        ));
                    }
                }
            },
        }
        i = j + 1;
    }
    (errors, checked)
}

fn page() -> String {
    let path = root().join("docs/replicated-state.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_block_of_the_page_is_the_code_it_names() {
    let (errors, checked) = check(&page(), &root());
    assert!(
        errors.is_empty(),
        "docs/replicated-state.md:\n{}",
        errors.join("\n")
    );
    // The layout file, Cargo.toml, build.rs, the include, the server, the TypeScript and the C#
    // client at least.
    assert!(checked >= 7, "only {checked} blocks checked");
}

#[test]
fn a_block_edited_on_the_page_alone_fails_at_its_line() {
    let page = page();
    let (n, line) = page
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("state Fleet {"))
        .expect("the page shows `state Fleet`");
    let edited = page.replacen(line, "state Armada {", 1);
    let (errors, _) = check(&edited, &root());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(&format!("line {}: ", n + 1)),
        "{errors:?}"
    );
    // A block left unmarked is refused too.
    let unmarked = page.replacen("<!-- file: ", "<!-- ", 1);
    assert!(check(&unmarked, &root()).0[0].contains("without a"));
}
