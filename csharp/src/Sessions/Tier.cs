// A membership boundary with hysteresis (SRV-8), as the Rust codec's `tier::TierBoundary`: the
// acked presenter's near tier. Any threshold that switches what the wire carries flaps when an
// entity loiters on it; the cure is two radii with a gap, judged against where the entity stood
// last time. It holds no state: the caller passes whether the entity was inside.
//
// Radii and distances are single-precision floats, as in Rust (`f32`), so that a distance on a
// radius compares the same in every language.

namespace Ackwire.Runtime.Sessions
{
    /// <summary>A membership boundary with hysteresis (SRV-8): enter within one radius, leave past
    /// another.</summary>
    public sealed class TierBoundary
    {
        /// <summary>The radius that admits a newcomer.</summary>
        public float Enter { get; private set; }

        /// <summary>The radius past which a member is dropped.</summary>
        public float Leave { get; private set; }

        /// <summary>
        /// A boundary that admits a newcomer within <paramref name="enter"/> and drops a member
        /// past <paramref name="leave"/>. SRV-8: a <c>leave</c> below <c>enter</c> is raised to it
        /// (a NaN radius is left alone: it admits nothing).
        /// </summary>
        public TierBoundary(float enter, float leave)
        {
            Enter = enter;
            Leave = leave < enter ? enter : leave;
        }

        /// <summary>
        /// Whether an entity at <paramref name="distance"/> is a member this round, given whether
        /// it was one last round. Both radii are inclusive; a NaN distance is never a member.
        /// </summary>
        public bool Admits(bool wasInside, float distance)
        {
            return distance <= (wasInside ? Leave : Enter);
        }
    }
}
