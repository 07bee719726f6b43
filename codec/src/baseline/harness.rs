//! A deterministic run of one NetBaseline connection driven by bytes: the world's script, the
//! network's decisions and hostile frames all come from the input. The property tests and the
//! `baseline_stream` fuzz target both call [`run`].
//!
//! Invariants checked:
//! - nothing is applied to the wrong occupant: every entity the client holds is one the server
//!   had (that slot and generation), and each of its components has bits that very entity had
//!   when a snapshot was written;
//! - memory is bounded: at most ACK_WINDOW + 1 snapshots are held unconfirmed, the client
//!   holds at most its entity limit, and the writer is owed at most its
//!   [`BaselineLimits::max_owed_lost`] lost entities (plus what died since its last snapshot)
//!   however long its client stays silent, stalling past it: some runs give it a small limit and
//!   a client whose acknowledgements never arrive while the world churns, and drop the
//!   connection the writer reports stalled (a fresh writer and client, as a reconnect);
//! - a write looks at no more entities than the world holds plus one snapshot's lost ones,
//!   however many died before it ([`NetBaseline::examined`]);
//! - once the network heals, the client's table equals the world (unless the input forged
//!   acknowledgements, which may claim what never arrived).

use super::*;
use crate::protocol::{
    Snapshot, SnapshotAck, Team, Transform, Vitality, ACK_WINDOW, MAX_LOST_PER_SNAPSHOT,
};
use crate::{Frame, LimitError};
use ackwire_sim::ByteSource;
use std::collections::HashSet;

/// What a run saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Snapshots written.
    pub written: u64,
    /// Snapshots the client applied.
    pub applied: u64,
    /// Snapshots dropped as stale.
    pub stale: u64,
    /// Lost entities removed on the client.
    pub removed: u64,
    /// Whether the convergence check ran.
    pub converged: bool,
    /// Connections dropped because the writer reported them stalled.
    pub stalled: u64,
}

const MAX_ENTITIES: usize = 32;
/// Slots of the harness's world: at most this many entities live at once.
const SLOTS: u32 = 16;

/// A table as (slot, generation, each component's bits) rows.
type Rows = Vec<(u32, u8, Vec<Option<Vec<u8>>>)>;

struct Run {
    scene: Scene,
    budget: usize,
    limits: BaselineLimits,
    writer: SnapshotWriter,
    client: SnapshotClient,
    down: Vec<Vec<u8>>,
    up: Vec<Vec<u8>>,
    history: HashSet<(EntityId, usize, Vec<u8>)>,
    alive_ever: HashSet<EntityId>,
    generations: [u8; SLOTS as usize],
    lied: bool,
    forged: bool,
    report: RunReport,
}

impl Run {
    fn write(&mut self) -> Result<(), String> {
        for (id, e) in self.scene.iter() {
            self.alive_ever.insert(id);
            for (t, c) in e.components.iter().enumerate() {
                if let Some((_, bits)) = c {
                    self.history.insert((id, t, bits.clone()));
                }
            }
        }
        let examined = self.writer.baseline().examined();
        let result = self.writer.write(&self.scene);
        // What gather_lost may look at: the entities told about and alive at the last write
        // (at most one a slot), the lost ones it names, and any it finds alive again on the way.
        let bound = 2 * u64::from(SLOTS) + u64::from(MAX_LOST_PER_SNAPSHOT);
        if self.writer.baseline().examined() - examined > bound {
            return Err(format!(
                "a write looked at {} entities, more than the world and one snapshot's lost",
                self.writer.baseline().examined() - examined
            ));
        }
        let s = match result {
            Ok(s) => s,
            Err(LimitError::BaselineStalled {
                owed,
                max_owed_lost,
                ..
            }) if owed > max_owed_lost => {
                // The game drops the stalled connection; its client comes back from nothing.
                self.reconnect();
                return Ok(());
            }
            Err(e) => return Err(format!("the writer refused wrongly: {e}")),
        };
        self.report.written += 1;
        self.down.push(
            s.to_bytes()
                .map_err(|e| format!("a snapshot did not encode: {e}"))?,
        );
        if self.writer.baseline().pending() > usize::from(ACK_WINDOW) + 1 {
            return Err("more snapshots held than the window".into());
        }
        Ok(())
    }

    fn reconnect(&mut self) {
        self.report.stalled += 1;
        let next = self.writer.next_sequence();
        self.writer = SnapshotWriter::new(Some(1), self.budget, next).with_limits(self.limits);
        self.client = SnapshotClient::new(MAX_ENTITIES);
        self.down.clear();
        self.up.clear();
    }

    fn receive(&mut self, bytes: &[u8]) -> Result<(), String> {
        if let Ok(s) = Snapshot::decode(bytes) {
            let sum = self.client.receive(&s);
            self.report.applied += u64::from(sum.applied);
            self.report.stale += u64::from(sum.stale);
            self.report.removed += u64::from(sum.removed);
        }
        for a in self.client.take_acks() {
            self.up.push(a.to_bytes().map_err(|e| e.to_string())?);
        }
        self.check()
    }

    fn ack(&mut self, bytes: &[u8]) {
        if let Ok(a) = SnapshotAck::decode(bytes) {
            self.writer.on_ack(&a);
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.client.entities().len() > MAX_ENTITIES {
            return Err("the client holds more entities than its limit".into());
        }
        // Owed at most the limit after a write, and a stalled write moves at most the live
        // entities told about into what is owed.
        if self.writer.baseline().told() > self.limits.max_owed_lost + SLOTS as usize {
            return Err(format!(
                "the writer keeps {} entities, past its limit of {} owed",
                self.writer.baseline().told(),
                self.limits.max_owed_lost
            ));
        }
        if self.forged {
            // A well-formed forged snapshot may say anything; only bounds hold after it.
            return Ok(());
        }
        for (slot, e) in self.client.entities() {
            let id = EntityId {
                slot: *slot,
                generation: e.generation,
            };
            if !self.alive_ever.contains(&id) {
                return Err(format!("the client holds {id:?}, which never lived"));
            }
            for (t, c) in e.components.iter().enumerate() {
                let Some(c) = c else { continue };
                let bits = ReferenceBaseline::bits(c).map_err(|e| e.to_string())?;
                if !self.history.contains(&(id, t, bits)) {
                    return Err(format!(
                        "the client holds component {t} of {id:?} with bits that entity never had"
                    ));
                }
            }
        }
        Ok(())
    }

    fn heal(&mut self) -> Result<(), String> {
        for a in std::mem::take(&mut self.up) {
            self.ack(&a);
        }
        let mut last = String::new();
        for _ in 0..(usize::from(ACK_WINDOW) * 2 + 8) {
            self.write()?;
            for d in std::mem::take(&mut self.down) {
                self.receive(&d)?;
            }
            for a in std::mem::take(&mut self.up) {
                self.ack(&a);
            }
            match self.compare() {
                Ok(()) => {
                    self.report.converged = true;
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn compare(&self) -> Result<(), String> {
        let world: Rows = self
            .scene
            .iter()
            .map(|(id, e)| {
                (
                    id.slot,
                    id.generation,
                    e.components
                        .iter()
                        .map(|c| c.as_ref().map(|c| c.1.clone()))
                        .collect(),
                )
            })
            .collect();
        let client: Rows = self
            .client
            .entities()
            .iter()
            .map(|(slot, e)| {
                (
                    *slot,
                    e.generation,
                    e.components
                        .iter()
                        .map(|c| c.as_ref().and_then(|c| ReferenceBaseline::bits(c).ok()))
                        .collect(),
                )
            })
            .collect();
        if world != client {
            return Err(format!(
                "the client did not converge:\n world  {world:?}\n client {client:?}"
            ));
        }
        Ok(())
    }
}

/// Runs the script and schedule `data` describes; `Err` names the invariant broken.
pub fn run(data: &[u8]) -> Result<RunReport, String> {
    let mut src = ByteSource::new(data);
    // Budgets from a single entry's worth up; sequences start anywhere, so runs cross the wrap.
    let budget = 30 + usize::from(src.byte()) * 2;
    let first = u16::from_le_bytes([src.byte(), src.byte()]);
    let mode = src.byte();
    let hostile = mode.is_multiple_of(4);
    // A client whose acknowledgements never arrive while the world churns: with a small limit
    // the writer must stall rather than keep every entity that died (issue 13).
    let silent = mode % 8 == 6;
    let limits = if silent {
        BaselineLimits {
            max_owed_lost: usize::from(src.byte() % 32),
        }
    } else {
        BaselineLimits::default()
    };
    let mut run = Run {
        scene: Scene::new(),
        budget,
        limits,
        writer: SnapshotWriter::new(Some(1), budget, first).with_limits(limits),
        client: SnapshotClient::new(MAX_ENTITIES),
        down: Vec::new(),
        up: Vec::new(),
        history: HashSet::new(),
        alive_ever: HashSet::new(),
        generations: [0; SLOTS as usize],
        lied: false,
        forged: false,
        report: RunReport::default(),
    };
    let mut steps = 0;
    while !src.done() && steps < 4000 {
        steps += 1;
        match src.byte() % 16 {
            0..=2 => {
                for _ in 0..src.byte() % 4 {
                    let slot = u32::from(src.byte()) % SLOTS;
                    let v = f64::from(src.byte());
                    match src.byte() % 8 {
                        0 | 1 => {
                            // A new occupant (a slot reused at once, sometimes).
                            let g = &mut run.generations[slot as usize];
                            *g = g.wrapping_add(1);
                            let id = EntityId {
                                slot,
                                generation: *g,
                            };
                            let owner = (src.byte().is_multiple_of(3)).then_some(1);
                            run.scene.spawn(id, owner).map_err(|e| e.to_string())?;
                            let _ = run
                                .scene
                                .set(slot, ComponentValue::Health(Vitality { hp: 100 }));
                        }
                        2 => {
                            run.scene.despawn(slot);
                        }
                        3 | 4 => {
                            let _ = run.scene.set(
                                slot,
                                ComponentValue::Transform(Transform {
                                    x: v,
                                    y: -v,
                                    z: 0.5,
                                    yaw: 90.0,
                                }),
                            );
                        }
                        5 => {
                            let _ = run.scene.set(
                                slot,
                                ComponentValue::Health(Vitality {
                                    hp: src.byte() % 128,
                                }),
                            );
                        }
                        6 => {
                            let _ = run.scene.set(
                                slot,
                                ComponentValue::Team(Team {
                                    team: src.byte() % 8,
                                }),
                            );
                        }
                        _ => {
                            // The world replaced under the live session, on both sides.
                            if src.byte().is_multiple_of(8) {
                                run.scene = Scene::new();
                                run.writer.replace_world();
                                run.client.replace_world(run.writer.next_sequence());
                            }
                        }
                    }
                }
                run.write()?;
            }
            3..=6 => {
                if let Some(i) = src.pick(run.down.len()) {
                    let d = run.down.swap_remove(i);
                    run.receive(&d)?;
                }
            }
            7 => {
                if let Some(i) = src.pick(run.down.len()) {
                    if src.byte().is_multiple_of(2) {
                        run.down.swap_remove(i);
                    } else {
                        let d = run.down[i].clone();
                        run.down.push(d);
                    }
                }
            }
            8..=10 => {
                if let Some(i) = src.pick(run.up.len()) {
                    let a = run.up.swap_remove(i);
                    if !silent {
                        run.ack(&a);
                    }
                }
            }
            11 => {
                if let Some(i) = src.pick(run.up.len()) {
                    if src.byte().is_multiple_of(2) {
                        run.up.swap_remove(i);
                    } else {
                        let a = run.up[i].clone();
                        run.up.push(a);
                    }
                }
            }
            12 | 13 if !hostile => {
                // A long stall: many snapshots written, none delivered.
                for _ in 0..src.byte() % 80 {
                    run.write()?;
                    run.down.clear();
                }
            }
            12 | 13 => {
                // Garbage both ways.
                let junk: Vec<u8> = (0..src.byte() % 24).map(|_| src.byte()).collect();
                let mut framed = vec![8];
                framed.extend_from_slice(&junk);
                if Snapshot::decode(&framed).is_ok() {
                    run.lied = true;
                    run.forged = true;
                }
                run.receive(&framed)?;
                run.ack(&junk);
            }
            _ => {
                if hostile {
                    // A forged acknowledgement of any sequence.
                    let sequence = u16::from_le_bytes([src.byte(), src.byte()]);
                    run.writer.on_ack(&SnapshotAck { sequence });
                    run.lied = true;
                } else {
                    run.write()?;
                }
            }
        }
        if run.down.len() > 256 {
            run.down.drain(..128);
        }
    }
    if !run.lied {
        run.heal()?;
    }
    Ok(run.report)
}
