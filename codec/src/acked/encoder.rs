//! The server's half of acked snapshots (`docs/spec/acked.md`): the per-client [`AckedEncoder`],
//! beside the client's [`AckedDecoder`](super::AckedDecoder) it is held against.
//!
//! The encoder enforces the server's rules of `docs/spec/acked.md`:
//! - ACK-19: frame N carries what turns S_B into S_N, the base being the newest acknowledged frame
//!   it still keeps; only a tick it sent, keeps and has not seen acknowledged already moves the
//!   base;
//! - ACK-20: with no acknowledged base the frame is a keyframe, onto nothing; it keeps SENT_RING
//!   frames, fewer than the client holds (ACK-1);
//! - ACK-23: events, numbered per client, go again until a frame that carried them is acknowledged,
//!   or for EVENT_TTL frames at most;
//! - ACK-24: the check every CHECK_EVERY frames;
//! - ACK-27: a frame over RELIABLE_ABOVE bytes goes reliably: [`Outgoing::reliable`];
//! - CODE-2: a coded frame ([`AckedSchema::coded`]) onto a base names as its older snapshot the
//!   newest kept frame before the base that the client acknowledged (since its last keyframe
//!   request), within 255 ticks, and is written against both frames' records
//!   ([`AckedSchema::encode_frame_on`]), each looked up by id in the kept edits.
//!
//! **Inputs go through a trait, [`InputSink`], not a scheduler.** The acknowledgements ride on the
//! client's input frames (ACK-10: kind 7), and the header reports `u32 lastSeq | u8 inputBuffer`.
//! Of that, the encoder keeps what is the stream's: each input is taken once by its sequence number
//! (ACK-25; ACK-12 repeats inputs over several frames so that a lost frame loses none), `last_seq`
//! is the newest taken, and at most [`MAX_BUFFERED_INPUTS`] are held. Which tick an input executes
//! on, whether it is late or refused, and when it runs is input scheduling (SRV-12 to SRV-16),
//! which `ackwire-server` implements (`InputSchedule`, behind
//! `ackwire_server::acked::ScheduledInputs`) and this crate must not depend on. The sink judges and
//! holds each new input and reports how many it holds (the header's `input_buffer`); nothing in
//! encoding a frame calls into it but that count. An owned sink reached through a trait rather than
//! one handed in per call: the header's `input_buffer` must be the count of the same sink the
//! frame's acks fed, and an encoder that holds its sink cannot be handed another by mistake.
//!
//! **A frame reads what changed since its base, not the world.** The encoder keeps one live
//! state, S_N of the last frame, in a table by id it edits in place, and with each kept frame the
//! entries that frame's edits replaced: a kept frame's state is the live one with the edits of
//! the frames after it undone, so the delta onto a base reads only the ids edited since it,
//! each base entry being what the oldest of those edits replaced. The edits come in two ways:
//! [`encode_edits`](AckedEncoder::encode_edits) takes them (the change-driven path, from
//! [`Presenter::present_changes`](super::Presenter::present_changes)), and
//! [`encode`](AckedEncoder::encode) finds them in a whole S_N, from the
//! [`Presenter`](super::Presenter)'s note of the ids that differ from the S_N before, or by
//! comparing the S_N with the live state. The frames are the same bytes either way (the
//! [`harness`](super::harness) runs both in every scenario). A keyframe reads the whole state,
//! and so does the check every CHECK_EVERY frames (CHECK-2 hashes every record).
//!
//! Sans-IO: ticks are arguments, nothing reads a clock, opens a socket or starts a thread.

use super::paged::PagedMap;
use super::{
    delta_one, state_check, AckedFrame, AckedSchema, CodedBasis, CodedBasisTicks, Edit, Entry,
    FrameOf, ServerState,
};
use crate::{DecodeError, EncodeError, ErrorKind};
use std::collections::VecDeque;

/// Where an [`AckedEncoder`] hands the client's inputs: each input of a kind 7 frame whose
/// sequence number is new, and where the header's `input_buffer` comes from.
///
/// `ackwire_server::acked::ScheduledInputs` implements it over the server's input schedule (SRV-12:
/// the input executes on the server tick it names, within a window); a game that applies inputs on
/// arrival implements it with a queue of its own.
pub trait InputSink {
    /// The input a kind 7 frame carries.
    type Input;

    /// Takes a new input: the client's sequence number `seq` (each is submitted once, in
    /// ascending order), the server tick `tick` it is aimed at, judged against the tick the
    /// simulation is on, `current`. The sink may buffer it or drop it.
    fn submit(&mut self, seq: u32, tick: u32, input: Self::Input, current: u64);

    /// How many inputs it holds ahead of execution (the header's `input_buffer`, saturated at
    /// 255).
    fn pending(&self) -> usize;
}

/// Inputs a client may have buffered in its [`InputSink`] at once; more are dropped before
/// [`submit`](InputSink::submit) (ACK-25).
pub const MAX_BUFFERED_INPUTS: usize = 256;

/// One frame the server keeps: its tick, what its edits replaced in the live state (each id's
/// entry before the frame, ascending), the newest event serial it carried, and whether the
/// client acknowledged it (since its last keyframe request): a frame it applied, which a coded
/// frame may name as its older snapshot (CODE-2).
#[derive(Debug, Clone)]
struct Kept<R> {
    tick: u32,
    undo: Vec<Edit<R>>,
    events_through: Option<u32>,
    acked: bool,
}

#[derive(Debug, Clone)]
struct Pending<E> {
    serial: u32,
    born: u64,
    event: E,
}

/// The records a coded frame is predicted from (CODE-13, CODE-14) as the encoder keeps them:
/// those of its base and of its older snapshot, each a kept frame (its place in `sent`; `None`:
/// no such frame, no records). A kept frame's record of an entity is the live state's with the
/// edits of the frames after it undone, the oldest that edited the entity winning, the frame
/// being encoded (whose edits are `current`) the newest: a lookup costs a binary search in each
/// frame after it (at most SENT_RING), never a walk of the world. The record whatever the life
/// it belongs to: the client holds records, not lives.
struct KeptBasis<'a, R> {
    live: &'a PagedMap<Entry<R>>,
    sent: &'a VecDeque<Kept<R>>,
    current: &'a [Edit<R>],
    base: Option<usize>,
    older: Option<usize>,
}

impl<R: Clone> KeptBasis<'_, R> {
    fn at(&self, kept: Option<usize>, eid: u16) -> Option<R> {
        let after = kept? + 1;
        let logs = self.sent.range(after..).map(|k| &k.undo[..]);
        let mut probed = 1;
        let entry = logs
            .chain([self.current])
            .find_map(|log| {
                probed += 1;
                let i = log.binary_search_by_key(&eid, |(e, _)| *e).ok()?;
                Some(log[i].1.as_ref())
            })
            .unwrap_or_else(|| self.live.get(eid));
        super::moves::probe(probed);
        entry.map(|e| e.record.clone())
    }
}

impl<R: Clone> CodedBasis<R> for KeptBasis<'_, R> {
    fn base(&self, eid: u16) -> Option<R> {
        self.at(self.base, eid)
    }

    fn older(&self, eid: u16) -> Option<R> {
        self.at(self.older, eid)
    }

    /// Both records in one walk of the logs after the older of the two frames: a log that
    /// edited the entity answers each frame before it not answered yet, the live state what
    /// none answers. The same records as `base` and `older`, for one search of each log.
    fn records(&self, eid: u16, older: bool) -> (Option<R>, Option<R>) {
        let wanted = [self.base, self.older.filter(|_| older)].map(|k| k.map(|k| k + 1));
        let Some(start) = wanted.iter().flatten().copied().min() else {
            return (None, None);
        };
        // Per frame wanted, the entry found for it (`Some(None)`: a log that removed it).
        let mut found: [Option<Option<&Entry<R>>>; 2] = [None; 2];
        let logs = self.sent.range(start..).map(|k| &k.undo[..]);
        let mut probed = 1;
        for (j, log) in (start..).zip(logs.chain([self.current])) {
            let open = |w: &Option<usize>, f: &Option<_>| w.is_some() && f.is_none();
            if !wanted.iter().zip(&found).any(|(w, f)| open(w, f)) {
                break;
            }
            probed += 1;
            if let Ok(i) = log.binary_search_by_key(&eid, |(e, _)| *e) {
                for (w, f) in wanted.iter().zip(&mut found) {
                    if f.is_none() && w.is_some_and(|w| j >= w) {
                        *f = Some(log[i].1.as_ref());
                    }
                }
            }
        }
        super::moves::probe(probed);
        let [b, o] = [0, 1].map(|n| {
            wanted[n]?;
            found[n]
                .unwrap_or_else(|| self.live.get(eid))
                .map(|e| e.record.clone())
        });
        (b, o)
    }
}

/// A frame to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing<S: AckedSchema> {
    /// The frame.
    pub frame: FrameOf<S>,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel, and is still a frame
    /// like any other.
    pub reliable: bool,
}

/// What the encoder has done, for meters and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncoderCounters {
    /// Frames sent.
    pub frames: u64,
    /// Of which keyframes.
    pub keyframes: u64,
    /// Of which marked for the reliable channel.
    pub reliable: u64,
    /// Acks that moved the base forward.
    pub acks_taken: u64,
    /// Acks of a tick the server does not keep (never sent, from the future, left the ring).
    pub acks_unknown: u64,
    /// Acks not newer than the base already taken (repeats, reordered), or from before a
    /// keyframe request.
    pub acks_old: u64,
    /// Keyframe requests received.
    pub keyframe_requests: u64,
    /// Events dropped after EVENT_TTL frames without an acknowledgement.
    pub events_expired: u64,
    /// Coded frames that named an older snapshot (CODE-2).
    pub older_named: u64,
    /// Inputs submitted to the input sink.
    pub inputs_taken: u64,
    /// Inputs already taken, carried again.
    pub inputs_repeated: u64,
    /// Inputs dropped because MAX_BUFFERED_INPUTS were buffered.
    pub inputs_overflow: u64,
}

/// The server's per-client acked encoder (ACK-17 to ACK-28), generic over the schema and over where
/// the client's inputs go (`Q`, an [`InputSink`]).
///
/// Each tick, compute the client's S_N (e.g. with [`Presenter`](super::Presenter)) and call
/// [`encode`](Self::encode); hand every kind 7 frame the client sends to
/// [`on_ack`](Self::on_ack) (or [`receive`](Self::receive) for its bytes). Memory stays bounded
/// whatever the acks say: SENT_RING frames, the events of EVENT_TTL frames,
/// MAX_BUFFERED_INPUTS inputs (the sink's own memory is the sink's).
#[derive(Debug, Clone)]
pub struct AckedEncoder<S: AckedSchema, Q> {
    /// The schema: how records diff and frames encode, and the session constants.
    schema: S,
    /// ACK-20: with no acknowledged base (the first frame, or an acknowledgement older than the
    /// SENT_RING frames kept) the frame is a keyframe.
    sent: VecDeque<Kept<S::Record>>,
    /// The last frame's state, S_N; a kept frame's is it with the edits of the frames after it
    /// undone.
    live: PagedMap<Entry<S::Record>>,
    /// The last state handed to [`encode`](Self::encode), equal to `live`, whose note a next
    /// state may carry.
    given: Option<ServerState<S::Record>>,
    acked: Option<u32>,
    floor: Option<u32>,
    pending: VecDeque<Pending<S::Event>>,
    next_serial: u32,
    acked_serial: Option<u32>,
    expired: Vec<u32>,
    keep_expired: bool,
    inputs: Q,
    last_seq: u32,
    counters: EncoderCounters,
    /// The last frame's length, which the next frame's buffer starts at: a frame grown from
    /// nothing is copied at every doubling.
    last_len: usize,
}

impl<S: AckedSchema + Default, Q: InputSink> AckedEncoder<S, Q> {
    /// An encoder of the schema's default value for a fresh client whose inputs go to `inputs`
    /// (anything that converts into the sink: `ackwire_server`'s scheduled inputs convert from
    /// an input window).
    pub fn new(inputs: impl Into<Q>) -> Self {
        Self::with_schema(S::default(), inputs)
    }
}

impl<S: AckedSchema, Q: InputSink> AckedEncoder<S, Q> {
    /// An encoder of `schema` for a fresh client whose inputs go to `inputs`.
    pub fn with_schema(schema: S, inputs: impl Into<Q>) -> Self {
        Self {
            schema,
            sent: VecDeque::new(),
            live: PagedMap::default(),
            given: None,
            acked: None,
            floor: None,
            pending: VecDeque::new(),
            next_serial: 1,
            acked_serial: None,
            expired: Vec::new(),
            keep_expired: false,
            inputs: inputs.into(),
            last_seq: 0,
            counters: EncoderCounters::default(),
            last_len: 0,
        }
    }

    /// The schema it encodes.
    pub fn schema(&self) -> &S {
        &self.schema
    }

    /// Also lists the serials of expired events (for tests; unbounded over a long session).
    pub fn keep_expired_serials(mut self) -> Self {
        self.keep_expired = true;
        self
    }

    /// The frame of tick `tick`, producing `state` (S_N), with this tick's new `events`: the
    /// whole-state path, for a caller that computes each S_N whole.
    ///
    /// What differs from the S_N before is found from the [`Presenter`](super::Presenter)'s note
    /// when `state` carries one against the last state handed here, else by comparing the two
    /// over every entity; then it goes as [`encode_edits`](Self::encode_edits) of those
    /// entities, so the frames are the same bytes either way.
    ///
    /// ACK-19: frame N carries what turns the acknowledged S_B into S_N. A tick not newer than the
    /// last frame's is refused.
    pub fn encode(
        &mut self,
        tick: u32,
        state: ServerState<S::Record>,
        events: impl IntoIterator<Item = S::Event>,
    ) -> Result<Outgoing<S>, EncodeError> {
        let noted = self.given.as_ref().and_then(|g| state.changed_since(g));
        let edits: Vec<Edit<S::Record>> = match noted {
            Some(ids) => ids
                .iter()
                .map(|eid| (*eid, state.get(eid).cloned()))
                .collect(),
            None => differences(&self.live, &state),
        };
        let out = self.encode_edits(tick, edits, events)?;
        self.given = Some(state);
        Ok(out)
    }

    /// The frame of tick `tick`, S_N being the last frame's with `edits` made (each id's entry,
    /// or none when it left; ascending, each id once), with this tick's new `events`: the
    /// change-driven path, whose work follows the edits and what changed since the client's
    /// base, never the world (but for a keyframe, and the check every CHECK_EVERY frames, which
    /// read the whole state).
    ///
    /// ACK-19: frame N carries what turns the acknowledged S_B into S_N. A tick not newer than the
    /// last frame's, or edits out of order, are refused, and nothing changes.
    pub fn encode_edits(
        &mut self,
        tick: u32,
        edits: Vec<Edit<S::Record>>,
        events: impl IntoIterator<Item = S::Event>,
    ) -> Result<Outgoing<S>, EncodeError> {
        if self.sent.back().is_some_and(|k| tick <= k.tick) {
            return Err(EncodeError::new(ErrorKind::InvalidCondition).field("tick"));
        }
        if let Some(i) = edits.windows(2).position(|w| w[0].0 >= w[1].0) {
            return Err(EncodeError::new(ErrorKind::InvalidCondition)
                .index(i + 1)
                .field("edits"));
        }
        self.given = None;
        let frame_no = self.counters.frames;
        for event in events {
            self.pending.push_back(Pending {
                serial: self.next_serial,
                born: frame_no,
                event,
            });
            self.next_serial = self.next_serial.wrapping_add(1);
        }
        // ACK-23: an event goes again in each frame until one that carried it is acknowledged, or
        // for at most EVENT_TTL frames.
        while let Some(p) = self.pending.front() {
            if self.acked_serial.is_some_and(|a| p.serial <= a) {
                self.pending.pop_front();
            } else if p.born + self.schema.event_ttl() <= frame_no {
                self.counters.events_expired += 1;
                if self.keep_expired {
                    self.expired.push(p.serial);
                }
                self.pending.pop_front();
            } else {
                break;
            }
        }
        // S_N is the live state with the edits made; what they replaced goes with the frame, so
        // that any kept frame's state is the live one with the edits of the frames after it
        // undone.
        let undo: Vec<Edit<S::Record>> = edits
            .into_iter()
            .map(|(eid, entry)| {
                let before = match entry {
                    Some(e) => self.live.insert(eid, e),
                    None => self.live.remove(eid),
                };
                (eid, before)
            })
            .collect();
        let base_at = self
            .acked
            .and_then(|a| self.sent.iter().position(|k| k.tick == a));
        let base = base_at.and_then(|j| self.sent.get(j));
        // CODE-2: a coded frame onto a base names the newest frame before it that the client
        // acknowledged, within 255 ticks; a keyframe names none.
        let older_at = base_at.filter(|_| self.schema.coded()).and_then(|j| {
            let base_tick = self.sent[j].tick;
            (0..j)
                .rev()
                .take_while(|&i| base_tick - self.sent[i].tick <= u32::from(u8::MAX))
                .find(|&i| self.sent[i].acked)
        });
        let delta = match base_at {
            Some(j) => self.delta_since(j, &undo, tick),
            None => self.keyframe_delta(tick),
        };
        let (removed, changes) = match delta {
            Ok(d) => d,
            Err(e) => {
                // Nothing changes: the live state is put back as it was.
                for (eid, before) in undo.into_iter().rev() {
                    match before {
                        Some(e) => self.live.insert(eid, e),
                        None => self.live.remove(eid),
                    };
                }
                return Err(e);
            }
        };
        let carried: Vec<&Pending<S::Event>> =
            self.pending.iter().take(usize::from(u8::MAX)).collect();
        let frame = AckedFrame {
            tick,
            base_tick: base.map_or(0, |k| k.tick),
            last_seq: self.last_seq,
            input_buffer: u8::try_from(self.inputs.pending()).unwrap_or(u8::MAX),
            keyframe: base.is_none(),
            // ACK-24: every CHECK_EVERY-th frame carries the check. Frames, not ticks: a server
            // that does not encode every tick (30 Hz sends on a 60 Hz simulation, odd ticks only)
            // would otherwise check at another rate or never. Counted from 1, so the CHECK_EVERY-th
            // frame carries the first check, and a stream encoded every tick from tick 1 checks on
            // the same frames as before.
            check: (frame_no + 1)
                .is_multiple_of(u64::from(self.schema.check_every()))
                .then(|| {
                    state_check(
                        &self.schema,
                        self.live.iter().map(|(eid, e)| (eid, &e.record)),
                    )
                }),
            removed,
            changes,
            first_serial: carried.first().map_or(0, |p| p.serial),
            events: carried.iter().map(|p| p.event.clone()).collect(),
        };
        let events_through = carried.last().map(|p| p.serial);
        let mut bytes = Vec::with_capacity(self.last_len + self.last_len / 8 + 64);
        if self.schema.coded() {
            let basis = KeptBasis {
                live: &self.live,
                sent: &self.sent,
                current: &undo,
                base: base_at,
                older: older_at,
            };
            // Ticks ascend (ACK-28), and the older one is within 255 of the base's.
            let older = older_at.map_or(0, |i| {
                u8::try_from(frame.base_tick - self.sent[i].tick).unwrap_or(0)
            });
            self.schema
                .encode_frame_on(&frame, older, &basis, &mut bytes)?;
            self.counters.older_named += u64::from(older != 0);
        } else {
            self.schema.encode_frame(&frame, &mut bytes)?;
        }
        self.last_len = bytes.len();
        let reliable = bytes.len() > self.schema.reliable_above();
        self.counters.frames += 1;
        self.counters.keyframes += u64::from(frame.keyframe);
        self.counters.reliable += u64::from(reliable);
        self.sent.push_back(Kept {
            tick,
            undo,
            events_through,
            acked: false,
        });
        // ACK-1, ACK-20: the server keeps fewer frames (SENT_RING) than the client holds, so every
        // base it names is one the client still holds.
        while self.sent.len() > self.schema.sent_ring() {
            self.sent.pop_front();
        }
        if self
            .acked
            .is_some_and(|a| !self.sent.iter().any(|k| k.tick == a))
        {
            self.acked = None;
        }
        Ok(Outgoing {
            frame,
            bytes,
            reliable,
        })
    }

    /// The delta of a keyframe: every entity of the live state, whole.
    fn keyframe_delta(&self, tick: u32) -> Result<(Vec<u16>, Vec<S::Change>), EncodeError> {
        let mut out = (Vec::new(), Vec::with_capacity(self.live.len()));
        for (i, (eid, entry)) in self.live.iter().enumerate() {
            delta_one(&self.schema, eid, None, Some(entry), || i, tick, &mut out)?;
        }
        Ok(out)
    }

    /// The delta from the state of kept frame `base` to the live state, `undo` being what this
    /// frame's edits replaced: read only at the ids the frames after the base and this one
    /// edited, each id's base entry being what the oldest of those edits replaced (ACK-19).
    /// The entries at every other id are the same in both and were held to
    /// [`AckedSchema::diff`]'s rules when the frame that first held them was encoded.
    fn delta_since(
        &self,
        base: usize,
        undo: &[Edit<S::Record>],
        tick: u32,
    ) -> Result<(Vec<u16>, Vec<S::Change>), EncodeError> {
        // The base's entry at each id edited since, ascending: the oldest edit's wins.
        let mut held: Vec<(u16, Option<&Entry<S::Record>>)> = Vec::new();
        let mut merged = Vec::new();
        let logs = self.sent.range(base + 1..).map(|k| &k.undo[..]);
        for log in logs.chain([undo]) {
            merged.clear();
            merged.reserve(held.len() + log.len());
            let mut newer = log.iter().map(|(e, v)| (*e, v.as_ref())).peekable();
            // Read in place, not drained: the entries are copies, and `merged`, which takes the
            // old list at the swap, is cleared before it is written again.
            for &(eid, entry) in &held {
                while let Some(n) = newer.next_if(|(e, _)| *e < eid) {
                    merged.push(n);
                }
                newer.next_if(|(e, _)| *e == eid);
                merged.push((eid, entry));
            }
            merged.extend(newer);
            std::mem::swap(&mut held, &mut merged);
        }
        // At most a change per id: grown once, not doubling through the frame.
        let mut out = (Vec::new(), Vec::with_capacity(held.len()));
        for (eid, old) in held {
            let new = self.live.get(eid);
            let place = || self.live.rank(eid).unwrap_or(0);
            delta_one(&self.schema, eid, old, new, place, tick, &mut out)?;
        }
        Ok(out)
    }

    /// Takes a client's kind 7 content: the tick it acknowledges, whether it asks for a
    /// keyframe, and its inputs (`first_seq` numbering the first), judged against the tick the
    /// simulation is on, `current`, by the input sink.
    ///
    /// Only a tick the server keeps and that is newer than the base already taken moves the
    /// base: an ack of a tick never sent, from the future or repeated changes nothing, so no
    /// frame goes onto a base the client cannot hold. Each input is taken once, by sequence
    /// number; `last_seq` (in the next frames) reports the newest taken.
    pub fn on_ack(
        &mut self,
        current: u64,
        ack_tick: u32,
        keyframe_request: bool,
        first_seq: u32,
        inputs: impl IntoIterator<Item = (u32, Q::Input)>,
    ) -> AckVerdict {
        let verdict = self.take_ack(ack_tick, keyframe_request);
        self.take_inputs(current, first_seq, inputs, |_, aimed| aimed);
        verdict
    }

    /// The base an ack of `ack_tick` (or a keyframe request) leaves: [`on_ack`](Self::on_ack)
    /// but for the inputs.
    fn take_ack(&mut self, ack_tick: u32, keyframe_request: bool) -> AckVerdict {
        if keyframe_request {
            // ACK-26 (AckFlags::KEYFRAME_REQUEST): forget every acknowledgement, ignore those of
            // frames sent before the request, send keyframes until one is acked.
            self.counters.keyframe_requests += 1;
            self.acked = None;
            // The client holds none of them any more.
            for k in &mut self.sent {
                k.acked = false;
            }
            self.floor = self.sent.back().map(|k| k.tick).or(self.floor);
            AckVerdict::KeyframeRequested
        } else if ack_tick == 0 {
            AckVerdict::Nothing
        } else if self.floor.is_some_and(|f| ack_tick <= f) {
            self.counters.acks_old += 1;
            AckVerdict::Old
        } else if self.acked.is_some_and(|a| ack_tick <= a) {
            // Too old to move the base, but a frame the client applied (CODE-2).
            if let Some(k) = self.sent.iter_mut().find(|k| k.tick == ack_tick) {
                k.acked = true;
            }
            self.counters.acks_old += 1;
            AckVerdict::Old
        } else if let Some(k) = self.sent.iter_mut().find(|k| k.tick == ack_tick) {
            k.acked = true;
            self.acked = Some(ack_tick);
            if let Some(e) = k.events_through {
                self.acked_serial = Some(self.acked_serial.map_or(e, |a| a.max(e)));
            }
            self.counters.acks_taken += 1;
            AckVerdict::Taken
        } else {
            self.counters.acks_unknown += 1;
            AckVerdict::Unknown
        }
    }

    /// Takes each input of an ack whose first has `first_seq`, once by sequence number: `aim`
    /// gives an item's input and the tick it is aimed at (the schema at hand, for a caller
    /// that holds the encoder mutably).
    fn take_inputs<T>(
        &mut self,
        current: u64,
        first_seq: u32,
        inputs: impl IntoIterator<Item = T>,
        aim: impl Fn(&S, T) -> (u32, Q::Input),
    ) {
        for (i, item) in inputs.into_iter().enumerate() {
            let Some(seq) = u32::try_from(u64::from(first_seq) + i as u64).ok() else {
                break;
            };
            let (tick, input) = aim(&self.schema, item);
            if seq <= self.last_seq {
                self.counters.inputs_repeated += 1;
                continue;
            }
            self.last_seq = seq;
            if self.inputs.pending() >= MAX_BUFFERED_INPUTS {
                self.counters.inputs_overflow += 1;
                continue;
            }
            self.inputs.submit(seq, tick, input, current);
            self.counters.inputs_taken += 1;
        }
    }

    /// Where the client's inputs go, for its counters.
    pub fn inputs(&self) -> &Q {
        &self.inputs
    }

    /// Where the client's inputs go, to execute them: executing is the sink's business, never
    /// the encoder's (with `ackwire_server`'s input schedule, `execute_due` each tick).
    pub fn inputs_mut(&mut self) -> &mut Q {
        &mut self.inputs
    }

    /// The tick of the base the next frame goes onto, if any.
    pub fn acked(&self) -> Option<u32> {
        self.acked
    }

    /// Frames kept (at most SENT_RING).
    pub fn kept(&self) -> usize {
        self.sent.len()
    }

    /// Events waiting for an acknowledgement.
    pub fn pending_events(&self) -> usize {
        self.pending.len()
    }

    /// Serials of the events that expired unacknowledged (when kept, see
    /// [`keep_expired_serials`](Self::keep_expired_serials)).
    pub fn expired_serials(&self) -> &[u32] {
        &self.expired
    }

    /// The newest input sequence taken.
    pub fn last_seq(&self) -> u32 {
        self.last_seq
    }

    /// The records a coded frame this encoder sent was predicted from, by the ticks its prefix
    /// names ([`AckedSchema::read_basis`]): its base's and its older snapshot's, while both
    /// are still kept (`None` otherwise; a keyframe's basis holds nothing). What a tool that
    /// prices or trains a coded frame after it was sent reads it against, as the client does
    /// (the bench's bits by field, its training of the tables).
    pub fn basis_of(&self, ticks: &CodedBasisTicks) -> Option<impl CodedBasis<S::Record> + '_> {
        let kept = |tick: u32| self.sent.iter().position(|k| k.tick == tick);
        let base = match ticks.keyframe {
            true => None,
            false => Some(kept(ticks.base_tick)?),
        };
        let older = match ticks.older {
            0 => None,
            d => Some(kept(ticks.base_tick.checked_sub(u32::from(d))?)?),
        };
        Some(KeptBasis {
            live: &self.live,
            sent: &self.sent,
            current: &[],
            base,
            older,
        })
    }

    /// What the encoder has done.
    pub fn counters(&self) -> EncoderCounters {
        self.counters
    }

    /// The last state handed to [`encode`](Self::encode), shared with its caller.
    pub(crate) fn given_state(&self) -> Option<&ServerState<S::Record>> {
        self.given.as_ref()
    }

    /// The heap it holds besides the last state handed to it (see [`super::heap_bytes`]): its
    /// live state, what each kept frame's edits replaced, its rings at capacity.
    pub(crate) fn own_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.sent.capacity() * size_of::<Kept<S::Record>>()
            + self
                .sent
                .iter()
                .map(|k| k.undo.capacity() * size_of::<Edit<S::Record>>())
                .sum::<usize>()
            + self.live.heap_bytes()
            + self.pending.capacity() * size_of::<Pending<S::Event>>()
            + self.expired.capacity() * size_of::<u32>()
    }
}

impl<S: AckedSchema, Q: InputSink<Input = S::Input>> AckedEncoder<S, Q> {
    /// Takes a kind 7 frame's bytes (see [`on_ack`](Self::on_ack)), each input aimed at the
    /// tick it names.
    pub fn receive(&mut self, current: u64, bytes: &[u8]) -> Result<AckVerdict, DecodeError> {
        let ack = self.schema.decode_ack(bytes)?;
        let verdict = self.take_ack(ack.ack_tick, ack.keyframe_request);
        self.take_inputs(current, ack.first_seq, ack.inputs, |schema, input| {
            (schema.input_tick(&input), input)
        });
        Ok(verdict)
    }
}

/// The edits that turn `live` into `state`: every id whose entry differs, came or went,
/// ascending (one walk over the two, both ascending).
fn differences<R: Clone + PartialEq>(
    live: &PagedMap<Entry<R>>,
    state: &ServerState<R>,
) -> Vec<Edit<R>> {
    let mut edits = Vec::new();
    let mut held = live.iter().peekable();
    for (eid, entry) in state.iter() {
        while let Some((gone, _)) = held.next_if(|(id, _)| id < eid) {
            edits.push((gone, None));
        }
        match held.next_if(|(id, _)| id == eid) {
            Some((_, old)) if old == entry => {}
            _ => edits.push((*eid, Some(entry.clone()))),
        }
    }
    edits.extend(held.map(|(gone, _)| (gone, None)));
    edits
}

/// What an ack did to the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckVerdict {
    /// The base moved to the acknowledged tick.
    Taken,
    /// Not newer than the base taken, or from before a keyframe request.
    Old,
    /// A tick the server does not keep.
    Unknown,
    /// The client acknowledges nothing yet.
    Nothing,
    /// The client asked for a keyframe.
    KeyframeRequested,
}

impl AckVerdict {
    /// The verdict's name, for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AckVerdict::Taken => "taken",
            AckVerdict::Old => "old",
            AckVerdict::Unknown => "unknown",
            AckVerdict::Nothing => "nothing",
            AckVerdict::KeyframeRequested => "keyframe_requested",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{server_check, Presenter, Reference, ViewConfig, World, WorldEntity};
    use super::*;
    use crate::protocol::{EntityState, Input};

    /// A sink that holds every input it is given (the encoder's bound is what keeps it small):
    /// the encoder's tests need no scheduler.
    #[derive(Debug, Clone, Default)]
    struct Held(Vec<(u32, Input)>);

    impl InputSink for Held {
        type Input = Input;
        fn submit(&mut self, _seq: u32, tick: u32, input: Input, _current: u64) {
            self.0.push((tick, input));
        }
        fn pending(&self) -> usize {
            self.0.len()
        }
    }

    type ReferenceEncoder = AckedEncoder<Reference, Held>;

    /// An entity of the world at `x` m east, its first life, everything else at rest.
    fn at_x(x: f32) -> WorldEntity {
        WorldEntity {
            life: 1,
            x,
            y: 0.0,
            z: 0.0,
            yaw: 0.0,
            hp: 1,
            armor: 0,
            vehicle: 0,
            seat: 0,
            orient: None,
        }
    }

    fn one(tick: u32) -> ServerState<EntityState> {
        let mut p = Presenter::new(ViewConfig::default());
        let mut w = World::new();
        w.insert(1, at_x(tick as f32));
        p.present(tick, &w)
    }

    #[test]
    fn hostile_acks_never_move_the_base_off_the_ring() {
        // ACK-19, ACK-26.
        let mut e = ReferenceEncoder::new(Held::default());
        let mut sent = Vec::new();
        for t in 1..=300u32 {
            let out = e.encode(t, one(t), []).unwrap();
            if !out.frame.keyframe {
                // Only a tick the server sent, still in its ring, and acknowledged.
                assert!(sent.contains(&out.frame.base_tick));
                assert!(out.frame.base_tick + Reference.sent_ring() as u32 >= t);
            }
            sent.push(t);
            for ack in [t + 1, t + 1000, u32::MAX, 0, t.saturating_sub(40), t / 2, t] {
                e.on_ack(u64::from(t), ack, t % 17 == 0, 0, []);
            }
            assert!(e.kept() <= Reference.sent_ring());
        }
        let c = e.counters();
        assert!(c.acks_unknown > 0 && c.acks_old > 0 && c.keyframe_requests > 0);
        // Acks from before a keyframe request never come back as a base.
        let mut e = ReferenceEncoder::new(Held::default());
        for t in 1..=10 {
            e.encode(t, one(t), []).unwrap();
        }
        e.on_ack(10, 0, true, 0, []);
        assert_eq!(e.on_ack(10, 9, false, 0, []), AckVerdict::Old);
        assert!(e.encode(11, one(11), []).unwrap().frame.keyframe);
        assert_eq!(e.on_ack(11, 11, false, 0, []), AckVerdict::Taken);
        assert!(!e.encode(12, one(12), []).unwrap().frame.keyframe);
    }

    #[test]
    fn input_floods_and_sequence_jumps_stay_bounded() {
        // ACK-25.
        let mut e = ReferenceEncoder::new(Held::default());
        crate::acked::harness::input_flood(&mut e).unwrap();
    }

    #[test]
    fn events_expire_after_event_ttl_frames_unacknowledged() {
        // ACK-23.
        let mut e = ReferenceEncoder::new(Held::default());
        let shot = crate::protocol::Event::Shot(crate::protocol::Shot {
            shooter: 1,
            weapon: 1,
            yaw: 0.0,
        });
        let mut carried = 0;
        for t in 1..=100u32 {
            let ev = if t == 1 { vec![shot.clone()] } else { vec![] };
            carried += e.encode(t, one(t), ev).unwrap().frame.events.len();
        }
        assert_eq!(carried as u64, Reference.event_ttl());
        assert_eq!(e.counters().events_expired, 1);
        assert_eq!(e.pending_events(), 0);
    }

    /// ACK-24: every CHECK_EVERY-th frame carries the check, counted in frames, whichever ticks the
    /// frames are encoded on.
    #[test]
    fn a_check_follows_every_check_every_frames_whatever_the_ticks() {
        // ACK-24.
        let every = Reference.check_every() as usize;
        // Odd ticks only (no odd tick is a multiple of 30, so a rule on ticks never checks),
        // even ticks (30 Hz sends on a 60 Hz simulation: a rule on ticks checks every 15
        // frames), every tick, and every third from tick 7.
        for (first, step) in [(1u32, 2u32), (2, 2), (1, 1), (7, 3)] {
            let mut e = ReferenceEncoder::new(Held::default());
            let mut checked = Vec::new();
            for n in 1..=3 * every + 5 {
                let tick = first + (n as u32 - 1) * step;
                let state = one(tick);
                let out = e.encode(tick, state.clone(), []).unwrap();
                // What the bytes say, not only the frame value handed back.
                let sent = Reference.decode_frame(&out.bytes).unwrap();
                assert_eq!(sent.check, out.frame.check);
                if let Some(check) = sent.check {
                    assert_eq!(check, server_check(&Reference, &state));
                    checked.push(n);
                }
            }
            assert_eq!(
                checked,
                [every, 2 * every, 3 * every],
                "frames on ticks {first}, {}, ...",
                first + step
            );
        }
    }

    /// ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel, and is still a frame
    /// like any other. Keyframes of a growing crowd with a growing number of events, until one of
    /// exactly RELIABLE_ABOVE bytes and one of a byte more are found: the first stays on the
    /// unreliable channel, the second goes reliably, and every frame on the way is routed by the
    /// same rule.
    #[test]
    fn a_frame_over_reliable_above_bytes_goes_reliably_and_one_at_it_does_not() {
        // ACK-27.
        let limit = Reference.reliable_above();
        // Six and seven bytes: together with the changes, frames of every length.
        let hit = crate::protocol::Event::Hit(crate::protocol::Hit {
            attacker: 2,
            victim: 1,
            damage: 9,
        });
        let carjack = crate::protocol::Event::Carjack(crate::protocol::Carjack {
            thief: 2,
            victim: 1,
            vehicle: 1,
        });
        let (mut at, mut over) = (false, false);
        for n in 1..=160u16 {
            // Near and far, inside and outside the quantized box: entities of several sizes.
            let world: World = (1..=n)
                .map(|eid| {
                    let d = f32::from(eid) * 0.75;
                    let mut w = WorldEntity {
                        life: 1,
                        x: d,
                        y: -d * 0.5,
                        z: 0.0,
                        yaw: d * 7.0,
                        hp: 100,
                        armor: 0,
                        vehicle: 0,
                        seat: 0,
                        orient: None,
                    };
                    w.vehicle = eid % 3;
                    (eid, w)
                })
                .collect();
            for (carjacks, hits) in (0..8).flat_map(|c| (0..7).map(move |h| (c, h))) {
                let events = std::iter::repeat_n(carjack.clone(), carjacks)
                    .chain(std::iter::repeat_n(hit.clone(), hits));
                let mut p = Presenter::new(ViewConfig {
                    own: vec![1],
                    ..ViewConfig::default()
                });
                let mut e = ReferenceEncoder::new(Held::default());
                let out = e.encode(1, p.present(1, &world), events).unwrap();
                assert!(out.frame.keyframe);
                let len = out.bytes.len();
                assert_eq!(out.reliable, len > limit, "{len} bytes");
                assert_eq!(e.counters().reliable, u64::from(out.reliable));
                // Still a frame like any other: it decodes to what was encoded.
                assert_eq!(Reference.decode_frame(&out.bytes).unwrap(), out.frame);
                at |= len == limit;
                over |= len == limit + 1;
            }
            if at && over {
                return;
            }
        }
        panic!(
            "no keyframe of exactly {limit} (found: {at}) or {} bytes (found: {over})",
            limit + 1
        );
    }

    #[test]
    fn a_tick_not_newer_than_the_last_frame_is_refused() {
        // ACK-28.
        let mut e = ReferenceEncoder::new(Held::default());
        e.encode(5, one(5), []).unwrap();
        assert!(e.encode(5, one(5), []).is_err());
    }

    /// The same state without the presenter's note: an encoder handed it compares the whole
    /// base with it.
    fn unnoted(state: &ServerState<EntityState>) -> ServerState<EntityState> {
        state.iter().map(|(eid, e)| (*eid, e.clone())).collect()
    }

    /// A frame of noted states (the presenter's) is the frame of the whole walk, byte for byte:
    /// the same scenarios as the stream's property tests (spawns, despawns, new lives, events,
    /// far tiers), acknowledged irregularly, with keyframe requests.
    #[test]
    fn frames_of_noted_states_are_the_frames_of_the_whole_walk() {
        let mut noted_frames = 0;
        for seed in 0..60u64 {
            let shape = super::super::harness::Shape {
                ticks: 120,
                entities: 12,
                churn: 0.03,
                ..Default::default()
            };
            let s = super::super::harness::from_seed(shape, seed);
            let (mut world, mut lives) = (World::new(), std::collections::BTreeMap::new());
            let mut presenter = Presenter::new(s.view.clone());
            let mut noted = ReferenceEncoder::new(Held::default());
            let mut whole = ReferenceEncoder::new(Held::default());
            for (t, ops) in (1u32..).zip(&s.script) {
                let events = super::super::harness::apply_ops(&mut world, &mut lives, ops);
                let state = presenter.present(t, &world);
                if let Some(last) = noted.given.as_ref() {
                    noted_frames += usize::from(state.changed_since(last).is_some());
                }
                let copy = unnoted(&state);
                let a = noted.encode(t, state, events.clone()).unwrap();
                let b = whole.encode(t, copy, events).unwrap();
                assert_eq!(a.bytes, b.bytes, "seed {seed}, tick {t}");
                // Acks of a tick 2 to 7 back, some lost; now and then a keyframe request.
                let back = 2 + (seed as u32 + t) % 6;
                if t > back && !(t + seed as u32).is_multiple_of(5) {
                    let request = (t * 7 + seed as u32).is_multiple_of(97);
                    for e in [&mut noted, &mut whole] {
                        e.on_ack(u64::from(t), t - back, request, 0, std::iter::empty());
                    }
                }
            }
        }
        assert!(
            noted_frames > 5_000,
            "the notes were hardly taken: {noted_frames}"
        );
    }

    /// Issue 17: a frame examines the ids changed since its base, not the world. The same 16
    /// movers in a world of 64 and of 8,192 entities, each frame onto a base 6 ticks old: the
    /// ids examined per frame are the same counts in both, and within the 16.
    #[test]
    fn a_frame_examines_what_changed_since_its_base_never_the_world() {
        let mut counts = Vec::new();
        for n in [64u16, 8192] {
            let mut presenter = Presenter::new(ViewConfig {
                own: vec![],
                tier: crate::tier::TierBoundary::new(-1.0, -1.0),
                far_every: 1,
            });
            let mut encoder = ReferenceEncoder::new(Held::default());
            let mut world: World = (0..n)
                .map(|eid| (eid, at_x(f32::from(eid % 100))))
                .collect();
            let mut per_frame = Vec::new();
            for t in 1..=40u32 {
                for eid in 0..16 {
                    if let Some(e) = world.get_mut(&eid) {
                        e.x += 0.25;
                    }
                }
                if t > 6 {
                    encoder.on_ack(u64::from(t), t - 6, false, 0, std::iter::empty());
                }
                let state = presenter.present(t, &world);
                super::super::moves::take_examined();
                encoder.encode(t, state, std::iter::empty()).unwrap();
                let examined = super::super::moves::take_examined();
                if t > 7 {
                    assert!(examined <= 16, "tick {t}: {examined} ids examined");
                    per_frame.push(examined);
                }
            }
            counts.push(per_frame);
        }
        assert_eq!(counts[0], counts[1], "the world's size changed the work");
    }

    /// Issue 38: on the change-driven path, a tick's work for a client follows what changed,
    /// never the world. The same 16 movers (the client's own among them, so its tier boundary
    /// moves) and an entity respawned every 10 ticks, among 512 entities and then among 512
    /// plus 7,680 that never change, far off; each frame onto a base 6 ticks old: the entities
    /// presented, the queue entries walked, the ids the encoder examined and the entries moved
    /// in its states are counted (never timed). The counts of the two worlds are within a
    /// constant of each other, and a few per change. (Outside the count: the check every
    /// CHECK_EVERY frames, a hash over the state, and the keyframes.)
    #[test]
    fn a_ticks_work_on_the_change_driven_path_follows_the_changes_not_the_world() {
        use super::super::{moves, Groups, WorldChanges};
        let mut totals = Vec::new();
        for extra in [0u16, 7680] {
            let mut presenter = Presenter::new(ViewConfig {
                own: vec![0],
                ..ViewConfig::default()
            });
            let mut encoder = ReferenceEncoder::new(Held::default());
            let mut world: World = (0..512u16)
                .map(|eid| {
                    let mut e = at_x(f32::from(eid % 32) * 2.0);
                    e.y = f32::from(eid / 32) * 2.0;
                    (eid, e)
                })
                .chain((512..512 + extra).map(|eid| (eid, at_x(2_000.0 + f32::from(eid)))))
                .collect();
            let mut changes = WorldChanges::new();
            changes.spawned.extend(world.keys());
            let (mut per_tick, mut rebuilds) = (Vec::new(), 0);
            for t in 1..=200u32 {
                if t > 1 {
                    changes.clear();
                    for eid in 0..16u16 {
                        let e = world.get_mut(&(eid * 7)).unwrap();
                        e.x += 0.3;
                        changes.changed.push((eid * 7, Groups::POSE));
                    }
                    if t % 10 == 0 {
                        world.get_mut(&100).unwrap().life += 1;
                        changes.spawned.push(100);
                    }
                }
                if t > 6 {
                    encoder.on_ack(u64::from(t), t - 6, false, 0, std::iter::empty());
                }
                moves::take();
                moves::take_examined();
                moves::take_judged();
                let edits = presenter.present_changes(t, &world, &changes);
                encoder.encode_edits(t, edits, std::iter::empty()).unwrap();
                let (judged, queued, rebuilt) = moves::take_judged();
                let ops = judged + queued + moves::take_examined() + moves::take();
                if t > 7 {
                    per_tick.push(ops);
                    rebuilds += rebuilt;
                }
            }
            let most = per_tick.iter().copied().max().unwrap_or(0);
            assert!(
                most <= 40 * 17,
                "{} entities: {most} operations in a tick for 17 changes",
                512 + extra
            );
            totals.push(per_tick.iter().sum::<u64>() + rebuilds);
            eprintln!(
                "{} entities: at most {most} operations a tick, {} in {} ticks",
                512 + extra,
                totals.last().unwrap_or(&0),
                per_tick.len()
            );
        }
        // The presenter's queues are rebuilt from their live entries once their dropped ones
        // outnumber them (amortized over the entries pushed, at other ticks in the two worlds):
        // counted in the totals, not in each tick's.
        assert!(
            totals[1] <= totals[0] + totals[0] / 4,
            "a world 16 times larger: {} operations against {}",
            totals[1],
            totals[0]
        );
    }
}
