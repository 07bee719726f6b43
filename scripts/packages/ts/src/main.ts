// A user's program over the installed @ackwire/runtime: every golden frame vector through the
// codec generated into gen/ (`ackwire gen --lang ts --runtime package`). An accepted frame must
// re-encode to its own bytes; a refused one must fail with the vector's kind, byte offset and
// field path. Usage: node dist/main.js VECTORS/frames
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DecodeError, fromHex, toHex } from "@ackwire/runtime";
import { fnv1a32 } from "@ackwire/runtime/sessions/fnv";
import { decodeFrame, encodeFrame, FRAME_NAMES, type FrameName } from "./gen/protocol.js";

interface Case {
  name: string;
  hex: string;
  value?: unknown;
  error?: { kind: string; offset: number; path: string };
}

const dir = process.argv[2];
if (dir === undefined) {
  throw new Error("usage: main.js VECTORS/frames");
}
const failures: string[] = [];
let accepted = 0;
let refused = 0;
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const vectors = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    frame: string;
    cases: Case[];
  };
  const frame = FRAME_NAMES.find((n) => n === vectors.frame);
  if (frame === undefined) {
    failures.push(`${file}: the codec has no frame ${vectors.frame}`);
    continue;
  }
  for (const c of vectors.cases) {
    failures.push(...check(frame, c));
    if (c.error === undefined) {
      accepted++;
    } else {
      refused++;
    }
  }
}

function check(frame: FrameName, c: Case): string[] {
  const bytes = fromHex(c.hex);
  let value;
  try {
    value = decodeFrame(frame, bytes);
  } catch (e) {
    if (!(e instanceof DecodeError)) {
      return [`${c.name}: threw ${String(e)}, not a DecodeError`];
    }
    const want = c.error;
    if (want === undefined) {
      return [`${c.name}: refused a valid frame: ${e.message}`];
    }
    if (e.kind !== want.kind || e.offset !== want.offset || e.path !== want.path) {
      return [
        `${c.name}: ${e.kind} at ${e.offset} (${e.path}), want ${want.kind} at ${want.offset} (${want.path})`,
      ];
    }
    return [];
  }
  if (c.error !== undefined) {
    return [`${c.name}: decoded, but the vector says ${c.error.kind} at ${c.error.offset}`];
  }
  const again = toHex(encodeFrame(frame, value));
  return again === toHex(bytes) ? [] : [`${c.name}: re-encoded as ${again}`];
}

// A session module through the package's `sessions/*` export: FNV-1a 32 of "a".
if (fnv1a32(new Uint8Array([0x61])) !== 0xe40c292c) {
  failures.push('sessions/fnv: fnv1a32 of "a" is not 0xe40c292c');
}

for (const f of failures) {
  console.error(`FAIL ${f}`);
}
console.log(
  `@ackwire/runtime in a project of its own: ${accepted} frame vectors decoded and re-encoded, ` +
    `${refused} refused at their byte and field, ${failures.length} failures`,
);
process.exit(failures.length === 0 ? 0 : 1);
