//! Code generators: a validated [`Spec`] compiled into codecs.
//!
//! Each backend is a printer over the [lowering](crate::lower): it prints plain types
//! documented with the spec's doc comments and the encoders and decoders for them, taking
//! every decision about a field (its role, wire form, presence, checks and their order) from
//! the lowering, so that the languages cannot drift apart; the logic that does not depend on the layout lives in the target
//! language's runtime (for Rust, the crate `ackwire-rt`), as prost keeps it in `prost`.

pub mod cpp;
pub mod cs;
pub mod cs_machines;
pub mod cs_state;
pub mod doc;
pub mod fuzz;
pub mod rust;
pub mod testee;
pub mod ts;
pub mod ts_machines;
pub mod ts_state;
pub mod wireshark;

use crate::lower::{Operand, Presence, Test};
use crate::model::{Const, File, Item, Spec};

/// Where a generated TypeScript, C++ or C# codec finds its language's runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RuntimeSource {
    /// A copy of the runtime is written beside the codec (`runtime/`, the `ackwire_*.hpp`
    /// headers, `Runtime/`), so that the folder needs nothing installed.
    #[default]
    Copy,
    /// The runtime is an installed package, and only the codec is written: it imports
    /// `@ackwire/runtime` (npm), includes `<ackwire_runtime.hpp>` (the CMake package `ackwire`,
    /// target `ackwire::runtime`), or uses the assembly `Ackwire.Runtime` (the .NET library or
    /// the Unity package).
    Package,
}

/// A presence condition in the syntax Rust and C++ share: every test joined by `&&`, a bit as
/// `mask.contains(Set::BIT)`, a bool as itself, an integer against 0 or a literal. `operand`
/// gives the expression of a tested field (a local when decoding, the value's field or the
/// counted array's length when encoding), `number` the literal of a compared integer.
pub(crate) fn c_like_presence(
    p: &Presence<'_>,
    operand: &dyn Fn(&Operand<'_>) -> String,
    number: &dyn Fn(u64) -> String,
) -> String {
    let not = |negated: bool| if negated { "!" } else { "" };
    p.tests
        .iter()
        .map(|t| {
            let name = operand(t.operand());
            match t {
                Test::Bit {
                    bits, bit, negated, ..
                } => format!(
                    "{}{name}.contains({}::{bit})",
                    not(*negated),
                    bits.map_or("", |b| b.name.as_str())
                ),
                Test::Bool { negated, .. } => format!("{}{name}", not(*negated)),
                Test::NonZero { negated, .. } => {
                    format!("{name} {} 0", if *negated { "==" } else { "!=" })
                }
                Test::Greater { value, .. } => format!("{name} > {}", number(*value)),
            }
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

/// A layout file's name without its folders, as generated code and pages name it: what they
/// print must not depend on where the checkout is.
pub(crate) fn base_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or(name.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The base name of the layout file that declares machine schema `name`, which a generated
/// binding names as its source (empty when no file declares it).
pub(crate) fn declaring_file(spec: &Spec, name: &str) -> String {
    spec.files
        .iter()
        .find(|f| {
            f.items
                .iter()
                .any(|i| matches!(i, Item::Schema(m) if m.name == name))
        })
        .map_or_else(String::new, |f| base_name(&f.name))
}

/// The label of component type `i` of `n` in a `switch` over them (TypeScript, C#): the last
/// is the `default`, so the switch is exhaustive without an unreachable arm.
pub(crate) fn switch_case(i: usize, n: usize) -> String {
    if i + 1 == n {
        "default:".to_string()
    } else {
        format!("case {i}:")
    }
}

/// A layout file's banner in `//` comments, as the Rust, C++, C# and TypeScript codecs open
/// each file's part: a blank line, `// ---- NAME ----` (its base name), then its doc comment, an
/// empty line of it as `//`; `separated` sets the doc apart from the name by a `//` line (C#
/// and TypeScript).
pub(crate) fn file_banner(code: &mut Code, file: &File, separated: bool) {
    code.blank();
    code.line(format!("// ---- {} ----", base_name(&file.name)));
    if separated && !file.doc.is_empty() {
        code.line("//");
    }
    for line in &file.doc {
        if line.is_empty() {
            code.line("//");
        } else {
            code.line(format!("// {line}"));
        }
    }
}

/// The constants among a layout file's items, in order.
pub(crate) fn constants_of(items: &[Item]) -> impl Iterator<Item = &Const> {
    items.iter().filter_map(|i| match i {
        Item::Const(c) => Some(c),
        _ => None,
    })
}

/// The base names of a spec's layout files, in order, for a generated file's header line.
pub(crate) fn source_names(spec: &Spec) -> Vec<String> {
    spec.files.iter().map(|f| base_name(&f.name)).collect()
}

/// The narrowest of the 8-, 16-, 32- and 64-bit integers that holds a `bits`-bit value, picked
/// from `by_width` (a language's four types, or their widths): the type every printer stores
/// such a field in (Rust's `u8` to `u64`, C++'s `uint8_t` to `uint64_t`, C#'s `byte` to
/// `ulong`), decided once so that the languages agree on every field's range.
pub(crate) fn storage<T: Copy>(bits: u8, by_width: [T; 4]) -> T {
    match bits {
        0..=8 => by_width[0],
        9..=16 => by_width[1],
        17..=32 => by_width[2],
        _ => by_width[3],
    }
}

/// A layout name in `snake_case` (`FullFrame` -> `full_frame`).
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

/// Writes indented lines: the one writer every printer shares, so that how a line is indented,
/// how a block opens and closes and where a blank line goes are decided once.
///
/// Each language indents by its own unit (TypeScript by two spaces, as prettier does; Rust, C++,
/// C# and Lua by four); C#'s braces stand on lines of their own ([`Code::block`]), the others'
/// end the line that opens the block ([`Code::open`]).
#[derive(Debug)]
pub(crate) struct Code {
    out: String,
    /// The current depth, in levels (a printer may step it by hand around a hanging line).
    indent: usize,
    /// What one level of indentation prints.
    unit: &'static str,
}

impl Default for Code {
    /// A writer indenting by four spaces a level.
    fn default() -> Self {
        Code::with_unit("    ")
    }
}

impl Code {
    /// A writer indenting by `unit` a level (`"  "` for TypeScript).
    pub(crate) fn with_unit(unit: &'static str) -> Self {
        Code {
            out: String::new(),
            indent: 0,
            unit,
        }
    }

    /// One line, or several separated by `\n`, each at the current indentation (an empty one
    /// stays empty, without trailing spaces).
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        for line in text.as_ref().split('\n') {
            self.push_indented(line);
        }
    }

    /// One statement whose text may hold line breaks, kept as written: only its first line is
    /// indented, the others keep the columns they have (the Rust printer's multi-line
    /// `arbitrary` expressions, which rustfmt lays out afterwards).
    pub(crate) fn line_as_written(&mut self, text: impl AsRef<str>) {
        self.push_indented(text.as_ref());
    }

    fn push_indented(&mut self, text: &str) {
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str(self.unit);
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// A line that opens a block (`if (x) {`), and one level deeper after it.
    pub(crate) fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.indent += 1;
    }

    /// One level shallower, then the line that closes the block (`}`).
    pub(crate) fn close(&mut self, text: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.line(text);
    }

    /// One level shallower, a line that closes a block and opens the next (`} else {`), then
    /// one level deeper.
    pub(crate) fn reopen(&mut self, text: impl AsRef<str>) {
        self.close(text);
        self.indent += 1;
    }

    /// `head`, then a block whose `{` stands on a line of its own, as C# writes it; closed by
    /// `close("}")`.
    pub(crate) fn block(&mut self, head: impl AsRef<str>) {
        self.line(head);
        self.open("{");
    }

    /// One line, one level deeper than the current one.
    pub(crate) fn indent_line(&mut self, text: impl AsRef<str>) {
        self.indent += 1;
        self.line(text);
        self.indent -= 1;
    }

    /// The column a line at the current depth starts at, for a printer that wraps what would
    /// pass its language's width.
    pub(crate) fn column(&self) -> usize {
        self.indent * self.unit.len()
    }

    /// An empty line, unless there is one already or a block has just opened.
    pub(crate) fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && !self.out.ends_with("{\n") {
            self.out.push('\n');
        }
    }

    /// What was written.
    pub(crate) fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_words() {
        assert_eq!(snake_case("FullFrame"), "full_frame");
        assert_eq!(snake_case("Acked"), "acked");
        assert_eq!(snake_case("DeltaAck"), "delta_ack");
        assert_eq!(snake_case("HTTPFrame"), "http_frame");
        assert_eq!(snake_case("Frame2D"), "frame2_d");
    }

    #[test]
    fn storage_is_the_narrowest_integer_that_holds_the_width() {
        let widths = [8, 16, 32, 64];
        let stored: Vec<u8> = [1, 8, 9, 16, 17, 32, 33, 64]
            .into_iter()
            .map(|bits| storage(bits, widths))
            .collect();
        assert_eq!(stored, [8, 8, 16, 16, 32, 32, 64, 64]);
    }

    #[test]
    fn code_indents_by_its_unit() {
        // TypeScript's two spaces, a multi-line text split and each non-empty line indented.
        let mut ts = Code::with_unit("  ");
        ts.open("if (x) {");
        assert_eq!(ts.column(), 2);
        ts.line("a();\n\nb();");
        ts.close("}");
        assert_eq!(ts.finish(), "if (x) {\n  a();\n\n  b();\n}\n");

        // C#'s braces on lines of their own; a text kept as written indents its first line only.
        let mut cs = Code::default();
        cs.block("class C");
        cs.line_as_written("int x = f(\n    1);");
        cs.blank();
        cs.close("}");
        assert_eq!(cs.finish(), "class C\n{\n    int x = f(\n    1);\n\n}\n");
    }
}
