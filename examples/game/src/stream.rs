//! The arena's acked stream end to end, in the game's own schemas generated from `state Arena`
//! (`Arena`, kind 6, and `PackedArena`, kind 12): the server simulation ([`World`]) hands each
//! tick's state to one `AckedEncoder` per client; each client's `AckedDecoder` takes the frames
//! through its own network that loses, duplicates and reorders them ([`FateQueue`]), and
//! acknowledges with kind 7 frames carrying its player's commands, which the server executes
//! at their tick.
//!
//! [`run`] holds, at every step (GEN-3): every state a client shows hashes (the check, CHECK-2)
//! to the server's S_N of that tick, every check a frame carries passes, every event
//! is shown once and is the event the server made, and once the networks heal every client
//! shows the server's world. It records what the first client received and sent
//! ([`Run::record`]): the stream another language's client is held to
//! (`vectors/streams/arena.txt`, written by `cargo run -p ackwire-example-game --example
//! record_stream`).

use crate::arena::{Arena as World, Commands};
use crate::{ArenaEvent, Command, Entity};
use ackwire_codec::acked::{
    server_check, state_check, AckedEncoder, AckedSchema, Delivery, LiveState, ServerState,
};
use ackwire_codec::session::{AckedClient, Now, SessionHalf};
use ackwire_sim::{Fate, FateQueue, SplitMix64};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Players in the arena; the clients play the first ones, bots the rest.
pub const PLAYERS: u16 = 6;

/// The shape of a run.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Seeds the world and the networks.
    pub seed: u64,
    /// Clients, each playing its own player (at most [`PLAYERS`]).
    pub clients: u16,
    /// Ticks the server runs.
    pub ticks: u32,
    /// The tick the networks heal at (every frame then arrives the next tick, once).
    pub heal: u32,
    /// The share of frames lost before the networks heal.
    pub loss: f64,
}

/// The run whose first client's stream is recorded: one client, 300 ticks, a fifth of the
/// frames lost until tick 240.
pub const RECORDED: Setup = Setup {
    seed: 11,
    clients: 1,
    ticks: 300,
    heal: 240,
    loss: 0.2,
};

/// What a run did.
#[derive(Debug, Default)]
pub struct Run {
    /// States shown, summed over the clients.
    pub shown: u32,
    /// Checks passed, summed over the clients.
    pub checks: u32,
    /// Events shown, summed over the clients.
    pub events: u32,
    /// Frames dropped as stale or of a base no longer held, summed over the clients.
    pub dropped: u32,
    /// Bytes of the frames sent to the clients.
    pub bytes: u64,
    /// The first client's stream, a line each: `frame HEX` for a frame as it arrives, then
    /// `shown TICK HASH` (the state it shows, its check in hex) or `dropped`; `ack HEX` for the
    /// kind 7 frame it sends at the end of a tick.
    pub record: String,
}

/// One client: its halves, its networks, what it has seen.
struct Client<S: AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command>> {
    player: u16,
    enc: AckedEncoder<S, Commands>,
    /// The client's half (its AckedDecoder and kind 7 writer) over the game's own schema.
    half: AckedClient<S>,
    down: FateQueue,
    up: FateQueue,
    fates: Vec<Fate>,
    seen: BTreeSet<u32>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The check of what a client shows.
fn shown_check<S: AckedSchema>(schema: &S, live: &LiveState<S>) -> u32 {
    let held = live.to_state();
    state_check(schema, held.iter().map(|(e, r)| (*e, r)))
}

/// Runs the arena as `setup` says, in the frames of schema `S`; the first broken promise is
/// the error, with its tick.
pub fn run<S>(setup: Setup) -> Result<Run, String>
where
    S: AckedSchema<Record = Entity, Event = ArenaEvent, Input = Command> + Default + 'static,
{
    let schema = S::default();
    let Setup {
        seed,
        clients,
        ticks,
        heal,
        loss,
    } = setup;
    let clients = clients.min(PLAYERS);
    let mut world = World::new(PLAYERS, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let mut cs: Vec<Client<S>> = (1..=clients)
        .map(|player| Client {
            player,
            enc: AckedEncoder::new(Commands::default()),
            half: AckedClient::new(16),
            down: FateQueue::new(),
            up: FateQueue::new(),
            fates: Fate::schedule(seed.wrapping_add(u64::from(player)), loss, 97),
            seen: BTreeSet::new(),
        })
        .collect();
    // The server's S_N by tick (everyone sees all: one S_N serves every client), and every
    // event made (each client's encoder numbers them alike, from serial 1).
    let mut history: BTreeMap<u32, ServerState<Entity>> = BTreeMap::new();
    let mut made: Vec<ArenaEvent> = Vec::new();
    let mut out = Run::default();
    // The last frame, sent at `ticks`, may wait 6 ticks before the networks heal.
    for t in 1..=ticks + 8 {
        let healed = t >= heal;
        for (i, c) in cs.iter_mut().enumerate() {
            let record = i == 0;
            for bytes in c.down.arrivals(t) {
                if record {
                    let _ = writeln!(out.record, "frame {}", hex(&bytes));
                }
                let now = Now::new(u64::from(t), 0);
                match c
                    .half
                    .handle_frame(now, schema.frame_name(), &bytes)
                    .map_err(|e| e.to_string())?
                {
                    Delivery::Shown(report) => {
                        let report = report.clone();
                        if report.check == Some(false) {
                            return Err(format!(
                                "tick {t}: frame {} failed its check",
                                report.tick
                            ));
                        }
                        out.checks += u32::from(report.check.is_some());
                        let (tick, live) = c.half.machine().shown().ok_or("shown nothing")?;
                        let got = shown_check(&schema, live);
                        let want = history
                            .get(&tick)
                            .map(|s| server_check(&schema, s))
                            .ok_or_else(|| format!("tick {t}: no S_N of tick {tick}"))?;
                        if got != want {
                            return Err(format!(
                                "tick {t}: player {}'s client shows tick {tick} as {got:08x}, S_N is {want:08x}",
                                c.player
                            ));
                        }
                        if record {
                            let _ = writeln!(out.record, "shown {tick} {got:08x}");
                        }
                        out.shown += 1;
                        for (serial, event) in report.events {
                            if !c.seen.insert(serial) {
                                return Err(format!("tick {t}: event {serial} shown twice"));
                            }
                            let i = serial.checked_sub(1).map(|i| i as usize);
                            if i.and_then(|i| made.get(i)) != Some(&event) {
                                return Err(format!("tick {t}: event {serial} is not its event"));
                            }
                        }
                    }
                    Delivery::Stale { .. } | Delivery::UnknownBase { .. } => {
                        out.dropped += 1;
                        if record {
                            out.record.push_str("dropped\n");
                        }
                    }
                    other => return Err(format!("tick {t}: a frame refused: {other:?}")),
                }
            }
            for bytes in c.up.arrivals(t) {
                c.enc
                    .receive(u64::from(t), &bytes)
                    .map_err(|e| format!("tick {t}: an ack refused: {e}"))?;
            }
            // The client acknowledges, with its player's command for two ticks ahead.
            c.half
                .handle_tick(Now::new(u64::from(t), 0), world.bot(t + 2))
                .map_err(|e| e.to_string())?;
            let bytes = c.half.poll_transmit().ok_or("no ack sent")?.bytes;
            if record {
                let _ = writeln!(out.record, "ack {}", hex(&bytes));
            }
            c.up.send(t, Fate::nth(&c.fates, t as usize, healed), bytes);
        }
        if t > ticks {
            continue;
        }
        // The server's tick: the clients' commands for it, bots for the other players.
        let mut commands = BTreeMap::new();
        for c in &mut cs {
            if let Some(command) = c.enc.inputs_mut().take(t) {
                commands.insert(c.player, command);
            }
        }
        for player in clients + 1..=PLAYERS {
            if rng.chance(0.25) {
                commands.insert(player, world.bot(t));
            }
        }
        let events = world.step(t, &commands);
        made.extend(events.iter().cloned());
        let state = world.state(t);
        history.insert(t, state.clone());
        for c in &mut cs {
            let sent = c
                .enc
                .encode(t, state.clone(), events.clone())
                .map_err(|e| format!("tick {t}: encode: {e}"))?;
            out.bytes += sent.bytes.len() as u64;
            c.down
                .send(t, Fate::nth(&c.fates, t as usize, healed), sent.bytes);
        }
    }
    let last = history.get(&ticks).map(|s| server_check(&schema, s));
    for c in &cs {
        let shown = c
            .half
            .machine()
            .shown()
            .map(|(tick, live)| (tick, shown_check(&schema, live)));
        if shown.map(|s| s.1) != last || shown.map(|s| s.0) != Some(ticks) {
            return Err(format!(
                "after healing, player {}'s client shows {shown:?}, not tick {ticks}",
                c.player
            ));
        }
        out.events += c.seen.len() as u32;
    }
    Ok(out)
}
