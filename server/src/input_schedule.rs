//! Input scheduling (SRV-12 to SRV-16): tick-addressed input buffering, the server side of two
//! players who pressed together executing together, whatever their ping.
//!
//! A client names **the server's own tick** its input is meant for, and the server buffers the
//! input until that tick runs. The window ([`InputWindow`]) decides which ticks are still open;
//! [`InputSchedule`] holds one seat's inputs and the counters that judge the window.
//!
//! The window rejects, it never corrects (SRV-13). The current tick is derived, never counted
//! (SRV-16): everything here takes `current` as an argument, because the schedule must not own
//! a tick counter that a world rebuild could put out of step with the simulation clock.
//!
//! This is the model where the server executes inputs on the tick the client *named*. The other
//! model (apply on arrival, newest sequence wins) needs a sequence frontier, not this block.

use std::collections::BTreeMap;

/// The accepting window, in ticks either side of the current one (SRV-13).
///
/// A live setting rather than a construction-time constant: it is passed to every
/// [`InputSchedule::submit`], because tuning it *is* the experiment. Tighter is fairer and
/// rubber-bands slow links sooner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputWindow {
    /// How many ticks past its named tick an input is still accepted; it then executes on the
    /// next tick to run, and is counted late.
    pub max_late: u64,
    /// How far ahead of the current tick an input may aim before it reads as parking inputs in
    /// the future.
    pub max_early: u64,
}

impl InputWindow {
    /// A window accepting inputs up to `max_late` ticks behind and `max_early` ahead.
    #[must_use]
    pub const fn new(max_late: u64, max_early: u64) -> Self {
        Self {
            max_late,
            max_early,
        }
    }
}

/// What [`InputSchedule::submit`] decided (SRV-13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Submission {
    /// Buffered for its tick.
    Scheduled,
    /// Buffered, but its tick has already passed inside the window: it executes on the next
    /// tick to run. A steady stream of these says the window is too tight for whoever is
    /// connected.
    Late,
    /// Named a tick already simulated and outside the window; dropped, because reopening a
    /// closed tick is exactly the rewrite of history a lag switch is trying to buy.
    TickClosed,
    /// Named a tick too far ahead; dropped.
    TooFarAhead,
}

impl Submission {
    /// Whether the input was buffered at all ([`Scheduled`](Self::Scheduled) or
    /// [`Late`](Self::Late)).
    #[must_use]
    pub const fn accepted(&self) -> bool {
        matches!(self, Self::Scheduled | Self::Late)
    }
}

/// One seat's buffered inputs and the counters that judge the window (SRV-12). Keep one
/// per seat.
///
/// The inbox is bounded in time by the window (nothing is buffered more than `max_early`
/// ticks ahead); a game that also wants a bound on inputs per tick enforces it before
/// `submit`.
#[derive(Clone, Debug)]
pub struct InputSchedule<Input> {
    /// Buffered inputs by execution tick, each tick's in arrival order.
    queue: BTreeMap<u64, Vec<Input>>,
    /// How many inputs `queue` holds: [`pending`](Self::pending) is asked for every input a
    /// client sends (the acked encoder's bound), so it must not walk the ticks.
    pending: usize,
    /// The newest tick on which an input of this seat was executed.
    executed_through: Option<u64>,
    accepted: u64,
    late: u64,
    rejected_closed: u64,
    rejected_ahead: u64,
    last_reject_margin: Option<i64>,
}

impl<Input> Default for InputSchedule<Input> {
    fn default() -> Self {
        Self::new()
    }
}

impl<Input> InputSchedule<Input> {
    /// An empty schedule with zeroed counters.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            queue: BTreeMap::new(),
            pending: 0,
            executed_through: None,
            accepted: 0,
            late: 0,
            rejected_closed: 0,
            rejected_ahead: 0,
            last_reject_margin: None,
        }
    }

    /// Offers an input naming `tick`, judged against `current` (the tick the simulation is on
    /// now, derived from its clock) and `window`.
    ///
    /// - `tick > current + max_early`: [`Submission::TooFarAhead`], dropped.
    /// - `tick < current - max_late`: [`Submission::TickClosed`], dropped (SRV-13: an input
    ///   for a tick already simulated is **dropped**, not shifted into the window).
    /// - `current - max_late <= tick < current`: [`Submission::Late`], executes on `current`.
    /// - otherwise [`Submission::Scheduled`] for `tick`.
    ///
    /// SRV-14: the execution tick is clamped never to fall behind anything already executed
    /// for this seat, so a client cannot reorder its own history by naming earlier ticks. The
    /// verdict itself depends only on `tick`, `current` and `window`.
    pub fn submit(
        &mut self,
        tick: u64,
        input: Input,
        current: u64,
        window: InputWindow,
    ) -> Submission {
        if tick > current.saturating_add(window.max_early) {
            self.rejected_ahead = self.rejected_ahead.saturating_add(1);
            self.last_reject_margin = Some(margin(tick, current));
            return Submission::TooFarAhead;
        }
        let late = tick < current;
        if late && current - tick > window.max_late {
            self.rejected_closed = self.rejected_closed.saturating_add(1);
            self.last_reject_margin = Some(margin(tick, current));
            return Submission::TickClosed;
        }
        let named_or_next = if late { current } else { tick };
        let execute_on = match self.executed_through {
            Some(executed) => named_or_next.max(executed),
            None => named_or_next,
        };
        self.queue.entry(execute_on).or_default().push(input);
        self.pending = self.pending.saturating_add(1);
        self.accepted = self.accepted.saturating_add(1);
        if late {
            self.late = self.late.saturating_add(1);
            Submission::Late
        } else {
            Submission::Scheduled
        }
    }

    /// Takes every buffered input due on `current` (execution tick at or before it), in
    /// scheduled order.
    fn take_due(&mut self, current: u64) -> BTreeMap<u64, Vec<Input>> {
        let later = match current.checked_add(1) {
            Some(next) => self.queue.split_off(&next),
            None => BTreeMap::new(),
        };
        let due = std::mem::replace(&mut self.queue, later);
        // Only the due ticks are counted: what stays is not walked.
        let taken: usize = due.values().map(Vec::len).sum();
        self.pending = self.pending.saturating_sub(taken);
        if !due.is_empty() {
            self.executed_through = Some(self.executed_through.map_or(current, |t| t.max(current)));
        }
        due
    }

    /// The input to apply on tick `current`, if any has come due: **level semantics**, for an
    /// input that is a held state (a direction, a throttle).
    ///
    /// SRV-15: within one step the newest due input wins, a held direction being a level rather
    /// than an edge. Newest means last in scheduled order (latest execution
    /// tick, then latest arrival); every other due input is consumed and discarded. Call once
    /// per simulation step, not per network frame. Wrong for discrete actions: use
    /// [`drain_due`](Self::drain_due) for those, in a second schedule.
    pub fn execute_due(&mut self, current: u64) -> Option<Input> {
        self.take_due(current).into_values().flatten().last()
    }

    /// Every input due on tick `current`, in scheduled order: **event semantics**, for inputs
    /// that are discrete actions where each one matters (a fire, a jump).
    ///
    /// The due inputs leave the schedule when this is called, whether or not the iterator is
    /// consumed.
    pub fn drain_due(&mut self, current: u64) -> impl Iterator<Item = Input> + '_ {
        self.take_due(current).into_values().flatten()
    }

    /// Drops everything buffered, for a seat being vacated.
    ///
    /// SRV-16: the counters survive, since they describe the session, not the occupant. The
    /// execution floor (the newest tick an input ran on) survives too: it is a tick of the
    /// simulation, which did not go back.
    pub fn clear(&mut self) {
        self.queue.clear();
        self.pending = 0;
    }

    /// How many inputs are buffered; constant time (a running count).
    #[must_use]
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// The earliest tick an input is buffered to execute on, if any.
    #[must_use]
    pub fn next_tick(&self) -> Option<u64> {
        self.queue.keys().next().copied()
    }

    /// Inputs buffered, scheduled plus late: the denominator every other count needs.
    #[must_use]
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Inputs accepted after their tick had passed.
    #[must_use]
    pub fn late(&self) -> u64 {
        self.late
    }

    /// Inputs dropped for naming a closed or far-future tick.
    #[must_use]
    pub fn rejected(&self) -> u64 {
        self.rejected_closed.saturating_add(self.rejected_ahead)
    }

    /// The same drops by side: `(closed tick, too far ahead)`.
    #[must_use]
    pub fn rejected_split(&self) -> (u64, u64) {
        (self.rejected_closed, self.rejected_ahead)
    }

    /// `named - current` at the most recent rejection, in ticks (saturating at the `i64`
    /// range). Negative is behind the simulation, positive is ahead of it; `None` until
    /// something has been rejected.
    #[must_use]
    pub fn last_reject_margin(&self) -> Option<i64> {
        self.last_reject_margin
    }
}

/// `named - current` as an `i64`, saturating.
fn margin(named: u64, current: u64) -> i64 {
    let difference = i128::from(named) - i128::from(current);
    i64::try_from(difference).unwrap_or(if difference < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: InputWindow = InputWindow::new(2, 10);

    #[test]
    fn an_input_for_a_future_tick_waits_for_its_tick() {
        let mut schedule = InputSchedule::new();
        assert_eq!(
            schedule.submit(105, 'a', 100, WINDOW),
            Submission::Scheduled
        );
        assert_eq!(schedule.execute_due(104), None);
        assert_eq!(schedule.execute_due(105), Some('a'));
        assert_eq!(schedule.execute_due(106), None);
    }

    #[test]
    fn an_input_for_the_current_tick_is_scheduled_not_late() {
        let mut schedule = InputSchedule::new();
        assert_eq!(
            schedule.submit(100, 'a', 100, WINDOW),
            Submission::Scheduled
        );
        assert_eq!(schedule.late(), 0);
        assert_eq!(schedule.execute_due(100), Some('a'));
    }

    #[test]
    fn a_late_input_inside_the_window_executes_on_the_next_tick_to_run() {
        let mut schedule = InputSchedule::new();
        assert_eq!(schedule.submit(98, 'a', 100, WINDOW), Submission::Late);
        assert_eq!(schedule.next_tick(), Some(100));
        assert_eq!(schedule.execute_due(100), Some('a'));
        assert_eq!(schedule.late(), 1);
        assert_eq!(schedule.accepted(), 1);
    }

    #[test]
    fn an_input_for_a_closed_tick_is_dropped_never_shifted() {
        let mut schedule = InputSchedule::new();
        assert_eq!(
            schedule.submit(97, 'a', 100, WINDOW),
            Submission::TickClosed
        );
        assert_eq!(schedule.pending(), 0);
        assert_eq!(schedule.execute_due(100), None);
        assert_eq!(schedule.execute_due(u64::MAX), None);
        assert_eq!(schedule.accepted(), 0);
    }

    #[test]
    fn an_input_too_far_ahead_is_dropped() {
        let mut schedule = InputSchedule::new();
        assert_eq!(
            schedule.submit(110, 'a', 100, WINDOW),
            Submission::Scheduled
        );
        assert_eq!(
            schedule.submit(111, 'b', 100, WINDOW),
            Submission::TooFarAhead
        );
        assert_eq!(schedule.pending(), 1);
        assert_eq!(schedule.drain_due(u64::MAX).collect::<Vec<_>>(), ['a']);
    }

    #[test]
    fn accepted_reports_whether_the_input_was_buffered() {
        assert!(Submission::Scheduled.accepted());
        assert!(Submission::Late.accepted());
        assert!(!Submission::TickClosed.accepted());
        assert!(!Submission::TooFarAhead.accepted());
    }

    /// SRV-14.
    #[test]
    fn the_execution_tick_never_falls_behind_one_already_executed() {
        let window = InputWindow::new(10, 10);
        let mut schedule = InputSchedule::new();
        schedule.submit(50, 'a', 50, window);
        assert_eq!(schedule.execute_due(50), Some('a'));
        // A caller whose `current` stepped back (a rebuilt clock) offers an input for 45 at 47:
        // late, so it would run on 47, but 50 has already been executed for this seat.
        assert_eq!(schedule.submit(45, 'b', 47, window), Submission::Late);
        assert_eq!(schedule.next_tick(), Some(50));
        // Naming an earlier tick than one still buffered is the client's right, not a reorder
        // of what already ran.
        schedule.submit(56, 'c', 52, window);
        schedule.submit(55, 'd', 52, window);
        assert_eq!(schedule.drain_due(60).collect::<Vec<_>>(), ['b', 'd', 'c']);
    }

    /// SRV-15.
    #[test]
    fn execute_due_is_level_semantics_newest_due_wins() {
        let mut schedule = InputSchedule::new();
        schedule.submit(101, "left", 100, WINDOW);
        schedule.submit(102, "right", 100, WINDOW);
        schedule.submit(102, "up", 100, WINDOW);
        schedule.submit(104, "down", 100, WINDOW);
        // The step for 102 runs: three inputs are due, the newest wins, the rest are consumed.
        assert_eq!(schedule.execute_due(102), Some("up"));
        assert_eq!(schedule.execute_due(103), None);
        assert_eq!(schedule.execute_due(104), Some("down"));
    }

    #[test]
    fn drain_due_is_event_semantics_every_input_in_scheduled_order() {
        let mut schedule = InputSchedule::new();
        schedule.submit(102, "jump", 100, WINDOW);
        schedule.submit(101, "fire", 100, WINDOW);
        schedule.submit(102, "fire", 100, WINDOW);
        schedule.submit(104, "reload", 100, WINDOW);
        assert_eq!(
            schedule.drain_due(102).collect::<Vec<_>>(),
            ["fire", "jump", "fire"]
        );
        assert_eq!(schedule.drain_due(103).count(), 0);
        assert_eq!(schedule.drain_due(104).collect::<Vec<_>>(), ["reload"]);
    }

    #[test]
    fn drain_due_takes_the_inputs_even_when_not_consumed() {
        let mut schedule = InputSchedule::new();
        schedule.submit(100, 1, 100, WINDOW);
        drop(schedule.drain_due(100));
        assert_eq!(schedule.pending(), 0);
    }

    #[test]
    fn clear_drops_buffered_inputs_and_keeps_counters() {
        let mut schedule = InputSchedule::new();
        schedule.submit(99, 1, 100, WINDOW);
        schedule.submit(101, 2, 100, WINDOW);
        schedule.submit(1, 3, 100, WINDOW);
        schedule.clear();
        assert_eq!(schedule.pending(), 0);
        assert_eq!(schedule.execute_due(200), None);
        assert_eq!(schedule.accepted(), 2);
        assert_eq!(schedule.late(), 1);
        assert_eq!(schedule.rejected(), 1);
        assert_eq!(schedule.last_reject_margin(), Some(-99));
    }

    #[test]
    fn counters_split_rejections_by_side() {
        let mut schedule = InputSchedule::new();
        assert_eq!(schedule.rejected_split(), (0, 0));
        schedule.submit(100, (), 100, WINDOW);
        schedule.submit(99, (), 100, WINDOW);
        schedule.submit(90, (), 100, WINDOW);
        schedule.submit(80, (), 100, WINDOW);
        schedule.submit(200, (), 100, WINDOW);
        assert_eq!(schedule.accepted(), 2);
        assert_eq!(schedule.late(), 1);
        assert_eq!(schedule.rejected(), 3);
        assert_eq!(schedule.rejected_split(), (2, 1));
    }

    #[test]
    fn last_reject_margin_is_named_minus_current_at_the_latest_rejection() {
        let mut schedule = InputSchedule::new();
        assert_eq!(schedule.last_reject_margin(), None);
        schedule.submit(100, (), 100, WINDOW);
        assert_eq!(
            schedule.last_reject_margin(),
            None,
            "only rejections set it"
        );
        schedule.submit(90, (), 100, WINDOW);
        assert_eq!(schedule.last_reject_margin(), Some(-10));
        schedule.submit(150, (), 100, WINDOW);
        assert_eq!(schedule.last_reject_margin(), Some(50));
        schedule.submit(100, (), 100, WINDOW);
        assert_eq!(schedule.last_reject_margin(), Some(50));
        schedule.submit(u64::MAX, (), 0, WINDOW);
        assert_eq!(schedule.last_reject_margin(), Some(i64::MAX));
        schedule.submit(0, (), u64::MAX, WINDOW);
        assert_eq!(schedule.last_reject_margin(), Some(i64::MIN));
    }

    #[test]
    fn the_window_is_a_live_setting() {
        let mut schedule = InputSchedule::new();
        assert_eq!(
            schedule.submit(95, (), 100, InputWindow::new(2, 0)),
            Submission::TickClosed
        );
        assert_eq!(
            schedule.submit(95, (), 100, InputWindow::new(5, 0)),
            Submission::Late
        );
    }

    /// Issue 38: `pending` is asked for every input a client sends, so it is a running count,
    /// never a walk of the ticks; whatever the inputs and steps, it is what the schedule holds.
    #[test]
    fn pending_is_a_running_count_of_what_is_buffered() {
        let wide = InputWindow::new(u64::MAX, u64::MAX);
        let mut schedule = InputSchedule::new();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut current = 1_000u64;
        for step in 0..5_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 16 {
                0 => current += x % 5,
                1 => {
                    let _ = schedule.execute_due(current);
                }
                2 => {
                    let _ = schedule.drain_due(current - x % 3);
                }
                3 if step.is_multiple_of(97) => schedule.clear(),
                _ => {
                    let window = if x.is_multiple_of(3) { wide } else { WINDOW };
                    let tick = (current + (x >> 8) % 40).saturating_sub(20);
                    schedule.submit(tick, step, current, window);
                }
            }
            let held: usize = schedule.queue.values().map(Vec::len).sum();
            assert_eq!(schedule.pending(), held, "step {step}");
        }
        assert!(schedule.accepted() > 1_000);
    }

    #[test]
    fn extreme_ticks_do_not_overflow() {
        let mut schedule = InputSchedule::new();
        let wide = InputWindow::new(u64::MAX, u64::MAX);
        assert_eq!(
            schedule.submit(u64::MAX, 1, u64::MAX, wide),
            Submission::Scheduled
        );
        assert_eq!(schedule.submit(0, 2, u64::MAX, wide), Submission::Late);
        assert_eq!(schedule.submit(u64::MAX, 3, 0, wide), Submission::Scheduled);
        assert_eq!(schedule.execute_due(u64::MAX), Some(3));
        assert_eq!(schedule.pending(), 0);
    }
}
