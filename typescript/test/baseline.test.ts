// The NetBaseline machines (`docs/spec/baseline.md`) over a small test schema: two components of
// one byte each, a snapshot as JSON text. What is checked is the rules of `docs/spec/baseline.md`:
// the delta on presence, destruction reliable until confirmed, by entity never by slot, the budget
// order, a stale snapshot dropped unacknowledged, and the stall past BaselineLimits.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BaselineClient,
  BaselineServer,
  type BaselineSchema,
  Scene,
  SnapshotClient,
  SnapshotWriter,
  sequenceNewer,
  type SnapshotFrame,
} from "../src/sessions/baseline.js";
import { SessionError } from "../src/sessions/half.js";

const text = new TextEncoder();
const untext = new TextDecoder();

const schema: BaselineSchema<number> = {
  snapshotFrame: "snap",
  ackFrame: "ack",
  componentTypes: 2,
  ackWindow: 8,
  maxLostPerSnapshot: 4,
  headerBytes: 3,
  countBits: 23,
  entryHeadBits: 37,
  lostBits: 32,
  componentBits: (_i, v) => {
    if (v > 255) {
      throw new Error("over its range");
    }
    return Uint8Array.of(v);
  },
  componentBitLen: () => 8,
  decodeSnapshot: (b) => {
    const o = JSON.parse(untext.decode(b)) as SnapshotFrame<number | null>;
    return {
      ...o,
      entries: o.entries.map((e) => ({
        ...e,
        components: e.components.map((c) => (c === null ? undefined : c)),
      })),
    };
  },
  encodeSnapshot: (s) =>
    text.encode(
      JSON.stringify({
        ...s,
        entries: s.entries.map((e) => ({
          ...e,
          components: e.components.map((c) => (c === undefined ? null : c)),
        })),
      }),
    ),
  decodeAck: (b) => {
    if (b.length !== 2) {
      throw new Error("truncated");
    }
    return b[0]! | (b[1]! << 8);
  },
  encodeAck: (s) => Uint8Array.of(s & 0xff, s >> 8),
};

const now = { tick: 0, ms: 0 };

function pair(budget = 1200, first = 0) {
  const scene = new Scene(schema);
  const server = new BaselineServer(schema, new SnapshotWriter(schema, 1, budget, first));
  const client = new BaselineClient(schema, new SnapshotClient(schema));
  const step = (deliver = true) => {
    server.handleTick(now, scene);
    const snap = server.pollTransmit()!;
    if (!deliver) {
      return undefined;
    }
    const s = client.handleFrame(now, snap.frame, snap.bytes);
    for (let t = client.pollTransmit(); t !== undefined; t = client.pollTransmit()) {
      server.handleFrame(now, t.frame, t.bytes);
    }
    return { snap, s };
  };
  return { scene, server, client, step };
}

describe("NetBaseline snapshots", () => {
  it("send the whole world first, then only components whose bits changed", () => {
    // NB-7.
    const { scene, step } = pair();
    scene.spawn({ slot: 0, generation: 1 }, undefined);
    scene.set(0, 0, 5);
    scene.spawn({ slot: 300, generation: 1 }, undefined);
    scene.set(300, 1, 7);
    const first = step()!;
    assert.equal(first.s.created, 2);
    const again = step()!;
    assert.equal(schema.decodeSnapshot(again.snap.bytes).entries.length, 0, "nothing changed");
    scene.set(300, 1, 8);
    const third = step()!;
    const e = schema.decodeSnapshot(third.snap.bytes).entries;
    assert.equal(e.length, 1);
    assert.deepEqual([e[0]!.gap, e[0]!.components], [300, [undefined, 8]]);
  });
  it("report a destroyed entity until its loss is confirmed, by entity not slot", () => {
    // NB-11, NB-3.
    const { scene, server, client, step } = pair();
    scene.spawn({ slot: 4, generation: 1 }, undefined);
    scene.set(4, 0, 1);
    step();
    scene.spawn({ slot: 4, generation: 2 }, undefined);
    scene.set(4, 0, 2);
    // Lost on the way: the next one says it again.
    step(false);
    const r = step()!;
    const f = schema.decodeSnapshot(r.snap.bytes);
    assert.deepEqual(f.lost, [{ slot: 4, generation: 1 }]);
    assert.equal(r.s.created, 1);
    assert.equal(client.client.size, 1);
    const after = step()!;
    assert.deepEqual(schema.decodeSnapshot(after.snap.bytes).lost, [], "confirmed: no more");
    assert.equal(server.writer.baseline.owedLost, 0);
  });
  it("put owned entities first under the budget", () => {
    // NB-12.
    const scene = new Scene(schema);
    // Room for one entry: 3 header bytes, 23 count bits, 37 + 8 bits an entry.
    const w = new SnapshotWriter(schema, 7, 3 + Math.ceil((23 + 45) / 8), 0);
    scene.spawn({ slot: 1, generation: 0 }, undefined);
    scene.set(1, 0, 1);
    scene.spawn({ slot: 2, generation: 0 }, 7);
    scene.set(2, 0, 1);
    const s = w.write(scene);
    assert.equal(s.entries.length, 1);
    assert.equal(s.entries[0]!.gap, 2, "the owned entity went");
  });
  it("drop a snapshot not newer than the last applied, unacknowledged, across the u16 wrap", () => {
    // NB-16, NB-6.
    assert.ok(sequenceNewer(0, 0xffff) && !sequenceNewer(0xffff, 0) && !sequenceNewer(3, 3));
    const c = new SnapshotClient(schema);
    assert.ok(c.receive({ sequence: 0xffff, lost: [], entries: [] }).applied);
    assert.ok(c.receive({ sequence: 0, lost: [], entries: [] }).applied);
    assert.ok(c.receive({ sequence: 0xfffe, lost: [], entries: [] }).stale);
    assert.deepEqual(c.takeAcks(), [0xffff, 0]);
  });
  it("refuse a body whose slots run past 24 bits, and entries past max_entities", () => {
    // NB-4, NB-17.
    const c = new SnapshotClient(schema, 1);
    const wide = { gap: (1 << 24) - 1, generation: 0, components: [1, undefined] };
    const m = c.receive({ sequence: 1, lost: [], entries: [wide, wide] });
    assert.ok(m.malformed && !m.applied);
    const r = c.receive({
      sequence: 2,
      lost: [],
      entries: [
        { gap: 0, generation: 0, components: [1, undefined] },
        { gap: 0, generation: 0, components: [1, undefined] },
      ],
    });
    assert.deepEqual([r.created, r.refused], [1, 1]);
  });
  it("stall a connection owed more than max_owed_lost instead of forgetting it", () => {
    // NB-14.
    const scene = new Scene(schema);
    const w = new SnapshotWriter(schema, undefined, 1200, 0, { maxOwedLost: 2 });
    for (let s = 0; s < 3; s++) {
      scene.spawn({ slot: s, generation: 0 }, undefined);
      scene.set(s, 0, 1);
    }
    w.write(scene);
    for (let s = 0; s < 3; s++) {
      scene.despawn(s);
    }
    assert.throws(
      () => w.write(scene),
      (e: unknown) => e instanceof SessionError && e.kind === "limit",
    );
  });
  it("answer a bad frame with a SessionError and hash the canonical bytes", () => {
    // CHECK-9, GEN-5.
    const { scene, client, step } = pair();
    assert.throws(
      () => client.handleFrame(now, "snap", Uint8Array.of(1)),
      (e: unknown) => e instanceof SessionError && e.kind === "decode",
    );
    assert.throws(
      () => client.handleFrame(now, "ack", Uint8Array.of(1)),
      (e: unknown) => e instanceof SessionError && e.kind === "unexpected_frame",
    );
    assert.equal(client.client.stateHash(), 0x811c9dc5, "the empty table");
    scene.spawn({ slot: 1, generation: 2 }, undefined);
    scene.set(1, 1, 9);
    step();
    assert.deepEqual([...client.client.canonicalBytes()], [1, 0, 0, 0, 2, 0b10, 9]);
    assert.throws(
      () => scene.set(1, 0, 256),
      (e: unknown) => e instanceof SessionError && e.kind === "world",
    );
  });
});
