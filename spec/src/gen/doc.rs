//! `ackwire doc`: a spec printed as a static site, for people rather than compilers.
//!
//! Like the code generators, this is a printer over the [lowering](crate::lower): every field's
//! wire form, size, presence condition, role and checks are taken from
//! [`RecordPlan::steps`](crate::lower::RecordPlan::steps), so the pages say what the codecs do, not
//! what the text seems to say; the error kinds each field is refused with are listed in the
//! lowering's canonical order of checks (WIRE-24; WIRE-13: a count the remaining bytes cannot hold
//! is a decode error, before anything is allocated).
//!
//! It writes one page per layout file and an index: every frame, record, bit set and union
//! with its doc comments, the protocol constants with their values (`max_offset` derived from
//! the layout, as every backend derives it), and for each declaration a diagram of its bytes
//! and bits in the manner of RFC packet diagrams (RFC 791's header figure): a ruler 32 bits
//! wide with bit numbers, one box per field as wide as the field.
//!
//! The diagrams mark what a fixed picture cannot show exactly:
//!
//! - an optional field (its presence condition, from [`Presence`]'s tests, is written in the
//!   box's tooltip and in the table below the diagram) is drawn shaded and named with a `?`;
//! - a repeated field (a counted array) is drawn tinted and named with `[]`, its count written
//!   out;
//! - a field whose width depends on its value (a varint, a bucket code, a byte string, an
//!   array, a union, a record with such a field) has a dashed border and takes the rest of its row: the offsets
//!   after it are not fixed, so the row labels stop giving byte offsets from there on.
//!
//! Everything is plain HTML and CSS with the SVG inline, and each diagram is also written as a
//! file of its own (`svg/NAME.svg`); no JavaScript and no external asset. Every text that comes
//! from a layout file (doc comments, names) is escaped ([`escape`]): a doc comment holding `<`
//! or `&` cannot break a page. The pages are well-formed XML as well as HTML, which the tests
//! check by parsing them.

use super::{base_name, constants_of};
use crate::lower::{Ascending, Check, CountFrom, Lowering, Presence, Role, Step, Test, Wire};
use crate::model::{
    BitKind, Bits, ConstValue, Docs, Endian, File, Item, MachineSchema, Record, RecordKind,
    RoleDecl, Spec, Union,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The bits of one row of a diagram, as in RFC packet diagrams.
const ROW_BITS: u64 = 32;
/// Pixels per bit.
const BIT_W: u64 = 20;
/// The left margin, where the row labels (byte offsets) go.
const LEFT: u64 = 60;
/// The ruler's height above the first row.
const RULER_H: u64 = 34;
/// One row of fields.
const ROW_H: u64 = 40;
/// One row of a bit set's diagram: tall enough for a bit's name written upwards.
const BITS_ROW_H: u64 = 96;
/// A fixed field longer than this many full rows is drawn with its middle rows elided, so a
/// large fixed array cannot make a diagram arbitrarily tall.
const MAX_FULL_ROWS: u64 = 2;

/// The site of `spec`: `(path, contents)` pairs, `index.html`, `style.css`, one page per
/// layout file (named after the file) and `svg/NAME.svg` for each declaration's diagram.
pub fn generate(spec: &Spec) -> Vec<(String, String)> {
    let low = Lowering::new(spec);
    let pages = page_names(&spec.files);
    let site = Site {
        low: &low,
        pages: &pages,
    };
    let mut out = vec![
        ("index.html".to_string(), site.index()),
        ("style.css".to_string(), STYLE.to_string()),
    ];
    for (file, page) in spec.files.iter().zip(&pages) {
        out.push((format!("{page}.html"), site.file_page(file)));
    }
    for (name, svg) in site.diagrams() {
        out.push((format!("svg/{name}.svg"), svg));
    }
    out
}

/// Escapes text for HTML and XML, in content and in attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One page name per layout file: the file's stem, made of safe characters, distinct from
/// the others and from the index.
fn page_names(files: &[File]) -> Vec<String> {
    let mut taken: Vec<String> = vec!["index".into(), "style".into()];
    files
        .iter()
        .map(|f| {
            let stem = Path::new(&f.name)
                .file_stem()
                .map_or_else(|| f.name.clone(), |s| s.to_string_lossy().into_owned());
            let mut base: String = stem
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if base.is_empty() {
                base = "file".into();
            }
            let mut name = base.clone();
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            taken.push(name.clone());
            name
        })
        .collect()
}

struct Site<'a, 's> {
    low: &'a Lowering<'s>,
    pages: &'a [String],
}

impl<'s> Site<'_, 's> {
    fn spec(&self) -> &'s Spec {
        self.low.spec()
    }

    /// The page of the file declaring `name`.
    fn page_of(&self, name: &str) -> Option<&str> {
        let file = self.low.index.file_of(name)?;
        self.spec()
            .files
            .iter()
            .position(|f| std::ptr::eq(f, file))
            .map(|i| self.pages[i].as_str())
    }

    /// A link to declaration `name`.
    fn link(&self, name: &str) -> String {
        match self.page_of(name) {
            Some(page) => format!(
                "<a href=\"{page}.html#{n}\">{n}</a>",
                n = escape(name),
                page = escape(page)
            ),
            None => escape(name),
        }
    }

    fn index(&self) -> String {
        let spec = self.spec();
        let mut h = String::new();
        h.push_str("<h1>Protocol documentation</h1>\n");
        let _ = writeln!(
            h,
            "<p>{} layout file{}, documented by <code>ackwire doc</code> from the lowering every \
             code generator prints.</p>",
            spec.files.len(),
            if spec.files.len() == 1 { "" } else { "s" }
        );
        h.push_str("<h2>Layout files</h2>\n<table>\n<tr><th>File</th><th>Summary</th><th>Declarations</th></tr>\n");
        for (file, page) in spec.files.iter().zip(self.pages) {
            let _ = writeln!(
                h,
                "<tr><td><a href=\"{p}.html\">{n}</a></td><td>{s}</td><td>{c}</td></tr>",
                p = escape(page),
                n = escape(&base_name(&file.name)),
                s = first_sentence(&file.doc),
                c = file.items.len()
            );
        }
        h.push_str("</table>\n");
        let frames = self.low.frames();
        if !frames.is_empty() {
            h.push_str("<h2>Frames</h2>\n<p>Each frame begins with a constant, its kind or version byte, that no other frame shares.</p>\n<table>\n<tr><th>Frame</th><th>Leading constant</th><th>Size</th><th>Summary</th></tr>\n");
            for (r, kind) in &frames {
                let size = self
                    .low
                    .plan(&r.name, None)
                    .map_or_else(String::new, |p| record_size(p.fixed, p.min_bits, p.packed));
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                    self.link(&r.name),
                    kind,
                    escape(&size),
                    first_sentence(&r.docs.doc)
                );
            }
            h.push_str("</table>\n");
        }
        h.push_str("<h2>Declarations</h2>\n<table>\n<tr><th>Declaration</th><th>Kind</th><th>File</th><th>Summary</th></tr>\n");
        for (file, page) in spec.files.iter().zip(self.pages) {
            for item in &file.items {
                if matches!(item, Item::Const(_)) {
                    continue;
                }
                let (kind, docs) = item_kind(item);
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td><a href=\"{p}.html\">{f}</a></td><td>{}</td></tr>",
                    self.link(item.name()),
                    kind,
                    first_sentence(&docs.doc),
                    p = escape(page),
                    f = escape(&base_name(&file.name)),
                );
            }
        }
        h.push_str("</table>\n");
        let consts: Vec<_> = spec
            .files
            .iter()
            .flat_map(|f| constants_of(&f.items))
            .collect();
        if !consts.is_empty() {
            h.push_str("<h2>Protocol constants</h2>\n");
            self.const_table(&mut h, consts.into_iter());
        }
        page("Protocol documentation", &self.nav(None), &h)
    }

    fn nav(&self, current: Option<&str>) -> String {
        let mut n = String::from("<a href=\"index.html\">Index</a>");
        for (file, page) in self.spec().files.iter().zip(self.pages) {
            let class = if current == Some(page.as_str()) {
                " class=\"current\""
            } else {
                ""
            };
            let _ = write!(
                n,
                " <a href=\"{p}.html\"{class}>{l}</a>",
                p = escape(page),
                l = escape(&base_name(&file.name))
            );
        }
        n
    }

    fn const_table<'c>(
        &self,
        h: &mut String,
        consts: impl Iterator<Item = &'c crate::model::Const>,
    ) {
        h.push_str(
            "<table>\n<tr><th>Constant</th><th>Type</th><th>Value</th><th>Meaning</th></tr>\n",
        );
        for c in consts {
            let value = match &c.value {
                ConstValue::Int(v) => v.to_string(),
                ConstValue::MaxOffset { record, field } => {
                    let derived = self
                        .low
                        .index
                        .const_value(c)
                        .map_or_else(|| "unbounded".to_string(), |v| v.to_string());
                    format!(
                        "{derived} = max_offset({}.{}): the most bytes before that field",
                        self.link(record),
                        escape(field)
                    )
                }
            };
            let _ = writeln!(
                h,
                "<tr id=\"{n}\"><td><code>{n}</code></td><td><code>{t}</code></td><td>{value}</td><td>{d}</td></tr>",
                n = escape(&c.name),
                t = int_name(c.ty.signed, c.ty.bits),
                d = docs_html(&c.docs.doc),
            );
        }
        h.push_str("</table>\n");
    }

    fn file_page(&self, file: &'s File) -> String {
        let page_name = self
            .spec()
            .files
            .iter()
            .position(|f| std::ptr::eq(f, file))
            .map(|i| self.pages[i].clone());
        let mut h = String::new();
        let _ = writeln!(h, "<h1>{}</h1>", escape(&base_name(&file.name)));
        h.push_str(&docs_html(&file.doc));
        let _ = writeln!(
            h,
            "<p class=\"meta\">Byte order of numbers without a suffix: {}.</p>",
            match file.endian {
                Endian::Little => "little-endian (least significant byte first)",
                Endian::Big => "big-endian (most significant byte first)",
            }
        );
        if !file.items.is_empty() {
            h.push_str("<ul class=\"toc\">\n");
            for item in &file.items {
                let (kind, _) = item_kind(item);
                let _ = writeln!(
                    h,
                    "<li>{kind} <a href=\"#{n}\">{n}</a></li>",
                    n = escape(item.name())
                );
            }
            h.push_str("</ul>\n");
        }
        let consts: Vec<_> = constants_of(&file.items).collect();
        if !consts.is_empty() {
            h.push_str("<h2>Protocol constants</h2>\n");
            self.const_table(&mut h, consts.into_iter());
        }
        for item in &file.items {
            match item {
                Item::Const(_) => {}
                Item::Bits(b) => self.bits_section(&mut h, b),
                Item::Record(r) => self.record_section(&mut h, r),
                Item::Union(u) => self.union_section(&mut h, u),
                Item::State(s) => self.state_section(&mut h, s),
                Item::Schema(m) => self.schema_section(&mut h, m),
            }
        }
        page(&base_name(&file.name), &self.nav(page_name.as_deref()), &h)
    }

    fn record_section(&self, h: &mut String, r: &'s Record) {
        let Some(plan) = self.low.plan(&r.name, None) else {
            return;
        };
        let kind = match (r.kind, r.packed) {
            (RecordKind::Frame, _) => "frame",
            (RecordKind::Record, true) => "packed record",
            (RecordKind::Record, false) => "record",
        };
        section_head(h, kind, &r.name, &r.docs.doc);
        let mut facts = vec![format!(
            "Size: {}.",
            escape(&record_size(plan.fixed, plan.min_bits, plan.packed))
        )];
        if r.kind == RecordKind::Frame {
            if let Some((_, k)) = self.low.frames().iter().find(|(f, _)| f.name == r.name) {
                facts.push(format!(
                    "Leading constant (kind or version): <code>{k}</code>; bytes left after the last field are refused (<code>TrailingBytes</code>)."
                ));
            }
        }
        for (schema, role) in self.roles_of(&r.name) {
            facts.push(format!(
                "Plays the role <code>{}</code> of the {} machines' schema {}.",
                escape(&role.role.name),
                schema.machine.word(),
                self.link(&schema.name)
            ));
        }
        if r.packed {
            facts.push(
                "Packed: the fields form a bit stream, least significant bit first; bit 0 of the ruler is the first bit of the stream. Met from a byte-aligned position, the record is padded with zero bits to a whole byte (<code>ReservedBit</code> at the first one set)."
                    .to_string(),
            );
        }
        for key in self.low.keys_of(&r.name) {
            facts.push(format!(
                "Within a list ascending by <code>{k}</code>, <code>{k}</code> is carried as its difference from the previous element&#39;s (absolute for the first, at least 1 after it).",
                k = escape(key)
            ));
        }
        let _ = writeln!(h, "<p class=\"meta\">{}</p>", facts.join(" "));
        let parts = record_parts(plan.steps.iter(), plan.packed);
        h.push_str("<figure>\n");
        h.push_str(&fields_svg(&r.name, &parts, plan.packed, false));
        h.push_str(LEGEND);
        h.push_str("</figure>\n");
        // The marked parts of the diagram, with what the marks stand for written out beside it.
        let marked: Vec<String> = plan
            .steps
            .iter()
            .filter_map(|s| {
                let mut what = Vec::new();
                if let Some(p) = &s.presence {
                    what.push(format!("present {}", escape(&presence_text(p))));
                }
                if let Wire::Array(a) = &s.wire {
                    what.push(format!(
                        "repeated: {}",
                        escape(&variable_size(&s.wire, s.min, plan.packed))
                    ));
                    if let Some(asc) = a.ascending {
                        what.push(match asc {
                            Ascending::Values => "ascending, each after the first carried as its difference from the one before".to_string(),
                            Ascending::Key(k) => format!("ascending by <code>{}</code>", escape(k)),
                        });
                    }
                }
                (!what.is_empty()).then(|| {
                    let mark = match (s.presence.is_some(), matches!(s.wire, Wire::Array(_))) {
                        (true, true) => "[]?",
                        (true, false) => "?",
                        (false, _) => "[]",
                    };
                    format!(
                        "<li><code>{}{mark}</code>: {}</li>",
                        escape(&s.field.name),
                        what.join("; ")
                    )
                })
            })
            .collect();
        if !marked.is_empty() {
            let _ = writeln!(h, "<ul class=\"marks\">\n{}\n</ul>", marked.join("\n"));
        }
        if !plan.steps.is_empty() {
            h.push_str("<table class=\"fields\">\n<tr><th>#</th><th>Field</th><th>Wire</th><th>Size</th><th>Present</th><th>Role</th><th>Refused with</th><th>Meaning</th></tr>\n");
            for (i, step) in plan.steps.iter().enumerate() {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    i + 1,
                    escape(&step.field.name),
                    wire_text(&step.wire, plan.packed, &|n| self.link(n)),
                    escape(&step_size(step, plan.packed)),
                    step.presence
                        .as_ref()
                        .map_or_else(|| "always".to_string(), |p| escape(&presence_text(p))),
                    escape(&role_text(step)),
                    escape(&checks_text(&step.checks())),
                    docs_html(&step.field.docs.doc),
                );
            }
            h.push_str("</table>\n");
        }
        h.push_str("</section>\n");
    }

    fn bits_section(&self, h: &mut String, b: &'s Bits) {
        let plan = self.low.bits_plan(b);
        section_head(h, "bits", &b.name, &b.docs.doc);
        let _ = writeln!(
            h,
            "<p class=\"meta\">{w} bits; carried byte-aligned as a <code>u{w}</code> {e}, or as {w} bits in a packed record. Bit 0 is the least significant. Reserved bits (mask <code>{r:#x}</code>) are refused when set (<code>ReservedBit</code>); a bit that requires another is refused without it (<code>InvalidCondition</code>).</p>",
            w = b.width,
            e = if self.low.bits_big_endian(b) && b.width > 8 {
                "most significant byte first"
            } else if b.width > 8 {
                "least significant byte first"
            } else {
                "(one byte)"
            },
            r = plan.reserved,
        );
        h.push_str("<figure>\n");
        h.push_str(&bits_svg(b, false));
        h.push_str("</figure>\n");
        h.push_str("<table class=\"fields\">\n<tr><th>Bit</th><th>Name</th><th>Requires</th><th>Meaning</th></tr>\n");
        for bit in &b.bits {
            match &bit.kind {
                BitKind::Named {
                    name,
                    index,
                    requires,
                } => {
                    let _ = writeln!(
                        h,
                        "<tr><td>{index}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                        escape(name),
                        requires
                            .as_deref()
                            .map_or_else(String::new, |q| format!("<code>{}</code>", escape(q))),
                        docs_html(&bit.docs.doc)
                    );
                }
                BitKind::Reserved { lo, hi } => {
                    let _ = writeln!(
                        h,
                        "<tr class=\"reserved\"><td>{}</td><td>reserved</td><td></td><td>{}</td></tr>",
                        if lo == hi {
                            lo.to_string()
                        } else {
                            format!("{lo}..={hi}")
                        },
                        docs_html(&bit.docs.doc)
                    );
                }
            }
        }
        h.push_str("</table>\n</section>\n");
    }

    /// A state: its docs and a table of its groups (each group's mask bit, fields and forms);
    /// the items it derives have sections of their own.
    /// The machine schemas' roles that `name` plays.
    fn roles_of(&self, name: &str) -> Vec<(&'s MachineSchema, &'s RoleDecl)> {
        let mut out = Vec::new();
        for item in self.spec().files.iter().flat_map(|f| &f.items) {
            if let Item::Schema(m) = item {
                out.extend(
                    m.roles
                        .iter()
                        .filter(|r| r.target.name == name)
                        .map(|r| (m, r)),
                );
            }
        }
        out
    }

    fn schema_section(&self, h: &mut String, m: &'s MachineSchema) {
        section_head(h, "schema", &m.name, &m.docs.doc);
        let _ = writeln!(
            h,
            "<p class=\"meta\">Binds the {} session machines to the items below, each playing the seed's role it is given.</p>",
            m.machine.word()
        );
        // The diagram of the frame in the first role: what the machines send most.
        let first = m
            .roles
            .first()
            .and_then(|r| self.low.plan(&r.target.name, None));
        if let Some(plan) = first {
            h.push_str("<figure>\n");
            let parts = record_parts(plan.steps.iter(), plan.packed);
            h.push_str(&fields_svg(&plan.record.name, &parts, plan.packed, false));
            h.push_str("</figure>\n");
        }
        h.push_str(
            "<table class=\"fields\">\n<tr><th>Role</th><th>Item</th><th>Meaning</th></tr>\n",
        );
        for r in &m.roles {
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(&r.role.name),
                self.link(&r.target.name),
                docs_html(&r.docs.doc)
            );
        }
        h.push_str("</table>\n</section>\n");
    }

    fn state_section(&self, h: &mut String, s: &'s crate::model::State) {
        section_head(h, "state", &s.name, &s.docs.doc);
        let plans = crate::state::plans(self.spec());
        let Some(plan) = plans.iter().find(|p| p.name == s.name) else {
            h.push_str("</section>\n");
            return;
        };
        let frames: Vec<String> = plan
            .profiles
            .iter()
            .map(|p| format!("{} (kind {})", self.link(&p.frame), p.kind))
            .collect();
        let _ = writeln!(
            h,
            "<p class=\"meta\">Each entity is a {} whose canonical bytes the check hashes; it travels in {}.</p>",
            self.link(&plan.record.name),
            frames.join(" and ")
        );
        // The groups' bits as the first frame's change mask lays them out.
        if let Some(mask) = plan
            .profiles
            .first()
            .and_then(|p| self.low.index.bits(&p.mask))
        {
            h.push_str("<figure>\n");
            h.push_str(&bits_svg(mask, false));
            h.push_str("</figure>\n");
        }
        h.push_str(
            "<table class=\"fields\">\n<tr><th>Bit</th><th>Group</th><th>Fields</th><th>Forms</th><th>Meaning</th></tr>\n",
        );
        for g in &plan.groups {
            let fields: Vec<String> = g
                .fields
                .iter()
                .map(|f| format!("<code>{}</code>", escape(&f.name)))
                .collect();
            let forms: Vec<String> = g.forms.iter().map(|f| self.link(&f.record)).collect();
            let mut meaning = docs_html(&g.docs);
            if let Some(p) = &g.presence {
                let _ = write!(
                    meaning,
                    " Optional: present with <code>{}</code>.",
                    escape(&p.name)
                );
            }
            if let Some(t) = &g.tick {
                let _ = write!(
                    meaning,
                    " Measured at a tick; its age travels as <code>{}</code>.",
                    escape(&t.age)
                );
            }
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                g.bit,
                escape(&g.name),
                fields.join(", "),
                forms.join(" / "),
                meaning
            );
        }
        h.push_str("</table>\n</section>\n");
    }

    fn union_section(&self, h: &mut String, u: &'s Union) {
        let plan = self.low.union_plan(u);
        section_head(h, "union", &u.name, &u.docs.doc);
        let _ = writeln!(
            h,
            "<p class=\"meta\">A <code>{}</code> tag, then the record of the variant it names; a tag naming no variant is refused (<code>UnknownTag</code>).</p>",
            wire_text(&plan.tag, false, &|n| escape(n))
        );
        let tag_bits = u64::from(u.tag.bits);
        let parts = vec![
            Part {
                number: 1,
                name: "tag".into(),
                ty: wire_text(&plan.tag, false, &|n| n.to_string()),
                title: format!("tag: {}", wire_text(&plan.tag, false, &|n| n.to_string())),
                bits: Some(tag_bits),
                optional: false,
                repeated: false,
            },
            Part {
                number: 2,
                name: "variant".into(),
                ty: "the tag's record".into(),
                title: "the record of the variant the tag names (variable)".into(),
                bits: None,
                optional: false,
                repeated: false,
            },
        ];
        h.push_str("<figure>\n");
        h.push_str(&fields_svg(&u.name, &parts, false, false));
        h.push_str(LEGEND);
        h.push_str("</figure>\n");
        h.push_str(
            "<table class=\"fields\">\n<tr><th>Tag</th><th>Variant</th><th>Meaning</th></tr>\n",
        );
        for v in &u.variants {
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                v.tag,
                self.link(&v.record),
                docs_html(&v.docs.doc)
            );
        }
        h.push_str("</table>\n</section>\n");
    }

    /// Each declaration's diagram as a standalone SVG file, by name.
    fn diagrams(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for item in self.spec().files.iter().flat_map(|f| &f.items) {
            let svg = match item {
                Item::Const(_) => continue,
                Item::Schema(m) => {
                    let first = m
                        .roles
                        .first()
                        .and_then(|r| self.low.plan(&r.target.name, None));
                    let Some(plan) = first else {
                        continue;
                    };
                    fields_svg(
                        &m.name,
                        &record_parts(plan.steps.iter(), plan.packed),
                        plan.packed,
                        true,
                    )
                }
                // A state's diagram is its groups' bits in its first frame's change mask.
                Item::State(st) => {
                    let plans = crate::state::plans(self.spec());
                    let mask = plans
                        .iter()
                        .find(|p| p.name == st.name)
                        .and_then(|p| p.profiles.first())
                        .and_then(|p| self.low.index.bits(&p.mask));
                    match mask {
                        Some(b) => bits_svg(b, true),
                        None => continue,
                    }
                }
                Item::Bits(b) => bits_svg(b, true),
                Item::Record(r) => {
                    let Some(plan) = self.low.plan(&r.name, None) else {
                        continue;
                    };
                    fields_svg(
                        &r.name,
                        &record_parts(plan.steps.iter(), plan.packed),
                        plan.packed,
                        true,
                    )
                }
                Item::Union(u) => {
                    let plan = self.low.union_plan(u);
                    let tag = wire_text(&plan.tag, false, &|n| n.to_string());
                    fields_svg(
                        &u.name,
                        &[
                            Part {
                                number: 1,
                                name: "tag".into(),
                                ty: tag.clone(),
                                title: format!("tag: {tag}"),
                                bits: Some(u64::from(u.tag.bits)),
                                optional: false,
                                repeated: false,
                            },
                            Part {
                                number: 2,
                                name: "variant".into(),
                                ty: "the tag's record".into(),
                                title: "the record of the variant the tag names (variable)".into(),
                                bits: None,
                                optional: false,
                                repeated: false,
                            },
                        ],
                        false,
                        true,
                    )
                }
            };
            out.push((item.name().to_string(), svg));
        }
        out
    }
}

fn item_kind(item: &Item) -> (&'static str, &Docs) {
    match item {
        Item::Const(c) => ("const", &c.docs),
        Item::Bits(b) => ("bits", &b.docs),
        Item::Record(r) => (
            match (r.kind, r.packed) {
                (RecordKind::Frame, _) => "frame",
                (_, true) => "packed record",
                _ => "record",
            },
            &r.docs,
        ),
        Item::Union(u) => ("union", &u.docs),
        Item::State(s) => ("state", &s.docs),
        Item::Schema(m) => ("schema", &m.docs),
    }
}

/// The opening of an item's section, which the index and the diagrams link to by its name: the
/// `<section id>`, its heading (`kind`: frame, record, packed record, bits, union) and its doc comment.
fn section_head(h: &mut String, kind: &str, name: &str, doc: &[String]) {
    let _ = writeln!(
        h,
        "<section id=\"{n}\">\n<h2><span class=\"kind\">{kind}</span> {n}</h2>",
        n = escape(name)
    );
    h.push_str(&docs_html(doc));
}

/// One page: the shell every page shares around `body`.
fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{}</title>\n<link rel=\"stylesheet\" href=\"style.css\"/>\n</head>\n<body>\n<nav>{nav}</nav>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// Doc comment lines as HTML paragraphs: blank lines separate paragraphs, text is escaped,
/// and `backticked` spans become code.
fn docs_html(lines: &[String]) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline(&para.join(" ")));
            para.clear();
        }
    };
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            flush(&mut para, &mut out);
        } else {
            para.push(line);
        }
    }
    flush(&mut para, &mut out);
    out
}

/// The first sentence of a doc comment, for the index's tables.
fn first_sentence(lines: &[String]) -> String {
    let text: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .take_while(|l| !l.is_empty())
        .collect();
    let text = text.join(" ");
    let end = text
        .match_indices(". ")
        .next()
        .map_or(text.len(), |(i, _)| i + 1);
    inline(&text[..end])
}

/// Escapes `text` and turns each pair of backticks into a code span.
fn inline(text: &str) -> String {
    let escaped = escape(text);
    let mut out = String::new();
    let mut parts = escaped.split('`').peekable();
    let mut code = false;
    while let Some(part) = parts.next() {
        if code && parts.peek().is_none() {
            // An unmatched backtick: keep it as written.
            out.push('`');
            out.push_str(part);
            break;
        }
        if code {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
        code = !code;
    }
    out
}

fn int_name(signed: bool, bits: u8) -> String {
    format!("{}{bits}", if signed { "i" } else { "u" })
}

/// The wire form as written in a layout file, with the byte order made explicit (none in a
/// packed record, whose fields are a bit stream, least significant bit first); `name`
/// prints a declared name (a link in a page, the bare name in a diagram).
fn wire_text(w: &Wire<'_>, packed: bool, name: &dyn Fn(&str) -> String) -> String {
    // A packed record is a bit stream: a byte order means nothing there.
    let order = |big: bool| match (packed, big) {
        (true, _) => "",
        (false, true) => "be",
        (false, false) => "le",
    };
    match w {
        Wire::Int {
            signed,
            bits,
            big_endian,
        } => {
            if *bits > 8 && bits % 8 == 0 {
                format!("{}{}", int_name(*signed, *bits), order(*big_endian))
            } else {
                int_name(*signed, *bits)
            }
        }
        Wire::Float { bits, big_endian } => format!("f{bits}{}", order(*big_endian)),
        Wire::Bool { .. } => "bool".into(),
        Wire::Varint { bits } => format!("varint({bits})"),
        Wire::Zigzag { bits } => format!("zigzag({bits})"),
        Wire::Bytes => "bytes".into(),
        Wire::OptBytes => "bytes?".into(),
        Wire::Quant { wire, num, den, .. } => {
            format!("quant({}, {num}/{den})", wire_text(wire, packed, name))
        }
        Wire::Quat { bits } => format!("quat({bits})"),
        Wire::Bucket(b) => crate::lower::bucket_text(b),
        // WIRE-29: packed, the value less the least in the bits the range needs.
        Wire::Ranged {
            int,
            min,
            max,
            packed: Some(width),
        } => format!(
            "{} in {min}..={max} (u{width} + {min})",
            wire_text(int, packed, name)
        ),
        Wire::Ranged { int, min, max, .. } => {
            format!("{} in {min}..={max}", wire_text(int, packed, name))
        }
        Wire::Bits(b) => name(&b.name),
        Wire::Record { record, padded } => {
            if *padded {
                format!("{} (padded to a byte)", name(&record.name))
            } else {
                name(&record.name)
            }
        }
        Wire::Union(u) => name(&u.name),
        Wire::Array(a) => {
            let count = match &a.count {
                CountFrom::Field(f) => escape(f),
                CountFrom::Prefix(t) => wire_text(t, packed, name),
            };
            let asc = match a.ascending {
                None => String::new(),
                Some(Ascending::Values) => " ascending".into(),
                Some(Ascending::Key(k)) => format!(" ascending({})", escape(k)),
            };
            format!("[{}; {count}]{asc}", wire_text(&a.elem, packed, name))
        }
        Wire::Unknown(n) => escape(n),
    }
}

/// A size in bytes, or bits in a packed record.
fn size(n: u64, packed: bool) -> String {
    let unit = if packed { "bit" } else { "byte" };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

fn record_size(fixed: Option<u64>, min_bits: u64, packed: bool) -> String {
    match fixed {
        Some(n) => size(n, packed),
        None if packed => format!("variable, at least {min_bits} bits"),
        None => format!("variable, at least {}", size(min_bits.div_ceil(8), false)),
    }
}

fn step_size(step: &Step<'_>, packed: bool) -> String {
    if let Some(n) = step.fixed {
        return size(n, packed);
    }
    variable_size(&step.wire, step.min, packed)
}

fn variable_size(w: &Wire<'_>, min_bits: u64, packed: bool) -> String {
    match w {
        Wire::Varint { bits } | Wire::Zigzag { bits } => {
            format!("1 to {} bytes (varint)", u64::from(*bits).div_ceil(7))
        }
        // LANGUAGE.md: "bucket(0, 4, 8): 0 costs 1 bit, 1..=16 cost 6, 17..=272 cost 10".
        Wire::Bucket(b) => {
            let (least, most) = b.code_bits();
            format!("{least} to {most} bits (bucket code)")
        }
        Wire::Quant { wire, .. } => variable_size(wire, min_bits, packed),
        Wire::Bytes => "a varint length, then that many bytes".into(),
        Wire::OptBytes => "a varint (length + 1, 0 for none), then the bytes".into(),
        Wire::Array(a) => {
            let count = match &a.count {
                CountFrom::Field(f) => (*f).to_string(),
                CountFrom::Prefix(t) => {
                    format!(
                        "a {} count, then count",
                        wire_text(t, packed, &|n| n.to_string())
                    )
                }
            };
            match a.elem_fixed {
                Some(e) => format!("{count} × {}", size(e, packed)),
                None => format!("{count} × at least {}", size(a.elem_min, packed)),
            }
        }
        _ if packed => format!("variable, at least {min_bits} bits"),
        _ => format!("variable, at least {}", size(min_bits.div_ceil(8), false)),
    }
}

/// A presence condition in words: every test must hold.
fn presence_text(p: &Presence<'_>) -> String {
    let tests: Vec<String> = p
        .tests
        .iter()
        .map(|t| {
            let name = t.operand().name();
            match t {
                Test::Bit { bit, negated, .. } => {
                    format!("{name}.{bit} is {}", if *negated { "clear" } else { "set" })
                }
                Test::Bool { negated, .. } => {
                    format!("{name} is {}", if *negated { "false" } else { "true" })
                }
                Test::NonZero { negated, .. } => {
                    format!("{name} {} 0", if *negated { "=" } else { "≠" })
                }
                Test::Greater { value, .. } => format!("{name} > {value}"),
            }
        })
        .collect();
    format!("when {}", tests.join(" and "))
}

fn role_text(step: &Step<'_>) -> String {
    match step.role {
        Role::Constant(c) => format!("constant = {c}"),
        Role::Count { array } => format!("count of {array}"),
        Role::Key => "ascending key".into(),
        Role::Value => "value".into(),
    }
}

/// The error kinds a decoder refuses the field with, in the canonical order of its checks.
fn checks_text(checks: &[Check]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for c in checks {
        let these: &[&str] = match c {
            Check::Available => &["Truncated"],
            Check::Bool => &["OverWidth"],
            Check::Finite => &["NonFinite"],
            Check::Varint { .. } => &["NonCanonicalVarint", "OverWidth"],
            Check::Length | Check::Count { .. } => &["CountTooLarge"],
            Check::Constant(_) => &["BadConstant"],
            Check::Reserved { .. } => &["ReservedBit"],
            Check::Requires => &["InvalidCondition"],
            Check::Tag => &["UnknownTag"],
            Check::Ascending => &["NotAscending", "OverWidth"],
            Check::QuatRange { .. } | Check::Range { .. } => &["OverWidth"],
            Check::QuatCanonical { .. } => &["NonCanonical"],
            Check::Record | Check::Elements => &[],
        };
        for k in these {
            if !kinds.contains(k) {
                kinds.push(k);
            }
        }
    }
    if checks
        .iter()
        .any(|c| matches!(c, Check::Record | Check::Elements))
    {
        kinds.push("(and what its parts refuse)");
    }
    kinds.join(", ")
}

/// One box of a fields diagram.
struct Part {
    /// Its number in the table below the diagram (shown when the name does not fit).
    number: usize,
    name: String,
    /// The wire form, as a layout file writes it.
    ty: String,
    /// The tooltip: everything the box stands for.
    title: String,
    /// Its width in bits, when fixed.
    bits: Option<u64>,
    optional: bool,
    repeated: bool,
}

fn record_parts<'a, 's: 'a>(steps: impl Iterator<Item = &'a Step<'s>>, packed: bool) -> Vec<Part> {
    steps
        .enumerate()
        .map(|(i, s)| {
            let ty = wire_text(&s.wire, packed, &|n| n.to_string());
            let mut title = format!("{}: {ty}, {}", s.field.name, step_size(s, packed));
            if let Some(p) = &s.presence {
                let _ = write!(title, "; present {}", presence_text(p));
            }
            match s.role {
                Role::Constant(c) => {
                    let _ = write!(title, "; always {c}");
                }
                Role::Count { array } => {
                    let _ = write!(title, "; the count of {array}");
                }
                _ => {}
            }
            let ty = match s.role {
                Role::Constant(c) => format!("{ty} = {c}"),
                _ => ty,
            };
            Part {
                number: i + 1,
                name: s.field.name.clone(),
                ty,
                title,
                bits: s.fixed.map(|n| if packed { n } else { n * 8 }),
                optional: s.presence.is_some(),
                repeated: matches!(s.wire, Wire::Array(_)),
            }
        })
        .collect()
}

/// One drawn box: a part, or the piece of one on one row.
struct Cell {
    row: u64,
    from: u64,
    to: u64,
    part: usize,
    /// Dashed: the width depends on the value.
    variable: bool,
    /// The middle rows of a long fixed field, not drawn one by one.
    elided: Option<u64>,
    /// The piece of the part that carries its label.
    labelled: bool,
}

/// Lays `parts` out on rows of 32 bits, from bit 0; returns the cells and each row's offset
/// from the record's start in bits, when fixed.
fn layout(parts: &[Part]) -> (Vec<Cell>, Vec<Option<u64>>) {
    let mut cells = Vec::new();
    let mut rows: Vec<Option<u64>> = vec![Some(0)];
    let (mut row, mut col) = (0u64, 0u64);
    let mut offset = Some(0u64);
    for (i, p) in parts.iter().enumerate() {
        match p.bits {
            Some(0) => {
                // A record with no fields: a thin mark, so the field is still seen.
                cells.push(Cell {
                    row,
                    from: col,
                    to: col,
                    part: i,
                    variable: false,
                    elided: None,
                    labelled: true,
                });
            }
            Some(w) => {
                let mut left = w;
                let mut pieces = Vec::new();
                while left > 0 {
                    if col == ROW_BITS {
                        let at = offset.map(|o| o.saturating_add(w - left));
                        newline(&mut row, &mut col, at, &mut rows);
                    }
                    let room = ROW_BITS - col;
                    if col == 0 && left > ROW_BITS * (MAX_FULL_ROWS + 1) {
                        // Many full rows: one row stands for them all.
                        let full = left / ROW_BITS - 1;
                        pieces.push(Cell {
                            row,
                            from: 0,
                            to: ROW_BITS,
                            part: i,
                            variable: false,
                            elided: Some(full),
                            labelled: false,
                        });
                        left -= full * ROW_BITS;
                        col = ROW_BITS;
                        continue;
                    }
                    let take = room.min(left);
                    pieces.push(Cell {
                        row,
                        from: col,
                        to: col + take,
                        part: i,
                        variable: false,
                        elided: None,
                        labelled: false,
                    });
                    col += take;
                    left -= take;
                }
                if let Some(best) = (0..pieces.len())
                    .max_by_key(|&k| (pieces[k].to - pieces[k].from, std::cmp::Reverse(k)))
                {
                    pieces[best].labelled = true;
                }
                cells.extend(pieces);
                offset = if p.optional {
                    None
                } else {
                    offset.and_then(|o| o.checked_add(w))
                };
            }
            None => {
                if col + 8 > ROW_BITS {
                    newline(&mut row, &mut col, offset, &mut rows);
                }
                cells.push(Cell {
                    row,
                    from: col,
                    to: ROW_BITS,
                    part: i,
                    variable: true,
                    elided: None,
                    labelled: true,
                });
                offset = None;
                col = ROW_BITS;
            }
        }
    }
    (cells, rows)
}

/// Starts a new row, at `offset` bits from the record's start when that is fixed.
fn newline(row: &mut u64, col: &mut u64, offset: Option<u64>, rows: &mut Vec<Option<u64>>) {
    *row += 1;
    *col = 0;
    rows.push(offset);
}

/// Text of at most `px` pixels at the diagrams' font (an estimate: 6.6 px a character).
fn fits(text: &str, px: u64) -> bool {
    (text.chars().count() as u64) * 66 <= px.saturating_sub(6) * 10
}

/// The ruler: bit numbers over `columns` columns (32, or fewer for a narrow bit set), tens above units, as RFC 791 draws them.
fn ruler(svg: &mut String, columns: u64) {
    for i in 0..columns {
        let x = LEFT + i * BIT_W + BIT_W / 2;
        if i % 10 == 0 {
            let _ = write!(
                svg,
                "<text class=\"ruler\" x=\"{x}\" y=\"12\">{}</text>",
                i / 10
            );
        }
        let _ = write!(
            svg,
            "<text class=\"ruler\" x=\"{x}\" y=\"26\">{}</text>",
            i % 10
        );
    }
    for i in 0..=columns {
        let x = LEFT + i * BIT_W;
        let len = if i % 8 == 0 { 8 } else { 4 };
        let _ = write!(
            svg,
            "<line class=\"tick\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{RULER_H}\"/>",
            RULER_H - len
        );
    }
}

fn svg_open(name: &str, width: u64, height: u64, standalone: bool, what: &str) -> String {
    let ns = if standalone {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
    } else {
        "<svg "
    };
    format!(
        "{ns}class=\"diagram\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{what} of {n}\">\n<title>{what} of {n}</title>\n{STYLE_SVG}",
        n = escape(name)
    )
}

/// The diagram of a record's fields (or a union's tag and variant): `standalone` adds the XML
/// declaration and namespace a file of its own needs.
fn fields_svg(name: &str, parts: &[Part], packed: bool, standalone: bool) -> String {
    let (cells, rows) = layout(parts);
    let nrows = rows.len() as u64;
    let width = LEFT + ROW_BITS * BIT_W + 10;
    let height = RULER_H + nrows.max(1) * ROW_H + 6;
    let mut svg = svg_open(name, width, height, standalone, "The bytes and bits");
    ruler(&mut svg, ROW_BITS);
    for (r, at) in rows.iter().enumerate() {
        let y = RULER_H + r as u64 * ROW_H + ROW_H / 2 + 4;
        let label = match at {
            Some(bits) if packed => format!("bit {bits}"),
            Some(bits) => format!("+{}", bits / 8),
            None => "…".into(),
        };
        let _ = write!(
            svg,
            "<text class=\"offset\" x=\"{}\" y=\"{y}\">{}</text>",
            LEFT - 6,
            escape(&label)
        );
    }
    if parts.is_empty() {
        let _ = write!(
            svg,
            "<rect class=\"field reserved\" x=\"{LEFT}\" y=\"{RULER_H}\" width=\"{}\" height=\"{ROW_H}\"/><text class=\"name\" x=\"{}\" y=\"{}\">no fields: zero bytes</text>",
            ROW_BITS * BIT_W,
            LEFT + ROW_BITS * BIT_W / 2,
            RULER_H + ROW_H / 2 + 4
        );
    }
    for c in &cells {
        let p = &parts[c.part];
        let x = LEFT + c.from * BIT_W;
        let y = RULER_H + c.row * ROW_H;
        let w = (c.to - c.from) * BIT_W;
        let mut class = String::from("field");
        if p.optional {
            class.push_str(" optional");
        }
        if p.repeated {
            class.push_str(" repeated");
        }
        if c.variable {
            class.push_str(" variable");
        }
        let _ = write!(
            svg,
            "<g><title>{}</title><rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{ROW_H}\"/>",
            escape(&p.title),
            w.max(2)
        );
        let cx = x + w / 2;
        if let Some(n) = c.elided {
            let _ = write!(
                svg,
                "<text class=\"type\" x=\"{cx}\" y=\"{}\">⋮ {} more rows of {} ⋮</text>",
                y + ROW_H / 2 + 4,
                n,
                escape(&p.name)
            );
        } else if c.labelled {
            let mut shown = p.name.clone();
            if p.repeated {
                shown.push_str("[]");
            }
            if p.optional {
                shown.push('?');
            }
            let lines: Vec<String> = if fits(&shown, w) && fits(&p.ty, w) {
                vec![shown.clone(), p.ty.clone()]
            } else if fits(&shown, w) {
                vec![shown.clone()]
            } else if fits(&p.number.to_string(), w + 8) {
                vec![p.number.to_string()]
            } else {
                vec![]
            };
            match lines.as_slice() {
                [one] => {
                    let _ = write!(
                        svg,
                        "<text class=\"name\" x=\"{cx}\" y=\"{}\">{}</text>",
                        y + ROW_H / 2 + 4,
                        escape(one)
                    );
                }
                [a, b] => {
                    let _ = write!(
                        svg,
                        "<text class=\"name\" x=\"{cx}\" y=\"{}\">{}</text><text class=\"type\" x=\"{cx}\" y=\"{}\">{}</text>",
                        y + 17,
                        escape(a),
                        y + 32,
                        escape(b)
                    );
                }
                _ => {}
            }
        }
        svg.push_str("</g>\n");
    }
    svg.push_str("</svg>\n");
    svg
}

/// The diagram of a bit set: one cell per bit, bit 0 (the least significant) on the left as
/// in a packed record's bit stream, each named bit's name written upwards, each run of
/// reserved bits one grey box.
fn bits_svg(b: &Bits, standalone: bool) -> String {
    let width_bits = u64::from(b.width);
    let nrows = width_bits.div_ceil(ROW_BITS).max(1);
    let width = LEFT + ROW_BITS * BIT_W + 10;
    let height = RULER_H + nrows * BITS_ROW_H + 6;
    let mut svg = String::new();
    let head = svg_open(&b.name, width, height, standalone, "The bits");
    svg.push_str(&head);
    ruler(&mut svg, width_bits.min(ROW_BITS));
    let mut names: BTreeMap<u64, (&str, Option<&str>)> = BTreeMap::new();
    for bit in &b.bits {
        if let BitKind::Named {
            name,
            index,
            requires,
        } = &bit.kind
        {
            names.insert(u64::from(*index), (name.as_str(), requires.as_deref()));
        }
    }
    for r in 0..nrows {
        let y = RULER_H + r * BITS_ROW_H + BITS_ROW_H / 2 + 4;
        let _ = write!(
            svg,
            "<text class=\"offset\" x=\"{}\" y=\"{y}\">bit {}</text>",
            LEFT - 6,
            r * ROW_BITS
        );
    }
    let mut i = 0u64;
    while i < width_bits {
        let row = i / ROW_BITS;
        let col = i % ROW_BITS;
        let x = LEFT + col * BIT_W;
        let y = RULER_H + row * BITS_ROW_H;
        if let Some((name, requires)) = names.get(&i) {
            let title = match requires {
                Some(q) => format!("bit {i}: {name}, requires {q}"),
                None => format!("bit {i}: {name}"),
            };
            let tx = x + BIT_W / 2 + 4;
            let ty = y + BITS_ROW_H - 6;
            let shown = if fits(name, BITS_ROW_H) {
                (*name).to_string()
            } else {
                let keep: String = name.chars().take(12).collect();
                format!("{keep}…")
            };
            let _ = writeln!(
                svg,
                "<g><title>{t}</title><rect class=\"field\" x=\"{x}\" y=\"{y}\" width=\"{BIT_W}\" height=\"{BITS_ROW_H}\"/><text class=\"bit\" x=\"{tx}\" y=\"{ty}\" transform=\"rotate(-90 {tx} {ty})\">{s}</text></g>",
                t = escape(&title),
                s = escape(&shown)
            );
            i += 1;
        } else {
            // A run of bits no name claims, up to the next named bit or the row's end.
            let mut end = i + 1;
            while end < width_bits && !names.contains_key(&end) && !end.is_multiple_of(ROW_BITS) {
                end += 1;
            }
            let w = (end - i) * BIT_W;
            let title = if end - i == 1 {
                format!("bit {i}: reserved")
            } else {
                format!("bits {i}..={}: reserved", end - 1)
            };
            let _ = write!(
                svg,
                "<g><title>{t}</title><rect class=\"field reserved\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{BITS_ROW_H}\"/>",
                t = escape(&title)
            );
            if fits("reserved", w) {
                let _ = write!(
                    svg,
                    "<text class=\"type\" x=\"{}\" y=\"{}\">reserved</text>",
                    x + w / 2,
                    y + BITS_ROW_H / 2 + 4
                );
            } else {
                let tx = x + w / 2 + 4;
                let ty = y + BITS_ROW_H - 6;
                let _ = write!(svg, "<text class=\"bit type\" x=\"{tx}\" y=\"{ty}\" transform=\"rotate(-90 {tx} {ty})\">reserved</text>");
            }
            svg.push_str("</g>\n");
            i = end;
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The styles of a diagram, inside it so that a standalone file looks as the inline one does.
const STYLE_SVG: &str = "<style>\
text{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:11px;text-anchor:middle;fill:#1b1f24}\
.ruler{font-size:10px;fill:#57606a}.offset{text-anchor:end;fill:#57606a}\
.tick{stroke:#8c959f;stroke-width:1}\
.field{fill:#ffffff;stroke:#1b1f24;stroke-width:1.2}\
.optional{fill:#fff4cc}.repeated{fill:#ddf4ff}.optional.repeated{fill:#e8e4ff}\
.variable{stroke-dasharray:5 3}.reserved{fill:#eaeef2}\
.name{font-weight:bold}.type{fill:#57606a;font-size:10px}.bit{text-anchor:start}\
</style>\n";

/// What the marks of a diagram mean, under each one.
const LEGEND: &str = "<figcaption><span class=\"swatch\"></span> fixed width \
<span class=\"swatch optional\"></span> optional (<code>?</code>, condition in the table) \
<span class=\"swatch repeated\"></span> repeated (<code>[]</code>, count in the table) \
<span class=\"swatch variable\"></span> width depends on the value (varint, bucket code, bytes, list, union): \
offsets after it are not fixed (<code>…</code>)</figcaption>\n";

/// The site's one stylesheet.
const STYLE: &str = "/* Written by ackwire doc. */
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, Segoe UI, sans-serif; color: #1b1f24; background: #ffffff; }
nav { padding: 0.6em 1.5em; background: #24292f; }
nav a { color: #ffffff; margin-right: 1.2em; text-decoration: none; }
nav a.current { text-decoration: underline; }
main { max-width: 1100px; padding: 1em 1.5em 3em; }
h1 { font-size: 1.8em; margin: 0.4em 0; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #d0d7de; }
.kind { color: #8250df; font-weight: normal; }
.meta { color: #57606a; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; background: #f6f8fa; padding: 0 0.2em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25em 0.55em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td p { margin: 0; }
tr.reserved { color: #57606a; }
figure { margin: 1em 0; overflow-x: auto; }
figcaption { font-size: 0.85em; color: #57606a; }
.swatch { display: inline-block; width: 1.2em; height: 0.9em; border: 1px solid #1b1f24; vertical-align: middle; background: #ffffff; }
.swatch.optional { background: #fff4cc; }
.swatch.repeated { background: #ddf4ff; }
.swatch.variable { border-style: dashed; }
.toc { columns: 3; }
section:target h2 { background: #fff8c5; }
";

/// Writes the site of `spec` into `out`, creating folders as needed; returns the files written.
pub fn write_site(spec: &Spec, out: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for (name, text) in generate(spec) {
        let path = out.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape("a < b && \"c\" > 'd'"),
            "a &lt; b &amp;&amp; &quot;c&quot; &gt; &#39;d&#39;"
        );
    }

    #[test]
    fn inline_code_spans_are_escaped_inside() {
        assert_eq!(
            inline("see `a<b` & more"),
            "see <code>a&lt;b</code> &amp; more"
        );
        assert_eq!(inline("one ` alone"), "one ` alone");
    }

    #[test]
    fn a_wide_field_is_split_across_rows_and_long_ones_elided() {
        let part = |bits| Part {
            number: 1,
            name: "x".into(),
            ty: "u".into(),
            title: String::new(),
            bits: Some(bits),
            optional: false,
            repeated: false,
        };
        let (cells, rows) = layout(&[part(16), part(32)]);
        assert_eq!(cells.len(), 3, "16 bits, then 16 + 16 across the row's end");
        assert_eq!((cells[1].row, cells[1].from, cells[1].to), (0, 16, 32));
        assert_eq!((cells[2].row, cells[2].from, cells[2].to), (1, 0, 16));
        assert_eq!(rows, [Some(0), Some(32)]);
        let (cells, rows) = layout(&[part(32 * 100)]);
        assert!(rows.len() <= 4, "{} rows", rows.len());
        assert!(cells.iter().any(|c| c.elided == Some(99)));
    }

    #[test]
    fn offsets_are_unknown_after_a_variable_field() {
        let p = |bits: Option<u64>| Part {
            number: 1,
            name: "x".into(),
            ty: "u".into(),
            title: String::new(),
            bits,
            optional: false,
            repeated: false,
        };
        let (cells, rows) = layout(&[p(Some(8)), p(None), p(Some(32))]);
        assert!(cells[1].variable);
        assert_eq!((cells[1].from, cells[1].to), (8, 32));
        assert_eq!(rows, [Some(0), None]);
    }
}
