// A hostile peer against the TypeScript datagram, baseline, delta and acked halves (kind 6's,
// kind 12's and kind 13's): every frame the stream vectors deliver
// (vectors/streams/{datagram,baseline,delta,acked,acked_packed,acked_coded}/), replayed into fresh
// halves with mutations between the real ones (bits flipped, bytes cut, inserted or replaced,
// whole frames of random bytes, frames sent to the wrong half). A half may refuse a frame only
// with a SessionError; any other exception escaping a half is a bug, printed, and exit 1.
//
// Run from the repository root after build.sh: `node conformance/testees/ts/dist/hostile.js
// [ROUNDS] [SEED]` (default 200 rounds per vector, seed 1).

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fromHex } from "./gen/protocol.js";
import { SessionError } from "./gen/runtime/sessions/half.js";
import { OPENERS } from "./sessions.js";

/** SplitMix64 over a bigint state, as the simulator's: deterministic from the seed. */
class Rng {
  private s: bigint;
  constructor(seed: bigint) {
    this.s = seed;
  }
  next(): number {
    this.s = (this.s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = this.s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return Number((z ^ (z >> 31n)) >> 32n);
  }
  below(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
}

function mutate(rng: Rng, bytes: Uint8Array): Uint8Array {
  const b = Array.from(bytes);
  switch (rng.below(6)) {
    case 0:
      if (b.length > 0) {
        const i = rng.below(b.length);
        b[i] = b[i]! ^ (1 << rng.below(8));
      }
      break;
    case 1:
      b.length = rng.below(b.length + 1);
      break;
    case 2:
      b.splice(rng.below(b.length + 1), 0, rng.below(256));
      break;
    case 3:
      if (b.length > 0) {
        b[rng.below(b.length)] = [0x00, 0x7f, 0x80, 0xff][rng.below(4)]!;
      }
      break;
    case 4: {
      // A run of 0xff: the longest varints and the largest counts.
      const at = rng.below(b.length + 1);
      b.splice(at, 0, ...new Array<number>(1 + rng.below(12)).fill(0xff));
      break;
    }
    default:
      return Uint8Array.from({ length: rng.below(64) }, () => rng.below(256));
  }
  return Uint8Array.from(b);
}

interface Step {
  side: "server" | "client";
  at_ms: number;
  action: {
    advance?: { tick: number; ops: unknown[] };
    deliver?: { frame: string; hex: string };
  };
}

const rounds = Number(process.argv[2] ?? 200);
const rng = new Rng(BigInt(process.argv[3] ?? 1));
let delivered = 0;
let refused = 0;
const bugs: string[] = [];
const frameNames = [
  "datagram",
  "spawn",
  "despawn",
  "full_frame",
  "datagram_ack",
  "snapshot",
  "snapshot_ack",
  "delta_plan",
  "delta_ack",
  // ts-acked
  "acked",
  "ack",
  // port19-ts: kind 12
  "acked_packed",
  // issue 39: kind 13
  "acked_coded",
];

for (const session of ["datagram", "baseline", "delta", "acked", "acked_packed", "acked_coded"]) {
  const dir = join("vectors", "streams", session);
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const v = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
      params: unknown;
      steps: Step[];
    };
    for (let round = 0; round < rounds; round++) {
      const halves = {
        server: OPENERS.get(`${session}_server`)!(v.params),
        client: OPENERS.get(`${session}_client`)!(v.params),
      };
      for (const step of v.steps) {
        const half = halves[step.side];
        const d = step.action.deliver;
        try {
          if (step.action.advance !== undefined) {
            half.advance(step.action.advance.tick, step.at_ms, step.action.advance.ops);
            continue;
          }
          if (d === undefined) {
            continue;
          }
          const real = fromHex(d.hex);
          // A hostile frame or two before the real one, sometimes under another frame's name.
          for (let n = rng.below(3); n > 0; n--) {
            const name = rng.below(8) === 0 ? frameNames[rng.below(frameNames.length)]! : d.frame;
            const bytes = mutate(rng, real);
            delivered += 1;
            try {
              const r = half.deliver(step.at_ms, name, bytes) as { [k: string]: unknown };
              if (["error", "dropped", "ignored", "refused"].some((k) => k in r)) {
                refused += 1;
              }
            } catch (e) {
              if (!(e instanceof SessionError)) {
                throw e;
              }
              refused += 1;
            }
            half.take();
            half.stateHash();
          }
          delivered += 1;
          half.deliver(step.at_ms, d.frame, real);
          half.take();
          half.stateHash();
        } catch (e) {
          if (!(e instanceof SessionError)) {
            bugs.push(`${session}/${file} round ${round}: ${String(e)}`);
          }
        }
      }
    }
  }
}

console.log(
  `${delivered} frames delivered (${refused} hostile ones refused with a SessionError), ${bugs.length} other exceptions`,
);
for (const b of bugs.slice(0, 20)) {
  console.log(b);
}
process.exit(bugs.length === 0 ? 0 : 1);
