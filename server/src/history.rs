//! History and rewind (`docs/spec/server.md`, SRV-2 to SRV-4): [`HistoricalStateBuffer`], a rolling
//! per-entity history of states queryable by time, the building block lag compensation rests on;
//! and [`render_error_at`] with its accumulator [`RenderError`], which asks how wrong a client's
//! screen was at the instant it was drawing.

use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Sub;

use ackwire_codec::interp::{fraction_between, Interpolatable, ToF32};

/// One recorded entry of an entity's history: the state and the server time it was recorded
/// for. Exposed for callers that inspect raw history ([`HistoricalStateBuffer::history`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedState<ServerTime, State> {
    /// When this state held, on the server's clock.
    pub time: ServerTime,
    /// The entity's state at `time`.
    pub state: State,
}

/// A rolling per-entity history of states, queryable by time, so the server can reconstruct
/// the world as a client saw it.
///
/// Each entity keeps at most `max_snapshots_per_entity` states, strictly increasing in time; the
/// oldest is dropped when a new one would exceed the bound. Size it to cover the largest rewind you
/// will ask for: roughly `(max expected client latency + interpolation delay) / server tick
/// interval`, plus a margin. Too small and old-enough shots clamp to the oldest retained state
/// instead of rewinding accurately.
#[derive(Clone, Debug)]
pub struct HistoricalStateBuffer<EntityId, EntityStateSnapshot, ServerTime> {
    max_snapshots_per_entity: usize,
    histories: HashMap<EntityId, VecDeque<TimedState<ServerTime, EntityStateSnapshot>>>,
}

impl<EntityId, EntityStateSnapshot, ServerTime>
    HistoricalStateBuffer<EntityId, EntityStateSnapshot, ServerTime>
where
    EntityId: Eq + Hash + Clone + Debug,
    EntityStateSnapshot: Clone + Debug,
    ServerTime: Copy + Debug + Default + PartialOrd + Ord + Sub<Output = ServerTime> + ToF32,
{
    /// A buffer that keeps at most `max_snapshots_per_entity` states per entity.
    ///
    /// # Panics
    ///
    /// SRV-2: a buffer of 0 states per entity is refused (this panics).
    #[must_use]
    pub fn new(max_snapshots_per_entity: usize) -> Self {
        assert!(
            max_snapshots_per_entity > 0,
            "HistoricalStateBuffer::new: max_snapshots_per_entity must be at least 1"
        );
        Self {
            max_snapshots_per_entity,
            histories: HashMap::new(),
        }
    }

    /// How many states each entity keeps at most.
    #[must_use]
    pub fn max_snapshots_per_entity(&self) -> usize {
        self.max_snapshots_per_entity
    }

    /// Records one entity's state for `server_time`.
    ///
    /// SRV-2: a state not newer than the last one recorded is ignored (with a `tracing` warning),
    /// so the history strictly increases. When the entity already holds `max_snapshots_per_entity`
    /// states, the oldest is dropped.
    pub fn record_state(
        &mut self,
        entity_id: EntityId,
        server_time: ServerTime,
        state: EntityStateSnapshot,
    ) {
        let history = self.histories.entry(entity_id).or_default();
        if let Some(last) = history.back() {
            if server_time <= last.time {
                tracing::warn!(
                    ?server_time,
                    last_recorded = ?last.time,
                    "HistoricalStateBuffer: ignored a state not newer than the last recorded"
                );
                return;
            }
        }
        while history.len() >= self.max_snapshots_per_entity {
            history.pop_front();
        }
        history.push_back(TimedState {
            time: server_time,
            state,
        });
    }

    /// The rewind: the entity's state at `target_server_time`.
    ///
    /// SRV-3: interpolated between the two recorded states around the target, the oldest or the
    /// newest for a target outside the retained range, `None` for an entity with no history. A
    /// target equal to a recorded time returns that state as recorded. The entity is passed by
    /// reference (a lookup needs no ownership).
    #[must_use]
    pub fn get_state_at_or_before(
        &self,
        entity_id: &EntityId,
        target_server_time: ServerTime,
    ) -> Option<EntityStateSnapshot>
    where
        EntityStateSnapshot: Interpolatable<ServerTime>,
    {
        let history = self.histories.get(entity_id)?;
        let oldest = history.front()?;
        let newest = history.back()?;
        if target_server_time <= oldest.time {
            return Some(oldest.state.clone());
        }
        if target_server_time >= newest.time {
            return Some(newest.state.clone());
        }
        // oldest.time < target < newest.time, so there is a first entry after the target and
        // it is not the first entry.
        let after = history.partition_point(|entry| entry.time <= target_server_time);
        let (Some(before), Some(after)) = (history.get(after.wrapping_sub(1)), history.get(after))
        else {
            return Some(newest.state.clone());
        };
        if before.time == target_server_time {
            return Some(before.state.clone());
        }
        let fraction = fraction_between(before.time, after.time, target_server_time);
        Some(before.state.interpolate(&after.state, fraction))
    }

    /// The raw recorded history of one entity, oldest first; empty if the entity is unknown.
    pub fn history(
        &self,
        entity_id: &EntityId,
    ) -> impl ExactSizeIterator<Item = &TimedState<ServerTime, EntityStateSnapshot>> + '_ {
        self.histories
            .get(entity_id)
            .map(|history| history.iter())
            .unwrap_or_default()
    }

    /// How many entities have a recorded history.
    #[must_use]
    pub fn entity_count(&self) -> usize {
        self.histories.len()
    }

    /// Forgets one entity's history (an entity destroyed). Unknown entities are ignored.
    pub fn remove_entity_history(&mut self, entity_id: &EntityId) {
        self.histories.remove(entity_id);
    }

    /// Forgets every entity's history (a world rebuilt).
    pub fn clear_all_history(&mut self) {
        self.histories.clear();
    }
}

/// How wrong a client's screen was, asked at the instant it was drawing (SRV-4).
///
/// For each `(id, drawn_state)` the client drew at `at`, reads the truth at `at` from `history`
/// (interpolated as a rewind is) and observes `distance(&truth, &drawn)`. An entity with no history
/// is skipped, not scored 0 (SRV-4).
///
/// `at` is a required argument, deliberately: comparing against the present charges a client
/// for a render delay it is taking on purpose. `distance` is the caller's because this crate
/// can assume no metric on a state type. This is a host or harness measurement: it needs
/// truth, and a joiner never has truth.
pub fn render_error_at<Id, State, Time, D>(
    history: &HistoricalStateBuffer<Id, State, Time>,
    at: Time,
    drawn: impl IntoIterator<Item = (Id, State)>,
    distance: D,
) -> RenderError
where
    Id: Eq + Hash + Clone + Debug,
    State: Clone + Debug + Interpolatable<Time>,
    Time: Copy + Debug + Default + PartialOrd + Ord + Sub<Output = Time> + ToF32,
    D: Fn(&State, &State) -> f32,
{
    let mut error = RenderError::new();
    for (id, drawn_state) in drawn {
        if let Some(truth) = history.get_state_at_or_before(&id, at) {
            error.observe(distance(&truth, &drawn_state));
        }
    }
    error
}

/// An accumulation of render-error distances (SRV-4).
///
/// It keeps the sum and the count, not the mean, so that the results of several clients or frames
/// fold together unweighted: a client that sees two entities does not count as much as one that
/// sees two hundred. The sum is kept in `f64` so long runs lose no precision.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RenderError {
    sum: f64,
    worst: f32,
    samples: u32,
}

impl RenderError {
    /// An empty accumulation.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            sum: 0.0,
            worst: 0.0,
            samples: 0,
        }
    }

    /// Adds one distance.
    ///
    /// SRV-4: a non-finite distance is ignored, so it cannot poison the mean. A distance is taken
    /// as given otherwise; the sample count saturates at `u32::MAX`.
    pub fn observe(&mut self, distance: f32) {
        if !distance.is_finite() {
            return;
        }
        if self.samples == 0 || distance > self.worst {
            self.worst = distance;
        }
        self.sum += f64::from(distance);
        self.samples = self.samples.saturating_add(1);
    }

    /// Folds another accumulation into this one, as if its samples had been observed here.
    pub fn merge(&mut self, other: &RenderError) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 || other.worst > self.worst {
            self.worst = other.worst;
        }
        self.sum += other.sum;
        self.samples = self.samples.saturating_add(other.samples);
    }

    /// The mean distance; `0.0` when nothing was observed (never NaN).
    #[must_use]
    pub fn mean(&self) -> f32 {
        if self.samples == 0 {
            0.0
        } else {
            (self.sum / f64::from(self.samples)) as f32
        }
    }

    /// The largest distance observed; `0.0` when nothing was observed.
    #[must_use]
    pub fn worst(&self) -> f32 {
        self.worst
    }

    /// How many distances were observed.
    #[must_use]
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Whether nothing was observed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    type Buffer = HistoricalStateBuffer<u32, f32, u64>;

    #[test]
    #[should_panic(expected = "at least 1")]
    fn new_panics_if_zero() {
        // SRV-2.
        let _ = Buffer::new(0);
    }

    #[test]
    fn a_state_not_newer_than_the_last_is_ignored() {
        // SRV-2.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 1.0);
        buffer.record_state(1, 100, 2.0); // same time
        buffer.record_state(1, 50, 3.0); // older
        let times: Vec<u64> = buffer.history(&1).map(|entry| entry.time).collect();
        assert_eq!(times, [100]);
        assert_eq!(buffer.get_state_at_or_before(&1, 100), Some(1.0));
    }

    /// A minimal subscriber that counts WARN events, so the test needs no extra crate.
    struct WarnCounter(Arc<AtomicUsize>);

    impl tracing::Subscriber for WarnCounter {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            if *event.metadata().level() == tracing::Level::WARN {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[test]
    fn ignoring_a_non_newer_state_emits_a_tracing_warning() {
        let warnings = Arc::new(AtomicUsize::new(0));
        let subscriber = WarnCounter(Arc::clone(&warnings));
        tracing::subscriber::with_default(subscriber, || {
            let mut buffer = Buffer::new(8);
            buffer.record_state(1, 100, 1.0);
            assert_eq!(warnings.load(Ordering::SeqCst), 0);
            buffer.record_state(1, 100, 2.0);
            assert_eq!(warnings.load(Ordering::SeqCst), 1);
        });
    }

    #[test]
    fn keeps_at_most_max_snapshots_per_entity_dropping_the_oldest() {
        let mut buffer = Buffer::new(3);
        for tick in 1..=5_u64 {
            buffer.record_state(7, tick, tick as f32);
        }
        let times: Vec<u64> = buffer.history(&7).map(|entry| entry.time).collect();
        assert_eq!(times, [3, 4, 5]);
    }

    #[test]
    fn rewind_interpolates_between_the_bracketing_states() {
        // SRV-3.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 0.0);
        buffer.record_state(1, 200, 10.0);
        buffer.record_state(1, 300, 30.0);
        assert_eq!(buffer.get_state_at_or_before(&1, 150), Some(5.0));
        assert_eq!(buffer.get_state_at_or_before(&1, 275), Some(25.0));
        assert_eq!(buffer.get_state_at_or_before(&1, 200), Some(10.0));
    }

    #[test]
    fn rewind_clamps_to_oldest_and_newest_outside_the_retained_range() {
        // SRV-3.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 1.0);
        buffer.record_state(1, 200, 2.0);
        assert_eq!(buffer.get_state_at_or_before(&1, 0), Some(1.0));
        assert_eq!(buffer.get_state_at_or_before(&1, 100), Some(1.0));
        assert_eq!(buffer.get_state_at_or_before(&1, 10_000), Some(2.0));
    }

    #[test]
    fn rewind_of_an_unknown_entity_is_none() {
        // SRV-3.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 1.0);
        assert_eq!(buffer.get_state_at_or_before(&2, 100), None);
    }

    #[test]
    fn duration_time_works_directly() {
        let mut buffer: HistoricalStateBuffer<&str, f64, Duration> = HistoricalStateBuffer::new(4);
        buffer.record_state("a", Duration::from_millis(0), 0.0);
        buffer.record_state("a", Duration::from_millis(100), 100.0);
        let rewound = buffer.get_state_at_or_before(&"a", Duration::from_millis(40));
        assert!(rewound.is_some_and(|state| (state - 40.0).abs() < 1e-4));
    }

    #[test]
    fn remove_and_clear_forget_history() {
        let mut buffer = Buffer::new(4);
        buffer.record_state(1, 1, 1.0);
        buffer.record_state(2, 1, 2.0);
        buffer.remove_entity_history(&1);
        assert_eq!(buffer.get_state_at_or_before(&1, 1), None);
        assert_eq!(buffer.get_state_at_or_before(&2, 1), Some(2.0));
        assert_eq!(buffer.entity_count(), 1);
        buffer.clear_all_history();
        assert_eq!(buffer.get_state_at_or_before(&2, 1), None);
        assert_eq!(buffer.entity_count(), 0);
        // A removed entity starts a fresh history: an older time is accepted again.
        buffer.record_state(1, 0, 5.0);
        assert_eq!(buffer.get_state_at_or_before(&1, 0), Some(5.0));
    }

    #[test]
    fn render_error_reads_truth_at_the_drawing_instant() {
        // SRV-4.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 0.0);
        buffer.record_state(1, 200, 10.0);
        // The client drew 5.0 at time 150, which is exactly the truth then; against the present
        // (time 200) it would be charged 5.0.
        let error = render_error_at(&buffer, 150, [(1, 5.0)], |a, b| (a - b).abs());
        assert_eq!(error.samples(), 1);
        assert_eq!(error.mean(), 0.0);
        let present = render_error_at(&buffer, 200, [(1, 5.0)], |a, b| (a - b).abs());
        assert_eq!(present.mean(), 5.0);
    }

    #[test]
    fn render_error_skips_entities_absent_from_history() {
        // SRV-4.
        let mut buffer = Buffer::new(8);
        buffer.record_state(1, 100, 0.0);
        let error = render_error_at(&buffer, 100, [(1, 2.0), (9, 1000.0)], |a, b| (a - b).abs());
        assert_eq!(error.samples(), 1);
        assert_eq!(error.mean(), 2.0);
    }

    #[test]
    fn render_error_ignores_non_finite_distances() {
        // SRV-4.
        let mut error = RenderError::new();
        error.observe(2.0);
        error.observe(f32::NAN);
        error.observe(f32::INFINITY);
        error.observe(f32::NEG_INFINITY);
        error.observe(4.0);
        assert_eq!(error.samples(), 2);
        assert_eq!(error.mean(), 3.0);
        assert_eq!(error.worst(), 4.0);
    }

    #[test]
    fn render_error_merge_sums_rather_than_averaging_means() {
        // SRV-4. Client a sees two entities, client b two hundred: the merged mean weights samples,
        // not clients.
        let mut a = RenderError::new();
        a.observe(10.0);
        a.observe(10.0);
        let mut b = RenderError::new();
        for _ in 0..200 {
            b.observe(1.0);
        }
        a.merge(&b);
        assert_eq!(a.samples(), 202);
        assert!((a.mean() - 220.0 / 202.0).abs() < 1e-6);
        assert_eq!(a.worst(), 10.0);
    }

    #[test]
    fn empty_render_error_is_zero_not_nan() {
        let mut error = RenderError::new();
        assert!(error.is_empty());
        assert_eq!(error.mean(), 0.0);
        assert_eq!(error.worst(), 0.0);
        error.merge(&RenderError::new());
        assert!(error.is_empty());
        error.observe(-1.0);
        assert_eq!(error.worst(), -1.0);
        assert!(!error.is_empty());
    }
}
