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
use crate::model::{Item, Spec, Type};
use crate::SpecError;

/// What a printer that refuses issue 19's constructs prints where its match needs an arm for
/// one: never printed, since [`refuse_new_constructs`] refuses the layout first.
pub(crate) const REFUSED: &str = "refused: see refuse_new_constructs";

/// Refuses a layout using a construct that printer `printer` does not print yet: a
/// `quat(B)`, a `bucket(...)` or `zbucket(...)`, or an ascending list in a packed record
/// (issue 19's additions, printed by the Rust printer first). The first such field is named
/// in the error, so that `ackwire gen` says what it cannot do instead of writing a codec that
/// would not compile. A printer drops its call once it prints them all.
pub(crate) fn refuse_new_constructs(spec: &Spec, printer: &'static str) -> Result<(), SpecError> {
    fn find(ty: &Type, packed: bool) -> Option<String> {
        match ty {
            Type::Quat { .. } | Type::Bucket { .. } => Some(crate::fmt::type_text(ty)),
            Type::Quant { wire, .. } => find(wire, packed),
            Type::Array(a) if packed && a.ascending.is_some() => {
                Some("an ascending list in a packed record".into())
            }
            Type::Array(a) => find(&a.elem, packed),
            _ => None,
        }
    }
    for item in spec.files.iter().flat_map(|f| &f.items) {
        let Item::Record(r) = item else { continue };
        for f in &r.fields {
            if let Some(construct) = find(&f.ty, r.packed) {
                return Err(SpecError::Unsupported(Box::new(crate::Unsupported {
                    printer,
                    construct,
                    field: format!("{}.{}", r.name, f.name),
                })));
            }
        }
    }
    Ok(())
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
    fn printers_without_the_new_bit_fields_refuse_them_by_name() {
        let spec = crate::compile(&[crate::Source {
            name: "t.wire".into(),
            text: "packed record P {\n    a: u3,\n    q: quat(9),\n}\n".into(),
        }])
        .unwrap_or_else(|e| panic!("{e}"));
        let e = ts::generate(&spec).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "the TypeScript printer does not support quat(9), used by field `P.q`"
        );
        for (printer, got) in [
            ("C++", cpp::generate(&spec).map(|_| ())),
            ("C#", cs::generate(&spec).map(|_| ())),
            ("Wireshark", wireshark::generate(&spec).map(|_| ())),
        ] {
            let e = got.expect_err("refused").to_string();
            assert!(e.contains(printer) && e.contains("quat(9)"), "{e}");
        }
        let spec = crate::compile(&[crate::Source {
            name: "t.wire".into(),
            text: "packed record P {\n    n: u3,\n    xs: [u5; n] ascending,\n}\n".into(),
        }])
        .unwrap_or_else(|e| panic!("{e}"));
        let e = cpp::generate(&spec).map(|_| ()).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "the C++ printer does not support an ascending list in a packed record, used by \
             field `P.xs`"
        );
    }

    #[test]
    fn snake_case_splits_words() {
        assert_eq!(snake_case("FullFrame"), "full_frame");
        assert_eq!(snake_case("Acked"), "acked");
        assert_eq!(snake_case("DeltaAck"), "delta_ack");
        assert_eq!(snake_case("HTTPFrame"), "http_frame");
        assert_eq!(snake_case("Frame2D"), "frame2_d");
    }
}
