//! A coded frame's tables file (CODE-16): every model's starting probabilities, one line a
//! model in model order, `name W: p p p ...`, `#` starting a comment. Read when the spec is
//! compiled, beside the layout file that names it; every fault is a diagnostic at its
//! file:line:col, and a file named but missing is one at the name.

use super::{model_slots, CodedModel};
use crate::diag::Diagnostic;
use crate::model::{Item, Span, Spec, StateMember};
use crate::Source;
use std::path::Path;

/// The least and greatest starting probability of a slot (a `Prob`'s range).
const PROB_RANGE: std::ops::RangeInclusive<u32> = 1..=4095;

/// Reads the tables file of every coded frame that names one into the model
/// ([`crate::model::TablesPath::probs`]), each path taken relative to its layout file. A file
/// among `sources` (by that path) is taken from there, else from the disk. Returns the
/// problems and the tables files read (to render the problems against).
pub fn load(spec: &mut Spec, sources: &[Source]) -> (Vec<Diagnostic>, Vec<Source>) {
    let plans = super::plans(spec);
    let mut out = Vec::new();
    let mut read = Vec::new();
    for file in &mut spec.files {
        let dir = Path::new(&file.name)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for item in &mut file.items {
            let Item::State(st) = item else { continue };
            let Some(plan) = plans
                .iter()
                .find(|p| p.name == st.name && p.file == file.name)
            else {
                continue;
            };
            let Some(coded) = &plan.coded else { continue };
            for m in &mut st.members {
                let StateMember::Coded(c) = m else { continue };
                let Some(t) = &mut c.tables else { continue };
                let path = dir.join(&t.path).display().to_string();
                let text = match sources.iter().find(|s| s.name == path) {
                    Some(s) => s.text.clone(),
                    None => match std::fs::read_to_string(&path) {
                        Ok(text) => text,
                        Err(e) => {
                            out.push(Diagnostic::new(
                                &file.name,
                                t.span,
                                format!("cannot read tables file `{path}`: {e}"),
                                "a coded frame's tables lie beside its layout file (or remove `tables` to start every slot at 2048)",
                            ));
                            continue;
                        }
                    },
                };
                match parse(&path, &text, &coded.models) {
                    Ok(probs) => t.probs = probs,
                    Err(mut d) => out.append(&mut d),
                }
                read.push(Source { name: path, text });
            }
        }
    }
    (out, read)
}

/// The tables files the coded frames of `spec` name, each as [`load`] looks for it: beside
/// its layout file.
pub fn paths(spec: &Spec) -> Vec<String> {
    let mut out = Vec::new();
    for file in &spec.files {
        let dir = Path::new(&file.name)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for item in &file.items {
            let Item::State(st) = item else { continue };
            for c in st.coded() {
                if let Some(t) = &c.tables {
                    out.push(dir.join(&t.path).display().to_string());
                }
            }
        }
    }
    out
}

/// The probabilities of `text` (file `name`), every model's slots in model order, or every
/// fault found.
pub fn parse(name: &str, text: &str, models: &[CodedModel]) -> Result<Vec<u16>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut next = 0usize;
    let mut offset = 0usize;
    let mut err = |span: Span, message: String, label: &str| {
        errors.push(Diagnostic::new(name, span, message, label));
    };
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let code = line.split('#').next().unwrap_or("");
        // Each word with its span in the file.
        let mut words = code
            .split(|c: char| c.is_ascii_whitespace())
            .scan(start, |at, w| {
                let s = *at;
                *at += w.len() + 1;
                Some((w, Span::new(s, s + w.len())))
            })
            .filter(|(w, _)| !w.is_empty());
        let Some((model_name, name_span)) = words.next() else {
            continue;
        };
        let Some(expected) = models.get(next) else {
            err(
                name_span,
                format!("model `{model_name}` after the last model"),
                "every model has one line, in model order: remove this one",
            );
            continue;
        };
        next += 1;
        if model_name != expected.name {
            let label = if models.iter().any(|m| m.name == model_name) {
                "misordered: the models' lines follow the order the frame codes them"
            } else {
                "no model of the frame has this name"
            };
            err(
                name_span,
                format!("expected model `{}`, found `{model_name}`", expected.name),
                label,
            );
            continue;
        }
        let w = words.next();
        let w_text = format!("{}:", expected.w);
        match w {
            Some((text, _)) if text == w_text => {}
            Some((text, span)) => {
                err(
                    span,
                    format!(
                        "model `{model_name}` is {} bits wide, found `{text}`",
                        expected.w
                    ),
                    "expected `W:`, the model's width",
                );
                continue;
            }
            None => {
                err(
                    Span::new(name_span.end, name_span.end),
                    format!("model `{model_name}` has no width"),
                    "expected `W:` and the slots' probabilities",
                );
                continue;
            }
        }
        let slots = model_slots(expected.w);
        let mut count = 0usize;
        let mut last_end = name_span.end;
        for (p, span) in words {
            count += 1;
            last_end = span.end;
            if count > slots {
                if count == slots + 1 {
                    err(
                        span,
                        format!("model `{model_name}` has more than its {slots} slots"),
                        "one probability a slot (CODE-8)",
                    );
                }
                continue;
            }
            match p.parse::<u32>() {
                Ok(v) if PROB_RANGE.contains(&v) => out.push(v as u16),
                _ => err(
                    span,
                    format!("`{p}` is no starting probability"),
                    "expected an integer from 1 to 4095 (4096ths)",
                ),
            }
        }
        if count < slots {
            err(
                Span::new(last_end, last_end),
                format!("model `{model_name}` has {count} of its {slots} slots"),
                "one probability a slot (CODE-8)",
            );
        }
    }
    if let Some(missing) = models.get(next) {
        err(
            Span::new(text.len(), text.len()),
            format!("model `{}` is missing", missing.name),
            "every model has one line, in model order",
        );
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> Vec<CodedModel> {
        vec![
            CodedModel {
                name: "eid".into(),
                w: 1,
                at: 0,
            },
            CodedModel {
                name: "mask".into(),
                w: 2,
                at: 1,
            },
        ]
    }

    fn fault(text: &str) -> String {
        let d = parse("t.tables", text, &models()).unwrap_err();
        d.iter()
            .map(|d| {
                let (l, c) = d.line_col(text);
                format!("{l}:{c} {}", d.message)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_sound_file_gives_every_slot_in_order() {
        // W = 1: one slot; W = 2: the length tree's 3 and L = 2's one.
        let t = "# trained\neid 1: 100\n\nmask 2: 1 2 3 4095 # last\n";
        assert_eq!(
            parse("t.tables", t, &models()).unwrap(),
            [100, 1, 2, 3, 4095]
        );
    }

    #[test]
    fn each_fault_is_told_at_its_line_and_column() {
        assert_eq!(fault("eid 1: 100\n"), "2:1 model `mask` is missing");
        assert_eq!(
            fault("mask 2: 1 1 1 1\neid 1: 1\n"),
            "1:1 expected model `eid`, found `mask`\n2:1 expected model `mask`, found `eid`"
        );
        assert_eq!(
            fault("eid 1: 1\nmask 2: 1 1 1 1\nage 3: 1\n"),
            "3:1 model `age` after the last model"
        );
        assert_eq!(
            fault("eid 2: 1\nmask 2: 1 1 1 1\n"),
            "1:5 model `eid` is 1 bits wide, found `2:`"
        );
        assert_eq!(
            fault("eid 1: 1 2\nmask 2: 1 1 1\n"),
            "1:10 model `eid` has more than its 1 slots\n2:14 model `mask` has 3 of its 4 slots"
        );
        assert_eq!(
            fault("eid 1: 0\nmask 2: 1 4096 x 1\n"),
            "1:8 `0` is no starting probability\n2:11 `4096` is no starting probability\n2:16 `x` is no starting probability"
        );
    }
}
