//! The formatter: a model printed back as canonical `.wire` text (`ackwire fmt`).
//!
//! The canonical form is the one described at the end of `LANGUAGE.md`: four-space
//! indentation, one member per line, a comma after every field, bit and variant, a blank line
//! between items, the `//!` docs first, then `endian big;` (never `endian little;`, the
//! default), then the items in order. Comments are printed before the element they were
//! written before, plain `//` lines ahead of `///` lines, and trailing comments at the end of
//! their block or file, so that formatting loses nothing the parser kept.
//!
//! For every model the parser produces, parsing the output gives back an equal model, and
//! formatting is idempotent. Models built by hand must stay within what the language can
//! express for that to hold: names that are identifiers (and, except field names, not
//! keywords), single-line docs and comments, a `Count::Prefix` holding a type keyword and a
//! `Count::Field` naming something that is not one. An empty `Cond::All` is printed as no
//! condition and a nested one is flattened, as the parser would read them.

use crate::model::{
    Ascending, BitKind, Bits, CodedForm, CodedProfile, CodedUse, Cond, Const, ConstValue, Count,
    Docs, Endian, Field, FieldBit, File, Form, FormKind, Group, IntType, Item, MachineSchema,
    Profile, Record, RecordKind, State, StateMember, Type, Union,
};
use std::fmt::Write as _;

const INDENT: &str = "    ";

/// Prints `file` in canonical form.
pub fn format_file(file: &File) -> String {
    // Sections are separated by one blank line: the file docs, `endian`, each item, and the
    // trailing comments.
    let mut sections: Vec<String> = Vec::new();
    if !file.doc.is_empty() {
        let mut s = String::new();
        for line in &file.doc {
            comment_line(&mut s, "", "//!", line);
        }
        sections.push(s);
    }
    if file.endian == Endian::Big {
        sections.push("endian big;\n".to_string());
    }
    // Items a state derived are printed by the state, never on their own.
    for item in file.items.iter().filter(|i| i.derived_from().is_none()) {
        let mut s = String::new();
        match item {
            Item::Const(c) => constant(&mut s, c),
            Item::Bits(b) => bits(&mut s, b),
            Item::Record(r) => record(&mut s, r),
            Item::Union(u) => union(&mut s, u),
            Item::State(st) => state(&mut s, st),
            Item::Schema(m) => machine_schema(&mut s, m),
        }
        sections.push(s);
    }
    if !file.trailing_comments.is_empty() {
        let mut s = String::new();
        for line in &file.trailing_comments {
            comment_line(&mut s, "", "//", line);
        }
        sections.push(s);
    }
    sections.join("\n")
}

/// One comment line; the space after the marker is left out of an empty line so that no line
/// ends in whitespace.
fn comment_line(out: &mut String, indent: &str, marker: &str, text: &str) {
    if text.is_empty() {
        let _ = writeln!(out, "{indent}{marker}");
    } else {
        let _ = writeln!(out, "{indent}{marker} {text}");
    }
}

fn docs(out: &mut String, indent: &str, docs: &Docs) {
    for line in &docs.comments {
        comment_line(out, indent, "//", line);
    }
    for line in &docs.doc {
        comment_line(out, indent, "///", line);
    }
}

fn trailing(out: &mut String, indent: &str, comments: &[String]) {
    for line in comments {
        comment_line(out, indent, "//", line);
    }
}

fn constant(out: &mut String, c: &Const) {
    docs(out, "", &c.docs);
    let value = match &c.value {
        ConstValue::Int(v) => v.to_string(),
        ConstValue::MaxOffset { record, field } => format!("max_offset({record}.{field})"),
    };
    let _ = writeln!(out, "const {}: {} = {value};", c.name, int_type(&c.ty));
}

fn bits(out: &mut String, b: &Bits) {
    docs(out, "", &b.docs);
    let _ = writeln!(out, "bits {}: u{} {{", b.name, b.width);
    for bit in &b.bits {
        docs(out, INDENT, &bit.docs);
        match &bit.kind {
            BitKind::Named {
                name,
                index,
                requires,
            } => {
                let _ = write!(out, "{INDENT}{name} = {index}");
                if let Some(other) = requires {
                    let _ = write!(out, " requires {other}");
                }
                out.push_str(",\n");
            }
            BitKind::Reserved { lo, hi } if lo == hi => {
                let _ = writeln!(out, "{INDENT}reserved {lo},");
            }
            BitKind::Reserved { lo, hi } => {
                let _ = writeln!(out, "{INDENT}reserved {lo}..={hi},");
            }
        }
    }
    trailing(out, INDENT, &b.trailing_comments);
    out.push_str("}\n");
}

fn record(out: &mut String, r: &Record) {
    docs(out, "", &r.docs);
    if r.packed {
        out.push_str("packed ");
    }
    let kind = match r.kind {
        RecordKind::Record => "record",
        RecordKind::Frame => "frame",
    };
    let _ = writeln!(out, "{kind} {} {{", r.name);
    let mut i = 0;
    while i < r.fields.len() {
        let field = &r.fields[i];
        let Some(sel) = &field.selector else {
            docs(out, INDENT, &field.docs);
            let _ = writeln!(out, "{INDENT}{},", field_text(field));
            i += 1;
            continue;
        };
        // Consecutive fields selected by the same mask form one block, whichever block they
        // were written in.
        let _ = writeln!(out, "{INDENT}select {} {{", sel.mask);
        let inner = format!("{INDENT}{INDENT}");
        while let Some(f) = r.fields.get(i) {
            let Some(s) = f.selector.as_ref().filter(|s| s.mask == sel.mask) else {
                break;
            };
            docs(out, &inner, &f.docs);
            let _ = writeln!(out, "{inner}{} => {},", s.bit, field_text(f));
            i += 1;
        }
        let _ = writeln!(out, "{INDENT}}}");
    }
    trailing(out, INDENT, &r.trailing_comments);
    out.push_str("}\n");
}

/// `name: type = constant if cond`, without docs, selector or comma.
fn field_text(f: &Field) -> String {
    let mut s = format!("{}: {}", f.name, type_text(&f.ty));
    if let Some(v) = f.constant {
        let _ = write!(s, " = {v}");
    }
    if let Some(cond) = &f.cond {
        let mut operands = Vec::new();
        flatten(cond, &mut operands);
        if !operands.is_empty() {
            let _ = write!(s, " if {}", operands.join(" && "));
        }
    }
    s
}

fn flatten(cond: &Cond, out: &mut Vec<String>) {
    match cond {
        Cond::Bit {
            field,
            bit,
            negated,
            ..
        } => out.push(format!("{}{field}.{bit}", if *negated { "!" } else { "" })),
        Cond::Set { field, negated, .. } => {
            out.push(format!("{}{field}", if *negated { "!" } else { "" }))
        }
        Cond::Greater { field, value, .. } => out.push(format!("{field} > {value}")),
        Cond::All(all) => all.iter().for_each(|c| flatten(c, out)),
    }
}

fn union(out: &mut String, u: &Union) {
    docs(out, "", &u.docs);
    let _ = writeln!(out, "union {}: {} {{", u.name, int_type(&u.tag));
    for v in &u.variants {
        docs(out, INDENT, &v.docs);
        let _ = writeln!(out, "{INDENT}{} = {},", v.record, v.tag);
    }
    trailing(out, INDENT, &u.trailing_comments);
    out.push_str("}\n");
}

/// A state: its one-line members, then a blank line before and after each block (a frame,
/// a group), and inside a group its fields, then each form after a blank line.
fn machine_schema(out: &mut String, m: &MachineSchema) {
    docs(out, "", &m.docs);
    let _ = writeln!(out, "schema {} for {} {{", m.name, m.machine.word());
    for r in &m.roles {
        docs(out, INDENT, &r.docs);
        let _ = writeln!(out, "{INDENT}{}: {},", r.role.name, r.target.name);
    }
    trailing(out, INDENT, &m.trailing_comments);
    out.push_str("}\n");
}

fn state(out: &mut String, st: &State) {
    docs(out, "", &st.docs);
    let _ = writeln!(out, "state {} {{", st.name);
    let mut after_block = false;
    for (i, m) in st.members.iter().enumerate() {
        let block = matches!(
            m,
            StateMember::Frame(_) | StateMember::Coded(_) | StateMember::Group(_)
        );
        if i > 0 && (block || after_block) {
            out.push('\n');
        }
        after_block = block;
        match m {
            StateMember::Record(r) => {
                docs(out, INDENT, &r.docs);
                let order = if r.order.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = r.order.iter().map(|n| n.name.as_str()).collect();
                    format!("({})", names.join(", "))
                };
                let _ = writeln!(out, "{INDENT}record {}{order},", r.name.name);
            }
            StateMember::Flags(f) => {
                docs(out, INDENT, &f.docs);
                let _ = writeln!(out, "{INDENT}{}: {},", f.name.name, f.bits.name);
            }
            StateMember::Events { docs: d, union } => {
                docs(out, INDENT, d);
                let _ = writeln!(out, "{INDENT}events: {},", union.name);
            }
            StateMember::Inputs { docs: d, record } => {
                docs(out, INDENT, d);
                let _ = writeln!(out, "{INDENT}inputs: {},", record.name);
            }
            StateMember::Ack(a) => {
                docs(out, INDENT, &a.docs);
                let _ = writeln!(out, "{INDENT}ack {} = {},", a.name.name, a.kind);
            }
            StateMember::Frame(p) => profile(out, p),
            StateMember::Coded(c) => coded_profile(out, c),
            StateMember::Group(g) => group(out, g),
        }
    }
    trailing(out, INDENT, &st.trailing_comments);
    out.push_str("}\n");
}

fn profile(out: &mut String, p: &Profile) {
    let inner = format!("{INDENT}{INDENT}");
    docs(out, INDENT, &p.docs);
    let packed = if p.packed { "packed " } else { "" };
    let _ = writeln!(out, "{INDENT}{packed}frame {} = {} {{", p.name.name, p.kind);
    if let Some(c) = &p.change {
        docs(out, &inner, &c.docs);
        let _ = writeln!(out, "{inner}change {},", c.name.name);
    }
    if let Some(m) = &p.mask {
        docs(out, &inner, &m.docs);
        match m.width {
            Some(w) => {
                let _ = writeln!(out, "{inner}mask {}: u{w},", m.name.name);
            }
            None => {
                let _ = writeln!(out, "{inner}mask {},", m.name.name);
            }
        }
    }
    if let Some(b) = &p.body {
        docs(out, &inner, &b.docs);
        let _ = writeln!(out, "{inner}body {},", b.name.name);
    }
    if let Some(e) = &p.eid {
        docs(out, &inner, &e.docs);
        let _ = writeln!(out, "{inner}eid: {},", type_text(&e.ty));
    }
    if let Some(x) = &p.prefix {
        docs(out, &inner, &x.docs);
        let _ = writeln!(out, "{inner}prefix {},", x.name.name);
    }
    trailing(out, &inner, &p.trailing_comments);
    let _ = writeln!(out, "{INDENT}}}");
}

fn coded_profile(out: &mut String, c: &CodedProfile) {
    let inner = format!("{INDENT}{INDENT}");
    docs(out, INDENT, &c.docs);
    let _ = writeln!(out, "{INDENT}coded frame {} = {} {{", c.name.name, c.kind);
    if let Some(t) = &c.tables {
        docs(out, &inner, &t.docs);
        let _ = writeln!(out, "{inner}tables \"{}\",", t.path);
    }
    trailing(out, &inner, &c.trailing_comments);
    let _ = writeln!(out, "{INDENT}}}");
}

/// ` coded velocity` or ` coded base`, when the field has it.
fn coded_suffix(c: &Option<CodedUse>) -> &'static str {
    match c.map(|c| c.form) {
        None => "",
        Some(CodedForm::Velocity) => " coded velocity",
        Some(CodedForm::Base) => " coded base",
    }
}

fn field_bit(b: &FieldBit) -> String {
    format!("{}.{}", b.field, b.bit)
}

fn packed_suffix(t: &Option<Type>) -> String {
    t.as_ref()
        .map_or(String::new(), |t| format!(" packed {}", type_text(t)))
}

fn group(out: &mut String, g: &Group) {
    let inner = format!("{INDENT}{INDENT}");
    docs(out, INDENT, &g.docs);
    let _ = write!(out, "{INDENT}group {}", g.name);
    if let Some(r) = &g.record {
        let _ = write!(out, ": {}", r.name);
    }
    if let Some(p) = &g.presence {
        let _ = write!(out, " if {}", field_bit(p));
    }
    out.push_str(" {\n");
    for f in &g.fields {
        docs(out, &inner, &f.docs);
        match &f.age {
            Some(a) => {
                let _ = writeln!(
                    out,
                    "{inner}{}: tick({}: {}{}){},",
                    f.name,
                    a.name,
                    type_text(&a.ty),
                    packed_suffix(&a.packed),
                    coded_suffix(&f.coded)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{inner}{}: {}{}{},",
                    f.name,
                    type_text(&f.ty),
                    packed_suffix(&f.packed),
                    coded_suffix(&f.coded)
                );
            }
        }
    }
    for (i, form) in g.forms.iter().enumerate() {
        if i > 0 || !g.fields.is_empty() {
            out.push('\n');
        }
        self::form(out, form);
    }
    trailing(out, &inner, &g.trailing_comments);
    let _ = writeln!(out, "{INDENT}}}");
}

fn form(out: &mut String, f: &Form) {
    let indent = format!("{INDENT}{INDENT}");
    let inner = format!("{indent}{INDENT}");
    docs(out, &indent, &f.docs);
    let kind = match f.kind {
        FormKind::Full => "full",
        FormKind::Step => "step",
    };
    let _ = write!(out, "{indent}{kind} {}: {}", f.name, f.record.name);
    if let Some(t) = &f.tier {
        let _ = write!(out, " if {}", field_bit(t));
    }
    if let Some(r) = f.reach {
        let _ = write!(out, " reach {r}");
    }
    out.push_str(" {\n");
    for x in &f.fields {
        docs(out, &inner, &x.docs);
        let step = x
            .step
            .as_ref()
            .map_or(String::new(), |s| format!(" step {}", s.name));
        let _ = writeln!(
            out,
            "{inner}{}: {}{step}{}{},",
            x.name,
            type_text(&x.ty),
            packed_suffix(&x.packed),
            coded_suffix(&x.coded)
        );
    }
    trailing(out, &inner, &f.trailing_comments);
    let _ = writeln!(out, "{indent}}}");
}

fn endian_suffix(endian: Option<Endian>) -> &'static str {
    match endian {
        None => "",
        Some(Endian::Little) => "le",
        Some(Endian::Big) => "be",
    }
}

fn int_type(t: &IntType) -> String {
    let sign = if t.signed { 'i' } else { 'u' };
    format!("{sign}{}{}", t.bits, endian_suffix(t.endian))
}

/// A type as written in a field. Nesting is bounded by the parser's depth limit for parsed
/// models; hand-built models nest as deeply as their own construction did.
pub(crate) fn type_text(t: &Type) -> String {
    match t {
        Type::Int(it) => int_type(it),
        Type::Float { bits, endian } => format!("f{bits}{}", endian_suffix(*endian)),
        Type::Bool => "bool".into(),
        Type::Varint { bits: 64 } => "varint".into(),
        Type::Varint { bits } => format!("varint({bits})"),
        Type::Zigzag { bits: 64 } => "zigzag".into(),
        Type::Zigzag { bits } => format!("zigzag({bits})"),
        Type::Bytes => "bytes".into(),
        Type::OptBytes => "bytes?".into(),
        Type::Quant { wire, num, den: 1 } => format!("quant({}, {num})", type_text(wire)),
        Type::Quant { wire, num, den } => format!("quant({}, {num}/{den})", type_text(wire)),
        Type::Quat { bits, .. } => format!("quat({bits})"),
        Type::Ranged { int, min, max, .. } => {
            format!("{} in {min}..={max}", type_text(&Type::Int(*int)))
        }
        Type::Bucket { signed, widths, .. } => format!(
            "{}({})",
            if *signed { "zbucket" } else { "bucket" },
            widths
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Type::Named { name, .. } => name.clone(),
        Type::Array(a) => {
            let count = match &a.count {
                Count::Field { name, .. } => name.clone(),
                Count::Prefix(t) => type_text(t),
            };
            let mut s = format!("[{}; {count}]", type_text(&a.elem));
            match &a.ascending {
                None => {}
                Some(Ascending { key: None, .. }) => s.push_str(" ascending"),
                Some(Ascending { key: Some(k), .. }) => {
                    let _ = write!(s, " ascending({k})");
                }
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Selector, Span};
    use crate::parse::parse_file;

    fn parse(src: &str) -> File {
        parse_file("t.wire", src).unwrap_or_else(|d| panic!("{d:?}"))
    }

    /// Formats, checks that the text parses back to the same model and is a fixed point.
    fn canonical(src: &str) -> String {
        let model = parse(src);
        let text = format_file(&model);
        let again = parse(&text);
        assert_eq!(again, model, "{text}");
        assert_eq!(format_file(&again), text);
        text
    }

    #[test]
    fn prints_the_canonical_form() {
        let src = "//! File.\nendian big;\n/// Doc.\n// Comment.\nconst A: u16le = 0x10;\n\
                   bits F: u8 { X = 0, Y = 1 requires X, reserved 2..=2, reserved 3..=7 }\n\
                   packed record P {}\n\
                   frame Fr { kind: u8 = -0x1, n: u8, xs: [quant(i16, 5/1); n] ascending, \
                   select m { A => a: varint(64) if n > 2 && !m.B, B => b: zigzag(7), }, \
                   select m { C => c: bytes? }, d: bool if x, select k { D => e: f64be }\n\
                   // trailing\n}\n\
                   union U: u8 {A = 1}\n//\n// end\n";
        let expected = "//! File.\n\nendian big;\n\n// Comment.\n/// Doc.\nconst A: u16le = 16;\n\n\
                        bits F: u8 {\n    X = 0,\n    Y = 1 requires X,\n    reserved 2,\n    reserved 3..=7,\n}\n\n\
                        packed record P {\n}\n\n\
                        frame Fr {\n    kind: u8 = -1,\n    n: u8,\n    xs: [quant(i16, 5); n] ascending,\n    \
                        select m {\n        A => a: varint if n > 2 && !m.B,\n        B => b: zigzag(7),\n        \
                        C => c: bytes?,\n    }\n    d: bool if x,\n    select k {\n        D => e: f64be,\n    }\n    \
                        // trailing\n}\n\n\
                        union U: u8 {\n    A = 1,\n}\n\n//\n// end\n";
        assert_eq!(canonical(src), expected);
    }

    #[test]
    fn the_language_reference_example_only_loses_its_default_endian() {
        let doc = include_str!("../LANGUAGE.md");
        let start = doc.find("```wire\n").unwrap() + 8;
        let end = start + doc[start..].find("```").unwrap();
        let example = &doc[start..end];
        assert_eq!(
            canonical(example),
            example.replace("endian little;\n\n", "")
        );
    }

    #[test]
    fn bit_fields_of_issue_19_print_canonically() {
        let src = "packed record P { q: quat( 9 ), b: bucket(0,4 ,8), z: zbucket(2, 5, 9),\n\
                   s: quant(zbucket(3, 7), 1/512), xs: [bucket(1, 6); u8] ascending }\n";
        let expected = "packed record P {\n    q: quat(9),\n    b: bucket(0, 4, 8),\n    \
                        z: zbucket(2, 5, 9),\n    s: quant(zbucket(3, 7), 1/512),\n    \
                        xs: [bucket(1, 6); u8] ascending,\n}\n";
        assert_eq!(canonical(src), expected);
    }

    #[test]
    fn empty_file() {
        assert_eq!(canonical(""), "");
        assert_eq!(canonical("// only\n"), "// only\n");
        assert_eq!(canonical("//! only\n"), "//! only\n");
    }

    #[test]
    fn comment_markers_stay_unambiguous() {
        // Text that starts like another marker keeps its meaning thanks to the space printed
        // after the marker.
        let text = canonical("/// /not a comment\n//// four\n//!x\nrecord R {}\n");
        assert_eq!(
            text,
            "//! x\n\n// // four\n/// /not a comment\nrecord R {\n}\n"
        );
    }

    #[test]
    fn conditions_the_parser_cannot_produce_print_as_it_would_read_them() {
        let set = |f: &str| Cond::Set {
            field: f.into(),
            negated: false,
            span: Span::default(),
        };
        let mut field = Field {
            docs: Docs::default(),
            name: "f".into(),
            name_span: Span::default(),
            ty: Type::Bool,
            constant: None,
            selector: None,
            cond: Some(Cond::All(vec![])),
        };
        assert_eq!(field_text(&field), "f: bool");
        field.cond = Some(Cond::All(vec![
            set("a"),
            Cond::All(vec![set("b"), set("c")]),
        ]));
        assert_eq!(field_text(&field), "f: bool if a && b && c");
        field.selector = Some(Selector {
            mask: "m".into(),
            bit: "B".into(),
            span: Span::default(),
        });
        assert_eq!(field_text(&field), "f: bool if a && b && c");
    }
}
