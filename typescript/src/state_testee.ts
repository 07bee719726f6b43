// The acked session halves of a spec's own `state` for a generated testee (conformance/PROTOCOL.md,
// "Session operations"): what `ackwire conform --spec` replays the stream vectors of
// `ackwire vectors --spec` with. Ported from conformance/src/sessions/state/mod.rs: one session
// pair per frame the state is sent in, named after the frame; `<frame>_server` is the runtime's
// AckedEncoder fed by a world every client sees whole, over the input schedule; `<frame>_client`
// the AckedClientHalf (the AckedDecoder and its ack writer). World ops: `spawn`, `set` (a record
// in its JSON form), `despawn`, `event`; the client's ops are the player's `input` for the tick.
// Reports are the reference pair's. Written beside the codec with `--testee` only.

import { DecodeError } from "./errors.js";
import { type JsonType, type JsonValue, fromHex, fromJson, toHex, toJson } from "./json.js";
import {
  type AckedSchema,
  AckedEncoder,
  type Delivery,
  type ServerEntry,
} from "./sessions/acked.js";
import { AckedClientHalf } from "./sessions/acked_half.js";
import type { Transmit } from "./sessions/half.js";
import { ScheduledInputs } from "./sessions/input_schedule.js";
import type { TesteeBody, TesteeSessions } from "./testee.js";

/** One frame a state is sent in, as the generated testee names it. */
export interface StateFrame<R, C, E, I> {
  /** The frame's snake_case name: the session pair's. */
  readonly frame: string;
  /** The acked schema of the frame, generated from the state. */
  readonly schema: AckedSchema<R, C, E, I>;
  /** The state's record, its events and its inputs, as the protocol's JSON carries them. */
  readonly record: JsonType;
  readonly event: JsonType;
  readonly input: JsonType;
}

type Obj = { readonly [key: string]: unknown };

function obj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}

/** One open half. Time and ticks are arguments. */
interface Half {
  advance(tick: number, ops: unknown[]): void;
  deliver(frame: string, bytes: Uint8Array): JsonValue;
  take(): Transmit[];
  stateHash(): number | undefined;
}

function drain(half: { pollTransmit(): Transmit | undefined }): Transmit[] {
  const out: Transmit[] = [];
  for (let t = half.pollTransmit(); t !== undefined; t = half.pollTransmit()) {
    out.push(t);
  }
  return out;
}

function eidOf(kind: string, body: Obj): number {
  const e = body["eid"];
  if (typeof e !== "number" || !Number.isInteger(e) || e < 0 || e > 65535) {
    throw new Error(`\`${kind}\` needs a u16 \`eid\``);
  }
  return e;
}

/** The server half: the world (every entity's life and record) and the encoder. */
class Server<R, C, E, I> implements Half {
  private readonly world = new Map<number, ServerEntry<R>>();
  private readonly lives = new Map<number, number>();
  private readonly inputs = new ScheduledInputs<I>({ maxLate: 4, maxEarly: 64 });
  private readonly enc: AckedEncoder<R, C, E, I>;
  private readonly out: Transmit[] = [];
  private tick = 0;
  private readonly f: StateFrame<R, C, E, I>;

  constructor(f: StateFrame<R, C, E, I>) {
    this.f = f;
    this.enc = new AckedEncoder(f.schema, this.inputs);
  }

  advance(tick: number, ops: unknown[]): void {
    this.tick = tick;
    const events: E[] = [];
    for (const op of ops) {
      const o = obj(op);
      const [kind, body] = Object.entries(o)[0] ?? ["", undefined];
      const b = obj(body);
      switch (kind) {
        case "spawn": {
          const eid = eidOf(kind, b);
          const life = (this.lives.get(eid) ?? 0) + 1;
          this.lives.set(eid, life);
          this.world.set(eid, { eid, life, record: fromJson(this.f.record, b["record"]) as R });
          break;
        }
        case "set": {
          const eid = eidOf(kind, b);
          const held = this.world.get(eid);
          if (held === undefined) {
            throw new Error(`\`set\` of entity ${eid}, which the world does not hold`);
          }
          this.world.set(eid, { ...held, record: fromJson(this.f.record, b["record"]) as R });
          break;
        }
        case "despawn":
          this.world.delete(eidOf(kind, b));
          break;
        case "event":
          events.push(fromJson(this.f.event, body) as E);
          break;
        default:
          throw new Error(`unknown world op: ${JSON.stringify(op)}`);
      }
    }
    // SRV-12: inputs execute on the tick they name; this world only consumes them.
    while (this.inputs.executeDue(tick) !== undefined) {
      // Every due input is consumed by the first call.
    }
    const state = [...this.world.values()].sort((a, b) => a.eid - b.eid);
    const sent = this.enc.encode(tick, state, events);
    this.out.push({ frame: this.f.schema.FRAME_NAME, bytes: sent.bytes, reliable: sent.reliable });
  }

  deliver(frame: string, bytes: Uint8Array): JsonValue {
    if (frame !== this.f.schema.ACK_NAME) {
      throw new Error(`the server takes \`${this.f.schema.ACK_NAME}\` frames, not \`${frame}\``);
    }
    try {
      const verdict = this.enc.receive(this.tick, bytes);
      return {
        ack: verdict,
        base: this.enc.acked() ?? null,
        last_seq: this.enc.lastSeq(),
        keyframes: this.enc.counters.keyframes,
        events_expired: this.enc.counters.eventsExpired,
      };
    } catch (e) {
      if (e instanceof DecodeError) {
        return { error: e.kind };
      }
      throw e;
    }
  }

  take(): Transmit[] {
    return this.out.splice(0);
  }

  stateHash(): number | undefined {
    return undefined;
  }
}

/** The client half: the runtime's AckedClientHalf, given the player's input each tick. */
class Client<R, C, E, I> implements Half {
  private readonly half: AckedClientHalf<R, C, E, I>;
  private readonly f: StateFrame<R, C, E, I>;

  constructor(f: StateFrame<R, C, E, I>, keep: number) {
    this.f = f;
    this.half = new AckedClientHalf(f.schema, keep);
  }

  advance(tick: number, ops: unknown[]): void {
    let input: I | undefined;
    for (const op of ops) {
      const o = obj(op);
      if (!("input" in o)) {
        throw new Error(`a client op is {"input": ...}: ${JSON.stringify(op)}`);
      }
      input = fromJson(this.f.input, o["input"]) as I;
    }
    this.half.handleTick({ tick, ms: 0 }, input);
  }

  deliver(frame: string, bytes: Uint8Array): JsonValue {
    if (frame !== this.f.schema.FRAME_NAME) {
      throw new Error(`the client takes \`${this.f.schema.FRAME_NAME}\` frames, not \`${frame}\``);
    }
    const d = this.half.handleFrame({ tick: 0, ms: 0 }, frame, bytes);
    return deliveryJson(d, (e) => toJson(this.f.event, e));
  }

  take(): Transmit[] {
    return drain(this.half);
  }

  stateHash(): number | undefined {
    return this.half.stateHash() >>> 0;
  }
}

/**
 * A client half's delivery as the testee protocol reports it (conformance/PROTOCOL.md): the state
 * shown with its report, or why the frame was dropped, or the decode error's kind; each event
 * in its JSON form by `event`. The reference testee's acked client and every state's write it alike.
 */
export function deliveryJson<E>(d: Delivery<E>, event: (e: E) => JsonValue): JsonValue {
  switch (d.kind) {
    case "shown": {
      const r = d.report;
      return {
        shown: {
          tick: r.tick,
          base_tick: r.baseTick,
          keyframe: r.keyframe,
          changed: r.changed.join(" "),
          measured: r.measuredEids.map((e, i) => `${e}@${r.measuredTicks[i]}`).join(" "),
          gone: r.gone.join(" "),
          tiers: r.tierEids.map((e, i) => `${e}:${r.tierFull[i] ? "full" : "quantized"}`).join(" "),
          events: r.events.map((e, i) => ({
            serial: r.eventSerials[i]!,
            event: event(e),
          })),
          check: r.check ?? null,
        },
      };
    }
    case "stale":
      return { dropped: "stale", tick: d.tick };
    case "unknown_base":
      return { dropped: "unknown_base", tick: d.tick, base_tick: d.baseTick };
    case "undecodable":
      return { error: d.error.kind };
    case "inapplicable":
      return { dropped: "inapplicable", tick: d.tick, why: d.why };
  }
}

/** The session halves of `frames` (each frame's `_server` and `_client`), for `serve`. */
export function stateSessions(frames: readonly StateFrame<any, any, any, any>[]): TesteeSessions {
  const openers = new Map<string, (params: Obj) => Half>();
  for (const f of frames) {
    openers.set(`${f.frame}_server`, () => new Server(f));
    openers.set(`${f.frame}_client`, (p) => {
      const keep = p["keep_inputs"];
      return new Client(f, typeof keep === "number" ? keep : 16);
    });
  }
  const open = new Map<number, Half>();
  let next = 0;
  const bad = (message: string): TesteeBody => ({ error: { kind: "bad_request", message } });
  const answer = (op: string, request: Obj): TesteeBody => {
    if (op === "open") {
      const name = typeof request["session"] === "string" ? request["session"] : "";
      const opener = openers.get(name);
      if (opener === undefined) {
        return { unimplemented: `session \`${name}\` is not implemented` };
      }
      next += 1;
      open.set(next, opener(obj(request["params"])));
      return { ok: { handle: next } };
    }
    const handle = request["handle"];
    const half = typeof handle === "number" ? open.get(handle) : undefined;
    if (half === undefined) {
      return bad(`no session ${String(handle)}`);
    }
    try {
      switch (op) {
        case "close":
          open.delete(handle as number);
          return { ok: {} };
        case "advance": {
          const tick = typeof request["tick"] === "number" ? request["tick"] : 0;
          half.advance(tick, Array.isArray(request["ops"]) ? (request["ops"] as unknown[]) : []);
          return { ok: {} };
        }
        case "deliver": {
          const frame = typeof request["frame"] === "string" ? request["frame"] : "";
          const bytes = fromHex(typeof request["hex"] === "string" ? request["hex"] : "");
          return { ok: { report: half.deliver(frame, bytes) } };
        }
        case "take":
          return {
            ok: {
              frames: half.take().map((t) => ({
                frame: t.frame,
                hex: toHex(t.bytes),
                reliable: t.reliable,
              })),
            },
          };
        case "state_hash": {
          const hash = half.stateHash();
          return hash === undefined
            ? { unimplemented: "this session half has no state hash" }
            : { ok: { hash } };
        }
        default:
          return { unimplemented: `unknown op \`${op}\`` };
      }
    } catch (e) {
      return bad((e as Error).message);
    }
  };
  return { names: [...openers.keys()], answer };
}
