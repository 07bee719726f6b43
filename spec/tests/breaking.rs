//! `ackwire breaking`'s comparisons, file-driven: each case under `tests/breaking/<case>/` is
//! an OLD and a NEW version (`old.wire` and `new.wire`, or `old/` and `new/` folders of
//! layout files) with the rendered report it must produce beside them (`expected.txt`).
//! Regenerate the expected reports with
//! `ACKWIRE_BLESS=1 cargo test -p ackwire-spec --test breaking`, and review the diff: a
//! failing comparison never rewrites anything by itself.
//!
//! A case's name says what it must find: `ok__...` cases keep the bytes and must not break;
//! every other case is named after the kind of break it must report first (`width__varint`
//! must report an `error[width]`).

use ackwire_spec::breaking::{self, Kind, Severity};
use ackwire_spec::Source;
use std::path::{Path, PathBuf};

fn version(case: &Path, which: &str) -> Vec<Source> {
    let file = case.join(format!("{which}.wire"));
    let paths: Vec<PathBuf> = if file.is_file() {
        vec![file]
    } else {
        vec![case.join(which)]
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ackwire_spec::read_sources(&paths)
        .unwrap_or_else(|e| panic!("{}: {e}", case.display()))
        .into_iter()
        .map(|s| Source {
            // Relative names, so that the expected reports do not depend on the checkout.
            name: Path::new(&s.name)
                .strip_prefix(root)
                .map_or(s.name.clone(), |p| p.display().to_string()),
            text: s.text,
        })
        .collect()
}

fn report(old: &[Source], new: &[Source]) -> breaking::Report {
    breaking::compare_sources(old, new).unwrap_or_else(|(o, n)| {
        panic!(
            "a version does not compile:\n{}\n{}",
            o.map(|e| e.to_string()).unwrap_or_default(),
            n.map(|e| e.to_string()).unwrap_or_default()
        )
    })
}

#[test]
fn every_case_reports_what_it_expects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/breaking");
    let bless = std::env::var_os("ACKWIRE_BLESS").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 30, "the cases are missing");
    let mut mismatches = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let (old, new) = (version(case, "old"), version(case, "new"));
        let r = report(&old, &new);
        let rendered = r.render(&old, &new);
        let want = name.split("__").next().unwrap();
        if want == "ok" {
            assert!(!r.is_breaking(), "{name} must keep the bytes:\n{rendered}");
        } else {
            assert!(r.is_breaking(), "{name} must break:\n{rendered}");
            assert!(
                rendered.contains(&format!("error[{want}]")),
                "{name} must report error[{want}]:\n{rendered}"
            );
        }
        // Every change is located in both versions, or says which one has nothing there.
        for c in &r.changes {
            for (mark, sources, label) in [(&c.old, &old, "OLD"), (&c.new, &new, "NEW")] {
                match mark {
                    Some(m) => assert!(
                        sources.iter().any(|s| s.name == m.file),
                        "{name}: {} points into {} which {label} does not have",
                        c.message,
                        m.file
                    ),
                    None => assert!(
                        matches!(c.kind, Kind::Added | Kind::Removed | Kind::ProtocolConstant),
                        "{name}: {} has no place in {label}",
                        c.message
                    ),
                }
            }
        }
        let expected_path = case.join("expected.txt");
        if bless {
            std::fs::write(&expected_path, &rendered).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != rendered {
            mismatches.push(format!("{name}: expected\n{expected}\ngot\n{rendered}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(re-run with ACKWIRE_BLESS=1 to accept, then review the diff)",
        mismatches.join("\n")
    );
}

#[test]
fn the_reference_protocol_against_itself_changes_nothing() {
    let sources = ackwire_spec::reference_sources();
    let r = report(&sources, &sources);
    assert!(r.changes.is_empty(), "{}", r.render(&sources, &sources));
    assert_eq!(
        r.render(&sources, &sources),
        "ok: no breaking change (0 warnings, 0 notes)\n"
    );
}

#[test]
fn the_game_example_against_itself_changes_nothing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/game/wire");
    let sources = ackwire_spec::read_sources(&[path]).unwrap();
    let r = report(&sources, &sources);
    assert!(r.changes.is_empty(), "{}", r.render(&sources, &sources));
}

#[test]
fn the_reference_protocol_in_one_file_keeps_its_bytes() {
    // Every declaration moved into one file, in reverse order: nothing on the wire changes.
    let sources = ackwire_spec::reference_sources();
    let mut items: Vec<String> = Vec::new();
    // A coded frame's tables file is not a layout: it moves beside the one file as it is.
    let (tables, layouts): (Vec<&Source>, Vec<&Source>) =
        sources.iter().partition(|s| s.name.ends_with(".tables"));
    for s in layouts {
        let file = ackwire_spec::parse::parse_file(&s.name, &s.text).unwrap();
        for item in file.items {
            let one = ackwire_spec::model::File {
                name: "one.wire".into(),
                doc: Vec::new(),
                endian: Default::default(),
                items: vec![item],
                trailing_comments: Vec::new(),
            };
            items.push(ackwire_spec::fmt::format_file(&one));
        }
    }
    items.reverse();
    let mut merged = vec![Source {
        name: "one.wire".into(),
        text: items.join("\n"),
    }];
    merged.extend(tables.into_iter().map(|t| {
        Source {
            name: Path::new(&t.name)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            text: t.text.clone(),
        }
    }));
    let r = report(&sources, &merged);
    assert!(!r.is_breaking(), "{}", r.render(&sources, &merged));
    assert!(
        r.changes.iter().all(|c| c.kind == Kind::Doc),
        "only the files' own docs are gone:\n{}",
        r.render(&sources, &merged)
    );
}

#[test]
fn every_kind_of_break_in_the_brief_has_a_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/breaking");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for kind in [
        Kind::FrameKind,
        Kind::Constant,
        Kind::Width,
        Kind::Signedness,
        Kind::ByteOrder,
        Kind::VarintFixed,
        Kind::Scale,
        Kind::Type,
        Kind::Order,
        Kind::SelectOrder,
        Kind::Presence,
        Kind::BitPosition,
        Kind::BitReserved,
        Kind::BitNamed,
        Kind::BitRequires,
        Kind::UnionTag,
        Kind::Count,
        Kind::Ascending,
        Kind::ProtocolConstant,
        Kind::Added,
        Kind::Removed,
        Kind::Packed,
        Kind::State,
    ] {
        assert!(
            names
                .iter()
                .any(|n| n.split("__").next() == Some(kind.as_str())),
            "no case for {}",
            kind.as_str()
        );
    }
    assert!(names.iter().filter(|n| n.starts_with("ok__")).count() >= 5);
}

#[test]
fn a_change_of_bytes_is_never_only_a_note() {
    // Severity order: a report with any breaking change says so in its closing line.
    let old = vec![Source {
        name: "a.wire".into(),
        text: "frame A {\n    kind: u8 = 1,\n    x: u16,\n}\n".into(),
    }];
    let new = vec![Source {
        name: "b.wire".into(),
        text: "frame A {\n    kind: u8 = 1,\n    x: u16be,\n}\n".into(),
    }];
    let r = report(&old, &new);
    assert_eq!(r.count(Severity::Breaking), 1);
    let text = r.render(&old, &new);
    assert!(text.contains("--> a.wire:3:5"), "{text}");
    assert!(text.contains("--> b.wire:3:5"), "{text}");
    assert!(
        text.ends_with("error: 1 breaking change (0 warnings, 0 notes)\n"),
        "{text}"
    );
}

#[test]
fn one_field_inserted_among_thousands_is_one_change() {
    // The fields are paired by name and the longest run in order kept (O(n log n)), so one
    // insertion is one report, not thousands of shifted ones.
    let fields = |extra: bool| {
        let mut text = String::from("frame Big {\n    kind: u8 = 1,\n");
        if extra {
            text.push_str("    inserted: u32,\n");
        }
        for i in 0..3000 {
            let ty = ["u8", "u16", "varint", "i32"][i % 4];
            text.push_str(&format!("    f{i}: {ty},\n"));
        }
        text.push_str("}\n");
        vec![Source {
            name: "big.wire".into(),
            text,
        }]
    };
    let (old, new) = (fields(false), fields(true));
    let r = report(&old, &new);
    assert_eq!(r.changes.len(), 1, "{}", r.render(&old, &new));
    assert_eq!(r.changes[0].kind, Kind::Added);
    let r = report(&new, &old);
    assert_eq!(r.changes.len(), 1, "{}", r.render(&new, &old));
    assert_eq!(r.changes[0].kind, Kind::Removed);
}

#[test]
fn the_tools_guide_shows_a_report_the_tests_produce() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(readme) = std::fs::read_to_string(root.join("../docs/tools.md")) else {
        return; // a packaged crate has no workspace docs
    };
    let command = "$ ackwire breaking spec/tests/breaking/bit-named/old.wire spec/tests/breaking/bit-named/new.wire\n";
    let start = readme.find(command).expect("docs/tools.md's example") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let expected = std::fs::read_to_string(root.join("tests/breaking/bit-named/expected.txt"))
        .unwrap()
        .replace("--> tests/", "--> spec/tests/");
    assert_eq!(shown, expected);
}

#[test]
fn every_number_of_the_reference_protocol_changed_by_one() {
    // Each number of each reference file in turn, plus one: in a doc comment it never breaks,
    // in the layout it always does (but for the low end of a reserved range); breaking one way
    // is breaking the other way, and nothing panics. A coded frame's tables file (thousands of
    // probabilities) has the first three numbers of each line changed, its `#` lines being its
    // comments.
    let sources = ackwire_spec::reference_sources();
    let (mut tried, mut docs, mut breaking) = (0, 0, 0);
    for (f, source) in sources.iter().enumerate() {
        let text = &source.text;
        let bytes = text.as_bytes();
        let tables = source.name.ends_with(".tables");
        let mut i = 0;
        let mut on_line = 0;
        while i < bytes.len() {
            if bytes[i] == b'\n' {
                on_line = 0;
            }
            if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
                i += 1;
                continue;
            }
            on_line += 1;
            if tables && on_line > 3 {
                i = (i..bytes.len())
                    .find(|&j| !bytes[j].is_ascii_digit())
                    .unwrap_or(bytes.len());
                continue;
            }
            let end = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            let n: u128 = text[i..end].parse().unwrap();
            let mutated = format!("{}{}{}", &text[..i], n + 1, &text[end..]);
            let mut new = sources.clone();
            new[f].text = mutated;
            let line = &text[text[..i].rfind('\n').map_or(0, |s| s + 1)..];
            let in_doc = line.trim_start().starts_with("//")
                || (tables && line.trim_start().starts_with('#'));
            if let Ok(r) = breaking::compare_sources(&sources, &new) {
                tried += 1;
                let back = breaking::compare_sources(&new, &sources).unwrap();
                let (a, b) = (r.render(&sources, &new), back.render(&new, &sources));
                assert_eq!(r.is_breaking(), back.is_breaking(), "{a}\n{b}");
                if in_doc {
                    docs += 1;
                    assert!(!r.is_breaking(), "a doc comment broke:\n{a}");
                    assert!(r.changes.iter().all(|c| c.kind == Kind::Doc), "{a}");
                } else if line.trim_start().starts_with("reserved") {
                    // The low end of a reserved range: every bit not named is reserved anyway.
                    assert!(r.changes.is_empty(), "{a}");
                } else {
                    // Any other number of the layout is a kind, a width, a bit, a tag, a
                    // scale or a constant: one more is another wire.
                    assert!(r.is_breaking(), "{}: not breaking:\n{a}", source.name);
                    breaking += 1;
                }
            }
            i = end;
        }
    }
    eprintln!("{tried} versions: {docs} in doc comments, {breaking} breaking");
    assert!(
        tried > 150 && docs > 100 && breaking > 40,
        "{tried} {docs} {breaking}"
    );
}

#[test]
fn every_name_of_the_reference_protocol_renamed_keeps_the_bytes() {
    // Each declared name (a constant, bit set, bit, record, frame, union or field) renamed
    // everywhere it is written: the bytes are the same, so nothing breaks, and a warning comes
    // only where the JSON form carries the name.
    let sources = ackwire_spec::reference_sources();
    let spec = ackwire_spec::compile(&sources).unwrap();
    let mut names = std::collections::BTreeSet::new();
    for item in spec.files.iter().flat_map(|f| &f.items) {
        names.insert(item.name().to_string());
        match item {
            ackwire_spec::model::Item::Record(r) => {
                names.extend(r.fields.iter().map(|f| f.name.clone()));
            }
            ackwire_spec::model::Item::Bits(b) => {
                names.extend(b.bits.iter().filter_map(|b| match &b.kind {
                    ackwire_spec::model::BitKind::Named { name, .. } => Some(name.clone()),
                    _ => None,
                }));
            }
            _ => {}
        }
    }
    let rename = |text: &str, name: &str| {
        let mut out = String::new();
        let mut rest = text;
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        while let Some(at) = rest.find(name) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + name.len()..].chars().next();
            out.push_str(&rest[..at]);
            out.push_str(name);
            if !before.is_some_and(word) && !after.is_some_and(word) {
                out.push_str("_renamed");
            }
            rest = &rest[at + name.len()..];
        }
        out.push_str(rest);
        out
    };
    let mut renamed = 0;
    for name in &names {
        let new: Vec<Source> = sources
            .iter()
            .map(|s| Source {
                name: s.name.clone(),
                text: rename(&s.text, name),
            })
            .collect();
        let in_layout = |text: &str| {
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| rename(l, name) != l)
        };
        if !sources.iter().any(|s| in_layout(&s.text)) {
            // A name a state derives (`AckFlags`, `Health`), written nowhere in the layout.
            continue;
        }
        let Ok(r) = breaking::compare_sources(&sources, &new) else {
            continue; // the datagram's field `frame`: the keyword is renamed with it
        };
        renamed += 1;
        let text = r.render(&sources, &new);
        assert!(!r.is_breaking(), "renaming `{name}` broke:\n{text}");
        assert!(
            r.changes.iter().any(|c| c.kind == Kind::Rename),
            "renaming `{name}` went unnoticed:\n{text}"
        );
    }
    eprintln!("{renamed} of {} names renamed", names.len());
    assert!(renamed > 100, "{renamed} of {} names", names.len());
}
