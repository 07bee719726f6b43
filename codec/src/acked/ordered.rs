//! The ordered deltas: every frame onto the one before it (five-on-it's snapshot-v2), the
//! reference the acked stream is held to.
//!
//! ACK-37: the ordered deltas apply every frame onto the one before it, over a lossless link, and
//! GEN-3 holds the acked stream to them: every frame the acked client shows is what this ordered
//! client shows at that tick. This encoder is that ordered client's server: the acked tests and the
//! property test compare what the acked client shows with what this one produces, frame by frame.

use super::{apply_frame, delta, server_check, AckedFrame, AckedSchema, FrameOf, Inapplicable};
use super::{ServerState, State};
use crate::EncodeError;

/// Writes each frame onto the one before it: the first is a keyframe, every later one names
/// the previous frame as its base. Each event goes once, in the frame of its tick, with a serial
/// per client counting from 1.
#[derive(Debug, Clone)]
pub struct OrderedEncoder<S: AckedSchema> {
    schema: S,
    prev: Option<(u32, ServerState<S::Record>)>,
    next_serial: u32,
}

impl<S: AckedSchema + Default> Default for OrderedEncoder<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: AckedSchema + Default> OrderedEncoder<S> {
    /// An encoder of the schema's default value that has sent nothing.
    pub fn new() -> Self {
        Self::with_schema(S::default())
    }
}

impl<S: AckedSchema> OrderedEncoder<S> {
    /// An encoder of `schema` that has sent nothing.
    pub fn with_schema(schema: S) -> Self {
        Self {
            schema,
            prev: None,
            next_serial: 1,
        }
    }

    /// The frame of tick `tick`, turning the previous frame's state into `next`, with `events`.
    /// A check follows the header when `tick` is a multiple of CHECK_EVERY.
    pub fn encode(
        &mut self,
        tick: u32,
        next: ServerState<S::Record>,
        events: Vec<S::Event>,
    ) -> Result<FrameOf<S>, EncodeError> {
        let base = self.prev.as_ref().map(|(_, s)| s);
        let (removed, changes) = delta(&self.schema, base, &next, tick)?;
        let first_serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(events.len() as u32);
        let frame = AckedFrame {
            tick,
            base_tick: self.prev.as_ref().map_or(0, |(t, _)| *t),
            last_seq: 0,
            input_buffer: 0,
            keyframe: self.prev.is_none(),
            check: tick
                .is_multiple_of(self.schema.check_every())
                .then(|| server_check(&self.schema, &next)),
            removed,
            changes,
            first_serial,
            events,
        };
        self.prev = Some((tick, next));
        Ok(frame)
    }
}

/// Applies ordered frames, each onto the one before it.
#[derive(Debug, Clone)]
pub struct OrderedDecoder<S: AckedSchema> {
    schema: S,
    state: Option<(u32, State<S::Record>)>,
}

impl<S: AckedSchema + Default> Default for OrderedDecoder<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: AckedSchema + Default> OrderedDecoder<S> {
    /// A decoder of the schema's default value that holds nothing.
    pub fn new() -> Self {
        Self::with_schema(S::default())
    }
}

impl<S: AckedSchema> OrderedDecoder<S> {
    /// A decoder of `schema` that holds nothing.
    pub fn with_schema(schema: S) -> Self {
        Self {
            schema,
            state: None,
        }
    }

    /// Applies `frame`, which must name the frame before it as its base (or be a keyframe), and
    /// whose check, when present, must match.
    pub fn apply(&mut self, frame: &FrameOf<S>) -> Result<&State<S::Record>, Inapplicable> {
        let base = match (&self.state, frame.keyframe) {
            (_, true) => None,
            (Some((t, s)), false) if *t == frame.base_tick => Some(s),
            _ => return Err(Inapplicable("an ordered frame not onto the one before it")),
        };
        let next = apply_frame(&self.schema, base, frame)?;
        if let Some(c) = frame.check {
            if super::state_check(&self.schema, next.iter().map(|(e, r)| (*e, r))) != c {
                return Err(Inapplicable("the check does not match"));
            }
        }
        self.state = Some((frame.tick, next));
        Ok(&self.state.as_ref().expect("just set").1)
    }

    /// The tick and state of the last frame applied.
    pub fn state(&self) -> Option<(u32, &State<S::Record>)> {
        self.state.as_ref().map(|(t, s)| (*t, s))
    }
}
