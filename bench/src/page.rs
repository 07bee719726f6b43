//! The bench's report page, `README.md` beside `bench.json` and `bench.svg` in the bench's
//! output folder (`docs/bench/` for the committed full run), and the few headline figures a
//! README carries from it between its bench markers: both rendered from a [`Report`], so no
//! figure in either is copied by hand, and a page rendered again from the same report is
//! byte-identical.
//!
//! The page holds the method, the scenes, the chart, the targets with their verdicts, the run
//! beside the published anchors, every table of every scene, and the commands of the other
//! benches; the prose here is the bench's, the figures the run's.

use crate::fields::Class;
use crate::render::verdict_markdown;
use crate::render::{
    cell, code_span, fixed, general, group, loss_label, markdown_header, markdown_row, millis,
    name_then_numbers, percent, produced_by, scene_tables, targets_table, Align, SceneRows,
};
use crate::run::{best_against_fiedler, GIESEN_RATIO, MAXWELL_RATIO, MTU};
use crate::scenes::{SceneKind, JITTER_TICKS};
use crate::{
    Report, Row, Target, FIEDLER_BITS_PER_CHANGED, FIEDLER_COMPRESSED_KBPS,
    FIEDLER_UNCOMPRESSED_KBPS, QUAKE3_CAP_KBPS,
};
use std::fmt::Write as _;

/// The page's file name in the bench's output folder.
pub const PAGE: &str = "README.md";

/// The many-client chart's file name, beside the page.
pub const SERVER_CHART: &str = "server.svg";

/// What the many-client server bench measures, above its tables.
const SERVER: &str = "\
One world ticking at its rate with N clients of the acked stream (kind 6 frames, large ones \
reliable, as `acked` above), each on its own link: {loss}% loss each way, a one-way delay of \
half to twice the scene's (by turns, ± {jitter} ticks of jitter), so each client has its own \
acknowledged base; on the arena each client plays a player of its own. A second of join is \
not measured, then {seconds} seconds are ({quick_seconds} in `--quick`, which runs up to \
{quick_max} clients). Each tick the clients' side (frames decoded by each client's own \
AckedDecoder, acks written) runs untimed, then the server's side for every client (its acks \
taken, what changed in its S_N presented from what changed in the world, its frame encoded: \
the change-driven server half), spread over {threads} scoped threads:

- **one core**: the server's time per tick for all clients, each client's work timed and \
added up: what one core spends;
- **wall**: the same work's time per tick over the {threads} threads (each client's frames are \
the same bytes as on one thread: `bench/tests/server.rs` holds them);
- **bitcode once**: bitcode's encode of the full world, done once a tick and shared by every \
client, since a full snapshot is the same bytes for each;
- **ns/entity/client**: one core's time over the clients and the world's entities, and its \
ratio to bitcode's full-world encode per entity (the target is at most 1×);
- **KB/tick**: what the acked server sends all clients per tick (a reliable frame's resends \
counted), beside the full snapshot sent to each;
- **memory/client**: the heap a client's server half holds at the end of the run \
(`ackwire_codec::acked::heap_bytes`: the presenter's knowledge of each entity and its queues, \
the encoder's live state and what its kept frames' edits replaced, \
which `server/tests/hostile_clients.rs` holds to the allocator's count), the mean over the \
clients;
- **clients a core serves**: the tick's length over one client's share of one core.";

/// How to run the bench, the page's first section.
const RUNNING: &str = "\
```sh
# The full run: a minute of each scene at each loss. Writes this page, bench.json and
# bench.svg into docs/bench/, and the headline block of the project's README.
cargo run --release -p ackwire -- bench --out docs/bench --readme README.md
# Five seconds of each scene, as the test command runs it (into target/ackwire-bench/).
cargo run --release -p ackwire -- bench --quick
# One scene at one loss: what to alternate between two builds when comparing their CPU times.
cargo run --release -p ackwire -- bench --scene cube --loss 5
```
";

/// What the bench measures and how, the page's second section.
const METHOD: &str = "\
Every scene runs, in lockstep over the same simulated network, through every protocol of the \
reference spec and through the peers a user would otherwise pick: a full snapshot of the \
world every tick, serialized with postcard and with bitcode. Each protocol is a sans-IO \
server encoding for one client and that client, joined by two channels:

- `acked`: the acked stream (`docs/spec/acked.md`), kind 6 frames onto the newest acknowledged \
base, kind 7 acks back; a frame over RELIABLE_ABOVE goes on the reliable channel, as ACK-27 advises. \
Its server is the change-driven half, told which bodies the scene moved each tick;
- `acked-frag`: the same stream with those frames sent as unreliable fragments instead, which \
ACK-27 allows too (it is a SHOULD: such a frame is still a frame like any other): what the advice \
costs;
- `acked-packed`: the same machines in kind 12 frames, each change bit-packed \
(`spec/protocol/acked_packed.wire`);
- `acked-coded`: the same machines in kind 13 frames (`docs/spec/coded.md`): the packed \
changes range-coded, each value under its field's model starting from trained tables, a position \
step as its difference from the velocity the base and an older acknowledged snapshot predict, \
an orientation as its difference from the base's. Its bits by field are each value's price under \
its model as the encoder adapted it; what else the frame holds is its header;
- `fiedler`: Glenn Fiedler's published snapshot compression, onto the newest snapshot the \
client acknowledged: the reference line, a bench peer rather than a protocol of ours (see \
\"Beside Fiedler's scheme\");
- `datagram`: datagram v2 (`docs/spec/datagram.md`), unreliable updates beside a reliable stream \
of spawns;
- `baseline`: NetBaseline snapshots (`docs/spec/baseline.md`) within a budget of {mtu} bytes;
- `postcard`, `bitcode`: the peers, the whole world each tick, no acks; the client keeps the \
newest.

The network: loss each way, one-way delay of half the round trip, each packet's delay moved \
by up to {jitter} ticks either way (so frames reorder). A frame over {mtu} bytes travels as \
fragments and is lost when any fragment is. Reliable frames are sent again a round trip after \
a loss (their bytes counted again) and delivered in order, after every reliable frame before \
them.

What is measured, after a warm-up second (the join, when every protocol sends the whole \
world):

- **bits**: payload bytes server to client (no UDP or IP headers), per entity per tick, per \
changed entity (over the changes the world made), and as kbps; acks go the other way and are \
counted apart;
- **render error**: how far the client's drawn position was from the truth at the instant it \
drew. The client keeps what it received in a history and draws interpolated, the one-way \
delay, the jitter and one tick behind; the error is held against the truth's own history at \
that instant. On the cubes the orientation's error is measured the same way, as the angle \
between the drawn (nlerp) and the true quaternion; `-` where a protocol does not carry it;
- **CPU**: the server's work for one client (presenting, diffing, serializing) and the \
client's (decoding, applying), per entity of the world per tick. A full snapshot is the same \
bytes for every client and can be serialized once for all of them; a delta protocol encodes \
for each client against what that client acknowledged;
- **bits by field** (at the headline loss only, since splitting every frame costs about as \
much CPU as the run): where each protocol's bits go per changed entity: which entity (`id`), \
which parts follow (`mask`), `position`, `orientation`, the `rest` of an entity, the frame's \
own `header` and what a reliable channel `resent`. The classes add up to the bits per changed \
entity.

Bytes and render errors are seeded and repeat exactly; CPU times are one run's on one \
machine and move between runs, so compare two builds by alternating runs of one scene.";

/// What the targets are, above their table.
const TARGETS: &str = "\
The targets are judged by this bench, never by timed tests. A verdict is `met`, `missed by \
N%` (how far over the limit), or `N× the limit` once a percentage would be harder to read. \
Ratios to bitcode are taken in the same run, so that the machine's speed divides out. \
[docs/perf/](../perf/README.md) says which designs were measured against them and why the \
current ones were kept.";

/// The other benches: what each times and its command, the page's last section.
const OTHERS: &str = "\
Beside `ackwire bench`, each of these times one piece and prints its own figures; none \
asserts a speed:

| what | command |
| --- | --- |
| the acked and datagram codecs on 200 entities, beside postcard and bitcode on the same \
entities | `cargo bench -p ackwire-codec --bench codec` |
| each protocol's codec alone on the frames the scenes send, beside postcard, bitcode and a \
plain copy | `cargo bench -p ackwire-bench --bench scenes` |
| the Rust AckedDecoder's whole delivery of the cube frames, beside bitcode's decode of the \
same ticks | `cargo bench -p ackwire-bench --bench deliver` |
| the same delivery warm, as the fastest of many passes, and with memory written between \
frames | `cargo run --release -p ackwire-bench --example deliver_min 300`, \
`--example deliver_cold` |
| kind 12's delivery and the acked encode, warm | `cargo run --release -p ackwire-bench \
--example deliver_packed_min 200`, `--example encode_min` |
| the TypeScript AckedDecoder beside the Rust one on the same frames | \
`bash conformance/testees/ts/deliver.sh` |
| the C# AckedDecoder beside the Rust one, and what it allocates | \
`bash conformance/testees/cs/bench.sh` |
| the generated C++ codec beside a hand-written one, and the C++ AckedDecoder | \
`bash cpp/bench/run.sh` |
| the generated TypeScript codec beside a DataView loop | \
`bash conformance/testees/ts/bench.sh` |";

/// The report page: the method, the scenes, the chart, the targets with their verdicts, the
/// run beside the published anchors, every scene's tables, and the other benches. `command`
/// is what produced `report`, named at the top.
pub fn page(report: &Report, command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# ackwire bench\n");
    let _ = writeln!(
        out,
        "<!-- Written by `ackwire bench` from its run: edit the bench (bench/src/page.rs), not \
         this file. -->\n"
    );
    let _ = writeln!(
        out,
        "{} Every figure on this page comes from that run: [`bench.json`](bench.json) holds \
         them all, [`bench.svg`](bench.svg) is the chart.\n",
        produced_by(report, command)
    );
    let _ = writeln!(out, "## Running it\n\n{RUNNING}");
    let method = METHOD
        .replace("{mtu}", &MTU.to_string())
        .replace("{jitter}", &JITTER_TICKS.to_string());
    let _ = writeln!(out, "## What is measured\n\n{method}\n");
    let scenes = group(report);
    if !report.scenes.is_empty() {
        let _ = writeln!(out, "## The scenes\n");
        for info in &report.scenes {
            let _ = write!(out, "- **{}** (`{}`)", cell(&info.title), info.name);
            if let Some(kind) = SceneKind::from_name(&info.name) {
                let _ = write!(out, ". {}", kind.description());
            }
            let _ = writeln!(
                out,
                " {} Hz, {} entities, {} ms round trip, {} ticks of which the first {} are \
                 not measured, drawn {} ticks behind; {:.1} entities changed per measured tick.",
                info.hz,
                info.entities,
                info.rtt_ms,
                info.ticks,
                info.warmup_ticks,
                info.draw_delay_ticks,
                info.changed_per_tick
            );
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "## The chart\n\nkbps against loss each way, one panel per scene, the published \
         anchors drawn in:\n\n![kbps against loss, per protocol, for each scene](bench.svg)\n"
    );
    if !report.targets.is_empty() {
        let _ = writeln!(out, "## Targets\n\n{TARGETS}\n");
        out.push_str(&targets_table(report));
        let _ = writeln!(out);
    }
    let anchors = anchors(&scenes);
    if !anchors.is_empty() {
        let _ = writeln!(out, "## Beside the published anchors\n");
        out.push_str(&anchors);
    }
    out.push_str(&beside_fiedler(&scenes, &report.rows));
    let _ = writeln!(out, "## Every table, by scene");
    out.push_str(&scene_tables(report, "###"));
    if !report.server.is_empty() {
        out.push_str(&server_section(report));
    }
    let _ = writeln!(out, "\n## The other benches\n\n{OTHERS}");
    out
}

/// The many-client section: the method, a table per scene, the chart, and the clients one core
/// serves on the cubes beside the goal of 1,000.
fn server_section(report: &Report) -> String {
    use crate::server::{measured_seconds, ServerRow, LOSS_PCT, QUICK_CLIENTS, SCENES, THREADS};
    let mut out = String::new();
    let method = SERVER
        .replace("{loss}", &general(LOSS_PCT))
        .replace("{jitter}", &JITTER_TICKS.to_string())
        .replace("{seconds}", &measured_seconds(report.quick).to_string())
        .replace("{quick_seconds}", &measured_seconds(true).to_string())
        .replace(
            "{quick_max}",
            &QUICK_CLIENTS.iter().max().unwrap_or(&0).to_string(),
        )
        .replace("{threads}", &THREADS.to_string());
    let _ = writeln!(out, "\n## Many clients, one server\n\n{method}\n");
    for kind in SCENES {
        let rows: Vec<&ServerRow> = report
            .server
            .iter()
            .filter(|r| r.scene == kind.name())
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {}\n", cell(kind.title()));
        let headers: Vec<String> = [
            "clients",
            "one core (ms/tick)",
            "wall (ms/tick)",
            "of which presenting",
            "bitcode once (µs/tick)",
            "ns/entity/client",
            "over bitcode's ns/entity",
            "acked KB/tick",
            "bitcode KB/tick",
            "memory/client (KB)",
            "clients a core serves",
        ]
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
        markdown_header(&mut out, &headers, |_| Align::Right);
        for r in &rows {
            markdown_row(
                &mut out,
                &[
                    r.clients.to_string(),
                    fixed(r.server_ms, 3),
                    fixed(r.wall_ms, 3),
                    format!("{}%", percent(r.present_ms / r.server_ms)),
                    fixed(r.bitcode_ms * 1000.0, 1),
                    fixed(r.ns_per_entity_client(), 1),
                    times(r.ns_per_entity_client() / r.bitcode_ns_per_entity()),
                    fixed(r.bytes / 1000.0, 1),
                    fixed(r.bitcode_bytes / 1000.0, 1),
                    fixed(r.memory_per_client / 1000.0, 1),
                    format!("{:.0}", r.clients_per_core()),
                ],
            );
        }
        let _ = writeln!(out);
        if let Some(most) = rows.iter().max_by_key(|r| r.clients) {
            let _ = writeln!(
                out,
                "At {} clients one core serves {:.0} clients within a tick of {} ms{}; a \
                 client's server half holds {:.1} KB on average, {:.1} KB at most.\n",
                most.clients,
                most.clients_per_core(),
                general(1000.0 / f64::from(most.hz)),
                if kind == SceneKind::Cube {
                    format!(
                        " (the goal is 1,000: {})",
                        if most.clients_per_core() >= 1000.0 {
                            "met".to_owned()
                        } else {
                            format!(
                                "{} short; {}% of the time presents what changed in each \
                                 client's S_N, the rest takes its acks and encodes its frame \
                                 onto its base",
                                times(1000.0 / most.clients_per_core()),
                                percent(most.present_ms / most.server_ms)
                            )
                        }
                    )
                } else {
                    String::new()
                },
                most.memory_per_client / 1000.0,
                most.memory_worst as f64 / 1000.0
            );
        }
    }
    let _ = writeln!(
        out,
        "![the server's time per tick against the clients, per scene]({SERVER_CHART})"
    );
    out
}

/// A markdown table of `scene` at `loss`: `headers` aligned as `align` says, then a row for each
/// protocol measured there, its name and then `cells` of its row.
fn protocol_table(
    out: &mut String,
    (scene, loss): (&SceneRows<'_>, f64),
    headers: &[&str],
    align: impl Fn(usize) -> Align,
    cells: impl Fn(&Row) -> Vec<String>,
) {
    let headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    markdown_header(out, &headers, align);
    for &protocol in &scene.protocols {
        if let Some(r) = scene.row(protocol, loss) {
            let mut row = vec![cell(protocol)];
            row.extend(cells(r));
            markdown_row(out, &row);
        }
    }
}

/// A ratio as `1.65×`.
fn times(x: f64) -> String {
    format!("{}×", general(x))
}

/// The run beside the figures published for its scenes: Fiedler's cubes (his uncompressed
/// stream, his delta-compressed kbps and bits per changed cube) and Quake 3's snapshot cap on
/// the arena, at each scene's headline loss. Empty when the report has neither scene.
fn anchors(scenes: &[SceneRows<'_>]) -> String {
    let mut out = String::new();
    let headline = |name: &str| {
        let scene = scenes.iter().find(|s| s.name == name)?;
        let loss = scene.headline_loss()?;
        Some((scene, loss))
    };
    if let Some((scene, loss)) = headline("cube") {
        let _ = writeln!(
            out,
            "Fiedler's cubes: his uncompressed stream is {} Mbps; delta-compressed, under {} kbps \
             at about {} bits per changed cube. {}, at {}% loss each way:\n",
            FIEDLER_UNCOMPRESSED_KBPS / 1000.0,
            FIEDLER_COMPRESSED_KBPS,
            FIEDLER_BITS_PER_CHANGED,
            cell(scene.title()),
            loss_label(loss)
        );
        protocol_table(
            &mut out,
            (scene, loss),
            &[
                "protocol",
                "kbps",
                "over his uncompressed",
                "over his compressed kbps",
                "bits/changed entity",
                "over his bits/changed cube",
            ],
            name_then_numbers,
            |r| {
                vec![
                    fixed(r.kbps, 1),
                    times(r.kbps / FIEDLER_UNCOMPRESSED_KBPS),
                    times(r.kbps / FIEDLER_COMPRESSED_KBPS),
                    fixed(r.bits_per_changed, 1),
                    times(r.bits_per_changed / FIEDLER_BITS_PER_CHANGED),
                ]
            },
        );
        let _ = writeln!(out);
    }
    if let Some((scene, loss)) = headline("arena") {
        let cap_bytes = (QUAKE3_CAP_KBPS * 1000.0 / 8.0 / 20.0).round();
        let _ = writeln!(
            out,
            "Quake 3 caps a snapshot at {cap_bytes} bytes, {QUAKE3_CAP_KBPS} kbps at 20 Hz. {}, \
             at {}% loss each way:\n",
            cell(scene.title()),
            loss_label(loss)
        );
        protocol_table(
            &mut out,
            (scene, loss),
            &[
                "protocol",
                "kbps",
                "share of the cap's kbps",
                "largest frame (bytes)",
                "every frame within the cap",
            ],
            |column| match column {
                0 | 4 => Align::Left,
                _ => Align::Right,
            },
            |r| {
                let within = r.largest_frame as f64 <= cap_bytes;
                vec![
                    fixed(r.kbps, 1),
                    times(r.kbps / QUAKE3_CAP_KBPS),
                    r.largest_frame.to_string(),
                    (if within { "yes" } else { "no" }).to_owned(),
                ]
            },
        );
        let _ = writeln!(out);
    }
    out
}

/// What the `fiedler` lane is, above its tables.
const FIEDLER: &str = "\
The `fiedler` lane is Glenn Fiedler's published snapshot compression ([the article]\
(https://gafferongames.com/post/snapshot_compression/), `bench/src/fiedler.rs`) run beside ours \
on the same scenes, network and acknowledgements: per entity a changed bit or a relative index, \
a bit each for position and orientation changed, the position relative to the baseline in his \
small and large ranges or absolute, the orientation as a smallest three of 9 bits delta-coded \
the same way when its largest component is the baseline's, all bit-packed, each snapshot \
against the newest one the client acknowledged. It is a bench peer, not a protocol of the spec. \
Its bits by field come from its own decoder reading each frame, and add up to the bytes sent. \
Issue 39 holds our best profile to the ratios the published entries reached against his scheme \
on his data: Giesen's adaptive arithmetic coding {giesen}×, Maxwell's range coding with physics \
prediction {maxwell}×. Below, per scene at its headline loss, where the bits go per changed \
entity (`index`: which entity; `flags`: which parts follow), kind 6 (`acked`), kind 12 \
(`acked-packed`) and kind 13 (`acked-coded`) beside the lane.";

/// Fiedler's own breakdown per changed cube on his data, in his article: index 5.5 bits,
/// position 26.1, orientation 23.3, about 2 bits of flags.
const FIEDLER_FIELDS: [(Class, f64); 4] = [
    (Class::Id, 5.5),
    (Class::Mask, 2.0),
    (Class::Position, 26.1),
    (Class::Orientation, 23.3),
];

/// The `fiedler` lane beside kinds 6 and 12, per scene at its headline loss: bits per changed
/// entity by field, the ratio to the lane, the render errors, and issue 39's verdicts on our
/// best protocol there. Empty when no scene ran the lane.
fn beside_fiedler(scenes: &[SceneRows<'_>], rows: &[Row]) -> String {
    let mut out = String::new();
    for scene in scenes {
        let Some(loss) = scene.headline_loss() else {
            continue;
        };
        let Some(fiedler) = scene.row("fiedler", loss) else {
            continue;
        };
        if out.is_empty() {
            let text = FIEDLER
                .replace("{giesen}", &general(GIESEN_RATIO))
                .replace("{maxwell}", &general(MAXWELL_RATIO));
            let _ = writeln!(out, "## Beside Fiedler's scheme\n\n{text}\n");
        }
        let _ = writeln!(
            out,
            "{}, at {}% loss each way:\n",
            cell(scene.title()),
            loss_label(loss)
        );
        let classes = [
            (Class::Id, "index"),
            (Class::Mask, "flags"),
            (Class::Position, "position"),
            (Class::Orientation, "orientation"),
            (Class::Rest, "rest"),
            (Class::Header, "header"),
            (Class::Resent, "resent"),
        ];
        let mut headers = vec!["protocol".to_owned()];
        headers.extend(classes.iter().map(|(_, name)| (*name).to_owned()));
        headers.extend(["total", "over fiedler", "render error mean (mm)"].map(str::to_owned));
        markdown_header(&mut out, &headers, name_then_numbers);
        for protocol in ["acked", "acked-packed", "acked-coded", "fiedler"] {
            let Some(r) = scene.row(protocol, loss) else {
                continue;
            };
            let mut cells = vec![cell(protocol)];
            match &r.fields {
                Some(f) => cells.extend(classes.iter().map(|(c, _)| fixed(f.get(*c), 1))),
                None => cells.extend(classes.iter().map(|_| "-".to_owned())),
            }
            cells.extend([
                fixed(r.bits_per_changed, 1),
                times(r.bits_per_changed / fiedler.bits_per_changed),
                millis(r.render_error_mean),
            ]);
            markdown_row(&mut out, &cells);
        }
        if scene.name == "cube" {
            let mut cells = vec!["his article, on his data".to_owned()];
            cells.extend(classes.iter().map(|(c, _)| {
                FIEDLER_FIELDS
                    .iter()
                    .find(|(of, _)| of == c)
                    .map_or("-".to_owned(), |(_, bits)| fixed(*bits, 1))
            }));
            let total: f64 = FIEDLER_FIELDS.iter().map(|(_, b)| b).sum();
            cells.extend([fixed(total, 1), "-".to_owned(), "-".to_owned()]);
            markdown_row(&mut out, &cells);
        }
        if let Some((best, fiedler)) = best_against_fiedler(rows, scene.name, loss) {
            let ratio = best.bits_per_changed / fiedler.bits_per_changed;
            let verdict = |limit: f64| {
                verdict_markdown(&Target {
                    name: String::new(),
                    measured: ratio,
                    limit,
                    unit: String::new(),
                    met: ratio <= limit,
                })
            };
            let _ = writeln!(
                out,
                "\nOur best here, `{}`, spends {} the fiedler lane's bits per changed entity: \
                 against Giesen's {}, {}; against the moonshot's {}, {}.",
                best.protocol,
                times(ratio),
                times(GIESEN_RATIO),
                verdict(GIESEN_RATIO),
                times(MAXWELL_RATIO),
                verdict(MAXWELL_RATIO)
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// The few figures a README carries from the run, for its bench block: the cube scene at its
/// headline loss (kbps, bits per changed entity and mean render error per protocol) and how
/// many targets were met, with `link` to the report page. `command` is what produced `report`.
pub fn headline(report: &Report, command: &str, link: &str) -> String {
    let mut out = String::new();
    let scenes = group(report);
    // The cubes, when they ran: the scene with published anchors for its bits; else the first.
    let scene = scenes
        .iter()
        .find(|s| s.name == "cube")
        .or_else(|| scenes.first());
    let _ = writeln!(out, "{}\n", produced_by(report, command));
    if let Some((scene, loss)) = scene.and_then(|s| Some((s, s.headline_loss()?))) {
        let _ = writeln!(
            out,
            "{}, at {}% loss each way:\n",
            cell(scene.title()),
            loss_label(loss)
        );
        protocol_table(
            &mut out,
            (scene, loss),
            &[
                "protocol",
                "kbps",
                "bits/changed entity",
                "render error mean (mm)",
            ],
            name_then_numbers,
            |r| {
                vec![
                    fixed(r.kbps, 1),
                    fixed(r.bits_per_changed, 1),
                    millis(r.render_error_mean),
                ]
            },
        );
        let _ = writeln!(out);
    }
    if !report.targets.is_empty() {
        let met = report.targets.iter().filter(|t| t.met).count();
        let _ = write!(
            out,
            "{met} of the bench's {} targets met. ",
            report.targets.len()
        );
    }
    let _ = writeln!(
        out,
        "The method, every scene and table, the chart and each target's verdict: \
         {}.",
        markdown_link(link)
    );
    out
}

/// `[path](path)`, the text as code.
fn markdown_link(path: &str) -> String {
    format!("[{}]({})", code_span(path), path.replace(' ', "%20"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{empty, sample};

    #[test]
    fn the_page_has_every_section_and_every_scene() {
        let command = "cargo run --release -p ackwire -- bench --out docs/bench";
        let text = page(&sample(), command);
        assert!(text.starts_with("# ackwire bench\n"), "{text}");
        for section in [
            "## Running it",
            "## What is measured",
            "## The scenes",
            "## The chart",
            "## Targets",
            "## Beside the published anchors",
            "## Every table, by scene",
            "### Fiedler's cubes & <friends>",
            "### An arena",
            "## The other benches",
        ] {
            assert!(
                text.contains(&format!("\n{section}\n")),
                "{section} in\n{text}"
            );
        }
        assert!(text.contains(&format!("Produced by `{command}`")), "{text}");
        assert!(text.contains("![kbps against loss"), "{text}");
        assert!(text.contains("| cube kbps | 300 kbps | 256 kbps | missed by 17% |"));
        // The method states the constants the run used, not figures typed in.
        assert!(
            text.contains(&format!("A frame over {MTU} bytes")),
            "{text}"
        );
        assert!(
            !text.contains("{mtu}") && !text.contains("{jitter}"),
            "{text}"
        );
        // A scene the bench knows gets its description; the parameters come from the report.
        assert!(text.contains("Snapshot Compression"), "{text}");
        assert!(
            text.contains("60 Hz, 100 entities, 100 ms round trip, 600 ticks"),
            "{text}"
        );
    }

    #[test]
    fn the_many_client_section_is_computed_from_the_run() {
        let text = page(&sample(), "bench");
        let section = &text[text
            .find("\n## Many clients, one server\n")
            .expect("the section")..];
        assert!(section.contains("### Cubes (after Fiedler)"), "{section}");
        assert!(
            section.contains("### Arena: 64 players at 20 Hz\n"),
            "{section}"
        );
        // 64 clients at 1.28 ms: 20 ns a client per entity of 901 is 22.2 ns, 4.4 times
        // bitcode's 4.5 µs over 901 entities (4.99 ns); 64 KB down beside 1,280 KB.
        assert!(
            section.contains(
                "| 64 | 1.280 | 0.704 | 40% | 4.5 | 22.2 | 4.44× | 32.0 | 1280.0 | 1300.0 | 833 |"
            ),
            "{section}"
        );
        assert!(
            section.contains(
                "one core serves 833 clients within a tick of 16.7 ms (the goal is 1,000: 1.2× \
                 short; 40% of the time presents what changed"
            ),
            "{section}"
        );
        assert!(section.contains("](server.svg)"), "{section}");
        assert!(!page(&empty(), "bench").contains("Many clients"));
        let svg = crate::render::server_svg(&sample());
        assert!(
            svg.contains("a tick: 16.7 ms") && svg.contains("a tick: 50 ms"),
            "{svg}"
        );
        assert_eq!(svg.matches("<polyline").count(), 6, "{svg}");
    }

    #[test]
    fn the_anchors_are_computed_from_the_run() {
        let text = page(&sample(), "bench");
        let anchors = &text[text.find("## Beside the published anchors").unwrap()..];
        // acked on the cubes at 5%: 150 kbps, 62.5 bits per changed entity.
        assert!(
            anchors.contains("| acked | 150.0 | 0.009× | 0.586× | 62.5 | 1.1× |"),
            "{anchors}"
        );
        // postcard on the arena at 5%: 20,000 kbps, 100 times the cap's 200 kbps (1250 bytes at
        // 20 Hz); frames of 1200 bytes, within its 1250.
        assert!(
            anchors.contains("1250 bytes, 200 kbps at 20 Hz"),
            "{anchors}"
        );
        assert!(
            anchors.contains("| postcard | 20000.0 | 100× | 1200 | yes |"),
            "{anchors}"
        );
        let mut big = sample();
        for r in &mut big.rows {
            r.largest_frame = 1251;
        }
        assert!(page(&big, "bench").contains("| 1251 | no |"));
        // A report without the anchored scenes has no such section.
        assert!(!page(&empty(), "bench").contains("## Beside the published anchors"));
    }

    #[test]
    fn the_headline_counts_the_targets_and_links_the_page() {
        let text = headline(
            &sample(),
            "bench --readme README.md",
            "docs/bench/README.md",
        );
        assert!(
            text.starts_with("Produced by `bench --readme README.md`"),
            "{text}"
        );
        assert!(
            text.contains("Fiedler's cubes & <friends>, at 5% loss each way:"),
            "{text}"
        );
        assert!(text.contains("| acked | 150.0 | 62.5 | 7.00 |"), "{text}");
        assert!(text.contains("1 of the bench's 2 targets met."), "{text}");
        assert!(
            text.contains("[`docs/bench/README.md`](docs/bench/README.md)"),
            "{text}"
        );
        // Nothing measured: still the link, and no table.
        let bare = headline(&empty(), "bench", "x.md");
        assert!(
            !bare.contains('|') && bare.contains("[`x.md`](x.md)"),
            "{bare}"
        );
    }

    #[test]
    fn the_fiedler_lane_gets_its_fields_beside_kinds_6_and_12_and_the_verdicts() {
        let mut report = sample();
        // No lane, no section.
        assert!(!page(&report, "bench").contains("## Beside Fiedler's scheme"));
        let acked = report
            .rows
            .iter()
            .find(|r| r.scene == "cube" && r.protocol == "acked" && r.loss_pct == 5.0)
            .unwrap()
            .clone();
        let mut fiedler = acked.clone();
        fiedler.protocol = "fiedler".into();
        fiedler.bits_per_changed = 100.0;
        fiedler.fields = Some(crate::fields::FieldBits {
            id: 5.0,
            mask: 2.0,
            position: 40.0,
            orientation: 50.0,
            rest: 0.0,
            header: 3.0,
            resent: 0.0,
        });
        report.rows.push(fiedler);
        report.targets = crate::run::targets(&report.rows);
        let text = page(&report, "bench");
        let section = &text[text.find("## Beside Fiedler's scheme").unwrap()..];
        let section = &section[..section.find("## Every table").unwrap()];
        assert!(
            section.contains("| index | flags | position | orientation |"),
            "{section}"
        );
        assert!(
            section.contains(
                "| fiedler | 5.0 | 2.0 | 40.0 | 50.0 | 0.0 | 3.0 | 0.0 | 100.0 | 1× | 7.00 |"
            ),
            "{section}"
        );
        // acked has no split in the sample: dashes, and its ratio to the lane.
        assert!(
            section.contains("| acked | - | - | - | - | - | - | - | 62.5 | 0.625× | 7.00 |"),
            "{section}"
        );
        assert!(section.contains("| his article, on his data | 5.5 | 2.0 | 26.1 | 23.3 |"));
        // Our best (acked, 62.5 over 100): within Giesen's 0.72, not Maxwell's 0.46.
        assert!(
            section.contains(
                "against Giesen's 0.72×, met; against the moonshot's 0.46×, missed by 36%"
            ),
            "{section}"
        );
        // The targets table judges the same ratio on the cubes at 5%.
        assert!(text.contains("within Giesen's ratio to Fiedler"), "{text}");
        // The arena ran no lane: no table of its own.
        assert!(!section.contains("An arena"), "{section}");
    }
}
