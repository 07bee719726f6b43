// The golden stream vectors (vectors/streams/*/*.json) replayed inside a browser, one half at a
// time, through the testee's own session ops (src/sessions.ts: every half registered in its
// OPENERS, so a session's halves join here as soon as they are registered), as the conformance
// runner replays them against the testee under node (conformance/PROTOCOL.md, "Session
// operations"): each step of the half's side is given in order (`advance` or `deliver`), then
// the frames it sends must equal the step's `sent` (names, bytes and channels), and for a
// client with an expected hash its state hash must equal it.

import { SESSION_NAMES, sessionOp } from "../src/sessions.js";

/** One step of a stream vector (vectors/README.md). */
interface StreamStep {
  readonly at_ms: number;
  readonly side: "server" | "client";
  readonly action: {
    readonly advance?: { readonly tick: number; readonly ops: readonly unknown[] };
    readonly deliver?: { readonly frame: string; readonly hex: string };
  };
  readonly expect: {
    readonly sent: readonly { frame: string; hex: string; reliable?: boolean }[];
    readonly client_hash?: number;
  };
}

/** One stream vector file. */
export interface StreamVector {
  readonly name: string;
  readonly session: string;
  readonly params: unknown;
  readonly steps: readonly StreamStep[];
}

/** What a replay found. */
export interface StreamOutcome {
  /** Halves replayed (a vector has two), and how many did everything their steps say. */
  halves: number;
  passed: number;
  /** Halves not replayed because this build registers no such half, by name. */
  skipped: string[];
  /** Steps given, frames compared, state hashes compared. */
  steps: number;
  frames: number;
  hashes: number;
  /** One line per failed half: the case, the step, what was wrong. */
  failures: string[];
}

const bare = (hex: string) => hex.replace(/\s+/g, "").toLowerCase();

type Reply = ReturnType<typeof sessionOp>;

function ok(reply: Reply, what: string): { [key: string]: unknown } {
  if ("ok" in reply) {
    return reply.ok as { [key: string]: unknown };
  }
  const why = "error" in reply ? JSON.stringify(reply.error) : reply.unimplemented;
  throw new Error(`${what}: ${why}`);
}

/** Replays `side` of `v`; returns what was wrong, or nothing. */
function replay(v: StreamVector, side: "server" | "client", o: StreamOutcome): string | undefined {
  const opened = ok(
    sessionOp("open", { session: `${v.session}_${side}`, params: v.params }),
    "open",
  );
  const handle = opened["handle"];
  try {
    for (let i = 0; i < v.steps.length; i++) {
      const step = v.steps[i]!;
      if (step.side !== side) {
        continue;
      }
      const at = `step ${i} (at ${step.at_ms} ms)`;
      o.steps++;
      const { advance, deliver } = step.action;
      try {
        if (advance !== undefined) {
          ok(
            sessionOp("advance", {
              handle,
              tick: advance.tick,
              now_ms: step.at_ms,
              ops: advance.ops,
            }),
            "advance",
          );
        } else if (deliver !== undefined) {
          ok(
            sessionOp("deliver", {
              handle,
              now_ms: step.at_ms,
              frame: deliver.frame,
              hex: deliver.hex,
            }),
            "deliver",
          );
        }
      } catch (e) {
        return `${at}: ${(e as Error).message}`;
      }
      const frames = ok(sessionOp("take", { handle }), "take")["frames"] as {
        frame: string;
        hex: string;
        reliable: boolean;
      }[];
      const want = step.expect.sent;
      o.frames += want.length;
      const same =
        frames.length === want.length &&
        frames.every(
          (f, k) =>
            f.frame === want[k]!.frame &&
            bare(f.hex) === bare(want[k]!.hex) &&
            f.reliable === (want[k]!.reliable ?? false),
        );
      if (!same) {
        return `${at}: expected to send ${JSON.stringify(want)}, sent ${JSON.stringify(frames)}`;
      }
      if (step.expect.client_hash !== undefined) {
        o.hashes++;
        const hash = ok(sessionOp("state_hash", { handle }), "state_hash")["hash"];
        if (hash !== step.expect.client_hash) {
          return `${at}: expected client state hash ${step.expect.client_hash}, got ${String(hash)}`;
        }
      }
    }
    return undefined;
  } finally {
    sessionOp("close", { handle });
  }
}

/** Replays both halves of every vector whose half this build registers. */
export function checkStreams(vectors: readonly StreamVector[]): StreamOutcome {
  const o: StreamOutcome = {
    halves: 0,
    passed: 0,
    skipped: [],
    steps: 0,
    frames: 0,
    hashes: 0,
    failures: [],
  };
  for (const v of vectors) {
    for (const side of ["server", "client"] as const) {
      const half = `${v.session}_${side}`;
      if (!SESSION_NAMES.includes(half)) {
        o.skipped.push(`${v.name}#${side}`);
        continue;
      }
      o.halves++;
      let wrong: string | undefined;
      try {
        wrong = replay(v, side, o);
      } catch (e) {
        wrong = `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
      }
      if (wrong === undefined) {
        o.passed++;
      } else {
        o.failures.push(`streams/${v.name}#${side} ${wrong}`);
      }
    }
  }
  return o;
}
