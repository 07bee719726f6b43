// The `datagram` session pair (`docs/spec/datagram.md`), as conformance/src/sessions/datagram.rs:
// `datagram_server` is a Subscription fed by a scripted world; `datagram_client` is a ReplicaTable.
// The parameters (`precision`, `max_datagram`, `max_held`, `max_held_bytes`), world ops (`spawn`,
// `move`, `set`, `remove`, `despawn`, `full_frame`, `input_ack`) and reports are that module's; the
// client's state hash is FNV-1a 32 over ReplicaTable.canonicalBytes().

import { type JsonValue, fromHex } from "../gen/protocol.js";
import { ReferenceDatagram } from "../gen/reference_datagram.js";
import {
  DEFAULT_REPLICA_LIMITS,
  DEFAULT_SUBSCRIPTION,
  DatagramClient,
  DatagramServer,
  ReplicaTable,
  Subscription,
  type WorldOp,
} from "../gen/runtime/sessions/datagram.js";
import { SessionError } from "../gen/runtime/sessions/half.js";
import type { Opener, TesteeSession } from "../sessions.js";
import { drain, report, obj, type Obj } from "./common.js";

function field(v: Obj, key: string): unknown {
  if (!(key in v)) {
    throw new Error(`missing \`${key}\` in ${JSON.stringify(v)}`);
  }
  return v[key];
}

function uint(v: Obj, key: string): number {
  const x = field(v, key);
  if (typeof x !== "number" || !Number.isInteger(x) || x < 0) {
    throw new Error(`\`${key}\` must be an unsigned integer`);
  }
  return x;
}

function position(v: Obj): [number, number, number] {
  const axis = (k: string): number => {
    const x = field(v, k);
    if (typeof x !== "number") {
      throw new Error(`\`${k}\` must be a number`);
    }
    return x;
  };
  return [axis("x"), axis("y"), axis("z")];
}

function hex(v: unknown): Uint8Array {
  if (typeof v !== "string") {
    throw new Error("component bytes must be a hex string");
  }
  return fromHex(v);
}

function componentType(v: Obj): number {
  const t = uint(v, "type");
  if (t > 255) {
    throw new Error("`type` must fit a u8");
  }
  return t;
}

/** One world op, or `undefined` for `input_ack` (whose `seq` the caller keeps). */
function op(v: unknown): WorldOp | undefined {
  const entries = Object.entries(obj(v));
  if (entries.length !== 1) {
    throw new Error(`a world op is an object with one member: ${JSON.stringify(v)}`);
  }
  const [name, raw] = entries[0]!;
  const b = obj(raw);
  switch (name) {
    case "spawn": {
      const components: [number, Uint8Array][] = [];
      for (const [t, bytes] of Object.entries(obj(b["components"]))) {
        const n = Number(t);
        if (!/^\d+$/.test(t) || n > 255) {
          throw new Error(`component type \`${t}\``);
        }
        components.push([n, hex(bytes)]);
      }
      return { kind: "spawn", id: BigInt(uint(b, "id")), position: position(b), components };
    }
    case "move":
      return { kind: "move", id: BigInt(uint(b, "id")), position: position(b) };
    case "set":
      return {
        kind: "set",
        id: BigInt(uint(b, "id")),
        type: componentType(b),
        data: hex(field(b, "hex")),
      };
    case "remove":
      return { kind: "remove", id: BigInt(uint(b, "id")), type: componentType(b) };
    case "despawn":
      return { kind: "despawn", id: BigInt(uint(b, "id")) };
    case "full_frame":
      return { kind: "full_frame" };
    case "input_ack":
      return undefined;
    default:
      throw new Error(`unknown world op \`${name}\``);
  }
}

function server(params: Obj): TesteeSession {
  let precision = DEFAULT_SUBSCRIPTION.precision;
  let maxDatagram = DEFAULT_SUBSCRIPTION.maxDatagram;
  if ("precision" in params) {
    const p = params["precision"];
    if (typeof p !== "number") {
      throw new Error("`precision` must be a number");
    }
    precision = Math.fround(p);
  }
  if ("max_datagram" in params) {
    maxDatagram = uint(params, "max_datagram");
  }
  const half = new DatagramServer(
    ReferenceDatagram,
    new Subscription(ReferenceDatagram, { ...DEFAULT_SUBSCRIPTION, precision, maxDatagram }),
  );
  let inputAck = 0n;
  return {
    advance(tick, nowMs, ops) {
      const world: WorldOp[] = [];
      for (const v of ops) {
        const o = op(v);
        if (o === undefined) {
          inputAck = BigInt(uint(obj(obj(v)["input_ack"]), "seq"));
        } else {
          world.push(o);
        }
      }
      half.handleTick({ tick, ms: nowMs }, { inputAck, ops: world });
    },
    deliver(nowMs, frame, bytes) {
      return report(frame, () => {
        const a = half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
        return { known: a.known, covered: a.covered, not_covered: a.notCovered };
      });
    },
    take: () => drain(half),
    stateHash: () => undefined,
  };
}

function client(params: Obj): TesteeSession {
  let maxHeld = DEFAULT_REPLICA_LIMITS.maxHeld;
  if ("max_held" in params) {
    maxHeld = uint(params, "max_held");
  }
  let maxHeldBytes = DEFAULT_REPLICA_LIMITS.maxHeldBytes;
  if ("max_held_bytes" in params) {
    maxHeldBytes = uint(params, "max_held_bytes");
  }
  const half = new DatagramClient(
    ReferenceDatagram,
    new ReplicaTable({ ...DEFAULT_REPLICA_LIMITS, maxHeld, maxHeldBytes }),
  );
  return {
    advance(_tick, _nowMs, ops) {
      if (ops.length > 0) {
        throw new SessionError("no_world", "the client half takes no world ops");
      }
    },
    deliver(nowMs, frame, bytes) {
      return report(frame, () => {
        const s = half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
        const out: { [k: string]: JsonValue } = {
          held: s.held,
          released: s.released,
          applied: s.applied,
          skipped_spawn_tag: s.skippedSpawnTag,
          skipped_stale: s.skippedStale,
          skipped_unknown: s.skippedUnknown,
          given_up: s.givenUp,
          refused: s.refused,
        };
        // Left out while 0, as the Rust summary's serialization does.
        if (s.skippedOverBytes !== 0) {
          out["skipped_over_bytes"] = s.skippedOverBytes;
        }
        return out;
      });
    },
    take: () => drain(half),
    stateHash: () => half.table.stateHash(),
  };
}

/** The datagram halves, by name. */
export const DATAGRAM_HALVES: [string, Opener][] = [
  ["datagram_server", (v) => server(obj(v))],
  ["datagram_client", (v) => client(obj(v))],
];
