//! CODE-2 and CODE-3 proved independently of the coder: a test-only coded schema, [`Probe`],
//! whose frames are kind 12's with the `older` byte and, for every change, a digest of the
//! records its basis gives, so that a client whose basis differs from the server's refuses the
//! frame. Run through the harness under loss, duplication and reordering, every frame the
//! client applies was decoded against the server's basis; older snapshots are named; a frame
//! whose older snapshot the client does not hold is dropped and counted.

use super::harness::{from_seed, run_schema_with, Shape};
use super::*;
use crate::protocol::{Change, EntityState, Event, Input, StateFlags};
use crate::BitSet;
use std::cell::Cell;

/// What the probe's decoder checked on this thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Checked {
    /// Frames read against a basis that names an older snapshot.
    frames_with_older: u64,
    /// Changes whose basis digest matched.
    changes: u64,
    /// Of those, changes of an entity held in both the base and the older snapshot.
    in_both: u64,
}

thread_local! {
    static CHECKED: Cell<Checked> = const { Cell::new(Checked { frames_with_older: 0, changes: 0, in_both: 0 }) };
}

fn take_checked() -> Checked {
    CHECKED.with(|c| c.replace(Checked::default()))
}

/// Kind 12's frames with a coded frame's basis made visible: `u8 older | u32 len | len bytes
/// of kind 12 | u32 digest × changed_count`, a digest being FNV-1a of the change's id and the
/// records its basis gives (base, then older when `older` is not 0). `HELD` is its HELD_RING
/// (64, the protocol's, unless a test shrinks it under SENT_RING to make older snapshots go).
#[derive(Debug, Clone, Copy, Default)]
struct Probe<const HELD: usize = 64>;

fn digest(eid: u16, base: Option<EntityState>, older: Option<EntityState>) -> u32 {
    let mut buf = eid.to_le_bytes().to_vec();
    for r in [base, older] {
        buf.push(u8::from(r.is_some()));
        if let Some(r) = r {
            PackedReference.write_record(&r, &mut buf);
        }
    }
    crate::rt::fnv1a32(&buf)
}

fn bad(at: usize, field: &'static str) -> DecodeError {
    DecodeError::new(ErrorKind::InvalidCondition, at).field(field)
}

impl<const HELD: usize> Probe<HELD> {
    /// The older byte, the kind 12 frame and the digests; the digests held to `basis` when
    /// there is one.
    fn read(
        bytes: &[u8],
        basis: Option<&dyn CodedBasis<EntityState>>,
    ) -> Result<(u8, FrameOf<Self>), DecodeError> {
        let older = *bytes.first().ok_or_else(|| bad(0, "older"))?;
        let len = bytes
            .get(1..5)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| bad(1, "len"))?;
        let packed = bytes.get(5..5 + len).ok_or_else(|| bad(1, "len"))?;
        let frame = PackedReference.decode_frame(packed)?;
        if frame.keyframe && older != 0 {
            return Err(bad(0, "older"));
        }
        let digests = &bytes[5 + len..];
        if digests.len() != 4 * frame.changes.len() {
            return Err(bad(5 + len, "digests"));
        }
        let mut checked = CHECKED.with(Cell::get);
        checked.frames_with_older += u64::from(basis.is_some() && older != 0);
        for (i, (c, d)) in frame.changes.iter().zip(digests.chunks(4)).enumerate() {
            let Some(basis) = basis else { continue };
            let base = basis.base(c.eid);
            let old = if older == 0 { None } else { basis.older(c.eid) };
            if digest(c.eid, base, old).to_le_bytes() != d {
                return Err(bad(5 + len + 4 * i, "basis"));
            }
            checked.changes += 1;
            checked.in_both += u64::from(base.is_some() && old.is_some());
        }
        CHECKED.with(|c| c.set(checked));
        Ok((older, frame))
    }
}

impl<const HELD: usize> AckedSchema for Probe<HELD> {
    type Record = EntityState;
    type Change = Change;
    type Event = Event;
    type Input = Input;
    type Staged = StagedChange;
    type Slot = EntityStateSlot;

    fn held_ring(&self) -> usize {
        HELD
    }
    fn diff(
        &self,
        eid: u16,
        base: Option<&EntityState>,
        next: &EntityState,
        tick: u32,
    ) -> Result<Option<Change>, EncodeError> {
        PackedReference.diff(eid, base, next, tick)
    }
    fn change_eid(&self, change: &Change) -> u16 {
        PackedReference.change_eid(change)
    }
    fn apply(
        &self,
        base: Option<&EntityState>,
        change: &Change,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        PackedReference.apply(base, change, tick)
    }
    fn write_record(&self, record: &EntityState, out: &mut Vec<u8>) {
        PackedReference.write_record(record, out)
    }
    fn measured(&self, record: &EntityState) -> Option<u32> {
        PackedReference.measured(record)
    }
    fn pose_full(&self, record: &EntityState) -> Option<bool> {
        PackedReference.pose_full(record)
    }
    fn encode_frame(&self, frame: &FrameOf<Self>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.encode_frame_on(frame, 0, &NoBasis, out)
    }
    fn decode_frame(&self, bytes: &[u8]) -> Result<FrameOf<Self>, DecodeError> {
        Ok(Self::read(bytes, None)?.1)
    }
    fn encode_ack(&self, ack: &AckContent<Input>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        PackedReference.encode_ack(ack, out)
    }
    fn decode_ack(&self, bytes: &[u8]) -> Result<AckContent<Input>, DecodeError> {
        PackedReference.decode_ack(bytes)
    }
    fn input_tick(&self, input: &Input) -> u32 {
        PackedReference.input_tick(input)
    }
    fn stage(&self, change: &Change) -> StagedChange {
        PackedReference.stage(change)
    }
    fn staged_eid(&self, staged: &StagedChange) -> u16 {
        PackedReference.staged_eid(staged)
    }
    fn apply_staged(
        &self,
        base: Option<&EntityState>,
        staged: &StagedChange,
        tick: u32,
    ) -> Result<EntityState, Inapplicable> {
        PackedReference.apply_staged(base, staged, tick)
    }

    fn coded(&self) -> bool {
        true
    }
    fn read_basis(&self, bytes: &[u8]) -> Result<CodedBasisTicks, DecodeError> {
        let (older, f) = Self::read(bytes, None)?;
        Ok(CodedBasisTicks {
            tick: f.tick,
            base_tick: f.base_tick,
            keyframe: f.keyframe,
            older,
        })
    }
    fn encode_frame_on(
        &self,
        frame: &FrameOf<Self>,
        older: u8,
        basis: &dyn CodedBasis<EntityState>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        assert!(
            !(frame.keyframe && older != 0),
            "CODE-2: a keyframe names no older"
        );
        let mut packed = Vec::new();
        PackedReference.encode_frame(frame, &mut packed)?;
        out.push(older);
        out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        out.extend_from_slice(&packed);
        for c in &frame.changes {
            let old = if older == 0 { None } else { basis.older(c.eid) };
            out.extend_from_slice(&digest(c.eid, basis.base(c.eid), old).to_le_bytes());
        }
        Ok(())
    }
    fn decode_frame_on(
        &self,
        bytes: &[u8],
        basis: &dyn CodedBasis<EntityState>,
    ) -> Result<FrameOf<Self>, DecodeError> {
        Ok(Self::read(bytes, Some(basis))?.1)
    }
}

/// Inputs kept, never run: the stream's invariant holds whatever is done with them.
#[derive(Debug, Default)]
struct Sink(usize);

impl InputSink for Sink {
    type Input = Input;
    fn submit(&mut self, _seq: u32, _tick: u32, _input: Input, _current: u64) {
        self.0 += 1;
    }
    fn pending(&self) -> usize {
        self.0.min(3)
    }
}

/// CODE-2, CODE-3 under loss, duplication and reordering: every frame the client applies was
/// read against the records the server encoded it against (the probe refuses it otherwise, and
/// the harness fails on a refused frame), the client shows the ordered client's states, older
/// snapshots are named and found, and with HELD_RING above SENT_RING (ACK-1) none is missing.
#[test]
fn every_frame_applied_had_the_servers_basis_under_loss_dup_and_reordering() {
    take_checked();
    let mut older_dropped = 0;
    for seed in 0..24u64 {
        let shape = Shape {
            loss: [0.1, 0.25, 0.45][seed as usize % 3],
            duplicate: 0.1,
            jitter: [1, 3, 8][seed as usize % 3],
            ..Shape::default()
        };
        let s = from_seed(shape, seed);
        let out = run_schema_with::<Probe, Sink>(&s, Sink::default(), |_, _| {}, seed % 2 == 1)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(out.shown > 0 && out.dropped > 0, "seed {seed}: {out:?}");
        assert!(out.older_named > 0, "seed {seed}: {out:?}");
        older_dropped += out.dropped_older;
    }
    let checked = take_checked();
    assert!(
        checked.frames_with_older > 1000 && checked.in_both > 1000,
        "older snapshots hardly named: {checked:?}"
    );
    assert_eq!(older_dropped, 0, "ACK-1 keeps every older snapshot held");
}

/// CODE-3 when the client lets older snapshots go: with HELD_RING at 6, under SENT_RING (a
/// client ACK-1 forbids), frames whose older snapshot it no longer holds are dropped and
/// counted, and the stream still shows only the ordered client's states and converges.
#[test]
fn frames_whose_older_snapshot_is_gone_are_dropped_and_counted() {
    let mut older_dropped = 0;
    for seed in 0..24u64 {
        let shape = Shape {
            loss: 0.3,
            duplicate: 0.1,
            jitter: 6,
            ..Shape::default()
        };
        let s = from_seed(shape, seed);
        let out = run_schema_with::<Probe<6>, Sink>(&s, Sink::default(), |_, _| {}, false)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(out.dropped >= out.dropped_older);
        older_dropped += out.dropped_older;
    }
    assert!(older_dropped > 0, "no frame lost its older snapshot");
}

fn record(x: i32) -> EntityState {
    let mut flags = StateFlags::empty();
    flags.set(StateFlags::POSE_FULL, true);
    EntityState {
        x,
        y: 0,
        z: 0,
        yaw: 0,
        flags,
        measured: 0,
        hp: 1,
        armor: 0,
        vehicle: 0,
        seat: 0,
        orient: None,
    }
}

fn world(tick: u32) -> ServerState<EntityState> {
    [(1u16, 1u32), (2, 1)]
        .into_iter()
        .map(|(eid, life)| {
            let mut r = record(512 * tick as i32 * i32::from(eid));
            r.measured = tick;
            (eid, Entry { life, record: r })
        })
        .collect()
}

/// CODE-3, step by step: the client holds 3 frames; frame 5 goes onto frame 2, which it still
/// holds, naming frame 1, which it let go: dropped as a frame without its base is, counted
/// apart, the acknowledgement unchanged.
#[test]
fn a_frame_whose_older_snapshot_is_not_held_is_dropped_before_its_changes_are_read() {
    let mut enc = AckedEncoder::<Probe<3>, Sink>::with_schema(Probe, Sink::default());
    let mut dec = AckedDecoder::with_schema(Probe::<3>);
    let mut olders = Vec::new();
    for t in 1..=5u32 {
        let out = enc.encode(t, world(t), []).unwrap();
        olders.push(out.bytes[0]);
        let shown = matches!(dec.deliver(&out.bytes), Delivery::Shown(_));
        assert_eq!(shown, t < 5, "tick {t}");
        if t <= 2 {
            enc.on_ack(u64::from(t), dec.ack_tick(), false, 0, []);
        }
    }
    // Frames 3 to 5 go onto 2 and name 1, the frame before it the client acknowledged.
    assert_eq!(olders, [0, 0, 1, 1, 1]);
    let c = dec.counters();
    assert_eq!((c.applied, c.unknown_base, c.unknown_older), (4, 1, 1));
    assert_eq!(dec.ack_tick(), 4);
    assert_eq!(enc.counters().older_named, 3);
}

/// CODE-2 on the server: the older snapshot is the newest acknowledged frame before the base,
/// an acknowledgement too old to move the base counting; none past 255 ticks; none for a
/// keyframe, and none acknowledged before a keyframe request.
#[test]
fn the_older_snapshot_is_the_newest_acknowledged_frame_within_255_ticks_before_the_base() {
    let mut enc = AckedEncoder::<Probe, Sink>::with_schema(Probe, Sink::default());
    let older = |enc: &mut AckedEncoder<Probe, Sink>, t: u32| {
        let out = enc.encode(t, world(t), []).unwrap();
        (out.frame.keyframe, out.frame.base_tick, out.bytes[0])
    };
    for t in 1..=4 {
        older(&mut enc, t);
    }
    // Acks of 3 then, reordered, 1: the base is 3, and 1 is acknowledged too.
    enc.on_ack(4, 3, false, 0, []);
    assert_eq!(enc.on_ack(4, 1, false, 0, []), AckVerdict::Old);
    assert_eq!(older(&mut enc, 5), (false, 3, 2));
    // The ack of 2, late: the newest acknowledged before the base now.
    enc.on_ack(5, 2, false, 0, []);
    assert_eq!(older(&mut enc, 6), (false, 3, 1));
    // 254 ticks before the base, 3 is still named; 256 ticks before it, 1 is not.
    assert_eq!(older(&mut enc, 257), (false, 3, 1));
    enc.on_ack(257, 257, false, 0, []);
    assert_eq!(older(&mut enc, 258), (false, 257, 254));
    enc.on_ack(258, 258, false, 0, []);
    assert_eq!(older(&mut enc, 259), (false, 258, 1));
    let mut far = AckedEncoder::<Probe, Sink>::with_schema(Probe, Sink::default());
    older(&mut far, 1);
    far.on_ack(1, 1, false, 0, []);
    older(&mut far, 257);
    far.on_ack(257, 257, false, 0, []);
    assert_eq!(older(&mut far, 258), (false, 257, 0));
    // A keyframe request: keyframes, naming nothing, then frames whose older snapshot is
    // acknowledged after the request only.
    enc.on_ack(259, 0, true, 0, []);
    assert_eq!(older(&mut enc, 260), (true, 0, 0));
    enc.on_ack(260, 260, false, 0, []);
    assert_eq!(older(&mut enc, 261), (false, 260, 0));
    enc.on_ack(261, 261, false, 0, []);
    assert_eq!(older(&mut enc, 262), (false, 261, 1));
}

/// A coded frame's basis costs its changes times the frames after its older snapshot, on both
/// sides, never the world: the same 16 movers among 64 and among 8,192 entities, acknowledged
/// 4 ticks late so that every frame names a base and an older snapshot; the frames searched
/// for the basis records are the same counts in both worlds, and at most two lookups per
/// change, each through the frames after the older snapshot and the live state.
#[test]
fn a_coded_frames_basis_costs_its_changes_never_the_world() {
    let moving = 16u16;
    let mut counts = Vec::new();
    for n in [64u16, 8192] {
        let mut enc = AckedEncoder::<Probe, Sink>::with_schema(Probe, Sink::default());
        let mut dec = AckedDecoder::with_schema(Probe::<64>);
        let mut per_frame = Vec::new();
        take_checked();
        for t in 1..=60u32 {
            let state: ServerState<EntityState> = (0..n)
                .map(|eid| {
                    let t = if eid < moving { t } else { 1 };
                    let mut r = record(i32::from(eid) * 8 + t as i32);
                    r.measured = t;
                    (eid, Entry { life: 1, record: r })
                })
                .collect();
            if t > 4 {
                enc.on_ack(u64::from(t), t - 4, false, 0, []);
            }
            super::moves::take_probed();
            let out = enc.encode(t, state, []).unwrap();
            let sent = super::moves::take_probed();
            let shown = matches!(dec.deliver(&out.bytes), Delivery::Shown(_));
            let got = super::moves::take_probed();
            assert!(shown, "frame {t}");
            if t > 10 {
                let older = u64::from(out.bytes[0]);
                assert!(older > 0, "frame {t} names no older snapshot");
                let most = 2 * out.frame.changes.len() as u64 * (4 + older + 2);
                assert!(
                    sent <= most && got <= most,
                    "frame {t}: {sent} and {got} searches for {} changes",
                    out.frame.changes.len()
                );
                per_frame.push((sent, got));
            }
        }
        assert!(take_checked().in_both > 0);
        counts.push(per_frame);
    }
    assert_eq!(counts[0], counts[1], "the world's size changed the work");
}

/// The end-to-end proof of kind 13 (docs/spec/coded.md) over the machines: the generated
/// `CodedReference`, its changes range-coded against each frame's base and older snapshot,
/// under loss, duplication and reordering, the entities turning as they move so that the
/// orientation's `coded base` is exercised: every state the client shows is the ordered
/// client's, every check passes (the harness fails on either), older snapshots are named, and
/// none a client acknowledged is missing (ACK-1).
#[test]
fn coded_reference_shows_the_ordered_clients_states_under_loss_dup_and_reordering() {
    let (mut shown, mut older_named, mut older_dropped) = (0, 0, 0);
    for seed in 0..24u64 {
        let shape = Shape {
            ticks: 150,
            entities: 16,
            loss: [0.1, 0.25, 0.45][seed as usize % 3],
            duplicate: 0.1,
            jitter: [1, 3, 8][seed as usize % 3],
            ..Shape::default()
        };
        let s = from_seed(shape, seed);
        let out =
            run_schema_with::<CodedReference, Sink>(&s, Sink::default(), |_, _| {}, seed % 4 != 0)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(out.shown > 0, "seed {seed}: {out:?}");
        shown += out.shown;
        older_named += out.older_named;
        older_dropped += out.dropped_older;
    }
    assert!(
        shown > 1000 && older_named > 1000,
        "{shown} shown, {older_named} named an older snapshot"
    );
    assert_eq!(older_dropped, 0);
}

/// Hostile coded frames: every frame of a lossless `CodedReference` stream, each byte in turn
/// flipped and each prefix cut off, delivered to the client that holds the bases they name.
/// Nothing panics and each delivery is counted once; the genuine stream, beside, shows the
/// server's states with older snapshots named.
#[test]
fn damaged_coded_frames_are_refused_or_dropped_never_a_panic() {
    let s = from_seed(
        Shape {
            ticks: 40,
            entities: 8,
            ..Shape::default()
        },
        7,
    );
    let (mut world, mut lives) = (World::new(), std::collections::BTreeMap::new());
    let mut presenter = Presenter::new(s.view.clone());
    let mut enc = AckedEncoder::<CodedReference, Sink>::new(Sink::default());
    let mut dec = AckedDecoder::<CodedReference>::new();
    for (t, ops) in (1u32..).zip(&s.script) {
        let events = super::harness::apply_ops(&mut world, &mut lives, ops);
        let state = presenter.present(t, &world);
        let out = enc.encode(t, state.clone(), events).unwrap();
        let delivered = dec.counters().applied;
        for i in 0..out.bytes.len() {
            let mut bad = out.bytes.clone();
            bad[i] ^= 0x5a;
            let mut probe = dec.clone();
            let _ = probe.deliver(&bad);
            let _ = probe.deliver(&out.bytes[..i]);
            let c = probe.counters();
            assert_eq!(
                c.applied + c.stale + c.unknown_base + c.undecodable + c.inapplicable,
                delivered + 2,
                "tick {t}, byte {i}"
            );
        }
        assert!(
            matches!(dec.deliver(&out.bytes), Delivery::Shown(_)),
            "tick {t}"
        );
        assert_eq!(
            dec.shown().map(|(_, s)| s.to_state()),
            Some(client_view(&state))
        );
        if t > 3 {
            enc.on_ack(u64::from(t), t - 2, false, 0, []);
        }
    }
    assert!(enc.counters().older_named > 10);
}

/// `AckedEncoder::basis_of` gives, after a frame was sent, the records it was predicted from:
/// the frame's bytes read against it are the frame sent, older snapshot and all, while a
/// basis the ticks do not name (a base no longer kept) is none.
#[test]
fn the_basis_of_a_sent_frame_reads_it_back() {
    let s = from_seed(
        Shape {
            ticks: 60,
            entities: 12,
            ..Shape::default()
        },
        3,
    );
    let (mut world, mut lives) = (World::new(), std::collections::BTreeMap::new());
    let mut presenter = Presenter::new(s.view.clone());
    let mut enc = AckedEncoder::<CodedReference, Sink>::new(Sink::default());
    let schema = CodedReference;
    let mut named = 0;
    for (t, ops) in (1u32..).zip(&s.script) {
        let events = super::harness::apply_ops(&mut world, &mut lives, ops);
        let state = presenter.present(t, &world);
        let out = enc.encode(t, state, events).unwrap();
        let ticks = schema.read_basis(&out.bytes).unwrap();
        named += u32::from(ticks.older != 0);
        {
            let basis = enc
                .basis_of(&ticks)
                .expect("the base of a frame just sent is kept");
            assert_eq!(
                schema.decode_frame_on(&out.bytes, &basis).unwrap(),
                out.frame,
                "tick {t}"
            );
        }
        let gone = CodedBasisTicks {
            base_tick: t + 1,
            keyframe: false,
            ..ticks
        };
        assert!(enc.basis_of(&gone).is_none());
        if t > 3 {
            enc.on_ack(u64::from(t), t - 2, false, 0, []);
        }
    }
    assert!(named > 40, "{named}");
}
