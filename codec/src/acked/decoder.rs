//! The client's AckedDecoder (seed 000).

use super::{apply_frame, state_check, AckedSchema, State};
use crate::DecodeError;
use std::collections::VecDeque;

/// What the client's AckedDecoder has done, for meters and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecoderCounters {
    /// Frames applied and shown.
    pub applied: u64,
    /// Frames not newer than the last applied, dropped.
    pub stale: u64,
    /// Frames whose base the decoder does not hold, dropped.
    pub unknown_base: u64,
    /// Frames that did not decode.
    pub undecodable: u64,
    /// Frames that decoded but could not apply onto their base.
    pub inapplicable: u64,
    /// Checks that matched.
    pub checks_passed: u64,
    /// Checks that did not match.
    pub checks_failed: u64,
    /// Events shown.
    pub events_shown: u64,
}

/// What an applied frame changed, told against the last frame shown, not the base.
///
/// Seed 000: "What it tells of a frame (the entities changed, those measured and when, those
/// gone, their tiers) is against the last frame it showed, not the base: a pose carried again
/// that the client already showed is no new measurement."
#[derive(Debug, Clone, PartialEq)]
pub struct FrameReport<E> {
    /// The frame's tick.
    pub tick: u32,
    /// The tick of the frame it applied onto (0 for a keyframe).
    pub base_tick: u32,
    /// Whether it was a keyframe.
    pub keyframe: bool,
    /// Entities whose record differs from the last frame shown (or that it did not hold).
    pub changed: Vec<u16>,
    /// Entities with a pose measured since the last frame shown, and the tick it was measured.
    pub measured: Vec<(u16, u32)>,
    /// Entities the last frame shown held and this one does not.
    pub gone: Vec<u16>,
    /// The tier of each changed entity as the client sees it: whether its pose came full.
    pub tiers: Vec<(u16, bool)>,
    /// The events shown for the first time, with their serials.
    pub events: Vec<(u32, E)>,
    /// The check's verdict, when the frame carried one.
    pub check: Option<bool>,
}

/// What the decoder did with a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery<E> {
    /// Applied and shown.
    Shown(FrameReport<E>),
    /// Not newer than the last frame applied: dropped, counted.
    Stale {
        /// The frame's tick.
        tick: u32,
    },
    /// Its base is not held: dropped, counted.
    UnknownBase {
        /// The frame's tick.
        tick: u32,
        /// The base it named.
        base_tick: u32,
    },
    /// The bytes are not a frame.
    Undecodable(DecodeError),
    /// A frame that cannot apply onto the base it named.
    Inapplicable {
        /// The frame's tick.
        tick: u32,
        /// Why.
        why: &'static str,
    },
}

/// The client's half of the acked stream (seed 000): holds the states of its last HELD_RING
/// frames by tick, applies each frame onto the base it names, shows each event once.
///
/// Feed it every kind 6 frame with [`deliver`](Self::deliver); after each, answer with a kind 7
/// frame acknowledging [`ack_tick`](Self::ack_tick) (see [`super::AckWriter`]). It never
/// panics and never grows past HELD_RING states, whatever it is fed.
#[derive(Debug, Clone)]
pub struct AckedDecoder<S: AckedSchema> {
    /// Seed 000: "The client's AckedDecoder keeps the states of its last HELD_RING frames by
    /// tick", oldest first.
    /// Shared with `shown` when the newest frame is held too (a [`State`] clone is a
    /// reference count): a frame's state is built once.
    held: VecDeque<(u32, State<S::Record>)>,
    /// The last frame shown.
    shown: Option<(u32, State<S::Record>)>,
    newest_serial: Option<u32>,
    keyframe_wanted: bool,
    last_seq: u32,
    input_buffer: u8,
    counters: DecoderCounters,
}

impl<S: AckedSchema> Default for AckedDecoder<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: AckedSchema> AckedDecoder<S> {
    /// A decoder that holds nothing and has shown nothing.
    pub fn new() -> Self {
        Self {
            held: VecDeque::new(),
            shown: None,
            newest_serial: None,
            keyframe_wanted: false,
            last_seq: 0,
            input_buffer: 0,
            counters: DecoderCounters::default(),
        }
    }

    /// Takes one frame's bytes.
    pub fn deliver(&mut self, bytes: &[u8]) -> Delivery<S::Event> {
        let frame = match S::decode_frame(bytes) {
            Ok(f) => f,
            Err(e) => {
                self.counters.undecodable += 1;
                return Delivery::Undecodable(e);
            }
        };
        // Seed 000: "a frame not newer than the last it applied is stale and dropped too."
        if self.shown.as_ref().is_some_and(|(t, _)| frame.tick <= *t) {
            self.counters.stale += 1;
            return Delivery::Stale { tick: frame.tick };
        }
        // Seed 000: "a frame whose base it no longer holds (or never got) is dropped without a
        // word (the next frame, on a newer acknowledgement, will come)". While a keyframe is
        // wanted the decoder holds nothing, so only a keyframe applies.
        let base = if frame.keyframe {
            None
        } else {
            match self.held.iter().find(|(t, _)| *t == frame.base_tick) {
                Some((_, s)) => Some(s),
                None => {
                    self.counters.unknown_base += 1;
                    return Delivery::UnknownBase {
                        tick: frame.tick,
                        base_tick: frame.base_tick,
                    };
                }
            }
        };
        let state = match apply_frame::<S>(base, &frame) {
            Ok(s) => s,
            Err(why) => {
                self.counters.inapplicable += 1;
                return Delivery::Inapplicable {
                    tick: frame.tick,
                    why: why.0,
                };
            }
        };
        // Seed 000: "Every CHECK_EVERY frames a check follows the header, the ordered deltas'
        // FNV-1a of every record of the state the frame produces."
        let check = frame
            .check
            .map(|c| state_check::<S>(state.iter().map(|(e, r)| (*e, r))) == c);
        match check {
            Some(true) => self.counters.checks_passed += 1,
            Some(false) => self.counters.checks_failed += 1,
            None => {}
        }
        let report = self.report(&frame, &state, check);
        self.counters.applied += 1;
        self.last_seq = frame.last_seq;
        self.input_buffer = frame.input_buffer;
        if check == Some(false) {
            // A mismatch: every state held may be wrong. Hold nothing, acknowledge nothing and
            // ask for a keyframe (AckFlags::KEYFRAME_REQUEST, acked.wire) until one applies.
            self.keyframe_wanted = true;
            self.held.clear();
        } else {
            if frame.keyframe {
                self.keyframe_wanted = false;
            }
            if !self.keyframe_wanted {
                self.held.push_back((frame.tick, state.clone()));
                while self.held.len() > S::HELD_RING {
                    self.held.pop_front();
                }
            }
        }
        self.shown = Some((frame.tick, state));
        Delivery::Shown(report)
    }

    /// The report of `frame` producing `state`, against the last frame shown; marks its new
    /// events shown.
    fn report(
        &mut self,
        frame: &super::FrameOf<S>,
        state: &State<S::Record>,
        check: Option<bool>,
    ) -> FrameReport<S::Event> {
        let empty = State::new();
        let before = self.shown.as_ref().map_or(&empty, |(_, s)| s);
        let mut report = FrameReport {
            tick: frame.tick,
            base_tick: frame.base_tick,
            keyframe: frame.keyframe,
            changed: Vec::new(),
            measured: Vec::new(),
            gone: Vec::new(),
            tiers: Vec::new(),
            events: Vec::new(),
            check,
        };
        // Both states ascend by id: one walk over the two, no lookups.
        let mut held = before.iter().peekable();
        for (eid, r) in state {
            while let Some((gone, _)) = held.next_if(|(id, _)| *id < eid) {
                report.gone.push(*gone);
            }
            let old = held.next_if(|(id, _)| *id == eid).map(|(_, old)| old);
            if old == Some(r) {
                continue;
            }
            report.changed.push(*eid);
            if let Some(m) = S::measured(r) {
                if old.and_then(S::measured) != Some(m) {
                    report.measured.push((*eid, m));
                }
            }
            if let Some(full) = S::pose_full(r) {
                report.tiers.push((*eid, full));
            }
        }
        report.gone.extend(held.map(|(eid, _)| *eid));
        // Seed 000: "the client shows each once, above the newest serial it has shown."
        for (i, event) in frame.events.iter().enumerate() {
            // Modulo 2^32, as the server numbers them (OrderedEncoder): `i` is below 256 (a u8
            // count on the wire), so the narrowing is exact and a first_serial near u32::MAX
            // wraps rather than panics.
            let serial = frame.first_serial.wrapping_add(i as u32);
            if self.newest_serial.is_none_or(|n| serial > n) {
                self.newest_serial = Some(serial);
                self.counters.events_shown += 1;
                report.events.push((serial, event.clone()));
            }
        }
        report
    }

    /// The tick of the newest frame applied, which the next kind 7 frame acknowledges; 0
    /// before the first and while a keyframe is wanted ("acknowledges nothing until one
    /// arrives", AckFlags::KEYFRAME_REQUEST in acked.wire).
    pub fn ack_tick(&self) -> u32 {
        if self.keyframe_wanted {
            return 0;
        }
        self.shown.as_ref().map_or(0, |(t, _)| *t)
    }

    /// Whether a check failed and no keyframe has applied since: the next kind 7 frames set
    /// KEYFRAME_REQUEST.
    pub fn keyframe_wanted(&self) -> bool {
        self.keyframe_wanted
    }

    /// The last frame shown: its tick and state.
    pub fn shown(&self) -> Option<(u32, &State<S::Record>)> {
        self.shown.as_ref().map(|(t, s)| (*t, s))
    }

    /// The check of the state shown (of an empty state before the first frame).
    pub fn state_hash(&self) -> u32 {
        match &self.shown {
            Some((_, s)) => state_check::<S>(s.iter().map(|(e, r)| (*e, r))),
            None => state_check::<S>(std::iter::empty()),
        }
    }

    /// The newest input sequence the server said it processed (`last_seq` of the last frame
    /// applied).
    pub fn last_seq(&self) -> u32 {
        self.last_seq
    }

    /// How many inputs the server said it holds (`input_buffer` of the last frame applied).
    pub fn input_buffer(&self) -> u8 {
        self.input_buffer
    }

    /// How many frame states are held.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// What the decoder has done.
    pub fn counters(&self) -> DecoderCounters {
        self.counters
    }

    /// Changes every record the decoder holds and shows through `f`: a memory corruption, for
    /// tests and the conformance scenario that the check must catch.
    pub fn tamper(&mut self, mut f: impl FnMut(u16, &mut S::Record)) {
        // A state shared by `held` and `shown` is copied apart first, so each is changed
        // once, as two copies would be.
        for (_, state) in self.held.iter_mut().chain(self.shown.iter_mut()) {
            for (eid, r) in state.iter_mut() {
                f(*eid, r);
            }
        }
    }
}
