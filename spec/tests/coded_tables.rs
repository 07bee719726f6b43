//! A coded frame's tables file (CODE-16), end to end: read beside its layout file (or from the
//! sources given), every slot's probability in the plan and in the generated `TABLES`, and a
//! faulty file refused at its own file:line:col.

use ackwire_spec::{compile, state, Source};

/// A small state with a coded frame; `tables` is its `tables` member, if any.
fn layout(tables: &str) -> String {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/diagnostics/state_coded_tables_missing.wire"
    ))
    .unwrap();
    base.replace("tables \"nowhere.tables\",", tables)
}

/// A tables file for `models`: each slot's probability its index plus one, from 1 to 4095.
fn tables_text(models: &[state::CodedModel]) -> String {
    let mut out = String::from("# written by the test\n");
    for m in models {
        let ps: Vec<String> = (0..state::model_slots(m.w))
            .map(|i| ((m.at + i) % 4095 + 1).to_string())
            .collect();
        out.push_str(&format!("{} {}: {}\n", m.name, m.w, ps.join(" ")));
    }
    out
}

fn models() -> Vec<state::CodedModel> {
    let spec = compile(&[Source {
        name: "game/game.wire".into(),
        text: layout(""),
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    state::plans(&spec).remove(0).coded.unwrap().models
}

#[test]
fn tables_among_the_sources_start_every_slot() {
    let models = models();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "eid",
            "mask",
            "age",
            "pos_full.x",
            "pos_full.y",
            "pos_step.dx",
            "pos_step.dy",
            "aim.yaw"
        ]
    );
    let sources = [
        Source {
            name: "game/game.wire".into(),
            text: layout("tables \"game.tables\","),
        },
        Source {
            name: "game/game.tables".into(),
            text: tables_text(&models),
        },
    ];
    let spec = compile(&sources).unwrap_or_else(|e| panic!("{e}"));
    let coded = state::plans(&spec).remove(0).coded.unwrap();
    assert_eq!(coded.probs.len(), coded.slots());
    assert!(coded
        .probs
        .iter()
        .enumerate()
        .all(|(i, &p)| usize::from(p) == i % 4095 + 1));
    let code = ackwire_spec::gen::rust::generate(&spec, &Default::default());
    assert!(code.contains("const PROBS: [u16; Self::SLOTS] = ["));
    assert!(code
        .contains("pub const TABLES: [::ackwire_rt::range::Prob; Self::SLOTS] = Self::tables();"));
    // The first model's slots in rows of 16, under its name.
    let rows =
        "// eid\n        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n        17, 18,";
    assert!(code.contains(rows), "{code}");
}

#[test]
fn tables_are_read_beside_the_layout_file_and_faults_located_in_them() {
    let dir = std::env::temp_dir().join(format!("ackwire-coded-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wire = dir.join("game.wire");
    std::fs::write(&wire, layout("tables \"game.tables\",")).unwrap();
    let good = tables_text(&models());
    std::fs::write(dir.join("game.tables"), &good).unwrap();
    let (spec, _) =
        ackwire_spec::load(std::slice::from_ref(&wire)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!state::plans(&spec)
        .remove(0)
        .coded
        .unwrap()
        .probs
        .is_empty());
    // A probability of 0 as the third line's first slot, and the last model missing.
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    let (head, rest) = lines[2].split_once(": ").unwrap();
    let rest = rest.split_once(' ').map_or("", |(_, r)| r);
    lines[2] = format!("{head}: 0 {rest}");
    let bad_line = lines[2].clone();
    lines.pop();
    std::fs::write(dir.join("game.tables"), lines.join("\n") + "\n").unwrap();
    let e = ackwire_spec::load(std::slice::from_ref(&wire))
        .unwrap_err()
        .to_string();
    let tables = dir.join("game.tables").display().to_string();
    let col = bad_line.find(": ").unwrap() + 3;
    assert!(e.contains(&format!("--> {tables}:3:{col}")), "{e}");
    assert!(e.contains("`0` is no starting probability"), "{e}");
    assert!(e.contains("model `aim.yaw` is missing"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
