// The TypeScript AckedDecoder's whole delivery, timed on the cube scene's acked frames: what
// `cargo bench -p ackwire-bench --bench deliver` times for the Rust AckedDecoder, in the same
// unit, nanoseconds per entity of the world per frame. Run it with `bash deliver.sh`, which
// writes the frames (bench/examples/cube_frames.rs: the cube scene's first four seconds, 901
// bodies, seed 1, 5% loss) and prints the Rust decoder's figure on the same frames beside it
// (bench/examples/deliver_frames.rs). It times; it asserts no speed. The decoder is the
// runtime's AckedDecoder over `Reference`, the binding `ackwire gen` writes for the reference
// protocol's `state Reference` (src/gen/reference.ts).
//
// One call is a fresh decoder taking every frame in order, the join's keyframe first; before
// timing, every frame must show (no frame is lost on the way here, so each one's base is held).

import { readFileSync } from "node:fs";
import { DecodeError, decodeAcked, fromHex } from "./gen/protocol.js";
import { Reference, type ReferenceFrame } from "./gen/reference.js";
import { AckedDecoder, emptyFrame } from "./gen/runtime/sessions/acked.js";

/** A frame as the schema reads it (its reader at once, or the generated one), as text. */
function viaSchema(bytes: Uint8Array): string {
  const out: ReferenceFrame = emptyFrame();
  try {
    Reference.decodeFrameInto(bytes, out);
  } catch (e) {
    if (e instanceof DecodeError) {
      return `error ${e.kind} at ${e.offset} in ${e.path}`;
    }
    throw e;
  }
  return JSON.stringify(out);
}

/** The same frame through the generated `decodeAcked` alone, as text. */
function viaGenerated(bytes: Uint8Array): string {
  try {
    const f = decodeAcked(bytes);
    const keyframe = (f.flags & 1) !== 0;
    if (keyframe && f.base_tick !== 0) {
      return "error invalid_condition at 5 in base_tick";
    }
    return JSON.stringify({
      tick: f.tick,
      baseTick: f.base_tick,
      lastSeq: f.last_seq,
      inputBuffer: f.input_buffer,
      keyframe,
      check: f.check,
      removed: f.removed,
      changes: f.changes,
      firstSerial: f.first_serial ?? 0,
      events: f.events,
    });
  } catch (e) {
    if (e instanceof DecodeError) {
      return `error ${e.kind} at ${e.offset} in ${e.path}`;
    }
    throw e;
  }
}

/**
 * The reference schema's reader at once agrees with the generated reader on every frame and on
 * `mutants` mutants of each (a byte changed, or the frame cut short): the same frame, or the
 * same error; and every one of them goes through a decoder without an exception. Returns how many
 * inputs were compared.
 */
function agreement(frames: readonly Uint8Array[], mutants: number): number {
  let seed = 1;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  let compared = 0;
  // The mutants through a whole decoder too: a hostile frame is a Delivery, never an exception.
  const hostile = new AckedDecoder(Reference);
  for (const f of frames) {
    for (let m = 0; m <= mutants; m++) {
      let bytes = f;
      if (m > 0) {
        bytes = f.slice();
        if (m % 4 === 0) {
          bytes = bytes.slice(0, next(bytes.length));
        } else {
          bytes[next(bytes.length)] = next(256);
        }
      }
      const a = viaSchema(bytes);
      const b = viaGenerated(bytes);
      if (a !== b) {
        throw new Error(
          `the readers disagree on a frame:\nat once   ${a.slice(0, 300)}\ngenerated ${b.slice(0, 300)}`,
        );
      }
      hostile.deliver(bytes);
      compared++;
    }
  }
  return compared;
}

/** What the timed loop folds its results into, so that no work can be optimized away. */
let sink = 0;

function deliverAll(frames: readonly Uint8Array[]): number {
  const d = new AckedDecoder(Reference);
  let shown = 0;
  for (const f of frames) {
    if (d.deliver(f).kind === "shown") {
      shown += 1;
    }
  }
  return shown + (d.stateHash() & 1);
}

/** ns per call of `f`, over a round of about `ms` milliseconds. */
function round(f: () => number, ms: number): number {
  let n = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      sink += f();
    }
    const ns = Number(process.hrtime.bigint() - t0);
    if (ns >= ms * 1e6) {
      return ns / n;
    }
    n *= ns < ms * 1e5 ? 10 : 2;
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300);

function main(): void {
  const [file, entitiesArg] = process.argv.slice(2);
  if (file === undefined) {
    throw new Error("usage: node dist/deliver.js FRAMES [ENTITIES] (hex, one frame a line)");
  }
  const frames = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => fromHex(l.trim()));
  const compared = agreement(frames, 12);
  console.log(`the schema's reader and the generated one agree on ${compared} frames and mutants`);
  const d = new AckedDecoder(Reference);
  let shown = 0;
  let largest = 0;
  for (const f of frames) {
    const r = d.deliver(f);
    if (r.kind === "shown") {
      shown += 1;
      largest = Math.max(largest, r.report.changed.length);
    } else {
      throw new Error(`a frame did not show: ${JSON.stringify(r)}`);
    }
  }
  // The world's size: given, or the join's keyframe, which names every entity.
  const entities = entitiesArg !== undefined ? Number(entitiesArg) : largest;
  const ns: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ns.push(round(() => deliverAll(frames), ROUND_MS) / (entities * frames.length));
  }
  ns.sort((a, b) => a - b);
  const median = ns[ns.length >> 1]!;
  console.log(
    `typescript AckedDecoder: ${frames.length} frames (${shown} shown), ${entities} entities; ` +
      `node ${process.version}, median of ${ROUNDS} rounds of ${ROUND_MS} ms: ` +
      `${median.toFixed(2)} ns/entity/frame (range ${ns[0]!.toFixed(2)} to ${ns[ns.length - 1]!.toFixed(2)})`,
  );
  if (sink === 0) {
    console.log("(nothing was delivered)");
  }
}

main();
