// The `baseline` session pair (`docs/spec/baseline.md`), as conformance/src/sessions/baseline.rs:
// `baseline_server` is a SnapshotWriter over a scripted Scene, one snapshot a tick;
// `baseline_client` is a SnapshotClient that acknowledges each snapshot it applies. The parameters
// (`budget`, `client`, `first_sequence`, `max_entities`), world ops (`spawn`, `despawn`,
// `transform`, `velocity`, `health`, `team`) and reports are that module's; the client's state hash
// is FNV-1a 32 over SnapshotClient.canonicalBytes().

import { ReferenceBaseline, type ReferenceBaselineValue } from "../gen/reference_baseline.js";
import {
  BaselineClient,
  BaselineServer,
  Scene,
  SnapshotClient,
  SnapshotWriter,
} from "../gen/runtime/sessions/baseline.js";
import { SessionError } from "../gen/runtime/sessions/half.js";
import type { Opener, TesteeSession } from "../sessions.js";
import { drain, report, obj, type Obj } from "./common.js";

interface Params {
  budget: number;
  client: number;
  first: number;
  maxEntities: number;
}

function params(v: unknown): Params {
  const o = obj(v);
  const get = (k: string, d: number): number => {
    const x = o[k];
    if (x === undefined) {
      return d;
    }
    if (typeof x !== "number" || !Number.isInteger(x) || x < 0) {
      throw new Error(`\`${k}\` must be an unsigned integer`);
    }
    return x;
  };
  const client = get("client", 1);
  if (client > 0xffffffff) {
    throw new Error("`client` must fit a u32");
  }
  const first = get("first_sequence", 0);
  if (first > 0xffff) {
    throw new Error("`first_sequence` must fit a u16");
  }
  return { budget: get("budget", 1200), client, first, maxEntities: get("max_entities", 1 << 16) };
}

function num(v: Obj, k: string): number {
  const x = v[k];
  if (typeof x !== "number") {
    throw new Error(`missing number \`${k}\` in ${JSON.stringify(v)}`);
  }
  return x;
}

function small(v: Obj, k: string): number {
  const x = v[k];
  if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 255) {
    throw new Error(`\`${k}\` must be an integer 0..=255 in ${JSON.stringify(v)}`);
  }
  return x;
}

function slot(v: Obj): number {
  const x = v["slot"];
  if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0xffffffff) {
    throw new Error(`\`slot\` must be a u32 in ${JSON.stringify(v)}`);
  }
  return x;
}

function apply(scene: Scene<ReferenceBaselineValue>, v: unknown): void {
  const entries = Object.entries(obj(v));
  if (entries.length !== 1) {
    throw new Error(`a world op is an object with one member: ${JSON.stringify(v)}`);
  }
  const [name, raw] = entries[0]!;
  const b = obj(raw);
  switch (name) {
    case "spawn": {
      const o = b["owner"];
      const owner =
        typeof o === "number" && Number.isInteger(o) && o >= 0 && o <= 0xffffffff ? o : undefined;
      scene.spawn({ slot: slot(b), generation: small(b, "generation") }, owner);
      return;
    }
    case "despawn":
      scene.despawn(slot(b));
      return;
    case "transform":
      scene.set(slot(b), 0, { x: num(b, "x"), y: num(b, "y"), z: num(b, "z"), yaw: num(b, "yaw") });
      return;
    case "velocity":
      scene.set(slot(b), 1, { vx: num(b, "vx"), vy: num(b, "vy"), vz: num(b, "vz") });
      return;
    case "health":
      scene.set(slot(b), 2, { hp: small(b, "hp") });
      return;
    case "team":
      scene.set(slot(b), 3, { team: small(b, "team") });
      return;
    default:
      throw new Error(`unknown world op \`${name}\``);
  }
}

function server(p: Params): TesteeSession {
  const scene = new Scene(ReferenceBaseline);
  const half = new BaselineServer(
    ReferenceBaseline,
    new SnapshotWriter(ReferenceBaseline, p.client, p.budget, p.first),
  );
  return {
    advance(tick, nowMs, ops) {
      for (const v of ops) {
        apply(scene, v);
      }
      half.handleTick({ tick, ms: nowMs }, scene);
    },
    deliver(nowMs, frame, bytes) {
      return report(frame, () => {
        const r = half.handleFrame({ tick: 0, ms: nowMs }, frame, bytes);
        return { pending: r.pending, told: r.told };
      });
    },
    take: () => drain(half),
    stateHash: () => undefined,
  };
}

function client(p: Params): TesteeSession {
  const half = new BaselineClient(
    ReferenceBaseline,
    new SnapshotClient(ReferenceBaseline, p.maxEntities),
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
        return {
          applied: s.applied,
          stale: s.stale,
          malformed: s.malformed,
          removed: s.removed,
          not_ours: s.notOurs,
          created: s.created,
          updated: s.updated,
          refused: s.refused,
        };
      });
    },
    take: () => drain(half),
    stateHash: () => half.client.stateHash(),
  };
}

/** The baseline halves, by name. */
export const BASELINE_HALVES: [string, Opener][] = [
  ["baseline_server", (v) => server(params(v))],
  ["baseline_client", (v) => client(params(v))],
];
