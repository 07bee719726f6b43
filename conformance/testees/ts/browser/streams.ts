// The golden stream vectors (vectors/streams/*/*.json) replayed inside a browser, one half at a
// time, through the testee's own session ops (src/sessions.ts: every half registered in its
// OPENERS, so a session's halves join here as soon as they are registered), as the conformance
// runner replays them against the testee under node (conformance/PROTOCOL.md, "Session
// operations"): each step of the half's side is given in order (`advance` or `deliver`), the
// report of each delivery must be the step's `report` (compared as the runner compares it,
// PROTOCOL.md "Reports"), then the frames it sends must equal the step's `sent` (names, bytes and
// channels), and for a client with an expected hash its state hash must equal it.

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
    readonly report?: unknown;
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
  /** Steps given, frames compared, state hashes compared, reports compared. */
  steps: number;
  frames: number;
  hashes: number;
  reports: number;
  /**
   * Whether a copy of one vector with one report altered failed at that report, as it must: the
   * proof that reports are compared at all.
   */
  reportControl: boolean;
  /** One line per failed half: the case, the step, what was wrong. */
  failures: string[];
}

const bare = (hex: string) => hex.replace(/\s+/g, "").toLowerCase();

type Reply = ReturnType<typeof sessionOp>;

type Json = { readonly [key: string]: unknown };

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Where a half's report first differs from the one the vector expects (`shown.measured`,
 * `events[2].serial`; "" for the report itself), or `undefined` when it is the same report, as
 * the Rust runner's `report_difference` compares them (PROTOCOL.md, "Reports"): the same members
 * and values, a number equal to the same number however written or to the decimal string of the
 * same integer, arrays in order; two members are prose and not compared: the `why` of an acked
 * frame dropped as `inapplicable`, a delta client's `refused`.
 */
export function reportDifference(expected: unknown, actual: unknown): string | undefined {
  const within = (at: string, rest: string | undefined) =>
    rest === undefined
      ? undefined
      : at === ""
        ? rest
        : rest === "" || rest.startsWith("[")
          ? `${at}${rest}`
          : `${at}.${rest}`;
  if (isObject(expected) && isObject(actual)) {
    const inapplicable = expected["dropped"] === "inapplicable";
    const prose = (k: string) =>
      (inapplicable && k === "why") || (k === "refused" && typeof expected[k] === "string");
    const keys = (o: Json) => Object.keys(o).filter((k) => !prose(k));
    const missing = keys(expected).find((k) => !(k in actual));
    if (missing !== undefined) {
      return missing;
    }
    const extra = keys(actual).find((k) => !(k in expected));
    if (extra !== undefined) {
      return extra;
    }
    for (const k of keys(expected)) {
      const d = within(k, reportDifference(expected[k], actual[k]));
      if (d !== undefined) {
        return d;
      }
    }
    return undefined;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    for (let i = 0; i < expected.length; i++) {
      const d = within(`[${i}]`, reportDifference(expected[i], actual[i]));
      if (d !== undefined) {
        return d;
      }
    }
    return undefined;
  }
  const spelt = (n: unknown, s: unknown) =>
    typeof n === "number" &&
    typeof s === "string" &&
    Number.isInteger(n) &&
    n >= 0 &&
    /^[0-9]+$/.test(s) &&
    BigInt(s) === BigInt(n);
  if (expected === actual || spelt(expected, actual) || spelt(actual, expected)) {
    return undefined;
  }
  return "";
}

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
          const report = ok(
            sessionOp("deliver", {
              handle,
              now_ms: step.at_ms,
              frame: deliver.frame,
              hex: deliver.hex,
            }),
            "deliver",
          )["report"];
          if (step.expect.report !== undefined) {
            o.reports++;
            const d = reportDifference(step.expect.report, report);
            if (d !== undefined) {
              const member = d === "" ? "it" : `\`${d}\``;
              return (
                `${at}: the report of ${deliver.frame} differs in ${member}: expected ` +
                `${JSON.stringify(step.expect.report)}, reported ${JSON.stringify(report)}`
              );
            }
          }
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

function emptyOutcome(): StreamOutcome {
  return {
    halves: 0,
    passed: 0,
    skipped: [],
    steps: 0,
    frames: 0,
    hashes: 0,
    reports: 0,
    reportControl: false,
    failures: [],
  };
}

/** Replays both halves of every vector whose half this build registers. */
export function checkStreams(vectors: readonly StreamVector[]): StreamOutcome {
  const o = emptyOutcome();
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
  o.reportControl = reportControl(vectors);
  return o;
}

/**
 * Replays a copy of the first registered half's vector whose first report is altered (a member
 * added): true when the replay fails at that step, on the report.
 */
function reportControl(vectors: readonly StreamVector[]): boolean {
  for (const v of vectors) {
    for (const side of ["server", "client"] as const) {
      if (!SESSION_NAMES.includes(`${v.session}_${side}`)) {
        continue;
      }
      const at = v.steps.findIndex((s) => s.side === side && isObject(s.expect.report));
      if (at < 0) {
        continue;
      }
      const steps = v.steps
        .slice(0, at + 1)
        .map((s, i) =>
          i === at
            ? { ...s, expect: { ...s.expect, report: { ...(s.expect.report as Json), told: 1 } } }
            : s,
        );
      const wrong = replay({ ...v, steps }, side, emptyOutcome());
      return wrong !== undefined && wrong.startsWith(`step ${at} `) && wrong.includes("`told`");
    }
  }
  return false;
}
