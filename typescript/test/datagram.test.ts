// The datagram v2 machines (`docs/spec/datagram.md`) over a test schema whose frames are JSON text
// (bigints and bytes tagged), so the machines are tested alone: quantizing, splitting a tick, whole
// ticks, spawn tags, the last datagram per entity, the input ack, and ReplicaLimits against a
// hostile server.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_REPLICA_LIMITS,
  DatagramClient,
  DatagramServer,
  type DatagramFrame,
  type DatagramSchema,
  ReplicaTable,
  Subscription,
  heldCost,
  type UpdateFrame,
  quantize,
  splitTick,
} from "../src/sessions/datagram.js";
import { MAX_QUEUED, SessionError } from "../src/sessions/half.js";

const text = new TextEncoder();
const untext = new TextDecoder();

function enc(v: unknown): Uint8Array {
  return text.encode(
    JSON.stringify(v, (_k, x: unknown) =>
      typeof x === "bigint" ? { $b: x.toString() } : x instanceof Uint8Array ? { $u: [...x] } : x,
    ),
  );
}

function dec<T>(b: Uint8Array): T {
  return JSON.parse(untext.decode(b), (_k, x: unknown) => {
    if (x !== null && typeof x === "object" && "$b" in x) {
      return BigInt((x as { $b: string }).$b);
    }
    if (x !== null && typeof x === "object" && "$u" in x) {
      return Uint8Array.from((x as { $u: number[] }).$u);
    }
    return x;
  }) as T;
}

const schema: DatagramSchema = {
  names: { datagram: "dg", spawn: "sp", despawn: "de", fullFrame: "ff", ack: "ack" },
  mask: { x: 1, y: 2, z: 4, components: 8 },
  maxHeaderLen: 20,
  updateLen: (u) => enc(u).length,
  checkUpdate: (u) => {
    if ((u.components ?? []).some((c) => c.data !== null && c.data.length > 255)) {
      throw new Error("over its length");
    }
  },
  decodeDatagram: dec,
  encodeDatagram: enc,
  decodeSpawn: dec,
  encodeSpawn: enc,
  decodeDespawn: dec,
  encodeDespawn: enc,
  decodeFullFrame: dec,
  encodeFullFrame: enc,
  decodeAck: dec,
  encodeAck: enc,
};

const now = (tick: number) => ({ tick, ms: tick * 20 });

describe("quantize", () => {
  it("rounds halves away from zero against the f32 precision, 0 for what is not finite", () => {
    // DG-5.
    assert.equal(quantize(1.0, 0.01), 100n);
    // 0.025 / f32(0.01) is 2.5000000558...: 3, where a double's 0.01 would give 2.
    assert.equal(quantize(0.025, 0.01), 3n);
    assert.equal(quantize(-2.5, 1), -3n);
    assert.equal(quantize(2.5, 1), 3n);
    assert.equal(quantize(Number.NaN, 1), 0n);
    assert.equal(quantize(1, 0), 0n);
    assert.equal(quantize(1e300, 1e-30), 0n, "a quotient past the doubles");
    assert.equal(quantize(1e30, 0.001), (1n << 63n) - 1n);
    assert.equal(quantize(-1e30, 0.001), -(1n << 63n));
  });
});

const upd = (id: number, x: number): UpdateFrame => ({
  id: BigInt(id),
  spawn_tag: 1,
  mask: 1,
  x: BigInt(x),
});

describe("splitTick", () => {
  const header = { frame: 7n, tick: 3n, input_ack: 0n, stream_tick: 0n, precision: 0.01, parts: 1 };
  it("splits under the limit, numbers each part and names the count", () => {
    // DG-13, DG-11.
    const updates = Array.from({ length: 60 }, (_, i) => upd(i + 1, i * 1000));
    const parts = splitTick(schema, header, updates, 400);
    assert.ok(parts.length > 3);
    parts.forEach((d, i) => {
      assert.equal(d.parts, parts.length);
      assert.equal(d.frame, 7n + BigInt(i));
    });
    assert.deepEqual(
      parts.flatMap((d) => d.updates),
      updates,
    );
  });
  it("sends one datagram for an empty tick, an oversized update alone, and refuses what does not ascend", () => {
    // DG-11, DG-13, DG-3.
    assert.equal(splitTick(schema, header, [], 100).length, 1);
    const big: UpdateFrame = {
      ...upd(2, 0),
      mask: 9,
      components: [{ type: 1, data: new Uint8Array(200) }],
    };
    const parts = splitTick(schema, header, [upd(1, 0), big, upd(3, 0)], 200);
    assert.equal(parts.length, 3);
    assert.equal(parts[1]!.updates[0]!.id, 2n);
    assert.throws(
      () => splitTick(schema, header, [upd(2, 0), upd(2, 0)], 200),
      (e: unknown) => e instanceof SessionError && e.kind === "world",
    );
  });
  it("refuses parts numbered past u64::MAX rather than wrapping", () => {
    // DG-13, GEN-6.
    const last = { ...header, frame: (1n << 64n) - 1n };
    const many = Array.from({ length: 60 }, (_, i) => upd(i + 1, i * 1000));
    assert.throws(
      () => splitTick(schema, last, many, 400),
      (e: unknown) => e instanceof SessionError && e.kind === "world",
    );
  });
});

function pair(config = { precision: 0.01, maxDatagram: 400, sentWindow: 1024n }) {
  const server = new DatagramServer(schema, new Subscription(schema, config));
  const client = new DatagramClient(schema, new ReplicaTable());
  return { server, client };
}

function drain(h: { pollTransmit(): { frame: string; bytes: Uint8Array } | undefined }) {
  const out = [];
  for (let t = h.pollTransmit(); t !== undefined; t = h.pollTransmit()) {
    out.push(t);
  }
  return out;
}

describe("the datagram halves", () => {
  it("converge, each change sent until an ack covers it", () => {
    // DG-14, DG-15, GEN-3.
    const { server, client } = pair();
    server.handleTick(now(1), {
      inputAck: 4n,
      ops: [{ kind: "spawn", id: 1n, position: [1, 0, 0], components: [[1, Uint8Array.of(9)]] }],
    });
    const first = drain(server);
    assert.deepEqual(
      first.map((t) => t.frame),
      ["sp", "dg"],
    );
    for (const t of first) {
      client.handleFrame(now(1), t.frame, t.bytes);
    }
    assert.equal(client.table.inputAck, 4n, "the tick is whole: its input ack describes the table");
    for (const a of drain(client)) {
      assert.equal(server.handleFrame(now(1), a.frame, a.bytes).covered, 0, "an empty datagram");
    }
    assert.deepEqual(client.table.entity(1n)?.position, [100n, 0n, 0n]);
    server.handleTick(now(2), {
      inputAck: 4n,
      ops: [{ kind: "move", id: 1n, position: [2, 0, 0] }],
    });
    // The move's datagram is lost: the next tick says it again.
    drain(server);
    server.handleTick(now(3), { inputAck: 5n, ops: [] });
    const third = drain(server);
    const d = dec<DatagramFrame>(third[0]!.bytes);
    assert.equal(d.updates[0]?.x, 200n);
    client.handleFrame(now(3), third[0]!.frame, third[0]!.bytes);
    for (const a of drain(client)) {
      assert.equal(server.handleFrame(now(3), a.frame, a.bytes).covered, 1);
    }
    server.handleTick(now(4), { inputAck: 5n, ops: [] });
    assert.equal(dec<DatagramFrame>(drain(server)[0]!.bytes).updates.length, 0, "covered");
    assert.equal(client.table.inputAck, 5n);
  });
  it("hold a tick until it is whole, skip a stale update and one for another spawn", () => {
    // DG-21, DG-19, DG-18.
    const t = new ReplicaTable();
    t.applyStream({
      kind: "spawn",
      frame: { tick: 1n, id: 5n, precision: 0.01, x: 0n, y: 0n, z: 0n, components: [] },
    });
    const dg = (frame: number, tick: number, parts: number, u: UpdateFrame[]): DatagramFrame => ({
      frame: BigInt(frame),
      tick: BigInt(tick),
      input_ack: BigInt(frame),
      stream_tick: 1n,
      precision: 0.01,
      parts,
      updates: u,
    });
    const u5 = (x: number, tag = 1): UpdateFrame => ({
      id: 5n,
      spawn_tag: tag,
      mask: 1,
      x: BigInt(x),
    });
    assert.ok(t.receive(dg(3, 2, 2, [u5(30)])).held);
    assert.equal(t.entity(5n)?.position[0], 0n, "half a tick changes nothing");
    assert.equal(t.receive(dg(4, 2, 2, [])).released, 2);
    assert.equal(t.entity(5n)?.position[0], 30n);
    assert.equal(t.inputAck, 4n);
    assert.equal(t.receive(dg(2, 1, 1, [u5(10)])).skippedStale, 1, "older than the last applied");
    assert.equal(t.receive(dg(5, 3, 1, [u5(50, 99)])).skippedSpawnTag, 1);
    assert.equal(t.takeAcks().length, 4, "every applied datagram is acked");
  });
  it("give up the oldest held ticks past max_held and refuse spawns past max_entities", () => {
    // DG-23.
    const t = new ReplicaTable({
      ...DEFAULT_REPLICA_LIMITS,
      maxEntities: 1,
      maxHeld: 2,
      maxComponentBytes: 1 << 20,
    });
    let givenUp = 0;
    for (let tick = 1; tick <= 5; tick++) {
      givenUp += t.receive({
        frame: BigInt(tick),
        tick: BigInt(tick),
        input_ack: 0n,
        stream_tick: 0n,
        precision: 1,
        parts: 2,
        updates: [],
      }).givenUp;
    }
    assert.equal(t.heldDatagrams, 2);
    assert.equal(givenUp, 3);
    const spawn = (id: bigint) => ({
      kind: "spawn" as const,
      frame: { tick: 9n, id, precision: 1, x: 0n, y: 0n, z: 0n, components: [] },
    });
    t.applyStream(spawn(1n));
    assert.equal(t.applyStream(spawn(2n)).refused, 1);
    assert.equal(t.size, 1);
  });
  it("give up the oldest held ticks past max_held_bytes, with the Rust table's figures", () => {
    const t = new ReplicaTable({ ...DEFAULT_REPLICA_LIMITS, maxHeldBytes: 10_000 });
    const datagram = (tick: number): DatagramFrame => ({
      frame: BigInt(tick),
      tick: BigInt(tick),
      input_ack: 0n,
      stream_tick: 0n,
      precision: 1,
      // Two parts, and only one sent: never whole.
      parts: 2,
      updates: Array.from({ length: 10 }, (_, id) => ({
        id: BigInt(id),
        spawn_tag: 1,
        mask: 8,
        components: [{ type: 1, data: new Uint8Array(100) }],
      })),
    });
    // 256 + 10 × (96 + 100 + 64).
    assert.equal(heldCost(datagram(1)), 2_856);
    let givenUp = 0;
    for (let tick = 1; tick <= 20; tick++) {
      givenUp += t.receive(datagram(tick)).givenUp;
      assert.ok(t.heldBytes <= 10_000);
    }
    assert.deepEqual([t.heldDatagrams, t.heldBytes, givenUp], [3, 8_568, 17]);
  });
  it("skip an update past max_component_bytes whole, and leave its datagram unacked", () => {
    // DG-23, DG-22.
    const t = new ReplicaTable({
      ...DEFAULT_REPLICA_LIMITS,
      maxEntities: 8,
      maxHeld: 8,
      maxComponentBytes: 200,
    });
    t.applyStream({
      kind: "spawn",
      frame: { tick: 1n, id: 1n, precision: 1, x: 0n, y: 0n, z: 0n, components: [] },
    });
    const s = t.receive({
      frame: 1n,
      tick: 1n,
      input_ack: 0n,
      stream_tick: 1n,
      precision: 1,
      parts: 1,
      updates: [
        {
          id: 1n,
          spawn_tag: 1,
          mask: 9,
          x: 7n,
          components: [{ type: 1, data: new Uint8Array(500) }],
        },
      ],
    });
    assert.equal(s.skippedOverBytes, 1);
    assert.equal(t.entity(1n)?.position[0], 0n, "position too");
    assert.equal(t.takeAcks().length, 0);
    assert.ok(t.componentBytes <= 200);
  });
  it("keep every stream frame of a server that is never polled, and at most MAX_QUEUED in all beside them", () => {
    // GEN-8.
    const { server } = pair();
    for (let tick = 1; tick <= 1500; tick++) {
      server.handleTick(now(tick), {
        inputAck: 0n,
        ops: [{ kind: "spawn", id: BigInt(tick), position: [0, 0, 0], components: [] }],
      });
    }
    const out = drain(server) as { frame: string; bytes: Uint8Array; reliable: boolean }[];
    const spawns = out.filter((t) => t.reliable);
    assert.equal(spawns.length, 1500, "reliable frames are never dropped");
    assert.ok(out.length <= 1500 + MAX_QUEUED);
    const datagrams = out.filter((t) => !t.reliable).map((t) => dec<DatagramFrame>(t.bytes).tick);
    assert.ok(datagrams.length < 1500, "old datagrams were dropped");
    assert.equal(datagrams[datagrams.length - 1], 1500n, "the newest is kept");
  });
  it("answer a bad frame with a SessionError, never another exception", () => {
    // GEN-5.
    const { server, client } = pair();
    for (const f of ["dg", "sp", "de", "ff"]) {
      assert.throws(
        () => client.handleFrame(now(1), f, Uint8Array.of(0x7b)),
        (e: unknown) => e instanceof SessionError && e.kind === "decode",
      );
    }
    assert.throws(
      () => client.handleFrame(now(1), "ack", Uint8Array.of()),
      (e: unknown) => e instanceof SessionError && e.kind === "unexpected_frame",
    );
    assert.throws(
      () => server.handleTick(now(1), { inputAck: 0n, ops: [{ kind: "despawn", id: 3n }] }),
      (e: unknown) => e instanceof SessionError && e.kind === "world",
    );
    server.handleTick(now(2), { inputAck: 0n, ops: [] });
    assert.throws(
      () => server.handleTick(now(2), { inputAck: 0n, ops: [] }),
      (e: unknown) => e instanceof SessionError && e.kind === "world",
    );
  });
});
