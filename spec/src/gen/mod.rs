//! Code generators: a validated [`Spec`] compiled into codecs.
//!
//! Each backend prints plain types documented with the spec's doc comments and the encoders
//! and decoders for them; the logic that does not depend on the layout lives in the target
//! language's runtime (for Rust, the crate `ackwire-rt`), as prost keeps it in `prost`.

pub mod cpp;
pub mod rust;
pub mod ts;

use crate::index::Index;
use crate::model::{Count, Item, Record, Spec, Type};
use std::collections::BTreeSet;

/// What every backend needs to know about how declarations are used before printing any.
#[derive(Debug, Default)]
pub(crate) struct Uses {
    /// Records that are elements of a list ascending by a key: (record, key). They get the
    /// delta-coded forms of their readers and writers.
    pub keyed: BTreeSet<(String, String)>,
    /// Bit sets and the contexts they are used in: (name, packed). Only those forms of their
    /// readers and writers are printed, so the generated code has no unused functions.
    pub bits_used: BTreeSet<(String, bool)>,
}

/// How the declarations of `spec` are used.
pub(crate) fn uses(spec: &Spec, index: &Index<'_>) -> Uses {
    fn visit(ty: &Type, packed: bool, index: &Index<'_>, uses: &mut Uses) {
        match ty {
            Type::Named { name, .. } if index.bits(name).is_some() => {
                uses.bits_used.insert((name.clone(), packed));
            }
            Type::Quant { wire, .. } => visit(wire, packed, index, uses),
            Type::Array(a) => {
                if let (Some(key), Type::Named { name, .. }) =
                    (a.ascending.as_ref().and_then(|a| a.key.clone()), &a.elem)
                {
                    uses.keyed.insert((name.clone(), key));
                }
                if let Count::Prefix(t) = &a.count {
                    visit(t, packed, index, uses);
                }
                visit(&a.elem, packed, index, uses);
            }
            _ => {}
        }
    }
    let mut uses = Uses::default();
    for item in spec.files.iter().flat_map(|f| &f.items) {
        if let Item::Record(r) = item {
            for f in &r.fields {
                visit(&f.ty, r.packed, index, &mut uses);
            }
        }
    }
    uses
}

/// The name of the array of `r` that the count field `count` counts (empty when none does).
pub(crate) fn counted_array<'r>(r: &'r Record, count: &str) -> &'r str {
    r.fields
        .iter()
        .find(|f| {
            matches!(&f.ty, Type::Array(a)
                if matches!(&a.count, Count::Field { name, .. } if name == count))
        })
        .map_or("", |f| f.name.as_str())
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
