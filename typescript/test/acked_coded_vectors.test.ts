// The generated AckedCoded (kind 13, docs/spec/coded.md) held to the golden frame vectors
// (vectors/frames/acked_coded.json): every case's bytes decode, against the basis the case
// carries (none: nothing held), to its value, or are refused with its error's kind, offset and
// field; every value encodes against the same basis to the case's bytes.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  AckedCodedJson,
  DecodeError,
  type EntityState,
  EntityStateJson,
  decodeAckedCoded,
  encodeAckedCoded,
  fromHex,
  fromJson,
  toHex,
  toJson,
} from "../gen/protocol.js";
import type { CodedBasis } from "../gen/runtime/coded.js";

interface Held {
  eid: number;
  state: unknown;
}

interface Case {
  name: string;
  hex: string;
  basis?: { base?: Held[]; older?: Held[] };
  value?: unknown;
  error?: { kind: string; offset?: number; path?: string };
}

const FRAME = { record: () => AckedCodedJson };
const RECORD = { record: () => EntityStateJson };

/** The records of a case's basis by id, read from their JSON form. */
function basisOf(c: Case): CodedBasis<EntityState> {
  const held = (list: Held[] | undefined) =>
    new Map((list ?? []).map((h) => [h.eid, fromJson(RECORD, h.state) as EntityState]));
  const base = held(c.basis?.base);
  const older = held(c.basis?.older);
  return { base: (eid) => base.get(eid), older: (eid) => older.get(eid) };
}

function cases(): Case[] {
  const text = readFileSync(
    new URL("../../../vectors/frames/acked_coded.json", import.meta.url),
    "utf8",
  );
  return (JSON.parse(text) as { cases: Case[] }).cases;
}

describe("the generated AckedCoded against vectors/frames/acked_coded.json", () => {
  const all = cases();

  it("decodes every positive case against its basis to its value, and encodes it back", () => {
    const positive = all.filter((c) => c.value !== undefined);
    assert.ok(positive.length >= 15, `${positive.length} positive cases`);
    assert.ok(positive.some((c) => c.basis?.older !== undefined));
    for (const c of positive) {
      const bytes = fromHex(c.hex.replace(/ /g, ""));
      const basis = basisOf(c);
      const value = decodeAckedCoded(bytes, basis);
      assert.deepEqual(toJson(FRAME, value), c.value, c.name);
      const again = encodeAckedCoded(fromJson(FRAME, c.value) as typeof value, basis);
      assert.equal(toHex(again), toHex(bytes), c.name);
    }
  });

  it("refuses every negative case with its kind, offset and field", () => {
    const negative = all.filter((c) => c.error !== undefined);
    assert.ok(negative.length >= 10, `${negative.length} negative cases`);
    for (const c of negative) {
      const bytes = fromHex(c.hex.replace(/ /g, ""));
      const want = c.error!;
      assert.throws(
        () => decodeAckedCoded(bytes, basisOf(c)),
        (e: unknown) => {
          assert.ok(e instanceof DecodeError, `${c.name}: ${String(e)}`);
          assert.deepEqual(
            [e.kind, e.offset, e.path],
            [want.kind, want.offset ?? e.offset, want.path ?? e.path],
            c.name,
          );
          return true;
        },
        c.name,
      );
    }
  });
});
