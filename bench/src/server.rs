//! The many-client server bench (issue 38): one world ticking at its rate with N clients of
//! the acked stream, each with its own link (5% loss each way, its own latency) and so its own
//! acknowledged base, beside bitcode's full-world encode done once a tick and shared by every
//! client (a full snapshot is the same bytes for each).
//!
//! Each tick has two phases over the clients, each spread over [`THREADS`] scoped threads:
//! the clients' side (frames arrive and are decoded by the client's own [`AckedDecoder`], its
//! ack is written), never timed; then the server's (the client's acks taken, what changed in
//! its S_N presented from what changed in the world, and encoded), timed per client (the sum is the server's time on one core) and as
//! a whole (the wall time on all threads). Each client's frames are the same bytes whatever the
//! threads ([`run_clients`] returns their digest; `bench/tests/server.rs` holds one thread to
//! two). Memory per client is [`ackwire_codec::acked::heap_bytes`] of its server half at the
//! end of the run, which `server/tests/hostile_clients.rs` holds to the allocator's count.
//!
//! The server half is the change-driven one: the world's changes each tick (the bodies the
//! scene moved, as an ECS's change tracking would report them) go to each client's
//! [`Presenter::present_changes`], and its edits to [`AckedEncoder::encode_edits`], so that a
//! client's tick costs what changed since its base rather than the world.

use crate::run::{acked_view, mirror_acked, Failure, FullSnapshot};
use crate::scenes::{Scene, SceneKind, JITTER_TICKS};
use crate::Target;
use ackwire_codec::acked::{heap_bytes, AckWriter, AckedDecoder, AckedSchema, Delivery, Reference};
use ackwire_codec::protocol::Input;
use ackwire_server::acked::{AckedEncoder, Presenter, World, WorldChanges};
use ackwire_server::input_schedule::InputWindow;
use ackwire_sim::channel::{Channel, Packet};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The client counts of the full run.
pub const CLIENTS: [u32; 5] = [1, 16, 64, 256, 1024];
/// The client counts of `--quick`.
pub const QUICK_CLIENTS: [u32; 3] = [1, 16, 64];
/// The scenes it runs (of those the plan holds).
pub const SCENES: [SceneKind; 2] = [SceneKind::Cube, SceneKind::Arena];
/// Loss each way on every client's link, per cent: the targets' 5%.
pub const LOSS_PCT: f64 = 5.0;
/// The threads the clients are spread over: the bench machine's two cores.
pub const THREADS: usize = 2;

/// One scene with N clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerRow {
    /// The scene's name.
    pub scene: String,
    /// Clients.
    pub clients: u32,
    /// Entities in the world.
    pub entities: u32,
    /// Ticks per second.
    pub hz: u32,
    /// Ticks measured (after a second of join).
    pub ticks: u32,
    /// The server's time per tick for all clients on one core (each client's acks, present and
    /// encode, added up), milliseconds.
    pub server_ms: f64,
    /// Of [`server_ms`](Self::server_ms), the time presenting each client's S_N from the world,
    /// milliseconds (the rest is taking acks and encoding S_N onto the client's base).
    pub present_ms: f64,
    /// The same work's wall time per tick over [`THREADS`] threads, milliseconds.
    pub wall_ms: f64,
    /// bitcode's encode of the full world, once a tick for every client, milliseconds.
    pub bitcode_ms: f64,
    /// Bytes the acked server sent per tick to all clients (a reliable frame's resends
    /// counted).
    pub bytes: f64,
    /// Bytes per tick of the full snapshot sent to every client.
    pub bitcode_bytes: f64,
    /// The heap one client's server half holds at the end, bytes (the mean over clients).
    pub memory_per_client: f64,
    /// The most one client's server half held, bytes.
    pub memory_worst: u64,
}

impl ServerRow {
    /// The server's time per entity of the world per client per tick, nanoseconds.
    pub fn ns_per_entity_client(&self) -> f64 {
        self.server_ms * 1e6 / f64::from(self.clients) / f64::from(self.entities)
    }

    /// bitcode's full-world encode per entity, nanoseconds.
    pub fn bitcode_ns_per_entity(&self) -> f64 {
        self.bitcode_ms * 1e6 / f64::from(self.entities)
    }

    /// How many clients one core serves within a tick at this per-client cost.
    pub fn clients_per_core(&self) -> f64 {
        let per_client_ms = self.server_ms / f64::from(self.clients);
        1000.0 / f64::from(self.hz) / per_client_ms
    }
}

/// One client: the server's half (timed) and the client's (not), joined by its own link.
struct Client {
    presenter: Presenter,
    encoder: AckedEncoder<Reference, Input>,
    decoder: AckedDecoder<Reference>,
    writer: AckWriter<Input>,
    down: Channel,
    up: Channel,
    /// The frame the server made this tick, sent at the next client phase.
    outgoing: Option<Packet>,
    server_ns: u128,
    present_ns: u128,
    bytes: u64,
    /// FNV-1a over every frame's bytes, to hold two runs to the same frames.
    digest: u64,
}

impl Client {
    fn new(kind: SceneKind, i: u32, seed: u64) -> Client {
        // Half to twice the scene's round trip, by turns; the client plays an entity of its
        // own where the scene has players.
        let base = kind.one_way_ticks();
        let one_way = (base * (1 + i % 4)).div_ceil(2).max(1);
        let own = kind
            .own()
            .map(|_| (i % u32::from(kind.entities())) as u16 + 1);
        let link = seed ^ (u64::from(i) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let loss = LOSS_PCT / 100.0;
        Client {
            presenter: Presenter::new(acked_view(kind, own)),
            encoder: AckedEncoder::new(InputWindow::new(4, 64)),
            decoder: AckedDecoder::new(),
            writer: AckWriter::new(16),
            down: Channel::new(loss, one_way, JITTER_TICKS, link),
            up: Channel::new(loss, one_way, JITTER_TICKS, !link),
            outgoing: None,
            server_ns: 0,
            present_ns: 0,
            bytes: 0,
            digest: 0xcbf2_9ce4_8422_2325,
        }
    }

    /// The client's side of tick `t`: last tick's frame onto the link, what arrives decoded,
    /// the ack written.
    fn client_phase(&mut self, t: u32, measured: bool) -> Result<(), Failure> {
        if let Some(packet) = self.outgoing.take() {
            for &b in &packet.bytes {
                self.digest = (self.digest ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
            let wire = self.down.send(t - 1, packet);
            if measured {
                self.bytes += wire;
            }
        }
        for packet in self.down.arrivals(t) {
            match self.decoder.deliver(&packet.bytes) {
                Delivery::Shown(_) => self.writer.confirm(self.decoder.last_seq()),
                Delivery::Stale { .. } | Delivery::UnknownBase { .. } => {}
                other => return Err(format!("the acked client refused a frame: {other:?}")),
            }
        }
        let ack = self
            .writer
            .content(self.decoder.ack_tick(), self.decoder.keyframe_wanted());
        let mut bytes = Vec::new();
        Reference
            .encode_ack(&ack, &mut bytes)
            .map_err(|e| format!("kind 7 encode: {e}"))?;
        self.up.send(t, Packet::unreliable(bytes));
        Ok(())
    }

    /// The server's side of tick `t`: the acks that arrived, then the frame of what `changes`
    /// says changed in `world`. Never inlined, so that `examples/server_callgrind.rs` can count
    /// its instructions alone.
    #[inline(never)]
    fn server_phase(
        &mut self,
        t: u32,
        world: &World,
        changes: &WorldChanges,
        measured: bool,
    ) -> Result<(), Failure> {
        let started = Instant::now();
        for packet in self.up.arrivals(t) {
            self.encoder
                .receive(u64::from(t), &packet.bytes)
                .map_err(|e| format!("kind 7 decode: {e}"))?;
        }
        let presenting = Instant::now();
        let edits = self.presenter.present_changes(t, world, changes);
        let presented = presenting.elapsed().as_nanos();
        let sent = self
            .encoder
            .encode_edits(t, edits, std::iter::empty())
            .map_err(|e| format!("acked encode: {e}"))?;
        if measured {
            self.server_ns += started.elapsed().as_nanos();
            self.present_ns += presented;
        }
        self.outgoing = Some(Packet {
            bytes: sent.bytes,
            reliable: sent.reliable,
        });
        Ok(())
    }
}

/// Runs `f` on every client, spread over `threads` scoped threads in contiguous shares; the
/// first failure, if any.
fn each(
    clients: &mut [Client],
    threads: usize,
    f: impl Fn(&mut Client) -> Result<(), Failure> + Sync,
) -> Result<(), Failure> {
    if threads <= 1 || clients.len() <= 1 {
        return clients.iter_mut().try_for_each(&f);
    }
    let share = clients.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = clients
            .chunks_mut(share)
            .map(|part| s.spawn(move || part.iter_mut().try_for_each(f)))
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .map_err(|_| "a client thread panicked".to_owned())?
        })
    })
}

/// How long a server run lasts: a second of join, then `seconds` measured.
pub fn measured_seconds(quick: bool) -> u32 {
    if quick {
        3
    } else {
        10
    }
}

/// What one run of N clients gave: its row and each client's frame digest.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientsRun {
    /// The measurements.
    pub row: ServerRow,
    /// Per client, FNV-1a over the bytes of every frame its server sent.
    pub digests: Vec<u64>,
}

/// One world of `kind` ticking for a second of join and `seconds` measured, with `clients`
/// clients spread over `threads` threads.
pub fn run_clients(
    kind: SceneKind,
    clients: u32,
    seconds: u32,
    threads: usize,
    seed: u64,
) -> Result<ClientsRun, Failure> {
    let warmup = kind.hz();
    let ticks = warmup + kind.hz() * seconds;
    let mut scene = Scene::new(kind, seed);
    let mut world = World::new();
    let mut all: Vec<Client> = (0..clients).map(|i| Client::new(kind, i, seed)).collect();
    let everyone: Vec<usize> = (0..scene.bodies().len()).collect();
    let (mut wall_ns, mut bitcode_ns, mut bitcode_bytes) = (0u128, 0u128, 0u64);
    let mut changes = WorldChanges::new();
    for t in 1..=ticks {
        let measured = t > warmup;
        scene.step();
        let changed = if t == 1 { &everyone } else { scene.changed() };
        changes.clear();
        mirror_acked(&mut world, &mut changes, scene.bodies(), changed);
        let snapshot = FullSnapshot::of(kind, t, scene.bodies());
        each(&mut all, threads, |c| c.client_phase(t, measured))?;
        let started = Instant::now();
        each(&mut all, threads, |c| {
            c.server_phase(t, &world, &changes, measured)
        })?;
        let wall = started.elapsed().as_nanos();
        let started = Instant::now();
        let full = std::hint::black_box(bitcode::encode(&snapshot));
        let once = started.elapsed().as_nanos();
        if measured {
            wall_ns += wall;
            bitcode_ns += once;
            bitcode_bytes += full.len() as u64 * u64::from(clients);
        }
    }
    // The last frames onto the link, so every frame made is in the digest.
    each(&mut all, 1, |c| c.client_phase(ticks + 1, false))?;
    let per_tick = |ns: u128| ns as f64 / 1e6 / f64::from(ticks - warmup);
    let memory: Vec<u64> = all
        .iter()
        .map(|c| heap_bytes(&c.presenter, &c.encoder) as u64)
        .collect();
    let row = ServerRow {
        scene: kind.name().into(),
        clients,
        entities: u32::from(kind.entities()),
        hz: kind.hz(),
        ticks: ticks - warmup,
        server_ms: per_tick(all.iter().map(|c| c.server_ns).sum()),
        present_ms: per_tick(all.iter().map(|c| c.present_ns).sum()),
        wall_ms: per_tick(wall_ns),
        bitcode_ms: per_tick(bitcode_ns),
        bytes: all.iter().map(|c| c.bytes).sum::<u64>() as f64 / f64::from(ticks - warmup),
        bitcode_bytes: bitcode_bytes as f64 / f64::from(ticks - warmup),
        memory_per_client: memory.iter().sum::<u64>() as f64 / f64::from(clients.max(1)),
        memory_worst: memory.iter().copied().max().unwrap_or(0),
    };
    Ok(ClientsRun {
        row,
        digests: all.iter().map(|c| c.digest).collect(),
    })
}

/// The server bench of `scenes` (those of [`SCENES`] among them), each at every client count
/// of [`CLIENTS`] ([`QUICK_CLIENTS`] when `quick`), calling `progress` after each run.
pub fn run(
    scenes: &[SceneKind],
    quick: bool,
    seed: u64,
    mut progress: impl FnMut(),
) -> Result<Vec<ServerRow>, Failure> {
    let counts: &[u32] = if quick { &QUICK_CLIENTS } else { &CLIENTS };
    let mut rows = Vec::new();
    for &kind in SCENES.iter().filter(|k| scenes.contains(k)) {
        for &n in counts {
            rows.push(run_clients(kind, n, measured_seconds(quick), THREADS, seed)?.row);
            progress();
        }
    }
    Ok(rows)
}

/// The runs [`run`] makes for `scenes`.
pub fn runs(scenes: &[SceneKind], quick: bool) -> usize {
    let counts = if quick {
        QUICK_CLIENTS.len()
    } else {
        CLIENTS.len()
    };
    SCENES.iter().filter(|k| scenes.contains(k)).count() * counts
}

/// Issue 38's goal, judged at the most clients run on the cubes: one core serves 1,000 clients
/// at the scene's rate, so a client's share of one core is at most a thousandth of the tick.
pub fn targets(rows: &[ServerRow]) -> Vec<Target> {
    let Some(r) = rows
        .iter()
        .filter(|r| r.scene == SceneKind::Cube.name())
        .max_by_key(|r| r.clients)
    else {
        return Vec::new();
    };
    let measured = r.server_ms * 1000.0 / f64::from(r.clients);
    let limit = 1e6 / f64::from(r.hz) / 1000.0;
    vec![Target {
        name: format!(
            "cube, {LOSS_PCT}% loss, {} clients: the server's time per client per tick on one \
             core ({:.0} clients a core at {} Hz), within a thousandth of the tick (1,000 \
             clients)",
            r.clients,
            r.clients_per_core(),
            r.hz
        ),
        measured,
        limit,
        unit: "µs".into(),
        met: measured <= limit,
    }]
}
