// The golden frame vectors (vectors/frames/*.json) checked inside a browser, against the
// generated codec of the reference protocol compiled to ES modules: what the TypeScript testee
// is held to under node, run where the codec is meant to ship. browser.sh serves this module,
// index.html and the vectors (as vectors.js) to headless Chromium and reads the verdict back
// from the DOM it dumps.
//
// A positive vector makes four checks: its bytes decode; the decoded value's JSON form is the
// vector's `value` exactly (numbers by Object.is, so -0 is not 0); the decoded value encodes to
// the same bytes; and the vector's `value`, read from JSON, encodes to the same bytes. A
// negative vector makes one: decoding fails with a DecodeError of the vector's kind, byte
// offset, field path and (inside a packed body) bit. A coded frame (kind 13) is read and written
// against the records its case's `basis` holds, as the testee protocol's requests carry them.

import {
  CODED_FRAMES,
  DecodeError,
  decodeFrame,
  encodeFrame,
  frameEncodedLen,
  frameFromJson,
  frameToJson,
  fromHex,
  isFrameName,
  toHex,
} from "../src/gen/protocol.js";
import { fromJson, toJson } from "../src/gen/runtime/json.js";
import { basisFromJson } from "../src/gen/runtime/testee.js";
import { type StreamVector, checkStreams } from "./streams.js";

/** One case of a frame vector file (vectors/README.md). */
interface VectorCase {
  readonly name: string;
  readonly hex: string;
  readonly basis?: unknown;
  readonly value?: unknown;
  readonly error?: {
    readonly kind: string;
    readonly offset?: number;
    readonly path?: string;
    readonly bit?: number;
  };
}

/** One frame vector file. */
interface VectorFile {
  readonly frame: string;
  readonly cases: readonly VectorCase[];
}

/** What a run found. */
export interface Outcome {
  /** Vectors run, and how many of them passed every check. */
  vectors: number;
  passed: number;
  /** Checks made, and how many held. */
  checks: number;
  checksPassed: number;
  /** One line per failed check: the vector's name, the check, what was wrong. */
  failures: string[];
}

/** Whether two JSON values are the same: same members, same order of list items, Object.is. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") {
    return Object.is(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => same(item, b[i]))
    );
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      same(ka, kb) &&
      ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

/** JSON text for a message, keeping the sign of -0. */
function show(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (Object.is(v, -0) ? "-0" : v));
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** How the checks read and write the frames of one vector. */
interface FrameCodec {
  readonly decode: (bytes: Uint8Array) => unknown;
  readonly encode: (value: unknown) => Uint8Array;
  readonly encodedLen: (value: unknown) => number;
  readonly toJson: (value: unknown) => unknown;
  readonly fromJson: (json: unknown) => unknown;
}

/**
 * The codec of `frame` for case `c`: the by-name functions, or a coded frame's read and written
 * against the case's basis; what is wrong when the generated codec has no such frame.
 */
function codecOf(frame: string, c: VectorCase): FrameCodec | string {
  if (Object.prototype.hasOwnProperty.call(CODED_FRAMES, frame)) {
    const coded = CODED_FRAMES[frame];
    const basis = basisFromJson(coded, c.basis);
    const type = { record: () => coded.frame };
    return {
      decode: (bytes) => coded.decode(bytes, basis),
      encode: (value) => coded.encode(value, basis),
      // A coded frame's length is known only once it is coded.
      encodedLen: (value) => coded.encode(value, basis).length,
      toJson: (value) => toJson(type, value),
      fromJson: (json) => fromJson(type, json),
    };
  }
  if (!isFrameName(frame)) {
    return `\`${frame}\` is not a frame of the generated codec`;
  }
  return {
    decode: (bytes) => decodeFrame(frame, bytes),
    encode: (value) => encodeFrame(frame, value as never),
    encodedLen: (value) => frameEncodedLen(frame, value as never),
    toJson: (value) => frameToJson(frame, value as never),
    fromJson: (json) => frameFromJson(frame, json),
  };
}

/** The checks of one vector: each returns what was wrong, or nothing. */
function checksOf(frame: string, c: VectorCase): [string, () => string | undefined][] {
  let codec: FrameCodec | string;
  try {
    codec = codecOf(frame, c);
  } catch (e) {
    codec = `the case's basis: ${describe(e)}`;
  }
  if (typeof codec === "string") {
    const wrong = codec;
    return [["frame", () => wrong]];
  }
  const { decode, encode, encodedLen } = codec;
  const [asJson, ofJson] = [codec.toJson, codec.fromJson];
  const hex = c.hex.replace(/\s+/g, "").toLowerCase();
  const want = c.error;
  if (want !== undefined) {
    return [
      [
        "error",
        () => {
          let value: unknown;
          try {
            value = decode(fromHex(hex));
          } catch (e) {
            if (!(e instanceof DecodeError)) {
              return `threw ${describe(e)}, not a DecodeError`;
            }
            const got: Record<string, unknown> = { kind: e.kind, offset: e.offset, path: e.path };
            if (e.bit !== undefined) {
              got["bit"] = e.bit;
            }
            return same(got, want) ? undefined : `expected error ${show(want)}, got ${show(got)}`;
          }
          return `expected error ${show(want)}, decoded ${show(asJson(value))}`;
        },
      ],
    ];
  }
  let decoded: unknown;
  const bytes = (): Uint8Array => fromHex(hex);
  return [
    [
      "decode",
      () => {
        try {
          decoded = decode(bytes());
          return undefined;
        } catch (e) {
          return `decoding failed: ${describe(e)}`;
        }
      },
    ],
    [
      "json",
      () => {
        if (decoded === undefined) {
          return "nothing decoded";
        }
        const json = asJson(decoded);
        return same(json, c.value) ? undefined : `expected ${show(c.value)}, got ${show(json)}`;
      },
    ],
    [
      "re-encode",
      () => {
        if (decoded === undefined) {
          return "nothing decoded";
        }
        const out = toHex(encode(decoded));
        const len = encodedLen(decoded);
        if (out !== hex) {
          return `expected bytes ${hex}, got ${out}`;
        }
        return len === hex.length / 2 ? undefined : `encodedLen says ${len}, not ${hex.length / 2}`;
      },
    ],
    [
      "encode",
      () => {
        const out = toHex(encode(ofJson(c.value)));
        return out === hex ? undefined : `expected bytes ${hex}, got ${out}`;
      },
    ],
  ];
}

/** Runs every check of every vector of `files`. */
export function checkVectors(files: readonly VectorFile[]): Outcome {
  const outcome: Outcome = { vectors: 0, passed: 0, checks: 0, checksPassed: 0, failures: [] };
  for (const file of files) {
    for (const c of file.cases) {
      outcome.vectors++;
      let ok = true;
      for (const [check, run] of checksOf(file.frame, c)) {
        outcome.checks++;
        let wrong: string | undefined;
        try {
          wrong = run();
        } catch (e) {
          wrong = `threw ${describe(e)}`;
        }
        if (wrong === undefined) {
          outcome.checksPassed++;
        } else {
          ok = false;
          outcome.failures.push(`${c.name} ${check}: ${wrong}`);
        }
      }
      if (ok) {
        outcome.passed++;
      }
    }
  }
  return outcome;
}

/**
 * Runs the frame vectors, then replays the stream vectors (browser/streams.ts), and writes the
 * verdict into the page: `#result` gets one line that browser.sh reads, `#failures` one line per
 * failed check or half, `#agent` the browser's name.
 */
export function run(
  files: readonly VectorFile[],
  streams: readonly StreamVector[],
  doc: Document,
): void {
  const result = doc.getElementById("result");
  const failures = doc.getElementById("failures");
  const agent = doc.getElementById("agent");
  if (result === null || failures === null || agent === null) {
    throw new Error("the page lacks #result, #failures or #agent");
  }
  agent.textContent = navigator.userAgent;
  const o = checkVectors(files);
  const s = checkStreams(streams);
  const failed = o.vectors - o.passed;
  failures.textContent = [...o.failures, ...s.failures].join("\n");
  result.textContent =
    `ackwire-browser: vectors=${o.vectors} passed=${o.passed} failed=${failed} ` +
    `checks=${o.checks} checks_passed=${o.checksPassed} ` +
    `stream_halves=${s.halves} stream_passed=${s.passed} stream_skipped=${s.skipped.length} ` +
    `stream_steps=${s.steps} stream_frames=${s.frames} stream_hashes=${s.hashes} ` +
    `stream_reports=${s.reports} report_control=${s.reportControl ? 1 : 0}`;
}
