//! Interpolation traits shared by the client and the server: [`Interpolatable`] for a state
//! type, [`ToF32`] for a time type, and [`fraction_between`], the one place the fraction
//! between two recorded times is computed.
//!
//! They live in the codec crate, the lower one, so one state type serves both sides (SRV-1): a game
//! implements `Interpolatable` once on its state, for a client's buffer and for the server's rewind
//! (SRV-3) alike. The server crate re-exports them.
//!
//! [`ToF32`] covers `u64` and [`Duration`], so millisecond or tick time works directly, with no
//! custom time type. Only ratios of time *differences* are ever taken, so the unit is free and
//! large absolute times lose no precision.

use core::cmp::Ordering;
use core::ops::Sub;
use core::time::Duration;

/// A state that can be blended between two recorded instants.
///
/// `Time` names the clock the instants were measured on. The blend itself only needs the
/// fraction of the way from `self` to `other`, which the caller computes from the times with
/// [`fraction_between`]; the type parameter lets a state type interpolate differently (or not
/// at all) depending on the clock it is recorded against, and keeps one impl usable by a client
/// snapshot buffer and a server history alike.
pub trait Interpolatable<Time> {
    /// The state `fraction` of the way from `self` (at `0.0`) to `other` (at `1.0`).
    ///
    /// Callers in this workspace pass a finite `fraction` in `[0.0, 1.0]`.
    #[must_use]
    fn interpolate(&self, other: &Self, fraction: f32) -> Self;
}

/// A time (or time difference) converted to `f32`, so fractions between times can be taken.
///
/// The unit is the implementer's: only ratios of differences are used.
pub trait ToF32 {
    /// This value as an `f32`, possibly rounded.
    #[must_use]
    fn to_f32(&self) -> f32;
}

impl ToF32 for u64 {
    fn to_f32(&self) -> f32 {
        *self as f32
    }
}

impl ToF32 for u32 {
    fn to_f32(&self) -> f32 {
        *self as f32
    }
}

impl ToF32 for Duration {
    /// Seconds.
    fn to_f32(&self) -> f32 {
        self.as_secs_f32()
    }
}

impl ToF32 for f32 {
    fn to_f32(&self) -> f32 {
        *self
    }
}

impl ToF32 for f64 {
    fn to_f32(&self) -> f32 {
        *self as f32
    }
}

impl<Time> Interpolatable<Time> for f32 {
    fn interpolate(&self, other: &Self, fraction: f32) -> Self {
        self + (other - self) * fraction
    }
}

impl<Time> Interpolatable<Time> for f64 {
    fn interpolate(&self, other: &Self, fraction: f32) -> Self {
        self + (other - self) * f64::from(fraction)
    }
}

/// How far `at` lies from `start` towards `end`, clamped to `[0.0, 1.0]`.
///
/// `0.0` when `at` is at or before `start` (or the interval is empty), `1.0` when it is at or
/// after `end`. Only differences of times that are known to be non-negative are taken, so an
/// unsigned time never underflows; a fraction that comes out non-finite (a span too small for
/// `f32`) is `0.0`. Never panics, never returns NaN.
#[must_use]
pub fn fraction_between<T>(start: T, end: T, at: T) -> f32
where
    T: Copy + PartialOrd + Sub<Output = T> + ToF32,
{
    // Written with `partial_cmp` so an incomparable time (a NaN) takes the safe branch.
    let after_start = at.partial_cmp(&start) == Some(Ordering::Greater);
    let non_empty = end.partial_cmp(&start) == Some(Ordering::Greater);
    if !after_start || !non_empty {
        return 0.0;
    }
    if at.partial_cmp(&end) != Some(Ordering::Less) {
        return 1.0;
    }
    let fraction = (at - start).to_f32() / (end - start).to_f32();
    if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_f32_covers_u64_and_duration() {
        assert_eq!(250_u64.to_f32(), 250.0);
        assert_eq!(Duration::from_millis(1500).to_f32(), 1.5);
        assert_eq!(7_u32.to_f32(), 7.0);
    }

    #[test]
    fn fraction_between_is_the_share_of_the_span() {
        assert_eq!(fraction_between(100_u64, 200, 125), 0.25);
        assert_eq!(
            fraction_between(
                Duration::from_millis(0),
                Duration::from_millis(40),
                Duration::from_millis(30)
            ),
            0.75
        );
    }

    #[test]
    fn fraction_between_uses_differences_so_large_times_keep_precision() {
        let base = u64::MAX - 1000;
        assert_eq!(fraction_between(base, base + 1000, base + 500), 0.5);
    }

    #[test]
    fn fraction_between_clamps_outside_the_span_without_underflow() {
        assert_eq!(fraction_between(100_u64, 200, 0), 0.0);
        assert_eq!(fraction_between(100_u64, 200, 100), 0.0);
        assert_eq!(fraction_between(100_u64, 200, 200), 1.0);
        assert_eq!(fraction_between(100_u64, 200, 300), 1.0);
        // An empty or inverted interval is 0, not a division by zero.
        assert_eq!(fraction_between(100_u64, 100, 150), 0.0);
        assert_eq!(fraction_between(200_u64, 100, 150), 0.0);
    }

    #[test]
    fn fraction_between_never_returns_nan() {
        assert_eq!(fraction_between(0.0_f32, f32::NAN, 1.0), 0.0);
        assert_eq!(fraction_between(0.0_f32, 1e-45, 5e-46), 0.0);
        assert_eq!(fraction_between(f32::MIN, f32::MAX, 0.0), 0.0);
    }

    #[test]
    fn floats_interpolate_linearly() {
        assert_eq!(
            Interpolatable::<u64>::interpolate(&10.0_f32, &20.0, 0.5),
            15.0
        );
        assert_eq!(
            Interpolatable::<u64>::interpolate(&10.0_f64, &20.0, 0.25),
            12.5
        );
    }
}
