// The testee protocol's session operations (conformance/PROTOCOL.md, "Session operations") over
// the TypeScript session machines: `open` makes a half by name, the other ops drive it by handle.
// The machines are the runtime's (src/gen/runtime/sessions/), bound to the reference protocol by
// the bindings `ackwire gen` writes (the acked one in src/gen/reference.ts, the other machines'
// schemas in src/gen/reference_{datagram,baseline,delta}.ts) and the hand-written presenter of
// src/gen/reference/ (copied from typescript/reference/ by build.sh); each
// module under src/halves/ only translates the protocol's JSON (params, world ops, reports) into
// a half's calls, as conformance/src/sessions/ does for the Rust codec.

import { type JsonValue, fromHex, toHex } from "./gen/protocol.js";
import type { Transmit } from "./gen/runtime/sessions/half.js";
import type { TesteeBody, TesteeSessions } from "./gen/runtime/testee.js";
// ts-rest: the datagram, baseline and delta halves.
import { BASELINE_HALVES } from "./halves/baseline.js";
import { DATAGRAM_HALVES } from "./halves/datagram.js";
import { DELTA_HALVES } from "./halves/delta.js";
import { ACKED_HALVES } from "./halves/acked.js";

/** One open half, as the session ops see it. Time and ticks are arguments. */
export interface TesteeSession {
  /** A server tick passes and the world does `ops` (a client half refuses any op). */
  advance(tick: number, nowMs: number, ops: unknown[]): void;
  /** The network delivers `frame`; the half's report (compared: PROTOCOL.md "Reports"). */
  deliver(nowMs: number, frame: string, bytes: Uint8Array): JsonValue;
  /** Everything the half wants to send now, in order. */
  take(): Transmit[];
  /** The FNV-1a 32 of the half's state, or `undefined` for a half without one. */
  stateHash(): number | undefined;
}

/** Opens a half from the `params` of `open`; throws an Error whose message says what is wrong. */
export type Opener = (params: unknown) => TesteeSession;

/** Every half this testee implements, by name: one spread per module of src/halves/. */
export const OPENERS: ReadonlyMap<string, Opener> = new Map<string, Opener>([
  ...DATAGRAM_HALVES,
  ...BASELINE_HALVES,
  ...DELTA_HALVES,
  ...ACKED_HALVES,
]);

/** The halves `hello` lists. */
export const SESSION_NAMES: readonly string[] = [...OPENERS.keys()];

/** A reply body without its `id`. */
export type Body = TesteeBody;

function bad(message: string): Body {
  return { error: { kind: "bad_request", message } };
}

const open = new Map<number, TesteeSession>();
let next = 0;

/** The reply to session op `op`. A half's refusal is a `bad_request` error with its message. */
export function sessionOp(op: string, request: { [key: string]: unknown }): Body {
  if (op === "open") {
    const name = typeof request["session"] === "string" ? request["session"] : "";
    const opener = OPENERS.get(name);
    if (opener === undefined) {
      return { unimplemented: `session \`${name}\` is not implemented` };
    }
    try {
      next += 1;
      open.set(next, opener(request["params"] ?? null));
      return { ok: { handle: next } };
    } catch (e) {
      return bad((e as Error).message);
    }
  }
  const handle = request["handle"];
  if (typeof handle !== "number") {
    return bad("a session op needs a `handle`");
  }
  if (op === "close") {
    return open.delete(handle) ? { ok: {} } : bad(`no session ${handle}`);
  }
  const session = open.get(handle);
  if (session === undefined) {
    return bad(`no session ${handle}`);
  }
  const nowMs = typeof request["now_ms"] === "number" ? request["now_ms"] : 0;
  try {
    switch (op) {
      case "advance": {
        const tick = typeof request["tick"] === "number" ? request["tick"] : 0;
        const ops = Array.isArray(request["ops"]) ? (request["ops"] as unknown[]) : [];
        session.advance(tick, nowMs, ops);
        return { ok: {} };
      }
      case "deliver": {
        const frame = typeof request["frame"] === "string" ? request["frame"] : "";
        const bytes = fromHex(typeof request["hex"] === "string" ? request["hex"] : "");
        return { ok: { report: session.deliver(nowMs, frame, bytes) } };
      }
      case "take":
        return {
          ok: {
            frames: session.take().map((t) => ({
              frame: t.frame,
              hex: toHex(t.bytes),
              reliable: t.reliable,
            })),
          },
        };
      case "state_hash": {
        const hash = session.stateHash();
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
}

/** The halves as the generated testee takes them (src/gen/testee.ts's `serve`). */
export const SESSIONS: TesteeSessions = {
  names: SESSION_NAMES,
  answer: sessionOp,
};
