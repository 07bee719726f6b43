// The `acked` session pair (`docs/spec/acked.md`) for the testee protocol, ported from
// conformance/src/sessions/acked.rs: `acked_server` is the runtime's acked server half (its
// encoder fed by a world and the reference Presenter, over the input schedule); `acked_client` is
// the client half (the AckedDecoder with its kind 7 writer). This module only translates the
// protocol's JSON (params, world ops, reports) into the halves' calls; the machines are the
// runtime's (src/gen/runtime/sessions/), bound to the reference protocol by the binding `ackwire
// gen` writes for `state Reference` (src/gen/reference.ts), the presenter's policy the hand-written
// src/gen/reference/presenter.ts (copied from typescript/reference/).
//
// Parameters (an object; every key optional, the same object opens both halves): `own` (eids,
// default [1]), `near_enter` and `near_leave` (metres, 12 and 14), `far_every` (6),
// `max_late` and `max_early` (4 and 64: the server's input window), `input_lead` (2: the client
// aims each tick's input this far ahead), `keep_inputs` (16), `corrupt_at` (a tick: at its
// advance the client flips bits 0x55 of the `hp` of every record it holds and shows, a memory
// corruption the next check must catch, after which it asks for a keyframe).
//
// World ops: `spawn`, `move`, `set`, `despawn` and `event` as the harness's, and (issue 19)
// `{"orient": {"eid", "x", "y", "z", "w"}}`, the entity's orientation (a quaternion of any norm:
// the presenter normalises it), applied after the tick's other ops; an entity keeps it for its
// life. `acked_packed_server` and `acked_packed_client` are the same halves over the bit-packed
// schema (PackedReference, src/gen/reference.ts): kind 12 frames named `acked_packed`, the same
// acks; `acked_coded_server` and `acked_coded_client` over the coded one (CodedReference): kind 13
// frames named `acked_coded`.

import {
  Buttons,
  type EntityState,
  type Event,
  EventJson,
  type Input,
  type JsonValue,
  fromJson,
  toJson,
} from "../gen/protocol.js";
import { CodedReference, PackedReference, Reference } from "../gen/reference.js";
import { Presenter, type World, type WorldEntity } from "../gen/reference/presenter.js";
import type { AckedSchema } from "../gen/runtime/sessions/acked.js";
import { AckedClientHalf, AckedServerHalf } from "../gen/runtime/sessions/acked_half.js";
import { SessionError, type Transmit } from "../gen/runtime/sessions/half.js";
import { ScheduledInputs } from "../gen/runtime/sessions/input_schedule.js";
import { TierBoundary } from "../gen/runtime/sessions/tier.js";
import type { Opener, TesteeSession } from "../sessions.js";
import { drain } from "./common.js";
import { deliveryJson } from "../gen/runtime/state_testee.js";

type Obj = { readonly [key: string]: unknown };

/** A JSON number as serde's `as_u64` reads it: a non-negative integer, else `undefined`. */
function asU64(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function asF64(v: unknown): number | undefined {
  return typeof v === "number" ? v : undefined;
}

interface Params {
  own: number[];
  tier: TierBoundary;
  farEvery: number;
  maxLate: number;
  maxEarly: number;
  lead: number;
  keep: number;
  corruptAt: number | undefined;
}

function params(v: unknown): Params {
  const isObj = v !== null && typeof v === "object" && !Array.isArray(v);
  if (!(isObj || v === null)) {
    throw new Error("acked params must be an object");
  }
  const o: Obj = isObj ? (v as Obj) : {};
  const num = (k: string, d: number) => asF64(o[k]) ?? d;
  const int = (k: string, d: number) => asU64(o[k]) ?? d;
  let own = [1];
  if (o["own"] !== undefined) {
    const list = o["own"];
    if (!Array.isArray(list)) {
      throw new Error("`own` must be an array of eids");
    }
    own = list.map((e) => {
      const n = asU64(e);
      if (n === undefined || n > 65535) {
        throw new Error("`own` must hold u16 eids");
      }
      return n;
    });
  }
  const enter = Math.fround(num("near_enter", 12));
  const leave = Math.fround(num("near_leave", 14));
  if (Number.isNaN(enter) || Number.isNaN(leave) || leave < enter) {
    throw new Error("near_leave must not be smaller than near_enter");
  }
  const u32 = (n: number, d: number) => (n <= 0xffffffff ? n : d);
  return {
    own,
    tier: new TierBoundary(enter, leave),
    farEvery: Math.max(1, u32(int("far_every", 6), 6)),
    maxLate: int("max_late", 4),
    maxEarly: int("max_early", 64),
    lead: u32(int("input_lead", 2), 2),
    keep: int("keep_inputs", 16),
    corruptAt: asU64(o["corrupt_at"]),
  };
}

type Op =
  | { kind: "spawn"; eid: number; x: number; y: number; z: number; yaw: number; hp: number }
  | { kind: "move"; eid: number; x: number; y: number; z: number; yaw: number }
  | { kind: "set"; eid: number; hp: number; armor: number; vehicle: number; seat: number }
  | { kind: "despawn"; eid: number }
  | { kind: "event"; event: Event };

function opFromJson(v: unknown): Op {
  const text = JSON.stringify(v);
  if (v === null || typeof v !== "object" || Array.isArray(v) || Object.keys(v).length !== 1) {
    throw new Error(
      `a world op is an object with one key (spawn, move, set, despawn, event): ${text}`,
    );
  }
  const [kind, body] = Object.entries(v as Obj)[0]!;
  const b: Obj = body !== null && typeof body === "object" ? (body as Obj) : {};
  const eid = () => {
    const e = asU64(b["eid"]);
    if (e === undefined || e > 65535) {
      throw new Error(`\`${kind}\` needs a u16 \`eid\`: ${text}`);
    }
    return e;
  };
  // f32, as the Rust world holds positions and headings.
  const f = (k: string) => Math.fround(asF64(b[k]) ?? 0);
  const byte = (k: string) => Math.min(255, asU64(b[k]) ?? 0);
  switch (kind) {
    case "spawn":
      return { kind, eid: eid(), x: f("x"), y: f("y"), z: f("z"), yaw: f("yaw"), hp: byte("hp") };
    case "move":
      return { kind, eid: eid(), x: f("x"), y: f("y"), z: f("z"), yaw: f("yaw") };
    case "set":
      return {
        kind,
        eid: eid(),
        hp: byte("hp"),
        armor: byte("armor"),
        vehicle: Math.min(65535, asU64(b["vehicle"]) ?? 0),
        seat: byte("seat"),
      };
    case "despawn":
      return { kind, eid: eid() };
    case "event":
      try {
        return { kind, event: fromJson({ union: () => EventJson }, body) as Event };
      } catch (e) {
        throw new Error(`${(e as Error).message}: ${text}`);
      }
    default:
      throw new Error(`unknown world op \`${kind}\``);
  }
}

/** The harness's `apply_ops`: the world after `ops`, and the tick's events. */
function applyOps(world: Map<number, WorldEntity>, lives: Map<number, number>, ops: Op[]): Event[] {
  const events: Event[] = [];
  for (const op of ops) {
    switch (op.kind) {
      case "spawn": {
        const life = (lives.get(op.eid) ?? 0) + 1;
        lives.set(op.eid, life);
        world.set(op.eid, {
          life,
          x: op.x,
          y: op.y,
          z: op.z,
          yaw: op.yaw,
          hp: op.hp,
          armor: 0,
          vehicle: 0,
          seat: 0,
        });
        break;
      }
      case "move": {
        const w = world.get(op.eid);
        if (w !== undefined) {
          w.x = op.x;
          w.y = op.y;
          w.z = op.z;
          w.yaw = op.yaw;
        }
        break;
      }
      case "set": {
        const w = world.get(op.eid);
        if (w !== undefined) {
          w.hp = op.hp;
          w.armor = op.armor;
          w.vehicle = op.vehicle;
          w.seat = op.seat;
        }
        break;
      }
      case "despawn":
        world.delete(op.eid);
        break;
      case "event":
        events.push(op.event);
        break;
    }
  }
  return events;
}

/** Whether `v` is an `orient` op, which {@link turn} applies after the tick's other ops. */
function isOrient(v: unknown): boolean {
  return v !== null && typeof v === "object" && !Array.isArray(v) && "orient" in v;
}

/**
 * The `orient` ops of a tick (`{"orient": {"eid", "x", "y", "z", "w"}}`: the entity's
 * orientation, a quaternion of any norm, each component an f32 as the Rust world holds it),
 * applied after the tick's other ops; an entity keeps its orientation for its life (issue 19).
 * An op for an id the world does not hold is an error.
 */
function turn(world: Map<number, WorldEntity>, ops: unknown[]): void {
  for (const v of ops) {
    if (!isOrient(v)) {
      continue;
    }
    const body = (v as Obj)["orient"];
    const b: Obj = body !== null && typeof body === "object" ? (body as Obj) : {};
    const eid = asU64(b["eid"]);
    if (eid === undefined || eid > 65535) {
      throw new Error(`\`orient\` needs a u16 \`eid\`: ${JSON.stringify(v)}`);
    }
    const e = world.get(eid);
    if (e === undefined) {
      throw new Error(`\`orient\` of entity ${eid}, which the world does not hold`);
    }
    const f = (k: string) => Math.fround(asF64(b[k]) ?? 0);
    e.orient = [f("x"), f("y"), f("z"), f("w")];
  }
}

const TICK_RANGE = "ticks are u32 on the wire";

/** An acked schema of the reference state, whichever frame it travels in (`C` its change). */
type ReferenceSchema<C> = AckedSchema<EntityState, C, Event, Input>;

/**
 * The server half: the world, the client's view of it and its acked encoder, its frames the
 * schema's (kind 6 `acked`, or kind 12 `acked_packed`).
 */
class AckedServer<C> implements TesteeSession {
  private readonly world = new Map<number, WorldEntity>();
  private readonly lives = new Map<number, number>();
  private readonly inputs: ScheduledInputs<Input>;
  private readonly half: AckedServerHalf<World, EntityState, C, Event, Input>;
  private tick = 0;

  constructor(p: Params, schema: ReferenceSchema<C>) {
    this.inputs = new ScheduledInputs<Input>({ maxLate: p.maxLate, maxEarly: p.maxEarly });
    this.half = new AckedServerHalf(
      schema,
      new Presenter({ own: p.own, tier: p.tier, farEvery: p.farEvery }),
      this.inputs,
    );
  }

  advance(tick: number, nowMs: number, ops: unknown[]): void {
    const parsed = ops.filter((o) => !isOrient(o)).map(opFromJson);
    if (tick > 0xffffffff) {
      throw new Error(TICK_RANGE);
    }
    this.tick = tick;
    const events = applyOps(this.world, this.lives, parsed);
    turn(this.world, ops);
    // SRV-12: inputs execute on the tick they name; the reference world does not act on them, it
    // only consumes them so the buffer reports what is still ahead.
    while (this.inputs.executeDue(tick) !== undefined) {
      // Every due input is consumed by the first call.
    }
    try {
      this.half.handleTick({ tick, ms: nowMs }, { world: this.world, events });
    } catch (e) {
      throw new Error(`encoding tick ${tick}: ${(e as Error).message}`);
    }
  }

  deliver(nowMs: number, frame: string, bytes: Uint8Array): JsonValue {
    if (frame !== "ack") {
      throw new SessionError(
        "unexpected_frame",
        `the acked server takes \`ack\` frames, not \`${frame}\``,
      );
    }
    try {
      const r = this.half.handleFrame({ tick: this.tick, ms: nowMs }, frame, bytes);
      return {
        ack: r.verdict,
        base: r.base ?? null,
        last_seq: r.lastSeq,
        keyframes: r.counters.keyframes,
        events_expired: r.counters.eventsExpired,
      };
    } catch (e) {
      if (e instanceof SessionError && e.kind === "decode") {
        return { error: (e.cause as { kind: string }).kind };
      }
      throw e;
    }
  }

  take(): Transmit[] {
    return drain(this.half);
  }

  stateHash(): number | undefined {
    return undefined;
  }
}

/**
 * The client half: the runtime's (the AckedDecoder and the kind 7 writer) over the schema's
 * frames, a scripted player.
 */
class AckedClient<C> implements TesteeSession {
  private readonly half: AckedClientHalf<EntityState, C, Event, Input>;
  private readonly frameName: string;
  private readonly lead: number;
  private readonly corruptAt: number | undefined;

  constructor(p: Params, schema: ReferenceSchema<C>) {
    this.half = new AckedClientHalf(schema, p.keep);
    this.frameName = schema.FRAME_NAME;
    this.lead = p.lead;
    this.corruptAt = p.corruptAt;
  }

  advance(tick: number, nowMs: number, _ops: unknown[]): void {
    if (this.corruptAt === tick) {
      this.half.decoder.tamper((_eid: number, r: EntityState) => {
        r.hp ^= 0x55;
      });
    }
    if (tick > 0xffffffff) {
      throw new Error(TICK_RANGE);
    }
    const input: Input = {
      tick: Math.min(0xffffffff, tick + this.lead),
      buttons: tick % 10 === 0 ? Buttons.FIRE : 0,
      move_x: 1,
      move_y: 0,
      yaw: (tick % 256) * (360 / 256),
    };
    this.half.handleTick({ tick, ms: nowMs }, input);
  }

  deliver(nowMs: number, frame: string, bytes: Uint8Array): JsonValue {
    if (frame !== this.frameName) {
      throw new SessionError(
        "unexpected_frame",
        `the acked client takes \`${this.frameName}\` frames, not \`${frame}\``,
      );
    }
    // The client does not count ticks; its decoder reads none.
    const d = this.half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
    return deliveryJson(d, (e) => toJson({ union: () => EventJson }, e));
  }

  take(): Transmit[] {
    return drain(this.half);
  }

  stateHash(): number | undefined {
    return this.half.stateHash();
  }
}

/** The halves this module opens, for sessions.ts's OPENERS. */
export const ACKED_HALVES: readonly (readonly [string, Opener])[] = [
  ["acked_server", (p) => new AckedServer(params(p), Reference)],
  ["acked_client", (p) => new AckedClient(params(p), Reference)],
  // Issue 19: the same halves over kind 12.
  ["acked_packed_server", (p) => new AckedServer(params(p), PackedReference)],
  ["acked_packed_client", (p) => new AckedClient(params(p), PackedReference)],
  // Issue 39: the same halves over kind 13, each frame read against the base and older snapshot
  // the client holds.
  ["acked_coded_server", (p) => new AckedServer(params(p), CodedReference)],
  ["acked_coded_client", (p) => new AckedClient(params(p), CodedReference)],
];
