//! What a bench [`Report`] looks like to people: the table `ackwire bench` prints, the
//! markdown tables of the report page ([`crate::page`]), the SVG chart of bandwidth against
//! loss, and the replacement of a README's block between [`BEGIN`] and [`END`].
//!
//! Every function here is a pure function of its inputs (no clock, no hash-map order), so a
//! README regenerated from the same report is byte-identical and a diff of it shows only what
//! the measurements changed.
//!
//! Rows are grouped explicitly rather than trusted to arrive in order: scenes and protocols
//! keep the order in which they first appear (scenes listed in [`Report::scenes`] first), and
//! loss levels are sorted ascending.

use super::fields::Class;
use super::server::ServerRow;
use super::{
    Report, Row, SceneInfo, Target, FIEDLER_COMPRESSED_KBPS, FIEDLER_UNCOMPRESSED_KBPS,
    QUAKE3_CAP_KBPS,
};
use ackwire_conformance::report::escape as xml_escape;
use std::fmt::Write as _;

/// The line that opens a README's generated block.
pub const BEGIN: &str = "<!-- bench:begin -->";
/// The line that closes a README's generated block.
pub const END: &str = "<!-- bench:end -->";

/// Why [`replace_block`] could not find the place for the block. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// No line is the begin marker.
    #[error("the begin marker `{BEGIN}` is missing")]
    MissingBegin,
    /// The begin marker is there, no line is the end marker.
    #[error("the end marker `{END}` is missing (begin marker at line {begin_line})")]
    MissingEnd {
        /// Where the begin marker is.
        begin_line: usize,
    },
    /// The end marker comes before the begin marker.
    #[error("the end marker `{END}` at line {end_line} comes before the begin marker `{BEGIN}` at line {begin_line}")]
    EndBeforeBegin {
        /// Where the begin marker is.
        begin_line: usize,
        /// Where the end marker is.
        end_line: usize,
    },
    /// A marker appears on more than one line, so which block to replace is ambiguous.
    #[error("the marker `{marker}` appears twice: at line {first_line} and at line {second_line}")]
    Duplicate {
        /// The marker repeated ([`BEGIN`] or [`END`]).
        marker: &'static str,
        /// Its first line.
        first_line: usize,
        /// Its second line.
        second_line: usize,
    },
}

/// Replaces what lies between the [`BEGIN`] and [`END`] marker lines of `readme` with `block`.
///
/// A marker counts only as a whole line (surrounding whitespace ignored), so prose or code
/// that quotes a marker is left alone. The markers and everything outside them are kept byte
/// for byte; the block goes on its own lines between them, so replacing again with the same
/// block gives the same text.
pub fn replace_block(readme: &str, block: &str) -> Result<String, BlockError> {
    // (line number, byte offset where the line's text ends) for BEGIN: the block follows it.
    let mut begin: Option<(usize, usize)> = None;
    // (line number, byte offset where the line starts) for END: the block precedes it.
    let mut end: Option<(usize, usize)> = None;
    let mut offset = 0;
    for (index, line) in readme.split_inclusive('\n').enumerate() {
        let (number, start) = (index + 1, offset);
        offset += line.len();
        let text = line.trim_end_matches(['\n', '\r']);
        let (marker, slot, at) = match text.trim() {
            BEGIN => (BEGIN, &mut begin, start + text.len()),
            END => (END, &mut end, start),
            _ => continue,
        };
        if let Some((first_line, _)) = *slot {
            return Err(BlockError::Duplicate {
                marker,
                first_line,
                second_line: number,
            });
        }
        *slot = Some((number, at));
    }
    let (begin_line, begin_at) = begin.ok_or(BlockError::MissingBegin)?;
    let (end_line, end_at) = end.ok_or(BlockError::MissingEnd { begin_line })?;
    if end_line < begin_line {
        return Err(BlockError::EndBeforeBegin {
            begin_line,
            end_line,
        });
    }
    let block = block.trim_end_matches(['\n', '\r']);
    let mut out = String::with_capacity(readme.len() + block.len());
    out.push_str(&readme[..begin_at]);
    out.push('\n');
    if !block.is_empty() {
        out.push_str(block);
        out.push('\n');
    }
    out.push_str(&readme[end_at..]);
    Ok(out)
}

/// One scene's rows, grouped for rendering.
pub(crate) struct SceneRows<'a> {
    pub(crate) name: &'a str,
    /// `None` for a scene that has rows but is not listed in [`Report::scenes`].
    pub(crate) info: Option<&'a SceneInfo>,
    /// In order of first appearance.
    pub(crate) protocols: Vec<&'a str>,
    /// Ascending, each once.
    losses: Vec<f64>,
    rows: Vec<&'a Row>,
}

impl<'a> SceneRows<'a> {
    /// The first row for `protocol` at `loss`: a duplicate row is a bug of the runner, and
    /// showing one of them beats showing neither.
    pub(crate) fn row(&self, protocol: &str, loss: f64) -> Option<&'a Row> {
        self.rows
            .iter()
            .copied()
            .find(|r| r.protocol == protocol && same_loss(r.loss_pct, loss))
    }

    /// The scene's title for headings, or its name when the report does not describe it.
    pub(crate) fn title(&self) -> &'a str {
        match self.info {
            Some(info) if !info.title.is_empty() => &info.title,
            _ => self.name,
        }
    }

    /// The loss level the report's per-scene table is shown at: 5%, the middle of the range
    /// the issue cares about, or the closest level measured (the lower one on a tie).
    pub(crate) fn headline_loss(&self) -> Option<f64> {
        crate::headline_loss(&self.losses)
    }
}

/// `total_cmp` tells 0.0 from -0.0; adding 0.0 makes both the same loss level.
fn same_loss(a: f64, b: f64) -> bool {
    (a + 0.0).total_cmp(&(b + 0.0)).is_eq()
}

/// The report's rows by scene. A scene listed with no rows is kept (it shows as "no
/// measurements"); a row whose scene is not listed still gets a scene.
pub(crate) fn group(report: &Report) -> Vec<SceneRows<'_>> {
    fn empty<'a>(name: &'a str, info: Option<&'a SceneInfo>) -> SceneRows<'a> {
        SceneRows {
            name,
            info,
            protocols: Vec::new(),
            losses: Vec::new(),
            rows: Vec::new(),
        }
    }
    let mut scenes: Vec<SceneRows<'_>> = Vec::new();
    for info in &report.scenes {
        if !scenes.iter().any(|s| s.name == info.name) {
            scenes.push(empty(&info.name, Some(info)));
        }
    }
    for row in &report.rows {
        let index = match scenes.iter().position(|s| s.name == row.scene) {
            Some(index) => index,
            None => {
                scenes.push(empty(&row.scene, None));
                scenes.len() - 1
            }
        };
        let scene = &mut scenes[index];
        if !scene.protocols.contains(&row.protocol.as_str()) {
            scene.protocols.push(&row.protocol);
        }
        if !scene.losses.iter().any(|&l| same_loss(l, row.loss_pct)) {
            scene.losses.push(row.loss_pct + 0.0);
        }
        scene.rows.push(row);
    }
    for scene in &mut scenes {
        scene.losses.sort_by(f64::total_cmp);
    }
    scenes
}

/// Every protocol of the report, in order of first appearance, so that colours and the
/// legend are the same in every panel.
fn all_protocols(report: &Report) -> Vec<&str> {
    let mut protocols: Vec<&str> = Vec::new();
    for row in &report.rows {
        if !protocols.contains(&row.protocol.as_str()) {
            protocols.push(&row.protocol);
        }
    }
    protocols
}

/// `x` with `decimals` decimals, or `-` when there is no number to show.
pub(crate) fn fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "-".to_owned()
    }
}

/// Nanoseconds: a decimal only where it is more than noise.
fn nanos(x: f64) -> String {
    fixed(x, if x.abs() >= 10.0 { 0 } else { 1 })
}

/// Metres shown as millimetres, with about three significant digits.
pub(crate) fn millis(metres: f64) -> String {
    let mm = metres * 1000.0;
    let decimals = match mm.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    fixed(mm, decimals)
}

/// A number of unknown scale (a target's measurement or limit) with about three significant
/// digits and no trailing zeros: `57`, `48.3`, `0.125`.
pub(crate) fn general(x: f64) -> String {
    let decimals = match x.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        _ => 3,
    };
    let text = fixed(x, decimals);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A loss level as written in labels: `5`, `2.5`.
pub(crate) fn loss_label(loss: f64) -> String {
    format!("{loss}")
}

/// A share (0.17) as a percentage (`17`, `4.2`).
pub(crate) fn percent(share: f64) -> String {
    let v = share * 100.0;
    fixed(v, if v.abs() >= 10.0 { 0 } else { 1 })
}

/// The terminal's verdict on a target: `met` or `MISSED by X%`.
fn verdict_terminal(target: &Target) -> String {
    let margin = target.margin();
    if target.met {
        "met".to_owned()
    } else if margin > 0.0 && margin.is_finite() {
        format!("MISSED by {}%", percent(margin))
    } else {
        // Judged missed while not over the limit (a limit of zero): no percentage means much.
        "MISSED".to_owned()
    }
}

/// The README's verdict on a target: `met`, `missed by N%`, or `N× the limit` once a
/// percentage would be harder to read than a ratio.
pub(crate) fn verdict_markdown(target: &Target) -> String {
    let margin = target.margin();
    if target.met {
        "met".to_owned()
    } else if margin > 1.0 && margin.is_finite() {
        format!("{}× the limit", general(target.measured / target.limit))
    } else if margin > 0.0 && margin.is_finite() {
        format!("missed by {}%", percent(margin))
    } else {
        "missed".to_owned()
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Align {
    Left,
    Right,
}

/// Writes `rows` under `columns`, each column as wide as its widest cell, indented by two
/// spaces. An empty row writes a blank line, which separates groups without a column for it.
fn write_aligned(out: &mut String, columns: &[(&str, Align)], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = columns.iter().map(|(h, _)| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        // Two spaces between columns: headers of several words stay apart.
        let mut text = String::new();
        for ((cell, &width), (_, align)) in cells.zip(&widths).zip(columns) {
            let _ = match align {
                Align::Left => write!(text, "  {cell:<width$}"),
                Align::Right => write!(text, "  {cell:>width$}"),
            };
        }
        let _ = writeln!(out, "{}", text.trim_end());
    };
    line(out, &mut columns.iter().map(|(h, _)| *h));
    let rules: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(out, &mut rules.iter().map(String::as_str));
    for row in rows {
        if row.is_empty() {
            let _ = writeln!(out);
        } else {
            line(out, &mut row.iter().map(String::as_str));
        }
    }
}

/// The columns of the terminal table, one line per loss and protocol.
const TABLE_COLUMNS: [(&str, Align); 12] = [
    ("loss %", Align::Right),
    ("protocol", Align::Left),
    ("bits/ent/tick", Align::Right),
    ("bits/changed", Align::Right),
    ("kbps", Align::Right),
    ("up kbps", Align::Right),
    ("max frame B", Align::Right),
    ("err mean mm", Align::Right),
    ("err worst mm", Align::Right),
    ("orient err °", Align::Right),
    ("enc ns/ent", Align::Right),
    ("dec ns/ent", Align::Right),
];

/// What the field table says of itself, in both renderings.
const FIELDS_NOTE: &str = "from the frames as each server wrote them (the ackwire protocols \
field by field as `ackwire explain` walks them; postcard each field serialized alone; bitcode \
each column encoded alone); header is the frame's own fields, resent a reliable channel's \
retransmissions; acks go the other way and are not counted";

/// Degrees, with two decimals under ten and one above.
fn degrees(x: f64) -> String {
    fixed(x, if x.abs() >= 10.0 { 1 } else { 2 })
}

/// The field-table rows of `scene` at `loss`: one per protocol that has them, the classes
/// in [`Class::ALL`] order, then their total.
fn field_rows(scene: &SceneRows<'_>, loss: f64) -> Vec<Vec<String>> {
    scene
        .protocols
        .iter()
        .filter_map(|&protocol| {
            let r = scene.row(protocol, loss)?;
            let f = r.fields.as_ref()?;
            let mut cells = vec![protocol.to_owned()];
            cells.extend(Class::ALL.iter().map(|c| fixed(f.get(*c), 1)));
            cells.push(fixed(f.total(), 1));
            Some(cells)
        })
        .collect()
}

/// The protocols of `scene` with a row at `loss` but no field split (their frames hold a
/// type `ackwire explain` does not walk yet), as a sentence, or nothing.
fn unsplit(scene: &SceneRows<'_>, loss: f64) -> Option<String> {
    let names: Vec<&str> = scene
        .protocols
        .iter()
        .copied()
        .filter(|&p| scene.row(p, loss).is_some_and(|r| r.fields.is_none()))
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "Not split by field: {} (its frames hold a type `ackwire explain` does not walk yet).",
            names.join(", ")
        )
    })
}

/// Whether any protocol of `scene` at `loss` measured the orientation's render error.
fn has_orientation_error(scene: &SceneRows<'_>, loss: f64) -> bool {
    scene.protocols.iter().any(|&p| {
        scene
            .row(p, loss)
            .is_some_and(|r| r.orient_error_mean_deg.is_some())
    })
}

/// The terminal table: per scene a heading and one line per loss and protocol, then the
/// targets with their verdicts, and notices on what makes the figures less telling (a quick
/// run, a debug build).
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ackwire bench: {} build, seed {}{}",
        report.build,
        report.seed,
        if report.quick {
            ", quick run (fewer ticks, so noisier figures)"
        } else {
            ""
        }
    );
    for scene in group(report) {
        let _ = writeln!(out);
        match scene.info {
            Some(info) => {
                let _ = writeln!(
                    out,
                    "{}{}{} ({} Hz, {} entities, rtt {} ms, {} ticks measured, {:.1} changed per tick)",
                    scene.name,
                    if info.title.is_empty() { "" } else { ": " },
                    info.title,
                    info.hz,
                    info.entities,
                    info.rtt_ms,
                    info.ticks.saturating_sub(info.warmup_ticks),
                    info.changed_per_tick
                );
            }
            None => {
                let _ = writeln!(out, "{}", scene.name);
            }
        }
        if scene.rows.is_empty() {
            let _ = writeln!(out, "  no measurements");
            continue;
        }
        let mut rows = Vec::new();
        for &loss in &scene.losses {
            if !rows.is_empty() {
                rows.push(Vec::new());
            }
            for &protocol in &scene.protocols {
                let Some(r) = scene.row(protocol, loss) else {
                    continue;
                };
                rows.push(vec![
                    loss_label(loss),
                    r.protocol.clone(),
                    fixed(r.bits_per_entity_tick, 1),
                    fixed(r.bits_per_changed, 1),
                    fixed(r.kbps, 1),
                    fixed(r.kbps_up, 1),
                    r.largest_frame.to_string(),
                    millis(r.render_error_mean),
                    millis(r.render_error_worst),
                    r.orient_error_mean_deg.map_or("-".to_owned(), degrees),
                    nanos(r.encode_ns_per_entity),
                    nanos(r.decode_ns_per_entity),
                ]);
            }
        }
        write_aligned(&mut out, &TABLE_COLUMNS, &rows);
        if let Some(headline) = scene.headline_loss() {
            let fields = field_rows(&scene, headline);
            if !fields.is_empty() {
                let _ = writeln!(
                    out,
                    "\n  bits per changed entity by field, {}% loss:",
                    loss_label(headline)
                );
                let mut columns = vec![("protocol", Align::Left)];
                columns.extend(Class::ALL.iter().map(|c| (c.name(), Align::Right)));
                columns.push(("total", Align::Right));
                write_aligned(&mut out, &columns, &fields);
                if let Some(note) = unsplit(&scene, headline) {
                    let _ = writeln!(out, "  {note}");
                }
            }
        }
    }
    if !report.targets.is_empty() {
        let _ = writeln!(out, "\ntargets");
        let rows: Vec<Vec<String>> = report
            .targets
            .iter()
            .map(|t| {
                vec![
                    t.name.clone(),
                    general(t.measured),
                    general(t.limit),
                    t.unit.clone(),
                    verdict_terminal(t),
                ]
            })
            .collect();
        write_aligned(
            &mut out,
            &[
                ("target", Align::Left),
                ("measured", Align::Right),
                ("limit", Align::Right),
                ("unit", Align::Left),
                ("verdict", Align::Left),
            ],
            &rows,
        );
    }
    if report.rows.iter().any(|r| r.fields.is_some()) {
        let _ = writeln!(out, "\nbits by field: {FIELDS_NOTE}.");
    }
    if report.build != "release" {
        let _ = writeln!(
            out,
            "\nwarning: {} build: CPU times (enc/dec ns) are not representative; run with --release",
            report.build
        );
    }
    out
}

/// A markdown table cell: a pipe would end the cell, a newline the row.
pub(crate) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `text` as an inline code span, fenced with more backticks than it contains in a row.
pub(crate) fn code_span(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // CommonMark strips one space from each side, which keeps an edge backtick off the fence.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

pub(crate) fn markdown_row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// A header row and its delimiter row, each column aligned as `align` says (numbers right).
pub(crate) fn markdown_header(
    out: &mut String,
    headers: &[String],
    align: impl Fn(usize) -> Align,
) {
    markdown_row(out, headers);
    let delimiters: Vec<String> = (0..headers.len())
        .map(|i| match align(i) {
            Align::Left => "---",
            Align::Right => "---:",
        })
        .map(str::to_owned)
        .collect();
    markdown_row(out, &delimiters);
}

/// The first column names the row; the others hold numbers.
pub(crate) fn name_then_numbers(column: usize) -> Align {
    if column == 0 {
        Align::Left
    } else {
        Align::Right
    }
}

/// How a report was produced, as one sentence: the `command`, the build, the run's length and
/// the seed, and a warning when CPU times of the build say little.
pub fn produced_by(report: &Report, command: &str) -> String {
    let mut out = format!(
        "Produced by {} ({} build, {} run, seed {}).",
        code_span(command),
        report.build,
        if report.quick { "quick" } else { "full" },
        report.seed
    );
    if report.build != "release" {
        let _ = write!(
            out,
            " CPU times of a {} build are not representative.",
            report.build
        );
    }
    out
}

/// Per scene, under a markdown heading of `level` (`"###"`) with its title: a table of every
/// measure at 5% loss (or the loss closest to it), the bits per changed entity by field where
/// they were measured, and a table of kbps by loss.
pub fn scene_tables(report: &Report, level: &str) -> String {
    let mut out = String::new();
    for scene in group(report) {
        let _ = writeln!(out, "\n{level} {}\n", cell(scene.title()));
        let Some(headline) = scene.headline_loss() else {
            let _ = writeln!(out, "No measurements.");
            continue;
        };
        match scene.info {
            Some(info) => {
                let _ = writeln!(
                    out,
                    "{}: {} Hz, {} entities, {} ms round trip, {:.1} entities changed per tick; at {}% loss each way:\n",
                    code_span(scene.name),
                    info.hz,
                    info.entities,
                    info.rtt_ms,
                    info.changed_per_tick,
                    loss_label(headline)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{}, at {}% loss each way:\n",
                    code_span(scene.name),
                    loss_label(headline)
                );
            }
        }
        // The orientation's error is a column only where a protocol measured it (the cube
        // scene's orientations), so that a report without it renders as it always did.
        let oriented = has_orientation_error(&scene, headline);
        let mut headers = vec![
            "protocol",
            "bits/entity/tick",
            "bits/changed entity",
            "kbps",
            "largest frame (bytes)",
            "render error mean (mm)",
            "render error worst (mm)",
        ];
        if oriented {
            headers.extend(["orientation error mean (°)", "orientation error worst (°)"]);
        }
        headers.extend(["encode ns/entity", "decode ns/entity"]);
        let headers: Vec<String> = headers.into_iter().map(str::to_owned).collect();
        markdown_header(&mut out, &headers, name_then_numbers);
        for &protocol in &scene.protocols {
            let Some(r) = scene.row(protocol, headline) else {
                continue;
            };
            let mut cells = vec![
                cell(protocol),
                fixed(r.bits_per_entity_tick, 1),
                fixed(r.bits_per_changed, 1),
                fixed(r.kbps, 1),
                r.largest_frame.to_string(),
                millis(r.render_error_mean),
                millis(r.render_error_worst),
            ];
            if oriented {
                // "-": this protocol does not carry the orientation (yet).
                let deg = |x: Option<f64>| x.map_or("-".to_owned(), degrees);
                cells.push(deg(r.orient_error_mean_deg));
                cells.push(deg(r.orient_error_worst_deg));
            }
            cells.push(nanos(r.encode_ns_per_entity));
            cells.push(nanos(r.decode_ns_per_entity));
            markdown_row(&mut out, &cells);
        }
        let fields = field_rows(&scene, headline);
        if !fields.is_empty() {
            let _ = writeln!(
                out,
                "\nBits per changed entity by field at {}% loss, {FIELDS_NOTE}:\n",
                loss_label(headline)
            );
            let mut headers = vec!["protocol".to_owned()];
            headers.extend(Class::ALL.iter().map(|c| c.name().to_owned()));
            headers.push("total".to_owned());
            markdown_header(&mut out, &headers, name_then_numbers);
            for mut cells in fields {
                cells[0] = cell(&cells[0]);
                markdown_row(&mut out, &cells);
            }
            if let Some(note) = unsplit(&scene, headline) {
                let _ = writeln!(out, "\n{}", cell(&note));
            }
        }
        let _ = writeln!(out, "\nkbps by loss each way:\n");
        let mut headers = vec!["protocol".to_owned()];
        headers.extend(scene.losses.iter().map(|&l| format!("{}%", loss_label(l))));
        markdown_header(&mut out, &headers, name_then_numbers);
        for &protocol in &scene.protocols {
            let mut cells = vec![cell(protocol)];
            cells.extend(scene.losses.iter().map(|&l| match scene.row(protocol, l) {
                Some(r) => fixed(r.kbps, 1),
                None => "-".to_owned(),
            }));
            markdown_row(&mut out, &cells);
        }
    }
    out
}

/// The targets as a markdown table: what is held to what, the measurement, the limit, and the
/// verdict (`met`, `missed by N%`, or `N× the limit`); empty when the report judged none.
pub fn targets_table(report: &Report) -> String {
    let mut out = String::new();
    if report.targets.is_empty() {
        return out;
    }
    markdown_header(
        &mut out,
        &["target", "measured", "limit", "verdict"].map(str::to_owned),
        // The verdict is words, not a number.
        |column| match column {
            1 | 2 => Align::Right,
            _ => Align::Left,
        },
    );
    for t in &report.targets {
        let with_unit = |x: f64| {
            if t.unit.is_empty() {
                general(x)
            } else {
                format!("{} {}", general(x), cell(&t.unit))
            }
        };
        markdown_row(
            &mut out,
            &[
                cell(&t.name),
                with_unit(t.measured),
                with_unit(t.limit),
                verdict_markdown(t),
            ],
        );
    }
    out
}

/// Colours by protocol name, so a protocol looks the same in every panel and every run.
const PALETTE: [(&str, &str); 6] = [
    ("acked", "#1f77b4"),
    ("acked-frag", "#17becf"),
    ("datagram", "#2ca02c"),
    ("baseline", "#9467bd"),
    ("postcard", "#d62728"),
    ("bitcode", "#ff7f0e"),
];
/// Colours for protocols the palette does not know, handed out in order of first appearance.
const FALLBACK: [&str; 4] = ["#7f7f7f", "#8c564b", "#e377c2", "#bcbd22"];

fn colours<'a>(protocols: &[&'a str]) -> Vec<(&'a str, &'static str)> {
    let mut unknown = 0;
    protocols
        .iter()
        .map(|&p| match PALETTE.iter().find(|(name, _)| *name == p) {
            Some(&(_, colour)) => (p, colour),
            None => {
                unknown += 1;
                (p, FALLBACK[(unknown - 1) % FALLBACK.len()])
            }
        })
        .collect()
}

fn colour_of(colours: &[(&str, &'static str)], protocol: &str) -> &'static str {
    colours
        .iter()
        .find(|(p, _)| *p == protocol)
        .map_or(FALLBACK[0], |&(_, c)| c)
}

/// The published figures a scene is compared with, in kbps, with their labels.
fn references(scene: &str) -> Vec<(f64, String)> {
    match scene {
        "cube" => vec![
            (
                FIEDLER_COMPRESSED_KBPS,
                format!("Fiedler delta: {FIEDLER_COMPRESSED_KBPS} kbps"),
            ),
            (
                FIEDLER_UNCOMPRESSED_KBPS,
                format!(
                    "Fiedler uncompressed: {} Mbps",
                    FIEDLER_UNCOMPRESSED_KBPS / 1000.0
                ),
            ),
        ],
        "arena" => vec![(
            QUAKE3_CAP_KBPS,
            // The cap is published in bytes per snapshot; say it that way.
            format!(
                "Quake 3 cap: {} B at 20 Hz",
                QUAKE3_CAP_KBPS * 1000.0 / 8.0 / 20.0
            ),
        )],
        _ => Vec::new(),
    }
}

/// The decades (powers of ten, as exponents) a log axis spans to cover every positive finite
/// value; one decade at least, and 1 to 10 when there is nothing to cover.
fn decades(values: impl IntoIterator<Item = f64>) -> (i32, i32) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0, 1);
    }
    // A positive finite f64 is within 10^±324, so the exponents fit an i32.
    let lo_e = lo.log10().floor() as i32;
    let hi_e = (hi.log10().ceil() as i32).max(lo_e + 1);
    (lo_e, hi_e)
}

/// A decade of kbps named in the largest unit it is a whole number of: `100 kbps`, `10 Mbps`.
fn rate_label(kbps_exponent: i32) -> String {
    const UNITS: [&str; 5] = ["bps", "kbps", "Mbps", "Gbps", "Tbps"];
    let bps_exponent = kbps_exponent + 3;
    let unit = bps_exponent.div_euclid(3).clamp(0, UNITS.len() as i32 - 1);
    let rest = bps_exponent - 3 * unit;
    let value = match u32::try_from(rest) {
        Ok(rest) if rest < 16 => 10u64.pow(rest).to_string(),
        _ => format!("1e{rest}"),
    };
    format!("{value} {}", UNITS[unit as usize])
}

/// `text` broken into lines of at most about `width` characters, at most `max_lines` of them,
/// the last ending in an ellipsis when text was cut.
fn wrap(text: &str, width: usize, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    let cut = lines.len() > max_lines;
    lines.truncate(max_lines);
    for (i, line) in lines.iter_mut().enumerate() {
        let long = line.chars().count() > width;
        if long {
            *line = line.chars().take(width.saturating_sub(1)).collect();
        }
        if long || (cut && i + 1 == max_lines) {
            line.push('…');
        }
    }
    lines
}

const PANEL_W: f64 = 420.0;
const PANEL_H: f64 = 340.0;
/// Room left of the plot for tick labels such as `100 kbps` and the axis title.
const PLOT_LEFT: f64 = 78.0;
const PLOT_RIGHT: f64 = 16.0;
/// Room above the plot for a two-line title.
const PLOT_TOP: f64 = 56.0;
const PLOT_BOTTOM: f64 = 48.0;
/// Keeps markers at the ends of the loss range off the axes.
const X_PAD: f64 = 12.0;
const LEGEND_ROW: f64 = 22.0;
/// Characters of a panel title per line at the title's font size (about 7 px each).
const TITLE_CHARS: usize = 56;

/// An SVG chart of downstream kbps (log scale) against loss per protocol, one panel per
/// scene side by side, with published reference figures as dashed lines and one legend.
///
/// The document is self-contained (no scripts, no external resources, a generic font family);
/// values a log axis cannot show (zero, negative, not finite) are left out of their line.
/// Each series is a `polyline` carrying `data-scene` and `data-protocol` attributes, and each
/// point a `circle` whose `title` gives its value.
pub fn svg(report: &Report) -> String {
    let scenes = group(report);
    let protocols = all_protocols(report);
    let colours = colours(&protocols);
    let width = PANEL_W * scenes.len().max(1) as f64;

    // The legend wraps onto more rows when the protocols do not fit the width.
    let mut legend = Vec::new();
    let (mut x, mut row) = (16.0, 0usize);
    for &(protocol, colour) in &colours {
        let item_width = 40.0 + 7.5 * protocol.chars().count() as f64;
        if x > 16.0 && x + item_width > width - 8.0 {
            row += 1;
            x = 16.0;
        }
        legend.push((x, row, protocol, colour));
        x += item_width;
    }
    let legend_rows = if legend.is_empty() { 0 } else { row + 1 };
    let height = PANEL_H + legend_rows as f64 * LEGEND_ROW + 10.0;

    let mut out = svg_start(report, (width, height), "downstream kbps by loss");
    if scenes.is_empty() {
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555555">no measurements</text>"##,
            width / 2.0,
            PANEL_H / 2.0
        );
    }
    for (i, scene) in scenes.iter().enumerate() {
        panel(&mut out, scene, i as f64 * PANEL_W, &colours);
    }
    if !legend.is_empty() {
        let _ = writeln!(out, r#"<g class="legend">"#);
        for (x, row, protocol, colour) in legend {
            let y = PANEL_H + row as f64 * LEGEND_ROW + 8.0;
            let _ = writeln!(
                out,
                r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/><circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="{colour}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                x + 24.0,
                x + 12.0,
                x + 30.0,
                y + 4.0,
                xml_escape(protocol)
            );
        }
        let _ = writeln!(out, "</g>");
    }
    let _ = writeln!(out, "</svg>");
    out
}

/// A chart's opening: the element of `size` (width, height), its title naming `what` and the
/// run, and an opaque background, which keeps the chart legible on a dark page.
fn svg_start(report: &Report, (width, height): (f64, f64), what: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        "<title>ackwire bench: {} ({} build, seed {}{})</title>",
        what,
        xml_escape(&report.build),
        report.seed,
        if report.quick { ", quick run" } else { "" }
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##
    );
    out
}

/// The many-client chart (`server.svg`): per scene, the server's milliseconds per tick against
/// the clients (both axes logarithmic): the acked server on one core and over the bench's
/// threads, bitcode's full world encoded once, and the tick's length dashed.
pub fn server_svg(report: &Report) -> String {
    const LINES: [(&str, &str); 3] = [
        ("acked, one core", "#1f77b4"),
        ("acked, wall over the threads", "#2ca02c"),
        ("bitcode full world, once", "#d62728"),
    ];
    let mut scenes: Vec<&str> = Vec::new();
    for r in &report.server {
        if !scenes.contains(&r.scene.as_str()) {
            scenes.push(&r.scene);
        }
    }
    let width = PANEL_W * scenes.len().max(1) as f64;
    let height = PANEL_H + LEGEND_ROW + 10.0;
    let mut out = svg_start(
        report,
        (width, height),
        "the server's time per tick by clients",
    );
    for (i, scene) in scenes.iter().enumerate() {
        let rows: Vec<&ServerRow> = report.server.iter().filter(|r| r.scene == *scene).collect();
        let x0 = i as f64 * PANEL_W;
        let (left, right) = (x0 + PLOT_LEFT, x0 + PANEL_W - PLOT_RIGHT);
        let (top, bottom) = (PLOT_TOP, PANEL_H - PLOT_BOTTOM);
        let tick_ms = rows.first().map_or(0.0, |r| 1000.0 / f64::from(r.hz));
        let (lo_e, hi_e) = decades(
            rows.iter()
                .flat_map(|r| [r.server_ms, r.wall_ms, r.bitcode_ms])
                .chain([tick_ms]),
        );
        let max_clients = rows.iter().map(|r| r.clients).max().unwrap_or(1).max(2);
        let x_span = f64::from(max_clients).log2();
        let x_of = |clients: u32| left + (right - left) * f64::from(clients).log2() / x_span;
        let y_of = |ms: f64| {
            let e = ms.max(f64::MIN_POSITIVE).log10();
            bottom - (bottom - top) * (e - f64::from(lo_e)) / f64::from(hi_e - lo_e)
        };
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
            (left + right) / 2.0,
            top - 8.0,
            xml_escape(scene)
        );
        let _ = writeln!(
            out,
            r##"<rect x="{left:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#999999"/>"##,
            right - left,
            bottom - top
        );
        for e in lo_e..=hi_e {
            let y = y_of(10f64.powi(e));
            let label = if e >= 0 {
                format!("{} ms", 10u64.pow(e.unsigned_abs()))
            } else {
                format!("{} ms", 10f64.powi(e))
            };
            let _ = writeln!(
                out,
                r##"<line x1="{left:.1}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#eeeeee"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555555">{label}</text>"##,
                left - 4.0,
                y + 4.0
            );
        }
        for r in &rows {
            let x = x_of(r.clients);
            let _ = writeln!(
                out,
                r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555555">{}</text>"##,
                bottom + 16.0,
                r.clients
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555555">clients</text>"##,
            (left + right) / 2.0,
            bottom + 32.0
        );
        let y = y_of(tick_ms);
        let _ = writeln!(
            out,
            r##"<line x1="{left:.1}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#555555" stroke-dasharray="5,4"/><text x="{:.1}" y="{:.1}" fill="#555555">a tick: {} ms</text>"##,
            left + 4.0,
            y - 4.0,
            general(tick_ms)
        );
        let series: [fn(&ServerRow) -> f64; 3] = [|r| r.server_ms, |r| r.wall_ms, |r| r.bitcode_ms];
        for (of, (_, colour)) in series.iter().zip(LINES) {
            let points: Vec<String> = rows
                .iter()
                .map(|r| format!("{:.1},{:.1}", x_of(r.clients), y_of(of(r))))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                points.join(" ")
            );
            for p in &points {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(out, r#"<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>"#);
            }
        }
    }
    let mut x = 16.0;
    for (name, colour) in LINES {
        let y = PANEL_H + 8.0;
        let _ = writeln!(
            out,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 24.0,
            x + 30.0,
            y + 4.0,
            xml_escape(name)
        );
        x += 40.0 + 7.0 * name.chars().count() as f64;
    }
    let _ = writeln!(out, "</svg>");
    out
}

/// One scene's panel, its left edge at `x0`.
fn panel(out: &mut String, scene: &SceneRows<'_>, x0: f64, colours: &[(&str, &'static str)]) {
    let (left, right) = (x0 + PLOT_LEFT, x0 + PANEL_W - PLOT_RIGHT);
    let (top, bottom) = (PLOT_TOP, PANEL_H - PLOT_BOTTOM);
    let refs = references(scene.name);
    let (lo_e, hi_e) = decades(
        scene
            .rows
            .iter()
            .map(|r| r.kbps)
            .chain(refs.iter().map(|(v, _)| *v)),
    );
    let span = f64::from(hi_e - lo_e);
    let y_of_exponent = |e: f64| bottom - (e - f64::from(lo_e)) / span * (bottom - top);
    let y_of = |kbps: f64| y_of_exponent(kbps.log10());
    let losses: Vec<f64> = scene
        .losses
        .iter()
        .copied()
        .filter(|l| l.is_finite())
        .collect();
    let (min_loss, max_loss) = match (losses.first(), losses.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => (0.0, 0.0),
    };
    let x_of = |loss: f64| {
        if max_loss > min_loss {
            left + X_PAD + (loss - min_loss) / (max_loss - min_loss) * (right - left - 2.0 * X_PAD)
        } else {
            // A single loss level has no range to spread over: put it in the middle.
            (left + right) / 2.0
        }
    };

    let _ = writeln!(
        out,
        r#"<g class="panel" data-scene="{}">"#,
        xml_escape(scene.name)
    );
    let full_title = if scene.title() == scene.name {
        scene.name.to_owned()
    } else {
        format!("{}: {}", scene.name, scene.title())
    };
    let _ = writeln!(out, "<title>{}</title>", xml_escape(&full_title));
    for (i, line) in wrap(&full_title, TITLE_CHARS, 2).iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"#,
            x0 + PANEL_W / 2.0,
            20.0 + 16.0 * i as f64,
            xml_escape(line)
        );
    }

    // A gridline per decade; on a very wide range only every step-th, so labels do not collide.
    let step = usize::try_from((hi_e - lo_e + 7) / 8).unwrap_or(1).max(1);
    for e in (lo_e..=hi_e).step_by(step) {
        let y = y_of_exponent(f64::from(e));
        let _ = writeln!(
            out,
            r##"<line x1="{left:.1}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"##,
            left - 6.0,
            y + 4.0,
            rate_label(e)
        );
    }
    for &loss in &losses {
        let x = x_of(loss);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="#eeeeee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11">{}%</text>"##,
            bottom + 16.0,
            xml_escape(&loss_label(loss))
        );
    }
    let _ = writeln!(
        out,
        r##"<polyline fill="none" stroke="#333333" points="{left:.1},{top:.1} {left:.1},{bottom:.1} {right:.1},{bottom:.1}"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">loss each way (%)</text>"#,
        (left + right) / 2.0,
        bottom + 36.0
    );
    let (label_x, label_y) = (x0 + 16.0, (top + bottom) / 2.0);
    let _ = writeln!(
        out,
        r#"<text x="{label_x:.1}" y="{label_y:.1}" text-anchor="middle" transform="rotate(-90 {label_x:.1} {label_y:.1})">downstream (log scale)</text>"#
    );
    if scene.rows.is_empty() {
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555555">no measurements</text>"##,
            (left + right) / 2.0,
            (top + bottom) / 2.0
        );
    }

    for (value, label) in &refs {
        let y = y_of(*value);
        let _ = writeln!(
            out,
            r##"<g class="reference"><line x1="{left:.1}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="#555555" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11" fill="#555555">{}</text></g>"##,
            right - 4.0,
            y - 4.0,
            xml_escape(label)
        );
    }

    for &protocol in &scene.protocols {
        let colour = colour_of(colours, protocol);
        let points: Vec<(f64, f64, f64)> = losses
            .iter()
            .filter_map(|&loss| {
                let kbps = scene.row(protocol, loss)?.kbps;
                (kbps.is_finite() && kbps > 0.0).then(|| (x_of(loss), y_of(kbps), loss))
            })
            .collect();
        if points.is_empty() {
            continue;
        }
        let coordinates: Vec<String> = points
            .iter()
            .map(|(x, y, _)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline data-scene="{}" data-protocol="{}" fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            xml_escape(scene.name),
            xml_escape(protocol),
            coordinates.join(" ")
        );
        for &(x, y, loss) in &points {
            let kbps = scene.row(protocol, loss).map_or(0.0, |r| r.kbps);
            let _ = writeln!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{colour}"><title>{} at {}% loss: {} kbps</title></circle>"#,
                xml_escape(protocol),
                xml_escape(&loss_label(loss)),
                fixed(kbps, 1)
            );
        }
    }
    let _ = writeln!(out, "</g>");
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const PROTOCOLS: [&str; 3] = ["acked", "postcard", "bitcode"];
    const LOSSES: [f64; 3] = [0.0, 5.0, 25.0];

    fn scene(name: &str, title: &str, hz: u32) -> SceneInfo {
        SceneInfo {
            name: name.to_owned(),
            title: title.to_owned(),
            hz,
            entities: 100,
            rtt_ms: 100,
            one_way_ticks: 3,
            jitter_ticks: 1,
            ticks: 600,
            warmup_ticks: 60,
            draw_delay_ticks: 6,
            changed_per_tick: 40.0,
        }
    }

    fn row(scene: &str, protocol: &str, loss: f64, kbps: f64) -> Row {
        Row {
            scene: scene.to_owned(),
            protocol: protocol.to_owned(),
            loss_pct: loss,
            ticks: 540,
            bytes_down: 1_000_000,
            bytes_up: 10_000,
            bits_per_entity_tick: kbps / 6.0,
            bits_per_changed: kbps / 2.4,
            kbps,
            kbps_up: 4.0,
            largest_frame: 1200,
            render_error_mean: 0.002 + loss / 1000.0,
            render_error_worst: 0.05,
            render_samples: 54_000,
            encode_ns_per_entity: 42.0,
            decode_ns_per_entity: 3.25,
            frames_decoded: 300,
            fields: None,
            orient_error_mean_deg: None,
            orient_error_worst_deg: None,
        }
    }

    /// Downstream kbps: the delta protocol grows with loss, full snapshots dwarf it.
    fn kbps(protocol: &str, loss: f64) -> f64 {
        match protocol {
            "acked" => 100.0 + 10.0 * loss,
            "postcard" => 20_000.0,
            _ => 15_000.0,
        }
    }

    /// Two scenes, three protocols, three losses; rows pushed loss-descending so that the
    /// renderers have to sort.
    pub(crate) fn sample() -> Report {
        let mut rows = Vec::new();
        for name in ["cube", "arena"] {
            for &loss in LOSSES.iter().rev() {
                for protocol in PROTOCOLS {
                    rows.push(row(name, protocol, loss, kbps(protocol, loss)));
                }
            }
        }
        Report {
            quick: true,
            build: "debug".to_owned(),
            seed: 1,
            scenes: vec![
                scene("cube", "Fiedler's cubes & <friends>", 60),
                scene("arena", "An arena", 20),
            ],
            rows,
            targets: vec![
                Target {
                    name: "cube bits per changed".to_owned(),
                    measured: 48.0,
                    limit: 57.0,
                    unit: "bits".to_owned(),
                    met: true,
                },
                Target {
                    name: "cube kbps".to_owned(),
                    measured: 300.0,
                    limit: 256.0,
                    unit: "kbps".to_owned(),
                    met: false,
                },
            ],
            server: [("cube", 901, 60), ("arena", 64, 20)]
                .into_iter()
                .flat_map(|(scene, entities, hz)| {
                    [1u32, 64].map(|clients| crate::server::ServerRow {
                        scene: scene.to_owned(),
                        clients,
                        entities,
                        hz,
                        ticks: 120,
                        // 20 µs a client on the cubes: 833 clients a core at 60 Hz.
                        server_ms: 0.02 * f64::from(clients),
                        present_ms: 0.008 * f64::from(clients),
                        wall_ms: 0.011 * f64::from(clients),
                        bitcode_ms: 0.0045,
                        bytes: 500.0 * f64::from(clients),
                        bitcode_bytes: 20_000.0 * f64::from(clients),
                        memory_per_client: 1_300_000.0,
                        memory_worst: 1_400_000,
                    })
                })
                .collect(),
        }
    }

    pub(crate) fn empty() -> Report {
        Report {
            quick: false,
            build: "release".to_owned(),
            seed: 0,
            scenes: Vec::new(),
            rows: Vec::new(),
            targets: Vec::new(),
            server: Vec::new(),
        }
    }

    #[test]
    fn table_names_every_scene_and_protocol_and_flags_misses() {
        let text = table(&sample());
        for name in ["cube", "arena", "Fiedler's cubes", "An arena"] {
            assert!(text.contains(name), "{name} missing from\n{text}");
        }
        for protocol in PROTOCOLS {
            // A line per loss in each of two scenes.
            let lines = text
                .lines()
                .filter(|l| l.split_whitespace().nth(1) == Some(protocol))
                .count();
            assert_eq!(lines, 6, "{protocol} in\n{text}");
        }
        let missed = text
            .lines()
            .find(|l| l.contains("cube kbps"))
            .expect("target line");
        assert!(missed.contains("MISSED by 17%"), "{missed}");
        let met = text
            .lines()
            .find(|l| l.contains("cube bits per changed"))
            .expect("target line");
        assert!(met.trim_end().ends_with("met"), "{met}");
        assert!(text.contains("not representative"), "{text}");
        assert!(text.contains("quick run"), "{text}");
    }

    #[test]
    fn field_bits_and_orientation_error_show_where_they_were_measured() {
        let plain = sample();
        let md = scene_tables(&plain, "###");
        assert!(!md.contains("by field"), "{md}");
        assert!(!md.contains("orientation error"), "{md}");
        let mut report = sample();
        for r in report
            .rows
            .iter_mut()
            .filter(|r| r.scene == "cube" && r.protocol != "bitcode")
        {
            r.fields = Some(crate::fields::FieldBits {
                id: 8.0,
                mask: 4.0,
                position: 20.5,
                orientation: 29.0,
                rest: 0.0,
                header: 1.5,
                resent: 0.0,
            });
            if r.protocol != "acked" {
                r.orient_error_mean_deg = Some(0.125);
                r.orient_error_worst_deg = Some(12.5);
            }
        }
        let md = scene_tables(&report, "###");
        assert!(
            md.contains("Bits per changed entity by field at 5% loss"),
            "{md}"
        );
        assert!(
            md.contains("| id | mask | position | orientation | rest | header | resent | total |"),
            "{md}"
        );
        assert!(
            md.contains("| postcard | 8.0 | 4.0 | 20.5 | 29.0 | 0.0 | 1.5 | 0.0 | 63.0 |"),
            "{md}"
        );
        // Only the cube scene measured them: the arena's tables are as before.
        let arena = &md[md.find("An arena").unwrap()..];
        assert!(
            !arena.contains("by field") && !arena.contains("orientation"),
            "{arena}"
        );
        // The orientation's error, and "-" where the protocol does not carry it.
        let acked = md
            .lines()
            .find(|l| l.starts_with("| acked |"))
            .expect("acked row");
        assert!(acked.contains("| - | - |"), "{acked}");
        assert!(md.contains("| 0.12 | 12.5 |"), "{md}");
        // A protocol explain cannot walk yet is named, not shown as zeros.
        assert!(!md.contains("| bitcode | 8.0"), "{md}");
        assert!(md.contains("Not split by field: bitcode"), "{md}");
        let text = table(&report);
        assert!(
            text.contains("bits per changed entity by field, 5% loss"),
            "{text}"
        );
        assert!(text.contains("Not split by field: bitcode"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("postcard") && l.trim_end().ends_with("63.0")),
            "{text}"
        );
    }

    #[test]
    fn table_sorts_losses_and_aligns_columns() {
        let text = table(&sample());
        let losses: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("cube:"))
            .take_while(|l| !l.starts_with("arena:"))
            .filter(|l| l.split_whitespace().nth(1) == Some("acked"))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(losses, ["0", "5", "25"]);
        // Right-aligned: every data line of a scene ends at the same column.
        let ends: Vec<usize> = text
            .lines()
            .filter(|l| {
                PROTOCOLS
                    .iter()
                    .any(|p| l.split_whitespace().nth(1) == Some(p))
            })
            .map(str::len)
            .collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
    }

    #[test]
    fn markdown_has_a_row_per_protocol_per_scene_the_losses_and_the_verdicts() {
        let text = scene_tables(&sample(), "####");
        let sections: Vec<&str> = text.split("\n#### ").skip(1).collect();
        assert_eq!(sections.len(), 2, "two scenes:\n{text}");
        for section in &sections {
            for protocol in PROTOCOLS {
                let rows = section
                    .lines()
                    .filter(|l| l.starts_with(&format!("| {protocol} |")))
                    .count();
                // One in the table at 5% loss, one in kbps by loss.
                assert_eq!(rows, 2, "{protocol} in\n{section}");
            }
            assert!(
                section.contains("| protocol | 0% | 5% | 25% |"),
                "{section}"
            );
            assert!(section.contains("at 5% loss each way"), "{section}");
        }
        // acked at 5%: 150 kbps and its largest frame in the headline table.
        assert!(
            text.contains("| acked | 25.0 | 62.5 | 150.0 | 1200 | 7.00 | 50.0 | 42 | 3.2 |"),
            "{text}"
        );
        let targets = targets_table(&sample());
        assert!(targets.contains("| cube kbps | 300 kbps | 256 kbps | missed by 17% |"));
        assert!(targets.contains("| cube bits per changed | 48 bits | 57 bits | met |"));
        assert!(targets_table(&empty()).is_empty());
        let command = "cargo run --release -p ackwire -- bench --readme README.md";
        assert_eq!(
            produced_by(&sample(), command),
            format!(
                "Produced by `{command}` (debug build, quick run, seed 1). CPU times of a debug \
                 build are not representative."
            )
        );
    }

    #[test]
    fn markdown_falls_back_to_the_loss_closest_to_five_and_states_ratios() {
        let mut report = sample();
        for r in &mut report.rows {
            if r.loss_pct == 5.0 {
                r.loss_pct = 4.0;
            }
        }
        report.targets[1].measured = 1024.0;
        let text = scene_tables(&report, "###");
        assert!(text.contains("at 4% loss each way"), "{text}");
        assert!(text.contains("| acked | 25.0 | 62.5 | 150.0 |"), "{text}");
        assert!(targets_table(&report).contains("| 4× the limit |"));
    }

    #[test]
    fn markdown_fences_a_command_with_backticks() {
        let text = produced_by(&empty(), "echo `date`");
        assert!(
            text.starts_with("Produced by `` echo `date` `` (release build, full run, seed 0)."),
            "{text}"
        );
    }

    fn points(node: roxmltree::Node<'_, '_>) -> Vec<(f64, f64)> {
        node.attribute("points")
            .unwrap()
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn svg_draws_a_line_per_scene_and_protocol_on_a_log_scale() {
        let text = svg(&sample());
        let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
        let series: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("data-protocol").is_some())
            .collect();
        assert_eq!(series.len(), 2 * PROTOCOLS.len());
        for s in &series {
            let p = points(*s);
            assert_eq!(p.len(), LOSSES.len());
            assert!(
                p.windows(2).all(|w| w[0].0 < w[1].0),
                "x grows with loss: {p:?}"
            );
        }
        let find = |scene: &str, protocol: &str| {
            let node = series
                .iter()
                .find(|n| {
                    n.attribute("data-scene") == Some(scene)
                        && n.attribute("data-protocol") == Some(protocol)
                })
                .unwrap();
            points(*node)
        };
        let acked = find("cube", "acked");
        let postcard = find("cube", "postcard");
        let bitcode = find("cube", "bitcode");
        for i in 0..LOSSES.len() {
            assert!(postcard[i].1 < bitcode[i].1, "20000 kbps above 15000");
            assert!(bitcode[i].1 < acked[i].1, "15000 kbps above ~100");
        }
        // acked grows with loss, so its line climbs.
        assert!(acked.windows(2).all(|w| w[1].1 < w[0].1), "{acked:?}");
        // Log scale: equal ratios are equal distances. 20000/15000 is a small ratio, 15000/100
        // a large one.
        assert!(bitcode[0].1 - postcard[0].1 < (acked[0].1 - bitcode[0].1) / 10.0);

        let panel_text = |scene: &str| -> Vec<String> {
            let panel = doc
                .descendants()
                .find(|n| n.has_tag_name("g") && n.attribute("data-scene") == Some(scene))
                .unwrap();
            panel
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .filter_map(|n| n.text().map(str::to_owned))
                .collect()
        };
        let cube = panel_text("cube");
        assert!(
            cube.iter().any(|t| t == "Fiedler delta: 256 kbps"),
            "{cube:?}"
        );
        assert!(
            cube.iter().any(|t| t == "Fiedler uncompressed: 17.37 Mbps"),
            "{cube:?}"
        );
        assert!(
            cube.iter()
                .any(|t| t.contains("Fiedler's cubes & <friends>")),
            "{cube:?}"
        );
        let arena = panel_text("arena");
        assert!(
            arena.iter().any(|t| t == "Quake 3 cap: 1250 B at 20 Hz"),
            "{arena:?}"
        );
        assert!(!arena.iter().any(|t| t.starts_with("Fiedler")), "{arena:?}");
    }

    #[test]
    fn svg_colours_a_protocol_the_same_in_every_panel() {
        let text = svg(&sample());
        let doc = roxmltree::Document::parse(&text).unwrap();
        for protocol in PROTOCOLS {
            let strokes: Vec<&str> = doc
                .descendants()
                .filter(|n| n.attribute("data-protocol") == Some(protocol))
                .map(|n| n.attribute("stroke").unwrap())
                .collect();
            assert_eq!(strokes.len(), 2);
            assert_eq!(strokes[0], strokes[1]);
        }
        assert_ne!(
            colour_of(&colours(&PROTOCOLS), "acked"),
            colour_of(&colours(&PROTOCOLS), "postcard")
        );
    }

    #[test]
    fn degenerate_reports_do_not_panic() {
        let report = empty();
        assert!(table(&report).contains("release build"));
        roxmltree::Document::parse(&svg(&report)).expect("empty report, well-formed SVG");
        assert!(produced_by(&report, "x").starts_with("Produced by `x`"));
        assert!(scene_tables(&report, "###").is_empty());

        // One loss level; a zero, a NaN and an infinite kbps a log axis cannot show; a scene
        // listed with no rows; a row for a scene not listed.
        let mut report = empty();
        report.scenes = vec![scene("cube", "", 60), scene("idle", "Nothing ran", 20)];
        report.rows = vec![
            row("cube", "acked", 5.0, 0.0),
            row("cube", "postcard", 5.0, f64::NAN),
            row("cube", "bitcode", 5.0, 1000.0),
            row("cube", "weird \"<name>\"", 5.0, f64::INFINITY),
            row("stray", "acked", f64::NAN, 10.0),
        ];
        let text = svg(&report);
        let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
        let series: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("data-protocol").is_some())
            .collect();
        // Only bitcode has a value to draw; the stray scene's only loss is not a number.
        assert_eq!(series.len(), 1, "{text}");
        assert_eq!(points(series[0]).len(), 1);
        let t = table(&report);
        assert!(
            t.contains("idle: Nothing ran") && t.contains("no measurements"),
            "{t}"
        );
        assert!(t.contains("stray"), "{t}");
        let md = scene_tables(&report, "###");
        assert!(md.contains("### Nothing ran\n\nNo measurements."), "{md}");
    }

    #[test]
    fn replace_block_keeps_the_outside_and_is_idempotent() {
        let readme = format!("# Title\n\nbefore\n{BEGIN}\nold\nstuff\n{END}\nafter\n");
        let once = replace_block(&readme, "new block\n").unwrap();
        assert_eq!(
            once,
            format!("# Title\n\nbefore\n{BEGIN}\nnew block\n{END}\nafter\n")
        );
        assert_eq!(replace_block(&once, "new block\n").unwrap(), once);
        assert_eq!(replace_block(&once, "new block").unwrap(), once);
        // A marker quoted inside a line is prose, not a marker.
        let quoted = format!("see `{BEGIN}`\n{BEGIN}\n{END}\n");
        assert_eq!(
            replace_block(&quoted, "x").unwrap(),
            format!("see `{BEGIN}`\n{BEGIN}\nx\n{END}\n")
        );
        // No trailing newline after the end marker, and an empty block.
        let bare = format!("{BEGIN}\nold\n{END}");
        assert_eq!(replace_block(&bare, "").unwrap(), format!("{BEGIN}\n{END}"));
    }

    #[test]
    fn replace_block_reports_each_fault_with_its_line() {
        assert_eq!(replace_block("a\nb\n", "x"), Err(BlockError::MissingBegin));
        assert_eq!(
            replace_block(&format!("a\n{BEGIN}\nb\n"), "x"),
            Err(BlockError::MissingEnd { begin_line: 2 })
        );
        let err = replace_block(&format!("{END}\na\n{BEGIN}\n"), "x").unwrap_err();
        assert_eq!(
            err,
            BlockError::EndBeforeBegin {
                begin_line: 3,
                end_line: 1
            }
        );
        assert!(err.to_string().contains("line 1") && err.to_string().contains("line 3"));
        let err = replace_block(&format!("{BEGIN}\n{END}\n\n{END}\n"), "x").unwrap_err();
        assert_eq!(
            err,
            BlockError::Duplicate {
                marker: END,
                first_line: 2,
                second_line: 4
            }
        );
        assert_eq!(
            err.to_string(),
            format!("the marker `{END}` appears twice: at line 2 and at line 4")
        );
        assert_eq!(
            replace_block(&format!("{BEGIN}\n {BEGIN} \n{END}\n"), "x"),
            Err(BlockError::Duplicate {
                marker: BEGIN,
                first_line: 1,
                second_line: 2
            })
        );
    }
}
