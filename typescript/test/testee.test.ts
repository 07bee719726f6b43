// The testee protocol's replies (src/testee.ts) over a codec of one frame: kind 9, then a u16.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, EncodeError, JsonError, type JsonValue, Reader } from "../src/index.js";
import { Testee, type TesteeCodec } from "../src/testee.js";

interface Counter {
  count: number;
}

function decode(bytes: Uint8Array): Counter {
  const r = new Reader(bytes);
  if (r.u8() !== 9) {
    throw new DecodeError("bad_constant", 0, undefined, "kind");
  }
  const count = r.u16();
  r.finish();
  return { count };
}

function encode(value: Counter, len = 3): Uint8Array {
  if (value.count > 0xffff) {
    throw new EncodeError("over_width", "count");
  }
  const out = new Uint8Array(len);
  out[0] = 9;
  out[1] = value.count & 0xff;
  out[2] = value.count >> 8;
  return out;
}

/** The codec, with `encodedLen` off by `lie` bytes. */
function codec(lie = 0): TesteeCodec {
  return {
    names: ["counter"],
    decode: (_name, bytes) => decode(bytes),
    encode: (_name, value) => encode(value as Counter),
    encodedLen: () => 3 + lie,
    toJson: (_name, value) => ({ count: (value as Counter).count }),
    fromJson: (_name, json) => {
      const count = (json as { count?: unknown } | null)?.count;
      if (typeof count !== "number") {
        throw new JsonError("`count` is missing", "");
      }
      return { count };
    },
  };
}

function ask(testee: Testee, request: JsonValue): JsonValue {
  return JSON.parse(testee.reply(JSON.stringify(request)).text) as JsonValue;
}

describe("Testee", () => {
  it("lists the frames and the halves it is given in hello", () => {
    const halves = { names: ["x_client"], answer: () => ({ ok: {} }) };
    assert.deepEqual(ask(new Testee("t", codec(), halves), { id: 0, op: "hello" }), {
      id: 0,
      ok: { name: "t", version: "0.1.0", protocol: 1, frames: ["counter"], sessions: ["x_client"] },
    });
  });

  it("decodes and encodes through the JSON form", () => {
    const t = new Testee("t", codec());
    assert.deepEqual(ask(t, { id: 1, op: "decode", frame: "counter", hex: "09 2A00" }), {
      id: 1,
      ok: { value: { count: 42 } },
    });
    assert.deepEqual(ask(t, { id: 2, op: "encode", frame: "counter", value: { count: 42 } }), {
      id: 2,
      ok: { hex: "092a00" },
    });
  });

  it("answers faults by kind, offset and path", () => {
    const t = new Testee("t", codec());
    assert.deepEqual(ask(t, { id: 3, op: "decode", frame: "counter", hex: "0800" }), {
      id: 3,
      error: { kind: "bad_constant", offset: 0, path: "kind" },
    });
    assert.deepEqual(ask(t, { id: 4, op: "encode", frame: "counter", value: { count: 70000 } }), {
      id: 4,
      error: { kind: "over_width", path: "count" },
    });
    const bad = ask(t, { id: 5, op: "encode", frame: "counter", value: {} }) as {
      error: { kind: string };
    };
    assert.equal(bad.error.kind, "bad_request");
    const other = ask(t, { id: 6, op: "decode", frame: "other", hex: "" }) as {
      unimplemented?: string;
    };
    assert.equal(typeof other.unimplemented, "string");
    const open = ask(t, { id: 7, op: "open", session: "x" }) as { unimplemented?: string };
    assert.equal(typeof open.unimplemented, "string");
    assert.equal(JSON.parse(t.reply("{nope").text).id, null);
  });

  it("reports a codec that breaks its promises", () => {
    const reply = new Testee("t", codec(1)).reply(
      JSON.stringify({ id: 8, op: "decode", frame: "counter", hex: "092a00" }),
    );
    assert.ok(reply.fault instanceof Error);
    assert.equal(
      (JSON.parse(reply.text) as { error: { kind: string } }).error.kind,
      "internal_error",
    );
  });

  it("stops after bye", () => {
    const reply = new Testee("t", codec()).reply('{"id":9,"op":"bye"}');
    assert.deepEqual(reply, { text: '{"id":9,"ok":{}}', bye: true });
  });
});
