// The `delta` session pair (`docs/spec/delta.md`), as conformance/src/sessions/delta.rs:
// `delta_server` is a world of slot keys and one subscriber's DeltaBaseline; `delta_client` is a
// DeltaMirror that stops reading during `client_stalls` and drops its mirror when it reads again.
// The parameters, world ops and reports are that module's; the client's state hash is FNV-1a 32
// over the mirror's keys ascending, each a u64 little endian.

import type { JsonValue } from "../gen/protocol.js";
import { ReferenceDelta } from "../gen/reference_delta.js";
import { decodeSlotKey } from "../gen/runtime/sessions/digest.js";
import {
  DeltaBaseline,
  DeltaClient,
  DeltaMirror,
  DeltaServer,
  type RecoveryPolicy,
} from "../gen/runtime/sessions/delta.js";
import { fnv1a32 } from "../gen/runtime/sessions/fnv.js";
import { SessionError } from "../gen/runtime/sessions/half.js";
import type { Opener, TesteeSession } from "../sessions.js";

interface Params {
  history: number;
  policy: RecoveryPolicy;
  flow: { stalledAfter: number; keepaliveEvery: number } | undefined;
  stalls: [number, number][];
}

function isUint(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function params(v: unknown): Params {
  const o = (v !== null && typeof v === "object" ? v : {}) as { [k: string]: unknown };
  const u = (name: string): number | undefined => {
    const x = o[name];
    if (x === undefined || x === null) {
      return undefined;
    }
    if (!isUint(x)) {
      throw new Error(`\`${name}\` must be a non-negative integer`);
    }
    return x;
  };
  const history = Math.min(u("history") ?? 32, 1 << 16);
  const p = o["policy"];
  let policy: RecoveryPolicy;
  if (p === undefined || p === "ack_recovery") {
    policy = "ack_recovery";
  } else if (p === "naive") {
    policy = "naive";
  } else {
    throw new Error(`unknown policy \`${String(p)}\``);
  }
  const a = u("stalled_after_ms");
  const k = u("keepalive_every_ms");
  if ((a === undefined) !== (k === undefined)) {
    throw new Error("`stalled_after_ms` and `keepalive_every_ms` go together");
  }
  const flow =
    a !== undefined && k !== undefined ? { stalledAfter: a, keepaliveEvery: k } : undefined;
  const stalls: [number, number][] = [];
  const list = o["client_stalls"];
  if (list !== undefined) {
    if (!Array.isArray(list)) {
      throw new Error("`client_stalls` must be a list");
    }
    for (const s of list) {
      if (!Array.isArray(s) || !isUint(s[0]) || !isUint(s[1])) {
        throw new Error("a stall is [from_ms, to_ms]");
      }
      stalls.push([s[0], s[1]]);
    }
  }
  return { history, policy, flow, stalls };
}

function keyOf(v: unknown): { index: number; generation: number } {
  if (!isUint(v) || v >= 2 ** 48) {
    throw new Error(`a key is an integer below 2^48, not ${JSON.stringify(v)}`);
  }
  return decodeSlotKey(v);
}

function big(v: bigint | undefined): JsonValue {
  return v === undefined ? null : Number(v);
}

function decodeKind(e: SessionError): string {
  const c = e.cause as { kind?: unknown } | undefined;
  return typeof c?.kind === "string" ? c.kind : e.message;
}

function server(p: Params): TesteeSession {
  const world = new Map<number, number>();
  const half = new DeltaServer(ReferenceDelta, new DeltaBaseline(p.history, p.policy, p.flow));
  return {
    advance(tick, nowMs, ops) {
      for (const op of ops) {
        const o = (op !== null && typeof op === "object" ? op : {}) as { [k: string]: unknown };
        if ("enter" in o) {
          const k = keyOf(o["enter"]);
          world.set(k.index, k.generation);
        } else if ("leave" in o) {
          const k = keyOf(o["leave"]);
          if (world.get(k.index) === k.generation) {
            world.delete(k.index);
          }
        } else if (o["reset"] === true) {
          half.baseline.reset();
        } else if (o["request_full_baseline"] === true) {
          half.baseline.requestFullBaseline();
        } else {
          throw new Error(`unknown delta world op ${JSON.stringify(op)}`);
        }
      }
      const visible = new Set<number>();
      for (const [i, g] of world) {
        visible.add(i * 65536 + g);
      }
      half.handleTick({ tick, ms: nowMs }, visible);
    },
    deliver(nowMs, frame, bytes): JsonValue {
      try {
        const r = half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
        return {
          acked_seq: big(r.ackedSeq),
          unacked: r.unacked,
          full_rebuilds: r.fullRebuilds,
          stalled: r.stalled,
        };
      } catch (e) {
        if (e instanceof SessionError && e.kind === "unexpected_frame") {
          return { dropped: `the server takes delta_ack, not ${frame}` };
        }
        if (e instanceof SessionError && e.kind === "decode") {
          return { dropped: decodeKind(e) };
        }
        throw e;
      }
    },
    take() {
      const out = [];
      for (let t = half.pollTransmit(); t !== undefined; t = half.pollTransmit()) {
        out.push(t);
      }
      return out;
    },
    stateHash() {
      return undefined;
    },
  };
}

/** FNV-1a 32 over `keys` ascending, each as a u64 little endian. */
function mirrorHash(keys: number[]): number {
  const bytes = new Uint8Array(keys.length * 8);
  const view = new DataView(bytes.buffer);
  keys.forEach((k, i) => {
    view.setUint32(i * 8, k % 4294967296, true);
    view.setUint32(i * 8 + 4, Math.floor(k / 4294967296), true);
  });
  return fnv1a32(bytes);
}

function client(p: Params): TesteeSession {
  const half = new DeltaClient(ReferenceDelta, new DeltaMirror());
  let unread = false;
  return {
    advance(_tick, _nowMs, ops) {
      if (ops.length > 0) {
        throw new Error("the delta client takes no world ops");
      }
    },
    deliver(nowMs, frame, bytes): JsonValue {
      if (frame !== "delta_plan") {
        return { dropped: `the client takes delta_plan, not ${frame}` };
      }
      if (p.stalls.some(([a, b]) => a <= nowMs && nowMs < b)) {
        unread = true;
        return { unread: true };
      }
      // A plan that does not decode leaves the mirror, and whether it is to be dropped, as
      // they are: check before the half reads it.
      try {
        ReferenceDelta.decodePlan(bytes);
      } catch (e) {
        const kind = (e as { kind?: unknown }).kind;
        return { dropped: typeof kind === "string" ? kind : String(e) };
      }
      const droppedMirror = unread;
      unread = false;
      if (droppedMirror) {
        half.mirror.clear();
      }
      try {
        const a = half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
        return {
          applied: a.applied,
          full_baseline: a.cleared,
          entered: a.entered,
          left: a.left,
          held: half.mirror.size,
          dropped_mirror: droppedMirror,
        };
      } catch (e) {
        if (e instanceof SessionError && e.kind === "limit") {
          return { refused: e.message, held: half.mirror.size };
        }
        throw e;
      }
    },
    take() {
      const out = [];
      for (let t = half.pollTransmit(); t !== undefined; t = half.pollTransmit()) {
        out.push(t);
      }
      return out;
    },
    stateHash() {
      return mirrorHash(half.mirror.keys());
    },
  };
}

/** The delta halves, by name. */
export const DELTA_HALVES: [string, Opener][] = [
  ["delta_server", (v) => server(params(v))],
  ["delta_client", (v) => client(params(v))],
];
