// What every adapter of src/halves/ shares: reading the protocol's JSON objects, draining a
// half's outbox for `take`, and the report of a frame a half refused, as conformance/src/sessions/
// reports it for the Rust halves (the runner compares reports: PROTOCOL.md, "Reports").

import type { JsonValue } from "../gen/protocol.js";
import { SessionError, type Transmit } from "../gen/runtime/sessions/half.js";

/** A JSON object of the testee protocol, as `JSON.parse` gives it. */
export type Obj = { [k: string]: unknown };

/** `v` as an object, or an empty one when it is not an object (absent params). */
export function obj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}

/** Everything `half` has to send now, in order: an adapter's `take`. */
export function drain(half: { pollTransmit(): Transmit | undefined }): Transmit[] {
  const out: Transmit[] = [];
  for (let t = half.pollTransmit(); t !== undefined; t = half.pollTransmit()) {
    out.push(t);
  }
  return out;
}

/** A frame's report, or what the half said of a frame it did not take or could not decode. */
export function report(frame: string, f: () => JsonValue): JsonValue {
  try {
    return f();
  } catch (e) {
    if (e instanceof SessionError && e.kind === "decode") {
      const c = e.cause as { kind?: unknown } | undefined;
      return { error: typeof c?.kind === "string" ? c.kind : e.message };
    }
    if (e instanceof SessionError && e.kind === "unexpected_frame") {
      return { ignored: frame };
    }
    throw e;
  }
}
