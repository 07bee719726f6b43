//! A deterministic two-peer run of datagram v2 driven by bytes: the world's script, the
//! network's decisions (deliver, lose, duplicate, reorder) and hostile frames all come from
//! the input. The property tests and the `datagram_stream` fuzz target both call [`run`].
//!
//! Invariants checked:
//! - nothing is applied to the wrong occupant of an id (DG-18): after every step, every replica the
//!   client holds is a state the server had for that same occupant (id and spawn tick), at its
//!   spawn or at the end of a tick (only its occupant, once a forged datagram made a tick whole:
//!   the client then applies the honest ticks up to it part by part, since DG-21 applies a tick
//!   when it or a later tick is whole);
//! - a forged datagram changes only entities it names with their own spawn tag;
//! - memory is bounded: the client holds at most its limit of datagrams and of component bytes
//!   (and its count of those bytes is right), the server remembers at most its window;
//! - once the network heals, the client's table converges to the server's world and its input
//!   ack to the server's (unless the input forged acks, which may lie about what arrived, or
//!   the client refused updates past its component byte bound, which it then never holds).
//!
//! Hostile inputs (one run in four) also forge datagrams with ticks, numbers and stream ticks
//! at and near u64::MAX, datagrams that are never whole, components of kilobytes, and jump the
//! world's ticks to the end of the u64 range (issue 13: `whole + 1` on a wire tick overflowed).
//! One run in four holds components under a bound of a few hundred bytes; world components
//! are sometimes kilobytes long.

use super::*;
use crate::protocol::{Component, Datagram, DatagramAck, Update, UpdateMask};
use crate::BitSet;
use ackwire_sim::ByteSource;
use std::collections::{BTreeMap, HashSet};

/// What a run saw, for tests that want to know the input exercised something.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Ticks run.
    pub ticks: u64,
    /// Updates the client applied.
    pub applied: u64,
    /// Updates skipped for their spawn tag.
    pub skipped_spawn_tag: u64,
    /// Updates skipped as stale.
    pub skipped_stale: u64,
    /// Updates skipped for the client's component byte bound.
    pub skipped_over_bytes: u64,
    /// Datagrams the client took whose tick was within 16 of u64::MAX (forged, or the world's
    /// after a jump).
    pub extreme_ticks: u64,
    /// Whether the convergence check ran (no forged ack or datagram).
    pub converged: bool,
}

fn state_key(id: u64, spawn: u64, pos: [i64; 3], comps: &BTreeMap<u8, Vec<u8>>) -> Vec<u8> {
    let mut k = Vec::new();
    k.extend_from_slice(&id.to_le_bytes());
    k.extend_from_slice(&spawn.to_le_bytes());
    for v in pos {
        k.extend_from_slice(&v.to_le_bytes());
    }
    for (t, d) in comps {
        k.push(*t);
        k.extend_from_slice(&(d.len() as u32).to_le_bytes());
        k.extend_from_slice(d);
    }
    k
}

struct Run {
    server: Subscription,
    client: ReplicaTable,
    stream: std::collections::VecDeque<StreamFrame>,
    down: Vec<Vec<u8>>,
    up: Vec<Vec<u8>>,
    history: HashSet<Vec<u8>>,
    tainted: HashSet<(u64, u64)>,
    /// (id, spawn tag) of every update of a forged datagram the client held rather than applied:
    /// a later honest datagram can release it, changing an entity the forgery named.
    forged: HashSet<(u64, u16)>,
    /// The client refused an update or a spawn for its component byte bound.
    bounded: bool,
    /// The world's ticks ran out (jumped to u64::MAX): nothing lost can be sent again.
    ended: bool,
    incarnations: HashSet<(u64, u64)>,
    acks_lied: bool,
    /// A forged datagram made a tick whole (its own, or one past the world's): the client applies a
    /// tick's datagrams when it or a later tick is whole (DG-21), so from then on the honest
    /// datagrams of the ticks up to it are applied as they come, part by part, and a replica may
    /// mix two ticks' groups of its own occupant.
    whole_forged: bool,
    delivered: Vec<Vec<u8>>,
    tick: u64,
    input_ack: u64,
    lied: bool,
    report: RunReport,
    limits: ReplicaLimits,
    window: u64,
}

impl Run {
    fn record_world(&mut self) {
        for (id, (spawn, pos, comps)) in self.server.world() {
            self.incarnations.insert((id, spawn));
            self.history.insert(state_key(id, spawn, pos, &comps));
        }
    }

    fn server_tick(&mut self, ops: &[WorldOp]) -> Result<(), String> {
        // Ticks may have been jumped to the end of the u64 range: past it, the world stops.
        let Some(tick) = self.tick.checked_add(1) else {
            self.ended = true;
            return Ok(());
        };
        self.tick = tick;
        let out = self
            .server
            .tick(self.tick, self.input_ack, ops)
            .map_err(|e| format!("tick {}: {e}", self.tick))?;
        self.report.ticks += 1;
        for f in &out.stream {
            if let StreamFrame::Spawn(s) = f {
                let comps = s
                    .components
                    .iter()
                    .filter_map(|c| c.data.clone().map(|d| (c.r#type, d)))
                    .collect();
                self.incarnations.insert((s.id, s.tick));
                self.history
                    .insert(state_key(s.id, s.tick, [s.x, s.y, s.z], &comps));
            }
        }
        self.record_world();
        self.stream.extend(out.stream);
        for d in out.datagrams {
            self.down.push(d.to_bytes().map_err(|e| e.to_string())?);
        }
        if self.server.remembered() as u64 > self.window {
            return Err("the server remembers more datagrams than its window".into());
        }
        Ok(())
    }

    fn note(&mut self, s: &DatagramSummary) {
        self.bounded |= s.skipped_over_bytes > 0 || s.refused > 0;
        self.report.applied += u64::from(s.applied);
        self.report.skipped_spawn_tag += u64::from(s.skipped_spawn_tag);
        self.report.skipped_stale += u64::from(s.skipped_stale);
        self.report.skipped_over_bytes += u64::from(s.skipped_over_bytes);
    }

    /// The client's entities before a call that may release a held forgery.
    fn before_release(&self) -> Option<BTreeMap<u64, Replica>> {
        (!self.forged.is_empty()).then(|| self.client.entities().clone())
    }

    /// Taints the entities a released forgery may have changed since `before`.
    fn after_release(&mut self, before: Option<BTreeMap<u64, Replica>>) {
        let Some(before) = before else { return };
        for (id, r) in self.client.entities() {
            if before.get(id) != Some(r) && self.forged.contains(&(*id, spawn_tag(r.spawn_tick))) {
                self.tainted.insert((*id, r.spawn_tick));
            }
        }
    }

    fn client_receive(&mut self, bytes: &[u8]) -> Result<(), String> {
        if let Ok(d) = Datagram::decode(bytes) {
            self.report.extreme_ticks += u64::from(d.tick >= u64::MAX - 16);
            let before = self.before_release();
            let s = self.client.receive(d);
            self.after_release(before);
            self.note(&s);
        }
        for a in self.client.take_acks() {
            self.up.push(a.to_bytes().map_err(|e| e.to_string())?);
        }
        self.check_client()
    }

    fn client_stream(&mut self) -> Result<(), String> {
        if let Some(f) = self.stream.pop_front() {
            let before = self.before_release();
            let s = self.client.apply_stream(&f);
            self.after_release(before);
            self.note(&s);
            for a in self.client.take_acks() {
                self.up.push(a.to_bytes().map_err(|e| e.to_string())?);
            }
        }
        self.check_client()
    }

    fn server_ack(&mut self, bytes: &[u8]) {
        if let Ok(a) = DatagramAck::decode(bytes) {
            self.server.on_ack(&a);
        }
    }

    fn check_client(&self) -> Result<(), String> {
        if self.client.held() > self.limits.max_held
            || self.client.held_bytes() > self.limits.max_held_bytes
        {
            return Err(format!(
                "the client holds {} datagrams of {} bytes",
                self.client.held(),
                self.client.held_bytes()
            ));
        }
        // ReplicaLimits::max_component_bytes, and the client's count of what it holds.
        let counted: usize = self
            .client
            .entities()
            .values()
            .flat_map(|r| r.components.values())
            .map(|c| c.len() + ReplicaLimits::COMPONENT_OVERHEAD)
            .sum();
        if counted != self.client.component_bytes() || counted > self.limits.max_component_bytes {
            return Err(format!(
                "the client holds {counted} component bytes, counts {}, may hold {}",
                self.client.component_bytes(),
                self.limits.max_component_bytes
            ));
        }
        for (id, r) in self.client.entities() {
            if !self.incarnations.contains(&(*id, r.spawn_tick)) {
                return Err(format!(
                    "entity {id} is held as spawned at {}, which it never was",
                    r.spawn_tick
                ));
            }
            // A lying client (forged acks) may be starved of what it denied having, and one
            // whose whole tick a forgery moved applies honest ticks part by part; their
            // replicas are still their own occupants', which is checked above.
            if self.acks_lied || self.whole_forged || self.tainted.contains(&(*id, r.spawn_tick)) {
                continue;
            }
            let k = state_key(*id, r.spawn_tick, r.position, &r.components);
            if !self.history.contains(&k) {
                return Err(format!(
                    "entity {id} (spawned at {}) holds a state its occupant never had: {r:?}",
                    r.spawn_tick
                ));
            }
        }
        Ok(())
    }

    /// A forged datagram: of the whole tick (applied at once), or of an extreme tick, number or
    /// stream tick (applied at once, held, or never whole), sometimes with kilobytes of
    /// components. The entities that change are the forgery's (named with their own spawn tag,
    /// a number above their last) or those of honest datagrams it released, which must still
    /// hold their occupant's states.
    fn forge(&mut self, src: &mut ByteSource<'_>) -> Result<(), String> {
        let Some(whole) = self.client.whole_tick() else {
            return Ok(());
        };
        let mut updates: Vec<Update> = Vec::new();
        let mut id = 0u64;
        for _ in 0..src.byte() % 4 {
            id += u64::from(src.byte() % 4) + u64::from(!updates.is_empty());
            updates.push(Update {
                id,
                spawn_tag: u16::from(src.byte() % 8),
                mask: UpdateMask::empty().with(UpdateMask::X),
                x: Some(i64::from(src.byte()) - 1000),
                y: None,
                z: None,
                components: None,
            });
        }
        let mut d = Datagram {
            frame: u64::from(src.byte()) * 3,
            tick: whole,
            input_ack: 0,
            stream_tick: 0,
            precision: 0.01,
            parts: 1,
            updates,
        };
        let extreme = src.byte();
        d.tick = match extreme % 4 {
            0 => whole,
            1 => u64::MAX,
            2 => u64::MAX - 1,
            _ => whole.saturating_add(1),
        };
        match extreme / 4 % 4 {
            1 => d.frame = u64::MAX,
            2 => d.frame = u64::MAX - 1,
            _ => {}
        }
        match extreme / 16 % 4 {
            // Names a stream frame that never comes: held until given up or released.
            1 => d.stream_tick = u64::MAX,
            // Never whole by its own parts.
            2 => d.parts = u32::MAX,
            _ => {}
        }
        if extreme / 64 == 3 {
            if let Some(u) = d.updates.first_mut() {
                u.mask = u.mask.with(UpdateMask::COMPONENTS);
                u.components = Some(vec![Component {
                    r#type: src.byte() % 4,
                    data: Some(vec![0xee; 1024 * usize::from(1 + src.byte() % 8)]),
                }]);
            }
        }
        let before = self.client.entities().clone();
        let whole_before = self.client.whole_tick();
        self.report.extreme_ticks += u64::from(d.tick >= u64::MAX - 16);
        let s = self.client.receive(d.clone());
        self.whole_forged |= self.client.whole_tick() != whole_before;
        self.note(&s);
        let _ = self.client.take_acks();
        if s.held {
            self.forged
                .extend(d.updates.iter().map(|u| (u.id, u.spawn_tag)));
        }
        // Applied at once: it released nothing else, so only what it names may change.
        let alone = !s.held && self.client.whole_tick() == whole_before;
        for (id, r) in self.client.entities() {
            let Some(old) = before.get(id) else { continue };
            if old != r {
                let named = d
                    .updates
                    .iter()
                    .any(|u| u.id == *id && u.spawn_tag == spawn_tag(r.spawn_tick));
                if (named && d.frame > old.last_datagram)
                    || self.forged.contains(&(*id, spawn_tag(r.spawn_tick)))
                {
                    // This forgery, or one held before and released by it.
                    self.tainted.insert((*id, r.spawn_tick));
                } else if alone {
                    return Err(format!("a forged datagram changed entity {id} wrongly"));
                }
            }
        }
        self.lied = true;
        // What it released must still be its occupants' states.
        self.check_client()
    }

    fn heal(&mut self) -> Result<(), String> {
        while !self.stream.is_empty() {
            self.client_stream()?;
        }
        for _ in 0..3 {
            self.server_tick(&[])?;
            while !self.stream.is_empty() {
                self.client_stream()?;
            }
            for d in std::mem::take(&mut self.down) {
                self.client_receive(&d)?;
            }
            for a in std::mem::take(&mut self.up) {
                self.server_ack(&a);
            }
        }
        if self.bounded || self.ended {
            // Refused for its byte bound (maybe while healing), or no tick left to send again
            // what was lost: the client cannot converge.
            return Ok(());
        }
        let server: WorldView = self.server.world();
        let client: WorldView = self
            .client
            .entities()
            .iter()
            .map(|(id, r)| (*id, (r.spawn_tick, r.position, r.components.clone())))
            .collect();
        if server != client {
            return Err(format!(
                "the client did not converge:\n server {server:?}\n client {client:?}"
            ));
        }
        if self.client.input_ack() != self.input_ack {
            return Err(format!(
                "input ack {} after healing, the server's is {}",
                self.client.input_ack(),
                self.input_ack
            ));
        }
        self.report.converged = true;
        Ok(())
    }
}

/// A world component's length: mostly 0 to 2 bytes, sometimes kilobytes (a datagram of its
/// own, and past a small component byte bound).
fn blob_len(b: u8) -> usize {
    match b {
        250.. => 256 << (b - 250),
        _ => usize::from(b % 3),
    }
}

/// Runs the script and schedule `data` describes; `Err` names the invariant broken.
pub fn run(data: &[u8]) -> Result<RunReport, String> {
    let mut src = ByteSource::new(data);
    let max_datagram = 40 + usize::from(src.byte());
    let max_held = 8 + usize::from(src.byte() % 32);
    let window = 16 + u64::from(src.byte() % 64);
    // One run in four also meets forged datagrams and acks; independently (the same byte's
    // upper bits), one in four holds components under a bound of a few hundred bytes, and one
    // in four holds datagrams under a bound of a few tens of kilobytes, still room for every
    // datagram of an honest tick (the harness's world is 64 entities at most).
    let mode = src.byte();
    let hostile = mode.is_multiple_of(4);
    let limits = ReplicaLimits {
        max_entities: 64,
        max_held,
        max_component_bytes: if (mode / 4).is_multiple_of(4) {
            4 * (ReplicaLimits::COMPONENT_OVERHEAD + 16) + usize::from(mode / 16)
        } else {
            ReplicaLimits::default().max_component_bytes
        },
        max_held_bytes: if mode / 64 == 0 {
            (32 << 10) + 512 * usize::from(mode % 64)
        } else {
            ReplicaLimits::default().max_held_bytes
        },
    };
    let mut run = Run {
        server: Subscription::new(SubscriptionConfig {
            precision: 0.5,
            max_datagram,
            sent_window: window,
        }),
        client: ReplicaTable::with_limits(limits),
        stream: Default::default(),
        down: Vec::new(),
        up: Vec::new(),
        history: HashSet::new(),
        tainted: HashSet::new(),
        forged: HashSet::new(),
        bounded: false,
        ended: false,
        incarnations: HashSet::new(),
        acks_lied: false,
        whole_forged: false,
        delivered: Vec::new(),
        tick: 0,
        input_ack: 0,
        lied: false,
        report: RunReport::default(),
        limits,
        window,
    };
    let mut steps = 0;
    while !src.done() && steps < 4000 {
        steps += 1;
        match src.byte() % 16 {
            0..=3 => {
                let mut ops = Vec::new();
                let mut alive: HashSet<u64> = (0..8).filter(|i| run.server.contains(*i)).collect();
                for _ in 0..src.byte() % 5 {
                    let id = u64::from(src.byte() % 8);
                    let v = f64::from(src.byte()) - 128.0;
                    let op = match src.byte() % 8 {
                        _ if !alive.contains(&id) => {
                            alive.insert(id);
                            WorldOp::Spawn {
                                id,
                                position: [v, -v, v * 0.5],
                                components: vec![(src.byte() % 3, vec![src.byte()])],
                            }
                        }
                        0 => {
                            alive.remove(&id);
                            WorldOp::Despawn { id }
                        }
                        1..=3 => WorldOp::Move {
                            id,
                            position: [v, if v > 0.0 { v } else { f64::NAN }, 1.0],
                        },
                        4 | 5 => WorldOp::SetComponent {
                            id,
                            r#type: src.byte() % 3,
                            data: vec![src.byte(); blob_len(src.byte())],
                        },
                        6 => WorldOp::RemoveComponent {
                            id,
                            r#type: src.byte() % 3,
                        },
                        _ if src.byte().is_multiple_of(8) => WorldOp::FullFrame,
                        _ => WorldOp::Move {
                            id,
                            position: [v, v, v],
                        },
                    };
                    ops.push(op);
                }
                run.input_ack += u64::from(src.byte() % 3);
                run.server_tick(&ops)?;
            }
            4 | 5 => run.client_stream()?,
            6..=8 => {
                if let Some(i) = src.pick(run.down.len()) {
                    let d = run.down.swap_remove(i);
                    run.client_receive(&d)?;
                    run.delivered.push(d);
                }
            }
            9 => {
                if let Some(i) = src.pick(run.down.len()) {
                    run.down.swap_remove(i);
                }
            }
            10 => {
                if let Some(i) = src.pick(run.down.len()) {
                    let d = run.down[i].clone();
                    run.down.push(d);
                }
            }
            11 | 12 => {
                if let Some(i) = src.pick(run.up.len()) {
                    let a = run.up.swap_remove(i);
                    run.server_ack(&a);
                }
            }
            13 => {
                if let Some(i) = src.pick(run.up.len()) {
                    if src.byte().is_multiple_of(2) {
                        run.up.swap_remove(i);
                    } else {
                        let a = run.up[i].clone();
                        run.up.push(a);
                    }
                }
            }
            n if n == 14 || !hostile => {
                // A stale replay of something already delivered, or garbage.
                if let Some(i) = src.pick(run.delivered.len()) {
                    let d = run.delivered[i].clone();
                    run.client_receive(&d)?;
                } else {
                    let junk: Vec<u8> = (0..src.byte() % 16).map(|_| src.byte()).collect();
                    if let Ok(d) = Datagram::decode(&junk) {
                        // Garbage that decodes is a forged datagram: it may say anything.
                        let before = run.client.entities().clone();
                        run.client.receive(d);
                        let _ = run.client.take_acks();
                        for (id, r) in run.client.entities() {
                            if before.get(id) != Some(r) {
                                run.tainted.insert((*id, r.spawn_tick));
                            }
                        }
                        run.lied = true;
                    }
                    run.check_client()?;
                    if DatagramAck::decode(&junk).is_ok() {
                        run.lied = true;
                        run.acks_lied = true;
                    }
                    run.server_ack(&junk);
                }
            }
            _ => {
                let choice = src.byte();
                if choice.is_multiple_of(2) {
                    run.forge(&mut src)?;
                } else if choice % 4 == 3 {
                    // The world's ticks jump to the end of the u64 range.
                    run.tick = run.tick.max(u64::MAX - 1 - u64::from(src.byte() % 8));
                } else {
                    // A hostile ack: any frame number, any stream tick.
                    let a = DatagramAck {
                        frame: u64::from(src.byte()),
                        stream_tick: u64::from(src.byte() % 16),
                    };
                    run.server.on_ack(&a);
                    run.lied = true;
                    run.acks_lied = true;
                }
            }
        }
        // Keep the client from holding a stream forever far behind: the reliable stream has a
        // bounded backlog in practice.
        if run.stream.len() > 64 {
            run.client_stream()?;
        }
    }
    if !run.lied && !run.bounded {
        run.heal()?;
    }
    Ok(run.report)
}
