//! `ackwire doc`'s site: the text of its pages for the reference protocol and the kitchen sink
//! reviewed as snapshots, every page and every diagram parsed as XML (an SVG that is not
//! well-formed shows nothing in a browser), every link inside the site pointing at a page and
//! an anchor that exist, and text from a layout file escaped.

use ackwire_spec::model::Spec;
use std::collections::BTreeMap;
use std::path::Path;

fn reference() -> Spec {
    ackwire_spec::reference_spec().unwrap_or_else(|e| panic!("{e}"))
}

fn sink() -> Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sink/sink.wire");
    ackwire_spec::load(&[path])
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// Parses a page or a diagram as XML; a page's `<!DOCTYPE html>` is the only DTD it has.
fn parse(xml: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(xml, options)
}

fn site(spec: &Spec) -> BTreeMap<String, String> {
    ackwire_spec::gen::doc::generate(spec).into_iter().collect()
}

/// The text a reader sees, one line per paragraph, heading, list item, table row (cells
/// joined by ` | `) and diagram label, without the diagrams' rulers (the same digits each time).
fn text_of(xml: &str) -> String {
    const BLOCKS: &[&str] = &[
        "title",
        "nav",
        "h1",
        "h2",
        "p",
        "li",
        "tr",
        "figcaption",
        "text",
    ];
    let doc = parse(xml).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    let mut lines: Vec<String> = Vec::new();
    let mut current: Option<roxmltree::NodeId> = None;
    let mut cell: Option<roxmltree::NodeId> = None;
    for node in doc.descendants().filter(|n| n.is_text()) {
        let t = node
            .text()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let Some(parent) = node.parent_element() else {
            continue;
        };
        if t.is_empty()
            || parent.has_tag_name("style")
            || parent.attribute("class") == Some("ruler")
        {
            continue;
        }
        let block = node
            .ancestors()
            .find(|a| a.is_element() && BLOCKS.contains(&a.tag_name().name()))
            .map(|a| a.id());
        let this_cell = node
            .ancestors()
            .find(|a| a.has_tag_name("td") || a.has_tag_name("th"))
            .map(|a| a.id());
        match lines.last_mut() {
            Some(line) if block.is_some() && block == current => {
                let sep = if this_cell != cell {
                    " | "
                } else if line.ends_with(' ') {
                    ""
                } else {
                    " "
                };
                line.push_str(sep);
                line.push_str(&t);
            }
            _ => lines.push(t),
        }
        current = block;
        cell = this_cell;
    }
    lines.join("\n") + "\n"
}

fn pages_text(site: &BTreeMap<String, String>) -> String {
    site.iter()
        .filter(|(name, _)| name.ends_with(".html"))
        .map(|(name, html)| format!("===== {name}\n{}", text_of(html)))
        .collect()
}

/// Parses every page and diagram, and follows every link within the site.
fn check_well_formed(site: &BTreeMap<String, String>) {
    let mut ids: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut links = Vec::new();
    for (name, text) in site {
        if name.ends_with(".css") {
            continue;
        }
        let doc = parse(text).unwrap_or_else(|e| panic!("{name} is not well-formed XML: {e}"));
        let svgs = doc.descendants().filter(|n| n.has_tag_name("svg")).count();
        if name.ends_with(".svg") {
            let root = doc.root_element();
            assert_eq!(root.tag_name().name(), "svg", "{name}");
            assert_eq!(
                root.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg"),
                "{name} needs the SVG namespace to display on its own"
            );
            assert!(
                root.descendants().any(|n| n.has_tag_name("rect")),
                "{name} draws nothing"
            );
        } else {
            assert_eq!(doc.root_element().tag_name().name(), "html", "{name}");
            if name != "index.html" {
                let sections = doc
                    .descendants()
                    .filter(|n| n.has_tag_name("section"))
                    .count();
                assert_eq!(svgs, sections, "{name}: one diagram per declaration");
            }
        }
        for node in doc.descendants().filter(|n| n.is_element()) {
            if let Some(id) = node.attribute("id") {
                ids.entry(name.as_str()).or_default().push(id.to_string());
            }
            if let Some(href) = node.attribute("href") {
                links.push((name.clone(), href.to_string()));
            }
        }
    }
    assert!(!links.is_empty());
    for (from, href) in links {
        assert!(
            !href.contains("://"),
            "{from} links outside the site: {href}"
        );
        let (file, anchor) = href.split_once('#').unwrap_or((&href, ""));
        // `#NAME` is an anchor of the page itself.
        let file = if file.is_empty() { from.as_str() } else { file };
        assert!(
            site.contains_key(file),
            "{from} links to {href}: no such file"
        );
        if !anchor.is_empty() {
            assert!(
                ids.get(file)
                    .is_some_and(|ids| ids.iter().any(|i| i == anchor)),
                "{from} links to {href}: no such anchor"
            );
        }
    }
}

#[test]
fn reference_site_is_well_formed_and_complete() {
    let spec = reference();
    let site = site(&spec);
    check_well_formed(&site);
    for page in [
        "index.html",
        "style.css",
        "acked.html",
        "baseline.html",
        "datagram.html",
        "delta.html",
    ] {
        assert!(site.contains_key(page), "{page} is missing");
    }
    // Every declaration but a constant has a diagram of its own and a section on its file's
    // page; every constant is in the index.
    let index = &site["index.html"];
    for item in spec.files.iter().flat_map(|f| &f.items) {
        let name = item.name();
        if matches!(item, ackwire_spec::model::Item::Const(_)) {
            assert!(
                index.contains(&format!("id=\"{name}\"")),
                "{name} not in the index"
            );
        } else {
            assert!(
                site.contains_key(&format!("svg/{name}.svg")),
                "no diagram of {name}"
            );
        }
    }
    let acked = &site["acked.html"];
    assert!(
        acked.contains("when flags.CHECK is set"),
        "a condition written out"
    );
    assert!(acked.contains("when mask.POSE is set and mask.POSE_FULL is set"));
    assert!(acked.contains("when event_count &gt; 0"));
    assert!(acked.contains("count of changes"));
    assert!(acked.contains("class=\"field optional\""));
    assert!(acked.contains("class=\"field repeated variable\""));
}

#[test]
fn reference_pages_text() {
    insta::assert_snapshot!("doc_reference", pages_text(&site(&reference())));
}

#[test]
fn sink_site_is_well_formed() {
    let site = site(&sink());
    check_well_formed(&site);
    let page = &site["sink.html"];
    // The 64-bit bit set's diagram has two rows; the 60-bit packed field spans rows.
    assert!(page.contains("bit 32"), "a second row of the Wide diagram");
    assert!(page.contains("1 to 10 bytes (varint)"));
    assert!(page.contains("[[u16be; u8]; varint(64)]"));
    assert!(page.contains("big-endian"));
}

#[test]
fn sink_pages_text() {
    insta::assert_snapshot!("doc_sink", pages_text(&site(&sink())));
}

#[test]
fn text_from_a_layout_file_is_escaped() {
    let text = "//! A file about <script>alert(1)</script> & \"quotes\".\n\n\
                /// Holds `a < b` && c > d.\nframe F {\n    /// <b>not bold</b> & 'so on'\n    kind: u8 = 1,\n}\n";
    let spec = ackwire_spec::compile(&[ackwire_spec::Source {
        name: "x<&>.wire".into(),
        text: text.into(),
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    let site = site(&spec);
    check_well_formed(&site);
    let all: String = site.values().cloned().collect();
    assert!(
        !all.contains("<script>"),
        "markup from a doc comment got through"
    );
    assert!(!all.contains("<b>not bold"));
    assert!(all.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    assert!(all.contains("<code>a &lt; b</code> &amp;&amp; c &gt; d"));
    let page = site
        .keys()
        .find(|k| k.ends_with(".html") && *k != "index.html")
        .unwrap();
    assert!(
        !page.contains('<') && !page.contains('&'),
        "page name {page}"
    );
    assert!(text_of(&site[page.as_str()])
        .contains("A file about <script>alert(1)</script> & \"quotes\"."));
}
