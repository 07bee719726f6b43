//
// The testee of the codec in protocol.ts: conformance/PROTOCOL.md over standard input and output,
// one JSON request a line in and one reply a line out, so that `ackwire conform` checks this codec
// through the same door as every other implementation. The replies are the runtime's
// (runtime/testee.ts); this module names the frames and reads the lines. main.ts serves it with no
// session half; a testee that has halves passes them to `serve`.

import * as readline from "node:readline";
import {
  FRAME_NAMES,
  type FrameName,
  type Frames,
  decodeFrame,
  encodeFrame,
  frameEncodedLen,
  frameFromJson,
  frameToJson,
} from "./protocol.js";
import * as protocol from "./protocol.js";
import { Testee, type TesteeCodec, type TesteeSessions } from "./runtime/testee.js";

/** The frames of protocol.ts by name (the testee answers only names among `names`). */
const CODEC: TesteeCodec = {
  names: FRAME_NAMES,
  decode: (name, bytes) => decodeFrame(name as FrameName, bytes),
  encode: (name, value) => encodeFrame(name as FrameName, value as Frames[FrameName]),
  encodedLen: (name, value) => frameEncodedLen(name as FrameName, value as Frames[FrameName]),
  toJson: (name, value) => frameToJson(name as FrameName, value as Frames[FrameName]),
  fromJson: (name, json) => frameFromJson(name as FrameName, json),
  // The coded frames (kind 13), read against a basis: protocol.ts has them when its spec does.
  coded: (protocol as { readonly CODED_FRAMES?: TesteeCodec["coded"] }).CODED_FRAMES,
};

/** Serves the testee protocol on standard input and output until the input ends, or `bye`. */
export function serve(sessions?: TesteeSessions): void {
  const testee = new Testee("ackwire-ts", CODEC, sessions);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let done = false;
  lines.on("line", (line) => {
    if (done || line.trim() === "") {
      return;
    }
    const reply = testee.reply(line);
    if (reply.fault !== undefined) {
      // A fault of the codec itself: its stack on standard error, beside the reply that says so.
      process.stderr.write(`${(reply.fault as Error).stack ?? String(reply.fault)}\n`);
    }
    if (reply.bye) {
      // Nothing is answered after `bye`; exit once the reply is out.
      done = true;
      process.stdout.write(`${reply.text}\n`, () => process.exit(0));
    } else {
      process.stdout.write(`${reply.text}\n`);
    }
  });
  lines.on("close", () => {
    process.stdout.write("", () => process.exit(0));
  });
}
