//! # ackwire-bench
//!
//! `ackwire bench`: what the protocols cost on the wire and on the CPU, on reference scenes,
//! beside the serializers a user would otherwise pick, in one run.
//!
//! - [`scenes`]: the deterministic reference scenes (Fiedler's cubes, an arena, a field of
//!   floats) and the network conditions they run under;
//! - [`run`]: one scene through each protocol's sans-IO machines (acked frames, with large
//!   frames reliable as ACK-27 advises and as unreliable fragments, datagram v2,
//!   NetBaseline) and through full snapshots serialized with postcard and bitcode, measuring
//!   bits, render error and CPU time;
//! - [`coding`]: the coder study (issue 39): entropy coders measured on kind 12's bodies;
//! - [`coded`]: the coded profile (kind 13) in the bench: a sent frame's bits by field, and
//!   the training of its tables from the scenes;
//! - [`fiedler`]: Glenn Fiedler's snapshot compression, the reference lane our bits are held
//!   to;
//! - [`fields`]: where each protocol's bits go, per changed entity, by field class (id, mask,
//!   position, orientation, the rest, the frame's header), measured from the frames;
//! - [`render`]: the terminal table, the markdown tables, the SVG chart;
//! - [`page`]: the report page (`docs/bench/README.md` for the committed run) and the headline
//!   figures a README carries from it;
//! - [`server`]: one world with N clients of the acked stream, each on its own link: the
//!   server's time per tick, memory per client and bytes, beside bitcode's shared full world;
//! - [`command`]: `ackwire bench` itself: arguments checked, the run, the files written.
//!
//! The figures are measurements of one run on one machine: bandwidth and render error are
//! deterministic (seeded scenes and network), CPU times are not.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod coded;
pub mod coding;
pub mod command;
pub mod fiedler;
pub mod fields;
pub mod page;
pub mod render;
pub mod run;
pub mod scenes;
pub mod server;

use serde::{Deserialize, Serialize};

/// Fiedler's "Snapshot Compression": about 57 bits per changed cube after delta compression
/// (under 256 kbps for 901 cubes at 60 Hz), the anchor the cube scene is held to.
pub const FIEDLER_BITS_PER_CHANGED: f64 = 57.0;
/// Fiedler's uncompressed cube stream, in kilobits per second (17.37 Mbps).
pub const FIEDLER_UNCOMPRESSED_KBPS: f64 = 17_370.0;
/// Fiedler's delta-compressed cube stream stays under this many kilobits per second.
pub const FIEDLER_COMPRESSED_KBPS: f64 = 256.0;
/// Quake 3's snapshot cap: 1250 bytes at 20 Hz, in kilobits per second.
pub const QUAKE3_CAP_KBPS: f64 = 1250.0 * 8.0 * 20.0 / 1000.0;

/// The loss level the report's per-scene tables are shown at, of `losses` (ascending): 5%,
/// the middle of the range the issue cares about, or the closest level measured (the lower
/// one on a tie). The bits by field are measured at this loss only.
pub fn headline_loss(losses: &[f64]) -> Option<f64> {
    losses
        .iter()
        .copied()
        .filter(|l| l.is_finite())
        .min_by(|a, b| (a - 5.0).abs().total_cmp(&(b - 5.0).abs()))
        .or_else(|| losses.first().copied())
}

/// A whole bench run: what ran, every measurement, the targets judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `--quick`: fewer ticks per run.
    pub quick: bool,
    /// `release` or `debug`: CPU times of a debug build say little.
    pub build: String,
    /// The seed of scenes and network.
    pub seed: u64,
    /// The scenes run.
    pub scenes: Vec<SceneInfo>,
    /// One row per scene, protocol and loss.
    pub rows: Vec<Row>,
    /// The targets, judged on the rows.
    pub targets: Vec<Target>,
    /// The many-client server bench ([`server`]): one row per scene and client count; empty
    /// in reports made before it ran, or when no scene it runs was asked for.
    #[serde(default)]
    pub server: Vec<server::ServerRow>,
}

/// A scene as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneInfo {
    /// Short name (`cube`, `arena`, `floats`).
    pub name: String,
    /// One line on what it is.
    pub title: String,
    /// Ticks per second.
    pub hz: u32,
    /// Entities in the world.
    pub entities: u32,
    /// Round trip, milliseconds.
    pub rtt_ms: u32,
    /// One-way delay in ticks before jitter.
    pub one_way_ticks: u32,
    /// Jitter either way, ticks.
    pub jitter_ticks: u32,
    /// Ticks run in all.
    pub ticks: u32,
    /// Ticks at the start not measured (the join: every protocol sends the whole world).
    pub warmup_ticks: u32,
    /// How far behind its newest tick the client draws (render delay), ticks.
    pub draw_delay_ticks: u32,
    /// Entities that changed per measured tick, on average.
    pub changed_per_tick: f64,
}

/// One protocol on one scene at one loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The scene's name.
    pub scene: String,
    /// One of [`run::PROTOCOLS`]: `acked`, `acked-frag`, `acked-packed`, `fiedler`,
    /// `datagram`, `baseline`, `postcard` or `bitcode`.
    pub protocol: String,
    /// Loss each way, per cent.
    pub loss_pct: f64,
    /// Ticks measured (after the warm-up).
    pub ticks: u32,
    /// Bytes sent server to client over the measured ticks (each frame once).
    pub bytes_down: u64,
    /// Bytes sent client to server (acks) over the measured ticks.
    pub bytes_up: u64,
    /// Downstream bits per entity per tick.
    pub bits_per_entity_tick: f64,
    /// Downstream bits per changed entity (bits over the changes the world made).
    pub bits_per_changed: f64,
    /// Downstream kilobits per second.
    pub kbps: f64,
    /// Upstream kilobits per second.
    pub kbps_up: f64,
    /// The largest frame sent, bytes.
    pub largest_frame: u64,
    /// Mean distance between what the client drew and the truth at that instant, metres.
    pub render_error_mean: f64,
    /// The worst such distance, metres.
    pub render_error_worst: f64,
    /// Render-error samples (entities drawn, summed over ticks).
    pub render_samples: u64,
    /// Encode CPU time per entity per tick for this client, nanoseconds.
    pub encode_ns_per_entity: f64,
    /// Decode CPU time per entity per tick on the client, nanoseconds.
    pub decode_ns_per_entity: f64,
    /// Frames the client decoded over the measured ticks (lost ones are not; copies are).
    pub frames_decoded: u64,
    /// Downstream bits per changed entity by field class ([`fields`]), adding up to
    /// [`bits_per_changed`](Self::bits_per_changed); measured at the [`headline_loss`] only
    /// (the split costs as much CPU as the run, and the tables show that loss), so absent at
    /// the other losses, and in reports made before the bench measured them.
    #[serde(default)]
    pub fields: Option<fields::FieldBits>,
    /// Mean angle between the orientation the client drew and the truth's at that instant,
    /// degrees; absent where the scene has no orientations or the protocol does not carry
    /// them.
    #[serde(default)]
    pub orient_error_mean_deg: Option<f64>,
    /// The worst such angle, degrees.
    #[serde(default)]
    pub orient_error_worst_deg: Option<f64>,
}

impl Row {
    /// Decode CPU time per entity per frame decoded: for a full snapshot, what decoding the
    /// whole world once costs, whatever the loss.
    pub fn decode_ns_per_frame_entity(&self) -> f64 {
        if self.frames_decoded == 0 {
            0.0
        } else {
            self.decode_ns_per_entity * f64::from(self.ticks) / self.frames_decoded as f64
        }
    }
}

/// One of the targets, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// What is held to what.
    pub name: String,
    /// The measured value.
    pub measured: f64,
    /// The limit it must stay under.
    pub limit: f64,
    /// The unit of both.
    pub unit: String,
    /// Whether the measurement is under the limit.
    pub met: bool,
}

impl Target {
    /// How far over (positive) or under (negative) the limit the measurement is, as a share
    /// of the limit.
    pub fn margin(&self) -> f64 {
        if self.limit == 0.0 {
            0.0
        } else {
            self.measured / self.limit - 1.0
        }
    }
}
