//! The server's side of acked snapshots (`docs/spec/acked.md`): the per-client acked encoder over
//! this crate's input schedule, and a [`harness`] that drives the whole stream through it.
//!
//! The encoder ([`AckedEncoder`]), the reference [`Presenter`] that computes each client's S_N, and
//! the harness's world, network and checks are defined in `ackwire-codec` (`ackwire_codec::acked`)
//! beside the client's AckedDecoder, and re-exported here: both halves of every session machine
//! live in the codec, as datagram v2, NetBaseline and delta streaming do. What the encoder needs of
//! the server is reached through the codec's [`InputSink`] trait, which [`ScheduledInputs`]
//! implements over an [`InputSchedule`] (SRV-12 to SRV-16); the presenter's near tier is a
//! [`TierBoundary`](crate::relevance::TierBoundary), defined in the codec and re-exported by
//! [`relevance`](crate::relevance).
//!
//! ```
//! use ackwire_server::acked::{ExecuteDue, Presenter, ReferenceEncoder, ViewConfig, World};
//! use ackwire_server::input_schedule::InputWindow;
//!
//! let mut presenter = Presenter::new(ViewConfig::default());
//! let mut encoder = ReferenceEncoder::new(InputWindow::new(4, 64));
//! let world = World::new();
//! let _ = encoder.execute_due(1);
//! let out = encoder.encode(1, presenter.present(1, &world), []).unwrap();
//! assert!(out.frame.keyframe);
//! ```
//!
//! Sans-IO: ticks are arguments, nothing reads a clock, opens a socket or starts a thread.

use crate::input_schedule::{InputSchedule, InputWindow, Submission};
use ackwire_codec::acked::{AckedSchema, InputSink, Reference};
use ackwire_codec::protocol::Input;

pub use ackwire_codec::acked::{
    AckVerdict, Edit, EncoderCounters, Groups, Outgoing, Presenter, ViewConfig, World,
    WorldChanges, WorldEntity, MAX_BUFFERED_INPUTS, POSE_REFRESH,
};

pub mod harness;

/// A client's inputs as the acked encoder hands them on: this crate's [`InputSchedule`], judging
/// each input by a window (SRV-12: the input executes on the server tick it names).
#[derive(Debug, Clone)]
pub struct ScheduledInputs<I> {
    schedule: InputSchedule<I>,
    window: InputWindow,
}

impl<I> ScheduledInputs<I> {
    /// An empty schedule judging inputs by `window`.
    pub fn new(window: InputWindow) -> Self {
        Self {
            schedule: InputSchedule::new(),
            window,
        }
    }

    /// The schedule, for its counters.
    pub fn schedule(&self) -> &InputSchedule<I> {
        &self.schedule
    }

    /// The schedule, to execute or drain it.
    pub fn schedule_mut(&mut self) -> &mut InputSchedule<I> {
        &mut self.schedule
    }

    /// The window inputs are judged by.
    pub fn window(&self) -> InputWindow {
        self.window
    }

    /// How many inputs are buffered.
    pub fn pending(&self) -> usize {
        self.schedule.pending()
    }

    /// The input to apply on tick `current` (level semantics, SRV-15).
    pub fn execute_due(&mut self, current: u64) -> Option<I> {
        self.schedule.execute_due(current)
    }
}

impl<I> From<InputWindow> for ScheduledInputs<I> {
    fn from(window: InputWindow) -> Self {
        Self::new(window)
    }
}

impl<I> InputSink for ScheduledInputs<I> {
    type Input = I;

    fn submit(&mut self, _seq: u32, tick: u32, input: I, current: u64) {
        let _: Submission = self
            .schedule
            .submit(u64::from(tick), input, current, self.window);
    }

    fn pending(&self) -> usize {
        self.schedule.pending()
    }
}

/// The server's per-client acked encoder (ACK-17 to ACK-28) over this crate's input schedule:
/// `ackwire_codec::acked::AckedEncoder` with [`ScheduledInputs`]. `AckedEncoder::new` takes the
/// [`InputWindow`] the inputs are judged by.
pub type AckedEncoder<S, I = Input> = ackwire_codec::acked::AckedEncoder<S, ScheduledInputs<I>>;

/// The acked encoder of the reference schema.
pub type ReferenceEncoder = AckedEncoder<Reference, Input>;

/// Executing a client's inputs through its encoder: the schedule is the encoder's
/// [`InputSink`], and executing it is the schedule's business, never the encoder's.
pub trait ExecuteDue<I> {
    /// The input to apply on tick `current` (level semantics, SRV-15).
    fn execute_due(&mut self, current: u64) -> Option<I>;
}

impl<S: AckedSchema, I> ExecuteDue<I> for AckedEncoder<S, I> {
    fn execute_due(&mut self, current: u64) -> Option<I> {
        self.inputs_mut().execute_due(current)
    }
}

#[cfg(test)]
mod tests {
    use super::harness::{from_seed, run, Shape};
    use super::*;

    #[test]
    fn a_lossless_stream_equals_the_ordered_one() {
        let s = from_seed(
            Shape {
                loss: 0.0,
                duplicate: 0.0,
                jitter: 0,
                ..Shape::default()
            },
            1,
        );
        let out = run(&s).unwrap();
        // Frame 2 goes before the ack of frame 1 arrives.
        assert_eq!(out.keyframes, 2);
        assert_eq!(out.events_expired, 0);
        assert_eq!(out.events_shown, out.events);
    }

    #[test]
    fn lossy_streams_equal_the_ordered_one() {
        for seed in 0..40 {
            let s = from_seed(Shape::default(), seed);
            if let Err(e) = run(&s) {
                panic!("seed {seed}: {e}");
            }
        }
    }

    /// Over the server's input schedule: most of the flood is refused by the window, the
    /// rest held within MAX_BUFFERED_INPUTS.
    #[test]
    fn input_floods_and_sequence_jumps_stay_bounded() {
        let mut e = ReferenceEncoder::new(InputWindow::new(4, 64));
        super::harness::input_flood(&mut e).unwrap();
    }
}
