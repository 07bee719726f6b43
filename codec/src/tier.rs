//! [`TierBoundary`]: a membership boundary with hysteresis (SRV-8).
//!
//! A relevance primitive of the server (`ackwire_server::relevance` re-exports it), defined here
//! because the acked stream's S_N depends on it: the server computes what an ordered client holds,
//! the tier each entity went at included (ACK-17), and that computation
//! ([`Presenter`](crate::acked::Presenter)) sits beside the acked client in this crate. One type on
//! both sides, as with [`SetDigest`](crate::digest::SetDigest), rather than a second boundary that
//! agrees today.

/// A membership boundary with hysteresis (SRV-8): it takes less distance to stay in than to get in.
///
/// Any threshold that switches what the wire carries (a near tier against a far tier, a
/// relevance radius, an aggro range) flaps when an entity loiters on it. The cure is two radii
/// with a gap, judged against where the entity stood last time. The memory is the caller's own
/// previous membership set, which it already keeps for diffing, so this holds no state: pass
/// `was_inside` from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierBoundary {
    enter: f32,
    leave: f32,
}

impl TierBoundary {
    /// A boundary that admits a newcomer within `enter` and drops a member past `leave`.
    ///
    /// Size the gap to the wobble the boundary actually sees (a step or two of movement per update
    /// interval). SRV-8: a `leave` below `enter` is a bug (debug-asserted), and raised to `enter`.
    #[must_use]
    pub const fn new(enter: f32, leave: f32) -> Self {
        // Only a strictly smaller `leave` is an error; a NaN radius is left alone (it admits
        // nothing, since no distance compares at or below NaN).
        let inverted = leave < enter;
        debug_assert!(
            !inverted,
            "TierBoundary::new: leave must not be smaller than enter"
        );
        let leave = if inverted { enter } else { leave };
        Self { enter, leave }
    }

    /// The radius that admits a newcomer.
    #[must_use]
    pub const fn enter(&self) -> f32 {
        self.enter
    }

    /// The radius past which a member is dropped.
    #[must_use]
    pub const fn leave(&self) -> f32 {
        self.leave
    }

    /// Whether an entity at `distance` is a member this round, given whether it was one last
    /// round.
    ///
    /// SRV-8: `enter` admits a newcomer, and a member is dropped only past `leave`. Both radii are
    /// inclusive: a newcomer exactly at `enter` is admitted and a member exactly at `leave` stays.
    /// A NaN distance is never a member.
    #[must_use]
    pub fn admits(&self, was_inside: bool, distance: f32) -> bool {
        let radius = if was_inside { self.leave } else { self.enter };
        distance <= radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIER: TierBoundary = TierBoundary::new(10.0, 12.0);

    #[test]
    fn a_newcomer_is_admitted_by_the_enter_radius() {
        // SRV-8.
        assert!(TIER.admits(false, 9.0));
        assert!(TIER.admits(false, 10.0));
        assert!(!TIER.admits(false, 11.0));
    }

    #[test]
    fn a_member_is_kept_until_past_the_leave_radius() {
        // SRV-8.
        assert!(TIER.admits(true, 11.0));
        assert!(TIER.admits(true, 12.0));
        assert!(!TIER.admits(true, 12.5));
    }

    #[test]
    fn loitering_in_the_band_does_not_flap() {
        // SRV-8.
        // An entity wobbling between 9.5 and 11.5 enters once and then stays.
        let mut inside = false;
        let mut changes = 0;
        for step in 0..20 {
            let distance = if step % 2 == 0 { 9.5 } else { 11.5 };
            let now = TIER.admits(inside, distance);
            if now != inside {
                changes += 1;
            }
            inside = now;
        }
        assert_eq!(changes, 1);
    }

    #[test]
    fn nan_distance_is_never_a_member() {
        assert!(!TIER.admits(true, f32::NAN));
        assert!(!TIER.admits(false, f32::NAN));
    }

    #[test]
    fn equal_radii_are_a_plain_threshold() {
        let tier = TierBoundary::new(5.0, 5.0);
        assert!(tier.admits(false, 5.0) && tier.admits(true, 5.0));
        assert!(!tier.admits(false, 5.1) && !tier.admits(true, 5.1));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "leave must not be smaller than enter")]
    fn new_debug_asserts_enter_not_above_leave() {
        let _ = TierBoundary::new(10.0, 5.0);
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn new_clamps_leave_up_to_enter() {
        // SRV-8.
        let tier = TierBoundary::new(10.0, 5.0);
        assert_eq!(tier.leave(), 10.0);
        assert!(tier.admits(true, 10.0));
        assert!(!tier.admits(true, 10.5));
    }
}
