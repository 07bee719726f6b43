//! Rates (SRV-19): [`RateMeter`], a running total, a sample count, an elapsed clock, and the
//! questions over them, with the divide-by-zero guard every hand-rolled copy had to remember.
//!
//! The clock is supplied rather than read, so a simulation that runs on its own time (or
//! faster than real time in a test) measures itself honestly.

/// The width of one window bucket, in milliseconds.
const BUCKET_MS: u64 = 500;
/// How many buckets the rolling window keeps: sixteen of 500 ms, eight seconds.
const BUCKETS: usize = 16;

/// One bucket of the rolling window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bucket {
    amount: u64,
    samples: u64,
}

/// A rate meter over a caller-supplied clock.
///
/// SRV-19: `per_sec` and `mean` are over a rolling window of sixteen buckets of 500 ms (eight
/// seconds), not the meter's whole life; `total`, `samples` and `lifetime_per_sec` are over its
/// life. A lifetime average chasing a risen steady state climbs for ever; the window answers the
/// question somebody watching a number is asking.
///
/// Amounts are `u64` (bytes, entities, events); totals saturate rather than wrap. No method
/// returns NaN.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateMeter {
    total: u64,
    samples: u64,
    /// The clock as last given to [`elapsed`](Self::elapsed).
    elapsed_ms: u64,
    /// The clock at the first `elapsed` call after construction or a reset.
    started_ms: Option<u64>,
    /// The bucket number (`clock / 500`) of the newest bucket.
    head: u64,
    buckets: [Bucket; BUCKETS],
}

impl RateMeter {
    /// A meter that has seen nothing and has not started.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn newest(&mut self) -> &mut Bucket {
        // The remainder is below BUCKETS, so the index is always in range.
        &mut self.buckets[(self.head % BUCKETS as u64) as usize]
    }

    /// Counts one sample carrying `amount`.
    pub fn add(&mut self, amount: u64) {
        self.total = self.total.saturating_add(amount);
        self.samples = self.samples.saturating_add(1);
        let newest = self.newest();
        newest.amount = newest.amount.saturating_add(amount);
        newest.samples = newest.samples.saturating_add(1);
    }

    /// Counts a sample carrying nothing, which still counts toward the mean.
    pub fn add_empty(&mut self) {
        self.add(0);
    }

    /// Forgets everything, for a world that has been rebuilt: a rate is over the current
    /// world, not every world since launch. The next [`elapsed`](Self::elapsed) call marks the
    /// meter's new start.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Sets how long this has been accruing over (the caller's clock, in ms) and rolls the
    /// window forward.
    ///
    /// SRV-19: a second call within the same bucket changes nothing, so call it every tick with the
    /// simulation clock; the first call after construction or a reset marks when the meter started.
    /// A clock that goes backwards is a bug (debug-asserted); in a release build a clock that went
    /// backwards is ignored.
    pub fn elapsed(&mut self, elapsed_ms: u64) {
        let Some(_) = self.started_ms else {
            // Samples added before the start belong to the first bucket.
            let pending = *self.newest();
            self.buckets = [Bucket::default(); BUCKETS];
            self.started_ms = Some(elapsed_ms);
            self.elapsed_ms = elapsed_ms;
            self.head = elapsed_ms / BUCKET_MS;
            *self.newest() = pending;
            return;
        };
        debug_assert!(
            elapsed_ms >= self.elapsed_ms,
            "RateMeter::elapsed: the clock went backwards ({} ms after {} ms)",
            elapsed_ms,
            self.elapsed_ms
        );
        if elapsed_ms < self.elapsed_ms {
            return;
        }
        self.elapsed_ms = elapsed_ms;
        let head = elapsed_ms / BUCKET_MS;
        let steps = (head - self.head).min(BUCKETS as u64);
        // At most BUCKETS buckets are cleared, however far the clock jumped.
        for _ in 0..steps {
            self.head += 1;
            *self.newest() = Bucket::default();
        }
        self.head = head;
    }

    /// The lifetime total.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The lifetime sample count.
    #[must_use]
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The clock as last given to [`elapsed`](Self::elapsed); 0 before the first call.
    #[must_use]
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms
    }

    /// How long this meter has been running: from its start (the first `elapsed` call after
    /// construction or a reset) to the clock's latest value. Not the clock itself once the
    /// meter has been reset.
    #[must_use]
    pub fn running_ms(&self) -> u64 {
        self.started_ms
            .map_or(0, |started| self.elapsed_ms.saturating_sub(started))
    }

    /// Amount and samples over the retained window.
    fn window(&self) -> (u64, u64) {
        self.buckets.iter().fold((0, 0), |(amount, samples), b| {
            (
                amount.saturating_add(b.amount),
                samples.saturating_add(b.samples),
            )
        })
    }

    /// The recent rate, per second, over the rolling window.
    ///
    /// SRV-19: recent traffic over the span the retained buckets cover, so a part-filled newest
    /// bucket does not understate it and a window of silence brings it to zero. The span runs from
    /// the start of the oldest retained bucket (or the meter's start, if later) to the clock's
    /// latest value. `0.0` when the span is empty.
    #[must_use]
    pub fn per_sec(&self) -> f64 {
        let Some(started) = self.started_ms else {
            return 0.0;
        };
        let oldest_bucket = self.head.saturating_sub(BUCKETS as u64 - 1);
        let span_start = (oldest_bucket * BUCKET_MS).max(started);
        let span_ms = self.elapsed_ms.saturating_sub(span_start);
        if span_ms == 0 {
            return 0.0;
        }
        self.window().0 as f64 * 1000.0 / span_ms as f64
    }

    /// The mean amount per sample over the rolling window; `0.0` without samples.
    #[must_use]
    pub fn mean(&self) -> f64 {
        let (amount, samples) = self.window();
        if samples == 0 {
            0.0
        } else {
            amount as f64 / samples as f64
        }
    }

    /// The lifetime rate, per second, measured from when this meter started.
    ///
    /// SRV-19: measured from when this meter started (or was reset), not from the caller's clock's
    /// zero. `0.0` before any time has run.
    #[must_use]
    pub fn lifetime_per_sec(&self) -> f64 {
        let running = self.running_ms();
        if running == 0 {
            0.0
        } else {
            self.total as f64 * 1000.0 / running as f64
        }
    }

    /// This meter's lifetime total as a share of `other`'s (`0.25` is a quarter); `0.0` when
    /// `other` has counted nothing.
    ///
    /// Measure a stream's share of the packet before optimising its encoding.
    #[must_use]
    pub fn share_of(&self, other: &RateMeter) -> f64 {
        if other.total == 0 {
            0.0
        } else {
            self.total as f64 / other.total as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `amount` every 100 ms from `from` (exclusive) to `to` (inclusive), ticking the
    /// clock first, as a simulation loop would.
    fn run(meter: &mut RateMeter, from: u64, to: u64, amount: u64) {
        let mut t = from + 100;
        while t <= to {
            meter.elapsed(t);
            meter.add(amount);
            t += 100;
        }
    }

    #[test]
    fn a_fresh_meter_reads_zero_not_nan() {
        let meter = RateMeter::new();
        assert_eq!(meter.per_sec(), 0.0);
        assert_eq!(meter.mean(), 0.0);
        assert_eq!(meter.lifetime_per_sec(), 0.0);
        assert_eq!(meter.share_of(&RateMeter::new()), 0.0);
        assert_eq!(meter.running_ms(), 0);
        let mut started = RateMeter::new();
        started.add(5);
        started.elapsed(1000);
        assert_eq!(started.per_sec(), 0.0, "no time has run yet");
        assert_eq!(started.lifetime_per_sec(), 0.0);
    }

    #[test]
    fn the_window_is_sixteen_buckets_of_500_ms() {
        // SRV-19.
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        meter.add(1000); // in bucket 0, [0, 500)
        meter.elapsed(7_999); // bucket 15: bucket 0 is still retained
        assert_eq!(meter.mean(), 1000.0);
        meter.elapsed(8_000); // bucket 16 replaces bucket 0
        assert_eq!(meter.mean(), 0.0);
        assert_eq!(meter.total(), 1000, "the lifetime total is kept");
    }

    #[test]
    fn per_sec_is_over_the_window_and_lifetime_per_sec_over_the_life() {
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        run(&mut meter, 0, 10_000, 100); // 1000 per second
        run(&mut meter, 10_000, 20_000, 200); // 2000 per second
        assert!(
            (meter.per_sec() - 2000.0).abs() < 30.0,
            "{}",
            meter.per_sec()
        );
        assert!((meter.lifetime_per_sec() - 1500.0).abs() < 1e-9);
        assert_eq!(meter.mean(), 200.0);
        assert_eq!(meter.samples(), 200);
        assert_eq!(meter.total(), 30_000);
    }

    #[test]
    fn a_part_filled_newest_bucket_does_not_understate_per_sec() {
        // SRV-19.
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        run(&mut meter, 0, 10_000, 100);
        // The newest bucket is just started: dividing by the full eight seconds would read
        // about 950; the span actually covered is 7.5 s.
        let at_boundary = meter.per_sec();
        assert!((at_boundary - 1000.0).abs() < 20.0, "{at_boundary}");
        run(&mut meter, 10_000, 10_300, 100);
        assert!(
            (meter.per_sec() - 1000.0).abs() < 20.0,
            "{}",
            meter.per_sec()
        );
    }

    #[test]
    fn a_young_meter_divides_by_the_time_since_its_start() {
        let mut meter = RateMeter::new();
        meter.elapsed(60_000);
        run(&mut meter, 60_000, 61_000, 100);
        assert!((meter.per_sec() - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn a_full_window_of_silence_decays_per_sec_to_zero() {
        // SRV-19.
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        run(&mut meter, 0, 5_000, 100);
        meter.elapsed(9_000);
        assert!(meter.per_sec() > 0.0);
        meter.elapsed(13_000);
        assert_eq!(meter.per_sec(), 0.0);
        assert_eq!(meter.mean(), 0.0);
        assert!(meter.lifetime_per_sec() > 0.0);
    }

    #[test]
    fn elapsed_is_idempotent_within_a_bucket() {
        // SRV-19.
        let mut meter = RateMeter::new();
        meter.elapsed(1_000);
        meter.elapsed(1_100);
        meter.add(10);
        meter.elapsed(1_200);
        meter.elapsed(1_200);
        meter.elapsed(1_499);
        assert_eq!(meter.mean(), 10.0);
        assert!((meter.per_sec() - 10.0 * 1000.0 / 499.0).abs() < 1e-9);
    }

    #[test]
    fn a_long_jump_clears_the_whole_window_without_looping_per_bucket() {
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        meter.add(5);
        meter.elapsed(u64::MAX);
        assert_eq!(meter.mean(), 0.0);
        meter.add(7);
        assert_eq!(meter.mean(), 7.0);
    }

    #[test]
    fn add_empty_counts_toward_the_mean() {
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        meter.add(10);
        meter.add_empty();
        assert_eq!(meter.mean(), 5.0);
        assert_eq!(meter.samples(), 2);
        assert_eq!(meter.total(), 10);
    }

    #[test]
    fn samples_before_the_first_elapsed_call_count() {
        let mut meter = RateMeter::new();
        meter.add(8);
        meter.elapsed(123_456);
        meter.elapsed(124_000);
        assert_eq!(meter.mean(), 8.0);
        assert!(meter.per_sec() > 0.0);
    }

    #[test]
    fn the_first_elapsed_call_marks_the_start() {
        let mut meter = RateMeter::new();
        meter.elapsed(5_000);
        meter.add(100);
        meter.elapsed(6_000);
        assert_eq!(meter.running_ms(), 1_000);
        assert_eq!(meter.elapsed_ms(), 6_000);
        assert_eq!(meter.lifetime_per_sec(), 100.0);
    }

    #[test]
    fn lifetime_per_sec_is_measured_from_the_meters_own_start_after_reset() {
        // SRV-19.
        let mut meter = RateMeter::new();
        meter.elapsed(0);
        run(&mut meter, 0, 1_200_000, 1);
        meter.reset();
        assert_eq!(meter.total(), 0);
        assert_eq!(meter.samples(), 0);
        assert_eq!(meter.per_sec(), 0.0);
        // Twenty minutes into the session the meter restarts; its clock does not.
        meter.elapsed(1_200_000);
        run(&mut meter, 1_200_000, 1_210_000, 100);
        assert_eq!(meter.running_ms(), 10_000);
        assert_eq!(meter.elapsed_ms(), 1_210_000);
        assert!((meter.lifetime_per_sec() - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn share_of_is_the_ratio_of_lifetime_totals() {
        let mut part = RateMeter::new();
        let mut whole = RateMeter::new();
        part.add(12);
        whole.add(1000);
        assert!((part.share_of(&whole) - 0.012).abs() < 1e-12);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "the clock went backwards")]
    fn elapsed_debug_asserts_the_clock_never_goes_backwards() {
        let mut meter = RateMeter::new();
        meter.elapsed(1_000);
        meter.elapsed(999);
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn a_backwards_clock_is_ignored_in_release() {
        let mut meter = RateMeter::new();
        meter.elapsed(1_000);
        meter.add(1);
        meter.elapsed(999);
        assert_eq!(meter.elapsed_ms(), 1_000);
        assert_eq!(meter.mean(), 1.0);
    }
}
