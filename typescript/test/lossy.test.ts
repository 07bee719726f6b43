// Each pair of halves over a seeded lossy network (loss, duplication and reordering each way,
// the datagram stream's reliable frames in order): while the world churns the client may lag,
// and once the network is clean for a while it must hold exactly what the server's world is,
// as the Rust harnesses (codec/src/{datagram,baseline,delta}/harness.rs) assert.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BaselineClient,
  BaselineServer,
  type BaselineSchema,
  Scene,
  SnapshotClient,
  SnapshotWriter,
  type SnapshotFrame,
} from "../src/sessions/baseline.js";
import {
  DatagramClient,
  DatagramServer,
  type DatagramSchema,
  ReplicaTable,
  Subscription,
  type WorldOp,
} from "../src/sessions/datagram.js";
import {
  DeltaBaseline,
  DeltaClient,
  DeltaMirror,
  DeltaServer,
  type DeltaSchema,
} from "../src/sessions/delta.js";
import { SetDigest } from "../src/sessions/digest.js";
import type { Transmit } from "../src/sessions/half.js";

/** A small seeded generator (xorshift32): the same run every time. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    this.s ^= this.s << 13;
    this.s >>>= 0;
    this.s ^= this.s >>> 17;
    this.s ^= this.s << 5;
    this.s >>>= 0;
    return this.s / 4294967296;
  }
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
}

const text = new TextEncoder();
const untext = new TextDecoder();
const enc = (v: unknown): Uint8Array =>
  text.encode(
    JSON.stringify(v, (_k, x: unknown) =>
      typeof x === "bigint" ? { $b: x.toString() } : x instanceof Uint8Array ? { $u: [...x] } : x,
    ),
  );
const dec = <T>(b: Uint8Array): T =>
  JSON.parse(untext.decode(b), (_k, x: unknown) => {
    if (x !== null && typeof x === "object" && "$b" in x) {
      return BigInt((x as { $b: string }).$b);
    }
    if (x !== null && typeof x === "object" && "$u" in x) {
      return Uint8Array.from((x as { $u: number[] }).$u);
    }
    return x;
  }) as T;

/**
 * One direction of the network: an unreliable frame is lost with `loss`, duplicated with
 * `dup`, and delayed 0..=3 steps (so reordered); a reliable one arrives next step, in order.
 */
class Link {
  private queue: [number, Transmit][] = [];
  private readonly rng: Rng;
  loss: number;
  constructor(seed: number, loss: number) {
    this.rng = new Rng(seed);
    this.loss = loss;
  }
  send(step: number, t: Transmit): void {
    if (t.reliable) {
      this.queue.push([step + 1, t]);
      return;
    }
    const copies = this.rng.next() < this.loss / 2 ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (this.rng.next() < this.loss) {
        continue;
      }
      this.queue.push([step + (this.loss > 0 ? this.rng.below(4) : 1), t]);
    }
  }
  arrived(step: number): Transmit[] {
    // Reliable frames keep their order; a stable sort by arrival step keeps it.
    const due = this.queue.filter(([at]) => at <= step).sort((a, b) => a[0] - b[0]);
    this.queue = this.queue.filter(([at]) => at > step);
    return due.map(([, t]) => t);
  }
}

interface Half {
  pollTransmit(): Transmit | undefined;
  handleFrame(now: { tick: number; ms: number }, frame: string, bytes: Uint8Array): unknown;
}

/** Moves one step's frames both ways. */
function exchange(step: number, server: Half, client: Half, down: Link, up: Link): void {
  const now = { tick: step, ms: step * 20 };
  for (let t = server.pollTransmit(); t !== undefined; t = server.pollTransmit()) {
    down.send(step, t);
  }
  for (const t of down.arrived(step)) {
    client.handleFrame(now, t.frame, t.bytes);
  }
  for (let t = client.pollTransmit(); t !== undefined; t = client.pollTransmit()) {
    up.send(step, t);
  }
  for (const t of up.arrived(step)) {
    server.handleFrame(now, t.frame, t.bytes);
  }
}

describe("over a lossy network, once it is clean", () => {
  it("the datagram client holds the subscription's world", () => {
    // GEN-3 for datagram v2.
    const schema: DatagramSchema = {
      names: { datagram: "dg", spawn: "sp", despawn: "de", fullFrame: "ff", ack: "ack" },
      mask: { x: 1, y: 2, z: 4, components: 8 },
      maxHeaderLen: 20,
      updateLen: (u) => enc(u).length,
      checkUpdate: () => {},
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
    const rng = new Rng(7);
    const server = new DatagramServer(
      schema,
      new Subscription(schema, { precision: 0.01, maxDatagram: 300, sentWindow: 1024n }),
    );
    const client = new DatagramClient(schema, new ReplicaTable());
    const down = new Link(1, 0.3);
    const up = new Link(2, 0.3);
    const live = new Set<number>();
    for (let step = 1; step <= 300; step++) {
      const ops: WorldOp[] = [];
      if (step <= 200) {
        for (let n = 0; n < 4; n++) {
          const id = 1 + rng.below(12);
          const pos: [number, number, number] = [rng.next() * 50, rng.next() * 50, 0];
          if (!live.has(id)) {
            ops.push({ kind: "spawn", id: BigInt(id), position: pos, components: [] });
            live.add(id);
          } else if (rng.below(10) === 0) {
            ops.push({ kind: "despawn", id: BigInt(id) });
            live.delete(id);
          } else if (rng.below(3) === 0) {
            ops.push({
              kind: "set",
              id: BigInt(id),
              type: rng.below(3),
              data: Uint8Array.of(step),
            });
          } else if (rng.below(4) === 0) {
            ops.push({ kind: "remove", id: BigInt(id), type: rng.below(3) });
          } else {
            ops.push({ kind: "move", id: BigInt(id), position: pos });
          }
        }
        if (step % 97 === 0) {
          ops.push({ kind: "full_frame" });
        }
      }
      if (step === 200) {
        down.loss = 0;
        up.loss = 0;
      }
      server.handleTick({ tick: step, ms: step * 20 }, { inputAck: BigInt(step), ops });
      exchange(step, server, client, down, up);
    }
    // The last tick's frames are still on the way: let them land.
    for (let step = 301; step <= 305; step++) {
      exchange(step, server, client, down, up);
    }
    const held = client.table.list().map(([id, r]) => [id, r.spawnTick, r.position, r.components]);
    assert.deepEqual(held, server.sub.world());
    assert.ok(held.length > 0);
    assert.equal(client.table.inputAck, 300n);
  });

  it("the snapshot client holds the scene", () => {
    // GEN-3 for NetBaseline.
    const schema: BaselineSchema<number> = {
      snapshotFrame: "snap",
      ackFrame: "ack",
      componentTypes: 2,
      ackWindow: 16,
      maxLostPerSnapshot: 4,
      headerBytes: 3,
      countBits: 23,
      entryHeadBits: 37,
      lostBits: 32,
      componentBits: (_i, v) => Uint8Array.of(v),
      componentBitLen: () => 8,
      // A component not carried is null in the JSON text.
      decodeSnapshot: (b) => {
        const o = dec<SnapshotFrame<number | null>>(b);
        return {
          ...o,
          entries: o.entries.map((e) => ({
            ...e,
            components: e.components.map((c) => (c === null ? undefined : c)),
          })),
        };
      },
      encodeSnapshot: (s) =>
        enc({
          ...s,
          entries: s.entries.map((e) => ({
            ...e,
            components: e.components.map((c) => (c === undefined ? null : c)),
          })),
        }),
      decodeAck: (b) => b[0]! | (b[1]! << 8),
      encodeAck: (s) => Uint8Array.of(s & 0xff, s >> 8),
    };
    const rng = new Rng(11);
    const scene = new Scene(schema);
    // A budget of a few entries a snapshot, and sequences that cross the u16 wrap.
    const server = new BaselineServer(schema, new SnapshotWriter(schema, 1, 60, 0xff00));
    const client = new BaselineClient(schema, new SnapshotClient(schema));
    const down = new Link(3, 0.3);
    const up = new Link(4, 0.3);
    const generation = new Map<number, number>();
    for (let step = 1; step <= 600; step++) {
      if (step <= 300) {
        const slot = rng.below(10) * 3;
        const g = generation.get(slot);
        if (g === undefined || rng.below(8) === 0) {
          const next = ((g ?? 0) + 1) & 0xff;
          generation.set(slot, next);
          scene.spawn({ slot, generation: next }, slot === 0 ? 1 : undefined);
        } else if (rng.below(10) === 0) {
          scene.despawn(slot);
          generation.delete(slot);
        } else {
          scene.set(slot, rng.below(2), rng.below(256));
        }
      }
      if (step === 300) {
        down.loss = 0;
        up.loss = 0;
      }
      server.handleTick({ tick: step, ms: step * 20 }, scene);
      exchange(step, server, client, down, up);
    }
    const expected = new SnapshotClient(schema);
    // The scene's own canonical bytes, as a client that received everything would hold them.
    expected.receive({
      sequence: 1,
      lost: [],
      // An entity with no component is never sent: nothing of it differs from nothing.
      entries: scene
        .list()
        .filter(([, e]) => e.components.some((c) => c !== undefined))
        .map(([id, e], i, all) => ({
          gap: i === 0 ? id.slot : id.slot - all[i - 1]![0].slot - 1,
          generation: id.generation,
          components: e.components.map((c) => c?.[0]),
        })),
    });
    assert.deepEqual(client.client.canonicalBytes(), expected.canonicalBytes());
    assert.ok(scene.size > 0);
    assert.equal(server.writer.baseline.owedLost, 0, "every loss confirmed");
  });

  it("the delta mirror holds the visible set", () => {
    // GEN-3 for delta streaming.
    const schema: DeltaSchema = {
      planFrame: "plan",
      ackFrame: "ack",
      fullBaseline: 1,
      baseline: 2,
      decodePlan: dec,
      encodePlan: enc,
      decodeAck: dec,
      encodeAck: enc,
    };
    const rng = new Rng(13);
    const server = new DeltaServer(schema, new DeltaBaseline(32));
    const client = new DeltaClient(schema, new DeltaMirror());
    const down = new Link(5, 0.3);
    const up = new Link(6, 0.3);
    const world = new Map<number, number>();
    for (let step = 1; step <= 400; step++) {
      if (step <= 250) {
        for (let n = 0; n < 3; n++) {
          const slot = rng.below(40);
          const g = world.get(slot);
          if (g === undefined) {
            world.set(slot, 0);
          } else if (rng.below(2) === 0) {
            world.delete(slot);
          } else {
            world.set(slot, (g + 1) & 0xffff);
          }
        }
      }
      if (step === 250) {
        down.loss = 0;
        up.loss = 0;
      }
      const visible = new Set([...world].map(([i, g]) => i * 65536 + g));
      server.handleTick({ tick: step, ms: step * 20 }, visible);
      exchange(step, server, client, down, up);
    }
    const visible = [...world].map(([i, g]) => i * 65536 + g).sort((a, b) => a - b);
    assert.deepEqual(client.mirror.keys(), visible);
    assert.ok(visible.length > 0);
    assert.equal(client.mirror.agreementWith(SetDigest.fromKeys(visible).digest()).kind, "agrees");
    assert.equal(server.baseline.fullRebuilds, 0, "no drift: the digests agreed throughout");
  });
});
