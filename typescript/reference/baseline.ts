/**
 * The reference protocol's binding of the NetBaseline halves (`docs/spec/baseline.md`): its
 * `snapshot` (kind 8) and `snapshot_ack` (kind 11) frames and its four components (Transform,
 * Velocity, Health, Team, in the ComponentMask's bit order), from `spec/protocol/baseline.wire`.
 */

import {
  ACK_WINDOW,
  BitWriter,
  ComponentMask,
  type Entry,
  MAX_LOST_PER_SNAPSHOT,
  type Team,
  type Transform,
  type Velocity,
  type Vitality,
  bitLenTeam,
  bitLenTransform,
  bitLenVelocity,
  bitLenVitality,
  decodeSnapshot,
  decodeSnapshotAck,
  encodeSnapshot,
  encodeSnapshotAck,
  writeTeam,
  writeTransform,
  writeVelocity,
  writeVitality,
} from "../protocol.js";
import type { BaselineSchema, SnapshotFrame, WireEntry } from "../runtime/sessions/baseline.js";

/** A component of the reference schema, by its index: 0 Transform, 1 Velocity, 2 Health, 3 Team. */
export type ReferenceComponent = Transform | Velocity | Vitality | Team;

const MASK_BITS = [
  ComponentMask.TRANSFORM,
  ComponentMask.VELOCITY,
  ComponentMask.HEALTH,
  ComponentMask.TEAM,
] as const;

function write(w: BitWriter, index: number, v: ReferenceComponent): void {
  switch (index) {
    case 0:
      writeTransform(w, v as Transform);
      return;
    case 1:
      writeVelocity(w, v as Velocity);
      return;
    case 2:
      writeVitality(w, v as Vitality);
      return;
    default:
      writeTeam(w, v as Team);
  }
}

function entry(e: WireEntry<ReferenceComponent>): Entry {
  const wide = e.gap >= 1 << 7;
  let mask = 0;
  e.components.forEach((c, i) => {
    if (c !== undefined) {
      mask |= MASK_BITS[i] ?? 0;
    }
  });
  return {
    wide,
    gap: wide ? undefined : e.gap,
    wide_gap: wide ? e.gap : undefined,
    generation: e.generation,
    mask,
    transform: e.components[0] as Transform | undefined,
    velocity: e.components[1] as Velocity | undefined,
    health: e.components[2] as Vitality | undefined,
    team: e.components[3] as Team | undefined,
  };
}

/** The reference protocol's snapshot frames and components. */
export const REFERENCE_BASELINE: BaselineSchema<ReferenceComponent> = {
  snapshotFrame: "snapshot",
  ackFrame: "snapshot_ack",
  componentTypes: 4,
  ackWindow: ACK_WINDOW,
  maxLostPerSnapshot: MAX_LOST_PER_SNAPSHOT,
  // The kind and the sequence.
  headerBytes: 3,
  // The 7-bit lost count and the 16-bit entry count.
  countBits: 7 + 16,
  // wide, a wide gap, the generation and the mask.
  entryHeadBits: 1 + 24 + 8 + 4,
  // An EntityRef: a 24-bit slot and an 8-bit generation.
  lostBits: 32,
  componentBits(index, value) {
    const w = new BitWriter();
    write(w, index, value);
    return w.finish();
  },
  componentBitLen(index, value) {
    switch (index) {
      case 0:
        return bitLenTransform(value as Transform);
      case 1:
        return bitLenVelocity(value as Velocity);
      case 2:
        return bitLenVitality(value as Vitality);
      default:
        return bitLenTeam(value as Team);
    }
  },
  decodeSnapshot(bytes): SnapshotFrame<ReferenceComponent> {
    const s = decodeSnapshot(bytes);
    return {
      sequence: s.sequence,
      lost: s.body.lost,
      entries: s.body.entries.map((e) => ({
        gap: e.wide_gap ?? e.gap ?? 0,
        generation: e.generation,
        components: [e.transform, e.velocity, e.health, e.team],
      })),
    };
  },
  encodeSnapshot(s) {
    return encodeSnapshot({
      sequence: s.sequence,
      body: {
        lost: s.lost.map((l) => ({ slot: l.slot, generation: l.generation })),
        entries: s.entries.map(entry),
      },
    });
  },
  decodeAck: (bytes) => decodeSnapshotAck(bytes).sequence,
  encodeAck: (sequence) => encodeSnapshotAck({ sequence }),
};
