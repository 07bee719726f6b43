/**
 * Datagram v2 (`docs/spec/datagram.md`), both halves, as the Rust codec's `datagram` module: entity
 * updates that may be lost, duplicated or reordered, beside a reliable, ordered stream of spawns,
 * despawns and full frames. A {@link DatagramSchema} binds the machines to a protocol's frames.
 *
 * Each datagram is self-contained: an update holds the entity's absolute quantized position, so
 * losing a datagram only delays its content; the client acknowledges what it applies and the server
 * repeats whatever changed since an entity's last acknowledged state until covered (DG-14, DG-22).
 *
 * - {@link DatagramBuilder} and {@link splitTick}: one tick's datagrams under a size limit, the
 *   header counted at its longest;
 * - {@link Subscription}: the server's half of one subscription;
 * - {@link ReplicaTable}: the client's, with spawn tags, the last datagram applied per entity,
 *   whole ticks and the input ack, and the limits of {@link ReplicaLimits};
 * - {@link DatagramServer} and {@link DatagramClient}: the session halves.
 *
 * Choices the specification makes, made as the Rust machines make them: the client acks a datagram
 * when it applies it (when its tick, or a later one, is whole), not while it only holds it (DG-22);
 * a tick that sends a full frame sends no datagram (DG-12).
 *
 * Every integer of the wire (ids, ticks, frame numbers, positions) is a u64 or i64 `bigint`.
 * Sans-IO: ticks are arguments, frames are values.
 */

import { fnv1a32 } from "./fnv.js";
import {
  MAX_QUEUED,
  type Now,
  Outbox,
  SessionError,
  type SessionHalf,
  type Transmit,
} from "./half.js";

const U64_MAX = (1n << 64n) - 1n;
const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

/** One component of an entity, or its removal (`data` null). */
export interface ComponentChange {
  /** The component's type (u8). */
  type: number;
  /** Its bytes, or null when removed. */
  data: Uint8Array | null;
}

/** One entity's update in a datagram. */
export interface UpdateFrame {
  /** The entity. */
  id: bigint;
  /** The low 16 bits of the spawn tick. */
  spawn_tag: number;
  /** Which parts follow (the schema's X, Y, Z and COMPONENTS bits). */
  mask: number;
  /** Absolute x in steps. */
  x?: bigint | undefined;
  /** Absolute y in steps. */
  y?: bigint | undefined;
  /** Absolute z in steps. */
  z?: bigint | undefined;
  /** Component changes. */
  components?: ComponentChange[] | undefined;
}

/** A datagram (kind 2 of the reference protocol: its version byte). */
export interface DatagramFrame {
  /** The datagram's number, per subscription, from 1. */
  frame: bigint;
  /** The server tick the updates describe. */
  tick: bigint;
  /** The highest client_seq the shard has processed. */
  input_ack: bigint;
  /** The tick of the last stream frame sent by this tick. */
  stream_tick: bigint;
  /** Metres per step (an f32). */
  precision: number;
  /** How many datagrams this tick was sent in. */
  parts: number;
  /** Updates, ids ascending. */
  updates: UpdateFrame[];
}

/** A stream spawn frame. */
export interface SpawnFrame {
  /** The stream frame's tick. */
  tick: bigint;
  /** The entity. */
  id: bigint;
  /** Metres per step. */
  precision: number;
  /** Absolute x in steps. */
  x: bigint;
  /** Absolute y in steps. */
  y: bigint;
  /** Absolute z in steps. */
  z: bigint;
  /** Its components. */
  components: ComponentChange[];
}

/** A stream despawn frame. */
export interface DespawnFrame {
  /** The stream frame's tick. */
  tick: bigint;
  /** The entity. */
  id: bigint;
}

/** One entity of a full frame. */
export interface FullEntityFrame {
  /** The entity. */
  id: bigint;
  /** Absolute x in steps. */
  x: bigint;
  /** Absolute y in steps. */
  y: bigint;
  /** Absolute z in steps. */
  z: bigint;
  /** Its components. */
  components: ComponentChange[];
}

/** A stream full frame: the whole subscription. */
export interface FullFrameFrame {
  /** The stream frame's tick. */
  tick: bigint;
  /** Metres per step. */
  precision: number;
  /** The entities, ids ascending. */
  entities: FullEntityFrame[];
}

/** The client's acknowledgement of one datagram. */
export interface DatagramAckFrame {
  /** The datagram's number. */
  frame: bigint;
  /** The tick of the last stream frame applied. */
  stream_tick: bigint;
}

/** One frame of the reliable stream. */
export type StreamFrame =
  | { readonly kind: "spawn"; readonly frame: SpawnFrame }
  | { readonly kind: "despawn"; readonly frame: DespawnFrame }
  | { readonly kind: "full_frame"; readonly frame: FullFrameFrame };

/** What binds the datagram halves to a protocol: frame names, mask bits, codecs and lengths. */
export interface DatagramSchema {
  /** Frame names in the spec. */
  readonly names: {
    readonly datagram: string;
    readonly spawn: string;
    readonly despawn: string;
    readonly fullFrame: string;
    readonly ack: string;
  };
  /** The update mask's bits. */
  readonly mask: {
    readonly x: number;
    readonly y: number;
    readonly z: number;
    readonly components: number;
  };
  /** A datagram's header at its longest, in bytes (MAX_HEADER_LEN). */
  readonly maxHeaderLen: number;
  /** Bytes `update` takes in a datagram's ascending list after the id `prev` (or first). */
  updateLen(update: UpdateFrame, prev: bigint | undefined): number;
  /** Throws the codec's EncodeError when `update` does not encode. */
  checkUpdate(update: UpdateFrame): void;
  /** Codecs; a decoder throws the codec's DecodeError. */
  decodeDatagram(bytes: Uint8Array): DatagramFrame;
  encodeDatagram(d: DatagramFrame): Uint8Array;
  decodeSpawn(bytes: Uint8Array): SpawnFrame;
  encodeSpawn(f: SpawnFrame): Uint8Array;
  decodeDespawn(bytes: Uint8Array): DespawnFrame;
  encodeDespawn(f: DespawnFrame): Uint8Array;
  decodeFullFrame(bytes: Uint8Array): FullFrameFrame;
  encodeFullFrame(f: FullFrameFrame): Uint8Array;
  decodeAck(bytes: Uint8Array): DatagramAckFrame;
  encodeAck(f: DatagramAckFrame): Uint8Array;
}

/** The part of a spawn tick an update carries (DG-8: its low 16 bits). */
export function spawnTag(spawnTick: bigint): number {
  return Number(spawnTick & 0xffffn);
}

/**
 * An axis value on the wire: round(coordinate / precision), halves away from zero. DG-5: an axis
 * value is round(coordinate / precision), and a non-finite coordinate quantizes to 0. A quotient
 * that is not finite also gives 0, one beyond i64 saturates. `precision` is an f32.
 */
export function quantize(coordinate: number, precision: number): bigint {
  if (!Number.isFinite(coordinate)) {
    return 0n;
  }
  const q = coordinate / Math.fround(precision);
  if (!Number.isFinite(q)) {
    return 0n;
  }
  // Math.round ties toward +infinity: on the magnitude that is away from zero.
  const r = Math.sign(q) * Math.round(Math.abs(q));
  if (r >= 2 ** 63) {
    return I64_MAX;
  }
  if (r < -(2 ** 63)) {
    return I64_MIN;
  }
  return BigInt(r);
}

const byId = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Why a tick's datagrams did not build (the Rust `BuildError`), as a SessionError `world`. */
function buildError(message: string, cause?: unknown): SessionError {
  return new SessionError("world", message, cause);
}

/** A datagram's header fields. */
export interface DatagramHeader {
  frame: bigint;
  tick: bigint;
  input_ack: bigint;
  stream_tick: bigint;
  precision: number;
  parts: number;
}

class TooLarge extends Error {}

/**
 * Builds one datagram: updates in ascending id order under a size limit, the header counted at
 * the schema's `maxHeaderLen`.
 */
export class DatagramBuilder {
  private readonly schema: DatagramSchema;
  private header: DatagramHeader;
  private readonly updates: UpdateFrame[] = [];
  private prev: bigint | undefined = undefined;
  private length: number;
  private limit: number;

  /** An empty datagram of `header`, at most `limit` bytes. */
  constructor(schema: DatagramSchema, header: DatagramHeader, limit: number) {
    this.schema = schema;
    this.header = header;
    this.length = schema.maxHeaderLen;
    this.limit = limit;
  }

  /** Bytes counted so far (the header at its longest). */
  get len(): number {
    return this.length;
  }

  /** Whether no update is in. */
  get isEmpty(): boolean {
    return this.updates.length === 0;
  }

  /** Adds `update`: its id must ascend, it must encode, and it must fit. */
  push(update: UpdateFrame): void {
    if (this.prev !== undefined && update.id <= this.prev) {
      throw buildError(`update id ${update.id} does not ascend (previous ${this.prev})`);
    }
    try {
      this.schema.checkUpdate(update);
    } catch (e) {
      throw buildError(`the update does not encode: ${String(e)}`, e);
    }
    const needed = this.schema.updateLen(update, this.prev);
    const left = Math.max(0, this.limit - this.length);
    if (needed > left) {
      throw new TooLarge(`the update needs ${needed} bytes, ${left} are left`);
    }
    this.length += needed;
    this.prev = update.id;
    this.updates.push(update);
  }

  /** {@link DatagramBuilder.push} with no size limit: an update too large for any datagram. */
  pushUnlimited(update: UpdateFrame): void {
    const limit = this.limit;
    this.limit = Number.POSITIVE_INFINITY;
    try {
      this.push(update);
    } finally {
      this.limit = limit;
    }
  }

  /** Sets the tick's part count. */
  setParts(parts: number): void {
    this.header = { ...this.header, parts };
  }

  /** The datagram. */
  finish(): DatagramFrame {
    return { ...this.header, updates: this.updates };
  }
}

function numbered(first: DatagramHeader, part: number): DatagramHeader {
  const frame = first.frame + BigInt(part);
  if (frame > U64_MAX) {
    throw buildError(
      `the tick's datagrams run out of numbers: first frame ${first.frame}, part ${part}`,
    );
  }
  return { ...first, frame };
}

/**
 * Splits one tick's updates (ids ascending) into datagrams of at most `limit` bytes, numbered from
 * the header's frame on, each naming the count; an update too large alone goes alone (DG-13).
 * DG-11: a tick without a full frame sends one datagram or more.
 */
export function splitTick(
  schema: DatagramSchema,
  header: DatagramHeader,
  updates: UpdateFrame[],
  limit: number,
): DatagramFrame[] {
  const parts: DatagramBuilder[] = [];
  let current = new DatagramBuilder(schema, header, limit);
  let lastId: bigint | undefined;
  for (const update of updates) {
    if (lastId !== undefined && update.id <= lastId) {
      throw buildError(`update id ${update.id} does not ascend (previous ${lastId})`);
    }
    lastId = update.id;
    try {
      current.push(update);
      continue;
    } catch (e) {
      if (!(e instanceof TooLarge)) {
        throw e;
      }
    }
    const next = numbered(header, parts.length + 1);
    if (current.isEmpty) {
      current.pushUnlimited(update);
      parts.push(current);
      current = new DatagramBuilder(schema, next, limit);
    } else {
      parts.push(current);
      current = new DatagramBuilder(schema, next, limit);
      try {
        current.push(update);
      } catch (e) {
        if (!(e instanceof TooLarge)) {
          throw e;
        }
        current.pushUnlimited(update);
        const after = numbered(header, parts.length + 1);
        parts.push(current);
        current = new DatagramBuilder(schema, after, limit);
      }
    }
  }
  if (!current.isEmpty || parts.length === 0) {
    parts.push(current);
  }
  if (parts.length > 0xffffffff) {
    throw buildError(`the tick's datagrams run out of numbers: first frame ${header.frame}`);
  }
  return parts.map((b) => {
    b.setParts(parts.length);
    return b.finish();
  });
}

/** How a subscription encodes. */
export interface SubscriptionConfig {
  /** Metres per quantization step (an f32). */
  readonly precision: number;
  /** Bytes a datagram takes at most (header counted at its longest). */
  readonly maxDatagram: number;
  /** Datagrams remembered for their ack; an ack of an older one is ignored. */
  readonly sentWindow: bigint;
}

/** The default {@link SubscriptionConfig}: 0.01 m, 1,200 bytes, 1,024 datagrams. */
export const DEFAULT_SUBSCRIPTION: SubscriptionConfig = {
  precision: 0.01,
  maxDatagram: 1200,
  sentWindow: 1024n,
};

/** One thing the world does during a tick. */
export type WorldOp =
  | {
      readonly kind: "spawn";
      readonly id: bigint;
      readonly position: readonly [number, number, number];
      readonly components: readonly [number, Uint8Array][];
    }
  | { readonly kind: "despawn"; readonly id: bigint }
  | {
      readonly kind: "move";
      readonly id: bigint;
      readonly position: readonly [number, number, number];
    }
  | { readonly kind: "set"; readonly id: bigint; readonly type: number; readonly data: Uint8Array }
  | { readonly kind: "remove"; readonly id: bigint; readonly type: number }
  | { readonly kind: "full_frame" };

/** What a tick sends: stream frames (reliable, in order) and datagrams (unreliable). */
export interface TickOutput {
  /** Stream frames, in order. */
  stream: StreamFrame[];
  /** The tick's datagrams. */
  datagrams: DatagramFrame[];
}

/** What an ack did. */
export interface AckSummary {
  /** The ack named a datagram the window remembers. */
  known: boolean;
  /** Entities it covered. */
  covered: number;
  /** Entities not covered: respawned since, or spawned after the ack's stream tick. */
  notCovered: number;
}

interface Tracked {
  spawnTick: bigint;
  position: [bigint, bigint, bigint];
  positionChanged: [bigint, bigint, bigint];
  /** Per type: the bytes (null: removed, kept until an ack covers it) and the carrier. */
  components: Map<number, [Uint8Array | null, bigint]>;
  ackedFrame: bigint;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sortedTypes<T>(m: Map<number, T>): [number, T][] {
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

function wireComponents(c: Map<number, [Uint8Array | null, bigint]>): ComponentChange[] {
  const out: ComponentChange[] = [];
  for (const [type, [data]] of sortedTypes(c)) {
    if (data !== null) {
      out.push({ type, data });
    }
  }
  return out;
}

/**
 * The server's side of one subscription (DG-11 to DG-16): the world's ops tick by tick in, stream
 * frames and datagrams out; an update carries every axis and component changed since the entity's
 * last acknowledged state (DG-14). At most `sentWindow` datagrams are remembered.
 */
export class Subscription {
  private readonly schema: DatagramSchema;
  private readonly config: SubscriptionConfig;
  private readonly entities = new Map<bigint, Tracked>();
  private nextFrame = 1n;
  private streamTickValue = 0n;
  private lastTick: bigint | undefined = undefined;
  private readonly sent = new Map<bigint, [bigint, bigint][]>();

  /** A subscription to an empty world. */
  constructor(schema: DatagramSchema, config: SubscriptionConfig = DEFAULT_SUBSCRIPTION) {
    this.schema = schema;
    this.config = config;
  }

  /** The tick of the last stream frame sent. */
  get streamTick(): bigint {
    return this.streamTickValue;
  }

  /** Datagrams remembered for their acks. */
  get remembered(): number {
    return this.sent.size;
  }

  /**
   * The world as the client should come to hold it: per id (ascending), the spawn tick, the
   * quantized position and the live components by type.
   */
  world(): [bigint, bigint, [bigint, bigint, bigint], Map<number, Uint8Array>][] {
    return [...this.entities.keys()].sort(byId).map((id) => {
      const e = this.entities.get(id)!;
      const comps = new Map<number, Uint8Array>();
      for (const [t, [d]] of sortedTypes(e.components)) {
        if (d !== null) {
          comps.set(t, d);
        }
      }
      return [id, e.spawnTick, [...e.position], comps];
    });
  }

  private q(p: readonly [number, number, number]): [bigint, bigint, bigint] {
    const precision = this.config.precision;
    return [quantize(p[0], precision), quantize(p[1], precision), quantize(p[2], precision)];
  }

  private get(id: bigint): Tracked {
    const e = this.entities.get(id);
    if (e === undefined) {
      throw new SessionError("world", `entity ${id} is not spawned`);
    }
    return e;
  }

  /**
   * One tick: applies `ops` in order, then sends the tick's stream frames and datagrams (or its
   * full frame). An op refused leaves the ops before it applied and the tick unsent.
   */
  tick(tick: bigint, inputAck: bigint, ops: readonly WorldOp[]): TickOutput {
    if (this.lastTick !== undefined && tick <= this.lastTick) {
      throw new SessionError("world", `tick ${tick} is not after the last tick ${this.lastTick}`);
    }
    const out: TickOutput = { stream: [], datagrams: [] };
    let full = false;
    const carrier = this.nextFrame;
    const precision = this.config.precision;
    for (const op of ops) {
      switch (op.kind) {
        case "spawn": {
          if (this.entities.has(op.id)) {
            throw new SessionError("world", `entity ${op.id} is already spawned`);
          }
          const position = this.q(op.position);
          const components = new Map<number, [Uint8Array | null, bigint]>();
          for (const [t, d] of op.components) {
            components.set(t, [d, 0n]);
          }
          out.stream.push({
            kind: "spawn",
            frame: {
              tick,
              id: op.id,
              precision,
              x: position[0],
              y: position[1],
              z: position[2],
              components: wireComponents(components),
            },
          });
          this.entities.set(op.id, {
            spawnTick: tick,
            position,
            positionChanged: [0n, 0n, 0n],
            components,
            // The spawn frame carries its state; nothing built before it counts.
            ackedFrame: carrier - 1n,
          });
          break;
        }
        case "despawn": {
          const e = this.get(op.id);
          this.entities.delete(op.id);
          if (e.spawnTick === tick) {
            // Spawned and despawned within this tick: the client never sees it.
            out.stream = out.stream.filter((f) => !(f.kind === "spawn" && f.frame.id === op.id));
          } else {
            out.stream.push({ kind: "despawn", frame: { tick, id: op.id } });
          }
          break;
        }
        case "move": {
          const q = this.q(op.position);
          const e = this.get(op.id);
          for (let axis = 0; axis < 3; axis++) {
            if (e.position[axis] !== q[axis]) {
              e.position[axis] = q[axis]!;
              e.positionChanged[axis] = carrier;
            }
          }
          break;
        }
        case "set": {
          const e = this.get(op.id);
          const held = e.components.get(op.type);
          const same = held !== undefined && held[0] !== null && sameBytes(held[0], op.data);
          if (!same) {
            e.components.set(op.type, [op.data, carrier]);
          }
          break;
        }
        case "remove": {
          const e = this.get(op.id);
          const held = e.components.get(op.type);
          if (held !== undefined && held[0] !== null) {
            held[0] = null;
            held[1] = carrier;
          }
          break;
        }
        case "full_frame":
          full = true;
          break;
      }
    }
    this.lastTick = tick;
    if (out.stream.length > 0) {
      this.streamTickValue = tick;
    }
    const ids = [...this.entities.keys()].sort(byId);
    if (full) {
      // A full frame replaces everything the client holds: the tick's other stream frames are
      // in it, and no datagram is sent this tick.
      const entities: FullEntityFrame[] = [];
      for (const id of ids) {
        const e = this.entities.get(id)!;
        for (const [t, c] of [...e.components]) {
          if (c[0] === null) {
            e.components.delete(t);
          } else {
            c[1] = 0n;
          }
        }
        e.positionChanged = [0n, 0n, 0n];
        e.spawnTick = tick;
        e.ackedFrame = this.nextFrame - 1n;
        entities.push({
          id,
          x: e.position[0],
          y: e.position[1],
          z: e.position[2],
          components: wireComponents(e.components),
        });
      }
      out.stream = [{ kind: "full_frame", frame: { tick, precision, entities } }];
      this.streamTickValue = tick;
      return out;
    }
    const m = this.schema.mask;
    const updates: UpdateFrame[] = [];
    for (const id of ids) {
      const e = this.entities.get(id)!;
      // DG-14: whatever changed since the entity's last acknowledged state is sent again until an
      // acknowledgement covers it.
      const due = (changed: bigint) => changed > e.ackedFrame;
      const axes = [0, 1, 2].map((a) => (due(e.positionChanged[a]!) ? e.position[a] : undefined));
      const comps: ComponentChange[] = [];
      for (const [type, [data, changed]] of sortedTypes(e.components)) {
        if (due(changed)) {
          comps.push({ type, data });
        }
      }
      // DG-4: mask bit 1 x, 2 y, 4 z, 8 components.
      const mask =
        (axes[0] !== undefined ? m.x : 0) |
        (axes[1] !== undefined ? m.y : 0) |
        (axes[2] !== undefined ? m.z : 0) |
        (comps.length > 0 ? m.components : 0);
      if (mask === 0) {
        continue;
      }
      updates.push({
        id,
        spawn_tag: spawnTag(e.spawnTick),
        mask,
        x: axes[0],
        y: axes[1],
        z: axes[2],
        components: comps.length > 0 ? comps : undefined,
      });
    }
    const header: DatagramHeader = {
      frame: this.nextFrame,
      tick,
      input_ack: inputAck,
      stream_tick: this.streamTickValue,
      precision,
      parts: 1,
    };
    const datagrams = splitTick(this.schema, header, updates, this.config.maxDatagram);
    for (const d of datagrams) {
      const carried: [bigint, bigint][] = [];
      for (const u of d.updates) {
        const e = this.entities.get(u.id);
        if (e !== undefined) {
          carried.push([u.id, e.spawnTick]);
        }
      }
      this.sent.set(d.frame, carried);
    }
    this.nextFrame += BigInt(datagrams.length);
    const oldest =
      this.nextFrame > this.config.sentWindow ? this.nextFrame - this.config.sentWindow : 0n;
    for (const f of [...this.sent.keys()]) {
      if (f < oldest) {
        this.sent.delete(f);
      }
    }
    out.datagrams = datagrams;
    return out;
  }

  /** Folds the client's ack of one datagram. */
  onAck(ack: DatagramAckFrame): AckSummary {
    const s: AckSummary = { known: false, covered: 0, notCovered: 0 };
    // An ack naming a stream frame never sent is not from our client.
    if (ack.stream_tick > this.streamTickValue) {
      return s;
    }
    const carried = this.sent.get(ack.frame);
    if (carried === undefined) {
      return s;
    }
    s.known = true;
    for (const [id, spawned] of carried) {
      const e = this.entities.get(id);
      // DG-15: an acknowledgement covers an entity only when its stream tick is at or after the
      // entity's spawn. The update must also be for this occupant of the id, not one despawned
      // since.
      if (e === undefined || e.spawnTick !== spawned || ack.stream_tick < e.spawnTick) {
        s.notCovered += 1;
        continue;
      }
      s.covered += 1;
      // A late ack never moves the acknowledged state back.
      if (ack.frame > e.ackedFrame) {
        e.ackedFrame = ack.frame;
      }
      const acked = e.ackedFrame;
      for (const [t, [data, changed]] of [...e.components]) {
        if (data === null && changed <= acked) {
          e.components.delete(t);
        }
      }
    }
    return s;
  }
}

/** One entity as the client holds it. */
export interface Replica {
  /** The tick of the stream frame that spawned it. */
  spawnTick: bigint;
  /** Absolute position in steps. */
  position: [bigint, bigint, bigint];
  /** Components by type. */
  components: Map<number, Uint8Array>;
  /** The number of the last datagram applied to it; 0 before any. */
  lastDatagram: bigint;
}

/**
 * Bounds on what a {@link ReplicaTable} holds, whatever the server sends (GEN-5, docs/limits.md),
 * as the Rust `ReplicaLimits`: `maxEntities` (default 65,536; a spawn beyond is refused), `maxHeld`
 * datagrams held for ticks not yet whole (default 256; beyond, the oldest tick held is given up,
 * never acked, so the server sends it again), `maxComponentBytes` (default 16 MiB, each component
 * counted at its length plus {@link COMPONENT_OVERHEAD}; past it a spawn is refused and an update
 * skipped whole, its datagram not acked) and `maxHeldBytes` (default 8 MiB of held datagrams, each
 * counted by {@link heldCost}; past it, as past `maxHeld`, the oldest tick held is given up).
 */
export interface ReplicaLimits {
  /** Entities held at most. */
  readonly maxEntities: number;
  /** Datagrams held for ticks that are not whole yet. */
  readonly maxHeld: number;
  /** Component bytes held at most, over every entity. */
  readonly maxComponentBytes: number;
  /** Bytes of datagrams held for ticks not yet whole, as {@link heldCost} counts them. */
  readonly maxHeldBytes: number;
}

/** What each component costs beyond its bytes in {@link ReplicaLimits.maxComponentBytes}. */
export const COMPONENT_OVERHEAD = 64;

/** What a held datagram costs in {@link ReplicaLimits.maxHeldBytes} beyond its updates. */
export const HELD_DATAGRAM_OVERHEAD = 256;

/**
 * What each update of a held datagram costs in {@link ReplicaLimits.maxHeldBytes} beyond its
 * components.
 */
export const HELD_UPDATE_OVERHEAD = 96;

/** The default {@link ReplicaLimits}. */
export const DEFAULT_REPLICA_LIMITS: ReplicaLimits = {
  maxEntities: 1 << 16,
  maxHeld: 256,
  maxComponentBytes: 16 << 20,
  maxHeldBytes: 8 << 20,
};

/**
 * What a held datagram costs in {@link ReplicaLimits.maxHeldBytes}, the same in every language:
 * {@link HELD_DATAGRAM_OVERHEAD}, plus {@link HELD_UPDATE_OVERHEAD} an update, plus each component
 * at its length (0 for a removal) and {@link COMPONENT_OVERHEAD}.
 */
export function heldCost(d: DatagramFrame): number {
  let sum = HELD_DATAGRAM_OVERHEAD;
  for (const u of d.updates) {
    sum += HELD_UPDATE_OVERHEAD;
    for (const c of u.components ?? []) {
      sum += (c.data === null ? 0 : c.data.length) + COMPONENT_OVERHEAD;
    }
  }
  return sum;
}

/** What one datagram, or one stream frame, did to the table. */
export interface DatagramSummary {
  /** The datagram is held until its tick is whole. */
  held: boolean;
  /** Datagrams applied during the call. */
  released: number;
  /** Updates applied. */
  applied: number;
  /** Updates skipped: their spawn tag is not the entity's. */
  skippedSpawnTag: number;
  /** Updates skipped: not newer than the last applied to the entity. */
  skippedStale: number;
  /** Updates skipped: no entity has their id. */
  skippedUnknown: number;
  /** Held datagrams given up for room. */
  givenUp: number;
  /** Stream frames refused, and entities of a full frame refused for the limits. */
  refused: number;
  /** Updates skipped whole for the component byte limit. */
  skippedOverBytes: number;
}

interface HeldTick {
  parts: number;
  streamTick: bigint;
  datagrams: Map<bigint, DatagramFrame>;
  /** What `datagrams` cost, as {@link ReplicaLimits.maxHeldBytes} counts them. */
  bytes: number;
}

function componentCost(bytes: Uint8Array): number {
  return bytes.length + COMPONENT_OVERHEAD;
}

function cost(components: Map<number, Uint8Array>): number {
  let sum = 0;
  for (const c of components.values()) {
    sum += componentCost(c);
  }
  return sum;
}

/** The table's component bytes once `changes` apply onto `components`; undefined below zero. */
function costAfter(
  held: number,
  components: Map<number, Uint8Array>,
  changes: readonly ComponentChange[],
): number | undefined {
  const after = new Map<number, number>();
  for (const c of changes) {
    after.set(c.type, c.data === null ? 0 : componentCost(c.data));
  }
  let sum = held;
  for (const [t, n] of sortedTypes(after)) {
    const old = components.get(t);
    sum -= old === undefined ? 0 : componentCost(old);
    if (sum < 0) {
      return undefined;
    }
    sum += n;
  }
  return sum;
}

function whole(components: readonly ComponentChange[]): Map<number, Uint8Array> {
  const m = new Map<number, Uint8Array>();
  for (const c of components) {
    if (c.data !== null) {
      m.set(c.type, c.data);
    }
  }
  return m;
}

function emptySummary(): DatagramSummary {
  return {
    held: false,
    released: 0,
    applied: 0,
    skippedSpawnTag: 0,
    skippedStale: 0,
    skippedUnknown: 0,
    givenUp: 0,
    refused: 0,
    skippedOverBytes: 0,
  };
}

/**
 * The client's replica table (DG-17 to DG-23). Stream frames go to {@link ReplicaTable.applyStream}
 * in stream order, datagrams to {@link ReplicaTable.receive} as they arrive; a datagram is acked
 * when its updates have been applied (or skipped), never while it is only held.
 */
export class ReplicaTable {
  private readonly entities = new Map<bigint, Replica>();
  private streamTickValue = 0n;
  private inputAckValue = 0n;
  private wholeTickValue: bigint | undefined = undefined;
  private held = new Map<bigint, HeldTick>();
  private heldCount = 0;
  private heldBytesValue = 0;
  private acks: DatagramAckFrame[] = [];
  private componentBytesValue = 0;
  private readonly limits: ReplicaLimits;

  /** An empty table keeping `limits`. */
  constructor(limits: ReplicaLimits = DEFAULT_REPLICA_LIMITS) {
    this.limits = limits;
  }

  /** The tick of the last stream frame applied. */
  get streamTick(): bigint {
    return this.streamTickValue;
  }

  /** The input ack of the newest whole tick. */
  get inputAck(): bigint {
    return this.inputAckValue;
  }

  /** The newest tick that was whole. */
  get wholeTick(): bigint | undefined {
    return this.wholeTickValue;
  }

  /** Datagrams held for ticks that are not whole yet. */
  get heldDatagrams(): number {
    return this.heldCount;
  }

  /** What the held datagrams cost, as {@link ReplicaLimits.maxHeldBytes} counts them. */
  get heldBytes(): number {
    return this.heldBytesValue;
  }

  /** Component bytes held, as {@link ReplicaLimits.maxComponentBytes} counts them. */
  get componentBytes(): number {
    return this.componentBytesValue;
  }

  /** How many entities are held. */
  get size(): number {
    return this.entities.size;
  }

  /** Every entity held, ascending by id. */
  list(): [bigint, Replica][] {
    return [...this.entities.keys()].sort(byId).map((id) => [id, this.entities.get(id)!]);
  }

  /** The entity `id`, if held. */
  entity(id: bigint): Replica | undefined {
    return this.entities.get(id);
  }

  /** The acks to send, in order; a second call returns nothing new. */
  takeAcks(): DatagramAckFrame[] {
    const a = this.acks;
    this.acks = [];
    return a;
  }

  /** Applies one stream frame, in stream order. */
  applyStream(f: StreamFrame): DatagramSummary {
    const s = emptySummary();
    const tick = f.frame.tick;
    if (tick < this.streamTickValue) {
      // The stream is ordered; a frame from before the last one applied is not ours.
      s.refused += 1;
      return s;
    }
    this.streamTickValue = tick;
    switch (f.kind) {
      case "spawn": {
        const g = f.frame;
        const ok = this.admit(g.id, {
          spawnTick: g.tick,
          position: [g.x, g.y, g.z],
          components: whole(g.components),
          lastDatagram: 0n,
        });
        if (!ok) {
          s.refused += 1;
        }
        break;
      }
      case "despawn": {
        const gone = this.entities.get(f.frame.id);
        if (gone !== undefined) {
          this.entities.delete(f.frame.id);
          this.componentBytesValue -= cost(gone.components);
        }
        break;
      }
      case "full_frame": {
        // DG-17: a full frame replaces everything the client holds, and every entity in it counts
        // as spawned at its tick.
        this.entities.clear();
        this.componentBytesValue = 0;
        for (const e of f.frame.entities) {
          const ok = this.admit(e.id, {
            spawnTick: f.frame.tick,
            position: [e.x, e.y, e.z],
            components: whole(e.components),
            lastDatagram: 0n,
          });
          if (!ok) {
            s.refused += 1;
          }
        }
        break;
      }
    }
    this.release(s);
    return s;
  }

  private admit(id: bigint, replica: Replica): boolean {
    const old = this.entities.get(id);
    const replaced = old === undefined ? undefined : cost(old.components);
    if (replaced === undefined && this.entities.size >= this.limits.maxEntities) {
      return false;
    }
    const bytes = this.componentBytesValue - (replaced ?? 0) + cost(replica.components);
    if (bytes > this.limits.maxComponentBytes) {
      return false;
    }
    this.componentBytesValue = bytes;
    this.entities.set(id, replica);
    return true;
  }

  /** Takes one datagram: applies it when its tick (or a later one) is whole, holds it otherwise. */
  receive(d: DatagramFrame): DatagramSummary {
    const s = emptySummary();
    // DG-21: the client applies a tick's datagrams, and takes its input ack, when the tick or a
    // later one is whole.
    if (
      this.wholeTickValue !== undefined &&
      d.tick <= this.wholeTickValue &&
      d.stream_tick <= this.streamTickValue
    ) {
      this.apply(d, s);
      return s;
    }
    let h = this.held.get(d.tick);
    if (h === undefined) {
      h = { parts: d.parts, streamTick: 0n, datagrams: new Map(), bytes: 0 };
      this.held.set(d.tick, h);
    }
    if (d.stream_tick > h.streamTick) {
      h.streamTick = d.stream_tick;
    }
    if (!h.datagrams.has(d.frame)) {
      const bytes = heldCost(d);
      h.datagrams.set(d.frame, d);
      h.bytes += bytes;
      this.heldBytesValue += bytes;
      this.heldCount += 1;
    }
    s.held = true;
    this.release(s);
    // Memory stays bounded whatever the server sends: give up the oldest ticks held.
    while (this.heldCount > this.limits.maxHeld || this.heldBytesValue > this.limits.maxHeldBytes) {
      const oldest = [...this.held.keys()].sort(byId)[0];
      if (oldest === undefined) {
        break;
      }
      const t = this.held.get(oldest)!;
      this.held.delete(oldest);
      this.heldCount -= t.datagrams.size;
      this.heldBytesValue -= t.bytes;
      s.givenUp += t.datagrams.size;
    }
    return s;
  }

  private release(s: DatagramSummary): void {
    // DG-21: a tick is whole when the client holds all of its datagrams and the stream frame they
    // name.
    const ticks = [...this.held.keys()].sort(byId);
    let wholeTick: bigint | undefined;
    for (let i = ticks.length - 1; i >= 0; i--) {
      const t = ticks[i]!;
      const h = this.held.get(t)!;
      const complete =
        h.datagrams.size >= h.parts ||
        (this.wholeTickValue !== undefined && t <= this.wholeTickValue);
      if (complete && h.streamTick <= this.streamTickValue) {
        wholeTick = t;
        break;
      }
    }
    if (wholeTick === undefined) {
      return;
    }
    let newestAck: bigint | undefined;
    for (const t of ticks) {
      if (t > wholeTick) {
        break;
      }
      const h = this.held.get(t)!;
      this.held.delete(t);
      this.heldCount -= h.datagrams.size;
      this.heldBytesValue -= h.bytes;
      for (const frame of [...h.datagrams.keys()].sort(byId)) {
        const d = h.datagrams.get(frame)!;
        if (t === wholeTick && (newestAck === undefined || d.input_ack > newestAck)) {
          newestAck = d.input_ack;
        }
        this.apply(d, s);
      }
    }
    if (this.wholeTickValue === undefined || wholeTick > this.wholeTickValue) {
      this.wholeTickValue = wholeTick;
      // DG-21: only then does the input ack describe the table.
      if (newestAck !== undefined) {
        this.inputAckValue = newestAck;
      }
    }
  }

  private apply(d: DatagramFrame, s: DatagramSummary): void {
    s.released += 1;
    // An update for an entity spawned at the last stream tick that the table does not hold
    // (yet) means that tick's stream frames may still be coming: the ack then names the tick
    // before, all of whose frames are surely in.
    const doubtfulTag = spawnTag(this.streamTickValue);
    let doubtful = false;
    let refused = false;
    for (const u of d.updates) {
      const e = this.entities.get(u.id);
      if (e === undefined) {
        doubtful ||= u.spawn_tag === doubtfulTag;
        s.skippedUnknown += 1;
        continue;
      }
      // DG-18: an update applies only to the entity spawned at the tick its tag names.
      if (u.spawn_tag !== spawnTag(e.spawnTick)) {
        doubtful ||= u.spawn_tag === doubtfulTag;
        s.skippedSpawnTag += 1;
        continue;
      }
      // DG-19: an update from a datagram not newer than the last one applied to its entity is
      // skipped.
      if (d.frame <= e.lastDatagram) {
        s.skippedStale += 1;
        continue;
      }
      const changes = u.components ?? [];
      const bytes = costAfter(this.componentBytesValue, e.components, changes);
      if (bytes === undefined || bytes > this.limits.maxComponentBytes) {
        // ReplicaLimits.maxComponentBytes: refused whole, before any of it applies.
        s.skippedOverBytes += 1;
        refused = true;
        continue;
      }
      this.componentBytesValue = bytes;
      e.lastDatagram = d.frame;
      if (u.x !== undefined) {
        e.position[0] = u.x;
      }
      if (u.y !== undefined) {
        e.position[1] = u.y;
      }
      if (u.z !== undefined) {
        e.position[2] = u.z;
      }
      for (const c of changes) {
        if (c.data !== null) {
          e.components.set(c.type, c.data);
        } else {
          e.components.delete(c.type);
        }
      }
      s.applied += 1;
    }
    if (refused) {
      return;
    }
    // DG-22: the acknowledgement carries the datagram's number and the last stream tick applied.
    const st = this.streamTickValue;
    this.acks.push({ frame: d.frame, stream_tick: doubtful && st > 0n ? st - 1n : st });
  }

  /**
   * The canonical bytes the state hash is the FNV-1a of: `u64 stream_tick, u64 input_ack, u32
   * entity count`, then per entity in ascending id `u64 id, u64 spawn_tick, i64 x, i64 y, i64
   * z, u32 component count`, then per component in ascending type `u8 type, u32 length,
   * bytes`; every integer little endian.
   */
  canonicalBytes(): Uint8Array {
    let n = 20;
    for (const e of this.entities.values()) {
      n += 44;
      for (const c of e.components.values()) {
        n += 5 + c.length;
      }
    }
    const out = new Uint8Array(n);
    const v = new DataView(out.buffer);
    let at = 0;
    const u64 = (x: bigint) => {
      v.setBigUint64(at, BigInt.asUintN(64, x), true);
      at += 8;
    };
    const u32 = (x: number) => {
      v.setUint32(at, x >>> 0, true);
      at += 4;
    };
    u64(this.streamTickValue);
    u64(this.inputAckValue);
    u32(this.entities.size);
    for (const id of [...this.entities.keys()].sort(byId)) {
      const e = this.entities.get(id)!;
      u64(id);
      u64(e.spawnTick);
      for (const p of e.position) {
        u64(p);
      }
      u32(e.components.size);
      for (const [t, bytes] of sortedTypes(e.components)) {
        out[at++] = t & 0xff;
        u32(bytes.length);
        out.set(bytes, at);
        at += bytes.length;
      }
    }
    return out;
  }

  /** FNV-1a 32 of {@link ReplicaTable.canonicalBytes}. */
  stateHash(): number {
    return fnv1a32(this.canonicalBytes());
  }
}

function decoding<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new SessionError("decode", e instanceof Error ? e.message : String(e), e);
  }
}

function encoding(f: () => Uint8Array): Uint8Array {
  try {
    return f();
  } catch (e) {
    throw new SessionError("encode", e instanceof Error ? e.message : String(e), e);
  }
}

/** What the datagram server's world does on a tick. */
export interface DatagramTick {
  /** The highest client_seq the shard has processed. */
  readonly inputAck: bigint;
  /** The world's ops, in order. */
  readonly ops: readonly WorldOp[];
}

/**
 * The server's half: a {@link Subscription}. A tick takes the shard's input ack and the world's
 * ops; stream frames go reliable, datagrams unreliable. A frame is a `datagram_ack`.
 */
export class DatagramServer implements SessionHalf<DatagramTick, AckSummary> {
  /** The machine, for its lower-level methods. */
  readonly sub: Subscription;
  private readonly schema: DatagramSchema;
  /**
   * What is yet to be polled. The tick's stream frames join it whatever its length (they are
   * the half's own, reliable, and never dropped); a datagram joins it as {@link Outbox.push}
   * does, dropping the oldest unreliable frame at MAX_QUEUED, as the Rust half's queue does.
   */
  private queue: Transmit[] = [];
  private head = 0;

  /** The half over `sub`. */
  constructor(schema: DatagramSchema, sub: Subscription) {
    this.schema = schema;
    this.sub = sub;
  }

  handleFrame(_now: Now, frame: string, bytes: Uint8Array): AckSummary {
    if (frame !== this.schema.names.ack) {
      throw new SessionError("unexpected_frame", `unexpected frame \`${frame}\``);
    }
    return this.sub.onAck(decoding(() => this.schema.decodeAck(bytes)));
  }

  handleTick(now: Now, input: DatagramTick): void {
    if (!Number.isInteger(now.tick) || now.tick < 0) {
      throw new SessionError("tick_range", "ticks are u64 on the wire");
    }
    const out = this.sub.tick(BigInt(now.tick), input.inputAck, input.ops);
    const s = this.schema;
    for (const f of out.stream) {
      const [frame, bytes] =
        f.kind === "spawn"
          ? [s.names.spawn, encoding(() => s.encodeSpawn(f.frame))]
          : f.kind === "despawn"
            ? [s.names.despawn, encoding(() => s.encodeDespawn(f.frame))]
            : [s.names.fullFrame, encoding(() => s.encodeFullFrame(f.frame))];
      this.queue.push({ frame, bytes, reliable: true });
    }
    for (const d of out.datagrams) {
      if (this.queue.length - this.head >= MAX_QUEUED) {
        for (let i = this.head; i < this.queue.length; i++) {
          if (!this.queue[i]!.reliable) {
            this.queue.splice(i, 1);
            break;
          }
        }
      }
      this.queue.push({
        frame: s.names.datagram,
        bytes: encoding(() => s.encodeDatagram(d)),
        reliable: false,
      });
    }
  }

  pollTransmit(): Transmit | undefined {
    if (this.head >= this.queue.length) {
      return undefined;
    }
    const t = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    return t;
  }
}

/**
 * The client's half: a {@link ReplicaTable}. A frame is a `datagram` or a stream frame
 * (`spawn`, `despawn`, `full_frame`); its `datagram_ack`s are polled.
 */
export class DatagramClient implements SessionHalf<void, DatagramSummary> {
  /** The machine, for its lower-level methods. */
  readonly table: ReplicaTable;
  private readonly schema: DatagramSchema;
  private readonly out = new Outbox();

  /** The half over `table`. */
  constructor(schema: DatagramSchema, table: ReplicaTable = new ReplicaTable()) {
    this.schema = schema;
    this.table = table;
  }

  handleFrame(_now: Now, frame: string, bytes: Uint8Array): DatagramSummary {
    const s = this.schema;
    let summary: DatagramSummary;
    if (frame === s.names.datagram) {
      summary = this.table.receive(decoding(() => s.decodeDatagram(bytes)));
    } else if (frame === s.names.spawn) {
      summary = this.table.applyStream({
        kind: "spawn",
        frame: decoding(() => s.decodeSpawn(bytes)),
      });
    } else if (frame === s.names.despawn) {
      summary = this.table.applyStream({
        kind: "despawn",
        frame: decoding(() => s.decodeDespawn(bytes)),
      });
    } else if (frame === s.names.fullFrame) {
      summary = this.table.applyStream({
        kind: "full_frame",
        frame: decoding(() => s.decodeFullFrame(bytes)),
      });
    } else {
      throw new SessionError("unexpected_frame", `unexpected frame \`${frame}\``);
    }
    for (const a of this.table.takeAcks()) {
      this.out.push({ frame: s.names.ack, bytes: encoding(() => s.encodeAck(a)), reliable: false });
    }
    return summary;
  }

  handleTick(_now: Now, _input: void): void {}

  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}
