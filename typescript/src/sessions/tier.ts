/**
 * A membership boundary with hysteresis (SRV-8), as the Rust codec's `tier::TierBoundary`: the
 * acked presenter's near tier. Any threshold that switches what the wire carries flaps when an
 * entity loiters on it; the cure is two radii with a gap, judged against where the entity stood
 * last time. It holds no state: the caller passes whether the entity was inside.
 *
 * Radii and distances are single-precision floats, as in Rust (`f32`): every value is passed
 * through `Math.fround`, so that a distance on a radius compares the same in both languages.
 */
export class TierBoundary {
  /** The radius that admits a newcomer. */
  readonly enter: number;
  /** The radius past which a member is dropped. */
  readonly leave: number;

  /**
   * A boundary that admits a newcomer within `enter` and drops a member past `leave`. SRV-8: a
   * `leave` below `enter` is raised to it (a NaN radius is left alone: it admits nothing).
   */
  constructor(enter: number, leave: number) {
    const e = Math.fround(enter);
    const l = Math.fround(leave);
    this.enter = e;
    this.leave = l < e ? e : l;
  }

  /**
   * Whether an entity at `distance` is a member this round, given whether it was one last
   * round. Both radii are inclusive; a NaN distance is never a member.
   */
  admits(wasInside: boolean, distance: number): boolean {
    return Math.fround(distance) <= (wasInside ? this.leave : this.enter);
  }
}
