// The generated TypeScript codec as a testee: speaks conformance/PROTOCOL.md over standard input
// and output, one JSON request and one JSON reply a line, so that `ackwire conform` checks it
// through the same door as every other implementation.
//
// Run `./build.sh`, then `node dist/testee.js`. It implements every frame of the reference
// protocol, and the session halves of src/sessions.ts.

import * as readline from "node:readline";
import {
  DecodeError,
  EncodeError,
  FRAME_NAMES,
  JsonError,
  type JsonValue,
  decodeFrame,
  encodeFrame,
  frameFromJson,
  frameToJson,
  fromHex,
  isFrameName,
  toHex,
} from "./gen/protocol.js";
import { type Body, SESSION_NAMES, sessionOp } from "./sessions.js";

/** The testee protocol version spoken. */
const PROTOCOL = 1;

const SESSION_OPS = new Set(["open", "deliver", "take", "advance", "state_hash", "close"]);

function badRequest(message: string): Body {
  return { error: { kind: "bad_request", message } };
}

/** The reply to one request, and whether the testee stops after it. */
function answer(request: { [key: string]: unknown }): [Body, boolean] {
  const op = request.op;
  const frame = typeof request.frame === "string" ? request.frame : "";
  switch (op) {
    case "hello":
      return [
        {
          ok: {
            name: "ackwire-ts",
            version: "0.1.0",
            protocol: PROTOCOL,
            frames: [...FRAME_NAMES],
            sessions: [...SESSION_NAMES],
          },
        },
        false,
      ];
    case "bye":
      return [{ ok: {} }, true];
    case "decode":
    case "encode":
      if (!isFrameName(frame)) {
        return [{ unimplemented: `frame \`${frame}\` is not implemented` }, false];
      }
      return [op === "decode" ? decode(frame, request.hex) : encode(frame, request.value), false];
    default:
      if (typeof op === "string" && SESSION_OPS.has(op)) {
        return [sessionOp(op, request), false];
      }
      return [{ unimplemented: `unknown op \`${String(op)}\`` }, false];
  }
}

function decode(frame: (typeof FRAME_NAMES)[number], hex: unknown): Body {
  let bytes: Uint8Array;
  try {
    bytes = fromHex(typeof hex === "string" ? hex : "");
  } catch (e) {
    return badRequest((e as Error).message);
  }
  try {
    return { ok: { value: frameToJson(frame, decodeFrame(frame, bytes)) } };
  } catch (e) {
    if (e instanceof DecodeError) {
      const error: { [key: string]: JsonValue } = {
        kind: e.kind,
        offset: e.offset,
        path: e.path,
      };
      if (e.bit !== undefined) {
        error.bit = e.bit;
      }
      return { error };
    }
    throw e;
  }
}

function encode(frame: (typeof FRAME_NAMES)[number], json: unknown): Body {
  try {
    return {
      ok: { hex: toHex(encodeFrame(frame, frameFromJson(frame, json))) },
    };
  } catch (e) {
    if (e instanceof EncodeError) {
      return { error: { kind: e.kind, path: e.path } };
    }
    if (e instanceof JsonError) {
      return badRequest(e.message);
    }
    throw e;
  }
}

/**
 * JSON text of a reply. As JSON.stringify, except that a float of -0 keeps its sign (`-0.0`,
 * as the Rust codec prints it), so that a decoded negative zero reads back as one.
 */
function stringify(value: JsonValue): string {
  if (typeof value === "number") {
    return Object.is(value, -0) ? "-0.0" : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(stringify).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

function serve(): void {
  const lines = readline.createInterface({
    input: process.stdin,
    terminal: false,
  });
  let done = false;
  lines.on("line", (line) => {
    if (done || line.trim() === "") {
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (e) {
      process.stdout.write(`${stringify({ id: null, ...badRequest((e as Error).message) })}\n`);
      return;
    }
    const fields = (typeof request === "object" && request !== null ? request : {}) as {
      [key: string]: unknown;
    };
    const id = (fields.id ?? null) as JsonValue;
    let body: Body;
    let bye = false;
    try {
      [body, bye] = answer(fields);
    } catch (e) {
      // A fault of the codec itself: say so on standard error, and fail only this request.
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      body = { error: { kind: "internal_error", message: String(e) } };
    }
    const reply = `${stringify({ id, ...body } as JsonValue)}\n`;
    if (bye) {
      // Nothing is answered after `bye`; exit once the reply is out.
      done = true;
      process.stdout.write(reply, () => process.exit(0));
    } else {
      process.stdout.write(reply);
    }
  });
  lines.on("close", () => {
    process.stdout.write("", () => process.exit(0));
  });
}

serve();
