// The speed of the generated TypeScript codec beside two hand-written DataView codecs of the same
// acked frames (kind 6, ACK-2), in the same run: ns per entity to decode and to encode, the median
// of several rounds, and their ratios. One hand-written codec checks what a careful one would (the
// validating codec); the other reads and writes the same fields into the same records and checks
// nothing (the minimal codec), the floor a generated codec is held to. Run it with `bash bench.sh`
// (it builds everything and writes the frames this reads); it times, it asserts no speed.
//
// Before timing, it checks that the three codecs agree on every frame: the same value (in the
// JSON form) from every decoder, and the same bytes again from every encoder.

import { readFileSync } from "node:fs";
import {
  type Acked,
  type Change,
  type Event,
  decodeAcked,
  encodeAcked,
  frameToJson,
  fromHex,
} from "./gen/protocol.js";

// ---- the hand-written codec ----
//
// What a careful hand-written decoder of the acked frame checks, and no more: every read is
// within the bytes (one bounds check per group of fixed size), the kind byte is 6, no reserved
// bit of the flags or of a change's mask is set and POSE_FULL and POSE_AGE come only with POSE,
// the check and first_serial are there exactly when their conditions say, the counts of removed
// entities, changes and events fit in the bytes left before anything is read for them, floats
// are finite, an event's tag is known, and no byte follows the frame. A fault is an Error naming
// its kind and offset, without a field path. Its encoder writes what the decoder reads into one
// buffer of the exact size, refusing a mask with reserved bits or a presence that contradicts it.

const KEYFRAME = 1 << 0;
const CHECK = 1 << 1;
const POSE = 1 << 0;
const HEALTH = 1 << 1;
const VEHICLE = 1 << 2;
const POSE_FULL = 1 << 14;
const POSE_AGE = 1 << 15;
const MASK_KNOWN = POSE | HEALTH | VEHICLE | POSE_FULL | POSE_AGE;

interface HandChange {
  eid: number;
  mask: number;
  age: number;
  full: { x: number; y: number; z: number; yaw: number } | null;
  step: { dx: number; dy: number; dz: number; yaw: number } | null;
  health: { hp: number; armor: number } | null;
  vehicle: { vehicle: number; seat: number } | null;
}

type HandEvent =
  | { tag: 1; shooter: number; weapon: number; yaw: number }
  | { tag: 2; x: number; y: number; z: number; radius: number }
  | { tag: 3; attacker: number; victim: number; damage: number }
  | { tag: 4; thief: number; victim: number; vehicle: number };

interface HandAcked {
  tick: number;
  baseTick: number;
  lastSeq: number;
  inputBuffer: number;
  flags: number;
  check: number;
  removed: number[];
  changes: HandChange[];
  firstSerial: number;
  events: HandEvent[];
}

function fault(kind: string, offset: number): Error {
  return new Error(`${kind} at byte ${offset}`);
}

function finite(v: number, at: number): number {
  if (!Number.isFinite(v)) {
    throw fault("non_finite", at);
  }
  return v;
}

function handDecode(bytes: Uint8Array): HandAcked {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.length;
  let p = 0;
  const need = (n: number) => {
    if (p + n > len) {
      throw fault("truncated", len);
    }
  };
  need(20);
  if (dv.getUint8(0) !== 6) {
    throw fault("bad_constant", 0);
  }
  const tick = dv.getUint32(1, true);
  const baseTick = dv.getUint32(5, true);
  const lastSeq = dv.getUint32(9, true);
  const inputBuffer = dv.getUint8(13);
  const flags = dv.getUint8(14);
  if ((flags & ~(KEYFRAME | CHECK)) !== 0) {
    throw fault("reserved_bit", 14);
  }
  const removedCount = dv.getUint16(15, true);
  const changedCount = dv.getUint16(17, true);
  p = 19;
  let check = 0;
  if ((flags & CHECK) !== 0) {
    need(4);
    check = dv.getUint32(p, true);
    p += 4;
  }
  if (removedCount * 2 > len - p) {
    throw fault("count_too_large", p);
  }
  const removed: number[] = [];
  for (let i = 0; i < removedCount; i++, p += 2) {
    removed.push(dv.getUint16(p, true));
  }
  if (changedCount * 4 > len - p) {
    throw fault("count_too_large", p);
  }
  const changes: HandChange[] = [];
  for (let i = 0; i < changedCount; i++) {
    need(4);
    const eid = dv.getUint16(p, true);
    const mask = dv.getUint16(p + 2, true);
    if ((mask & ~MASK_KNOWN) !== 0) {
      throw fault("reserved_bit", p + 2);
    }
    if ((mask & (POSE_FULL | POSE_AGE)) !== 0 && (mask & POSE) === 0) {
      throw fault("invalid_condition", p + 2);
    }
    p += 4;
    let age = 0;
    if ((mask & POSE_AGE) !== 0) {
      need(1);
      age = dv.getUint8(p);
      p += 1;
    }
    let full = null;
    let step = null;
    if ((mask & POSE) !== 0) {
      if ((mask & POSE_FULL) !== 0) {
        need(14);
        full = {
          x: finite(dv.getFloat32(p, true), p),
          y: finite(dv.getFloat32(p + 4, true), p + 4),
          z: finite(dv.getFloat32(p + 8, true), p + 8),
          yaw: dv.getUint16(p + 12, true) * (360 / 65536),
        };
        p += 14;
      } else {
        need(7);
        step = {
          dx: dv.getInt16(p, true),
          dy: dv.getInt16(p + 2, true),
          dz: dv.getInt16(p + 4, true),
          yaw: dv.getUint8(p + 6) * (360 / 256),
        };
        p += 7;
      }
    }
    let health = null;
    if ((mask & HEALTH) !== 0) {
      need(2);
      health = { hp: dv.getUint8(p), armor: dv.getUint8(p + 1) };
      p += 2;
    }
    let vehicle = null;
    if ((mask & VEHICLE) !== 0) {
      need(3);
      vehicle = { vehicle: dv.getUint16(p, true), seat: dv.getUint8(p + 2) };
      p += 3;
    }
    changes.push({ eid, mask, age, full, step, health, vehicle });
  }
  need(1);
  const eventCount = dv.getUint8(p);
  p += 1;
  let firstSerial = 0;
  if (eventCount > 0) {
    need(4);
    firstSerial = dv.getUint32(p, true);
    p += 4;
  }
  if (eventCount * 6 > len - p) {
    throw fault("count_too_large", p);
  }
  const events: HandEvent[] = [];
  for (let i = 0; i < eventCount; i++) {
    need(1);
    const tag = dv.getUint8(p);
    p += 1;
    switch (tag) {
      case 1:
        need(5);
        events.push({
          tag,
          shooter: dv.getUint16(p, true),
          weapon: dv.getUint8(p + 2),
          yaw: dv.getUint16(p + 3, true) * (360 / 65536),
        });
        p += 5;
        break;
      case 2:
        need(13);
        events.push({
          tag,
          x: finite(dv.getFloat32(p, true), p),
          y: finite(dv.getFloat32(p + 4, true), p + 4),
          z: finite(dv.getFloat32(p + 8, true), p + 8),
          radius: dv.getUint8(p + 12) * (1 / 8),
        });
        p += 13;
        break;
      case 3:
        need(5);
        events.push({
          tag,
          attacker: dv.getUint16(p, true),
          victim: dv.getUint16(p + 2, true),
          damage: dv.getUint8(p + 4),
        });
        p += 5;
        break;
      case 4:
        need(6);
        events.push({
          tag,
          thief: dv.getUint16(p, true),
          victim: dv.getUint16(p + 2, true),
          vehicle: dv.getUint16(p + 4, true),
        });
        p += 6;
        break;
      default:
        throw fault("unknown_tag", p - 1);
    }
  }
  if (p !== len) {
    throw fault("trailing_bytes", p);
  }
  return {
    tick,
    baseTick,
    lastSeq,
    inputBuffer,
    flags,
    check,
    removed,
    changes,
    firstSerial,
    events,
  };
}

/** round(v / scale), halves away from zero, as the codecs quantize. */
function quant(v: number, scale: number): number {
  const x = v / scale;
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

function handLen(v: HandAcked): number {
  let n = 20 + ((v.flags & CHECK) !== 0 ? 4 : 0) + v.removed.length * 2;
  for (const c of v.changes) {
    n += 4;
    n += (c.mask & POSE_AGE) !== 0 ? 1 : 0;
    n += c.full !== null ? 14 : c.step !== null ? 7 : 0;
    n += c.health !== null ? 2 : 0;
    n += c.vehicle !== null ? 3 : 0;
  }
  n += v.events.length > 0 ? 4 : 0;
  for (const e of v.events) {
    n += e.tag === 2 ? 14 : e.tag === 4 ? 7 : 6;
  }
  return n;
}

function handEncode(v: HandAcked): Uint8Array {
  const out = new Uint8Array(handLen(v));
  const dv = new DataView(out.buffer);
  dv.setUint8(0, 6);
  dv.setUint32(1, v.tick, true);
  dv.setUint32(5, v.baseTick, true);
  dv.setUint32(9, v.lastSeq, true);
  dv.setUint8(13, v.inputBuffer);
  dv.setUint8(14, v.flags);
  dv.setUint16(15, v.removed.length, true);
  dv.setUint16(17, v.changes.length, true);
  let p = 19;
  if ((v.flags & CHECK) !== 0) {
    dv.setUint32(p, v.check, true);
    p += 4;
  }
  for (const eid of v.removed) {
    dv.setUint16(p, eid, true);
    p += 2;
  }
  for (const c of v.changes) {
    const m = c.mask;
    if ((m & ~MASK_KNOWN) !== 0) {
      throw new Error("reserved_bit");
    }
    const pose = (m & POSE) !== 0;
    if (
      (c.full !== null) !== (pose && (m & POSE_FULL) !== 0) ||
      (c.step !== null) !== (pose && (m & POSE_FULL) === 0) ||
      (c.health !== null) !== ((m & HEALTH) !== 0) ||
      (c.vehicle !== null) !== ((m & VEHICLE) !== 0)
    ) {
      throw new Error("invalid_condition");
    }
    dv.setUint16(p, c.eid, true);
    dv.setUint16(p + 2, m, true);
    p += 4;
    if ((m & POSE_AGE) !== 0) {
      dv.setUint8(p, c.age);
      p += 1;
    }
    if (c.full !== null) {
      dv.setFloat32(p, c.full.x, true);
      dv.setFloat32(p + 4, c.full.y, true);
      dv.setFloat32(p + 8, c.full.z, true);
      dv.setUint16(p + 12, quant(c.full.yaw, 360 / 65536), true);
      p += 14;
    } else if (c.step !== null) {
      dv.setInt16(p, c.step.dx, true);
      dv.setInt16(p + 2, c.step.dy, true);
      dv.setInt16(p + 4, c.step.dz, true);
      dv.setUint8(p + 6, quant(c.step.yaw, 360 / 256));
      p += 7;
    }
    if (c.health !== null) {
      dv.setUint8(p, c.health.hp);
      dv.setUint8(p + 1, c.health.armor);
      p += 2;
    }
    if (c.vehicle !== null) {
      dv.setUint16(p, c.vehicle.vehicle, true);
      dv.setUint8(p + 2, c.vehicle.seat);
      p += 3;
    }
  }
  dv.setUint8(p, v.events.length);
  p += 1;
  if (v.events.length > 0) {
    dv.setUint32(p, v.firstSerial, true);
    p += 4;
  }
  for (const e of v.events) {
    dv.setUint8(p, e.tag);
    p += 1;
    switch (e.tag) {
      case 1:
        dv.setUint16(p, e.shooter, true);
        dv.setUint8(p + 2, e.weapon);
        dv.setUint16(p + 3, quant(e.yaw, 360 / 65536), true);
        p += 5;
        break;
      case 2:
        dv.setFloat32(p, e.x, true);
        dv.setFloat32(p + 4, e.y, true);
        dv.setFloat32(p + 8, e.z, true);
        dv.setUint8(p + 12, quant(e.radius, 1 / 8));
        p += 13;
        break;
      case 3:
        dv.setUint16(p, e.attacker, true);
        dv.setUint16(p + 2, e.victim, true);
        dv.setUint8(p + 4, e.damage);
        p += 5;
        break;
      case 4:
        dv.setUint16(p, e.thief, true);
        dv.setUint16(p + 2, e.victim, true);
        dv.setUint16(p + 4, e.vehicle, true);
        p += 6;
        break;
    }
  }
  return out;
}

/** The hand-decoded frame in the JSON form of conformance/PROTOCOL.md, to compare. */
function handJson(v: HandAcked): unknown {
  const names = (m: number, bits: readonly [string, number][]) =>
    bits.filter(([, b]) => (m & b) !== 0).map(([n]) => n);
  const maskBits: [string, number][] = [
    ["POSE", POSE],
    ["HEALTH", HEALTH],
    ["VEHICLE", VEHICLE],
    ["POSE_FULL", POSE_FULL],
    ["POSE_AGE", POSE_AGE],
  ];
  // The shortest decimal that reads back as the same single, as the JSON form prints an f32.
  const f32 = (x: number) => {
    for (let digits = 1; digits < 17; digits++) {
      const y = Number(x.toPrecision(digits));
      if (Math.fround(y) === x) {
        return y;
      }
    }
    return x;
  };
  const out: { [k: string]: unknown } = {
    tick: v.tick,
    base_tick: v.baseTick,
    last_seq: v.lastSeq,
    input_buffer: v.inputBuffer,
    flags: names(v.flags, [
      ["KEYFRAME", KEYFRAME],
      ["CHECK", CHECK],
    ]),
  };
  if ((v.flags & CHECK) !== 0) {
    out.check = v.check;
  }
  out.removed = v.removed;
  out.changes = v.changes.map((c) => {
    const o: { [k: string]: unknown } = { eid: c.eid, mask: names(c.mask, maskBits) };
    if ((c.mask & POSE_AGE) !== 0) {
      o.age = c.age;
    }
    if (c.full !== null) {
      o.pose_full = { x: f32(c.full.x), y: f32(c.full.y), z: f32(c.full.z), yaw: c.full.yaw };
    }
    if (c.step !== null) {
      o.pose_step = c.step;
    }
    if (c.health !== null) {
      o.health = c.health;
    }
    if (c.vehicle !== null) {
      o.vehicle = c.vehicle;
    }
    return o;
  });
  if (v.events.length > 0) {
    out.first_serial = v.firstSerial;
  }
  out.events = v.events.map((e) => {
    const { tag, ...rest } = e;
    const kind = ["", "shot", "blast", "hit", "carjack"][tag]!;
    return { [kind]: tag === 2 ? { ...rest, x: f32(e.x), y: f32(e.y), z: f32(e.z) } : rest };
  });
  return out;
}

// ---- the minimal codec ----
//
// What a DataView loop that trusts its input does: every field of the frame read into the same
// records the generated reader makes (its types, an absent field `undefined`), with no check but
// the DataView's own bounds; its encoder writes them into one buffer of the exact size, checking
// nothing. A frame it cannot read is one the generated reader refuses; it reads only well-formed
// frames here.

function minimalDecode(bytes: Uint8Array): Acked {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = dv.getUint8(14);
  const removedCount = dv.getUint16(15, true);
  const changedCount = dv.getUint16(17, true);
  let p = 19;
  let check: number | undefined;
  if ((flags & CHECK) !== 0) {
    check = dv.getUint32(p, true);
    p += 4;
  }
  const removed: number[] = [];
  for (let i = 0; i < removedCount; i++, p += 2) {
    removed.push(dv.getUint16(p, true));
  }
  const changes: Change[] = [];
  for (let i = 0; i < changedCount; i++) {
    const eid = dv.getUint16(p, true);
    const mask = dv.getUint16(p + 2, true);
    p += 4;
    let age: number | undefined;
    if ((mask & POSE_AGE) !== 0) {
      age = dv.getUint8(p);
      p += 1;
    }
    let poseFull: Change["pose_full"];
    let poseStep: Change["pose_step"];
    if ((mask & POSE) !== 0) {
      if ((mask & POSE_FULL) !== 0) {
        poseFull = {
          x: dv.getFloat32(p, true),
          y: dv.getFloat32(p + 4, true),
          z: dv.getFloat32(p + 8, true),
          yaw: dv.getUint16(p + 12, true) * (360 / 65536),
        };
        p += 14;
      } else {
        poseStep = {
          dx: dv.getInt16(p, true),
          dy: dv.getInt16(p + 2, true),
          dz: dv.getInt16(p + 4, true),
          yaw: dv.getUint8(p + 6) * (360 / 256),
        };
        p += 7;
      }
    }
    let health: Change["health"];
    if ((mask & HEALTH) !== 0) {
      health = { hp: dv.getUint8(p), armor: dv.getUint8(p + 1) };
      p += 2;
    }
    let vehicle: Change["vehicle"];
    if ((mask & VEHICLE) !== 0) {
      vehicle = { vehicle: dv.getUint16(p, true), seat: dv.getUint8(p + 2) };
      p += 3;
    }
    changes.push({
      eid,
      mask,
      age,
      pose_full: poseFull,
      pose_step: poseStep,
      health,
      vehicle,
      orient: undefined,
    });
  }
  const eventCount = dv.getUint8(p);
  p += 1;
  let firstSerial: number | undefined;
  if (eventCount > 0) {
    firstSerial = dv.getUint32(p, true);
    p += 4;
  }
  const events: Event[] = [];
  for (let i = 0; i < eventCount; i++) {
    const tag = dv.getUint8(p);
    p += 1;
    if (tag === 1) {
      events.push({
        kind: "shot",
        value: {
          shooter: dv.getUint16(p, true),
          weapon: dv.getUint8(p + 2),
          yaw: dv.getUint16(p + 3, true) * (360 / 65536),
        },
      });
      p += 5;
    } else if (tag === 2) {
      events.push({
        kind: "blast",
        value: {
          x: dv.getFloat32(p, true),
          y: dv.getFloat32(p + 4, true),
          z: dv.getFloat32(p + 8, true),
          radius: dv.getUint8(p + 12) * (1 / 8),
        },
      });
      p += 13;
    } else if (tag === 3) {
      events.push({
        kind: "hit",
        value: {
          attacker: dv.getUint16(p, true),
          victim: dv.getUint16(p + 2, true),
          damage: dv.getUint8(p + 4),
        },
      });
      p += 5;
    } else {
      events.push({
        kind: "carjack",
        value: {
          thief: dv.getUint16(p, true),
          victim: dv.getUint16(p + 2, true),
          vehicle: dv.getUint16(p + 4, true),
        },
      });
      p += 6;
    }
  }
  return {
    tick: dv.getUint32(1, true),
    base_tick: dv.getUint32(5, true),
    last_seq: dv.getUint32(9, true),
    input_buffer: dv.getUint8(13),
    flags,
    check,
    removed,
    changes,
    first_serial: firstSerial,
    events,
  };
}

function minimalLen(v: Acked): number {
  let n = 20 + (v.check !== undefined ? 4 : 0) + v.removed.length * 2;
  for (const c of v.changes) {
    n += 4 + (c.age !== undefined ? 1 : 0) + (c.pose_full !== undefined ? 14 : 0);
    n += (c.pose_step !== undefined ? 7 : 0) + (c.health !== undefined ? 2 : 0);
    n += c.vehicle !== undefined ? 3 : 0;
  }
  n += v.first_serial !== undefined ? 4 : 0;
  for (const e of v.events) {
    n += e.kind === "blast" ? 14 : e.kind === "carjack" ? 7 : 6;
  }
  return n;
}

function minimalEncode(v: Acked): Uint8Array {
  const out = new Uint8Array(minimalLen(v));
  const dv = new DataView(out.buffer);
  dv.setUint8(0, 6);
  dv.setUint32(1, v.tick, true);
  dv.setUint32(5, v.base_tick, true);
  dv.setUint32(9, v.last_seq, true);
  dv.setUint8(13, v.input_buffer);
  dv.setUint8(14, v.flags);
  dv.setUint16(15, v.removed.length, true);
  dv.setUint16(17, v.changes.length, true);
  let p = 19;
  if (v.check !== undefined) {
    dv.setUint32(p, v.check, true);
    p += 4;
  }
  for (const eid of v.removed) {
    dv.setUint16(p, eid, true);
    p += 2;
  }
  for (const c of v.changes) {
    dv.setUint16(p, c.eid, true);
    dv.setUint16(p + 2, c.mask, true);
    p += 4;
    if (c.age !== undefined) {
      dv.setUint8(p, c.age);
      p += 1;
    }
    const full = c.pose_full;
    if (full !== undefined) {
      dv.setFloat32(p, full.x, true);
      dv.setFloat32(p + 4, full.y, true);
      dv.setFloat32(p + 8, full.z, true);
      dv.setUint16(p + 12, quant(full.yaw, 360 / 65536), true);
      p += 14;
    }
    const step = c.pose_step;
    if (step !== undefined) {
      dv.setInt16(p, step.dx, true);
      dv.setInt16(p + 2, step.dy, true);
      dv.setInt16(p + 4, step.dz, true);
      dv.setUint8(p + 6, quant(step.yaw, 360 / 256));
      p += 7;
    }
    const health = c.health;
    if (health !== undefined) {
      dv.setUint8(p, health.hp);
      dv.setUint8(p + 1, health.armor);
      p += 2;
    }
    const vehicle = c.vehicle;
    if (vehicle !== undefined) {
      dv.setUint16(p, vehicle.vehicle, true);
      dv.setUint8(p + 2, vehicle.seat);
      p += 3;
    }
  }
  dv.setUint8(p, v.events.length);
  p += 1;
  if (v.first_serial !== undefined) {
    dv.setUint32(p, v.first_serial, true);
    p += 4;
  }
  for (const e of v.events) {
    switch (e.kind) {
      case "shot":
        dv.setUint8(p, 1);
        dv.setUint16(p + 1, e.value.shooter, true);
        dv.setUint8(p + 3, e.value.weapon);
        dv.setUint16(p + 4, quant(e.value.yaw, 360 / 65536), true);
        p += 6;
        break;
      case "blast":
        dv.setUint8(p, 2);
        dv.setFloat32(p + 1, e.value.x, true);
        dv.setFloat32(p + 5, e.value.y, true);
        dv.setFloat32(p + 9, e.value.z, true);
        dv.setUint8(p + 13, quant(e.value.radius, 1 / 8));
        p += 14;
        break;
      case "hit":
        dv.setUint8(p, 3);
        dv.setUint16(p + 1, e.value.attacker, true);
        dv.setUint16(p + 3, e.value.victim, true);
        dv.setUint8(p + 5, e.value.damage);
        p += 6;
        break;
      case "carjack":
        dv.setUint8(p, 4);
        dv.setUint16(p + 1, e.value.thief, true);
        dv.setUint16(p + 3, e.value.victim, true);
        dv.setUint16(p + 5, e.value.vehicle, true);
        p += 7;
        break;
    }
  }
  return out;
}

// ---- agreement, then timing ----

/** JSON text with object keys sorted, so that two values compare whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonical).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as object).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function agree(name: string, bytes: Uint8Array): void {
  const generated = decodeAcked(bytes);
  const hand = handDecode(bytes);
  const a = canonical(frameToJson("acked", generated));
  const b = canonical(handJson(hand));
  if (a !== b) {
    throw new Error(`${name}: the decoders disagree:\ngenerated ${a}\nhand      ${b}`);
  }
  if (!sameBytes(encodeAcked(generated), bytes)) {
    throw new Error(`${name}: the generated encoder does not give the frame's bytes back`);
  }
  if (!sameBytes(handEncode(hand), bytes)) {
    throw new Error(`${name}: the hand-written encoder does not give the frame's bytes back`);
  }
  const minimal = minimalDecode(bytes);
  if (canonical(frameToJson("acked", minimal)) !== a) {
    throw new Error(`${name}: the minimal decoder does not read the generated one's value`);
  }
  if (!sameBytes(minimalEncode(generated), bytes)) {
    throw new Error(`${name}: the minimal encoder does not give the frame's bytes back`);
  }
}

/** What the timed loops fold their results into, so that no work can be optimized away. */
let sink = 0;

/**
 * ns per call of `f`, over a round of about `ms` milliseconds of this process's CPU time (user
 * and system, as `process.cpuUsage` counts them): on a machine shared with other work, the time
 * the process waits for a core is not the codec's, and wall-clock rounds move by a factor of
 * two with the load where CPU time moves by a few percent.
 */
function round(f: () => number, ms: number): number {
  let n = 1;
  for (;;) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      sink += f();
    }
    const used = process.cpuUsage(t0);
    const ns = (used.user + used.system) * 1000;
    if (ns >= ms * 1e6) {
      return ns / n;
    }
    n *= ns < ms * 1e5 ? 10 : 2;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Case {
  name: string;
  bytes: Uint8Array;
  entities: number;
  generated: Acked;
  hand: HandAcked;
}

/** A row's cells: the frame, the op, ns per entity of each codec, and the two ratios. */
function row(c: Case, op: string, g: number, h: number, m: number): string {
  return [
    c.name.padEnd(9),
    String(c.entities).padStart(8),
    String(c.bytes.length).padStart(6),
    ` ${op}`,
    g.toFixed(1).padStart(10),
    h.toFixed(1).padStart(10),
    m.toFixed(1).padStart(8),
    `${(g / h).toFixed(2).padStart(9)}×`,
    `${(g / m).toFixed(2).padStart(8)}×`,
  ].join(" ");
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 100);

function main(): void {
  const file = process.argv[2];
  if (file === undefined) {
    throw new Error("usage: node dist/bench.js FRAMES (a file of `name<TAB>hex` lines)");
  }
  const cases: Case[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") {
      continue;
    }
    const [name, hex] = line.split("\t") as [string, string];
    const bytes = fromHex(hex);
    agree(name, bytes);
    const generated = decodeAcked(bytes);
    const hand = handDecode(bytes);
    cases.push({ name, bytes, entities: generated.changes.length, generated, hand });
  }
  console.log(
    `the three codecs agree on ${cases.length} frames: the same values, the same bytes again`,
  );
  const rounds = `median of ${ROUNDS} rounds of ${ROUND_MS} ms of CPU time`;
  console.log(`node ${process.version}, ${rounds}, ns per entity`);
  console.log("");
  console.log(
    "frame     entities  bytes  op      generated  validating  minimal  /validating  /minimal",
  );
  for (const c of cases) {
    const ops: [string, () => number, () => number, () => number][] = [
      [
        "decode",
        () => decodeAcked(c.bytes).changes.length,
        () => handDecode(c.bytes).changes.length,
        () => minimalDecode(c.bytes).changes.length,
      ],
      [
        "encode",
        () => encodeAcked(c.generated).length,
        () => handEncode(c.hand).length,
        () => minimalEncode(c.generated).length,
      ],
    ];
    for (const [op, generated, hand, minimal] of ops) {
      const g: number[] = [];
      const h: number[] = [];
      const m: number[] = [];
      // Interleaved, so that all three see the same load of a shared machine.
      for (let i = 0; i < ROUNDS; i++) {
        g.push(round(generated, ROUND_MS) / c.entities);
        h.push(round(hand, ROUND_MS) / c.entities);
        m.push(round(minimal, ROUND_MS) / c.entities);
      }
      console.log(row(c, op, median(g), median(h), median(m)));
    }
  }
  if (sink === 0) {
    console.log("(nothing was decoded)");
  }
}

main();
