// The TypeScript AckedDecoder's whole delivery, timed on the cube scene's acked frames: what
// `cargo bench -p ackwire-bench --bench deliver` times for the Rust AckedDecoder, in the same
// unit, nanoseconds per entity of the world per frame. Run it with `bash deliver.sh`, which
// writes the frames (bench/examples/cube_frames.rs: the cube scene's first four seconds, 901
// bodies, seed 1, 5% loss) and prints the Rust decoder's figure on the same frames beside it
// (bench/examples/deliver_frames.rs). It times; it asserts no speed.
//
// One call is a fresh decoder taking every frame in order, the join's keyframe first; before
// timing, every frame must show (no frame is lost on the way here, so each one's base is held).

import { readFileSync } from "node:fs";
import { fromHex } from "./gen/protocol.js";
import { referenceDecoder } from "./gen/reference/acked.js";

/** What the timed loop folds its results into, so that no work can be optimized away. */
let sink = 0;

function deliverAll(frames: readonly Uint8Array[]): number {
  const d = referenceDecoder();
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
  const d = referenceDecoder();
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
