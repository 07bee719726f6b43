//! Diagnostics in the style of rustc: a message, the file, line and column, the source line
//! and a caret under the fault, and what was expected.
//!
//! Every error the parser or the validator finds becomes a [`Diagnostic`]; none of them stops
//! the others from being reported.

use crate::model::Span;
use std::fmt::Write as _;

/// One problem found in a layout file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name, as given.
    pub file: String,
    /// Byte range of the fault in the file's text.
    pub start: usize,
    /// One past the last byte of the fault (equal to `start` for a point).
    pub end: usize,
    /// What is wrong, one line.
    pub message: String,
    /// Under the caret: what was expected, or why the text is wrong.
    pub label: String,
    /// Further lines (`= note: ...`), such as where an earlier declaration is.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic about `span` of `file`.
    pub fn new(
        file: impl Into<String>,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file: file.into(),
            start: span.start,
            end: span.end,
            message: message.into(),
            label: label.into(),
            notes: Vec::new(),
        }
    }

    /// The same diagnostic with one more note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The 1-based line and column (in characters) of the fault's start in `source`.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        line_col(source, self.start)
    }

    /// Renders the diagnostic against the file's text:
    ///
    /// ```text
    /// error: unknown type `Posee`
    ///   --> spec/protocol/acked.wire:12:11
    ///    |
    /// 12 |     pose: Posee,
    ///    |           ^^^^^ expected a bit set, record or union declared in the spec
    /// ```
    pub fn render(&self, source: &str) -> String {
        let start = clamp_to_boundary(source, self.start);
        let (line_no, col) = line_col(source, start);
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i);
        let line = &source[line_start..line_end];
        // A very long line (a minified or hostile file) is cut around the fault so that the
        // report stays readable.
        const WINDOW: usize = 120;
        let (shown, caret_col) = if line.chars().count() > WINDOW {
            let before: String = line[..start - line_start]
                .chars()
                .rev()
                .take(40)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let after: String = line[start - line_start..]
                .chars()
                .take(WINDOW - 40)
                .collect();
            let caret_col = before.chars().count() + 4;
            (format!("... {before}{after} ..."), caret_col)
        } else {
            (line.to_string(), col - 1)
        };
        let shown: String = shown
            .chars()
            .map(|c| {
                if c.is_control() && c != '\t' {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        let end = clamp_to_boundary(source, self.end.max(start));
        let width = source[start..end.min(line_end).max(start)]
            .chars()
            .count()
            .clamp(1, WINDOW);
        let gutter = line_no.to_string().len();
        let pad = " ".repeat(gutter);
        let mut out = String::new();
        let _ = writeln!(out, "error: {}", self.message);
        let _ = writeln!(out, "{pad}--> {}:{}:{}", self.file, line_no, col);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{line_no} | {shown}");
        let _ = writeln!(
            out,
            "{pad} | {}{} {}",
            " ".repeat(caret_col),
            "^".repeat(width),
            self.label
        );
        for note in &self.notes {
            let _ = writeln!(out, "{pad} = note: {note}");
        }
        out
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `source`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = clamp_to_boundary(source, offset);
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn clamp_to_boundary(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_rustc() {
        let src = "record A {\n    pose: Posee,\n}\n";
        let start = src.find("Posee").unwrap();
        let d = Diagnostic::new(
            "a.wire",
            Span::new(start, start + 5),
            "unknown type `Posee`",
            "expected a bit set, record or union declared in the spec",
        );
        assert_eq!(
            d.render(src),
            "error: unknown type `Posee`\n --> a.wire:2:11\n  |\n2 |     pose: Posee,\n  |           ^^^^^ expected a bit set, record or union declared in the spec\n"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_fault() {
        let mut src = "x".repeat(10_000);
        src.push_str("BAD");
        src.push_str(&"y".repeat(10_000));
        let d = Diagnostic::new("a.wire", Span::new(10_000, 10_003), "bad", "here");
        let out = d.render(&src);
        assert!(out.len() < 600, "{out}");
        assert!(out.contains("a.wire:1:10001"));
        let lines: Vec<_> = out.lines().collect();
        let caret = lines[4].find('^').unwrap();
        assert_eq!(&lines[3][caret..caret + 3], "BAD");
    }

    #[test]
    fn offsets_inside_a_character_do_not_panic() {
        let src = "é\u{0}ü";
        let d = Diagnostic::new("a.wire", Span::new(1, 99), "bad", "here");
        assert!(d.render(src).contains("a.wire:1:1"));
    }
}
