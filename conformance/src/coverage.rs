//! Specification coverage (`ackwire spec-coverage`): which rules of the specification under
//! `docs/spec/` are enforced and tested where, in every language, as s2n-quic's duvet reports it.
//!
//! A page defines a rule with a list item that opens with its identifier in bold, the page's
//! prefix, a hyphen and a number (`- **PAGE-N** ...`), followed by ` *(informative)*` for a
//! rule no code can enforce. Code cites a rule by writing its identifier anywhere in a file (in
//! a comment, a test's name, a vector's `seed`). The scan is text only: no build, no parse of
//! any language.
//!
//! A citation counts as a *test* when its file is a test file (a `tests` or `test` folder, a
//! `tests.rs`, `*_test.*`, `*.test.ts`, `*Tests.cs`, a fuzz target, a harness, a golden vector)
//! or it sits in a Rust file below an inline `#[cfg(test)] mod ... {`; otherwise it marks the
//! site that enforces the rule. The files scanned are those git tracks or would track (ignored
//! build output and generated files left out), or every file under the root outside a git
//! checkout. The report fails when a normative rule has no enforcing site or no test, when a
//! file (or a page) cites an identifier no page defines, or when two pages define one.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the specification's pages live, from the repository root.
pub const SPEC_DIR: &str = "docs/spec";

/// Folders never scanned for citations: build output, dependencies, history, generated
/// snapshots of the generators' output (the generator's own sources are scanned instead), the
/// documents (which explain rules rather than enforce them), and fuzz corpora.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "target",
    "node_modules",
    "dist",
    "build",
    "snapshots",
    "corpus",
    "artifacts",
    "docs",
];

/// The file kinds scanned for citations.
const SCANNED: &[&str] = &[
    "rs", "ts", "mts", "mjs", "hpp", "cpp", "h", "cs", "lua", "wire", "json", "sh", "py",
];

/// Why a scan could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverageError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// What was being read.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The root holds no specification pages.
    #[error("{0} holds no specification pages (docs/spec/*.md): run from the repository root, or pass its path")]
    NoPages(PathBuf),
}

/// The language (or kind of file) a citation is in, the report's columns (named in the JSON
/// report as in the table's headings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Lang {
    /// Rust (the codec, the runtime, the server, the tools).
    #[serde(rename = "rust")]
    Rust,
    /// TypeScript (the runtime under `typescript/`, the socket example's page).
    #[serde(rename = "ts")]
    TypeScript,
    /// C++ (the runtime under `cpp/`).
    #[serde(rename = "cpp")]
    Cpp,
    /// C# (the runtime under `csharp/`).
    #[serde(rename = "cs")]
    CSharp,
    /// The generators under `spec/src/gen/`, where a rule is printed into generated code.
    #[serde(rename = "gen")]
    Generator,
    /// The bundled testees under `conformance/testees/`, in any language.
    #[serde(rename = "testees")]
    Testees,
    /// Layout files (`.wire`).
    #[serde(rename = "layouts")]
    Layouts,
    /// Golden vectors (`vectors/`).
    #[serde(rename = "vectors")]
    Vectors,
    /// Anything else scanned (scripts).
    #[serde(rename = "other")]
    Other,
}

impl Lang {
    /// Every column, in the report's order.
    pub const ALL: [Lang; 9] = [
        Lang::Rust,
        Lang::TypeScript,
        Lang::Cpp,
        Lang::CSharp,
        Lang::Generator,
        Lang::Testees,
        Lang::Layouts,
        Lang::Vectors,
        Lang::Other,
    ];

    /// The column's heading.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::TypeScript => "ts",
            Lang::Cpp => "cpp",
            Lang::CSharp => "cs",
            Lang::Generator => "gen",
            Lang::Testees => "testees",
            Lang::Layouts => "layouts",
            Lang::Vectors => "vectors",
            Lang::Other => "other",
        }
    }
}

/// Whether a citation marks where a rule is enforced or where it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The line that enforces the rule.
    Site,
    /// A test that checks it.
    Test,
}

/// One rule of the specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Its identifier: the page's prefix, a hyphen, a number.
    pub id: String,
    /// The page that defines it, from the repository root.
    pub page: String,
    /// The page's line (from 1).
    pub line: usize,
    /// Whether it is informative: no code can enforce it.
    pub informative: bool,
    /// Its first sentence, for the report.
    pub summary: String,
}

/// One mention of a rule's identifier in a scanned file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Citation {
    /// The identifier cited.
    pub id: String,
    /// The file, from the repository root, with `/` separators.
    pub path: String,
    /// The line (from 1).
    pub line: usize,
    /// The file's language.
    pub lang: Lang,
    /// Site or test.
    pub role: Role,
}

/// Something the report fails on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Problem {
    /// A normative rule no file cites.
    Uncited {
        /// The rule.
        id: String,
    },
    /// A normative rule only tests cite: no line says where it is enforced.
    Unenforced {
        /// The rule.
        id: String,
    },
    /// A normative rule only enforcing sites cite: no test says it checks it.
    Untested {
        /// The rule.
        id: String,
    },
    /// A file or page cites an identifier no page defines.
    Undefined {
        /// The identifier.
        id: String,
        /// Where.
        path: String,
        /// The line.
        line: usize,
    },
    /// Two definitions of one identifier.
    Duplicate {
        /// The identifier.
        id: String,
        /// The first definition, `page:line`.
        first: String,
        /// The second.
        second: String,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Uncited { id } => {
                write!(
                    f,
                    "{id}: a normative rule that no code enforces and no test checks"
                )
            }
            Problem::Undefined { id, path, line } => {
                write!(
                    f,
                    "{path}:{line}: cites {id}, which no page of {SPEC_DIR} defines"
                )
            }
            Problem::Unenforced { id } => {
                write!(
                    f,
                    "{id}: a normative rule that tests cite but no code says it enforces"
                )
            }
            Problem::Untested { id } => {
                write!(
                    f,
                    "{id}: a normative rule that code enforces but no test says it checks"
                )
            }
            Problem::Duplicate { id, first, second } => {
                write!(f, "{id} is defined twice: {first} and {second}")
            }
        }
    }
}

/// The scan's result: every rule, every citation, and what fails.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The rules, in page order.
    pub rules: Vec<Rule>,
    /// The citations, by file and line.
    pub citations: Vec<Citation>,
    /// What the report fails on.
    pub problems: Vec<Problem>,
}

/// Scans the repository at `root`: the pages under `docs/spec/`, then every scanned file.
pub fn scan(root: &Path) -> Result<Report, CoverageError> {
    let spec = root.join(SPEC_DIR);
    let mut pages = Vec::new();
    let entries = std::fs::read_dir(&spec).map_err(|_| CoverageError::NoPages(root.into()))?;
    for entry in entries {
        let path = entry
            .map_err(|source| CoverageError::Read {
                path: spec.clone(),
                source,
            })?
            .path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    if pages.is_empty() {
        return Err(CoverageError::NoPages(root.into()));
    }
    pages.sort();
    let mut texts = Vec::new();
    for page in &pages {
        texts.push((relative(root, page), read(page)?));
    }
    let mut files = match tracked(root) {
        Some(files) => files,
        None => {
            let mut files = Vec::new();
            walk(root, root, &mut files)?;
            files
        }
    };
    files.sort();
    let mut sources = Vec::new();
    for file in files {
        let text = match std::fs::read(root.join(&file)) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(source) => {
                return Err(CoverageError::Read {
                    path: root.join(&file),
                    source,
                })
            }
        };
        sources.push((file, text));
    }
    Ok(build(&texts, &sources))
}

/// The report of `pages` (path and text of each page) and `sources` (path and text of each
/// scanned file), without touching the file system.
pub fn build(pages: &[(String, String)], sources: &[(String, String)]) -> Report {
    let mut rules: Vec<Rule> = Vec::new();
    let mut problems = Vec::new();
    let mut defined: BTreeMap<String, String> = BTreeMap::new();
    for (page, text) in pages {
        for rule in rules_of(page, text) {
            let at = format!("{}:{}", rule.page, rule.line);
            if let Some(first) = defined.get(&rule.id) {
                problems.push(Problem::Duplicate {
                    id: rule.id.clone(),
                    first: first.clone(),
                    second: at,
                });
                continue;
            }
            defined.insert(rule.id.clone(), at);
            rules.push(rule);
        }
    }
    let prefixes: BTreeSet<String> = rules.iter().map(|r| prefix(&r.id).to_string()).collect();
    // The pages' own mentions must name rules that exist too.
    for (page, text) in pages {
        for (line, id) in mentions(text, &prefixes) {
            if !defined.contains_key(&id) {
                problems.push(Problem::Undefined {
                    id,
                    path: page.clone(),
                    line,
                });
            }
        }
    }
    let mut citations = Vec::new();
    for (path, text) in sources {
        let lang = lang_of(path);
        let test_file = is_test_file(path);
        let test_from = if path.ends_with(".rs") {
            inline_tests_from(text)
        } else {
            None
        };
        for (line, id) in mentions(text, &prefixes) {
            if !defined.contains_key(&id) {
                problems.push(Problem::Undefined {
                    id,
                    path: path.clone(),
                    line,
                });
                continue;
            }
            let role = if test_file || test_from.is_some_and(|from| line >= from) {
                Role::Test
            } else {
                Role::Site
            };
            citations.push(Citation {
                id,
                path: path.clone(),
                line,
                lang,
                role,
            });
        }
    }
    let sited: BTreeSet<&str> = citations
        .iter()
        .filter(|c| c.role == Role::Site)
        .map(|c| c.id.as_str())
        .collect();
    let tested: BTreeSet<&str> = citations
        .iter()
        .filter(|c| c.role == Role::Test)
        .map(|c| c.id.as_str())
        .collect();
    for rule in rules.iter().filter(|r| !r.informative) {
        let id = rule.id.clone();
        match (sited.contains(id.as_str()), tested.contains(id.as_str())) {
            (true, true) => {}
            (false, false) => problems.push(Problem::Uncited { id }),
            (false, true) => problems.push(Problem::Unenforced { id }),
            (true, false) => problems.push(Problem::Untested { id }),
        }
    }
    Report {
        rules,
        citations,
        problems,
    }
}

impl Report {
    /// Whether nothing fails.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// The citations of rule `id`.
    pub fn citations_of<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Citation> + 'a {
        self.citations.iter().filter(move |c| c.id == id)
    }

    /// How many sites and tests cite `id` in `lang`.
    pub fn count(&self, id: &str, lang: Lang) -> (usize, usize) {
        self.citations_of(id)
            .filter(|c| c.lang == lang)
            .fold((0, 0), |(s, t), c| match c.role {
                Role::Site => (s + 1, t),
                Role::Test => (s, t + 1),
            })
    }

    /// The report as a table: per rule, `sites/tests` in each language, then the informative
    /// rules, then every problem.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let normative = self.rules.iter().filter(|r| !r.informative).count();
        let _ = writeln!(
            out,
            "spec coverage: {} rules in {SPEC_DIR} ({normative} normative, {} informative), {} citations",
            self.rules.len(),
            self.rules.len() - normative,
            self.citations.len()
        );
        let _ = writeln!(
            out,
            "each cell: sites/tests citing the rule in that language ('.' none)\n"
        );
        let _ = write!(out, "{:<10}", "rule");
        for lang in Lang::ALL {
            let _ = write!(out, " {:>7}", lang.name());
        }
        let _ = writeln!(out, "  summary");
        for rule in self.rules.iter().filter(|r| !r.informative) {
            let _ = write!(out, "{:<10}", rule.id);
            for lang in Lang::ALL {
                let cell = match self.count(&rule.id, lang) {
                    (0, 0) => ".".to_string(),
                    (s, t) => format!("{s}/{t}"),
                };
                let _ = write!(out, " {cell:>7}");
            }
            let _ = writeln!(out, "  {}", clip(&rule.summary, 60));
        }
        let _ = writeln!(
            out,
            "\nper language: normative rules with a site / with a test"
        );
        for lang in Lang::ALL {
            let (mut sites, mut tests) = (0, 0);
            for rule in self.rules.iter().filter(|r| !r.informative) {
                let (s, t) = self.count(&rule.id, lang);
                sites += usize::from(s > 0);
                tests += usize::from(t > 0);
            }
            let _ = writeln!(out, "  {:<8} {sites:>4} / {tests:>4}", lang.name());
        }
        let _ = writeln!(
            out,
            "\nenforced in a runtime but cited by none of its tests (the golden vectors and the \
             other languages' tests may still check them):"
        );
        for lang in [Lang::Rust, Lang::TypeScript, Lang::Cpp, Lang::CSharp] {
            let ids = self.untested_in(lang);
            let _ = writeln!(
                out,
                "  {:<8} {:>4}  {}",
                lang.name(),
                ids.len(),
                ids.join(" ")
            );
        }
        let informative: Vec<&Rule> = self.rules.iter().filter(|r| r.informative).collect();
        if !informative.is_empty() {
            let _ = writeln!(out, "\ninformative (no code enforces them):");
            for rule in informative {
                let n = self.citations_of(&rule.id).count();
                let _ = writeln!(
                    out,
                    "  {:<10} {:<24} cited {n} times  {}",
                    rule.id,
                    format!("{}:{}", rule.page, rule.line),
                    clip(&rule.summary, 60)
                );
            }
        }
        if self.problems.is_empty() {
            let _ = writeln!(
                out,
                "\nevery normative rule is enforced and tested; every cited rule exists"
            );
        } else {
            let _ = writeln!(out, "\n{} problems:", self.problems.len());
            for p in &self.problems {
                let _ = writeln!(out, "  {p}");
            }
        }
        out
    }

    /// The normative rules that code in `lang` enforces and no test in `lang` cites, in page
    /// order: where that language's tests could name the rule next.
    pub fn untested_in(&self, lang: Lang) -> Vec<&str> {
        self.rules
            .iter()
            .filter(|r| !r.informative)
            .filter(|r| matches!(self.count(&r.id, lang), (s, 0) if s > 0))
            .map(|r| r.id.as_str())
            .collect()
    }

    /// Every citation of rule `id`, one per line (`path:line  role  lang`), under the rule's
    /// definition; `None` when no page defines it.
    pub fn rule(&self, id: &str) -> Option<String> {
        let rule = self.rules.iter().find(|r| r.id == id)?;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} ({}:{}){}\n  {}",
            rule.id,
            rule.page,
            rule.line,
            if rule.informative {
                ", informative"
            } else {
                ""
            },
            rule.summary
        );
        for c in self.citations_of(id) {
            let role = match c.role {
                Role::Site => "site",
                Role::Test => "test",
            };
            let _ = writeln!(out, "  {}:{}  {role}  {}", c.path, c.line, c.lang.name());
        }
        Some(out)
    }
}

/// The rules a page defines: list items opening with a bold identifier.
fn rules_of(page: &str, text: &str) -> Vec<Rule> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rules = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("- **") else {
            continue;
        };
        let Some((id, rest)) = rest.split_once("**") else {
            continue;
        };
        if !is_id(id) {
            continue;
        }
        let (informative, rest) = match rest.trim_start().strip_prefix("*(informative)*") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        // The item goes on over its indented continuation lines.
        let mut body = rest.trim().to_string();
        for next in &lines[i + 1..] {
            if next.starts_with("  ") && !next.trim().is_empty() {
                body.push(' ');
                body.push_str(next.trim());
            } else {
                break;
            }
        }
        rules.push(Rule {
            id: id.to_string(),
            page: page.to_string(),
            line: i + 1,
            informative,
            summary: first_sentence(&body),
        });
    }
    rules
}

/// Whether `s` is an identifier: capitals, a hyphen, digits.
fn is_id(s: &str) -> bool {
    let Some((p, n)) = s.split_once('-') else {
        return false;
    };
    !p.is_empty()
        && p.bytes().all(|b| b.is_ascii_uppercase())
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
}

fn prefix(id: &str) -> &str {
    id.split_once('-').map_or(id, |(p, _)| p)
}

/// Every identifier of one of `prefixes` in `text`, with its line: the prefix preceded by
/// neither a letter, a digit, `_` nor `-`, then `-` and digits not followed by a letter, a
/// digit or `_`.
fn mentions(text: &str, prefixes: &BTreeSet<String>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut at = 0;
        while let Some(pos) = line[at..].find('-') {
            let dash = at + pos;
            at = dash + 1;
            let start = bytes[..dash]
                .iter()
                .rposition(|b| !b.is_ascii_uppercase())
                .map_or(0, |p| p + 1);
            if start == dash || !prefixes.contains(&line[start..dash]) {
                continue;
            }
            if start > 0 && is_word(bytes[start - 1]) {
                continue;
            }
            let digits = bytes[dash + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                continue;
            }
            let end = dash + 1 + digits;
            if bytes.get(end).is_some_and(|b| is_word(*b)) {
                continue;
            }
            found.push((i + 1, line[start..end].to_string()));
        }
    }
    found
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The line (from 1) from which a Rust file's inline tests run: the line after a
/// `#[cfg(test)]` whose next item is a module with a body (`mod tests;` declares a file).
fn inline_tests_from(text: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "#[cfg(test)]" {
            continue;
        }
        let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty())?;
        let next = next.trim();
        if (next.starts_with("mod ") || next.starts_with("pub(crate) mod ")) && next.ends_with('{')
        {
            return Some(i + 1);
        }
    }
    None
}

/// The column a file's citations go in.
fn lang_of(path: &str) -> Lang {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    if path.starts_with("spec/src/gen/") {
        Lang::Generator
    } else if path.starts_with("conformance/testees/") {
        Lang::Testees
    } else if path.starts_with("vectors/") || (path.contains("/vectors/") && ext == "json") {
        Lang::Vectors
    } else {
        match ext {
            "rs" => Lang::Rust,
            "ts" | "mts" | "mjs" => Lang::TypeScript,
            "hpp" | "cpp" | "h" => Lang::Cpp,
            "cs" => Lang::CSharp,
            "wire" => Lang::Layouts,
            _ => Lang::Other,
        }
    }
}

/// Whether a whole file is a test: by its folder or its name.
fn is_test_file(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let name = parts.last().copied().unwrap_or_default();
    parts[..parts.len().saturating_sub(1)].iter().any(|d| {
        matches!(
            *d,
            "tests" | "test" | "fuzz_targets" | "fuzzing" | "vectors" | "proptest-regressions"
        )
    }) || matches!(name, "tests.rs" | "harness.rs" | "fuzzing.rs")
        || name.contains("_test.")
        || name.ends_with(".test.ts")
        || name.ends_with("Tests.cs")
}

fn first_sentence(body: &str) -> String {
    // A sentence ends at ". " after a word of more than one letter (not "e.g." or "i.e.").
    let mut end = body.len();
    let bytes = body.as_bytes();
    for (i, _) in body.match_indices(". ") {
        let word = body[..i].rsplit(' ').next().unwrap_or_default();
        if word.len() > 1 && !word.contains('.') && bytes[i - 1].is_ascii_alphanumeric() {
            end = i + 1;
            break;
        }
    }
    body[..end].to_string()
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let cut: String = s.chars().take(n - 3).collect();
        format!("{cut}...")
    }
}

fn read(path: &Path) -> Result<String, CoverageError> {
    std::fs::read_to_string(path).map_err(|source| CoverageError::Read {
        path: path.into(),
        source,
    })
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether the file at `rel` (from the root, `/` separators) is scanned: its kind is, no
/// folder on its path is skipped, and a JSON file is a golden vector (package manifests and
/// other JSON cite nothing).
fn scanned(rel: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    SCANNED.contains(&ext)
        && parts
            .iter()
            .all(|d| !SKIP_DIRS.contains(d) && !d.starts_with('.'))
        && (ext != "json" || lang_of(rel) == Lang::Vectors)
}

/// The scanned files git tracks or would track under `root` (untracked files not ignored
/// count, so that a new file cites before its commit; ignored ones, such as generated code
/// and build output, do not), or `None` when `root` is not in a git checkout or git cannot
/// run, and the scan walks the folder instead.
fn tracked(root: &Path) -> Option<Vec<String>> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut files: Vec<String> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        // A file deleted but not yet staged is listed and gone.
        .filter(|p| scanned(p) && root.join(p).is_file())
        .collect();
    files.dedup();
    Some(files)
}

/// Every scanned file under `dir`, relative to `root`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), CoverageError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CoverageError::Read {
        path: dir.into(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| CoverageError::Read {
            path: dir.into(),
            source,
        })?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry.file_type().map_err(|source| CoverageError::Read {
            path: path.clone(),
            source,
        })?;
        if kind.is_dir() {
            if !SKIP_DIRS.contains(&name.as_ref()) && !name.starts_with('.') {
                walk(root, &path, out)?;
            }
        } else if kind.is_file() {
            let rel = relative(root, &path);
            if scanned(&rel) {
                out.push(rel);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Vec<(String, String)> {
        vec![("docs/spec/p.md".to_string(), text.to_string())]
    }

    fn file(path: &str, text: &str) -> (String, String) {
        (path.to_string(), text.to_string())
    }

    const PAGE: &str = "# P\n\n- **X-1** The first rule. It goes on\n  over two lines.\n- **X-2** *(informative)* A note.\n- **X-3** Another rule, see X-1.\n";

    #[test]
    fn rules_are_read_from_list_items_with_their_first_sentence() {
        let r = build(&page(PAGE), &[]);
        let ids: Vec<(&str, bool, usize)> = r
            .rules
            .iter()
            .map(|r| (r.id.as_str(), r.informative, r.line))
            .collect();
        assert_eq!(
            ids,
            [("X-1", false, 3), ("X-2", true, 5), ("X-3", false, 6)]
        );
        assert_eq!(r.rules[0].summary, "The first rule.");
        assert_eq!(r.rules[1].summary, "A note.");
    }

    #[test]
    fn an_uncited_normative_rule_fails_and_an_informative_one_does_not() {
        let r = build(
            &page(PAGE),
            &[
                file("a/src/x.rs", "// X-1: enforced here.\n"),
                file("a/tests/x.rs", "// X-1: checked here.\n"),
            ],
        );
        assert_eq!(
            r.problems,
            [Problem::Uncited {
                id: "X-3".to_string()
            }]
        );
        assert!(!r.is_ok());
        let r = build(
            &page(PAGE),
            &[
                file("a/src/x.rs", "// X-1, X-3: enforced here.\n"),
                file("a/tests/x.rs", "// X-1, X-3: checked here.\n"),
            ],
        );
        assert!(r.is_ok(), "{:?}", r.problems);
    }

    #[test]
    fn a_rule_only_enforced_or_only_tested_fails() {
        let r = build(
            &page(PAGE),
            &[
                file("a/src/x.rs", "// X-1: enforced here.\n"),
                file("a/tests/x.rs", "// X-3: checked here.\n"),
            ],
        );
        assert_eq!(
            r.problems,
            [
                Problem::Untested {
                    id: "X-1".to_string()
                },
                Problem::Unenforced {
                    id: "X-3".to_string()
                }
            ]
        );
        let table = r.table();
        assert!(
            table.contains("X-1: a normative rule that code enforces but no test says it checks"),
            "{table}"
        );
        assert!(
            table.contains("X-3: a normative rule that tests cite but no code says it enforces"),
            "{table}"
        );
    }

    #[test]
    fn only_source_files_outside_build_output_are_scanned() {
        for (path, yes) in [
            ("codec/src/acked/decoder.rs", true),
            ("vectors/frames/acked.json", true),
            ("typescript/package.json", false),
            ("typescript/node_modules/x/index.ts", false),
            ("cpp/build/gen.hpp", false),
            ("spec/tests/snapshots/generated__x.snap", false),
            (".github/workflows/ci.sh", false),
            ("docs/spec/acked.md", false),
            ("README.md", false),
        ] {
            assert_eq!(scanned(path), yes, "{path}");
        }
    }

    #[test]
    fn a_git_checkout_is_scanned_by_what_git_tracks() {
        // This crate sits in the repository's checkout: its own source is listed, an ignored
        // target folder is not.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let Some(files) = tracked(&root) else {
            // No git (a packaged crate): the walk stands in, and the test has nothing to check.
            return;
        };
        assert!(
            files.iter().any(|f| f == "conformance/src/coverage.rs"),
            "{} files",
            files.len()
        );
        assert!(files.iter().all(|f| !f.starts_with("target/")));
    }

    #[test]
    fn an_identifier_no_page_defines_fails_where_it_is_cited() {
        let r = build(
            &page(PAGE),
            &[
                file("a/src/x.rs", "// X-1 X-3\n// X-9 is not a rule\n"),
                file("a/tests/x.rs", "// X-1 X-3\n"),
            ],
        );
        assert_eq!(
            r.problems,
            [Problem::Undefined {
                id: "X-9".to_string(),
                path: "a/src/x.rs".to_string(),
                line: 2
            }]
        );
    }

    #[test]
    fn a_page_that_mentions_an_undefined_rule_fails_too() {
        let text = format!("{PAGE}- **X-4** As X-7 says.\n");
        let r = build(
            &page(&text),
            &[
                file("x.rs", "X-1 X-3 X-4"),
                file("tests/x.rs", "X-1 X-3 X-4"),
            ],
        );
        assert_eq!(
            r.problems,
            [Problem::Undefined {
                id: "X-7".to_string(),
                path: "docs/spec/p.md".to_string(),
                line: 7
            }]
        );
    }

    #[test]
    fn a_rule_defined_twice_fails() {
        let r = build(
            &[
                ("docs/spec/a.md".to_string(), "- **X-1** One.\n".to_string()),
                ("docs/spec/b.md".to_string(), "- **X-1** Two.\n".to_string()),
            ],
            &[file("x.rs", "X-1"), file("tests/x.rs", "X-1")],
        );
        assert_eq!(
            r.problems,
            [Problem::Duplicate {
                id: "X-1".to_string(),
                first: "docs/spec/a.md:1".to_string(),
                second: "docs/spec/b.md:1".to_string()
            }]
        );
    }

    #[test]
    fn identifiers_inside_longer_words_are_not_citations() {
        let prefixes = BTreeSet::from(["X".to_string(), "AB".to_string()]);
        let found = mentions(
            "X-1 (X-2), AB-30: MAX-1 X-1a XX-1 _X-1 X-12b -X-3 X-\n`AB-4`",
            &prefixes,
        );
        assert_eq!(
            found,
            [
                (1, "X-1".to_string()),
                (1, "X-2".to_string()),
                (1, "AB-30".to_string()),
                (2, "AB-4".to_string())
            ]
        );
    }

    #[test]
    fn files_are_sorted_into_languages_and_tests() {
        let cases = [
            ("codec/src/acked/decoder.rs", Lang::Rust, false),
            ("codec/src/acked/tests.rs", Lang::Rust, true),
            ("codec/tests/roundtrip.rs", Lang::Rust, true),
            ("codec/src/datagram/harness.rs", Lang::Rust, true),
            ("fuzz/fuzz_targets/acked_stream.rs", Lang::Rust, true),
            ("typescript/src/sessions/acked.ts", Lang::TypeScript, false),
            ("typescript/test/acked.test.ts", Lang::TypeScript, true),
            ("cpp/include/ackwire_acked.hpp", Lang::Cpp, false),
            ("cpp/test/acked_test.cpp", Lang::Cpp, true),
            ("csharp/src/Sessions/Acked.cs", Lang::CSharp, false),
            ("csharp/test/AckedTests.cs", Lang::CSharp, true),
            ("spec/src/gen/ts.rs", Lang::Generator, false),
            (
                "conformance/testees/ts/src/halves/acked.ts",
                Lang::Testees,
                false,
            ),
            ("spec/protocol/acked.wire", Lang::Layouts, false),
            ("vectors/frames/acked.json", Lang::Vectors, true),
            ("scripts/test-all.sh", Lang::Other, false),
        ];
        for (path, lang, test) in cases {
            assert_eq!(lang_of(path), lang, "{path}");
            assert_eq!(is_test_file(path), test, "{path}");
        }
    }

    #[test]
    fn a_rust_files_inline_tests_are_tests_and_a_test_module_file_is_not_a_body() {
        let text = "// X-1 here\n#[cfg(test)]\nmod tests;\n// X-3 still code\n#[cfg(test)]\nmod tests {\n    // X-3 checked\n}\n";
        let r = build(&page(PAGE), &[file("a/src/lib.rs", text)]);
        let roles: Vec<(usize, Role)> = r.citations.iter().map(|c| (c.line, c.role)).collect();
        assert_eq!(roles, [(1, Role::Site), (4, Role::Site), (7, Role::Test)]);
        assert_eq!(r.count("X-3", Lang::Rust), (1, 1));
    }

    #[test]
    fn the_table_lists_every_normative_rule_and_the_informative_ones_apart() {
        let r = build(
            &page(PAGE),
            &[
                file("a/src/x.rs", "// X-1 X-3\n"),
                file("a/tests/t.rs", "// X-1 X-3\n"),
            ],
        );
        let table = r.table();
        assert!(table.contains("X-1"), "{table}");
        assert!(
            table.contains("informative (no code enforces them):\n  X-2"),
            "{table}"
        );
        assert!(
            table.contains("every normative rule is enforced and tested"),
            "{table}"
        );
        assert_eq!(r.untested_in(Lang::Rust), Vec::<&str>::new());
        let only_site = build(&page(PAGE), &[file("a/src/x.rs", "// X-1 X-3\n")]);
        assert_eq!(only_site.untested_in(Lang::Rust), ["X-1", "X-3"]);
        assert!(
            only_site.table().contains("  rust        2  X-1 X-3"),
            "{}",
            only_site.table()
        );
        let x1 = table.lines().find(|l| l.starts_with("X-1 ")).unwrap();
        assert!(x1.contains("1/1"), "{x1}");
        assert!(r
            .rule("X-1")
            .unwrap()
            .contains("a/tests/t.rs:1  test  rust"));
        assert!(r.rule("X-9").is_none());
    }
}
