//! Code generators: a validated [`Spec`](crate::model::Spec) compiled into codecs.
//!
//! Each backend is a printer over the [lowering](crate::lower): it prints plain types
//! documented with the spec's doc comments and the encoders and decoders for them, taking
//! every decision about a field (its role, wire form, presence, checks and their order) from
//! the lowering, so that the languages cannot drift apart; the logic that does not depend on the layout lives in the target
//! language's runtime (for Rust, the crate `ackwire-rt`), as prost keeps it in `prost`.

pub mod cpp;
pub mod cs;
pub mod doc;
pub mod rust;
pub mod ts;
pub mod wireshark;

use crate::lower::{Operand, Presence, Test};

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

/// Writes indented lines.
#[derive(Debug, Default)]
pub(crate) struct Code {
    out: String,
    indent: usize,
}

impl Code {
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        if text.is_empty() {
            self.out.push('\n');
            return;
        }
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    pub(crate) fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.indent += 1;
    }

    pub(crate) fn close(&mut self, text: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.line(text);
    }

    /// One line, one level deeper than the current one.
    pub(crate) fn indent_line(&mut self, text: impl AsRef<str>) {
        self.indent += 1;
        self.line(text);
        self.indent -= 1;
    }

    pub(crate) fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && !self.out.ends_with("{\n") {
            self.out.push('\n');
        }
    }

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
}
