// A line-driven driver of a generated TypeScript codec, for cli/tests/sink_codecs.rs: each line
// of standard input is a request, answered by one line on standard output, so that the test can
// hold the TypeScript codec, the C++ one (driver.cpp, the same protocol) and the Rust decoder of
// the same plan to one verdict on the same bytes and values.
//
//   decode NAME HEX   ->  ok JSON                  (the frame's JSON form)
//                         err KIND OFFSET BIT PATH (BIT `-` outside a packed body)
//   encode NAME JSON  ->  ok HEX
//                         err KIND PATH
//                         bad_json MESSAGE

import { createInterface } from "node:readline";
import {
  DecodeError,
  EncodeError,
  type FrameName,
  decodeFrame,
  encodeFrame,
  frameFromJson,
  frameToJson,
  fromHex,
  JsonError,
  toHex,
} from "./protocol.js";

function answer(line: string): string {
  const first = line.indexOf(" ");
  const second = line.indexOf(" ", first + 1);
  const op = line.slice(0, first);
  const name = line.slice(first + 1, second) as FrameName;
  const arg = line.slice(second + 1);
  if (op === "decode") {
    try {
      return `ok ${JSON.stringify(frameToJson(name, decodeFrame(name, fromHex(arg))))}`;
    } catch (e) {
      if (e instanceof DecodeError) {
        return `err ${e.kind} ${e.offset} ${e.bit ?? "-"} ${e.path}`;
      }
      throw e;
    }
  }
  try {
    return `ok ${toHex(encodeFrame(name, frameFromJson(name, JSON.parse(arg))))}`;
  } catch (e) {
    if (e instanceof EncodeError) {
      return `err ${e.kind} ${e.path}`;
    }
    if (e instanceof JsonError) {
      return `bad_json ${e.message}`;
    }
    throw e;
  }
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  process.stdout.write(`${answer(line)}\n`);
});
