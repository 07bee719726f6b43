//! The one sans-IO shape of every session half, in the manner of `quinn-proto`'s `Connection`:
//! input goes in with the time as an argument ([`SessionHalf::handle_frame`] for a peer's frame,
//! [`SessionHalf::handle_tick`] for a tick passing), output is returned (a report of what the frame
//! did) or polled ([`SessionHalf::poll_transmit`], until `None`). Nothing here opens a socket or
//! reads a clock (GEN-4).
//!
//! **Time** is a [`Now`]: the server tick (`tick`, the tick a half is at, which for a frame is
//! the newest tick it has passed) and milliseconds on the session's own clock (`ms`, what
//! flow control and stalls are measured in). Each machine reads the one it needs: the acked
//! halves and the datagram server ticks, the delta halves milliseconds; the others neither.
//!
//! **Errors** are the codec's ([`SessionError`]: a frame that does not decode, a frame this half
//! does not take, an encoder's refusal, a limit, a world's refusal), never text.
//!
//! The halves ([`AckedServer`], [`AckedClient`], [`DatagramServer`], [`DatagramClient`],
//! [`BaselineServer`], [`BaselineClient`], [`DeltaServer`], [`DeltaClient`]) are thin: each
//! holds its machine (reachable through `machine()`/`machine_mut()` for its lower-level,
//! typed-frame methods) and the frames it has yet to hand out.

use crate::acked::{
    AckVerdict, AckWriter, AckedDecoder, AckedEncoder, AckedSchema, Delivery, EncoderCounters,
    InputSink, Presenter, Reference, World, WorldChanges,
};
use crate::baseline::{
    BaselineSchema, ReferenceBaseline, Scene, SnapshotClient, SnapshotSummary, SnapshotWriter,
};
use crate::datagram::{
    AckSummary, DatagramSchema, DatagramSummary, ReferenceDatagram, ReplicaTable, StreamFrame,
    Subscription, WorldError, WorldOp,
};
use crate::delta::{
    Applied, DeltaAckFrame, DeltaBaseline, DeltaMirror, DeltaSchema, PlanFrame, ReferenceDelta,
};
use crate::protocol::{EntityState, Event, Input};
use crate::rt::Frame;
use crate::{DecodeError, EncodeError, LimitError};
use std::collections::{BTreeSet, VecDeque};
use std::marker::PhantomData;

/// When an input happens: the server tick and milliseconds on the session's clock. Both are
/// the caller's; a half reads the one its machine is defined in (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Now {
    /// The server tick: for [`SessionHalf::handle_tick`] the tick passing, for
    /// [`SessionHalf::handle_frame`] the newest tick passed.
    pub tick: u64,
    /// Milliseconds on the session's clock.
    pub ms: u64,
}

impl Now {
    /// Tick `tick` at `ms` milliseconds.
    pub const fn new(tick: u64, ms: u64) -> Self {
        Self { tick, ms }
    }
}

/// A frame a half wants sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// The frame's name in the spec.
    pub frame: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether it goes on the reliable channel (GEN-7: delivered once, in order) or the unreliable
    /// one.
    pub reliable: bool,
}

/// Why a half refused an input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The frame does not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// This half does not take frames of this name.
    #[error("unexpected frame `{0}`")]
    UnexpectedFrame(String),
    /// A frame the half would send does not encode.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A peer pushed the machine past one of its limits.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// The world refused an operation or the tick.
    #[error(transparent)]
    World(#[from] WorldError),
    /// The tick does not fit the wire's u32 ticks.
    #[error("ticks are u32 on the wire")]
    TickRange,
    /// A world op given to a half that has no world (a client half).
    #[error("the client half takes no world ops")]
    NoWorld,
}

/// One half of a session, client or server: the one shape every machine is driven through.
pub trait SessionHalf {
    /// What a tick takes: the world as the server presents it (`()` for a half with none, the
    /// player's input for the acked client).
    type Tick<'a>;
    /// What handling a frame reports.
    type Report<'a>
    where
        Self: 'a;

    /// The peer's frame `frame` (its name in the spec) arrives at `now`.
    fn handle_frame(
        &mut self,
        now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<Self::Report<'_>, SessionError>;

    /// Tick `now.tick` passes with `input`; what the half sends because of it is polled.
    fn handle_tick(&mut self, now: Now, input: Self::Tick<'_>) -> Result<(), SessionError>;

    /// The next frame to send, in order; `None` when there is none (until the next input).
    fn poll_transmit(&mut self) -> Option<Transmit>;
}

/// The most frames a half holds for [`SessionHalf::poll_transmit`].
///
/// A peer can make a half queue frames: a client answers every frame it is sent with an ack, so a
/// hostile server sending faster than the caller polls would grow the queue without end. A caller
/// that polls after each input holds a few at most. GEN-8: past the limit the oldest unreliable
/// frame is dropped, as the lossy transport these protocols are built for may drop it: every ack is
/// superseded by the next, and every unreliable frame is one the peer is built to do without.
/// Reliable frames (the datagram stream's) come from the half's own ticks, not from the peer, and
/// are never dropped.
pub const MAX_QUEUED: usize = 1024;

/// The frames a half has yet to hand out, at most [`MAX_QUEUED`] unreliable ones.
#[derive(Debug, Clone, Default)]
struct Outbox(VecDeque<Transmit>);

impl Outbox {
    fn push(
        &mut self,
        frame: &'static str,
        f: &impl Frame,
        reliable: bool,
    ) -> Result<(), SessionError> {
        self.queue(Transmit {
            frame,
            bytes: f.to_bytes()?,
            reliable,
        });
        Ok(())
    }

    fn queue(&mut self, t: Transmit) {
        if self.0.len() >= MAX_QUEUED {
            if let Some(oldest) = self.0.iter().position(|q| !q.reliable) {
                self.0.remove(oldest);
            }
        }
        self.0.push_back(t);
    }
}

fn tick32(now: Now) -> Result<u32, SessionError> {
    u32::try_from(now.tick).map_err(|_| SessionError::TickRange)
}

fn expect(frame: &str, name: &str) -> Result<(), SessionError> {
    if frame == name {
        Ok(())
    } else {
        Err(SessionError::UnexpectedFrame(frame.to_owned()))
    }
}

macro_rules! machine {
    ($ty:ident $(<$q:ident $(: $bound:path)?>)?, $field:ident: $machine:ty) => {
        impl$(<$q $(: $bound)?>)? $ty$(<$q>)? {
            /// The machine, for its lower-level methods.
            pub fn machine(&self) -> &$machine {
                &self.$field
            }
            /// The machine, for its lower-level methods.
            pub fn machine_mut(&mut self) -> &mut $machine {
                &mut self.$field
            }
        }
    };
}

/// The server's half of acked snapshots (`docs/spec/acked.md`): a [`Presenter`] and an
/// [`AckedEncoder`] of the reference schema over inputs `Q`. A tick takes the world and the tick's
/// events; a frame is the client's `ack`. `S` is the reference schema's frame kind: [`Reference`]
/// (kind 6, `acked`) or [`PackedReference`](crate::acked::PackedReference) (kind 12,
/// `acked_packed`), the same records, changes and events.
#[derive(Debug)]
pub struct AckedServer<Q, S: AckedSchema = Reference> {
    presenter: Presenter,
    encoder: AckedEncoder<S, Q>,
    out: Outbox,
}

/// What the acked server's world is on a tick.
#[derive(Debug)]
pub struct AckedTick<'a> {
    /// The world.
    pub world: &'a World,
    /// What changed in the world since the last tick, as the game's change tracking knows it:
    /// the change-driven path, whose work follows what changed, never the world. `None` for a
    /// game without change tracking: the presenter compares the whole world with what it last
    /// saw. Both give the same frames.
    pub changes: Option<&'a WorldChanges>,
    /// The tick's new events.
    pub events: Vec<Event>,
}

/// What an `ack` did to the acked server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckedAckReport {
    /// The encoder's verdict.
    pub verdict: AckVerdict,
    /// The acknowledged base now.
    pub base: Option<u32>,
    /// The newest input sequence received.
    pub last_seq: u32,
    /// The encoder's counters.
    pub counters: EncoderCounters,
}

impl<Q, S: AckedSchema> AckedServer<Q, S> {
    /// The half over `presenter` and `encoder`.
    pub fn new(presenter: Presenter, encoder: AckedEncoder<S, Q>) -> Self {
        Self {
            presenter,
            encoder,
            out: Outbox::default(),
        }
    }

    /// The machine, for its lower-level methods.
    pub fn machine(&self) -> &AckedEncoder<S, Q> {
        &self.encoder
    }

    /// The machine, for its lower-level methods.
    pub fn machine_mut(&mut self) -> &mut AckedEncoder<S, Q> {
        &mut self.encoder
    }
}

impl<Q: InputSink<Input = Input>, S> SessionHalf for AckedServer<Q, S>
where
    S: AckedSchema<Record = EntityState, Event = Event, Input = Input> + 'static,
{
    type Tick<'a> = AckedTick<'a>;
    type Report<'a>
        = AckedAckReport
    where
        Q: 'a;

    fn handle_frame(
        &mut self,
        now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<AckedAckReport, SessionError> {
        expect(frame, self.encoder.schema().ack_name())?;
        let verdict = self.encoder.receive(now.tick, bytes)?;
        Ok(AckedAckReport {
            verdict,
            base: self.encoder.acked(),
            last_seq: self.encoder.last_seq(),
            counters: self.encoder.counters(),
        })
    }

    fn handle_tick(&mut self, now: Now, input: AckedTick<'_>) -> Result<(), SessionError> {
        let tick = tick32(now)?;
        let sent = match input.changes {
            Some(changes) => {
                let edits = self.presenter.present_changes(tick, input.world, changes);
                self.encoder.encode_edits(tick, edits, input.events)?
            }
            None => {
                let state = self.presenter.present(tick, input.world);
                self.encoder.encode(tick, state, input.events)?
            }
        };
        self.out.0.push_back(Transmit {
            frame: self.encoder.schema().frame_name(),
            bytes: sent.bytes,
            reliable: sent.reliable,
        });
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The client's half of acked snapshots: an [`AckedDecoder`] and the kind 7 [`AckWriter`]. A
/// tick takes the player's input and sends one `ack`; a frame is an `acked` frame, reported as
/// its [`Delivery`] (an undecodable frame is a delivery too).
///
/// `S` is the frame kind it reads, as for [`AckedServer`], or any other state's binding (a
/// `state` of a layout compiled by `ackwire-spec`'s build script): the client half keeps no
/// policy of its own, so it serves every schema, its events and inputs the schema's.
#[derive(Debug)]
pub struct AckedClient<S: AckedSchema = Reference> {
    decoder: AckedDecoder<S>,
    writer: AckWriter<S::Input>,
    out: Outbox,
}

impl<S: AckedSchema + Default> AckedClient<S> {
    /// A fresh decoder of the schema's default value; the writer repeats `keep` inputs until
    /// they are covered.
    pub fn new(keep: usize) -> Self {
        Self::with_schema(S::default(), keep)
    }
}

impl<S: AckedSchema> AckedClient<S> {
    /// A fresh decoder of `schema`; the writer repeats `keep` inputs until they are covered.
    pub fn with_schema(schema: S, keep: usize) -> Self {
        Self {
            decoder: AckedDecoder::with_schema(schema),
            writer: AckWriter::new(keep),
            out: Outbox::default(),
        }
    }

    /// The machine, for its lower-level methods.
    pub fn machine(&self) -> &AckedDecoder<S> {
        &self.decoder
    }

    /// The machine, for its lower-level methods.
    pub fn machine_mut(&mut self) -> &mut AckedDecoder<S> {
        &mut self.decoder
    }
}

impl<S: AckedSchema + 'static> SessionHalf for AckedClient<S> {
    type Tick<'a> = S::Input;
    type Report<'a> = Delivery<'a, S::Event>;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<Delivery<'_, S::Event>, SessionError> {
        expect(frame, self.decoder.schema().frame_name())?;
        // The writer stops repeating what the frame's `last_seq` covers before it next writes
        // (in `handle_tick`): the report borrows the decoder until then.
        Ok(self.decoder.deliver(bytes))
    }

    fn handle_tick(&mut self, _now: Now, input: S::Input) -> Result<(), SessionError> {
        self.writer.confirm(self.decoder.last_seq());
        self.writer.push(input);
        let ack = self
            .writer
            .content(self.decoder.ack_tick(), self.decoder.keyframe_wanted());
        let mut bytes = Vec::new();
        let schema = self.decoder.schema();
        schema.encode_ack(&ack, &mut bytes)?;
        self.out.0.push_back(Transmit {
            frame: schema.ack_name(),
            bytes,
            reliable: false,
        });
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The server's half of datagram v2 (`docs/spec/datagram.md`): a [`Subscription`]. A tick takes the
/// shard's input ack and the world's ops; stream frames go reliable, datagrams unreliable. A frame
/// is a `datagram_ack`. `S` is the protocol's datagram v2 frames: the reference's
/// ([`ReferenceDatagram`]) or any other [`DatagramSchema`].
#[derive(Debug)]
pub struct DatagramServer<S: DatagramSchema = ReferenceDatagram> {
    sub: Subscription<S>,
    out: Outbox,
}

/// What the datagram server's world does on a tick.
#[derive(Debug, Clone, Copy)]
pub struct DatagramTick<'a> {
    /// The highest client_seq the shard has processed.
    pub input_ack: u64,
    /// The world's ops, in order.
    pub ops: &'a [WorldOp],
}

impl<S: DatagramSchema> DatagramServer<S> {
    /// The half over `sub`.
    pub fn new(sub: Subscription<S>) -> Self {
        Self {
            sub,
            out: Outbox::default(),
        }
    }
}
machine!(DatagramServer<S: DatagramSchema>, sub: Subscription<S>);

impl<S: DatagramSchema> SessionHalf for DatagramServer<S> {
    type Tick<'a> = DatagramTick<'a>;
    type Report<'a> = AckSummary;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<AckSummary, SessionError> {
        expect(frame, S::Ack::NAME)?;
        Ok(self.sub.on_ack(&S::Ack::decode(bytes)?))
    }

    fn handle_tick(&mut self, now: Now, input: DatagramTick<'_>) -> Result<(), SessionError> {
        let out = self.sub.tick(now.tick, input.input_ack, input.ops)?;
        for f in out.stream {
            self.out.0.push_back(Transmit {
                frame: f.name(),
                bytes: f.to_bytes()?,
                reliable: true,
            });
        }
        for d in out.datagrams {
            self.out.push(S::Datagram::NAME, &d, false)?;
        }
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The client's half of datagram v2: a [`ReplicaTable`]. A frame is a `datagram` or a stream
/// frame (`spawn`, `despawn`, `full_frame`); its `datagram_ack`s are polled. `S` as for
/// [`DatagramServer`].
#[derive(Debug)]
pub struct DatagramClient<S: DatagramSchema = ReferenceDatagram> {
    table: ReplicaTable<S>,
    out: Outbox,
}

impl<S: DatagramSchema> DatagramClient<S> {
    /// The half over `table`.
    pub fn new(table: ReplicaTable<S>) -> Self {
        Self {
            table,
            out: Outbox::default(),
        }
    }
}
machine!(DatagramClient<S: DatagramSchema>, table: ReplicaTable<S>);

impl<S: DatagramSchema> SessionHalf for DatagramClient<S> {
    type Tick<'a> = ();
    type Report<'a> = DatagramSummary;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<DatagramSummary, SessionError> {
        let summary = if frame == S::Datagram::NAME {
            self.table.receive(S::Datagram::decode(bytes)?)
        } else {
            match StreamFrame::<S>::decode(frame, bytes) {
                Some(f) => self.table.apply_stream(&f?),
                None => return Err(SessionError::UnexpectedFrame(frame.to_owned())),
            }
        };
        for a in self.table.take_acks() {
            self.out.push(S::Ack::NAME, &a, false)?;
        }
        Ok(summary)
    }

    fn handle_tick(&mut self, _now: Now, (): ()) -> Result<(), SessionError> {
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The server's half of NetBaseline snapshots (`docs/spec/baseline.md`): a [`SnapshotWriter`], one
/// unreliable `snapshot` a tick of the [`Scene`] it is given. A frame is a `snapshot_ack`. `S`
/// is the protocol's NetBaseline frames: the reference's ([`ReferenceBaseline`]) or any other
/// [`BaselineSchema`].
#[derive(Debug)]
pub struct BaselineServer<S: BaselineSchema = ReferenceBaseline> {
    writer: SnapshotWriter<S>,
    out: Outbox,
}

/// What a `snapshot_ack` left the baseline server holding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaselineAckReport {
    /// Snapshots sent and not yet confirmed.
    pub pending: usize,
    /// Entities the client was told about.
    pub told: usize,
}

impl<S: BaselineSchema> BaselineServer<S> {
    /// The half over `writer`.
    pub fn new(writer: SnapshotWriter<S>) -> Self {
        Self {
            writer,
            out: Outbox::default(),
        }
    }
}
machine!(BaselineServer<S: BaselineSchema>, writer: SnapshotWriter<S>);

impl<S: BaselineSchema> SessionHalf for BaselineServer<S> {
    type Tick<'a> = &'a Scene<S>;
    type Report<'a> = BaselineAckReport;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<BaselineAckReport, SessionError> {
        expect(frame, S::Ack::NAME)?;
        self.writer.on_ack(&S::Ack::decode(bytes)?);
        Ok(BaselineAckReport {
            pending: self.writer.baseline().pending(),
            told: self.writer.baseline().told(),
        })
    }

    fn handle_tick(&mut self, _now: Now, scene: &Scene<S>) -> Result<(), SessionError> {
        let s = self.writer.write(scene)?;
        self.out.push(S::Snapshot::NAME, &s, false)
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The client's half of NetBaseline snapshots: a [`SnapshotClient`]. A frame is a
/// `snapshot`; its `snapshot_ack`s are polled. `S` as for [`BaselineServer`].
#[derive(Debug)]
pub struct BaselineClient<S: BaselineSchema = ReferenceBaseline> {
    client: SnapshotClient<S>,
    out: Outbox,
}

impl<S: BaselineSchema> BaselineClient<S> {
    /// The half over `client`.
    pub fn new(client: SnapshotClient<S>) -> Self {
        Self {
            client,
            out: Outbox::default(),
        }
    }
}
machine!(BaselineClient<S: BaselineSchema>, client: SnapshotClient<S>);

impl<S: BaselineSchema> SessionHalf for BaselineClient<S> {
    type Tick<'a> = ();
    type Report<'a> = SnapshotSummary;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<SnapshotSummary, SessionError> {
        expect(frame, S::Snapshot::NAME)?;
        let summary = self.client.receive(&S::Snapshot::decode(bytes)?);
        for a in self.client.take_acks() {
            self.out.push(S::Ack::NAME, &a, false)?;
        }
        Ok(summary)
    }

    fn handle_tick(&mut self, _now: Now, (): ()) -> Result<(), SessionError> {
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The server's half of delta streaming (`docs/spec/delta.md`): one subscriber's [`DeltaBaseline`].
/// A tick takes the keys visible now and, when `should_send(now.ms)`, sends one unreliable
/// `delta_plan` numbered from 1 upwards. A frame is a `delta_ack`, observed at `now.ms`. `S` is
/// the protocol's delta frames: the reference's ([`ReferenceDelta`]) or any other
/// [`DeltaSchema`]; the baseline itself is the same for every protocol.
#[derive(Debug)]
pub struct DeltaServer<S: DeltaSchema = ReferenceDelta> {
    baseline: DeltaBaseline,
    seq: u64,
    out: Outbox,
    schema: PhantomData<S>,
}

/// What a `delta_ack` left the delta server at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaAckReport {
    /// The newest plan acknowledged.
    pub acked_seq: Option<u64>,
    /// Plans sent and not acknowledged.
    pub unacked: usize,
    /// Full baselines rebuilt.
    pub full_rebuilds: u64,
    /// Whether the connection is stalled.
    pub stalled: bool,
}

impl DeltaServer {
    /// The reference protocol's half over `baseline`; the first plan is numbered 1.
    pub fn new(baseline: DeltaBaseline) -> Self {
        Self::with_schema(ReferenceDelta, baseline)
    }
}

impl<S: DeltaSchema> DeltaServer<S> {
    /// The half of `schema`'s frames over `baseline`; the first plan is numbered 1.
    pub fn with_schema(_schema: S, baseline: DeltaBaseline) -> Self {
        Self {
            baseline,
            seq: 0,
            out: Outbox::default(),
            schema: PhantomData,
        }
    }
}
machine!(DeltaServer<S: DeltaSchema>, baseline: DeltaBaseline);

impl<S: DeltaSchema> SessionHalf for DeltaServer<S> {
    type Tick<'a> = &'a BTreeSet<u64>;
    type Report<'a> = DeltaAckReport;

    fn handle_frame(
        &mut self,
        now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<DeltaAckReport, SessionError> {
        expect(frame, S::Ack::NAME)?;
        let ack = S::Ack::decode(bytes)?;
        self.baseline
            .observe_ack_at(ack.newest(), ack.mask(), ack.digest(), now.ms);
        Ok(DeltaAckReport {
            acked_seq: self.baseline.acked_seq(),
            unacked: self.baseline.unacked(),
            full_rebuilds: self.baseline.full_rebuilds(),
            stalled: self.baseline.stalled(now.ms),
        })
    }

    fn handle_tick(&mut self, now: Now, visible: &BTreeSet<u64>) -> Result<(), SessionError> {
        if self.baseline.should_send(now.ms) {
            self.seq += 1;
            let plan = self.baseline.plan(visible, self.seq);
            self.out
                .push(S::Plan::NAME, &S::Plan::new(&plan, self.seq), false)?;
        }
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

/// The client's half of delta streaming: a [`DeltaMirror`]. A frame is a `delta_plan`,
/// applied (a plan past the mirror's limits is refused whole, unacknowledged:
/// [`SessionError::Limit`]); its `delta_ack` is polled.
///
/// `S` as for [`DeltaServer`].
#[derive(Debug)]
pub struct DeltaClient<S: DeltaSchema = ReferenceDelta> {
    mirror: DeltaMirror<(), S>,
    out: Outbox,
}

impl<S: DeltaSchema> Default for DeltaClient<S> {
    fn default() -> Self {
        Self::new(DeltaMirror::with_schema(S::default()))
    }
}

impl<S: DeltaSchema> DeltaClient<S> {
    /// The half over `mirror`.
    pub fn new(mirror: DeltaMirror<(), S>) -> Self {
        Self {
            mirror,
            out: Outbox::default(),
        }
    }
}
machine!(DeltaClient<S: DeltaSchema>, mirror: DeltaMirror<(), S>);

impl<S: DeltaSchema> SessionHalf for DeltaClient<S> {
    type Tick<'a> = ();
    type Report<'a> = Applied;

    fn handle_frame(
        &mut self,
        _now: Now,
        frame: &str,
        bytes: &[u8],
    ) -> Result<Applied, SessionError> {
        expect(frame, S::Plan::NAME)?;
        let applied = self.mirror.apply(&S::Plan::decode(bytes)?)?;
        if let Some(ack) = self.mirror.ack() {
            self.out.push(S::Ack::NAME, &ack, false)?;
        }
        Ok(applied)
    }

    fn handle_tick(&mut self, _now: Now, (): ()) -> Result<(), SessionError> {
        Ok(())
    }

    fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.0.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transmit(n: u32, reliable: bool) -> Transmit {
        Transmit {
            frame: "x",
            bytes: n.to_le_bytes().to_vec(),
            reliable,
        }
    }

    #[test]
    fn a_peer_cannot_grow_the_queue_past_its_limit() {
        // GEN-8.
        let mut out = Outbox::default();
        for n in 0..5_000 {
            out.queue(transmit(n, false));
        }
        assert_eq!(out.0.len(), MAX_QUEUED);
        // The newest are kept: the oldest were dropped, as a lossy link may drop them.
        let first = u32::from_le_bytes(out.0[0].bytes[..4].try_into().unwrap());
        assert_eq!(first, 5_000 - MAX_QUEUED as u32);
    }

    #[test]
    fn reliable_frames_are_never_dropped() {
        // GEN-8.
        let mut out = Outbox::default();
        out.queue(transmit(0, true));
        for n in 1..3_000 {
            out.queue(transmit(n, false));
        }
        assert!(out.0[0].reliable, "the reliable frame is still first");
        assert_eq!(out.0.len(), MAX_QUEUED);
    }
}
