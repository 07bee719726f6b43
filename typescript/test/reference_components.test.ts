// The reference state's groups as datagram v2 components (DG-6), generated from `state Reference`
// (gen/reference.ts, `ReferenceComponent`): each group's full form as kind 6 writes it, its type
// the group's index. A server's entities travel through a `Subscription` and a `ReplicaTable`
// (the runtime's datagram v2 machines over the generated `ReferenceDatagram`), every frame through
// its bytes and a third of the datagrams lost until the network heals; the client's replica,
// decoded back into typed components, then equals the server's entities. As
// codec/tests/typed_components.rs does for the Rust codec.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, type Component } from "../gen/protocol.js";
import { ReferenceComponent } from "../gen/reference.js";
import { ReferenceDatagram } from "../gen/reference_datagram.js";
import {
  type DatagramFrame,
  ReplicaTable,
  type StreamFrame,
  Subscription,
  type WorldOp,
} from "../gen/runtime/sessions/datagram.js";

/** A datagram through its bytes, as the client reads it. */
function datagramWire(d: DatagramFrame): DatagramFrame {
  return ReferenceDatagram.decodeDatagram(ReferenceDatagram.encodeDatagram(d));
}

/** A stream frame through its bytes, decoded by its kind, as the client reads it. */
function streamWire(f: StreamFrame): StreamFrame {
  const s = ReferenceDatagram;
  switch (f.kind) {
    case "spawn":
      return { kind: "spawn", frame: s.decodeSpawn(s.encodeSpawn(f.frame)) };
    case "despawn":
      return { kind: "despawn", frame: s.decodeDespawn(s.encodeDespawn(f.frame)) };
    case "full_frame":
      return { kind: "full_frame", frame: s.decodeFullFrame(s.encodeFullFrame(f.frame)) };
  }
}

/**
 * The typed components of entity `id` at `tick`: a pose every entity has, health that changes, a
 * vehicle for even ids and an orientation for ids divisible by three.
 */
function entity(id: number, tick: number): ReferenceComponent[] {
  const out: ReferenceComponent[] = [
    {
      kind: "pose",
      value: {
        x: tick * 0.5,
        y: id,
        z: -2,
        // Whole steps of 360/65536 degrees, which the quantization keeps exactly.
        yaw: (id * 1000 + tick) * (360 / 65536),
      },
    },
    { kind: "health", value: { hp: Math.max(100 - tick, 0), armor: id } },
  ];
  if (id % 2 === 0) {
    out.push({ kind: "vehicle", value: { vehicle: id + 1, seat: tick % 4 } });
  }
  if (id % 3 === 0) {
    out.push({ kind: "orient", value: { q: { largest: tick % 4, rest: [-5, id, 7] } } });
  }
  return out;
}

/** The components as the subscription takes them: (type, bytes). */
function encoded(components: readonly ReferenceComponent[]): [number, Uint8Array][] {
  return components.map((c) => {
    const change = ReferenceComponent.toComponent(c);
    assert.ok(change.data !== null);
    return [change.type, change.data];
  });
}

/** A replica's components decoded back, by type ascending. */
function decoded(components: Map<number, Uint8Array>): ReferenceComponent[] {
  return [...components.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([type, data]) => ReferenceComponent.fromComponent({ type, data }))
    .filter((c): c is ReferenceComponent => c !== undefined);
}

/** What `f` throws, which must be a DecodeError. */
function decodeError(f: () => unknown): DecodeError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof DecodeError, `not a DecodeError: ${String(e)}`);
    return e;
  }
  assert.fail("no error");
}

describe("ReferenceComponent", () => {
  it("a replica of typed components equals the server's entities", () => {
    const server = new Subscription(ReferenceDatagram);
    const client = new ReplicaTable();
    const ids = [0, 1, 2, 3, 4, 5];
    let sent = 0;
    let lost = 0;
    for (let tick = 1; tick <= 40; tick++) {
      const ops: WorldOp[] = [];
      for (const id of ids) {
        const components = encoded(entity(id, tick));
        if (tick === 1) {
          ops.push({ kind: "spawn", id: BigInt(id), position: [id, 0, 0], components });
          continue;
        }
        ops.push({ kind: "move", id: BigInt(id), position: [id, tick * 0.25, 0] });
        for (const [type, data] of components) {
          ops.push({ kind: "set", id: BigInt(id), type, data });
        }
      }
      const out = server.tick(BigInt(tick), BigInt(tick), ops);
      for (const frame of out.stream) {
        client.applyStream(streamWire(frame));
      }
      for (const d of out.datagrams) {
        sent += 1;
        if (tick < 30 && sent % 3 === 0) {
          lost += 1;
          continue;
        }
        client.receive(datagramWire(d));
      }
      for (const ack of client.takeAcks()) {
        server.onAck(ReferenceDatagram.decodeAck(ReferenceDatagram.encodeAck(ack)));
      }
    }
    assert.ok(lost > 0, "some datagrams were lost");
    // The state check: every entity the client holds decodes to the server's, group by group.
    assert.equal(client.size, ids.length);
    for (const id of ids) {
      const replica = client.entity(BigInt(id));
      assert.ok(replica !== undefined, `entity ${id}`);
      assert.deepEqual(decoded(replica.components), entity(id, 40), `entity ${id}`);
    }
  });

  it("gives each group's type as its index", () => {
    assert.deepEqual(
      entity(0, 1).map((c) => ReferenceComponent.componentType(c)),
      [0, 1, 2, 3],
    );
    const orient = ReferenceComponent.toComponent(entity(0, 1)[3]!);
    assert.equal(orient.type, 3);
    // 2 bits of the largest and 3 of 9 bits: 29 bits, padded to 4 bytes.
    assert.equal(orient.data?.length, 4);
  });

  it("skips a removal and a type the state does not declare (DG-6)", () => {
    assert.equal(ReferenceComponent.fromComponent({ type: 1, data: null }), undefined);
    const unknown: Component = { type: 9, data: new Uint8Array([1, 2, 3]) };
    assert.equal(ReferenceComponent.fromComponent(unknown), undefined);
  });

  it("refuses bytes that do not decode exactly, where they fail, under the group's name", () => {
    const health = ReferenceComponent.toComponent({ kind: "health", value: { hp: 9, armor: 1 } });
    assert.deepEqual(ReferenceComponent.fromComponent(health), {
      kind: "health",
      value: { hp: 9, armor: 1 },
    });
    const long = new Uint8Array([...health.data!, 0]);
    let e = decodeError(() => ReferenceComponent.fromComponent({ type: 1, data: long }));
    assert.deepEqual([e.kind, e.offset, e.path], ["trailing_bytes", 2, "health"]);

    // A pose needs 14 bytes; its first f32 finds 2.
    e = decodeError(() => ReferenceComponent.fromComponent({ type: 0, data: Uint8Array.of(1, 2) }));
    assert.deepEqual([e.kind, e.offset, e.path], ["truncated", 2, "pose.x"]);

    // The packed orientation: cut short, padded with a set bit, and followed by a byte.
    const orient = ReferenceComponent.toComponent(entity(3, 2)[2]!);
    assert.equal(orient.type, 3);
    const bytes = orient.data!;
    e = decodeError(() =>
      ReferenceComponent.fromComponent({ type: 3, data: bytes.subarray(0, 3) }),
    );
    // The third component's 9 bits start at bit 20 and run past the 24 bits there are.
    assert.deepEqual([e.kind, e.offset, e.bit, e.path], ["truncated", 3, 24, "orient.q"]);
    const padded = bytes.slice();
    padded[3]! |= 0x80;
    e = decodeError(() => ReferenceComponent.fromComponent({ type: 3, data: padded }));
    assert.deepEqual([e.kind, e.offset, e.bit, e.path], ["reserved_bit", 3, 31, "orient"]);
    e = decodeError(() =>
      ReferenceComponent.fromComponent({ type: 3, data: new Uint8Array([...bytes, 0]) }),
    );
    assert.deepEqual([e.kind, e.offset, e.path], ["trailing_bytes", 4, "orient"]);
  });
});
