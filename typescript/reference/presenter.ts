/**
 * The reference protocol's presenter: what each client of `state Reference`
 * (`spec/protocol/acked.wire`) holds after frame N (S_N), computed from the server's world. This
 * is game policy (which entities a client sees, the near tier and its hysteresis, a far entity's
 * refresh cadence, a client's own entities in full), written by hand beside the binding
 * `ackwire gen --lang ts` writes for the state (`../reference.js`: the schemas `Reference`, kind
 * 6, and `PackedReference`, kind 12, their diff, apply and check), as the Rust codec keeps its
 * `acked::Presenter` beside the generated one. The session halves of the runtime
 * (`runtime/sessions/acked_half.ts`) take it as their {@link AckedPresenter}.
 *
 * This file imports the generated codec as `../protocol.js`: `ackwire gen --lang ts` writes it
 * and the runtime beside it, and conformance/testees/ts/build.sh copies this folder next to
 * them (src/gen/reference/).
 */

import {
  type EntityState,
  type Orientation,
  StateFlags,
  fromXyzw,
  roundHalfAwayFromZero,
} from "../protocol.js";
import { POSE_REACH } from "../reference.js";
import type { ServerEntry, ServerState } from "../runtime/sessions/acked.js";
import type { AckedPresenter } from "../runtime/sessions/acked_half.js";
import { TierBoundary } from "../runtime/sessions/tier.js";

/** The bits of each component of the orientation's smallest three (`Orientation`: quat(9)). */
const ORIENT_BITS = 9;

/** One entity of the server's world (the reference schema), in world units (f32 values). */
export interface WorldEntity {
  /** Which life of its id; bumped by every spawn under the id. */
  life: number;
  /** East, metres. */
  x: number;
  /** North, metres. */
  y: number;
  /** Up, metres. */
  z: number;
  /** Heading, degrees. */
  yaw: number;
  /** Hit points. */
  hp: number;
  /** Armour points. */
  armor: number;
  /** The vehicle it is in, 0 on foot. */
  vehicle: number;
  /** The seat taken. */
  seat: number;
  /**
   * Its orientation, a unit quaternion `[x, y, z, w]` (any norm: it is normalised), or
   * `undefined` for an entity without one. An entity keeps the orientation it was last given
   * for its life: `undefined` after a quaternion presents the last one again (the wire has no
   * way to take an orientation away, see `Reference.diff`).
   */
  orient?: readonly [number, number, number, number] | undefined;
}

/** The server's world: entities by id. */
export type World = ReadonlyMap<number, WorldEntity>;

/** A pose is measured again at least this often (in ticks), so that its age fits POSE_AGE's u8. */
export const POSE_REFRESH = 255;

/** How a client sees the world: its own entities, the near tier's boundary, the far rate. */
export interface ViewConfig {
  /** The client's own entities; the lowest present is where it stands. */
  readonly own: readonly number[];
  /** The near tier, with hysteresis (SRV-8). */
  readonly tier: TierBoundary;
  /** A far entity's pose is due on the ticks where `(tick + eid) % farEvery == 0`. */
  readonly farEvery: number;
}

/** The default view: no own entity, near within 12 m (leaving past 14 m), far every 6 ticks. */
export function defaultView(): ViewConfig {
  return { own: [], tier: new TierBoundary(12, 14), farEvery: 6 };
}

/** Metres (an f32) as whole steps of 1/512 m (acked.wire, EntityState). */
function steps(v: number): number {
  if (!Number.isFinite(v)) {
    return 0;
  }
  // `| 0`, as Rust's `as i32`: a pose just below zero is step 0, never -0 (an f32 -0 on the wire).
  return Math.min(16777215, Math.max(-16777215, roundHalfAwayFromZero(v * 512))) | 0;
}

/** Degrees (an f32) as 65536 steps a turn. */
function yawSteps(deg: number): number {
  if (!Number.isFinite(deg)) {
    return 0;
  }
  let r = deg % 360;
  if (r < 0) {
    r += 360;
  }
  return (roundHalfAwayFromZero((r / 360) * 65536) >>> 0) & 0xffff;
}

/**
 * Computes each tick's S_N for one client of the reference schema, as the Rust codec's
 * `Presenter`. ACK-17, ACK-18: per client, the server computes what an ordered client would hold
 * after frame N (every entity's record, whether its pose came full, the tier it was sent at and
 * the tick its pose was measured at), as the ordered encoder does: what changed, a far entity's
 * pose only when it is due or its rest changed, the client's own entities' pose in full.
 *
 * Per entity of the world: new (or a new life), whole, its pose measured now; near (the
 * client's own, or within the tier boundary, judged with hysteresis against the tier it was
 * sent at last) or outside the quantized box (POSE_REACH), the pose comes full whenever it
 * differs; far, the pose comes quantized (1/512 m, 256 yaw steps) only when it is due, its
 * rest or its tier changed, and it differs; any pose is measured again when POSE_REFRESH old.
 * The orientation is kept current on every tick it changes, like health, whatever
 * the pose's tier and rate, quantized with `fromXyzw(q, 9)` (acked.wire's `quat(9)`), and kept
 * for the entity's life when the world drops it.
 */
export class Presenter implements AckedPresenter<World, EntityState> {
  /** The view it computes for. */
  readonly config: ViewConfig;
  private prev: ServerEntry<EntityState>[] = [];
  private near: boolean[] = [];

  /** A presenter for a client that holds nothing yet. */
  constructor(config: ViewConfig) {
    this.config = config;
  }

  /** S_N for tick `tick` of `world`. */
  present(tick: number, world: World): ServerState<EntityState> {
    const config = this.config;
    // Where the client stands: its own entity with the lowest id present, or the origin.
    let viewer: [number, number, number] = [0, 0, 0];
    let lowest = Infinity;
    for (const eid of config.own) {
      const w = world.get(eid);
      if (w !== undefined && eid < lowest) {
        lowest = eid;
        viewer = [steps(w.x), steps(w.y), steps(w.z)];
      }
    }
    const eids = [...world.keys()].sort((a, b) => a - b);
    const next: ServerEntry<EntityState>[] = [];
    const nearNext: boolean[] = [];
    let h = 0;
    for (const eid of eids) {
      const w = world.get(eid)!;
      while (h < this.prev.length && this.prev[h]!.eid < eid) {
        h += 1;
      }
      let prev: EntityState | undefined;
      let wasNear = false;
      if (h < this.prev.length && this.prev[h]!.eid === eid) {
        const last = this.prev[h]!;
        if (last.life === w.life) {
          prev = last.record;
          wasNear = this.near[h]!;
        }
        h += 1;
      }
      const x = steps(w.x);
      const y = steps(w.y);
      const z = steps(w.z);
      const own = config.own.includes(eid);
      const tier = config.tier;
      // A distance is never negative: a negative (or NaN) radius admits nothing.
      const radius = wasNear ? tier.leave : tier.enter;
      let near = own;
      if (!near && radius >= 0) {
        const dx = (x - viewer[0]) / 512;
        const dy = (y - viewer[1]) / 512;
        const dz = (z - viewer[2]) / 512;
        near = tier.admits(wasNear, Math.fround(Math.sqrt(dx * dx + dy * dy + dz * dz)));
      }
      // CHECK-5: outside the box a pose step reaches, the pose comes full.
      const box =
        Math.abs(x) <= POSE_REACH && Math.abs(y) <= POSE_REACH && Math.abs(z) <= POSE_REACH;
      const full = near || !box;
      const yawFull = yawSteps(w.yaw);
      // 256 steps a turn, kept as a multiple of 256 of the 65536.
      const yaw = full ? yawFull : (((yawFull + 128) >> 8) << 8) & 0xffff;
      // The orientation is kept current on every tick it changes, like health, whatever the
      // pose's tier and rate; the entity keeps its last one when the world drops it.
      let orient: Orientation | undefined;
      if (w.orient !== undefined) {
        orient = { q: fromXyzw(w.orient, ORIENT_BITS) };
      } else if (prev !== undefined) {
        orient = prev.orient;
      }
      const oriented = orient !== undefined ? StateFlags.ORIENTED : 0;
      const flags = (full ? StateFlags.POSE_FULL : 0) | oriented;
      let record: EntityState;
      if (prev === undefined) {
        record = {
          x,
          y,
          z,
          yaw,
          flags,
          measured: tick,
          hp: w.hp,
          armor: w.armor,
          vehicle: w.vehicle,
          seat: w.seat,
          orient,
        };
      } else {
        const p = prev;
        const restChanged =
          p.hp !== w.hp || p.armor !== w.armor || p.vehicle !== w.vehicle || p.seat !== w.seat;
        const tierChanged = near !== wasNear;
        // The pose's tier alone: ORIENTED is the orientation's.
        const differs =
          p.x !== x ||
          p.y !== y ||
          p.z !== z ||
          p.yaw !== yaw ||
          ((p.flags & StateFlags.POSE_FULL) !== 0) !== full;
        const refresh = Math.max(0, tick - p.measured) >= POSE_REFRESH;
        const due =
          near ||
          restChanged ||
          tierChanged ||
          ((tick + eid) % 4294967296) % Math.max(1, config.farEvery) === 0;
        const send = refresh || (due && differs);
        record = send
          ? {
              x,
              y,
              z,
              yaw,
              flags,
              measured: tick,
              hp: w.hp,
              armor: w.armor,
              vehicle: w.vehicle,
              seat: w.seat,
              orient,
            }
          : {
              x: p.x,
              y: p.y,
              z: p.z,
              yaw: p.yaw,
              flags: (p.flags & ~StateFlags.ORIENTED) | oriented,
              measured: p.measured,
              hp: w.hp,
              armor: w.armor,
              vehicle: w.vehicle,
              seat: w.seat,
              orient,
            };
      }
      next.push({ eid, life: w.life, record });
      nearNext.push(near);
    }
    this.prev = next;
    this.near = nearNext;
    return next;
  }
}
