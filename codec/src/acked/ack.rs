//! The client's kind 7 writer: the ack of the newest frame applied, and the recent inputs.
//!
//! ACK-10 to ACK-13: each frame goes onto the newest frame the client has acknowledged, and that
//! acknowledgement rides on the client's input frames. The ack is what the server chooses bases by,
//! so this writer always names the newest frame the client applied (ACK-11); and since the frames
//! carrying it are lost like any other, every frame repeats the inputs not yet processed (ACK-12).

use super::AckContent;
use crate::protocol::Input;
use std::collections::VecDeque;

/// Builds the client's kind 7 frames (ACK-10 to ACK-12: the tick of the newest frame applied, and
/// the recent inputs, each with its sequence number and the server tick it aims at, repeated over
/// several frames so that a lost frame loses no input).
///
/// Inputs are numbered from 1 and kept until the server's `last_seq` (in its kind 6 frames)
/// says it processed them, or until more than `keep` newer ones have been pushed; every frame
/// carries all of those kept, oldest first.
#[derive(Debug, Clone)]
pub struct AckWriter<I = Input> {
    pending: VecDeque<(u32, I)>,
    next_seq: u32,
    keep: usize,
}

impl<I: Clone> AckWriter<I> {
    /// A writer that repeats at most `keep` inputs (at most 255, the count's width).
    pub fn new(keep: usize) -> Self {
        Self {
            pending: VecDeque::new(),
            next_seq: 1,
            keep: keep.clamp(1, usize::from(u8::MAX)),
        }
    }

    /// Adds an input; returns its sequence number.
    pub fn push(&mut self, input: I) -> u32 {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        self.pending.push_back((seq, input));
        while self.pending.len() > self.keep {
            self.pending.pop_front();
        }
        seq
    }

    /// The server processed every input up to `last_seq`: stop repeating them.
    pub fn confirm(&mut self, last_seq: u32) {
        while self.pending.front().is_some_and(|(s, _)| *s <= last_seq) {
            self.pending.pop_front();
        }
    }

    /// The inputs still repeated, oldest first, with their sequence numbers.
    pub fn pending(&self) -> impl Iterator<Item = &(u32, I)> {
        self.pending.iter()
    }

    /// The kind 7 frame acknowledging `ack_tick`, with every input still repeated;
    /// `keyframe_request` asks for a keyframe (the client's check failed and it holds no base:
    /// acked.wire, AckFlags), and the frame then acknowledges nothing.
    pub fn content(&self, ack_tick: u32, keyframe_request: bool) -> AckContent<I> {
        AckContent {
            ack_tick: if keyframe_request { 0 } else { ack_tick },
            keyframe_request,
            first_seq: self.pending.front().map_or(0, |(s, _)| *s),
            inputs: self.pending.iter().map(|(_, i)| i.clone()).collect(),
        }
    }
}
