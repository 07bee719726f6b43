// The reference protocol's machine schemas (gen/reference_datagram.ts, reference_baseline.ts and
// reference_delta.ts, which `ackwire gen --lang ts` writes for `schema ReferenceDatagram`,
// `ReferenceBaseline` and `ReferenceDelta`), over the codec generated beside them: the frame
// names are the codec's, a snapshot's entries carry their gap narrow or wide (NB-4) and their mask
// from the components present, and an update's length is what it adds to a datagram (DG-7).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ComponentMask,
  PlanFlags,
  UpdateMask,
  decodeSnapshot,
  encodeDatagram,
  isFrameName,
} from "../gen/protocol.js";
import { ReferenceBaseline } from "../gen/reference_baseline.js";
import { ReferenceDatagram } from "../gen/reference_datagram.js";
import { ReferenceDelta } from "../gen/reference_delta.js";
import type { UpdateFrame } from "../gen/runtime/sessions/datagram.js";

describe("ReferenceDatagram", () => {
  it("names frames of the codec", () => {
    for (const name of Object.values(ReferenceDatagram.names)) {
      assert.ok(isFrameName(name), name);
    }
  });

  it("counts an update as the bytes it adds to a datagram", () => {
    const first: UpdateFrame = { id: 7n, spawn_tag: 3, mask: UpdateMask.X, x: -5n };
    const second: UpdateFrame = {
      id: 300n,
      spawn_tag: 9,
      mask: UpdateMask.Y | UpdateMask.COMPONENTS,
      y: 1000n,
      components: [{ type: 2, data: new Uint8Array([1, 2, 3]) }],
    };
    const header = {
      frame: 1n,
      tick: 2n,
      input_ack: 3n,
      stream_tick: 4n,
      precision: 0.5,
      parts: 1,
    };
    const one = encodeDatagram({ ...header, updates: [first] }).length;
    const two = encodeDatagram({ ...header, updates: [first, second] }).length;
    assert.equal(two - one, ReferenceDatagram.updateLen(second, first.id));
    assert.ok(
      one - ReferenceDatagram.updateLen(first, undefined) <= ReferenceDatagram.maxHeaderLen,
    );
    assert.equal(ReferenceDatagram.mask.components, UpdateMask.COMPONENTS);
  });
});

describe("ReferenceBaseline", () => {
  const entries = [
    { gap: 127, generation: 1, components: [undefined, undefined, { hp: 9 }, undefined] },
    {
      gap: 128,
      generation: 2,
      components: [{ x: 1, y: 2, z: 3, yaw: 0 }, undefined, undefined, { team: 2 }],
    },
  ];

  it("writes a gap below 128 narrow, a wider one wide, and the mask of the components", () => {
    const bytes = ReferenceBaseline.encodeSnapshot({
      sequence: 513,
      lost: [{ slot: 3, generation: 4 }],
      entries,
    });
    const wire = decodeSnapshot(bytes);
    assert.deepEqual(
      wire.body.entries.map((e) => [e.wide, e.gap, e.wide_gap, e.mask]),
      [
        [false, 127, undefined, ComponentMask.HEALTH],
        [true, undefined, 128, ComponentMask.TRANSFORM | ComponentMask.TEAM],
      ],
    );
    const back = ReferenceBaseline.decodeSnapshot(bytes);
    assert.equal(back.sequence, 513);
    assert.deepEqual(back.lost, [{ slot: 3, generation: 4 }]);
    assert.deepEqual(back.entries, entries);
  });

  it("writes each component type as its packed record", () => {
    const transform = { x: 1, y: 2, z: 3, yaw: 0 };
    // 24 + 24 + 20 + 9 bits.
    assert.equal(ReferenceBaseline.componentBitLen(0, transform), 77);
    assert.equal(ReferenceBaseline.componentBits(0, transform).length, 10);
    assert.equal(ReferenceBaseline.componentBitLen(3, { team: 2 }), 3);
    assert.equal(ReferenceBaseline.decodeAck(ReferenceBaseline.encodeAck(65535)), 65535);
    assert.ok(isFrameName(ReferenceBaseline.snapshotFrame));
    assert.ok(isFrameName(ReferenceBaseline.ackFrame));
  });
});

describe("ReferenceDelta", () => {
  it("passes a plan and an ack through the codec", () => {
    const plan = {
      flags: ReferenceDelta.fullBaseline | ReferenceDelta.baseline,
      sequence: 9n,
      baseline_seq: 4n,
      entered: [1, 5],
      left: [2],
    };
    assert.equal(ReferenceDelta.baseline, PlanFlags.BASELINE);
    assert.deepEqual(ReferenceDelta.decodePlan(ReferenceDelta.encodePlan(plan)), plan);
    const ack = { newest: 9n, mask: 3n, digest: 77n };
    assert.deepEqual(ReferenceDelta.decodeAck(ReferenceDelta.encodeAck(ack)), ack);
    assert.ok(isFrameName(ReferenceDelta.planFrame));
    assert.ok(isFrameName(ReferenceDelta.ackFrame));
  });
});
