/**
 * NetBaseline snapshots (`docs/spec/baseline.md`), both halves, as the Rust codec's `baseline`
 * module: the server's {@link SnapshotWriter} over a {@link NetBaseline} and a {@link Scene} under
 * a byte budget, and the client's {@link SnapshotClient}, which applies snapshots and acknowledges
 * them. A {@link BaselineSchema} binds them to a protocol's `snapshot` and `snapshot_ack` frames
 * and its components.
 *
 * NB-7: a component goes in full when its encoded bits are not the confirmed ones; what changes is
 * presence, never values, so each entry reads from its packet alone and a new client's first
 * snapshot holds the whole world.
 *
 * Choices the specification makes, made as the Rust machines make them: an entity's component set
 * only grows (a component is removed by replacing the entity); the client acknowledges a snapshot
 * when it applies it and drops, unacknowledged, one not newer than the last applied; what a
 * connection is owed is bounded ({@link BaselineLimits}), past which the writer reports the
 * connection stalled instead of forgetting what it owes.
 *
 * Sans-IO: nothing here reads a clock or opens a socket.
 */

import { fnv1a32 } from "./fnv.js";
import {
  type Now,
  Outbox,
  SessionError,
  type SessionHalf,
  type Transmit,
  expectFrame,
} from "./half.js";

/** An entity: a slot (24 bits on the wire) and the occupant's generation (u8). */
export interface EntityId {
  /** The slot. */
  readonly slot: number;
  /** The occupant's generation. */
  readonly generation: number;
}

/** One entry of a snapshot body, its slot as the wire's gap. */
export interface WireEntry<C> {
  /** Slot minus the previous entry's slot minus one (the first entry: its slot). */
  readonly gap: number;
  /** The occupant's generation. */
  readonly generation: number;
  /** Its components by schema index, `undefined` where not carried. */
  readonly components: readonly (C | undefined)[];
}

/** A snapshot as the schema's codec gives it. */
export interface SnapshotFrame<C> {
  /** The u16 sequence. */
  readonly sequence: number;
  /** Lost entities, ascending by slot. */
  readonly lost: readonly EntityId[];
  /** Entries, ascending by slot. */
  readonly entries: readonly WireEntry<C>[];
}

/** What binds the baseline halves to a protocol: its frames, components and bit costs. */
export interface BaselineSchema<C> {
  /** The snapshot frame's name in the spec (`snapshot`). */
  readonly snapshotFrame: string;
  /** The acknowledgement's name (`snapshot_ack`). */
  readonly ackFrame: string;
  /** Component types, in schema order (the mask's bit order). */
  readonly componentTypes: number;
  /** ACK_WINDOW (NB-10): snapshots held unconfirmed at most, less one. */
  readonly ackWindow: number;
  /** Lost entities one snapshot names at most. */
  readonly maxLostPerSnapshot: number;
  /** Bytes of a snapshot before its body. */
  readonly headerBytes: number;
  /** Body bits around the lists (the counts). */
  readonly countBits: number;
  /** An entry's bits before its components, at their longest. */
  readonly entryHeadBits: number;
  /** Bits a lost entity takes. */
  readonly lostBits: number;
  /** Component `index`'s encoded bits, padded to a byte; throws the codec's EncodeError. */
  componentBits(index: number, value: C): Uint8Array;
  /** Bits component `index` takes in a body. */
  componentBitLen(index: number, value: C): number;
  /** Decodes a snapshot; throws the codec's DecodeError. */
  decodeSnapshot(bytes: Uint8Array): SnapshotFrame<C>;
  /** Encodes a snapshot. */
  encodeSnapshot(s: SnapshotFrame<C>): Uint8Array;
  /** Decodes an acknowledgement's sequence; throws the codec's DecodeError. */
  decodeAck(bytes: Uint8Array): number;
  /** Encodes the acknowledgement of `sequence`. */
  encodeAck(sequence: number): Uint8Array;
}

/**
 * Whether u16 sequence `a` is newer than `b` (NB-6: wrapping, newer when `a - b` is in 1..=32767).
 */
export function sequenceNewer(a: number, b: number): boolean {
  const d = (a - b) & 0xffff;
  return d !== 0 && d < 0x8000;
}

/** An entity as a number: slot * 256 + generation, ordered as (slot, generation). */
function idKey(e: EntityId): number {
  return e.slot * 256 + e.generation;
}

function idOf(key: number): EntityId {
  return { slot: Math.floor(key / 256), generation: key % 256 };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      return false;
    }
  }
  return true;
}

/** Where `key` is, or would go, in the ascending `list`. */
function search(list: number[], key: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** One live entity of a {@link Scene}. */
export interface SceneEntity<C> {
  /** The occupant's generation. */
  readonly generation: number;
  /** The client that owns it, if any. */
  readonly owner: number | undefined;
  /** Its components by schema index, each with its encoded bits. */
  readonly components: ([C, Uint8Array] | undefined)[];
}

/** The world: at most one live occupant per slot. */
export class Scene<C> {
  private readonly schema: BaselineSchema<C>;
  private readonly entities = new Map<number, SceneEntity<C>>();

  /** An empty world of `schema`'s components. */
  constructor(schema: BaselineSchema<C>) {
    this.schema = schema;
  }

  /** Puts a new occupant in its slot (replacing any), with no components. */
  spawn(entity: EntityId, owner: number | undefined): void {
    if (!Number.isInteger(entity.slot) || entity.slot < 0 || entity.slot >= 1 << 24) {
      throw new SessionError("world", `slot ${entity.slot} does not fit 24 bits`);
    }
    this.entities.set(entity.slot, {
      generation: entity.generation,
      owner,
      components: new Array<[C, Uint8Array] | undefined>(this.schema.componentTypes).fill(
        undefined,
      ),
    });
  }

  /** Removes the occupant of `slot`. */
  despawn(slot: number): void {
    this.entities.delete(slot);
  }

  /** Sets component `index` of the occupant of `slot`. */
  set(slot: number, index: number, value: C): void {
    let bits: Uint8Array;
    try {
      bits = this.schema.componentBits(index, value);
    } catch (e) {
      throw new SessionError("world", `the component does not encode: ${String(e)}`, e);
    }
    const e = this.entities.get(slot);
    if (e === undefined) {
      throw new SessionError("world", `slot ${slot} is empty`);
    }
    e.components[index] = [value, bits];
  }

  /** Whether `entity` (that slot, that generation) is alive. */
  alive(entity: EntityId): boolean {
    return this.entities.get(entity.slot)?.generation === entity.generation;
  }

  /** The live entities, ascending by slot. */
  list(): [EntityId, SceneEntity<C>][] {
    return [...this.entities.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([slot, e]) => [{ slot, generation: e.generation }, e]);
  }

  /** How many entities live. */
  get size(): number {
    return this.entities.size;
  }
}

interface Confirmed {
  bits: Uint8Array;
  sequence: number;
  extended: number;
}

/** What a written snapshot claimed, held until it is acknowledged. */
interface Pending {
  sequence: number;
  lost: number[];
  entries: [number, number, Uint8Array][];
}

/**
 * What one connection is known to hold (NB-8): what a snapshot said is held until it is
 * acknowledged, or a lost snapshot's content would never go again; per connection, since
 * connections lose different packets. Keyed by entity (slot and generation), never by slot alone.
 * Entities found dead are kept apart, so a write's cost does not grow with how many died.
 */
export class NetBaseline {
  private readonly ackWindow: number;
  private readonly types: number;
  private readonly records = new Map<number, (Confirmed | undefined)[]>();
  /** Entities told about and found dead, ascending, until their loss is confirmed. */
  private lost: number[] = [];
  private pending: [number, Pending][] = [];
  private newest: number | undefined = undefined;
  /** Entities {@link NetBaseline.gatherLost} has looked at, over the baseline's life. */
  examined = 0;

  /** Nothing held; snapshots older than the newest by more than `ackWindow` expire. */
  constructor(types: number, ackWindow: number) {
    this.types = types;
    this.ackWindow = ackWindow;
  }

  /** `sequence` extended past its wraps, relative to the newest seen. */
  private extend(sequence: number): number {
    if (this.newest === undefined) {
      return 2 ** 40 + sequence;
    }
    let d = (sequence - (this.newest % 65536)) & 0xffff;
    if (d >= 0x8000) {
      d -= 0x10000;
    }
    return this.newest + d;
  }

  private record(): (Confirmed | undefined)[] {
    return new Array<Confirmed | undefined>(this.types).fill(undefined);
  }

  /** What is confirmed for `entity`'s component `index` (NB-3: by entity, never by slot). */
  find(entity: EntityId, index: number): Uint8Array | undefined {
    return this.records.get(idKey(entity))?.[index]?.bits;
  }

  /** Holds what a snapshot said until it is confirmed or given up on. */
  hold(pending: Pending): void {
    const extended = this.extend(pending.sequence);
    this.newest = this.newest === undefined ? extended : Math.max(this.newest, extended);
    for (const [entity] of pending.entries) {
      // Told about while alive: an occupant found dead that is alive again is live once more.
      this.removeLost(entity);
      if (!this.records.has(entity)) {
        this.records.set(entity, this.record());
      }
    }
    this.pending = this.pending.filter(([e]) => e !== extended);
    this.pending.push([extended, pending]);
    this.dropOutsideWindow();
  }

  private removeLost(entity: number): void {
    const i = search(this.lost, entity);
    if (this.lost[i] === entity) {
      this.lost.splice(i, 1);
    }
  }

  /** Folds what snapshot `sequence` said into what is confirmed; one not held is ignored. */
  confirm(sequence: number): void {
    const extended = this.extend(sequence);
    const i = this.pending.findIndex(([e]) => e === extended);
    if (i < 0) {
      return;
    }
    const [, pending] = this.pending.splice(i, 1)[0]!;
    for (const [entity, index, bits] of pending.entries) {
      const record = this.records.get(entity);
      if (record === undefined || index >= record.length) {
        continue;
      }
      // NB-9: a component is folded only when its snapshot is newer than what is confirmed, so a
      // late acknowledgement cannot write stale bits over fresh ones.
      const held = record[index];
      if (held === undefined || held.extended < extended) {
        record[index] = { bits, sequence, extended };
      }
    }
    // The client removed them: forget them, so they are no longer reported.
    for (const entity of pending.lost) {
      this.removeLost(entity);
    }
  }

  /** Gives up on everything older than `sequence` by more than the window. */
  expire(sequence: number): void {
    const extended = this.extend(sequence);
    this.newest = this.newest === undefined ? extended : Math.max(this.newest, extended);
    this.dropOutsideWindow();
  }

  private dropOutsideWindow(): void {
    const newest = this.newest;
    if (newest === undefined) {
      return;
    }
    const keep: [number, Pending][] = [];
    const expired: [number, Pending][] = [];
    for (const p of this.pending) {
      (p[0] <= newest && newest - p[0] <= this.ackWindow ? keep : expired).push(p);
    }
    this.pending = keep;
    for (const [extended, pending] of expired) {
      // The client may have applied it (its ack lost or late): what is confirmed older no
      // longer describes the client, so the next snapshot says the component again.
      for (const [entity, index] of pending.entries) {
        const record = this.records.get(entity);
        const held = record?.[index];
        if (record !== undefined && held !== undefined && held.extended < extended) {
          record[index] = undefined;
        }
      }
    }
  }

  /**
   * Entities told about that are no longer alive, ascending: the first `atMost` are appended to
   * `out`. NB-11: a lost entity is named until a confirmed snapshot has named it, so destruction is
   * reliable; keyed by entity, not slot (NB-3), since a reused slot is alive in both snapshots.
   */
  gatherLost<C>(scene: Scene<C>, atMost: number, out: EntityId[]): void {
    let examined = 0;
    for (const entity of [...this.records.keys()]) {
      examined += 1;
      if (!scene.alive(idOf(entity))) {
        this.records.delete(entity);
        const i = search(this.lost, entity);
        if (this.lost[i] !== entity) {
          this.lost.splice(i, 0, entity);
        }
      }
    }
    let taken = 0;
    const aliveAgain: number[] = [];
    for (const entity of this.lost) {
      if (taken === atMost) {
        break;
      }
      examined += 1;
      if (scene.alive(idOf(entity))) {
        aliveAgain.push(entity);
      } else {
        out.push(idOf(entity));
        taken += 1;
      }
    }
    for (const entity of aliveAgain) {
      this.removeLost(entity);
      this.records.set(entity, this.record());
    }
    this.examined += examined;
  }

  /** Forgets everything (NB-13: for a world replaced under a live session). */
  clear(): void {
    this.records.clear();
    this.lost = [];
    this.pending = [];
  }

  /** Snapshots held, waiting for their acknowledgement. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Entities told about and not yet confirmed lost. */
  get told(): number {
    return this.records.size + this.lost.length;
  }

  /** Entities found dead whose loss the connection has not confirmed: what it is owed. */
  get owedLost(): number {
    return this.lost.length;
  }
}

/**
 * Bounds on what a {@link SnapshotWriter} keeps, whatever the client does: `maxOwedLost` lost
 * entities the connection may be owed (default 65,536, as the Rust `BaselineLimits`). Past it the
 * connection is stalled: {@link SnapshotWriter.write} throws a SessionError (`limit`) and writes
 * nothing, since forgetting what is owed would be a lie to the client (NB-14).
 */
export interface BaselineLimits {
  /** Lost entities the connection may be owed. */
  readonly maxOwedLost: number;
}

/** The default {@link BaselineLimits}. */
export const DEFAULT_BASELINE_LIMITS: BaselineLimits = { maxOwedLost: 1 << 16 };

/** One connection's snapshot writer (NB-7 to NB-14, with NB-12's budget order). */
export class SnapshotWriter<C> {
  private readonly schema: BaselineSchema<C>;
  /** What the connection is known to hold. */
  readonly baseline: NetBaseline;
  private nextSequence: number;
  private readonly budget: number;
  private readonly client: number | undefined;
  private unconfirmedSince = new Map<number, number>();
  private written = 0;
  private readonly limits: BaselineLimits;

  /** A writer for `client`'s connection, snapshots of at most `budget` bytes from `first`. */
  constructor(
    schema: BaselineSchema<C>,
    client: number | undefined,
    budget: number,
    first: number,
    limits: BaselineLimits = DEFAULT_BASELINE_LIMITS,
  ) {
    this.schema = schema;
    this.baseline = new NetBaseline(schema.componentTypes, schema.ackWindow);
    this.client = client;
    this.budget = budget;
    this.nextSequence = first & 0xffff;
    this.limits = limits;
  }

  /** Folds the client's acknowledgement of `sequence`. */
  onAck(sequence: number): void {
    this.baseline.confirm(sequence);
  }

  /** The world was replaced under the live session: forget everything held (NB-13). */
  replaceWorld(): void {
    this.baseline.clear();
    this.unconfirmedSince.clear();
  }

  /**
   * Writes the next snapshot of `scene`. A component goes, whole, when its bits differ from what
   * the connection confirmed (NB-7); under the budget, NB-12's order: owned entities first, then
   * the longest unconfirmed, then by slot. Lost entities go first, at most `maxLostPerSnapshot`.
   */
  write(scene: Scene<C>): SnapshotFrame<C> {
    const s = this.schema;
    const sequence = this.nextSequence;
    const budgetBits = Math.max(0, this.budget - s.headerBytes) * 8;
    let used = s.countBits;
    const fit = Math.floor(Math.max(0, budgetBits - used) / s.lostBits);
    const lost: EntityId[] = [];
    this.baseline.gatherLost(scene, Math.min(fit, s.maxLostPerSnapshot), lost);
    const owed = this.baseline.owedLost;
    // NB-11: a lost entity is named until the client confirms a snapshot that named it, so
    // destruction is reliable.
    if (owed > this.limits.maxOwedLost) {
      throw new SessionError(
        "limit",
        `snapshot ${sequence}: the connection is owed ${owed} lost entities, more than ${this.limits.maxOwedLost}`,
      );
    }
    this.nextSequence = (this.nextSequence + 1) & 0xffff;
    this.written += 1;
    this.baseline.expire(sequence);
    used += lost.length * s.lostBits;

    interface Candidate {
      entity: EntityId;
      owned: boolean;
      since: number;
      components: [number, C, Uint8Array][];
    }
    const candidates: Candidate[] = [];
    const still = new Map<number, number>();
    for (const [entity, e] of scene.list()) {
      const components: [number, C, Uint8Array][] = [];
      e.components.forEach((c, t) => {
        if (c === undefined) {
          return;
        }
        const held = this.baseline.find(entity, t);
        if (held === undefined || !sameBytes(held, c[1])) {
          components.push([t, c[0], c[1]]);
        }
      });
      if (components.length === 0) {
        continue;
      }
      const key = idKey(entity);
      const since = this.unconfirmedSince.get(key) ?? this.written;
      still.set(key, since);
      candidates.push({
        entity,
        owned: this.client !== undefined && e.owner === this.client,
        since,
        components,
      });
    }
    this.unconfirmedSince = still;
    candidates.sort(
      (a, b) =>
        Number(!a.owned) - Number(!b.owned) || a.since - b.since || a.entity.slot - b.entity.slot,
    );
    const chosen: Candidate[] = [];
    for (const c of candidates) {
      let bits = s.entryHeadBits;
      for (const [t, v] of c.components) {
        bits += s.componentBitLen(t, v);
      }
      if (used + bits > budgetBits || chosen.length === 0xffff) {
        continue;
      }
      used += bits;
      chosen.push(c);
    }
    chosen.sort((a, b) => a.entity.slot - b.entity.slot);

    const entries: WireEntry<C>[] = [];
    const held: [number, number, Uint8Array][] = [];
    let prev: number | undefined;
    for (const c of chosen) {
      const gap = prev === undefined ? c.entity.slot : c.entity.slot - prev - 1;
      prev = c.entity.slot;
      const components = new Array<C | undefined>(s.componentTypes).fill(undefined);
      for (const [t, v, bits] of c.components) {
        components[t] = v;
        held.push([idKey(c.entity), t, bits]);
      }
      entries.push({ gap, generation: c.entity.generation, components });
    }
    this.baseline.hold({ sequence, lost: lost.map(idKey), entries: held });
    return { sequence, lost, entries };
  }
}

/** One entity as the client holds it. */
export interface ClientEntity<C> {
  /** The occupant's generation. */
  generation: number;
  /** Its components by schema index. */
  components: (C | undefined)[];
}

/** What one snapshot did. */
export interface SnapshotSummary {
  /** Applied and acknowledged. */
  applied: boolean;
  /** Dropped: not newer than the last applied. */
  stale: boolean;
  /** Dropped: its slots run past 24 bits. */
  malformed: boolean;
  /** Entities removed. */
  removed: number;
  /** Lost entities not removed: the slot holds another occupant, or nothing. */
  notOurs: number;
  /** Entities created (or replacing another occupant of their slot). */
  created: number;
  /** Entities updated. */
  updated: number;
  /** Entries refused for room. */
  refused: number;
}

/**
 * The client's side (`docs/spec/baseline.md`): a snapshot newer than the last applied (wrapping
 * u16) is applied and acknowledged; an older one is dropped unacknowledged. At most `maxEntities`
 * are held (default 65,536, as the Rust client); an entry for a new slot past it is refused.
 */
export class SnapshotClient<C> {
  private readonly schema: BaselineSchema<C>;
  private readonly entities = new Map<number, ClientEntity<C>>();
  private lastSeq: number | undefined = undefined;
  private acks: number[] = [];
  private readonly maxEntities: number;

  /** An empty client holding at most `maxEntities`. */
  constructor(schema: BaselineSchema<C>, maxEntities = 1 << 16) {
    this.schema = schema;
    this.maxEntities = maxEntities;
  }

  /** The last snapshot applied. */
  get last(): number | undefined {
    return this.lastSeq;
  }

  /** How many entities are held. */
  get size(): number {
    return this.entities.size;
  }

  /** The sequences to acknowledge; a second call returns nothing new. */
  takeAcks(): number[] {
    const a = this.acks;
    this.acks = [];
    return a;
  }

  /** The world was replaced: drop the table and every snapshot before `firstSequence`. */
  replaceWorld(firstSequence: number): void {
    this.entities.clear();
    this.lastSeq = (firstSequence - 1) & 0xffff;
  }

  /** Applies one snapshot. */
  receive(snapshot: SnapshotFrame<C>): SnapshotSummary {
    const s: SnapshotSummary = {
      applied: false,
      stale: false,
      malformed: false,
      removed: 0,
      notOurs: 0,
      created: 0,
      updated: 0,
      refused: 0,
    };
    if (this.lastSeq !== undefined && !sequenceNewer(snapshot.sequence, this.lastSeq)) {
      s.stale = true;
      return s;
    }
    // Resolve the slot gaps first: a slot past 24 bits makes the snapshot malformed, whole.
    const slots: number[] = [];
    let prev: number | undefined;
    for (const e of snapshot.entries) {
      const slot = prev === undefined ? e.gap : prev + e.gap + 1;
      if (slot >= 1 << 24) {
        s.malformed = true;
        return s;
      }
      slots.push(slot);
      prev = slot;
    }
    for (const lost of snapshot.lost) {
      // By entity: only the occupant named goes.
      if (this.entities.get(lost.slot)?.generation === lost.generation) {
        this.entities.delete(lost.slot);
        s.removed += 1;
      } else {
        s.notOurs += 1;
      }
    }
    snapshot.entries.forEach((e, i) => {
      const slot = slots[i]!;
      const held = this.entities.get(slot);
      if (held !== undefined && held.generation === e.generation) {
        e.components.forEach((c, t) => {
          if (c !== undefined) {
            held.components[t] = c;
          }
        });
        s.updated += 1;
        return;
      }
      if (held === undefined && this.entities.size >= this.maxEntities) {
        s.refused += 1;
        return;
      }
      // Another occupant of the slot: nothing of the old one carries over.
      const components = new Array<C | undefined>(this.schema.componentTypes).fill(undefined);
      e.components.forEach((c, t) => {
        if (t < components.length) {
          components[t] = c;
        }
      });
      this.entities.set(slot, { generation: e.generation, components });
      s.created += 1;
    });
    this.lastSeq = snapshot.sequence;
    this.acks.push(snapshot.sequence);
    s.applied = true;
    return s;
  }

  /**
   * The canonical bytes the state hash is the FNV-1a of: per entity in ascending slot, `u32
   * slot` (little endian), `u8 generation`, `u8 mask` (bit i: component i held), then each
   * held component's bits in schema order, each padded to a byte.
   */
  canonicalBytes(): Uint8Array {
    const parts: number[] = [];
    const slots = [...this.entities.keys()].sort((a, b) => a - b);
    for (const slot of slots) {
      const e = this.entities.get(slot)!;
      parts.push(slot & 0xff, (slot >>> 8) & 0xff, (slot >>> 16) & 0xff, (slot >>> 24) & 0xff);
      parts.push(e.generation & 0xff);
      let mask = 0;
      e.components.forEach((c, i) => {
        if (c !== undefined) {
          mask |= 1 << i;
        }
      });
      parts.push(mask & 0xff);
      e.components.forEach((c, i) => {
        if (c !== undefined) {
          // A decoded value always re-encodes (canonical decoding).
          let bits: Uint8Array = new Uint8Array(0);
          try {
            bits = this.schema.componentBits(i, c);
          } catch {
            // As the Rust client: nothing for a value that would not encode.
          }
          for (const b of bits) {
            parts.push(b);
          }
        }
      });
    }
    return Uint8Array.from(parts);
  }

  /** FNV-1a 32 of {@link SnapshotClient.canonicalBytes}. */
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

/** What a `snapshot_ack` left the baseline server holding. */
export interface BaselineAckReport {
  /** Snapshots sent and not yet confirmed. */
  readonly pending: number;
  /** Entities the client was told about. */
  readonly told: number;
}

/**
 * The server's half: a {@link SnapshotWriter}, one unreliable snapshot a tick of the scene it
 * is given. A frame is a `snapshot_ack`.
 */
export class BaselineServer<C> implements SessionHalf<Scene<C>, BaselineAckReport> {
  /** The machine, for its lower-level methods. */
  readonly writer: SnapshotWriter<C>;
  private readonly schema: BaselineSchema<C>;
  private readonly out = new Outbox();

  /** The half over `writer`. */
  constructor(schema: BaselineSchema<C>, writer: SnapshotWriter<C>) {
    this.schema = schema;
    this.writer = writer;
  }

  handleFrame(_now: Now, frame: string, bytes: Uint8Array): BaselineAckReport {
    expectFrame(frame, this.schema.ackFrame);
    this.writer.onAck(decoding(() => this.schema.decodeAck(bytes)));
    return { pending: this.writer.baseline.pendingCount, told: this.writer.baseline.told };
  }

  handleTick(_now: Now, scene: Scene<C>): void {
    const s = this.writer.write(scene);
    let bytes: Uint8Array;
    try {
      bytes = this.schema.encodeSnapshot(s);
    } catch (e) {
      throw new SessionError("encode", String(e), e);
    }
    this.out.push({ frame: this.schema.snapshotFrame, bytes, reliable: false });
  }

  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}

/** The client's half: a {@link SnapshotClient}; a frame is a `snapshot`, its acks polled. */
export class BaselineClient<C> implements SessionHalf<void, SnapshotSummary> {
  /** The machine, for its lower-level methods. */
  readonly client: SnapshotClient<C>;
  private readonly schema: BaselineSchema<C>;
  private readonly out = new Outbox();

  /** The half over `client`. */
  constructor(schema: BaselineSchema<C>, client: SnapshotClient<C>) {
    this.schema = schema;
    this.client = client;
  }

  handleFrame(_now: Now, frame: string, bytes: Uint8Array): SnapshotSummary {
    expectFrame(frame, this.schema.snapshotFrame);
    const summary = this.client.receive(decoding(() => this.schema.decodeSnapshot(bytes)));
    for (const seq of this.client.takeAcks()) {
      this.out.push({
        frame: this.schema.ackFrame,
        bytes: this.schema.encodeAck(seq),
        reliable: false,
      });
    }
    return summary;
  }

  handleTick(_now: Now, _input: void): void {}

  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}
