// The JSON form of conformance/PROTOCOL.md: hex, integers by their Rust type, strict reading.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type BitSet,
  fromHex,
  fromJson,
  JsonError,
  type JsonType,
  type RecordJson,
  toHex,
  toJson,
  type UnionJson,
} from "../src/index.js";
import { bytes } from "./faults.js";

const MASK: BitSet = {
  width: 8,
  names: [
    ["POSE", 0x1],
    ["HEALTH", 0x2],
  ],
  known: 0x3,
  guard: 0xfc,
  requires: [],
};

const CHANGE: RecordJson = [
  ["slot", "u16"],
  ["mask", { bits: () => MASK }],
  ["health", "i8", true],
];

const ACK: RecordJson = [["seq", "u64"]];
const BODY: UnionJson = [
  ["ack", { record: () => ACK }],
  ["changes", { record: () => [["list", { list: { record: () => CHANGE } }]] }],
];

const FRAME: JsonType = {
  record: () => [
    ["id", "u64"],
    ["delta", "i64"],
    ["scale", "f32"],
    ["blob", "bytes"],
    ["extra", "opt_bytes"],
    ["body", { union: () => BODY }],
  ],
};

/** Asserts that reading `json` as `type` fails with `message` at `path`. */
function assertJsonFault(type: JsonType, json: unknown, path: string, message: RegExp): void {
  assert.throws(
    () => fromJson(type, json),
    (e: unknown) => {
      assert.ok(e instanceof JsonError, `expected a JsonError, got ${String(e)}`);
      assert.equal(e.path, path);
      assert.match(e.message, message);
      return true;
    },
  );
}

describe("hex", () => {
  it("writes lower case and reads either case, ignoring white space", () => {
    assert.equal(toHex(bytes(0x00, 0xab, 0x10)), "00ab10");
    assert.deepEqual(fromHex("0A bC\n01"), bytes(0x0a, 0xbc, 0x01));
    assert.deepEqual(fromHex(""), bytes());
  });

  it("refuses an odd number of digits and what is not hex", () => {
    assert.throws(() => fromHex("abc"), /odd number of hex digits \(3\)/);
    assert.throws(() => fromHex("0g"), /`0g` is not a hex byte/);
  });
});

describe("toJson", () => {
  it("writes a frame as PROTOCOL.md has it", () => {
    // WIRE-28.
    const value = {
      id: 2n ** 60n,
      delta: -5n,
      scale: Math.fround(0.1),
      blob: bytes(1, 2),
      extra: null,
      body: {
        kind: "changes",
        value: {
          list: [
            { slot: 3, mask: 0x3, health: -1 },
            { slot: 4, mask: 0 },
          ],
        },
      },
    };
    assert.deepEqual(toJson(FRAME, value), {
      id: "1152921504606846976",
      delta: -5,
      scale: 0.1,
      blob: "0102",
      extra: null,
      body: {
        changes: {
          list: [
            { slot: 3, mask: ["POSE", "HEALTH"], health: -1 },
            { slot: 4, mask: [] },
          ],
        },
      },
    });
  });

  it("writes 64-bit integers as numbers while they are exact, as strings beyond", () => {
    // WIRE-28.
    assert.equal(toJson("u64", 2n ** 53n - 1n), 2 ** 53 - 1);
    assert.equal(toJson("u64", 2n ** 53n), "9007199254740992");
    assert.equal(toJson("i64", -(2n ** 53n) + 1n), -(2 ** 53) + 1);
    assert.equal(toJson("i64", -(2n ** 63n)), "-9223372036854775808");
  });
});

describe("fromJson", () => {
  it("reads back what toJson writes", () => {
    const json = {
      id: "18446744073709551615",
      delta: -7,
      scale: 1.5,
      blob: "FF00",
      extra: "",
      body: { ack: { seq: 9 } },
    };
    assert.deepEqual(fromJson(FRAME, json), {
      id: 2n ** 64n - 1n,
      delta: -7n,
      scale: 1.5,
      blob: bytes(0xff, 0x00),
      extra: bytes(),
      body: { kind: "ack", value: { seq: 9n } },
    });
  });

  it("reads integers within the range of their Rust type", () => {
    assert.equal(fromJson("u8", 255), 255);
    assert.equal(fromJson("i32", -(2 ** 31)), -(2 ** 31));
    assertJsonFault("u8", 256, "", /256 is outside 0\.\.=255 \(u8\)/);
    assertJsonFault("i8", -129, "", /-129 is outside -128\.\.=127 \(i8\)/);
    assertJsonFault("u16", 1.5, "", /expected an integer, found 1\.5/);
    assertJsonFault("u64", "-1", "", /expected an unsigned integer or a decimal string/);
    assertJsonFault("u64", "18446744073709551616", "", /is outside 0\.\.=18446744073709551615/);
    assertJsonFault("i64", "9223372036854775808", "", /is outside/);
  });

  it("names where in the value a fault is", () => {
    const changes = (list: unknown) => ({
      id: 1,
      delta: 0,
      scale: 0,
      blob: "",
      extra: null,
      body: { changes: { list } },
    });
    assertJsonFault(
      FRAME,
      changes([
        { slot: 1, mask: [] },
        { slot: 70000, mask: [] },
      ]),
      "body.changes.list[1].slot",
      /70000 is outside 0\.\.=65535/,
    );
    assertJsonFault(
      FRAME,
      changes([{ slot: 1, mask: ["POSE", "WINGS"] }]),
      "body.changes.list[0].mask",
      /unknown bit "WINGS", expected one of POSE, HEALTH/,
    );
    assertJsonFault(
      FRAME,
      changes([{ slot: 1, mask: [], speed: 3 }]),
      "body.changes.list[0]",
      /unknown field `speed`, expected one of slot, mask, health/,
    );
    assertJsonFault(FRAME, { id: 1 }, "", /missing field `delta`/);
    assertJsonFault(
      FRAME,
      { ...changes([]), body: { ack: {}, changes: {} } },
      "body",
      /expected an object with one of ack, changes/,
    );
    assertJsonFault(FRAME, { ...changes([]), blob: 3 }, "blob", /expected a hex string, found 3/);
  });

  it("takes null for an absent optional field, and leaves it out", () => {
    const read = fromJson({ record: () => CHANGE }, { slot: 1, mask: [], health: null });
    assert.deepEqual(read, { slot: 1, mask: 0 });
    const both = fromJson({ record: () => CHANGE }, { slot: 1, mask: ["HEALTH", "POSE"] });
    assert.deepEqual(both, { slot: 1, mask: 0x3 });
    assert.ok(!Object.prototype.hasOwnProperty.call(read, "health"));
  });
});
